"""Shared pieces of the benchmark peers: the mechanisms, and the figures every tool reports.

A case is named ``chain-N`` (N uniform bars, ``quivira.examples.chain(N)``), ``four_bar``
(``quivira.examples.four_bar()``) or ``scissor-C`` (``quivira.examples.scissor(C)``). The
mechanism of a case is read from the quivira model into a plain :class:`Mechanism` (bars with
their initial pose, pin joints, supports), from which each peer builds its own model, so all
tools integrate the same system in the same maximal coordinates: per bar ``(x, y, θ)`` of its
centre, inertia ``m L²/12``, gravity ``g`` along ``-y``.

The figures are computed here, from the coordinates and velocities each tool returns at the
output times (the same numpy code for every tool):

* ``energy_error``: :math:`\\max_t |E(t) - E(0)| / \\max(|E(0)|, \\max_t T(t))`, with
  :math:`E = T + V`, :math:`V = \\sum m g y`;
* ``residual``: :math:`\\max_k |F_k(q)|` of the joint and support equations at the last output
  time (``residual_max``: the largest over all output times);
* ``last_bar_end``: ``(x, y, θ)`` of the last bar at the end, to compare the tools' motions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: simulated time of every case but the scissors (seconds)
T_END = 10.0
#: scissors collapse to their flat, singular pose in well under 10 s: they run this long
T_END_SCISSOR = 0.3
#: large lattices (from this many cells) run 1 s: the size where compiling no longer dominates
LARGE_SCISSOR, T_END_LARGE_SCISSOR = 32, 1.0
#: IFToMM A02 runs the problem's 20 s
T_END_A02 = 20.0
#: output times per run (evenly spaced, 0 and t_end included)
N_POINTS = 101


@dataclass
class Mechanism:
    """A planar bar linkage in tool-neutral form.

    ``bars``: ``(x, y, theta, length, mass)`` of each bar at t = 0 (at rest);
    ``joints``: ``(bar_a, s_a, bar_b, s_b)`` pins making two bar points coincide;
    ``supports``: ``(bar, s, free_x, free_y, x, y)`` ground pins (a free direction = roller);
    ``velocities``: ``(vx, vy, ω)`` of each bar at t = 0 (None: at rest).
    """

    case: str
    bars: list
    joints: list
    supports: list
    g: float
    t_end: float
    velocities: list | None = None

    @property
    def n_coordinates(self) -> int:
        return 3 * len(self.bars)

    @property
    def n_constraints(self) -> int:
        return 2 * len(self.joints) + sum(
            (not fx) + (not fy) for _, _, fx, fy, _, _ in self.supports
        )

    def q0(self) -> np.ndarray:
        return np.array([c for b in self.bars for c in b[:3]], dtype=float)


def quivira_model(case: str):
    """The quivira model of a case name (see the module docstring)."""
    from quivira import examples

    if case == "four_bar":
        return examples.four_bar()
    kind, _, size = case.partition("-")
    if kind == "chain":
        return examples.chain(int(size))
    if kind == "scissor":
        return examples.scissor(int(size))
    if kind == "wall":
        masts, cells = (int(v) for v in size.split("x"))
        return scissor_wall(masts, cells)
    if kind == "a02":  # IFToMM A02, the N-four-bar (moving at t = 0, flat poses every half turn)
        return examples.iftomm_a02(int(size))
    if case == "a03":  # IFToMM A03, Andrews' squeezing mechanism
        return examples.iftomm_a03()
    raise ValueError(f"unknown case {case!r}: expected chain-N, four_bar, scissor-C, "
                     "wall-MxC, a02-N or a03")


def integrator_recipe(case: str) -> tuple:
    """``(model, cs, system, kwargs)``: the Taylor integrator ``simulate`` builds for a case.

    Its first-order system and ``hy.taylor_adaptive`` keyword arguments (the default tolerance
    of the case's run and compile options, the singularity monitor's events), not compiled; the
    output functions are compiled and waited for, so that a clock started after this call times
    the integrator only.
    """
    from quivira.model.compiled import compile_system, default_compile_options

    model = quivira_model(case)
    n = model.n_coordinates
    tol, _ = model.engine.simulator.default_tol(model.engine.data, "interactive", t_end_of(case))
    cs = compile_system(model.engine.data, tol, default_compile_options(n),
                        model.solver, integrator=False)
    cs.outputs  # noqa: B018 - waits for the background compile
    system, kwargs = cs.ta_recipe
    return model, cs, system, kwargs


def scissor_wall(masts: int, cells: int, angle: float = 0.6):
    """A 2-D lattice of ``masts`` scissor masts of ``cells`` X-cells side by side: ``2 masts
    cells`` bars of 1 m and 1 kg, one degree of freedom.

    Mast ``k`` is :func:`quivira.examples.scissor` shifted by ``k`` cell widths; each top
    corner of a mast is pinned to the facing top corner of the next mast. Mast 0 stands on a
    pin and a roller, the others on two rollers each (free in x): a mast alone has two degrees
    of freedom (opening, sliding), and each pair of top pins takes two, so the wall keeps the
    one of mast 0, with no redundant row. It collapses under gravity like a single mast.
    """
    from quivira import BarJointModel, examples

    one = examples.scissor(cells, angle=angle)
    w = math.cos(angle)
    wall = BarJointModel()
    wall.set_g(float(one.g))
    per = len(one.bars)
    for k in range(masts):
        for b in one.bars:
            x, y, th = b.pose
            wall.add_bar_at_attitude(x + k * w, y, th, b.length, b.mass)
        for j in one.joints:
            wall.add_joint([k * per + i for i in j.bars], list(j.s))
        wall.add_support(k * per, -0.5, k > 0, False)
        wall.add_support(k * per + 1, -0.5, True, False)
        if k:  # the top right corner of mast k-1 on the top left corner of mast k
            wall.add_joint([(k - 1) * per + per - 2, k * per + per - 1], [0.5, 0.5])
    return wall


def t_end_of(case: str, t_end: float | None = None) -> float:
    """Simulated time of a case: ``t_end`` if given, else 10 s (scissors: 0.3 s, 1 s from
    :data:`LARGE_SCISSOR` cells)."""
    if t_end is not None:
        return float(t_end)
    if case.startswith("scissor"):
        return T_END_LARGE_SCISSOR if int(case.split("-")[1]) >= LARGE_SCISSOR \
            else T_END_SCISSOR
    if case.startswith("wall"):
        return T_END_LARGE_SCISSOR
    if case.startswith("a02"):
        return T_END_A02
    return T_END


def mechanism(case: str, t_end: float | None = None) -> Mechanism:
    """The :class:`Mechanism` of a case, read from its quivira model."""
    model = quivira_model(case)
    bars = [(*b.pose, b.length, b.mass) for b in model.bars]
    joints = []
    for j in model.joints:
        for k in range(1, len(j.bars)):  # a multi-bar pin: every bar to the first one
            joints.append((j.bars[0], j.s[0], j.bars[k], j.s[k]))
    supports = [(s.bar, s.s, s.free_x, s.free_y, s.x, s.y) for s in model.supports]
    velocities = [tuple(float(v) for v in b.velocity) for b in model.bars]
    if not np.any(velocities):
        velocities = None
    return Mechanism(case, bars, joints, supports, float(model.g), t_end_of(case, t_end),
                     velocities)


def _points(mech: Mechanism, q: np.ndarray, bar: int, s: float):
    x, y, th = q[..., 3 * bar], q[..., 3 * bar + 1], q[..., 3 * bar + 2]
    L = mech.bars[bar][3]
    return x + s * L * np.cos(th), y + s * L * np.sin(th)


def constraint_residuals(mech: Mechanism, q: np.ndarray) -> np.ndarray:
    """:math:`F(q)` of the joints and supports, shape ``(len(q), n_constraints)``."""
    q = np.atleast_2d(np.asarray(q, dtype=float))
    rows = []
    for a, sa, b, sb in mech.joints:
        pa, pb = _points(mech, q, a, sa), _points(mech, q, b, sb)
        rows += [pb[0] - pa[0], pb[1] - pa[1]]
    for bar, s, fx, fy, x0, y0 in mech.supports:
        p = _points(mech, q, bar, s)
        if not fx:
            rows.append(p[0] - x0)
        if not fy:
            rows.append(p[1] - y0)
    return np.column_stack(rows) if rows else np.zeros((len(q), 0))


def energies(mech: Mechanism, q: np.ndarray, qd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Kinetic energy ``T`` and total energy ``E = T + V`` at each output time."""
    m = np.array([b[4] for b in mech.bars])
    inertia = np.array([b[4] * b[3] ** 2 / 12.0 for b in mech.bars])
    T = 0.5 * (m * (qd[:, 0::3] ** 2 + qd[:, 1::3] ** 2) + inertia * qd[:, 2::3] ** 2).sum(1)
    V = (m * mech.g * q[:, 1::3]).sum(1)
    return T, T + V


def figures(mech: Mechanism, t: np.ndarray, q: np.ndarray, qd: np.ndarray) -> dict:
    """``energy_error``, ``residual`` (last output), ``residual_max`` and ``t_reached``."""
    t, q, qd = np.asarray(t), np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
    T, E = energies(mech, q, qd)
    scale = max(abs(E[0]), float(np.max(np.abs(T))), 1e-300)
    F = np.abs(constraint_residuals(mech, q))
    finite = bool(np.all(np.isfinite(q)) and np.all(np.isfinite(qd)))
    return {
        "energy_error": float(np.max(np.abs(E - E[0])) / scale) if finite else math.nan,
        "residual": float(F[-1].max()) if F.size and finite else (0.0 if finite else math.nan),
        "residual_max": float(F.max()) if F.size and finite else (0.0 if finite else math.nan),
        "t_reached": float(t[-1]),
        "n_outputs": int(len(t)),
        # (x, y, θ) of the last bar at the end: lets run.py check that the tools agree
        "last_bar_end": [float(v) for v in q[-1, -3:]],
    }


def output_times(mech: Mechanism, n_points: int = N_POINTS) -> np.ndarray:
    return np.linspace(0.0, mech.t_end, n_points)
