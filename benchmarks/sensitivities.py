"""Sensitivities of a scissor-8 lattice with respect to 16 hinge stiffnesses.

The mechanism: ``quivira.examples.scissor(8)`` (16 unit bars, 8 X-cells) with its roller
removed, so it hangs from the pin at bar 0's lower end and swings while it folds (2 degrees
of freedom), and 16 torsional springs (``model.add_torsional_spring``, k = 20 N m/rad, rest
angles the initial relative angles offset by -0.1 .. +0.1 rad, so that the 16 derivatives
differ: every hinge of a scissor turns by the same angle): one at each of the 8 cell centres
and at the first 8 cell corners. Output: the state (48 coordinates, 48 velocities) at t = 1 s.

Compared, for the first derivatives (96 x 16) and the second derivatives (96 x 136):

* **quivira variational**: ``model.sensitivities(1.0, wrt, order=1 | 2)``, heyoka's
  variational equations integrated with the motion (the reference: Taylor integration at
  machine-epsilon tolerance);
* **quivira FD**: central finite differences of ``model.simulate`` (re-simulations reuse the
  compiled integrator), step ``h = 1e-3 k`` (first) and ``h = 1e-2 k`` (second, with the
  mixed terms from 4 runs per pair);
* **Exudyn FD** at a fixed step of 1e-3 (generalized-α, ``tests/oracles/
  force_elements_exudyn.py``), same stencils with ``h = 1e-2 k``: the Hessian's 513 runs are
  timed on a subset and extrapolated (marked).

Accuracy: max over the outputs of ``|D - D_ref| / max|D_ref|`` per derivative column, then
the median and the max over the columns. Run from the repository root::

    python -m benchmarks.sensitivities            # full, ~15 min on 2 busy cores
    python -m benchmarks.sensitivities --quick    # 4 springs, order 1 only, no Exudyn
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

from benchmarks.harness import RESULTS, machine_info
from quivira.examples import scissor

T_END = 1.0
K = 20.0
NOTES = """
Reading the table:

- The variational runs give every derivative to the integrator's accuracy (Taylor method at
  machine epsilon): quivira's finite differences agree to ~3e-9 (first order) and ~1e-6
  (second order, limited by the O(h²) stencil and rounding), Exudyn's to ~1e-5 (its own O(h²)
  discretization error at h = 1e-3 dominates).
- Time, once compiled: for first derivatives, re-simulating is as fast or faster here (the
  variational state is 17 times the state, and every step integrates it); for the full
  Hessian (136 second derivatives) one variational run beats the 512 re-simulations of
  central differences, and both beat Exudyn's differences by an order of magnitude.
- Building and compiling the variational system is a one-off cost per topology, selection of
  parameters and order (order 2 w.r.t. 16 parameters: ~1.5-6 GB of memory while compiling);
  later evaluations (other values, `at=`, optimisation steps) reuse it.
- The 96 x 16 gradient has rank 2: every hinge of a scissor lattice turns by the same angle,
  so each stiffness acts through the same two functions (the rest-angle offsets make them
  differ at all); the computation does not exploit this.
"""


def build(n_springs: int = 16):
    """The lattice and the names of its springs (see the module docstring)."""
    m = scissor(8)
    m.remove_support(1)
    hinges = [j for j in m.joints if j.s[0] == 0.0] + [j for j in m.joints if j.s[0] != 0.0]
    names = []
    for i, j in enumerate(hinges[:n_springs]):
        a, b = j.bars[0], j.bars[1]
        phi = m.bars[b].pose[2] - m.bars[a].pose[2]
        # rest angles spread by ±0.1 rad: every hinge of a scissor turns by the same angle,
        # so with equal rest angles all 16 derivatives would be equal
        offset = 0.1 * (2 * i / max(n_springs - 1, 1) - 1)
        names.append(m.add_torsional_spring(a, b, k=K, phi0=phi + offset))
    return m, names


def final_state(m) -> np.ndarray:
    tr = m.simulate(T_END, n_points=2)
    return np.concatenate([tr.q[-1], tr.qd[-1]])


def exudyn_spec(m, k_values) -> dict:
    """The plain-dict description of the lattice for the Exudyn oracle."""
    bars = [{"x": b.pose[0], "y": b.pose[1], "theta": b.pose[2], "length": b.length,
             "mass": b.mass} for b in m.bars]
    joints = [(j.bars[0], j.s[0], j.bars[1], j.s[1]) for j in m.joints]
    tors = [{"a": el.bar_a, "b": el.bar_b, "k": k, "phi0": el.phi0, "c": 0.0, "tau0": 0.0}
            for el, k in zip(m.elements["torsional_springs"], k_values)]
    return {"bars": bars, "joints": joints, "ground_pins": [(0, -0.5)],
            "torsional_springs": tors, "g": m.g}


def exudyn_final(m, k_values, h: float = 1e-3) -> np.ndarray:
    from quivira_oracles.force_elements_exudyn import simulate_force_elements_exudyn

    out = simulate_force_elements_exudyn(exudyn_spec(m, k_values), t_end=T_END, h=h,
                                         times=[T_END])
    return np.concatenate([out["q"][-1], out["qd"][-1]])


def finite_differences(f, k0: np.ndarray, h1: float, h2: float, order: int,
                       pairs: list | None = None):
    """Central differences of ``f(k) -> state``: gradient (2W runs), Hessian diagonal (2W
    runs at h2 + the nominal) and mixed terms (4 runs per pair). Returns (first, second,
    timings) with second as {(i, j): column}."""
    W = len(k0)
    t0 = time.perf_counter()
    nominal = f(k0)
    first = np.empty((nominal.size, W))
    for j in range(W):
        kp, km = k0.copy(), k0.copy()
        kp[j] += h1
        km[j] -= h1
        first[:, j] = (f(kp) - f(km)) / (2 * h1)
    t1 = time.perf_counter()
    second: dict = {}
    if order >= 2:
        for j in range(W):
            kp, km = k0.copy(), k0.copy()
            kp[j] += h2
            km[j] -= h2
            second[(j, j)] = (f(kp) - 2 * nominal + f(km)) / h2 ** 2
        for i, j in (pairs if pairs is not None else itertools.combinations(range(W), 2)):
            vals = {}
            for a, b in itertools.product((1, -1), repeat=2):
                kk = k0.copy()
                kk[i] += a * h2
                kk[j] += b * h2
                vals[a, b] = f(kk)
            second[(i, j)] = (vals[1, 1] - vals[1, -1] - vals[-1, 1] + vals[-1, -1]) / (
                4 * h2 * h2)
    t2 = time.perf_counter()
    return first, second, {"first_s": t1 - t0, "second_s": t2 - t1, "runs_first": 1 + 2 * W,
                           "runs_second": 2 * W + 4 * len(
                               pairs if pairs is not None else list(itertools.combinations(
                                   range(W), 2)))}


def errors(D: np.ndarray, ref: np.ndarray) -> tuple[float, float]:
    """Median and max over columns of max|D - ref| / max|ref| (per column)."""
    scale = np.max(np.abs(ref), axis=0)
    rel = np.max(np.abs(D - ref), axis=0) / np.where(scale > 0, scale, 1.0)
    return float(np.median(rel)), float(np.max(rel))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--order2-params", type=int, default=16,
                    help="how many of the springs the second-order run is taken over")
    ap.add_argument("--exudyn-order2-params", type=int, default=4,
                    help="how many springs Exudyn's second-order differences cover (the "
                    "time of the full Hessian is extrapolated from them)")
    args = ap.parse_args()
    n_springs = 4 if args.quick else 16
    W2 = 0 if args.quick else args.order2_params
    m, names = build(n_springs)
    wrt = [f"{nm} · k" for nm in names]
    W = len(wrt)
    k0 = np.full(W, K)
    final_state(m)  # compile simulate's integrator outside the timings
    t0 = time.perf_counter()
    final_state(m)
    t_sim = time.perf_counter() - t0
    print(f"one simulate: {t_sim:.3f} s", flush=True)

    def variational(names_, order):
        t0 = time.perf_counter()
        s = m.sensitivities(T_END, names_, order=order, outputs=["state"], n_points=2)
        t_first = time.perf_counter() - t0
        t0 = time.perf_counter()
        s = m.sensitivities(T_END, names_, order=order, outputs=["state"], n_points=2)
        t_run = time.perf_counter() - t0
        print(f"variational order {order} w.r.t. {len(names_)}: first call {t_first:.1f} s "
              f"(build {s.info.get('build_variational_s', 0.0):.1f} s, compile "
              f"{s.info.get('compile_variational_s', 0.0):.1f} s), again {t_run:.2f} s, dim "
              f"{s.info['dim']}", flush=True)
        return s, t_first, t_run

    s1, t1_first, t1_run = variational(wrt, 1)
    ref1 = s1.array("state").values[-1][:, 1:1 + W]
    rank1 = int(np.linalg.matrix_rank(ref1, tol=1e-8 * np.abs(ref1).max()))
    print(f"rank of the 96 x {W} gradient: {rank1}", flush=True)
    rows = [(f"quivira variational, order 1, {W} parameters", t1_first, t1_run,
             s1.info["dim"])]
    ref2 = {}
    if W2:
        s2, t2_first, t2_run = variational(wrt[:W2], 2)
        jets2 = s2.array("state").values[-1]
        for a_idx, a in enumerate(s2.mindex):
            if sum(a) == 2:
                ij = [j for j, c in enumerate(a) for _ in range(c)]
                ref2[(ij[0], ij[1])] = jets2[:, a_idx]
        rows.append((f"quivira variational, order 2, {W2} parameters", t2_first, t2_run,
                     s2.info["dim"]))
        g2 = jets2[:, 1:1 + W2]
        agree = float(np.max(np.abs(g2 - ref1[:, :W2])) / np.max(np.abs(ref1[:, :W2])))
        print(f"order-1 columns of the two runs agree to {agree:.1e}", flush=True)

    def f_quivira(k):
        try:
            for nm, v in zip(names, k):
                m.set_spring(nm, k=float(v))
            return final_state(m)
        finally:
            for nm in names:
                m.set_spring(nm, k=K)

    pairs2 = list(itertools.combinations(range(W2), 2))
    lines = []
    fd1, _, tq = finite_differences(f_quivira, k0, 1e-3 * K, 1e-2 * K, 1)
    e1 = errors(fd1, ref1)
    lines.append((f"quivira FD, first order, {W} parameters", tq["first_s"], tq["runs_first"],
                  e1, ""))
    if W2:
        _, fd2, tq2 = finite_differences(f_quivira, k0[:W2], 1e-3 * K, 1e-2 * K, 2, pairs2)
        keys = sorted(ref2)
        e2 = errors(np.column_stack([fd2[k] for k in keys]),
                    np.column_stack([ref2[k] for k in keys]))
        lines.append((f"quivira FD, second order, {W2} parameters", tq2["second_s"],
                      tq2["runs_second"], e2, ""))
        if W2 < W:
            per = tq2["second_s"] / tq2["runs_second"]
            full = 2 * W + 4 * W * (W - 1) // 2
            lines.append((f"quivira FD, second order, {W} parameters (extrapolated)",
                          per * full, full, None, ""))
    for label, t, runs, err, _ in lines:
        print(f"{label}: {t:.1f} s, {runs} runs, error {err}", flush=True)

    ex_lines = []
    ex_info = None
    if not args.quick:
        t0 = time.perf_counter()
        x_ex = exudyn_final(m, k0)
        t_ex = time.perf_counter() - t0
        nominal_err = float(np.max(np.abs(x_ex - s1.array("state").values[-1][:, 0])))
        ex_info = (t_ex, nominal_err)
        print(f"Exudyn h=1e-3 one run {t_ex:.2f} s; |x_exudyn - x_quivira| = "
              f"{nominal_err:.1e}", flush=True)

        def f_exudyn(k_sub, W_sub):
            k = k0.copy()
            k[:W_sub] = k_sub
            return exudyn_final(m, k)

        ed1, _, te = finite_differences(lambda k: exudyn_final(m, k), k0, 1e-2 * K,
                                        1e-2 * K, 1)
        ex_lines.append((f"Exudyn h = 1e-3 FD, first order, {W} parameters", te["first_s"],
                         te["runs_first"], errors(ed1, ref1), ""))
        WE = min(args.exudyn_order2_params, W2)
        if WE:
            pairs_e = list(itertools.combinations(range(WE), 2))
            _, ed2, te2 = finite_differences(lambda k: f_exudyn(k, WE), k0[:WE], 1e-2 * K,
                                             1e-2 * K, 2, pairs_e)
            keys = sorted(ed2)
            ex_lines.append((f"Exudyn h = 1e-3 FD, second order, {WE} parameters",
                             te2["second_s"], te2["runs_second"],
                             errors(np.column_stack([ed2[k] for k in keys]),
                                    np.column_stack([ref2[k] for k in keys])), ""))
            per = te2["second_s"] / te2["runs_second"]
            full = 2 * W + 4 * W * (W - 1) // 2
            ex_lines.append((f"Exudyn h = 1e-3 FD, second order, {W} parameters "
                             "(extrapolated)", per * full, full, None, ""))
        for label, t, runs, err, _ in ex_lines:
            print(f"{label}: {t:.1f} s, {runs} runs, error {err}", flush=True)

    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    machine = machine_info()
    out = ["# Sensitivities of a scissor-8 lattice w.r.t. 16 hinge stiffnesses", "",
           f"`python -m benchmarks.sensitivities` — {stamp}, {machine['cpu']}, Python "
           f"{machine['versions']['python']}, a shared {machine['cpus']}-core machine (other "
           "jobs were running: timings are indicative).", "",
           f"Mechanism: `scissor(8)` without its roller (hangs from one pin, 2 DOF), {W} "
           f"torsional springs k = {K} N m/rad; output: the state (96 entries) at t = {T_END} "
           f"s (the 96 x {W} gradient has rank {rank1}). One `simulate` (compiled): "
           f"{t_sim:.2f} s. Reference: the variational jets. "
           "Error: per derivative column max|D - D_ref| / max|D_ref|, median / max over "
           "the columns.", "",
           "| method | wall time | runs | error (median / max) |", "|---|---|---|---|"]
    for label, t_first, t_run, dim in rows:
        out.append(f"| {label}: first call (build + compile + run), dim {dim} | "
                   f"{t_first:.1f} s | 1 | reference |")
        out.append(f"| {label}: again (compiled) | {t_run:.2f} s | 1 | reference |")
    for label, t, runs, err, _ in lines + ex_lines:
        e = "—" if err is None else f"{err[0]:.1e} / {err[1]:.1e}"
        out.append(f"| {label} | {t:.1f} s | {runs} | {e} |")
    if ex_info:
        out += ["", f"Exudyn, one run at h = 1e-3: {ex_info[0]:.2f} s; its final state differs "
                f"from quivira's by {ex_info[1]:.1e} (the O(h²) error of generalized-α), "
                "which bounds the accuracy of any derivative taken from it."]
    out.append(NOTES)
    text = "\n".join(out) + "\n"
    print(text)
    if not args.quick:
        (RESULTS / "sensitivities.md").write_text(text)


if __name__ == "__main__":
    main()
