"""A scissor-8 lattice deploying under hinge springs until its latches lock, side by side
with the same model in Exudyn.

Case (see ``quivira_oracles/peers/exudyn_latching_lattice.py`` for the model and its exact
reference): ``scissor(8)`` (16 bars), 16 torsional springs k = 20 N m/rad (8 centre pivots
and 7 corners with rest angle 0, the foot with rest angle π/2), 8 latches on the centre
pivots at φ = 0.75 rad, 5 s simulated from rest.

* Quivira: the default ``model.simulate(5.0)``; the latches are heyoka events located on the
  Taylor series, the plastic lock an impulse through W (the 7 identical latches reaching the
  angle at the same instant are recorded as redundant), in a fresh process with heyoka's
  on-disk cache off (so compiling is included).
* Exudyn: latches as stiff penalty torsional spring-dampers switched on after the step that
  crosses the angle (Exudyn has no latch element), generalized-α at h = 1e-3 and 1e-4.

Errors against the exact 1-DOF reference (quadrature of the energy integral): the latch
time, the latched angle held afterwards (max over the run after the latch), the kinetic
energy lost in the latch.

Run: ``python -m benchmarks.latching_lattice`` (writes ``results/latching_lattice.json`` and
``results/latching_lattice.md``).
"""

from __future__ import annotations

import math
import time

from benchmarks.harness import RESULTS, machine_info, run_in_process, write_results
from quivira_oracles.peers import exudyn_latching_lattice as peer

T_END = peer.T_END


def build_quivira():
    """The latching lattice in Quivira (the same numbers as the Exudyn peer)."""
    from quivira.examples import scissor

    model = scissor(peer.CELLS, length=peer.LENGTH, angle=peer.ALPHA0, g=peer.G)
    for c in range(peer.CELLS):
        model.add_torsional_spring(2 * c, 2 * c + 1, peer.K_HINGE, 0.0, name=f"pivot {c}")
    for c in range(1, peer.CELLS):
        model.add_torsional_spring(2 * c - 1, 2 * c, peer.K_HINGE, 0.0, name=f"corner {c}")
    model.add_torsional_spring(None, 0, peer.K_HINGE, peer.ALPHA_REST, name="foot")
    for c in range(peer.CELLS):
        model.add_latch(2 * c, 2 * c + 1, peer.PHI_LATCH, name=f"latch {c}")
    return model


def quivira_worker() -> dict:
    import heyoka as hy
    import numpy as np

    hy.llvm_state.set_diskcache_enabled(False)
    t0 = time.perf_counter()
    model = build_quivira()
    traj = model.simulate(T_END, n_points=101)
    total = time.perf_counter() - t0
    exact = peer.exact_reference()
    latched = [ev for ev in traj.events if ev["what"] == "latched"]
    t_first = min(ev["t"] for ev in latched)
    after = traj.t > t_first
    phi = traj.q[:, 5::6] - traj.q[:, 2::6]  # θ_{2c+1} - θ_{2c}
    info = traj.info
    return {
        "total_s": total,
        "build_s": info["build_s"],
        "compile_s": info["compile_integrator_s"] + info["compile_outputs_s"],
        "integrate_s": info["wall_s"],
        "steps": info["steps"],
        "n_latched": len(latched),
        "n_redundant": sum(bool(ev.get("redundant")) for ev in latched),
        "latch_time_error": max(abs(ev["t"] - exact["t_latch"]) for ev in latched),
        "latched_angle_error": float(np.abs(phi[after] - peer.PHI_LATCH).max()),
        "kinetic_lost_error": abs(sum(ev["kinetic_energy_lost"] for ev in latched)
                                  - exact["kinetic_lost"]),
        "kinetic_end": float(traj.kinetic_energy[-1]),
        "residual": traj.max_position_residual(),
    }


def exudyn_case(h: float) -> dict:
    t0 = time.perf_counter()
    out = peer.run(h=h, t_end=T_END)
    total = time.perf_counter() - t0
    exact = out["exact"]
    return {"h": h, "total_s": total, "build_s": out["build_s"],
            "integrate_s": out["integrate_s"],
            "latch_time_error": out["latch_time_error"],
            "latched_angle_error": out["latched_angle_error"],
            "kinetic_end": out["kinetic_end"], "residual": out["residual"],
            "exact_t_latch": exact["t_latch"]}


def main() -> int:
    q = run_in_process("benchmarks.latching_lattice", "quivira_worker")
    if q["status"] != "ok":
        raise RuntimeError(f"quivira's run failed: {q.get('error', q['status'])}")
    ex = [exudyn_case(h) for h in (1e-3, 1e-4)]
    lines = [
        "# Latching scissor-8 lattice: Quivira vs Exudyn",
        "",
        "16 bars, 16 hinge springs (k = 20 N m/rad), 8 latches at φ = 0.75 rad, 5 s simulated "
        "(`python -m benchmarks.latching_lattice`, 2 shared cores; Quivira in a fresh process "
        "with heyoka's disk cache off, compiling included). Errors against the exact 1-DOF "
        f"reference: latch time t_L = {peer.exact_reference()['t_latch']:.15f} s.",
        "",
        "| run | total (s) | latch time error (s) | latched angle error (rad) | "
        "kinetic energy at 5 s (J) | time ratio vs Quivira |",
        "|---|---|---|---|---|---|",
        f"| Quivira default `simulate(5.0)` (events + impulse through W) | {q['total_s']:.2f} | "
        f"{q['latch_time_error']:.1e} | {q['latched_angle_error']:.1e} | "
        f"{q['kinetic_end']:.1e} | 1 |",
    ]
    for e in ex:
        lines.append(
            f"| Exudyn h = {e['h']:g} (penalty latch 1e6 N m/rad) | {e['total_s']:.2f} | "
            f"{e['latch_time_error']:.1e} | {e['latched_angle_error']:.1e} | "
            f"{e['kinetic_end']:.1e} | {e['total_s'] / q['total_s']:.1f} |")
    lines += [
        "",
        f"Quivira: build {q['build_s']:.3f} s, compile {q['compile_s']:.3f} s, "
        f"{q['steps']} steps in {q['integrate_s']:.3f} s; {q['n_latched']} latches locked at "
        f"one instant ({q['n_redundant']} of them redundant, held by the first); kinetic "
        f"energy lost vs exact: {q['kinetic_lost_error']:.1e} J; position residual "
        f"{q['residual']:.1e}.",
        "The Exudyn latched-angle error is the penalty deflection (it does not shrink with h; "
        "see the peer's docstring).",
    ]
    md = "\n".join(lines) + "\n"
    print(md)
    write_results(RESULTS / "latching_lattice.json",
                  {"quivira": q, "exudyn": ex, "machine": machine_info()}, md)
    ok = all(q["total_s"] < e["total_s"] for e in ex if e["h"] <= 1e-4) and math.isfinite(
        q["latched_angle_error"])
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
