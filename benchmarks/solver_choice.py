"""Solver choice for W λ = r: natural-order LU against the fill-reducing "ordered" LDLᵀ.

For scissor lattices of 2–8 cells and chains of 16 and 64 bars, build the bar model's
equations with each solver and record the symbolic size (length of heyoka's Taylor
decomposition), its number of *segments* (heyoka's compact mode evaluates the decomposition
segment by segment, each a run of mutually independent operations: their number is the
length of the longest chain of dependent operations, and compile time and per-step overhead
grow with it), the height of the elimination tree of W, the non-zeros of the factors, the
build time and the compile time of the integrator (compact mode, opt_level 0, as used
interactively). The better solver is the model's default (``bar_joint_model.solver``).

Run: ``python -m benchmarks.solver_choice [--quick]`` (writes
``benchmarks/results/solver_choice.json``).
"""

from __future__ import annotations

import argparse
import re
import time

import heyoka as hy

from benchmarks.harness import RESULTS, machine_info, write_results
from quivira.examples import chain, scissor
from quivira.model.assembly import assemble_bar_model
from quivira.model.compiled import ode_system
from quivira.model.persistence import from_dict
from quivira.ordering import elimination_height

_U = re.compile(r"u_(\d+)")


def segments(decomposition: list, n_eq: int) -> int:
    """heyoka's segmentation of a Taylor decomposition: a new segment starts at the first
    operation that uses a result of the current one."""
    count, start = 0, None
    for i in range(n_eq, len(decomposition) - n_eq):
        used = [int(k) for k in _U.findall(str(decomposition[i][0]))]
        if start is None or any(k >= start for k in used):
            count, start = count + 1, i
    return count


def measure(name: str, model, solver: str) -> dict:
    hy.llvm_state.set_diskcache_enabled(False)
    t0 = time.perf_counter()
    data, _ = from_dict(model.to_dict())
    parts = assemble_bar_model(data, solver).parts
    sys_ = ode_system(parts)
    t1 = time.perf_counter()
    ta = hy.taylor_adaptive(sys_, [0.0] * (6 * model.n_bars), compact_mode=True, opt_level=0)
    t2 = time.perf_counter()
    ws = parts.W_solve
    pattern = [set(r) for r in parts.W_rows]
    return {"case": name, "n_bars": model.n_bars, "n_constraints": len(parts.lambda_mult),
            "solver": solver, "decomposition": len(ta.decomposition),
            "segments": segments(ta.decomposition, 6 * model.n_bars),
            "elimination_height": elimination_height(pattern, ws.perm),
            "lu_nonzeros": ws.fac.n_nonzero, "build_s": t1 - t0, "compile_s": t2 - t1}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    cases = [(f"scissor-{c}", scissor, c) for c in ((2, 3) if args.quick else (2, 3, 4, 6, 8))]
    cases += [(f"chain-{n}", chain, n) for n in ((16,) if args.quick else (16, 64))]
    rows = []
    for name, make, size in cases:
        for solver in ("lu", "ordered"):
            r = measure(name, make(size), solver)
            rows.append(r)
            print(f"{name:11s} {r['n_constraints']:3d} rows, {solver:8s}: decomposition "
                  f"{r['decomposition']:6d}, segments {r['segments']:5d}, elimination height "
                  f"{r['elimination_height']:4d}, factor non-zeros {r['lu_nonzeros']:5d}, "
                  f"build {r['build_s']:.3f} s, compile {r['compile_s']:.3f} s", flush=True)
    if not args.quick:
        write_results(RESULTS / "solver_choice.json", {"rows": rows, "machine": machine_info()})


if __name__ == "__main__":
    main()
