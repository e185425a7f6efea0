"""Oracle tests of :mod:`quivira.lagrangian` against SymPy's ``LagrangesMethod``.

Each model is written once as a function of a *namespace* that supplies the coordinates,
velocities, time and elementary functions either as SymPy dynamic symbols or as heyoka
variables; the same formulas therefore build the SymPy and the heyoka Lagrangian. Velocities
of points are obtained by differentiation in each library separately, and non-conservative
forces are given as physical point forces: SymPy turns them into generalized forces with its
own partial velocities, the heyoka side with ``Q_i = sum_P dr_P/dq_i . f_P`` (written here).

SymPy's equations are solved numerically at consistent states (positions on the constraint
manifold, velocities projected onto its tangent space) and compared with our symbolic
results evaluated by :func:`heyoka.cfunc`.

Multiplier sign (checked numerically in ``test_sympy_multiplier_sign_conventions``): SymPy
1.14 stores ``lam_coeffs = -J`` and builds ``mass_matrix = [M, lam_coeffs^T] = [M, -J^T]``,
so the system ``mass_matrix_full @ [qd, qdd, lam] = forcing_full`` (what ``LM.rhs()``
solves) reads ``M qdd - J^T lam = f``, i.e. ``M qdd = f + J^T lam``: the multipliers solved
from it are *equal* to ours (our convention ``d/dt dL/dqd - dL/dq = Q_nc + J^T lam``).
SymPy's ``LM.eom`` however is ``without_lam - lam_coeffs^T lam = M qdd - f + J^T lam``, so
multipliers that zero ``LM.eom`` are *minus* ours (see sympy/sympy#30215).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import heyoka as hy
import numpy as np
import pytest
import sympy as sp
from sympy.physics.mechanics import LagrangesMethod, Point, ReferenceFrame, dynamicsymbols

from quivira import (
    build_constraint_jacobian,
    build_Jdqd,
    build_mass_matrix,
    find_constrained_accelerations,
    gaussian_elimination,
    lagrange_eom,
)

TOL = 1e-10
N_STATES = 10
G = 9.81
T_SYM = dynamicsymbols._t


# ------------------------------------------------------------------------------------------
# the two namespaces
# ------------------------------------------------------------------------------------------


class SympyNS:
    sin, cos, exp, sqrt = sp.sin, sp.cos, sp.exp, sp.sqrt

    def __init__(self, names):
        self.q = [dynamicsymbols(nm) for nm in names]
        self.qd = [qi.diff(T_SYM) for qi in self.q]
        self.t = T_SYM

    def tdiff(self, e):
        return sp.diff(e, T_SYM)


def make_vars(names):
    """``hy.make_vars`` that always returns a list (it returns a bare variable for one name)."""
    return [hy.make_vars(nm) for nm in names]


class HeyokaNS:
    sin, cos, exp, sqrt = hy.sin, hy.cos, hy.exp, hy.sqrt

    def __init__(self, names):
        self.q = make_vars(names)
        self.qd = make_vars([nm + "_dot" for nm in names])
        self.t = hy.time

    def tdiff(self, e):
        """Time derivative of a function of q only (no explicit time)."""
        e = e if isinstance(e, hy.expression) else hy.expression(float(e))
        return hy.sum([hy.diff(e, qi) * qdi for qi, qdi in zip(self.q, self.qd)])


def kinetic_point(ns, m, pos):
    vx, vy = ns.tdiff(pos[0]), ns.tdiff(pos[1])
    return 0.5 * m * (vx * vx + vy * vy)


# ------------------------------------------------------------------------------------------
# models
# ------------------------------------------------------------------------------------------


@dataclass
class Model:
    names: list[str]
    build: Callable  # ns -> (L, F, forces), forces: list of (point position, point force)
    sample_q: Callable  # rng -> q on the constraint manifold
    velocity_scale: float = 1.0
    time_dependent: bool = False
    meta: dict = field(default_factory=dict)


def pendulum_cartesian(forced=False):
    m, l, A, w, c = 1.3, 0.8, 2.5, 1.7, 0.4

    def build(ns):
        x, y = ns.q
        xd, yd = ns.qd
        L = 0.5 * m * (xd * xd + yd * yd) - m * G * y
        F = [x * x + y * y - l * l]
        forces = []
        if forced:  # horizontal periodic push plus linear drag on the bob
            forces = [((x, y), (A * ns.cos(w * ns.t) - c * xd, -c * yd))]
        return L, F, forces

    def sample_q(rng):
        phi = rng.uniform(-math.pi, math.pi)
        return [l * math.sin(phi), -l * math.cos(phi)]

    return Model(["x", "y"], build, sample_q, 2.0, forced, {"m": m, "l": l})


def double_pendulum_maximal():
    m1, m2, l1, l2 = 1.0, 0.7, 1.2, 0.9

    def build(ns):
        x1, y1, x2, y2 = ns.q
        L = (
            kinetic_point(ns, m1, (x1, y1))
            + kinetic_point(ns, m2, (x2, y2))
            - G * (m1 * y1 + m2 * y2)
        )
        F = [x1 * x1 + y1 * y1 - l1 * l1, (x2 - x1) ** 2 + (y2 - y1) ** 2 - l2 * l2]
        return L, F, []

    def sample_q(rng):
        a, b = rng.uniform(-math.pi, math.pi, 2)
        x1, y1 = l1 * math.sin(a), -l1 * math.cos(a)
        return [x1, y1, x1 + l2 * math.sin(b), y1 - l2 * math.cos(b)]

    return Model(["x1", "y1", "x2", "y2"], build, sample_q, 2.0)


def particle_on_parabola():
    m, a, c, F0 = 0.8, 0.6, 0.3, 1.1

    def build(ns):
        x, y = ns.q
        xd, yd = ns.qd
        L = 0.5 * m * (xd * xd + yd * yd) - m * G * y
        F = [y - a * x * x]
        forces = [((x, y), (F0 - c * xd, -c * yd))]  # constant push along x, linear drag
        return L, F, forces

    def sample_q(rng):
        x = rng.uniform(-1.5, 1.5)
        return [x, a * x * x]

    return Model(["x", "y"], build, sample_q, 1.5)


def particle_on_tilted_circle_3d():
    """A bead on a circle in 3-D (sphere cut by a tilted plane): two constraints."""
    m, R, n = 1.1, 0.9, (0.3, -0.2, 1.0)

    def build(ns):
        x, y, z = ns.q
        L = kinetic_point(ns, m, (x, y)) + 0.5 * m * ns.tdiff(z) ** 2 - m * G * z
        F = [x * x + y * y + z * z - R * R, n[0] * x + n[1] * y + n[2] * z]
        return L, F, []

    def sample_q(rng):
        nv = np.array(n) / np.linalg.norm(n)
        e1 = np.cross(nv, [1.0, 0.0, 0.0])
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(nv, e1)
        s = rng.uniform(-math.pi, math.pi)
        return list(R * (math.cos(s) * e1 + math.sin(s) * e2))

    return Model(["x", "y", "z"], build, sample_q, 1.5)


def double_pendulum_angles():
    m1, m2, l1, l2 = 1.0, 0.7, 1.2, 0.9

    def build(ns):
        a, b = ns.q
        p1 = (l1 * ns.sin(a), -l1 * ns.cos(a))
        p2 = (p1[0] + l2 * ns.sin(b), p1[1] - l2 * ns.cos(b))
        L = kinetic_point(ns, m1, p1) + kinetic_point(ns, m2, p2) - G * (m1 * p1[1] + m2 * p2[1])
        return L, [], []

    return Model(["th1", "th2"], build, lambda rng: list(rng.uniform(-math.pi, math.pi, 2)), 3.0)


def polar_central_potential():
    m, k, eps = 0.9, 2.0, 0.3

    def build(ns):
        r, phi = ns.q
        L = kinetic_point(ns, m, (r * ns.cos(phi), r * ns.sin(phi))) + k / r - eps * r**4
        return L, [], []

    def sample_q(rng):
        return [rng.uniform(0.5, 2.0), rng.uniform(-math.pi, math.pi)]

    return Model(["r", "phi"], build, sample_q, 2.0)


def forced_pendulum_angle():
    """Pendulum angle with a horizontal force A cos(w t) and drag on the bob."""
    m, l, A, w, c = 1.3, 0.8, 2.5, 1.7, 0.4

    def build(ns):
        (th,) = ns.q
        pos = (l * ns.sin(th), -l * ns.cos(th))
        L = kinetic_point(ns, m, pos) - m * G * pos[1]
        vel = (ns.tdiff(pos[0]), ns.tdiff(pos[1]))
        return L, [], [(pos, (A * ns.cos(w * ns.t) - c * vel[0], -c * vel[1]))]

    return Model(["th"], build, lambda rng: [rng.uniform(-math.pi, math.pi)], 3.0, True)


MODELS = {
    "pendulum_cartesian": pendulum_cartesian(),
    "pendulum_cartesian_forced_time": pendulum_cartesian(forced=True),
    "double_pendulum_maximal": double_pendulum_maximal(),
    "particle_on_parabola_drag": particle_on_parabola(),
    "bead_on_tilted_circle_3d": particle_on_tilted_circle_3d(),
    "double_pendulum_angles": double_pendulum_angles(),
    "polar_central_potential": polar_central_potential(),
    "forced_pendulum_angle_time": forced_pendulum_angle(),
}


# ------------------------------------------------------------------------------------------
# SymPy side
# ------------------------------------------------------------------------------------------


class SympyOracle:
    def __init__(self, model: Model):
        ns = SympyNS(model.names)
        L, F, forces = model.build(ns)
        frame = ReferenceFrame("N")
        forcelist = []
        for k, (pos, f) in enumerate(forces):
            P = Point(f"P{k}")
            P.set_vel(frame, ns.tdiff(pos[0]) * frame.x + ns.tdiff(pos[1]) * frame.y)
            forcelist.append((P, f[0] * frame.x + f[1] * frame.y))
        self.LM = LagrangesMethod(
            L, ns.q, forcelist=forcelist or None, frame=frame, hol_coneqs=F or None
        )
        self.LM.form_lagranges_equations()
        self.n, self.m = len(ns.q), len(F)
        n = self.n
        q_s = sp.symbols(f"q0:{n}")
        qd_s = sp.symbols(f"qd0:{n}")
        qdd_s = sp.symbols(f"qdd0:{n}")
        lam_s = sp.symbols(f"lam0:{self.m}")
        sub = {d: s for d, s in zip(ns.qd, qd_s)}
        sub.update({qi: s for qi, s in zip(ns.q, q_s)})
        sub2 = {qi.diff(T_SYM, 2): s for qi, s in zip(ns.q, qdd_s)}
        sub2.update({lv: s for lv, s in zip(self.LM.lam_vec, lam_s)})
        args = (q_s, qd_s, T_SYM)
        Mf = self.LM.mass_matrix_full.xreplace(sub)
        ff = self.LM.forcing_full.xreplace(sub)
        self._Mf = sp.lambdify(args, Mf, "numpy")
        self._ff = sp.lambdify(args, ff, "numpy")
        self._F = sp.lambdify(args, sp.Matrix(F).xreplace(sub), "numpy") if F else None
        eom = self.LM.eom.xreplace(sub2).xreplace(sub)
        self._eom = sp.lambdify((q_s, qd_s, qdd_s, lam_s, T_SYM), eom, "numpy")

    def blocks(self, q, qd, t):
        """Return M, J, -Jdot qd, f and the solution [qdd, lam] of the full system."""
        n, m = self.n, self.m
        Mf = np.array(self._Mf(q, qd, t), dtype=float)
        ff = np.array(self._ff(q, qd, t), dtype=float).ravel()
        sol = np.linalg.solve(Mf, ff)
        assert np.allclose(sol[:n], qd, rtol=1e-13, atol=1e-13)
        return {
            "M": Mf[n:2 * n, n:2 * n],
            "minus_JT": Mf[n:2 * n, 2 * n:],
            "J": Mf[2 * n:, n:2 * n],
            "minus_Jdqd": ff[2 * n:],
            "qdd": sol[n:2 * n],
            "lam": sol[2 * n:2 * n + m],
        }

    def F(self, q):
        return np.array(self._F(q, np.zeros(self.n), 0.0), dtype=float).ravel()

    def eom_residual(self, q, qd, qdd, lam, t):
        return np.array(self._eom(q, qd, qdd, lam, t), dtype=float).ravel()


def consistent_states(model: Model, oracle: SympyOracle, seed: int):
    """States with F(q) = 0 and J(q) qd = 0 (random tangent velocities)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(N_STATES):
        q = np.array(model.sample_q(rng), dtype=float)
        v = model.velocity_scale * rng.standard_normal(oracle.n)
        if oracle.m:
            assert np.max(np.abs(oracle.F(q))) < 1e-12
            J = oracle.blocks(q, np.zeros(oracle.n), 0.0)["J"]
            v = v - J.T @ np.linalg.solve(J @ J.T, J @ v)
            assert np.max(np.abs(J @ v)) < 1e-12
        t = rng.uniform(0.0, 10.0) if model.time_dependent else 0.0
        out.append((q, v, t))
    return out


# ------------------------------------------------------------------------------------------
# heyoka / quivira side
# ------------------------------------------------------------------------------------------


def as_expr(e):
    return e if isinstance(e, hy.expression) else hy.expression(float(e))


def generalized_forces(ns: HeyokaNS, forces):
    if not forces:
        return None
    Q = []
    for qi in ns.q:
        terms = []
        for pos, f in forces:
            terms += [hy.diff(as_expr(pos[0]), qi) * f[0], hy.diff(as_expr(pos[1]), qi) * f[1]]
        Q.append(hy.sum(terms))
    return Q


def free_accelerations(L, ns: HeyokaNS, M):
    """qdd_free solving M qdd = dL/dq - (d2L/dqd dq) qd, derived here with hy.diff."""
    f = []
    for qi, qdi in zip(ns.q, ns.qd):
        p = hy.diff(L, qdi)
        f.append(hy.diff(L, qi) - hy.sum([hy.diff(p, qj) * qdj for qj, qdj in zip(ns.q, ns.qd)]))
    return gaussian_elimination(M, f).ravel()


class Quivira:
    """All our quantities for a model, compiled into one cfunc of (q, qd, t)."""

    def __init__(self, model: Model):
        ns = HeyokaNS(model.names)
        L, F, forces = model.build(ns)
        Q = generalized_forces(ns, forces)
        n, m = len(ns.q), len(F)
        self.n, self.m = n, m
        sys, lam = lagrange_eom(L, F, ns.q, ns.qd, Q, return_multipliers=True)
        assert len(sys) == 2 * n
        for i in range(n):
            assert sys[i][0] == ns.q[i] and sys[i][1] == ns.qd[i]
            assert sys[n + i][0] == ns.qd[i]
        assert isinstance(lam, np.ndarray) and lam.shape == (m,)
        M = build_mass_matrix(L, ns.qd)
        assert M.shape == (n, n)
        J = build_constraint_jacobian(F, ns.q)
        Jdqd = build_Jdqd(J, ns.q, ns.qd)
        qdd2, lam2, W = find_constrained_accelerations(
            free_accelerations(L, ns, M), J, M, Jdqd, Q, return_W=True
        )
        assert qdd2.shape == (n,) and lam2.shape == (m,) and W.shape == (m, m)
        parts = {
            "M": (M.ravel(), (n, n)),
            "qdd": ([rhs for _, rhs in sys[n:]], (n,)),
            "lam": (list(lam), (m,)),
            "qdd2": (list(qdd2), (n,)),
            "lam2": (list(lam2), (m,)),
            "W": (W.ravel(), (m, m)),
            "J": (np.asarray(J).ravel(), (m, n)),
            "Jdqd": (list(Jdqd), (m,)),
        }
        exprs, self.slices = [], {}
        for key, (es, shape) in parts.items():
            self.slices[key] = (slice(len(exprs), len(exprs) + len(es)), shape)
            exprs += [as_expr(e) for e in es]
        self.cf = hy.cfunc(exprs, vars=[*ns.q, *ns.qd], opt_level=0)

    def __call__(self, q, qd, t):
        out = self.cf(np.concatenate([q, qd]), time=t)
        return {k: out[s].reshape(shape) for k, (s, shape) in self.slices.items()}


def assert_close(got, ref, what):
    got, ref = np.asarray(got, dtype=float), np.asarray(ref, dtype=float)
    assert got.shape == ref.shape, what
    scale = max(1.0, float(np.max(np.abs(ref), initial=0.0)))
    err = float(np.max(np.abs(got - ref), initial=0.0))
    assert err <= TOL * scale, f"{what}: max error {err:.3e} (scale {scale:.3e})\n{got}\n{ref}"


# ------------------------------------------------------------------------------------------
# tests against SymPy
# ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=sorted(MODELS))
def model_pair(request):
    model = MODELS[request.param]
    return request.param, model, SympyOracle(model), Quivira(model)


def test_against_sympy(model_pair):
    name, model, oracle, ours = model_pair
    states = consistent_states(model, oracle, seed=zlib.crc32(name.encode()))
    for k, (q, qd, t) in enumerate(states):
        ref = oracle.blocks(q, qd, t)
        got = ours(q, qd, t)
        where = f"{name}, state {k} (q={q}, qd={qd}, t={t})"
        assert_close(got["M"], ref["M"], f"mass matrix, {where}")
        assert_close(got["qdd"], ref["qdd"], f"lagrange_eom qdd, {where}")
        assert_close(got["qdd2"], ref["qdd"], f"find_constrained_accelerations qdd, {where}")
        if oracle.m:
            J = ref["J"]
            assert_close(-ref["minus_JT"].T, J, f"SymPy's own -J^T block, {where}")
            assert_close(got["J"], J, f"constraint Jacobian, {where}")
            assert_close(got["Jdqd"], -ref["minus_Jdqd"], f"Jdot qd, {where}")
            # Multipliers solved from SymPy's mass_matrix_full system equal ours (see the
            # module docstring for why the sign is +1 there).
            assert_close(got["lam"], ref["lam"], f"lagrange_eom multipliers, {where}")
            assert_close(got["lam2"], ref["lam"], f"find_constrained_accelerations lam, {where}")
            W = J @ np.linalg.solve(ref["M"], J.T)
            assert_close(got["W"], W, f"Delassus matrix, {where}")
            # the acceleration satisfies the differentiated constraint J qdd + Jdot qd = 0
            assert_close(J @ got["qdd"] + got["Jdqd"], np.zeros(oracle.m), f"J qdd, {where}")


def test_sympy_multiplier_sign_conventions():
    """Make SymPy's two (opposite) multiplier conventions explicit, using our lambda."""
    model = MODELS["double_pendulum_maximal"]
    oracle, ours = SympyOracle(model), Quivira(model)
    for q, qd, t in consistent_states(model, oracle, seed=7)[:3]:
        got = ours(q, qd, t)
        ref = oracle.blocks(q, qd, t)
        # mass_matrix_full / rhs(): lambda_sympy = +lambda_ours
        assert_close(ref["lam"], got["lam"], "SymPy mass_matrix_full multipliers")
        # LM.eom: zero with lambda_sympy = -lambda_ours, not with +lambda_ours
        res_minus = oracle.eom_residual(q, qd, got["qdd"], -got["lam"], t)
        res_plus = oracle.eom_residual(q, qd, got["qdd"], got["lam"], t)
        assert_close(res_minus, np.zeros(oracle.n), "SymPy eom with -lambda_ours")
        assert np.max(np.abs(res_plus)) > 1e-3


# ------------------------------------------------------------------------------------------
# physics checks that do not rely on SymPy
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("v", [0.0, 1.7])
def test_pendulum_tension_at_bottom(v):
    """At the bottom with speed v the rod pulls up with m g + m v^2 / l.

    F = x^2 + y^2 - l^2, J = (2x, 2y) = (0, -2l) at (0, -l); the constraint force J^T lambda
    = (0, -2 l lambda) must equal (0, m g + m v^2/l), so lambda = -(m g + m v^2/l) / (2 l),
    and the bob's acceleration is the centripetal v^2/l upwards.
    """
    model = MODELS["pendulum_cartesian"]
    m, l = model.meta["m"], model.meta["l"]
    got = Quivira(model)(np.array([0.0, -l]), np.array([v, 0.0]), 0.0)
    assert_close(got["lam"], [-(m * G + m * v * v / l) / (2 * l)], "tension multiplier")
    assert_close(got["qdd"], [0.0, v * v / l], "centripetal acceleration")


def test_polar_angular_momentum_conserved():
    """Central potential: d/dt (m r^2 phi_dot) = 2 m r r_dot phi_dot + m r^2 phi_ddot = 0."""
    model = MODELS["polar_central_potential"]
    ours = Quivira(model)
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = np.array(model.sample_q(rng))
        qd = rng.standard_normal(2)
        qdd = ours(q, qd, 0.0)["qdd"]
        r, rd, phid = q[0], qd[0], qd[1]
        assert abs(2 * r * rd * phid + r * r * qdd[1]) <= TOL * max(1.0, abs(2 * r * rd * phid))


# ------------------------------------------------------------------------------------------
# integration of a 4-link chain of bars in maximal coordinates
# ------------------------------------------------------------------------------------------


def test_four_bar_chain_energy_and_constraints():
    nbar, length, mass, inertia, theta0 = 4, 1.0, 1.0, 1.0 / 12.0, -0.3
    names = [f"{c}{k}" for k in range(nbar) for c in ("x", "y", "th")]
    q, qd = make_vars(names), make_vars([nm + "_dot" for nm in names])

    def point(k, s):
        x, y, th = q[3 * k:3 * k + 3]
        return x + s * length * hy.cos(th), y + s * length * hy.sin(th)

    T = hy.sum(
        [
            0.5 * mass * (qd[3 * k] ** 2 + qd[3 * k + 1] ** 2) + 0.5 * inertia * qd[3 * k + 2] ** 2
            for k in range(nbar)
        ]
    )
    V = hy.sum([mass * G * q[3 * k + 1] for k in range(nbar)])
    F = list(point(0, -0.5))  # left end of bar 0 pinned at the origin
    for k in range(nbar - 1):
        (ax, ay), (bx, by) = point(k, 0.5), point(k + 1, -0.5)
        F += [ax - bx, ay - by]
    sys = lagrange_eom(T - V, F, q, qd)

    c, s = math.cos(theta0), math.sin(theta0)
    pose = []
    for k in range(nbar):
        pose += [(k + 0.5) * length * c, (k + 0.5) * length * s, theta0]
    state0 = np.array(pose + [0.0] * (3 * nbar))

    check = hy.cfunc([T + V, *F], vars=[*q, *qd])
    out0 = check(state0)
    E0 = out0[0]
    assert np.max(np.abs(out0[1:])) < 1e-15  # the initial pose is consistent
    assert E0 == pytest.approx(G * mass * s * length * sum(k + 0.5 for k in range(nbar)))

    ta = hy.taylor_adaptive(sys, state0)
    grid = np.linspace(0.0, 10.0, 101)
    res = ta.propagate_grid(grid)
    assert res[0] == hy.taylor_outcome.time_limit
    states = res[-1]
    assert states.shape == (grid.size, 6 * nbar)
    assert ta.time == pytest.approx(10.0)
    vals = np.array([check(st) for st in states])
    energy_err = np.abs(vals[:, 0] - E0) / abs(E0)
    assert np.max(energy_err) <= 1e-10, np.max(energy_err)
    assert np.max(np.abs(vals[:, 1:])) <= 1e-10, np.max(np.abs(vals[:, 1:]))
    final = check(ta.state)
    assert abs(final[0] - E0) <= 1e-10 * abs(E0)
    assert np.max(np.abs(final[1:])) <= 1e-10
    # the chain really moved (it swings down from 0.3 rad below horizontal)
    assert np.ptp(states[:, 2]) > 0.5
