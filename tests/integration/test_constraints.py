"""Tests of the constraints beyond pins and supports (:mod:`quivira.model.elements`).

Coordinate-vector constraints (Exudyn's ``ObjectConnectorCoordinateVector``), user
constraints given as heyoka expressions (scleronomic and driven/rheonomic), the active flag,
and the per-constraint outputs of :class:`~quivira.model.trajectory.Trajectory`.

No expected value here was printed by Quivira. The oracles are

* closed-form motions: two tied unit masses pushed by 2 N (the reference's mini example),
  a bead on a uniformly rotating rod (``r = r0 cosh Ωt``, Coriolis force ``2mΩṙ``);
* ``scipy.integrate.solve_ivp`` of the same physics in minimal coordinates, written here
  (a bar whose centre slides on a parabola; two pendulums kept parallel);
* energies, the power balance and Newton's law ``M q̈ = f + Jᵀλ`` recomputed with NumPy from
  ``q``, ``q̇``, ``q̈`` and ``λ``, with Jacobians written here by hand;
* Exudyn's own ``ObjectConnectorCoordinateVector`` (``quivira_oracles/exudyn_planar.py``).

Sign convention checked throughout: our ``Jᵀλ`` is the generalized constraint force, so a
coordinate-constraint row acts with ``+X1ᵀλ`` on bar 1 and ``−X0ᵀλ`` on bar 0; Exudyn's
multiplier is the opposite (``−X1ᵀλ_exu`` on bar 1), hence ``λ = −λ_exu``.
"""

from __future__ import annotations

import math
import re
import warnings

import heyoka as hy
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from quivira import examples
from quivira.model import bar_joint_model
from quivira.model.core import ConstraintWarning
from quivira_oracles.exudyn_planar import simulate_bars_exudyn

G = 9.81


# ---------------------------------------------------------------------------- helpers
def mass_diag(model: bar_joint_model) -> np.ndarray:
    """Diagonal of M: (m, m, m L²/12) per bar, from the model's bar records."""
    return np.array([v for b in model.bars for v in (b.mass, b.mass, b.mass * b.length**2 / 12)])


def own_energy(model: bar_joint_model, q: np.ndarray, qd: np.ndarray, g: float):
    """``(T, T + V)`` from the states: T = ½ q̇ᵀ M q̇, V = Σ m g y."""
    kin = 0.5 * (mass_diag(model) * qd**2).sum(axis=1)
    m = np.array([b.mass for b in model.bars])
    return kin, kin + (m * g * q[:, 1::3]).sum(axis=1)


def relative_energy_error(model, traj, g) -> float:
    kin, e = own_energy(model, traj.q, traj.qd, g)
    return float(np.max(np.abs(e - e[0])) / max(abs(e[0]), float(np.max(kin))))


def simulate_strict(model: bar_joint_model, *args, **kwargs):
    """Simulate and fail if the model had to project our (consistent) initial velocities."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConstraintWarning)
        return model.simulate(*args, **kwargs)


def pendulum(model, pin, length, mass, theta, omega=0.0) -> int:
    """A bar whose ``s = -0.5`` end is pinned at ``pin``, at angle ``theta``, spinning."""
    u = np.array([math.cos(theta), math.sin(theta)])
    c = np.asarray(pin, dtype=float) + 0.5 * length * u
    i = model.add_bar_at_attitude(c[0], c[1], theta, length, mass)
    v = omega * 0.5 * length * np.array([-u[1], u[0]])
    model.set_init_bar_velocities(i, v[0], v[1], omega)
    model.add_support(i, -0.5, False, False, pin[0], pin[1])
    return i


def tied_masses(**kw) -> bar_joint_model:
    """The reference's mini example with bars: two unit masses, g = 0, X0 = X1 = I,
    offset (1, 0, 0), bar 0 pushed by 2 N along x."""
    m = bar_joint_model()
    m.set_g(0.0)
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    m.add_bar_at_attitude(1.0, 0.0, 0.0, 1.0, 1.0)
    m.add_coordinate_constraint(0, 1, np.eye(3), np.eye(3), offset=[1.0, 0.0, 0.0],
                                name="tie", **kw)
    m.add_external_force(0, 0.0, 2.0, 0.0)
    return m


# ---------------------------------------------------------------------------- 1. API, checks
def test_mini_example_displacement():
    """Reference mini example: a = F/(2m) = 1, so both bars move by 0.5 at t = 1;
    λ = +1 pushes bar 1 (Exudyn reports −1)."""
    m = tied_masses()
    assert m.constraint_labels == ["tie.row0", "tie.row1", "tie.row2"]
    tr = simulate_strict(m, 1.0, 11)
    t = tr.t
    np.testing.assert_allclose(tr.q[:, 0], 0.5 * t**2, rtol=0, atol=1e-13)
    np.testing.assert_allclose(tr.q[:, 3], 1.0 + 0.5 * t**2, rtol=0, atol=1e-13)
    np.testing.assert_allclose(tr.q[:, [1, 2, 4, 5]], 0.0, rtol=0, atol=1e-13)
    assert abs(tr.q[-1, 3] - 1.0 - 0.5) < 1e-13           # displacement of bar 1 at t = 1
    disp = tr.constraint_output("tie", "Displacement")
    np.testing.assert_allclose(disp, np.tile([1.0, 0.0, 0.0], (len(t), 1)), rtol=0, atol=1e-13)
    np.testing.assert_allclose(tr.constraint_output("tie", "Force"),
                               np.tile([1.0, 0.0, 0.0], (len(t), 1)), rtol=0, atol=1e-12)
    np.testing.assert_allclose(tr.multiplier("tie.row0"), 1.0, rtol=0, atol=1e-12)


def test_validation_messages():
    m = bar_joint_model()
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    m.add_bar_at_attitude(1.0, 0.0, 0.0, 1.0, 1.0)
    cases = [
        (dict(X0=[[1, 0]]), r"X0: expected 3 columns \(x, y, θ of bar 0\), got shape \(1, 2\)"),
        (dict(X1=np.ones((2, 4))), r"X1: expected 3 columns .*bar 1.*\(2, 4\)"),
        (dict(Y1=np.ones((1, 2))), r"Y1: expected 3 columns .*\(1, 2\)"),
        (dict(X0=np.eye(3), X1=np.eye(3)[:2]),
         r"X1: has 2 rows but another scaling matrix has 3"),
        (dict(X0=np.eye(3)[:1], Y1=np.eye(3)), r"X0: has 1 rows but another .* has 3"),
        (dict(X0=np.eye(3), X1=np.eye(3), offset=[1, 0]),
         r"offset: expected 3 values \(one per equation\), got 2"),
        (dict(X1=[[1, 0, np.nan]]), r"X1: entries must be finite"),
        (dict(X1=[[1, 0, 0]], offset=[np.inf]), r"offset: entries must be finite"),
        (dict(X0=np.ones((1, 1, 3))), r"X0: expected a 2-D matrix, got shape \(1, 1, 3\)"),
        (dict(), r"all empty"),
        (dict(X0=np.zeros((0, 3)), X1=[]), r"all empty"),
    ]
    for kw, msg in cases:
        with pytest.raises(ValueError, match=msg):
            m.add_coordinate_constraint(0, 1, **kw)
    with pytest.raises(TypeError, match=r"X0 must be a numeric matrix"):  # a wrong type
        m.add_coordinate_constraint(0, 1, X0="ab")
    with pytest.raises(ValueError, match=r"X0: marker 0 is ground \(bar0 = None\).*\(1, 3\)"):
        m.add_coordinate_constraint(None, 1, X0=[[1, 0, 0]], X1=[[1, 0, 0]])
    with pytest.raises(ValueError, match=r"Y1: marker 1 is ground"):
        m.add_coordinate_constraint(0, None, X0=[[1, 0, 0]], Y1=[[1, 0, 0]])
    with pytest.raises(ValueError, match="both ground"):
        m.add_coordinate_constraint(None, None, X0=[[1, 0, 0]])
    with pytest.raises(ValueError, match=r"same bar \(1\)"):
        m.add_coordinate_constraint(1, 1, X0=[[1, 0, 0]], X1=[[1, 0, 0]])
    with pytest.raises(ValueError, match=r"bar1: bar index 5 out of range"):
        m.add_coordinate_constraint(0, 5, X0=[[1, 0, 0]], X1=[[1, 0, 0]])
    with pytest.raises(TypeError, match="velocity_level must be True or False"):
        m.add_coordinate_constraint(0, 1, X1=[[1, 0, 0]], velocity_level="yes")
    assert m.constraint_names == [] and m.n_constraints == 0  # failed edits change nothing

    # empty matrices are allowed (and left out); defaults: zero offset, generated name
    nm = m.add_coordinate_constraint(0, 1, X0=np.zeros((0, 3)), X1=[[0, 0, 1]], Y0=[])
    assert nm == "coordinate0"
    assert m.constraint_labels == ["coordinate0.row0"]
    with pytest.raises(ValueError, match="already taken"):
        m.add_coordinate_constraint(0, 1, X1=[[1, 0, 0]], name=nm)
    # number of equations = rows: 2 rows of Y0 alone
    m.add_coordinate_constraint(0, 1, Y0=[[1, 0, 0], [0, 1, 0]], offset=[0, 0], name="sq")
    assert m.constraint_labels[1:] == ["sq.row0", "sq.row1"]

    with pytest.raises(ValueError, match="no constraint named 'nope'"):
        m.set_constraint_active("nope", False)
    u = m.add_constraint(m.coordinates(0)[0] - 0.0)
    assert u == "constraint0"
    with pytest.raises(ValueError, match="not a coordinate constraint"):
        m.set_constraint_active(u, False)


def test_user_constraint_validation():
    m = bar_joint_model()
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    x, y, th = m.coordinates(0)
    z = hy.expression("z")
    with pytest.raises(ValueError, match=r"exprs\[1\]: unknown variables \['z'\]"):
        m.add_constraint([x, y + z])
    with pytest.raises(ValueError, match=r"exprs\[0\]: runtime parameters"):
        m.add_constraint(x - hy.par[0])
    with pytest.raises(TypeError, match=r"exprs\[0\]: expected a heyoka expression, got float"):
        m.add_constraint([1.0])
    with pytest.raises(ValueError, match="at least one"):
        m.add_constraint([])
    with pytest.raises(ValueError, match=r"unknown variables \['vx0'\]"):
        m.add_constraint(m.velocities(0)[0])  # velocities need velocity_level=True
    assert m.constraint_names == []


def test_quadratic_rows_and_jacobian_match_numpy():
    """Residual c and velocity residual J q̇ of a constraint with X and Y on both bars (and a
    ground-marker one) at random states, against the formula written here."""
    m = bar_joint_model()
    for i in range(2):
        m.add_bar_at_attitude(0.1 * i, 0.2, 0.3, 1.0 + i, 2.0)
    rng = np.random.default_rng(1)
    X0, X1, Y0, Y1 = (rng.normal(size=(2, 3)) for _ in range(4))
    off = rng.normal(size=2)
    m.add_coordinate_constraint(0, 1, X0, X1, Y0, Y1, off, name="full")
    Xg, Yg = rng.normal(size=(1, 3)), rng.normal(size=(1, 3))
    m.add_coordinate_constraint(1, None, X0=Xg, Y0=Yg, offset=[0.4], name="ground")
    for _ in range(3):
        s = rng.normal(size=12)
        q0, q1, v0, v1 = s[0:3], s[3:6], s[6:9], s[9:12]
        c = X1 @ q1 + Y1 @ q1**2 - X0 @ q0 - Y0 @ q0**2 - off
        cd = X1 @ v1 + 2 * Y1 @ (q1 * v1) - X0 @ v0 - 2 * Y0 @ (q0 * v0)
        cg = -(Xg @ q1) - Yg @ q1**2 - 0.4
        cgd = -(Xg @ v1) - 2 * Yg @ (q1 * v1)
        chk = m.check_constraint_fulfillment(s)
        np.testing.assert_allclose(chk["position"], np.r_[c, cg], rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(chk["velocity"], np.r_[cd, cgd], rtol=1e-13, atol=1e-13)
        J = m.matrices(s)["J"]
        J_own = np.zeros((3, 6))
        J_own[:2, :3] = -(X0 + 2 * Y0 * q0)
        J_own[:2, 3:] = X1 + 2 * Y1 * q1
        J_own[2, 3:] = -(Xg + 2 * Yg * q1)
        np.testing.assert_allclose(J, J_own, rtol=1e-13, atol=1e-13)


# ---------------------------------------------------------------------------- active flag
def test_toggle_active_no_recompile():
    """Off: λ = 0 and the bars move freely (bar 0 at 2 m/s², bar 1 at rest); on again: the
    tied motion. The compiled system is the one object throughout."""
    m = tied_masses()
    tr_on = simulate_strict(m, 1.0, 11)
    lam_on = tr_on.lambda_mult.copy()
    cs = m.compiled()
    assert m.n_compiled == 1

    m.set_constraint_active("tie", False)
    tr_off = simulate_strict(m, 1.0, 11)
    assert m.n_compiled == 1 and m.compiled() is cs
    assert np.all(tr_off.lambda_mult == 0.0)
    assert np.all(tr_off.constraint_output("tie", "Force") == 0.0)
    np.testing.assert_allclose(tr_off.q[:, 0], tr_off.t**2, rtol=0, atol=1e-13)
    np.testing.assert_allclose(tr_off.q[:, 3], 1.0, rtol=0, atol=1e-13)
    assert m.constraint_labels == ["tie.row0", "tie.row1", "tie.row2"]

    m.set_constraint_active("tie", True)
    tr_again = simulate_strict(m, 1.0, 11)
    assert m.n_compiled == 1 and m.compiled() is cs
    np.testing.assert_array_equal(tr_again.q, tr_on.q)
    np.testing.assert_array_equal(tr_again.lambda_mult, lam_on)

    # the offset is a runtime parameter too: tie the bars 2 apart, start them 2 apart
    m.set_constraint_offset("tie", [2.0, 0.0, 0.0])
    m.set_init_bar_attitude(1, 2.0, 0.0, 0.0)
    tr2 = simulate_strict(m, 1.0, 11)
    assert m.n_compiled == 1 and m.compiled() is cs
    np.testing.assert_allclose(tr2.q[:, 3] - tr2.q[:, 0], 2.0, rtol=0, atol=1e-13)


def test_inactive_from_start_and_by_index():
    """``active=False`` at creation: an unmet constraint is ignored (λ = 0); switching it on
    by index makes the violated initial pose an error."""
    m = bar_joint_model()
    m.set_g(G)
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    m.add_coordinate_constraint(None, 0, X1=[[0, 1, 0]], offset=[5.0], active=False,
                                name="floor")
    tr = simulate_strict(m, 1.0, 11)
    np.testing.assert_allclose(tr.q[:, 1], -0.5 * G * tr.t**2, rtol=0, atol=1e-12)  # free fall
    assert np.all(tr.lambda_mult == 0.0)
    cs = m.compiled()
    m.set_constraint_active(0, True)
    with pytest.raises(ValueError, match=r"floor\.row0 off by -5"):
        m.simulate(1.0, 11)
    m.set_init_bar_attitude(0, 0.0, 5.0, 0.0)
    tr = simulate_strict(m, 1.0, 11)
    assert m.compiled() is cs and m.n_compiled == 1
    np.testing.assert_allclose(tr.q[:, 1], 5.0, rtol=0, atol=1e-13)
    np.testing.assert_allclose(tr.constraint_output("floor", "Force")[:, 0], G, rtol=1e-13)


def test_velocity_level_linear_and_toggle():
    """vx1 − vx0 = 0.5 (velocity offset), masses 1 and 3, bar 0 pushed by 2 N: both
    accelerate at 0.5, bar 1 keeps 0.5 m/s more, λ = m1 a = 1.5 on bar 1."""
    m = bar_joint_model()
    m.set_g(0.0)
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    m.add_bar_at_attitude(1.0, 0.3, 0.2, 2.0, 3.0)
    m.set_init_bar_velocities(1, 0.5, 0.0, 0.0)
    nm = m.add_coordinate_constraint(0, 1, [[1, 0, 0]], [[1, 0, 0]], offset=[0.5],
                                     velocity_level=True)
    assert m.constraint_labels == [f"{nm}.row0"]
    m.add_external_force(0, 0.0, 2.0, 0.0)
    tr = simulate_strict(m, 2.0, 21)
    t = tr.t
    np.testing.assert_allclose(tr.q[:, 0], 0.25 * t**2, rtol=0, atol=1e-12)
    np.testing.assert_allclose(tr.q[:, 3], 1.0 + 0.5 * t + 0.25 * t**2, rtol=0, atol=1e-12)
    np.testing.assert_allclose(tr.q[:, 4:6], np.tile([0.3, 0.2], (len(t), 1)), rtol=0, atol=1e-13)
    np.testing.assert_allclose(tr.constraint_output(nm, "Force")[:, 0], 1.5, rtol=1e-12)
    np.testing.assert_allclose(tr.constraint_output(nm, "Velocity")[:, 0], 0.5, rtol=0, atol=1e-12)
    assert np.max(np.abs(tr.constraint_output(nm, "ConstraintEquation"))) < 1e-12
    cs = m.compiled()
    m.set_constraint_active(nm, False)
    tr = simulate_strict(m, 2.0, 21)
    assert m.compiled() is cs and m.n_compiled == 1
    assert np.all(tr.lambda_mult == 0.0)
    np.testing.assert_allclose(tr.q[:, 0], t**2, rtol=0, atol=1e-12)
    np.testing.assert_allclose(tr.q[:, 3], 1.0 + 0.5 * t, rtol=0, atol=1e-12)


def test_velocity_level_quadratic_term():
    """The reference's velocity-level equation includes ``Y q̇²``: vx² = 1 with vx = 1 at
    the start and a 2 N push along x keeps vx = 1, the constraint force
    2 vx λ = −2 N gives λ = −1."""
    m = bar_joint_model()
    m.set_g(0.0)
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    m.set_init_bar_velocities(0, 1.0, 0.0, 0.0)
    m.add_coordinate_constraint(None, 0, Y1=[[1, 0, 0]], offset=[1.0], velocity_level=True,
                                name="speed")
    m.add_external_force(0, 0.0, 2.0, 0.0)
    tr = simulate_strict(m, 1.0, 11)
    np.testing.assert_allclose(tr.q[:, 0], tr.t, rtol=0, atol=1e-12)
    np.testing.assert_allclose(tr.constraint_output("speed", "Force")[:, 0], -1.0, rtol=1e-12)


# ---------------------------------------------------------------------------- 2. user rows
def test_user_constraint_parabola_vs_solve_ivp():
    """Centre of a bar on y = a x² under gravity, written as ``y - a x**2``; minimal
    coordinate x: (1 + 4a²x²) ẍ + 4a²x ẋ² + 2 g a x = 0, and λ = m(ÿ + g); the bar spins
    freely."""
    a, mass, L, x_init, xd_init, om = 0.5, 2.0, 1.0, 1.2, -0.5, 0.7
    m = bar_joint_model()
    m.set_g(G)
    m.add_bar_at_attitude(x_init, a * x_init**2, 0.1, L, mass)
    m.set_init_bar_velocities(0, xd_init, 2 * a * x_init * xd_init, om)
    x, y, th = m.coordinates(0)
    nm = m.add_constraint(y - a * x**2, name="parabola")
    assert m.constraint_labels == ["parabola.row0"]
    # Jacobian derived automatically: (−2 a x, 1, 0)
    s = np.array([0.3, 0.7, 2.0, 1.0, -1.0, 0.5])
    np.testing.assert_allclose(m.matrices(s)["J"], [[-2 * a * 0.3, 1.0, 0.0]], rtol=1e-15)
    tr = simulate_strict(m, 3.0, 61)

    def rhs(_t, u):
        xx, v = u
        return [v, -(4 * a * a * xx * v * v + 2 * G * a * xx) / (1 + 4 * a * a * xx * xx)]

    ref = solve_ivp(rhs, (0.0, 3.0), [x_init, xd_init], t_eval=tr.t, rtol=1e-12, atol=1e-12,
                    method="DOP853")
    xr, vr = ref.y
    ar = np.array([rhs(0.0, u)[1] for u in ref.y.T])
    np.testing.assert_allclose(tr.q[:, 0], xr, rtol=0, atol=1e-10)
    np.testing.assert_allclose(tr.q[:, 1], a * xr**2, rtol=0, atol=1e-10)
    np.testing.assert_allclose(tr.q[:, 2], 0.1 + om * tr.t, rtol=0, atol=1e-12)
    lam = mass * (2 * a * (vr**2 + xr * ar) + G)
    np.testing.assert_allclose(tr.constraint_output(nm, "Force")[:, 0], lam,
                               rtol=0, atol=1e-9 * np.max(np.abs(lam)))
    assert relative_energy_error(m, tr, G) < 1e-12


def test_user_constraint_parallel_pendulums_vs_solve_ivp():
    """Two pendulums from separate pins kept parallel by the user row th1 − th0: one compound
    pendulum, (I0 + I1) θ̈ = −(m0 L0 + m1 L1)/2 · g cos θ with I = m L²/3 about the pin."""
    m = bar_joint_model()
    m.set_g(G)
    (L0, m0), (L1, m1) = (1.0, 1.0), (1.4, 0.6)
    pendulum(m, (0.0, 0.0), L0, m0, -0.4)
    pendulum(m, (1.5, 0.2), L1, m1, -0.4)
    th0, th1 = m.coordinates(0)[2], m.coordinates(1)[2]
    m.add_constraint([th1 - th0], name="parallel")
    tr = simulate_strict(m, 3.0, 61)
    inertia = (m0 * L0**2 + m1 * L1**2) / 3
    k = 0.5 * (m0 * L0 + m1 * L1) * G
    ref = solve_ivp(lambda _t, u: [u[1], -k / inertia * math.cos(u[0])], (0.0, 3.0),
                    [-0.4, 0.0], t_eval=tr.t, rtol=1e-12, atol=1e-12, method="DOP853")
    np.testing.assert_allclose(tr.q[:, 2], ref.y[0], rtol=0, atol=1e-10)
    np.testing.assert_allclose(tr.q[:, 5], ref.y[0], rtol=0, atol=1e-10)


def test_user_velocity_constraint_with_time():
    """Velocity-level user row vx − cos t = 0 (g = 0): x = sin t, λ = m ẍ = −m sin t."""
    m = bar_joint_model()
    m.set_g(0.0)
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 2.0)
    m.set_init_bar_velocities(0, 1.0, 0.0, 0.0)
    vx = m.velocities(0)[0]
    m.add_constraint(vx - hy.cos(hy.time), name="v", velocity_level=True)
    tr = simulate_strict(m, 2.0, 21)
    np.testing.assert_allclose(tr.q[:, 0], np.sin(tr.t), rtol=0, atol=1e-13)
    np.testing.assert_allclose(tr.constraint_output("v", "Force")[:, 0], -2.0 * np.sin(tr.t),
                               rtol=0, atol=1e-12)
    assert np.max(np.abs(tr.constraint_output("v", "ConstraintEquation"))) < 1e-13


# ---------------------------------------------------------------------------- 3. driven rows
def test_rotating_rod_rheonomic_terms():
    """Bar centre on a line through the origin turning at Ω (−sin Ωt x + cos Ωt y = 0),
    g = 0: r = r0 cosh Ωt and the normal (Coriolis) force 2 m Ω ṙ = λ. Exercises ∂F/∂t,
    ∂²F/∂t² and ∂J/∂t; the bar's own spin is free."""
    Om, r0, mass = 2.0, 0.7, 2.0
    m = bar_joint_model()
    m.set_g(0.0)
    m.add_bar_at_attitude(r0, 0.0, 0.3, 1.0, mass)
    m.set_init_bar_velocities(0, 0.0, Om * r0, 1.5)  # consistent: ẏ = Ω x at t = 0
    x, y, _ = m.coordinates(0)
    t = hy.time
    m.add_constraint(-hy.sin(Om * t) * x + hy.cos(Om * t) * y, name="rod")
    tr = simulate_strict(m, 1.0, 21)
    r = r0 * np.cosh(Om * tr.t)
    np.testing.assert_allclose(tr.q[:, 0], r * np.cos(Om * tr.t), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(tr.q[:, 1], r * np.sin(Om * tr.t), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(tr.q[:, 2], 0.3 + 1.5 * tr.t, rtol=0, atol=1e-12)
    lam = 2 * mass * Om * (Om * r0 * np.sinh(Om * tr.t))
    np.testing.assert_allclose(tr.constraint_output("rod", "Force")[:, 0], lam, rtol=1e-11)
    assert tr.max_velocity_residual() < 1e-12


def test_driven_four_bar_motor_torque():
    """Crank driven by θ0 − θ_init − ω t = 0: the crank follows θ_init + ω t, and the
    multiplier (the motor torque: the row's Jacobian is dθ0) satisfies torque·ω = dE/dt,
    dE/dt = Σ M_ii q̇_i q̈_i + Σ m g ẏ from ``traj.qdd``."""
    w = 3.0
    m = examples.four_bar()
    th_init = m.get_initial_state()[2]
    assert th_init == pytest.approx(math.pi / 3, abs=1e-15)
    th0 = m.coordinates(0)[2]
    nm = m.add_constraint(th0 - th_init - w * hy.time, name="motor")
    # the bars start at rest: the model projects the velocities onto the driven motion
    with pytest.warns(ConstraintWarning, match="motor.row0"):
        tr = m.simulate(2.5, 251)
    assert np.max(np.abs(tr.q[:, 2] - th_init - w * tr.t)) < 1e-10
    assert np.max(np.abs(tr.qd[:, 2] - w)) < 1e-10
    assert tr.max_position_residual() < 1e-10 and tr.max_velocity_residual() < 1e-10
    torque = tr.constraint_output(nm, "Force")[:, 0]
    np.testing.assert_array_equal(torque, tr.multiplier("motor.row0"))
    masses = np.array([b.mass for b in m.bars])
    dE = (mass_diag(m) * tr.qd * tr.qdd).sum(axis=1) + (masses * G * tr.qd[:, 1::3]).sum(axis=1)
    power = torque * w
    scale = np.max(np.abs(power))
    assert scale > 10.0  # a real load: gravity on the rocker and coupler
    assert np.max(np.abs(power - dE)) / scale < 1e-8
    # and the energy change is the motor's work (Simpson on the 251-point grid)
    _, e = own_energy(m, tr.q, tr.qd, G)
    h = tr.t[1] - tr.t[0]
    work = np.sum(h / 3 * (power[:-2:2] + 4 * power[1:-1:2] + power[2::2]))
    assert abs(e[-1] - e[0] - work) < 1e-7 * scale
    # the projected run evaluates the driven row at the output times (same compiled code)
    cs = m.compiled()
    with pytest.warns(ConstraintWarning):
        tr_p = m.simulate(2.5, 26, projection=True)
    assert m.compiled() is cs
    assert np.max(np.abs(tr_p.q[:, 2] - th_init - w * tr_p.t)) < 1e-10
    assert tr_p.max_velocity_residual() < 1e-10


# ---------------------------------------------------------------------------- 4. outputs
def test_constraint_outputs_against_numpy():
    """Displacement, Velocity, ConstraintEquation and Force of coordinate (position and
    velocity level, with a ground marker) and user constraints, from q, q̇, λ; and
    Newton's law M q̈ = f + Jᵀλ with J written here (the sign convention)."""
    m = bar_joint_model()
    m.set_g(G)
    L0 = 1.2
    pendulum(m, (0.0, 0.0), L0, 1.5, -0.6)                 # bar 0, support 0
    m.add_bar_at_attitude(1.5, -0.2, 0.4, 0.8, 0.7)        # bar 1
    vy1 = -2 * 0.2 * 0.4 * 0.9                             # quad row 1: vy1 + 0.4 θ1 ω1 = 0
    m.set_init_bar_velocities(1, -2 * 0.5 * -0.2 * vy1, vy1, 0.9)  # row 0: vx1 + y1 vy1 = 0
    m.add_bar_at_attitude(0.9, 1.0, 1.1, 0.6, 0.4)         # bar 2
    m.add_external_force(2, 0.0, 0.0, 0.0, torque=0.3)     # loads the "lock" row
    q_init = np.array(m.get_initial_state()[:9])
    X0 = np.array([[1.0, 0, 0], [0, 1, 0]])
    X1 = X0.copy()
    Y0 = np.array([[0.0, 0, 0], [0, 0, 0.3]])
    Y1 = np.array([[0.0, 0.5, 0], [0, 0, 0.2]])
    qa, qb = q_init[0:3], q_init[3:6]
    off = X1 @ qb + Y1 @ qb**2 - X0 @ qa - Y0 @ qa**2
    m.add_coordinate_constraint(0, 1, X0, X1, Y0, Y1, off, name="quad")
    m.add_coordinate_constraint(None, 1, X1=[[0, 0, 1]], offset=[0.9], velocity_level=True,
                                name="spin")
    m.add_coordinate_constraint(2, None, X0=[[0, 0, 1]], offset=[-1.1], name="lock")
    x0, y0, _ = m.coordinates(0)
    x2, y2, _ = m.coordinates(2)
    R2 = float((q_init[6] - q_init[0]) ** 2 + (q_init[7] - q_init[1]) ** 2)
    m.add_constraint((x2 - x0) ** 2 + (y2 - y0) ** 2 - R2, name="circle")
    assert m.constraint_names == ["quad", "spin", "lock", "circle"]
    labels = m.constraint_labels
    tr = simulate_strict(m, 0.6, 31)
    q, qd, lam = tr.q, tr.qd, tr.lambda_mult
    n = len(tr.t)
    cols = {nm: [labels.index(lb) for lb in labels if lb.startswith(nm + ".")]
            for nm in m.constraint_names}
    assert [len(cols[k]) for k in ("quad", "spin", "lock", "circle")] == [2, 1, 1, 1]

    qa, qb, qc = q[:, 0:3], q[:, 3:6], q[:, 6:9]
    va, vb = qd[:, 0:3], qd[:, 3:6]
    out = tr.constraint_output
    # Displacement / Velocity: q1 − q0, ground = 0, no scaling matrices
    np.testing.assert_array_equal(out("quad", "Displacement"), qb - qa)
    np.testing.assert_array_equal(out("quad", "Velocity"), vb - va)
    np.testing.assert_array_equal(out("spin", "Displacement"), qb)
    np.testing.assert_array_equal(out("lock", "Displacement"), -qc)
    np.testing.assert_array_equal(out("lock", "Velocity"), -qd[:, 6:9])
    # ConstraintEquation
    c_quad = qb @ X1.T + (qb**2) @ Y1.T - qa @ X0.T - (qa**2) @ Y0.T - off
    np.testing.assert_allclose(out("quad", "ConstraintEquation"), c_quad, rtol=0, atol=1e-14)
    assert np.max(np.abs(c_quad)) < 1e-10
    np.testing.assert_allclose(out("spin", "ConstraintEquation")[:, 0], qd[:, 5] - 0.9,
                               rtol=0, atol=1e-14)
    np.testing.assert_allclose(out("lock", "ConstraintEquation")[:, 0], -q[:, 8] + 1.1,
                               rtol=0, atol=1e-14)
    np.testing.assert_allclose(out("lock", "Force")[:, 0], 0.3, rtol=1e-12)  # −λ + τ = 0
    c_circ = (q[:, 6] - q[:, 0]) ** 2 + (q[:, 7] - q[:, 1]) ** 2 - R2
    np.testing.assert_allclose(out("circle", "ConstraintEquation")[:, 0], c_circ, rtol=0,
                               atol=1e-14)
    for nm, c in [("quad", c_quad), ("spin", qd[:, 5:6] - 0.9), ("lock", -q[:, 8:9] + 1.1),
                  ("circle", c_circ[:, None])]:
        assert np.max(np.abs(c)) < 1e-10, nm
    # Force = the rows' multipliers; by name and by index (coordinate, then user)
    for k, nm in enumerate(m.constraint_names):
        f = out(nm, "Force")
        assert f.shape == (n, len(cols[nm]))
        np.testing.assert_array_equal(f, lam[:, cols[nm]])
        np.testing.assert_array_equal(out(k, "ConstraintEquation"), out(nm, "ConstraintEquation"))
        assert np.any(np.abs(f) > 1e-3), nm  # every constraint is loaded
    # Newton: M q̈ = f_gravity + Jᵀλ, J of every row written here
    Md = mass_diag(m)
    fg = np.zeros(9)
    fg[1::3] = -G * np.array([b.mass for b in m.bars])
    fg[8] = 0.3
    for k in range(n):
        J = np.zeros((len(labels), 9))
        th = q[k, 2]
        J[labels.index("support0.x"), 0:3] = [1, 0, 0.5 * L0 * math.sin(th)]
        J[labels.index("support0.y"), 0:3] = [0, 1, -0.5 * L0 * math.cos(th)]
        rq = cols["quad"]
        J[rq, 0:3] = -(X0 + 2 * Y0 * q[k, 0:3])
        J[rq, 3:6] = X1 + 2 * Y1 * q[k, 3:6]
        J[cols["spin"][0], 5] = 1.0
        J[cols["lock"][0], 8] = -1.0
        dx, dy = q[k, 6] - q[k, 0], q[k, 7] - q[k, 1]
        J[cols["circle"][0], [0, 1, 6, 7]] = [-2 * dx, -2 * dy, 2 * dx, 2 * dy]
        res = Md * tr.qdd[k] - fg - J.T @ lam[k]
        assert np.max(np.abs(res)) < 1e-9 * (1 + np.max(np.abs(lam[k]))), k

    with pytest.raises(ValueError, match="coordinate constraints only"):
        out("circle", "Displacement")
    with pytest.raises(ValueError, match="output must be"):
        out("quad", "Position")
    with pytest.raises(KeyError, match="no constraint named 'x'"):
        out("x", "Force")
    with pytest.raises(KeyError, match="index below 4"):
        out(4, "Force")


# ---------------------------------------------------------------------------- 5. validation
def test_gear_pair_energy_and_ratio_10s():
    """θ1 = −2 θ0 + c as X0 = (0, 0, −2), X1 = (0, 0, 1): a wheel pinned at its centre
    geared to a pendulum (pinned at its end, gravity on), the wheel spun at 2 rad/s."""
    r, w0 = 2.0, 2.0
    m = bar_joint_model()
    m.set_g(G)
    m.add_bar_at_attitude(0.0, 0.0, 0.3, 1.0, 1.0)
    m.set_init_bar_velocities(0, 0.0, 0.0, w0)
    m.add_support(0, 0.0, False, False)
    pendulum(m, (3.0, 0.0), 1.5, 0.8, -1.0, omega=-r * w0)
    off = -1.0 + r * 0.3
    m.add_coordinate_constraint(0, 1, [[0, 0, -r]], [[0, 0, 1]], offset=[off], name="gear")
    tr = simulate_strict(m, 10.0, 501)
    rel = np.max(np.abs(tr.q[:, 5] + r * tr.q[:, 2] - off))
    assert rel < 1e-10
    assert np.max(np.abs(tr.qd[:, 5] + r * tr.qd[:, 2])) < 1e-10
    assert relative_energy_error(m, tr, G) < 1e-10
    assert np.ptp(tr.qd[:, 2]) > 0.5  # gravity really drives the pair


def test_parallel_guide_energy_and_relation_10s():
    """θ1 − θ0 = 0 as a coordinate constraint: two pendulums from separate pins."""
    m = bar_joint_model()
    m.set_g(G)
    pendulum(m, (0.0, 0.0), 1.0, 1.0, -0.3, omega=0.5)
    pendulum(m, (2.0, 0.5), 1.6, 0.5, -0.3, omega=0.5)
    m.add_coordinate_constraint(0, 1, [[0, 0, 1]], [[0, 0, 1]], name="guide")
    tr = simulate_strict(m, 10.0, 501)
    assert np.max(np.abs(tr.q[:, 5] - tr.q[:, 2])) < 1e-10
    assert np.max(np.abs(tr.constraint_output("guide", "ConstraintEquation"))) < 1e-10
    assert relative_energy_error(m, tr, G) < 1e-10
    assert np.ptp(tr.q[:, 2]) > 1.0


def test_coordinate_constraint_vs_exudyn():
    """Bars 0 and 1 pendulums pinned at their ends to separate points, geared by
    θ1 + 1.5 θ0 = offset; bar 2 free, its centre held by a ground-marker constraint
    (X1 = first two rows of I) while it spins. Exudyn generalized-alpha at h = 1e-4
    (second order; measured: q 5.3e-8, q̇ 2.3e-7, multipliers 5.9e-7 and pin forces 4.7e-7
    relative to their maxima; q converges like h²: 1.3e-8 at h = 5e-5). Bounds used: 1e-6 on
    q, 1e-5 on q̇, 1e-5 relative on the multipliers and pin forces."""
    bars = []
    for pin, L, mass, th in (((0.0, 0.0), 1.2, 1.5, -0.4), ((2.0, 0.0), 0.8, 0.7, -2.0)):
        u = np.array([math.cos(th), math.sin(th)])
        c = np.array(pin) + 0.5 * L * u
        bars.append({"x": c[0], "y": c[1], "theta": th, "length": L, "mass": mass})
    bars.append({"x": 4.0, "y": 1.0, "theta": 0.2, "length": 1.0, "mass": 0.5, "omega": 2.0})
    off = -2.0 + 1.5 * -0.4
    X0g, X1g = np.array([[0.0, 0, -1.5]]), np.array([[0.0, 0, 1]])
    Xc = np.eye(3)[:2]
    ex = simulate_bars_exudyn(
        bars, [], [(0, -0.5), (1, -0.5)], g=G, t_end=1.0, h=1e-4, n_out=101,
        coordinate_constraints=[
            {"bar0": 0, "bar1": 1, "X0": X0g, "X1": X1g, "offset": [off]},
            {"bar0": None, "bar1": 2, "X1": Xc, "offset": [4.0, 1.0]},
        ])
    m = bar_joint_model()
    m.set_g(G)
    for b in bars:
        i = m.add_bar_at_attitude(b["x"], b["y"], b["theta"], b["length"], b["mass"])
        m.set_init_bar_velocities(i, 0.0, 0.0, b.get("omega", 0.0))
    m.add_support(0, -0.5, False, False)
    m.add_support(1, -0.5, False, False)
    m.add_coordinate_constraint(0, 1, X0g, X1g, offset=[off], name="gear")
    m.add_coordinate_constraint(None, 2, X1=Xc, offset=[4.0, 1.0], name="hold")
    tr = simulate_strict(m, 1.0, 101)
    dq = np.max(np.abs(tr.q - ex["q"]))
    assert dq < 1e-6, dq
    assert np.max(np.abs(tr.qd - ex["qd"])) < 1e-5
    assert np.ptp(tr.q[:, 2]) > 0.3  # a real swing
    for k, nm in enumerate(("gear", "hold")):
        ours = tr.constraint_output(nm, "Force")
        theirs = -ex["cc_forces"][k]
        scale = np.max(np.abs(ours))
        err = np.max(np.abs(ours - theirs)) / scale
        assert err < 1e-5, (nm, err)
    np.testing.assert_allclose(tr.constraint_output("hold", "Force"),
                               np.tile([0.0, 0.5 * G], (101, 1)), rtol=0, atol=1e-12)
    for p in range(2):
        ours, theirs = tr.support_force(p), ex["pin_forces"][:, p]
        assert np.max(np.abs(ours - theirs)) / np.max(np.abs(ours)) < 1e-5


def test_labels_readable():
    m = bar_joint_model()
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    m.add_bar_at_attitude(1.0, 0.0, 0.0, 1.0, 1.0)
    m.add_support(0, 0.0, False, False)
    m.add_coordinate_constraint(0, 1, np.eye(3)[:2], np.eye(3)[:2], offset=[1, 0], name="tie")
    m.add_constraint(m.coordinates(1)[2] - 0.0, name="straight")
    pat = re.compile(r"^(support\d+\.[xy]|tie\.row[01]|straight\.row0)$")
    assert all(pat.match(lb) for lb in m.constraint_labels), m.constraint_labels
    assert m.constraint_labels[-3:] == ["tie.row0", "tie.row1", "straight.row0"]
