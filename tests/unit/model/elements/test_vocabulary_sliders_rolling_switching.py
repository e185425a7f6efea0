"""The declared fields of the sliding, rolling and switching kinds (one vocabulary).

Pin-in-slot, prismatic joint, ground slider, rolling on a line and on a disc, latch, angle
stop and contact: ``model.add`` gives the canonical name, files round-trip bit for bit and
files of formats 1 and 2 load with the names they had, ``model.set`` edits runtime fields
without compiling and topology fields by recompiling, and bad values name the element and
the field and leave the model as it was.
"""

from __future__ import annotations

import json
import math

import pytest

import quivira as qv
from quivira.model.data import RigidBody
from quivira.model.elements import (
    AngleStop,
    Contact,
    GroundSlider,
    Latch,
    PinInSlot,
    PrismaticJoint,
    RollingOnDisc,
    RollingOnLine,
)

G = 9.81
T_END = 0.2
KINDS = (PinInSlot, PrismaticJoint, GroundSlider, RollingOnLine, RollingOnDisc, Latch,
         AngleStop, Contact)


def _bar(m, x, y, theta, length=1.0, mass=1.0) -> int:
    return m.add_bar_at_attitude(x, y, theta, length, mass)


def _fixed_guide(m) -> int:
    """Bar 0 along the x axis from (0, 0) to (1, 0), held at both ends."""
    _bar(m, 0.5, 0.0, 0.0)
    m.add_support(0, -0.5, fixed_x=True, fixed_y=True)
    m.add_support(0, 0.5, fixed_x=False, fixed_y=True)
    return 0


def _disc(m, x, y, radius=0.2, mass=1.0) -> int:
    m.add(RigidBody(mass, 0.5 * mass * radius ** 2, (x, y, 0.0),
                    shape={"kind": "disc", "radius": radius}))
    return len(m.bodies) - 1


def slot_model():
    """A vertical bar whose centre hangs in the slot of a fixed horizontal bar."""
    m = qv.bar_joint_model()
    _fixed_guide(m)
    _bar(m, 0.4, 0.0, math.pi / 2)
    return m, m.add(PinInSlot(bar_a=0, bar_b=1, s_b=0.0))


def prismatic_model():
    """A vertical bar sliding along a fixed horizontal bar, its centre on the guide."""
    m = qv.bar_joint_model()
    _fixed_guide(m)
    _bar(m, 0.4, 0.0, math.pi / 2)
    return m, m.add(PrismaticJoint(bar_a=0, bar_b=1))


def slider_model():
    """A horizontal bar whose right end slides on the x axis."""
    m = qv.bar_joint_model()
    _bar(m, 0.0, 0.0, 0.0)
    return m, m.add(GroundSlider(bar=0, s=0.5))


def rolling_line_model():
    """A disc of radius 0.2 resting on the x axis."""
    m = qv.bar_joint_model()
    d = _disc(m, 0.0, 0.2)
    return m, m.add(RollingOnLine(body=d))


def rolling_disc_model():
    """A disc of radius 0.2 on top of a fixed ground circle of radius 1, a little off centre."""
    m = qv.bar_joint_model()
    a = 0.1
    d = _disc(m, 1.2 * math.sin(a), 1.2 * math.cos(a))
    return m, m.add(RollingOnDisc(body_a=None, body_b=d, radius_a=1.0, centre_a=(0.0, 0.0)))


def _pendulum_pair(m):
    """Two bars pinned end to end, the first pinned at the origin, both hanging at rest."""
    _bar(m, 0.0, -0.5, -math.pi / 2)
    _bar(m, 0.0, -1.5, -math.pi / 2)
    m.add_support(0, -0.5, fixed_x=True, fixed_y=True)
    m.add_joint([0, 1], [0.5, -0.5])


def latch_model():
    m = qv.bar_joint_model()
    _pendulum_pair(m)
    return m, m.add(Latch(bar_a=0, bar_b=1, angle=0.3))


def stop_model():
    m = qv.bar_joint_model()
    _pendulum_pair(m)
    return m, m.add(AngleStop(bar_a=None, bar_b=0, limit=-1.0, side="max", restitution=0.5))


def contact_model(e=0.5, height=0.5):
    """A horizontal bar falling flat onto the floor y = 0 from its centre's height."""
    m = qv.bar_joint_model()
    _bar(m, 0.0, height, 0.0)
    return m, m.add(Contact(bar=0, s=0.0, restitution=e))


# kind: (model, a runtime edit (with the body edits that keep the pose consistent), a
# topology edit)
CASES = {
    "slot": (slot_model, ({"offset": 0.1}, {"bar1": {"y": 0.1}}), None),
    "prismatic": (prismatic_model, ({"phi0": 1.4}, {"bar1": {"theta": 1.4}}), None),
    "slider": (slider_model, ({"s": -0.25}, {}), {"angle": 0.3}),
    "rolling": (rolling_line_model, ({"radius": 0.3}, {"body0": {"y": 0.3}}), {"angle": 0.2}),
    "disc": (rolling_disc_model,
             ({"radius_b": 0.25}, {"body0": {"x": 1.25 * math.sin(0.1),
                                             "y": 1.25 * math.cos(0.1)}}),
             {"inside": True, "radius_a": 2.0}),
    "latch": (latch_model, ({"angle": 0.4}, {}), None),
    "stop": (stop_model, ({"limit": -1.2, "restitution": 0.7}, {}), {"side": "min",
                                                                        "limit": -2.0}),
    "contact": (contact_model, ({"restitution": 0.8, "height": -0.1}, {}),
                {"normal_angle": 1.5}),
}


def every_kind_model():
    """One model with an element of each of the eight kinds and awkward float values."""
    m = qv.bar_joint_model()
    _pendulum_pair(m)                                                  # bars 0, 1
    _bar(m, 3.0, 0.1 + 0.2, math.pi / 7, 0.7, 1.3)                     # bar 2
    _bar(m, 3.1, 0.3, math.pi / 7, 0.4, 0.6)                           # bar 3
    d = _disc(m, 6.0, 1.0 / 3.0, radius=1.0 / 3.0)                     # body 4
    ring = _disc(m, 8.0, 0.0, radius=1.0)                              # body 5
    small = _disc(m, 8.0, -0.7, radius=0.3)                            # body 6
    m.add_support(ring, 0.0, fixed_x=True, fixed_y=True)
    m.add(PinInSlot(bar_a=2, bar_b=3, s_b=0.1, offset=0.1 + 0.2))
    m.add(PrismaticJoint(bar_a=2, bar_b=3, s_b=-0.3, offset=1e-17))
    m.add(GroundSlider(bar=3, s=0.5, angle=math.pi / 3))
    m.add(RollingOnLine(body=d, angle=-0.1, radius=0.2 + 0.1, centre=(0.0, 1e-3)))
    m.add(RollingOnDisc(body_a=ring, body_b=small, inside=True))
    m.add(RollingOnDisc(body_a=None, body_b=d, radius_a=2.0 / 3.0, centre_a=(6.0, -1.0)))
    m.add(Latch(bar_a=0, bar_b=1, angle=math.pi / 11))
    m.add(AngleStop(bar_a=None, bar_b=0, limit=-math.pi / 9, side="min", restitution=0.3,
                    rest_speed=1e-4))
    m.add(Contact(bar=2, s=-0.5, height=-1.0 / 3.0, restitution=0.1 + 0.2,
                  normal_angle=math.pi / 3, rest_speed=2.5e-3, active=False))
    return m


# ------------------------------------------------------------------------------------------
# names, files
# ------------------------------------------------------------------------------------------

def test_add_returns_the_canonical_names():
    m = every_kind_model()
    assert list(m.elements)[-9:] == ["slot0", "prismatic0", "slider0", "rolling0", "disc0",
                                     "disc1", "latch0", "stop0", "contact0"]
    assert m.add(Contact(bar=0, s=0.5)) == "contact1"
    assert m.add(Contact(bar=0, s=-0.5, name="floor")) == "floor"
    assert m.element("floor").name == "floor" and m.element("contact1").s == 0.5


def test_rows_are_labelled_by_the_element_name():
    m = every_kind_model()
    labels = m.constraint_labels
    for label in ("slot0.normal", "prismatic0.normal", "prismatic0.angle", "slider0.normal",
                  "rolling0.normal", "rolling0.friction", "disc0.normal", "disc0.friction",
                  "latch0.angle", "stop0.angle", "contact0.normal"):
        assert label in labels, label
    summary = m.summary()
    for name in ("slot0", "prismatic0", "slider0", "rolling0", "disc0", "latch0", "stop0",
                 "contact0"):
        assert f"\n  {name}: " in summary, name


def test_every_kind_round_trips_bit_for_bit():
    m = every_kind_model()
    d = m.to_dict()
    text = json.dumps(d)
    back = qv.bar_joint_model.from_dict(json.loads(text))
    assert json.dumps(back.to_dict()) == text
    for name, el in m.elements.items():
        other = back.element(name)
        assert other == el, name
        assert json.dumps(other.to_dict()) == json.dumps(el.to_dict())
    # each kind alone, through its own to_dict/from_dict
    from quivira.model.elements import LoadContext

    ctx = LoadContext(len(m.bodies), set(), 3, bodies=m.bodies)
    for name, el in m.elements.items():
        if type(el) in KINDS:
            again = type(el).from_dict(json.loads(json.dumps(el.to_dict())), name, ctx)
            assert again == el and again.to_dict() == el.to_dict(), name


def _format2(version: int) -> dict:
    """A model file as quivira wrote it in format 2 (keys in its order, its default names)."""
    bar = {"length": 1.0, "mass": 1.0, "velocity": [0.0, 0.0, 0.0]}
    disc = {"kind": "body", "mass": 1.0, "inertia": 0.02, "velocity": [0.0, 0.0, 0.0],
            "shape": {"kind": "disc", "radius": 0.2}, "points": {}, "length": None}
    return {
        "format": "quivira.bar_joint_model", "format_version": version, "tolerance": 1e-10,
        "g": 9.81, "stabilization": 10.0,
        "bars": [bar | {"pose": [0.0, -0.5, -math.pi / 2]},
                 bar | {"pose": [0.0, -1.5, -math.pi / 2]},
                 bar | {"pose": [3.5, 0.0, 0.0]},
                 bar | {"pose": [3.4, 0.0, math.pi / 2]},
                 disc | {"pose": [6.0, 0.2, 0.0]},
                 disc | {"pose": [9.0, 1.2, 0.0]},
                 bar | {"pose": [3.7, 0.0, math.pi / 2]}],
        "joints": [{"bars": [0, 1], "s": [0.5, -0.5]}],
        "supports": [{"bar": 0, "s": -0.5, "free_x": False, "free_y": False, "x": 0.0,
                      "y": 0.0}],
        "slots": [{"name": "slot 0", "bar_a": 2, "bar_b": 3, "s_b": 0.0, "offset": 0.0}],
        "prismatic_joints": [{"name": "prismatic 0", "bar_a": 2, "bar_b": 6, "s_b": 0.0,
                              "offset": 0.0, "phi0": math.pi / 2}],
        "ground_sliders": [{"name": "slider 0", "bar": 2, "s": 0.5, "point": [4.0, 0.0],
                            "angle": 0.0}],
        "rolling_contacts": [{"name": "rolling 0", "body": 4, "centre": [0.0, 0.0],
                              "radius": None, "point": [6.0, 0.0], "angle": 0.0}],
        "disc_rolling_contacts": [{"name": "disc rolling 0", "body_a": None,
                                   "centre_a": [9.0, 0.0], "radius_a": 1.0, "body_b": 5,
                                   "centre_b": [0.0, 0.0], "radius_b": None,
                                   "inside": False}],
        "latches": [{"name": "latch 0", "bar_a": 0, "bar_b": 1, "angle": 0.4,
                     "active": False}],
        "angle_stops": [{"name": "stop 0", "bar_a": None, "bar_b": 0, "limit": -1.0,
                         "side": "max", "restitution": 0.5, "rest_speed": 0.001,
                         "active": False}],
        "contacts": [{"name": "floor", "bar": 1, "s": 0.5, "normal_angle": math.pi / 2,
                      "height": -3.0, "restitution": 0.25, "rest_speed": 0.001,
                      "active": False}],
    }


@pytest.mark.parametrize("version", [1, 2])
def test_old_files_load_with_the_names_they_had(version):
    m = qv.bar_joint_model.from_dict(_format2(version))
    names = ["slot 0", "prismatic 0", "slider 0", "rolling 0", "disc rolling 0", "latch 0",
             "stop 0", "floor"]
    assert [n for n in m.elements if n in names] == names
    assert m.element("support0").bar == 0  # a kind without stored names before format 3
    assert "slot 0.normal" in m.constraint_labels and "floor.normal" in m.constraint_labels
    assert m.element("rolling 0").radius is None and m.element("prismatic 0").phi0 == \
        math.pi / 2
    # the names are the names of the numbers too, and the edits keep them
    values = {p.name: p.value for p in m.parameters()}
    assert values["floor.restitution"] == 0.25 and values["stop 0.limit"] == -1.0
    m.set("floor", restitution=0.5)
    m.set("latch 0.angle", 0.5)
    assert m.element("floor").restitution == 0.5 and m.element("latch 0").angle == 0.5
    # written again as format 3 and read back: the same elements
    again = qv.bar_joint_model.from_dict(m.to_dict())
    assert again.elements == m.elements
    tr = m.simulate(0.05, 3)
    assert tr.n_points == 3


# ------------------------------------------------------------------------------------------
# edits
# ------------------------------------------------------------------------------------------

def _values(m) -> dict:
    return {p.name: p.value for p in m.parameters()}


@pytest.mark.parametrize("case", list(CASES))
def test_runtime_edit_resimulates_without_compiling(case):
    build, (edit, body_edits), _ = CASES[case]
    m, name = build()
    assert name == f"{case}0"
    m.simulate(T_END, 5)
    assert m.is_compiled(t_end=T_END)
    before = _values(m)
    with m.batch():
        m.set(name, **edit)
        for body, values in body_edits.items():
            m.set(body, **values)
    after = _values(m)
    for field, v in edit.items():
        assert after[f"{name}.{field}"] == v and before.get(f"{name}.{field}") != v
        assert getattr(m.element(name), field) == v
    assert m.is_compiled(t_end=T_END)
    tr = m.simulate(T_END, 5)
    assert tr.n_points == 5
    assert m.is_compiled(t_end=T_END)


@pytest.mark.parametrize("case", [c for c in CASES if CASES[c][2] is not None])
def test_topology_edit_recompiles(case):
    build, _, edit = CASES[case]
    m, name = build()
    m.simulate(T_END, 5)
    key = m.topology_key()
    m.set(name, **edit)
    assert m.topology_key() != key
    assert not m.is_compiled(t_end=T_END)
    for field, v in edit.items():
        assert getattr(m.element(name), field) == v


@pytest.mark.parametrize("case", list(CASES))
def test_bodies_and_names_cannot_be_edited(case):
    m, name = CASES[case][0]()
    before = m.to_dict()
    el = m.element(name)
    body = next(f for f in ("bar", "bar_b", "body", "body_b") if hasattr(el, f))
    with pytest.raises(ValueError, match=f"{name}: '{body}' cannot be edited"):
        m.set(name, **{body: 0})
    with pytest.raises(ValueError, match=f"{name}: 'name' cannot be edited"):
        m.set(name, name="other")
    with pytest.raises(ValueError, match=f"{name}: a .* has no field 'bogus'"):
        m.set(name, bogus=1.0)
    assert m.to_dict() == before


def test_contact_restitution_edit_changes_the_rebound():
    """A bar falling flat from h: it meets the floor at sqrt(2 g h) and leaves at e times it."""
    h = 0.5
    m, name = contact_model(e=0.5, height=h)
    t_end = 0.5
    m.simulate(t_end, 5)
    m.set(f"{name}.restitution", 0.8)
    assert m.is_compiled(t_end=t_end)
    tr = m.simulate(t_end, 5)
    ev = next(e for e in tr.events if e["name"] == name and e["what"] == "impact")
    v = math.sqrt(2.0 * G * h)
    assert ev["approach_speed"] == pytest.approx(v, rel=1e-9)
    assert ev["state"][4] == pytest.approx(0.8 * v, rel=1e-9)  # vy after the impact


def test_active_is_a_runtime_flag():
    m, name = latch_model()
    m.simulate(T_END, 5)
    m.set(name, active=True)
    assert m.element(name).active is True and m.is_compiled(t_end=T_END)
    with pytest.raises(TypeError, match=f"{name}: active"):
        m.set(name, active="yes")


def test_derived_defaults_are_set_when_added():
    m, name = prismatic_model()
    assert m.element(name).phi0 == pytest.approx(math.pi / 2)
    m, name = slider_model()
    assert m.element(name).point == pytest.approx((0.5, 0.0))
    m, name = rolling_line_model()
    assert m.element(name).point == pytest.approx((0.0, 0.0)) and m.element(name).radius is None
    m, name = rolling_disc_model()
    assert m.element(name).centre_b == [0.0, 0.0]


def test_fields_declare_their_roles():
    specs = Contact.specs()
    assert specs["normal_angle"].topology and not specs["normal_angle"].sweepable
    assert specs["height"].differentiable and specs["height"].runtime
    assert not specs["restitution"].differentiable and specs["restitution"].sweepable
    assert specs["rest_speed"].lower == 0.0 and specs["rest_speed"].lower_open
    assert specs["active"].what == "flag" and specs["active"].runtime
    assert not specs["bar"].editable and not specs["name"].editable
    assert AngleStop.specs()["side"].topology and GroundSlider.specs()["angle"].topology
    assert RollingOnDisc.specs()["body_a"].what == "body_or_ground"
    assert {k.prefix for k in KINDS} == {"slot", "prismatic", "slider", "rolling", "disc",
                                         "latch", "stop", "contact"}


def test_differentiable_fields_are_runtime_parameters_of_the_same_name():
    """A differentiable number field is a leaf: the runtime parameter of its name is it."""
    m = every_kind_model()
    bodies = m.bodies
    for name, el in m.elements.items():
        if type(el) not in KINDS:
            continue
        pars = dict(el.parameters(bodies))
        for field, spec in el.specs().items():
            if spec.what == "number" and spec.differentiable:
                assert pars[(field,)] == getattr(el, field), (name, field)


# ------------------------------------------------------------------------------------------
# bad values
# ------------------------------------------------------------------------------------------

BAD_ADDS = [
    (lambda: PinInSlot(bar_a=0, bar_b=0, s_b=0.0), ValueError, "slot0: bar_a and bar_b"),
    (lambda: PinInSlot(bar_a=0, bar_b=1, s_b=0.9), ValueError, "slot0: s_b"),
    (lambda: PinInSlot(bar_a=0, bar_b=1, s_b=0.0, offset="x"), TypeError, "slot0: offset"),
    (lambda: PrismaticJoint(bar_a=0, bar_b=7), ValueError, "prismatic0: bar_b"),
    (lambda: PrismaticJoint(bar_a=0, bar_b=1, phi0=math.nan), ValueError,
     "prismatic0: phi0"),
    (lambda: GroundSlider(bar=0, s=0.0, angle=math.inf), ValueError, "slider0: angle"),
    (lambda: GroundSlider(bar=0, s=0.0, point=(1.0,)), ValueError, "slider0: point"),
    (lambda: RollingOnLine(body=0), ValueError, "rolling0: radius"),
    (lambda: RollingOnLine(body=0, radius=-1.0), ValueError, "rolling0: radius"),
    (lambda: RollingOnDisc(body_a=None, body_b=0, radius_a=1.0, radius_b=0.1), ValueError,
     "disc0: give centre_a"),
    (lambda: RollingOnDisc(body_a=1, body_b=1, radius_a=1.0, radius_b=0.1), ValueError,
     "disc0: body_a and body_b"),
    (lambda: Latch(bar_a=0, bar_b=1, angle=0.5), ValueError, "latch0: .*no common joint"),
    (lambda: Latch(bar_a=None, bar_b=1, angle=0.5), ValueError, "latch0: .*supported"),
    (lambda: Latch(bar_a=0, bar_b=1, angle="0.5"), TypeError, "latch0: angle"),
    (lambda: AngleStop(bar_a=0, bar_b=1, limit=0.3, side="up"), ValueError, "stop0: side"),
    (lambda: AngleStop(bar_a=0, bar_b=1, limit=0.3, restitution=2.0), ValueError,
     "stop0: restitution"),
    (lambda: Contact(bar=0, s=0.5, restitution=-0.1), ValueError, "contact0: restitution"),
    (lambda: Contact(bar=0, s=0.5, restitution="high"), TypeError, "contact0: restitution"),
    (lambda: Contact(bar=0, s=0.5, rest_speed=0.0), ValueError,
     "contact0: rest_speed must be positive"),
    (lambda: Contact(bar=0, s=0.5, active="on"), TypeError, "contact0: active"),
    (lambda: Contact(bar=0.5, s=0.5), TypeError, "contact0: bar"),
]


@pytest.mark.parametrize("make, exc, words", BAD_ADDS)
def test_bad_additions_name_the_element_and_field_and_leave_the_model(make, exc, words):
    m = qv.bar_joint_model()
    _bar(m, 0.0, 0.0, 0.0)
    _bar(m, 2.0, 0.0, 0.0)
    before = m.to_dict()
    with pytest.raises(exc, match=words):
        m.add(make())
    assert m.to_dict() == before


BAD_SETS = [
    ("slot", {"offset": math.nan}, ValueError, "offset"),
    ("slot", {"s_b": 2.0}, ValueError, "s_b"),
    ("prismatic", {"phi0": "a"}, TypeError, "phi0"),
    ("slider", {"point": "ab"}, TypeError, "point"),
    ("slider", {"angle": None}, TypeError, "angle"),
    ("rolling", {"radius": 0.0}, ValueError, "radius"),
    ("rolling", {"centre": "nowhere"}, ValueError, "centre"),
    ("disc", {"inside": True, "radius_a": 0.1}, ValueError, "must be smaller than the ring"),
    ("latch", {"angle": math.inf}, ValueError, "angle"),
    ("stop", {"side": None}, TypeError, "side"),
    ("stop", {"rest_speed": -1.0}, ValueError, "rest_speed"),
    ("contact", {"restitution": 1.5}, ValueError, "restitution"),
    ("contact", {"height": [1.0]}, TypeError, "height"),
]


@pytest.mark.parametrize("case, values, exc, words", BAD_SETS)
def test_bad_edits_name_the_element_and_field_and_leave_the_model(case, values, exc, words):
    m, name = CASES[case][0]()
    before = m.to_dict()
    with pytest.raises(exc, match=f"{name}: .*{words}"):
        m.set(name, **values)
    assert m.to_dict() == before


def test_deprecated_methods_build_the_same_elements():
    m = qv.bar_joint_model()
    _pendulum_pair(m)
    _bar(m, 3.0, 0.0, 0.0)
    with pytest.warns(PendingDeprecationWarning):
        assert m.add_contact(2, 0.5, restitution=0.3) == "contact0"
    with pytest.warns(PendingDeprecationWarning):
        assert m.add_latch(0, 1, 0.3) == "latch0"
    with pytest.warns(PendingDeprecationWarning):
        assert m.add_angle_stop(None, 0, 1.0, name="top") == "top"
    with pytest.warns(PendingDeprecationWarning):
        assert m.add_ground_slider(2, 0.5, 0.0) == "slider0"
    assert m.element("contact0") == Contact(bar=2, s=0.5, restitution=0.3, name="contact0")
    assert m.element("slider0").point == pytest.approx((3.5, 0.0))
    with pytest.warns(PendingDeprecationWarning):
        m.set_constraint_values("contact0", restitution=0.6)
    with pytest.warns(PendingDeprecationWarning):
        m.set_constraint_active("latch0", True)
    assert m.element("contact0").restitution == 0.6 and m.element("latch0").active
