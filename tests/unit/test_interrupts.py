"""Ctrl-C stops every long call, even when the first ``KeyboardInterrupt`` is swallowed.

Python raises ``KeyboardInterrupt`` wherever the main thread is when SIGINT arrives; in a
finalizer, a callback or code that catches every exception it is lost, and a long call would
go on for hours. :func:`quivira.budget.interrupts_polled` marks the interrupt so that the
loops raise it again between chunks. These tests swallow the first interrupt on purpose (as
a finalizer would) and check that each long call still stops within a second with what it
computed; and, over random delays, that a Ctrl-C always stops the call, the SIGINT handler is
restored after it and no interrupt leaks into the next call.
"""

from __future__ import annotations

import _thread
import math
import signal
import threading
import time
from collections.abc import Callable

import numpy as np
import pytest
from long_call_models import TURNS, circle, pendulum

import quivira as qv
from quivira import budget as budget_mod
from quivira.examples import four_bar
from quivira.sweeps.results import SweepResult

_pendulum = pendulum  # a unit bar pinned at one end, released at 0.9 rad


@pytest.fixture(scope="module")
def long_calls() -> dict[str, Callable[[float], object]]:
    """Each long call, compiled once, as ``call(max_wall_s)`` that runs for minutes."""
    pend = _pendulum()
    pend.simulate(0.1, n_points=3)
    sens = _pendulum()
    sens.sensitivities(0.1, ["g"], n_points=2)
    hanging, q_hang = _pendulum(), [0.0, -0.5, -math.pi / 2]
    crank = four_bar()
    crank.kinematic_sweep("th0", TURNS[:3])
    lag, F, q, qd, s0 = circle()
    qv.simulate_system(lag, F, q, qd, 0.1, s0, n_points=3)
    recorded = _pendulum()
    (x0, _, _), _ = recorded.variables(0)
    recorded.add(qv.elements.UserEvent(x0, direction="down", name="vertical"))
    qv.sweep(recorded, {"g": [9.0]}, 0.5, n_points=11, workers=1, progress=False)
    return {
        "simulate": lambda w: pend.simulate(1e7, n_points=10**5 + 1, max_wall_s=w),
        "sensitivities": lambda w: sens.sensitivities(1e7, ["g"], n_points=10**5 + 1,
                                                      max_wall_s=w),
        "simulate_system": lambda w: qv.simulate_system(lag, F, q, qd, 1e8, s0,
                                                        n_points=10**5 + 1, max_wall_s=w),
        "equilibrium_path": lambda w: hanging.equilibrium_path(
            "g", [9.81, 1.0], q_guess=q_hang, max_step=1e-7, max_points=10**6, max_wall_s=w),
        "kinematic_sweep": lambda w: crank.kinematic_sweep("th0", TURNS, max_wall_s=w),
        "sweep": lambda w: qv.sweep(recorded, {"g": [9.0, 9.5]}, 1e6, n_points=11, workers=2,
                                    block_size=1, progress=False, max_wall_s=w),
    }


def _stopped_by_ctrl_c(name: str, outcome: object) -> None:
    """Check that ``outcome`` (a result or an exception) is a Ctrl-C stop with a result."""
    if name == "sweep":
        assert isinstance(outcome, SweepResult) and outcome.attrs["interrupted"], outcome
        assert set(outcome.status) <= {"cancelled", "ok"}
        return
    assert isinstance(outcome, KeyboardInterrupt), f"{name} was not interrupted: {outcome!r}"
    if isinstance(outcome, qv.SimulationInterrupted):
        r = outcome.result  # what it computed up to the interrupt (t = 0 on)
        frames = r.n_points if hasattr(r, "n_points") else len(r.t) if hasattr(r, "t") \
            else len(r)
        assert frames >= 1


def _run(call: Callable[[float], object], max_wall_s: float) -> object:
    """Return what ``call`` returned, or the exception it raised."""
    try:
        return call(max_wall_s)
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - the test inspects it
        return exc


NAMES = ["simulate", "sensitivities", "simulate_system", "equilibrium_path",
         "kinematic_sweep", "sweep"]


@pytest.mark.parametrize("name", NAMES)
def test_a_swallowed_ctrl_c_still_stops_the_call_within_a_second(name, long_calls,
                                                                 monkeypatch):
    """The first KeyboardInterrupt is caught and dropped where it lands (as in a finalizer);
    the loop raises it again between chunks. Without that, the call ran to max_wall_s."""
    sent: list[float] = []

    def swallow_one_interrupt() -> None:
        if sent or threading.current_thread() is not threading.main_thread():
            return
        sent.append(time.perf_counter())
        try:
            signal.raise_signal(signal.SIGINT)
            for _ in range(100):  # the handler runs at the next bytecode
                pass
        except KeyboardInterrupt:
            pass  # swallowed

    if name == "sweep":  # the main thread of a sweep waits for its worker threads
        from quivira.sweeps import distributed

        wait = distributed.cf.wait

        def waiting(*args, **kwargs):
            out = wait(*args, **kwargs)
            if len(args[0]) and time.perf_counter() > start + 0.3:
                swallow_one_interrupt()
            return out

        monkeypatch.setattr(distributed.cf, "wait", waiting)
    else:
        add = budget_mod.Budget.add

        def counted(self, steps):
            if self.steps > 0:
                swallow_one_interrupt()
            return add(self, steps)

        monkeypatch.setattr(budget_mod.Budget, "add", counted)
    start = time.perf_counter()
    outcome = _run(long_calls[name], 5.0)
    assert sent, f"{name}: the interrupt was never sent"
    assert time.perf_counter() - sent[0] < 1.0, f"{name} went on after Ctrl-C: {outcome!r}"
    _stopped_by_ctrl_c(name, outcome)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.slow
def test_ctrl_c_at_random_moments_always_stops_the_call(name, long_calls):
    """Over random delays: each Ctrl-C stops the call within a second; afterwards the
    handler is Python's again and nothing is pending (the next call runs to its end)."""
    rng = np.random.default_rng(sum(map(ord, name)))
    for delay in rng.uniform(0.02, 0.6, 4):
        sent: list[float] = []

        def fire(sent=sent):
            sent.append(time.perf_counter())
            _thread.interrupt_main()

        timer = threading.Timer(float(delay), fire)
        timer.start()
        try:
            outcome = _run(long_calls[name], 20.0)
        finally:
            timer.cancel()
            timer.join()
        assert sent and time.perf_counter() - sent[0] < 1.0, (name, delay, outcome)
        _stopped_by_ctrl_c(name, outcome)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert not budget_mod._Interrupts.pending and budget_mod._Interrupts.depth == 0
    # no interrupt is left over: a short run ends normally
    pend = _pendulum()
    assert pend.simulate(0.05, n_points=3).n_points == 3


def test_a_handler_of_the_users_own_is_left_alone(long_calls):
    """With a SIGINT handler of the user's own, the long calls do not replace it."""
    seen: list[int] = []

    def mine(signum, frame):
        seen.append(signum)

    previous = signal.signal(signal.SIGINT, mine)
    try:
        timer = threading.Timer(0.2, _thread.interrupt_main)
        timer.start()
        with pytest.raises(qv.BudgetExceededError, match="max_wall_s = 0.6"):
            long_calls["simulate"](0.6)
        timer.join()
        assert seen == [signal.SIGINT] and signal.getsignal(signal.SIGINT) is mine
    finally:
        signal.signal(signal.SIGINT, previous)


def test_long_calls_in_other_threads_leave_the_handler_alone():
    """A long call in a worker thread cannot install a handler (only the main thread may)."""
    out: list = []
    m = _pendulum()
    t = threading.Thread(target=lambda: out.append(m.simulate(0.2, n_points=5)))
    t.start()
    t.join()
    assert out and out[0].n_points == 5
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
