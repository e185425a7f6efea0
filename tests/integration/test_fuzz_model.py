"""Fuzzing the model as a hostile and a careless user would.

* Random call sequences on the model API (hypothesis): every call either succeeds or raises
  TypeError/ValueError, and a failed call leaves the model exactly as it was (``to_dict``
  unchanged, no observer told); after every call the model round-trips through ``to_dict``.
* Saved model files mutated in a child process (tests/fuzz_model_files.py, pointed at
  ``bar_joint_model.load``): no case may crash, hang or exhaust the memory of the process;
  every rejection is a ValueError. Version-1 files (expressions as pickles) are fuzzed too:
  they are read without unpickling. ``QUIVIRA_FUZZ_CASES`` raises the number of cases for
  local runs (a few hundred in CI).
* Random models round-trip bit for bit through a file, including their simulated motion.
"""

from __future__ import annotations

import base64
import copy
import json
import math
import os
import pickle
import re
import sys
from pathlib import Path

import heyoka as hy
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import quivira as qv
from quivira.model.elements import UserConstraint

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import fuzz_model_files as fuzz  # noqa: E402


def _nested(levels: int) -> list:
    out: list = []
    for _ in range(levels):
        out = [out]
    return out


#: nesting deeper than Python's repr() can show (the error messages must not recurse)
DEEP = _nested(5000)
HOSTILE = st.one_of(
    st.none(), st.booleans(), st.integers(-10, 10), st.integers(min_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([1e300, -1e300, 1e-320]),
    st.text(max_size=3), st.lists(st.floats(-2, 2), max_size=4),
    st.sampled_from([np.float64(0.5), np.int64(1), np.nan, [0, 1], [[1, 0, 0]], (0.1, 0.2)]),
)
#: values beyond the limits: deep nesting, ints no double holds, magnitudes above 1e50
NASTY = st.sampled_from([DEEP, [DEEP], 10**400, -(10**400), 10**5000, 1e60, -1e51,
                         np.float64(1e300), [1e60], [[1e60, 0.0, 0.0]], [[10**400, 0, 0]],
                         np.array([[0.0, 1e60, 0.0]]), np.array([10**400], dtype=object)])
NICE = st.floats(-2.0, 2.0, allow_nan=False)
VALUE = st.one_of(NICE, NICE, HOSTILE, NASTY)
INDEX = st.one_of(st.integers(-1, 4), HOSTILE, NASTY)
#: matrices of coordinate constraints and their offsets: nice, hostile or with nasty entries
ROW = st.lists(st.one_of(NICE, NICE, NASTY), min_size=3, max_size=3)
MATRIX = st.one_of(st.none(), st.lists(ROW, min_size=1, max_size=2), HOSTILE, NASTY)
ARRAY = st.one_of(st.lists(st.one_of(NICE, NASTY), min_size=1, max_size=2), HOSTILE, NASTY)
#: constraint rows in the variables of bars 0 and 1: good ones, rows that constrain nothing
#: (x0 - x0), runtime parameters, rows outside their domain at the start
_x0, _y0, _th0, _x1 = hy.make_vars("x0", "y0", "th0", "x1")
_vx0, _om1 = hy.make_vars("vx0", "om1")
ROWS = st.lists(st.sampled_from([
    _x0 - _x1 - 1.0, _th0 - 0.5, _x0 - _x0, _y0 * 0.0 + _th0 - _th0, hy.sqrt(_x0 - 100.0),
    _x0 + hy.par[0], hy.par[9999] * _th0, _vx0 + _om1, _vx0 - _vx0 + _x0, hy.expression(1.0),
    hy.time - _th0]), min_size=1, max_size=2)

CALLS = st.one_of(
    st.tuples(st.just("add_bar_at_attitude"), st.tuples(VALUE, VALUE, VALUE, VALUE, VALUE)),
    st.tuples(st.just("add_bar"), st.tuples(VALUE, VALUE)),
    st.tuples(st.just("add_bar_from_point_pair"),
              st.tuples(st.one_of(st.tuples(NICE, NICE), HOSTILE),
                        st.one_of(st.tuples(NICE, NICE), HOSTILE), VALUE)),
    st.tuples(st.just("set_init_bar_attitude"), st.tuples(INDEX, VALUE, VALUE, VALUE)),
    st.tuples(st.just("set_init_bar_velocities"), st.tuples(INDEX, VALUE, VALUE, VALUE)),
    st.tuples(st.just("set_bar_length"), st.tuples(INDEX, VALUE)),
    st.tuples(st.just("set_bar_mass"), st.tuples(INDEX, VALUE)),
    st.tuples(st.just("set_g"), st.tuples(VALUE)),
    st.tuples(st.just("set_stabilization"), st.tuples(VALUE)),
    st.tuples(st.just("add_joint"), st.tuples(st.one_of(st.lists(INDEX, max_size=3), HOSTILE),
                                              st.one_of(st.lists(VALUE, max_size=3), HOSTILE))),
    st.tuples(st.just("add_support"), st.tuples(INDEX, VALUE, st.one_of(st.booleans(), HOSTILE),
                                                st.one_of(st.booleans(), HOSTILE))),
    st.tuples(st.just("add_external_force"), st.tuples(INDEX, VALUE, VALUE, VALUE, VALUE)),
    st.tuples(st.just("add_coordinate_constraint"),
              st.tuples(st.one_of(st.none(), INDEX), st.one_of(st.none(), INDEX), HOSTILE,
                        HOSTILE)),
    st.tuples(st.just("add_coordinate_constraint"),
              st.tuples(st.one_of(st.none(), INDEX), st.one_of(st.none(), INDEX), MATRIX, MATRIX,
                        MATRIX, MATRIX, st.one_of(st.none(), ARRAY))),
    st.tuples(st.just("set_constraint_offset"), st.tuples(st.one_of(INDEX, st.text(max_size=2)),
                                                          ARRAY)),
    st.tuples(st.just("add_constraint"), st.tuples(st.one_of(ROWS, HOSTILE, NASTY))),
    st.tuples(st.just("add_velocity_constraint"), st.tuples(ROWS)),
    st.tuples(st.just("add_knife_edge"), st.tuples(INDEX, VALUE)),
    st.tuples(st.just("remove_bar"), st.tuples(INDEX)),
    st.tuples(st.just("remove_joint"), st.tuples(INDEX)),
    st.tuples(st.just("remove_support"), st.tuples(INDEX)),
    st.tuples(st.just("remove_force"), st.tuples(INDEX)),
    st.tuples(st.just("remove_constraint"), st.tuples(st.one_of(INDEX, st.text(max_size=2)))),
    st.tuples(st.just("set_constraint_active"), st.tuples(INDEX, st.one_of(st.booleans(),
                                                                             HOSTILE))),
    st.tuples(st.just("set_initial_state"), st.tuples(st.one_of(st.lists(VALUE, max_size=13),
                                                                HOSTILE))),
    st.tuples(st.just("tolerance"), st.tuples(VALUE)),
    st.tuples(st.just("cache_size"), st.tuples(st.one_of(st.integers(-1, 4), HOSTILE))),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(CALLS, min_size=1, max_size=25))
def test_random_call_sequences_leave_a_valid_model(calls):
    m = qv.BarJointModel()
    seen: list[str] = []
    m.observe(seen.append)
    for name, args in calls:
        before, n_seen = m.to_dict(), len(seen)
        try:
            if name in ("tolerance", "cache_size"):
                setattr(m, name, args[0])
            elif name == "add_velocity_constraint":
                m.add_constraint(*args, velocity_level=True)
            else:
                getattr(m, name)(*args)
        except (TypeError, ValueError):
            assert m.to_dict() == before, (name, args)
            assert len(seen) == n_seen, (name, args)
            continue
        d = m.to_dict()
        json.dumps(d, allow_nan=False)  # plain, finite data
        assert qv.BarJointModel.from_dict(d).to_dict() == d


def _rich_file() -> dict:
    """Data of a model with every kind of expression and array a file holds."""
    from quivira.examples import four_bar

    m = four_bar()
    A = m.add_parameter("A", 2.0)
    x0, y0, th0 = m.coordinates(0)
    m.add_force_actuator(1, 0.5, A * hy.sin(hy.time), 0.0, name="push")
    m.add_torque_actuator(2, 0.1 * A, bar_a=1, name="turn")
    m.add_event(th0 - 2.0, name="ev", direction="up")
    m.add_joint_motor(None, 0.5 * hy.time + A, bodies=(None, 2), name="motor")
    m.add_coordinate_constraint(0, 1, X0=[[0.0, 0.0, 1.0]], Y1=[[0.0, 0.0, 0.0]],
                                offset=[m.bars[0].pose[2]], name="tie")
    r2 = sum(v * v for v in m.bars[0].pose[:2])
    m.add_constraint([x0 * x0 + y0 * y0 - r2], name="ring")
    return m.to_dict()


_RICH = _rich_file()


def _paths(d, prefix=()) -> list[tuple]:
    """Every path (keys and indices) into the nested dicts and lists of ``d``."""
    out, stack = [], [(d, prefix)]
    while stack:
        node, path = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) \
            if isinstance(node, list) else ()
        for key, child in items:
            out.append(path + (key,))
            stack.append((child, path + (key,)))
    return out


_RICH_PATHS = _paths(_RICH)
#: what a hostile file puts anywhere: raw parameter references, deep nesting, huge ints,
#: magnitudes beyond 1e50, non-finite numbers and values of every JSON type
FILE_VALUES = st.one_of(NASTY, HOSTILE, st.sampled_from([
    ["par", 0], ["par", 1], ["par", 9999], ["sum", ["var", "th0"], ["par", 2]],
    ["prod", ["var", "par_A"], ["par", 0]], ["sum", ["var", "x0"], ["prod", ["num", "-1.0"],
                                                                    ["var", "x0"]]],
    ["num", "1e60"], {}, {"kind": "body"}, "", "ground", "bar", [[]], [None, None, None]]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_hostile_values_anywhere_in_a_file(data):
    """Random places of a rich model's data replaced by hostile values, and random totals of
    expression nodes: from_dict refuses with a ValueError or gives a model that round-trips
    (never a RecursionError, OverflowError or an error of heyoka later)."""
    d = copy.deepcopy(_RICH)
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        path = data.draw(st.sampled_from(_RICH_PATHS), label="path")
        target = d
        try:
            for key in path[:-1]:
                target = target[key]
            target[path[-1]]  # noqa: B018 - the place still exists after earlier edits
        except (KeyError, IndexError, TypeError):
            continue
        if not isinstance(target, (dict, list)):  # an earlier edit made it a string
            continue
        target[path[-1]] = data.draw(FILE_VALUES, label="value")
    budget = data.draw(st.one_of(st.none(), st.integers(1, 120)), label="max_expression_nodes")
    try:
        m = qv.BarJointModel.from_dict(d, max_expression_nodes=budget)
    except ValueError:
        return
    out = m.to_dict()
    json.dumps(out, allow_nan=False)
    assert qv.BarJointModel.from_dict(out).to_dict() == out


def test_simulate_arguments_are_validated():
    from quivira.examples import chain

    m = chain(2)
    cases = [
        (dict(t_end="1"), TypeError, "t_end must be a real number"),
        (dict(t_end=math.nan), ValueError, "t_end must be finite"),
        (dict(t_end=1e300), ValueError, r"t_end must lie within"),
        (dict(t_end=5e-324), ValueError, "t_end must be at least"),
        (dict(t_end=1.0, n_points=1.5), TypeError, "n_points must be an integer"),
        (dict(t_end=1.0, n_points=10**8), ValueError, r"GB of outputs"),
        (dict(t_end=1.0, tol="abc"), TypeError, "tol must be a real number"),
        (dict(t_end=1.0, tol=2.0), ValueError, "tol must be below 1"),
        (dict(t_end=1.0, singular_threshold="x"), TypeError, "singular_threshold must be"),
        (dict(t_end=1.0, singular_threshold=math.nan), ValueError, "singular_threshold must"),
        (dict(t_end=1.0, singular_threshold=-1.0), ValueError, r"singular_threshold must lie"),
        (dict(t_end=1.0, purpose="fast"), ValueError, "purpose must be"),
        (dict(t_end=1.0, max_steps=0), ValueError, "max_steps must be"),
        (dict(t_end=1.0, max_wall_s=-1.0), ValueError, "max_wall_s must be positive"),
    ]
    for kw, exc, match in cases:
        with pytest.raises(exc, match=match):
            m.simulate(**kw)


def test_budgets_stop_runaway_runs_with_the_motion_so_far():
    from quivira.examples import four_bar

    with pytest.raises(qv.BudgetExceededError, match="max_steps = 500") as info:
        four_bar().simulate(1e6, max_steps=500)
    tr = info.value.trajectory
    assert tr.n_points >= 1 and info.value.t > 0 and np.all(tr.t <= info.value.t)
    assert tr.relative_energy_error() < 1e-10  # the rows kept are the true motion
    with pytest.raises(qv.BudgetExceededError, match="max_wall_s"):
        four_bar().simulate(1e6, max_wall_s=0.3)


def test_interrupt_stops_every_configuration_quickly():
    """A SIGINT (Ctrl-C, "interrupt kernel") stops a run within a fraction of a second, with
    and without constraints, with the singularity monitor off, and with projection."""
    import signal

    from quivira.examples import chain, four_bar

    free = qv.BarJointModel()  # no constraint: a bar swung by a load at its end
    free.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    free.add_external_force(0, 0.5, 0.0, 9.81)
    runs = [(free, {}), (chain(1), {"singular_threshold": 0.0}), (four_bar(), {}),
            (chain(2), {"projection": True})]
    # Python's own Ctrl-C handler, installed again at the OS level (sigaction) and not
    # blocked, whatever a library loaded by an earlier test of the session did with SIGINT
    handler_before = signal.getsignal(signal.SIGINT)
    blocked = signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _interrupt_each(runs, handler_before, blocked)
    finally:
        signal.signal(signal.SIGINT, handler_before)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _interrupt_each(runs, handler_before, blocked):
    import signal
    import threading
    import time

    for model, kw in runs:
        model.simulate(0.01, n_points=2, **kw)  # compile first: the signal must land in a run
        timer = threading.Timer(0.4, lambda: signal.raise_signal(signal.SIGINT))
        t0 = time.perf_counter()
        timer.start()
        try:
            with pytest.raises(qv.SimulationInterrupted) as info:
                model.simulate(1e12, **kw)
        finally:
            timer.cancel()
        elapsed = time.perf_counter() - t0
        assert elapsed < 0.4 + 0.2, (kw, elapsed, handler_before, blocked)
        assert isinstance(info.value, KeyboardInterrupt) and info.value.t > 0
        assert info.value.trajectory.n_points >= 1


def test_non_finite_state_keeps_the_valid_rows():
    """A force that blows up: the rows before the non-finite state are kept, and the error
    reports the last finite time (not 0)."""
    m = qv.BarJointModel()
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    m.set_g(0.0)
    x0, _, _ = m.coordinates(0)
    # ẍ = 1/(x - 1)²·... a driven constraint that reaches a pole at t = 1
    m.add_constraint([x0 - 1.0 / (1.0 - hy.time) + 1.0])
    m.set_init_bar_velocities(0, 1.0, 0.0, 0.0)  # consistent: d/dt 1/(1 - t) = 1 at t = 0
    with pytest.raises(qv.SingularConfigurationError) as info:
        m.simulate(2.0, n_points=21, singular_threshold=0.0)
    tr = info.value.trajectory
    assert 0.9 <= info.value.t < 1.0 and 10 <= tr.n_points <= 11
    np.testing.assert_allclose(tr.q[:, 0], 1.0 / (1.0 - tr.t) - 1.0, rtol=1e-9)


def test_scaled_copies_get_the_same_verdicts():
    """A model and its copies scaled by 1e9 and 1e-6 in length (and in mass) pass the same
    start-up checks and move alike (times scaled by the square root of the length scale, and
    the Baumgarte rate, a frequency, by its inverse)."""
    from quivira.examples import chain

    ref = chain(3).simulate(1.0, n_points=11)
    for length, mass in ((1e9, 1.0), (1e-6, 1.0), (1.0, 1e-9), (1e20, 1e20)):
        m = chain(3, length=length, mass=mass)
        m.set_stabilization(10.0 / math.sqrt(length))
        assert m.check_constraint_fulfillment(m.get_initial_state())
        assert m.degrees_of_freedom() == 3
        tr = m.simulate(math.sqrt(length), n_points=11)
        np.testing.assert_allclose(tr.q[:, 2::3], ref.q[:, 2::3], atol=1e-9)
        assert tr.relative_energy_error() < 1e-12
        assert tr.singularity.min() > 1e-3


def test_threads_share_a_model_safely():
    import threading

    from quivira.examples import four_bar

    model = four_bar()
    ref = four_bar().simulate(1.5, n_points=31)
    out: dict[int, np.ndarray] = {}

    def run(k: int) -> None:
        out[k] = model.simulate(1.5, n_points=31).q

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(out) == 4
    for q in out.values():
        assert np.array_equal(q, ref.q)


def test_short_and_empty_trajectories():
    tr = qv.Trajectory(np.zeros(0), np.zeros((0, 3)), np.zeros((0, 3)), [], np.zeros(0),
                       np.zeros(0), np.zeros((0, 0)), np.zeros((0, 0)))
    assert tr.relative_energy_error() == 0.0 and tr.max_position_residual() == 0.0
    assert tr.n_points == 0 and tr.states.shape == (0, 6)


def _model_file_with_user_constraint() -> dict:
    from quivira.examples import four_bar

    m = four_bar()
    x1, y1, _ = m.coordinates(1)
    m.add_constraint([hy.sqrt((x1 - 1.0) ** 2 + (y1 + 2.0) ** 2) - 4.0], name="reach")
    m.remove_constraint("reach")
    x0, y0, th0 = m.coordinates(0)
    m.add_constraint([th0 - 1.0 - 0.5 * hy.sin(2.0 * hy.time) * 0.0 + 0.0 * x0], name="crank")
    return m.to_dict()


def test_version_1_files_load_without_unpickling(tmp_path):
    """A version-1 file (expressions as base64 pickles) loads through the safe reader and gives
    the same model; a pickle that is not an expression is refused without being run."""
    d = _model_file_with_user_constraint()
    m2 = qv.BarJointModel.from_dict(d)
    v1 = json.loads(json.dumps(d))
    v1["format_version"] = 1
    users = [el for el in m2.elements.values() if isinstance(el, UserConstraint)]
    for uc, ref in zip(v1["user_constraints"], users):
        uc["exprs"] = [base64.b64encode(pickle.dumps(e)).decode() for e in ref.exprs]
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(v1))
    assert qv.BarJointModel.load(path).to_dict() == d

    class Evil:
        def __reduce__(self):
            return (os.system, ("touch " + str(tmp_path / "pwned"),))

    v1["user_constraints"][0]["exprs"] = [base64.b64encode(pickle.dumps(Evil())).decode()]
    path.write_text(json.dumps(v1))
    with pytest.raises(ValueError, match="not a valid encoded heyoka expression"):
        qv.BarJointModel.load(path)
    assert not (tmp_path / "pwned").exists()


def test_load_reads_only_bounded_regular_files(tmp_path):
    with pytest.raises(ValueError, match="not a regular file"):
        qv.BarJointModel.load("/dev/zero")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):
        qv.BarJointModel.load(fifo)
    big = tmp_path / "big.json"
    big.write_text(json.dumps(_model_file_with_user_constraint()))
    with pytest.raises(ValueError, match="more than max_bytes = 100"):
        qv.BarJointModel.load(big, max_bytes=100)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="nested too deeply"):
        qv.BarJointModel.load(deep)


@pytest.mark.parametrize("mutate, match", [
    (lambda d: d.update(format_version=1.0), "format_version"),
    (lambda d: d.update(format_version=True), "format_version"),
    (lambda d: d.update(stabilisation=3.0), r"'stabilisation' \(did you mean 'stabilization'\?\)"),
    (lambda d: d["bars"][0].update(lenght=1.0), r"bars\[0\].*'lenght'.*'length'"),
    (lambda d: d["joints"][0].update(s2=[0.0]), r"joints\[0\].*'s2'"),
], ids=["version float", "version bool", "typo top", "typo bar", "extra joint key"])
def test_file_keys_and_versions_are_checked(mutate, match):
    d = _model_file_with_user_constraint()
    mutate(d)
    with pytest.raises(ValueError, match=match):
        qv.BarJointModel.from_dict(d)


def _seed_files(tmp_path) -> list[bytes]:
    from quivira.examples import four_bar, scissor

    out = [json.dumps(_model_file_with_user_constraint()).encode()]
    out.append(json.dumps(scissor(2).to_dict()).encode())
    d = four_bar().to_dict()
    out.append(json.dumps(d).encode())
    return out


@pytest.mark.timeout(300)
def test_mutated_model_files_never_crash_or_hang(tmp_path):
    n = int(os.environ.get("QUIVIRA_FUZZ_CASES", "300"))
    report = fuzz.run_fuzz(n, seed=11, seeds=_seed_files(tmp_path),
                           loader="quivira.bar_joint_model.load", timeout=20.0, memory_mb=1024,
                           strict=True)
    assert report.ok, report.summary()
    details = {r.description: r.detail for r in report.results}
    for case, message in [
            ("raw-par-force", r"force_actuators\[0\]\.fx: use model\.parameter\(name\)"),
            ("raw-par-event", r"events\[0\]\.expr: use model\.parameter\(name\)"),
            ("raw-par-9999-motor", r"joint_motors\[0\]\.law: use model\.parameter\(name\)"),
            ("matrix-1e60", r"X0: entries must lie within ±1e\+50"),
            ("offset-1e300", r"offset: entries must lie within ±1e\+50"),
            ("matrix-int-401-digits", r"X0: entries must be finite; .* integer of 401 digits"),
            ("g-nested-900", r"model\.g must be a real number, got \[\[\[\[\.\.\.\]\]\]\]"),
            ("matrix-nested-900", r"X0 must be a numeric matrix"),
            ("rows-of-120000-nodes", r"more than 100000 nodes in total \(limit "
                                     r"max_expression_nodes=100000\)"),
            ("digits-1e5", r"model\.json: not a valid JSON model file \(Exceeds the limit")]:
        assert re.search(message, details[f"fixed:{case}"]), (case, details[f"fixed:{case}"])


def _random_model(rng: np.random.Generator) -> qv.BarJointModel:
    m = qv.BarJointModel(tolerance=float(rng.choice([1e-10, 1e-9, 3.7e-11])))
    n = int(rng.integers(1, 5))
    for i in range(n):
        m.add_bar_at_attitude(*(float(v) for v in rng.normal(size=3)),
                              float(rng.uniform(0.3, 2.0)), float(rng.uniform(0.1, 3.0)))
        m.set_init_bar_velocities(i, *(float(v) for v in rng.normal(size=3)))
    m.add_support(0, float(rng.uniform(-0.5, 0.5)), False, False)
    if n > 1:
        m.add_support(n - 1, 0.5, bool(rng.integers(2)), False)
    m.add_external_force(0, float(rng.uniform(-0.5, 0.5)), *(float(v) for v in rng.normal(size=3)))
    m.set_g(float(rng.uniform(0, 20)))
    m.set_stabilization(float(rng.uniform(0, 20)))
    if n > 2:
        x, y, _ = m.coordinates(2)
        xc, yc, _ = m.bars[2].pose  # a ring through the centre's initial position
        m.add_constraint([x * x + y * y - (xc * xc + yc * yc)], name="ring")
        m.add_knife_edge(1, 0.25)
    return m


@pytest.mark.parametrize("seed", range(6))
def test_random_models_round_trip_bit_for_bit(tmp_path, seed):
    rng = np.random.default_rng(seed)
    m = _random_model(rng)
    path = tmp_path / "m.json"
    m.save(path)
    back = qv.BarJointModel.load(path)
    assert back.to_dict() == m.to_dict()
    assert back.tolerance == m.tolerance
    m.assemble()
    back.assemble()
    t1 = m.simulate(0.3, n_points=7, singular_threshold=0.0)
    t2 = back.simulate(0.3, n_points=7, singular_threshold=0.0)
    assert np.array_equal(t1.q, t2.q) and np.array_equal(t1.qd, t2.qd)
    assert np.array_equal(t1.lambda_mult, t2.lambda_mult)


def test_symmetric_start_with_vanishing_taylor_coefficients():
    """A free bar at rest at θ = 0 turned by a vertical force at its end: θ'' = c cos θ has only
    every fourth Taylor coefficient at the start, so heyoka's step rule (last two orders) sees
    zeros and would take one enormous step. The guarded first step keeps the exact motion: with
    ψ = θ - π/2, ψ'' = -c sin ψ, a pendulum released from rest at ψ = -π/2 (elliptic oracle)."""
    from quivira_oracles.iftomm import pendulum_motion

    m = qv.BarJointModel()
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    m.add_external_force(0, 0.5, 0.0, 9.81)  # balances the weight; torque 0.5·9.81·cos θ
    c = 12 * 0.5 * 9.81  # torque / inertia, with I = m L²/12
    tr = m.simulate(3.0, n_points=31)
    psi_ref, _ = pendulum_motion(tr.t, math.pi / 2, 1.0, c, "point")
    np.testing.assert_allclose(tr.q[:, 2], math.pi / 2 - psi_ref, atol=1e-10)
    assert tr.relative_energy_error() < 1e-13
