"""Solver choice for W λ = r: natural-order LU against the fill-reducing "ordered" LU.

For scissor lattices of 2–8 cells, build the bar model's equations with each solver and
record the symbolic size (length of heyoka's Taylor decomposition), the build time and the
compile time of the integrator (compact mode, opt_level 0, as used interactively), and the
number of non-zeros of the LU factors of W. The better one is the model's default
(``bar_joint_model.solver``).

Run: ``python benchmarks/solver_choice.py [--quick]`` (writes
``benchmarks/results/solver_choice.json``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import heyoka as hy

from quivira.examples import scissor
from quivira.model.builder import build_symbolic
from quivira.model.compiled import bar_model_parts, ode_system


def measure(cells: int, solver: str) -> dict:
    model = scissor(cells)
    t0 = time.perf_counter()
    sym = build_symbolic(model._data)
    parts = bar_model_parts(sym, solver)
    sys_ = ode_system(parts)
    t1 = time.perf_counter()
    ta = hy.taylor_adaptive(sys_, [0.0] * (6 * model.n_bars), compact_mode=True, opt_level=0)
    t2 = time.perf_counter()
    return {"cells": cells, "n_bars": model.n_bars, "n_constraints": len(parts.lambda_mult),
            "solver": solver, "decomposition": len(ta.decomposition),
            "lu_nonzeros": parts.W_solve.fac.n_nonzero, "build_s": t1 - t0,
            "compile_s": t2 - t1}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    rows = []
    for cells in ((2, 3) if args.quick else (2, 3, 4, 6, 8)):
        for solver in ("lu", "ordered"):
            r = measure(cells, solver)
            rows.append(r)
            print(f"{cells} cells, {r['n_constraints']:3d} rows, {solver:8s}: decomposition "
                  f"{r['decomposition']:6d}, LU non-zeros {r['lu_nonzeros']:5d}, build "
                  f"{r['build_s']:.3f} s, compile {r['compile_s']:.3f} s", flush=True)
    out = Path(__file__).parent / "results" / "solver_choice.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
