"""The Studio's sliders, latches, stops and contacts.

Every check compares the widgets with numbers computed here from the model's data and the
trajectory with numpy (bar points ``c + s L (cos θ, sin θ)``, slot lines shifted along the
guide's normal, rays at ``θ_a + φ``), or with the physics the element must obey (a pin on its
slot line, a contact point above its floor, a latched hinge at its latch angle, a stop's
rebound at ``e`` times the approach speed) — never with a number the widgets printed.
"""

from __future__ import annotations

import math
import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import quivira as qv  # noqa: E402
from quivira_widgets import ModelView, MotionPlayer, Studio  # noqa: E402
from quivira_widgets._playback import log_html  # noqa: E402
from quivira_widgets.sections.base import GROUND, NEW  # noqa: E402

warnings.filterwarnings("ignore", category=UserWarning)


# ------------------------------------------------------------------------------------------
# models
# ------------------------------------------------------------------------------------------

def slider_crank(guide: str = "ground", offset: float = 0.0) -> qv.BarJointModel:
    """Crank 0 (0.3 m) pinned at the origin, rod 1 (0.9 m), block 2 on the x axis guided by
    ``guide``: a ground slider, or a pin-in-slot / prismatic joint on a fixed guide bar 3
    (a slot line ``offset`` above the guide bar's axis)."""
    r, rod, phi = 0.3, 0.9, 1.0
    A = np.array([r * math.cos(phi), r * math.sin(phi)])
    B = np.array([A[0] + math.sqrt(rod * rod - (A[1] - offset) ** 2), offset])
    m = qv.BarJointModel()
    m.add_bar_from_point_pair((0.0, 0.0), tuple(A))
    m.add_bar_from_point_pair(tuple(A), tuple(B))
    m.add_bar_from_point_pair(tuple(B - (0.1, 0.0)), tuple(B + (0.1, 0.0)))
    m.add_support(0, -0.5, False, False)
    m.add_joint([0, 1], [0.5, -0.5])
    m.add_joint([1, 2], [0.5, 0.0])
    if guide == "ground":
        m.add_ground_slider(2, 0.0, 0.0, name="guide")
        return m
    m.add_bar_from_point_pair((0.3, 0.0), (1.6, 0.0))
    m.add_support(3, 0.0, False, False)
    m.add_coordinate_constraint(None, 3, X1=[[0, 0, 1]], offset=[0.0], name="guide angle")
    if guide == "prismatic":
        m.add_prismatic_joint(3, 2, 0.0, offset, name="guide")
    else:
        m.add_pin_in_slot(3, 2, 0.0, offset, name="guide")
    return m


def double_pendulum() -> qv.BarJointModel:
    """Bar 0 (1 m) pinned at the origin, bar 1 (0.8 m) hinged at its end, released flat:
    the relative angle θ1 − θ0 grows from 0 to about 43° in 0.4 s."""
    m = qv.BarJointModel()
    m.add_bar_from_point_pair((0.0, 0.0), (1.0, 0.0))
    m.add_bar_from_point_pair((1.0, 0.0), (1.8, 0.0))
    m.add_support(0, -0.5, False, False)
    m.add_joint([0, 1], [0.5, -0.5])
    return m


def points(q: np.ndarray, lengths: np.ndarray, bar: int, s: float) -> np.ndarray:
    """The point ``s`` of ``bar`` for coordinates ``q`` (one row per time when 2-D)."""
    q = np.atleast_2d(q)
    x, y, th = q[:, 3 * bar], q[:, 3 * bar + 1], q[:, 3 * bar + 2]
    sl = s * lengths[bar]
    return np.stack([x + sl * np.cos(th), y + sl * np.sin(th)], axis=1)


def lengths_of(m: qv.BarJointModel) -> np.ndarray:
    return np.array([b.length for b in m.bars])


def unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


# ------------------------------------------------------------------------------------------
# drawing
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("guide", ["slot", "prismatic"])
@pytest.mark.slow
def test_slot_is_drawn_along_the_guide_bar_and_the_pin_stays_on_it(guide):
    e = 0.05
    m = slider_crank(guide, offset=e)
    L = lengths_of(m)
    p = MotionPlayer(m, backend="static", t_end=0.6, n_frames=31)
    layer = p.view.switch_layer
    q0 = np.array([c for b in m.bars for c in b.pose])
    n3 = np.array([-math.sin(q0[11]), math.cos(q0[11])])
    want = np.stack([points(q0, L, 3, -0.5)[0], points(q0, L, 3, 0.5)[0]]) + e * n3
    assert layer.slot_names == ["guide"]
    assert np.allclose(layer.slot_lines[0], want, atol=1e-12)
    tr = p.simulate()
    assert tr is not None and tr.n_points == 31
    for k in (10, 30):
        p.show_frame(k)
        q = tr.q[k]
        n3 = np.array([-math.sin(q[11]), math.cos(q[11])])
        want = np.stack([points(q, L, 3, -0.5)[0], points(q, L, 3, 0.5)[0]]) + e * n3
        assert np.allclose(layer.slot_lines[0], want, atol=1e-12)
        pin = points(q, L, 2, 0.0)[0]
        assert np.allclose(layer.pins[0], pin, atol=1e-12)
        # the pin is on the drawn slot line (the constraint holds in the drawing)
        a, b = layer.slot_lines[0]
        d = b - a
        assert abs(d[0] * (pin - a)[1] - d[1] * (pin - a)[0]) / np.linalg.norm(d) < 1e-8
    # the groove is drawn: a closed outline around the slot line, in the axes
    xs, ys = layer.slot_line.get_data()
    assert np.isfinite(xs).sum() == 5
    if guide == "prismatic":
        assert np.isfinite(layer.sleeve_line.get_data()[0]).sum() == 5
        assert len(layer.pin_markers.get_data()[0]) == 0
    else:
        assert np.allclose(np.column_stack(layer.pin_markers.get_data()), layer.pins[:1])
    p.close()


@pytest.mark.slow
def test_ground_slider_rail_holds_the_whole_motion():
    m = slider_crank("ground")
    L = lengths_of(m)
    gs = m.element("guide")
    p = MotionPlayer(m, backend="static", t_end=1.0, n_frames=51)
    tr = p.simulate()
    p.show_frame(25)
    a, b = p.view.switch_layer.guide_lines[0]
    u = np.array([math.cos(gs.angle), math.sin(gs.angle)])
    P = np.array(gs.point)
    for end in (a, b):  # the rail's ends are on the guide line
        assert abs(u[0] * (end - P)[1] - u[1] * (end - P)[0]) < 1e-12
    # every position of the sliding point over the motion lies on the drawn rail
    track = points(tr.q, L, gs.bar, gs.s)
    t = (track - a) @ unit(b - a)
    assert t.min() > 0 and t.max() < np.linalg.norm(b - a)
    assert np.abs((track - P) @ np.array([-u[1], u[0]])).max() < 1e-8
    p.close()


def test_angle_stop_and_latch_rays_point_where_bar_b_lies_at_their_angle():
    m = double_pendulum()
    m.add_angle_stop(0, 1, math.radians(60.0), "max", 0.5, name="elbow stop")
    m.add_angle_stop(None, 0, math.radians(-120.0), "min", 0.0, name="shoulder stop")
    m.add_latch(0, 1, math.radians(30.0), name="elbow latch")
    v = ModelView(m, backend="static")
    layer = v.switch_layer
    L = lengths_of(m)
    q0 = np.array([c for b in m.bars for c in b.pose])
    elbow = points(q0, L, 0, 0.5)[0]
    shoulder = points(q0, L, 0, -0.5)[0]
    # elbow: the hinge at the joint, bar 1 leaves it forwards (s = -0.5): θ0 + limit
    assert layer.stop_names == ["elbow stop", "shoulder stop"]
    assert np.allclose(layer.stop_rays[0, 0], elbow, atol=1e-12)
    ang = q0[2] + math.radians(60.0)
    assert np.allclose(unit(layer.stop_rays[0, 1] - elbow), [math.cos(ang), math.sin(ang)])
    # shoulder (to ground): at bar 0's support, ray at the limit from the x axis
    assert np.allclose(layer.stop_rays[1, 0], shoulder, atol=1e-12)
    ang = math.radians(-120.0)
    assert np.allclose(unit(layer.stop_rays[1, 1] - shoulder), [math.cos(ang), math.sin(ang)])
    assert np.allclose(layer.latch_rays[0, 0], elbow, atol=1e-12)
    ang = q0[2] + math.radians(30.0)
    assert np.allclose(unit(layer.latch_rays[0, 1] - elbow), [math.cos(ang), math.sin(ang)])
    assert not layer.latched[0]
    assert len(layer.lock_markers.get_data()[0]) == 0
    v.close()


@pytest.mark.slow
def test_latch_turns_latched_at_its_event_and_then_lies_along_bar_b():
    m = double_pendulum()
    m.add_latch(0, 1, math.radians(30.0), name="elbow latch")
    p = MotionPlayer(m, backend="static", t_end=1.0, n_frames=101)
    tr = p.simulate()
    L = lengths_of(m)
    latched = [ev for ev in tr.events if ev["what"] == "latched"]
    assert len(latched) == 1
    t_l = latched[0]["t"]
    phi = tr.q[:, 5] - tr.q[:, 2]
    layer = p.view.switch_layer
    for k in range(0, tr.n_points, 7):
        p.show_frame(k)
        assert bool(layer.latched[0]) == (tr.t[k] >= t_l)
        xs, _ = layer.lock_markers.get_data()
        assert len(xs) == (1 if tr.t[k] >= t_l else 0)
        closed = np.isfinite(layer.latch_closed_line.get_data()[0]).any()
        assert closed == (tr.t[k] >= t_l)
        if tr.t[k] > t_l:
            # latched: the hinge holds the latch angle, and the ray lies along bar 1
            assert abs(phi[k] - math.radians(30.0)) < 1e-8
            d = unit(points(tr.q[k], L, 1, 0.5)[0] - points(tr.q[k], L, 1, -0.5)[0])
            assert np.allclose(unit(layer.latch_rays[0, 1] - layer.latch_rays[0, 0]), d,
                               atol=1e-8)
    p.close()


@pytest.mark.slow
def test_floor_line_is_n_dot_p_equal_h_and_contact_points_stay_above():
    m = qv.BarJointModel()
    m.add_bar_at_attitude(0.0, 0.6, 0.5, 1.0, 2.0)
    h = 0.1
    m.add_contact(0, -0.5, height=h, restitution=0.5, name="floor left")
    m.add_contact(0, 0.5, height=h, restitution=0.5, name="floor right")
    m.add_contact(0, 0.5, height=-0.6, normal_angle=0.0, name="wall")  # x >= -0.6
    p = MotionPlayer(m, backend="static", t_end=0.8, n_frames=81)
    tr = p.simulate()
    assert tr.n_points == 81 and tr.t[-1] == pytest.approx(0.8, abs=1e-12)
    layer = p.view.switch_layer
    L = lengths_of(m)
    for k, ct in enumerate(m.element(n) for n in ("floor left", "floor right", "wall")):
        nvec = np.array([math.cos(ct.normal_angle), math.sin(ct.normal_angle)])
        a, b = layer.floor_lines[k]
        assert abs(a @ nvec - ct.height) < 1e-12 and abs(b @ nvec - ct.height) < 1e-12
        # the contact point over the whole motion: on the allowed side, within the line
        track = points(tr.q, L, ct.bar, ct.s)
        assert (track @ nvec - ct.height).min() > -1e-8
        t = (track - a) @ unit(b - a)
        assert t.min() > 0 and t.max() < np.linalg.norm(b - a)
    # one hatched line per distinct floor (the two floor contacts share theirs): the
    # first segment of each piece is its line, then hatches on the forbidden side
    xs, ys = layer.floor_line.get_data()
    pieces = np.split(np.column_stack([xs, ys]),
                      np.where(np.isnan(xs))[0])
    lines = [pc[~np.isnan(pc[:, 0])] for pc in pieces]
    lines = [ln for ln in lines if len(ln) == 2]
    floors = [ln for ln in lines if abs(ln[0, 1] - h) < 1e-12 and abs(ln[1, 1] - h) < 1e-12]
    below = [ln for ln in lines if abs(ln[0, 1] - h) < 1e-12 and ln[1, 1] < h - 1e-9]
    assert len(floors) == 1 and len(below) >= 3
    p.close()


# ------------------------------------------------------------------------------------------
# events: timeline, time plots, log
# ------------------------------------------------------------------------------------------

def test_events_marked_on_timeline_plots_and_listed_in_the_log():
    m = slider_crank("ground")
    m.add_angle_stop(None, 0, 0.0, "min", 0.5, name="crank stop")
    p = MotionPlayer(m, backend="static", t_end=1.0, n_frames=101)
    tr = p.simulate()
    evs = tr.events
    assert len(evs) >= 2 and {e["what"] for e in evs} <= {"impact", "rests", "released"}
    times = [e["t"] for e in evs]
    assert [t for t, _ in p.events] == times
    # the time plots: one dashed line per event at its time, on every axes
    for lc in p.plots.event_lines:
        segs = lc.get_segments()
        assert [s[0][0] for s in segs] == pytest.approx(times, abs=0, rel=0)
    # the timeline under the slider: one marker per event, placed at t / t_end
    assert p.timeline.value.count("▼") == len(evs)
    assert p.timeline.value.count("quivira-event-switch") == len(evs)
    for t in times:
        assert f"left:{100.0 * (t - tr.t[0]) / (tr.t[-1] - tr.t[0]):.2f}%" in p.timeline.value
    # the log: one row per event, (t, element, what, kinetic energy lost)
    assert p.event_rows == [(e["t"], e["name"], e["what"], e.get("kinetic_energy_lost"))
                            for e in evs]
    assert p.event_log.value.count("<tr") == len(evs) + 1
    # the first impact on the stop: the crank's angular velocity jumps to −e times the
    # approach velocity (Newton's law of the stop; the angle of bar 0 is φ here)
    first = evs[0]
    assert first["what"] == "impact"
    assert first["state"][3 * 3 + 2] == pytest.approx(0.5 * first["approach_speed"], rel=1e-9)
    # rows up to the frame shown are greyed: none at t = 0, all at the end
    p.show_frame(0)
    assert "quivira-event-past" not in p.event_log.value
    p.show_frame(tr.n_points - 1)
    assert p.event_log.value.count("quivira-event-past") == sum(t <= tr.t[-1] for t in times)
    p.close()


def test_log_html_escapes_and_counts():
    rows = [(0.1, "a<b", "latched", 1.5), (0.2, "floor", "released", None)]
    text = log_html(rows, now=0.15)
    assert "a&lt;b" in text and "a<b" not in text
    assert text.count("<tr") == 3 and text.count("quivira-event-past") == 1
    assert log_html([]) == ""


# ------------------------------------------------------------------------------------------
# the editor section
# ------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_add_each_kind_from_the_fields_equals_the_model_api():
    s = Studio(slider_crank("slot"), backend="static")
    sec = s.editor.sliders
    twin = slider_crank("slot")
    # a second slot, offset 0.02, the rod's middle in the guide bar's slot
    sec.kind.value = "slot"
    sec.bar_a.value, sec.bar_b.value = 3, 1
    sec.s.value, sec.offset.value = 0.1, 0.02
    assert sec.add() == "slot0"
    twin.add_pin_in_slot(3, 1, 0.1, 0.02)
    sec.kind.value = "latch"
    sec.bar_a.value, sec.bar_b.value = 0, 1
    sec.latch_angle.value = -40.0
    assert sec.add() == "latch0"
    twin.add_latch(0, 1, math.radians(-40.0))
    sec.kind.value = "stop"
    sec.bar_a.value, sec.bar_b.value = GROUND, 0
    sec.limit.value, sec.side.value = 150.0, "max"
    sec.restitution.value, sec.rest_speed_ang.value = 0.3, 0.01
    assert sec.add() == "stop0"
    twin.add_angle_stop(None, 0, math.radians(150.0), "max", 0.3, rest_speed=0.01)
    sec.kind.value = "contact"
    sec.bar_b.value = 1
    sec.s.value, sec.height.value, sec.normal_angle.value = 0.0, -0.3, 90.0
    sec.restitution.value, sec.rest_speed_lin.value = 0.2, 0.002
    assert sec.add() == "contact0"
    twin.add_contact(1, 0.0, -0.3, 0.2, normal_angle=math.pi / 2, rest_speed=0.002)
    sec.kind.value = "slider"
    sec.bar_b.value = 1
    sec.s.value, sec.guide_angle.value = 0.5, 0.0
    sec.guide_x.value, sec.guide_y.value = 0.0, s.editor.model.bars[1].point(0.5)[1]
    # the rod's end on a horizontal ground line through its position
    assert sec.add() == "slider0"
    twin.add_ground_slider(1, 0.5, 0.0, (0.0, twin.bars[1].point(0.5)[1]))
    got, want = s.editor.model.to_dict(), twin.to_dict()
    for coll in ("slots", "latches", "angle_stops", "contacts", "ground_sliders"):
        assert got[coll] == want[coll], coll
    # the view draws them all
    layer = s.view.switch_layer
    assert layer.slot_names == ["guide", "slot0"] and layer.latch_names == ["latch0"]
    assert layer.stop_names == ["stop0"] and layer.contact_names == ["contact0"]
    assert layer.guide_names == ["slider0"]
    assert "2 pin-in-slots" in s.editor.summary.value and "1 latch" in s.editor.summary.value
    s.close()


@pytest.mark.slow
def test_bad_inputs_are_refused_next_to_the_field_and_leave_the_model():
    s = Studio(double_pendulum(), backend="static")
    m = s.editor.model
    sec = s.editor.sliders
    rev = m.revision
    sec.kind.value = "stop"
    sec.restitution.text.value = "1.5"
    assert "restitution" in sec.restitution.error and "1" in sec.restitution.error
    assert sec.add() is None and "correct the marked field" in sec.message.widget.value
    sec.restitution.text.value = "abc"
    assert "got 'abc'" in sec.restitution.error
    sec.restitution.text.value = "0.5"
    assert sec.restitution.error == ""
    sec.kind.value = "slot"
    sec.bar_a.value = GROUND
    assert sec.add() is None and "guide bar" in sec.message.widget.value
    # the core refuses a latch between bars without a common joint
    m.add_bar_from_point_pair((3.0, 0.0), (4.0, 0.0))
    rev = m.revision
    sec.kind.value = "latch"
    sec.bar_a.value, sec.bar_b.value = 0, 2
    assert sec.add() is None
    assert "no common joint" in sec.message.widget.value
    assert m.revision == rev and "latch0" not in m.elements
    # an edit the core refuses: the model is unchanged, the field shows why
    m.add_latch(0, 1, 0.5, name="elbow")
    sec.select.value = 0
    assert sec.selected_item()[1].name == "elbow"
    rev = m.revision
    sec.latch_angle.text.value = "1e7"
    assert sec.latch_angle.error and m.revision == rev
    assert m.element("elbow").angle == 0.5
    s.close()


@pytest.mark.slow
def test_value_edits_resimulate_without_compiling_and_change_the_physics():
    s = Studio(slider_crank("ground"), backend="static", t_end=1.0, n_frames=101)
    m = s.editor.model
    m.add_angle_stop(None, 0, 0.0, "min", 0.5, name="crank stop")
    sec = s.editor.sliders
    tr = s.player.simulate()
    n_compiled, runs = m.n_compiled, s.player.n_runs
    first = next(e for e in tr.events if e["what"] == "impact")
    assert first["state"][11] == pytest.approx(0.5 * first["approach_speed"], rel=1e-9)
    k = [name for _, el in sec.items() for name in [el.name]].index("crank stop")
    sec.select.value = k
    full_draws = s.player.plots.pane.n_full_draws
    sec.restitution.text.value = "0.8"
    assert m.element("crank stop").restitution == 0.8
    assert s.player.n_runs == runs + 1 and m.n_compiled == n_compiled
    tr2 = s.player.trajectory
    # the dashed event lines moved with the new run's events: they are in the still
    # background of the plots, so the plots were drawn again in full
    segs = s.player.plots.event_lines[0].get_segments()
    assert [sg[0][0] for sg in segs] == [e["t"] for e in tr2.events]
    assert len(tr2.events) != len(tr.events)
    assert s.player.plots.pane.n_full_draws > full_draws
    first = next(e for e in tr2.events if e["what"] == "impact")
    assert first["state"][11] == pytest.approx(0.8 * first["approach_speed"], rel=1e-9)
    # the limit: the crank now stops at -20°
    sec.limit.value = -20.0
    assert m.element("crank stop").limit == pytest.approx(math.radians(-20.0))
    assert s.player.n_runs == runs + 2 and m.n_compiled == n_compiled
    tr3 = s.player.trajectory
    assert tr3.q[:, 2].min() > math.radians(-20.0) - 1e-8
    hit = next(e for e in tr3.events if e["what"] == "impact")
    assert hit["state"][2] == pytest.approx(math.radians(-20.0), abs=1e-9)
    # undo brings the old limit back (and re-simulates with the same compiled code)
    s.editor.undo()
    assert m.element("crank stop").limit == pytest.approx(0.0, abs=0)
    assert m.n_compiled == n_compiled
    s.close()


@pytest.mark.slow
def test_latch_angle_edit_moves_the_latch_and_delete_removes_it():
    s = Studio(double_pendulum(), backend="static", t_end=1.0, n_frames=101)
    m = s.editor.model
    sec = s.editor.sliders
    sec.kind.value = "latch"
    sec.bar_a.value, sec.bar_b.value = 0, 1
    sec.latch_angle.value = 30.0
    assert sec.add() == "latch0"
    tr = s.player.simulate()
    n_compiled = m.n_compiled
    t30 = next(e["t"] for e in tr.events if e["what"] == "latched")
    sec.select.value = 0
    sec.latch_angle.value = 20.0
    tr2 = s.player.trajectory
    assert m.n_compiled == n_compiled
    t20 = next(e["t"] for e in tr2.events if e["what"] == "latched")
    assert t20 < t30
    after = tr2.t > t20
    assert np.abs(tr2.q[after, 5] - tr2.q[after, 2] - math.radians(20.0)).max() < 1e-8
    assert s.player.event_rows[0][1:3] == ("latch0", "latched")
    sec.delete()
    assert "latch0" not in m.elements and sec.selected == NEW
    assert s.view.switch_layer.latch_names == []
    assert not any(e["what"] == "latched" for e in s.player.trajectory.events)
    s.close()
