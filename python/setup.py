"""python/setup.py - the C extension weft._weft, built against libweft
alone (every model, CartPole included, is reached through its public run
API). Where it comes from, in this order:

1. $WEFT_BUILD_DIR: a configured and built weft tree (its sources are the
   tree this directory is in); the extension finds the libraries there
   through its run path, and the package finds that tree's plugins
   (weft/_build_info.py, written here);
2. pkg-config weft: an installed weft ($PKG_CONFIG_PATH as usual; the
   tree's own _inst/ prefix, where ./quickstart installs, is tried too);
3. the build tree ../_build, when it has been built.

Anything else fails with a message that says what was looked for.
"""
import os
import shlex
import subprocess
import sys

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


def fail(msg):
    sys.stderr.write("weft: " + msg + "\n")
    raise SystemExit(1)


def pkg_config(*args):
    env = dict(os.environ)
    inst = os.path.join(TOP, "_inst", "lib", "pkgconfig")
    if os.path.isdir(inst):
        env["PKG_CONFIG_PATH"] = os.pathsep.join(
            p for p in (env.get("PKG_CONFIG_PATH"), inst) if p)
    try:
        out = subprocess.run(["pkg-config", *args, "weft"], env=env,
                             capture_output=True, text=True, check=False)
    except OSError:
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def from_build_tree(build):
    libs = [os.path.join(build, "core", ".libs")]
    if not os.path.exists(os.path.join(libs[0], "libweft.so")):
        fail("%s is not a built weft tree (no core/.libs/libweft.so): "
             "run make there first" % build)
    plugins = [os.path.join(build, "plugins", b, ".libs")
               for b in ("openmp", "opencl", "cuda")]
    # every model of the tree (the environment models included), those
    # that make check builds too (models/template's sir, which the
    # tests run): each folder of the build's models/, built yet or not
    mdir = os.path.join(build, "models")
    models = [os.path.join(mdir, m, ".libs")
              for m in sorted(os.listdir(mdir))
              if os.path.isdir(os.path.join(mdir, m))] \
        if os.path.isdir(mdir) else []
    with open(os.path.join(HERE, "weft", "_build_info.py"), "w") as f:
        f.write('"""Written by setup.py: this package was built against '
                'the weft build tree below,\nwhose plugins it finds there, '
                'after those of $WEFT_PLUGIN_PATH and\n$WEFT_MODEL_PATH '
                '(weft/_paths.py)."""\n')
        f.write("BUILD_DIR = %r\n" % build)
        f.write("PLUGIN_PATH = %r\n" % os.pathsep.join(
            p for p in plugins if os.path.isdir(p)))
        f.write("MODEL_PATH = %r\n" % os.pathsep.join(models))
    return dict(include_dirs=[os.path.join(TOP, "include")],
                library_dirs=libs, runtime_library_dirs=libs)


def from_pkg_config():
    libdir = pkg_config("--variable=libdir")
    incdir = pkg_config("--variable=includedir")
    if not libdir or not incdir:
        return None
    info = os.path.join(HERE, "weft", "_build_info.py")
    if os.path.exists(info):
        os.remove(info)
    return dict(include_dirs=[incdir], library_dirs=[libdir],
                runtime_library_dirs=[libdir])


def locate():
    build = os.environ.get("WEFT_BUILD_DIR")
    if build:
        return from_build_tree(os.path.abspath(build))
    found = from_pkg_config()
    if found:
        return found
    build = os.path.join(TOP, "_build")
    if os.path.exists(os.path.join(build, "core", ".libs", "libweft.so")):
        return from_build_tree(build)
    fail("cannot find weft: pkg-config weft found nothing (set "
         "PKG_CONFIG_PATH to PREFIX/lib/pkgconfig after `make install`), "
         "and there is no built tree at %s (or set WEFT_BUILD_DIR)" % build)


where = locate()
cflags = shlex.split(os.environ.get("WEFT_PY_CFLAGS", "")) + [
    "-std=c11", "-Wall", "-Wextra", "-Wno-missing-field-initializers",
    "-Wno-cast-function-type"]

setup(ext_modules=[Extension(
    "weft._weft", sources=["src/_weft.c"], libraries=["weft"],
    extra_compile_args=cflags, **where)])
