"""Where the module finds libgpuimg.so.0 at import (the package's docstring, "Finding the
library"): GPUIMG_LIBRARY alone when set, the path recorded at install, the dynamic loader, the
libdir pkg-config names, each in a fresh interpreter.

Environment: GPUIMG_LIBRARY (the build's libgpuimg), WORK (a scratch folder)."""
import os
import shutil
import subprocess
import sys

import gpuimg

WORK = os.environ["WORK"]


def test_finding_the_library():
    lib = os.environ["GPUIMG_LIBRARY"]
    pkg = os.path.dirname(os.path.dirname(gpuimg.__file__))
    env = {k: v for k, v in os.environ.items() if k not in ("GPUIMG_LIBRARY", "LD_LIBRARY_PATH", "PKG_CONFIG_PATH")}
    # the library's own dependencies may live on LD_LIBRARY_PATH (the GPU machine's libjpeg):
    # kept, less any folder that holds a libgpuimg.so.0
    keep = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":")
            if d and not os.path.exists(os.path.join(d, "libgpuimg.so.0"))]
    if keep:
        env["LD_LIBRARY_PATH"] = ":".join(keep)

    def load(extra, pythonpath=pkg):
        e = dict(env, PYTHONPATH=pythonpath, **extra)
        return subprocess.run([sys.executable, "-c", "import gpuimg; print(gpuimg.library_path)"], env=e,
                              capture_output=True, text=True)

    # GPUIMG_LIBRARY names the one file: another is never tried
    r = load({"GPUIMG_LIBRARY": os.path.join(WORK, "no-such-libgpuimg.so.0")})
    assert r.returncode != 0 and "GPUIMG_LIBRARY" in r.stderr and "ImportError" in r.stderr, r.stderr
    r = load({"GPUIMG_LIBRARY": lib})
    assert r.returncode == 0 and r.stdout.strip() == lib, r.stderr
    # the soname through the dynamic loader; a stale path recorded at install passed over
    libdir = os.path.join(WORK, "libdir")
    os.makedirs(libdir, exist_ok=True)
    so = os.path.join(libdir, "libgpuimg.so.0")
    if not os.path.exists(so):
        os.symlink(os.path.realpath(lib), so)
    copy = os.path.join(WORK, "pkg")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(os.path.join(pkg, "gpuimg"), os.path.join(copy, "gpuimg"),
                    ignore=shutil.ignore_patterns("__pycache__", "_config.py"))
    for d, _, files in os.walk(copy):   # a read-only source tree (make distcheck) copies read-only
        os.chmod(d, 0o755)
        for f in files:
            os.chmod(os.path.join(d, f), 0o644)
    with open(os.path.join(copy, "gpuimg", "_config.py"), "w") as f:
        f.write(f"LIBRARY = {os.path.join(WORK, 'gone', 'libgpuimg.so.0')!r}\n")
    r = load({"LD_LIBRARY_PATH": ":".join([libdir] + keep)}, copy)
    assert r.returncode == 0 and os.path.realpath(r.stdout.strip()) == os.path.realpath(lib), r.stdout + r.stderr
    # the recorded path first
    with open(os.path.join(copy, "gpuimg", "_config.py"), "w") as f:
        f.write(f"LIBRARY = {so!r}\n")
    r = load({}, copy)
    assert r.returncode == 0 and r.stdout.strip() == so, r.stdout + r.stderr
    # pkg-config now, where the loader finds no libgpuimg.so.0 of its own
    with open(os.path.join(copy, "gpuimg", "_config.py"), "w") as f:
        f.write("LIBRARY = None\n")
    clean = subprocess.run([sys.executable, "-c", "import ctypes; ctypes.CDLL('libgpuimg.so.0')"], env=env,
                           capture_output=True)
    if clean.returncode != 0 and shutil.which("pkg-config"):
        with open(os.path.join(WORK, "gpuimg.pc"), "w") as f:
            f.write(f"libdir={libdir}\nName: gpuimg\nDescription: test\nVersion: 0.2.0\nLibs: -L${{libdir}} -lgpuimg\n")
        r = load({"PKG_CONFIG_PATH": WORK}, copy)
        assert r.returncode == 0 and r.stdout.strip() == so, r.stdout + r.stderr
        r = load({}, copy)
        assert r.returncode != 0 and "cannot load libgpuimg" in r.stderr, r.stdout + r.stderr
