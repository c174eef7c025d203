#!/usr/bin/env bash
# The error-map pictures of the start page (labs/00-start/README.md), made on a GPU machine from
# three of the deliberately wrong submissions in tests/fixtures/wrong_submissions/:
#
#   halo-off-by-one  (lab 03)  ->  labs/00-start/img/halo-off-by-one.png
#   missing-barrier  (lab 03)  ->  labs/00-start/img/missing-barrier.png
#   partial-output   (lab 01)  ->  labs/00-start/img/partial-output.png
#
# Each is made whole from its fault (scripts/wrong-submissions.sh) and graded with `grader grade
# --submission DIR --labs NN --error-map TMP`, which builds it out of tree and draws one PNG per
# failing run; the script keeps the map of one chosen case (the first of CASES that failed)
# under the name above, and prints which one.
# A missing barrier is a race: its values may come out right on a given run. The script then
# tries fresh random case sets (seeds 1, 2, 3) and says so if the race never showed.
#
# Usage (from anywhere; needs a GPU, nvcc, and the gpu preset configured):
#   scripts/error-map-examples.sh            # builds the grader and the reference solutions first
#   BUILD=build scripts/error-map-examples.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
build="${BUILD:-build}"
out="labs/00-start/img"
mkdir -p "$out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

cmake --build --preset gpu --target grader solution01 solution03 >/dev/null
scripts/wrong-submissions.sh "$tmp/wrong" halo-off-by-one missing-barrier partial-output

# submission, lab, the cases to prefer (in order), extra grade flags per attempt
examples=(
  "halo-off-by-one 03 k5_37x53,k7_61x67,k3_31x37"
  "missing-barrier 03 k5_200x151,k3_256x263,k5_37x53"
  "partial-output 01 k5_37x53,k5_200x151,k3_31x37"
)
status=0
for line in "${examples[@]}"; do
  read -r name lab cases <<<"$line"
  found=""
  for attempt in public 1 2 3; do
    dir="$tmp/$name-$attempt"
    flags=()
    [[ "$attempt" != public ]] && flags=(--random-seed "$attempt" --random-count 20)
    "$build/bin/grader" grade --submission "$tmp/wrong/$name" --labs "$lab" \
      --error-map "$dir" ${flags[@]+"${flags[@]}"} >"$tmp/$name-$attempt.log" 2>&1 || true
    [[ -d "$dir" ]] || continue
    IFS=',' read -r -a preferred <<<"$cases"
    for c in "${preferred[@]}"; do
      found="$(find "$dir" -name "lab${lab}__*__${c}.png" | sort | head -n 1)"
      [[ -n "$found" ]] && break
    done
    [[ -z "$found" ]] && found="$(find "$dir" -name '*.png' | sort | head -n 1)"
    [[ -n "$found" ]] && break
  done
  if [[ -z "$found" ]]; then
    echo "$name: no failing run on any case set, so no map; the end of the grader's output:" >&2
    tail -n 20 "$tmp/$name-public.log" >&2 || true
    status=1
    continue
  fi
  cp "$found" "$out/$name.png"
  echo "$name: $(basename "$found") (case set: $attempt) -> $out/$name.png"
done
exit "$status"
