"""Tests of the public :class:`quivira.bar_joint_model` API (building, editing, checking,
simulating, persistence) against numbers computed independently here with numpy.

Conventions under test (see ``quivira/model/core.py``): the state is ``[q..., qd...]``, all
coordinates first, per bar ``(x, y, θ)`` of its centre; the point ``s ∈ [-0.5, 0.5]`` of a
bar is centre + s·L·(cos θ, sin θ); inertia m L²/12; gravity g along −y; reaction forces are
the forces exerted ON the bar.
"""

from __future__ import annotations

import copy
import json
import math
import re

import heyoka as hy
import numpy as np
import pytest

import quivira
from quivira import bar_joint_model

G = 9.81


# ------------------------------------------------------------------------------------------
# helpers: independent geometry and small models
# ------------------------------------------------------------------------------------------


def point(q, i, L, s):
    """Point ``s`` of bar ``i`` (length ``L``) at coordinates ``q``."""
    x, y, th = q[3 * i : 3 * i + 3]
    return np.array([x + s * L * math.cos(th), y + s * L * math.sin(th)])


def point_velocity(q, qd, i, L, s):
    th = q[3 * i + 2]
    vx, vy, om = qd[3 * i : 3 * i + 3]
    return np.array([vx - s * L * om * math.sin(th), vy + s * L * om * math.cos(th)])


def own_residuals(model, state):
    """``(labels, F, J qd)`` computed here from the model's records, in the documented order:
    joints (rows ``p_bk - p_b0`` for k >= 1, x then y), then supports (fixed directions)."""
    n = 3 * model.n_bars
    q, qd = np.asarray(state[:n], float), np.asarray(state[n:], float)
    bars = model.bars
    labels, F, V = [], [], []
    for j, jt in enumerate(model.joints):
        b0, s0 = jt.bars[0], jt.s[0]
        p0 = point(q, b0, bars[b0].length, s0)
        v0 = point_velocity(q, qd, b0, bars[b0].length, s0)
        for bk, sk in zip(jt.bars[1:], jt.s[1:]):
            pk = point(q, bk, bars[bk].length, sk)
            vk = point_velocity(q, qd, bk, bars[bk].length, sk)
            for c, ax in enumerate("xy"):
                labels.append(f"joint{j}.bar{bk}.{ax}")
                F.append(pk[c] - p0[c])
                V.append(vk[c] - v0[c])
    for k, sp in enumerate(model.supports):
        p = point(q, sp.bar, bars[sp.bar].length, sp.s)
        v = point_velocity(q, qd, sp.bar, bars[sp.bar].length, sp.s)
        for c, ax, free, target in ((0, "x", sp.free_x, sp.x), (1, "y", sp.free_y, sp.y)):
            if not free:
                labels.append(f"support{k}.{ax}")
                F.append(p[c] - target)
                V.append(v[c])
    return labels, np.array(F), np.array(V)


def jacobian_via_api(model, q):
    """J at ``q`` from check_constraint_fulfillment with unit velocities (public API only)."""
    n = len(q)
    cols = []
    for k in range(n):
        qd = np.zeros(n)
        qd[k] = 1.0
        cols.append(model.check_constraint_fulfillment(np.concatenate([q, qd]))["velocity"])
    return np.array(cols).T


def pendulum(mass=2.0, length=1.0, theta0=0.0, force=False):
    """A bar pinned at its s = -0.5 end at the origin, drawn at angle ``theta0``."""
    m = bar_joint_model()
    c = 0.5 * length * np.array([math.cos(theta0), math.sin(theta0)])
    m.add_bar_at_attitude(c[0], c[1], theta0, length, mass)
    m.add_support(0, -0.5, False, False)
    if force:
        m.add_external_force(0, 0.5, 0.0, 0.0, 0.0)
    return m


FOUR_BAR_NODES = [(0.0, 0.0), (0.3, 0.8), (1.2, 0.9), (1.5, 0.0)]


def four_bar(perturb=0.0, seed=1):
    """Crank (bar 0), coupler (bar 1), rocker (bar 2), ground pins at A and D."""
    A, B, C, D = FOUR_BAR_NODES
    m = bar_joint_model()
    for p0, p1 in ((A, B), (B, C), (C, D)):
        m.add_bar_from_point_pair(p0, p1, mass_per_length=2.0)
    m.add_joint([0, 1], [0.5, -0.5])
    m.add_joint([1, 2], [0.5, -0.5])
    m.add_support(0, -0.5, False, False)
    m.add_support(2, 0.5, False, False)
    if perturb:
        rng = np.random.default_rng(seed)
        state = np.array(m.get_initial_state())
        state[:9] += perturb * rng.uniform(-1.0, 1.0, 9)
        m.set_initial_state(state)
    return m


def double_pendulum():
    m = bar_joint_model()
    a0, a1 = -0.3, 0.7
    m.add_bar_at_attitude(0.5 * math.cos(a0), 0.5 * math.sin(a0), a0, 1.0, 2.0)
    e = np.array([math.cos(a0), math.sin(a0)])
    m.add_bar_at_attitude(e[0] + 0.4 * math.cos(a1), e[1] + 0.4 * math.sin(a1), a1, 0.8, 1.5)
    m.add_support(0, -0.5, False, False)
    m.add_joint([0, 1], [0.5, -0.5])
    m.add_external_force(1, 0.25, 1.0, -2.0, 0.3)
    return m


def rhs_function(model):
    """cfunc of the rhs of ``build_lagrange_eom`` (numeric constants, no parameters)."""
    sys = model.build_lagrange_eom()
    return hy.cfunc([r for _, r in sys], vars=[v for v, _ in sys])


def accelerations(model, states):
    f = rhs_function(model)
    n = 3 * model.n_bars
    return f(np.ascontiguousarray(np.asarray(states).T)).T[:, n:]


# ------------------------------------------------------------------------------------------
# basics: alias, bars three ways, state layout
# ------------------------------------------------------------------------------------------


def test_alias_and_exports():
    assert quivira.BarJointModel is quivira.bar_joint_model
    assert issubclass(quivira.ConstraintWarning, Warning)


def test_add_bar_then_attitude_and_state_layout():
    m = bar_joint_model()
    assert m.add_bar(2.0, 3.0) == 0
    assert m.add_bar(1.5, 0.5) == 1
    assert m.bars[0].pose is None
    with pytest.raises(ValueError, match="no initial pose"):
        m.get_initial_state()
    m.set_init_bar_attitude(0, 0.1, 0.2, 0.3)
    m.set_init_bar_attitude(1, -1.0, 2.0, -0.4)
    m.set_init_bar_velocities(1, 0.5, -0.6, 0.7)
    # all coordinates first, then all velocities
    assert m.get_initial_state() == [0.1, 0.2, 0.3, -1.0, 2.0, -0.4,
                                     0.0, 0.0, 0.0, 0.5, -0.6, 0.7]
    b = m.bars
    assert (b[0].length, b[0].mass, b[1].length, b[1].mass) == (2.0, 3.0, 1.5, 0.5)


def test_add_bar_at_attitude():
    m = bar_joint_model()
    assert m.add_bar_at_attitude(1.0, -2.0, 0.25, 3.0, 4.0) == 0
    (b,) = m.bars
    assert b.pose == (1.0, -2.0, 0.25) and b.length == 3.0 and b.mass == 4.0
    assert m.get_initial_state() == [1.0, -2.0, 0.25, 0.0, 0.0, 0.0]


def test_add_bar_from_point_pair_pose_length_mass():
    m = bar_joint_model()
    start, end = (0.2, -0.1), (1.0, 0.5)
    m.add_bar_from_point_pair(start, end, mass_per_length=3.0)
    m.add_bar_from_point_pair((0.0, 0.0), (-1.0, -2.0))  # default mass_per_length 1
    b0, b1 = m.bars
    assert b0.length == pytest.approx(1.0, abs=1e-15)
    assert b0.mass == pytest.approx(3.0, abs=1e-15)
    x, y, th = b0.pose
    assert (x, y) == pytest.approx((0.6, 0.2), abs=1e-15)
    assert th == pytest.approx(math.atan2(0.6, 0.8), abs=1e-15)
    L1 = math.sqrt(5.0)
    assert b1.length == pytest.approx(L1) and b1.mass == pytest.approx(L1)
    assert b1.pose == pytest.approx((-0.5, -1.0, math.atan2(-2.0, -1.0)))
    # s = -0.5 is the start and s = +0.5 the end
    q = np.array(m.get_initial_state()[:6])
    np.testing.assert_allclose(point(q, 0, b0.length, -0.5), start, atol=1e-15)
    np.testing.assert_allclose(point(q, 0, b0.length, 0.5), end, atol=1e-15)
    np.testing.assert_allclose(point(q, 1, L1, 0.5), (-1.0, -2.0), atol=1e-15)


def test_set_initial_state_round_trip_and_errors():
    m = four_bar()
    state = np.array(m.get_initial_state())
    new = state + np.linspace(0.01, 0.18, 18)
    assert m.set_initial_state(new) == pytest.approx(list(new))
    assert m.get_initial_state() == pytest.approx(list(new), abs=0)
    for i, b in enumerate(m.bars):
        assert b.pose == tuple(new[3 * i : 3 * i + 3])
        assert b.velocity == tuple(new[9 + 3 * i : 9 + 3 * i + 3])
    before = m.to_dict()
    with pytest.raises(ValueError, match="expected 18 values"):
        m.set_initial_state(new[:-1])
    with pytest.raises(ValueError, match="not finite"):
        m.set_initial_state(np.where(np.arange(18) == 4, np.nan, new))
    with pytest.raises(ValueError, match="not finite"):
        m.set_initial_state(np.where(np.arange(18) == 11, np.inf, new))
    assert m.to_dict() == before


# ------------------------------------------------------------------------------------------
# joints, supports, forces
# ------------------------------------------------------------------------------------------


def test_joint_of_three_bars_and_labels():
    m = bar_joint_model()
    for th in (0.0, 1.0, 2.0):
        m.add_bar_at_attitude(0.5 * math.cos(th), 0.5 * math.sin(th), th, 1.0, 1.0)
    assert m.add_joint([0, 1, 2], [-0.5, -0.5, -0.5]) == 0
    assert m.joints[0].bars == [0, 1, 2]
    assert m.constraint_labels == ["joint0.bar1.x", "joint0.bar1.y",
                                   "joint0.bar2.x", "joint0.bar2.y"]


def test_support_defaults_to_current_pose():
    m = bar_joint_model()
    m.add_bar(2.0, 1.0)
    with pytest.raises(ValueError, match="no initial pose"):
        m.add_support(0, 0.25, False, False)
    assert m.supports == []
    m.set_init_bar_attitude(0, 1.0, 2.0, 0.3)
    m.add_support(0, 0.25, False, False)
    m.add_support(0, -0.5, True, False, x=7.0)  # y defaulted only
    m.add_support(0, 0.5, False, True, x=-1.0, y=-2.0)
    s0, s1, s2 = m.supports
    exp = (1.0 + 0.25 * 2.0 * math.cos(0.3), 2.0 + 0.25 * 2.0 * math.sin(0.3))
    assert (s0.x, s0.y) == pytest.approx(exp, abs=1e-15)
    assert (s0.free_x, s0.free_y) == (False, False)
    assert (s1.x, s1.y) == pytest.approx((7.0, 2.0 - 0.5 * 2.0 * math.sin(0.3)), abs=1e-15)
    assert (s1.free_x, s1.free_y) == (True, False)
    assert (s2.x, s2.y, s2.free_x, s2.free_y) == (-1.0, -2.0, False, True)
    # explicit position on a bar without pose is fine
    m.add_bar(1.0, 1.0)
    m.add_support(1, 0.0, False, False, x=0.0, y=0.0)
    # after moving the bar, the default follows the new pose
    m.set_init_bar_attitude(0, 0.0, 0.0, 0.0)
    k = m.add_support(0, 0.5, False, False)
    assert (m.supports[k].x, m.supports[k].y) == pytest.approx((1.0, 0.0))
    assert m.constraint_labels == [
        "support0.x", "support0.y", "support1.y", "support2.x",
        "support3.x", "support3.y", "support4.x", "support4.y"]


def test_point_force_and_torque_on_free_bar():
    """No constraints, g = 0: a force at the centre and a torque act exactly as F/m, τ/I."""
    m = bar_joint_model()
    m.set_g(0.0)
    m.add_bar_at_attitude(0.0, 0.0, 0.2, 2.0, 3.0)
    m.add_external_force(0, 0.0, 1.5, -0.6, torque=0.8)
    assert m.n_constraints == 0
    chk = m.check_constraint_fulfillment(m.get_initial_state())
    assert chk["satisfied"] and chk["labels"] == [] and chk["position"].shape == (0,)
    tr = m.simulate(1.0, 11)
    t = tr.t
    I = 3.0 * 4.0 / 12.0
    np.testing.assert_allclose(tr.q[:, 0], 0.5 * 1.5 / 3.0 * t**2, atol=1e-13)
    np.testing.assert_allclose(tr.q[:, 1], -0.5 * 0.6 / 3.0 * t**2, atol=1e-13)
    np.testing.assert_allclose(tr.q[:, 2], 0.2 + 0.5 * 0.8 / I * t**2, atol=1e-13)
    assert tr.lambda_mult.shape == (11, 0)


def test_force_off_centre_gives_moment_r_cross_f():
    m = bar_joint_model()
    m.set_g(0.0)
    m.add_bar_at_attitude(0.3, 0.4, 0.5, 2.0, 3.0)
    m.add_external_force(0, 0.4, 1.5, -0.6, torque=0.25)
    acc = accelerations(m, [m.get_initial_state()])[0]
    r = 0.4 * 2.0 * np.array([math.cos(0.5), math.sin(0.5)])
    moment = 0.25 + r[0] * -0.6 - r[1] * 1.5
    np.testing.assert_allclose(acc, [1.5 / 3.0, -0.6 / 3.0, moment / (3.0 * 4.0 / 12.0)],
                               atol=1e-14)


# ------------------------------------------------------------------------------------------
# infer_joints
# ------------------------------------------------------------------------------------------


def test_infer_joints_crossing_at_middles_and_idempotent():
    m = bar_joint_model()
    m.add_bar_from_point_pair((-1.0, 0.0), (1.0, 0.0))
    m.add_bar_from_point_pair((0.0, -1.0), (0.0, 1.0))
    assert m.infer_joints() == 1
    (jt,) = m.joints
    assert jt.bars == [0, 1] and jt.s == pytest.approx([0.0, 0.0], abs=1e-12)
    assert m.infer_joints() == 1
    assert len(m.joints) == 1


def test_infer_joints_t_junction():
    m = bar_joint_model()
    m.add_bar_from_point_pair((0.1, 0.2), (1.3, 0.9))
    P = np.array((0.1, 0.2)) + 0.37 * np.array((1.2, 0.7))
    m.add_bar_from_point_pair(tuple(P), (2.0, -1.0))
    assert m.infer_joints() == 1
    (jt,) = m.joints
    assert jt.bars == [0, 1]
    assert jt.s == pytest.approx([0.37 - 0.5, -0.5], abs=1e-12)
    assert m.check_constraint_fulfillment(m.get_initial_state())["satisfied"]


def test_infer_joints_three_bars_one_point_one_joint():
    m = bar_joint_model()
    m.add_bar_from_point_pair((-1.0, 0.0), (1.0, 0.0))
    m.add_bar_from_point_pair((0.0, -1.0), (0.0, 1.0))
    m.add_bar_from_point_pair((-1.0, -1.0), (1.0, 1.0))
    assert m.infer_joints() == 1
    (jt,) = m.joints
    assert sorted(jt.bars) == [0, 1, 2]
    assert jt.s == pytest.approx([0.0, 0.0, 0.0], abs=1e-12)
    assert m.infer_joints() == 1
    assert len(m.joints) == 1


def test_infer_joints_counts_existing_and_completes_a_joint():
    m = bar_joint_model()
    m.add_bar_from_point_pair((0.0, 0.0), (1.0, 0.0))
    m.add_bar_from_point_pair((1.0, 0.0), (1.0, 1.0))
    m.add_bar_from_point_pair((1.0, 0.0), (2.0, 1.0))
    m.add_bar_from_point_pair((5.0, 5.0), (6.0, 5.0))
    m.add_bar_from_point_pair((5.0, 5.0), (5.0, 6.0))
    m.add_joint([0, 1], [0.5, -0.5])  # incomplete joint at (1, 0): bar 2 also ends there
    assert m.infer_joints() == 2  # existing one completed, one new at (5, 5)
    joints = m.joints
    assert sorted(joints[0].bars) == [0, 1, 2]
    assert sorted(joints[1].bars) == [3, 4]
    assert m.infer_joints() == 2
    assert m.check_constraint_fulfillment(m.get_initial_state())["max_position"] < 1e-14


@pytest.mark.parametrize("pairs, joints", [
    ((((0, 0), (1, 0)), ((1, 0), (2, 0))), [([0, 1], [0.5, -0.5])]),    # collinear chain
    ((((0, 0), (1, 0)), ((2, 0), (1, 0))), [([0, 1], [0.5, 0.5])]),     # ends meet
    ((((0, 0), (1, 0)), ((0, 0), (0.5, 1))), [([0, 1], [-0.5, -0.5])]),  # V
    ((((0, 0), (2, 0)), ((1, 0), (3, 0))), []),                          # overlap: no point
    ((((0, 0), (1, 0)), ((0, 0.5), (1, 0.5))), []),                      # parallel apart
    ((((0, 0), (1, 0)), ((0.5, 0.1), (0.5, 1))), []),                    # gap
], ids=["chain", "ends", "V", "overlap", "parallel", "gap"])
def test_infer_joints_special_cases(pairs, joints):
    m = bar_joint_model()
    for p0, p1 in pairs:
        m.add_bar_from_point_pair(p0, p1)
    assert m.infer_joints() == len(joints)
    assert [(j.bars, pytest.approx(j.s, abs=1e-12)) for j in m.joints] == joints


def test_infer_joints_closed_triangle():
    m = bar_joint_model()
    for p0, p1 in (((0, 0), (1, 0)), ((1, 0), (0.5, 1)), ((0.5, 1), (0, 0))):
        m.add_bar_from_point_pair(p0, p1)
    assert m.infer_joints() == 3
    assert sorted(sorted(j.bars) for j in m.joints) == [[0, 1], [0, 2], [1, 2]]


# ------------------------------------------------------------------------------------------
# constraint checks
# ------------------------------------------------------------------------------------------


def test_check_constraint_fulfillment_matches_numpy():
    m = bar_joint_model(tolerance=1e-6)
    m.add_bar_at_attitude(0.0, 0.0, 0.1, 1.0, 1.0)
    m.add_bar_at_attitude(0.9, 0.2, 0.5, 1.2, 2.0)
    m.add_bar_at_attitude(1.5, -0.4, -0.9, 0.7, 1.0)
    m.add_joint([0, 1, 2], [0.5, -0.5, 0.3])
    m.add_support(0, -0.5, False, False, x=-0.4, y=0.05)
    m.add_support(2, 0.5, True, False, x=0.0, y=-0.7)
    m.add_support(1, 0.2, False, True, x=1.0, y=0.0)
    rng = np.random.default_rng(7)
    for _ in range(3):
        state = rng.normal(size=18)
        chk = m.check_constraint_fulfillment(state)
        labels, F, V = own_residuals(m, state)
        assert chk["labels"] == labels == m.constraint_labels
        np.testing.assert_allclose(chk["position"], F, atol=1e-13)
        np.testing.assert_allclose(chk["velocity"], V, atol=1e-13)
        assert chk["max_position"] == pytest.approx(np.max(np.abs(F)), abs=1e-13)
        assert chk["max_velocity"] == pytest.approx(np.max(np.abs(V)), abs=1e-13)
        assert chk["tolerance"] == 1e-6
        assert chk["satisfied"] is False and not chk
    with pytest.raises(ValueError, match="expected 18 values"):
        m.check_constraint_fulfillment(np.zeros(17))


def test_check_constraint_fulfillment_tolerance():
    m = pendulum()
    m.tolerance = 1e-6
    state = np.array(m.get_initial_state())
    assert m.check_constraint_fulfillment(state)["satisfied"]
    state[1] += 5e-7  # within tolerance
    chk = m.check_constraint_fulfillment(state)
    assert chk["satisfied"] and chk["max_position"] == pytest.approx(5e-7, rel=1e-6)
    state[1] += 1e-6
    assert not m.check_constraint_fulfillment(state)["satisfied"]
    state = np.array(m.get_initial_state())
    state[5] = 1.0  # rotation about the centre moves the pin: velocity residual 0.5
    chk = m.check_constraint_fulfillment(state)
    assert chk["max_position"] < 1e-15 and chk["max_velocity"] == pytest.approx(0.5)
    assert not chk["satisfied"]


# ------------------------------------------------------------------------------------------
# print_model, clear, observers
# ------------------------------------------------------------------------------------------


def test_print_model_mentions_everything(capsys):
    m = four_bar()
    m.add_external_force(1, 0.0, 1.0, 2.0, 0.5)
    m.add_bar(1.0, 1.0)  # a bar without pose is printed too
    m.print_model()
    out = capsys.readouterr().out
    for word in ("bar 0", "bar 1", "bar 2", "bar 3", "joint0", "joint1", "support0",
                 "support1", "force0"):
        assert word in out, word


def test_clear():
    m = four_bar()
    m.add_external_force(1, 0.0, 1.0, 2.0)
    m.set_g(3.0)
    m.build_lagrange_eom()
    seen = []
    m.observe(seen.append)
    m.clear()
    assert seen
    assert (m.n_bars, m.joints, m.supports, m.forces) == (0, [], [], [])
    assert m.get_initial_state() == []
    assert m.F == []
    d = m.to_dict()
    assert d["bars"] == d["joints"] == d["supports"] == d["forces"] == []
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    assert m.n_bars == 1 and m.constraint_labels == []


def test_observers_called_after_each_change():
    m = bar_joint_model()
    log = []
    m.observe(lambda what: log.append((what, m.n_bars, len(m.joints), len(m.supports))))
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    assert log[-1][1] == 1  # called after the change
    m.add_bar_from_point_pair((0.5, 0.0), (1.5, 0.0))
    m.add_joint([0, 1], [0.5, -0.5])
    assert log[-1][2] == 1
    m.add_support(0, -0.5, False, False)
    assert log[-1][3] == 1
    n = len(log)
    edits = [
        lambda: m.set_bar_mass(0, 2.0),
        lambda: m.set_bar_length(1, 1.0),
        lambda: m.set_g(1.0),
        lambda: m.set_init_bar_attitude(0, 0.0, 0.0, 0.0),
        lambda: m.set_init_bar_velocities(0, 0.0, 0.0, 0.0),
        lambda: m.add_external_force(1, 0.0, 1.0, 0.0),
        lambda: m.set_force(0, fx=2.0),
        lambda: m.set_support(0, x=-0.5),
        lambda: m.set_joint(0, s=[0.5, -0.5]),
        lambda: m.set_initial_state(m.get_initial_state()),
        lambda: m.remove_force(0),
    ]
    for k, edit in enumerate(edits):
        edit()
        assert len(log) == n + k + 1, k
    n = len(log)
    with pytest.raises(ValueError):
        m.set_bar_mass(0, -1.0)
    assert len(log) == n  # failed edits notify nobody
    m.remove_support(0)
    m.remove_joint(0)
    m.remove_bar(1)
    assert len(log) == n + 3 and log[-1][1:] == (1, 0, 0)


# ------------------------------------------------------------------------------------------
# build_lagrange_eom
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [pendulum, four_bar, double_pendulum],
                         ids=["pendulum", "four_bar", "double_pendulum"])
def test_build_lagrange_eom_into_taylor_adaptive_matches_simulate(make):
    m = make()
    if make is four_bar:
        m.set_init_bar_velocities(0, 0.0, 0.0, 0.0)
        m.set_g(9.81)
    tr = m.simulate(1.0, 11)
    sys = m.build_lagrange_eom()
    assert len(sys) == 2 * m.n_coordinates
    ta = hy.taylor_adaptive(sys, m.get_initial_state())
    states = ta.propagate_grid(tr.t)[5]
    np.testing.assert_allclose(states, tr.states, rtol=0, atol=1e-12)
    assert len(m.F) == m.n_constraints
    assert [str(v) for v in m.q] == [str(v) for v, _ in sys[: m.n_coordinates]]


def test_build_lagrange_eom_multipliers_and_W():
    m = double_pendulum()
    nc = m.n_constraints
    sys = m.build_lagrange_eom()
    assert isinstance(sys, list) and all(len(p) == 2 for p in sys)
    sys2, lam = m.build_lagrange_eom(return_multipliers=True)
    sys3, W = m.build_lagrange_eom(return_W=True)
    res = m.build_lagrange_eom(return_multipliers=True, return_W=True)
    assert isinstance(res, tuple) and len(res) == 3
    sys4, lam4, W4 = res
    assert [str(r) for _, r in sys] == [str(r) for _, r in sys2] == [str(r) for _, r in sys4]
    assert len(lam) == nc and np.shape(W) == (nc, nc)
    assert len(m.F) == nc
    # numbers: W = J M^-1 J^T with J computed here; λ as the simulation reports it
    state = np.array(m.get_initial_state())
    n = m.n_coordinates
    vars_ = [v for v, _ in sys]
    lam_f = hy.cfunc(list(lam), vars=vars_)
    W_f = hy.cfunc(list(np.asarray(W).ravel()), vars=vars_)
    tr = m.simulate(0.5, 3)
    np.testing.assert_allclose(lam_f(state), tr.lambda_mult[0], atol=1e-12)
    J = jacobian_via_api(m, state[:n])
    Md = np.array([w for b in m.bars for w in (b.mass, b.mass, b.mass * b.length**2 / 12)])
    np.testing.assert_allclose(W_f(state).reshape(nc, nc), (J / Md) @ J.T, atol=1e-12)
    # F are the residuals: zero at the consistent start
    F_f = hy.cfunc(list(m.F), vars=list(m.q))
    np.testing.assert_allclose(F_f(state[:n]), 0.0, atol=1e-15)


# ------------------------------------------------------------------------------------------
# simulation results: Trajectory, reactions, physics
# ------------------------------------------------------------------------------------------


def test_trajectory_fields_and_labels():
    m = bar_joint_model()
    for k in range(4):
        m.add_bar_from_point_pair((k * 1.0, 0.0), (k + 1.0, 0.0))
    for k in range(3):
        m.add_joint([k, k + 1], [0.5, -0.5])
    m.add_support(0, -0.5, False, False)
    m.add_support(3, 0.5, True, False)
    tr = m.simulate(0.2, 7)
    n, nc = 12, 9
    assert tr.t.shape == (7,)
    assert tr.q.shape == tr.qd.shape == (7, n)
    for a in (tr.lambda_mult, tr.position_residual, tr.velocity_residual):
        assert a.shape == (7, nc)
    assert tr.kinetic_energy.shape == tr.potential_energy.shape == (7,)
    assert tr.t[0] == 0.0 and tr.t[-1] == pytest.approx(0.2)
    assert len(tr.constraint_labels) == nc
    assert tr.constraint_labels == m.constraint_labels
    assert "joint2.bar3.x" in tr.constraint_labels
    assert tr.constraint_labels[-3:] == ["support0.x", "support0.y", "support1.y"]
    pat = re.compile(r"^(joint\d+\.bar\d+\.[xy]|support\d+\.[xy])$")
    assert all(pat.match(lb) for lb in tr.constraint_labels)
    np.testing.assert_array_equal(tr.q[0], m.get_initial_state()[:n])
    assert tr.max_position_residual() < 1e-12


def test_hanging_bar_support_force_is_mg():
    m = bar_joint_model()
    m.add_bar_at_attitude(0.0, -0.75, -math.pi / 2, 1.5, 3.0)
    m.add_support(0, -0.5, False, False)
    tr = m.simulate(2.0, 21)
    f = tr.support_force(0)
    assert f.shape == (21, 2)
    np.testing.assert_allclose(f, np.tile([0.0, 3.0 * G], (21, 1)), atol=1e-9)


def test_horizontal_pendulum_release_reaction():
    """A uniform bar released horizontally from rest: the pin carries m g / 4 at t = 0."""
    m = pendulum(mass=2.0)
    tr = m.simulate(0.1, 3)
    np.testing.assert_allclose(tr.support_force(0)[0], [0.0, 2.0 * G / 4.0], atol=1e-12)


def test_joint_forces_newton_laws():
    m = double_pendulum()
    tr = m.simulate(1.0, 11)
    np.testing.assert_allclose(tr.joint_force(0, 0), -tr.joint_force(0, 1), atol=1e-12)
    assert np.max(np.abs(tr.joint_force(0, 0))) > 1.0
    # second law per bar: m a = Σ forces, I α = Σ moments about the centre
    acc = accelerations(m, tr.states)
    joints, supports, forces = m.joints, m.supports, m.forces
    for i, b in enumerate(m.bars):
        F = np.zeros((tr.n_points, 2))
        T = np.zeros(tr.n_points)
        th = tr.q[:, 3 * i + 2]
        u = np.stack([np.cos(th), np.sin(th)], axis=1)

        def add(f, s, u=u, L=b.length):
            nonlocal F, T
            r = s * L * u
            F = F + f
            T = T + r[:, 0] * f[:, 1] - r[:, 1] * f[:, 0]

        for j, jt in enumerate(joints):
            if i in jt.bars:
                add(tr.joint_force(j, i), jt.s[jt.bars.index(i)])
        for k, sp in enumerate(supports):
            if sp.bar == i:
                add(tr.support_force(k), sp.s)
        for f in forces:
            if f.bar == i:
                add(np.tile([f.fx, f.fy], (tr.n_points, 1)), f.s)
                T = T + f.torque
        F[:, 1] -= b.mass * G
        np.testing.assert_allclose(b.mass * acc[:, 3 * i : 3 * i + 2], F, atol=1e-11)
        np.testing.assert_allclose(b.mass * b.length**2 / 12 * acc[:, 3 * i + 2], T,
                                   atol=1e-11)
    assert tr.relative_energy_error() < 1e-12


def test_three_bar_joint_forces_sum_to_zero():
    m = bar_joint_model()
    for th in (-0.2, -1.3, -2.5):
        m.add_bar_at_attitude(0.5 * math.cos(th), 0.5 * math.sin(th), th, 1.0, 1.0 + th**2)
    m.add_joint([0, 1, 2], [-0.5, -0.5, -0.5])
    m.add_support(1, -0.5, False, False)
    tr = m.simulate(0.5, 6)
    total = sum(tr.joint_force(0, b) for b in (0, 1, 2))
    np.testing.assert_allclose(total, 0.0, atol=1e-11)


def test_roller_support_free_direction():
    """A pendulum hanging from a roller free in x: no horizontal reaction, so the horizontal
    momentum stays zero."""
    m = bar_joint_model()
    m.add_bar_at_attitude(0.5 * math.cos(-0.6), 0.5 * math.sin(-0.6), -0.6, 1.0, 2.0)
    m.add_support(0, -0.5, True, False)
    assert m.constraint_labels == ["support0.y"]
    tr = m.simulate(1.0, 11)
    np.testing.assert_allclose(tr.support_force(0)[:, 0], 0.0, atol=0)
    np.testing.assert_allclose(tr.qd[:, 0], 0.0, atol=1e-12)
    assert np.ptp(tr.q[:, 2]) > 0.1
    assert tr.max_position_residual() < 1e-12


# ------------------------------------------------------------------------------------------
# editing and the compiled-code cache
# ------------------------------------------------------------------------------------------


def _theta(tr):
    return tr.q[:, 2]


def test_value_edits_do_not_recompile_and_are_physical():
    m = pendulum(mass=2.0, theta0=-math.pi / 2 + 0.4, force=True)
    tr1 = m.simulate(1.0, 11)
    cs = m.compiled()
    assert m.n_compiled == 1
    # mass: same motion (period independent of mass), support force scales with mass
    m.set_bar_mass(0, 5.0)
    tr2 = m.simulate(1.0, 11)
    assert m.n_compiled == 1 and m.compiled() is cs
    np.testing.assert_allclose(tr2.q, tr1.q, atol=1e-12)
    np.testing.assert_allclose(tr2.support_force(0), 2.5 * tr1.support_force(0), atol=1e-11)
    # g x 4: same path twice as fast (from rest)
    m.set_g(4 * G)
    tr3 = m.simulate(0.5, 6)
    assert m.n_compiled == 1 and m.compiled() is cs
    np.testing.assert_allclose(tr3.q, tr1.q[::2], atol=1e-11)
    m.set_g(G)
    # length x 4 (pose rescaled, pin unchanged): same path twice as slow
    th0 = -math.pi / 2 + 0.4
    m.set_bar_length(0, 4.0)
    m.set_init_bar_attitude(0, 2.0 * math.cos(th0), 2.0 * math.sin(th0), th0)
    tr4 = m.simulate(2.0, 11)
    assert m.n_compiled == 1 and m.compiled() is cs
    np.testing.assert_allclose(tr4.q[:, 2], tr1.q[:, 2], atol=1e-11)
    # small-amplitude period of the physical pendulum: T = 2π sqrt(2L/(3g))
    m.set_init_bar_attitude(0, 2.0 * math.cos(-math.pi / 2 + 0.01),
                            2.0 * math.sin(-math.pi / 2 + 0.01), -math.pi / 2 + 0.01)
    T = 2 * math.pi * math.sqrt(2 * 4.0 / (3 * G))
    tr5 = m.simulate(T / 2, 3)
    assert tr5.q[-1, 2] == pytest.approx(-math.pi / 2 - 0.01, abs=1e-6)
    assert tr5.q[1, 2] == pytest.approx(-math.pi / 2, abs=1e-6)
    assert m.n_compiled == 1 and m.compiled() is cs


def test_force_and_support_edits_match_fresh_model():
    th0 = -math.pi / 2 + 0.4
    m = pendulum(mass=2.0, theta0=th0, force=True)
    m.simulate(0.5, 3)
    cs = m.compiled()
    m.set_force(0, fx=1.0, fy=-2.0, torque=0.3, s=0.25)
    # move the whole pendulum: support and pose
    m.set_support(0, x=1.0, y=2.0)
    m.set_init_bar_attitude(0, 1.0 + 0.5 * math.cos(th0), 2.0 + 0.5 * math.sin(th0), th0)
    m.set_init_bar_velocities(0, -0.5 * 0.7 * math.sin(th0), 0.5 * 0.7 * math.cos(th0), 0.7)
    tr = m.simulate(1.0, 11)
    assert m.n_compiled == 1 and m.compiled() is cs
    f = m.forces[0]
    assert (f.fx, f.fy, f.torque, f.s) == (1.0, -2.0, 0.3, 0.25)
    fresh = bar_joint_model()
    fresh.add_bar_at_attitude(1.0 + 0.5 * math.cos(th0), 2.0 + 0.5 * math.sin(th0), th0,
                              1.0, 2.0)
    fresh.set_init_bar_velocities(0, -0.5 * 0.7 * math.sin(th0), 0.5 * 0.7 * math.cos(th0),
                                  0.7)
    fresh.add_support(0, -0.5, False, False, x=1.0, y=2.0)
    fresh.add_external_force(0, 0.25, 1.0, -2.0, 0.3)
    assert fresh.to_dict() == m.to_dict()
    trf = fresh.simulate(1.0, 11)
    np.testing.assert_allclose(tr.q, trf.q, atol=1e-12)
    np.testing.assert_allclose(tr.lambda_mult, trf.lambda_mult, atol=1e-10)
    # a structural edit (free direction) compiles a new system
    m.set_support(0, dof_in_x=True)
    assert m.supports[0].free_x and m.constraint_labels == ["support0.y"]
    m.simulate(0.2, 3)
    assert m.n_compiled == 2 and m.compiled() is not cs


def test_joint_point_edit_does_not_recompile():
    m = double_pendulum()
    tr1 = m.simulate(0.5, 6)
    cs = m.compiled()
    # attach bar 1 at its s = -0.25 point instead: shift bar 1 along itself by L/4
    x, y, th = m.bars[1].pose
    m.set_joint(0, s=[0.5, -0.25])
    m.set_init_bar_attitude(1, x - 0.2 * math.cos(th), y - 0.2 * math.sin(th), th)
    tr2 = m.simulate(0.5, 6)
    assert m.n_compiled == 1 and m.compiled() is cs
    assert m.check_constraint_fulfillment(tr2.states[-1])["max_position"] < 1e-12
    assert np.max(np.abs(tr2.q - tr1.q)) > 1e-3  # a different motion


def test_dicts_are_copies():
    m = four_bar()
    d = m.to_dict()
    x0 = m.bars[0].pose[0]
    d["bars"][0]["pose"][0] = 99.0
    d["joints"][0]["bars"].append(2)
    assert m.to_dict() != d and m.bars[0].pose[0] == x0 != 99.0
    d = m.to_dict()
    m2 = bar_joint_model.from_dict(d)
    d["bars"][0]["pose"][0] = 99.0
    d["joints"][0]["s"][0] = 0.0
    assert m2.to_dict() == m.to_dict()


def test_set_support_moves_point_and_set_joint():
    m = four_bar()
    m.set_support(1, s=0.25)
    sp = m.supports[1]
    assert sp.s == 0.25 and (sp.x, sp.y) == pytest.approx(FOUR_BAR_NODES[3])  # kept
    m.set_support(1, s=0.5, dof_in_y=True)
    assert m.supports[1].free_y and not m.supports[1].free_x
    m.set_joint(1, s=[0.5, -0.25])
    assert m.joints[1].s == [0.5, -0.25] and m.joints[1].bars == [1, 2]
    m.set_joint(1, bar_index=[2, 0], s=[0.5, 0.5])
    assert m.joints[1].bars == [2, 0]
    assert "joint1.bar0.x" in m.constraint_labels


def test_remove_bar_shifts_indices():
    m = bar_joint_model()
    for k in range(5):
        m.add_bar_at_attitude(float(k), 0.0, 0.0, 1.0, 1.0 + k)
    m.add_joint([0, 1], [0.5, -0.5])          # 0: left with one bar -> removed
    m.add_joint([1, 2, 3], [0.5, -0.5, 0.0])  # 1: -> [1, 2]
    m.add_joint([3, 4], [0.5, -0.5])          # 2: -> [2, 3]
    m.add_joint([4, 2, 0], [0.1, 0.2, 0.3])   # 3: -> [3, 1, 0]
    m.add_support(1, 0.0, False, False)       # removed
    m.add_support(3, 0.0, True, False)        # -> bar 2
    m.add_support(0, 0.0, False, True)        # stays on bar 0
    m.add_external_force(4, 0.1, 1.0, 2.0, 3.0)  # -> bar 3
    m.add_external_force(1, 0.0, 1.0, 1.0)       # removed
    m.add_external_force(2, -0.2, 4.0, 5.0)      # -> bar 1
    m.set_init_bar_velocities(4, 0.1, 0.2, 0.3)
    removed = m.remove_bar(1)
    assert removed["bar"] == 1
    assert removed["joints"] == [0] and removed["supports"] == [0]
    assert removed["forces"] == [1]
    assert m.n_bars == 4
    assert [b.mass for b in m.bars] == [1.0, 3.0, 4.0, 5.0]
    assert [j.bars for j in m.joints] == [[1, 2], [2, 3], [3, 1, 0]]
    assert [j.s for j in m.joints] == [[-0.5, 0.0], [0.5, -0.5], [0.1, 0.2, 0.3]]
    assert [(s.bar, s.free_x, s.free_y) for s in m.supports] == [(2, True, False),
                                                                 (0, False, True)]
    assert [(f.bar, f.fx) for f in m.forces] == [(3, 1.0), (1, 4.0)]
    assert m.bars[3].velocity == (0.1, 0.2, 0.3)
    # same as a model built directly with the remaining parts
    d = m.to_dict()
    fresh = bar_joint_model.from_dict(d)
    assert fresh.constraint_labels == m.constraint_labels
    assert all(0 <= b < m.n_bars for j in m.joints for b in j.bars)
    # removing more keeps everything consistent; remove_joint/support/force shift too
    m.remove_joint(0)
    assert [j.bars for j in m.joints] == [[2, 3], [3, 1, 0]]
    m.remove_support(0)
    assert [s.bar for s in m.supports] == [0]
    m.remove_force(0)
    assert [(f.bar, f.fx) for f in m.forces] == [(1, 4.0)]
    m.remove_bar(3)
    assert [j.bars for j in m.joints] == [[1, 0]]
    assert m.constraint_labels == ["joint3.bar0.x", "joint3.bar0.y",  # names are kept
                                   "support2.x"]


# ------------------------------------------------------------------------------------------
# consistent starts: assemble, position errors, velocity projection
# ------------------------------------------------------------------------------------------


def test_assemble_perturbed_four_bar():
    m = four_bar(perturb=1e-2)
    drawn = np.array(m.get_initial_state())
    assert not m.check_constraint_fulfillment(drawn)["satisfied"]
    report = m.assemble()
    state = np.array(m.get_initial_state())
    chk = m.check_constraint_fulfillment(state)
    assert chk["satisfied"] and chk["max_position"] <= m.tolerance
    assert report["residual"] <= m.tolerance
    assert 0 < report["max_move"] < 0.05
    assert report["max_move"] == pytest.approx(np.max(np.abs(state[:9] - drawn[:9])))
    np.testing.assert_allclose(state[2::3][:3], drawn[2:9:3], atol=0.05)  # same branch
    exact = np.array(four_bar().get_initial_state())
    np.testing.assert_allclose(state[2:9:3], exact[2:9:3], atol=0.05)
    tr = m.simulate(0.5, 6)
    assert tr.max_position_residual() < 1e-10


def test_assemble_impossible_raises_and_leaves_model_unchanged():
    m = bar_joint_model()
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    m.add_bar_at_attitude(1.0, 0.0, 0.0, 1.0, 1.0)
    m.add_joint([0, 1], [0.5, -0.5])
    m.add_support(0, -0.5, False, False)
    m.add_support(1, 0.5, False, False, x=5.0, y=0.0)  # 5.5 apart, bars reach 2
    before = m.to_dict()
    with pytest.raises(ValueError, match=r"(joint\d+\.bar\d+|support\d+)\.[xy]"):
        m.assemble()
    assert m.to_dict() == before


def test_violated_joint_without_assemble_names_it():
    m = pendulum()
    m.add_bar_at_attitude(1.5, 0.0, 0.0, 1.0, 1.0)
    m.add_joint([0, 1], [0.5, -0.5])
    m.set_init_bar_attitude(1, 1.5 + 0.003, 0.0, 0.0)
    before = m.to_dict()
    with pytest.raises(ValueError, match=r"joint0\.bar1\.x off by 0\.003"):
        m.simulate(1.0, 3)
    assert m.to_dict() == before


def test_inconsistent_velocities_are_projected_with_warning():
    m = four_bar()
    m.set_init_bar_velocities(1, 1.0, 0.0, 0.3)
    with pytest.warns(quivira.ConstraintWarning, match="projected") as rec:
        tr = m.simulate(0.5, 6)
    assert rec[0].filename == __file__  # points at the caller
    for s in tr.states:
        assert m.check_constraint_fulfillment(s)["max_velocity"] < 1e-10
    assert np.max(np.abs(tr.qd[0])) > 0.01  # not simply zeroed
    # the projection is the least change in the mass metric: qd0 - v ∈ range(M^-1 J^T)
    n = 9
    J = jacobian_via_api(m, tr.q[0])
    Md = np.array([w for b in m.bars for w in (b.mass, b.mass, b.mass * b.length**2 / 12)])
    dv = np.array(m.get_initial_state()[n:]) - tr.qd[0]
    mu, *_ = np.linalg.lstsq((J / Md).T, dv, rcond=None)
    np.testing.assert_allclose((J / Md).T @ mu, dv, atol=1e-12)


# ------------------------------------------------------------------------------------------
# robustness: redundant constraints, bad inputs
# ------------------------------------------------------------------------------------------


def _named_rows(msg, labels):
    return [lb for lb in labels if lb in msg]


def test_redundant_double_pin_moves_as_one_pin():
    """Two identical pins: redundant but consistent rows. The motion is the pendulum's (the
    same as with one pin), the redundant rows are named, and the minimum-norm multipliers
    share the pin force equally (their sum is the single pin's force)."""
    def pendulum(pins):
        m = bar_joint_model()
        m.add_bar_at_attitude(0.5 * math.cos(0.3), 0.5 * math.sin(0.3), 0.3, 1.0, 1.0)
        for _ in range(pins):
            m.add_support(0, -0.5, False, False)
        return m

    one, two = pendulum(1).simulate(1.0, 11), pendulum(2).simulate(1.0, 11)
    np.testing.assert_allclose(two.q, one.q, atol=1e-12)
    assert two.constraint_info["redundant"] == ["support1.x", "support1.y"]
    assert two.constraint_info["unique"] is False and not one.constraint_info
    f0, f1 = two.support_force(0), two.support_force(1)
    np.testing.assert_allclose(f0 + f1, one.support_force(0), atol=1e-9)
    np.testing.assert_allclose(f0, f1, atol=1e-9)


def test_redundant_over_braced_truss_statics():
    """A square with both diagonals (joined at the corners only), pin + roller, at rest under
    gravity: it stays at rest; statics gives the support reactions (each carries half the
    weight, no horizontal force at the roller); the redundant member forces are reported as
    the minimum-norm solution."""
    A, B, C, D = (0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)
    m = bar_joint_model()
    for p0, p1 in ((A, B), (B, C), (C, D), (D, A), (A, C), (B, D)):
        m.add_bar_from_point_pair(p0, p1)
    m.add_joint([0, 3, 4], [-0.5, 0.5, -0.5])  # A
    m.add_joint([0, 1, 5], [0.5, -0.5, -0.5])  # B
    m.add_joint([1, 2, 4], [0.5, -0.5, 0.5])   # C
    m.add_joint([2, 3, 5], [0.5, -0.5, 0.5])   # D
    m.add_support(0, -0.5, False, False)
    m.add_support(0, 0.5, True, False)
    state = np.array(m.get_initial_state())
    assert m.check_constraint_fulfillment(state)["max_position"] < 1e-15
    tr = m.simulate(1.0, 5)
    weight = 9.81 * sum(b.mass for b in m.bars)
    np.testing.assert_allclose(tr.q, np.repeat(state[None, :18], 5, axis=0), atol=1e-12)
    assert len(tr.constraint_info["redundant"]) == 1
    np.testing.assert_allclose(tr.support_force(0)[:, 1], weight / 2, rtol=1e-10)
    np.testing.assert_allclose(tr.support_force(1), [[0.0, weight / 2]] * 5, atol=1e-9)
    J = jacobian_via_api(m, state[:18])
    # the multipliers reproduce the constraint force of the independent rows
    lam = tr.lambda_mult[0]
    M = np.diag([w for b in m.bars for w in (b.mass, b.mass, b.mass / 12 * b.length**2)])
    gravity = np.array([-9.81 * b.mass if c == 1 else 0.0 for b in m.bars for c in range(3)])
    np.testing.assert_allclose(J.T @ lam + gravity, M @ tr.qdd[0], atol=1e-9)


def _base():
    m = bar_joint_model()
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    m.add_bar_at_attitude(1.0, 0.0, 0.0, 1.0, 1.0)
    m.add_bar(2.0, 1.0)  # no pose yet
    m.add_joint([0, 1], [0.5, -0.5])
    m.add_support(0, -0.5, False, False)
    m.add_external_force(1, 0.5, 0.0, -1.0, 0.1)
    return m


NAN, INF = float("nan"), float("inf")
BAD_CALLS = [
    ("add_bar zero length", lambda m: m.add_bar(0.0, 1.0), "length must be positive"),
    ("add_bar negative length", lambda m: m.add_bar(-1.0, 1.0), "length must be positive"),
    ("add_bar nan length", lambda m: m.add_bar(NAN, 1.0), "length must be finite"),
    ("add_bar inf length", lambda m: m.add_bar(INF, 1.0), "length must be finite"),
    ("add_bar zero mass", lambda m: m.add_bar(1.0, 0.0), "mass must be positive"),
    ("add_bar negative mass", lambda m: m.add_bar(1.0, -2.0), "mass must be positive"),
    ("add_bar nan mass", lambda m: m.add_bar(1.0, NAN), "mass must be finite"),
    ("add_bar string", lambda m: m.add_bar("1", 1.0), "length must be a real number"),
    ("attitude nan", lambda m: m.add_bar_at_attitude(NAN, 0, 0, 1, 1), "x0 must be finite"),
    ("attitude length", lambda m: m.add_bar_at_attitude(0, 0, 0, -1, 1),
     "length must be positive"),
    ("attitude mass", lambda m: m.add_bar_at_attitude(0, 0, 0, 1, INF), "mass must be finite"),
    ("point pair same", lambda m: m.add_bar_from_point_pair((1, 1), (1, 1)), "zero length"),
    ("point pair rho", lambda m: m.add_bar_from_point_pair((0, 0), (1, 1), 0.0),
     "mass_per_length must be positive"),
    ("point pair shape", lambda m: m.add_bar_from_point_pair((0, 0, 0), (1, 1)),
     r"pair \(x, y\)"),
    ("point pair nan", lambda m: m.add_bar_from_point_pair((0, NAN), (1, 1)), "finite"),
    ("set length zero", lambda m: m.set_bar_length(0, 0.0), "length must be positive"),
    ("set length nan", lambda m: m.set_bar_length(0, NAN), "length must be finite"),
    ("set mass negative", lambda m: m.set_bar_mass(1, -1.0), "mass must be positive"),
    ("set mass inf", lambda m: m.set_bar_mass(1, INF), "mass must be finite"),
    ("set mass index", lambda m: m.set_bar_mass(3, 1.0), "out of range"),
    ("set length index", lambda m: m.set_bar_length(-1, 1.0), "out of range"),
    ("attitude index", lambda m: m.set_init_bar_attitude(3, 0, 0, 0), "out of range"),
    ("attitude value", lambda m: m.set_init_bar_attitude(0, 0, INF, 0), "y0 must be finite"),
    ("velocity index", lambda m: m.set_init_bar_velocities(5, 0, 0, 0), "out of range"),
    ("velocity float index", lambda m: m.set_init_bar_velocities(1.0, 0, 0, 0), "integer"),
    ("velocity nan", lambda m: m.set_init_bar_velocities(0, 0, 0, NAN), "thetad0 must be"),
    ("g nan", lambda m: m.set_g(NAN), "g must be finite"),
    ("stabilization negative", lambda m: m.set_stabilization(-1.0),
     "stabilization must be >= 0"),
    ("stabilization nan", lambda m: m.set_stabilization(NAN), "stabilization must be finite"),
    ("stabilization string", lambda m: m.set_stabilization("fast"),
     "stabilization must be a real number"),
    ("joint one bar", lambda m: m.add_joint([0], [0.0]), "at least two bars"),
    ("joint no bar", lambda m: m.add_joint([], []), "at least two bars"),
    ("joint same bar", lambda m: m.add_joint([1, 1], [0.0, 0.5]), "same bar appears twice"),
    ("joint list lengths", lambda m: m.add_joint([0, 1], [0.0]), "one s per bar"),
    ("joint index", lambda m: m.add_joint([0, 5], [0.0, 0.0]), "out of range"),
    ("joint s", lambda m: m.add_joint([0, 1], [0.0, 0.7]), r"\[-0\.5, 0\.5\]"),
    ("set_joint one bar", lambda m: m.set_joint(0, bar_index=[0]), "at least two bars"),
    ("set_joint lengths", lambda m: m.set_joint(0, bar_index=[0, 1, 2]), "one s per bar"),
    ("set_joint s", lambda m: m.set_joint(0, s=[0.0, -0.6]), r"\[-0\.5, 0\.5\]"),
    ("set_joint index", lambda m: m.set_joint(1, s=[0.0, 0.0]), "out of range"),
    ("support index", lambda m: m.add_support(3, 0.0, False, False), "out of range"),
    ("support s", lambda m: m.add_support(0, 0.6, False, False), r"\[-0\.5, 0\.5\]"),
    ("support both free", lambda m: m.add_support(0, 0.0, True, True), "both True"),
    ("support no pose", lambda m: m.add_support(2, 0.0, False, False), "no initial pose"),
    ("support flag", lambda m: m.add_support(0, 0.0, "no", False), "True or False"),
    ("support x nan", lambda m: m.add_support(0, 0.0, False, False, x=NAN, y=0.0), "finite"),
    ("set_support free", lambda m: m.set_support(0, dof_in_x=True, dof_in_y=True),
     "both True"),
    ("set_support s", lambda m: m.set_support(0, s=1.0), r"\[-0\.5, 0\.5\]"),
    ("set_support index", lambda m: m.set_support(1, x=0.0), "out of range"),
    ("force index", lambda m: m.add_external_force(4, 0.0, 1.0, 1.0), "out of range"),
    ("force s", lambda m: m.add_external_force(0, -0.51, 1.0, 1.0), r"\[-0\.5, 0\.5\]"),
    ("force inf", lambda m: m.add_external_force(0, 0.0, INF, 1.0), "fx must be finite"),
    ("set_force index", lambda m: m.set_force(1, fx=1.0), "out of range"),
    ("set_force s", lambda m: m.set_force(0, fx=2.0, s=0.9), r"\[-0\.5, 0\.5\]"),
    ("set_force torque", lambda m: m.set_force(0, torque=NAN), "torque must be finite"),
    ("state length", lambda m: m.set_initial_state([0.0] * 17), "expected 18 values"),
    ("state nan", lambda m: m.set_initial_state([0.0] * 17 + [NAN]), "not finite"),
    ("remove_bar index", lambda m: m.remove_bar(3), "out of range"),
    ("remove_joint index", lambda m: m.remove_joint(1), "out of range"),
    ("remove_support index", lambda m: m.remove_support(-1), "out of range"),
    ("remove_force index", lambda m: m.remove_force(2), "out of range"),
    ("check state length", lambda m: m.check_constraint_fulfillment([0.0] * 5),
     "expected 18 values"),
    ("infer without pose", lambda m: m.infer_joints(), "no initial pose"),
    ("simulate without pose", lambda m: m.simulate(1.0), "no initial pose"),
]


#: calls with an argument of the wrong type: TypeError (the others give ValueError)
WRONG_TYPE = {"add_bar string", "velocity float index", "stabilization string", "support flag"}


@pytest.mark.parametrize("name, call, match", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_bad_input_raises_and_model_unchanged(name, call, match):
    m = _base()
    before = m.to_dict()
    seen = []
    m.observe(seen.append)
    with pytest.raises(TypeError if name in WRONG_TYPE else ValueError, match=match):
        call(m)
    assert m.to_dict() == before
    assert seen == []


def test_tolerance_must_be_positive():
    with pytest.raises(ValueError, match="tolerance must be positive"):
        bar_joint_model(tolerance=0.0)


# ------------------------------------------------------------------------------------------
# persistence
# ------------------------------------------------------------------------------------------


def _rich_model():
    m = double_pendulum()
    m.set_init_bar_velocities(0, 0.0, 0.0, 0.0)
    m.add_bar_at_attitude(0.1, 0.3, 0.123456789, 0.7, 1.1)
    m.add_support(2, 0.5, True, False)
    m.add_external_force(2, -0.3, 0.2, 0.1)
    m.set_g(9.80665)
    return m


def test_dict_and_file_round_trip(tmp_path):
    m = _rich_model()
    d = m.to_dict()
    json.dumps(d)  # JSON-ready
    m2 = bar_joint_model.from_dict(copy.deepcopy(d))
    path = tmp_path / "model.json"
    m.save(path)
    m3 = bar_joint_model.load(path)
    assert m2.to_dict() == d and m3.to_dict() == d
    assert m3.tolerance == m.tolerance
    rhs = [str(r) for _, r in m.build_lagrange_eom()]
    for other in (m2, m3):
        assert [str(r) for _, r in other.build_lagrange_eom()] == rhs
        assert [str(f) for f in other.F] == [str(f) for f in m.F]
    tr = m.simulate(0.5, 11)
    tr3 = m3.simulate(0.5, 11)
    assert np.array_equal(tr.q, tr3.q) and np.array_equal(tr.qd, tr3.qd)
    assert np.array_equal(tr.lambda_mult, tr3.lambda_mult)


def test_stabilization_round_trip_and_default_for_older_files():
    m = _rich_model()
    assert m.stabilization == 10.0
    m.set_stabilization(3.5)
    d = m.to_dict()
    assert d["stabilization"] == 3.5
    assert bar_joint_model.from_dict(copy.deepcopy(d)).stabilization == 3.5
    d.pop("stabilization")  # a file written before the setting existed
    assert bar_joint_model.from_dict(d).stabilization == 10.0
    m.clear()
    assert m.stabilization == 3.5


def _mutated(f):
    d = copy.deepcopy(_rich_model().to_dict())
    f(d)
    return d


MALFORMED = [
    ("format_version", lambda d: d.update(format_version=99), "format_version"),
    ("no format_version", lambda d: d.pop("format_version"), "format_version"),
    ("no format", lambda d: d.pop("format"), "format"),
    ("missing bars", lambda d: d.pop("bars"), "missing key 'bars'"),
    ("missing g", lambda d: d.pop("g"), "missing key 'g'"),
    ("missing bar mass", lambda d: d["bars"][0].pop("mass"), r"bars\[0\]: missing key 'mass'"),
    ("missing force torque", lambda d: d["forces"][0].pop("torque"), "missing key 'torque'"),
    ("negative length", lambda d: d["bars"][1].update(length=-1.0),
     r"bars\[1\]\.length must be positive"),
    ("nan mass", lambda d: d["bars"][1].update(mass=NAN), r"bars\[1\]\.mass must be finite"),
    ("joint bar index", lambda d: d["joints"][0].update(bars=[0, 7]), r"joints\[0\]\.bars\[1\]"),
    ("support bar index", lambda d: d["supports"][0].update(bar=3), r"supports\[0\]\.bar"),
    ("force bar index", lambda d: d["forces"][0].update(bar=-1), r"forces\[0\]\.bar"),
    ("support both free", lambda d: d["supports"][0].update(free_x=True, free_y=True),
     "both True"),
    ("joint s", lambda d: d["joints"][0].update(s=[0.0, 0.9]), r"joints\[0\]\.s\[1\]"),
    ("pose length", lambda d: d["bars"][0].update(pose=[1.0, 2.0]), r"bars\[0\]\.pose"),
    ("negative stabilization", lambda d: d.update(stabilization=-2.0),
     "model.stabilization must be >= 0"),
]


@pytest.mark.parametrize("mutate, match", [c[1:] for c in MALFORMED],
                         ids=[c[0] for c in MALFORMED])
def test_from_dict_and_load_malformed(tmp_path, mutate, match):
    d = _mutated(mutate)
    with pytest.raises(ValueError, match=match):
        bar_joint_model.from_dict(d)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(d))
    with pytest.raises(ValueError, match=match):
        bar_joint_model.load(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]  # nothing created


@pytest.mark.parametrize("content", ["{not json", "", "[1, 2]", "null"],
                         ids=["garbage", "empty", "list", "null"])
def test_load_not_a_model_file(tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ValueError, match="not a valid JSON|expected a JSON object"):
        bar_joint_model.load(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]


def test_load_binary_file_clear_message(tmp_path):
    """A file that is not even UTF-8 text is "not JSON" too: the message should say so and
    name the file, like the other malformed files."""
    path = tmp_path / "bad.json"
    path.write_bytes(b"\xff\xfe\x00\x81 binary")
    with pytest.raises(ValueError, match="not a valid JSON model file"):
        bar_joint_model.load(path)


@pytest.mark.parametrize("key, value", [("coordinate_constraints", None),
                                        ("user_constraints", None), ("knife_edges", 5),
                                        ("knife_edges", {"bar": 0})],
                         ids=["cc-null", "user-null", "knife-number", "knife-object"])
def test_from_dict_constraint_lists_not_lists(key, value):
    """Optional constraint lists of the file that are not lists are malformed data too."""
    d = _rich_model().to_dict()
    d[key] = value
    with pytest.raises(ValueError, match=rf"{key}.*list"):
        bar_joint_model.from_dict(d)


def test_from_dict_user_constraint_with_bar_out_of_range():
    """A user constraint is validated on load as by add_constraint: x7 is not a coordinate of
    a 1-bar model (otherwise the model loads and simulate fails with ZeroDivisionError)."""
    m = bar_joint_model()
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    x0, _, _ = m.coordinates(0)
    m.add_constraint([x0], name="fix x")
    with pytest.raises(ValueError, match="unknown variables"):
        m.add_constraint([hy.expression("x7") + 1.0])
    d = m.to_dict()
    other = bar_joint_model()
    other.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    for k in range(7):
        other.add_bar_at_attitude(float(k), 0.0, 0.0, 1.0, 1.0)
    x7, _, _ = other.coordinates(7)
    other.add_constraint([x7 + 1.0], name="fix x")
    d["user_constraints"] = other.to_dict()["user_constraints"]
    with pytest.raises(ValueError, match=r"user_constraints\[0\]"):
        bar_joint_model.from_dict(d)
