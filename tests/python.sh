# gpuimg tests: the Python module (python/gpuimg) over the build tree's libgpuimg.so: pytest runs
# python/tests where it is installed, else each test_* function of each test_*.py in turn. Skipped (77) where no
# python3 with numpy is found, and in a sanitizer build (the interpreter is not instrumented).
. "${TOP_SRCDIR:-.}/tests/lib.sh"
: "${GPUIMG_SOLIB:?run through make check}"
if [ -n "${GPUIMG_SANITIZERS:-}" ]; then
    echo "SKIP: a sanitizer build: Python is not instrumented"
    exit 77
fi
PY=
for p in ${PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
    echo "SKIP: no python3 with numpy (Debian: python3-numpy)"
    exit 77
fi
GPUIMG_LIBRARY=$GPUIMG_SOLIB PYTHONPATH=$TOP_SRCDIR/python SAMPLES=$TOP_SRCDIR/samples WORK=$T
PYTHONDONTWRITEBYTECODE=1
export GPUIMG_LIBRARY PYTHONPATH SAMPLES WORK PYTHONDONTWRITEBYTECODE
if "$PY" -c 'import pytest' 2>/dev/null; then
    "$PY" -m pytest -q -p no:cacheprovider "$TOP_SRCDIR/python/tests" && ok || bad "pytest python/tests failed"
else
    "$PY" - "$TOP_SRCDIR/python/tests" <<'PYEOF' && ok || bad "python/tests failed"
import importlib.util, sys, traceback
import glob, os
failed = 0
for path in sorted(glob.glob(os.path.join(sys.argv[1], "test_*.py"))):
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    t = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(t)
    for name in [n for n in dir(t) if n.startswith("test_")]:
        try:
            getattr(t, name)()
            print("ok", t.__name__, name)
        except Exception:
            failed += 1
            print("FAIL", t.__name__, name)
            traceback.print_exc()
sys.exit(1 if failed else 0)
PYEOF
fi
# README's Python example, run where photo.jpg is
sed -n '/^```python$/,/^```$/p' "$TOP_SRCDIR/README.md" | sed '1d;$d' >"$T/readme.py"
cp "$TOP_SRCDIR/samples/path-640x400.jpg" "$T/photo.jpg"
if [ -s "$T/readme.py" ] && (cd "$T" && "$PY" readme.py) && [ -s "$T/t.jpg" ]; then ok; else bad "README's Python example failed"; fi
# pip install ./python, where pip and setuptools are: the library found at install, recorded
if "$PY" -m pip --version >/dev/null 2>&1 && "$PY" -c 'import setuptools' 2>/dev/null; then
    cp -r "$TOP_SRCDIR/python" "$T/src" && chmod -R u+w "$T/src"
    if (cd "$T" && PIP_NO_INDEX=1 "$PY" -m pip install -q --no-build-isolation --no-deps --target "$T/site" ./src) \
        >"$T/pip.out" 2>&1; then
        (cd "$T" && env -u GPUIMG_LIBRARY PYTHONPATH="$T/site" "$PY" -c \
            'import gpuimg, sys; assert gpuimg.library_path == sys.argv[1], gpuimg.library_path; gpuimg.read(sys.argv[2])' \
            "$GPUIMG_SOLIB" "$TOP_SRCDIR/samples/path-640x400.jpg") && ok || bad "the module pip installed does not load its library"
    else
        bad "pip install ./python failed: $(tail -n 5 "$T/pip.out")"
    fi
    # installed before the library is found (no GPUIMG_LIBRARY, no gpuimg.pc): the module looks at
    # import, here through the dynamic loader
    rm -rf "$T/src/build"
    if (cd "$T" && env -u GPUIMG_LIBRARY PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR="$T/none" PIP_NO_INDEX=1 "$PY" -m pip \
        install -q --no-build-isolation --no-deps --target "$T/site2" ./src) >"$T/pip2.out" 2>&1; then
        (cd "$T" && env -u GPUIMG_LIBRARY LD_LIBRARY_PATH="$(dirname "$GPUIMG_SOLIB")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PYTHONPATH="$T/site2" "$PY" -c \
            'import gpuimg, os, sys; assert os.path.realpath(gpuimg.library_path) == sys.argv[1], gpuimg.library_path' \
            "$(realpath "$GPUIMG_SOLIB")") && ok || bad "the module installed without a library does not find it at import"
    else
        bad "pip install ./python without gpuimg.pc failed: $(tail -n 5 "$T/pip2.out")"
    fi
fi
# help(gpuimg) reads: the module's and each function's docstring
"$PY" -c 'import gpuimg, pydoc; t = pydoc.render_doc(gpuimg, renderer=pydoc.plaintext); assert "numpy" in t and "run(pipeline" in t, t[:500]' \
    && ok || bad "help(gpuimg) lacks the module's words"
finish
