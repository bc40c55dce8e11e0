# The instruction-set levels of runtime/kernels/isa.h, and the compiler flags of each: the one
# place that says which -m / -march flags a kernel file of a level is built with (qmatmul,
# attention and activation kernels alike). The rest of every binary is built for the baseline
# (x86-64 / ARMv8-A); a file of a level runs only after isa.cc has found the level on the CPU.

# GCC 12's AVX-512 intrinsic headers initialize "undefined" vectors from themselves.
_AVX512_WARNINGS = [
    "-Wno-maybe-uninitialized",
    "-Wno-uninitialized",
]

_AVX2 = [
    "-mavx2",
    "-mfma",
    "-mf16c",
]

# name (IsaName in isa.cc): arch ("generic", "x86" or "arm"; the source directory of its qmatmul
# kernels is arch's), cc (the spelling in the kernels' C++ names: kQ4_0Avx2Gemv), copts (the
# instruction set the level's detection in isa.cc guarantees).
ISAS = {
    "generic": struct(arch = "generic", cc = "Generic", copts = []),
    "avx2": struct(arch = "x86", cc = "Avx2", copts = _AVX2),
    "avxvnni": struct(arch = "x86", cc = "AvxVnni", copts = _AVX2 + ["-mavxvnni"]),
    "avx512vnni": struct(
        arch = "x86",
        cc = "Avx512Vnni",
        copts = _AVX2 + [
            "-mavx512f",
            "-mavx512bw",
            "-mavx512vl",
            "-mavx512vnni",
        ] + _AVX512_WARNINGS,
    ),
    "neon": struct(arch = "arm", cc = "Neon", copts = ["-march=armv8-a"]),
    "dotprod": struct(arch = "arm", cc = "Dotprod", copts = ["-march=armv8.2-a+dotprod"]),
    "i8mm": struct(arch = "arm", cc = "I8mm", copts = ["-march=armv8.6-a+i8mm+dotprod"]),
}

# The source directory of each architecture's qmatmul kernels.
ARCH_DIRS = {
    "generic": "generic",
    "x86": "x86",
    "arm": "arm",
}

def _on_arch(arch, value, other):
    """`value` where the build targets `arch`, `other` on the other architecture."""
    if arch == "generic":
        return value
    if arch == "arm":
        return select({
            "//third_party:aarch64": value,
            "//conditions:default": other,
        })
    return select({
        "//third_party:aarch64": other,
        "//conditions:default": value,
    })

def isa_srcs(isa, srcs):
    """`srcs` where `isa`'s architecture is built, none on the other one (the library is empty)."""
    return _on_arch(ISAS[isa].arch, srcs, [])

def isa_copts(isa, extra = []):
    """`isa`'s flags (then `extra`) on its architecture, none on the other one."""
    return _on_arch(ISAS[isa].arch, ISAS[isa].copts + extra, [])

def isa_cc_library(name, isa, srcs, copts = [], **kwargs):
    """A cc_library of `isa`'s files: compiled with its flags (then `copts`), empty elsewhere."""
    native.cc_library(
        name = name,
        srcs = isa_srcs(isa, srcs),
        copts = isa_copts(isa, copts),
        **kwargs
    )
