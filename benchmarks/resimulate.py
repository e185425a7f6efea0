"""Edits without recompiling: a 20-bar scissor lattice simulated, edited, simulated again.

The first ``simulate`` builds the equations and compiles the integrator and output functions;
after a value edit (one bar's mass) the cached compiled code is reused with new runtime
parameters. Target: the second simulation at least 20x faster than the first.

Run: ``python -m benchmarks.resimulate`` (writes ``benchmarks/results/resimulate.json``).
"""

from __future__ import annotations

import json
import time

from benchmarks.harness import RESULTS, machine_info, write_results
from quivira.examples import scissor


def run(t_end: float = 0.3, n_points: int = 151) -> dict:
    model = scissor(10)  # 20 bars
    t0 = time.perf_counter()
    first = model.simulate(t_end, n_points)
    t_first = time.perf_counter() - t0
    times = []
    for k in range(5):
        model.set_bar_mass(3, 1.0 + 0.25 * (k + 1))
        t0 = time.perf_counter()
        again = model.simulate(t_end, n_points)
        times.append(time.perf_counter() - t0)
    t_again = min(times)
    return {
        "n_bars": model.n_bars, "n_coordinates": model.n_coordinates,
        "n_constraints": model.n_constraints, "first_simulate_s": t_first,
        "resimulate_s": t_again, "ratio": t_first / t_again,
        "compile_options": first.info and model.compiled().options,
        "decomposition_size": model.compiled(first.info["tol"]).decomposition_size,
        "timings_first": {k: v for k, v in first.info.items() if k.endswith("_s")},
        "cache_entries": model.n_compiled, "energy_error_after_edit":
            again.relative_energy_error(),
    }


def main() -> int:
    r = run()
    print(f"20-bar lattice ({r['n_coordinates']} coordinates, {r['n_constraints']} constraints)")
    print(f"first simulate (build + compile + integrate): {r['first_simulate_s']:.3f} s")
    print(f"simulate after a mass edit (no recompiling):  {r['resimulate_s'] * 1e3:.1f} ms")
    print(f"ratio {r['ratio']:.1f}x (target >= 20x): {'OK' if r['ratio'] >= 20 else 'MISSED'}")
    write_results(RESULTS / "resimulate.json",
                  {**json.loads(json.dumps(r, default=str)), "machine": machine_info()})
    return 0 if r["ratio"] >= 20 else 1


if __name__ == "__main__":
    raise SystemExit(main())
