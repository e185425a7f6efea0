"""Point kinematics: the slider-crank's exact closed form, the circle of a crank tip, the
moving-frame split against finite differences, and the errors of bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

import quivira as qv
from quivira.examples import four_bar

R_CRANK, L_ROD = 0.4, 1.3  # slider-crank: crank r, rod l


def slider_crank(theta0: float = 0.7) -> qv.BarJointModel:
    """Crank bar 0 pinned at the origin, rod bar 1, rod end on a roller along y = 0."""
    ax, ay = R_CRANK * math.cos(theta0), R_CRANK * math.sin(theta0)
    xb = ax + math.sqrt(L_ROD ** 2 - ay ** 2)
    m = qv.bar_joint_model()
    m.add_bar_from_point_pair((0.0, 0.0), (ax, ay), 1.0)
    m.add_bar_from_point_pair((ax, ay), (xb, 0.0), 1.0)
    m.add_support(0, -0.5, fixed_x=True, fixed_y=True)
    m.add_joint([0, 1], [0.5, -0.5])
    m.add_support(1, 0.5, fixed_x=False, fixed_y=True)
    return m


def slider_x(th):
    """Textbook slider position and its exact first and second derivatives in θ."""
    r, l = R_CRANK, L_ROD
    S = np.sqrt(l ** 2 - r ** 2 * np.sin(th) ** 2)
    x = r * np.cos(th) + S
    x1 = -r * np.sin(th) - r ** 2 * np.sin(th) * np.cos(th) / S
    x2 = (-r * np.cos(th) - r ** 2 * np.cos(2 * th) / S
          - r ** 4 * np.sin(th) ** 2 * np.cos(th) ** 2 / S ** 3)
    return x, x1, x2


def test_textbook_derivatives_agree_with_sympy():
    th = sp.symbols("theta")
    x = R_CRANK * sp.cos(th) + sp.sqrt(L_ROD ** 2 - R_CRANK ** 2 * sp.sin(th) ** 2)
    for v in (0.3, 1.9, 4.0):
        ref = [float(e.subs(th, v)) for e in (x, sp.diff(x, th), sp.diff(x, th, 2))]
        assert np.allclose(slider_x(v), ref, rtol=1e-13, atol=1e-13)


def test_slider_along_sweep_at_constant_rate_matches_closed_form():
    model = slider_crank()
    omega = 3.0
    thetas = np.linspace(0.7, 0.7 + 2 * math.pi, 73)
    sweep = model.kinematic_sweep("th0", thetas)
    pm = model.point_motion("bar1", 0.5, sweep, rate=omega)
    x, x1, x2 = slider_x(sweep.values)
    assert pm.position.shape == (73, 2)
    assert np.allclose(pm.position[:, 0], x, atol=1e-9)
    assert np.allclose(pm.position[:, 1], 0.0, atol=1e-9)
    assert np.allclose(pm.velocity[:, 0], omega * x1, atol=1e-8)
    assert np.allclose(pm.acceleration[:, 0], omega ** 2 * x2, atol=1e-7)
    assert np.allclose(pm.velocity[:, 1], 0.0, atol=1e-9)
    assert np.allclose(pm.acceleration[:, 1], 0.0, atol=1e-7)
    # a straight path: no normal acceleration, infinite radius (where the slider moves)
    moving = np.abs(x1) > 1e-3
    assert np.all(np.isinf(pm.curvature_radius[moving]))
    assert np.allclose(pm.normal_acceleration, 0.0, atol=1e-7)


def test_state_uses_the_models_exact_accelerations():
    """At a state, a = x''(θ) θ̇² + x'(θ) θ̈ with θ̈ the model's own q̈ (gravity drives it)."""
    model = slider_crank()
    sweep = model.kinematic_sweep("th0", [0.7, 0.8])
    omega = -2.5
    state = np.concatenate([sweep.q[0], omega * sweep.dq[0]])
    pm = model.point_motion(1, 0.5, state)
    alpha = model.matrices(state).qdd[2]
    _, x1, x2 = slider_x(0.7)
    assert pm.position.shape == (2,)
    assert abs(alpha) > 0.1  # gravity does accelerate the crank: the test can tell
    assert pm.velocity[0] == pytest.approx(omega * x1, abs=1e-10)
    assert pm.acceleration[0] == pytest.approx(x2 * omega ** 2 + x1 * alpha, abs=1e-9)
    assert pm.acceleration[1] == pytest.approx(0.0, abs=1e-9)


def test_crank_tip_circle_tangential_normal_split():
    """The crank tip at constant ω: a_t = 0, a_n = ω² r towards the pivot, radius r."""
    model = slider_crank()
    sweep = model.kinematic_sweep("th0", np.linspace(0.7, 2.0, 9))
    omega = 4.0
    pm = model.point_motion(0, (R_CRANK / 2, 0.0), sweep, rate=omega)
    assert np.allclose(np.linalg.norm(pm.position, axis=1), R_CRANK, atol=1e-12)
    assert np.allclose(pm.speed, omega * R_CRANK, atol=1e-9)
    assert np.allclose(pm.tangential_acceleration, 0.0, atol=1e-8)
    assert np.allclose(pm.normal_acceleration, -omega ** 2 * pm.position, atol=1e-8)
    assert np.allclose(pm.curvature_radius, R_CRANK, rtol=1e-9)


def test_moving_frame_split_against_finite_differences():
    """Slider seen from the rod's frame: v_rel, a_rel by central differences of its local
    coordinates along a fine sweep; the parts add up to the absolute acceleration."""
    model = slider_crank()
    h = 1e-3
    th = np.array([1.1 - h, 1.1, 1.1 + h])
    omega = 2.0
    sweep = model.kinematic_sweep("th0", th)
    pm = model.point_motion("bar1", 0.5, sweep, frame="bar0", rate=omega)
    rel = pm.relative
    rho = rel.local_position
    rho_d = omega * (rho[2] - rho[0]) / (2 * h)
    rho_dd = omega ** 2 * (rho[2] - 2 * rho[1] + rho[0]) / h ** 2
    t = sweep.q[1, 2]
    R = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    assert np.allclose(rel.velocity[1], R @ rho_d, atol=1e-5)
    assert np.allclose(rel.acceleration[1], R @ rho_dd, atol=1e-4)
    assert np.allclose(rel.velocity + rel.transport_velocity, pm.velocity, atol=1e-12)
    assert np.allclose(rel.total, pm.acceleration, atol=1e-10)
    assert np.linalg.norm(rel.coriolis[1]) > 0.1  # the split is not trivial here


def test_trajectory_frames_match_single_states():
    model = four_bar()
    traj = model.simulate(0.2, 5)
    pm = model.point_motion(1, (0.3, 0.2), traj)
    assert pm.acceleration.shape == (5, 2)
    k = 3
    one = model.point_motion(1, (0.3, 0.2), traj.states[k])
    assert np.allclose(pm.position[k], one.position, atol=1e-12)
    assert np.allclose(pm.velocity[k], one.velocity, atol=1e-12)
    assert np.allclose(pm.acceleration[k], one.acceleration, atol=1e-8)


@pytest.mark.parametrize("kwargs, err, match", [
    ({"body": "bar9"}, ValueError, "no body is called"),
    ({"body": 7}, ValueError, "out of range"),
    ({"body": 1.5}, TypeError, "integer"),
    ({"point": 0.7}, ValueError, r"\[-0.5, 0.5\]"),
    ({"source": [0.0, 1.0]}, ValueError, "state"),
    ({"frame": "particle2"}, ValueError, "no body is called"),
    ({"source": [np.nan] * 18}, ValueError, "finite|NaN|nan"),
])
def test_bad_input_names_what_to_fix(kwargs, err, match):
    model = four_bar()
    args = {"body": 0, "point": 0.5, "source": None} | kwargs
    with pytest.raises(err, match=match):
        model.point_motion(args.pop("body"), args.pop("point"), args.pop("source"), **args)


def test_state_off_the_constraints_is_refused():
    model = four_bar()
    state = np.asarray(model.get_initial_state())
    state[0] += 0.01
    with pytest.raises(ValueError, match="off the constraints"):
        model.point_motion(0, 0.5, state)
