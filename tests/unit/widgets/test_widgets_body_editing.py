"""Particles, rigid bodies, welds, links, body pins, rolling contacts and joint motors edited in
the Studio: what the sections *Bodies* and *Body joints & motors* build is
exactly what the model's façade methods build (``to_dict`` compared), undo restores the model,
delete removes, the edited model simulates as the façade-built one does, and every hostile
value is refused with a message naming the field while the model stays unchanged."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import heyoka as hy  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import traitlets  # noqa: E402

import quivira as qv  # noqa: E402
from quivira.examples import four_bar  # noqa: E402
from quivira_widgets import ModelEditor, Studio, _guard  # noqa: E402
from quivira_widgets._modelinfo import by_collection
from quivira_widgets.sections import BodiesSection, BodyJointsSection  # noqa: E402
from quivira_widgets.sections.base import GROUND, NEW  # noqa: E402


@pytest.fixture(autouse=True)
def work_in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _guard.UNEXPECTED.clear()
    yield
    assert not _guard.UNEXPECTED, _guard.UNEXPECTED


@pytest.fixture
def ed():
    e = ModelEditor(four_bar())
    yield e
    e.close()


def type_in(field, text: str) -> None:
    """Type ``text`` into a number field as a user does (parsed on Enter)."""
    field.text.value = text


def add_disc(ed, x, y, theta_deg=0.0, m=1.0, R=0.2, inertia=None) -> int:
    b = ed.bodies
    b.select.value = NEW
    b.kind.value = "disc"
    for f, v in ((b.x, x), (b.y, y), (b.theta, theta_deg), (b.mass, m), (b.radius, R)):
        type_in(f, repr(float(v)))
    type_in(b.inertia, "" if inertia is None else repr(float(inertia)))
    b.add_button.click()
    assert b.message.kind == "ok", b.message.text
    return ed.model.n_bars - 1


def add_particle(ed, x, y, m) -> int:
    b = ed.bodies
    b.kind.value = "particle"
    for f, v in ((b.x, x), (b.y, y), (b.mass, m)):
        type_in(f, repr(float(v)))
    b.add_button.click()
    assert b.message.kind == "ok", b.message.text
    return ed.model.n_bars - 1


def joint_fields(ed, kind, a, b, **values):
    """Choose the kind and bodies of a new element and type ``values`` into its fields."""
    s = ed.body_joints
    s.select.value = NEW
    s.kind.value = kind
    s.body_a.value = GROUND if a is None else a
    s.body_b.value = b
    for key, v in values.items():
        w = getattr(s, key)
        if hasattr(w, "text"):
            type_in(w, "" if v is None else repr(float(v)))
        else:
            w.value = v
    return s


# ====================================================================== bodies
def test_add_particle_disc_plate_and_body_as_the_facade_does(ed):
    m = ed.model
    ref = four_bar()
    before = m.to_dict()
    # a particle
    i = add_particle(ed, 0.4, -0.3, 0.5)
    assert i == ref.add_particle(0.4, -0.3, 0.5) == 3
    assert m.to_dict() == ref.to_dict()
    # a disc: empty inertia is the uniform disc's m R²/2
    i = add_disc(ed, 1.5, 2.0, 30.0, 2.0, 0.25)
    assert i == ref.add_body(1.5, 2.0, math.radians(30.0), 2.0, 0.5 * 2.0 * 0.25 ** 2,
                             {"kind": "disc", "radius": 0.25}) == 4
    assert m.to_dict() == ref.to_dict()
    assert m.bars[4].inertia == pytest.approx(0.0625, rel=1e-15)
    # a plate with an inertia typed in
    b = ed.bodies
    b.kind.value = "plate"
    for f, t in ((b.x, "-1"), (b.y, "0.5"), (b.theta, "-45"), (b.mass, "3"), (b.width, "0.6"),
                 (b.height, "0.1"), (b.inertia, "0.2")):
        type_in(f, t)
    assert ed.add_body() == 5
    ref.add_body(-1.0, 0.5, math.radians(-45.0), 3.0, 0.2,
                 {"kind": "plate", "width": 0.6, "height": 0.1})
    assert m.to_dict() == ref.to_dict()
    # a plate with empty inertia: m (w² + h²)/12
    for f, t in ((b.x, "2"), (b.y, "2"), (b.theta, "0"), (b.mass, "1.2"), (b.width, "0.5"),
                 (b.height, "0.3"), (b.inertia, "")):
        type_in(f, t)
    b.add_button.click()
    ref.add_body(2.0, 2.0, 0.0, 1.2, 1.2 * (0.5 ** 2 + 0.3 ** 2) / 12.0,
                 {"kind": "plate", "width": 0.5, "height": 0.3})
    assert m.to_dict() == ref.to_dict()
    # a rigid body without a shape needs its inertia
    b.kind.value = "none"
    for f, t in ((b.x, "0"), (b.y, "3"), (b.mass, "1"), (b.inertia, "0.01")):
        type_in(f, t)
    b.add_button.click()
    ref.add_body(0.0, 3.0, 0.0, 1.0, 0.01, None)
    assert m.to_dict() == ref.to_dict()
    # listed, with the bars too (one index for all bodies)
    labels = [label for label, _ in b.select.options]
    assert labels[1].startswith("particle 3 at (0.4, -0.3)")
    assert labels[2].startswith("disc 4 (r = 0.25 m)")
    assert labels[3].startswith("plate 5 (w = 0.6, h = 0.1 m)")
    assert len(labels) == 6
    assert [label for label, _ in ed.bars.select.options][4].startswith("particle 3")
    # undo, step by step, back to the four-bar
    for _ in range(5):
        ed.undo()
    assert m.to_dict() == before
    ed.redo()
    assert m.n_bars == 4 and m.body_kind(3) == "particle"


def test_edit_and_delete_a_body(ed):
    m = ed.model
    ref = four_bar()
    add_particle(ed, 0.4, -0.3, 0.5)
    d = add_disc(ed, 1.5, 2.0, 0.0, 1.0, 0.2)
    ref.add_particle(0.4, -0.3, 0.5)
    ref.add_body(1.5, 2.0, 0.0, 1.0, 0.5 * 0.2 ** 2, {"kind": "disc", "radius": 0.2})
    ref_inertia = m.bars[d].inertia
    b = ed.bodies
    b.select.value = 1  # the disc
    assert b.kind.disabled and b.radius.disabled and not b.mass.disabled
    type_in(b.x, "1.7")
    type_in(b.theta, "90")
    type_in(b.mass, "2")
    type_in(b.inertia, "0.05")
    ref.set_init_bar_attitude(d, 1.7, 2.0, math.radians(90.0))
    ref.set_bar_mass(d, 2.0)
    ref.set_body_inertia(d, 0.05)
    assert m.to_dict() == ref.to_dict()
    # empty inertia: back to the uniform disc's, of the new mass
    type_in(b.inertia, "")
    assert m.bars[d].inertia == pytest.approx(0.5 * 2.0 * 0.2 ** 2, rel=1e-15)
    assert ref_inertia != m.bars[d].inertia
    ref.set_body_inertia(d, 0.5 * 2.0 * 0.2 ** 2)
    # a particle: no angle or inertia to edit; its position moves
    b.select.value = 0
    assert b.theta.layout.display == "none" and b.inertia.layout.display == "none"
    type_in(b.y, "-0.35")
    ref.set_init_bar_attitude(3, 0.4, -0.35, 0.0)
    assert m.to_dict() == ref.to_dict()
    # a link to the particle goes with it
    m.add_distance(0, 0.5, 3, (0.0, 0.0), name="rod")
    b.select.value = 0
    b.delete_button.click()
    assert "deleted body 3" in b.message.text and "rod" in b.message.text
    ref.remove_bar(3)
    assert m.to_dict() == ref.to_dict()
    assert m.n_bars == 4 and m.body_kind(3) == "body"
    ed.undo()
    assert m.body_kind(3) == "particle" and by_collection(m)["distances"][0].name == "rod"


# ====================================================================== body joints
def _four_bar_with_bodies():
    """The four-bar, a disc (3) above the coupler's middle, a particle (4) and a disc (5)."""
    m = four_bar()
    m.add_body(1.5, 2.0, 0.0, 1.0, 0.5 * 0.2 ** 2, {"kind": "disc", "radius": 0.2})
    m.add_particle(0.4, -0.3, 0.5)
    m.add_body(-1.0, 1.0, 0.0, 2.0, 0.5 * 2.0 * 0.3 ** 2, {"kind": "disc", "radius": 0.3})
    return m


@pytest.fixture
def bodies_ed():
    e = ModelEditor(_four_bar_with_bodies())
    yield e
    e.close()


# kind, fields (a, b, values), the façade call on the reference model
JOINT_CASES = {
    "weld": (("weld", 1, 3, {"weld_x": 1.5, "weld_y": 1.8}),
             lambda r: r.add_weld(1, 3, (1.5, 1.8))),
    "weld at b's centre": (("weld", 2, 3, {"weld_x": None, "weld_y": None}),
                           lambda r: r.add_weld(2, 3)),
    "weld to ground": (("weld", None, 5, {}), lambda r: r.add_weld(None, 5)),
    "distance": (("distance", 1, 4, {"ua": 0.5, "va": 0.0, "ub": 0.0, "vb": 0.0,
                                     "length": None}),
                 lambda r: r.add_distance(1, (0.5, 0.0), 4, (0.0, 0.0))),
    "distance of given length from the ground": (
        ("distance", None, 3, {"ua": 1.5, "va": 3.0, "ub": 0.2, "vb": 0.0, "length": 1.1}),
        lambda r: r.add_distance(None, (1.5, 3.0), 3, (0.2, 0.0), 1.1)),
    "pin to the ground": (("pin", None, 5, {"ua": -1.0, "va": 1.0, "ub": 0.0, "vb": 0.0}),
                          lambda r: r.add_pin(None, (-1.0, 1.0), 5, (0.0, 0.0))),
    "pin of two bodies": (("pin", 3, 5, {"ua": -2.5, "va": -1.0, "ub": 0.0, "vb": 0.0}),
                          lambda r: r.add_pin(3, (-2.5, -1.0), 5, (0.0, 0.0))),
    "rolling on a line": (("rolling", None, 5, {"line_angle": -20.0, "line_x": None,
                                                "line_y": None, "radius_b": None}),
                          lambda r: r.add_rolling_on_line(5, math.radians(-20.0))),
    "rolling on a given line and radius": (
        ("rolling", None, 3, {"line_angle": 0.0, "line_x": 0.0, "line_y": 1.7,
                              "radius_b": 0.3}),
        lambda r: r.add_rolling_on_line(3, 0.0, (0.0, 1.7), radius=0.3)),
    "rolling on a ground circle": (
        ("disc", None, 5, {"inside": False, "radius_a": 1.0, "radius_b": None,
                           "circle_x": -1.0, "circle_y": -0.3}),
        lambda r: r.add_rolling_on_disc(None, 5, radius_a=1.0, centre_a=(-1.0, -0.3))),
    "rolling inside a disc": (("disc", 5, 3, {"inside": True, "radius_a": None,
                                              "radius_b": 0.1}),
                              lambda r: r.add_rolling_on_disc(5, 3, inside=True,
                                                              radius_b=0.1)),
    "motor at a pin joint": (
        ("motor", 0, 1, {"joint": 0, "law": "speed", "phi0": None, "omega": 0.8}),
        lambda r: r.add_joint_motor(0, (r.bars[1].pose[2] - r.bars[0].pose[2])
                                    + 0.8 * hy.time)),
    "oscillating motor of a body": (
        ("motor", None, 3, {"joint": NEW, "law": "sine", "phi0": 10.0, "omega": 3.0,
                            "amplitude": 30.0, "phase": 90.0}),
        lambda r: r.add_joint_motor(None, math.radians(10.0) + math.radians(30.0) * hy.sin(
            3.0 * hy.time + math.radians(90.0)), bodies=(None, 3))),
}


@pytest.mark.parametrize("case", list(JOINT_CASES))
def test_body_joint_added_as_the_facade_does_undone_and_deleted(bodies_ed, case):
    (kind, a, b, values), facade = JOINT_CASES[case]
    m = bodies_ed.model
    before = m.to_dict()
    ref = _four_bar_with_bodies()
    s = joint_fields(bodies_ed, kind, a, b, **values)
    name = bodies_ed.add_body_joint()
    assert s.message.kind == "ok", s.message.text
    assert name == facade(ref)
    assert m.to_dict() == ref.to_dict()
    # listed; the template is fresh again
    assert s.select.options[-1][0].startswith(f"{name}: ")
    assert s.selected == NEW
    # undo restores the model, redo repeats the edit
    bodies_ed.undo()
    assert m.to_dict() == before
    bodies_ed.redo()
    assert m.to_dict() == ref.to_dict()
    # delete removes it (one undo step again)
    s.select.value = len(s.select.options) - 2
    assert not s.delete_button.disabled and s.add_button.disabled
    s.delete_button.click()
    assert s.message.text == f"deleted {name}"
    assert m.to_dict() == before
    bodies_ed.undo()
    assert m.to_dict() == ref.to_dict()


def test_pin_b_on_a_puts_the_points_together(bodies_ed):
    m = bodies_ed.model
    s = joint_fields(bodies_ed, "pin", 2, 3, ua=1.25, va=0.0)
    assert "gap" in s.info.value
    s.match_button.click()
    b2, b3 = m.bars[2], m.bars[3]
    pa = np.array(b2.world(1.25, 0.0))
    pb = np.array(b3.world(s.ub.value, s.vb.value))
    assert np.allclose(pa, pb, atol=1e-11)
    assert "they coincide" in s.info.value
    name = s.add()
    assert name == "pin0", s.message.text
    pin = by_collection(m)["body_pins"][0]
    assert pin.body_a == 2 and pin.body_b == 3 and list(pin.point_a) == [1.25, 0.0]


def test_selected_link_length_is_edited_and_other_fields_are_fixed(bodies_ed):
    m = bodies_ed.model
    s = joint_fields(bodies_ed, "distance", 1, 4, ua=0.5, va=0.0, ub=0.0, vb=0.0)
    name = s.add()
    s.select.value = 0
    assert s.kind.disabled and s.body_a.disabled and s.ua.disabled and not s.length.disabled
    before = m.to_dict()
    type_in(s.length, "1.5")
    assert by_collection(m)["distances"][0].length == 1.5
    assert s.message.text == f"{name}: length 1.5 m"
    type_in(s.length, "-2")
    assert "length ℓ" in s.length.error
    type_in(s.length, "")
    assert s.message.kind == "error"
    assert by_collection(m)["distances"][0].length == 1.5
    bodies_ed.undo()
    assert m.to_dict() == before


def test_motor_offers_the_pin_joints(ed):
    s = ed.body_joints
    labels = [label for label, _ in s.joint.options]
    assert labels == ["— bodies a, b", "joint 0: bar 0, bar 1", "joint 1: bar 1, bar 2"]
    s.kind.value = "motor"
    s.joint.value = 1
    assert (s.body_a.value, s.body_b.value) == (1, 2)
    assert s.body_a.disabled and s.body_b.disabled
    s.kind.value = "weld"  # the joint is a motor's: other kinds choose their bodies
    assert not s.body_a.disabled and not s.body_b.disabled
    s.kind.value = "motor"
    assert s.body_a.disabled
    s.joint.value = NEW
    assert not s.body_a.disabled


# ====================================================================== simulation
@pytest.mark.filterwarnings("ignore:initial velocities violate")  # the motor starts at once
@pytest.mark.slow
def test_edited_model_simulates_as_the_facade_built_one():
    """A disc welded to the coupler, a particle hanging from the crank by a link, a disc
    rolling down a slope and a motor at the crank's pin: built in the Studio and by the façade,
    simulated by the player and by ``model.simulate`` — the same motion."""
    m = four_bar()
    s = Studio(m, backend="static", t_end=0.5, n_frames=26)
    try:
        ed = s.editor
        d = add_disc(ed, 1.5, 2.0, 0.0, 1.0, 0.2)
        p = add_particle(ed, 0.5, 0.0, 0.5)
        r = add_disc(ed, 4.0, 0.0, 0.0, 2.0, 0.3)
        for args in (("weld", 1, d, {"weld_x": None, "weld_y": None}),
                     ("distance", 0, p, {"ua": 0.5, "va": 0.0, "ub": 0.0, "vb": 0.0,
                                         "length": None}),
                     ("rolling", None, r, {"line_angle": -17.0, "line_x": None,
                                           "line_y": None, "radius_b": None}),
                     ("motor", None, 0, {"joint": NEW, "law": "speed", "phi0": None,
                                         "omega": 2.0})):
            kind, a, b, values = args
            joint_fields(ed, kind, a, b, **values)
            assert ed.add_body_joint() is not None, ed.body_joints.message.text
        ref = four_bar()
        ref.add_body(1.5, 2.0, 0.0, 1.0, 0.5 * 1.0 * 0.2 ** 2, {"kind": "disc", "radius": 0.2})
        ref.add_particle(0.5, 0.0, 0.5)
        ref.add_body(4.0, 0.0, 0.0, 2.0, 0.5 * 2.0 * 0.3 ** 2, {"kind": "disc", "radius": 0.3})
        ref.add_weld(1, 3)
        ref.add_distance(0, (0.5, 0.0), 4, (0.0, 0.0))
        ref.add_rolling_on_line(5, math.radians(-17.0))
        ref.add_joint_motor(None, ref.bars[0].pose[2] + 2.0 * hy.time, bodies=(None, 0))
        assert m.to_dict() == ref.to_dict()
        # drawn: the discs, the particle, the weld, the link and the rolling line
        layer = s.view.body_layer
        assert np.allclose(layer.disc_centres, [[1.5, 2.0], [4.0, 0.0]])
        assert np.allclose(layer.particle_xy, [[0.5, 0.0]])
        assert len(layer.weld_xy) == 1 and len(layer.distance_segments) == 1
        assert len(layer.rolling_lines) == 1
        s.player.simulate_button.click()
        tr = s.player.trajectory
        assert tr is not None, s.player.status.text
        want = ref.simulate(0.5, 26, max_wall_s=600.0, singular="stop")
        assert tr.q.shape == want.q.shape == (26, m.n_coordinates)
        np.testing.assert_allclose(tr.q, want.q, rtol=1e-9, atol=1e-12)
        # the motor turns the crank at 2 rad/s
        th0 = tr.q[:, m.body_coordinates(0)[2]]
        np.testing.assert_allclose(th0 - th0[0], 2.0 * tr.t, atol=1e-8)
        # the rolling disc rolled down the slope: x + R θ constant along the line
        cols = m.body_coordinates(5)
        t = np.array([math.cos(math.radians(-17.0)), math.sin(math.radians(-17.0))])
        roll = tr.q[:, cols[:2]] @ t + 0.3 * tr.q[:, cols[2]]
        assert np.ptp(roll) < 1e-8 and tr.q[-1, cols[0]] > 4.0 + 1e-3
        # a removal through the editor: the player simulates the smaller model
        ed.bodies.select.value = 1  # the particle (body 4) and its link
        ed.bodies.delete_button.click()
        ref.remove_bar(4)
        assert m.to_dict() == ref.to_dict()
        s.player.simulate_button.click()
        want = ref.simulate(0.5, 26, max_wall_s=600.0, singular="stop")
        np.testing.assert_allclose(s.player.trajectory.q, want.q, rtol=1e-9, atol=1e-12)
    finally:
        s.close()


@pytest.mark.slow
def test_saved_and_loaded_model_keeps_what_the_editor_added(bodies_ed):
    m = bodies_ed.model
    joint_fields(bodies_ed, "weld", 1, 3, weld_x=None, weld_y=None)
    bodies_ed.add_body_joint()
    joint_fields(bodies_ed, "motor", 0, 1, joint=0, law="sine", phi0=None, omega=1.0,
                 amplitude=20.0, phase=0.0)
    assert bodies_ed.add_body_joint() == "motor0", bodies_ed.body_joints.message.text
    again = qv.BarJointModel.from_dict(m.to_dict())
    assert again.to_dict() == m.to_dict()
    fresh = ModelEditor(again)
    try:
        labels = [label for label, _ in fresh.body_joints.select.options]
        assert labels[1] == "weld0: disc 3 welded to bar 1"
        assert labels[2].startswith("motor0: θ of bar 1 − θ of bar 0 = ")
        fresh.body_joints.select.value = 1
        assert "sin" in fresh.body_joints.info.value
    finally:
        fresh.close()


# ====================================================================== hostile values
def _refused(ed, section, click, *words):
    m = ed.model
    before = m.to_dict()
    click()
    msg = section.message
    assert msg.kind == "error", msg.text
    for w in words:
        assert w in msg.text, (w, msg.text)
    assert m.to_dict() == before


@pytest.mark.parametrize("field, text, words", [
    ("x", "abc", ("x in m", "'abc'")),
    ("y", "nan", ("y in m", "'nan'")),
    ("theta", "inf", ("θ in °", "'inf'")),
    ("mass", "-1", ("mass in kg", "a positive number")),
    ("mass", "0", ("mass in kg",)),
    ("inertia", "-0.5", ("inertia I",)),
    ("radius", "1e400", ("radius R", "too large")),
    ("radius", "", ("radius R", "empty")),
    ("x", "1e7", ("x in m", "at most 1e+06")),
])
def test_hostile_body_field_is_refused_and_named(ed, field, text, words):
    b = ed.bodies
    b.kind.value = "disc"
    type_in(getattr(b, field), text)
    assert getattr(b, field).error
    _refused(ed, b, b.add_button.click, "correct the marked field first", *words)


def test_hostile_plate_and_shapeless_body(ed):
    b = ed.bodies
    b.kind.value = "plate"
    type_in(b.height, "-0.1")
    _refused(ed, b, b.add_button.click, "height h")
    b.kind.value = "none"
    type_in(b.inertia, "")
    _refused(ed, b, b.add_button.click, "inertia I", "needs a number")


def test_nan_set_from_code_is_refused(ed):
    b = ed.bodies
    b.mass.value = float("nan")
    assert "mass in kg" in b.mass.error
    _refused(ed, b, b.add_button.click, "mass in kg")


def test_hostile_edit_of_a_selected_body_leaves_it(bodies_ed):
    b = bodies_ed.bodies
    b.select.value = 0
    m = bodies_ed.model
    before = m.to_dict()
    for field, text in ((b.mass, "-3"), (b.inertia, "0"), (b.x, "abc"), (b.theta, "nan")):
        type_in(field, text)
        assert field.error
        assert m.to_dict() == before


@pytest.mark.parametrize("kind, a, b, values, words", [
    ("distance", 1, 4, {"ua": "abc"}, ("u of point a",)),
    ("distance", 1, 4, {"vb": "nan"}, ("v of point b",)),
    ("distance", 1, 4, {"length": "0"}, ("length ℓ",)),
    ("distance", 1, 4, {"length": "-1"}, ("length ℓ",)),
    ("weld", 1, 3, {"weld_x": "inf"}, ("weld x",)),
    ("rolling", None, 3, {"line_angle": "1e400"}, ("line angle α",)),
    ("rolling", None, 3, {"radius_b": "-0.2"}, ("radius b",)),
    ("disc", None, 3, {"circle_y": "x"}, ("circle y",)),
    ("motor", 0, 1, {"omega": "1e5"}, ("ω in rad/s", "at most 10000")),
    ("motor", 0, 1, {"phi0": "nan"}, ("φ0",)),
])
def test_hostile_body_joint_field_is_refused_and_named(bodies_ed, kind, a, b, values, words):
    s = joint_fields(bodies_ed, kind, a, b)
    for key, text in values.items():
        type_in(getattr(s, key), text)
        assert getattr(s, key).error
    _refused(bodies_ed, s, s.add_button.click, "correct the marked field first", *words)


@pytest.mark.parametrize("kind, a, b, values, words", [
    # a link of length zero: the points coincide
    ("distance", None, 4, {"ua": 0.4, "va": -0.3, "ub": 0.0, "vb": 0.0, "length": None},
     ("distance0", "coincide", "length")),
    # a particle cannot be welded, driven or roll
    ("weld", 1, 4, {}, ("body_b", "particle")),
    ("motor", None, 4, {"joint": NEW}, ("body_b", "particle")),
    ("rolling", None, 4, {}, ("body", "particle")),
    # the same body twice
    ("weld", 3, 3, {}, ("body_a and body_b are the same body",)),
    # a bar is not a disc: give the radius
    ("rolling", None, 2, {"radius_b": None}, ("radius", "not a disc")),
    # a ground circle without a radius
    ("disc", None, 3, {"radius_a": None}, ("radius a", "ground circle")),
    # half a weld point
    ("weld", 1, 3, {"weld_x": 1.0, "weld_y": None}, ("weld y", "both x and y")),
    # pin points apart
    ("pin", 1, 3, {"ua": 0.0, "va": 0.0, "ub": 0.0, "vb": 0.0}, ("pin0", "apart")),
])
def test_invalid_element_is_refused_with_the_core_message(bodies_ed, kind, a, b, values, words):
    s = joint_fields(bodies_ed, kind, a, b, **values)
    _refused(bodies_ed, s, s.add_button.click, *words)


def test_a_body_that_does_not_exist_cannot_be_chosen(bodies_ed):
    s = bodies_ed.body_joints
    m = bodies_ed.model
    before = m.to_dict()
    with pytest.raises(traitlets.TraitError):
        s.body_b.value = 99
    with pytest.raises(traitlets.TraitError):
        s.body_a.value = 6
    # a body removed elsewhere disappears from the choices
    m.remove_bar(5)
    assert [v for _, v in s.body_b.options] == [0, 1, 2, 3, 4]
    assert s.body_b.value in (0, 1, 2, 3, 4)
    m.replace_with(qv.BarJointModel.from_dict(before))
    # an empty model: no body to choose
    empty = ModelEditor(qv.BarJointModel())
    try:
        sec = empty.body_joints
        assert sec.body_b.value is None
        _refused(empty, sec, sec.add_button.click, "body b", "add a body first")
    finally:
        empty.close()


def test_stale_body_index_is_refused(bodies_ed):
    """A body index the model no longer has (the section out of step) is refused."""
    s = joint_fields(bodies_ed, "weld", 1, 5)
    m = bodies_ed.model
    m.unobserve(bodies_ed._on_model_change)  # the section does not hear of the removal
    try:
        m.remove_bar(5)
        _refused(bodies_ed, s, s.add_button.click, "body b", "0 to 4")
    finally:
        m.observe(bodies_ed._on_model_change)


def test_css_classes_differ_from_the_sliders_section(ed):
    """The browser finds each section's controls by class: no two sections share one."""
    sj, sl = ed.body_joints, ed.sliders
    assert "quivira-add-element" in sl.add_button._dom_classes
    for a, b in ((sj.select, sl.select), (sj.add_button, sl.add_button),
                 (sj.delete_button, sl.delete_button)):
        assert not set(a._dom_classes) & set(b._dom_classes)
    assert "quivira-add-body-joint" in sj.add_button._dom_classes


def test_sections_work_alone(bodies_ed):
    """The sections are usable without the editor, as the other sections are."""
    m = _four_bar_with_bodies()
    b, j = BodiesSection(m), BodyJointsSection(m)
    try:
        b.refresh()
        j.refresh()
        assert len(b.items()) == 3 and j.items() == []
        j.kind.value = "weld"
        j.body_a.value, j.body_b.value = GROUND, 3
        assert j.add() == "weld0"
    finally:
        b.close()
        j.close()
