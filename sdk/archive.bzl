"""edgeq_static_archive: one libedgeq.a from a cc_library and everything it links statically.

All static libraries of `deps` (PIC objects) and the `-l:libX.a` archives their linkopts name
(Abseil, utf8proc, xxhash) go through one partial link (`ld -r`), which pulls in only the archive
members that are needed; then every defined symbol except edgeq_* is localized (objcopy
--keep-global-symbols), so an app that links its own Abseil does not clash with edgeq's copy.
Shared libraries named by -l (cpuinfo, pthreadpool, XNNPACK) and the C++ runtime stay undefined:
the consumer links them (edgeq.pc Libs.private, edgeqConfig.cmake).
"""

def _impl(ctx):
    objs = []
    archives = []
    for dep in ctx.attr.deps:
        for li in dep[CcInfo].linking_context.linker_inputs.to_list():
            for lib in li.libraries:
                a = lib.pic_static_library or lib.static_library
                if a:
                    objs.append(a)
            for flag in li.user_link_flags:
                if flag.startswith("-l:") and flag.endswith(".a"):
                    archives.append(flag)
    relocatable = ctx.actions.declare_file(ctx.label.name + ".o")
    out = ctx.actions.declare_file("lib%s.a" % ctx.attr.library_name)
    dedup = []
    for a in archives:
        if a not in dedup:
            dedup.append(a)
    cmd = " ".join([
        "set -e;",
        ctx.attr.ld,
        "-r -o",
        relocatable.path,
        "--whole-archive",
    ] + [o.path for o in objs] + [
        "--no-whole-archive",
        "-L" + ctx.attr.system_lib_dir,
        "--start-group",
    ] + dedup + [
        "--end-group;",
        # Weak (COMDAT: inline functions, template instances) symbols stay global: localizing
        # one breaks a program that has the same COMDAT (the linker keeps the program's copy and
        # discards ours, leaving our local references dangling).
        "cp", ctx.file.keep_symbols.path, relocatable.path + ".keep;",
        ctx.attr.nm, "-g --defined-only", relocatable.path,
        "| awk 'NF==3 && $2 ~ /^[WVu]$/ {print $3}' >>", relocatable.path + ".keep;",
        ctx.attr.objcopy,
        "--keep-global-symbols=" + relocatable.path + ".keep",
        relocatable.path,
        ";",
        "rm -f",
        out.path,
        ";",
        ctx.attr.ar,
        "rcsD",
        out.path,
        relocatable.path,
    ])
    ctx.actions.run_shell(
        inputs = objs + [ctx.file.keep_symbols],
        outputs = [relocatable, out],
        command = cmd,
        mnemonic = "EdgeqArchive",
        use_default_shell_env = True,
    )

    # libedgeq.so from the PIC objects. Debian's Abseil, utf8proc and xxhash archives are not
    # PIC (-fPIE code with local-exec TLS), so the shared library links their shared objects.
    so = ctx.actions.declare_file("lib%s.so" % ctx.attr.library_name)
    flags = []
    for dep in ctx.attr.deps:
        for li in dep[CcInfo].linking_context.linker_inputs.to_list():
            for flag in li.user_link_flags:
                if flag.startswith("-l:lib") and flag.endswith(".a"):
                    flag = "-l" + flag[len("-l:lib"):-len(".a")]
                if flag not in flags:
                    flags.append(flag)
    pic = [o for o in objs if o.basename.endswith(".pic.a") or o.basename.endswith(".pic.lo")]
    # Linked by LLVM's lld (Debian's lld-19, tools/setup.sh; the NDK's linker too): relative
    # relocations packed as DT_RELR (-z pack-relative-relocs: 8 instead of 24 bytes each, and the
    # GLIBC_ABI_DT_RELR version glibc 2.36 gives, so an older loader refuses the library by name
    # instead of running it unrelocated) and identical code folded (--icf=all: edgeq never
    # compares function addresses for identity, only for equal behaviour, e.g. two kernels that
    # quantize activations alike). README, "Footprint". GCC finds the linker as `ld.lld` through
    # -B: a temporary directory with that one link.
    so_cmd = " ".join([
        "test -x %s ||" % ctx.attr.lld,
        "{ echo \"libedgeq.so links with %s: install Debian package lld-19 (tools/setup.sh)\" >&2;" %
        ctx.attr.lld,
        "exit 1; } &&",
        "lld_dir=$(mktemp -d) && trap \"rm -rf $lld_dir\" EXIT &&",
        "ln -s %s \"$lld_dir/ld.lld\" &&" % ctx.attr.lld,
        ctx.attr.cxx,
        "-shared -o",
        so.path,
        "-Wl,--whole-archive",
    ] + [o.path for o in pic] + [
        "-Wl,--no-whole-archive",
        "-L" + ctx.attr.system_lib_dir,
    ] + flags + [
        "-Wl,--version-script=" + ctx.file.version_script.path,
        "-Wl,-soname,lib%s.so" % ctx.attr.library_name,
        "-Wl,--no-undefined -Wl,--as-needed -Wl,-z,noexecstack -Wl,--gc-sections",
        "-fuse-ld=lld -B\"$lld_dir/\" -Wl,--icf=all",
        ctx.attr.relocation_packing,
    ] + ctx.attr.extra_linkopts)
    ctx.actions.run_shell(
        inputs = pic + [ctx.file.version_script],
        outputs = [so],
        command = so_cmd,
        mnemonic = "EdgeqShared",
        use_default_shell_env = True,
    )
    return [DefaultInfo(files = depset([out, so]), runfiles = ctx.runfiles(files = [out, so]))]

edgeq_static_archive = rule(
    implementation = _impl,
    attrs = {
        "deps": attr.label_list(providers = [CcInfo]),
        "keep_symbols": attr.label(allow_single_file = True),
        "version_script": attr.label(allow_single_file = True),
        "cxx": attr.string(default = "g++"),
        "extra_linkopts": attr.string_list(),
        "library_name": attr.string(default = "edgeq"),
        "ld": attr.string(default = "ld"),
        "lld": attr.string(default = "/usr/bin/ld.lld-19"),
        # Android before API 30 has no standard DT_RELR: an NDK build for minSdk 24 passes
        # "-Wl,--pack-dyn-relocs=android" (docs/android.md).
        "relocation_packing": attr.string(default = "-Wl,-z,pack-relative-relocs"),
        "objcopy": attr.string(default = "objcopy"),
        "nm": attr.string(default = "nm"),
        "ar": attr.string(default = "ar"),
        "system_lib_dir": attr.string(default = "/usr/lib/x86_64-linux-gnu"),
    },
)

def _sdk_impl(ctx):
    out = ctx.actions.declare_file("edgeq-%s-linux-%s.tar.gz" % (ctx.attr.version, ctx.attr.arch))
    root = "edgeq-%s-linux-%s" % (ctx.attr.version, ctx.attr.arch)
    cmds = ["set -e", "d=$(mktemp -d)/" + root,
            "mkdir -p $d/include/edgeq $d/lib/pkgconfig $d/lib/cmake/edgeq $d/bin $d/share/doc/edgeq"]
    inputs = []
    for f, dest in [(ctx.file.header, "include/edgeq/"), (ctx.file.pc, "lib/pkgconfig/")] + \
                   [(f, "lib/cmake/edgeq/") for f in ctx.files.cmake] + \
                   [(f, "share/doc/edgeq/") for f in ctx.files.docs]:
        inputs.append(f)
        cmds.append("cp %s $d/%s" % (f.path, dest))
    for t in ctx.attr.libs:
        for f in t.files.to_list():
            if f.basename.endswith(".a") or f.basename.endswith(".so"):
                inputs.append(f)
                cmds.append("cp %s $d/lib/" % f.path)
    for t in ctx.attr.bins:
        f = t[DefaultInfo].files_to_run.executable
        inputs.append(f)
        cmds.append("cp %s $d/bin/" % f.path)
    cmds.append("chmod -R u+w,a+r $d")
    cmds.append("tar -C $d/.. --owner=0 --group=0 --mtime=@0 --sort=name -czf %s %s" %
                (out.path, root))
    ctx.actions.run_shell(inputs = inputs, outputs = [out], command = "\n".join(cmds),
                          mnemonic = "EdgeqSdk", use_default_shell_env = True)
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

edgeq_sdk_tarball = rule(
    implementation = _sdk_impl,
    attrs = {
        "version": attr.string(mandatory = True),
        "arch": attr.string(mandatory = True),
        "header": attr.label(allow_single_file = True),
        "pc": attr.label(allow_single_file = True),
        "cmake": attr.label_list(allow_files = True),
        "docs": attr.label_list(allow_files = True),
        "libs": attr.label_list(),
        "bins": attr.label_list(cfg = "target"),
    },
)
