# gpuimg tests: JPEG decoded on the GPU (builds with nvJPEG and a usable GPU; else SKIP, and a
# failure with GPUIMG_REQUIRE_GPU=1).
# - --jpeg-decoder=nvjpeg, one file: on a GPU with JPEG engines (A100, H100, H200) baseline grey,
#   4:2:0, 4:2:2 and 4:4:4 files of odd sizes decode there (-v: "nvJPEG (hardware)") within TOL
#   levels of libjpeg-turbo (their chroma upsampling interpolates as libjpeg-turbo's does); a
#   progressive file on nvJPEG's other backend within TOL_OTHER and MEAN_OTHER on average (it
#   replicates chroma); CMYK on libjpeg-turbo, its bytes.
# - auto, one file: libjpeg-turbo (the engines' start costs more than the decode), its bytes;
#   shrunk on load for a resize to a quarter, by default and with --shrink-on-load, the CPU's bytes.
# - a cut file and one with damaged data fail as on the CPU (exit 1, the CPU's message, no output).
# - JPEG out with GPUIMG_JPEG_GPU=1: nvJPEG's encoder
#   writes baseline grey (one component) and 4:2:0 / 4:4:4 colour files whose pixels are within
#   ENC_TOL levels and ENC_MEAN on average of libjpeg-turbo's file at the same quality; a
#   progressive or 16-bit output stays on the CPU.
# - a batch of 120 files mixing them: with auto the engines take over once ready (the "decoded by"
#   line counts only the engines and libjpeg-turbo) and (nvCOMP builds) every PNG is deflated on
#   the GPU, every output within TOL of the CPU batch's; with nvjpeg the counts are exact, and
#   GPUIMG_PNG_GPU=0 keeps every PNG on the CPU. JPEG outputs of that batch: shared between nvJPEG's
#   encoder and libjpeg-turbo, each within ENC_TOL of the CPU batch's file. A batch of 10 (too few to repay the GPU codecs'
#   start) deflates on the CPU.
. "${TOP_SRCDIR:-.}/tests/lib.sh"
TOL=1
TOL_OTHER=48
MEAN_OTHER=1
ENC_TOL=20
ENC_MEAN=1

run --version
grep -q '^CUDA: yes' "$OUT" || skip_or_fail "this gpuimg was built without CUDA"
grep -q '^GPU: device 0 of [0-9]*: .* (sm_' "$OUT" || skip_or_fail "no usable GPU: $(grep '^GPU:' "$OUT")"
grep -q '^GPU decoder: nvJPEG' "$OUT" || skip_or_fail "this gpuimg was built without nvJPEG"
engines=0
grep -Eq '^GPU: device 0 of [0-9]*: .*(A100|H100|H200|GH200|B200)' "$OUT" && engines=1
dir=$(dirname "$GPUIMG")/tests
S=${TOP_SRCDIR:-.}

# test files from the photographs in samples/, odd sizes, each sampling; grey as one component
expect_ok -q --backend=cpu resize=637x401! "$S/samples/path-640x400.jpg" "$T/p420.jpg"
expect_ok -q --backend=cpu --jpeg-sampling=422 resize=517x333! "$S/samples/canopee-960x540.png" "$T/c422.jpg"
expect_ok -q --backend=cpu --jpeg-sampling=444 resize=613x383! "$S/samples/elarun-640x400.png" "$T/e444.jpg"
expect_ok -q --backend=cpu gray,resize=631x397! "$S/samples/canopee-960x540.png" "$T/g.jpg"
expect_ok -q --backend=cpu --jpeg-progressive resize=601x377! "$S/samples/path-640x400.jpg" "$T/prog.jpg"
cp "$S/tests/jpeg/cmyk.jpg" "$T/cmyk.jpg"

# decode check: flip=h twice is the identity, so the output holds the decoded pixels
for f in p420 c422 e444 g prog cmyk; do
    run -v --backend=gpu --jpeg-decoder=nvjpeg flip=h,flip=h "$T/$f.jpg" "$T/$f-gpu.png"
    [ "$RC" -eq 0 ] && ok || bad "$f: $(cat "$ERR")"
    cp "$ERR" "$T/v.err"
    run -v --backend=gpu flip=h,flip=h "$T/$f.jpg" "$T/$f-auto.png"
    grep -q "$f.jpg (.*, libjpeg-turbo[^,]*) ->" "$ERR" && ok || bad "$f: auto, one file, not on libjpeg-turbo: $(cat "$ERR")"
    expect_ok -q --backend=cpu flip=h,flip=h "$T/$f.jpg" "$T/$f-cpu.png"
    cmp -s "$T/$f-auto.png" "$T/$f-cpu.png" && ok || bad "$f: auto on the GPU differs from the CPU"
    case $f in
    cmyk)
        grep -q "$f.jpg (.*, libjpeg-turbo[^,]*) ->" "$T/v.err" && cmp -s "$T/$f-gpu.png" "$T/$f-cpu.png" && ok \
            || bad "$f: not libjpeg-turbo's bytes: $(cat "$T/v.err")"
        continue ;;
    prog)
        grep -q "$f.jpg (.*, nvJPEG) ->" "$T/v.err" && ok || bad "$f: not on nvJPEG's default backend: $(cat "$T/v.err")"
        tol=$TOL_OTHER mean=$MEAN_OTHER ;;
    *)
        if [ $engines = 1 ]; then
            grep -q "$f.jpg (.*, nvJPEG (hardware)) ->" "$T/v.err" && ok || bad "$f: not on the JPEG engines: $(cat "$T/v.err")"
        fi
        tol=$TOL mean=$TOL ;;
    esac
    "$dir/golden_test" --diff "$T/$f-gpu.png" "$T/$f-cpu.png" "$tol" "$mean" >"$T/log" && ok || bad "$f: $(cat "$T/log")"
    echo "$f: GPU against libjpeg-turbo: $(cat "$T/log")"
done

# JPEG out on the GPU against libjpeg-turbo's file: grey, 4:2:0 and 4:4:4, odd sizes
for case in "p420.jpg flip=h 90 0" "p420.jpg gray,flip=h 90 0" "e444.jpg transpose 95 0" "c422.jpg flip=v 75 444"; do
    set -- $case
    samp=""
    [ "$4" != 0 ] && samp="--jpeg-sampling=$4"
    run -f --backend=cpu --jpeg-quality=$3 $samp "$2" "$T/$1" "$T/enc-cpu.jpg"
    GPUIMG_JPEG_GPU=1 "$GPUIMG" -v -f --backend=gpu --jpeg-quality=$3 $samp "$2" "$T/$1" "$T/enc-gpu.jpg" 2>"$T/enc.err"
    grep -q "nvJPEG on the GPU, quality $3" "$T/enc.err" && ok || bad "JPEG out $case: not nvJPEG: $(cat "$T/enc.err")"
    "$dir/golden_test" --diff "$T/enc-cpu.jpg" "$T/enc-gpu.jpg" "$ENC_TOL" "$ENC_MEAN" >"$T/log" && ok || bad "JPEG out $case: $(cat "$T/log")"
    echo "JPEG out $case: $(wc -c <"$T/enc-gpu.jpg") B on the GPU, $(wc -c <"$T/enc-cpu.jpg") B on the CPU; $(cat "$T/log")"
done
[ "$("$GPUIMG" -q --json="$T/g.json" -f flip=h "$T/enc-gpu.jpg" "$T/x.png" && sed -n 's/.*"channels": \([0-9]\).*/\1/p' "$T/g.json" | head -1)" = 3 ] && ok || bad "JPEG out: colour lost"
GPUIMG_JPEG_GPU=1 "$GPUIMG" -v -f --backend=gpu --jpeg-progressive flip=h "$T/p420.jpg" "$T/enc-p.jpg" 2>"$T/enc.err"
grep -q "nvJPEG on the GPU" "$T/enc.err" && bad "a progressive JPEG encoded by nvJPEG" || ok

# bad files: cut short, and damaged inside the entropy-coded data (the end intact): the CPU's
# verdict, one line, no output
size=$(wc -c <"$T/p420.jpg")
head -c $((size / 2)) "$T/p420.jpg" >"$T/cut.jpg"
cp "$T/p420.jpg" "$T/damaged.jpg"
printf '\377\377\377\377\377\377\377\377\377\377\377\377' | dd of="$T/damaged.jpg" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
for f in cut damaged; do
    run --backend=cpu gray "$T/$f.jpg" "$T/$f-cpu.png"
    cpu_rc=$RC
    cpu_msg=$(head -n 1 "$ERR")
    run --backend=gpu gray "$T/$f.jpg" "$T/$f-gpu.png"
    if [ "$cpu_rc" -ne 0 ]; then
        [ "$RC" -eq "$cpu_rc" ] && [ "$(head -n 1 "$ERR")" = "$cpu_msg" ] && [ ! -e "$T/$f-gpu.png" ] && ok \
            || bad "$f.jpg on the GPU: exit $RC '$(cat "$ERR")', on the CPU: exit $cpu_rc '$cpu_msg'"
    else
        [ "$RC" -eq 0 ] && ok || bad "$f.jpg: the CPU decodes it, the GPU fails: $(cat "$ERR")"
    fi
    echo "$f.jpg: CPU exit $cpu_rc ($cpu_msg), GPU exit $RC"
done

# a phone photo (EXIF orientation 6, then 7) decoded on the engines is turned upright there, as
# on the CPU: within TOL of the CPU's file
for v in 6 7; do
    exif_jpeg "$T/p420.jpg" MM $v >"$T/phone$v.jpg"
    run -v --backend=gpu --jpeg-decoder=nvjpeg gray,resize=50% "$T/phone$v.jpg" "$T/phone$v-gpu.png"
    grep -q "EXIF orientation $v turned upright" "$ERR" && ok || bad "orientation $v on the GPU: $(cat "$ERR")"
    expect_ok -q --backend=cpu gray,resize=50% "$T/phone$v.jpg" "$T/phone$v-cpu.png"
    "$dir/golden_test" --diff "$T/phone$v-gpu.png" "$T/phone$v-cpu.png" "$TOL" >"$T/log" && ok \
        || bad "orientation $v on the GPU: $(cat "$T/log")"
done

# shrink on load on the GPU path: --shrink-on-load has the cores decode shrunk, then the GPU
# resizes: the CPU path's bytes; one file in its own process decodes on the cores anyway (the
# engines start for a batch), shrunk by default as on the CPU
for how in --shrink-on-load ""; do
    # shellcheck disable=SC2086
    run -v -f --backend=gpu $how resize=25% "$S/samples/path-640x400.jpg" "$T/q-gpu.png"
    grep -q "shrunk 1/2 on load" "$ERR" && ok || bad "GPU ${how:-default}: not shrunk on load: $(cat "$ERR")"
    expect_ok -q -f --backend=cpu resize=25% "$S/samples/path-640x400.jpg" "$T/q-cpu.png"
    cmp -s "$T/q-gpu.png" "$T/q-cpu.png" && ok || bad "GPU ${how:-default}: not the CPU path's bytes"
done

# a batch: 120 files, baseline and the others mixed, 16 jobs decoding at once, and a cut file
mkdir -p "$T/in"
i=0
while [ $i -lt 120 ]; do
    for f in p420 c422 e444 g prog cmyk p420 g; do
        cp "$T/$f.jpg" "$T/in/$i-$f.jpg"
        i=$((i + 1))
    done
done
cp "$T/cut.jpg" "$T/in/cut.jpg"
expect_ok -q --jobs=16 --backend=cpu -o "$T/bc/%s.png" gray,resize=50% "$T"/in/*-*.jpg
run -v --jobs=16 --backend=gpu -o "$T/bo/%s.png" gray,resize=50% "$T"/in/*.jpg
[ "$RC" -eq 1 ] && grep -q "^gpuimg: batch: 120 done, 1 failed, 0 skipped of 121 " "$ERR" && grep -q "cut.jpg: truncated JPEG" "$ERR" \
    && [ "$(ls "$T/bo" | wc -l)" -eq 120 ] && ok || bad "batch: $(grep -v '^gpuimg: .* -> ' "$ERR")"
grep 'decoded by' "$ERR"
hw=$(sed -n 's/^gpuimg: decoded by:.*nvJPEG (hardware) \([0-9]*\).*/\1/p' "$ERR")
lj=$(sed -n 's/^gpuimg: decoded by:.*libjpeg-turbo[0-9. ]* \([0-9]*\).*/\1/p' "$ERR")
[ $((${hw:-0} + ${lj:-0})) -eq 120 ] && ok || bad "batch decoders: $(grep 'decoded by' "$ERR")"
nvcomp=0
"$GPUIMG" --version | grep -q "^GPU encoder: nvCOMP" && nvcomp=120
[ "$(grep -v '^gpuimg: encoded by' "$ERR" | grep -c 'nvCOMP deflate on the GPU')" -eq $nvcomp ] && ok \
    || bad "batch: $nvcomp PNGs expected deflated on the GPU"
for f in "$T"/bc/*.png; do
    "$dir/golden_test" --diff "$f" "$T/bo/$(basename "$f")" "$TOL" >"$T/log" || bad "batch: $(basename "$f"): $(cat "$T/log")"
done
ok
# JPEG outputs of the batch (0.88 Mpx: large enough to share): the GPU's encoder and the cores
# share them (the "encoded by" line counts both), every file within ENC_TOL of the CPU batch's;
# with the GPU's share unbounded (GPUIMG_JPEG_GPU_ENCODES) nvJPEG encodes every one, with 0 none
expect_ok -q --jobs=16 --backend=cpu -o "$T/jc/%s.jpg" resize=1100x800! "$T"/in/*-*.jpg
for share in "" 4 4096 0; do
    rm -rf "$T/jo"
    if [ -n "$share" ]; then export GPUIMG_JPEG_GPU_ENCODES="$share"; else unset GPUIMG_JPEG_GPU_ENCODES; fi
    run -v --jobs=16 --backend=gpu -o "$T/jo/%s.jpg" resize=1100x800! "$T"/in/*-*.jpg
    # "encoded by: NAME N; NAME N": each encoder's files summed (nvJPEG names its sampling)
    sum() { sed -n 's/^gpuimg: encoded by: //p' "$ERR" | tr ';' '\n' | awk -v k="$1" 'index($0, k) { n += $NF } END { print n + 0 }'; }
    nv=$(sum nvJPEG)
    lt=$(sum libjpeg-turbo)
    echo "JPEG batch, share ${share:-default}: $(grep 'encoded by' "$ERR")"
    [ "$RC" -eq 0 ] && [ $((${nv:-0} + ${lt:-0})) -eq 120 ] && ok || bad "JPEG batch ${share:-default}: $(grep -v ' -> ' "$ERR")"
    case $share in
    4096) [ "${nv:-0}" -eq 120 ] && ok || bad "JPEG batch: nvJPEG encoded ${nv:-0} of 120 with no bound" ;;
    0) [ "${lt:-0}" -eq 120 ] && ok || bad "JPEG batch: libjpeg-turbo encoded ${lt:-0} of 120 with no GPU share" ;;
    esac
    for f in "$T"/jc/*.jpg; do
        "$dir/golden_test" --diff "$f" "$T/jo/$(basename "$f")" "$ENC_TOL" "$ENC_MEAN" >"$T/log" \
            || bad "JPEG batch ${share:-default}: $(basename "$f"): $(cat "$T/log")"
    done
    ok
done
unset GPUIMG_JPEG_GPU_ENCODES
run -v --jobs=4 --backend=gpu -o "$T/bs/%s.png" gray,resize=50% "$T"/in/1?-*.jpg
[ "$RC" -eq 0 ] && ! grep -q 'nvCOMP deflate on the GPU' "$ERR" && ok || bad "small batch: deflated on the GPU"
export GPUIMG_PNG_GPU=0
run -v --jobs=16 --backend=gpu --jpeg-decoder=nvjpeg -o "$T/bn/%s.png" gray,resize=50% "$T"/in/*-*.jpg
unset GPUIMG_PNG_GPU
[ "$RC" -eq 0 ] && ! grep -q 'nvCOMP deflate on the GPU' "$ERR" && ok || bad "batch: GPUIMG_PNG_GPU=0 deflated on the GPU"
if [ $engines = 1 ]; then
    grep -Eq '^gpuimg: decoded by: .*nvJPEG \(hardware\) 90' "$ERR" && grep -Eq 'nvJPEG 15(,|$)' "$ERR" \
        && grep -Eq 'libjpeg-turbo[0-9. ]* 15(,|$)' "$ERR" && ok || bad "batch decoders, nvjpeg: $(cat "$ERR")"
fi
finish
