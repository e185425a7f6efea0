"""The Studio with particles, rigid bodies and their body elements, and its statics: what is
drawn is compared with numbers computed here from the model and the
trajectory with numpy."""

from __future__ import annotations

import math

import heyoka as hy
import numpy as np
import pytest

import quivira as qv
from quivira_widgets import Studio
from quivira_widgets._constraints import force_from_matrices, force_target  # noqa: E402
from quivira_widgets._modelinfo import by_collection
from quivira_widgets.inspector import _coordinate_names  # noqa: E402

R_DISC = 0.2
W_PLATE, H_PLATE = 0.3, 0.1
SLOPE = -0.3  # the rolling line's angle (rad): the disc rolls down to +x


def body_model() -> qv.BarJointModel:
    """A driven crank (bar 0) with a particle (1) on a link, a disc (2) rolling down a slope
    with a plate (3) welded on it, and a bar (4) hanging at rest from a support."""
    m = qv.BarJointModel()
    m.add_bar_from_point_pair((0.0, 0.0), (0.6, 0.0), 2.0)
    m.add_support(0, -0.5, False, False)
    m.add_joint_motor(None, 0.8 * hy.time, bodies=(None, 0), name="motor")
    p = m.add_particle(0.6, -0.4, 0.5)
    m.add_distance(0, 0.5, p, (0.0, 0.0), name="rod")
    d = m.add_body(1.5, 0.2, 0.0, 1.0, 0.5 * R_DISC ** 2, {"kind": "disc", "radius": R_DISC},
                   {"rim": (R_DISC, 0.0)})
    m.add_rolling_on_line(d, SLOPE, name="roll")
    pl = m.add_body(1.5, 0.2 + R_DISC + H_PLATE / 2, 0.0, 0.5,
                    0.5 * (W_PLATE ** 2 + H_PLATE ** 2) / 12,
                    {"kind": "plate", "width": W_PLATE, "height": H_PLATE}, {"tip": (0.15, 0.0)})
    m.add_weld(d, pl, name="weld")
    m.add_bar_from_point_pair((3.0, 0.0), (3.0, -0.5), 1.0)
    m.add_support(4, -0.5, False, False)
    return m


def pose(tr, model, body, k):
    cols = model.body_coordinates(body)
    v = tr.q[k, cols]
    return (v[0], v[1], v[2] if len(v) == 3 else 0.0)


def world(p, uv):
    x, y, th = p
    c, s = math.cos(th), math.sin(th)
    return np.array([x + uv[0] * c - uv[1] * s, y + uv[0] * s + uv[1] * c])


@pytest.fixture(scope="module")
def played():
    m = body_model()
    s = Studio(m, backend="static", t_end=1.0, n_frames=51)
    s.player.simulate_button.click()
    assert s.player.trajectory is not None, s.player.status.text
    yield s, m, s.player.trajectory
    s.close()


def test_studio_plays_bodies_and_draws_them_where_the_trajectory_has_them(played):
    s, m, tr = played
    assert tr.q.shape[1] == m.n_coordinates == 14  # 3 + 2 + 3 + 3 + 3 (a particle: 2)
    layer = s.view.body_layer
    for k in (0, 25, 50):
        s.player.slider.value = k
        assert not s.view.message.text, s.view.message.text
        # the particle: a dot at its (x, y)
        px, py, _ = pose(tr, m, 1, k)
        assert np.allclose(layer.particle_xy, [[px, py]], atol=1e-12)
        # the disc: circle about its centre, radius R, radius line at its angle
        disc = pose(tr, m, 2, k)
        assert np.allclose(layer.disc_centres, [disc[:2]], atol=1e-12)
        assert np.allclose(layer.disc_radii, [R_DISC])
        rim = np.array(disc[:2]) + R_DISC * np.array([math.cos(disc[2]), math.sin(disc[2])])
        assert np.allclose(layer.disc_spokes[0], [disc[:2], rim], atol=1e-12)
        # its named point "rim" and the plate's corners and "tip"
        plate = pose(tr, m, 3, k)
        corners = [world(plate, (sx * W_PLATE / 2, sy * H_PLATE / 2))
                   for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        assert np.allclose(layer.plate_corners[0], corners, atol=1e-12)
        assert layer.point_names == ["body 2 · rim", "body 3 · tip"]
        assert np.allclose(layer.point_xy, [world(disc, (R_DISC, 0.0)),
                                            world(plate, (0.15, 0.0))], atol=1e-12)
        # the weld at its point of the plate; the link from the crank's end to the particle
        w = by_collection(m)["welds"][0]
        assert np.allclose(layer.weld_xy, [world(plate, w.point_b)], atol=1e-12)
        crank = pose(tr, m, 0, k)
        assert np.allclose(layer.distance_segments[0], [world(crank, (0.3, 0.0)), [px, py]],
                           atol=1e-12)
        # the motor's arc at the crank's supported point (the origin)
        assert np.allclose(layer.motor_xy, [[0.0, 0.0]], atol=1e-9)
        # bars are lines, bodies are not drawn as bars
        e = s.view.bar_lines[0].get_xydata()
        assert np.allclose(e, [world(crank, (-0.3, 0.0)), world(crank, (0.3, 0.0))], atol=1e-12)
        for i in (1, 2, 3):
            assert len(s.view.bar_lines[i].get_xdata()) == 0
    # the disc has rolled: t·Δc = −R Δθ along the line
    t = np.array([math.cos(SLOPE), math.sin(SLOPE)])
    c0, c1 = np.array(pose(tr, m, 2, 0)), np.array(pose(tr, m, 2, 50))
    assert c1[0] - c0[0] > 0.05
    assert float(t @ (c1[:2] - c0[:2])) == pytest.approx(-R_DISC * (c1[2] - c0[2]), abs=1e-9)
    # the rolling line: its ends on the line through the contact at the slope, spanning the
    # disc's travel
    roll = by_collection(m)["rolling_contacts"][0]
    n = np.array([-t[1], t[0]])
    for end in layer.rolling_lines[0]:
        assert float(n @ (end - np.asarray(roll.point))) == pytest.approx(0.0, abs=1e-12)
    lo, hi = sorted(float(t @ e) for e in layer.rolling_lines[0])
    assert lo < float(t @ c0[:2]) and float(t @ c1[:2]) < hi


@pytest.mark.slow
def test_particle_dot_size_follows_its_mass():
    m = qv.BarJointModel()
    m.add_particle(0.0, 0.0, 1.0)
    m.add_particle(1.0, 0.0, 4.0)
    s = Studio(m, backend="static")
    try:
        sizes = s.view.body_layer.particle_dots.get_sizes()
        assert np.allclose(sizes, [30.0 + 150.0 * 1.0 / 4.0, 180.0])
        m.set_bar_mass(0, 4.0)
        assert np.allclose(s.view.body_layer.particle_dots.get_sizes(), [180.0, 180.0])
    finally:
        s.close()


def test_ground_circle_of_a_disc_rolling_on_a_fixed_disc():
    m = qv.BarJointModel()
    d = m.add_body(0.1, 1.2, 0.0, 1.0, 0.02, {"kind": "disc", "radius": 0.2})
    m.add_body(0.1, 1.2, 0.0, 1.0, 0.02)  # no shape: a cross at its centre
    m.add_weld(d, 1)
    m.add_rolling_on_disc(None, d, radius_a=1.0, centre_a=(0.1, 0.0), name="ring")
    s = Studio(m, backend="static")
    try:
        layer = s.view.body_layer
        assert np.allclose(layer.ground_circles, [[0.1, 0.0, 1.0]])
        x, y = layer.ground_line.get_data()
        pts = np.column_stack([x, y])
        pts = pts[np.all(np.isfinite(pts), axis=1)]
        r = np.hypot(pts[:, 0] - 0.1, pts[:, 1])
        assert np.all(r <= 1.0 + 1e-12) and np.isclose(r.max(), 1.0)  # hatched inside
        assert np.allclose(layer.centre_markers.get_xydata(), [[0.1, 1.2]])
    finally:
        s.close()


def test_support_force_and_coordinate_names_after_a_particle(played):
    s, m, tr = played
    # bar 4 hangs at rest: its support carries its weight, m g up (J columns of body 4 start
    # at 11, not 12, because the particle has two coordinates)
    s.view.trajectory = None
    s.view.selection = "support1.x"
    label, point, force = s.view.reaction
    assert label == "support 1 on bar 4"
    assert np.allclose(force, [0.0, 1.0 * 0.5 * m.g], atol=1e-9)
    assert np.allclose(point, [3.0, 0.0], atol=1e-12)
    mats = m.matrices()
    target = force_target(m, "support1.x")
    assert np.allclose(force_from_matrices(mats["J"], mats["lambda_mult"], mats["labels"],
                                           target, m.body_coordinates(4)[:2]),
                       [0.0, 0.5 * m.g], atol=1e-9)
    s.view.selection = ""
    names = _coordinate_names(m, m.n_coordinates)
    assert names[:6] == ["x0", "y0", "θ0", "x1", "y1", "x2"]
    assert len(names) == 14


def test_editing_masses_and_inertia_of_bodies_and_particles():
    m = body_model()
    s = Studio(m, backend="static")
    try:
        sec = s.editor.bars
        sec.select.value = 2
        assert not sec.inertia.disabled
        sec.inertia.value = 0.05
        assert m.bars[2].inertia == 0.05
        before = m.to_dict()
        sec.inertia.text.value = "-1"
        assert sec.inertia.error and "inertia" in sec.inertia.error
        assert m.to_dict() == before
        sec.select.value = 1  # the particle: mass yes, inertia no
        assert sec.inertia.disabled
        sec.mass.value = 0.7
        assert m.bars[1].mass == 0.7
        sec.select.value = 0
        assert sec.inertia.disabled
    finally:
        s.close()


# --------------------------------------------------------------------------------------- statics
def truss(load: float = -100.0) -> qv.BarJointModel:
    """Two bars at 45° from pins at (±1, 0) to the apex (0, 1), a load at the apex, g = 0."""
    m = qv.BarJointModel()
    m.add_bar_from_point_pair((-1.0, 0.0), (0.0, 1.0), 1.0)
    m.add_bar_from_point_pair((1.0, 0.0), (0.0, 1.0), 1.0)
    m.add_support(0, -0.5, False, False)
    m.add_support(1, -0.5, False, False)
    m.add_joint([0, 1], [0.5, 0.5])
    m.set_g(0.0)
    m.add_external_force(0, 0.5, 0.0, load)
    return m


def test_equilibrium_button_shows_pose_member_forces_and_verdict():
    m = truss(-100.0)
    s = Studio(m, backend="static")
    try:
        st = s.statics
        st.colour_toggle.value = True
        st.equilibrium_button.click()
        res = st.result
        assert res is not None, st.message.text
        # closed form: each bar carries P / (2 sin 45°) in compression
        N = -100.0 / (2.0 * math.sin(math.pi / 4))
        assert np.allclose(res.axial_force, [N, N], rtol=1e-9)
        assert res.stability == "rigid"
        assert np.allclose(s.view.q, res.q, atol=1e-12)
        assert s.view.info.startswith("equilibrium pose")
        # the bars are coloured by that force: compression blue
        assert np.allclose(s.view.bar_axial, [N, N], rtol=1e-9)
        from quivira_widgets.view import COMPRESSION_COLOR, TENSION_COLOR
        assert [ln.get_color() for ln in s.view.bar_lines] == [COMPRESSION_COLOR] * 2
        # the reactions balance the load: each pin takes 50 N up
        Fy = sorted(res.support_force(k)[1] for k in (0, 1))
        assert np.allclose(Fy, [50.0, 50.0], rtol=1e-9)
        assert "rigid" in st.table.value and "support 0 on bar 0" in st.table.value
        # a pulling load: tension red
        m.set_force(0, fy=100.0)
        assert st.result is None  # the old equilibrium is gone with the edit
        st.equilibrium_button.click()
        assert np.allclose(st.result.axial_force, [-N, -N], rtol=1e-9)
        assert [ln.get_color() for ln in s.view.bar_lines] == [TENSION_COLOR] * 2
        s.tabs.selected_index = 2
        assert st.diagram["where"] == "equilibrium"
        # a two-force member: N constant up to the joint at its end (the last section, at the
        # joint, is past the joint's force), V = 0
        assert np.allclose(st.lines["N"].get_ydata()[:-1], -N, rtol=1e-9)
        assert np.allclose(st.lines["V"].get_ydata(), 0.0, atol=1e-9)
    finally:
        s.close()


def test_no_equilibrium_is_a_clear_message_and_changes_nothing():
    m = qv.BarJointModel()
    m.add_bar_from_point_pair((0.0, 0.0), (1.0, 0.0), 1.0)  # a free bar falls
    s = Studio(m, backend="static")
    try:
        before = m.to_dict()
        q_before = s.view.q.copy()
        s.statics.equilibrium_button.click()
        assert s.statics.result is None
        assert s.statics.message.kind == "error"
        assert s.statics.message.text.startswith("no equilibrium")
        assert "mechanism" in s.statics.message.text
        assert m.to_dict() == before
        assert np.array_equal(s.view.q, q_before)
    finally:
        s.close()


@pytest.mark.slow
def test_nvm_diagram_of_a_simply_supported_bar_under_its_weight():
    L, mass = 1.0, 2.0
    m = qv.BarJointModel()
    m.add_bar_from_point_pair((0.0, 0.0), (L, 0.0), mass / L)
    m.add_support(0, -0.5, False, False)
    m.add_support(0, 0.5, True, False)
    s = Studio(m, backend="static")
    try:
        st = s.statics
        s.tabs.selected_index = 2
        st.equilibrium_button.click()
        q = mass * m.g / L  # N/m
        x, N = st.lines["N"].get_data()
        _, V = st.lines["V"].get_data()
        _, M = st.lines["M"].get_data()
        assert np.allclose(x, np.linspace(-L / 2, L / 2, 51))
        assert np.allclose(N, 0.0, atol=1e-9)
        # dM/dx = V (the section at s = +0.5 is past the roller's reaction: V = 0 there)
        assert np.allclose(V[:-1], -q * x[:-1], atol=1e-9)
        assert np.allclose(M, 0.5 * q * (L ** 2 / 4 - x ** 2), atol=1e-9)  # q L²/8 at mid-span
        assert st.axes["N"].get_ylabel() == "N [N]"
        assert st.axes["V"].get_ylabel() == "V [N]"
        assert st.axes["M"].get_ylabel() == "M [N m]"
        assert "x [m]" in st.axes["M"].get_xlabel()
    finally:
        s.close()


@pytest.mark.slow
def test_bar_colours_and_diagram_follow_internal_forces_along_the_motion():
    from quivira.examples import four_bar
    from quivira_widgets.view import COMPRESSION_COLOR, TENSION_COLOR

    m = four_bar()
    s = Studio(m, backend="static", t_end=1.0, n_frames=21)
    try:
        s.player.simulate_button.click()
        tr = s.player.trajectory
        s.statics.colour_toggle.value = True
        s.tabs.selected_index = 2
        s.statics.diagram_bar.value = 1
        ref = m.internal_forces(tr)      # every frame, 51 sections
        centre = ref.N[:, :, 25]          # s = 0
        signs_seen = set()
        for k in (0, 7, 14, 20):
            s.player.slider.value = k
            assert np.allclose(s.view.bar_axial, centre[k], rtol=1e-9, atol=1e-9)
            for line, n in zip(s.view.bar_lines, centre[k]):
                assert line.get_color() == (TENSION_COLOR if n > 0 else COMPRESSION_COLOR)
                signs_seen.add(n > 0)
            d = s.statics.diagram
            assert d["where"] == f"t = {tr.t[k]:.3f} s"
            for key, arr in (("N", ref.N), ("V", ref.V), ("M", ref.M)):
                assert np.allclose(s.statics.lines[key].get_ydata(), arr[k, 1], rtol=1e-9,
                                   atol=1e-9)
        assert signs_seen == {True, False}  # both colours occur in this motion
        s.statics.colour_toggle.value = False
        assert s.view.bar_axial is None
        from quivira_widgets.view import BAR_COLOR
        assert all(ln.get_color() == BAR_COLOR for ln in s.view.bar_lines)
    finally:
        s.close()


def test_kinematic_sweep_box_traces_paths_on_their_circles():
    """The Statics tab's kinematic sweep of the four-bar: turning the crank (th0) by 360°
    traces the coupler's far end on the rocker's circle about (3, 0) (radius 2.5 m) and the
    crank tip on its circle about the origin (radius 1 m) — geometry, not the widget's own
    numbers; a rocker driven past its dead centre stops there with a message."""
    import math

    from quivira.examples import four_bar
    from quivira_widgets.statics import StaticsPanel
    from quivira_widgets.view import ModelView

    m = four_bar()
    view = ModelView(m, backend="static")
    panel = StaticsPanel(m, view, backend="static")
    box = panel.kinematics
    assert "th0" in box.driver.options
    # as a student first sees it: a driver chosen and the empty axes drawn (a static pane
    # used to show an empty, broken image and the first click said "no angle to drive")
    assert box.driver.value == "th0" and len(box.pane.widget.value) > 0
    box.trace_bar.value = 1
    box.trace_s.text.value = "0.5"
    box.sweep_button.click()
    assert box.result is not None and box.result.complete, box.message.text
    r = np.hypot(box.path[:, 0] - 3.0, box.path[:, 1])
    assert np.abs(r - 2.5).max() < 1e-9
    assert abs(box.result.values[-1] - box.result.values[0] - 2 * math.pi) < 1e-12
    np.testing.assert_allclose(box.line.get_xydata(), box.path)
    box.trace_bar.value = 0
    box.sweep_button.click()
    assert np.abs(np.hypot(box.path[:, 0], box.path[:, 1]) - 1.0).max() < 1e-9
    # the rocker (th2) of a crank-rocker cannot turn a full turn: it stops at a dead centre
    box.driver.value = "th2"
    box.sweep_button.click()
    assert box.result is not None and not box.result.complete
    assert "dead centre" in box.message.text
    # a bad turn is refused at the field and the sweep says why
    before = m.to_dict()
    box.turn.text.value = "abc"
    box.sweep_button.click()
    assert "cannot sweep" in box.message.text and m.to_dict() == before
    panel.close()


def test_counts_line_names_bodies_and_body_joints():
    """Particles and rigid bodies are not counted as bars; welds, links, motors are counted."""
    import heyoka as hy

    from quivira.examples import chain
    from quivira_widgets._modelinfo import counts_line

    m = chain(2)
    p = m.add_particle(1.0, -1.0, 1.0)
    d = m.add_body(0.0, 1.0, 0.0, 1.0, 0.1)
    m.add_weld(1, d)
    m.add_distance(None, (1.0, 0.0), p, 0.0)
    m.add_joint_motor(0, 0.1 * hy.time)
    line = counts_line(m)
    assert line.startswith("2 bars · 1 particle · 1 body · 1 joint · 1 support · 0 loads")
    for part in ("1 weld", "1 distance", "1 joint motor"):
        assert part in line, line
