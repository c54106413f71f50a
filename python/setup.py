"""The build finds libgpuimg as a C program would (pkg-config's gpuimg.pc, or GPUIMG_LIBRARY) and
records the file in gpuimg/_config.py, where the module loads it from."""
import os
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py


def find_library():
    env = os.environ.get("GPUIMG_LIBRARY")
    if env:
        return os.path.abspath(env)
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "gpuimg"], check=True, capture_output=True,
                                text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit("gpuimg: pkg-config finds no gpuimg.pc: install the library first (make install; "
                         "PKG_CONFIG_PATH=PREFIX/lib/pkgconfig for another prefix), or set GPUIMG_LIBRARY to "
                         f"libgpuimg.so's path ({e})")
    path = os.path.join(libdir, "libgpuimg.so.0")
    if not os.path.exists(path):
        raise SystemExit(f"gpuimg: gpuimg.pc names {libdir}, which has no libgpuimg.so.0")
    return path


class BuildPy(build_py):
    def run(self):
        super().run()
        out = os.path.join(self.build_lib, "gpuimg", "_config.py")
        with open(out, "w") as f:
            f.write(f"# written by setup.py: the library this module was built for\nLIBRARY = {find_library()!r}\n")


setup(cmdclass={"build_py": BuildPy})
