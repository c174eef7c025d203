#!/usr/bin/env bash
# Renders every deck of slides/ to HTML with Marp CLI, and where Chromium is installed to PDF and
# to one PNG per slide (DIR/png/NAME.NNN.png), then checks that every slide rendered
# (check-render.mjs) and that an audience can read it (check-layout.mjs: nothing leaves its slide
# or runs into the footer, no text below 20 px). Two editions, each checked: the instructor's
# (everything) in DIR, the student's (`grader docs --edition student`: no reference code, no
# tables that answer the labs' questions, to hand out before the deadline) in DIR/student/. The
# `slides` target and the `slides_render` test run it.
#
#   render.sh --grader PATH --out DIR [--test]
#
#   --grader PATH  the grader binary: `grader docs --stage DIR` writes render-ready copies of the
#                  decks (generated blocks current, your own grader/bench/tune pictures first, pictures
#                  copied to DIR/img/), so that the HTML in DIR finds its images
#   --out DIR      where the .md copies, the .html (and .pdf) files and img/ go
#   --test         for CTest: when Marp CLI or Chromium is not installed, exit 77 (skipped),
#                  except under CI (CI=true), where the decks must render and pass both checks
#
# Chromium at $CHROME_PATH or on the PATH (Debian: apt-get install chromium) renders the PDF and
# PNGs and runs the layout check; without it the slides target writes HTML only and says so.
# CONVLAB_SLIDES_PDF=0 turns the PDF off (the PNGs and the layout check stay), CONVLAB_SLIDES_PDF=1
# makes a missing Chromium an error.
# Exit status: 0 rendered and checked; 1 a failure; 77 skipped (see --test).
set -euo pipefail
slides="$(cd "$(dirname "$0")/.." && pwd)"
grader="" out="" test_mode=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --grader) grader="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --test) test_mode=1; shift ;;
    *) echo "render.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -n "$grader" && -n "$out" ]] || { echo "usage: render.sh --grader PATH --out DIR [--test]" >&2; exit 2; }

not_installed() {
  echo "slides: $1" >&2
  echo "slides: install Marp CLI, pinned in slides/package.json and slides/package-lock.json, with" >&2
  echo "slides:     npm ci --prefix slides --no-audit --no-fund" >&2
  echo "slides: (node and npm from Debian: apt-get install nodejs npm; ./convlab build does both)" >&2
  skip_or_fail
}
skip_or_fail() {
  if [[ $test_mode == 1 && "${CI:-}" != "true" ]]; then
    echo "slides: skipped: the decks were not rendered and checked (under CI, CI=true, this is a failure)"
    exit 77
  fi
  exit 1
}
command -v node >/dev/null 2>&1 || not_installed "node is not installed, so Marp CLI cannot run"
marp="$slides/node_modules/.bin/marp"
[[ -x "$marp" ]] || not_installed "slides/node_modules is missing: Marp CLI is not installed"

# Chromium: for the PDF, the PNGs and the layout check.
chrome="${CHROME_PATH:-}"
if [[ -z "$chrome" ]]; then
  for c in chromium chromium-browser google-chrome; do
    if command -v "$c" >/dev/null 2>&1; then chrome="$(command -v "$c")"; break; fi
  done
fi
if [[ -z "$chrome" && $test_mode == 1 ]]; then
  echo "slides: Chromium is not installed, so the layout of the slides cannot be checked" >&2
  echo "slides: (Debian: apt-get install chromium, or set CHROME_PATH; ./convlab build installs it)" >&2
  skip_or_fail
fi

# One edition of the decks staged into $1 and rendered there: the instructor's (everything) into
# DIR, the student's (no reference code, no answers: `grader docs --edition student`) into
# DIR/student/.
render_edition() {
  local dir="$1" edition="$2"
  mkdir -p "$dir"
  rm -rf "$dir/img" "$dir/figures" "$dir/png" "$dir/layout"
  rm -f "$dir"/*.md "$dir"/*.html "$dir"/*.pdf
  "$grader" docs --stage "$dir" --edition "$edition" --quiet
  shopt -s nullglob
  decks=("$dir"/*.md)
  [[ ${#decks[@]} -gt 0 ]] || { echo "slides: grader docs --stage wrote no deck into $dir" >&2; exit 1; }

  "$marp" --config-file "$slides/.marprc.yml" --no-stdin -- "${decks[@]}"
  node "$slides/tools/check-render.mjs" --source "$slides" "${decks[@]}"

  pdfs=0
  if [[ -n "$chrome" ]]; then
    # Marp starts Chromium headless; as root it needs --no-sandbox, which Marp adds by itself
    # inside containers and which CHROME_NO_SANDBOX=1 forces.
    [[ $(id -u) -eq 0 ]] && export CHROME_NO_SANDBOX=1
    # The layout check reads the bare template's HTML: every slide laid out, none hidden.
    mkdir -p "$dir/layout"
    for d in "${decks[@]}"; do
      "$marp" --config-file "$slides/.marprc.yml" --no-stdin --template bare --allow-local-files \
        -o "$dir/layout/$(basename "${d%.md}").html" -- "$d" 2>/dev/null
    done
    node "$slides/tools/check-layout.mjs" --chrome "$chrome" "$dir"/layout/*.html
    if [[ $test_mode == 0 ]]; then
      mkdir -p "$dir/png"
      for d in "${decks[@]}"; do
        "$marp" --config-file "$slides/.marprc.yml" --no-stdin --images png --allow-local-files \
          --browser chrome --browser-path "$chrome" -o "$dir/png/$(basename "${d%.md}").png" -- "$d" 2>/dev/null
      done
      if [[ "${CONVLAB_SLIDES_PDF:-auto}" != "0" ]]; then
        "$marp" --config-file "$slides/.marprc.yml" --no-stdin --pdf --allow-local-files \
          --browser chrome --browser-path "$chrome" -- "${decks[@]}" 2>/dev/null
        pdfs=${#decks[@]}
      fi
    fi
  elif [[ "${CONVLAB_SLIDES_PDF:-auto}" == "1" ]]; then
    echo "slides: CONVLAB_SLIDES_PDF=1 but no Chromium was found (apt-get install chromium, or set CHROME_PATH)" >&2
    exit 1
  fi
  echo "slides: ${#decks[@]} decks of the $edition edition rendered to $dir (HTML$([[ $pdfs -gt 0 ]] && echo ', PDF')$([[ -d "$dir/png" ]] && echo ', a PNG per slide in png/')); open $dir/$(basename "${decks[0]%.md}").html in a browser"
}

render_edition "$out" instructor
render_edition "$out/student" student
[[ -n "$chrome" ]] || echo "slides: no Chromium found: HTML only, layout not checked (apt-get install chromium for PDF, PNGs and the check)"
