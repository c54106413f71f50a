# gpuimg tests: replay the fuzz targets' committed corpus (tests/fuzz/corpus/TARGET) and every
# input that once crashed gpuimg (tests/crashers/TARGET) through the targets. Each must run
# every file to the end (a failing property or a sanitizer report aborts the target).
. "${TOP_SRCDIR:-.}/tests/lib.sh"

bindir=$(dirname "$GPUIMG")/tests/fuzz
for t in load parse pipeline request; do
    list="$T/$t.list"
    # files, never directories: libFuzzer's main would start fuzzing a directory
    find "$TOP_SRCDIR/tests/fuzz/corpus/$t" "$TOP_SRCDIR/tests/crashers/$t" -type f 2>/dev/null | sort >"$list"
    n=$(wc -l <"$list")
    [ "$n" -gt 0 ] || { bad "$t: no corpus"; continue; }
    # shellcheck disable=SC2046
    if OMP_NUM_THREADS=1 "$bindir/fuzz_$t" $(cat "$list") >"$T/out" 2>"$T/err"; then
        if grep -q '^replayed' "$T/out"; then
            grep -qx "replayed $n inputs" "$T/out" && ok || bad "$t: $(cat "$T/out"), want $n"
        else
            ok   # libFuzzer's main ran the files
        fi
        echo "fuzz_$t: $n inputs replayed ($(find "$TOP_SRCDIR/tests/crashers/$t" -type f 2>/dev/null | wc -l) of them crashers)"
    else
        bad "fuzz_$t failed: $(tail -n 30 "$T/err")"
    fi
done
finish
