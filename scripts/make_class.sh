#!/usr/bin/env bash
# Builds a class of full submissions (every lab of labs/) into DIR, for measuring `grader batch`
# at class scale (serial against pipelined): every submission has every lab folder, made from the
# reference solutions, the stubs of labs/ and the wrong submissions of
# tests/fixtures/wrong_submissions (made by scripts/wrong-submissions.sh; each one's lab folders
# replace the solution's).
#
#   scripts/make_class.sh DIR [N] [--distinct]
#       N submissions (default 20, at least the fixtures + 4); --distinct starts every source
#       file with a line naming its student, so that no two submissions share a file's bytes and
#       every lab of every student compiles, as in a real class. Without it, most labs are the
#       same bytes from one student to the next, and a build folder that grades one after
#       another recompiles only the labs that differ.
#
#   solved-NN        the solutions, every lab
#   stubs            labs/ as handed out: nothing implemented
#   half-NN          labs 01-03 solved, the rest stubs
#   wrong-FIXTURE    the solutions, with one fixture's faulty lab(s) in place
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: scripts/make_class.sh DIR [N] [--distinct]}
n=${2:-20}
distinct=${3:-}
[[ -z "$distinct" || "$distinct" == --distinct ]] || { echo "make_class.sh: unknown option $distinct" >&2; exit 2; }
# The wrong submissions, made whole from their faults (scripts/wrong-submissions.sh).
wrong=$(mktemp -d)
trap 'rm -rf "$wrong"' EXIT
"$root/scripts/wrong-submissions.sh" "$wrong"
fixtures=("$wrong"/*/)
(( n >= ${#fixtures[@]} + 4 )) || { echo "make_class.sh: N must be at least $(( ${#fixtures[@]} + 4 ))" >&2; exit 2; }
if [[ -e "$dir" ]] && [[ -n "$(ls -A "$dir")" ]]; then
  echo "make_class.sh: $dir is not empty" >&2
  exit 2
fi
mkdir -p "$dir"

# A submission folder from labs/ (stubs, without the READMEs), then the solutions of `solved` labs.
make_submission() {  # NAME "01 02 ..." (the labs to solve)
  local dest="$dir/$1" lab
  mkdir -p "$dest"
  for lab in "$root"/labs/*/; do
    lab=$(basename "$lab")
    mkdir -p "$dest/$lab"
    find "$root/labs/$lab" -maxdepth 1 -type f ! -name '*.md' -exec cp {} "$dest/$lab/" \;
    if [[ " $2 " == *" ${lab%%-*} "* ]]; then cp "$root/solutions/$lab"/* "$dest/$lab/"; fi
  done
}
all=$(for lab in "$root"/solutions/[0-9][0-9]-*/; do basename "$lab" | cut -c1-2; done | tr "\n" " ")  # every graded lab
count=0
for f in "${fixtures[@]}"; do
  name="wrong-$(basename "$f")"
  make_submission "$name" "$all"
  for lab in "$f"*/; do  # the faulty lab folders replace the solved ones, whole
    rm -rf "$dir/$name/$(basename "$lab")"
    cp -r "$lab" "$dir/$name/"
  done
  count=$((count + 1))
done
make_submission stubs ""
count=$((count + 1))
for i in 1 2; do make_submission "$(printf 'half-%02d' "$i")" "01 02 03"; count=$((count + 1)); done
i=1
while (( count < n )); do make_submission "$(printf 'solved-%02d' "$i")" "$all"; i=$((i + 1)); count=$((count + 1)); done
if [[ -n "$distinct" ]]; then
  for sub in "$dir"/*/; do
    name=$(basename "$sub")
    while IFS= read -r -d '' f; do
      { printf '// %s: this student'"'"'s own copy\n' "$name"; cat "$f"; } > "$f.tmp" && mv "$f.tmp" "$f"
    done < <(find "$sub" -type f \( -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print0)
  done
fi
echo "make_class.sh: $count submissions in $dir${distinct:+ (every source file distinct)}"
