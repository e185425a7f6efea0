"""Self-checks of the force-element oracles (``quivira_oracles/force_elements_*.py``).

No Quivira here: these tests check the oracles against each other (Exudyn's
generalized-alpha against a tight ``solve_ivp`` integration of the SymPy model), against
hand-written NumPy formulas of the element forces (the semantics stated in the module
docstrings), against statics and against the closed forms (torsional pendulum frequency,
logarithmic decrement, spring-loaded lever), so that a wrong sign or factor in either
oracle fails.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from quivira_oracles.force_elements_exudyn import (
    simulate_force_elements_exudyn,
    simulate_spring_pendulum_exudyn,
    simulate_two_bar_torsional_exudyn,
)
from quivira_oracles.force_elements_sympy import (
    bar_point,
    build_sympy_model,
    damped_torsional_pendulum_angle,
    force_actuated_pendulum_spec,
    lever_equilibrium,
    lever_level_rest_length,
    lever_spec,
    logarithmic_decrement,
    simulate_sympy,
    spring_pendulum_spec,
    time_law,
    torsional_pendulum_damping_ratio,
    torsional_pendulum_omega,
    torsional_pendulum_spec,
    two_bar_chain_spec,
)

G = 9.81

# Tolerances at h = 1e-4 over 2 s, from the h-convergence measured in the Exudyn oracle's
# docstring (errors there: q <= 8.1e-7, qd <= 1.0e-5, spring force <= 3.8e-5, torque
# <= 2.1e-5, pin force <= 1.2e-4; each 100x larger at h = 1e-3).
TOL_Q, TOL_QD, TOL_F, TOL_PIN = 5e-6, 1e-4, 2e-4, 1e-3


def full_spec():
    """Two-bar chain with every element kind (used for the random-state checks)."""
    spec = two_bar_chain_spec(
        thetas=(-0.7, 0.9),
        joint_spring={"k": 17.0, "phi0": 0.4, "c": 0.6, "tau0": 0.8},
        ground_spring={"k": 9.0, "phi0": -0.3, "c": 0.25, "tau0": -1.1},
        joint_torque={"A": 2.5, "omega": 3.0, "phase": 0.4, "offset": 0.2},
    )
    spec["springs"] += [
        {"a": None, "point_a": (0.8, 0.9), "b": 1, "s_b": 0.3, "k": 45.0, "l0": 0.7, "c": 0.9},
        {"a": 0, "s_a": -0.2, "b": 1, "s_b": 0.5, "k": 30.0, "l0": 1.1, "c": 0.4},
    ]
    spec["forces"].append(
        {"bar": 1, "s": 0.25, "fx": {"A": 4.0, "omega": 2.0}, "fy": -1.5}
    )
    spec["torques"].append({"bar": 0, "tau": {"A": 1.2, "omega": 5.0, "offset": -0.3}})
    return spec


# ------------------------------------------------------------------------------------------
# hand-written reference of the element semantics (NumPy)
# ------------------------------------------------------------------------------------------


def _point(q, qd, spec, bar, s):
    b = spec["bars"][bar]
    x, y, th = q[3 * bar : 3 * bar + 3]
    vx, vy, om = qd[3 * bar : 3 * bar + 3]
    e = np.array([math.cos(th), math.sin(th)])
    n = np.array([-math.sin(th), math.cos(th)])
    lev = s * b["length"]
    return np.array([x, y]) + lev * e, np.array([vx, vy]) + om * lev * n, lev * n


def hand_generalized_forces(spec, q, qd, t):
    """``Q`` of gravity and all elements, written directly from the stated semantics."""
    nb = len(spec["bars"])
    Q = np.zeros(3 * nb)
    for i, b in enumerate(spec["bars"]):
        Q[3 * i + 1] -= b["mass"] * spec["g"]

    def apply(bar, s, f):
        _, _, dp_dth = _point(q, qd, spec, bar, s)
        Q[3 * bar : 3 * bar + 2] += f
        Q[3 * bar + 2] += dp_dth @ f  # moment about the centre

    for sd in spec["springs"]:
        ends = []
        for e in ("a", "b"):
            if sd[e] is None:
                ends.append((np.asarray(sd[f"point_{e}"], float), np.zeros(2)))
            else:
                ends.append(_point(q, qd, spec, sd[e], sd[f"s_{e}"])[:2])
        (pa, va), (pb, vb) = ends
        d = np.linalg.norm(pb - pa)
        u = (pb - pa) / d
        f = sd["k"] * (d - sd["l0"]) + sd["c"] * (vb - va) @ u  # tension
        if sd["b"] is not None:
            apply(sd["b"], sd["s_b"], -f * u)
        if sd["a"] is not None:
            apply(sd["a"], sd["s_a"], f * u)
    for ts in spec["torsional_springs"]:
        a, b = ts["a"], ts["b"]
        phi = q[3 * b + 2] - (0.0 if a is None else q[3 * a + 2])
        phid = qd[3 * b + 2] - (0.0 if a is None else qd[3 * a + 2])
        tau = ts["k"] * (phi - ts["phi0"]) + ts["c"] * phid + ts["tau0"]
        Q[3 * b + 2] -= tau
        if a is not None:
            Q[3 * a + 2] += tau
    for fa in spec["forces"]:
        apply(fa["bar"], fa["s"], np.array([time_law(fa["fx"], t), time_law(fa["fy"], t)]))
    for ta in spec["torques"]:
        Q[3 * ta["bar"] + 2] += time_law(ta["tau"], t)
    for ta in spec["relative_torques"]:
        tau = time_law(ta["tau"], t)
        Q[3 * ta["b"] + 2] += tau
        if ta["a"] is not None:
            Q[3 * ta["a"] + 2] -= tau
    return Q


def hand_jacobian(spec, q):
    """``J = dPhi/dq`` of the pins: joint rows ``p_b - p_a``, then ground rows ``p - X``."""
    nb = len(spec["bars"])
    rows = []
    zero = np.zeros(3 * nb)

    def block(bar, s, sign):
        _, _, dp = _point(q, zero, spec, bar, s)
        J = np.zeros((2, 3 * nb))
        J[:, 3 * bar : 3 * bar + 2] = sign * np.eye(2)
        J[:, 3 * bar + 2] = sign * dp
        return J

    for a, sa, b, sb in spec["joints"]:
        rows.append(block(b, sb, 1.0) + block(a, sa, -1.0))
    for bar, s in spec["ground_pins"]:
        rows.append(block(bar, s, 1.0))
    return np.vstack(rows)


def hand_accelerations(spec, q, qd, t):
    """KKT solve ``M qdd = Q + J^T lam``, ``J qdd = -Jdot qd`` with NumPy only."""
    nb = len(spec["bars"])
    M = np.diag([v for b in spec["bars"] for v in (b["mass"], b["mass"],
                                                   b["mass"] * b["length"] ** 2 / 12)])
    J = hand_jacobian(spec, q)
    gamma = []  # -Jdot qd: a pin point accelerates by -omega^2 lever (centripetal)
    for a, sa, b, sb in spec["joints"]:
        ca = _point(q, qd, spec, a, sa)[0] - q[3 * a : 3 * a + 2]
        cb = _point(q, qd, spec, b, sb)[0] - q[3 * b : 3 * b + 2]
        gamma.append(qd[3 * b + 2] ** 2 * cb - qd[3 * a + 2] ** 2 * ca)
    for bar, s in spec["ground_pins"]:
        c = _point(q, qd, spec, bar, s)[0] - q[3 * bar : 3 * bar + 2]
        gamma.append(qd[3 * bar + 2] ** 2 * c)
    m = J.shape[0]
    K = np.block([[M, -J.T], [J, np.zeros((m, m))]])
    rhs = np.concatenate([hand_generalized_forces(spec, q, qd, t), np.concatenate(gamma)])
    sol = np.linalg.solve(K, rhs)
    return sol[: 3 * nb], sol[3 * nb :]


# ------------------------------------------------------------------------------------------
# SymPy model at random states and in statics
# ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def full_model():
    return build_sympy_model(full_spec())


def test_sympy_model_matches_hand_formulas_at_random_states(full_model):
    spec = full_model.spec
    rng = np.random.default_rng(13)
    n = full_model.n
    assert full_model.constraint_labels == ["joint0.x", "joint0.y", "pin0.x", "pin0.y"]
    for _ in range(8):
        q = rng.uniform(-1.5, 1.5, n)
        qd = rng.uniform(-2.0, 2.0, n)
        t = float(rng.uniform(0.0, 3.0))
        Q = hand_generalized_forces(spec, q, qd, t)
        np.testing.assert_allclose(full_model.generalized_forces(q, qd, t), Q, rtol=1e-12,
                                   atol=1e-11)
        np.testing.assert_allclose(full_model.constraint_jacobian(q), hand_jacobian(spec, q),
                                   rtol=1e-13, atol=1e-13)
        qdd, lam = full_model.accelerations(q, qd, t)
        qdd_h, lam_h = hand_accelerations(spec, q, qd, t)
        np.testing.assert_allclose(qdd, qdd_h, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(lam, lam_h, rtol=1e-10, atol=1e-10)
        # spring tensions and element torques as stated
        for j, sd in enumerate(spec["springs"]):
            pb, vb, _ = _point(q, qd, spec, sd["b"], sd["s_b"])
            if sd["a"] is None:
                pa, va = np.asarray(sd["point_a"]), np.zeros(2)
            else:
                pa, va, _ = _point(q, qd, spec, sd["a"], sd["s_a"])
            d = np.linalg.norm(pb - pa)
            f = sd["k"] * (d - sd["l0"]) + sd["c"] * (vb - va) @ (pb - pa) / d
            assert full_model.spring_lengths(q)[j] == pytest.approx(d, rel=1e-13)
            assert full_model.spring_forces(q, qd)[j] == pytest.approx(f, rel=1e-12)


def test_multipliers_are_pin_reactions_in_statics():
    # a bar hanging at rest from its top pin: the pin pulls up with m g
    spec = spring_pendulum_spec(theta=-math.pi / 2, k=0.0, c=0.0, mass=2.0)
    model = build_sympy_model(spec)
    y0 = model.initial_state()
    qdd, lam = model.accelerations(y0[:3], y0[3:])
    np.testing.assert_allclose(qdd, 0.0, atol=1e-12)
    np.testing.assert_allclose(lam, [0.0, 2.0 * G], atol=1e-12)
    # two-bar chain hanging straight down: the joint holds bar 1 (m1 g), the pin both
    spec = two_bar_chain_spec(thetas=(-math.pi / 2, -math.pi / 2), masses=(2.0, 1.2))
    model = build_sympy_model(spec)
    y0 = model.initial_state()
    qdd, lam = model.accelerations(y0[:6], y0[6:])
    np.testing.assert_allclose(qdd, 0.0, atol=1e-12)
    np.testing.assert_allclose(lam, [0.0, 1.2 * G, 0.0, 3.2 * G], atol=1e-12)


# ------------------------------------------------------------------------------------------
# closed forms
# ------------------------------------------------------------------------------------------


def test_lever_closed_forms_against_sympy_statics():
    m, L, k, H = 2.0, 1.5, 400.0, 0.5
    # level lever: rest length from the closed form, reaction (0, m g / 2)
    l0 = lever_level_rest_length(m, k, H, G)
    assert l0 == pytest.approx(H - m * G / (2 * k))
    eq = lever_equilibrium(mass=m, length=L, k=k, l0=l0, height=H, g=G)
    assert abs(eq["theta"]) < 1e-15
    np.testing.assert_allclose(eq["reaction"], [0.0, m * G / 2], atol=1e-12)
    model = build_sympy_model(lever_spec(mass=m, length=L, k=k, l0=l0, height=H, theta=0.0))
    y0 = model.initial_state()
    qdd, lam = model.accelerations(y0[:3], y0[3:])
    np.testing.assert_allclose(qdd, 0.0, atol=1e-12)
    np.testing.assert_allclose(lam, [0.0, m * G / 2], atol=1e-12)
    assert model.spring_forces(y0[:3], y0[3:])[0] == pytest.approx(m * G / 2, rel=1e-13)
    # general rest length: the statics root is an equilibrium of the SymPy model and the
    # multipliers are the reaction from the force balance
    for l0 in (0.3, 0.45, 0.6):
        eq = lever_equilibrium(mass=m, length=L, k=k, l0=l0, height=H, g=G)
        assert abs(eq["theta"] - (k * (H - l0) - m * G / 2) / (k * L)) < 0.1
        model = build_sympy_model(
            lever_spec(mass=m, length=L, k=k, l0=l0, height=H, theta=eq["theta"])
        )
        y0 = model.initial_state()
        qdd, lam = model.accelerations(y0[:3], y0[3:])
        np.testing.assert_allclose(qdd, 0.0, atol=1e-10)
        np.testing.assert_allclose(lam, eq["reaction"], rtol=1e-12, atol=1e-10)
        assert model.spring_forces(y0[:3], y0[3:])[0] == pytest.approx(eq["tension"], 1e-12)


def test_damped_lever_settles_to_the_closed_form_equilibrium():
    m, L, k, H, l0 = 2.0, 1.5, 400.0, 0.5, 0.3
    eq = lever_equilibrium(mass=m, length=L, k=k, l0=l0, height=H, g=G)
    model = build_sympy_model(lever_spec(mass=m, length=L, k=k, l0=l0, height=H, c=16.0))
    r = simulate_sympy(model, 4.0, [0.0, 4.0], rtol=1e-10, atol=1e-12)
    assert abs(r["q"][-1, 2] - eq["theta"]) < 1e-9
    np.testing.assert_allclose(r["lam"][-1], eq["reaction"], atol=1e-6)
    assert abs(eq["theta"]) > 0.1  # a real deflection, not the trivial level case


def test_torsional_pendulum_frequency_closed_form():
    m, L, kt, phi0, th0, om0 = 2.0, 1.5, 30.0, 0.2, 0.9, -1.0  # large amplitude: still exact
    w = torsional_pendulum_omega(kt, m, L)
    assert w == pytest.approx(math.sqrt(3 * kt / (m * L * L)))
    period = 2 * math.pi / w
    model = build_sympy_model(
        torsional_pendulum_spec(mass=m, length=L, k_theta=kt, phi0=phi0, theta=th0,
                                omega=om0, g=0.0)
    )
    ts = np.linspace(0.0, 3 * period, 61)
    r = simulate_sympy(model, ts[-1], ts)
    exact = phi0 + (th0 - phi0) * np.cos(w * ts) + om0 / w * np.sin(w * ts)
    np.testing.assert_allclose(r["q"][:, 2], exact, atol=1e-9)
    np.testing.assert_allclose(
        damped_torsional_pendulum_angle(ts, theta0=th0, omega0=om0, phi0=phi0, k_theta=kt,
                                        c_theta=0.0, mass=m, length=L),
        exact, atol=1e-14,
    )
    # one full period later the state repeats
    assert abs(r["q"][20, 2] - th0) < 1e-9 and abs(r["q"][40, 2] - th0) < 1e-9


def test_logarithmic_decrement_closed_form():
    m, L, kt, ct, phi0, tau0, th0 = 2.0, 1.5, 30.0, 1.5, 0.2, 0.6, 0.9
    z = torsional_pendulum_damping_ratio(kt, ct, m, L)
    assert z == pytest.approx(ct / (2 * math.sqrt(kt * m * L * L / 3)))
    delta = logarithmic_decrement(z)
    w = torsional_pendulum_omega(kt, m, L)
    Td = 2 * math.pi / (w * math.sqrt(1 - z * z))
    model = build_sympy_model(
        torsional_pendulum_spec(mass=m, length=L, k_theta=kt, phi0=phi0, c_theta=ct,
                                tau0=tau0, theta=th0, g=0.0)
    )
    t1 = np.linspace(0.0, 1.0, 11)
    ts = np.concatenate([t1, t1 + Td])
    r = simulate_sympy(model, float(ts[-1]), ts)
    th_e = phi0 - tau0 / kt  # the preload shifts the rest angle
    u = r["q"][:, 2] - th_e
    np.testing.assert_allclose(u[11:], math.exp(-delta) * u[:11], atol=1e-10)
    exact = damped_torsional_pendulum_angle(ts, theta0=th0, omega0=0.0, phi0=phi0,
                                            k_theta=kt, c_theta=ct, mass=m, length=L,
                                            tau0=tau0)
    np.testing.assert_allclose(r["q"][:, 2], exact, atol=1e-10)
    # the dissipated energy is the energy lost
    np.testing.assert_allclose(r["energy"] - r["energy"][0], -r["dissipated"], atol=1e-10)


# ------------------------------------------------------------------------------------------
# energy of the SymPy-model integration
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec",
    [
        spring_pendulum_spec(c=0.0),
        two_bar_chain_spec(joint_spring={"k": 20.0, "phi0": 0.0, "tau0": 1.0},
                           ground_spring={"k": 10.0, "phi0": -0.5, "tau0": -2.0}),
    ],
    ids=["spring-pendulum", "two-bar-torsional"],
)
def test_sympy_integration_conserves_energy_without_damping(spec):
    r = simulate_sympy(build_sympy_model(spec), 2.0, 101)
    scale = np.max(np.abs(r["kinetic"])) + np.max(np.abs(r["elastic"]))
    assert scale > 1.0
    assert np.max(np.abs(r["energy"] - r["energy"][0])) < 1e-9 * scale
    assert np.max(r["constraint_residual"]) < 1e-10
    assert np.all(r["work_in"] == 0.0) and np.all(r["dissipated"] == 0.0)


def test_sympy_energy_ledger_with_dampers_and_actuators(full_model):
    r = simulate_sympy(full_model, 2.0, 101)
    balance = r["energy"] - r["energy"][0] - r["work_in"] + r["dissipated"]
    assert r["dissipated"][-1] > 0.5 and abs(r["work_in"][-1]) > 0.1
    assert np.all(np.diff(r["dissipated"]) >= 0.0)
    assert np.max(np.abs(balance)) < 1e-9 * np.max(np.abs(r["kinetic"]))


# ------------------------------------------------------------------------------------------
# Exudyn against the SymPy model
# ------------------------------------------------------------------------------------------


def _compare(ex, ref, *, tol_q=TOL_Q, tol_f=TOL_F):
    np.testing.assert_allclose(ex["t"], ref["t"], atol=1e-14)
    np.testing.assert_allclose(ex["q"], ref["q"], atol=tol_q)
    np.testing.assert_allclose(ex["qd"], ref["qd"], atol=TOL_QD)
    np.testing.assert_allclose(ex["spring_force"], ref["spring_force"], atol=tol_f)
    np.testing.assert_allclose(ex["spring_length"], ref["spring_length"], atol=tol_q)
    np.testing.assert_allclose(ex["torsional_torque"], ref["torsional_torque"], atol=tol_f)
    np.testing.assert_allclose(ex["torsional_angle"], ref["torsional_angle"], atol=tol_q)
    nj = ex["joint_forces"].shape[1]
    np.testing.assert_allclose(ex["joint_forces"].reshape(len(ex["t"]), -1),
                               ref["lam"][:, : 2 * nj], atol=TOL_PIN)
    np.testing.assert_allclose(ex["pin_forces"].reshape(len(ex["t"]), -1),
                               ref["lam"][:, 2 * nj :], atol=TOL_PIN)


def test_exudyn_spring_pendulum_matches_sympy_with_second_order_convergence():
    kw = {"c": 0.8, "t_end": 2.0, "times": 101}
    ex = simulate_spring_pendulum_exudyn(h=1e-4, **kw)
    spec = ex["spec"]
    ref = simulate_sympy(build_sympy_model(spec), 2.0, 101)
    # t = 0 against the element formula by hand: tension k (d - l0) (at rest: no damping)
    sd = spec["springs"][0]
    d0 = np.linalg.norm(bar_point(spec["bars"][0], sd["s_b"]) - np.asarray(sd["point_a"]))
    assert ex["spring_force"][0, 0] == pytest.approx(sd["k"] * (d0 - sd["l0"]), rel=1e-9)
    assert abs(ex["spring_force"][0, 0]) > 10.0
    _compare(ex, ref)
    # the tolerance is the h-convergence bound: ten times larger h, 100x larger error
    coarse = simulate_spring_pendulum_exudyn(h=1e-3, **kw)
    e_fine = np.max(np.abs(ex["q"] - ref["q"]))
    e_coarse = np.max(np.abs(coarse["q"] - ref["q"]))
    assert 60.0 < e_coarse / e_fine < 160.0
    assert e_fine < TOL_Q / 5


def test_exudyn_spring_pendulum_undamped_energy():
    ex = simulate_spring_pendulum_exudyn(c=0.0, h=1e-4, t_end=2.0, times=101)
    ref = simulate_sympy(build_sympy_model(ex["spec"]), 2.0, 101)
    _compare(ex, ref)
    np.testing.assert_allclose(ex["elastic"], ref["elastic"], atol=1e-3)
    # generalized-alpha at h = 1e-4: bounded O(h^2) energy error (5.3e-7 J measured)
    assert np.max(np.abs(ex["energy"] - ex["energy"][0])) < 5e-6
    assert np.max(np.abs(ex["kinetic"])) > 5.0


def test_exudyn_two_bar_torsional_matches_sympy():
    ground = {"k": 10.0, "phi0": -0.5, "c": 0.3, "tau0": -2.0}
    ex = simulate_two_bar_torsional_exudyn(
        k_theta=20.0, phi0=0.0, c_theta=0.5, tau0=1.0, ground_spring=ground, h=1e-4,
        t_end=2.0, times=101,
    )
    spec = ex["spec"]
    ref = simulate_sympy(build_sympy_model(spec), 2.0, 101)
    # t = 0 by hand: tau = k (phi - phi0) + tau0 (at rest)
    th0, th1 = spec["bars"][0]["theta"], spec["bars"][1]["theta"]
    np.testing.assert_allclose(
        ex["torsional_torque"][0], [20.0 * (th1 - th0) + 1.0, 10.0 * (th0 + 0.5) - 2.0],
        rtol=1e-9,
    )
    _compare(ex, ref)
    assert np.ptp(ex["torsional_angle"][:, 0]) > 0.3  # the joint really moves


def test_exudyn_unwrapped_relative_angle_beyond_pi():
    spec = two_bar_chain_spec(thetas=(-0.9, 2.5), omegas=(0.0, 3.0),
                              joint_spring={"k": 20.0, "phi0": 3.3, "c": 0.5, "tau0": 1.0})
    ex = simulate_force_elements_exudyn(spec, t_end=1.0, h=1e-4, times=51)
    ref = simulate_sympy(build_sympy_model(spec), 1.0, 51)
    assert np.max(ref["torsional_angle"][:, 0]) > math.pi + 0.3
    _compare(ex, ref)


@pytest.mark.parametrize(
    "spec",
    [
        two_bar_chain_spec(joint_spring={"k": 20.0, "phi0": 0.0, "c": 0.5},
                           joint_torque={"A": 3.0, "omega": 4.0}),
        force_actuated_pendulum_spec(fx={"A": 5.0, "omega": 3.0, "phase": 0.2, "offset": 1.0},
                                     fy=-2.0, torque={"A": 1.0, "omega": 2.0}),
    ],
    ids=["joint-torque", "force-and-torque"],
)
def test_exudyn_actuators_match_sympy(spec):
    ex = simulate_force_elements_exudyn(spec, t_end=1.5, h=1e-4, times=76)
    ref = simulate_sympy(build_sympy_model(spec), 1.5, 76)
    _compare(ex, ref)
    # the actuators matter: without them the motion differs by far more than the tolerance
    quiet = dict(spec, forces=[], torques=[], relative_torques=[])
    ref0 = simulate_sympy(build_sympy_model(quiet), 1.5, 76)
    assert np.max(np.abs(ref0["q"] - ref["q"])) > 1e3 * TOL_Q
