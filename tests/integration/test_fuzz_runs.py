"""Fuzzing the switching elements, events, sweeps and sensitivities.

* Hostile arguments to ``add_contact``, ``add_angle_stop``, ``add_latch``, ``add_event``,
  ``sweep`` and ``sensitivities``: each call succeeds or raises TypeError/ValueError, and a
  failed edit leaves the model as it was.
* Random contact scenes (a bar thrown at a floor and a wall, any restitution and resting
  speed): the run ends within its budget, no contact force is negative, no contact point is
  below its line, and the energy ledger balances.
"""

from __future__ import annotations

import math

import heyoka as hy
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import quivira as qv

HOSTILE = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.integers(min_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([1e300, -1e300, 1e-320]),
    st.text(max_size=3), st.lists(st.floats(-2, 2), max_size=3),
    st.sampled_from([np.float64(0.5), np.int64(1), np.nan, [[1, 0]], (0.1, 0.2), 10**400]),
)
NICE = st.floats(-1.0, 1.0, allow_nan=False)
VALUE = st.one_of(NICE, HOSTILE)


def _pendulum():
    model = qv.bar_joint_model()
    bar = model.add_bar_at_attitude(0.5, 0.0, 0.0, 1.0, 1.0)
    model.add_support(bar, -0.5, fixed_x=True, fixed_y=True)
    model.add_bar_at_attitude(1.5, 0.0, 0.0, 1.0, 1.0)
    model.add_joint([0, 1], [0.5, -0.5])
    return model


CALLS = st.one_of(
    st.tuples(st.just("add_contact"), st.tuples(VALUE, VALUE, VALUE, VALUE),
              st.fixed_dictionaries({"normal_angle": VALUE, "rest_speed": VALUE})),
    st.tuples(st.just("add_angle_stop"), st.tuples(VALUE, VALUE, VALUE,
                                                   st.one_of(st.sampled_from(["min", "max"]),
                                                             HOSTILE), VALUE),
              st.fixed_dictionaries({"rest_speed": VALUE})),
    st.tuples(st.just("add_latch"), st.tuples(VALUE, VALUE, VALUE), st.just({})),
    st.tuples(st.just("add_event"), st.tuples(st.one_of(
        st.sampled_from([hy.expression("th0"), hy.expression("x1") - 1.0]), HOSTILE)),
        st.fixed_dictionaries({"direction": st.one_of(st.sampled_from(["any", "up", "down"]),
                                                      HOSTILE),
                               "terminal": st.one_of(st.booleans(), HOSTILE)})),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(CALLS, min_size=1, max_size=6))
def test_switching_elements_and_events_refuse_hostile_values_cleanly(calls):
    model = _pendulum()
    for name, args, kwargs in calls:
        before = model.to_dict()
        try:
            getattr(model, name)(*args, **kwargs)
        except (TypeError, ValueError) as exc:
            assert str(exc)
            assert model.to_dict() == before
        qv.bar_joint_model.from_dict(model.to_dict())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.one_of(HOSTILE, st.dictionaries(st.sampled_from(["g", "bar 0 · mass", "?"]),
                                                 st.one_of(st.lists(VALUE, max_size=3),
                                                           HOSTILE), max_size=2)),
       t_end=VALUE, n_points=st.one_of(st.integers(-2, 5), HOSTILE))
def test_sweep_arguments_are_validated(values, t_end, n_points):
    model = _pendulum()
    before = model.to_dict()
    try:
        qv.sweep(model, values, t_end, n_points=n_points, workers=1, progress=False)
    except (TypeError, ValueError) as exc:
        assert str(exc)
    assert model.to_dict() == before


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wrt=st.one_of(st.sampled_from(["g", "th0", ["g", "g"], [], "nothing"]), HOSTILE),
       order=st.one_of(st.integers(-1, 3), HOSTILE), t_end=VALUE,
       n_points=st.one_of(st.integers(-2, 4), st.just(10**12), HOSTILE))
def test_sensitivities_arguments_are_validated(wrt, order, t_end, n_points):
    model = _pendulum()
    before = model.to_dict()
    try:
        qv.sensitivities(model, t_end, wrt, order, n_points=n_points)
    except (TypeError, ValueError) as exc:
        assert str(exc)
    assert model.to_dict() == before


G = 9.81


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(y=st.floats(0.0, 1.0), theta=st.floats(-1.2, 1.2), vx=st.floats(-2, 2),
       vy=st.floats(-3, 1), omega=st.floats(-5, 5), e=st.floats(0.0, 1.0),
       rest=st.floats(1e-9, 1e-2), length=st.floats(0.3, 2.0))
def test_random_contact_scenes_never_pull_nor_sink(y, theta, vx, vy, omega, e, rest, length):
    """A bar thrown at a floor (both ends) and a wall (its upper end) from any pose above the
    floor: the contacts only push, nothing goes through the floor or the wall, and the
    energy balance (with the impacts' losses) holds."""
    half = 0.5 * length * abs(math.sin(theta))
    model = qv.bar_joint_model()
    bar = model.add_bar_at_attitude(0.0, y + half, theta, length, 1.0)
    model.set_init_bar_velocities(bar, vx, vy, omega)
    wall = -0.5 * length * abs(math.cos(theta)) - 0.1
    for s in (-0.5, 0.5):
        model.add_contact(bar, s, 0.0, e, rest_speed=rest)
        model.add_contact(bar, s, wall, e, normal_angle=0.0, rest_speed=rest)
    try:
        tr = model.simulate(1.5, 301, max_wall_s=60.0)
    except qv.BudgetExceededError as exc:  # a chattering run stops with a clear status
        assert "events within" in str(exc)
        tr = exc.trajectory
    scale = 1.0 * G
    assert tr.lambda_mult.min() >= -1e-9 * scale
    ends = [tr.point(bar, (s * length, 0.0))[0] for s in (-0.5, 0.5)]
    for p in ends:
        assert p[:, 1].min() >= -1e-8 and p[:, 0].min() >= wall - 1e-8
    assert tr.relative_energy_error() < 1e-8
