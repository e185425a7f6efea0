"""Point loads, springs, actuators, named parameters, joint motors and events, as declared kinds.

Each kind declares its fields once (``quivira.model.elements.fields``); these tests check what
follows from the declaration: ``model.add`` returns the canonical name, files round-trip bit
for bit and files of format 2 (as an earlier quivira wrote them) still load, ``model.set``
changes runtime fields without compiling and topology fields as declared, and bad values are
refused with messages naming the element and the field, leaving the model as it was.
"""

from __future__ import annotations

import copy
import json
import math
import warnings

import heyoka as hy
import numpy as np
import pytest

import quivira
from quivira.model.elements import (
    ForceActuator,
    JointMotor,
    Parameter,
    PointLoad,
    SpringDamper,
    TorqueActuator,
    TorsionalSpring,
    UserEvent,
)
from quivira.model.elements.base import LoadContext

KINDS = (PointLoad, SpringDamper, TorsionalSpring, ForceActuator, TorqueActuator, Parameter,
         JointMotor, UserEvent)


def crank_and_rod() -> quivira.bar_joint_model:
    """A crank turned by a motor (law 0.3 + w t) at its pin, a free rod hanging from a spring.

    Bar 0 (the crank) is pinned at the origin; bar 1 (the rod) carries a point load, a force
    actuator, a torque actuator (reaction on the crank), a spring to the ground, a torsional
    spring to the crank and an event on its angle.
    """
    m = quivira.bar_joint_model()
    m.add_bar_at_attitude(0.5 * math.cos(0.3), 0.5 * math.sin(0.3), 0.3, 1.0, 1.0)
    m.set("bar0", vx=-math.sin(0.3), vy=math.cos(0.3), omega=2.0)  # turning at w
    m.add_bar_at_attitude(1.5, -0.5, -1.2, 0.8, 2.0)
    m.add_support(0, -0.5, fixed_x=True, fixed_y=True)
    assert m.add(Parameter(name="w", value=2.0)) == "w"
    assert m.add(Parameter(name="A", value=0.5)) == "A"
    w, A = m.parameter("w"), m.parameter("A")
    (x1, _, th1), (_, _, om1) = m.variables(1)
    assert m.add(JointMotor(body_a=None, body_b=0, law=0.3 + w * hy.time)) == "motor0"
    assert m.add(PointLoad(bar=1, s=0.25, fx=1.0, fy=-2.0, torque=0.5)) == "force0"
    assert m.add(SpringDamper(bar_a=1, s_a=0.5, bar_b=None, ground=(2.0, 1.0), k=30.0,
                              c=0.4)) == "spring0"
    assert m.add(TorsionalSpring(bar_a=0, bar_b=1, k=3.0, c=0.1, preload=0.2)) == "torsion0"
    assert m.add(ForceActuator(bar=1, s=-0.3, fx=A * hy.cos(hy.time), fy=0.5,
                               frame="bar")) == "actuator0"
    assert m.add(TorqueActuator(bar=1, torque=A * hy.sin(2.0 * hy.time) - 0.1 * om1,
                                bar_a=0)) == "torque0"
    assert m.add(UserEvent(expr=th1 + 1.0, direction="down")) == "event0"
    assert m.add(UserEvent(expr=x1 - 10.0, terminal=True, name="far")) == "far"
    return m


@pytest.fixture(scope="module")
def model():
    return crank_and_rod()


def _values(m) -> dict:
    return {p.name: p.value for p in m.parameters()}


# ------------------------------------------------------------------ names and declarations
def test_add_returns_the_canonical_names_and_derived_defaults(model):
    assert list(model.elements) == ["w", "A", "support0", "motor0", "force0", "spring0",
                                    "torsion0", "actuator0", "torque0", "event0", "far"]
    spring, torsion = model.element("spring0"), model.element("torsion0")
    # the rest length and angle default to the initial pose
    p = (1.5 + 0.4 * math.cos(-1.2), -0.5 + 0.4 * math.sin(-1.2))
    assert spring.l0 == pytest.approx(math.hypot(2.0 - p[0], 1.0 - p[1]), rel=1e-15)
    assert torsion.phi0 == -1.2 - 0.3
    values = _values(model)
    assert values["force0.fy"] == -2.0 and values["spring0.k"] == 30.0
    assert values["torsion0.preload"] == 0.2 and values["w"] == 2.0
    assert values["actuator0.s"] == -0.3
    names = {p.name: p for p in model.parameters()}
    assert names["spring0.k"].unit == "N/m" and names["force0.torque"].unit == "N m"
    assert names["w"].where == "parameter"
    # default names take the first free index, whatever the kind's position
    m = quivira.bar_joint_model()
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    m.add(PointLoad(bar=0, s=0.0, fx=1.0, fy=0.0, name="push"))
    assert m.add(PointLoad(bar=0, s=0.0, fx=0.0, fy=1.0)) == "force0"


def test_every_kind_declares_its_fields():
    for kind in KINDS:
        specs = kind.specs()
        assert "name" in specs and kind.has_name and kind.prefix, kind
        for f, spec in specs.items():
            assert spec.label and (spec.doc or f == "name"), (kind, f)
    assert PointLoad.named_since == 3
    roles = {f: (s.topology, s.editable) for f, s in ForceActuator.specs().items()}
    assert roles["bar"] == (True, False) and roles["fx"] == (True, False)
    assert roles["frame"] == (True, True) and roles["s"] == (False, True)
    assert TorqueActuator.specs()["bar_a"].what == "body_or_ground"
    assert [r["field"] for r in quivira.model.elements.fields.table(SpringDamper)] == [
        "bar_a", "s_a", "bar_b", "s_b", "ground", "k", "l0", "c", "name"]


def test_labels_and_outputs_use_the_names(model):
    assert model.constraint_labels == ["support0.x", "support0.y", "motor0.torque"]
    tr = model.simulate(0.2, n_points=5)
    assert list(tr.load_power) == ["force0", "spring0", "torsion0", "actuator0", "torque0"]
    assert set(tr.load_forces) == {"spring0", "torsion0", "actuator0", "torque0"}
    text = model.summary()
    for word in ("parameter w = 2", "force0: force on bar 1", "spring0: spring-damper",
                 "torsion0: torsional", "actuator0: force on bar 1", "torque0: torque",
                 "'motor0': joint motor", "event 'event0'", "terminal event 'far'"):
        assert word in text, word


def test_linearization_inputs_are_named_by_the_load():
    m = quivira.bar_joint_model()
    m.add_bar_at_attitude(0.0, -0.5, -math.pi / 2, 1.0, 1.0)
    m.add_support(0, -0.5, fixed_x=True, fixed_y=True)
    m.add(PointLoad(bar=0, s=0.5, fx=0.0, fy=0.0, name="tip"))
    assert m.linearize().inputs == ["tip.fx", "tip.fy", "tip.torque"]


# ------------------------------------------------------------------ files
def test_elements_round_trip_bit_for_bit(model):
    data = model._data
    ctx = LoadContext(len(data.bars), set(), 3, bodies=data.bars)
    for kind, pos, el in data.items():
        if kind not in KINDS:
            continue
        d = json.loads(json.dumps(el.to_dict()))
        back = kind.from_dict(d, f"{kind.collection}[{pos}]", ctx)
        if kind is Parameter:
            assert el.name in ctx.parameters
        assert back.to_dict() == el.to_dict(), kind
        assert json.dumps(back.to_dict()) == json.dumps(el.to_dict())
    d = model.to_dict()
    again = quivira.bar_joint_model.from_dict(json.loads(json.dumps(d)))
    assert again.to_dict() == d
    t1, t2 = model.simulate(0.3, n_points=4), again.simulate(0.3, n_points=4)
    assert np.array_equal(t1.q, t2.q) and np.array_equal(t1.work_in, t2.work_in)
    # the laws' readable texts are in the file, next to their trees
    assert d["force_actuators"][0]["fx_text"] == str(model.element("actuator0").fx)
    assert d["joint_motors"][0]["law_text"] == str(model.element("motor0").law)
    assert d["events"][0]["text"] == str(model.element("event0").expr)


#: a model file of format 2, as quivira wrote it before the point loads had names
FORMAT_2 = {
    "format": "quivira.bar_joint_model", "format_version": 2, "tolerance": 1e-10, "g": 9.81,
    "stabilization": 10.0,
    "bars": [{"length": 1.0, "mass": 1.0, "pose": [0.5, 0.0, 0.0], "velocity": [0.0, 0.0, 0.0]},
             {"length": 1.0, "mass": 2.0, "pose": [1.5, 0.0, 0.1],
              "velocity": [0.0, 0.0, 0.0]}],
    "parameters": [{"name": "A", "value": 1.5}],
    "joints": [],
    "supports": [{"bar": 0, "s": -0.5, "free_x": False, "free_y": False, "x": 0.0, "y": 0.0}],
    "joint_motors": [{"name": "motor 0", "body_a": None, "body_b": 0,
                      "law": ["prod", ["num", "0.3"], ["sin", ["prod", ["var", "par_A"],
                                                               ["time"]]]],
                      "law_text": "(0.29999999999999999 * sin((par_A * t)))"}],
    "forces": [{"bar": 1, "s": 0.25, "fx": 1.0, "fy": -2.0, "torque": 0.5},
               {"bar": 0, "s": 0.0, "fx": 0.0, "fy": -1.0, "torque": 0.0}],
    "springs": [{"name": "spring 0", "bar_a": 1, "s_a": 0.5, "bar_b": None, "s_b": 0.0,
                 "ground": [2.0, 1.0], "k": 10.0, "l0": 0.9500865753783488, "c": 0.3},
                {"name": "spring 1", "bar_a": 0, "s_a": 0.0, "bar_b": 1, "s_b": 0.2,
                 "ground": None, "k": 5.0, "l0": 0.7, "c": 0.0}],
    "torsional_springs": [{"name": "torsional spring 0", "bar_a": 0, "bar_b": 1, "k": 3.0,
                           "phi0": 0.1, "c": 0.1, "preload": 0.2}],
    "force_actuators": [{"name": "force actuator 0", "bar": 1, "s": 0.3, "frame": "bar",
                         "fx": ["prod", ["var", "par_A"], ["cos", ["time"]]],
                         "fy": ["num", "0.5"], "fx_text": "(par_A * cos(t))",
                         "fy_text": "0.50000000000000000"}],
    "torque_actuators": [{"name": "torque actuator 0", "bar": 0, "bar_a": 1,
                          "torque": ["prod", ["var", "par_A"],
                                     ["sin", ["prod", ["num", "2.0"], ["time"]]]],
                          "torque_text": "(par_A * sin((2.0000000000000000 * t)))"}],
    "events": [{"name": "event 0", "expr": ["sum", ["num", "-0.5"], ["var", "th1"]],
                "text": "(th1 - 0.50000000000000000)", "direction": "down",
                "terminal": True}],
}


def test_format_2_files_load_with_the_default_names():
    m = quivira.bar_joint_model.from_dict(copy.deepcopy(FORMAT_2))
    assert list(m.elements) == ["A", "support0", "motor 0", "force0", "force1", "spring 0",
                                "spring 1", "torsional spring 0", "force actuator 0",
                                "torque actuator 0", "event 0"]
    load = m.element("force1")
    assert (load.bar, load.s, load.fx, load.fy, load.torque) == (0, 0.0, 0.0, -1.0, 0.0)
    assert m.element("spring 0").l0 == 0.9500865753783488
    assert str(m.element("motor 0").law) == "(0.29999999999999999 * sin((par_A * t)))"
    assert m.element("event 0").terminal and m.element("event 0").direction == "down"
    values = _values(m)
    assert values["force0.torque"] == 0.5 and values["torsional spring 0.preload"] == 0.2
    # earlier spellings of the numbers are read, with a warning
    with pytest.warns(PendingDeprecationWarning, match="'force1.fy'"):
        m.set("force 1 · fy", -3.0)
    assert m.element("force1").fy == -3.0
    # it saves as the current format, with every name, and loads back the same
    d = m.to_dict()
    assert d["format_version"] == 3 and d["forces"][1]["name"] == "force1"
    assert quivira.bar_joint_model.from_dict(json.loads(json.dumps(d))).to_dict() == d
    with pytest.warns(quivira.ConstraintWarning, match="largest: motor 0.torque"):
        tr = m.simulate(0.2, n_points=3)  # the motor starts at 0.3 A rad/s, the bar at rest
    assert np.isfinite(tr.q).all() and list(tr.load_power)[:2] == ["force0", "force1"]


def test_format_2_files_are_checked_as_the_api_checks():
    bad = copy.deepcopy(FORMAT_2)
    bad["springs"][0]["ground"] = None
    with pytest.raises(ValueError, match=r"springs\[0\]: bar_b is None"):
        quivira.bar_joint_model.from_dict(bad)
    bad = copy.deepcopy(FORMAT_2)
    bad["torque_actuators"][0]["bar_a"] = 0
    with pytest.raises(ValueError, match=r"torque_actuators\[0\]: bar_a is the driven bar"):
        quivira.bar_joint_model.from_dict(bad)
    bad = copy.deepcopy(FORMAT_2)
    bad["joint_motors"][0]["law"] = ["var", "th1"]  # a motor's law is of time only
    with pytest.raises(ValueError, match=r"joint_motors\[0\]\.law"):
        quivira.bar_joint_model.from_dict(bad)
    bad = copy.deepcopy(FORMAT_2)
    bad["parameters"][0]["name"] = "2A"
    with pytest.raises(ValueError, match=r"parameters\[0\]: a parameter's name"):
        quivira.bar_joint_model.from_dict(bad)
    bad = copy.deepcopy(FORMAT_2)
    bad["force_actuators"][0]["frame"] = "body"
    with pytest.raises(ValueError, match=r"force_actuators\[0\]\.frame must be one of"):
        quivira.bar_joint_model.from_dict(bad)


# ------------------------------------------------------------------ edits
@pytest.mark.filterwarnings("ignore:initial velocities violate")  # the motor's new speed
def test_runtime_edits_resimulate_without_compiling():
    m = crank_and_rod()
    T = 0.3
    before = m.simulate(T, n_points=4)
    cs = m.compiled(t_end=T)
    edits = [("force0", {"fy": -5.0}, "force0.fy", -5.0),
             ("spring0", {"k": 45.0, "c": 0.0}, "spring0.k", 45.0),
             ("torsion0", {"preload": -0.3}, "torsion0.preload", -0.3),
             ("actuator0", {"s": 0.1}, "actuator0.s", 0.1),
             ("A", {"value": 1.5}, "A", 1.5),
             ("w", {"value": 3.0}, "w", 3.0)]
    for name, values, key, v in edits:
        m.set(name, **values)
        assert _values(m)[key] == v and m.element(name).name == name
        assert m.is_compiled(t_end=T) and m.compiled(t_end=T) is cs, name
    m.set("spring0.l0", 0.2)
    m.set("w", 2.5)
    assert _values(m)["spring0.l0"] == 0.2 and _values(m)["w"] == 2.5
    after = m.simulate(T, n_points=4)
    assert m.compiled(t_end=T) is cs
    assert np.abs(after.q - before.q).max() > 1e-3
    # the same numbers in a fresh model give the same motion
    fresh = quivira.bar_joint_model.from_dict(m.to_dict())
    np.testing.assert_array_equal(fresh.simulate(T, n_points=4).q, after.q)


def test_derived_defaults_are_derived_again_when_set_to_none():
    m = crank_and_rod()
    l0 = m.element("spring0").l0
    m.set("spring0", l0=1.0)
    m.set("spring0", l0=None)
    assert m.element("spring0").l0 == l0


@pytest.mark.parametrize("name, values", [
    ("actuator0", {"frame": "ground"}),
    ("event0", {"direction": "any"}),
    ("far", {"terminal": False}),
])
def test_topology_edits_recompile(name, values):
    m = crank_and_rod()
    m.compiled(t_end=0.1)
    key = m.topology_key()
    m.set(name, **values)
    assert m.topology_key() != key and not m.is_compiled(t_end=0.1)
    assert all(getattr(m.element(name), f) == v for f, v in values.items())


@pytest.mark.parametrize("name, values, match", [
    ("force0", {"bar": 0}, "force0: 'bar' cannot be edited"),
    ("spring0", {"bar_b": 0}, "spring0: 'bar_b' cannot be edited"),
    ("torque0", {"torque": 1.0}, "torque0: 'torque' cannot be edited"),
    ("motor0", {"law": 0.3}, "motor0: 'law' cannot be edited"),
    ("event0", {"expr": hy.time}, "event0: 'expr' cannot be edited"),
    ("torsion0", {"stiffness": 1.0}, "torsional spring has no field 'stiffness'"),
    ("A", {"name": "B"}, "a named parameter has one field, 'value'"),
])
def test_fields_that_cannot_be_edited_are_refused(model, name, values, match):
    before = model.to_dict()
    with pytest.raises(ValueError, match=match):
        model.set(name, **values)
    assert model.to_dict() == before


BAD_ADDS = [
    (lambda m: PointLoad(bar=1, s=0.7, fx=1.0, fy=0.0), ValueError,
     r"force1: s must lie in \[-0.5, 0.5\]"),
    (lambda m: PointLoad(bar=5, s=0.0, fx=1.0, fy=0.0), ValueError,
     r"force1: bar: bar index 5 out of range"),
    (lambda m: PointLoad(bar=1, s=0.0, fx="1", fy=0.0), TypeError,
     r"force1: fx must be a real number"),
    (lambda m: PointLoad(bar=1.0, s=0.0, fx=1.0, fy=0.0), TypeError,
     r"force1: bar must be an integer"),
    (lambda m: SpringDamper(bar_a=1, s_a=0.5, bar_b=None, ground=(2, 0), k=-1.0),
     ValueError, r"spring1: k must be >= 0"),
    (lambda m: SpringDamper(bar_a=1, s_a=0.5, bar_b=None, k=1.0),
     ValueError, r"spring1: bar_b is None \(the ground\): give the ground point"),
    (lambda m: SpringDamper(bar_a=1, s_a=0.5, bar_b=0, ground=(2, 0), k=1.0),
     ValueError, r"spring1: a ground point is given"),
    (lambda m: SpringDamper(bar_a=1, s_a=0.5, bar_b=1, k=1.0), ValueError,
     r"spring1: both ends are on bar 1"),
    (lambda m: SpringDamper(bar_a=1, s_a=0.5, bar_b=None, s_b=0.2, ground=(2, 0), k=1.0),
     ValueError, r"spring1: s_b = 0.2"),
    (lambda m: SpringDamper(bar_a=0, s_a=-0.5, bar_b=None, ground=(0, 0), k=1.0),
     ValueError, r"spring1: the two ends coincide"),
    (lambda m: SpringDamper(bar_a=1, s_a=0.5, bar_b=None, ground="ab", k=1.0),
     TypeError, r"spring1: ground"),
    (lambda m: TorsionalSpring(bar_a=1, bar_b=1, k=1.0), ValueError, r"torsion1: .*same bar"),
    (lambda m: TorsionalSpring(bar_a=None, bar_b=1, k=1.0, c=-1.0), ValueError,
     r"torsion1: c must be >= 0"),
    (lambda m: ForceActuator(bar=1, s=0.0, fx=1.0, fy=0.0, frame="body"), ValueError,
     r"actuator1: frame must be one of \('ground', 'bar'\)"),
    (lambda m: ForceActuator(bar=1, s=0.0, fx=hy.expression("z"), fy=0.0), ValueError,
     r"actuator1: fx: unknown variables \['z'\]"),
    (lambda m: ForceActuator(bar=1, s=0.0, fx=hy.par[0], fy=0.0), ValueError,
     r"actuator1: fx: use model.parameter"),
    (lambda m: ForceActuator(bar=1, s=0.0, fx=hy.expression("par_B"), fy=0.0), ValueError,
     r"actuator1: fx: unknown variables \['par_B'\]"),
    (lambda m: TorqueActuator(bar=1, torque="fast"), TypeError, r"torque1: torque"),
    (lambda m: TorqueActuator(bar=1, torque=1.0, bar_a=1), ValueError,
     r"torque1: bar_a is the driven bar itself"),
    (lambda m: Parameter(name="2A", value=1.0), ValueError,
     r"2A: a parameter's name must consist of letters"),
    (lambda m: Parameter(name="B", value=math.nan), ValueError, r"B: value must be finite"),
    (lambda m: Parameter(name="A", value=1.0), ValueError, r"'A' is already taken"),
    (lambda m: JointMotor(body_a=None, body_b=1, law=m.variables(0)[0][2]), ValueError,
     r"motor1: law: unknown variables \['th0'\]"),
    (lambda m: JointMotor(body_a=1, body_b=1, law=0.0), ValueError,
     r"motor1: body_a and body_b are the same body"),
    (lambda m: JointMotor(body_a=None, body_b=None, law=0.0), TypeError, r"motor1: body_b"),
    (lambda m: UserEvent(expr=1.0), TypeError, r"event1: expr must be a heyoka expression"),
    (lambda m: UserEvent(expr=hy.expression(2.0) + 1.0), ValueError,
     r"event1: expr: the event function uses neither the state nor the time"),
    (lambda m: UserEvent(expr=hy.time, direction="sideways"), ValueError,
     r"event1: direction must be one of"),
    (lambda m: UserEvent(expr=hy.time, terminal="yes"), TypeError,
     r"event1: terminal must be True or False"),
]


@pytest.mark.parametrize("make, exc, match", BAD_ADDS,
                         ids=[f"{i}" for i in range(len(BAD_ADDS))])
def test_bad_values_name_the_element_and_leave_the_model_unchanged(model, make, exc, match):
    before = model.to_dict()
    with pytest.raises(exc, match=match):
        model.add(make(model))
    assert model.to_dict() == before


@pytest.mark.parametrize("name, values, exc, match", [
    ("force0", {"fx": "1"}, TypeError, r"force0: fx"),
    ("force0", {"s": 0.9}, ValueError, r"force0: s"),
    ("spring0", {"k": -2.0}, ValueError, r"spring0: k must be >= 0"),
    ("spring0", {"ground": (1.0,)}, ValueError, r"spring0: ground"),
    ("torsion0", {"phi0": math.inf}, ValueError, r"torsion0: phi0 must be finite"),
    ("actuator0", {"frame": 3}, TypeError, r"actuator0: frame"),
    ("A", {"value": "x"}, TypeError, r"A: value"),
    ("event0", {"direction": "sideways"}, ValueError, r"event0: direction"),
])
def test_bad_edits_name_the_element_and_leave_the_model_unchanged(model, name, values, exc,
                                                                  match):
    before = model.to_dict()
    with pytest.raises(exc, match=match):
        model.set(name, **values)
    assert model.to_dict() == before


def test_a_parameter_in_use_is_not_removed():
    m = crank_and_rod()
    with pytest.raises(ValueError, match=r"parameter 'A' is used by \['actuator0', 'torque0'\]"):
        m.remove("A")
    m.remove("actuator0")
    m.remove("torque0")
    m.remove("A")
    assert "A" not in m.elements
    m.remove("force0")
    m.remove("event0")
    assert [nm for nm in m.elements] == ["w", "support0", "motor0", "spring0", "torsion0",
                                         "far"]


# ------------------------------------------------------------------ earlier methods
def test_earlier_methods_build_the_same_elements():
    m = quivira.bar_joint_model()
    m.add_bar_at_attitude(0.5, 0.0, 0.0, 1.0, 1.0)
    m.add_bar_at_attitude(1.5, 0.0, 0.0, 1.0, 1.0)
    m.add_support(0, -0.5, fixed_x=True, fixed_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        A = m.add_parameter("A", 0.5)
        assert str(A) == "par_A"
        assert m.add_external_force(1, 0.5, 0.0, -1.0) == 0
        assert m.add_spring_damper(1, 0.5, None, k=2.0, ground_point=(2.0, 1.0)) == "spring0"
        assert m.add_torsional_spring(0, 1, 3.0) == "torsion0"
        assert m.add_force_actuator(1, 0.0, A, 0.0) == "actuator0"
        assert m.add_torque_actuator(1, A, bar_a=0) == "torque0"
        assert m.add_joint_motor(None, 0.25 * hy.time, bodies=(None, 0)) == "motor0"
        assert m.add_event(m.variables(1)[0][2] - 1.0) == "event0"
        assert m.load_names == ["force0", "spring0", "torsion0", "actuator0", "torque0"]
        m.set_force(0, fy=-2.0, torque=0.1)
        m.set_spring("torsion0", k=4.0)
        m.set_parameter("A", 0.7)
        with pytest.raises(ValueError, match="is used by"):
            m.remove_load("A")
        m.remove_load("actuator0")
        m.remove_force(0)
    assert (m.element("torsion0").k, m.element("A").value) == (4.0, 0.7)
    assert "force0" not in m.elements and "actuator0" not in m.elements
    with warnings.catch_warnings():  # the contract's method is not deprecated
        warnings.simplefilter("error", PendingDeprecationWarning)
        assert m.add_external_force(1, 0.0, 1.0, 0.0) == 0
