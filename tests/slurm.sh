# gpuimg tests: samples/batch-slurm.sbatch on a real single-node Slurm cluster: munged, slurmctld
# and slurmd (Debian's munge, slurmctld, slurmd, slurm-client) started here with a minimal
# configuration in the test's folder, the sample submitted as a job array of four tasks (one
# shard each) with sbatch --wait. Checked: every input done exactly once, each output equal to
# the command's own, the shard that holds a damaged file is the one whose exit code Slurm reports
# as 1 (and its log names the file), and a resubmitted array skips what exists. SKIP (77) with
# the reason where Slurm is not installed or cannot start (slurmd runs as root).
. "${TOP_SRCDIR:-.}/tests/lib.sh"

skip() { echo "SKIP: $1"; exit 77; }
PATH=$PATH:/usr/sbin:/sbin   # where Debian puts the daemons
export PATH
for c in munged slurmctld slurmd sbatch scontrol sinfo; do
    command -v "$c" >/dev/null 2>&1 || skip "Slurm is not installed ($c missing; Debian: munge slurmctld slurmd slurm-client)"
done
[ "$(id -u)" -eq 0 ] || skip "slurmd runs jobs as their users only as root; run as root for this test"

S=$T/slurm
mkdir -p "$S/state" "$S/spool"
chmod 700 "$S"
stop() {   # the daemons stopped (killed after 5 s), then the folder removed
    for p in slurmd slurmctld munged; do
        [ -s "$S/$p.pid" ] || continue
        pid=$(cat "$S/$p.pid")
        kill "$pid" 2>/dev/null
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        kill -9 "$pid" 2>/dev/null
    done
    rm -rf "$T"
}
trap stop EXIT
# the cluster's key and munge's socket, this test's own
dd if=/dev/urandom of="$S/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$S/munge.key"
munged --socket="$S/munge.sock" --key-file="$S/munge.key" --pid-file="$S/munged.pid" --log-file="$S/munged.log" \
    --seed-file="$S/munge.seed" --force 2>"$S/munged.err" || skip "munged does not start: $(cat "$S/munged.err")"
host=$(hostname -s)
port=$((20000 + ($$ % 5000) * 2))   # two ports of this test's own
cat >"$S/slurm.conf" <<EOC
ClusterName=gpuimgtest
SlurmctldHost=$host(127.0.0.1)
AuthType=auth/munge
AuthInfo=socket=$S/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOC
SLURM_CONF=$S/slurm.conf
export SLURM_CONF
slurmctld -i 2>"$S/ctld.err" || skip "slurmctld does not start: $(cat "$S/ctld.err")"
slurmd 2>"$S/d.err" || skip "slurmd does not start: $(cat "$S/d.err")"
i=0
until [ "$(sinfo -h -o %t 2>/dev/null)" = idle ]; do
    i=$((i + 1))
    [ $i -le 100 ] || skip "the test cluster's node is not up after 20 s: $(tail -n 3 "$S/slurmd.log" "$S/slurmctld.log" 2>/dev/null)"
    sleep 0.2
done

# 11 inputs (one damaged) in a list; 4 shards take inputs k, k+4, k+8: the damaged one is input 6,
# shard 2's
mkdir -p "$T/in"
: >"$T/list.txt"
i=0
while [ $i -lt 11 ]; do
    f=$T/in/img$i.png
    if [ $i -eq 6 ]; then
        head -c 200 /dev/urandom >"$f"
    else
        "$MKIMG" $((17 + i)) 9 3 8 "$f" $i || exit 99
    fi
    echo "$f" >>"$T/list.txt"
    i=$((i + 1))
done
submit() {   # the array, waited for (two minutes at most); prints the job id
    timeout 120 sbatch --parsable --wait --array=0-3 --cpus-per-task=1 --gres=none --output="$T/task-%A_%a.log" \
        --export=ALL,GPUIMG="$GPUIMG" "$TOP_SRCDIR/samples/batch-slurm.sbatch" gray "$T/list.txt" "$T/out/%s.png" \
        2>"$T/sbatch.err"
}
job=$(submit)
rc=$?
[ "$rc" -ne 0 ] && ok || bad "sbatch --wait exited 0 though a shard failed"
job=$(printf '%s' "$job" | head -n 1 | cut -d';' -f1)
[ -n "$job" ] && ok || bad "sbatch gave no job id: $(cat "$T/sbatch.err")"
# each task's exit code as Slurm reports it: only shard 2 failed
scontrol -o show job "$job" >"$T/jobs" 2>&1
for k in 0 1 2 3; do
    code=$(grep "ArrayTaskId=$k " "$T/jobs" | sed -n 's/.* ExitCode=\([0-9]*\):.*/\1/p')
    want=0
    [ $k -eq 2 ] && want=1
    [ "$code" = "$want" ] && ok || bad "array task $k: Slurm reports exit code '$code', want $want: $(cat "$T/jobs")"
done
grep -q "img6.png: not an image" "$T/task-${job}_2.log" && ok || bad "task 2's log does not name the damaged file: $(cat "$T"/task-*.log)"
# every good input done once, by exactly one shard, equal to the command's own output
[ "$(find "$T/out" -name '*.png' | wc -l)" -eq 10 ] && ok || bad "$(find "$T/out" -name '*.png' | wc -l) outputs, want 10"
i=0
while [ $i -lt 11 ]; do
    if [ $i -ne 6 ]; then
        "$GPUIMG" -q -f gray "$T/in/img$i.png" "$T/want.png" && cmp -s "$T/want.png" "$T/out/img$i.png" && ok \
            || bad "img$i.png: the array's output differs from the command's"
    fi
    i=$((i + 1))
done
done_sum=$(sed -n 's/.*batch: \([0-9]*\) done.*/\1/p' "$T"/task-"$job"_*.log | awk '{s += $1} END {print s + 0}')
[ "$done_sum" -eq 10 ] && ok || bad "the shards did $done_sum files, want 10"
# resubmitted: what exists is skipped, the damaged file fails again in the same shard
submit >/dev/null
job2=$(scontrol -o show job 2>/dev/null | sed -n 's/.*ArrayJobId=\([0-9]*\).*/\1/p' | sort -n | tail -n 1)
skipped=$(sed -n 's/.* \([0-9]*\) skipped.*/\1/p' "$T"/task-"$job2"_*.log | awk '{s += $1} END {print s + 0}')
[ "$job2" != "$job" ] && [ "$skipped" -eq 10 ] && ok || bad "the resubmitted array skipped $skipped files, want 10 (job $job2)"
finish
