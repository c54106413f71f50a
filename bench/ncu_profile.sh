#!/bin/sh
# gpuimg: Nsight Compute profiles of the kernels the table times, at 10109x4542 (made from
# .bench/flow-5120x2880.jpg), one launch each: the details page (throughputs, stalls, occupancy)
# and the per-instruction SASS counts (executed instructions, stall samples) as CSV under $OUT, to
# be read on the build machine. Needs a built ./gpuimg and ncu on PATH (and, for the RGBA cases,
# .bench/elarun-2560x1600.png).
#   sh bench/ncu_profile.sh [NAME ...]     names from the list below (default: all)
set -u
out=${OUT:-/tmp/gpuimg-out}/ncu
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
big=/tmp/big.png half=/tmp/half.png grey=/tmp/biggrey.png rgba=/tmp/bigrgba.png
[ -f $big ] || ./gpuimg -q --force --png-level=0 resize=10109x4542! .bench/flow-5120x2880.jpg $big
[ -f $half ] || ./gpuimg -q --force --png-level=0 resize=5054x2271! .bench/flow-5120x2880.jpg $half
[ -f $grey ] || ./gpuimg -q --force --png-level=0 gray $big $grey
[ -f $rgba ] || ./gpuimg -q --force --png-level=0 resize=10109x4542! .bench/elarun-2560x1600.png $rgba
# name, kernel regex, kernel variant, pipeline, input
cases='blur|blur_tensor|tensor|blur=2|big
blurgrey|blur_tensor|tensor|blur=2|grey
resize50|resize_warp|vector|resize=50%|big
resize50grey|resize_warp|vector|resize=50%|grey
grayresize50|resize_warp|auto|gray,resize=50%|big
pipeblur|blur_tensor|auto|gray,resize=50%,blur=2,transpose|big
resize2x|double_rgb|vector|resize=200%|half
transpose|remap_words|vector|transpose|big
transposegrey|remap_swap|vector|transpose|grey
blurrgba|blur_q8|tiled|blur=2|rgba
resize50rgba|bilerp_alpha8|vector|resize=50%|rgba'
want=${*:-}
echo "$cases" | while IFS='|' read -r name kre kv pipe inp; do
    if [ -n "$want" ]; then
        case " $want " in *" $name "*) ;; *) continue ;; esac
    fi
    eval "src=\$$inp"
    ncu --kernel-name-base demangled -k "regex:$kre" -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
        --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats \
        --section SourceCounters -f -o "/tmp/ncu-$name" \
        ./gpuimg -q --force --backend=gpu --kernel="$kv" "$pipe" "$src" /tmp/ncu-out.png >"$out/$name.log" 2>&1
    echo "== $name ($pipe, $kv, $src): exit $?"
    ncu -i "/tmp/ncu-$name.ncu-rep" --page details --csv >"$out/$name-details.csv" 2>&1
    ncu -i "/tmp/ncu-$name.ncu-rep" --page source --csv --print-source sass >"$out/$name-sass.csv" 2>&1
    grep -E '"(Duration|Executed Instructions|Issue Slots Busy|Issued Ipc Active|Memory Throughput|DRAM Throughput|L1/TEX Hit Rate|L2 Hit Rate|Achieved Occupancy|Registers Per Thread|Mem Busy|Max Bandwidth)"' \
        "$out/$name-details.csv" | awk -F'","' '{ print $(NF-2) " (" $(NF-1) "): " $NF }' | head -20
done
