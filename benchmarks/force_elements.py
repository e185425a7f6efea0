"""Springs cost little: a scissor lattice with a torsional spring at every hinge, side by side
with the same lattice without springs, in one run.

Case: ``scissor(8)`` (16 bars, 48 coordinates), with 16 torsional springs — one at each of
the 8 centre pivots, one at each of the 7 corners where cells meet, one from bar 0 to ground
— of stiffness enough to hold the lattice up (rest angles: the initial ones), simulated 10 s
with gravity: build, compile, integrate, in a fresh process (heyoka's on-disk cache off).

Without springs the lattice collapses to its flat, singular pose in well under a second, so
"the same 10 s without springs" cannot be simulated; it is measured as what it costs: build,
compile, and the integration time per step (from a 0.6 s run) times the number of steps the
sprung lattice took. Target: with springs at most
1.5× that.

Run: ``python -m benchmarks.force_elements`` (writes ``results/force_elements.json``).
"""

from __future__ import annotations

import time

from benchmarks.harness import RESULTS, machine_info, run_in_process, write_results

TARGET = 1.5


def hinge_springs(model, k: float) -> None:
    """16 torsional springs on ``scissor(8)`` (see the module docstring)."""
    cells = model.n_bars // 2
    for c in range(cells):
        model.add_torsional_spring(2 * c, 2 * c + 1, k, name=f"pivot {c}")
    for c in range(1, cells):
        model.add_torsional_spring(2 * c - 1, 2 * c, k, name=f"corner {c}")
    model.add_torsional_spring(None, 0, k, name="foot")


def worker(springs: bool) -> dict:
    import heyoka as hy

    from quivira.examples import scissor

    hy.llvm_state.set_diskcache_enabled(False)
    t0 = time.perf_counter()
    model = scissor(8)
    if springs:
        hinge_springs(model, 40.0)
    t_end = 10.0 if springs else 0.6
    traj = model.simulate(t_end, n_points=101)
    total = time.perf_counter() - t0
    info = traj.info
    return {"springs": springs, "n_springs": 16 if springs else 0, "t_end": t_end,
            "total_s": total, "build_s": info["build_s"],
            "compile_s": info["compile_integrator_s"] + info["compile_outputs_s"],
            "steps": info["steps"],
            # the propagation, without the singularity monitor's compilation (done in it)
            "integrate_s": info["wall_s"] - info.get("compile_singularity_s", 0.0),
            "compile_monitor_s": info.get("compile_singularity_s", 0.0),
            "energy_error": traj.relative_energy_error(),
            "min_angle": float(abs(traj.q[:, 2]).min()),
            "decomposition_size": model.compiled(info["tol"]).decomposition_size}


def main() -> int:
    runs = {}
    for springs in (False, True):
        rec = run_in_process("benchmarks.force_elements", "worker", {"springs": springs})
        if rec["status"] != "ok":
            raise RuntimeError(f"springs={springs}: {rec.get('error', rec['status'])}")
        runs[springs] = rec
    bare, sprung = runs[False], runs[True]
    per_step = bare["integrate_s"] / max(bare["steps"], 1)
    # everything but the integration as measured, plus the sprung lattice's number of steps
    equivalent = bare["total_s"] - bare["integrate_s"] + per_step * sprung["steps"]
    ratio = sprung["total_s"] / equivalent
    for r in (bare, sprung):
        print(f"scissor-8, {r['n_springs']:2d} springs: {r['t_end']:4.1f} s simulated, "
              f"build {r['build_s']:.3f} s, compile {r['compile_s']:.3f} s, "
              f"{r['steps']} steps in {r['integrate_s']:.3f} s, energy error "
              f"{r['energy_error']:.1e}, {r['decomposition_size']} operations")
    print(f"without springs, the same {sprung['steps']} steps: {equivalent:.3f} s; with springs "
          f"{sprung['total_s']:.3f} s: ratio {ratio:.2f} (target <= {TARGET}): "
          f"{'OK' if ratio <= TARGET else 'MISSED'}")
    result = {"without_springs": bare, "with_springs": sprung,
              "without_springs_same_steps_s": equivalent, "ratio": ratio, "target": TARGET,
              "ok": ratio <= TARGET, "machine": machine_info()}
    write_results(RESULTS / "force_elements.json", result)
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
