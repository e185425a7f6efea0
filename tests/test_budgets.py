"""Budgets of the long calls: steps, wall time, Ctrl-C and output sizes.

Every long call — ``sensitivities``, ``simulate_system``, ``equilibrium_path``,
``kinematic_sweep`` / ``coupler_curve`` and ``sweep`` — takes ``max_steps`` and
``max_wall_s`` (:class:`quivira.budget.Budget`), stops with a
:class:`~quivira.BudgetExceededError` or a :class:`~quivira.SimulationInterrupted` that
carries what it computed so far, and refuses outputs above
:data:`quivira.budget.MAX_OUTPUT_BYTES` before any work. Ctrl-C is simulated by
``_thread.interrupt_main()`` from a timer thread (what Python does on SIGINT).
"""

from __future__ import annotations

import _thread
import math
import threading
import time
from contextlib import contextmanager

import heyoka as hy
import numpy as np
import pytest

import quivira as qv
from quivira.examples import four_bar
from quivira.sensitivity import variable_names

G = 9.81


def pendulum() -> qv.BarJointModel:
    """A unit bar pinned at one end, released at 0.9 rad from the vertical."""
    m = qv.BarJointModel()
    th = -0.9
    m.add_bar_at_attitude(0.5 * math.cos(th), 0.5 * math.sin(th), th, 1.0, 1.0)
    m.add_support(0, -0.5, dof_in_x=False, dof_in_y=False, x=0.0, y=0.0)
    return m


@contextmanager
def ctrl_c_after(seconds: float):
    """Raise KeyboardInterrupt in the main thread after ``seconds`` (as SIGINT does).

    Yields a list that receives the time the interrupt was sent.
    """
    sent: list[float] = []

    def fire():
        sent.append(time.perf_counter())
        _thread.interrupt_main()

    timer = threading.Timer(seconds, fire)
    timer.start()
    try:
        yield sent
    finally:
        timer.cancel()
        timer.join()


@pytest.fixture(scope="module")
def pend():
    """The pendulum, with its variational system for ``g`` compiled once."""
    m = pendulum()
    m.sensitivities(0.1, ["g"], n_points=2)
    return m


# ------------------------------------------------------------------ sensitivities
def test_sensitivities_max_steps_stops_with_the_jets_so_far(pend):
    with pytest.raises(qv.BudgetExceededError, match="max_steps = 40") as info:
        pend.sensitivities(1e4, ["g"], n_points=100_001, max_steps=40)
    part = info.value.result
    assert isinstance(part, qv.sensitivity.Sensitivities)
    assert 0.0 < part.t[-1] <= info.value.t < 1e4 and len(part.t) > 2
    # the jets so far are those of a run that ends there
    full = pend.sensitivities(float(part.t[-1]), ["g"], n_points=len(part.t))
    np.testing.assert_allclose(part.array("state").values[-1],
                               full.array("state").values[-1], rtol=1e-9, atol=1e-12)


def test_sensitivities_max_wall_s_stops_within_the_budget(pend):
    t0 = time.perf_counter()
    with pytest.raises(qv.BudgetExceededError, match="max_wall_s = 0.3") as info:
        pend.sensitivities(1e7, ["g"], n_points=10**6 + 1, max_wall_s=0.3)
    assert time.perf_counter() - t0 < 1.5
    assert info.value.t >= info.value.result.t[-1] > 0.0


def test_sensitivities_budget_arguments_are_checked(pend):
    with pytest.raises(ValueError, match="max_steps must be an integer >= 1"):
        pend.sensitivities(1.0, ["g"], max_steps=0)
    with pytest.raises(TypeError, match="max_wall_s must be a positive number"):
        pend.sensitivities(1.0, ["g"], max_wall_s="1")


def test_sensitivities_ctrl_c_returns_within_a_second_with_the_jets_so_far(pend):
    threads = threading.active_count()
    with pytest.raises(qv.SimulationInterrupted, match="sensitivities interrupted") as info, \
            ctrl_c_after(0.4) as sent:
        pend.sensitivities(1e7, ["g"], n_points=10**6 + 1)
    assert time.perf_counter() - sent[0] < 1.0
    part = info.value.result
    assert info.value.t >= part.t[-1] > 0.0
    assert np.all(np.isfinite(part.array("state").values))
    assert threading.active_count() == threads


def test_sensitivities_refuse_large_outputs_before_any_work():
    m = four_bar()
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"n_points = 1000000000 .* GB of outputs .*fewer "
                                         "n_points"):
        m.sensitivities(1.0, ["g"], n_points=10**9)
    # 8 names at order 4: 495 jets of each of the 18 state entries
    with pytest.raises(ValueError, match=r"order = 4 with 8 wrt names \(495 jets.* GB of "
                                         "working memory .*fewer wrt names"):
        m.sensitivities(1.0, variable_names(m)[:8], order=4)
    assert time.perf_counter() - t0 < 1.0
    assert m._simulator.n_cached == 0  # nothing was compiled


# ------------------------------------------------------------------ simulate_system
def _circle():
    """A point mass on a circle of radius 1 (Cartesian coordinates, one holonomic row)."""
    x, y, u, v = hy.make_vars("x", "y", "u", "v")
    lag = (u * u + v * v) / 2 - G * y
    return lag, [x * x + y * y - 1.0], [x, y], [u, v], [math.sin(0.8), -math.cos(0.8), 0, 0]


def test_simulate_system_max_steps_stops_with_the_motion_so_far():
    lag, F, q, qd, s0 = _circle()
    with pytest.raises(qv.BudgetExceededError, match="max_steps = 200") as info:
        qv.simulate_system(lag, F, q, qd, 1e6, s0, n_points=100_001, max_steps=200)
    tr = info.value.trajectory
    assert info.value.result is tr and isinstance(tr, qv.Trajectory)
    assert 0.0 < tr.t[-1] <= info.value.t < 1e6 and tr.q.shape == (len(tr.t), 2)
    assert np.max(np.abs(np.hypot(tr.q[:, 0], tr.q[:, 1]) - 1.0)) < 1e-6
    full = qv.simulate_system(lag, F, q, qd, float(tr.t[-1]), s0, n_points=len(tr.t))
    np.testing.assert_allclose(full.q[-1], tr.q[-1], rtol=0, atol=1e-9)


def test_simulate_system_max_wall_s_and_ctrl_c():
    lag, F, q, qd, s0 = _circle()
    t0 = time.perf_counter()
    with pytest.raises(qv.BudgetExceededError, match="max_wall_s = 0.5") as info:
        qv.simulate_system(lag, F, q, qd, 1e8, s0, n_points=10**6 + 1, max_wall_s=0.5)
    assert time.perf_counter() - t0 < 2.0
    assert info.value.t >= info.value.trajectory.t[-1] > 0.0
    threads = threading.active_count()
    with pytest.raises(qv.SimulationInterrupted) as info, ctrl_c_after(0.5) as sent:
        qv.simulate_system(lag, F, q, qd, 1e8, s0, n_points=10**6 + 1)
    assert time.perf_counter() - sent[0] < 1.0
    assert info.value.t >= info.value.trajectory.t[-1] > 0.0
    assert threading.active_count() == threads
    with pytest.raises(ValueError, match="max_steps must be"):
        qv.simulate_system(lag, F, q, qd, 1.0, s0, max_steps=-1)


def test_simulate_system_refuses_large_outputs_before_compiling(monkeypatch):
    lag, F, q, qd, s0 = _circle()

    def no_compile(*args, **kwargs):
        raise AssertionError("compiled")

    monkeypatch.setattr(hy, "taylor_adaptive", no_compile)
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"n_points = 1000000000 .* GB of outputs"):
        qv.simulate_system(lag, F, q, qd, 1.0, s0, n_points=10**9)
    assert time.perf_counter() - t0 < 1.0


# ------------------------------------------------------------------ statics paths
def _hanging():
    return pendulum(), [0.0, -0.5, -math.pi / 2]


def test_equilibrium_path_max_steps_stops_with_the_path_so_far():
    m, q0 = _hanging()
    with pytest.raises(qv.BudgetExceededError, match="equilibrium_path stopped after 20 "
                                                     "continuation steps at g = ") as info:
        m.equilibrium_path("g", [9.81, 1.0], q_guess=q0, max_step=1e-4, max_steps=20)
    part = info.value.result
    assert not part.complete and "max_steps = 20" in part.message
    assert 2 <= len(part) <= 21 and np.all(np.diff(part.parameter) < 0)
    np.testing.assert_array_equal(info.value.state, part.q[-1])
    # the path so far is the start of the whole path
    whole = m.equilibrium_path("g", [9.81, 1.0], q_guess=q0, max_step=1e-4,
                               max_points=len(part))
    np.testing.assert_array_equal(whole.parameter, part.parameter)
    np.testing.assert_allclose(part.multiplier("support 0 · y"), part.parameter,
                               rtol=1e-10)


def test_equilibrium_path_max_wall_s_and_ctrl_c():
    m, q0 = _hanging()
    t0 = time.perf_counter()
    with pytest.raises(qv.BudgetExceededError, match="max_wall_s = 0.3") as info:
        m.equilibrium_path("g", [9.81, 1.0], q_guess=q0, max_step=1e-7, max_points=10**6,
                           max_wall_s=0.3)
    assert time.perf_counter() - t0 < 1.0 and len(info.value.result) >= 2
    with pytest.raises(qv.SimulationInterrupted, match="equilibrium_path interrupted at g = "
                       ) as info, ctrl_c_after(0.3) as sent:
        m.equilibrium_path("g", [9.81, 1.0], q_guess=q0, max_step=1e-7, max_points=10**6)
    assert time.perf_counter() - sent[0] < 1.0
    part = info.value.result
    assert len(part) >= 2 and not part.complete and part.message.startswith("interrupted")
    with pytest.raises(TypeError, match="max_steps must be an integer"):
        m.equilibrium_path("g", [9.81, 1.0], max_steps=2.5)


def test_equilibrium_path_refuses_large_outputs_before_any_work():
    m, q0 = _hanging()
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"max_points = 1000000000 .* GB of outputs"):
        m.equilibrium_path("g", [9.81, 1.0], max_points=10**9)
    assert time.perf_counter() - t0 < 1.0 and m._simulator.n_cached == 0


# ------------------------------------------------------------------ kinematic sweeps
TURNS = np.linspace(math.pi / 3, math.pi / 3 + 2000 * math.pi, 100_001)  # 1000 crank turns


def test_kinematic_sweep_max_steps_stops_with_the_sweep_so_far():
    m = four_bar()
    with pytest.raises(qv.BudgetExceededError, match="kinematic_sweep stopped after 30 "
                                                     "position solves at th0 = ") as info:
        m.kinematic_sweep("th0", TURNS, max_steps=30)
    part = info.value.result
    assert not part.complete and "max_steps = 30" in part.message and 2 <= len(part) <= 31
    np.testing.assert_array_equal(part.values, TURNS[:len(part)])
    whole = m.kinematic_sweep("th0", TURNS[:len(part)])
    np.testing.assert_array_equal(whole.q, part.q)
    with pytest.raises(qv.BudgetExceededError) as info:
        m.coupler_curve(1, 0.0, "th0", TURNS, offset=0.6, max_steps=30)
    curve = info.value.result
    assert curve.points.shape == (len(part), 2) and not curve.complete


def test_kinematic_sweep_max_wall_s_and_ctrl_c():
    m = four_bar()
    m.kinematic_sweep("th0", TURNS[:3])  # compiled
    t0 = time.perf_counter()
    with pytest.raises(qv.BudgetExceededError, match="max_wall_s = 0.3") as info:
        m.kinematic_sweep("th0", TURNS, max_wall_s=0.3)
    assert time.perf_counter() - t0 < 1.0 and len(info.value.result) >= 2
    threads = threading.active_count()
    with pytest.raises(qv.SimulationInterrupted, match="kinematic_sweep interrupted at th0 ="
                       ) as info, ctrl_c_after(0.3) as sent:
        m.coupler_curve(1, 0.0, "th0", TURNS, offset=0.6)
    assert time.perf_counter() - sent[0] < 1.0 and threading.active_count() == threads
    curve = info.value.result
    assert len(curve.values) >= 2 and np.all(np.isfinite(curve.points))


def test_kinematic_sweep_refuses_large_outputs_before_any_work():
    m = four_bar()
    values = np.linspace(0.0, 1.0, 5_000_000)  # 60 numbers a value for a four-bar
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"5000000 driver values .* GB of outputs .*sweep "
                                         "fewer values"):
        m.kinematic_sweep("th0", values)
    assert time.perf_counter() - t0 < 1.0 and m._simulator.n_cached == 0
