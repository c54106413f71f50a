# gpuimg tests: the library (include/gpuimg.h, libgpuimg.so) from a program of its own. tests/api_test
# links the build tree's shared library: every call's checks (options, read, run, write, encode,
# decode, the caller's memory, bad input, device images where a GPU is), then its file through
# gpuimg_convert has the command's bytes, and the library exports the API's names alone.
. "${TOP_SRCDIR:-.}/tests/lib.sh"
: "${API_TEST:?run through make check}" "${GPUIMG_SOLIB:?run through make check}"

if "$API_TEST" "$TOP_SRCDIR/samples" "$T" >"$T/api.out" 2>"$T/api.err"; then ok; else bad "api_test: $(cat "$T/api.err")"; fi
cat "$T/api.out"
if [ "${GPUIMG_REQUIRE_GPU:-0}" = 1 ]; then
    grep -q "device images checked" "$T/api.out" && ok || bad "GPUIMG_REQUIRE_GPU=1 but the library ran no device image: $(cat "$T/api.out")"
fi

# gpuimg_convert is the command's run: the same bytes
expect_ok --no-server --backend=cpu --threads=2 gray,resize=50% "$TOP_SRCDIR/samples/elarun-640x400.png" "$T/cmd.png"
cmp -s "$T/cmd.png" "$T/convert.png" && ok || bad "gpuimg_convert's file is not the command's"

# the program runs on the shared library, which exports gpuimg_* alone
if command -v ldd >/dev/null 2>&1 && [ -z "${GPUIMG_SANITIZERS:-}" ]; then
    ldd "$API_TEST" | grep -q "libgpuimg.so.0 => /" && ok || bad "api_test does not load libgpuimg.so.0: $(ldd "$API_TEST")"
fi
if command -v nm >/dev/null 2>&1; then
    other=$(nm -D --defined-only "$GPUIMG_SOLIB" | awk '{ print $3 }' | grep -v '^gpuimg_' | head -n 5)
    [ -z "$other" ] && ok || bad "libgpuimg.so exports names beside the API's: $other"
    nm -D --defined-only "$GPUIMG_SOLIB" | grep -q ' T gpuimg_run$' && ok || bad "libgpuimg.so has no gpuimg_run"
fi
finish
