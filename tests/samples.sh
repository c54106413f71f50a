# gpuimg tests: the bundled samples decode; samples/batch.sh processes a folder of them (skipping
# existing outputs unless asked), leaving one output per input; samples/batch-parallel.sh (GNU
# parallel, 2 shards) and samples/batch-slurm.sbatch (as two array tasks numbered from 1) process
# every input of a list exactly once.
. "${TOP_SRCDIR:-.}/tests/lib.sh"

n=0
for f in "$TOP_SRCDIR"/samples/*.png "$TOP_SRCDIR"/samples/*.jpg; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    case "$(dims "$f")" in
        unreadable) bad "$f does not decode" ;;
        *) ok ;;
    esac
done
[ "$n" -ge 3 ] && ok || bad "expected at least 3 sample images, found $n"
PATH="$(dirname "$GPUIMG"):$PATH" sh "$TOP_SRCDIR/samples/batch.sh" "gray,resize=25%" "$TOP_SRCDIR/samples" "$T/batch" >"$T/log" 2>&1
[ $? -eq 0 ] && ok || bad "batch.sh failed: $(cat "$T/log")"
[ "$(ls "$T/batch" | wc -l)" -eq "$n" ] && ok || bad "batch.sh made $(ls "$T/batch" | wc -l) outputs for $n inputs"
PATH="$(dirname "$GPUIMG"):$PATH" sh "$TOP_SRCDIR/samples/batch.sh" "gray,resize=25%" "$TOP_SRCDIR/samples" "$T/batch" >"$T/log2" 2>&1
grep -q "0 done, 0 failed, $n skipped" "$T/log2" && ok ||
    bad "a second batch.sh run did not skip existing outputs: $(tail -n 2 "$T/log2")"

# a list of 9 inputs in two folders, two of them with the same name
mkdir -p "$T/l/a" "$T/l/b"
: >"$T/list.txt"
i=0
while [ $i -lt 9 ]; do
    d=a
    [ $i -ge 5 ] && d=b
    "$MKIMG" $((10 + i)) 7 3 8 "$T/l/$d/img$((i % 7)).png" $i || exit 99
    echo "$T/l/$d/img$((i % 7)).png" >>"$T/list.txt"
    i=$((i + 1))
done
# exactly once: the shards' "N done" add up to 9 and there are 9 outputs
once() {   # once LOG DIR WHAT
    d=$(sed -n 's/.*batch: \([0-9]*\) done, 0 failed.*/\1/p' "$1" | awk '{s += $1} END {print s + 0}')
    [ "$d" -eq 9 ] && ok || bad "$3: the shards did $d files, want 9: $(cat "$1")"
    c=$(find "$2" -type f -name '*.png' | wc -l)
    [ "$c" -eq 9 ] && ok || bad "$3: $c outputs, want 9"
    [ "$(grep -c 'batch:' "$1")" -eq 2 ] && ok || bad "$3: want 2 shard summaries: $(cat "$1")"
}
if command -v parallel >/dev/null 2>&1; then
    GPUIMG="$GPUIMG" sh "$TOP_SRCDIR/samples/batch-parallel.sh" gray "$T/list.txt" "$T/par/%d/%s.png" 2 >"$T/plog" 2>&1
    [ $? -eq 0 ] && ok || bad "batch-parallel.sh failed: $(cat "$T/plog")"
    once "$T/plog" "$T/par" batch-parallel.sh
    grep -q '^shard 1/2' "$T/plog" && ok || bad "batch-parallel.sh: no shard tags: $(cat "$T/plog")"
else
    echo "note: GNU parallel is not installed (Debian: parallel); batch-parallel.sh not run"
fi
: >"$T/slog"
for task in 1 2; do
    SLURM_ARRAY_TASK_ID=$task SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=2 SLURM_CPUS_PER_TASK=1 GPUIMG="$GPUIMG" \
        sh "$TOP_SRCDIR/samples/batch-slurm.sbatch" gray "$T/list.txt" "$T/slurm/%d/%s.png" >>"$T/slog" 2>&1 ||
        bad "batch-slurm.sbatch task $task failed"
done
once "$T/slog" "$T/slurm" batch-slurm.sbatch
finish
