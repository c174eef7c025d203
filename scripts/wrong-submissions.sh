#!/usr/bin/env bash
# The wrong submissions of tests/fixtures/wrong_submissions/, made whole: each fixture stores
# only its fault (tests/fixtures/wrong_submissions/README.md), and this script turns it into a
# submission folder DEST/NAME/ in the layout of labs/:
#
#   1. every lab its expect.json grades starts as the reference solution's folder (solutions/NN-name/);
#   2. its fault.patch, a unified diff against those folders (paths NN-name/FILE), is applied
#      with GNU patch (or git apply), without fuzz: a patch that no longer fits the solution fails;
#   3. a lab folder stored in the fixture as files (a fault a patch cannot show: a file under
#      another name, a symbolic link) replaces the solution's folder whole; a relative link in it
#      is made absolute, so that it points where it pointed from the fixture.
#
#   scripts/wrong-submissions.sh DEST [NAME...]    all fixtures, or the ones named; DEST is created
#
# The GPU tests (tests/gpu/gpu_test_grader.cpp), scripts/make_class.sh and
# scripts/error-map-examples.sh grade what it makes; a CPU test checks that every patch applies.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
fixtures="$root/tests/fixtures/wrong_submissions"
dest="${1:?usage: scripts/wrong-submissions.sh DEST [NAME...]}"
shift
names=("$@")
if (( ${#names[@]} == 0 )); then
  for d in "$fixtures"/*/; do names+=("$(basename "$d")"); done
fi

apply_patch() {  # PATCH DIR
  if command -v patch >/dev/null 2>&1; then
    patch --batch --quiet --fuzz=0 --no-backup-if-mismatch -p1 -d "$2" -i "$1"
  elif command -v git >/dev/null 2>&1; then
    # Outside any repository (the ceiling stops git looking above DIR): a plain patch.
    (cd "$2" && GIT_CEILING_DIRECTORIES="$(dirname "$PWD")" git apply -p1 "$1")
  else
    echo "wrong-submissions.sh: needs GNU patch (Debian: patch) or git to apply $1" >&2
    return 1
  fi
}

mkdir -p "$dest"
for name in "${names[@]}"; do
  src="$fixtures/$name"
  [[ -f "$src/expect.json" ]] || { echo "wrong-submissions.sh: $name: no such fixture ($src/expect.json)" >&2; exit 2; }
  out="$dest/$name"
  rm -rf "$out"
  mkdir -p "$out"
  # 1. The solution's folder of every lab expect.json names ("NN": {...} under labs).
  for lab in $(grep -o '"[0-9][0-9]": {' "$src/expect.json" | tr -dc '0-9\n' | sort -u); do
    solved=("$root"/solutions/"$lab"-*/)
    [[ -d "${solved[0]}" ]] || { echo "wrong-submissions.sh: $name: no solutions/$lab-*" >&2; exit 2; }
    cp -r "${solved[0]%/}" "$out/"
  done
  # 2. The fault.
  if [[ -f "$src/fault.patch" ]]; then
    apply_patch "$src/fault.patch" "$out" || { echo "wrong-submissions.sh: $name: fault.patch does not apply" >&2; exit 1; }
  fi
  # 3. Lab folders stored whole.
  for lab in "$src"/[0-9][0-9]-*/; do
    [[ -d "$lab" ]] || continue
    lab="${lab%/}"
    rm -rf "$out/$(basename "$lab")"
    cp -r "$lab" "$out/"
    while IFS= read -r -d '' link; do
      rel="${link#"$out"/}"
      target="$(readlink "$link")"
      [[ "$target" == /* ]] || target="$(realpath -ms "$(dirname "$src/$rel")/$target")"
      ln -sfn "$target" "$link"
    done < <(find "$out/$(basename "$lab")" -type l -print0)
  done
done
