#!/usr/bin/env python3
"""Where a timed runner process's seconds go, outside the grader and its sandbox.

Runs one lab runner with --witness, answers its dialog as the grader does (a seed at "ready", a
nonce at "computed": common/include/convlab/witness_protocol.hpp) and stamps each line, then prints
the process's whole time, and for each variant the seconds before its "ready" (start-up, or the
previous variant's untimed run), from "go" to "computed" (its timed calls) and from "computed" to
"done" (its samples gathered and written), and what followed the last "done" (outputs, exit).
Comparing these with a lab's turn alone in a class run (grader batch --schedule: timing_by_lab)
separates what the runner costs from what the grader does around it.

  scripts/runner_phases.py LABEL EXE CASE... --witness --repeats 100 --warmup 3 --output DIR --no-check

(The grader times with --repeats 100 --warmup 3; a case made for timing has no expected output,
hence --no-check: grader datagen --shape 2048x2048 --masks 5,13 --no-expected --out DIR.)
"""
import random
import subprocess
import sys
import time


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    label, argv = sys.argv[1], sys.argv[2:]
    start = time.monotonic()
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, bufsize=1)
    lines = []  # (word, seconds since start, "CASE VARIANT" for ready)
    for line in child.stdout:
        if not line.startswith("convlab-witness "):
            continue
        words = line.split()
        lines.append((words[1], time.monotonic() - start, " ".join(words[2:4])))
        if words[1] == "ready":
            child.stdin.write(f"go {random.getrandbits(63)}\n")
        elif words[1] == "computed":
            child.stdin.write(f"sample {random.getrandbits(63)}\n")
        child.stdin.flush()
    child.wait()
    total = time.monotonic() - start
    rows, previous, name, ready, computed = [], 0.0, "", 0.0, 0.0
    for word, at, what in lines:
        if word == "ready":
            name, ready = what, at
        elif word == "computed":
            computed = at
        elif word == "done":
            rows.append(f"{name}: before {ready - previous:.3f} s, timed calls {computed - ready:.3f} s, "
                        f"samples {at - computed:.3f} s")
            previous = at
    print(f"{label}: exit {child.returncode}, {total:.3f} s in all, after the last done {total - previous:.3f} s")
    for row in rows:
        print("   ", row)
    return 0 if child.returncode in (0, 1) else 1


if __name__ == "__main__":
    sys.exit(main())
