#!/usr/bin/env python3
"""Where the bytes of libedgeq.so come from (README, "Footprint"): a linker map (-Wl,-Map=FILE;
lld's, which links libedgeq.so, or gold's / GNU ld's) summed by package and by object file.

    tools/footprint_breakdown.py MAP [--top=N] [--sections] [--frames=FRAMES]

Every input section the map places in the output (a size, a file) counts towards its file:
bazel-out/<cfg>/bin/llm/libmodel.pic.a(model.pic.o) is package `llm`, object `llm/model`;
system files (/usr/...) are grouped as `system`. Sections of size 0 and the "Discarded input
sections" part of a gold map (what --gc-sections dropped) are not counted; lld's map lists only
placed sections, and what lld makes itself (merged strings, .dynsym, ...) is `<internal>`, grouped
as `system`. With --sections, .text, .rodata, .data.rel.ro and .eh_frame/.gcc_except_table are
reported separately per package.

With --frames (the text of `readelf --debug-dump=frames` of the same unstripped library), the
unwind tables are given to the functions they describe: each FDE (its bytes in .eh_frame, plus its
8-byte entry of .eh_frame_hdr's search table) counts towards the package of the .text section its
first address falls in, and towards "cold" or "hot" code: hot is what .bazelrc keeps at -O2
(runtime/kernels/, runtime/ops/, quantization/'s codecs, llm/sampler), cold everything else of
edgeq's (README, "Footprint": what --config=release_size builds without unwind tables).
"""

import argparse
import bisect
import collections
import itertools
import re
import sys

_SECTION = re.compile(r"^ (\.[^\s]+)(?:\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*))?$")
_CONT = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$")
_BAZEL = re.compile(r"bazel-out/[^/]+/bin/(.*)/[^/(]+\(([^)]+)\)$")
_FDE = re.compile(r"^[0-9a-f]+ ([0-9a-f]+) [0-9a-f]+ FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.")
# lld's map: "VMA LMA Size Align Out In Symbol" columns; an input section is "FILE:(SECTION)" in
# the In column (an output section starts in the Out column, a symbol in the Symbol column).
_LLD_HEADER = re.compile(r"^\s+VMA\s+LMA\s+Size\s+Align\s+Out\s+In\s+Symbol$")
_LLD_INPUT = re.compile(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ {9}(\S.*):\(([^()]*)\)$")
_NOT_LOADED = re.compile(r"^\.(symtab|strtab|shstrtab|comment|debug)")
# The hot path of .bazelrc's -Os line (the files it leaves out).
_HOT = re.compile(r"^runtime/(kernels|ops)(/|$)|^quantization/(?!encoding$|codec_table$)|^llm/sampler$")


def _kind(section):
    for prefix, kind in ((".text", "text"), (".rodata", "rodata"), (".data.rel.ro", "relro"),
                         (".gcc_except_table", "eh"), (".eh_frame", "eh"), (".data", "data"),
                         (".bss", "bss")):
        if section.startswith(prefix):
            return kind
    return "other"


def _owner(path):
    m = _BAZEL.search(path)
    if m:
        package, obj = m.group(1), m.group(2)
        obj = re.sub(r"(\.pic)?\.o$", "", obj)
        return package, package + "/" + obj
    if path == "<internal>":
        return "system", "<internal> (made by the linker)"
    return "system", path.rsplit("/", 1)[-1]


def ParseLld(lines):
    """Parse() of an lld map (after its header line); the symbol tables and comments, which
    strip removes, are left out."""
    for line in lines:
        m = _LLD_INPUT.match(line.rstrip("\n"))
        if m and not _NOT_LOADED.match(m.group(4)):
            yield m.group(4), int(m.group(2), 16), m.group(3), int(m.group(1), 16)


def Parse(lines):
    """Yields (section name, size, file, address) of every placed input section of the map."""
    lines = iter(lines)
    first = next(lines, "")
    if _LLD_HEADER.match(first.rstrip("\n")):
        yield from ParseLld(lines)
        return
    lines = itertools.chain([first], lines)
    in_map = False
    pending = None
    for line in lines:
        line = line.rstrip("\n")
        if line.startswith("Memory map"):
            in_map = True
            continue
        if not in_map:
            continue
        m = _SECTION.match(line)
        if m:
            pending = None
            if m.group(2) is not None:
                yield m.group(1), int(m.group(3), 16), m.group(4), int(m.group(2), 16)
            else:
                pending = m.group(1)
            continue
        if pending is not None:
            c = _CONT.match(line)
            if c:
                yield pending, int(c.group(2), 16), c.group(3), int(c.group(1), 16)
            pending = None


def Frames(lines, texts):
    """FDE bytes (with 8 of .eh_frame_hdr each) per object, from `readelf --debug-dump=frames`
    lines; texts: sorted (address, size, object) of the placed .text sections."""
    starts = [t[0] for t in texts]
    by_object = collections.Counter()
    for line in lines:
        m = _FDE.match(line)
        if not m:
            continue
        pc = int(m.group(2), 16)
        i = bisect.bisect_right(starts, pc) - 1
        owner = "unknown"
        if i >= 0 and pc < texts[i][0] + max(texts[i][1], 1):
            owner = texts[i][2]
        by_object[owner] += int(m.group(1), 16) + 4 + 8  # length field, then the hdr entry
    return by_object


def _PrintFrames(path, texts):
    with open(path, encoding="utf-8", errors="replace") as f:
        by_object = Frames(f, sorted(texts))
    by_package = collections.Counter()
    by_class = collections.Counter()
    for obj, size in by_object.items():
        package = obj.rsplit("/", 1)[0] if "/" in obj else obj
        by_package[package] += size
        if obj in ("unknown", "system") or package == "system":
            by_class["other"] += size
        else:
            by_class["hot" if _HOT.search(obj) else "cold"] += size
    total = sum(by_object.values())
    print("\nunwind tables (.eh_frame FDEs + .eh_frame_hdr entries): %d bytes" % total)
    for cls in ("cold", "hot", "other"):
        print("%10d  %s" % (by_class[cls], cls))
    print("by package:")
    for package, size in by_package.most_common():
        print("%10d  %s" % (size, package))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("map")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--sections", action="store_true")
    ap.add_argument("--frames", help="`readelf --debug-dump=frames` of the same library")
    args = ap.parse_args(argv)
    by_package = collections.Counter()
    by_object = collections.Counter()
    kinds = collections.defaultdict(collections.Counter)
    texts = []
    total = 0
    with open(args.map, encoding="utf-8", errors="replace") as f:
        for section, size, path, address in Parse(f):
            if size == 0 or path.startswith("**"):
                continue
            package, obj = _owner(path)
            by_package[package] += size
            by_object[obj] += size
            kinds[package][_kind(section)] += size
            if section.startswith(".text"):
                texts.append((address, size, obj if package != "system" else "system"))
            total += size
    print("total (placed input sections): %d bytes" % total)
    print("\nby package:")
    for package, size in by_package.most_common():
        extra = ""
        if args.sections:
            extra = "  " + " ".join("%s=%d" % kv for kv in sorted(kinds[package].items()))
        print("%10d  %5.1f%%  %s%s" % (size, 100.0 * size / max(total, 1), package, extra))
    print("\nby object (top %d):" % args.top)
    for obj, size in by_object.most_common(args.top):
        print("%10d  %s" % (size, obj))
    if args.frames:
        _PrintFrames(args.frames, texts)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
