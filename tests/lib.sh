# gpuimg tests: helpers for the shell tests (sourced). Every test runs in its own scratch folder
# and reports "N passed, N failed" at the end; exit 0 only if nothing failed.
set -u
: "${GPUIMG:?run through make check}"
# every command runs in the test's process, as before the server; tests/server.sh says otherwise
GPUIMG_SERVER=0
export GPUIMG_SERVER
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuimg-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
PASS=0
FAIL=0

ok() { PASS=$((PASS + 1)); }
bad() { FAIL=$((FAIL + 1)); echo "FAIL: $*" >&2; }

# run ARGS...: runs gpuimg; sets RC, OUT (stdout file) and ERR (stderr file)
run() {
    "$GPUIMG" "$@" >"$T/stdout" 2>"$T/stderr"
    RC=$?
    OUT="$T/stdout"
    ERR="$T/stderr"
}

# expect_fail CODE REGEX ARGS...: exit status CODE, no signal, exactly one stderr line (then,
# for usage errors, the three usage lines), matching REGEX
expect_fail() {
    code=$1 re=$2
    shift 2
    run "$@"
    if [ "$RC" -ne "$code" ]; then
        bad "gpuimg $*: exit $RC, want $code; stderr: $(head -c 300 "$ERR")"
        return
    fi
    lines=$(wc -l <"$ERR")
    want=1
    [ "$code" -eq 2 ] && want=4
    if [ "$lines" -ne "$want" ]; then
        bad "gpuimg $*: $lines lines on stderr, want $want: $(cat "$ERR")"
        return
    fi
    if ! head -n 1 "$ERR" | grep -Eq -- "$re"; then
        bad "gpuimg $*: stderr '$(head -n 1 "$ERR")' does not match /$re/"
        return
    fi
    ok
}

# expect_ok ARGS...: exit status 0
expect_ok() {
    run "$@"
    if [ "$RC" -ne 0 ]; then
        bad "gpuimg $*: exit $RC: $(cat "$ERR")"
        return 1
    fi
    ok
}

# json_field FILE KEY: the number after "KEY": in a --json report (first occurrence)
json_field() { sed -n "s/.*\"$2\": \([0-9.]*\).*/\1/p" "$1" | head -n 1; }

# dims FILE: "WxH cC dD" of an image, read back through gpuimg itself
dims() {
    "$GPUIMG" -q --json="$T/dims.json" --force flip=h "$1" "$T/dims.png" 2>/dev/null || { echo "unreadable"; return; }
    w=$(sed -n 's/.*"output_image": {"width": \([0-9]*\), "height": \([0-9]*\), "channels": \([0-9]\), "depth": \([0-9]*\).*/\1x\2 c\3 d\4/p' "$T/dims.json")
    echo "$w"
}

# within A B TOL MEAN PSNR LABEL: the pixels of A and B within TOL levels, MEAN on average, and
# PSNR dB or more (tests/golden_test --diff)
within() {
    "$(dirname "$GPUIMG")/tests/golden_test" --diff "$1" "$2" "$3" "$4" "$5" >"$T/log" 2>&1 && ok || bad "$6: $(cat "$T/log")"
}
# json_geom FILE: "WxH cC dD" of the input image a --json report describes
json_geom() { sed -n 's/.*"input_image": {"width": \([0-9]*\), "height": \([0-9]*\), "channels": \([0-9]*\), "depth": \([0-9]*\)}.*/\1x\2 c\3 d\4/p' "$1"; }

# skip_or_fail WHY: a GPU test that cannot run here: SKIP (77), or a failure where
# GPUIMG_REQUIRE_GPU=1 says a GPU must be there
skip_or_fail() {
    if [ "${GPUIMG_REQUIRE_GPU:-0}" = 1 ]; then
        echo "FAIL: GPUIMG_REQUIRE_GPU=1 but $1" >&2
        exit 1
    fi
    echo "SKIP: $1"
    exit 77
}

finish() {
    echo "$PASS passed, $FAIL failed"
    [ "$FAIL" -eq 0 ]
}

# exif ORDER VALUE: an APP1 "Exif" segment (34 bytes after its marker) whose IFD0 holds the
# orientation VALUE, in byte ORDER MM or II, as a camera writes it
exif() {
    b=$(printf '\\%03o' "$2")   # the value's byte, as an escape for the format below
    if [ "$1" = MM ]; then
        printf "\\377\\341\\000\\042Exif\\000\\000MM\\000\\052\\000\\000\\000\\010\\000\\001\\001\\022\\000\\003\\000\\000\\000\\001\\000$b\\000\\000\\000\\000\\000\\000"
    else
        printf "\\377\\341\\000\\042Exif\\000\\000II\\052\\000\\010\\000\\000\\000\\001\\000\\022\\001\\003\\000\\001\\000\\000\\000$b\\000\\000\\000\\000\\000\\000\\000"
    fi
}
# exif_jpeg JPEG ORDER VALUE: that JPEG with the segment after its SOI marker, on stdout
exif_jpeg() { head -c 2 "$1"; exif "$2" "$3"; tail -c +3 "$1"; }
