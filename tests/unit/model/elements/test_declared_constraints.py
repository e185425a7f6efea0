"""Pin joints, coordinate and user constraints, welds, distance links and body pins as declared
kinds: names, labels, files (old and new), runtime and topology edits, refused values."""

from __future__ import annotations

import copy
import json
import math

import heyoka as hy
import numpy as np
import pytest

import quivira as qv
from quivira.expression_codec import encode_expression
from quivira.model.elements import (
    BodyPin,
    CoordinateConstraint,
    Distance,
    LoadContext,
    PinJoint,
    UserConstraint,
    Weld,
)

G = 9.81
MINE = (PinJoint, CoordinateConstraint, UserConstraint, Weld, Distance, BodyPin)


def text(d) -> str:
    """The JSON text of data: equal texts are equal bit for bit (shortest round-trip floats)."""
    return json.dumps(d, sort_keys=True)


def chain() -> qv.BarJointModel:
    """Four unit bars end to end along +x, from (0, 0) to (4, 0); bar 3 a plate-like body."""
    m = qv.BarJointModel()
    for k in range(4):
        m.add_bar_at_attitude(k + 0.5, 0.0, 0.0, 1.0, 1.0 + k)
    return m


def every_kind(m: qv.BarJointModel) -> list[str]:
    """Add one element of each kind (the user constraint holds x0 = 0.5); return the names."""
    return [m.add(PinJoint(bars=[0, 1], s=[0.5, -0.5])),
            m.add(CoordinateConstraint(bar0=0, bar1=3, X0=[[0, 0, 1]], X1=[[0, 0, 1]],
                                       offset=[0.25])),
            m.add(UserConstraint(exprs=[m.variables(0)[0][0] - 0.5])),
            m.add(Weld(body_a=1, body_b=2, point_b=(-0.5, 0.0))),
            m.add(Distance(body_a=None, point_a=(0.0, 1.0), body_b=0, point_b=-0.5)),
            m.add(BodyPin(body_a=None, point_a=(3.0, 0.0), body_b=3, point_b=-0.5))]


# ------------------------------------------------------------------------------ names
def test_add_returns_the_canonical_names_and_labels_use_them():
    m = chain()
    assert every_kind(m) == ["joint0", "coordinate0", "constraint0", "weld0", "distance0",
                             "pin0"]
    assert m.add(PinJoint(bars=[1, 2], s=[0.5, -0.5])) == "joint1"
    assert m.add(PinJoint(bars=[2, 3], s=[0.5, -0.5], name="knee")) == "knee"
    labels = m.constraint_labels
    for lb in ("joint0.bar1.x", "joint0.bar1.y", "joint1.bar2.y", "knee.bar3.x",
               "coordinate0.row0", "constraint0.row0", "weld0.x", "weld0.y", "weld0.torque",
               "distance0.tension", "pin0.x", "pin0.y"):
        assert lb in labels, lb
    assert all("." in lb and " " not in lb for lb in labels), labels
    # defaults taken from the pose: the weld holds the bodies as they are
    w = m.element("weld0")
    assert w.point_a == (0.5, 0.0) and w.point_b == (-0.5, 0.0) and w.phi0 == 0.0
    assert m.element("distance0").length == pytest.approx(1.0, abs=0)
    assert m.element("coordinate0").X1 == [[0.0, 0.0, 1.0]]
    # the summary names them
    summary = m.summary()
    for nm in ("joint0:", "knee:", "'coordinate0'", "'constraint0'", "'weld0'", "'distance0'",
               "'pin0'"):
        assert nm in summary, nm
    # a removed element's name is free again; the others keep theirs
    m.remove("joint0")
    assert "joint1.bar2.x" in m.constraint_labels
    assert m.add(PinJoint(bars=[0, 1], s=[0.5, -0.5])) == "joint0"


def test_contract_add_joint_and_infer_joints_keep_their_returns():
    m = chain()
    assert m.add_joint([0, 1], [0.5, -0.5]) == 0
    assert m.add_joint([1, 2], [0.5, -0.5]) == 1
    assert [j.name for j in m.elements.values() if isinstance(j, PinJoint)] == ["joint0",
                                                                                "joint1"]
    m.add_bar_at_attitude(2.0, 0.5, math.pi / 2, 1.0, 1.0)  # bar 4 stands on (2, 0)
    revision = m.revision
    assert m.infer_joints() == 3  # bar 4 joins joint1; bars 2 and 3 meet at (3, 0)
    assert m.revision > revision
    joints = {nm: el for nm, el in m.elements.items() if isinstance(el, PinJoint)}
    assert list(joints) == ["joint0", "joint1", "joint2"]
    assert joints["joint1"].bars == [1, 2, 4] and joints["joint1"].s == [0.5, -0.5, -0.5]
    assert joints["joint2"].bars == [2, 3] and joints["joint2"].s == [0.5, -0.5]
    assert m.infer_joints() == 3  # nothing new


# ------------------------------------------------------------------------------ files
def test_every_kind_round_trips_bit_for_bit():
    m = chain()
    m.set_init_bar_attitude(3, 3.5, 0.0, 1e-17)
    every_kind(m)
    m.add(CoordinateConstraint(bar0=None, bar1=2, Y1=[[0.1, 1 / 3, 0.0], [0.0, 0.0, 2.0]],
                               offset=[0.7, -1e-300], velocity_level=True, active=False))
    m.add(Distance(body_a=1, point_a=(0.1, -0.2), body_b=2, point_b=0.3, length=math.pi))
    d = m.to_dict()
    back = qv.BarJointModel.from_dict(json.loads(json.dumps(d)))
    assert text(back.to_dict()) == text(d)
    assert back.constraint_labels == m.constraint_labels
    # each element on its own, through its kind's from_dict
    bodies = m.bodies
    for name, el in m.elements.items():
        if not isinstance(el, MINE):
            continue
        ctx = LoadContext(len(bodies), set(), 3, bodies=bodies)
        data = json.loads(json.dumps(el.to_dict()))
        again = type(el).from_dict(data, name, ctx)
        assert text(again.to_dict()) == text(el.to_dict()), name
        assert again.name == el.name
    # the data are copies: editing them leaves the model as it was
    d = m.to_dict()
    d["joints"][0]["bars"].append(2)
    d["coordinate_constraints"][1]["Y1"][0][0] = 5.0
    assert text(m.to_dict()) != text(d)
    assert m.element("joint0").bars == [0, 1]


def format_2_file() -> dict:
    """A model file as quivira wrote it in format 2: joints without names, the default names
    of that version ("weld 0", ...), the keys of the kinds in the order it wrote them."""
    x0 = hy.expression("x0")
    return {
        "format": "quivira.bar_joint_model", "format_version": 2, "tolerance": 1e-10,
        "g": 9.81, "stabilization": 10.0,
        "bars": [{"length": 1.0, "mass": 1.0 + k, "pose": [k + 0.5, 0.0, 0.0],
                  "velocity": [0.0, 0.0, 0.0]} for k in range(4)],
        "joints": [{"bars": [0, 1], "s": [0.5, -0.5]}, {"bars": [1, 2], "s": [0.5, -0.5]}],
        "supports": [],
        "coordinate_constraints": [{"bar0": 0, "bar1": 3, "X0": [[0.0, 0.0, 1.0]],
                                    "X1": [[0.0, 0.0, 1.0]], "Y0": None, "Y1": None,
                                    "offset": [0.0], "velocity_level": False, "active": True,
                                    "name": "coordinate constraint 0"}],
        "user_constraints": [{"name": "constraint 0", "velocity_level": False,
                              "text": ["(x0 - 0.5)"],
                              "exprs": [encode_expression(x0 - 0.5)]}],
        "welds": [{"name": "weld 0", "body_a": 1, "body_b": 2, "point_a": [0.5, 0.0],
                   "point_b": [-0.5, 0.0], "phi0": 0.0}],
        "distances": [{"name": "distance 0", "body_a": None, "point_a": [0.0, 1.0],
                       "body_b": 0, "point_b": -0.5, "length": 1.0}],
        "body_pins": [{"name": "pin 0", "body_a": None, "point_a": [3.0, 0.0], "body_b": 3,
                       "point_b": -0.5}],
    }


def test_a_format_2_file_loads_with_the_default_names():
    d = format_2_file()
    m = qv.BarJointModel.from_dict(copy.deepcopy(d))
    assert [nm for nm, el in m.elements.items() if isinstance(el, MINE)] == [
        "joint0", "joint1", "coordinate constraint 0", "constraint 0", "weld 0", "distance 0",
        "pin 0"]
    labels = m.constraint_labels
    assert labels[:4] == ["joint0.bar1.x", "joint0.bar1.y", "joint1.bar2.x", "joint1.bar2.y"]
    for lb in ("coordinate constraint 0.row0", "constraint 0.row0", "weld 0.torque",
               "distance 0.tension", "pin 0.y"):
        assert lb in labels, lb
    assert m.add_joint([2, 3], [0.5, -0.5]) == 2
    assert "joint2.bar3.x" in m.constraint_labels
    # it saves in the format of now (names stored) and reads back the same
    new = m.to_dict()
    assert new["format_version"] == 3 and new["joints"][0]["name"] == "joint0"
    for kind, key in (("coordinate_constraints", "offset"), ("welds", "point_a"),
                      ("distances", "length"), ("body_pins", "point_b")):
        assert new[kind][0][key] == d[kind][0][key]
    assert text(qv.BarJointModel.from_dict(new).to_dict()) == text(new)
    # a format-2 file is checked as the API checks
    bad = copy.deepcopy(d)
    bad["joints"][1]["bars"] = [1, 1]
    with pytest.raises(ValueError, match=r"joints\[1\]\.bars: the same bar appears twice"):
        qv.BarJointModel.from_dict(bad)
    bad = copy.deepcopy(d)
    bad["welds"][0]["body_b"] = 1
    with pytest.raises(ValueError, match=r"welds\[0\]: body_a and body_b are the same body"):
        qv.BarJointModel.from_dict(bad)


def test_a_format_3_file_needs_the_names():
    d = qv.BarJointModel.from_dict(format_2_file()).to_dict()
    d["joints"][0].pop("name")
    with pytest.raises(ValueError, match=r"joints\[0\]: missing key 'name'"):
        qv.BarJointModel.from_dict(d)


# ------------------------------------------------------------------------------ edits
def hanging(kind: str) -> tuple[qv.BarJointModel, str]:
    """A bar of mass 2 hanging at rest from the ground by one element of ``kind``."""
    m = qv.BarJointModel()
    m.add_bar_at_attitude(0.0, -1.5, -math.pi / 2, 1.0, 2.0)  # from (0, -1) down to (0, -2)
    if kind == "distance":
        return m, m.add(Distance(body_a=None, point_a=(0.0, 0.0), body_b=0, point_b=-0.5))
    if kind == "pin":
        return m, m.add(BodyPin(body_a=None, point_a=(0.0, -1.0), body_b=0, point_b=-0.5))
    return m, m.add(Weld(body_a=None, body_b=0, point_b=(-0.5, 0.0)))


def value(m: qv.BarJointModel, name: str) -> float:
    return {p.name: p.value for p in m.parameters()}[name]


def test_runtime_edits_of_a_distance_reuse_the_compiled_code():
    m, nm = hanging("distance")
    assert value(m, "distance0.length") == 1.0
    info = {p.name: p for p in m.parameters()}["distance0.length"]
    assert info.runtime and info.sweepable and not info.differentiable
    tr = m.simulate(0.2, 3)
    cs = m.compiled()
    assert np.allclose(tr.multiplier("distance0.tension"), 2.0 * G, rtol=1e-12)
    m.set(nm, length=1.5)
    m.set("bar0", y=-2.0)
    assert value(m, "distance0.length") == 1.5
    tr = m.simulate(0.2, 3)
    assert m.compiled() is cs and m.is_compiled()
    assert np.allclose(tr.q[:, 1], -2.0, rtol=0, atol=1e-12)  # still at rest, 1.5 below
    assert np.allclose(tr.multiplier("distance0.tension"), 2.0 * G, rtol=1e-12)
    m.set("distance0.length", 1.25)
    assert m.element(nm).length == 1.25 and m.compiled() is cs
    # the point of the link is a runtime parameter too
    m.set(nm, point_a=(0.5, 0.0), length=1.5)
    assert m.element(nm).point_a == [0.5, 0.0] and m.compiled() is cs


def test_runtime_edits_of_a_weld_reuse_the_compiled_code():
    m, nm = hanging("weld")
    m.set_init_bar_attitude(0, 0.5, 0.0, 0.0)  # horizontal, welded at its left end (0, 0)
    m.set(nm, point_a=(0.0, 0.0), phi0=0.0)
    tr = m.simulate(0.2, 3)
    cs = m.compiled()
    lam = tr.lambda_mult[-1]
    assert np.allclose(lam, [0.0, 2.0 * G, 0.5 * 2.0 * G], rtol=1e-12, atol=1e-12)
    th = 0.3  # the weld turned: the bar's weight has the arm 0.5 cos θ about the weld point
    m.set(nm, phi0=th)
    m.set("bar0", x=0.5 * math.cos(th), y=0.5 * math.sin(th), theta=th)
    assert value(m, "weld0.phi0") == th
    tr = m.simulate(0.2, 3)
    assert m.compiled() is cs
    assert np.allclose(tr.multiplier("weld0.torque"), 0.5 * math.cos(th) * 2.0 * G,
                       rtol=1e-12)
    with pytest.raises(ValueError, match=r"weld0: 'body_b' cannot be edited"):
        m.set(nm, body_b=0)


def test_runtime_edits_of_a_body_pin_and_a_joint_reuse_the_compiled_code():
    m, nm = hanging("pin")
    tr = m.simulate(0.2, 3)
    cs = m.compiled()
    assert np.allclose(tr.multiplier("pin0.y"), 2.0 * G, rtol=1e-12)
    m.set(nm, point_a=(1.0, -1.0))
    m.set("bar0", x=1.0)
    assert m.element(nm).point_a == [1.0, -1.0]
    tr = m.simulate(0.2, 3)
    assert m.compiled() is cs and np.allclose(tr.q[:, 0], 1.0, rtol=0, atol=1e-12)
    # a second bar hanging from the first by a pin joint: move the joint along bar 0
    m.add_bar_at_attitude(1.0, -2.5, -math.pi / 2, 1.0, 3.0)
    m.add_joint([0, 1], [0.5, -0.5])
    tr = m.simulate(0.2, 3)
    cs = m.compiled()
    assert np.allclose(tr.multiplier("joint0.bar1.y"), 3.0 * G, rtol=1e-12)
    m.set("joint0", s=[0.25, -0.5])
    m.set("bar1", y=-2.25)
    tr = m.simulate(0.2, 3)
    assert m.compiled() is cs and m.element("joint0").s == [0.25, -0.5]
    assert np.allclose(tr.multiplier("joint0.bar1.y"), 3.0 * G, rtol=1e-12)
    assert np.allclose(tr.multiplier("pin0.y"), 5.0 * G, rtol=1e-12)
    with pytest.raises(ValueError, match=r"joint0: 'bars' cannot be edited"):
        m.set("joint0", bars=[1, 0])


def test_a_centre_pin_edit_compiles_again():
    m = qv.BarJointModel()
    m.add_bar_at_attitude(0.0, 0.0, 0.5, 2.0, 1.0)
    m.add_bar_at_attitude(0.0, 0.0, -0.5, 2.0, 1.0)
    m.add_joint([0, 1], [0.0, 0.0])  # the pin of a scissor
    cs = m.compiled()
    m.set("joint0", s=[0.0, 0.0])
    assert m.compiled() is cs
    m.set_init_bar_attitude(1, 0.1 * math.cos(-0.5), 0.1 * math.sin(-0.5), -0.5)
    m.set("joint0", s=[0.0, -0.05])  # off the centres: rows with sL, other code
    assert m.compiled() is not cs


def test_coordinate_constraint_offset_and_switch_are_runtime_the_level_compiles():
    m = qv.BarJointModel()
    m.add_bar_at_attitude(0.0, 1.0, 0.0, 1.0, 2.0)
    nm = m.add(CoordinateConstraint(bar0=None, bar1=0, X1=[[0, 1, 0]], offset=[1.0]))
    tr = m.simulate(0.5, 6)
    cs = m.compiled()
    assert np.allclose(tr.multiplier("coordinate0.row0"), 2.0 * G, rtol=1e-12)
    m.set(nm, offset=[2.0])
    m.set("bar0", y=2.0)
    tr = m.simulate(0.5, 6)
    assert m.compiled() is cs and np.allclose(tr.q[:, 1], 2.0, rtol=0, atol=1e-12)
    m.set(nm, active=False)  # off: λ = 0, the bar falls freely
    tr = m.simulate(0.5, 6)
    assert m.compiled() is cs
    assert np.allclose(tr.q[:, 1], 2.0 - 0.5 * G * tr.t ** 2, rtol=0, atol=1e-12)
    assert np.all(tr.multiplier("coordinate0.row0") == 0.0)
    m.set(nm, velocity_level=True, active=True, offset=[0.0])  # topology: other code
    assert m.element(nm).velocity_level and m.compiled() is not cs


# ------------------------------------------------------------------------------ refusals
def refused(m: qv.BarJointModel, call, exc: type, match: str) -> None:
    before = text(m.to_dict())
    with pytest.raises(exc, match=match):
        call()
    assert text(m.to_dict()) == before


def test_bad_values_name_the_element_and_the_field_and_change_nothing():
    m = chain()
    every_kind(m)
    x0 = m.variables(0)[0][0]
    cases = [
        (lambda: m.add(PinJoint(bars=[2, 2], s=[0.0, 0.0])), ValueError,
         r"joint1\.bars: the same bar appears twice"),
        (lambda: m.add(PinJoint(bars=[2, 3], s=[0.0])), ValueError,
         r"joint1\.s: 2 bars but 1 values of s"),
        (lambda: m.add(PinJoint(bars=2, s=[0.0])), TypeError, r"joint1\.bars must be a list"),
        (lambda: m.add(PinJoint(bars=[2, 9], s=[0.0, 0.0])), ValueError,
         r"joint1\.bars\[1\]: bar index 9 out of range"),
        (lambda: m.set("joint0", s=[0.9, 0.0]), ValueError,
         r"joint0\.s\[0\] must lie in \[-0\.5, 0\.5\]"),
        (lambda: m.set("joint0", s=["a", 0.0]), TypeError, r"joint0\.s\[0\] must be a real"),
        (lambda: m.add(CoordinateConstraint(bar0=0, bar1=1, X0=[[1, 0]])), ValueError,
         r"coordinate1\.X0: expected 3 columns"),
        (lambda: m.set("coordinate0", offset=[1.0, 2.0]), ValueError,
         r"coordinate0\.offset: expected 1 values"),
        (lambda: m.set("coordinate0", active="yes"), TypeError,
         r"coordinate0: active must be True or False"),
        (lambda: m.add(UserConstraint(exprs=[x0 + hy.expression("z")])), ValueError,
         r"constraint1\.exprs\[0\]: unknown variables \['z'\]"),
        (lambda: m.set("constraint0", velocity_level=True), ValueError,
         r"constraint0\.exprs\[0\]: a velocity row must involve a velocity"),
        (lambda: m.set("constraint0", exprs=[x0]), ValueError,
         r"constraint0: 'exprs' cannot be edited"),
        (lambda: m.add(Weld(body_a=2, body_b=2)), ValueError,
         r"weld1: body_a and body_b are the same body \(2\)"),
        (lambda: m.set("weld0", phi0="a"), TypeError, r"weld0: phi0 must be a real number"),
        (lambda: m.set("weld0", point_b=(1.0,)), ValueError, r"weld0: point_b must be a pair"),
        (lambda: m.add(Distance(body_a=None, point_a=(0.0, 0.0), body_b=1, point_b="tip")),
         ValueError, r"distance1\.point_b: the body has no point named 'tip'"),
        (lambda: m.add(Distance(body_a=None, point_a=0.5, body_b=1, point_b=0.0)),
         ValueError, r"distance1\.point_a: a ground point is a pair"),
        (lambda: m.add(Distance(body_a=None, point_a=(1.0, 0.0), body_b=None,
                                point_b=(0.0, 0.0))), ValueError,
         r"distance1: body_a and body_b are both the ground"),
        (lambda: m.set("distance0", length=-1.0), ValueError,
         r"distance0: length must be positive"),
        (lambda: m.set("distance0.length", float("nan")), ValueError,
         r"distance0.* must be finite"),
        (lambda: m.add(BodyPin(body_a=0, point_a=0.0, body_b=None, point_b=(0.0, 0.0))),
         TypeError, r"pin1: body_b must be an integer"),
        (lambda: m.add(BodyPin(body_a=0, point_a=0.7, body_b=1, point_b=0.0)), ValueError,
         r"pin1\.point_a"),
        (lambda: m.add(Weld(body_a=None, body_b=1, name="joint0")), ValueError,
         r"'joint0' is already taken"),
    ]
    for call, exc, match in cases:
        refused(m, call, exc, match)


def test_a_weld_needs_the_pose_it_keeps_and_refuses_particles():
    m = qv.BarJointModel()
    m.add_bar(1.0, 1.0)
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    refused(m, lambda: m.add(Weld(body_a=1, body_b=0)), ValueError,
            r"weld0\.body_b: body 0 has no initial pose yet")
    # given in full, the weld needs no pose (as read from a file)
    assert m.add(Weld(body_a=1, body_b=0, point_a=(0.5, 0.0), point_b=(-0.5, 0.0),
                      phi0=0.0)) == "weld0"
    with pytest.warns(PendingDeprecationWarning):
        p = m.add_particle(0.0, 0.0, 1.0)
    refused(m, lambda: m.add(Weld(body_a=1, body_b=p)), ValueError,
            r"weld1\.body_b: body 2 is a particle")


# ------------------------------------------------------------------------------ earlier API
def test_the_earlier_methods_build_the_same_elements():
    m = chain()
    with pytest.warns(PendingDeprecationWarning):
        names = [m.add_coordinate_constraint(0, 3, [[0, 0, 1]], [[0, 0, 1]], offset=[0.25]),
                 m.add_constraint([m.variables(0)[0][0] - 0.5]),
                 m.add_weld(1, 2, at=(2.0, 0.0)),
                 m.add_distance(None, (0.0, 1.0), 0, -0.5),
                 m.add_pin(None, (3.0, 0.0), 3, -0.5)]
    assert names == ["coordinate0", "constraint0", "weld0", "distance0", "pin0"]
    ref = chain()
    every_kind(ref)
    ref.remove("joint0")
    assert text(m.to_dict()) == text(ref.to_dict())
    with pytest.warns(PendingDeprecationWarning):
        m.set_distance_length("distance0", 2.0)
        m.set_constraint_offset("coordinate0", [0.5])
        m.set_constraint_active(0, False)
        m.remove_constraint("constraint0")
        with pytest.raises(ValueError, match=r"pin1: the two points are 0\.5 m apart"):
            m.add_pin(None, (3.0, 0.5), 3, -0.5)
    assert m.element("distance0").length == 2.0
    cc = m.element("coordinate0")
    assert cc.offset == [0.5] and not cc.active
    assert "constraint0" not in m.elements
    with pytest.warns(PendingDeprecationWarning):
        assert m.add_joint([0, 1], [0.5, -0.5]) == 0
        m.set_joint(0, s=[0.5, -0.25])
        assert m.element("joint0").s == [0.5, -0.25]
        m.set_joint(0, bar_index=[1, 2], s=[0.5, -0.5])
        assert m.element("joint0").bars == [1, 2]
        m.remove_joint(0)
    assert "joint0" not in m.elements
