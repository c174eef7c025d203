#!/usr/bin/env bash
# One class graded as a pipeline on one GPU and on two (a GPU machine with two GPUs): builds the
# class with scripts/make_class.sh and the lab harness once (`grader harness`, which both runs
# link), grades the class with `grader batch --gpus 0` and `--gpus 0,1` (fresh build folders:
# each run compiles the class itself), and prints for each run its wall time, the lower bound
# max(build core-seconds / cores, GPU-seconds / GPUs) from the core-seconds and GPU busy time the
# grader measured (its --schedule JSON), wall over bound (the wall time as this script measured
# it, the grader's start-up included; the grader's own beside it), when the first student
# reached a GPU,
# then the speed-up of two GPUs over one and every student whose points differ between the runs
# (correctness must be equal but for a lab with a data race; speed points may move with timing
# noise, and are listed when they do). For each run also a student's median checks, timing and
# waiting seconds, each lab's median seconds of a turn alone (timing_by_lab), every lab the
# grader's time checks flagged, and for each GPU its busy and idle seconds, the idle ones by what
# the GPU waited for: another GPU's turn alone, another's checks, or no student ready (gpu_turns).
#
#   scripts/class_speedup.sh OUT_DIR [N] [--distinct] [extra grader options, e.g. --sanitize]
#   RUNS=one-gpu scripts/class_speedup.sh ...   one run only; a later call with RUNS=two-gpus and
#                                               the same OUT_DIR takes the other and compares them
#
# --distinct makes every student's source files distinct (make_class.sh): no lab is shared
# between students. GPUS (default 0,1) names the GPUs of the second run. Needs the GPU build
# (build/bin/grader and build/bin/solutionNN: cmake --build --preset gpu) and python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: scripts/class_speedup.sh OUT_DIR [N] [--distinct] [grader options...]}
n=${2:-20}
shift $(( $# >= 2 ? 2 : 1 ))
distinct=()
if [[ "${1:-}" == --distinct ]]; then distinct=(--distinct); shift; fi
gpus=${GPUS:-0,1}
grader=${CONVLAB_GRADER:-$root/build/bin/grader}
[[ -x "$grader" ]] || { echo "class_speedup.sh: build the GPU preset first ($grader is missing)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "class_speedup.sh: python3 reads the grader's JSON; install it" >&2; exit 2; }
mkdir -p "$out"
[[ -d "$out/class" ]] || "$root/scripts/make_class.sh" "$out/class" "$n" "${distinct[@]}"

# The harness once, as a Slurm job does, outside both timed runs (what it cost is printed too).
[[ -s "$out/harness.json" ]] || "$grader" harness --out "$out/harness" --quiet > "$out/harness.json"

timed() {  # NAME ARGS...: one batch in a fresh build folder; prints its wall time in seconds
  local name=$1 start end
  shift
  rm -rf "$out/$name.build"
  start=$(date +%s.%N)
  "$grader" batch "$out/class" --quiet --harness "$out/harness" --build-dir "$out/$name.build" \
    --csv "$out/$name.csv" --json "$out/$name.json" --schedule "$out/$name.schedule.json" "$@" \
    > "$out/$name.txt" 2> "$out/$name.log" || true
  end=$(date +%s.%N)
  [[ -s "$out/$name.schedule.json" ]] || { echo "class_speedup.sh: the $name run wrote no schedule; see $out/$name.log" >&2; exit 1; }
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }'
}
# RUNS picks the runs of this call (both by default); each one's wall time is kept in OUT_DIR, so
# that a call that takes the other run later prints and compares both.
for run in ${RUNS:-one-gpu two-gpus}; do
  case $run in
    one-gpu) timed one-gpu --gpus 0 "$@" > "$out/one-gpu.wall" ;;
    two-gpus) timed two-gpus --gpus "$gpus" "$@" > "$out/two-gpus.wall" ;;
    *) echo "class_speedup.sh: RUNS names one-gpu and two-gpus, not $run" >&2; exit 2 ;;
  esac
done

python3 - "$out" <<'PY'
import csv, json, os, sys
out = sys.argv[1]
harness = json.load(open(f"{out}/harness.json"))
print(f"harness (built once, before the runs): {harness['seconds']:.1f} s, {harness['core_s']:.0f} core-s")
print(f"{'run':<9} {'wall':>8} {'(grader)':>8} {'bound':>8} {'wall/bound':>10} {'first on GPU':>12} "
      f"{'build core-s':>12} {'cores':>5} {'GPU-s':>8} {'GPUs':>4} {'compiles':>8} {'shared':>6}")
walls = {}
for name in ("one-gpu", "two-gpus"):
    if not os.path.exists(f"{out}/{name}.wall") or not open(f"{out}/{name}.wall").read().strip():
        print(f"{name:<9} (not run yet, or it did not finish: RUNS={name})")
        continue
    wall = walls[name] = float(open(f"{out}/{name}.wall").read())
    m = json.load(open(f"{out}/{name}.schedule.json"))["measured"]
    print(f"{name:<9} {wall:>7.1f}s {m['wall_s']:>7.1f}s {m['bound_s']:>7.1f}s {wall / m['bound_s']:>10.2f} "
          f"{m['first_on_gpu_s']:>11.1f}s {m['build_core_s']:>12.0f} {m['cores']:>5} {m['gpu_s']:>8.1f} {m['gpus']:>4} "
          f"{m['compiles']:>8} {m['shared']:>6}")
# Where a run's GPU time went, student by student (grader batch --schedule), and which labs the
# grader's time checks flagged (grader/performance/time_checks.hpp; the reasons' words are
# common/include/convlab/run_reasons.hpp's): honest labs flagged in one run and not in the other
# are the noise two GPUs add.
TIME_FLAGS = ("work outside the timed stream", "time below the grader's clock", "faster than the GPU allows",
              "unverified time")
for name in walls:
    subs = json.load(open(f"{out}/{name}.schedule.json"))["submissions"]
    def median(key):
        values = sorted(s[key] for s in subs if s[key] > 0)
        return values[len(values) // 2] if values else 0.0
    flagged = [f"{row['student']}:{col[:-len('_reasons')]}"
               for row in csv.DictReader(open(f"{out}/{name}.csv")) for col in row
               if col.endswith("_reasons") and any(flag in row[col] for flag in TIME_FLAGS)]
    print(f"{name}: a student's medians: checks {median('checks_s'):.1f} s, timing alone {median('timing_s'):.1f} s, "
          f"waiting for the GPU {median('waited_s'):.1f} s; labs with a time flag: {len(flagged)}"
          + (f" ({', '.join(flagged)})" if flagged else ""))
    # Where a turn alone goes, lab by lab (the grader's timing_by_lab): the median over the students timed.
    by_lab = {}
    for s in subs:
        for entry in s.get("timing_by_lab", []):
            by_lab.setdefault(entry["lab"], []).append(entry["s"])
    if by_lab:
        print(f"{name}: a lab's seconds in a turn alone (median): " +
              ", ".join(f"{lab} {sorted(v)[len(v) // 2]:.2f}" for lab, v in sorted(by_lab.items())))
# What each GPU waited for while it was idle (measured.gpu_turns, every turn it held): a turn alone
# on another GPU (the host's rule keeps checks from starting then: session/gpu_turns.hpp),
# another GPU's checks (a turn alone waits for them), or nothing: no GPU busy, no student ready.
def union(spans):
    merged = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return merged
def overlap(intervals, a, b):
    return sum(max(0.0, min(b, y) - max(a, x)) for x, y in intervals)
for name in walls:
    turns = json.load(open(f"{out}/{name}.schedule.json"))["measured"].get("gpu_turns", [])
    if not turns:
        continue
    end = max((t["end_s"] for gpu in turns for t in gpu), default=0.0)
    kinds = [{k: union([(t["start_s"], t["end_s"]) for t in gpu if t["alone"] == alone])
              for k, alone in (("alone", True), ("shared", False))} for gpu in turns]
    for g, gpu in enumerate(turns):
        busy = union([(t["start_s"], t["end_s"]) for t in gpu])
        idle, edge = [], 0.0  # idle intervals of this GPU in [0, the last turn's end on any GPU]
        for a, b in busy + [[end, end]]:
            if a > edge:
                idle.append((edge, a))
            edge = max(edge, b)
        others_alone = union([iv for h, k in enumerate(kinds) if h != g for iv in k["alone"]])
        others_busy = union([iv for h, k in enumerate(kinds) if h != g for part in k.values() for iv in part])
        idle_s = sum(b - a for a, b in idle)
        while_timed = sum(overlap(others_alone, a, b) for a, b in idle)
        while_busy = sum(overlap(others_busy, a, b) for a, b in idle)
        print(f"{name} GPU {g}: busy {sum(b - a for a, b in busy):.1f} s, idle {idle_s:.1f} s: "
              f"{while_timed:.1f} while another GPU timed, {while_busy - while_timed:.1f} while another only checked, "
              f"{idle_s - while_busy:.1f} while no GPU was busy")
if len(walls) < 2:
    sys.exit(0)
print(f"two GPUs over one: {walls['one-gpu'] / walls['two-gpus']:.2f}x "
      "(wall times as this script measured them, the grader's start-up included)")

a, b = (list(csv.DictReader(open(f"{out}/{name}.csv"))) for name in ("one-gpu", "two-gpus"))
bad = 0
for ra, rb in zip(a, b):
    assert ra["student"] == rb["student"], (ra["student"], rb["student"])
    corr = [k for k in ra if k.endswith("_correctness")]
    if any(ra[k] != rb[k] for k in corr):
        bad += 1
        print("CORRECTNESS DIFFERS:", ra["student"], {k: (ra[k], rb[k]) for k in corr if ra[k] != rb[k]})
    elif ra["score"] != rb["score"]:
        print("speed points moved:", ra["student"], ra["score"], "->", rb["score"])
print(f"{len(a)} students; " +
      ("the same correctness points for every student" if bad == 0 else f"{bad} students differ in correctness"))
sys.exit(1 if bad else 0)
PY
