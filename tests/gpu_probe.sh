# gpuimg tests: the GPU seam. Skips (77) where no GPU is usable; with GPUIMG_REQUIRE_GPU=1 a
# missing GPU is a failure. Where one is usable: --version names it, --backend=auto still runs
# (and says why it chose the CPU while operations have no kernels), --device out of range fails.
. "${TOP_SRCDIR:-.}/tests/lib.sh"

skip_or_fail() {
    if [ "${GPUIMG_REQUIRE_GPU:-0}" = 1 ]; then
        echo "FAIL: GPUIMG_REQUIRE_GPU=1 but $1" >&2
        exit 1
    fi
    echo "SKIP: $1"
    exit 77
}

run --version
grep -q '^CUDA: yes' "$OUT" || skip_or_fail "this gpuimg was built without CUDA"
grep -q '^GPU: device 0 of [0-9]*: .* (sm_[0-9]*, [0-9.]* GiB), context and first launch [0-9.]* ms$' "$OUT" \
    || skip_or_fail "no usable GPU: $(grep '^GPU:' "$OUT")"
ok
n=$(sed -n 's/^GPU: device 0 of \([0-9]*\):.*/\1/p' "$OUT")
"$MKIMG" 33 21 3 8 "$T/in.png" 1 || exit 99
run -v --backend=auto gray "$T/in.png" "$T/o.png"
[ "$RC" -eq 0 ] && grep -q '\[cpu' "$ERR" && ok || bad "--backend=auto: $(cat "$ERR")"
expect_fail 1 "no usable GPU: device $n requested, $n present" --backend=gpu --device="$n" gray "$T/in.png" "$T/o2.png"
finish
