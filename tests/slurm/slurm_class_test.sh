#!/bin/bash
# A class graded through a real, private, single-node Slurm: munged, slurmctld and slurmd
# started here with their configuration, state and sockets in a temporary folder, listening on
# 127.0.0.1 only, and stopped at the end whatever happens. The class is submitted with
# `grader slurm` (a harness job, a job array with --gres=gpu:1 and a throttle that waits for it,
# then a merge job with --dependency=afterany); the node has two fake GPUs (a gres without device
# files), and the jobs run the grader's test mode (grader_test_mode: the real commands on the
# GPU-free test double of a lab, since the real `grade --submission` compiles CUDA and runs it
# on a GPU). The harness is built once for the whole job, and every task links that one. One
# task is cancelled while it runs: the merged CSV must say so for that student, and match a
# serial `grader batch --serial` of the rest of the class row for row (and so must a pipelined one).
#
#   slurm_class_test.sh GRADER_TEST_MODE SOURCE_DIR
#
# Exit 77 (skipped) only when the Slurm packages are missing: ./convlab test installs them.
set -euo pipefail
grader=$1
source_dir=$2

for tool in munged slurmctld slurmd sbatch squeue scancel scontrol sinfo; do
  if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
    echo "SKIP: $tool is not installed (Debian packages slurm-wlm and munge; ./convlab test installs them)"
    exit 77
  fi
done
PATH=$PATH:/usr/sbin
if [ "$(id -u)" != 0 ]; then
  # slurmd switches to the job's user: it needs root (CI runs as root, in a container).
  echo "FAIL: the private Slurm needs root to start slurmd (run as root, as CI does)"
  exit 1
fi

tmp=$(mktemp -d /tmp/convlab-slurm-XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
  local rc=$?
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  sleep 1
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  if [ "$rc" != 0 ]; then
    for log in "$tmp"/*.log "$tmp"/out/logs/*; do
      [ -f "$log" ] && { echo "----- $log"; tail -n 30 "$log"; }
    done
  fi
  rm -rf "$tmp"
  exit "$rc"
}
trap cleanup EXIT
start_time=$SECONDS
fail() { echo "FAIL: $*"; exit 1; }

# --- munge: its own key (0400) and socket -----------------------------------------------------
mkdir -p "$tmp/munge"
chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
munged --force --foreground --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.sock" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munged.log" --seed-file="$tmp/munge/munged.seed" \
  > "$tmp/munged.out.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$tmp/munge/munge.sock" ] && break; sleep 0.1; done
[ -S "$tmp/munge/munge.sock" ] || fail "munged did not start"

# --- slurm.conf: this machine as the one node "localhost", two fake GPUs -----------------------
port=$((20000 + RANDOM % 20000))
hw=$(slurmd -C | head -n 1 | sed -e 's/^NodeName=[^ ]*//' -e 's/RealMemory=[0-9]*//')
mkdir -p "$tmp/state" "$tmp/spool"
cat > "$tmp/slurm.conf" <<CONF
ClusterName=convlabtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
CommunicationParameters=NoInAddrAny
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
GresTypes=gpu
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=localhost NodeAddr=127.0.0.1 $hw RealMemory=1000 Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
# Two fake GPUs: Slurm wants a device file per GPU (it hands the job its index in
# CUDA_VISIBLE_DEVICES); /dev/null and /dev/zero stand in, as nothing opens them.
printf 'AutoDetect=off\nName=gpu File=/dev/null\nName=gpu File=/dev/zero\n' > "$tmp/gres.conf"
export SLURM_CONF=$tmp/slurm.conf

slurmctld -D -i -f "$SLURM_CONF" > "$tmp/slurmctld.out.log" 2>&1 &
pids+=($!)
slurmd -D -N localhost -f "$SLURM_CONF" > "$tmp/slurmd.out.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
  state=$(sinfo -h -n localhost -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.2
done
[ "$state" = idle ] || fail "the node did not come up (state: '$state')"
echo "slurm up on 127.0.0.1:$port after $((SECONDS - start_time)) s"

# --- the class ---------------------------------------------------------------------------------
mkdir -p "$tmp/cases/conv2d"
for c in hand_box_3x3_k3 k1_1x1 k3_7x7 k5_2x3 k2_1x1; do cp -r "$source_dir/datasets/conv2d/$c" "$tmp/cases/conv2d/"; done
student() {  # student NAME "lab 01 args" "lab 03 args"
  mkdir -p "$tmp/class/$1/01-naive" "$tmp/class/$1/03-tiled-output"
  echo "$2" > "$tmp/class/$1/01-naive/fake.args"
  echo "$3" > "$tmp/class/$1/03-tiled-output/fake.args"
}
student ana "--fake-time-ms 1" "--fake-time-ms 1"
student ben "--fake wrong --fake-case k3_7x7" "--fake-time-ms 2"
student cho "--fake crash --fake-case k5_2x3" "--fake unwritten"
student dan "compile-error: expected a ';'" "--fake-time-ms 1.5"
student "eve o'neil" "--fake-time-ms 1" "--fake guard"
student zed "--fake hang-hard" "--fake hang-hard"
ls "$source_dir/labs" | grep -q '^03-tiled-output$' || fail "labs/03-tiled-output is not there"

# A small performance case keeps the fake runs fast.
sed -e 's/"height": 2048, "width": 2048/"height": 128, "width": 128/' "$source_dir/grader/rubric.json" > "$tmp/rubric.json"
# The test double's labs are scripts around an executable of the build tree, which a sandbox
# would hide; the sandbox itself is tested by tests/cpu/test_grader_sandbox.cpp.
options=(--labs 01,03 --datasets "$tmp/cases" --rubric "$tmp/rubric.json" --timeout 5 --no-sandbox)
"$grader" slurm "$tmp/class" --out "$tmp/out" --throttle 2 --cpus-per-task 1 --time 5 "${options[@]}" --dry-run \
  > "$tmp/dry-run.txt"
grep -q -- '--gres=gpu:1' "$tmp/dry-run.txt" || fail "--dry-run does not print the array script"
grep -q -- "harness --out '$tmp/out/harness'" "$tmp/dry-run.txt" || fail "--dry-run does not print the harness job"
[ ! -e "$tmp/out" ] || fail "--dry-run wrote files"

# Every build of a harness, wherever it runs (the test mode's stand-in logs it): sbatch passes
# this environment on to the jobs.
export CONVLAB_FAKE_HARNESS_LOG=$tmp/harness-builds.log
"$grader" slurm "$tmp/class" --out "$tmp/out" --throttle 2 --cpus-per-task 1 --time 5 "${options[@]}" \
  > "$tmp/submitted.json"
cat "$tmp/submitted.json"
harness_job=$(sed -n 's/.*"harness_job": "\([0-9]*\)".*/\1/p' "$tmp/submitted.json")
array_job=$(sed -n 's/.*"array_job": "\([0-9]*\)".*/\1/p' "$tmp/submitted.json")
merge_job=$(sed -n 's/.*"merge_job": "\([0-9]*\)".*/\1/p' "$tmp/submitted.json")
[ -n "$harness_job" ] && [ -n "$array_job" ] && [ -n "$merge_job" ] || fail "no job ids in: $(cat "$tmp/submitted.json")"
scontrol show job "$array_job" | grep -q 'ArrayTaskThrottle=2' || fail "the array is not throttled to 2"
scontrol show job "$merge_job" | grep -q "Dependency=afterany:${array_job}" || fail "the merge does not wait for the array"

# zed is task 5 (the roster is sorted by name): cancel it once it runs, as a node failure would end it.
for _ in $(seq 300); do
  st=$(squeue -h -j "${array_job}_5" -o %T 2>/dev/null || true)
  [ "$st" = RUNNING ] && break
  sleep 0.2
done
[ "$st" = RUNNING ] || fail "task 5 never ran (state '$st')"
scancel "${array_job}_5"

for _ in $(seq 400); do
  [ -z "$(squeue -h -j "$merge_job" 2>/dev/null || true)" ] && break
  sleep 0.25
done
[ -f "$tmp/out/class.csv" ] || fail "the merge job wrote no class.csv"
echo "slurm run done after $((SECONDS - start_time)) s"
# The harness was built once, by the harness job, into OUT/harness, and every task ran against it.
[ "$(wc -l < "$tmp/harness-builds.log")" = 1 ] || fail "the harness was built $(wc -l < "$tmp/harness-builds.log") times: $(cat "$tmp/harness-builds.log")"
grep -qx "$tmp/out/harness" "$tmp/harness-builds.log" || fail "the harness was not built in OUT/harness: $(cat "$tmp/harness-builds.log")"
grep -q -- "--harness '$tmp/out/harness'" "$tmp/out/grade-array.sbatch" || fail "the tasks do not link the job's harness"
unset CONVLAB_FAKE_HARNESS_LOG

# --- the same class, serially, without zed -----------------------------------------------------
mkdir -p "$tmp/serial"
for s in ana ben cho dan "eve o'neil"; do cp -r "$tmp/class/$s" "$tmp/serial/"; done
"$grader" batch "$tmp/serial" --serial --gpus 0 --quiet "${options[@]}" --csv "$tmp/serial.csv" > /dev/null || true
# And pipelined, on the test mode's two fake GPUs: the same CSV.
"$grader" batch "$tmp/serial" -j 2 --quiet "${options[@]}" --csv "$tmp/pipelined.csv" > /dev/null || true
diff -u "$tmp/serial.csv" "$tmp/pipelined.csv" || fail "the pipelined batch's CSV differs from the serial batch's"

grep -v '^zed,' "$tmp/out/class.csv" > "$tmp/merged-without-zed.csv"
if ! diff -u "$tmp/serial.csv" "$tmp/merged-without-zed.csv"; then fail "the merged CSV differs from the serial batch's"; fi
zed_row=$(grep '^zed,' "$tmp/out/class.csv") || fail "zed has no row"
case "$zed_row" in
  *"could not grade"*"no result: the grading task of zed wrote no report"*) ;;
  *) fail "zed's row does not say the task died: $zed_row" ;;
esac
[ "$(wc -l < "$tmp/out/class.csv")" = 7 ] || fail "class.csv should have a header and 6 rows"
for s in ana ben cho dan "eve o'neil" zed; do
  [ -f "$tmp/out/gradescope/$s.json" ] || fail "no Gradescope results for $s"
done
grep -q '"score": 0' "$tmp/out/gradescope/zed.json" || fail "zed's Gradescope results are not a zero"
# Every task was granted one of the node's two GPUs by Slurm (its log shows the
# CUDA_VISIBLE_DEVICES that Slurm set), and names its student.
grep -q "grades ana on" "$tmp"/out/logs/task-"${array_job}"_0.out || fail "task 0's log does not name its student"
for i in 0 1 2 3 4; do
  grep -Eq "CUDA_VISIBLE_DEVICES=[01]\)" "$tmp"/out/logs/task-"${array_job}_$i".out || fail "task $i got no GPU from Slurm"
done
cat "$tmp/out/class.csv"
echo "PASS in $((SECONDS - start_time)) s"
