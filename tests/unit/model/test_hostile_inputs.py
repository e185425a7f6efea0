"""Hostile inputs that leaked an internal error or were accepted, and the cost of loading.

* Loading cost: the expressions of one file (or dict) share a budget of nodes, checked while
  they are decoded, and model files have a byte limit; the model API keeps models within the
  same budget, so that every model that saves also loads.
* One limit for every number: arrays and matrices (states, poses, coordinate-constraint
  matrices and offsets, ...) go through the same check as single numbers (finite, magnitude
  at most 1e50, ints too large for a double refused), so ``save()`` never writes what
  ``load()`` refuses.
* Huge ints (``10**400``) are a ValueError at the call, never an OverflowError; a user
  constraint that constrains nothing (``x0 - x0``) is refused when it is added or loaded.
* Files may not hold raw ``["par", k]`` references in laws, events and motors (the API
  forbids them); deeply nested values give a TypeError/ValueError, not a RecursionError from
  ``repr()``; a constraint that is not finite at a pose is named, not left to LAPACK.

Every refused call leaves the model exactly as it was (``to_dict`` before and after).
"""

from __future__ import annotations

import copy
import json
import math
import time
import warnings

import heyoka as hy
import numpy as np
import pytest

import quivira as qv
from quivira.examples import four_bar
from quivira.expression_codec import encode_expression


def _refused(model, call, exc, match):
    """``call()`` raises ``exc`` matching ``match`` and leaves ``model`` unchanged."""
    before = model.to_dict()
    with pytest.raises(exc, match=match) as info:
        call()
    assert type(info.value) is not RecursionError
    assert model.to_dict() == before
    return info.value


def _deep(levels: int = 100_000) -> list:
    out: list = []
    for _ in range(levels):
        out = [out]
    return out


def _cc_model():
    m = four_bar()
    m.add_coordinate_constraint(0, None, X0=[[0.0, 0.0, 1.0]],
                                offset=[m.bars[0].pose[2]], name="tie")
    return m


# ------------------------------------------------------------------------------------------
# Loading cost: a total budget of nodes for the expressions of one file, a byte limit
# ------------------------------------------------------------------------------------------

def _wide_expression(model, n_terms: int) -> hy.expression:
    x0, y0, th0 = model.coordinates(0)
    return hy.sum([hy.sin(x0 * (1.0 + k * 1e-3)) * th0 for k in range(n_terms)])


def _file_with_constraints(n_constraints: int, n_terms: int) -> tuple[dict, int]:
    m = qv.BarJointModel()
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    e = _wide_expression(m, n_terms)
    tree = encode_expression(e)
    d = m.to_dict()
    d["user_constraints"] = [{"name": f"c{i}", "velocity_level": False, "text": ["..."],
                              "exprs": [tree]} for i in range(n_constraints)]
    return d, len(e)


def test_expressions_of_a_file_share_a_node_budget():
    d, nodes = _file_with_constraints(30, 200)  # 1199 nodes each, 36,000 in all
    assert nodes == 1199
    # a malformed tree after the budget is spent is never read: the work stopped before
    d["user_constraints"][20]["exprs"] = [["kepE", ["var", "x0"]]]
    with pytest.raises(ValueError, match=r"user_constraints\[8\]\.exprs\[0\]: the expressions "
                       r"read so far have more than 10000 nodes in total \(limit "
                       r"max_expression_nodes=10000\).*larger max_expression_nodes"):
        qv.BarJointModel.from_dict(d, max_expression_nodes=10_000)
    d["user_constraints"] = d["user_constraints"][:8]  # 9592 nodes: within the budget
    loaded = qv.BarJointModel.from_dict(d, max_expression_nodes=10_000)
    assert len(loaded.to_dict()["user_constraints"]) == 8
    with pytest.raises(TypeError, match="max_expression_nodes must be an int"):
        qv.BarJointModel.from_dict(d, max_expression_nodes=1e5)
    with pytest.raises(ValueError, match="max_expression_nodes must be at least 1"):
        qv.BarJointModel.from_dict(d, max_expression_nodes=0)


@pytest.mark.slow
def test_default_budget_stops_a_huge_file_early():
    """300 expressions of 9000 nodes (2.7 million nodes, the scale of a 36 MB file that took
    63 s to load): the default budget of 100,000 nodes stops the reading after 12 of them."""
    d, nodes = _file_with_constraints(300, 1500)
    assert nodes == 8999
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"user_constraints\[11\]\.exprs\[0\]: .* more than "
                       r"100000 nodes in total \(limit max_expression_nodes=100000\)"):
        qv.BarJointModel.from_dict(d)
    assert time.perf_counter() - start < 20.0


@pytest.mark.slow
def test_the_api_keeps_models_within_the_file_budget(tmp_path, monkeypatch):
    """The API refuses to grow a model beyond what load() reads by default, so that every
    model that saves also loads (the default lowered here to keep the test quick)."""
    from quivira.model import persistence

    monkeypatch.setattr(persistence, "MAX_EXPRESSION_NODES", 5000)
    m = qv.BarJointModel()
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    e = _wide_expression(m, 200)  # 1199 nodes
    for i in range(4):
        m.add_constraint([e + 1e-3 * i], name=f"c{i}")
    _refused(m, lambda: m.add_constraint([e + 1.0], name="one too many"), ValueError,
             r"would have 6003 nodes in total, more than 5000.*max_expression_nodes")
    A = m.add_parameter("A", 1.0)
    _refused(m, lambda: m.add_force_actuator(0, 0.0, e * A, 0.0), ValueError, "more than 5000")
    path = tmp_path / "big.json"
    m.save(path)  # what the API built loads back with the default budget
    assert qv.BarJointModel.load(path).to_dict() == m.to_dict()
    d = m.to_dict()
    d["user_constraints"].append(copy.deepcopy(d["user_constraints"][0]) | {"name": "extra"})
    with pytest.raises(ValueError, match=r"user_constraints\[4\].*max_expression_nodes=5000"):
        qv.BarJointModel.from_dict(d)
    assert len(qv.BarJointModel.from_dict(d, max_expression_nodes=7000).constraint_names) == 5


def test_model_files_have_a_byte_limit(tmp_path):
    path = tmp_path / "huge.json"
    with open(path, "wb") as f:
        f.truncate(10_000_001)  # sparse: nothing is written, nothing must be read
    with pytest.raises(ValueError, match=r"10000001 bytes, more than max_bytes = 10000000"):
        qv.BarJointModel.load(path)


# ------------------------------------------------------------------------------------------
# One limit for every number, huge ints: arrays and matrices at the API
# ------------------------------------------------------------------------------------------

def _array_calls(bad):
    """(name, model, call) for API calls reading an array; ``bad`` goes into the array."""
    m = _cc_model()
    n = m.n_coordinates
    state = m.get_initial_state()
    state_bad = [bad] + state[1:]
    return [
        ("X0", m, lambda: m.add_coordinate_constraint(0, None, X0=[[bad, 0.0, 0.0]])),
        ("X1", m, lambda: m.add_coordinate_constraint(None, 1, X1=[[0.0, bad, 0.0]])),
        ("Y0", m, lambda: m.add_coordinate_constraint(0, 1, Y0=[[0.0, 0.0, bad]])),
        ("Y1", m, lambda: m.add_coordinate_constraint(0, 1, Y1=np.array([[bad, 0, 0]],
                                                                        dtype=object))),
        ("offset", m, lambda: m.add_coordinate_constraint(0, None, X0=[[1, 0, 0]],
                                                          offset=[bad])),
        ("set_constraint_offset", m, lambda: m.set_constraint_offset("tie", [bad])),
        ("set_initial_state", m, lambda: m.set_initial_state(state_bad)),
        ("check_constraint_fulfillment", m, lambda: m.check_constraint_fulfillment(state_bad)),
        ("matrices", m, lambda: m.matrices(state_bad)),
        ("equilibrium", m, lambda: m.equilibrium(state_bad[:n])),
        ("mobility", m, lambda: m.mobility(state_bad[:n])),
        ("linearize", m, lambda: m.linearize(q_op=state_bad[:n])),
        ("internal_forces qdd", m, lambda: m.internal_forces(qdd=[[bad] + [0.0] * (n - 1)])),
        ("kinematic_sweep", m, lambda: m.kinematic_sweep("th0", [1.0, bad])),
        ("equilibrium_path", m, lambda: m.equilibrium_path("g", [9.81, bad])),
    ]


@pytest.mark.parametrize("k", range(15))
def test_array_entries_share_the_limit_of_every_number(k):
    name, m, call = _array_calls(1e60)[k]
    _refused(m, call, ValueError, r"entries must lie within ±1e\+50.*is 1e\+60")


@pytest.mark.parametrize("k", range(15))
def test_huge_ints_in_arrays_are_value_errors(k):
    name, m, call = _array_calls(10**400)[k]
    _refused(m, call, ValueError, r"entries must be finite; entry .* is an integer of 401 "
             r"digits")


def test_saved_matrices_at_the_limit_load_back(tmp_path):
    m = four_bar()
    m.add_coordinate_constraint(0, 1, X0=[[1e50, 0.0, -1e50]], X1=[[0.0, 1e-300, 0.0]],
                                offset=[-1e50], name="edge")
    path = tmp_path / "m.json"
    m.save(path)
    assert qv.BarJointModel.load(path).to_dict() == m.to_dict()
    d = m.to_dict()  # a file beyond the limit is refused as the API refuses it
    d["coordinate_constraints"][0]["X0"] = [[1e60, 0.0, 0.0]]
    with pytest.raises(ValueError, match=r"coordinate_constraints\[0\]\.X0: entries must lie "
                       r"within ±1e\+50"):
        qv.BarJointModel.from_dict(d)
    d["coordinate_constraints"][0]["X0"] = None  # bar0 is a bar: allowed; ground is not
    d["coordinate_constraints"][0]["bar1"] = None
    with pytest.raises(ValueError, match=r"coordinate_constraints\[0\]\.X1: marker 1 is "
                       r"ground"):
        qv.BarJointModel.from_dict(d)


def test_huge_ints_in_scalars_and_the_function_api():
    m = four_bar()
    _refused(m, lambda: m.set_g(10**5000), ValueError, r"g must be finite, got an integer of "
             r"5001 digits")
    x, y, vx, vy = hy.make_vars("x", "y", "vx", "vy")
    with pytest.raises(ValueError, match=r"S: an integer of 401 digits at index \(0, 0\) is "
                       r"too large"):
        qv.gaussian_elimination([[10**400]], [1.0])
    with pytest.raises(ValueError, match=r"F: an integer of 401 digits"):
        qv.lagrange_eom(0.5 * (vx * vx + vy * vy), [x - 1.0, 10**400], [x, y], [vx, vy])
    with pytest.raises(ValueError, match=r"initial_state: entries must be finite; entry 0 is "
                       r"an integer of 401 digits"):
        qv.simulate_system(0.5 * vx * vx, [], [x], [vx], 1.0, [10**400, 0.0])


# ------------------------------------------------------------------------------------------
# Constraints that constrain nothing
# ------------------------------------------------------------------------------------------

def test_identically_zero_constraint_rows_are_refused():
    m = four_bar()
    x0, y0, th0 = m.coordinates(0)
    vx0, _, _ = m.velocities(0)
    _refused(m, lambda: m.add_constraint([x0 - x0], name="zero"), ValueError,
             r"exprs\[0\]: the expression \(x0 - x0\) does not change with x0 \(its "
             r"derivatives are identically 0\)")
    _refused(m, lambda: m.add_constraint([th0 - 1.0, y0 * 0.0 + x0 - x0]), ValueError,
             r"exprs\[1\]")
    _refused(m, lambda: m.add_constraint([x0 - 1.0], velocity_level=True), ValueError,
             r"a velocity row must involve a velocity")
    _refused(m, lambda: m.add_constraint([vx0 - vx0 + x0], velocity_level=True), ValueError,
             r"exprs\[0\]: the expression \(\(vx0 - vx0\) \+ x0\) does not change with vx0")
    m.simulate(0.01, n_points=2)  # no ZeroDivisionError: nothing was added
    # the same rows in a file are refused as the API refuses them
    m.add_constraint([th0 - m.bars[0].pose[2] + 0.0 * x0 + x0 - x0 + x0 - x0], name="drive")
    d = m.to_dict()
    d["user_constraints"][0]["exprs"][0] = encode_expression(x0 - x0)
    with pytest.raises(ValueError, match=r"user_constraints\[0\]\.exprs\[0\]: the expression "
                       r"\(x0 - x0\) does not change"):
        qv.BarJointModel.from_dict(d)


# ------------------------------------------------------------------------------------------
# Raw ["par", k] references in files
# ------------------------------------------------------------------------------------------

def _model_with_laws():
    m = four_bar()
    A = m.add_parameter("A", 2.0)
    m.add_force_actuator(1, 0.5, A * hy.sin(hy.time), 0.0, name="push")
    m.add_torque_actuator(2, A * 0.1, name="turn")
    _, _, th0 = m.coordinates(0)
    m.add_event(th0 - 2.0, name="ev")
    m.add_joint_motor(None, 0.5 * hy.time + A, bodies=(None, 0), name="motor")
    return m


@pytest.mark.parametrize("index", [0, 1, 9999])
@pytest.mark.parametrize("where", ["force_actuators.fx", "force_actuators.fy",
                                   "torque_actuators.torque", "events.expr",
                                   "joint_motors.law"])
def test_raw_parameter_references_in_files_are_refused(where, index):
    d = _model_with_laws().to_dict()
    collection, key = where.split(".")
    d[collection][0][key] = ["sum", ["var", "par_A"], ["par", index]]
    with pytest.raises(ValueError, match=rf"{collection}\[0\]\.{key}: use model.parameter"
                       r"\(name\) for values to edit, not hy\.par"):
        qv.BarJointModel.from_dict(d)


def test_raw_parameter_references_in_user_constraints_are_refused():
    m = four_bar()
    _, _, th0 = m.coordinates(0)
    m.add_constraint([th0 - m.bars[0].pose[2]], name="hold")
    d = m.to_dict()
    d["user_constraints"][0]["exprs"][0] = ["sum", ["var", "th0"], ["par", 0]]
    with pytest.raises(ValueError, match=r"runtime parameters \(hy\.par\) are not allowed"):
        qv.BarJointModel.from_dict(d)


def test_event_functions_in_files_are_checked_as_by_the_api():
    d = _model_with_laws().to_dict()
    d["events"][0]["expr"] = ["num", "1.5"]  # neither state nor time: it never triggers
    with pytest.raises(ValueError, match=r"events\[0\]\.expr: the event function uses neither"):
        qv.BarJointModel.from_dict(d)


# ------------------------------------------------------------------------------------------
# Deep nesting: a TypeError/ValueError, never a RecursionError
# ------------------------------------------------------------------------------------------

_FILE_PLACES = [
    ("g",), ("tolerance",), ("stabilization",), ("format",), ("format_version",),
    ("bars", 0, "length"), ("bars", 0, "pose"), ("bars", 0, "kind"),
    ("joints", 0, "bars"), ("joints", 0, "s"), ("supports", 0, "bar"),
    ("force_actuators", 0, "frame"), ("force_actuators", 0, "name"), ("events", 0, "direction"),
    ("parameters", 0, "name"), ("parameters", 0, "value"), ("joint_motors", 0, "body_a"),
    ("coordinate_constraints", 0, "X0"), ("coordinate_constraints", 0, "offset"),
    ("coordinate_constraints", 0, "active"),
]


@pytest.mark.parametrize("place", _FILE_PLACES, ids=lambda p: ".".join(map(str, p)))
def test_deeply_nested_file_values_are_value_errors(place):
    m = _model_with_laws()
    m.add_coordinate_constraint(0, None, X0=[[0.0, 0.0, 1.0]], offset=[m.bars[0].pose[2]],
                                name="tie")
    d = m.to_dict()
    target = d
    for key in place[:-1]:
        target = target[key]
    target[place[-1]] = _deep()
    with pytest.raises(ValueError):
        qv.BarJointModel.from_dict(d)


def test_deeply_nested_arguments_are_type_errors():
    deep = _deep()
    m = _cc_model()
    calls = [
        lambda: m.set_g(deep), lambda: m.add_bar(deep, 1.0), lambda: m.set_bar_length(deep, 1.0),
        lambda: m.set_initial_state(deep), lambda: m.add_joint(deep, [0.0, 0.0]),
        lambda: m.add_joint([0, 1], deep), lambda: m.add_support(0, deep),
        lambda: m.add_coordinate_constraint(0, None, X0=deep),
        lambda: m.set_constraint_offset("tie", deep), lambda: m.add_parameter(deep, 1.0),
        lambda: m.set_constraint_active(deep, True), lambda: m.set_constraint_active("tie", deep),
        lambda: setattr(m, "tolerance", deep), lambda: m.add_external_force(0, 0.0, deep, 0.0),
        lambda: m.equilibrium(deep), lambda: m.add_joint_motor(None, 1.0, bodies=deep),
    ]
    for call in calls:
        _refused(m, call, (TypeError, ValueError), None)


# ------------------------------------------------------------------------------------------
# A constraint that is not finite at a pose is named
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call", ["simulate", "assemble", "degrees_of_freedom", "matrices",
                                  "equilibrium", "mobility", "check_constraint_fulfillment"])
def test_non_finite_constraint_rows_are_named(call):
    m = four_bar()
    x0, _, _ = m.coordinates(0)
    m.add_constraint([hy.sqrt(x0 - 100.0)], name="bad")
    args = {"simulate": (0.1,), "check_constraint_fulfillment": (m.get_initial_state(),)}
    _refused(m, lambda: getattr(m, call)(*args.get(call, ())), ValueError,
             r"constraint row 'bad.row0' \(its residual is nan\) is not finite at this pose")


def test_non_finite_trial_poses_shorten_the_steps():
    """Gauss-Newton's full step leaves the domain of sqrt(x0): the step is halved, not an
    error (the trial pose's NaN stays inside the iteration)."""
    m = qv.BarJointModel()
    m.add_bar_at_attitude(1.0, 0.0, 0.0, 1.0, 1.0)
    x0, _, _ = m.coordinates(0)
    m.add_constraint([hy.sqrt(x0) - 0.1], name="root")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.assemble()
    assert math.isclose(m.bars[0].pose[0], 0.01, rel_tol=1e-9)
    json.dumps(m.to_dict())
