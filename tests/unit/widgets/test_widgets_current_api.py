"""The widgets use the model's current API only, and every kind of the registry has a form.

The Studio's panels are driven as a student would (typing into the fields, choosing in the
dropdowns, clicking Add and Delete) with PendingDeprecationWarning turned into an error: a
call of an earlier member of the model (``model.joints``, ``add_spring_damper``, ...) from
the widgets fails the test. The model edited in the panels is compared with a model built in
code with the generic API (``model.add``, ``model.set``, ``model.remove``), the oracle.
"""

from __future__ import annotations

import dataclasses
import json
import math
import warnings

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from quivira import BarJointModel  # noqa: E402
from quivira.elements import (  # noqa: E402
    KINDS,
    Contact,
    CoordinateConstraint,
    KnifeEdge,
    Latch,
    SpringDamper,
    TorsionalSpring,
    UserConstraint,
    fields_of,
)
from quivira_widgets import ModelEditor, Studio  # noqa: E402
from quivira_widgets.sections.base import GROUND  # noqa: E402


def type_into(field, text: str) -> None:
    """Type ``text`` and press Enter, as in the browser."""
    field.text.value = text


def data(model: BarJointModel) -> dict:
    """The model's data as the core writes it (JSON round trip: plain comparable data)."""
    return json.loads(json.dumps(model.to_dict(), default=str))


def three_bars() -> BarJointModel:
    """A four-bar linkage written with the contract's methods only (no earlier members)."""
    m = BarJointModel()
    m.add_bar_from_point_pair((0.0, 0.0), (0.5, 0.866))
    m.add_bar_from_point_pair((0.5, 0.866), (3.0, 2.0))
    m.add_bar_from_point_pair((3.0, 0.0), (3.0, 2.0))
    m.add_joint([0, 1], [0.5, -0.5])
    m.add_joint([1, 2], [0.5, 0.5])
    m.add_support(0, -0.5, False, False)
    m.add_support(2, -0.5, False, False)
    return m


@pytest.fixture(params=["error", "record"])
def no_earlier_members(request):
    """No PendingDeprecationWarning (an earlier member of the model) is raised.

    ``error``: each one is an exception; ``record``: each one is recorded and the test fails
    at its end if there is one (a widget handler that shows an exception in its section
    cannot hide it).
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("error" if request.param == "error" else "always",
                              PendingDeprecationWarning)
        yield
    earlier = [f"{w.filename}:{w.lineno}: {w.message}" for w in caught
               if issubclass(w.category, PendingDeprecationWarning)]
    assert earlier == []


@pytest.fixture
def editor():
    """``(model, editor)``: a ModelEditor of :func:`three_bars` (closed afterwards)."""
    m = three_bars()
    ed = ModelEditor(m)
    yield m, ed
    ed.close()


def _generic(section, kind: type, values: dict) -> str | None:
    """Fill the generic form of ``kind`` with ``values`` (text for numbers) and click Add."""
    section.kind.value = kind
    section.select.value = -1
    for name, v in values.items():
        ed = section.editors[name]
        if ed.fields and ed.spec.what != "point":
            type_into(ed.fields[0], v)
        elif ed.spec.what == "point":
            type_into(ed.fields[0], v[0])
            type_into(ed.fields[1], v[1])
        elif ed.spec.what in ("body", "body_or_ground"):
            ed.widget.value = GROUND if v is None else v
        else:
            ed.widget.value = v
    return section.add()


def test_panels_build_the_model_of_the_generic_api(no_earlier_members):
    """Adding, editing and removing elements of many kinds in the Studio = the same in code."""
    m = three_bars()
    oracle = three_bars()
    s = Studio(m)
    ed = s.editor
    history = ed.toolbar.history

    # bars: a length and a mass
    ed.bar_select.value = 1
    type_into(ed.bar_length, "2.5")
    oracle.set("bar1", length=2.5)
    assert history.undo_label == "bar length"
    ed.bar_select.value = 0
    type_into(ed.bar_mass, "1.75")
    oracle.set("bar0", mass=1.75)
    assert history.undo_label == "bar mass"

    # a support's x, a joint's points
    ed.support_select.value = 1
    type_into(ed.support_x, "3.25")
    oracle.set("support1", x=3.25)
    ed.joint_select.value = 1
    type_into(ed.joint_s, "0.5, 0.4")
    oracle.set("joint1", s=[0.5, 0.4])

    # springs: a spring-damper bar 0 – bar 2, then its stiffness; a torsional spring
    ed.spring_kind.value = "spring"
    ed.spring_bar_a.value = 0
    type_into(ed.spring_s_a, "0.25")
    ed.spring_end_b.value = 2
    type_into(ed.spring_s_b, "0")
    type_into(ed.spring_k, "80")
    type_into(ed.spring_l0, "2")
    type_into(ed.spring_c, "1.5")
    ed.add_spring_button.click()
    assert ed.messages["springs"].text == "added spring0"
    oracle.add(SpringDamper(bar_a=0, s_a=0.25, bar_b=2, s_b=0.0, k=80.0, l0=2.0, c=1.5))
    ed.spring_select.value = 0
    type_into(ed.spring_k, "120")
    oracle.set("spring0", k=120.0)
    assert history.undo_label == "spring stiffness"
    ed.spring_select.value = -1
    ed.spring_kind.value = "torsion"
    ed.torsion_a.value, ed.torsion_b.value = GROUND, 2
    type_into(ed.torsion_k, "7")
    type_into(ed.torsion_phi0, "90")
    ed.add_spring_button.click()
    oracle.add(TorsionalSpring(bar_a=None, bar_b=2, k=7.0, phi0=math.radians(90.0)))

    # kinds without a section of their own: the generic form
    gen = ed.elements
    assert _generic(gen, KnifeEdge, {"bar": 1, "s": "0.25"}) == "knife0", gen.message_text()
    oracle.add(KnifeEdge(bar=1, s=0.25))
    assert _generic(gen, CoordinateConstraint, {
        "bar0": None, "bar1": 2, "X1": "[1.0, 0.0, 0.0]", "offset": "[3.0]",
        "velocity_level": True}) == "coordinate0", gen.message_text()
    oracle.add(CoordinateConstraint(bar0=None, bar1=2, X1=[1.0, 0.0, 0.0], offset=[3.0],
                                    velocity_level=True))
    assert _generic(gen, UserConstraint, {"exprs": "vx1 - 0.5 * vy1", "velocity_level": True,
                                          "name": "rail"}) == "rail", gen.message_text()
    (vx1, vy1, _), = oracle.variables(1)[1:]
    oracle.add(UserConstraint(exprs=[vx1 - 0.5 * vy1], velocity_level=True, name="rail"))
    assert _generic(gen, Contact, {"bar": 2, "s": "0.5", "height": "-0.5",
                                   "restitution": "0.25"}) == "contact0", gen.message_text()
    oracle.add(Contact(bar=2, s=0.5, height=-0.5, restitution=0.25))
    assert _generic(gen, Latch, {"bar_a": 0, "bar_b": 1, "angle": "0.5"}) == "latch0"
    oracle.add(Latch(bar_a=0, bar_b=1, angle=0.5))

    # edits in the generic form: model.set by field, labelled by the declared field
    gen.kind.value = Contact
    gen.select.value = "contact0"
    type_into(gen.editors["restitution"].fields[0], "0.75")
    oracle.set("contact0", restitution=0.75)
    assert history.undo_label == "contact restitution"
    gen.kind.value = KnifeEdge
    gen.select.value = "knife0"
    type_into(gen.editors["s"].fields[0], "-0.125")
    oracle.set("knife0", s=-0.125)

    # removals: in the generic form and in a section
    gen.kind.value = Latch
    gen.select.value = "latch0"
    gen.delete_button.click()
    oracle.remove("latch0")
    ed.spring_select.value = 1
    ed.delete_spring_button.click()
    oracle.remove("torsion0")

    assert data(m) == data(oracle)
    s.close()


def test_every_kind_of_the_registry_has_a_form():
    """One editor per declared field, for every kind, with its label and unit."""
    ed = ModelEditor(three_bars())
    gen = ed.elements
    assert [k for _, k in gen.kind.options] == list(KINDS)
    for kind in KINDS:
        gen.kind.value = kind
        declared = [f["field"] for f in fields_of(kind)]
        assert list(gen.editors) == declared, kind
        for f in fields_of(kind):
            e = gen.editors[f["field"]]
            if e.spec.what == "number":
                assert e.fields[0].description == f["label"]
                assert e.fields[0].spec.unit == f["unit"]
    ed.close()


def test_a_kind_added_to_the_registry_later_gets_a_form(monkeypatch):
    """A kind declared with fields and registered appears with its form, no widget edit."""
    from quivira.model.elements import base, fields

    @dataclasses.dataclass
    class Anchor(base.Constraint):
        """A made-up kind: a bar held at a height."""

        bar: int = fields.body("bar", "the bar")
        height: float = fields.number("height", "m", "the height", lower=0.0, default=1.0)
        side: str = fields.choice("side", ("up", "down"), default="up")
        name: str | None = fields.name(default=None)

        kind = "anchor"
        collection = "anchors"
        title = "anchor"
        prefix = "anchor"

    import quivira.elements

    monkeypatch.setattr(quivira.elements, "KINDS", (*KINDS, Anchor))
    ed = ModelEditor(three_bars())
    gen = ed.elements
    assert ("anchor", Anchor) in list(gen.kind.options)
    gen.kind.value = Anchor
    assert list(gen.editors) == ["bar", "height", "side", "name"]
    assert gen.editors["height"].fields[0].spec.unit == "m"
    assert [v for _, v in gen.editors["bar"].widget.options] == [0, 1, 2]
    assert list(gen.editors["side"].widget.options) == ["up", "down"]
    type_into(gen.editors["height"].fields[0], "-1")
    assert "at least 0" in gen.editors["height"].error
    ed.close()


@pytest.mark.parametrize("text", ["abc", "nan", "NaN", "inf", "-inf", "1e400", "-3", ""])
def test_hostile_values_in_the_generic_form_leave_the_model_unchanged(text,
                                                                       no_earlier_members):
    """A refused value is said next to the field and in the section; nothing changes."""
    m = three_bars()
    m.add(SpringDamper(bar_a=0, s_a=0.0, bar_b=2, s_b=0.0, k=50.0))
    ed = ModelEditor(m)
    gen = ed.elements
    before = data(m)
    # adding: k of a new spring-damper
    gen.kind.value = SpringDamper
    gen.select.value = -1
    k = gen.editors["k"]
    type_into(k.fields[0], text)
    assert k.error, text
    assert gen.add() is None
    assert "correct the marked field first" in gen.message_text()
    assert data(m) == before
    # editing: k of the spring
    gen.select.value = "spring0"
    type_into(k.fields[0], text)
    assert k.error and k.fields[0].text.value == text
    assert data(m) == before
    ed.close()


def test_model_refusals_in_the_generic_form_are_shown_at_the_field(editor, no_earlier_members):
    """A value the model refuses (a body out of range, a bad expression) changes nothing."""
    m, ed = editor
    gen = ed.elements
    before = data(m)
    assert _generic(gen, UserConstraint, {"exprs": "__import__('os')"}) is None
    assert "not allowed" in gen.editors["exprs"].error
    assert _generic(gen, UserConstraint, {"exprs": "x7 + 1"}) is None
    assert "unknown name 'x7'" in gen.message_text()
    assert _generic(gen, CoordinateConstraint, {"bar0": 0, "bar1": 1, "X0": "[1, 2]"}) is None
    assert "X0" in gen.message_text()
    assert data(m) == before


def test_weld_and_pin_use_the_kinds_own_logic(editor, no_earlier_members):
    """The weld point goes into each frame (Weld.at_point); a pin apart is refused."""
    from quivira.elements import BodyPin, Weld

    m, ed = editor
    bj = ed.body_joints
    bj.kind.value = "weld"
    bj.body_a.value, bj.body_b.value = 0, 1
    type_into(bj.weld_x, "0.5")
    type_into(bj.weld_y, "0.866")
    assert bj.add() == "weld0", bj.message.text
    oracle = three_bars()
    oracle.add(Weld.at_point(oracle.bodies, 0, 1, (0.5, 0.866)))
    assert data(m) == data(oracle)
    w = m.element("weld0")
    b0, b1 = m.bodies[:2]
    assert b0.world(*w.point_a) == pytest.approx((0.5, 0.866), abs=1e-12)
    assert b1.world(*w.point_b) == pytest.approx((0.5, 0.866), abs=1e-12)
    pin = BodyPin(body_a=0, point_a=(0.0, 0.0), body_b=2, point_b=(0.0, 0.0))
    with pytest.raises(ValueError, match="apart in the initial pose"):
        pin.check_coincident(m.bodies, m.tolerance, "pin0")

