#!/bin/sh
# gpuimg sample: one batch split into N shards that GNU parallel runs, here or on other hosts.
#   samples/batch-parallel.sh PIPELINE LIST TEMPLATE [N [PARALLEL-OPTION...]]
# LIST holds the input paths, one a line; every shard reads the whole list and gpuimg
# --shard=K/N takes inputs K, K+N, K+2N..., so no file is done twice and none is left out,
# with no coordination between the shards. TEMPLATE is gpuimg's -o (e.g. out/%s.png).
# N defaults to 2. Options after N go to parallel, e.g. remote hosts that see the same paths
# (a shared file system) and have gpuimg on their PATH:
#   samples/batch-parallel.sh gray,resize=50% list.txt out/%s.png 8 --sshlogin 4/host1,4/host2
# Exit status: 0 when every shard succeeded, else the number of shards that failed (parallel's).
set -u
if [ $# -lt 3 ]; then
    echo "usage: $0 PIPELINE LIST TEMPLATE [N [PARALLEL-OPTION...]]" >&2
    exit 2
fi
pipeline=$1 list=$2 template=$3 n=${4:-2}
shift 3
[ $# -gt 0 ] && shift
command -v parallel >/dev/null 2>&1 || { echo "$0: GNU parallel is not installed (Debian: parallel)" >&2; exit 2; }
# -q keeps the template's % and the pipeline's = intact through parallel's shell; every shard
# prints its own summary line, prefixed by its number (--tagstring).
seq 0 $((n - 1)) | parallel -q --will-cite --halt never --tagstring 'shard {}/'"$n" "$@" \
    "${GPUIMG:-gpuimg}" --no-progress --shard={}/"$n" -o "$template" --from-list="$list" "$pipeline"
