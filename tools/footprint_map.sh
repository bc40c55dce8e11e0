#!/usr/bin/env bash
# The breakdown of libedgeq.so for README's "Footprint" (issue 32): relinks //sdk:libedgeq of the
# given configuration with a linker map, then writes OUT/libedgeq.so (unstripped), OUT/libedgeq.map,
# OUT/breakdown.txt (tools/footprint_breakdown.py: by package and object) and OUT/symbols.txt
# (nm -C --size-sort -S, largest first). Run after `bazel build FLAGS //sdk:libedgeq`, with the
# same FLAGS:
#   tools/footprint_map.sh OUT --config=aarch64 --config=selective
set -euo pipefail
out="${1:?usage: tools/footprint_map.sh OUT [bazel flags]}"
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
cmd=$(bazel aquery "$@" 'mnemonic("EdgeqShared", //sdk:libedgeq)' --output=text 2>/dev/null |
  python3 -c '
import re, sys
t = sys.stdin.read()
m = re.search(r"-c \\\n\s*\x27(.*?)\x27\)", t, re.S)
if not m:
    sys.exit("tools/footprint_map.sh: no EdgeqShared action for //sdk:libedgeq in bazel aquery")
print(m.group(1))')
so=$(grep -o -- '-shared -o [^ ]*' <<<"$cmd" | cut -d' ' -f3)
cmd=${cmd/-shared -o $so/-shared -o $out/libedgeq.so}
execroot=$(bazel info "$@" execution_root 2>/dev/null)
printf "cd %q && %s\n" "$execroot" "$cmd" >"$out/link.sh"  # the link command, to try linker flags
(cd "$execroot" && bash -c "$cmd -Wl,-Map=$out/libedgeq.map")
nm=nm strip=strip
if readelf -h "$out/libedgeq.so" | grep -q AArch64; then
  nm=aarch64-linux-gnu-nm strip=aarch64-linux-gnu-strip
fi
"$strip" -o "$out/libedgeq.stripped.so" "$out/libedgeq.so"
echo "stripped: $(stat -c %s "$out/libedgeq.stripped.so") bytes" | tee "$out/breakdown.txt"
python3 "$(dirname "$0")/footprint_breakdown.py" --sections --top=80 "$out/libedgeq.map" \
  >>"$out/breakdown.txt"
"$nm" -C --size-sort -S -r "$out/libedgeq.so" >"$out/symbols.txt"
echo "wrote $out/breakdown.txt and $out/symbols.txt"
