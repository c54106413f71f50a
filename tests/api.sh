# gpuimg tests: the library (include/gpuimg.h, libgpuimg.so) from a program of its own. tests/api_test
# links the build tree's shared library: every call's checks (options, read, run, write, encode,
# decode, the caller's memory, bad input, device images where a GPU is), then its file through
# gpuimg_convert has the command's bytes, the static link gpuimg.pc gives works, and the library
# exports the header's functions alone, each at a GPUIMG_ symbol version.
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

# README's C example, in a main of its own, as a user would build it
sed -n '/^```c$/,/^```$/p' "$TOP_SRCDIR/README.md" | sed '1d;$d' >"$T/readme.c"
if [ -s "$T/readme.c" ]; then
    { echo '#include <stdio.h>'; sed -n 1p "$T/readme.c"; echo 'int main(void) {'; sed 1d "$T/readme.c"
      echo 'gpuimg_image_free(&in); gpuimg_image_free(&out); gpuimg_ctx_free(ctx); return 0; }'; } >"$T/app.c"
    cp "$TOP_SRCDIR/samples/path-640x400.jpg" "$T/photo.jpg"
    if ${CC:-cc} -o "$T/app" "$T/app.c" -I"$TOP_SRCDIR/include" -L"$(dirname "$GPUIMG_SOLIB")" -lgpuimg \
        -Wl,-rpath,"$(dirname "$GPUIMG_SOLIB")" ${GPUIMG_SANITIZERS:-} 2>"$T/cc.err"; then
        (cd "$T" && ./app) && [ -s "$T/t.png" ] && ok || bad "README's C example did not write t.png"
        expect_ok --no-server --backend=cpu resize=50% "$T/photo.jpg" "$T/cmd-t.png"
        cmp -s "$T/t.png" "$T/cmd-t.png" && ok || bad "README's C example's t.png is not the command's"
    else
        bad "README's C example does not build: $(head -c 600 "$T/cc.err")"
    fi
else
    bad "README has no C example (a \`\`\`c block)"
fi

# gpuimg.pc's static link: Libs.private names libraries (the OpenMP runtime among them), no
# compiler flag, and with them api_test.c links against libgpuimg.a (the one make install
# installs) with no -fopenmp of its own, and runs
builddir=$(dirname "$GPUIMG_SOLIB")
if command -v pkg-config >/dev/null 2>&1 && [ -f "$builddir/gpuimg.pc" ] && [ -f "$builddir/libgpuimg-install.a" ] \
    && [ -z "${GPUIMG_SANITIZERS:-}" ]; then
    private=$(sed -n 's/^Libs.private: *//p' "$builddir/gpuimg.pc")
    flags=$(printf '%s\n' $private | grep -v -e '^-l' -e '^-L' -e '^-Wl,' -e '^-pthread$' | tr '\n' ' ')
    [ -z "$flags" ] && ok || bad "gpuimg.pc's Libs.private has compiler flags, not libraries: $flags"
    libs=$(PKG_CONFIG_PATH=$builddir pkg-config --static --libs gpuimg | sed "s|-lgpuimg|$builddir/libgpuimg-install.a|")
    mkdir -p "$T/static"
    # the build's LDFLAGS: where configure found the libraries; a toolchain whose libstdc++.a is
    # not position-independent links a static program as non-PIE, as its own programs do
    link() {
        # shellcheck disable=SC2086
        ${CC:-cc} -o "$T/api_static" "$TOP_SRCDIR/tests/api_test.c" -I"$TOP_SRCDIR/include" "$@" ${LDFLAGS:-} $libs \
            2>"$T/static.err"
    }
    if link || { grep -q 'making a PIE object' "$T/static.err" && link -no-pie; }; then
        ldd "$T/api_static" 2>/dev/null | grep -q libgpuimg && bad "the static program loads libgpuimg.so" || ok
        "$T/api_static" "$TOP_SRCDIR/samples" "$T/static" >"$T/static.out" 2>&1 && ok \
            || bad "api_test linked statically through pkg-config fails: $(tail -n 5 "$T/static.out")"
    else
        bad "pkg-config --static --libs gpuimg does not link api_test.c: $(head -c 600 "$T/static.err")"
    fi
fi

# the program runs on the shared library, which exports gpuimg_* alone
if command -v ldd >/dev/null 2>&1 && [ -z "${GPUIMG_SANITIZERS:-}" ]; then
    ldd "$API_TEST" | grep -q "libgpuimg.so.0 => /" && ok || bad "api_test does not load libgpuimg.so.0: $(ldd "$API_TEST")"
fi
if command -v nm >/dev/null 2>&1; then
    # names without their versions (nm prints gpuimg_run@@GPUIMG_0.2), the version nodes' own
    # absolute symbols (A GPUIMG_0.2) aside
    nm -D --defined-only "$GPUIMG_SOLIB" | awk '$2 != "A" { sub(/@.*/, "", $3); print $2, $3 }' >"$T/so.syms"
    other=$(awk '{ print $2 }' "$T/so.syms" | grep -v '^gpuimg_' | head -n 5)
    [ -z "$other" ] && ok || bad "libgpuimg.so exports names beside the API's: $other"
    grep -q '^T gpuimg_run$' "$T/so.syms" && ok || bad "libgpuimg.so has no gpuimg_run"
    # exactly the header's GPUIMG_API functions (src/lib/gpuimg.map lists each)
    sed -n 's/^GPUIMG_API [^(]*[ *]\(gpuimg_[a-z0-9_]*\)(.*/\1/p' "$TOP_SRCDIR/include/gpuimg.h" | sort >"$T/api.names"
    awk '$1 == "T" { print $2 }' "$T/so.syms" | sort >"$T/so.names"
    [ -s "$T/api.names" ] && cmp -s "$T/api.names" "$T/so.names" && ok \
        || bad "libgpuimg.so's functions are not gpuimg.h's (add new ones to src/lib/gpuimg.map): $(diff "$T/api.names" "$T/so.names" | grep '^[<>]' | tr '\n' ' ')"
fi
# symbol versions: every function exported at a GPUIMG_ version node, none unversioned
if command -v objdump >/dev/null 2>&1; then
    objdump -T "$GPUIMG_SOLIB" | awk '$NF ~ /^gpuimg_/ && $0 !~ /\*UND\*/ { print $(NF-1), $NF }' >"$T/versions"
    unversioned=$(grep -v '^GPUIMG_[0-9][0-9.]* ' "$T/versions" | head -n 5 | tr '\n' ' ')
    [ -s "$T/versions" ] && [ -z "$unversioned" ] && ok || bad "libgpuimg.so exports without a GPUIMG_ version: $unversioned"
    grep -q '^GPUIMG_0\.2 gpuimg_run$' "$T/versions" && ok || bad "gpuimg_run is not at version GPUIMG_0.2: $(grep gpuimg_run "$T/versions")"
fi
finish
