#!/bin/sh
# gpuimg: fuzz every target with libFuzzer for SECONDS each (a build configured with
# ./configure CC=clang --enable-fuzzing --without-cuda; run from its top directory):
#   sh tests/fuzz/run.sh [SECONDS] [TARGET...]
# FUZZ_RUNS=N runs N inputs a target instead of a time, and FUZZ_SEED=S fixes libFuzzer's seed:
# together a reproducible run (CI uses them).
# New corpus entries go to tests/fuzz/work/TARGET (not committed); a crash stops the run with
# its input in tests/fuzz/crash-*; copy it into tests/crashers/TARGET/ with the fix.
# Each input is held to 2 s and the process to 512 MiB (-timeout, -rss_limit_mb): an input that
# takes more is a finding (a decompression or scan bomb), not a slow run. fuzz_pipeline's inputs
# run a pipeline and two encoders and decoders on up to 2^18 pixels, over a second under the
# sanitizers for a long thin image: 10 s there.
# Prints one line a target: executions, corpus size, time.
set -u
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-load parse pipeline request}
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$(sed -n 's/^abs_top_srcdir = //p' "$top/Makefile" 2>/dev/null)
src=${src:-$top}
status=0
for t in $targets; do
    bin="$top/tests/fuzz/fuzz_$t"
    [ -x "$bin" ] || make -C "$top" "tests/fuzz/fuzz_$t" >/dev/null || exit 1
    work="$top/tests/fuzz/work/$t"
    mkdir -p "$work"
    log="$top/tests/fuzz/work/$t.log"
    limit="-max_total_time=$secs"
    [ -n "${FUZZ_RUNS:-}" ] && limit="-runs=$FUZZ_RUNS"
    [ -n "${FUZZ_SEED:-}" ] && limit="$limit -seed=$FUZZ_SEED"
    per_input=2
    [ "$t" = pipeline ] && per_input=10
    # shellcheck disable=SC2086
    OMP_NUM_THREADS=1 "$bin" $limit -timeout=$per_input -rss_limit_mb=512 -max_len=16384 \
        -print_final_stats=1 -artifact_prefix="$top/tests/fuzz/crash-$t-" "$work" "$src/tests/fuzz/corpus/$t" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    how="$secs s"
    [ -n "${FUZZ_RUNS:-}" ] && how="$FUZZ_RUNS runs, seed ${FUZZ_SEED:-random}"
    echo "fuzz_$t: exit $rc, ${execs:-?} executions ($how), corpus $(ls "$work" | wc -l) files"
    if [ "$rc" -ne 0 ]; then
        grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -n 5
        status=1
    fi
done
exit $status
