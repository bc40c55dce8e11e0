#!/usr/bin/env bash
# tools/footprint_breakdown.py on a small gold map: placed sections summed by package and object
# (one-line and two-line entries), empty and discarded sections and the "**" lines not counted.
source tests/shell/check.sh
set -uo pipefail
map="$TEST_TMPDIR/t.map"
cat >"$map" <<'MAP'
Discarded input sections

 .text._ZN5edgeq4DeadEv
                0x0000000000000000       0x40 bazel-out/k8-opt/bin/llm/libmodel.pic.a(model.pic.o)

Memory map

 ** file header
                0x0000000000000000       0x40
.text           0x0000000000001000     0x2000
 .text          0x0000000000001000        0x0 bazel-out/k8-opt/bin/llm/libmodel.pic.a(model.pic.o)
 .text._ZN5edgeq3llm5Model4LoadEv
                0x0000000000001000      0x100 bazel-out/k8-opt/bin/llm/libmodel.pic.a(model.pic.o)
 .text.edgeq_llm_load
                0x0000000000001100       0x80 bazel-out/k8-opt/bin/c_api/libc_api.pic.lo(edgeq_c.pic.o)
 .rodata.kTable 0x0000000000002000       0x20 bazel-out/k8-opt/bin/llm/arch/libarch.pic.a(arch_table.pic.o)
 .text          0x0000000000003000       0x10 /usr/lib/x86_64-linux-gnu/crti.o
MAP
out=$(python3 tools/footprint_breakdown.py --sections "$map")
echo "$out"
check "total: placed sections only, not the discarded 0x40 (0x100+0x80+0x20+0x10)" \
  grep -q "^total (placed input sections): 432 bytes$" <<<"$out"
check "llm: 256 bytes of text" grep -Eq "^ +256 +59\.3%  llm  text=256$" <<<"$out"
check "c_api: 128 bytes" grep -Eq "^ +128 +29\.6%  c_api  text=128$" <<<"$out"
check "llm/arch is its own package, rodata" grep -Eq "^ +32 +7\.4%  llm/arch  rodata=32$" <<<"$out"
check "system files grouped" grep -Eq "^ +16 +3\.7%  system  text=16$" <<<"$out"
check "objects named package/file" grep -Eq "^ +256  llm/model$" <<<"$out"
# --frames: each FDE (length + 4, plus 8 of .eh_frame_hdr) to the .text section its pc falls in;
# llm/model is cold code, runtime/kernels/... would be hot, a pc outside every section is "other".
frames="$TEST_TMPDIR/frames.txt"
cat >"$frames" <<'FRAMES'
00000000 0000000000000010 00000000 CIE
00000014 0000000000000014 00000018 FDE cie=00000000 pc=0000000000001010..0000000000001020
00000030 000000000000001c 00000034 FDE cie=00000000 pc=0000000000001100..0000000000001180
00000050 0000000000000014 00000054 FDE cie=00000000 pc=0000000000009000..0000000000009010
FRAMES
out=$(python3 tools/footprint_breakdown.py --frames="$frames" "$map")
echo "$out"
check "unwind total: (0x14+12) + (0x1c+12) + (0x14+12)" \
  grep -q "^unwind tables (.eh_frame FDEs + .eh_frame_hdr entries): 104 bytes$" <<<"$out"
check "llm/model and the C API are cold code" grep -Eq "^ +72  cold$" <<<"$out"
check "the C API's FDE counts for c_api" grep -Eq "^ +40  c_api$" <<<"$out"
check "a pc outside the map's sections is other" grep -Eq "^ +32  other$" <<<"$out"
# lld's map (libedgeq.so's linker): input sections in the In column as FILE:(SECTION), symbols
# and output sections not counted, what lld makes itself grouped as system, .symtab/.strtab left
# out (strip removes them).
lld="$TEST_TMPDIR/lld.map"
cat >"$lld" <<'MAP'
             VMA              LMA     Size Align Out     In      Symbol
             2a8              2a8       18     4 .dynsym
             2a8              2a8       18     4         <internal>:(.dynsym)
            1000             1000      180    16 .text
            1000             1000      100     4         bazel-out/aarch64-opt/bin/llm/libmodel.pic.a(model.pic.o):(.text._ZN5edgeq3llm5Model4LoadEv)
            1000             1000        0     1                 edgeq::llm::Model::Load()
            1100             1100       80     4         bazel-out/aarch64-opt/bin/c_api/libc_api.pic.lo(edgeq_c.pic.o):(.text.edgeq_llm_load)
            1100             1100       80     1                 edgeq_llm_load
            2000             2000       20     8 .eh_frame
            2000             2000       20     1         bazel-out/aarch64-opt/bin/llm/libmodel.pic.a(model.pic.o):(.eh_frame+0x14)
               0                0     4000     8 .symtab
               0                0     4000     8         <internal>:(.symtab)
MAP
out=$(python3 tools/footprint_breakdown.py --sections "$lld")
echo "$out"
check "lld map: total 0x18+0x100+0x80+0x20, no .symtab" \
  grep -q "^total (placed input sections): 440 bytes$" <<<"$out"
check "lld map: llm has its text and its FDE" grep -Eq "^ +288 +65\.5%  llm  eh=32 text=256$" <<<"$out"
check "lld map: the linker's own sections are system" \
  grep -Eq "^ +24 +5\.5%  system  other=24$" <<<"$out"
if python3 tools/footprint_breakdown.py "$TEST_TMPDIR/missing.map" 2>/dev/null; then
  check "a missing map fails" false
fi
finish
