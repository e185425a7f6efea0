"""Unilateral elements that never pull, settle t = 0, and runs that are a function of inputs.

Oracles: the frictionless ladder in closed form (its initial reactions, and the wall releasing
when the top has fallen to 2/3 of its height), a bouncing bar's flight time 2 e v / g, the
impact's loss of kinetic energy, and bitwise equality of runs under different machine loads.
"""

from __future__ import annotations

import _thread
import math
import threading
import time

import heyoka as hy
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import quivira as qv
from quivira.model import complementarity

G = 9.81


def ladder(phi0: float, length: float = 1.0, mass: float = 1.0, wall_x: float = 0.0):
    """A frictionless ladder at ``phi0`` from the floor, its top on a wall x >= wall_x."""
    model = qv.bar_joint_model()
    model.add_bar_at_attitude(wall_x + length * math.cos(phi0) / 2, length * math.sin(phi0) / 2,
                              math.pi - phi0, length, mass)
    model.add_contact(0, 0.5, wall_x, 0.0, normal_angle=0.0, name="wall")
    model.add_contact(0, -0.5, 0.0, 0.0, name="floor")
    return model


@settings(max_examples=40, deadline=None)
@given(phi0=st.floats(0.25, 1.5), length=st.floats(0.3, 3.0), mass=st.floats(0.2, 5.0),
       wall_x=st.floats(-2.0, 2.0))
@pytest.mark.slow
def test_a_released_contact_never_pulls(phi0, length, mass, wall_x):
    """Over random ladders the contact forces are never negative (the wall used to close
    again at zero speed after its release and hold the ladder with up to 0.44 m g), the wall
    releases where the top has fallen to 2/3 of its height (closed form), and frame 0 has the
    reactions of the ladder held by both contacts."""
    model = ladder(phi0, length, mass, wall_x)
    tr = model.simulate(2.0 * math.sqrt(length / G) * 3, 301)
    weight = mass * G
    assert tr.lambda_mult.min() >= -1e-9 * weight
    released = [e for e in tr.events if e["name"] == "wall" and e["what"] == "released"]
    assert len(released) == 1
    assert not [e for e in tr.events if e["name"] == "wall" and e["t"] > released[0]["t"]]
    phi = math.pi - released[0]["state"][2]
    assert math.sin(phi) / math.sin(phi0) == pytest.approx(2.0 / 3.0, abs=1e-9)
    wall0 = 0.75 * weight * math.sin(phi0) * math.cos(phi0)
    floor0 = weight * (1.0 - 0.75 * math.cos(phi0) ** 2)
    np.testing.assert_allclose(tr.lambda_mult[0], [wall0, floor0], rtol=1e-9)
    assert tr.relative_energy_error() < 1e-11


def test_frame_zero_is_the_settled_state():
    """A bar lying on two floor contacts: frame 0 shows the floor carrying the weight and no
    acceleration into the floor (they used to be those of the model without the contacts)."""
    model = qv.bar_joint_model()
    bar = model.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 2.0)
    model.add_contact(bar, -0.5)
    model.add_contact(bar, 0.3)
    tr = model.simulate(0.5, 11)
    # statics of a bar on two supports at x = -0.5 and 0.3 (centre at 0)
    left, right = 2.0 * G * 0.3 / 0.8, 2.0 * G * 0.5 / 0.8
    np.testing.assert_allclose(tr.lambda_mult[0], [left, right], rtol=1e-10)
    assert abs(tr.qdd[0]).max() < 1e-9
    assert [e["what"] for e in tr.events if e["t"] == 0.0] == ["rests", "rests"]


@pytest.mark.parametrize("e", [0.0, 0.5])
def test_an_approach_at_t0_is_an_impact(e):
    """A flat bar at the floor moving down at 1 m/s: at t = 0 it is given its impact (it used
    to be switched on as resting and sink by the Baumgarte transient, 3.7 cm)."""
    model = qv.bar_joint_model()
    bar = model.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    model.set_init_bar_velocities(bar, 0.0, -1.0, 0.0)
    model.add_contact(bar, -0.5, 0.0, e)
    model.add_contact(bar, 0.5, 0.0, e)
    tr = model.simulate(0.15, 151)
    assert tr.q[:, 1].min() > -1e-9
    assert tr.qd[0, 1] == pytest.approx(e * 1.0, abs=1e-12)
    first = [x for x in tr.events if x["t"] == 0.0]
    assert len(first) == 2
    assert sum(x["kinetic_energy_lost"] for x in first) == pytest.approx(
        0.5 * (1.0 - e * e), rel=1e-12)
    if e > 0.0:  # the next landing after a flight of 2 e v / g
        later = [x["t"] for x in tr.events if x["t"] > 0.0]
        assert later[0] == pytest.approx(2 * e / G, rel=1e-9)


def test_an_approach_at_a_stop_at_t0_is_an_impact():
    """A bar at its angle stop turning into it at t = 0 stays at the stop."""
    model = qv.bar_joint_model()
    bar = model.add_bar_at_attitude(0.5, 0.0, 0.0, 1.0, 1.0)
    model.add_support(bar, -0.5, fixed_x=True, fixed_y=True)
    model.set_init_bar_velocities(bar, 0.0, -0.5, -1.0)
    model.add_angle_stop(None, bar, 0.0, side="min", restitution=0.0)
    tr = model.simulate(0.5, 51)
    assert tr.q[:, 2].min() > -1e-9
    assert abs(tr.qd[0, 2]) < 1e-12
    assert tr.events[0]["t"] == 0.0 and tr.events[0]["approach_speed"] == pytest.approx(1.0)


def _pendulum():
    model = qv.bar_joint_model()
    bar = model.add_bar_at_attitude(0.5, 0.0, 0.0, 1.0, 1.0)
    model.add_support(bar, -0.5, fixed_x=True, fixed_y=True)
    return model


def test_a_user_event_at_t0_is_recorded_once():
    """sin θ = 0 at the start: recorded once (the first step's probe used to record it again);
    the bar, spun over the top, then crosses sin θ = 0 at θ = -π and -2π."""
    model = _pendulum()
    model.set_init_bar_velocities(0, 0.0, -4.0, -8.0)
    model.add_event(hy.sin(hy.expression("th0")), "level")
    tr = model.simulate(2.0, 11)
    assert len([e for e in tr.events if e["t"] == 0.0]) == 1
    later = [e for e in tr.events if e["t"] > 0.0]
    crossings = [float(np.interp(e["t"], tr.t, np.unwrap(tr.q[:, 2]))) for e in later]
    assert len(later) >= 2
    np.testing.assert_allclose(np.sin(crossings), 0.0, atol=0.2)  # interpolated on 11 points


def test_a_terminal_event_zero_at_t0_is_an_error():
    """A terminal event zero at the start used to end the run with one point, silently."""
    model = _pendulum()
    model.add_event(hy.expression("th0"), "stop", terminal=True)
    with pytest.raises(ValueError, match="zero at the initial state"):
        model.simulate(1.0, 11)


def test_rest_speed_zero_is_refused():
    model = qv.bar_joint_model()
    bar = model.add_bar(1.0, 1.0)
    before = model.to_dict()
    with pytest.raises(ValueError, match="rest_speed must be positive"):
        model.add_contact(bar, 0.0, rest_speed=0.0)
    assert model.to_dict() == before


def test_bouncing_ends_at_rest():
    """A bar landing flat with restitution 0.5 and a tiny rest speed: the bounces end (the
    rebounds too slow to lift the gap measurably rest) — it used to hang with rest_speed 0."""
    model = qv.bar_joint_model()
    bar = model.add_bar_at_attitude(0.0, 0.3, 0.0, 1.0, 1.0)
    for s in (-0.5, 0.5):
        model.add_contact(bar, s, 0.0, 0.5, rest_speed=1e-12)
    start = time.perf_counter()
    tr = model.simulate(3.0, 301, max_wall_s=30.0)
    assert time.perf_counter() - start < 20.0
    assert tr.events[-1]["what"] == "rests"
    assert abs(tr.q[-1, 1]) < 1e-9 and abs(tr.qd[-1]).max() < 1e-9
    v0 = math.sqrt(2 * G * 0.3)  # the flights shrink by e per bounce: 2 e^k v0 / g
    times = sorted({round(e["t"], 9) for e in tr.events})
    assert times[1] - times[0] == pytest.approx(2 * 0.5 * v0 / G, rel=1e-8)


def test_an_unresolvable_event_is_an_error_not_ok():
    """g = 1e49: the event search cannot see the floor; the run says so."""
    model = qv.bar_joint_model()
    bar = model.add_bar_at_attitude(0.0, 0.3, 0.0, 1.0, 1.0)
    model.add_contact(bar, -0.5)
    model.add_contact(bar, 0.5)
    model.set_g(1e49)
    with pytest.raises(qv.SingularConfigurationError, match="event search"):
        model.simulate(1.0, 11)


def test_energy_error_of_a_body_at_rest_has_a_meaningful_scale():
    """Every energy about 0 (a bar lying on the floor): the error is relative to m g ℓ."""
    model = qv.bar_joint_model()
    bar = model.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    model.add_contact(bar, -0.5)
    model.add_contact(bar, 0.5)
    tr = model.simulate(1.0, 11)
    expected = np.max(np.abs(tr.energy - tr.energy[0])) / (1.0 * G * 1.0)
    assert tr.relative_energy_error() == pytest.approx(expected, abs=1e-30)
    assert tr.relative_energy_error() < 1e-12


def _double_pendulum():
    model = qv.bar_joint_model()
    model.add_bar_at_attitude(0.5, 0.0, 0.0, 1.0, 1.0)
    model.add_bar_at_attitude(1.5, 0.0, 0.0, 1.0, 1.0)
    model.add_support(0, -0.5, fixed_x=True, fixed_y=True)
    model.add_joint([0, 1], [0.5, -0.5])
    return model


def test_results_do_not_depend_on_the_machines_load(monkeypatch):
    """The same run on an idle machine, beside a busy thread, and with a clock 100x slower
    (the old chunks were sized from wall time) is the same bit for bit."""
    model = _double_pendulum()
    ref = model.simulate(20.0, 401)
    stop = threading.Event()

    def busy():
        x = 0
        while not stop.is_set():
            x += 1

    worker = threading.Thread(target=busy)
    worker.start()
    try:
        loaded = model.simulate(20.0, 401)
    finally:
        stop.set()
        worker.join()
    real = time.perf_counter
    monkeypatch.setattr(time, "perf_counter", lambda: 100.0 * real())
    slow_clock = model.simulate(20.0, 401)
    for other in (loaded, slow_clock):
        assert np.array_equal(ref.q, other.q) and np.array_equal(ref.qd, other.qd)
        assert ref.info["steps"] == other.info["steps"]


@pytest.mark.slow
def test_ctrl_c_stops_a_long_run_within_a_second():
    model = _double_pendulum()
    model.simulate(0.1, 3)  # compiled
    timer = threading.Timer(0.5, _thread.interrupt_main)
    start = time.perf_counter()
    timer.start()
    with pytest.raises(qv.SimulationInterrupted) as info:
        model.simulate(1e5, 100001, max_wall_s=60.0)
    assert time.perf_counter() - start < 1.5
    partial = info.value.trajectory
    assert 1 < len(partial.t) < 100001 and partial.t[-1] <= info.value.t
    # the motion so far is the motion: the same run, uninterrupted, to the last frame kept
    k = len(partial.t) - 1
    full = model.simulate(float(partial.t[-1]), k + 1)
    np.testing.assert_array_equal(full.t, partial.t)
    np.testing.assert_allclose(partial.q, full.q, rtol=0, atol=1e-9)
    np.testing.assert_allclose(partial.qd, full.qd, rtol=0, atol=1e-8)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_complementarity_solutions_push_or_open(seed):
    """The contact problem against its definition on random Delassus matrices: unilateral
    multipliers >= 0, their accelerations >= 0, complementary; bilateral rows satisfied."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9))
    m = int(rng.integers(1, n + 1))
    J = rng.normal(size=(m, n))
    b = rng.normal(size=m) * 10.0 ** rng.uniform(-3, 3)
    unilateral = rng.random(m) < 0.6
    if unilateral.any() and rng.random() < 0.4:  # a redundant second contact at one point
        i = int(np.nonzero(unilateral)[0][0])
        a = rng.uniform(0.3, 3.0)
        J = np.vstack([J, a * J[i]])
        b = np.append(b, a * b[i])
        unilateral = np.append(unilateral, True)
    W = (J / rng.uniform(0.5, 2.0, n)) @ J.T
    sol = complementarity.solve(W, b, unilateral)
    lam, w = sol.lambda_mult, W @ sol.lambda_mult + b
    sw, sz = max(np.abs(b).max(), 1e-300), max(np.abs(lam).max(), 1e-300)
    assert np.all(lam[unilateral] >= -1e-9 * sz)
    assert np.all(w[unilateral] >= -1e-8 * sw)
    assert np.all(np.abs(lam[unilateral] * w[unilateral]) <= 1e-8 * sz * sw)
    assert np.all(np.abs(w[~unilateral]) <= 1e-8 * sw)


def test_a_rebound_in_free_flight_lands_again():
    """A flat bar hitting the floor with one end while it spins: the other end rebounds at
    once and flies; its next landing is an event (it used to be missed — the rebounding row's
    event function started the free flight at exactly 0, where heyoka does not see the
    polynomial's next root — and the run stopped with 'the event search missed')."""
    e, length = 0.375, 1.5
    model = qv.bar_joint_model()
    bar = model.add_bar_at_attitude(0.0, 0.0, 0.0, length, 1.0)
    model.set_init_bar_velocities(bar, 0.0, -0.6875, 2.0)
    for s in (-0.5, 0.5):
        model.add_contact(bar, s, 0.0, e, rest_speed=0.0078125)
    tr = model.simulate(0.5, 201)
    right = [x for x in tr.events if x["name"] == "contact1"]
    assert len(right) >= 3 and right[-1]["what"] == "rests"
    for s in (-0.5, 0.5):
        assert tr.point(bar, (s * length, 0.0))[0][:, 1].min() > -1e-8
    assert tr.relative_energy_error() < 1e-10
