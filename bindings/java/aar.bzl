"""edgeq_aar: an AAR-shaped zip of the dev.edgeq binding with its arm64-v8a native libraries.

The native libraries come from the command line's configuration, which must be
--config=aarch64 (the target is incompatible elsewhere, so `bazel test //...` on the host skips
it and the aarch64 stage builds it from the objects it already has): Debian's aarch64-linux-gnu
(glibc) cross compiler, so the archive tests the packaging only; a device build needs the
Android NDK (docs/android.md).
"""

def _aar_impl(ctx):
    out = ctx.actions.declare_file(ctx.attr.out)
    inputs = [ctx.file.classes_jar, ctx.file.manifest, ctx.file.proguard]
    cmds = [
        "set -e",
        "d=$(mktemp -d)",
        "mkdir -p $d/jni/arm64-v8a",
        "cp %s $d/classes.jar" % ctx.file.classes_jar.path,
        "cp %s $d/AndroidManifest.xml" % ctx.file.manifest.path,
        "cp %s $d/proguard.txt" % ctx.file.proguard.path,
        ": > $d/R.txt",
    ]
    for f in ctx.files.native_libs:
        inputs.append(f)
        cmds.append("cp %s $d/jni/arm64-v8a/%s" % (f.path, f.basename))
    cmds += [
        "chmod -R u+w,a+r $d",
        "find $d -exec touch -d @315532800 {} +",
        "out=$PWD/%s" % out.path,
        "(cd $d && find . -type f | sed 's|^./||' | LC_ALL=C sort | " +
        "python3 -c 'import sys, zipfile\n" +
        "z = zipfile.ZipFile(sys.argv[1], \"w\", zipfile.ZIP_DEFLATED)\n" +
        "for n in sys.stdin.read().split():\n" +
        "    i = zipfile.ZipInfo(n, (1980, 1, 1, 0, 0, 0)); i.external_attr = 0o644 << 16\n" +
        "    z.writestr(i, open(n, \"rb\").read(), zipfile.ZIP_DEFLATED)\n" +
        "z.close()' $out)",
        "rm -rf $d",
    ]
    ctx.actions.run_shell(
        inputs = inputs,
        outputs = [out],
        command = "\n".join(cmds),
        mnemonic = "EdgeqAar",
        use_default_shell_env = True,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

edgeq_aar = rule(
    implementation = _aar_impl,
    attrs = {
        "out": attr.string(mandatory = True),
        "classes_jar": attr.label(allow_single_file = True),
        "manifest": attr.label(allow_single_file = True),
        "proguard": attr.label(allow_single_file = True),
        "native_libs": attr.label_list(allow_files = True),
    },
)
