"""How the symbolic build of lagrange_eom grows with the length of a chain of bars.

A chain of N bars in maximal coordinates (per bar (x, y, θ) of its centre), pinned at the
origin, bars joined end to end: 3N coordinates and 2N constraints. We time
``quivira.lagrange_eom`` (Lagrangian → first-order system, before any compiling) for
N = 2 … 64, fit ``t ∝ N^p`` on N ≥ 8, and check the 64-link build is under 1 s.

Run: ``python -m benchmarks.build_scaling`` (writes ``benchmarks/results/build_scaling.json``).
"""

from __future__ import annotations

import time

import heyoka as hy
import numpy as np

import quivira as qv
from benchmarks.harness import RESULTS, machine_info, write_results


def chain_lagrangian(n: int, g: float = 9.81):
    """Lagrangian, constraints, q, qd of an n-bar chain (L = 1, m = 1)."""
    q, qd = [], []
    for i in range(n):
        q += hy.make_vars(f"x{i}", f"y{i}", f"th{i}")
        qd += hy.make_vars(f"vx{i}", f"vy{i}", f"om{i}")
    T, V = [], []
    for i in range(n):
        vx, vy, om = qd[3 * i:3 * i + 3]
        T += [0.5 * (vx * vx + vy * vy), (1.0 / 24.0) * om * om]
        V.append(g * q[3 * i + 1])

    def end(i, s):
        return q[3 * i] + s * hy.cos(q[3 * i + 2]), q[3 * i + 1] + s * hy.sin(q[3 * i + 2])

    F = list(end(0, -0.5))
    for i in range(n - 1):
        a, b = end(i, 0.5), end(i + 1, -0.5)
        F += [a[0] - b[0], a[1] - b[1]]
    return hy.sum(T) - hy.sum(V), F, q, qd


def measure(ns=(2, 4, 8, 16, 32, 64), repeat=3) -> list[dict]:
    rows = []
    for n in ns:
        L, F, q, qd = chain_lagrangian(n)
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            sys_ = qv.lagrange_eom(L, F, q, qd)
            best = min(best, time.perf_counter() - t0)
        rows.append({"n_links": n, "n_coordinates": 3 * n, "n_constraints": 2 * n,
                     "build_s": best, "n_equations": len(sys_)})
    return rows


def main() -> int:
    rows = measure()
    big = [r for r in rows if r["n_links"] >= 8]
    p = np.polyfit(np.log([r["n_links"] for r in big]), np.log([r["build_s"] for r in big]), 1)[0]
    for r in rows:
        print(f"N = {r['n_links']:3d}: {r['n_coordinates']:4d} coordinates, "
              f"{r['n_constraints']:4d} constraints, build {r['build_s'] * 1e3:8.1f} ms")
    t64 = next(r["build_s"] for r in rows if r["n_links"] == 64)
    print(f"fitted exponent (N >= 8): build time ~ N^{p:.2f}")
    print(f"64-link chain: {t64:.3f} s (target < 1 s): {'OK' if t64 < 1.0 else 'MISSED'}")
    write_results(RESULTS / "build_scaling.json", {"rows": rows, "exponent": p,
                                                   "target_64_s": 1.0,
                                                   "machine": machine_info()})
    return 0 if t64 < 1.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
