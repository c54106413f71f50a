"""The build records where pkg-config's gpuimg.pc (or GPUIMG_LIBRARY) finds libgpuimg.so.0 in
gpuimg/_config.py, the second place the module looks at import (the package's docstring, "Finding
the library", gives the order). A library not found now is no error: the module looks for it again
at import (the dynamic loader's path, pkg-config, ctypes.util.find_library)."""
import os
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

SONAME = "libgpuimg.so.0"


def find_library():
    """libgpuimg.so.0's absolute path, or None."""
    env = os.environ.get("GPUIMG_LIBRARY")
    if env:
        return os.path.abspath(env)
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "gpuimg"], check=True, capture_output=True,
                                text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"gpuimg: pkg-config finds no gpuimg.pc ({e}); the module will look for {SONAME} when imported "
              "(install the library with make install; PKG_CONFIG_PATH=PREFIX/lib/pkgconfig for another prefix)",
              file=sys.stderr)
        return None
    path = os.path.join(libdir, SONAME)
    if not os.path.exists(path):
        print(f"gpuimg: gpuimg.pc names {libdir}, which has no {SONAME}; the module will look for it when imported",
              file=sys.stderr)
        return None
    return path


class BuildPy(build_py):
    def run(self):
        super().run()
        out = os.path.join(self.build_lib, "gpuimg", "_config.py")
        with open(out, "w") as f:
            f.write("# written by setup.py: the library pkg-config (or GPUIMG_LIBRARY) named at install, or None\n"
                    f"LIBRARY = {find_library()!r}\n")


setup(cmdclass={"build_py": BuildPy})
