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
from long_call_models import TURNS, circle, pendulum

import quivira as qv
from quivira.examples import four_bar
from quivira.sensitivity import variable_names

#: the wall budget of the calls that Ctrl-C stops: an interrupt that is lost ends the test
#: with a BudgetExceededError after this long (it fails, it does not hang the suite)
LOST_CTRL_C_S = 60.0


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
@pytest.mark.slow
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
        pend.sensitivities(1e7, ["g"], n_points=10**6 + 1, max_wall_s=LOST_CTRL_C_S)
    assert time.perf_counter() - sent[0] < 1.0
    part = info.value.result
    # on a busy machine the interrupt may come before the first output time: t = 0 only
    assert info.value.t >= part.t[-1] >= 0.0 and part.t[0] == 0.0
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
def test_simulate_system_max_steps_stops_with_the_motion_so_far():
    lag, F, q, qd, s0 = circle()
    with pytest.raises(qv.BudgetExceededError, match="max_steps = 200") as info:
        qv.simulate_system(lag, F, q, qd, 1e6, s0, n_points=100_001, max_steps=200)
    tr = info.value.trajectory
    assert info.value.result is tr and isinstance(tr, qv.Trajectory)
    assert 0.0 < tr.t[-1] <= info.value.t < 1e6 and tr.q.shape == (len(tr.t), 2)
    assert np.max(np.abs(np.hypot(tr.q[:, 0], tr.q[:, 1]) - 1.0)) < 1e-6
    full = qv.simulate_system(lag, F, q, qd, float(tr.t[-1]), s0, n_points=len(tr.t))
    np.testing.assert_allclose(full.q[-1], tr.q[-1], rtol=0, atol=1e-9)


@pytest.mark.slow
def test_simulate_system_max_wall_s_and_ctrl_c():
    lag, F, q, qd, s0 = circle()
    t0 = time.perf_counter()
    with pytest.raises(qv.BudgetExceededError, match="max_wall_s = 0.5") as info:
        qv.simulate_system(lag, F, q, qd, 1e8, s0, n_points=10**6 + 1, max_wall_s=0.5)
    assert time.perf_counter() - t0 < 2.0
    assert info.value.t >= info.value.trajectory.t[-1] > 0.0
    threads = threading.active_count()
    with pytest.raises(qv.SimulationInterrupted) as info, ctrl_c_after(0.5) as sent:
        qv.simulate_system(lag, F, q, qd, 1e8, s0, n_points=10**6 + 1,
                          max_wall_s=LOST_CTRL_C_S)
    assert time.perf_counter() - sent[0] < 1.0
    assert info.value.t >= info.value.trajectory.t[-1] > 0.0
    assert threading.active_count() == threads
    with pytest.raises(ValueError, match="max_steps must be"):
        qv.simulate_system(lag, F, q, qd, 1.0, s0, max_steps=-1)


def test_simulate_system_refuses_large_outputs_before_compiling(monkeypatch):
    lag, F, q, qd, s0 = circle()

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
    np.testing.assert_allclose(part.multiplier("support0.y"), part.parameter,
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
        m.equilibrium_path("g", [9.81, 1.0], q_guess=q0, max_step=1e-7, max_points=10**6,
                           max_wall_s=LOST_CTRL_C_S)
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
        m.coupler_curve(1, 0.0, "th0", TURNS, offset=0.6, max_wall_s=LOST_CTRL_C_S)
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


# ------------------------------------------------------------------ sweeps
def _quiet_threads() -> int:
    """Threads alive, but for the process-wide pools that compile code in the background.

    (Their threads start on first use and stay; a sweep's threads are "quivira-sweep_k".)
    """
    pools = ("quivira-compile", "quivira-batch")
    return threading.active_count() - sum(t.name.startswith(pools)
                                          for t in threading.enumerate())


def test_sweep_ctrl_c_on_threads_stops_the_running_batch_lanes_within_a_second():
    m = four_bar()
    values = {"bar0.mass": np.linspace(0.8, 1.6, 6)}
    qv.sweep(m, values, 0.1, n_points=11, workers=2, block_size=3, progress=False)  # compiled
    threads = _quiet_threads()
    with ctrl_c_after(0.5) as sent:
        res = qv.sweep(m, values, 1e6, n_points=11, workers=2, block_size=3, progress=False,
                       max_wall_s=LOST_CTRL_C_S)
    assert time.perf_counter() - sent[0] < 1.0
    assert res.attrs["interrupted"] and set(res.status) == {"cancelled"}
    assert _quiet_threads() == threads  # no worker thread is left running
    assert not [t for t in threading.enumerate() if t.name.startswith("quivira-sweep")]


def _recorded_pendulum() -> qv.BarJointModel:
    """The pendulum with a recorded event: every variant runs in the scalar simulator."""
    m = pendulum()
    x0, _, _ = m.coordinates(0)
    m.add_event(x0, "vertical", direction="down")
    return m


def test_sweep_ctrl_c_on_threads_stops_between_scalar_variants(monkeypatch):
    """Ctrl-C sent once 40 variants have run (counted, not timed: a fast machine finishes
    the sweep in less than any fixed delay) cancels the rest; finished variants are kept."""
    from quivira.sweeps import batch

    m = _recorded_pendulum()
    values = {"g": np.linspace(9.0, 10.0, 400)}
    qv.sweep(m, {"g": [9.0]}, 0.5, n_points=11, workers=2, progress=False)  # compiled
    threads = _quiet_threads()
    sent: list[float] = []
    calls = [0]
    lock = threading.Lock()
    simulate = batch.Simulator.simulate

    def counted(self, *args, **kwargs):
        with lock:
            calls[0] += 1
            if calls[0] == 40:
                sent.append(time.perf_counter())
                _thread.interrupt_main()
        return simulate(self, *args, **kwargs)

    monkeypatch.setattr(batch.Simulator, "simulate", counted)
    res = qv.sweep(m, values, 30.0, n_points=11, workers=2, block_size=200, progress=False)
    assert sent and time.perf_counter() - sent[0] < 1.0
    assert res.attrs["interrupted"] and _quiet_threads() == threads
    done = res.status == "ok"
    assert 0 < done.sum() < 400 and set(res.status[~done]) == {"cancelled"}
    assert res.scalar[0] is not None and np.all(np.isfinite(res.final_state[done]))


def test_sweep_ctrl_c_on_threads_stops_a_long_scalar_variant():
    m = _recorded_pendulum()
    qv.sweep(m, {"g": [9.0]}, 0.5, n_points=11, workers=1, progress=False)  # compiled
    threads = _quiet_threads()
    with ctrl_c_after(0.5) as sent:
        res = qv.sweep(m, {"g": [9.0, 9.5]}, 1e6, n_points=11, workers=2, block_size=1,
                       progress=False, max_wall_s=LOST_CTRL_C_S)
    assert time.perf_counter() - sent[0] < 1.0
    assert list(res.status) == ["cancelled", "cancelled"]
    assert _quiet_threads() == threads


def test_sweep_max_wall_s_in_batch_lanes_uses_the_budget_message():
    m = four_bar()
    res = qv.sweep(m, {"bar0.mass": [1.0, 1.2]}, 1e6, n_points=11, workers=1,
                   max_wall_s=0.3, progress=False)
    assert list(res.status) == ["budget", "budget"]
    assert "max_wall_s = 0.3); pass a larger max_wall_s" in res.message[0]
    with pytest.raises(ValueError, match="max_steps must be an integer >= 1"):
        qv.sweep(m, {"g": [1.0]}, 1.0, max_steps=0, progress=False)


def test_sweep_refuses_large_outputs_before_any_work(monkeypatch):
    def no_compile(*args, **kwargs):
        raise AssertionError("compiled")

    monkeypatch.setattr(qv.sweeps.run, "Preparer", no_compile)
    m = pendulum()
    values = {"g": np.linspace(1.0, 10.0, 200_000)}
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"200000 variants of n_points = 2001 would need "
                                         r"about 38.\d GB .*leave 'trajectory' out"):
        qv.sweep(m, values, 1.0, n_points=2001, progress=False)
    assert time.perf_counter() - t0 < 1.0 and m._simulator.n_cached == 0
    # without the trajectories, the same sweep holds one state per variant
    outputs = ("final_state", "energy_error")
    with pytest.raises(AssertionError, match="compiled"):
        qv.sweep(m, values, 1.0, n_points=2001, outputs=outputs, progress=False)


def test_sweep_without_trajectory_keeps_the_final_states():
    m = four_bar()
    values = {"bar0.mass": [1.0, 1.5]}
    full = qv.sweep(m, values, 0.5, n_points=21, workers=1, progress=False)
    final = qv.sweep(m, values, 0.5, n_points=21, workers=1, progress=False,
                     outputs=["final_state", "energy_error"])
    assert final.q is None
    np.testing.assert_array_equal(final.final_state, full.final_state)
    np.testing.assert_array_equal(final.energy_error, full.energy_error)


# ------------------------------------------------------------------ heyoka's disk cache
def test_sweep_cache_dir_is_checked_and_restored(tmp_path):
    m = pendulum()
    before = hy.llvm_state.get_diskcache_path()
    with pytest.raises(TypeError, match="heyoka_cache_dir must be a path"):
        qv.sweep(m, {"g": [9.0]}, 0.1, heyoka_cache_dir=3, progress=False)
    a_file = tmp_path / "file"
    a_file.write_text("")
    with pytest.raises(ValueError, match=f"heyoka_cache_dir '{a_file}' is not a directory"):
        qv.sweep(m, {"g": [9.0]}, 0.1, heyoka_cache_dir=a_file, progress=False)
    with pytest.raises(ValueError, match="cannot be created"):
        qv.sweep(m, {"g": [9.0]}, 0.1, heyoka_cache_dir=a_file / "sub", progress=False)
    cache = tmp_path / "cache"
    res = qv.sweep(m, {"g": [9.0]}, 0.1, n_points=3, heyoka_cache_dir=cache, progress=False)
    assert res.status[0] == "ok" and (cache / "cache.db").exists()
    assert hy.llvm_state.get_diskcache_path() == before
    with pytest.raises(ValueError, match="variant 0: bar 0: mass must be positive"):
        qv.sweep(m, {"bar0.mass": [-1.0]}, 0.1, heyoka_cache_dir=cache, progress=False)
    assert hy.llvm_state.get_diskcache_path() == before
    with ctrl_c_after(0.5):
        res = qv.sweep(four_bar(), {"g": [9.0, 9.5]}, 1e6, n_points=3, workers=1,
                       heyoka_cache_dir=cache, progress=False, max_wall_s=LOST_CTRL_C_S)
    assert res.attrs["interrupted"] and hy.llvm_state.get_diskcache_path() == before


def test_corrupted_cache_error_names_the_cache():
    from quivira.sweeps.cache import cache_errors

    heyoka_error = ValueError("Could not find the symbol 'step' in the compiled module. The "
                              "full error message:\nSymbols not found: [ step ]")
    with pytest.raises(RuntimeError, match=r"cache of compiled code in '/some/dir' seems to "
                       r"be corrupted .*clear_diskcache\(\).*delete the directory") as info:
        with cache_errors("/some/dir"):
            raise heyoka_error
    assert info.value.__cause__ is heyoka_error
    with pytest.raises(ValueError, match="unrelated"), cache_errors("/some/dir"):
        raise ValueError("unrelated")


SWEEP_IN_A_PROCESS = """
import sys
import quivira as qv
from quivira.examples import four_bar
try:
    res = qv.sweep(four_bar(), {"g": [9.0, 9.5]}, 0.2, n_points=3, workers=1,
                   progress=False, tol=1.234e-11, heyoka_cache_dir=sys.argv[1])
    print("status", res.status.tolist(), res.message.tolist())
except RuntimeError as exc:
    print("error", exc)
"""


FOREIGN_OBJECT = """
import sys
import heyoka as hy
hy.llvm_state.set_diskcache_path(sys.argv[1])
x = hy.make_vars("x")
hy.cfunc([x * x + 1.2345], vars=[x])
"""


def test_native_errors_with_a_cache_in_use_name_the_cache(tmp_path):
    """Foreign code in a cache can load and then trip heyoka's C++ side anywhere (seen: an
    arithmetic overflow in a size): with a cache given, such errors name it and its cure;
    quivira's own errors and errors without a cache keep their text."""
    from quivira.sweeps import cache

    where = str(tmp_path)
    for exc in (RuntimeError("addition result too large: positive overflow error"),
                OverflowError("integer overflow")):
        text = cache.explain_cache_error(exc, where, cache_in_use=True)
        assert f"cache of compiled code in {where!r}" in text and "clear_diskcache()" in text
        assert str(exc) in text
        assert cache.explain_cache_error(exc, where) == str(exc)
    own = qv.SingularConfigurationError("singular pose", 0.0, np.zeros(2))
    assert cache.explain_cache_error(own, where, cache_in_use=True) == str(own)
    with pytest.raises(RuntimeError, match="may be corrupted") as info:
        with cache.cache_errors(where):
            raise OverflowError("positive overflow")
    assert where in str(info.value)


@pytest.mark.slow
def test_sweep_with_a_corrupted_cache_names_it(tmp_path):
    """A cache whose compiled modules were replaced by hand: heyoka cannot find its
    functions in them; the sweep's error names the cache and how to clear it."""
    import os
    import sqlite3
    import subprocess
    import sys
    from pathlib import Path

    cache = tmp_path / "cache"
    here = str(Path(qv.__file__).parents[1])  # the quivira under test
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([here, os.environ.get("PYTHONPATH",
                                                                             "")])}

    def run() -> str:
        out = subprocess.run([sys.executable, "-c", SWEEP_IN_A_PROCESS, str(cache)],
                             capture_output=True, text=True, timeout=120, env=env)
        return out.stdout + out.stderr

    assert "status ['ok', 'ok']" in run()
    # every module replaced by the object code of an unrelated function (compiled into a
    # cache of its own): it lacks the symbols heyoka looks for, whichever module it loads
    other = tmp_path / "other"
    subprocess.run([sys.executable, "-c", FOREIGN_OBJECT, str(other)], check=True, env=env,
                   timeout=120)
    with sqlite3.connect(other / "cache.db") as db:
        foreign = db.execute("select obj from cache").fetchall()[0][0]
    with sqlite3.connect(cache / "cache.db") as db:
        for (h,) in db.execute("select hash from cache").fetchall():
            db.execute("update cache set obj = ? where hash = ?", (foreign, h))
    text = run()
    assert f"cache of compiled code in '{cache}'" in text, text
    assert "corrupted" in text, text
    assert "clear_diskcache()" in text
