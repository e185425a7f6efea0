"""Self-checks of the IFToMM benchmark references in quivira_oracles/iftomm.py.

Every reference is compared with something computed independently of it: a direct
``solve_ivp`` integration (A01), the closed-form elliptic solution and a 40-digit mpmath
evaluation (A02), a direct maximal-coordinate integration of the bodies and pins with KKT
solves (A02 N = 1, 2 and A03), values published by others (Exudyn's A02 convergence data, the
Bari test set's A03 reference and consistent initial values). Nothing here imports Quivira.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.special import binom

from quivira_oracles import iftomm as o

# ---------------------------------------------------------------------------------------------
# A direct maximal-coordinate integrator (numpy KKT solves + Baumgarte terms), independent of
# the minimal-coordinate references it checks.
# ---------------------------------------------------------------------------------------------


def _rot(theta):
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


def _pin_rows(model, q, qd):
    """Residual C, velocity residual C', Jacobian J and convective term c of all pins.

    ``C = r_a + R_a p_a - r_b - R_b p_b``; ``C'' = J q'' + c`` with
    ``c = -theta_a'**2 R_a p_a + theta_b'**2 R_b p_b``.
    """
    n = len(model.bodies)
    npin = len(model.pins)
    res = np.zeros(2 * npin)
    jac = np.zeros((2 * npin, 3 * n))
    conv = np.zeros(2 * npin)
    for k, pin in enumerate(model.pins):
        rows = slice(2 * k, 2 * k + 2)
        a = pin.body_a
        ra = _rot(q[3 * a + 2]) @ np.asarray(model.bodies[a].points[pin.point])
        res[rows] += q[3 * a : 3 * a + 2] + ra
        jac[rows, 3 * a : 3 * a + 2] += np.eye(2)
        jac[rows, 3 * a + 2] += [-ra[1], ra[0]]
        conv[rows] -= qd[3 * a + 2] ** 2 * ra
        b = pin.body_b
        if b is None:
            res[rows] -= np.asarray(model.ground[pin.point])
        else:
            rb = _rot(q[3 * b + 2]) @ np.asarray(model.bodies[b].points[pin.point])
            res[rows] -= q[3 * b : 3 * b + 2] + rb
            jac[rows, 3 * b : 3 * b + 2] -= np.eye(2)
            jac[rows, 3 * b + 2] -= [-rb[1], rb[0]]
            conv[rows] += qd[3 * b + 2] ** 2 * rb
    return res, jac @ qd, jac, conv


def _applied_forces(model, q):
    n = len(model.bodies)
    f = np.zeros(3 * n)
    for b, body in enumerate(model.bodies):
        f[3 * b + 1] -= body.mass * model.gravity
    for sp in model.springs:
        b = sp.body_a
        rp = _rot(q[3 * b + 2]) @ np.asarray(model.bodies[b].points[sp.point_a])
        dvec = q[3 * b : 3 * b + 2] + rp - np.asarray(model.ground[sp.ground_point])
        length = np.hypot(*dvec)
        force = -sp.stiffness * (length - sp.rest_length) * dvec / length
        f[3 * b : 3 * b + 2] += force
        f[3 * b + 2] += rp[0] * force[1] - rp[1] * force[0]
    for b, tau in model.torques:
        f[3 * b + 2] += tau
    return f


def _integrate_maximal(model, q0, qd0, t_eval, *, alpha=0.0, beta=0.0, rtol=1e-12):
    """``M q'' = f + J^T mu``, ``J q'' = -c - 2 alpha C' - beta**2 C``, DOP853."""
    n = len(model.bodies)
    mass = np.repeat([[b.mass, b.mass, b.inertia] for b in model.bodies], 1, axis=0).ravel()
    m2 = 2 * len(model.pins)

    def rhs(_t, y):
        q, qd = y[: 3 * n], y[3 * n :]
        res, vres, jac, conv = _pin_rows(model, q, qd)
        kkt = np.zeros((3 * n + m2, 3 * n + m2))
        kkt[: 3 * n, : 3 * n] = np.diag(mass)
        kkt[: 3 * n, 3 * n :] = jac.T
        kkt[3 * n :, : 3 * n] = jac
        rhs_v = np.concatenate(
            [_applied_forces(model, q), -conv - 2 * alpha * vres - beta**2 * res]
        )
        return np.concatenate([qd, np.linalg.solve(kkt, rhs_v)[: 3 * n]])

    sol = solve_ivp(
        rhs,
        (0.0, float(t_eval[-1])),
        np.concatenate([q0, qd0]),
        method="DOP853",
        rtol=rtol,
        atol=rtol,
        t_eval=t_eval,
    )
    assert sol.status == 0, sol.message
    return sol.y[: 3 * n].T, sol.y[3 * n :].T


# ---------------------------------------------------------------------------------------------
# A01
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["point", "rod"])
@pytest.mark.parametrize("theta0", [0.1, np.pi / 2, 3.0])
def test_a01_period_and_motion_match_direct_integration(kind, theta0):
    w0 = o.pendulum_omega0(1.3, 9.81, kind)
    period = o.pendulum_period(theta0, 1.3, 9.81, kind)
    sol = solve_ivp(
        lambda t, y: [y[1], -(w0**2) * np.sin(y[0])],
        (0.0, 2.2 * period),
        [theta0, 0.0],
        method="DOP853",
        rtol=1e-13,
        atol=1e-13,
        events=lambda t, y: y[0],
        dense_output=True,
    )
    t_zero = sol.t_events[0]  # theta = 0 at T/4, 3T/4, 5T/4, ...
    assert len(t_zero) == 4
    assert 2 * (t_zero[1] - t_zero[0]) == pytest.approx(period, rel=2e-12)
    assert 4 * t_zero[0] == pytest.approx(period, rel=2e-12)
    t = np.linspace(0.0, 2.2 * period, 37)
    theta, theta_dot = o.pendulum_motion(t, theta0, 1.3, 9.81, kind)
    y = sol.sol(t)
    assert np.max(np.abs(theta - y[0])) < 5e-10
    assert np.max(np.abs(theta_dot - y[1])) < 5e-10 * w0


def test_a01_iftomm_period_against_series_and_data():
    # T = (2 pi / omega0) sum_n [binom(2n, n) / 4**n]**2 m**n, m = sin^2(theta0/2) = 1/2
    n = np.arange(120)
    series = 2 * np.pi / np.sqrt(9.81) * np.sum((binom(2 * n, n) / 4.0**n) ** 2 * 0.5**n)
    assert o.pendulum_period() == pytest.approx(series, rel=1e-14)
    assert o.pendulum_period() == pytest.approx(2.3678419475762, abs=1e-12)
    # IFToMM A01: P1 starts at (+1, 0) at rest and is at the bottom, moving along -x, at T/4.
    np.testing.assert_allclose(o.a01_tip(0.0), [1.0, 0.0, 0.0, 0.0], atol=1e-15)
    tip = o.a01_tip(o.pendulum_period() / 4)
    np.testing.assert_allclose(tip[:2], [0.0, -1.0], atol=1e-14)
    assert tip[2] == pytest.approx(-np.sqrt(2 * 9.81), rel=1e-13)  # energy: v^2 = 2 g L


def test_a01_long_time_is_periodic():
    period = o.pendulum_period()
    t = np.linspace(0.0, period, 11)
    late = t + 844 * period  # ~ 2000 s, the IFToMM duration
    np.testing.assert_allclose(o.a01_tip(late), o.a01_tip(t), atol=1e-10)


@pytest.mark.parametrize("kind", ["point", "rod"])
def test_a01_maximal_state_matches_direct_maximal_integration(kind):
    model = o.a01_model(1.0, 1.0, 9.81, kind)
    q0, qd0 = o.a01_maximal_state(0.0, kind=kind)
    t = np.linspace(0.0, 1.5, 7)
    q, qd = _integrate_maximal(model, q0, qd0, t, alpha=5.0, beta=5.0)
    for k, tk in enumerate(t):
        qr, qdr = o.a01_maximal_state(tk, kind=kind)
        np.testing.assert_allclose(q[k], qr, atol=1e-9)
        np.testing.assert_allclose(qd[k], qdr, atol=1e-8)


# ---------------------------------------------------------------------------------------------
# A02
# ---------------------------------------------------------------------------------------------


def test_a02_initial_state_of_b0():
    for method in ("elliptic", "ode"):
        np.testing.assert_allclose(o.a02_b0(0.0, method=method), [0.0, 1.0, 1.0, 0.0], atol=1e-15)


@pytest.mark.parametrize("n", [1, 2, 40])
def test_a02_energy_conserved_along_references(n):
    t = np.linspace(0.0, o.A02_T_END, o.A02_N_STEPS + 1)
    e_ref = o.a02_energy(np.pi / 2, -1.0, n)
    assert e_ref == pytest.approx(0.5 * o.a02_equivalent_inertia(n) + 9.81 * (3 * n + 1) / 2)
    phi, phd = o.a02_reference(t, n)
    assert np.max(np.abs(o.a02_energy(phi, phd, n) - e_ref)) < 1e-11 * e_ref
    phi, phd = o.a02_phi_closed_form(t, n)
    assert np.max(np.abs(o.a02_energy(phi, phd, n) - e_ref)) < 1e-13 * e_ref


@pytest.mark.parametrize("n", [1, 2, 40])
def test_a02_ode_reference_matches_closed_form(n):
    t = np.linspace(0.0, o.A02_T_END, o.A02_N_STEPS + 1)
    b_ode = o.a02_b0(t, n, method="ode")
    b_ell = o.a02_b0(t, n, method="elliptic")
    assert np.max(np.abs(b_ode - b_ell)) < 2e-9
    assert np.all(np.diff(o.a02_reference(t, n)[0]) < 0)  # the cranks revolve clockwise


def _phi_mpmath(t, n, digits=40):
    """phi(t), phi'(t) of the revolving pendulum from mpmath's Jacobi functions."""
    with mpmath.workdps(digits):
        c = mpmath.mpf("9.81") * (mpmath.mpf(n + 1) / 2 + n) / (mpmath.mpf(n + 1) / 3 + n)
        h = mpmath.mpf(1) / 2 + 2 * c
        m = 2 * c / h
        w = mpmath.sqrt(h / 2)
        big_k = mpmath.ellipk(m)
        u = big_k - w * mpmath.mpf(t)
        j = mpmath.floor((u + big_k) / (2 * big_k))
        u_r = u - 2 * big_k * j
        sn = mpmath.ellipfun("sn", u_r, m=m)
        cn = mpmath.ellipfun("cn", u_r, m=m)
        dn = mpmath.ellipfun("dn", u_r, m=m)
        psi = mpmath.atan2(sn, cn) + j * mpmath.pi
        return float(2 * psi - mpmath.pi / 2), float(-2 * w * dn)


@pytest.mark.parametrize("n", [1, 40])
def test_a02_closed_form_against_mpmath(n):
    t = np.array([0.3, 7.7, 20.0])
    phi, phd = o.a02_phi_closed_form(t, n)
    ref = np.array([_phi_mpmath(tk, n) for tk in t])
    np.testing.assert_allclose(phi, ref[:, 0], rtol=0, atol=1e-13)
    np.testing.assert_allclose(phd, ref[:, 1], rtol=0, atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 40])
def test_a02_singular_times(n):
    t_el = o.a02_singular_times(n=n)
    t_ode = o.a02_singular_times(n=n, method="ode")
    assert len(t_el) == len(t_ode) >= 20
    np.testing.assert_allclose(t_el, t_ode, rtol=0, atol=1e-10)
    phi, _ = o.a02_phi_closed_form(t_el, n)
    np.testing.assert_allclose(phi, -np.pi * np.arange(len(t_el)), atol=1e-12)
    first = {1: 0.70845001, 2: 0.71435553, 40: 0.72158102}[n]
    assert t_el[0] == pytest.approx(first, abs=1e-8)


def test_a02_exudyn_published_values_converge_to_reference():
    # Exudyn TestModels/fourBarMechanismIftomm.py (N = 2), comments: B0 at t = 10 s for
    # h = 1e-3, 5e-4, 2.5e-4, 1.25e-4 (generalized-alpha, second order).
    h_pos = np.array(
        [
            [0.3284112372, 0.9445348375],
            [0.3284465114, 0.9445225721],
            [0.3284552113, 0.9445195467],
            [0.3284573768, 0.9445187937],
        ]
    )
    h_vel = np.array(
        [
            [1.422958522, -0.4947565894],
            [1.423028497, -0.494841072],
            [1.423045728, -0.4948619021],
            [1.423050003, -0.4948670827],
        ]
    )
    ref = o.a02_b0(10.0, 2)
    err = np.hypot(*(h_pos - ref[:2]).T)
    np.testing.assert_allclose(err[:-1] / err[1:], 4.0, rtol=0.05)
    assert err[-1] < 1e-6
    err_v = np.hypot(*(h_vel - ref[2:]).T)
    np.testing.assert_allclose(err_v[:-1] / err_v[1:], 4.0, rtol=0.1)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_a02_model_structure_and_maximal_state(n):
    model = o.a02_model(n)
    assert len(model.bodies) == 2 * n + 1 and len(model.pins) == 3 * n + 1
    rng = np.random.default_rng(n)
    for phi, phd in zip(rng.uniform(-4, 4, 3), rng.uniform(-3, 3, 3)):
        q, qd = o.a02_maximal_state(phi, phd, n)
        res, vres, jac, _ = _pin_rows(model, q, qd)
        assert np.max(np.abs(res)) < 1e-14 and np.max(np.abs(vres)) < 1e-14
        assert np.linalg.matrix_rank(jac) == 6 * n + 2  # non-redundant, 1 DOF
        energy = sum(
            0.5 * (b.mass * (qd[3 * i] ** 2 + qd[3 * i + 1] ** 2) + b.inertia * qd[3 * i + 2] ** 2)
            + b.mass * 9.81 * q[3 * i + 1]
            for i, b in enumerate(model.bodies)
        )
        assert energy == pytest.approx(o.a02_energy(phi, phd, n), rel=1e-13, abs=1e-13)
    q, qd = o.a02_maximal_state(0.0, 1.0, n)  # flat pose: N + 1 degrees of freedom
    assert np.linalg.matrix_rank(_pin_rows(model, q, qd)[2]) == 6 * n + 2 - n


@pytest.mark.parametrize("n", [1, 2])
def test_a02_reference_matches_direct_maximal_integration(n):
    model = o.a02_model(n)
    q0, qd0 = o.a02_maximal_state(np.pi / 2, -1.0, n)
    t = np.linspace(0.0, 0.6, 7)  # before the first flat pose (t ~ 0.71 s)
    q, qd = _integrate_maximal(model, q0, qd0, t, alpha=5.0, beta=5.0)
    phi, phd = o.a02_phi_closed_form(t, n)
    for k in range(len(t)):
        qr, qdr = o.a02_maximal_state(phi[k], phd[k], n)
        np.testing.assert_allclose(q[k], qr, atol=1e-10)
        np.testing.assert_allclose(qd[k], qdr, atol=1e-9)
    b0 = q[:, :2] + 0.5 * np.stack([np.cos(q[:, 2]), np.sin(q[:, 2])], axis=1)
    np.testing.assert_allclose(b0, o.a02_b0(t, n)[:, :2], atol=1e-10)


# ---------------------------------------------------------------------------------------------
# A03
# ---------------------------------------------------------------------------------------------


def test_a03_initial_state_is_consistent_and_matches_published_accelerations():
    assert np.max(np.abs(o.a03_constraints(o.A03_Q0))) < 1e-16
    dyn = o.a03_dynamics(o.A03_Q0, np.zeros(7))
    np.testing.assert_allclose(dyn["qdd"], o.A03_QDD0, rtol=1e-13, atol=1e-9)
    np.testing.assert_allclose(dyn["lam"], o.A03_LAMBDA0, rtol=1e-13, atol=1e-12)
    assert np.linalg.matrix_rank(dyn["G"]) == 6


def test_a03_reproduces_bari_reference_at_t003():
    ref = o.A03_BARI_REFERENCE_T003
    r = o.a03_reference(o.A03_T_END)
    groups = {
        "q": (r["q"][0], ref[:7], 2e-10),
        "qd": (r["qd"][0], ref[7:14], 1e-9),
        "qdd": (r["qdd"][0], ref[14:21], 3e-7),
        "lam": (r["lam"][0], ref[21:], 3e-7),
    }
    for name, (mine, published, tol) in groups.items():
        err = np.max(np.abs(mine - published)) / np.max(np.abs(published))
        assert err < tol, (name, err)
    assert np.max(np.abs(r["g"])) < 1e-14


def test_a03_energy_balance_along_reference():
    t = np.linspace(0.0, o.A03_T_END, 13)
    r = o.a03_reference(t)
    e0 = o.a03_energy(o.A03_Q0, np.zeros(7))
    assert np.max(np.abs(r["energy"] - e0)) < 1e-11 * e0
    np.testing.assert_allclose(r["q"][-1], o.a03_reference(o.A03_T_END)["q"][0], atol=1e-13)


def test_a03_model_maximal_state_and_inverse():
    model = o.a03_model()
    assert 3 * len(model.bodies) - 2 * len(model.pins) == 1
    r = o.a03_reference(np.linspace(0.0, o.A03_T_END, 4))
    for q, qd in zip(r["q"], r["qd"]):
        x, xd = o.a03_maximal_state(q, qd)
        res, vres, jac, _ = _pin_rows(model, x, xd)
        assert np.max(np.abs(res)) < 1e-14 and np.max(np.abs(vres)) < 1e-11
        assert np.linalg.matrix_rank(jac) == 20
        np.testing.assert_allclose(o.a03_angles_from_maximal(x), q, atol=1e-13)
        kinetic = sum(
            0.5 * (b.mass * (xd[3 * i] ** 2 + xd[3 * i + 1] ** 2) + b.inertia * xd[3 * i + 2] ** 2)
            for i, b in enumerate(model.bodies)
        )
        m7 = o.a03_dynamics(q, qd)["M"]
        assert kinetic == pytest.approx(0.5 * qd @ m7 @ qd, rel=1e-12, abs=1e-18)


def test_a03_reference_matches_direct_maximal_integration():
    model = o.a03_model()
    x0, xd0 = o.a03_maximal_state(o.A03_Q0, np.zeros(7))
    t = np.linspace(0.0, o.A03_T_END, 4)
    x, xd = _integrate_maximal(model, x0, xd0, t, rtol=1e-12)
    r = o.a03_reference(t)
    np.testing.assert_allclose(o.a03_angles_from_maximal(x), r["q"], atol=1e-10)
    for k in range(len(t)):
        _, xd_ref = o.a03_maximal_state(r["q"][k], r["qd"][k])
        np.testing.assert_allclose(xd[k], xd_ref, atol=1e-10 * max(np.max(np.abs(xd_ref)), 1.0))
