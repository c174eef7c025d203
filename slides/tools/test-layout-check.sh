#!/usr/bin/env bash
# The layout check must fail where an audience could not read a slide: renders
# fixtures/overflow.md (slide 1 fits; slide 2 runs off the bottom and into the footer; slide 3
# sets its text at 12 px) and requires check-layout.mjs to exit 1, naming the deck and slides 2
# and 3, and nothing about slide 1. The `slides_layout_check_fails` test runs it.
#
# Exit 0 the check behaves; 1 it does not; 77 skipped (no Marp CLI or no Chromium, outside CI).
set -euo pipefail
tools="$(cd "$(dirname "$0")" && pwd)"
slides="$(dirname "$tools")"
skip() {
  echo "slides: $1" >&2
  if [[ "${CI:-}" != "true" ]]; then echo "slides: skipped (under CI, CI=true, this is a failure)"; exit 77; fi
  exit 1
}
command -v node >/dev/null 2>&1 || skip "node is not installed"
marp="$slides/node_modules/.bin/marp"
[[ -x "$marp" ]] || skip "Marp CLI is not installed: npm ci --prefix slides --no-audit --no-fund"
chrome="${CHROME_PATH:-}"
if [[ -z "$chrome" ]]; then
  for c in chromium chromium-browser google-chrome; do
    if command -v "$c" >/dev/null 2>&1; then chrome="$(command -v "$c")"; break; fi
  done
fi
[[ -n "$chrome" ]] || skip "Chromium is not installed (apt-get install chromium)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The fixture's third slide takes a class of its own, added to a copy of the theme.
cp "$slides/theme/convlab.css" "$work/convlab.css"
printf '\nsection.fixture-tiny p { font-size: 12px; }\n' >> "$work/convlab.css"
"$marp" --no-stdin --no-config-file --theme-set "$work/convlab.css" --html false --template bare \
  -o "$work/overflow.html" -- "$tools/fixtures/overflow.md" 2>/dev/null
set +e
node "$tools/check-layout.mjs" --chrome "$chrome" "$work/overflow.html" >"$work/out.txt" 2>&1
rc=$?
set -e
cat "$work/out.txt"
fail() { echo "test-layout-check: $1" >&2; exit 1; }
[[ $rc == 1 ]] || fail "check-layout.mjs exited $rc on the overflowing fixture, not 1"
grep -q "overflow, slide 2: .*\(leaves the slide\|runs into the footer\)" "$work/out.txt" ||
  fail "slide 2's overflow was not reported"
grep -q "overflow, slide 3: .*12 px text, below the 20 px minimum" "$work/out.txt" ||
  fail "slide 3's 12 px text was not reported"
if grep -q "overflow, slide 1:" "$work/out.txt"; then fail "slide 1 fits, yet it was reported"; fi
echo "test-layout-check: the check fails on the overflowing fixture, naming deck and slides 2 and 3"
