"""A refactor keeps behaviour: the same calls on two checkouts, side by side, in one run.

Usage: ``python -m benchmarks.before_after BEFORE_DIR AFTER_DIR [ROUNDS]``. Each round runs,
for every case, one fresh process per checkout (alternating which goes first), timing the
import, the first ``simulate`` (compiling), a second one (compiled code reused) and one after
an edit of ``g`` (runtime parameter); the table gives the medians and their ratio, and checks
that both checkouts end the motion in the same state with the same energy error.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from benchmarks.harness import machine_info, median

CASE = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
t0 = time.perf_counter()
import quivira
from quivira.examples import chain, four_bar, scissor
t_import = time.perf_counter() - t0
m = {"four_bar": four_bar, "chain-16": lambda: chain(16), "scissor-8": lambda: scissor(8)}[
    sys.argv[1]]()
times = []
for edit in (False, False, True):
    if edit:
        m.set_g(9.0)
    t = time.perf_counter()
    tr = m.simulate(2.0, 201)
    times.append(time.perf_counter() - t)
print(json.dumps({"import": t_import, "first": times[0], "again": times[1], "edit": times[2],
                  "q_end": [float(x) for x in tr.q[-1]],
                  "energy_error": float(tr.relative_energy_error())}))
"""
CASES = ("four_bar", "chain-16", "scissor-8")
FIGURES = ("import", "first", "again", "edit")


def run(path: str, case: str) -> dict:
    """One fresh process of ``case`` on the checkout at ``path``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([path, os.path.join(path, "widgets")])}
    out = subprocess.run([sys.executable, "-c", CASE, case], capture_output=True, text=True,
                         env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    before, after = argv[0], argv[1]
    rounds = int(argv[2]) if len(argv) > 2 else 5
    got: dict = {(c, side): [] for c in CASES for side in ("before", "after")}
    for r in range(rounds):
        order = [("before", before), ("after", after)]
        for case in CASES:
            for side, path in order if r % 2 == 0 else order[::-1]:
                got[(case, side)].append(run(path, case))
    m = machine_info()
    print(f"{m['date']}, {m['cpu']} ({m['cpus']} CPUs), load average {m['load_average']}, "
          f"{rounds} rounds\n")
    print("| case | figure | before (s) | after (s) | after/before |\n|---|---|---:|---:|---:|")
    for case in CASES:
        for f in FIGURES:
            b = median([x[f] for x in got[(case, "before")]])
            a = median([x[f] for x in got[(case, "after")]])
            print(f"| {case} | {f} | {b:.4f} | {a:.4f} | {a / b:.2f} |")
    print()
    for case in CASES:
        qb, qa = got[(case, "before")][0]["q_end"], got[(case, "after")][0]["q_end"]
        eb = got[(case, "before")][0]["energy_error"]
        ea = got[(case, "after")][0]["energy_error"]
        print(f"- {case}: max |q_after − q_before| at t = 2 s: "
              f"{max(abs(x - y) for x, y in zip(qb, qa)):.1e}; energy error {eb:.2e} → {ea:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
