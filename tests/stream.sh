# gpuimg tests: one file decoded, processed and encoded at once (src/engine/stream.c). Each
# pipeline on baseline, progressive, 4:4:4 and grey JPEGs of an odd width gives the very file the
# stages in turn give (GPUIMG_STREAM=0), and streams exactly where it can (-v and --json say so):
# not where the first rows of the result need the last of the input (transpose, rotate=180,
# flip=v), a resize is not by a whole factor on the rows, or the result is one PNG strip (under
# 512 KiB: the grey quarter). A JPEG that ends halfway, and an
# output that cannot be written, leave one line and nothing behind.
. "${TOP_SRCDIR:-.}/tests/lib.sh"

"$GPUIMG" --version | grep -q "libjpeg-turbo" || { echo "stream: libjpeg-turbo not built in: skipped"; exit 77; }
"$GPUIMG" --version | grep -q "OpenMP: yes" || { echo "stream: no OpenMP: skipped"; exit 77; }

"$MKIMG" 2001 1552 3 8 "$T/src.png" 11 || exit 99
expect_ok -q resize=100% "$T/src.png" "$T/base.jpg"
expect_ok -q --jpeg-progressive resize=100% "$T/src.png" "$T/prog.jpg"
expect_ok -q --jpeg-sampling=444 resize=100% "$T/src.png" "$T/s444.jpg"
expect_ok -q gray "$T/src.png" "$T/gray.jpg"

for j in base prog s444 gray; do
    while read -r pipe streams grey; do
        [ "$j" = gray ] && streams=$grey
        run -v --threads=2 -f --backend=cpu "$pipe" "$T/$j.jpg" "$T/s.png"
        if [ "$RC" -ne 0 ]; then
            bad "$pipe on $j.jpg: exit $RC: $(cat "$ERR")"
            continue
        fi
        grep -q "streamed: the stages overlap" "$ERR" && got=yes || got=no
        [ "$got" = "$streams" ] || bad "$pipe on $j.jpg: streamed $got, want $streams: $(cat "$ERR")"
        [ "$got" = yes ] || grep -q '^gpuimg: not streamed: [a-z]' "$ERR" || bad "$pipe on $j.jpg: -v does not say why it was not streamed"
        GPUIMG_STREAM=0 "$GPUIMG" -q --threads=2 -f --backend=cpu "$pipe" "$T/$j.jpg" "$T/n.png" || bad "$pipe on $j.jpg without streaming"
        cmp -s "$T/s.png" "$T/n.png" && ok || bad "$pipe on $j.jpg: the streamed file differs"
    done <<'CASES'
gray yes yes
resize=50% yes yes
resize=25%:filter=bilinear yes no
blur=2 yes yes
gray,resize=50%,blur=2 yes yes
blur=1,resize=50%:filter=nearest,gray yes yes
flip=h yes yes
transpose no no
rotate=180 no no
flip=v no no
resize=200% no no
resize=33% no no
CASES
done

run -q --threads=2 --backend=cpu --json="$T/r.json" blur=2 "$T/prog.jpg" "$T/j.png"
grep -q '"streamed": true' "$T/r.json" && ok || bad "--json does not say streamed: $(cat "$T/r.json")"
run -q --threads=1 --backend=cpu --json="$T/r1.json" blur=2 "$T/prog.jpg" "$T/j1.png"
grep -q '"streamed": false' "$T/r1.json" && ok || bad "one thread streamed: $(cat "$T/r1.json")"

# a JPEG cut halfway (and closed with an end-of-image marker, so that it passes the checks before
# decoding) fails after some bands were made: one line, no output, no temporary file, and no
# crash, run after run (the decoder's rows must outlive the threads reading them: a failed decode
# that freed them crashed about one run in four)
mkdir "$T/out"
for j in base prog; do
    size=$(wc -c <"$T/$j.jpg")
    { head -c $((size / 2)) "$T/$j.jpg"; printf '\377\331'; } >"$T/cut-$j.jpg"
    for i in 1 2 3 4 5 6 7 8 9 10; do
        expect_fail 1 "cut-$j.jpg: bad JPEG" --threads=2 --backend=cpu gray "$T/cut-$j.jpg" "$T/out/o.png"
    done
    [ -z "$(ls -A "$T/out")" ] && ok || bad "a failed streamed run left: $(ls -A "$T/out")"
done
if [ -w /dev/full ]; then
    expect_fail 1 "/dev/full: write failed: No space left on device" --threads=2 --backend=cpu gray "$T/base.jpg" /dev/full
fi
finish
