"""Instant centres against hand geometry, Freudenstein's equation, SymPy's implicit
derivative and the rigid-body velocity field; Kennedy's theorem on a four-bar and a Watt
six-bar; centrodes."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import sympy as sp

import quivira as qv
from quivira.examples import four_bar
from quivira.model.instant_centres import InstantCentres, check_kennedy

a, b, c, d = 1.0, 3.0, 2.5, 3.0  # crank, coupler, rocker, ground of examples.four_bar()


def line_intersection(p1, p2, p3, p4):
    """The point where the line p1–p2 meets the line p3–p4 (hand geometry)."""
    p1, p2, p3, p4 = (np.asarray(x, float) for x in (p1, p2, p3, p4))
    A = np.column_stack([p2 - p1, -(p4 - p3)])
    t = np.linalg.solve(A, p3 - p1)
    return p1 + t[0] * (p2 - p1)


def freudenstein(phi: float) -> list[float]:
    """Both rocker angles ψ of K1 cos ψ − K2 cos φ + K3 = cos(φ − ψ)."""
    K1, K2, K3 = d / a, d / c, (a * a - b * b + c * c + d * d) / (2 * a * c)
    A = math.cos(phi) - K1 - K2 * math.cos(phi) + K3
    B = -2 * math.sin(phi)
    C = K1 - (K2 + 1) * math.cos(phi) + K3
    return [2 * math.atan2(-B + s * math.sqrt(B * B - 4 * A * C), 2 * A) for s in (1, -1)]


def wrap(x):
    return (x + math.pi) % (2 * math.pi) - math.pi


def test_four_bar_centres_by_hand_geometry():
    phi = 1.2
    model = four_bar(crank_angle=phi)
    ic = model.instant_centres()
    assert len(ic) == 6
    tip = (a * math.cos(phi), a * math.sin(phi))
    q = np.asarray(model.get_initial_state())
    C = q[6:8] + 0.5 * c * np.array([math.cos(q[8]), math.sin(q[8])])  # rocker's moving end
    assert np.allclose(ic["ground", 0].point, (0.0, 0.0), atol=1e-12)
    assert np.allclose(ic[None, 2].point, (d, 0.0), atol=1e-12)
    assert np.allclose(ic[0, 1].point, tip, atol=1e-12)
    assert np.allclose(ic[2, 1].point, C, atol=1e-12)
    I13 = line_intersection((0, 0), tip, (d, 0), C)
    assert np.allclose(ic["ground", 1].point, I13, atol=1e-10)
    I24 = line_intersection((0, 0), (d, 0), tip, C)  # crank–rocker centre: on the ground line
    assert np.allclose(ic[0, 2].point, I24, atol=1e-10)


def test_omega_ratio_freudenstein_closed_form_sympy_and_centres():
    phi = 0.9
    model = four_bar(crank_angle=phi)
    q = np.asarray(model.get_initial_state())
    th2, th3, th4 = q[2], q[5], q[8]
    psi = freudenstein(phi)
    assert min(abs(wrap(th4 - p)) for p in psi) < 1e-12  # the model's pose is Freudenstein's
    closed = a * math.sin(th3 - th2) / (c * math.sin(th3 - th4))
    # SymPy: implicit derivative of the loop equations
    t2, t3, t4 = sp.symbols("t2 t3 t4")
    F = sp.Matrix([a * sp.cos(t2) + b * sp.cos(t3) - d - c * sp.cos(t4),
                   a * sp.sin(t2) + b * sp.sin(t3) - c * sp.sin(t4)])
    Jd = F.jacobian([t3, t4])
    sol = -Jd.inv() * F.diff(t2)
    sym = float(sol[1].subs({t2: th2, t3: th3, t4: th4}))
    # instant centres: the common point I24 has one velocity on both bodies
    ic = model.instant_centres()
    I24, I12, I14 = ic[0, 2].point, ic["ground", 0].point, ic["ground", 2].point
    e = (I24 - I12) / np.linalg.norm(I24 - I12)
    by_centres = float(np.dot(I24 - I12, e) / np.dot(I24 - I14, e))
    # the mechanism velocity the centres were computed from
    by_qd = ic.qd[8] / ic.qd[2]
    assert closed == pytest.approx(sym, rel=1e-12)
    assert by_centres == pytest.approx(closed, rel=1e-10)
    assert by_qd == pytest.approx(closed, rel=1e-10)


def watt_six_bar() -> qv.BarJointModel:
    """A Watt six-bar: the four-bar, plus a dyad from the middle of its rocker to ground."""
    m = four_bar(crank_angle=1.0)
    q = np.asarray(m.get_initial_state())
    D = tuple(q[6:8])  # the rocker's centre
    E = (D[0] + 1.2, D[1] + 0.9)
    O6 = (4.6, 0.4)
    m.add_bar_from_point_pair(D, E, 1.0)
    m.add_bar_from_point_pair(O6, E, 1.0)
    m.add_joint([2, 3], [0.0, -0.5])
    m.add_joint([3, 4], [0.5, 0.5])
    m.add_support(4, -0.5, fixed_x=True, fixed_y=True)
    return m


@pytest.mark.parametrize("build, n_centres", [(four_bar, 6), (watt_six_bar, 15)])
def test_kennedy_holds_and_a_wrong_centre_fails(build, n_centres):
    model = build()
    assert model.mobility().dof == 1
    ic = model.instant_centres()
    assert len(ic) == n_centres
    assert check_kennedy(ic) < 1e-9
    key = (1, 2)
    good = ic.centres[key]
    wrong = dataclasses.replace(good, point=good.point + np.array([0.0, 0.05]))
    bad = InstantCentres({**ic.centres, key: wrong}, ic.size, ic.qd)
    assert check_kennedy(bad) > 1e-4


def test_velocity_about_the_centre_random_four_bars():
    """v_P = ω k × (P − I) about the body's centre with ground equals the direct v_P."""
    rng = np.random.default_rng(20261207)
    cases = 0
    while cases < 32:
        crank, coupler, rocker, ground = rng.uniform(0.5, 3.0, 4)
        phi = rng.uniform(0, 2 * math.pi)
        try:
            model = four_bar(crank, coupler, rocker, ground, phi)
        except ValueError:
            continue  # this geometry does not close at this angle
        if model.mobility().dof != 1:
            continue
        ic = model.instant_centres()
        q = np.asarray(model.get_initial_state())[:9]
        state = np.concatenate([q, rng.uniform(0.5, 2.0) * ic.qd])
        body = int(rng.integers(0, 3))
        uv = tuple(rng.uniform(-1.0, 1.0, 2))
        pm = model.point_motion(body, uv, state)
        centre = ic["ground", body]
        om = state[9 + 3 * body + 2]
        if centre.at_infinity:  # the body translates: every point has the same velocity
            ref = state[9 + 3 * body: 9 + 3 * body + 2]
        else:
            r = pm.position - centre.point
            ref = om * np.array([-r[1], r[0]])
        scale = max(np.linalg.norm(state[9:]), 1.0)
        assert np.allclose(pm.velocity, ref, atol=1e-9 * scale), (crank, coupler, rocker,
                                                                  ground, phi, body)
        cases += 1


def test_parallel_crank_translating_coupler_centre_at_infinity():
    """A parallelogram: the coupler translates, its centre with ground is at infinity,
    perpendicular to the (common) velocity of its points."""
    model = four_bar(1.0, 3.0, 1.0, 3.0, 1.1)
    ic = model.instant_centres()
    cen = ic["ground", 1]
    assert cen.at_infinity and cen.point is None
    v = ic.qd[3:5]
    assert abs(np.dot(cen.direction, v)) < 1e-9 * np.linalg.norm(v)
    assert check_kennedy(ic) < 1e-9


def test_centrodes_of_the_coupler_along_a_sweep():
    model = four_bar()
    sweep = model.kinematic_sweep("th0", np.linspace(math.pi / 3, math.pi / 3 + 1.0, 11))
    cen = model.centrodes(1, sweep)
    assert cen.finite.all()
    for k in range(11):
        state = np.concatenate([sweep.q[k], sweep.dq[k]])
        assert np.allclose(cen.fixed[k], model.instant_centres(state)["ground", 1].point,
                           atol=1e-10)
    # the moving centrode is the same point in the coupler's frame
    th = sweep.q[:, 5]
    back = sweep.q[:, 3:5] + np.column_stack([
        np.cos(th) * cen.moving[:, 0] - np.sin(th) * cen.moving[:, 1],
        np.sin(th) * cen.moving[:, 0] + np.cos(th) * cen.moving[:, 1]])
    assert np.allclose(back, cen.fixed, atol=1e-10)
    # rolling without slipping: equal arc lengths of the two centrodes
    arc = [np.sum(np.linalg.norm(np.diff(x, axis=0), axis=1)) for x in (cen.fixed, cen.moving)]
    assert arc[0] == pytest.approx(arc[1], rel=1e-2)


def test_errors():
    model = four_bar()
    with pytest.raises(ValueError, match="state"):
        model.instant_centres([0.0, 1.0])
    q = np.asarray(model.get_initial_state())[:9]
    q[1] += 0.1
    with pytest.raises(ValueError, match="off the constraints"):
        model.instant_centres(q)
    with pytest.raises(TypeError, match="InstantCentres"):
        check_kennedy({})
    with pytest.raises(TypeError, match="Trajectory or a KinematicSweep"):
        model.centrodes(1, None)
    two_dof = qv.bar_joint_model()
    two_dof.add_bar_from_point_pair((0.0, 0.0), (1.0, 0.0), 1.0)
    two_dof.add_bar_from_point_pair((1.0, 0.0), (2.0, 0.0), 1.0)
    two_dof.add_support(0, -0.5, fixed_x=True, fixed_y=True)
    two_dof.add_joint([0, 1], [0.5, -0.5])
    with pytest.raises(ValueError, match="2 degrees of freedom"):
        two_dof.instant_centres()
    with pytest.raises(KeyError, match="no instant centre"):
        model.instant_centres()[0, 7]


def test_translating_coupler_has_no_finite_centrode_and_says_so():
    model = four_bar(1.0, 3.0, 1.0, 3.0, 1.1)
    sweep = model.kinematic_sweep("th0", np.linspace(1.1, 1.6, 6))
    cen = model.centrodes("bar1", sweep)
    assert not cen.finite.any()
    assert np.isnan(cen.fixed).all() and np.isnan(cen.moving).all()
    crank = model.centrodes(0, sweep)  # the crank turns about its ground pin
    assert crank.finite.all()
    assert np.allclose(crank.fixed, 0.0, atol=1e-12)
    assert np.allclose(crank.moving, (-0.5, 0.0), atol=1e-12)


def test_the_table_of_a_four_bar_lists_its_pins_as_they_are_by_hand():
    """str(): one line per centre; the ground pins of examples.four_bar are at (0, 0) and
    (3, 0) and the crank–coupler pin at (cos 60°, sin 60°) (the example's geometry)."""
    from quivira.examples import four_bar

    text = str(four_bar().instant_centres())
    lines = text.splitlines()
    assert lines[0].startswith("6 instant centres") and len(lines) == 7
    assert "I(ground, 0)  (0.0000, 0.0000) m" in text
    assert "I(ground, 2)  (3.0000, 0.0000) m" in text
    assert "I(0, 1)  (0.5000, 0.8660) m" in text
