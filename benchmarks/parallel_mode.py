"""Does heyoka's ``parallel_mode`` pay for quivira's large systems?

``parallel_mode=True`` makes a compact-mode Taylor integrator evaluate each order's segments
of the decomposition in parallel threads (TBB). For each large case of the benchmark this
builds, in a fresh process, the integrator ``simulate`` uses (its system, default tolerance,
compact mode, ``opt_level=0``; no events, so both variants integrate the same steps) with
and without it, and times the construction and the integration over the benchmark's span
(lattices 1 s, chains 10 s) from the model's initial state. The thread count is heyoka's
(``hy.get_nthreads()``, 0 = all cores) on ``os.cpu_count()`` cores.

Run: ``python -m benchmarks.parallel_mode`` (writes ``results/parallel_mode.{json,md}``).
"""

from __future__ import annotations

import time

from benchmarks.harness import RESULTS, machine_info, run_in_process, write_results

CASES = {"scissor-64": 1.0, "wall-16x16": 1.0, "chain-128": 10.0}


def integrator_run(case: str, parallel: bool) -> dict:
    """Build the case's Taylor integrator (``parallel_mode`` on or off, no events, heyoka's
    disk cache off) and integrate it from the model's initial state over the case's span."""
    import heyoka as hy
    import numpy as np

    from quivira.model.symbolic import parameter_layout
    from quivira_oracles.peers import integrator_recipe

    hy.llvm_state.set_diskcache_enabled(False)
    model, cs, sys_, kwargs = integrator_recipe(case)
    kwargs = {**kwargs, "t_events": [], "nt_events": [], "parallel_mode": parallel}
    t0 = time.perf_counter()
    ta = hy.taylor_adaptive(sys_, [0.0] * len(sys_), **kwargs)
    t1 = time.perf_counter()
    x0 = np.asarray(model.get_initial_state(), dtype=float)
    ta.state[:len(x0)] = x0
    base = np.array([x for _, x in parameter_layout(model.engine.data)], dtype=float)
    ta.pars[:] = cs.parameters(base)[:len(ta.pars)]
    t2 = time.perf_counter()
    res = ta.propagate_until(CASES[case])
    t3 = time.perf_counter()
    return {"compile_s": t1 - t0, "integrate_s": t3 - t2, "steps": int(res[3]),
            "outcome": str(res[0]), "decomposition": len(ta.decomposition),
            "nthreads": hy.get_nthreads()}


def child(case: str, parallel: bool) -> dict:
    """:func:`integrator_run` in a fresh process."""
    rec = run_in_process("benchmarks.parallel_mode", "integrator_run",
                         {"case": case, "parallel": parallel})
    if rec["status"] != "ok":
        raise RuntimeError(f"{case} parallel={parallel}: {rec.get('error', rec['status'])}")
    return rec


def main() -> int:
    start = machine_info()["date"]
    t0 = time.perf_counter()
    rows = {case: {"serial": child(case, False), "parallel": child(case, True)}
            for case in CASES}
    machine = machine_info()
    doc = {"start": start, "wall_s": time.perf_counter() - t0, "cpus": machine["cpus"],
           "load": machine["load_average"], "machine": machine, "cases": rows}
    lines = ["# heyoka's parallel_mode on quivira's large systems", "",
             f"`python -m benchmarks.parallel_mode` — {start}, {doc['cpus']} CPUs, wall "
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
    write_results(RESULTS / "parallel_mode.json", doc, "\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
