# gpuimg tests: peak memory. Processing a 5120x2880 RGBA 8-bit image (59 MB decoded) must peak
# below 4x the decoded size. Measured as the process's maximum resident set size, which the
# kernel reports through getrusage(2) and gpuimg writes into --json as peak_rss_kib; the figure
# covers everything the process touched: the file buffer, the decoder's, every image, the encoder.
# On the CPU the bound is absolute. Where a GPU is usable the GPU run is checked too, less the
# CUDA runtime's own host memory, which does not grow with the image: the peak of the same
# command on a 1x1 image, printed beside it. A batch holds one image a job whatever its length:
# 16 files at --jobs=2 peak below 3 times one file alone. Every input under 1 MiB decodes within
# 256 MiB: the worst each format's bounds let through (--max-expansion, the progressive JPEG's
# scans) is converted to PNG on two threads (the 2-core machine's; more threads stream more of
# a JPEG's rows into the PNG encoder at once), its peak and time printed.
. "${TOP_SRCDIR:-.}/tests/lib.sh"
if [ -n "${GPUIMG_SANITIZERS:-}" ]; then   # ASan's shadow memory and quarantine are in the figure
    echo "SKIP: peak memory is not measured in a sanitizer build"
    exit 77
fi

W=5120 H=2880
"$MKIMG" $W $H 4 8 "$T/big.png" 1 1 || exit 99
"$MKIMG" 1 1 4 8 "$T/tiny.png" 1 || exit 99
decoded_kib=$((W * H * 4 / 1024))
limit=$((4 * decoded_kib))
backends=cpu
"$GPUIMG" --version | grep -q '^GPU: device' && backends="cpu gpu"
for b in $backends; do
    base=0
    if [ "$b" = gpu ]; then
        expect_ok -q --backend=gpu --png-level=0 --json="$T/b.json" --force gray "$T/tiny.png" "$T/t.png" || continue
        base=$(json_field "$T/b.json" peak_rss_kib)
        echo "gpu: the process on a 1x1 image peaks at $base KiB (CUDA runtime and libraries)"
    fi
    for pipe in gray resize=50% blur=2 transpose rotate=90 flip=v gray,resize=50%,blur=2,transpose; do
        if expect_ok -q --backend=$b --png-level=0 --json="$T/m.json" --force "$pipe" "$T/big.png" "$T/o.png"; then
            peak=$(json_field "$T/m.json" peak_rss_kib)
            use=$((peak - base))
            echo "$b $pipe: peak $peak KiB, $use KiB for the image = $((use * 100 / decoded_kib))% of the decoded size ($decoded_kib KiB)"
            [ "$use" -lt "$limit" ] || bad "$b $pipe: $use KiB is not below $limit KiB (4x decoded)"
        fi
    done
done

# the worst files under 1 MiB that the bounds let through, each within 256 MiB
"$MKBAD" flat png 4096 4096 4 "$T/w.png" && "$MKBAD" flat hdr 2114 2114 3 "$T/w.hdr" \
    && "$MKBAD" flat gif 2896 2896 1 "$T/w.gif" && "$MKBAD" progressive 8192 8192 16 "$T/w.jpg" || exit 99
worst="w.png w.hdr w.gif w.jpg"
for f in webp tif; do
    "$GPUIMG" -q --webp-lossless copy "$T/w.png" "$T/w.$f" 2>/dev/null && worst="$worst w.$f"
done
# JPEG XL: the largest flat grey+alpha image its bound lets through, where libjxl holds the most a
# pixel (its three colour planes and the alpha's)
"$MKBAD" flat png 1495 1495 2 "$T/wga.png" && "$GPUIMG" -q --max-expansion=0 copy "$T/wga.png" "$T/w.jxl" 2>/dev/null \
    && worst="$worst w.jxl"
for f in $worst; do
    [ "$(wc -c <"$T/$f")" -lt 1048576 ] || bad "$f is not under 1 MiB"
    if expect_ok -q --backend=cpu --threads=2 --json="$T/w.json" --force copy "$T/$f" "$T/o.png"; then
        peak=$(json_field "$T/w.json" peak_rss_kib)
        echo "under 1 MiB, $f ($(wc -c <"$T/$f") bytes): peak $peak KiB, $(json_field "$T/w.json" total) ms"
        [ "$peak" -lt 262144 ] && ok || bad "$f: peak $peak KiB, not below 256 MiB"
    fi
done

# a batch's memory is bounded by its jobs, not by its files
"$MKIMG" 1600 1200 3 8 "$T/mid.png" 1 1 || exit 99
mkdir -p "$T/many" "$T/many-out"
for i in $(seq 1 16); do cp "$T/mid.png" "$T/many/$i.png"; done
if expect_ok -q --backend=cpu --threads=1 --json="$T/one.json" --force blur=2 "$T/mid.png" "$T/one.png" \
    && expect_ok -q --backend=cpu --jobs=2 --threads=1 --json="$T/many.json" -o "$T/many-out/%s.png" blur=2 "$T"/many/*.png; then
    one=$(json_field "$T/one.json" peak_rss_kib)
    many=$(tail -n 1 "$T/many.json" | sed -n 's/.*"peak_rss_kib": \([0-9]*\).*/\1/p')
    echo "batch of 16 at 2 jobs: peak $many KiB; one file alone: $one KiB"
    [ -n "$many" ] && [ "$many" -lt $((3 * one)) ] && ok || bad "a batch of 16 at 2 jobs peaks at $many KiB, not below 3x one file's $one KiB"
fi
finish
