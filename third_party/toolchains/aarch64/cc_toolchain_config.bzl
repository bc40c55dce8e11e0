"""A C++ toolchain for Debian's aarch64-linux-gnu cross compiler (g++-aarch64-linux-gnu)."""

load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "feature",
    "flag_group",
    "flag_set",
    "tool_path",
    "with_feature_set",
)
load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")

_COMPILE_ACTIONS = [
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
]

_LINK_ACTIONS = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

def _impl(ctx):
    prefix = "/usr/bin/aarch64-linux-gnu-"
    tool_paths = [
        # Linking goes through the "gcc" tool: use the C++ driver so libstdc++ is linked (statically).
        tool_path(name = "gcc", path = prefix + "g++"),
        tool_path(name = "g++", path = prefix + "g++"),
        tool_path(name = "cpp", path = prefix + "cpp"),
        tool_path(name = "ld", path = prefix + "ld"),
        tool_path(name = "ar", path = prefix + "ar"),
        tool_path(name = "nm", path = prefix + "nm"),
        tool_path(name = "objdump", path = prefix + "objdump"),
        tool_path(name = "objcopy", path = prefix + "objcopy"),
        tool_path(name = "strip", path = prefix + "strip"),
        tool_path(name = "gcov", path = "/bin/false"),
    ]

    default_compile = feature(
        name = "default_compile_flags",
        enabled = True,
        flag_sets = [
            flag_set(
                actions = _COMPILE_ACTIONS,
                flag_groups = [flag_group(flags = [
                    "-fPIC",
                    "-U_FORTIFY_SOURCE",
                    "-fstack-protector",
                    "-fno-omit-frame-pointer",
                    # Baseline ARMv8-A: NEON is architectural; dotprod/i8mm kernels add their
                    # own -march in their own libraries and are chosen at run time.
                    "-march=armv8-a",
                ])],
            ),
            flag_set(
                actions = _COMPILE_ACTIONS,
                flag_groups = [flag_group(flags = ["-g0", "-O2", "-DNDEBUG"])],
                with_features = [with_feature_set(features = ["opt"])],
            ),
            flag_set(
                actions = _COMPILE_ACTIONS,
                flag_groups = [flag_group(flags = ["-g", "-O0"])],
                with_features = [with_feature_set(features = ["dbg"])],
            ),
            flag_set(
                actions = [
                    ACTION_NAMES.cpp_compile,
                    ACTION_NAMES.cpp_header_parsing,
                    ACTION_NAMES.cpp_module_compile,
                ],
                flag_groups = [flag_group(flags = ["-std=c++17"])],
            ),
        ],
    )

    default_link = feature(
        name = "default_link_flags",
        enabled = True,
        flag_sets = [
            flag_set(
                actions = _LINK_ACTIONS,
                flag_groups = [flag_group(flags = [
                    # libstdc++/libgcc go in statically; only glibc and the Debian libraries
                    # that have no static archive (cpuinfo, XNNPACK, pthreadpool) stay shared.
                    "-static-libstdc++",
                    "-static-libgcc",
                    "-pthread",
                    "-lm",
                ])],
            ),
        ],
    )

    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        features = [
            default_compile,
            default_link,
            feature(name = "opt"),
            feature(name = "dbg"),
            feature(name = "fastbuild"),
            feature(name = "supports_pic", enabled = True),
            feature(name = "supports_dynamic_linker", enabled = True),
        ],
        cxx_builtin_include_directories = [
            "/usr/aarch64-linux-gnu/include",
            "/usr/lib/gcc-cross/aarch64-linux-gnu/12/include",
            "/usr/lib/gcc-cross/aarch64-linux-gnu/12/include-fixed",
            "/usr/include",
        ],
        toolchain_identifier = "aarch64-linux-gnu",
        host_system_name = "x86_64-unknown-linux-gnu",
        target_system_name = "aarch64-unknown-linux-gnu",
        target_cpu = "aarch64",
        target_libc = "glibc",
        compiler = "gcc",
        abi_version = "aarch64",
        abi_libc_version = "glibc",
        tool_paths = tool_paths,
    )

aarch64_cc_toolchain_config = rule(
    implementation = _impl,
    attrs = {},
    provides = [CcToolchainConfigInfo],
)
