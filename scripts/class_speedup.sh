#!/usr/bin/env bash
# Serial against pipelined `grader batch` on one class (a GPU machine): builds the class with
# scripts/make_class.sh, grades it both ways with the same options, and prints both wall times,
# seconds per submission, the speed-up, and every student whose points differ (correctness
# must be equal; speed points may move with timing noise, and are listed when they do).
#
#   scripts/class_speedup.sh OUT_DIR [N] [--distinct] [extra grader options, e.g. --sanitize --gpus 0]
#
# --distinct makes every student's source files distinct (make_class.sh), as in a real class.
#
# Needs the GPU build (build/bin/grader and build/bin/solutionNN): cmake --build --preset gpu
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: scripts/class_speedup.sh OUT_DIR [N] [grader options...]}
n=${2:-20}
shift $(( $# >= 2 ? 2 : 1 ))
distinct=()
if [[ "${1:-}" == --distinct ]]; then distinct=(--distinct); shift; fi
grader=${CONVLAB_GRADER:-$root/build/bin/grader}
[[ -x "$grader" ]] || { echo "class_speedup.sh: build the GPU preset first ($grader is missing)" >&2; exit 2; }
mkdir -p "$out"
[[ -d "$out/class" ]] || "$root/scripts/make_class.sh" "$out/class" "$n" "${distinct[@]}"

timed() {  # NAME ARGS...: runs the grader, prints the wall time in seconds
  local name=$1 start end
  shift
  start=$(date +%s.%N)
  "$grader" batch "$out/class" --quiet --csv "$out/$name.csv" --json "$out/$name.json" "$@" \
    > "$out/$name.txt" 2> "$out/$name.log" || true
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }'
}
serial_s=$(timed serial --serial --gpus 0 "$@")
pipelined_s=$(timed pipelined --schedule "$out/schedule.json" "$@")
students=$(( $(wc -l < "$out/serial.csv") - 1 ))
awk -v n="$students" -v s="$serial_s" -v p="$pipelined_s" 'BEGIN {
  printf "submissions: %d\nserial:    %.1f s (%.2f s per submission)\npipelined: %.1f s (%.2f s per submission)\nspeed-up:  %.2fx\n",
         n, s, s / n, p, p / n, s / p }'
command -v python3 >/dev/null || { echo "(no python3: compare $out/serial.csv and $out/pipelined.csv by hand)"; exit 0; }
# Per student: the score and, per lab, the correctness points (column 3 of each lab's six).
python3 - "$out/serial.csv" "$out/pipelined.csv" <<'PY'
import csv, sys
a, b = (list(csv.DictReader(open(f))) for f in sys.argv[1:3])
bad = 0
for ra, rb in zip(a, b):
    assert ra["student"] == rb["student"], (ra["student"], rb["student"])
    corr = [k for k in ra if k.endswith("_correctness")]
    if any(ra[k] != rb[k] for k in corr):
        bad += 1
        print("CORRECTNESS DIFFERS:", ra["student"], {k: (ra[k], rb[k]) for k in corr if ra[k] != rb[k]})
    elif ra["score"] != rb["score"]:
        print("speed points moved:", ra["student"], ra["score"], "->", rb["score"])
print("same correctness points for every student" if bad == 0 else f"{bad} students differ in correctness")
sys.exit(1 if bad else 0)
PY
