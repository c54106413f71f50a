# gpuimg tests: no file is replaced or lost by any path. --json is an output like the image; a
# batch compares files by what they are, not by their spelling; a replaced file keeps its mode; a
# failed batch, or one ended by a signal, leaves no directory it made empty; names of 255 bytes
# work; every signal that can be caught, and the file size limit, leave no temporary file; the
# peak memory reported is the process's own.
. "${TOP_SRCDIR:-.}/tests/lib.sh"
cd "$T" || exit 99

"$MKIMG" 37 21 3 8 in.png 5 || exit 99
cp in.png keep.png
same() { cmp -s in.png keep.png; }

# --json: never one of the command's files, whatever the spelling
expect_fail 2 "^gpuimg: --json=in.png: is also in.png" --json=in.png gray in.png out.png
expect_fail 2 "^gpuimg: --json=out.png: is also out.png" --json=out.png gray in.png out.png
mkdir -p sub
expect_fail 2 "is also out.png" --json=./sub/../out.png --force gray in.png out.png
ln -s in.png link.json
ln in.png hard.json
expect_fail 2 "^gpuimg: --json=link.json: is also in.png" --force --json=link.json gray in.png o1.png
expect_fail 2 "^gpuimg: --json=hard.json: is also in.png" --force --json=hard.json gray in.png o1.png
same && [ ! -e out.png ] && [ ! -e o1.png ] && ok || bad "a refused --json changed a file: $(ls)"
# not replaced without --force; replaced with it, through a temporary file
printf 'old report\n' >r.json
expect_fail 1 "^gpuimg: r.json: output exists \(use --force" --json=r.json gray in.png o2.png
[ "$(cat r.json)" = "old report" ] && [ ! -e o2.png ] && ok || bad "--json replaced r.json without --force"
expect_ok -q --force --json=r.json gray in.png o2.png
grep -q '"pipeline"' r.json && [ -f o2.png ] && ok || bad "--force --json: $(cat r.json)"
# a report that cannot be written fails the command before the image is published
expect_fail 1 "^gpuimg: /dev/full: write failed" --json=/dev/full gray in.png o3.png
[ ! -e o3.png ] && [ -z "$(ls -A | grep '^\.')" ] && ok || bad "--json=/dev/full left: $(ls -A)"
chmod 0555 sub
if ! : 2>/dev/null >sub/probe; then
    expect_fail 1 "sub/r.json: cannot write" --json=sub/r.json gray in.png o4.png
    [ ! -e o4.png ] && ok || bad "an unwritable --json still wrote o4.png"
fi
chmod 0755 sub
# a batch's --json: none of its inputs or outputs, and kept without --force
mkdir -p b
cp in.png b/x.png
expect_fail 2 "^gpuimg: --json=b/x.png: is also b/x.png" --json=b/x.png -o 'bo/%s.png' gray b/x.png
expect_fail 2 "^gpuimg: --json=bo/x.png: is also bo/x.png" --json=bo/x.png -o 'bo/%s.png' gray b/x.png
expect_fail 1 "^gpuimg: r.json: output exists" --json=r.json -o 'bo/%s.png' gray b/x.png
[ ! -e bo ] && ok || bad "a refused batch made bo/"

# a batch compares outputs with inputs by what they are: b/../a/x.png is a/x.png
mkdir -p a c
cp in.png a/x.png
cp in.png c/x.png
sum=$(cksum <a/x.png)
expect_fail 2 "a/x.png and c/x.png would both be written to c/../a/x.png" --force -o '%d/../a/%s.png' gray a/x.png c/x.png
[ "$(cksum <a/x.png)" = "$sum" ] && ok || bad "a/x.png was replaced"
ln -s a al
cp in.png a/2.png   # item 2's output al/2.png is item 1's input, through the link
expect_fail 2 "would overwrite the input a/2.png" --force -o 'al/%i.png' gray a/2.png c/x.png
expect_fail 2 "would both be written to" -o 'out2/%s.png' gray a/x.png c/./x.png
mkdir h
cp in.png c/v.png
ln a/x.png h/v.png   # the output name is another input's file under a second name
expect_fail 2 "would overwrite the input a/x.png" --force -o 'h/%s.png' gray c/v.png a/x.png

# --force keeps a replaced file's permissions
"$GPUIMG" -q gray in.png m.png && chmod 0600 m.png || exit 99
expect_ok -q --force flip=h in.png m.png
[ "$(stat -c %a m.png)" = 600 ] && ok || bad "--force changed the mode to $(stat -c %a m.png)"
umask 022
expect_ok -q gray in.png m2.png
[ "$(stat -c %a m2.png)" = 644 ] && ok || bad "a new file has mode $(stat -c %a m2.png)"

# a failed batch leaves no directory it made; one it needed for a result stays
: >empty.png
run -o 'made/deep/%s.png' gray empty.png
[ "$RC" -eq 1 ] && grep -q "^gpuimg: empty.png: empty file" "$ERR" && [ ! -e made ] && ok \
    || bad "a failed batch: exit $RC, left $(find made)"
run -o 'made2/%s/x.png' gray empty.png in.png
[ "$RC" -eq 1 ] && [ -f made2/in/x.png ] && [ ! -e made2/empty ] && ok || bad "mixed batch left: $(find made2)"

# an output's name as long as a name may be (255 bytes, in ASCII or two-byte characters): the
# temporary name beside it is cut to fit, a file and a batch alike
long=$(printf 'x%.0s' $(seq 251)).png
wide=$(printf '\303\251%.0s' $(seq 125)).png
for n in "$long" "$wide"; do
    expect_ok -q gray in.png "$n" && [ -f "$n" ] && ok || bad "a name of $(printf %s "$n" | wc -c) bytes"
done
cp in.png "lb/$long" 2>/dev/null || { mkdir lb && cp in.png "lb/$long"; }
expect_ok -q -o 'lo/%s.%e' gray "lb/$long" && [ -f "lo/$long" ] && ok || bad "a batch's name of 255 bytes"
[ -z "$(ls -A | grep '^\.')" ] && [ -z "$(ls -A lo | grep '^\.')" ] && ok || bad "long names left temporary files"
rm -rf "$long" "$wide" lb lo

# the file size limit: a clear error, no output and no temporary file (not a silent SIGXFSZ)
"$MKIMG" 600 400 3 16 big.png 3 0 || exit 99
(ulimit -f 100; "$GPUIMG" --png-level=0 gray big.png fsz.png) 2>fsz.err
rc=$?
[ $rc -eq 1 ] && grep -q "^gpuimg: fsz.png: write failed: the file would pass the file size limit" fsz.err \
    && [ "$(wc -l <fsz.err)" -eq 1 ] && [ -z "$(ls -A | grep 'fsz.png')" ] && ok \
    || bad "ulimit -f: exit $rc, $(cat fsz.err), left: $(ls -A | grep fsz)"

# every signal that ends the process and can be caught removes the temporary file: each sent
# while the encoder writes (the temporary file exists)
"$MKIMG" 1200 1200 4 16 sig.png 9 0 || exit 99
# a batch ended by SIGTERM removes the directories it made that its unfinished files leave empty
# (one job, each file in a directory of its own: sent once the first is made)
mkdir -p st/d1 st/d2 st/d3
for d in d1 d2 d3; do cp sig.png st/$d/x.png; done
"$GPUIMG" -q -j1 --threads=1 --png-level=9 -o 'stout/deep/%d/%s.png' blur=6 st/d1/x.png st/d2/x.png st/d3/x.png 2>/dev/null &
pid=$!
n=0
while [ $n -lt 400 ] && [ ! -d stout/deep/d1 ]; do sleep 0.05; n=$((n + 1)); done
kill -TERM $pid 2>/dev/null
wait $pid
rc=$?
if [ $rc -eq 0 ]; then
    echo "note: SIGTERM came after the batch finished; not exercised"
else
    [ -z "$(find stout -type d -empty 2>/dev/null)" ] && [ -z "$(find stout -name '.*' 2>/dev/null)" ] && ok \
        || bad "a batch ended by SIGTERM left: $(find stout)"
fi
for s in INT TERM HUP QUIT USR1 USR2 ALRM; do
    "$GPUIMG" -q --force --threads=1 --png-level=9 blur=6 sig.png "s$s.png" 2>/dev/null &
    pid=$!
    n=0
    while [ $n -lt 400 ] && ! ls -A | grep -q "^\.s$s\.png\."; do sleep 0.05; n=$((n + 1)); done
    kill -s "$s" $pid 2>/dev/null
    wait $pid
    rc=$?
    left=$(ls -A | grep "s$s\.png")
    if [ $rc -eq 0 ]; then
        echo "note: SIG$s came after the run finished; not exercised"
    else
        [ -z "$left" ] && [ $rc -gt 128 ] && ok || bad "SIG$s: exit $rc, left: $left"
    fi
done

# peak memory is this process's, not the parent's: a small image run from a shell that holds
# 300 MB reports well under that
json_peak() { sed -n 's/.*"peak_rss_kib": \([0-9]*\).*/\1/p' "$1"; }
if command -v python3 >/dev/null; then   # fork and exec, as a shell does (no vfork)
    python3 -c "
import os, sys
b = bytearray(300 << 20)
for i in range(0, len(b), 4096): b[i] = 1
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], '-q', '--backend=cpu', '--json=peak.json', 'gray', 'in.png', 'peak.png'])
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
" "$GPUIMG" && [ "$(json_peak peak.json)" -lt 150000 ] && ok || bad "peak memory: $(json_peak peak.json) kB"
fi
finish
