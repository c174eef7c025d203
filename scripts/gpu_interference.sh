#!/usr/bin/env bash
# Does work on one GPU of a host slow the timed runs on another? A class graded on the two GPUs of
# a 2 × H100 host timed a student's labs in a median 16 s alone on its GPU, against 9 s when the
# other GPU was idle (grader/README.md, "Measuring it on a GPU machine"). This script looks for
# the cause one candidate at a time: a solution's timed run on GPU A, again and again, while GPU B
#   idle       does nothing;
#   contexts   starts one runner process after another, 4 at once, each doing almost nothing
#              (a CUDA context made and torn down: what every check and timed run of a class
#              costs the driver);
#   checks     runs the lab's correctness checks as a class's checks do, 4 at once, each output
#              written to disk (device-to-host copies and file writes);
#   timed      runs the same timed runs as GPU A;
#   held-contexts  as contexts, with one more process holding a CUDA context on GPU B all along
#              (not among the default MODES): if contexts slows GPU A and this does not, the
#              cost is GPU B's driver state set up and torn down between processes, which a
#              context held open for the run avoids without touching the card's settings.
# For each condition it prints the median, over the timed runs on GPU A, of the runner's own
# per-call times (its --json: timed_calls.event_median_ms, the kernel between CUDA events, and
# wall_median_ms, the host clock from an idle device to an idle device, whose difference is the
# host's share) and of each run's process time, with their ratio to the idle condition.
#
#   scripts/gpu_interference.sh [LAB] [RUNS]      LAB 05 by default, RUNS timed runs per condition (10)
#   GPUS="0 1"       GPU A and GPU B (default 0 and 1)
#   MODES="idle contexts checks timed"            the conditions, in order
#   CASES="DIR ..."  the cases (default: datasets/conv2d, or datasets/conv_layer for lab 06)
#   CONVLAB_LAB_EXE  the runner to use (default build/bin/solutionLAB of the GPU build)
# Needs python3. Nothing it runs goes through the grader: the runner alone, as a student runs it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
lab=${1:-05}
runs=${2:-10}
[[ "$lab" =~ ^[0-9][0-9]$ ]] || { echo "gpu_interference.sh: LAB is two digits (05), not '$lab'" >&2; exit 2; }
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "gpu_interference.sh: RUNS is a positive number, not '$runs'" >&2; exit 2; }
read -r gpu_a gpu_b <<< "${GPUS:-0 1}"
[[ -n "${gpu_b:-}" && "$gpu_a" != "$gpu_b" ]] || { echo "gpu_interference.sh: GPUS names two different GPUs, as \"0 1\"" >&2; exit 2; }
exe=${CONVLAB_LAB_EXE:-$root/build/bin/solution$lab}
[[ -x "$exe" ]] || { echo "gpu_interference.sh: $exe is missing; build the GPU preset first (cmake --build --preset gpu)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "gpu_interference.sh: python3 reads the runner's JSON; install it" >&2; exit 2; }
if [[ -n "${CASES:-}" ]]; then
  read -r -a cases <<< "$CASES"
elif [[ "$lab" == 06 ]]; then
  cases=("$root/datasets/conv_layer")
else
  cases=("$root/datasets/conv2d")
fi
read -r -a modes <<< "${MODES:-idle contexts checks timed}"
for mode in "${modes[@]}"; do
  case $mode in idle | contexts | checks | timed | held-contexts) ;;
    *) echo "gpu_interference.sh: no condition '$mode' (idle contexts checks timed held-contexts)" >&2; exit 2 ;;
  esac
done

# The variant the "contexts" neighbours run, once each: the lab's first.
work=$(mktemp -d)
variant=$("$exe" --list --json "$work/list.json" > /dev/null 2>&1 &&
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["variants"][0]["name"])' "$work/list.json") ||
  { echo "gpu_interference.sh: $exe --list --json FILE did not list the lab's variants" >&2; rm -rf "$work"; exit 1; }

neighbours=()
stop_neighbours() {
  touch "$work/stop"
  for pid in "${neighbours[@]}"; do wait "$pid" 2>/dev/null || true; done
  neighbours=()
}
trap 'stop_neighbours; rm -rf "$work"' EXIT

# A process that holds a CUDA context on GPU B until $work/stop appears (the driver API through
# ctypes: no program of the project holds a context while doing nothing).
hold_context() {
  CUDA_VISIBLE_DEVICES=$gpu_b python3 - "$work/stop" <<'PY' &
import ctypes, os, sys, time
cuda = ctypes.CDLL("libcuda.so.1")
device, context = ctypes.c_int(), ctypes.c_void_p()
if cuda.cuInit(0) or cuda.cuDeviceGet(ctypes.byref(device), 0) or cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device):
    sys.exit("gpu_interference.sh: could not hold a CUDA context on GPU B")
while not os.path.exists(sys.argv[1]):
    time.sleep(0.2)
PY
  neighbours+=($!)
}

# GPU B's work for one condition, until $work/stop appears.
start_neighbours() {  # MODE
  rm -f "$work/stop"
  local n=4 w mode=$1
  case $mode in
    idle) return ;;
    timed) n=1 ;;
    held-contexts) hold_context; mode=contexts ;;
  esac
  for ((w = 0; w < n; ++w)); do
    (
      export CUDA_VISIBLE_DEVICES=$gpu_b
      while [[ ! -e "$work/stop" ]]; do
        case $mode in
          contexts) "$exe" "${cases[0]}" --no-check --no-time --quiet --variant "$variant" ;;
          checks) rm -rf "$work/out-$w" && "$exe" "${cases[@]}" --no-time --quiet --output "$work/out-$w" ;;
          timed) "$exe" "${cases[@]}" --quiet --repeats 100 ;;
        esac > /dev/null 2>&1 || true
      done
    ) &
    neighbours+=($!)
  done
}

for mode in "${modes[@]}"; do
  start_neighbours "$mode"
  sleep 2  # the neighbours under way
  for ((i = 1; i <= runs; ++i)); do
    start=$(date +%s.%N)
    CUDA_VISIBLE_DEVICES=$gpu_a "$exe" "${cases[@]}" --quiet --repeats 100 --json "$work/$mode-$i.json" > /dev/null 2>&1 || true
    end=$(date +%s.%N)
    echo "$mode $i $start $end" >> "$work/processes.txt"
  done
  stop_neighbours
done

python3 - "$work" "$exe" "${modes[@]}" <<'PY'
import glob, json, statistics, sys
work, exe, modes = sys.argv[1], sys.argv[2], sys.argv[3:]
process = {}
for line in open(f"{work}/processes.txt"):
    mode, _, start, end = line.split()
    process.setdefault(mode, []).append(float(end) - float(start))
rows = {}
for mode in modes:
    event, wall = [], []
    for f in glob.glob(f"{work}/{mode}-*.json"):
        try:
            report = json.load(open(f))
        except ValueError:
            continue
        per_run_event = [r["timed_calls"]["event_median_ms"] for r in report.get("results", []) if "timed_calls" in r]
        per_run_wall = [r["timed_calls"]["wall_median_ms"] for r in report.get("results", []) if "timed_calls" in r]
        if per_run_event:
            event.append(statistics.median(per_run_event))
            wall.append(statistics.median(per_run_wall))
    if not event:
        print(f"{mode}: no timed run on GPU A wrote its report ({exe} failed: run it by hand)")
        continue
    rows[mode] = (statistics.median(event), statistics.median(wall), statistics.median(process[mode]), len(event))
print(f"{'GPU B':<13} {'event ms':>9} {'wall ms':>9} {'wall-event':>10} {'process s':>9} {'runs':>4}   (medians; x: over idle)")
base = rows.get("idle")
for mode, (e, w, p, n) in rows.items():
    ratio = "" if not base or mode == "idle" else \
        f"   x{e / base[0]:.2f} x{w / base[1]:.2f} x{(w - e) / max(base[1] - base[0], 1e-9):.2f} x{p / base[2]:.2f}"
    print(f"{mode:<13} {e:9.4f} {w:9.4f} {w - e:10.4f} {p:9.2f} {n:4d}{ratio}")
PY
