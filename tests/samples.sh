# gpuimg tests: the bundled samples decode, and samples/batch.sh processes a folder of them
# (skipping existing outputs unless asked), leaving one output per input.
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
grep -q "skipped $n" "$T/log2" && ok || bad "a second batch.sh run did not skip existing outputs: $(tail -n 2 "$T/log2")"
finish
