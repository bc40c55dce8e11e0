"""Writes edgeq's wheel: the pure-Python package plus libedgeq.so, with a platform tag.

  make_wheel.py OUT.whl VERSION PLATFORM_TAG LIBEDGEQ_SO PACKAGE_FILE...

The wheel (PEP 427) holds edgeq/*.py, edgeq/libedgeq.so and edgeq-VERSION.dist-info/ (METADATA,
WHEEL with Root-Is-Purelib false and the tag py3-none-PLATFORM_TAG, top_level.txt, RECORD with
sha256 digests). Entries are sorted and dated 1980-01-01, so the bytes depend only on the inputs.
"""
import base64
import hashlib
import os
import sys
import zipfile


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main(argv):
    if len(argv) < 6:
        sys.stderr.write("usage: make_wheel.py OUT.whl VERSION PLATFORM_TAG LIBEDGEQ_SO FILE...\n")
        return 2
    out, version, platform, lib = argv[1:5]
    files = {}
    for path in argv[5:]:
        with open(path, "rb") as f:
            files["edgeq/" + os.path.basename(path)] = (f.read(), 0o644)
    with open(lib, "rb") as f:
        files["edgeq/libedgeq.so"] = (f.read(), 0o755)
    info = f"edgeq-{version}.dist-info"
    files[f"{info}/METADATA"] = ((
        "Metadata-Version: 2.1\n"
        "Name: edgeq\n"
        f"Version: {version}\n"
        "Summary: edgeq: quantized inference for edge devices (ctypes over the C API)\n"
        "Requires-Python: >=3.9\n"
        "Requires-Dist: numpy\n").encode(), 0o644)
    files[f"{info}/WHEEL"] = ((
        "Wheel-Version: 1.0\n"
        "Generator: edgeq python/make_wheel.py\n"
        "Root-Is-Purelib: false\n"
        f"Tag: py3-none-{platform}\n").encode(), 0o644)
    files[f"{info}/top_level.txt"] = (b"edgeq\n", 0o644)
    record = [_record_line(name, data) for name, (data, _) in sorted(files.items())]
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = (("\n".join(record) + "\n").encode(), 0o644)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        # dist-info last, as wheel tools write it.
        for name in sorted(files, key=lambda n: (n.startswith(info), n)):
            entry = zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0))
            entry.external_attr = files[name][1] << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, files[name][0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
