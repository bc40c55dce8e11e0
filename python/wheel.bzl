"""edgeq_wheel: python/make_wheel.py as a rule, so that the file name carries the platform tag."""

def _impl(ctx):
    out = ctx.actions.declare_file("edgeq-%s-py3-none-%s.whl" % (ctx.attr.version, ctx.attr.platform))
    lib = [f for f in ctx.files.lib if f.basename.endswith(".so")]
    if len(lib) != 1:
        fail("edgeq_wheel: expected one .so in lib, got %s" % lib)
    args = [out.path, ctx.attr.version, ctx.attr.platform, lib[0].path] + [f.path for f in ctx.files.srcs]
    ctx.actions.run_shell(
        inputs = ctx.files.srcs + lib + [ctx.file.tool],
        outputs = [out],
        command = "python3 %s %s" % (ctx.file.tool.path, " ".join(args)),
        mnemonic = "EdgeqWheel",
        use_default_shell_env = True,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

edgeq_wheel = rule(
    implementation = _impl,
    attrs = {
        "version": attr.string(mandatory = True),
        "platform": attr.string(mandatory = True),
        "srcs": attr.label_list(allow_files = [".py"]),
        "lib": attr.label(),
        "tool": attr.label(allow_single_file = True),
    },
)
