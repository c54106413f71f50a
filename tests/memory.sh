# gpuimg tests: peak memory. Processing a 5120x2880 RGBA 8-bit image (59 MB decoded) must peak
# below 4x the decoded size. Measured as the process's maximum resident set size, which the
# kernel reports through getrusage(2) and gpuimg writes into --json as peak_rss_kib; the figure
# covers everything the process touched: the file buffer, the decoder's, every image, the encoder.
. "${TOP_SRCDIR:-.}/tests/lib.sh"

W=5120 H=2880
"$MKIMG" $W $H 4 8 "$T/big.png" 1 1 || exit 99
decoded_kib=$((W * H * 4 / 1024))
limit=$((4 * decoded_kib))
for pipe in gray resize=50% blur=2 transpose rotate=90 flip=v gray,resize=50%,blur=2,transpose; do
    if expect_ok -q --png-level=0 --json="$T/m.json" --force "$pipe" "$T/big.png" "$T/o.png"; then
        peak=$(json_field "$T/m.json" peak_rss_kib)
        echo "$pipe: peak $peak KiB = $((peak * 100 / decoded_kib))% of the decoded image ($decoded_kib KiB)"
        [ "$peak" -lt "$limit" ] || bad "$pipe: peak $peak KiB is not below $limit KiB (4x decoded)"
    fi
done
finish
