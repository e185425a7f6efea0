"""Self-checks of the slider, impact and latch references.

No Quivira here. The references are checked against independent computations so that a
wrong sign or factor fails:

* ``oracles.sliders_exudyn``: the closed-form slider-crank against finite differences of its
  own positions and against its geometry, the inverse dynamics against the power balance,
  the 1-DOF ODE against its energy, and Exudyn (driven and free, four guide variants)
  against both, within the h-convergence bounds measured in the module docstring;
* ``oracles.impacts``: the impact formulas against the impulse equations solved as a KKT
  system, the latch against the projection ``-M^-1 J^T W^-1 J qd`` in maximal coordinates and
  against angular momentum, free fall against mpmath, bouncing against stepping the flights;
* ``quivira_oracles/peers/exudyn_latching_lattice.py``: the 1-DOF reduction against the bar
  geometry, the quadrature latch time against an ODE with an event, and a short Exudyn run.
"""

from __future__ import annotations

import functools
import importlib.util
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from quivira_oracles.impacts import (
    bar_end_heights,
    bar_floor_impact,
    bouncing_sequence,
    free_fall_contact_time,
    two_bar_latch,
    two_bar_latch_reference,
    two_bar_mass_matrix,
    two_bar_state,
)
from quivira_oracles.sliders_exudyn import (
    SliderCrank,
    simulate_slider_crank_exudyn,
    simulate_slider_crank_minimal,
    slider_crank_driven,
    slider_crank_energy,
    slider_crank_inverse_dynamics,
    slider_crank_kinematics,
)

G = 9.81
VARIANTS = [
    SliderCrank(),
    SliderCrank(branch=-1, alpha=-0.3, e=-0.08, s_pin=-0.4),
    SliderCrank(e=0.0, alpha=0.0, s_pin=0.0),
    SliderCrank(r=0.3, l=0.45, e=0.1, alpha=1.2),
]


# ------------------------------------------------------------------------------------------
# slider-crank: closed form
# ------------------------------------------------------------------------------------------


def _pt(q, bar, s, lengths):
    x, y, th = q[..., 3 * bar], q[..., 3 * bar + 1], q[..., 3 * bar + 2]
    return np.stack([x + s * lengths[bar] * np.cos(th), y + s * lengths[bar] * np.sin(th)], -1)


@pytest.mark.parametrize("p", VARIANTS)
def test_kinematics_satisfies_the_joints(p):
    phi = np.linspace(-7.0, 7.0, 301)
    k = slider_crank_kinematics(p, phi)
    q, L = k["q"], p.lengths
    assert np.allclose(_pt(q, 0, -0.5, L), 0.0, atol=1e-14)  # ground pin at O
    assert np.allclose(_pt(q, 0, 0.5, L), _pt(q, 1, -0.5, L), atol=1e-14)  # crank pin
    assert np.allclose(_pt(q, 1, 0.5, L), _pt(q, 2, p.s_pin, L), atol=1e-14)  # slider pin
    B = _pt(q, 2, p.s_pin, L)
    assert np.allclose(B @ p.n, p.e, atol=1e-14)  # on the guide
    assert np.allclose(_pt(q, 2, 0.0, L) @ p.n, p.e, atol=1e-14)  # block axis on the guide
    assert np.allclose(q[:, 8], p.alpha)
    assert np.allclose(k["x"], B @ p.u, atol=1e-14)
    # the branch: B on the +u side of the crank pin for branch +1
    assert np.all(p.branch * ((B - k["A"]) @ p.u) > 0.0)


@pytest.mark.parametrize("p", VARIANTS)
def test_kinematics_derivatives_match_finite_differences(p):
    def law(t):
        return (0.3 + 2.0 * t + 1.5 * t * t + 0.4 * np.sin(3.0 * t),
                2.0 + 3.0 * t + 1.2 * np.cos(3.0 * t), 3.0 - 3.6 * np.sin(3.0 * t))

    t = np.linspace(0.0, 2.0, 41)
    dt = 1e-5
    k = slider_crank_kinematics(p, *law(t))
    kp = slider_crank_kinematics(p, *law(t + dt))
    km = slider_crank_kinematics(p, *law(t - dt))
    for pos, vel in (("q", "qd"), ("qd", "qdd"), ("x", "xd"), ("xd", "xdd"),
                     ("beta", "betad"), ("betad", "betadd")):
        fd = (kp[pos] - km[pos]) / (2.0 * dt)
        scale = 1.0 + np.max(np.abs(k[vel]))
        assert np.max(np.abs(fd - k[vel])) < 1e-8 * scale, (pos, vel)


def test_driven_closed_form_is_the_kinematics_at_constant_speed():
    p = SliderCrank()
    t = np.linspace(0.0, 1.0, 11)
    d = slider_crank_driven(p, t, 10.0, 0.3)
    k = slider_crank_kinematics(p, 0.3 + 10.0 * t, 10.0, 0.0)
    assert np.array_equal(d["qdd"], k["qdd"])
    # offset-free centred slider-crank: the textbook x = r cos phi + sqrt(l^2 - r^2 sin^2 phi)
    p0 = SliderCrank(e=0.0, alpha=0.0)
    d0 = slider_crank_driven(p0, t, 10.0, 0.3)
    ph = 0.3 + 10.0 * t
    assert np.allclose(d0["x"], p0.r * np.cos(ph) + np.sqrt(p0.l**2 - (p0.r * np.sin(ph)) ** 2),
                       atol=1e-15)


def test_coupler_cannot_reach_guide_raises():
    with pytest.raises(ValueError, match="cannot reach"):
        slider_crank_kinematics(SliderCrank(r=0.5, l=0.3, e=0.0), math.pi / 2)


@pytest.mark.parametrize("p", VARIANTS[:2])
def test_inverse_dynamics_power_balance(p):
    """The drive torque's power equals dE/dt (the joints do no work); independent of the
    Newton-Euler equations the torque comes from."""
    omega, phi0 = 7.0, 0.2
    t = np.linspace(0.0, 1.0, 51)
    dt = 1e-5

    def energy(tt):
        k = slider_crank_driven(p, tt, omega, phi0)
        return slider_crank_energy(p, k["q"], k["qd"])

    dEdt = (energy(t + dt) - energy(t - dt)) / (2 * dt)
    f = slider_crank_inverse_dynamics(p, phi0 + omega * t, omega, 0.0)
    assert np.max(np.abs(f["tau"] * omega - dEdt)) < 1e-6 * (1 + np.max(np.abs(dEdt)))


def test_inverse_dynamics_statics():
    """At rest the drive torque balances gravity (virtual work) and the guide carries the
    slider's weight component when the coupler is along the guide."""
    p = SliderCrank(e=0.0, alpha=0.0, s_pin=0.0)
    phi = np.linspace(-3, 3, 13)
    f = slider_crank_inverse_dynamics(p, phi, 0.0, 0.0)
    V = slider_crank_kinematics(p, phi, 1.0, 0.0)["qd"]
    tau_vw = G * (p.masses * V[:, 1::3]).sum(-1)  # tau dphi = dV
    assert np.allclose(f["tau"], tau_vw, atol=1e-12)
    f0 = slider_crank_inverse_dynamics(p, 0.0, 0.0, 0.0)  # all bars on the x-axis
    # coupler horizontal, pinned at both ends: half of its weight at each end
    assert np.allclose(f0["N"], p.m_slider * G + 0.5 * p.m_coupler * G, atol=1e-12)
    assert np.allclose(f0["T_G"], 0.0, atol=1e-12)


@functools.cache
def _minimal(s_pin: float, t_end: float):
    return simulate_slider_crank_minimal(SliderCrank(s_pin=s_pin), 0.3, 8.0, t_end=t_end,
                                         times=101)


def test_minimal_model_conserves_energy_and_needs_no_torque():
    r = _minimal(0.3, 1.0)
    assert np.max(np.abs(r["energy"] - r["energy"][0])) < 1e-9
    assert np.max(np.abs(r["tau"])) < 1e-10  # Lagrange's equation = Newton-Euler with tau = 0
    assert np.ptp(r["phi"]) > 3.0  # it really moves


# ------------------------------------------------------------------------------------------
# slider-crank: Exudyn against the closed form / the 1-DOF ODE
# ------------------------------------------------------------------------------------------

# Tolerances from the measured h-convergence (module docstring, h = 1e-4): driven, 1 s:
# q 1e-12, qd 2.7e-7, forces <= 6e-5 N, torques <= 1.3e-5 N m; free, 2 s: q 4.5e-5,
# qd 3.6e-4, forces <= 8.4e-3 N, T_G 5.6e-5 N m, |E - E0| 6.2e-6 J.


@pytest.mark.parametrize("guide", ["prismatic", "sliding2d"])
def test_exudyn_driven_matches_closed_form(guide):
    p = SliderCrank()
    ex = simulate_slider_crank_exudyn(p, 0.3, 10.0, guide=guide, omega_drive=10.0,
                                      t_end=0.5, h=1e-4, times=51)
    k = slider_crank_driven(p, ex["t"], 10.0, 0.3)
    f = slider_crank_inverse_dynamics(p, k["phi"], 10.0, 0.0)
    assert np.max(np.abs(ex["q"] - k["q"])) < 1e-9
    assert np.max(np.abs(ex["x"] - k["x"])) < 1e-9
    assert np.max(np.abs(ex["qd"] - k["qd"])) < 2e-6
    for name in ("F_O", "F_A", "F_B", "N"):
        assert np.max(np.abs(ex[name] - f[name])) < 5e-4, name
    for name in ("T_G", "tau"):
        assert np.max(np.abs(ex[name] - f[name])) < 1e-4, name
    assert np.max(np.abs(f["T_G"])) > 0.5 and np.max(np.abs(f["tau"])) > 5.0  # non-trivial
    if guide == "sliding2d":  # the full guide force is normal to the slot
        assert np.max(np.abs(ex["F_guide"] @ p.u)) < 1e-6


def test_exudyn_driven_is_second_order():
    p = SliderCrank()
    err = {}
    for h in (1e-3, 1e-4):
        ex = simulate_slider_crank_exudyn(p, 0.3, 10.0, omega_drive=10.0, t_end=0.5, h=h,
                                          times=51)
        k = slider_crank_driven(p, ex["t"], 10.0, 0.3)
        err[h] = np.max(np.abs(ex["qd"] - k["qd"]))
    assert 50.0 < err[1e-3] / err[1e-4] < 200.0


@pytest.mark.parametrize("guide,rot", [("prismatic", True), ("sliding2d", True),
                                       ("prismatic", False), ("sliding2d", False)])
def test_exudyn_free_matches_minimal(guide, rot):
    s_pin = 0.3 if rot else 0.0
    p = SliderCrank(s_pin=s_pin)
    ref = _minimal(s_pin, 1.0)
    ex = simulate_slider_crank_exudyn(p, 0.3, 8.0, guide=guide, constrain_rotation=rot,
                                      t_end=1.0, h=1e-4, times=101)
    assert np.max(np.abs(ex["q"] - ref["q"])) < 1e-4
    assert np.max(np.abs(ex["qd"] - ref["qd"])) < 1e-3
    for name in ("F_O", "F_A", "F_B", "N"):
        assert np.max(np.abs(ex[name] - ref[name])) < 2e-2, name
    assert np.max(np.abs(ex["T_G"] - ref["T_G"])) < 2e-4
    assert np.max(np.abs(ex["energy"] - ex["energy"][0])) < 2e-5
    if not rot:  # pin-in-slot at the block centre: the block keeps its angle
        assert np.max(np.abs(ex["q"][:, 8] - p.alpha)) < 1e-10


def test_pin_in_slot_needs_centred_pin():
    with pytest.raises(ValueError, match="s_pin"):
        simulate_slider_crank_exudyn(SliderCrank(), 0.3, 8.0, constrain_rotation=False,
                                     t_end=0.01, h=1e-3)


# ------------------------------------------------------------------------------------------
# free fall
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("theta", [0.0, 0.4, -1.1, math.pi / 2])
def test_fall_from_rest(theta):
    L, H = 1.3, 0.9
    y = H + 0.5 * L * abs(math.sin(theta))
    t, s = free_fall_contact_time([0.2, y, theta, 0.0, 0.0, 0.0], L)
    assert t == pytest.approx(math.sqrt(2 * H / G), rel=1e-15)
    if theta != 0.0:
        assert s == (-0.5 if math.sin(theta) > 0 else 0.5)


@pytest.mark.parametrize("state", [
    [0.0, 1.0, 0.3, 0.5, 0.0, 6.0],
    [0.0, 0.8, -0.2, 0.0, 1.5, -11.0],
    [1.0, 2.5, 1.0, 0.0, -1.0, 0.7],
    [0.0, 0.6, 0.0, 0.0, 0.0, 20.0],
])
def test_fall_with_spin_against_mpmath(state):
    L = 1.1
    t, s = free_fall_contact_time(state, L)
    mpmath.mp.dps = 40
    x0, y0, th0, vx, vy, om = (mpmath.mpf(v) for v in state)

    def f(tt):
        return y0 + vy * tt - mpmath.mpf(G) / 2 * tt**2 + mpmath.mpf(s) * mpmath.mpf(L) * (
            mpmath.sin(th0 + om * tt))

    exact = mpmath.findroot(f, mpmath.mpf(t))
    assert abs(float(exact) - t) <= 2e-15 * t
    # no earlier touch of either end
    ts = np.linspace(0.0, t, 200_001)[:-1]
    lo = np.minimum(*bar_end_heights(state, L, ts))
    assert lo.min() > -1e-12


def test_fall_rejects_a_bar_below_the_floor():
    with pytest.raises(ValueError):
        free_fall_contact_time([0, 0.1, 1.0, 0, 0, 0], 1.0)


# ------------------------------------------------------------------------------------------
# impact of a bar end
# ------------------------------------------------------------------------------------------


def _kkt_impact(m, L, theta, v, s_list, e):
    """Impulse equations solved as one linear system: M dv = J^T P, J v+ = -e J v-."""
    I = m * L * L / 12.0
    M = np.diag([m, m, I])
    J = np.array([[0.0, 1.0, s * L * math.cos(theta)] for s in s_list])
    v = np.asarray(v, float)
    n = len(s_list)
    K = np.block([[M, -J.T], [J, np.zeros((n, n))]])
    rhs = np.concatenate([M @ v, -e * (J @ v)])
    z = np.linalg.solve(K, rhs)
    return z[:3], z[3:]


def _angular_momentum_about(m, L, theta, v, point, centre):
    I = m * L * L / 12.0
    d = np.asarray(centre) - np.asarray(point)
    return I * v[2] + m * (d[0] * v[1] - d[1] * v[0])


@pytest.mark.parametrize("e", [0.0, 0.3, 0.5, 1.0])
@pytest.mark.parametrize("case", [
    (2.0, 1.5, 0.7, (0.4, -3.0, 1.2), -0.5),
    (1.0, 0.8, -0.3, (-1.0, -2.0, -4.0), 0.5),
    (3.0, 1.0, 1.4, (0.0, -1.0, 0.0), -0.5),
    (1.5, 2.0, 0.0, (0.2, -0.5, -0.3), 0.5),
])
def test_impact_against_kkt_and_conservation(case, e):
    m, L, theta, v, s = case
    r = bar_floor_impact(m, L, theta, v, s, e)
    vp, P = _kkt_impact(m, L, theta, v, [s], e)
    assert np.allclose(r["v_plus"], vp, rtol=1e-13, atol=1e-13)
    assert r["impulse"] == pytest.approx(P[0], rel=1e-13)
    assert r["impulse"] > 0.0
    I = m * L * L / 12.0

    def T(w):
        return 0.5 * (m * (w[0] ** 2 + w[1] ** 2) + I * w[2] ** 2)

    assert T(v) - T(vp) == pytest.approx(r["energy_lost"], rel=1e-12, abs=1e-13)
    if e == 1.0:
        assert T(vp) == pytest.approx(T(v), rel=1e-13)
    if e == 0.0:
        assert abs(r["vn_plus"]) < 1e-13
    assert r["vn_plus"] == pytest.approx(-e * r["vn_minus"], abs=1e-13)
    # horizontal momentum and angular momentum about the contact point, for every e
    assert r["v_plus"][0] == v[0] and r["px"] == m * v[0]
    c = np.zeros(2)
    Pt = c + s * L * np.array([math.cos(theta), math.sin(theta)])
    H0 = _angular_momentum_about(m, L, theta, v, Pt, c)
    H1 = _angular_momentum_about(m, L, theta, vp, Pt, c)
    assert H1 == pytest.approx(H0, rel=1e-13, abs=1e-13)
    assert r["H_P_minus"] == pytest.approx(H0, rel=1e-13, abs=1e-13)
    # angular momentum about the centre is NOT conserved (the impulse has a lever arm)
    if abs(math.cos(theta)) > 0.1:
        assert abs(vp[2] - v[2]) > 1e-3


def test_impact_bad_inputs():
    with pytest.raises(ValueError, match="restitution"):
        bar_floor_impact(1.0, 1.0, 0.3, (0, -1, 0), 0.5, 1.5)
    with pytest.raises(ValueError, match="restitution"):
        bar_floor_impact(1.0, 1.0, 0.3, (0, -1, 0), 0.5, -0.1)
    with pytest.raises(ValueError, match="not approaching"):
        bar_floor_impact(1.0, 1.0, 0.3, (0, 1, 0), 0.5, 0.5)


# ------------------------------------------------------------------------------------------
# latch on a two-bar hinge
# ------------------------------------------------------------------------------------------

MS, LS = (2.0, 1.2), (1.5, 1.0)


def _projection_latch(theta, thetad):
    """Quivira's formula in maximal coordinates: dqd = -M^-1 J^T W^-1 J qd^- with the
    ground pin, the hinge pin and the lock row theta1 - theta0."""
    q, qd = two_bar_state(MS, LS, theta, thetad)
    m0, m1 = MS
    L0, L1 = LS
    M = np.diag([m0, m0, m0 * L0**2 / 12, m1, m1, m1 * L1**2 / 12])
    t0, t1 = q[2], q[5]
    J = np.zeros((5, 6))
    # ground pin: (x0, y0) - L0/2 (cos t0, sin t0) = O
    J[0, [0, 2]] = 1.0, 0.5 * L0 * math.sin(t0)
    J[1, [1, 2]] = 1.0, -0.5 * L0 * math.cos(t0)
    # hinge: bar1(s=-0.5) - bar0(s=+0.5)
    J[2, [3, 5, 0, 2]] = 1.0, 0.5 * L1 * math.sin(t1), -1.0, 0.5 * L0 * math.sin(t0)
    J[3, [4, 5, 1, 2]] = 1.0, -0.5 * L1 * math.cos(t1), -1.0, -0.5 * L0 * math.cos(t0)
    J[4, [5, 2]] = 1.0, -1.0
    Minv = np.linalg.inv(M)
    W = J @ Minv @ J.T
    return q, qd, qd - Minv @ J.T @ np.linalg.solve(W, J @ qd), M


def _H_O(q, qd):
    m = np.array([MS[0], MS[1]])
    I = m * np.array(LS) ** 2 / 12
    return sum(I[i] * qd[3 * i + 2] + m[i] * (q[3 * i] * qd[3 * i + 1]
                                               - q[3 * i + 1] * qd[3 * i]) for i in range(2))


@pytest.mark.parametrize("theta,thetad", [((-0.3, 0.5), (1.0, -2.0)),
                                          ((1.0, 2.5), (-0.4, 3.0)),
                                          ((0.2, 0.2 - 2.0), (0.0, 5.0))])
def test_latch_against_projection_and_angular_momentum(theta, thetad):
    r = two_bar_latch(MS, LS, theta, thetad)
    q, qd, qd_plus, M = _projection_latch(theta, thetad)
    assert np.allclose(r["qd_plus"], qd_plus, atol=1e-13)
    assert np.allclose(r["qd_minus"], qd, atol=1e-15)
    assert _H_O(q, qd_plus) == pytest.approx(_H_O(q, qd), rel=1e-13)
    assert r["H_O"] == pytest.approx(_H_O(q, qd), rel=1e-13)
    lost = 0.5 * qd @ M @ qd - 0.5 * qd_plus @ M @ qd_plus
    assert r["energy_lost"] == pytest.approx(lost, rel=1e-12)
    assert r["energy_lost"] > 0.0
    # the minimal mass matrix is the maximal one projected
    _, V0 = two_bar_state(MS, LS, theta, (1.0, 0.0))
    _, V1 = two_bar_state(MS, LS, theta, (0.0, 1.0))
    V = np.column_stack([V0, V1])
    assert np.allclose(V.T @ M @ V, two_bar_mass_matrix(MS, LS, theta[1] - theta[0]),
                       atol=1e-14)


def test_latch_reference_without_gravity():
    """g = 0: H_O and the energy are conserved before the latch (checks the free two-bar
    ODE), the energy drops by the latch loss, then the pair spins uniformly."""
    r = two_bar_latch_reference(MS, LS, (-0.3, 0.6), (1.0, -2.0), -0.5, g=0.0, t_end=1.0)
    tl = r["t_latch"]
    assert 0.05 < tl < 0.9
    before, after = r["t"] < tl, r["t"] > tl
    H = np.array([_H_O(q, qd) for q, qd in zip(r["q"], r["qd"])])
    assert np.max(np.abs(H - H[0])) < 1e-11
    E = r["energy"]
    assert np.max(np.abs(E[before] - E[0])) < 1e-11
    assert np.max(np.abs(E[after] - (E[0] - r["latch"]["energy_lost"]))) < 1e-11
    assert np.allclose(r["theta"][after, 1] - r["theta"][after, 0], -0.5, atol=1e-14)
    assert np.allclose(r["thetad"][after], r["latch"]["Omega"], atol=1e-14)


def test_latch_reference_with_gravity():
    r = two_bar_latch_reference(MS, LS, (-0.3, 0.6), (1.0, -2.0), 0.4, g=G, t_end=1.0)
    tl = r["t_latch"]
    before, after = r["t"] < tl, r["t"] > tl
    assert before.sum() > 5 and after.sum() > 5
    E = r["energy"]
    assert np.max(np.abs(E[before] - E[0])) < 1e-10
    assert np.max(np.abs(E[after] - (E[0] - r["latch"]["energy_lost"]))) < 1e-10
    # the latch state is the event: phi = phi_L, and it is held afterwards
    assert np.allclose(r["theta"][after, 1] - r["theta"][after, 0], 0.4, atol=1e-14)
    phi = r["theta"][:, 1] - r["theta"][:, 0]
    assert np.all(phi[before] > 0.4)


# ------------------------------------------------------------------------------------------
# bouncing
# ------------------------------------------------------------------------------------------


def test_bouncing_against_stepping_the_flights():
    H0, e = 1.0, 0.5
    r = bouncing_sequence(H0, e, G, h_min=1e-6)
    # step the flights: fall, bounce with v+ = -e v-, rise and fall for 2 v+/g
    t, v = math.sqrt(2 * H0 / G), -math.sqrt(2 * G * H0)
    for k in range(len(r["t"])):
        assert r["t"][k] == pytest.approx(t, rel=1e-14)
        assert r["v_minus"][k] == pytest.approx(v, rel=1e-14)
        vp = -e * v
        t += 2 * vp / G
        v = -vp
    assert r["height_after"][-1] < 1e-6 <= r["height_after"][-2]
    # the series of flight times sums to the Zeno limit
    total = r["t"][0] + sum(2 * vp / G for vp in r["v_plus"][:-1])
    tail = 2 * r["v_plus"][-1] / G / (1 - e)  # remaining geometric tail
    assert total + tail == pytest.approx(r["t_inf"], rel=1e-14)
    assert r["t_inf"] == pytest.approx(3 * math.sqrt(2 * H0 / G), rel=1e-15)  # (1+e)/(1-e)=3
    # energy: each impact loses (1 - e^2) of the kinetic energy at impact
    assert np.allclose(r["energy_lost"], 0.75 * 0.5 * r["v_minus"] ** 2, rtol=1e-14)


def test_bouncing_resting_threshold():
    r = bouncing_sequence(1.0, 0.5, G, v_min=0.05)
    assert abs(r["v_minus"][-1]) < 0.05 <= abs(r["v_minus"][-2])
    assert r["t_rest"] == r["t"][-1] < r["t_inf"]
    with pytest.raises(ValueError):
        bouncing_sequence(1.0, 1.0, G, h_min=1e-3)


def test_flat_bar_lands_like_a_point():
    """Both ends at once: the 2-contact impulse problem gives the point-mass rebound."""
    m, L, e = 1.5, 1.2, 0.5
    v = (0.0, -3.0, 0.0)
    vp, P = _kkt_impact(m, L, 0.0, v, [-0.5, 0.5], e)
    assert np.allclose(vp, (0.0, 1.5, 0.0), atol=1e-14)
    assert P[0] == pytest.approx(P[1], rel=1e-14)
    assert P.sum() == pytest.approx(m * (1 + e) * 3.0, rel=1e-14)


# ------------------------------------------------------------------------------------------
# the latching lattice peer
# ------------------------------------------------------------------------------------------


@functools.cache
def _lattice_module():
    path = Path(__file__).resolve().parents[2] / "quivira_oracles" / "peers" / (
        "exudyn_latching_lattice.py")
    spec = importlib.util.spec_from_file_location("exudyn_latching_lattice", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _lattice_q(mod, alpha):
    return np.array([c for b in mod.lattice(alpha0=alpha)["bars"] for c in b[:3]])


def test_lattice_reduction_matches_its_bars():
    """M_eff, spring energy and gravity of the 1-DOF formulas against the 16 bars built at
    that angle (finite differences of the bar coordinates)."""
    mod = _lattice_module()
    spec = mod.lattice()
    m = np.array([b[4] for b in spec["bars"]])
    inertia = m * np.array([b[3] for b in spec["bars"]]) ** 2 / 12
    mi = np.repeat(m, 3)
    mi[2::3] = inertia
    for a in (0.6, 0.9, 1.19):
        d = 1e-6
        V = (_lattice_q(mod, a + d) - _lattice_q(mod, a - d)) / (2 * d)
        assert np.sum(mi * V * V) == pytest.approx(mod.effective_mass(a), rel=1e-8)

        def potential(alpha):
            q = _lattice_q(mod, alpha)
            th = q[2::3]
            U = sum(0.5 * mod.K_HINGE * ((th[b] - (0.0 if a_ is None else th[a_])) - phi0) ** 2
                    for a_, b, phi0 in spec["springs"])
            return U + G * np.sum(m * q[1::3])

        dVda = (potential(a + d) - potential(a - d)) / (2 * d)
        assert -dVda == pytest.approx(mod.generalized_torque(a), rel=1e-7)
    # every joint of the description holds at another angle (the lattice is 1-DOF in alpha)
    q = _lattice_q(mod, 1.0)
    assert mod._residual(mod.lattice(), q) < 1e-15


def test_lattice_latch_time_against_ode():
    mod = _lattice_module()
    ex = mod.exact_reference()
    S2 = mod.CELLS * (4 * mod.CELLS**2 - 1) / 12

    def rhs(_t, y):
        a, ad = y
        dM = 2 * mod.MASS * mod.LENGTH**2 * math.sin(2 * a) * (mod.CELLS / 4 - S2)
        return [ad, (mod.generalized_torque(a) - 0.5 * dM * ad * ad) / mod.effective_mass(a)]

    def hit(_t, y):
        return y[0] - mod.ALPHA_LATCH

    hit.terminal = True
    sol = solve_ivp(rhs, (0, 2), [mod.ALPHA0, 0.0], method="DOP853", rtol=1e-13, atol=1e-13,
                    events=hit)
    assert sol.t_events[0][0] == pytest.approx(ex["t_latch"], abs=1e-11)
    assert sol.y_events[0][0][1] == pytest.approx(ex["alphad_latch"], rel=1e-10)
    assert 0.5 * mod.effective_mass(mod.ALPHA_LATCH) * ex["alphad_latch"] ** 2 == (
        pytest.approx(ex["kinetic_lost"], rel=1e-13))
    pen = mod.penalty_equilibrium()
    assert mod.generalized_torque(pen["alpha"]) == pytest.approx(
        32 * mod.K_LATCH * (pen["alpha"] - mod.ALPHA_LATCH), rel=1e-10)
    assert -2e-5 < pen["phi_offset"] < 0


def test_lattice_exudyn_short_run():
    mod = _lattice_module()
    r = mod.run(h=1e-3, t_end=1.0)
    ex = r["exact"]
    assert np.all(np.isfinite(r["latch_times"]))
    assert np.ptp(r["latch_times"]) < 1e-9  # the 8 identical cells latch together
    assert abs(r["latch_times"][0] - ex["t_latch"]) < 2e-3
    # 0.4 s after the latch the penalty latch has settled on its static deflection
    assert r["latched_angle_error_vs_penalty"] < 1e-8
    assert r["latched_angle_error"] == pytest.approx(-r["penalty"]["phi_offset"], rel=1e-3)
    assert r["kinetic_end"] < 1e-8
    assert r["residual"] < 1e-10
