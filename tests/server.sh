# gpuimg tests: the server (GPUIMG_SERVER=1, its own directory), with whatever backend this
# machine has (the CPU on one without a GPU; the GPU with --backend=gpu where there is one).
# - A command through the server writes the bytes, exit status and messages of the same command
#   run in-process (--no-server): good files, bad and missing inputs, stdin and stdout, an
#   existing output, --json, JPEG out, a batch; the timing line says the server served it and
#   whether this command started it.
# - --server-status and --server-stop; the server exits after --server-idle seconds alone and
#   removes its socket.
# - The directory: made 0700; one others may enter, or (as root) one another user owns, is
#   refused and the command runs in-process with the same bytes.
# - A stale socket (server killed with SIGKILL) is replaced; eight clients starting at once end
#   with one server; sixteen clients at once all get their bytes.
# - Hostile requests (tests/sockpoke): garbage, cut, another version, wrong or missing
#   descriptors, too long, a field out of range (a pixel limit outside --max-pixels's), a client
#   that says nothing: each is answered or closed alone, and the server goes on serving. With
#   more connections than it takes, a command says so in the server's words and runs itself.
# - The server killed mid-job: the client runs the file itself, says so, and writes the right
#   bytes. A client killed mid-job: nothing left behind, the server goes on and frees the
#   request's descriptors; killed with SIGKILL in the encode, its file is left empty; killed in
#   the last step, the result is not encoded; each counts as given up.
# - A stopped server (SIGSTOP): a command, a batch and --server-status give up after 5 s of
#   silence and say so; the files are run here with the right bytes.
. "${TOP_SRCDIR:-.}/tests/lib.sh"

export GPUIMG_SERVER=1 GPUIMG_SERVER_DIR="$T/sd" GPUIMG_SERVER_IDLE=30
# the sanitizers' reports of the detached server (its stderr is /dev/null) go to files, checked last
if [ -n "${GPUIMG_SANITIZERS:-}" ]; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$T/sanitizer"
    export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$T/sanitizer"
fi
unset XDG_RUNTIME_DIR
sock() { ls "$T/sd"/*.sock 2>/dev/null | head -n 1; }
server_pid() { "$GPUIMG" --server-status 2>/dev/null | sed -n 's/^gpuimg: server: pid \([0-9]*\),.*/\1/p'; }
# servers started with this test's directory
servers() {
    n=0
    for e in $(grep -lzx "GPUIMG_SERVER_DIR=$T/sd" /proc/[0-9]*/environ 2>/dev/null); do
        tr '\0' ' ' <"${e%environ}cmdline" 2>/dev/null | grep -q -- '--server' && n=$((n + 1))
    done
    echo $n
}
stop_server() {
    "$GPUIMG" --server-stop >/dev/null 2>&1
    i=0
    while [ -n "$(sock)" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
trap 'stop_server; rm -rf "$T"' EXIT

"$MKIMG" 65 43 3 8 "$T/rgb.png" 3 || exit 99
"$MKIMG" 30 31 4 16 "$T/rgba16.png" 4 || exit 99
"$MKIMG" 1200 900 3 8 "$T/big.png" 5 || exit 99
printf 'not an image' >"$T/text.png"
head -c 300 "$T/rgb.png" >"$T/cut.png"
# on a GPU, through --backend=gpu; the server encodes PNG on the GPU as a large batch does
# (nvCOMP builds), so its in-process twin is asked to do the same
gpu=""
png_gpu=""
"$GPUIMG" --version | grep -q '^GPU: device' && gpu=--backend=gpu
[ -n "$gpu" ] && "$GPUIMG" --version | grep -q '^GPU encoder: nvCOMP' && png_gpu=1
# here ARGS...: as run, in this process with the server's codecs
here() {
    [ -n "$png_gpu" ] && export GPUIMG_PNG_GPU=1
    run --no-server "$@"
    unset GPUIMG_PNG_GPU
}

# same_as_here NAME ARGS... (the last two: INPUT OUTPUT): through the server and in-process,
# the same exit status, stderr (-q) and output bytes
same_as_here() {
    name=$1
    shift
    rm -f "$T/s.out" "$T/h.out"
    a=$#
    set -- "$@"
    eval "last=\${$a}"
    run -q "$@"
    rc_s=$RC
    cp "$ERR" "$T/s.err"
    [ -f "$last" ] && mv "$last" "$T/s.out"
    here -q "$@"
    [ -f "$last" ] && mv "$last" "$T/h.out"
    if [ "$rc_s" -ne "$RC" ] || ! cmp -s "$T/s.err" "$ERR"; then
        bad "$name: server exit $rc_s '$(cat "$T/s.err")', in-process exit $RC '$(cat "$ERR")'"
    elif [ -f "$T/s.out" ] || [ -f "$T/h.out" ]; then
        cmp -s "$T/s.out" "$T/h.out" && ok || bad "$name: the server's bytes differ"
    else
        ok
    fi
}

# the first command starts the server and says so
run -v $gpu gray "$T/rgb.png" "$T/first.png"
[ "$RC" -eq 0 ] && grep -q 'served by the server this command started (context [0-9.]* ms)\]$' "$ERR" && ok \
    || bad "first command: $(cat "$ERR")"
[ -S "$(sock)" ] && [ "$(stat -c %a "$T/sd")" = 700 ] && [ "$(stat -c %a "$(sock)")" = 600 ] && ok \
    || bad "socket or directory: $(ls -la "$T/sd")"
run $gpu gray "$T/rgb.png" "$T/second.png"
[ "$RC" -eq 0 ] && grep -q ', served by the server\]$' "$ERR" && ok || bad "second command: $(cat "$ERR")"
cmp -s "$T/first.png" "$T/second.png" && ok || bad "the same command gave other bytes"
run --server-status
[ "$RC" -eq 0 ] && grep -q "^gpuimg: server: pid [0-9]*, up [0-9.]* s, 2 requests served" "$OUT" && ok \
    || bad "--server-status: $(cat "$OUT")"
# one worker a core (four once a GPU's JPEG engines are made), every GPU this process sees
cores=$(nproc)
if [ -n "$gpu" ]; then
    ngpu=$("$GPUIMG" --version | sed -n 's/^GPU: device [0-9]* of \([0-9]*\):.*/\1/p')
    want=" workers; GPU "
    [ "${ngpu:-1}" -gt 1 ] && want="$want.* x$ngpu"
    grep -q "$want" "$OUT" && ok || bad "--server-status on ${ngpu:-?} GPUs: $(cat "$OUT")"
else
    grep -q " $cores workers; no GPU" "$OUT" && ok || bad "--server-status, $cores cores: $(cat "$OUT")"
fi
# a batch of more jobs than the files' worth and -j past 64 (--jobs' limit is 256): --server-status
# is answered while every job holds a connection
for i in $(seq 1 40); do cp "$T/rgb.png" "$T/many$i.png"; done
"$GPUIMG" -j 200 --force -o "$T/manyout/%s.png" blur=3 "$T"/many*.png 2>"$T/many.err" &
pid=$!
sleep 0.3
"$GPUIMG" --server-status >"$T/busy.out" 2>&1 && grep -q 'requests served' "$T/busy.out" && ok \
    || bad "--server-status during a 200-job batch: $(cat "$T/busy.out")"
wait $pid
rc=$?
[ "$rc" -eq 0 ] && [ "$(ls "$T/manyout" | wc -l)" -eq 40 ] && ok || bad "-j 200 batch: exit $rc, $(tail -n 3 "$T/many.err")"

# a server a set of GPUs: CUDA_VISIBLE_DEVICES set empty (no GPU) is not its unset value (all)
all=$("$GPUIMG" --server-status 2>&1 | sed -n 's/.*; \([^ ]*\.sock\)$/\1/p')
none=$(CUDA_VISIBLE_DEVICES= "$GPUIMG" --server-status 2>&1 | sed -n 's/.*(\([^ ]*\.sock\))$/\1/p')
[ -n "$all" ] && [ -n "$none" ] && [ "$all" != "$none" ] && ok || bad "CUDA_VISIBLE_DEVICES empty and unset share a socket: $all, $none"
same_as_here "gray" $gpu gray "$T/rgb.png" "$T/o.png"
same_as_here "16-bit RGBA blur" $gpu blur=1.5,rotate=90 "$T/rgba16.png" "$T/o.png"
same_as_here "JPEG out" $gpu gray,resize=50% --jpeg-quality=80 "$T/big.png" "$T/o.jpg"
# --background travels: RGBA with transparent margins flattened onto it for JPEG, not onto white
same_as_here "RGBA to JPEG onto --background" $gpu --background=#3366cc pad=40x40:gravity=east "$T/rgba16.png" "$T/o.jpg"
here -q $gpu pad=40x40:gravity=east "$T/rgba16.png" "$T/white.jpg"
# a file the pipeline names is read by the command, never the server: a relative overlay is the
# command's directory's, the same bytes as in-process
cp "$T/rgba16.png" "$T/ov.png"
(cd "$T" && "$GPUIMG" -v $gpu composite=ov.png:gravity=centre:opacity=0.5 rgb.png comp-s.png 2>comp.err) \
    && grep -q "reads ov.png: running in this process, not the server" "$T/comp.err" \
    && (cd "$T" && "$GPUIMG" -q --no-server $gpu composite=ov.png:gravity=centre:opacity=0.5 rgb.png comp-h.png) \
    && cmp -s "$T/comp-s.png" "$T/comp-h.png" && ok || bad "composite with a relative overlay through the server"
[ "$RC" -eq 0 ] && [ -s "$T/s.out" ] && ! cmp -s "$T/s.out" "$T/white.jpg" && ok || bad "--background=#3366cc gave white's bytes"
if "$GPUIMG" --version | grep -q 'libjxl [0-9.]* (JPEG XL)'; then   # its options travel; its threads are the request's
    same_as_here "JPEG XL out" $gpu gray --jxl-distance=2.5 --jxl-effort=3 "$T/big.png" "$T/o.jxl"
    same_as_here "JPEG XL in" $gpu gray "$TOP_SRCDIR/tests/jxl/rgba8.jxl" "$T/o.png"
fi
# shrink on load (the CPU's default), --exact and --shrink-on-load travel alike: the same bytes on
# the CPU, and on the GPU with --shrink-on-load (the cores' decode everywhere; by default the
# server's JPEG engines may take the file, whose pixels are within the decoders' tolerance)
for how in --backend=cpu "--backend=cpu --exact" "$gpu --shrink-on-load"; do
    # shellcheck disable=SC2086
    same_as_here "a JPEG to a quarter, $how" $how resize=25% "$TOP_SRCDIR/samples/path-640x400.jpg" "$T/o.png"
done
same_as_here "missing input" $gpu gray "$T/none.png" "$T/o.png"
same_as_here "not an image" $gpu gray "$T/text.png" "$T/o.png"
same_as_here "cut PNG" $gpu gray "$T/cut.png" "$T/o.png"
same_as_here "over --max-pixels" $gpu --max-pixels=1000 gray "$T/rgb.png" "$T/o.png"
"$MKBAD" flat png 4097 4096 4 "$T/flat.png" || exit 99
same_as_here "a decompression bomb" $gpu gray "$T/flat.png" "$T/o.png"
same_as_here "over --max-expansion=2" $gpu --max-expansion=2 gray "$T/flat.png" "$T/o.png"
same_as_here "bad pipeline" $gpu gray,blur=-3 "$T/rgb.png" "$T/o.png"
cp "$T/rgb.png" "$T/exists.png"
run -q $gpu gray "$T/rgb.png" "$T/exists.png"
mv "$ERR" "$T/s.err"
rc=$RC
here -q gray "$T/rgb.png" "$T/exists.png"
[ $rc -eq 1 ] && [ $RC -eq 1 ] && cmp -s "$T/s.err" "$ERR" && cmp -s "$T/rgb.png" "$T/exists.png" && ok \
    || bad "existing output: $(cat "$T/s.err")"
[ "$(ls "$T" | grep -c '^\.')" -eq 0 ] && ok || bad "temporary files left: $(ls -a "$T")"
# standard input and output
"$GPUIMG" -q $gpu gray - - <"$T/rgb.png" >"$T/s-stdio.png" && ok || bad "stdin to stdout through the server"
here -q $gpu gray "$T/rgb.png" "$T/h-stdio.png"
cmp -s "$T/s-stdio.png" "$T/h-stdio.png" && ok || bad "stdin to stdout: bytes differ"
cat "$T/rgb.png" | "$GPUIMG" -q $gpu gray - "$T/s-pipe.png" && cmp -s "$T/s-pipe.png" "$T/h-stdio.png" && ok \
    || bad "a pipe on stdin"
"$GPUIMG" -q $gpu gray - - <"$T/text.png" >"$T/s-bad.png" 2>"$T/s-bad.err"
rc=$?
"$GPUIMG" -q --no-server $gpu gray - - <"$T/text.png" >"$T/h-bad.png" 2>"$T/h-bad.err"
[ $rc -eq $? ] && cmp -s "$T/s-bad.err" "$T/h-bad.err" && [ ! -s "$T/s-bad.png" ] && ok || bad "bad stdin: $(cat "$T/s-bad.err")"
# --json: the report names the server
expect_ok -q $gpu --json="$T/r.json" gray "$T/rgb.png" "$T/j.png"
grep -q '"server": "served by the server"' "$T/r.json" && [ -f "$T/j.png" ] && ok || bad "--json: $(cat "$T/r.json")"

# a batch through the server: the in-process batch's bytes
i=0
while [ $i -lt 6 ]; do
    "$MKIMG" $((21 + 9 * i)) $((17 + 5 * i)) 3 8 "$T/b$i.png" $((60 + i)) || exit 99
    i=$((i + 1))
done
expect_ok $gpu -o "$T/bs/%s.png" gray,resize=50%,blur=1 "$T"/b?.png
grep -q "^gpuimg: batch: 6 done, 0 failed, 0 skipped of 6 .*, served by the server\]$" "$ERR" && ok \
    || bad "batch through the server: $(cat "$ERR")"
here -q $gpu -o "$T/bh/%s.png" gray,resize=50%,blur=1 "$T"/b?.png
[ "$RC" -eq 0 ] || bad "the batch in-process: $(cat "$ERR")"
for f in "$T"/bh/*.png; do
    cmp -s "$f" "$T/bs/$(basename "$f")" || bad "batch: $(basename "$f") differs"
done
ok

# sixteen clients at once
i=0
while [ $i -lt 16 ]; do
    "$GPUIMG" -q $gpu gray,blur=2 "$T/big.png" "$T/c$i.png" 2>"$T/c$i.err" &
    i=$((i + 1))
done
wait
here -q $gpu gray,blur=2 "$T/big.png" "$T/c-here.png"
i=0
while [ $i -lt 16 ]; do
    cmp -s "$T/c$i.png" "$T/c-here.png" || bad "client $i of 16: $(cat "$T/c$i.err")"
    i=$((i + 1))
done
ok

# hostile requests: each answered or closed alone; the server goes on
s=$(sock)
"$SOCKPOKE" "$s" hold 3 >/dev/null &
hold=$!
for c in garbage short version nofds dirfd opath rdonly many huge range; do
    r=$("$SOCKPOKE" "$s" $c 2>&1)
    case $c:$r in
    *:"answer 2 status 1: "*) ok ;;    # refused, with a reason
    huge:closed) ok ;;
    *) bad "sockpoke $c: $r" ;;
    esac
done
# --max-pixels's range (1 to 2^40) holds for a request too: 0 (no limit) or 2^64-1 would let a
# resize build any image; 2^40 is taken (and the run fails on its input, no image)
for v in 0 -1 1099511627777; do
    r=$("$SOCKPOKE" "$s" field:max-pixels:$v 2>&1)
    [ "$r" = "answer 2 status 1: a number out of range" ] && ok || bad "sockpoke max_pixels $v: $r"
done
r=$("$SOCKPOKE" "$s" field:max-pixels:1099511627776 2>&1)
case $r in "answer 0 status 5: "*) ok ;; *) bad "sockpoke max_pixels 2^40: $r" ;; esac
expect_ok -q $gpu gray "$T/rgb.png" "$T/after-poke.png"
cmp -s "$T/after-poke.png" "$T/first.png" && ok || bad "after the hostile requests"
wait $hold

# what a command that runs itself makes: its bytes in this process, with its own codecs (on a GPU
# the server deflates PNG there, a command of few files on the CPU)
"$GPUIMG" --no-server -q $gpu gray "$T/rgb.png" "$T/first-here.png" || bad "gray here"
"$GPUIMG" --no-server -q -j2 $gpu -o "$T/bhere/%s.png" gray,resize=50%,blur=1 "$T"/b?.png || bad "batch here"

# too many clients: with 1030 connections held, the server keeps 1024; a command is told why it
# runs itself (the server's word, not "went away")
"$SOCKPOKE" "$s" hold 60 1030 >"$T/held.out" &
hold=$!
i=0   # all connected (queued behind them, the command's connection is the server's 1031st)
while ! grep -q '^connected' "$T/held.out" && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
run $gpu gray "$T/rgb.png" "$T/full.png"
[ "$RC" -eq 0 ] && grep -q '^gpuimg: the server has too many clients: ran here$' "$ERR" && cmp -s "$T/full.png" "$T/first-here.png" \
    && ok || bad "too many clients: $(cat "$ERR")"
kill -USR1 $hold
wait $hold
grep -q '^held 1024$' "$T/held.out" && ok || bad "too many clients: $(cat "$T/held.out")"

# the server killed mid-job (a slow job: twelve blurs on one core): the client runs the file
# itself and says so
slow=blur=40,blur=40,blur=40,blur=40,blur=40,blur=40,blur=40,blur=40,blur=40,blur=40,blur=40,blur=40
pid=$(server_pid)
"$GPUIMG" --threads=1 --backend=cpu $slow "$T/big.png" "$T/killed.png" 2>"$T/killed.err" &
client=$!
sleep 0.4
kill -9 "$pid" 2>/dev/null
wait $client
rc=$?
"$GPUIMG" -q --no-server --threads=1 --backend=cpu $slow "$T/big.png" "$T/killed-here.png"
[ $rc -eq 0 ] && cmp -s "$T/killed.png" "$T/killed-here.png" && ok || bad "server killed: exit $rc, $(cat "$T/killed.err")"
if grep -q 'served by the server' "$T/killed.err"; then
    echo "the job ended before the server was killed: not checked"
else
    grep -q '^gpuimg: the server went away before answering: ran here$' "$T/killed.err" && ok \
        || bad "server killed: no word of it: $(cat "$T/killed.err")"
fi
# its socket is stale now: the next command replaces it
[ -S "$(sock)" ] && ok || bad "no stale socket left to test"
run $gpu gray "$T/rgb.png" "$T/stale.png"
[ "$RC" -eq 0 ] && grep -q 'served by the server this command started' "$ERR" && [ "$(server_pid)" != "$pid" ] && ok \
    || bad "stale socket: $(cat "$ERR")"

# a batch without GPUIMG_SERVER (auto) does not wait for the server it starts: its files run
# here until the server answers, then go to it; every output is the in-process one's
if [ -n "$gpu" ]; then
    stop_server
    i=0
    while [ "$(servers)" -gt 0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done   # gone, its lock too
    mkdir -p "$T/cold"
    for i in $(seq 1 60); do cp "$T/rgb.png" "$T/cold/$i.png"; done
    "$GPUIMG" -q --no-server --backend=cpu gray,resize=50% "$T/rgb.png" "$T/cold-ref.ppm"
    env -u GPUIMG_SERVER "$GPUIMG" --no-progress -o "$T/cold-o/%s.ppm" gray,resize=50% "$T"/cold/*.png 2>"$T/cold.err"
    rc=$?
    for i in $(seq 1 60); do cmp -s "$T/cold-ref.ppm" "$T/cold-o/$i.ppm" || { rc="$rc, $i.ppm differs"; break; }; done
    [ "$rc" = 0 ] && grep -Eq '(ran here while (it|the server) started|served by the server this command started)\]$' \
        "$T/cold.err" && ok || bad "a cold batch in auto: $rc, $(cat "$T/cold.err")"
    run $gpu gray "$T/rgb.png" "$T/after-cold.png"   # its server up (it may have been starting still)
fi

# the same with the input on stdin: the client kept it and runs it again
pid=$(server_pid)
"$GPUIMG" --threads=1 --backend=cpu $slow - "$T/killed-stdin.png" <"$T/big.png" 2>"$T/killed.err" &
client=$!
sleep 0.4
kill -9 "$pid" 2>/dev/null
wait $client
rc=$?
[ $rc -eq 0 ] && cmp -s "$T/killed-stdin.png" "$T/killed-here.png" && ok || bad "server killed, stdin: exit $rc, $(cat "$T/killed.err")"
grep -q 'served by the server' "$T/killed.err" || grep -q '^gpuimg: the server went away before answering: ran here$' \
    "$T/killed.err" && ok || bad "server killed, stdin: $(cat "$T/killed.err")"

# a client killed mid-job: no output, no temporary file; the server goes on, gives the job up at
# its next step and then holds none of the client's files
expect_ok -q $gpu gray "$T/rgb.png" "$T/restart.png"
pid=$(server_pid)
[ -n "$pid" ] && ok || bad "no server after a restart"
"$GPUIMG" -q --threads=1 --backend=cpu $slow "$T/big.png" "$T/gone.png" &
client=$!
sleep 0.4
kill -TERM $client
wait $client
sleep 0.1
[ ! -e "$T/gone.png" ] && [ "$(ls -a "$T" | grep -c '^\.gone')" -eq 0 ] && ok || bad "client killed: $(ls -a "$T")"
expect_ok -q $gpu gray "$T/rgb.png" "$T/after-kill.png"
i=0
held() { ls -l /proc/"$pid"/fd | grep -e "-> $T/big.png" -e "-> $T/\.gone"; }
while held >/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
held >/dev/null && bad "the server keeps the client's files: $(held)" || ok
echo "the killed client's job was let go $((i / 10)).$((i % 10)) s after the next command"
run --server-status
grep -q "requests served, 1 given up," "$OUT" && ok || bad "the killed client's job was not given up: $(cat "$OUT")"

# a client killed with SIGKILL, which leaves its temporary file: the server gives the run up
# before its next stage, or finishes the encode it is in and then empties that file; either
# way the run counts as given up (a slow PNG encode of 16-bit noise, killed as it likely runs)
"$MKIMG" 2000 2000 4 16 "$T/noise.png" 1 0 || exit 99
given() { "$GPUIMG" --server-status | sed -n 's/.* \([0-9]*\) given up,.*/\1/p'; }
running() { "$GPUIMG" --server-status | grep -q ', 1 running,'; }
g0=$(given)
"$GPUIMG" -q --threads=1 --backend=cpu --png-level=9 copy "$T/noise.png" "$T/killed9.png" &
client=$!
i=0
while ! running && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
sleep 0.8
kill -KILL $client
wait $client
i=0
while running && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
orphan=$(ls -a "$T" | grep '^\.killed9\.png\.')
if [ -e "$T/killed9.png" ]; then
    echo "the SIGKILLed client's job ended before the kill: not checked"
else
    [ "$(given)" -eq $((g0 + 1)) ] && [ -n "$orphan" ] && [ ! -s "$T/$orphan" ] && ok \
        || bad "SIGKILLed client: $(given) given up (was $g0); its file '$orphan' of $(stat -c %s "$T/$orphan" 2>&1) bytes"
fi
rm -f "$T"/.killed9.png.*
# a client killed during the last (only) step: that step ends, and the result is not encoded for
# no one (the server writes next to nothing more: /proc's count of its bytes written)
spid=$(server_pid)
wrote() { sed -n 's/^wchar: //p' /proc/"$spid"/io; }
w0=$(wrote)
"$GPUIMG" -q --threads=1 --backend=cpu --png-level=1 blur=16 "$T/noise.png" "$T/killed-step.png" &   # a step of seconds
client=$!
i=0
while ! running && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
sleep 1.5
kill -TERM $client
wait $client
i=0
while running && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
if [ -e "$T/killed-step.png" ]; then
    echo "the job killed in its step ended before the kill: not checked"
else
    [ $(($(wrote) - w0)) -lt 1000000 ] && ok || bad "a job given up in its step was encoded: the server wrote $(($(wrote) - w0)) bytes"
fi

# a stopped server (SIGSTOP) says nothing, not even that it is alive: the client gives up after
# 5 s, says so and runs the file itself; a batch waits so once a job, then runs the rest itself;
# --server-status says it does not answer
pid=$(server_pid)
kill -STOP "$pid"
timeout 60 "$GPUIMG" --server-status >"$T/stopped-status.out" 2>&1 &
status=$!
timeout 60 "$GPUIMG" $gpu gray "$T/rgb.png" "$T/stopped.png" 2>"$T/stopped.err"
rc=$?
[ $rc -eq 0 ] && cmp -s "$T/stopped.png" "$T/first-here.png" && grep -q '^gpuimg: the server did not answer for 5 s: ran here$' \
    "$T/stopped.err" && ok || bad "stopped server: exit $rc, $(cat "$T/stopped.err")"
timeout 60 "$GPUIMG" -j2 $gpu -o "$T/bstop/%s.png" gray,resize=50%,blur=1 "$T"/b?.png 2>"$T/stopped.err"
rc=$?
n=$(grep -c 'the server did not answer for 5 s: ran here' "$T/stopped.err")
[ $rc -eq 0 ] && [ "$n" -ge 1 ] && [ "$n" -le 2 ] && grep -q 'the server stopped answering: the rest ran here\]$' "$T/stopped.err" \
    && ok || bad "stopped server, batch: exit $rc, $(cat "$T/stopped.err")"
for f in "$T"/bhere/*.png; do
    cmp -s "$f" "$T/bstop/$(basename "$f")" || bad "stopped server, batch: $(basename "$f") differs"
done
wait $status
rc=$?
[ $rc -eq 1 ] && grep -q '^gpuimg: server: not answering for 5 s' "$T/stopped-status.out" && ok \
    || bad "stopped server, --server-status: exit $rc, $(cat "$T/stopped-status.out")"
kill -CONT "$pid"
[ "$(ls -a "$T" | grep -c '^\.stopped')" -eq 0 ] && ok || bad "stopped server: temporary files left: $(ls -a "$T")"
expect_ok -q $gpu gray "$T/rgb.png" "$T/after-stop.png"
cmp -s "$T/after-stop.png" "$T/first.png" && ok || bad "after the stop: other bytes"

# --server-stop, then eight clients starting a server at once end with one
run --server-stop
[ "$RC" -eq 0 ] && grep -q '^gpuimg: server: stopping' "$OUT" && ok || bad "--server-stop: $(cat "$OUT")"
stop_server
run --server-status
[ "$RC" -eq 1 ] && grep -q '^gpuimg: server: not running' "$OUT" && [ -z "$(sock)" ] && ok \
    || bad "status after stop: $RC $(cat "$OUT")"
i=0
while [ $i -lt 8 ]; do
    "$GPUIMG" -q $gpu gray "$T/rgb.png" "$T/r$i.png" &
    i=$((i + 1))
done
wait
sleep 0.5
[ "$(servers)" -eq 1 ] && ok || bad "eight clients at once: $(servers) servers"
i=0
while [ $i -lt 8 ]; do
    cmp -s "$T/r$i.png" "$T/first.png" || bad "client $i of 8 at once"
    i=$((i + 1))
done
stop_server

# idle: it exits and removes its socket (the socket first, then it stops the GPU's codecs and
# its context goes: on a busy GPU that takes a while)
GPUIMG_SERVER_IDLE=1 "$GPUIMG" -q $gpu gray "$T/rgb.png" "$T/idle.png" || bad "idle: the command"
i=0
while { [ -n "$(sock)" ] || [ "$(servers)" -ne 0 ]; } && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -z "$(sock)" ] && [ "$(servers)" -eq 0 ] && ok || bad "the server did not exit after 1 s idle"

# a directory others may enter is refused; the command runs here, the same bytes
"$GPUIMG" -q --no-server $gpu gray "$T/rgb.png" "$T/ref.png" || bad "in-process reference"
chmod 755 "$T/sd"
run -v $gpu gray "$T/rgb.png" "$T/open.png"
[ "$RC" -eq 0 ] && grep -q "no server: server: $T/sd may be entered by others (mode 755): refused" "$ERR" \
    && cmp -s "$T/open.png" "$T/ref.png" && [ -z "$(sock)" ] && ok || bad "open directory: $(cat "$ERR")"
for a in --server-status --server-stop; do   # they say why, too
    run $a
    [ "$RC" -eq 1 ] && [ "$(cat "$ERR")" = "gpuimg: server: $T/sd may be entered by others (mode 755): refused" ] && ok \
        || bad "$a, open directory: exit $RC, '$(cat "$ERR")'"
done
chmod 700 "$T/sd"
if [ "$(id -u)" = 0 ]; then
    chown 65534 "$T/sd"
    run -v $gpu gray "$T/rgb.png" "$T/theirs.png"
    [ "$RC" -eq 0 ] && grep -q "no server: server: $T/sd belongs to another user (uid 65534): refused" "$ERR" \
        && cmp -s "$T/theirs.png" "$T/ref.png" && ok || bad "another user's directory: $(cat "$ERR")"
    chown 0 "$T/sd"
fi
stop_server
for f in "$T"/sanitizer.*; do
    [ -f "$f" ] && bad "a sanitizer's report: $(head -n 20 "$f")"
done
finish
