"""Internal forces along bars: N(s), V(s), M(s) against closed forms (simply
supported bar, spinning free bar) and the balance of a free end along a simulated motion."""

from __future__ import annotations

import math

import heyoka as hy
import numpy as np
import pytest

import quivira as qv
from quivira.examples import chain


def simply_supported(theta: float, L: float = 2.0, s_p: float = 0.25,
                     P: tuple[float, float] = (3.0, -10.0)) -> qv.BarJointModel:
    """A bar at angle θ, pinned at s = −0.5, on a roller at s = +0.5 that is free along the
    bar, a point load P at s_p given in the bar frame (axial, transverse); no gravity."""
    c, s = math.cos(theta), math.sin(theta)
    m = qv.BarJointModel()
    m.set_g(0.0)
    m.add_bar_at_attitude(0.0, 0.0, theta, L, 1.0)
    m.add_support(0, -0.5, False, False)
    # roller: a slider along the bar's direction through its end (a ground slider at θ)
    m.add_ground_slider(0, 0.5, theta)
    pa, pt = P
    m.add_external_force(0, s_p, pa * c - pt * s, pa * s + pt * c)
    return m


@pytest.mark.parametrize("theta", [0.0, 0.7, -2.3])
def test_simply_supported_bar_closed_form_diagrams(theta):
    L, s_p, (Pa, Pt) = 2.0, 0.25, (3.0, -10.0)
    m = simply_supported(theta, L, s_p, (Pa, Pt))
    eq = m.equilibrium()
    s = np.linspace(-0.5, 0.5, 41)
    # not at the load itself nor at the right support (jumps there; values at a section
    # include the point actions at it, so the right end is zero: checked below)
    s = s[(np.abs(s - s_p) > 1e-9) & (s < 0.5)]
    f = m.internal_forces(eq, s=s)
    x = s * L
    a_ = (s_p + 0.5) * L
    b_ = L - a_
    RA, RB = -Pt * b_ / L, -Pt * a_ / L  # transverse reactions (load Pt < 0 is "down")
    left = x < s_p * L
    N = np.where(left, Pa, 0.0)  # the pin takes the axial load: tension between them
    V = np.where(left, RA, -RB)
    M = np.where(left, RA * (x + L / 2), RB * (L / 2 - x))
    err = max(np.max(np.abs(f.N[0, 0] - N)), np.max(np.abs(f.V[0, 0] - V)),
              np.max(np.abs(f.M[0, 0] - M)))
    print(f"simply supported bar at θ = {theta}: max N/V/M error {err:.2e}")
    assert err < 1e-12
    peak = m.internal_forces(eq, s=np.linspace(-0.5, 0.5, 41))  # s_p among the sections
    assert abs(peak.max_abs_M()[0] - RA * a_) < 1e-12
    assert abs(peak.max_abs_N()[0] - Pa) < 1e-12
    assert abs(eq.axial_force[0] - Pa) < 1e-12  # centre (s = 0) is left of the load
    end = m.internal_forces(eq, s=[0.5])
    assert max(abs(end.N[0, 0, 0]), abs(end.V[0, 0, 0]), abs(end.M[0, 0, 0])) < 1e-12


def spinning_bar(omega: float, L: float = 1.5, mass: float = 2.0) -> qv.BarJointModel:
    m = qv.BarJointModel()
    m.set_g(9.81)  # gravity does not load a free-falling bar
    m.add_bar_at_attitude(0.3, -0.2, 0.4, L, mass)
    m.set_init_bar_velocities(0, 1.0, 0.5, omega)
    return m


def test_spinning_free_bar_axial_force():
    omega, L, mass = 7.0, 1.5, 2.0
    m = spinning_bar(omega, L, mass)
    traj = m.simulate(1.0, n_points=11)
    f = m.internal_forces(traj, s=21)
    x = f.s * L
    N = mass * omega ** 2 * (L ** 2 - 4 * x ** 2) / (8 * L)
    err = np.max(np.abs(f.N[:, 0] - N[None, :]))
    print(f"spinning bar: max |N − m ω² (L² − 4x²)/(8L)| = {err:.2e} N over 11 frames "
          f"(N(0) = {N[10]:.4f} N)")
    assert err < 1e-9 * N.max()
    assert np.max(np.abs(f.V)) < 1e-9 * N.max() and np.max(np.abs(f.M)) < 1e-9 * N.max()
    # one state as well
    one = m.internal_forces(m.get_initial_state(), s=[0.0])
    assert abs(one.N[0, 0, 0] - mass * omega ** 2 * L / 8) < 1e-12 * N.max()


def five_point_derivative(y: np.ndarray, dt: float) -> np.ndarray:
    """dy/dt by the fourth-order central stencil (one-sided second order at the ends)."""
    d = np.empty_like(y)
    d[2:-2] = (y[:-4] - 8 * y[1:-3] + 8 * y[3:-1] - y[4:]) / (12 * dt)
    d[:2] = (y[1:3] - y[:2]) / dt
    d[-2:] = (y[-2:] - y[-3:-1]) / dt
    return d


@pytest.mark.slow
def test_free_end_is_unloaded_in_every_frame():
    m = chain(2)  # bar 0 pinned at its s = -0.5 end, bar 1 hangs from it, s = +0.5 free
    m.set_init_bar_velocities(1, 0.0, 0.0, 2.0)
    # loads of every kind on the free bar, each at its own point (or a couple)
    m.add_spring_damper(1, 0.2, None, k=30.0, c=0.5, l0=0.4, ground_point=(1.5, -0.5))
    m.add_torsional_spring(0, 1, k=5.0, c=0.1)
    m.add_external_force(1, -0.2, 2.0, 1.0, torque=0.3)
    m.add_torque_actuator(1, 0.8 * hy.sin(3 * hy.time))
    m.assemble()
    traj = m.simulate(1.0, n_points=1001, tol=1e-15)
    dt = traj.t[1] - traj.t[0]
    # accelerations of the motion itself, independent of the multipliers
    qdd = five_point_derivative(traj.qd, dt)
    inner = slice(2, -2)
    f = m.internal_forces(traj, s=[-0.5, 0.0, 0.5], qdd=qdd)
    scale = max(f.max_abs_N()[1], f.max_abs_M()[1] / 1.0)
    free = np.abs(np.stack([f.N[inner, 1, 2], f.V[inner, 1, 2], f.M[inner, 1, 2]]))
    print(f"free end: max |N|, |V|, |M| = {free.max(axis=1)} over {free.shape[1]} frames "
          f"(max |N| of the bar {f.max_abs_N()[1]:.4f} N)")
    assert np.max(free) < 1e-6 * scale
    # the check can fail: multipliers 1 % off leave the free end loaded
    wrong = m.internal_forces(traj, s=[0.5], qdd=qdd, lambda_mult=1.01 * traj.lambda_mult)
    assert np.max(np.abs(wrong.N[inner, 1, 0])) > 1e-3 * scale
    # the trajectory's own method gives the same numbers
    f2 = traj.internal_forces(m, s=[-0.5, 0.0, 0.5], qdd=qdd)
    assert np.array_equal(f2.N, f.N)
    df = f.to_pandas()
    assert list(df.columns) == ["t", "bar", "s", "x", "N", "V", "M"]
    assert len(df) == traj.n_points * 2 * 3


def test_pendulum_at_rest_axial_force_and_hinge_moment():
    # a hanging bar: N(x) = weight of the part below the section; no shear, no moment
    m = qv.BarJointModel()
    m.add_bar_at_attitude(0.0, -0.5, -math.pi / 2, 1.0, 3.0)
    m.add_support(0, -0.5, False, False, 0.0, 0.0)
    eq = m.equilibrium()
    f = m.internal_forces(eq, s=11)
    below = (0.5 - f.s) * 1.0  # length below the section (s = -0.5 at the pin, top)
    np.testing.assert_allclose(f.N[0, 0], 3.0 * 9.81 * below, atol=1e-12)
    assert np.max(np.abs(f.V)) < 1e-12 and np.max(np.abs(f.M)) < 1e-12


def test_bad_inputs_raise_clear_errors():
    m = spinning_bar(1.0)
    before = m.to_dict()
    with pytest.raises(ValueError, match="at least 2 sections"):
        m.internal_forces(s=1)
    with pytest.raises(ValueError, match=r"\[-0.5, 0.5\]"):
        m.internal_forces(s=[0.0, 0.7])
    with pytest.raises(TypeError, match="s must be"):
        m.internal_forces(s="many")
    with pytest.raises(ValueError, match="6 values"):
        m.internal_forces([0.0, 1.0])
    with pytest.raises(TypeError, match="source must be"):
        m.internal_forces(object())
    with pytest.raises(ValueError, match="bar"):
        m.internal_forces(bars=[3])
    traj = chain(2).simulate(0.1, n_points=3)
    with pytest.raises(ValueError, match="not of this model"):
        m.internal_forces(traj)
    with pytest.raises(ValueError, match="qdd must have shape"):
        m.internal_forces(qdd=np.zeros((2, 3)))
    assert m.to_dict() == before


def test_spring_and_weight_on_a_propped_bar_closed_form():
    # horizontal bar, pin at its left end, roller (free in x) at its right end, a spring from
    # x_s straight up to a ground point at height h (tension k (h - l0)), gravity
    L, mass, g, k, l0, h, s_s = 2.0, 3.0, 9.81, 40.0, 0.5, 1.0, 0.2
    m = qv.BarJointModel()
    m.set_g(g)
    m.add_bar_at_attitude(0.0, 0.0, 0.0, L, mass)
    m.add_support(0, -0.5, False, False)
    m.add_support(0, 0.5, True, False)
    m.add_spring_damper(0, s_s, None, k=k, l0=l0, ground_point=(s_s * L, h))
    eq = m.equilibrium()
    s = np.linspace(-0.5, 0.5, 41)
    s = s[(np.abs(s - s_s) > 1e-9) & (s < 0.5)]
    f = m.internal_forces(eq, s=s)
    x, xs, mu, T = s * L, s_s * L, mass / L, k * (h - l0)
    RB = (mass * g * L / 2 - T * (xs + L / 2)) / L
    RA = mass * g - T - RB
    past = (x >= xs).astype(float)
    V = RA - mu * g * (x + L / 2) + T * past
    M = RA * (x + L / 2) - mu * g * (x + L / 2) ** 2 / 2 + T * (x - xs) * past
    err = max(np.max(np.abs(f.V[0, 0] - V)), np.max(np.abs(f.M[0, 0] - M)),
              np.max(np.abs(f.N[0, 0])))
    print(f"propped bar with a spring: max N/V/M error {err:.2e}")
    assert err < 1e-12
    np.testing.assert_allclose(eq.support_force(1), [0.0, RB], atol=1e-12)


def test_cantilever_on_a_torsional_spring_root_moment():
    # a bar pinned at its left end to the ground with a torsional spring there, a vertical tip
    # load P: it turns until k (φ − φ0) = −P L cos φ; then M(x) = −P (L/2 − x) cos φ all
    # along the bar (the spring's couple acts at the root, not at the centre)
    L, k, P = 1.5, 200.0, 30.0
    m = qv.BarJointModel()
    m.set_g(0.0)
    m.add_bar_at_attitude(0.0, 0.0, 0.0, L, 1.0)
    m.add_support(0, -0.5, False, False)
    m.add_torsional_spring(None, 0, k=k)
    m.add_external_force(0, 0.5, 0.0, -P)
    eq = m.equilibrium()
    phi = eq.q[2]
    assert abs(k * phi + P * L * math.cos(phi)) < 1e-10 * P * L
    f = m.internal_forces(eq, s=np.linspace(-0.5, 0.45, 20))
    x = f.s * L
    M = -P * (L / 2 - x) * math.cos(phi)
    V = P * math.cos(phi)
    N = -P * math.sin(phi)  # the tip load's component along the bar (φ < 0: tension)
    err = max(np.max(np.abs(f.M[0, 0] - M)), np.max(np.abs(f.V[0, 0] - V)),
              np.max(np.abs(f.N[0, 0] - N)))
    print(f"cantilever on a torsional spring (φ = {phi:.6f}): max N/V/M error {err:.2e}")
    assert err < 1e-12


def test_overhanging_beam_on_a_slot_closed_form():
    # bar 0 (L = 2, horizontal) pinned at its left end; a vertical post (bar 1) pinned to the
    # ground, its top in a slot along bar 0 at x_c; a load P down at the free right end of
    # bar 0. The slot force sits where its line of action crosses bar 0's axis: x_c.
    L, x_c, P = 2.0, 0.3, 12.0
    m = qv.BarJointModel()
    m.set_g(0.0)
    m.add_bar_at_attitude(0.0, 0.0, 0.0, L, 1.0)
    m.add_bar_from_point_pair((x_c, -1.0), (x_c, 0.0))
    m.add_support(0, -0.5, False, False)
    m.add_support(1, -0.5, False, False)
    m.add_pin_in_slot(0, 1, 0.5)
    m.add_external_force(0, 0.5, 0.0, -P)
    eq = m.equilibrium()
    s = np.linspace(-0.5, 0.45, 20)
    s = s[np.abs(s * L - x_c) > 1e-9]
    f = m.internal_forces(eq, s=s, bars=[0])
    x = s * L
    Rc = P * L / (x_c + L / 2)  # moments about the pin
    RA = P - Rc
    V = np.where(x < x_c, RA, RA + Rc)
    M = np.where(x < x_c, RA * (x + L / 2), -P * (L / 2 - x))
    err = max(np.max(np.abs(f.V[0, 0] - V)), np.max(np.abs(f.M[0, 0] - M)),
              np.max(np.abs(f.N[0, 0])))
    print(f"overhanging beam on a slot: max N/V/M error {err:.2e}")
    assert err < 1e-12
    # the post is a two-force member in compression Rc
    post = m.internal_forces(eq, s=5, bars=[1])
    np.testing.assert_allclose(post.N[0, 0, :-1], -Rc, atol=1e-12)
