"""Does heyoka's ``parallel_mode`` pay for quivira's large systems?

``parallel_mode=True`` makes a compact-mode Taylor integrator evaluate each order's segments
of the decomposition in parallel threads (TBB). For each large case of the benchmark this
builds, in a fresh process, the integrator ``simulate`` uses (its system, default tolerance,
compact mode, ``opt_level=0``; no events, so both variants integrate the same steps) with
and without it, and times the construction and the integration over the benchmark's span
(lattices 1 s, chains 10 s) from the model's initial state. The thread count is heyoka's
(``hy.get_nthreads()``, 0 = all cores) on ``os.cpu_count()`` cores.

Run: ``python benchmarks/parallel_mode.py`` (writes ``results/parallel_mode.{json,md}``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
CASES = {"scissor-64": 1.0, "wall-16x16": 1.0, "chain-128": 10.0}
MARK = "@@PARALLEL@@"

CHILD = """
import sys, time, json
import numpy as np
sys.path.insert(0, {here!r})
import heyoka as hy
hy.llvm_state.set_diskcache_enabled(False)
from peers import integrator_recipe
from quivira.model.symbolic import parameter_layout
model, cs, sys_, kwargs = integrator_recipe({case!r})
kwargs = {{**kwargs, "t_events": [], "nt_events": [], "parallel_mode": {parallel!r}}}
t0 = time.perf_counter()
ta = hy.taylor_adaptive(sys_, [0.0] * len(sys_), **kwargs)
t1 = time.perf_counter()
x0 = np.asarray(model.get_initial_state(), dtype=float)
ta.state[:len(x0)] = x0
base = np.array([x for _, x in parameter_layout(model._data)], dtype=float)
ta.pars[:] = cs.parameters(base)[:len(ta.pars)]
t2 = time.perf_counter()
res = ta.propagate_until({t_end!r})
t3 = time.perf_counter()
print({mark!r} + json.dumps({{"compile_s": t1 - t0, "integrate_s": t3 - t2,
                              "steps": int(res[3]), "outcome": str(res[0]),
                              "decomposition": len(ta.decomposition),
                              "nthreads": hy.get_nthreads()}}))
"""


def child(case: str, parallel: bool) -> dict:
    code = CHILD.format(here=str(HERE), case=case, parallel=parallel,
                        t_end=CASES[case], mark=MARK)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=str(HERE.parent))
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith(MARK)][-1]
    return json.loads(line[len(MARK):])


def main() -> int:
    start = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    rows = {case: {"serial": child(case, False), "parallel": child(case, True)}
            for case in CASES}
    doc = {"start": start, "wall_s": time.perf_counter() - t0, "cpus": os.cpu_count(),
           "load": list(os.getloadavg()), "cases": rows}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "parallel_mode.json").write_text(json.dumps(doc, indent=1))
    lines = ["# heyoka's parallel_mode on quivira's large systems", "",
             f"`python benchmarks/parallel_mode.py` — {start}, {doc['cpus']} CPUs, wall "
             f"{doc['wall_s']:.0f} s, load average at the end {doc['load'][0]:.2f}. Fresh "
             "process per line; compact mode, `opt_level=0`, default tolerance, no events; "
             "integration from the model's initial state over the benchmark's span.", "",
             "| case | span s | decomposition | steps | threads (0 = all) | compile s serial / "
             "parallel | integrate s serial / parallel | integration, parallel / serial |",
             "|---|---:|---:|---:|---:|---|---|---:|"]
    for case, r in rows.items():
        s, p = r["serial"], r["parallel"]
        lines.append(f"| {case} | {CASES[case]:g} | {s['decomposition']} | {s['steps']} | "
                     f"{p['nthreads']} | {s['compile_s']:.2f} / {p['compile_s']:.2f} | "
                     f"{s['integrate_s']:.3f} / {p['integrate_s']:.3f} | "
                     f"{p['integrate_s'] / s['integrate_s']:.2f} |")
    lines += ["", "Above 1 in the last column, parallel mode is slower: quivira does not use "
              "it (on this machine's cores, the threads' synchronisation at every Taylor order "
              "costs more than the segments they share).", ""]
    (RESULTS / "parallel_mode.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
