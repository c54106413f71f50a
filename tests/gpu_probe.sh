# gpuimg tests: the GPU from the command line. Skips (77) where no GPU is usable; with
# GPUIMG_REQUIRE_GPU=1 a missing GPU is a failure. Where one is usable: --version names it,
# --backend=gpu runs there with the stages of the GPU timing line (auto runs a single file on the
# CPU, without a server, and says why), every
# --kernel gives the CPU's bytes, --compare agrees, fused and unfused pipelines give the CPU's
# bytes and -v names the fused steps, gpuimg tune writes its cache and auto uses it, a batch on
# the GPU gives the CPU batch's bytes and spreads over --devices, a --device out of range
# fails, and under --gpu-mem-limit pipelines run in tiles with the same bytes, or on the CPU
# with one line saying so.
. "${TOP_SRCDIR:-.}/tests/lib.sh"

run --version
grep -q '^CUDA: yes' "$OUT" || skip_or_fail "this gpuimg was built without CUDA"
grep -q '^GPU: device 0 of [0-9]*: .* (sm_[0-9]*, [0-9.]* GiB), context and first launch [0-9.]* ms$' "$OUT" \
    || skip_or_fail "no usable GPU: $(grep '^GPU:' "$OUT")"
ok
n=$(sed -n 's/^GPU: device 0 of \([0-9]*\):.*/\1/p' "$OUT")
"$MKIMG" 33 21 3 8 "$T/in.png" 1 || exit 99
name=$(sed -n 's/^GPU: device 0 of [0-9]*: \(.*\) (sm_.*/\1/p' "$OUT")
run --backend=gpu gray,blur=1 "$T/in.png" "$T/o-gpu.png"
[ "$RC" -eq 0 ] && grep -Eq "^gpuimg: decode [0-9.]+ ms, gpu init [0-9.]+ ms, upload [0-9.]+ ms, kernels [0-9.]+ ms, download [0-9.]+ ms, encode [0-9.]+ ms, total [0-9.]+ ms \[gpu $name\]$" "$ERR" \
    && ok || bad "--backend=gpu: $(cat "$ERR")"
# auto, one file, no server: the CPU (a GPU's start costs more than the whole run), said
run gray,blur=1 "$T/in.png" "$T/o-auto.png"
[ "$RC" -eq 0 ] && grep -Eq "^gpuimg: decode [0-9.]+ ms, process [0-9.]+ ms, encode [0-9.]+ ms, total [0-9.]+ ms \[cpu, [0-9]+ threads?, no warm GPU server: the CPU outruns a GPU start\]$" "$ERR" \
    && ok || bad "--backend=auto: $(cat "$ERR")"
expect_ok -q --backend=cpu gray,blur=1 "$T/in.png" "$T/o-cpu.png"
cmp -s "$T/o-cpu.png" "$T/o-gpu.png" && ok || bad "GPU and CPU files differ"
for k in perpixel coalesced tiled; do
    expect_ok -q --backend=gpu --kernel=$k transpose,rotate=90 "$T/in.png" "$T/k-$k.png"
done
expect_ok -q --backend=cpu transpose,rotate=90 "$T/in.png" "$T/k-cpu.png"
cmp -s "$T/k-cpu.png" "$T/k-perpixel.png" && cmp -s "$T/k-cpu.png" "$T/k-coalesced.png" && cmp -s "$T/k-cpu.png" "$T/k-tiled.png" \
    && ok || bad "a --kernel variant differs from the CPU"
# 34x22: exactly 2:1, so the automatic kernels fuse gray into the resize and the transpose into the blur
"$MKIMG" 34 22 3 8 "$T/even.png" 2 || exit 99
run --compare --repeat=2 gray,resize=50%,blur=2,transpose "$T/even.png" "$T/cmp.png"
[ "$RC" -eq 0 ] && grep -q '^blur=2 *separable .* exact$' "$OUT" && grep -q '^resize=50% *vector: half .* exact$' "$OUT" && grep -q '^pipeline *gpu kernels, fused .* exact' "$OUT" \
    && grep -q '^pipeline *gpu kernels, unfused .* exact' "$OUT" && ! grep -q MISMATCH "$OUT" && ok || bad "--compare: $(cat "$OUT" "$ERR")"
run -v --backend=gpu gray,resize=50%,blur=2,transpose "$T/even.png" "$T/fused.png"
[ "$RC" -eq 0 ] && grep -q 'gray+resize=50% \[vector: rows\] [0-9.]*, blur=2+transpose \[tiled\] [0-9.]*' "$ERR" \
    && ok || bad "fused steps not reported: $(cat "$ERR")"
expect_ok -q --backend=cpu gray,resize=50%,blur=2,transpose "$T/even.png" "$T/fused-cpu.png"
expect_ok -q --backend=gpu --no-fuse gray,resize=50%,blur=2,transpose "$T/even.png" "$T/unfused.png"
cmp -s "$T/fused.png" "$T/fused-cpu.png" && cmp -s "$T/unfused.png" "$T/fused-cpu.png" && ok || bad "fused or unfused differs"
# gpuimg tune: sweeps, checks, writes the cache; --kernel=auto then takes the cached choice and shape
export GPUIMG_TUNE_CACHE="$T/tune.txt"
run tune --quick --size=96x64 --repeat=2
[ "$RC" -eq 0 ] && grep -q "^saved: $T/tune.txt" "$OUT" \
    && grep -Eq '^gray 3 8 (perpixel|coalesced|vector) [0-9]+x[0-9]+ [0-9]+ [0-9.]+$' "$T/tune.txt" \
    && grep -Eq '^transpose 3 8 ' "$T/tune.txt" && ok || bad "tune: $(cat "$OUT" "$ERR")"
expect_ok -q --backend=cpu transpose "$T/in.png" "$T/t-cpu.png"
printf 'transpose 3 8 perpixel 32x2 0 0.1\n' > "$T/tune.txt"
run -v --backend=gpu transpose "$T/in.png" "$T/tuned.png"
[ "$RC" -eq 0 ] && grep -q 'transpose \[perpixel 32x2\]' "$ERR" && cmp -s "$T/tuned.png" "$T/t-cpu.png" \
    && ok || bad "cached choice not used: $(cat "$ERR")"
unset GPUIMG_TUNE_CACHE
# a batch on the GPU: 4 jobs at once (each its own stream), every layout and depth; the same
# bytes as the CPU batch with the same threads; --devices=all spreads over every GPU
i=0
for lay in "1 8" "2 8" "3 8" "4 8" "1 16" "3 16" "4 16" "3 8"; do
    set -- $lay
    "$MKIMG" $((37 + 11 * i)) $((19 + 7 * i)) "$1" "$2" "$T/b$i.png" $((40 + i)) || exit 99
    i=$((i + 1))
done
expect_ok -q --jobs=4 --backend=gpu -o "$T/bg/%s.png" gray,resize=50%,blur=1,rotate=90 "$T"/b?.png
expect_ok -q --jobs=4 --backend=cpu -o "$T/bc/%s.png" gray,resize=50%,blur=1,rotate=90 "$T"/b?.png
for f in "$T"/bc/*.png; do
    cmp -s "$f" "$T/bg/$(basename "$f")" && ok || bad "GPU batch: $(basename "$f") differs from the CPU batch"
done
expect_ok --backend=gpu --devices=all -o "$T/bd/%s.png" blur=2 "$T"/b?.png
want="\\[gpu $name"
[ "$n" -gt 1 ] && want="$want x$n"
grep -q "batch: 8 done, 0 failed, 0 skipped of 8 .*$want, " "$ERR" && ok || bad "--devices=all: $(cat "$ERR")"
expect_fail 1 "--devices: GPU $n is not usable: device $n requested" --backend=gpu --devices="$n" -o "$T/be/%s.png" \
    blur=2 "$T/b0.png"
expect_fail 1 "no usable GPU: device $n requested, $n present" --backend=gpu --device="$n" gray "$T/in.png" "$T/o2.png"
# --gpu-mem-limit: below what the whole image needs, pipelines run in tiles (the timing line says
# how many) and give the bytes of the whole run (a resize of 1001 columns to 501 takes whole rows,
# its rows by a factor of 2 tile); a limit no tile fits runs on the CPU with one line saying so,
# and gives the CPU's bytes
"$MKIMG" 1001 626 4 16 "$T/big.png" 5 || exit 99
for pipe in blur=3 gray,blur=2,transpose rotate=90,blur=1.5:border=constant,flip=h transpose gray,resize=50% \
    blur=1,resize=50%:filter=area,transpose; do
    expect_ok -q --backend=gpu --png-level=1 "$pipe" "$T/big.png" "$T/whole.png"
    run --backend=gpu --png-level=1 --gpu-mem-limit=3M "$pipe" "$T/big.png" "$T/tiles.png"
    [ "$RC" -eq 0 ] && grep -Eq "\[gpu $name, [0-9]+ tiles of [0-9]+x[0-9]+\]$" "$ERR" && [ "$(wc -l <"$ERR")" -eq 1 ] \
        && cmp -s "$T/whole.png" "$T/tiles.png" && ok || bad "--gpu-mem-limit=3M $pipe: $(cat "$ERR")"
    rm -f "$T/whole.png" "$T/tiles.png"
done
expect_ok -q --backend=cpu --png-level=1 blur=2 "$T/big.png" "$T/b-cpu.png"
run -q --backend=gpu --png-level=1 --gpu-mem-limit=100 blur=2 "$T/big.png" "$T/b-gpu.png"
[ "$RC" -eq 0 ] && grep -Eq "^gpuimg: $T/big.png: the pipeline does not fit in device memory even in tiles of [0-9]+x[0-9]+ pixels; ran on the CPU$" "$ERR" \
    && cmp -s "$T/b-cpu.png" "$T/b-gpu.png" && ok || bad "blur under a 100-byte limit: $(cat "$ERR")"
# a batch of 2 jobs under the limit: each file tiled, the bytes of the CPU batch
expect_ok -q --jobs=2 --backend=gpu --gpu-mem-limit=64K -o "$T/bt/%s.png" blur=1,transpose "$T"/b?.png
expect_ok -q --jobs=2 --backend=cpu -o "$T/bu/%s.png" blur=1,transpose "$T"/b?.png
for f in "$T"/bu/*.png; do
    cmp -s "$f" "$T/bt/$(basename "$f")" && ok || bad "tiled GPU batch: $(basename "$f") differs from the CPU batch"
done
# PNG filtered and deflated on the GPU (nvCOMP builds, GPUIMG_PNG_GPU=1): every layout at 8 and 16
# bits, odd sizes, gives a file libpng reads with the very pixels of the CPU's file; -v names
# nvCOMP; level 0 (stored) and the default leave the deflate to the CPU; a batch on the GPU gives
# the pixels of the CPU batch
if "$GPUIMG" --version | grep -q "^GPU encoder: nvCOMP"; then
    env -u GPUIMG_PNG_GPU "$GPUIMG" -v -f --backend=gpu gray "$T/in.png" "$T/d.png" 2>"$T/err"
    grep -q "nvCOMP" "$T/err" && bad "deflated on the GPU by default" || ok
    export GPUIMG_PNG_GPU=1
    dir=$(dirname "$GPUIMG")/tests
    for c in 1 2 3 4; do
        for d in 8 16; do
            "$MKIMG" 1001 627 "$c" "$d" "$T/n.png" "$c" || exit 99
            expect_ok -q -f --backend=cpu blur=1 "$T/n.png" "$T/nc.png"
            run -v -f --backend=gpu blur=1 "$T/n.png" "$T/ng.png"
            [ "$RC" -eq 0 ] && grep -q "nvCOMP deflate on the GPU" "$ERR" && ok || bad "GPU PNG c$c d$d: $(cat "$ERR")"
            "$dir/golden_test" --diff "$T/nc.png" "$T/ng.png" 0 >"$T/log" && ok || bad "GPU PNG c$c d$d: $(cat "$T/log")"
        done
    done
    for l in 1 9; do
        run -v -f --backend=gpu --png-level=$l gray "$T/n.png" "$T/nl.png"
        grep -q "nvCOMP" "$ERR" && ok || bad "level $l not deflated on the GPU: $(cat "$ERR")"
        expect_ok -q -f --backend=cpu gray "$T/n.png" "$T/nlc.png"
        "$dir/golden_test" --diff "$T/nl.png" "$T/nlc.png" 0 >"$T/log" && ok || bad "GPU PNG level $l: $(cat "$T/log")"
    done
    # one colour: algorithm 0 brings its chunks to its floor (one bit a byte), so they come back
    # to be deflated by the CPU too, and the file is smaller than algorithm 0's alone
    expect_ok -q -f --backend=cpu resize=1x1!:filter=area,resize=1001x627!:filter=nearest "$T/n.png" "$T/flat.png"
    expect_ok -q -f --backend=cpu flip=h "$T/flat.png" "$T/flat-cpu.png"
    run -v -f --backend=gpu flip=h "$T/flat.png" "$T/flat-gpu.png"
    grep -q "nvCOMP deflate on the GPU (algorithm 0; flat chunks" "$ERR" && ok || bad "flat: $(cat "$ERR")"
    GPUIMG_PNG_GPU_ALGO=0 "$GPUIMG" -q -f --backend=gpu flip=h "$T/flat.png" "$T/flat-a0.png"
    [ "$(wc -c <"$T/flat-gpu.png")" -lt "$(wc -c <"$T/flat-a0.png")" ] && ok \
        || bad "flat: $(wc -c <"$T/flat-gpu.png") bytes, no smaller than algorithm 0's $(wc -c <"$T/flat-a0.png")"
    "$dir/golden_test" --diff "$T/flat-cpu.png" "$T/flat-gpu.png" 0 >"$T/log" && ok || bad "flat: $(cat "$T/log")"
    run -v -f --backend=gpu --png-level=0 gray "$T/n.png" "$T/n0.png"
    grep -q "nvCOMP" "$ERR" && bad "level 0 deflated on the GPU: $(cat "$ERR")" || ok
    expect_ok -q --jobs=2 --backend=gpu -o "$T/pg/%s.png" gray,blur=1 "$T"/b?.png
    expect_ok -q --jobs=2 --backend=cpu -o "$T/pc/%s.png" gray,blur=1 "$T"/b?.png
    for f in "$T"/pc/*.png; do
        "$dir/golden_test" --diff "$f" "$T/pg/$(basename "$f")" 0 >"$T/log" && ok || bad "GPU PNG batch: $(cat "$T/log")"
    done
    unset GPUIMG_PNG_GPU
fi
finish
