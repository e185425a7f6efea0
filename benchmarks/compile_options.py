"""heyoka compile options by size: compile time vs run time of the model's integrator.

For chains of N bars (the integrator of ``bar_joint_model.simulate``), measure the compile
time of ``hy.taylor_adaptive`` and the time to integrate 10 s, for ``compact_mode`` in
{False, True} and ``opt_level`` in {0, 1, 3}. The defaults in
``quivira.model.compiled.default_compile_options`` are chosen from these figures:
"interactive" minimises compile + a short run, "long" minimises a long run.

Run: ``python -m benchmarks.compile_options [--quick]``
(writes ``benchmarks/results/compile_options.json``).
"""

from __future__ import annotations

import argparse
import time

import heyoka as hy

from benchmarks.harness import RESULTS, machine_info, write_results
from quivira.examples import chain
from quivira.lagrangian import assemble_eom
from quivira.model.compiled import ode_system
from quivira.model.persistence import from_dict
from quivira.model.symbolic import build_symbolic


def measure(n_bars: int, compact: bool, opt: int, t_end: float = 10.0) -> dict:
    model = chain(n_bars)
    data, _ = from_dict(model.to_dict())
    sym = build_symbolic(data)
    parts = assemble_eom(sym.lagrangian, sym.F, sym.q, sym.qd, sym.Q_nc)
    t0 = time.perf_counter()
    ta = hy.taylor_adaptive(ode_system(parts), model.get_initial_state(),
                            compact_mode=compact, opt_level=opt)
    t1 = time.perf_counter()
    pars = model.parameter_values()
    ta.pars[:] = pars[: len(ta.pars)]
    ta.propagate_until(t_end)
    t2 = time.perf_counter()
    return {"n_bars": n_bars, "n_coordinates": 3 * n_bars, "compact_mode": compact,
            "opt_level": opt, "compile_s": t1 - t0, "integrate_10s_s": t2 - t1}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    sizes = (1, 2, 4) if args.quick else (1, 2, 4, 8, 16, 32)
    rows = []
    for n in sizes:
        for compact in (False, True):
            if not compact and n > 4:
                continue  # non-compact code of larger systems takes minutes to compile
            for opt in (0, 1, 3):
                r = measure(n, compact, opt)
                rows.append(r)
                print(f"N={n:3d} compact={compact!s:5} opt={opt}: compile {r['compile_s']:7.3f} s, "
                      f"10 s integration {r['integrate_10s_s']:7.3f} s", flush=True)
    write_results(RESULTS / "compile_options.json", {"rows": rows, "machine": machine_info()})


if __name__ == "__main__":
    main()
