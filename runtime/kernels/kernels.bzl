# The qmatmul kernels: one row per kernel file (<arch dir>/<encoding>_<isa>.cc, an encoding of
# quantization/block_layout.h's table x an ISA level of isa.bzl). Everything that lists kernels
# comes from this table:
#   - the per-ISA cc_libraries (qmatmul_kernel_libraries, with the flags of isa.bzl),
#   - internal/kernel_list.inc, the X-macro list the dispatcher (qmatmul.cc: AllKernels), the
#     tests and the benchmarks read (checked in; kernel_list_inc_test fails while it differs from
#     this table, `bazel run //runtime/kernels:update_kernel_list` rewrites it),
#   - the check that every kernel file has its row (at loading time, below).
# Adding a kernel: its file and its row (then update_kernel_list).

load(":isa.bzl", "ARCH_DIRS", "ISAS", "isa_cc_library")

# Tuning of the ARM qmatmul kernels (on top of their ISA's flags). At -O3 (GGML's level) GCC 12
# fully unrolls the fixed-count block loops: under qemu the q8_0 dotprod GEMV executes about half
# the instructions it does at -O2, the K-quant GEMVs half (see benchmarks/arm_sim/README.md), for
# a few KiB more code.
_ARM_O3 = ["-O3"]

# -fno-schedule-insns: GCC's scheduling before register allocation spreads the tiles' loads and
# dot products so far that live vectors spill to the stack every block. Without it, counted under
# qemu: the i8mm q4_0 tile loop is 97 instructions a block (was 110), the K-quant GEMMs execute
# 3-17% fewer (i8mm 13-17%, dotprod q6_k 7-9%, NEON 4-10%); the NEON 32-value kernels (q8_0, q4_1:
# 2-3% more) keep the default.
_ARM_NO_SCHED = ["-fno-schedule-insns"] + _ARM_O3

# A row's extra flags unless it gives its own.
_DEFAULT_TUNING = {
    "generic": [],
    "avx2": [],
    "avxvnni": [],
    "avx512vnni": [],
    "neon": _ARM_O3,
    "dotprod": _ARM_NO_SCHED,
    "i8mm": _ARM_NO_SCHED,
}

def _kernel(encoding, isa, shapes = ["gemv", "gemm"], copts = None):
    if isa not in ISAS:
        fail("kernels.bzl: unknown ISA '%s'; expected one of %s" % (isa, ", ".join(ISAS.keys())))
    return struct(
        encoding = encoding,
        isa = isa,
        shapes = shapes,
        copts = _DEFAULT_TUNING[isa] if copts == None else copts,
    )

# m = 1 has no pair of activation rows to share an smmla: the i8mm kernels are GEMMs only (the
# dotprod GEMVs run m = 1 on i8mm CPUs).
_GEMM_ONLY = ["gemm"]

KERNELS = [
    # Portable scalar (GGML's generic vec_dot math): the fallback on any CPU, every encoding.
    _kernel("q4_0", "generic"),
    _kernel("q8_0", "generic"),
    _kernel("q4_k", "generic"),
    _kernel("q5_k", "generic"),
    _kernel("q6_k", "generic"),
    _kernel("bf16", "generic"),
    _kernel("q4_1", "generic"),
    _kernel("q5_0", "generic"),
    _kernel("q5_1", "generic"),
    _kernel("iq4_nl", "generic"),
    _kernel("f16", "generic"),
    _kernel("q2_k", "generic"),
    _kernel("q3_k", "generic"),
    _kernel("iq4_xs", "generic"),
    # x86-64.
    _kernel("q4_0", "avx2"),
    _kernel("q8_0", "avx2"),
    _kernel("q4_k", "avx2"),
    _kernel("q5_k", "avx2"),
    _kernel("q6_k", "avx2"),
    _kernel("bf16", "avx2"),
    _kernel("f16", "avx2"),
    _kernel("iq4_nl", "avx2"),
    _kernel("q5_0", "avx2"),
    _kernel("q4_1", "avx2"),
    _kernel("q5_1", "avx2"),
    _kernel("q2_k", "avx2"),
    _kernel("q3_k", "avx2"),
    _kernel("iq4_xs", "avx2"),
    _kernel("q4_0", "avxvnni"),
    _kernel("q8_0", "avxvnni"),
    _kernel("q4_k", "avxvnni"),
    _kernel("q5_k", "avxvnni"),
    _kernel("q6_k", "avxvnni"),
    _kernel("q4_0", "avx512vnni"),
    _kernel("q8_0", "avx512vnni"),
    _kernel("q4_k", "avx512vnni"),
    _kernel("q5_k", "avx512vnni"),
    _kernel("q6_k", "avx512vnni"),
    _kernel("iq4_nl", "avx512vnni"),
    _kernel("q5_0", "avx512vnni"),
    _kernel("q4_1", "avx512vnni"),
    _kernel("q5_1", "avx512vnni"),
    _kernel("q2_k", "avx512vnni"),
    _kernel("q3_k", "avx512vnni"),
    _kernel("iq4_xs", "avx512vnni"),
    _kernel("f16", "avx512vnni"),
    # AArch64.
    _kernel("q4_0", "neon"),
    _kernel("q8_0", "neon"),
    _kernel("q4_k", "neon", copts = _ARM_NO_SCHED),
    _kernel("q5_k", "neon", copts = _ARM_NO_SCHED),
    _kernel("q6_k", "neon", copts = _ARM_NO_SCHED),
    _kernel("iq4_nl", "neon"),
    _kernel("q4_1", "neon"),
    _kernel("q5_0", "neon"),
    _kernel("q5_1", "neon"),
    _kernel("f16", "neon"),
    _kernel("bf16", "neon"),
    _kernel("iq4_xs", "neon"),
    _kernel("q2_k", "neon"),
    _kernel("q3_k", "neon"),
    _kernel("q4_0", "dotprod"),
    _kernel("q8_0", "dotprod"),
    _kernel("q4_k", "dotprod"),
    _kernel("q5_k", "dotprod"),
    _kernel("q6_k", "dotprod"),
    _kernel("iq4_nl", "dotprod"),
    _kernel("q4_1", "dotprod"),
    _kernel("q5_0", "dotprod"),
    _kernel("q5_1", "dotprod"),
    _kernel("iq4_xs", "dotprod"),
    _kernel("q2_k", "dotprod"),
    _kernel("q3_k", "dotprod"),
    _kernel("q4_k", "i8mm", shapes = _GEMM_ONLY),
    _kernel("q5_k", "i8mm", shapes = _GEMM_ONLY),
    _kernel("q6_k", "i8mm", shapes = _GEMM_ONLY),
    _kernel("q4_0", "i8mm", shapes = _GEMM_ONLY),
    _kernel("q8_0", "i8mm", shapes = _GEMM_ONLY),
    _kernel("iq4_nl", "i8mm", shapes = _GEMM_ONLY),
    _kernel("q5_0", "i8mm", shapes = _GEMM_ONLY),
    _kernel("q4_1", "i8mm", shapes = _GEMM_ONLY),
    _kernel("q5_1", "i8mm", shapes = _GEMM_ONLY),
]

# Files of the kernel directories that are not kernels (shared code).
_NOT_KERNELS = [
    "arm/activations_q8_0_neon.cc",
    "arm/activations_q8_k_neon.cc",
    "arm/repack_r4.cc",
]

def _file(row):
    return "%s/%s_%s.cc" % (ARCH_DIRS[ISAS[row.isa].arch], row.encoding, row.isa)

def _cc_encoding(encoding):
    """blocks::Format's spelling: q4_0 -> Q4_0, iq4_nl -> Iq4Nl, bf16 -> Bf16."""
    if encoding.startswith("q"):
        return encoding.upper()
    return "".join([part.capitalize() for part in encoding.split("_")])

def _symbol(row, shape):
    return _cc_encoding(row.encoding) + ISAS[row.isa].cc + shape.capitalize()

def _check_every_file_has_a_row():
    listed = {_file(row): True for row in KERNELS}
    for f in native.glob(["generic/*.cc", "x86/*.cc", "arm/*.cc"]):
        if f not in listed and f not in _NOT_KERNELS:
            fail("runtime/kernels/%s has no row in KERNELS (runtime/kernels/kernels.bzl); " % f +
                 "expected a row _kernel(\"<encoding>\", \"<isa>\") for it")
    seen = {}
    for row in KERNELS:
        f = _file(row)
        if f in seen:
            fail("kernels.bzl: %s has two rows" % f)
        seen[f] = True

def qmatmul_kernel_libraries(generic_deps, x86_hdrs, x86_deps, arm_deps, visibility):
    """The kernels' libraries: one `generic` library of the portable files, and one library per
    x86 / ARM file (`x86_<encoding>_<isa>`, `arm_<encoding>_<isa>`, empty on the other
    architecture). Returns the labels of all of them."""
    _check_every_file_has_a_row()
    generic_srcs = [_file(row) for row in KERNELS if row.isa == "generic"]
    native.cc_library(
        name = "generic",
        srcs = generic_srcs,
        hdrs = ["generic/generic_common.h"],
        deps = generic_deps,
        visibility = visibility,
    )
    labels = [":generic"]
    for row in KERNELS:
        arch = ISAS[row.isa].arch
        if arch == "generic":
            continue
        name = "%s_%s_%s" % (arch, row.encoding, row.isa)
        isa_cc_library(
            name = name,
            isa = row.isa,
            srcs = [_file(row)],
            copts = row.copts,
            hdrs = x86_hdrs if arch == "x86" else [],
            deps = x86_deps if arch == "x86" else arm_deps,
            visibility = visibility,
        )
        labels.append(":" + name)
    return labels

_GUARDS = {
    "x86": "defined(__x86_64__)",
    "arm": "defined(__aarch64__)",
}

def kernel_list_inc_text():
    """The text of internal/kernel_list.inc."""
    lines = [
        "// Generated from KERNELS in runtime/kernels/kernels.bzl: do not edit. After a change to the",
        "// table, `bazel run //runtime/kernels:update_kernel_list` rewrites this file;",
        "// kernel_list_inc_test fails while the two differ.",
        "//",
        "// EDGEQ_KERNEL(symbol, encoding, isa, shape): the KernelEntry internal::k<symbol>, named",
        "// \"<encoding>_<isa>_<shape>\"; one line per entry, each architecture's under its guard (the",
        "// architecture the compiler targets: the BUILD compiles each file for its own).",
    ]
    for arch in ["generic", "x86", "arm"]:
        if arch in _GUARDS:
            lines.append("#if " + _GUARDS[arch])
        for row in KERNELS:
            if ISAS[row.isa].arch != arch:
                continue
            for shape in row.shapes:
                lines.append("EDGEQ_KERNEL(%s, %s, %s, %s)" %
                             (_symbol(row, shape), row.encoding, row.isa, shape))
        if arch in _GUARDS:
            lines.append("#endif  // " + _GUARDS[arch])
    return "\n".join(lines) + "\n"
