r"""Time ``model.determinacy()`` on scissor lattices, numpy's dense SVD of the same J beside it.

The lattices are :func:`quivira.examples.scissor` towers of C cells (2C bars) with a pin and a
roller added at the top (two states of self-stress, no mechanism), up to C = 256: the 512-bar
wall, about 1.5k constraint rows. Each size runs in 3 fresh subprocesses (fresh model, fresh
compile); per run

* ``first_s``: the first ``model.determinacy()`` (compiles the model's geometry functions);
* ``analysis_s``: a second call on the same model (compiled code cached): the evaluation of
  :math:`J` and the pivoted sparse :math:`LDL^T` of the Gram matrix :math:`G = AA^T`;
* ``svd_s``: ``numpy.linalg.svd`` of the same dense :math:`J` (the null space of
  :math:`J^T` needs the full U);
* the agreement: rank and self-stress count against the SVD's, and the largest entry of the
  difference of the projectors onto the two bases of :math:`\operatorname{null}(J^T)`.

The medians of the 3 runs go to ``results/determinacy.md``.

Run from the repository root: ``python -m benchmarks.determinacy [--cells 8 32 ...]``.
"""

from __future__ import annotations

import argparse
import json

from benchmarks.harness import RESULTS, machine_info, median, run_in_process
from quivira_oracles.determinacy import model_jacobian

CELLS = (8, 32, 64, 128, 256)
RUNS = 3


def build(cells: int):
    """The scissor tower of ``cells`` cells with a pin and a roller at the top."""
    from quivira.examples import scissor

    model = scissor(cells)
    top = 2 * cells
    model.add_support(top - 1, 0.5, False, False)
    model.add_support(top - 2, 0.5, True, False)
    return model


def worker(cells: int) -> dict:
    """One fresh run (called in a subprocess)."""
    import time

    import numpy as np

    model = build(cells)
    t0 = time.perf_counter()
    model.determinacy()
    t1 = time.perf_counter()
    det = model.determinacy()
    t2 = time.perf_counter()
    J = model_jacobian(model)
    t3 = time.perf_counter()
    U, sv, _ = np.linalg.svd(J)
    t4 = time.perf_counter()
    r = int(np.sum(sv > 1e-9 * sv.max()))
    Nt = U[:, r:]
    Q, _ = np.linalg.qr(det.self_stresses) if det.n_self_stresses else (np.zeros((len(J), 0)),
                                                                      None)
    diff = float(np.max(np.abs(Q @ Q.T - Nt @ Nt.T))) if J.size else 0.0
    return {"cells": cells, "bars": 2 * cells, "rows": J.shape[0], "cols": J.shape[1],
            "first_s": t1 - t0, "analysis_s": t2 - t1, "svd_s": t4 - t3,
            "rank": det.rank, "rank_svd": r, "self_stresses": det.n_self_stresses,
            "mobility": det.mobility, "projector_diff": diff}


def run(cells: int) -> dict:
    """The medians of :data:`RUNS` fresh subprocess runs."""
    runs = []
    for _ in range(RUNS):
        out = run_in_process("benchmarks.determinacy", "worker", {"cells": cells})
        if out["status"] != "ok":
            raise RuntimeError(f"{cells} cells: {out.get('error', out['status'])}")
        runs.append(out)
    rec = dict(runs[0])
    for key in ("first_s", "analysis_s", "svd_s"):
        rec[key] = median([r[key] for r in runs])
    rec["projector_diff"] = max(r["projector_diff"] for r in runs)
    return rec


def table(records: list[dict]) -> str:
    """The markdown report."""
    machine = machine_info()
    lines = [
        "# `model.determinacy()` on scissor towers, numpy's dense SVD beside it",
        "",
        f"`python -m benchmarks.determinacy`; {machine['versions']['python']}, "
        f"{machine['cpus']} cores, a shared (busy) host. Median of {RUNS} fresh subprocess runs.",
        "Lattice: `scissor(C)` plus a pin and a roller at the top (2 self-stresses, no "
        "mechanism).",
        "",
        "| C | bars | rows × cols | first call (compile + analysis) s | analysis s | "
        "numpy SVD s | SVD / analysis | rank = SVD's | self-stresses | max projector diff |",
        "|---:|---:|---:|---:|---:|---:|---:|:---:|---:|---:|",
    ]
    for r in records:
        lines.append(
            f"| {r['cells']} | {r['bars']} | {r['rows']} × {r['cols']} | {r['first_s']:.2f} | "
            f"{r['analysis_s']:.3f} | {r['svd_s']:.3f} | {r['svd_s'] / r['analysis_s']:.1f} | "
            f"{'yes' if r['rank'] == r['rank_svd'] else 'NO'} | {r['self_stresses']} | "
            f"{r['projector_diff']:.1e} |")
    lines += [
        "",
        "*analysis*: a second `model.determinacy()` on the same model: J evaluated by the "
        "compiled code, the pivoted sparse LDLᵀ of the Gram matrix, the self-stress basis and "
        "the per-row and per-reaction verdicts. *first call* adds the model's compile "
        "(heyoka JIT of the geometry), paid once per model and shared with the other analyses.",
        "*max projector diff*: largest entry of P_quivira − P_svd, the projectors onto the two "
        "bases of null(Jᵀ).",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", type=int, nargs="+", default=list(CELLS))
    args = ap.parse_args()
    records = []
    for c in args.cells:
        rec = run(c)
        print(json.dumps(rec), flush=True)
        records.append(rec)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "determinacy.md").write_text(table(records), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
