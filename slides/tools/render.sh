#!/usr/bin/env bash
# Renders every deck of slides/ to HTML with Marp CLI (and to PDF where Chromium is installed),
# then checks that every slide rendered. The `slides` target and the `slides_render` test run it.
#
#   render.sh --grader PATH --out DIR [--test]
#
#   --grader PATH  the grader binary: `grader docs --stage DIR` writes render-ready copies of the
#                  decks (generated blocks current, your own tools/bench/tune pictures first, pictures
#                  copied to DIR/img/), so that the HTML in DIR finds its images
#   --out DIR      where the .md copies, the .html (and .pdf) files and img/ go
#   --test         for CTest: when Marp CLI is not installed, exit 77 (skipped), except under
#                  CI (CI=true), where the decks must render
#
# PDF: with Chromium at $CHROME_PATH or on the PATH (Debian: apt-get install chromium);
# CONVLAB_SLIDES_PDF=0 turns it off, CONVLAB_SLIDES_PDF=1 makes a missing Chromium an error.
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
  if [[ $test_mode == 1 && "${CI:-}" != "true" ]]; then
    echo "slides: skipped: the decks were not rendered (under CI, CI=true, this is a failure)"
    exit 77
  fi
  exit 1
}
command -v node >/dev/null 2>&1 || not_installed "node is not installed, so Marp CLI cannot run"
marp="$slides/node_modules/.bin/marp"
[[ -x "$marp" ]] || not_installed "slides/node_modules is missing: Marp CLI is not installed"

mkdir -p "$out"
rm -rf "$out/img"
rm -f "$out"/*.md "$out"/*.html "$out"/*.pdf
"$grader" docs --stage "$out" --quiet
shopt -s nullglob
decks=("$out"/*.md)
[[ ${#decks[@]} -gt 0 ]] || { echo "slides: grader docs --stage wrote no deck into $out" >&2; exit 1; }

"$marp" --config-file "$slides/.marprc.yml" --no-stdin -- "${decks[@]}"

# PDF: Debian's Chromium, when present. Marp starts it headless; as root it needs --no-sandbox,
# which Marp adds by itself inside containers and which CHROME_NO_SANDBOX=1 forces.
chrome="${CHROME_PATH:-}"
if [[ -z "$chrome" ]]; then
  for c in chromium chromium-browser google-chrome; do
    if command -v "$c" >/dev/null 2>&1; then chrome="$(command -v "$c")"; break; fi
  done
fi
pdfs=0
if [[ "${CONVLAB_SLIDES_PDF:-auto}" != "0" ]]; then
  if [[ -n "$chrome" ]]; then
    [[ $(id -u) -eq 0 ]] && export CHROME_NO_SANDBOX=1
    "$marp" --config-file "$slides/.marprc.yml" --no-stdin --pdf --allow-local-files \
      --browser chrome --browser-path "$chrome" -- "${decks[@]}"
    pdfs=${#decks[@]}
  elif [[ "${CONVLAB_SLIDES_PDF:-auto}" == "1" ]]; then
    echo "slides: CONVLAB_SLIDES_PDF=1 but no Chromium was found (apt-get install chromium, or set CHROME_PATH)" >&2
    exit 1
  else
    echo "slides: no Chromium found: HTML only (apt-get install chromium for PDF as well)"
  fi
fi

node "$slides/tools/check-render.mjs" --source "$slides" "${decks[@]}"
echo "slides: ${#decks[@]} decks rendered to $out (HTML$([[ $pdfs -gt 0 ]] && echo ' and PDF')); open $out/$(basename "${decks[0]%.md}").html in a browser"
