#!/usr/bin/env python3
"""Where the bytes of libedgeq.so come from (README, "Footprint"): a gold/GNU ld linker map
(-Wl,-Map=FILE) summed by package and by object file.

    tools/footprint_breakdown.py MAP [--top=N]

Every input section the map places in the output (a size, a file) counts towards its file:
bazel-out/<cfg>/bin/llm/libmodel.pic.a(model.pic.o) is package `llm`, object `llm/model`;
system files (/usr/...) are grouped as `system`. Sections of size 0 and the "Discarded input
sections" part (what --gc-sections dropped) are not counted. With --sections, .text, .rodata,
.data.rel.ro and .eh_frame/.gcc_except_table are reported separately per package.
"""

import argparse
import collections
import re
import sys

_SECTION = re.compile(r"^ (\.[^\s]+)(?:\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*))?$")
_CONT = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$")
_BAZEL = re.compile(r"bazel-out/[^/]+/bin/(.*)/[^/(]+\(([^)]+)\)$")


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
    return "system", path.rsplit("/", 1)[-1]


def Parse(lines):
    """Yields (section name, size, file) of every placed input section of the map."""
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
                yield m.group(1), int(m.group(3), 16), m.group(4)
            else:
                pending = m.group(1)
            continue
        if pending is not None:
            c = _CONT.match(line)
            if c:
                yield pending, int(c.group(2), 16), c.group(3)
            pending = None


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("map")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--sections", action="store_true")
    args = ap.parse_args(argv)
    by_package = collections.Counter()
    by_object = collections.Counter()
    kinds = collections.defaultdict(collections.Counter)
    total = 0
    with open(args.map, encoding="utf-8", errors="replace") as f:
        for section, size, path in Parse(f):
            if size == 0 or path.startswith("**"):
                continue
            package, obj = _owner(path)
            by_package[package] += size
            by_object[obj] += size
            kinds[package][_kind(section)] += size
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
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
