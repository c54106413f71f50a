# gpuimg tests: the batch form (-o TEMPLATE, --from-list and -0, --shard, skipping, failures
# going on, the checks made before any work, the summary and its JSON Lines, --dry-run, and an
# interrupted batch leaving no partial files).
. "${TOP_SRCDIR:-.}/tests/lib.sh"

mkdir -p "$T/in/a" "$T/in/b"
"$MKIMG" 31 17 3 8 "$T/in/a/one.png" 1 || exit 99
"$MKIMG" 20 40 1 8 "$T/in/a/two.png" 2 || exit 99
"$MKIMG" 13 42 4 16 "$T/in/b/three.png" 3 || exit 99
"$MKIMG" 7 3 2 8 "$T/in/b/four.png" 4 || exit 99
printf 'not an image' >"$T/in/b/bad.png"
cd "$T" || exit 99

# every output equals the single-file command's (one thread each: the same PNG bytes)
expect_ok --threads=1 --jobs=2 -o 'out/%s.png' gray,resize=50% in/a/one.png in/a/two.png in/b/three.png in/b/four.png
grep -q '^gpuimg: batch: 4 done, 0 failed, 0 skipped of 4 in ' "$ERR" && ok || bad "summary: $(cat "$ERR")"
grep -q '^gpuimg: busy: decode .*encode' "$ERR" && ok || bad "no busy line: $(cat "$ERR")"
grep -Eq '^gpuimg: decoded by: (libdeflate|libpng|stb_image) 4$' "$ERR" && ok || bad "no decoder line: $(cat "$ERR")"
grep -Eq '^gpuimg: encoded by: (libdeflate|zlib|stb_image_write).* 4$' "$ERR" && ok || bad "no encoder line: $(cat "$ERR")"
[ "$(wc -l <"$ERR")" -eq 4 ] && ok || bad "a clean batch printed more than the summary: $(cat "$ERR")"
for f in a/one a/two b/three b/four; do
    "$GPUIMG" -q --threads=1 gray,resize=50% "in/$f.png" single.png && cmp -s single.png "out/${f#*/}.png" && ok ||
        bad "out/${f#*/}.png differs from the single-file result"
    rm -f single.png
done

# existing outputs are skipped (untouched), --force redoes them
cp out/one.png keep.png
touch -d '2001-01-01' out/one.png
expect_ok -o 'out/%s.png' gray,resize=50% in/a/one.png in/a/two.png
grep -q 'batch: 0 done, 0 failed, 2 skipped of 2' "$ERR" && ok || bad "rerun: $(cat "$ERR")"
grep -q '2 outputs existed and were skipped (--force replaces them)' "$ERR" && ok || bad "no skip note: $(cat "$ERR")"
[ "$(stat -c %Y out/one.png)" = "$(date -d 2001-01-01 +%s)" ] && ok || bad "a skipped output was rewritten"
expect_ok -v -o 'out/%s.png' gray,resize=50% in/a/one.png in/a/two.png
grep -q 'out/one.png: output exists, skipped' "$ERR" && ok || bad "-v does not name skipped files: $(cat "$ERR")"
expect_ok --force -o 'out/%s.png' gray,resize=50% in/a/one.png in/a/two.png
grep -q 'batch: 2 done, 0 failed, 0 skipped' "$ERR" && ok || bad "--force: $(cat "$ERR")"
cmp -s keep.png out/one.png && ok || bad "--force gave a different image"

# a failing file is reported on one line and the rest go on; exit 1
run -o 'out2/%s.png' blur=1 in/a/one.png in/b/bad.png in/b/missing.png in/b/four.png
[ "$RC" -eq 1 ] && ok || bad "a failed file: exit $RC, want 1"
grep -q '^gpuimg: in/b/bad.png: not an image' "$ERR" && ok || bad "bad.png not reported: $(cat "$ERR")"
grep -q '^gpuimg: in/b/missing.png: cannot open' "$ERR" && ok || bad "missing.png not reported: $(cat "$ERR")"
grep -q 'batch: 2 done, 2 failed, 0 skipped of 4' "$ERR" && ok || bad "summary with failures: $(cat "$ERR")"
[ -f out2/one.png ] && [ -f out2/four.png ] && [ ! -e out2/bad.png ] && [ ! -e out2/missing.png ] && ok ||
    bad "outputs after failures: $(ls out2)"
[ -z "$(find out2 -name '.*')" ] && ok || bad "temporary files left: $(find out2 -name '.*')"

# template fields; directories are made. %d: below the inputs' common directory (whole names,
# as written; absolute inputs too), nothing and no slash for a file in it; %D: as written
expect_ok -q -o 'tpl/%d/x-%s.%e' flip=h in/a/one.png in/b/four.png
[ -f tpl/a/x-one.png ] && [ -f tpl/b/x-four.png ] && ok || bad "%d/%s.%e: $(find tpl -type f)"
expect_ok -q -o 'tpd/%D/x-%s.%e' flip=h in/a/one.png in/b/four.png
[ -f tpd/in/a/x-one.png ] && [ -f tpd/in/b/x-four.png ] && ok || bad "%D/%s.%e: $(find tpd -type f)"
expect_ok --dry-run -o 'abs/%d/%s.png' gray "$T/in/a/one.png" "$T/in/b/four.png" "$T/in/a/two.png"
[ "$(cat "$OUT")" = "$T/in/a/one.png -> abs/a/one.png
$T/in/b/four.png -> abs/b/four.png
$T/in/a/two.png -> abs/a/two.png" ] && ok || bad "%d with absolute inputs: $(cat "$OUT")"
expect_ok --dry-run -o 'one/%d/%s.png' gray in/a/one.png in/a/two.png
[ "$(cat "$OUT")" = "in/a/one.png -> one/one.png
in/a/two.png -> one/two.png" ] && ok || bad "%d in the common directory: $(cat "$OUT")"
# what an input's name brings never takes its output out of the template's fixed part (a list
# cannot direct outputs anywhere else): a usage error naming the input, before any work; a
# template that starts with %D still writes beside each input
mkdir -p etc && cp in/a/one.png etc/y.png
expect_fail 2 '^gpuimg: in/a/\.\./\.\./etc/y\.png: -o o1/o2/o3/%d/%s\.png would write it to o1/o2/o3/\.\./\.\./etc/y\.png, outside o1/o2/o3/$' \
    -o 'o1/o2/o3/%d/%s.png' copy in/a/one.png in/a/../../etc/y.png
[ ! -e o1 ] && ok || bad "a refused batch wrote: $(find o1)"
printf 'in/a/one.png\nin/a/../../../../../../../tmp/x/y.png\n' >evil.txt
expect_fail 2 '^gpuimg: in/a/(\.\./){7}tmp/x/y\.png: -o o1/o2/%d/%s\.jpg would write it to o1/o2/(\.\./){7}tmp/x/y\.jpg, outside o1/o2/$' \
    --dry-run -o 'o1/o2/%d/%s.jpg' --from-list=evil.txt copy
expect_fail 2 '^gpuimg: \.\./x\.png: -o o1/%D/%s\.png would write it to o1/\.\./x\.png, outside o1/$' \
    --dry-run -o 'o1/%D/%s.png' copy ../x.png
expect_fail 2 '^gpuimg: \.\.\.png: -o o1/%s/%e\.png would write it to o1/\.\./png\.png, outside o1/$' \
    --dry-run -o 'o1/%s/%e.png' copy ...png
expect_fail 2 "^gpuimg: $T/in/a/one\\.png: -o %d/%s\\.jpg would write it to $T/in/a/one\\.jpg, outside the working directory\$" \
    --dry-run -o '%d/%s.jpg' copy "$T/in/a/one.png" in/b/four.png
expect_ok --dry-run -o '%D/small/%s.png' copy ../x/one.png in/b/four.png
[ "$(cat "$OUT")" = "../x/one.png -> ../x/small/one.png
in/b/four.png -> in/b/small/four.png" ] && ok || bad "%D first: $(cat "$OUT")"
expect_ok -q -o 'tpl/%3i_%i%%.jpg' flip=h in/a/one.png in/b/four.png
[ -f tpl/001_1%.jpg ] && [ -f tpl/002_2%.jpg ] && ok || bad "%3i_%i%%: $(find tpl -type f)"
[ "$(dims tpl/001_1%.jpg)" = "31x17 c3 d8" ] && ok || bad "the .jpg output is not a 31x17 RGB JPEG"

# checked before any work: nothing is written
expect_fail 2 'in/a/one.png and in/b/one.png would both be written to col/one.png' \
    -o 'col/%s.png' gray in/a/one.png in/b/one.png
cp in/a/one.png in/b/one.png
expect_fail 2 'in/a/one.png and in/b/one.png would both be written to col/one.png' \
    -o 'col/%s.png' gray in/a/one.png in/b/one.png
[ ! -e col ] && ok || bad "a refused batch made its output directory"
expect_fail 2 'in/a/one.png and in/./a//one.png would both be written to col/in/./a//one.png' \
    -o 'col/%D/%s.png' gray in/a/one.png in/./a//one.png
expect_fail 2 'would overwrite the input in/a/two.png \(--force replaces' -o '%D/%s.png' gray in/a/two.png
# --force: each file may replace its own input (in place), never another file's input
mkdir -p inpl && cp in/a/one.png inpl/x.png && cp in/a/two.png inpl/y.png
expect_ok -q -o 'want/%s.png' gray inpl/x.png inpl/y.png
expect_ok -q --force -o '%D/%s.png' gray inpl/x.png inpl/y.png
cmp -s inpl/x.png want/x.png && cmp -s inpl/y.png want/y.png && ok || bad "--force in place: not the results"
cp in/a/one.png inpl/2.png
expect_fail 2 'inpl/2.png would overwrite the input inpl/2.png$' --force -o '%D/%i.png' gray inpl/2.png inpl/x.png
expect_fail 2 'unknown %q' -o 'x/%q.png' gray in/a/one.png
expect_fail 2 'only %i takes a width' -o 'x/%3s.png' gray in/a/one.png
expect_fail 2 'unknown output format for in/a/one.png' -o 'x/%s.xyz' gray in/a/one.png
expect_fail 2 "'-' \\(stdin\\) cannot be one of a batch's inputs" -o 'x/%s.png' gray -
expect_fail 2 'no INPUT files' -o 'x/%s.png' gray
expect_fail 2 'batch outputs cannot go to stdout' -o - gray in/a/one.png
expect_fail 2 '--compare takes one INPUT and OUTPUT' --compare -o 'x/%s.png' gray in/a/one.png
expect_fail 2 '--from-list works on a batch' --from-list=l.txt gray in/a/one.png x.png
expect_fail 2 '--shard works on a batch' --shard=0/2 gray in/a/one.png x.png
expect_fail 2 '--devices works on a batch' --devices=all gray in/a/one.png x.png
expect_fail 2 '--devices: 0 is listed twice' --devices=0,0 -o 'x/%s.png' gray in/a/one.png
expect_fail 2 '--devices: expected all or a list' --devices=0, -o 'x/%s.png' gray in/a/one.png
expect_fail 2 '--devices: expected a whole number from 0 to 15' --devices=16 -o 'x/%s.png' gray in/a/one.png
expect_fail 2 '--shard: expected K/N' --shard=1 -o 'x/%s.png' gray in/a/one.png
expect_fail 2 '--shard K: expected a whole number from 0 to 2' --shard=4/3 -o 'x/%s.png' gray in/a/one.png
expect_fail 2 '--shard K: expected a whole number from 0 to 2' --shard=3/3 -o 'x/%s.png' gray in/a/one.png
expect_fail 2 '--shard N: expected a whole number' --shard=0/0 -o 'x/%s.png' gray in/a/one.png
[ ! -e x ] && ok || bad "a refused batch wrote something"
expect_fail 1 'nolist.txt: cannot open' -o 'x/%s.png' --from-list=nolist.txt gray
printf '\n\n' >empty.txt
expect_fail 2 'empty.txt: no input files' -o 'x/%s.png' --from-list=empty.txt gray

# --from-list (a file, stdin), --shard: every input exactly once over the shards
rm -f in/b/one.png
i=0
: >list.txt
while [ $i -lt 7 ]; do
    "$MKIMG" $((9 + i)) 5 3 8 "in/s$i.png" $((10 + i)) || exit 99
    printf 'in/s%d.png\n' $i >>list.txt
    [ $i -eq 3 ] && printf '\n' >>list.txt   # empty lines are ignored
    i=$((i + 1))
done
total=0
for k in 0 1 2; do
    expect_ok -q --shard=$k/3 --json=shard$k.json -o "sh/%s.png" --from-list=list.txt gray
    n=$(json_field shard$k.json done)
    total=$((total + n))
done
[ $total -eq 7 ] && ok || bad "3 shards did $total files, want 7"
[ "$(ls sh | wc -l)" -eq 7 ] && ok || bad "3 shards wrote $(ls sh | wc -l) files, want 7"
[ "$(json_field shard0.json selected)" -eq 3 ] && [ "$(json_field shard2.json selected)" -eq 2 ] && ok ||
    bad "shard sizes: $(cat shard0.json shard2.json)"
expect_ok -q --shard=0/3 --json=shard3.json -o "sh3/%s.png" --from-list=- gray <list.txt
[ "$(json_field shard3.json done)" -eq 3 ] && [ -f sh3/s0.png ] && [ -f sh3/s3.png ] && [ -f sh3/s6.png ] && ok ||
    bad "--shard=0/3 from stdin: $(ls sh3)"
grep -q '"busy_ms": {"decode": [0-9.]*, "upload": [0-9.]*, "process": [0-9.]*, "download": [0-9.]*, "encode": [0-9.]*}' \
    shard3.json && ok || bad "JSON lacks busy_ms: $(cat shard3.json)"
grep -Eq '"decoders": \{"(libdeflate|libpng|stb_image)": 3\}' shard3.json && ok || bad "JSON lacks decoders: $(cat shard3.json)"
grep -Eq '"encoders": \{"(libdeflate|zlib|stb_image_write)[^"]*": 3\}' shard3.json && ok || bad "JSON lacks encoders: $(cat shard3.json)"
# inputs named on the command line come first in the list, then the file's
expect_ok -q --json=mix.json -o 'mix/%i.png' --from-list=list.txt gray in/a/one.png
[ "$(json_field mix.json done)" -eq 8 ] && [ "$(dims mix/1.png)" = "31x17 c1 d8" ] && ok || bad "argv then list: $(ls mix)"

# --json in a batch: JSON Lines, a line a file (done, failed with the error's text, skipped) and
# the summary last; a script can pick the failed inputs out of it
mkdir -p jl && cp out/one.png jl/one.png
reads=   # the formats this build reads beside those it always does, as the message lists them
"$GPUIMG" --version | grep -q 'none (WebP)' || reads="WebP, "
"$GPUIMG" --version | grep -q 'none (TIFF)' || reads="${reads}TIFF, "
"$GPUIMG" --version | grep -q 'none (HEIC, AVIF)' || reads="${reads}HEIC, AVIF, "
"$GPUIMG" --version | grep -q 'none (JPEG XL)' || reads="${reads}JPEG XL, "
"$GPUIMG" -q --json=lines.json -o 'jl/%s.png' gray in/a/one.png in/a/two.png in/b/bad.png 2>/dev/null
[ $? -eq 1 ] && [ "$(wc -l <lines.json)" -eq 4 ] && ok || bad "JSON lines: $(cat lines.json)"
grep -qx '{"input": "in/a/one.png", "output": "jl/one.png", "status": "skipped", "error": "output exists"}' lines.json \
    && grep -q '^{"input": "in/a/two.png", "output": "jl/two.png", "status": "done", "decoder": "[a-z_]*", "ms": {"decode": [0-9.]*, "process": [0-9.]*, "encode": [0-9.]*}}$' lines.json \
    && grep -qx '{"input": "in/b/bad.png", "output": "jl/bad.png", "status": "failed", "error": "in/b/bad.png: not an image in a format gpuimg reads (PNG, JPEG, '"$reads"'BMP, TGA, PSD, GIF, PNM, HDR)"}' lines.json \
    && tail -n 1 lines.json | grep -q '^{"summary": true, .*"files": {"listed": 3, "selected": 3, "done": 1, "failed": 1, "skipped": 1}' \
    && ok || bad "JSON lines: $(cat lines.json)"
if command -v python3 >/dev/null 2>&1; then   # each line is JSON to a JSON parser
    python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' lines.json && ok || bad "JSON lines do not parse"
fi
sed -n 's/^{"input": "\([^"]*\)", .*"status": "failed".*/\1/p' lines.json >retry.txt
[ "$(cat retry.txt)" = "in/b/bad.png" ] && ok || bad "the failed inputs: $(cat retry.txt)"

# --dry-run: what would be written, nothing written
expect_ok --dry-run -o 'dry/%s.png' gray in/a/one.png in/a/two.png
[ "$(cat "$OUT")" = "in/a/one.png -> dry/one.png
in/a/two.png -> dry/two.png" ] && grep -q '^gpuimg: dry run: 2 to write, 0 skipped (outputs exist) of 2$' "$ERR" && [ ! -e dry ] \
    && ok || bad "--dry-run: $(cat "$OUT" "$ERR"; ls dry 2>&1)"
expect_ok --dry-run -o 'jl/%s.png' gray in/a/one.png in/a/two.png
[ ! -s "$OUT" ] && grep -q '^gpuimg: dry run: 0 to write, 2 skipped' "$ERR" && ok || bad "--dry-run, outputs there: $(cat "$ERR")"

# -0: a list of NUL-ended paths, so that a name may hold a newline
nl='in/a/new
line.png'
cp in/a/one.png "$nl"
printf 'in/a/two.png\0%s\0' "$nl" >list0
expect_ok -q -0 --from-list=list0 -o 'z/%i.png' gray
[ "$(dims z/1.png)" = "20x40 c1 d8" ] && [ "$(dims z/2.png)" = "31x17 c1 d8" ] && ok || bad "-0: $(ls z)"
expect_ok -q --from-list0=list0 -o 'z0/%i.png' gray
[ -f z0/2.png ] && ok || bad "--from-list0: $(ls z0)"

# progress: none on a pipe by default; -q: nothing at all
expect_ok --no-progress -o 'p1/%s.png' gray in/a/one.png
[ "$(wc -l <"$ERR")" -eq 4 ] && ok || bad "--no-progress printed: $(cat "$ERR")"
expect_ok -q -o 'p2/%s.png' gray in/a/one.png
[ ! -s "$ERR" ] && ok || bad "-q printed: $(cat "$ERR")"

# an interrupted batch leaves no partial file, and the finished ones are whole
i=0
: >big.txt
while [ $i -lt 6 ]; do
    "$MKIMG" 1500 1500 3 16 "in/big$i.png" $((20 + i)) 0 || exit 99
    printf 'in/big%d.png\n' $i >>big.txt
    i=$((i + 1))
done
"$GPUIMG" -q --png-level=9 --jobs=2 -o 'int/%s.png' --from-list=big.txt blur=3 2>/dev/null &
pid=$!
sleep 1
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
if [ $rc -eq 0 ]; then
    echo "note: the batch finished before the interrupt; the cleanup was not exercised"
else
    [ $rc -eq 130 ] && ok || bad "interrupted batch: exit $rc, want 130 (SIGINT)"
fi
[ -z "$(find int -name '.*' 2>/dev/null)" ] && ok || bad "temporary files left: $(find int -name '.*')"
for f in int/*.png; do
    [ -e "$f" ] || continue
    [ "$(dims "$f")" = "1500x1500 c3 d16" ] && ok || bad "$f is not whole after the interrupt"
done
finish
