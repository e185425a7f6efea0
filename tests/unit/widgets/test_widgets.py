"""Headless tests of the widgets: drive them from Python, check the model and the panels.

Every test sets widget values and clicks buttons as a user would, then checks the model
(through its public API) and the panels' state: artists' data against geometry computed
here from the poses, plotted data against the trajectory's arrays, messages shown, counters
of draws. Figures use the static PNG backend (Agg) unless a test is about ipympl. Inputs,
files, undo and the synced state at comm level have their own files
(``test_widgets_inputs.py``, ``test_widgets_files.py``, ``test_widgets_state.py``).
"""

from __future__ import annotations

import datetime
import gc
import json
import math
import sys
import weakref

import matplotlib

matplotlib.use("Agg")

import ipywidgets  # noqa: E402, F401  (a test dependency: no skip)
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from quivira import bar_joint_model  # noqa: E402
from quivira.examples import chain, four_bar, scissor  # noqa: E402
from quivira_widgets import (  # noqa: E402
    MatrixInspector,
    ModelEditor,
    ModelView,
    MotionPlayer,
    Studio,
)
from quivira_widgets._export import ffmpeg_available  # noqa: E402
from quivira_widgets._figure import FigurePane  # noqa: E402

PNG = b"\x89PNG"
NOW = datetime.datetime.now(datetime.UTC)


def ends_of(pose, length):
    """The s = -0.5 and s = +0.5 ends of a bar with centre pose (x, y, θ)."""
    x, y, th = pose
    dx, dy = 0.5 * length * math.cos(th), 0.5 * length * math.sin(th)
    return np.array([x - dx, x + dx]), np.array([y - dy, y + dy])


def point_of(pose, length, s):
    x, y, th = pose
    return np.array([x + s * length * math.cos(th), y + s * length * math.sin(th)])


def assert_view_matches_model(view, model):
    bars = model.bars
    assert len(view.bar_lines) == model.n_bars
    for line, b in zip(view.bar_lines, bars):
        xs, ys = ends_of(b.pose, b.length)
        np.testing.assert_allclose(line.get_xdata(), xs, atol=1e-12)
        np.testing.assert_allclose(line.get_ydata(), ys, atol=1e-12)


def assert_view_shows_q(view, model, q):
    for i, (line, b) in enumerate(zip(view.bar_lines, model.bars)):
        xs, ys = ends_of(q[3 * i:3 * i + 3], b.length)
        np.testing.assert_allclose(line.get_xdata(), xs, atol=1e-12)
        np.testing.assert_allclose(line.get_ydata(), ys, atol=1e-12)


@pytest.fixture
def model():
    return four_bar()


@pytest.fixture(autouse=True)
def work_in_tmp(tmp_path, monkeypatch):
    """Saves and exports land in a temporary folder, never in the repository."""
    monkeypatch.chdir(tmp_path)


def browser_connects(canvas) -> None:
    """What ipympl's front end sends when it shows a canvas (ipywidgets' message protocol)."""
    canvas._handle_msg({"content": {"data": {"method": "custom",
                                             "content": {"type": "initialized"}}},
                        "buffers": []})
    canvas.draw()


@pytest.fixture(autouse=True)
def no_pyplot_figures():
    """No panel may leave a figure in pyplot's registry."""
    before = set(plt.get_fignums())
    yield
    assert set(plt.get_fignums()) == before


# ====================================================================== figure pane
def test_figure_pane_static_draws_png_and_blits():
    pane = FigurePane((3, 2), 80, "static")
    ax = pane.figure.add_subplot()
    (line,) = ax.plot([0, 1], [0, 1])
    pane.animate(line)
    pane.redraw()
    assert bytes(pane.widget.value).startswith(PNG) and pane.widget.format == "png"
    full = bytes(pane.widget.value)
    line.set_data([0, 1], [1, 0])
    pane.update()  # the moving layer only, over the kept background
    assert pane.n_fast_draws == 1 and pane.n_full_draws == 1
    assert pane.widget.format == "jpeg" and bytes(pane.widget.value) != full
    pane.close()
    assert pane.closed
    pane.update()  # harmless after closing


def test_figure_pane_rejects_unknown_backend():
    with pytest.raises(ValueError, match="backend must be one of"):
        FigurePane(backend="svg")


# ====================================================================== view
def test_view_draws_every_bar_joint_and_support(model):
    view = ModelView(model, backend="static")
    assert_view_matches_model(view, model)
    bars = model.bars
    jx, jy = view.joint_markers.get_data()
    for k, jt in enumerate(model.joints):
        p = point_of(bars[jt.bars[0]].pose, bars[jt.bars[0]].length, jt.s[0])
        np.testing.assert_allclose([jx[k], jy[k]], p, atol=1e-12)
    px, py = view.pin_markers.get_data()
    np.testing.assert_allclose(np.c_[px, py], [[s.x, s.y] for s in model.supports], atol=1e-12)
    assert len(view.roller_x_markers.get_xdata()) == 0
    assert bytes(view.pane.widget.value).startswith(PNG)
    # indices (few bars: shown automatically): one label per bar, beside its centre
    offsets = view.bar_labels.get_offsets()
    assert len(offsets) == model.n_bars and len(view.joint_labels.get_offsets()) == 2
    for off, b in zip(offsets, bars):
        assert 0 < np.hypot(*(off - b.pose[:2])) < 0.2 * b.length + 0.5
    view.close()


def test_view_redraws_in_place_on_every_model_change(model):
    view = ModelView(model, backend="static")
    fig, first_line = view.figure, view.bar_lines[0]
    full = view.pane.n_full_draws
    model.set_bar_mass(0, 3.0)  # nothing moves: only the moving layer is redrawn
    assert view.pane.n_full_draws == full and view.pane.n_fast_draws >= 1
    model.set_bar_length(2, 2.4)
    assert_view_matches_model(view, model)
    i = model.add_bar_at_attitude(5.0, 1.0, 0.3, 2.0, 1.0)
    assert i == 3 and len(view.bar_lines) == 4
    assert_view_matches_model(view, model)
    model.remove_bar(1)
    assert len(view.bar_lines) == 3
    assert_view_matches_model(view, model)
    assert view.figure is fig and view.bar_lines[0] is first_line
    assert len(view.figure.axes) == 1
    view.close()


def test_view_rollers_loads_and_torques(model):
    model.set_support(1, dof_in_x=True)
    k = model.add_external_force(1, 0.25, 3.0, -4.0, 2.0)
    view = ModelView(model, backend="static")
    assert len(view.pin_markers.get_xdata()) == 1
    rx, ry = view.roller_x_markers.get_data()
    sp = model.supports[1]
    np.testing.assert_allclose([rx[0], ry[0]], [sp.x, sp.y], atol=1e-12)
    b = model.bars[1]
    at = point_of(b.pose, b.length, 0.25)
    np.testing.assert_allclose(view.force_arrows.get_offsets()[k], at, atol=1e-12)
    u, v = view.force_arrows.U[k], view.force_arrows.V[k]
    assert u > 0 > v and math.isclose(v / u, -4.0 / 3.0, rel_tol=1e-12)
    assert np.isfinite(view.torque_arcs.get_xdata()).any()
    model.set_support(1, dof_in_x=False, dof_in_y=True)
    assert len(view.roller_x_markers.get_xdata()) == 0
    assert len(view.roller_y_markers.get_xdata()) == 1
    model.remove_force(k)
    assert view.force_arrows is None
    view.close()


def test_view_show_state_and_mode(model):
    view = ModelView(model, backend="static")
    q = np.array(model.get_initial_state()[:9])
    q2 = q + np.array([0.1, -0.2, 0.3] * 3)
    view.show_state(np.concatenate([q2, np.zeros(9)]), t=0.25)
    assert view.source == "state" and view.time == 0.25
    assert_view_shows_q(view, model, q2)
    assert view.info == "t = 0.250 s"
    with pytest.raises(ValueError, match="expected 9 coordinates or 18 values"):
        view.show_state([0.0, 1.0])
    shape = np.zeros(9)
    shape[2] = 1.0  # rotate bar 0
    view.show_mode(shape, amplitude=0.5)
    seg = view.mode_lines.get_segments()
    b0 = model.bars[0]
    xs, ys = ends_of(q2[:3] + np.array([0, 0, 0.5]), b0.length)
    np.testing.assert_allclose(seg[0][:, 0], xs, atol=1e-12)
    np.testing.assert_allclose(seg[0][:, 1], ys, atol=1e-12)
    assert view.mode_visible
    with pytest.raises(ValueError, match="expected 9 values"):
        view.show_mode(np.zeros(4))
    view.clear_mode()
    assert not view.mode_visible and len(view.mode_lines.get_segments()) == 0
    model.set_g(5.0)  # a model change draws the model's initial pose again
    assert view.source == "model"
    assert_view_matches_model(view, model)
    view.close()


def test_view_bar_without_pose_is_reported():
    m = bar_joint_model()
    m.add_bar(1.0, 1.0)
    view = ModelView(m, backend="static")
    assert view.message.kind == "warning" and "bar 0 has no pose" in view.message.text
    assert not np.isfinite(view.bar_lines[0].get_xdata()).any()
    m.set_init_bar_attitude(0, 0.0, 0.0, 0.0)
    assert view.message.kind == ""
    assert_view_matches_model(view, m)
    view.close()


def test_view_indices_toggle_and_many_bars():
    m = chain(40)
    view = ModelView(m, backend="static")
    assert not view.indices_visible and view.bar_labels is None  # auto: off above 30 bars
    view.indices_toggle.value = True
    assert len(view.bar_labels.get_offsets()) == 40
    assert view.joint_labels is None  # joint indices only up to 16 joints
    view.indices_toggle.value = False
    assert view.bar_labels is None
    view.close()


def test_view_with_ipympl_canvas_widget(model):
    from ipympl.backend_nbagg import Canvas

    view = ModelView(model, backend="ipympl")
    assert isinstance(view.figure.canvas, Canvas)
    assert view.pane.widget is view.figure.canvas in view.children  # embedded as is
    assert "quivira-figure" in view.figure.canvas._dom_classes  # scaled to the container
    model.set_bar_length(0, 1.1)
    assert_view_matches_model(view, model)
    # pretend a browser connected, then a frame update blits the moving layer
    browser_connects(view.figure.canvas)
    view.show_state(model.get_initial_state(), t=0.0)
    assert view.pane.n_fast_draws >= 1
    view.close()
    assert view.pane.closed


# ====================================================================== editor
def test_editor_adds_bar_by_attitude_and_view_follows(model):
    ed = ModelEditor(model)
    view = ModelView(model, backend="static")
    ed.bar_x.value, ed.bar_y.value, ed.bar_theta.value = 1.0, 2.0, 30.0
    ed.bar_length.value, ed.bar_mass.value = 2.0, 3.0
    ed.add_bar_button.click()
    assert ed.messages["bars"].kind == "ok" and "added bar 3" in ed.messages["bars"].text
    assert model.n_bars == 4
    b = model.bars[3]
    assert b.pose == pytest.approx((1.0, 2.0, math.radians(30.0)))
    assert (b.length, b.mass) == (2.0, 3.0)
    assert len(view.bar_lines) == model.n_bars
    xs, ys = ends_of((1.0, 2.0, math.radians(30.0)), 2.0)  # from the fields
    np.testing.assert_allclose(view.bar_lines[3].get_xdata(), xs, atol=1e-12)
    np.testing.assert_allclose(view.bar_lines[3].get_ydata(), ys, atol=1e-12)
    assert "4 bars" in ed.summary.value
    assert [v for _, v in ed.bar_select.options] == [-1, 0, 1, 2, 3]
    view.close()
    ed.close()


def test_editor_adds_bar_by_endpoints(model):
    ed = ModelEditor(model)
    ed.bar_mode.value = "endpoints"
    ed.bar_x1.value, ed.bar_y1.value, ed.bar_x2.value, ed.bar_y2.value = 0.0, 0.0, 3.0, 4.0
    assert ed.bar_length.value == pytest.approx(5.0)  # the attitude fields follow
    ed.bar_mass.value = 10.0
    ed.add_bar_button.click()
    b = model.bars[3]
    assert b.length == pytest.approx(5.0) and b.mass == pytest.approx(10.0)
    assert b.pose == pytest.approx((1.5, 2.0, math.atan2(4, 3)))
    # zero length: refused before the core is asked, the model unchanged
    ed.bar_x1.value, ed.bar_y1.value, ed.bar_x2.value, ed.bar_y2.value = 1.0, 1.0, 1.0, 1.0
    ed.add_bar_button.click()
    assert ed.messages["bars"].kind == "error"
    assert "the two ends coincide" in ed.messages["bars"].text
    assert model.n_bars == 4
    ed.close()


def test_editor_invalid_values_show_message_and_keep_model(model):
    ed = ModelEditor(model)
    before = json.dumps(model.to_dict(), sort_keys=True)
    ed.bar_length.value = -1.0  # set from code: refused as if typed
    assert ed.bar_length.error == "length in m: a positive number up to 1e+06, got -1"
    assert "quivira-invalid" in ed.bar_length._dom_classes
    ed.add_bar_button.click()
    msg = ed.messages["bars"]
    assert msg.kind == "error" and "correct the marked field first" in msg.text
    assert 'class="quivira-msg-error"' in msg.widget.value  # red, next to the controls
    ed.bar_select.value = 0  # another item: its values replace the refused text
    assert ed.bar_length.error == "" and ed.bar_length.value == model.bars[0].length
    ed.bar_mass.value = 0.0
    assert "mass in kg: a positive number" in ed.bar_mass.error
    ed.bar_theta.value = float("nan")
    assert "θ in °" in ed.bar_theta.error and "nan" in ed.bar_theta.error
    assert json.dumps(model.to_dict(), sort_keys=True) == before
    ed.bar_mass.value = 2.5  # a valid edit goes through and says so
    assert msg.kind == "ok" and model.bars[0].mass == 2.5 and ed.bar_mass.error == ""
    ed.close()


def test_editor_edits_selected_bar(model):
    ed = ModelEditor(model)
    ed.bar_select.value = 2
    assert ed.bar_length.value == pytest.approx(model.bars[2].length)
    ed.bar_length.value = 2.75
    assert model.bars[2].length == 2.75
    x0, y0, th0 = model.bars[2].pose
    ed.bar_x.value = x0 + 0.5  # only x changes; y and θ keep their exact values
    assert model.bars[2].pose == (x0 + 0.5, y0, th0)
    ed.bar_mode.value = "endpoints"
    ed.bar_x2.value = ed.bar_x1.value + 2.0
    ed.bar_y2.value = ed.bar_y1.value
    b = model.bars[2]
    assert b.length == pytest.approx(2.0) and b.pose[2] == pytest.approx(0.0, abs=1e-12)
    ed.delete_bar_button.click()
    assert model.n_bars == 2 and "deleted bar 2" in ed.messages["bars"].text
    assert ed.bar_select.value == -1 and ed.delete_bar_button.disabled
    ed.close()


def test_editor_joints(model):
    ed = ModelEditor(model)
    i = model.add_bar_from_point_pair((0.0, 0.0), (0.0, -1.0))
    assert ed.joint_bars.value == [2, 3]  # a new joint starts with the last two bars
    ed.joint_bars.value, ed.joint_s.value = f"0, {i}", "-0.5, -0.5"
    ed.add_joint_button.click()
    assert ed.messages["joints"].kind == "ok"
    jt = model.joints[2]
    assert (jt.bars, jt.s) == ([0, i], [-0.5, -0.5])
    ed.joint_s.text.value = "0.5, x"  # typed: refused next to the field
    assert "points s: one point per bar" in ed.joint_s.error and "'0.5, x'" in ed.joint_s.error
    ed.add_joint_button.click()
    assert "correct the marked field first" in ed.messages["joints"].text
    ed.joint_bars.value, ed.joint_s.value = [0, 1, 2], [0.25, -0.5]
    ed.add_joint_button.click()
    assert "3 bars but 2 values of s" in ed.messages["joints"].text
    assert "3 bars but 2 values of s" in ed.joint_s.error  # next to the field concerned
    assert len(model.joints) == 3
    ed.joint_select.value = 2  # edit a joint in place
    assert ed.joint_bars.text.value == f"0, {i}" and ed.joint_s.error == ""
    ed.joint_s.value = [-0.5, 0.0]
    assert model.joints[2].s == [-0.5, 0.0]
    ed.delete_joint_button.click()
    assert len(model.joints) == 2
    ed.close()


def test_editor_infer_joints():
    m = bar_joint_model()
    m.add_bar_from_point_pair((0, 0), (1, 1))
    m.add_bar_from_point_pair((1, 0), (0, 1))
    m.add_bar_from_point_pair((1, 1), (2, 1))
    ed = ModelEditor(m)
    ed.infer_joints_button.click()
    assert len(m.joints) == 2  # the crossing and the shared end
    assert "2 new, 2 in total" in ed.messages["joints"].text
    ed.close()


def test_editor_supports_pin_roller_and_errors(model):
    ed = ModelEditor(model)
    ed.support_bar.value = 1
    ed.support_s.value = 0.0
    ed.support_free_x.value = True
    assert "roller, free in x" in ed.support_kind.value
    ed.add_support_button.click()
    sp = model.supports[2]
    b = model.bars[1]
    assert (sp.bar, sp.s, sp.free_x, sp.free_y) == (1, 0.0, True, False)
    np.testing.assert_allclose([sp.x, sp.y], b.pose[:2], atol=1e-12)  # at the bar point
    assert not ed.support_free_x.value  # fresh fields for the next support: a pin
    ed.support_free_x.value = ed.support_free_y.value = True  # both free: the core refuses
    assert "holds nothing" in ed.support_kind.value
    ed.add_support_button.click()
    assert "constrain nothing" in ed.messages["supports"].text and len(model.supports) == 3
    ed.support_select.value = 2
    assert ed.support_bar.disabled  # the bar of a support cannot be changed
    ed.support_free_x.value = False
    assert not model.supports[2].free_x
    ed.support_at_point.value = False
    ed.support_x.value = 7.0
    assert model.supports[2].x == 7.0
    ed.support_s.text.value = "0.9"
    assert "point s: at most 0.5" in ed.support_s.error and model.supports[2].s == 0.0
    ed.delete_support_button.click()
    assert len(model.supports) == 2
    ed.close()


def test_editor_loads_and_g(model):
    ed = ModelEditor(model)
    assert (ed.force_s.value, ed.force_fx.value, ed.force_fy.value) == (0.5, 0.0, -10.0)
    ed.force_bar.value = 1
    ed.force_s.value, ed.force_fx.value, ed.force_fy.value = 0.25, 2.0, -3.0
    ed.force_torque.value = 0.5
    ed.add_force_button.click()
    f = model.forces[0]
    assert (f.bar, f.s, f.fx, f.fy, f.torque) == (1, 0.25, 2.0, -3.0, 0.5)
    assert "0 loads" not in ed.summary.value and "1 load" in ed.summary.value
    ed.force_select.value = 0
    ed.force_fx.text.value = "inf"
    assert ed.force_fx.error == "fx in N: a number from -1e+09 to 1e+09, got 'inf'"
    assert model.forces[0].fx == 2.0
    ed.force_fx.value = 1.5
    assert model.forces[0].fx == 1.5 and ed.messages["forces"].text == "load 0: fx = 1.5 N"
    ed.force_fx.text.value = "2e6"  # legal but unusual: applied, with a warning
    assert model.forces[0].fx == 2e6 and "unusually large" in ed.force_fx.warning
    ed.delete_force_button.click()
    assert model.forces == []
    ed.g.value = 1.62
    assert model.g == 1.62 and ed.messages["model"].kind == "ok"
    ed.g.text.value = "nan"
    assert "g in m/s²" in ed.g.error and model.g == 1.62
    ed.g.text.value = "-9.81"  # legal, but gravity then points up: a warning
    assert model.g == -9.81 and ed.messages["model"].kind == "warning"
    assert "gravity points up" in ed.g.warning
    ed.close()


def test_editor_needs_a_bar_for_supports_and_loads():
    ed = ModelEditor(bar_joint_model())
    ed.add_support_button.click()
    assert "add a bar first" in ed.messages["supports"].text
    ed.add_force_button.click()
    assert "add a bar first" in ed.messages["forces"].text
    ed.close()


def test_editor_assemble(model):
    ed = ModelEditor(model)
    x, y, th = model.bars[1].pose
    model.set_init_bar_attitude(1, x + 0.05, y - 0.03, th + 0.02)
    ed.assemble_button.click()
    assert ed.messages["model"].kind == "ok" and "assembled" in ed.messages["model"].text
    assert model.check_constraint_fulfillment(model.get_initial_state())
    # a joint that cannot close: the core's message, the model unchanged
    i = model.add_bar_at_attitude(20.0, 0.0, 0.0, 1.0, 1.0)
    model.add_joint([0, i], [0.5, 0.5])
    model.add_support(i, -0.5, False, False)
    before = json.dumps(model.to_dict(), sort_keys=True)
    ed.assemble_button.click()
    assert ed.messages["model"].kind == "error"
    assert "cannot all be met" in ed.messages["model"].text
    assert json.dumps(model.to_dict(), sort_keys=True) == before
    ed.close()


def test_editor_save_load_and_upload(model, tmp_path):
    ed = ModelEditor(model)
    loaded = []
    model.observe(loaded.append)
    model.set_bar_mass(0, 4.5)
    ed.path.value = "m.json"
    ed.save_button.click()
    path = tmp_path / "quivira-work" / "m.json"  # the working folder next to the notebook
    assert ed.messages["files"].kind == "ok" and path.exists()
    assert json.loads(path.read_text())["bars"][0]["mass"] == 4.5
    assert ed.download.filename == "m.json" and 'download="m.json"' in ed.download.value
    model.set_bar_mass(0, 1.0)
    loaded.clear()
    ed.load_button.click()  # the file replaces the content of the same model object
    assert loaded == ["replaced"] and ed.model is model
    assert ed.model.bars[0].mass == 4.5
    ed.path.value = "missing.json"
    ed.load_button.click()
    assert "no file missing.json" in ed.messages["files"].text and loaded == ["replaced"]
    (tmp_path / "quivira-work" / "bad.json").write_text("{not json")
    ed.path.value = "bad.json"
    ed.load_button.click()
    assert ed.messages["files"].kind == "error" and len(loaded) == 1
    ed.path.value = "../escape.json"  # a name only: no folders
    ed.save_button.click()
    assert "without folders" in ed.messages["files"].text
    # upload a file (FileUpload value as ipywidgets 8 gives it)
    data = json.dumps(chain(2).to_dict()).encode()
    ed.upload.value = ({"name": "chain.json", "type": "application/json", "size": len(data),
                        "content": memoryview(data), "last_modified": NOW},)
    assert len(loaded) == 2 and ed.model.n_bars == 2
    assert "loaded chain.json" in ed.messages["files"].text
    ed.upload.value = ({"name": "x.json", "type": "", "size": 3, "content": memoryview(b"[1]"),
                        "last_modified": NOW},)
    assert ed.messages["files"].kind == "error" and len(loaded) == 2
    ed.close()


@pytest.mark.slow
def test_editor_follows_changes_made_elsewhere(model):
    ed = ModelEditor(model)
    ed.bar_select.value = 1
    model.set_bar_length(1, 3.5)
    assert ed.bar_length.value == 3.5
    model.add_bar_at_attitude(0, 0, 0, 1, 1)
    assert len(ed.bar_select.options) == 5 and ed.bar_select.value == 1
    ed.close()


# ====================================================================== inspector
@pytest.mark.slow
def test_inspector_matrices_rank_and_conditioning(model):
    ins = MatrixInspector(model, backend="static")
    d = model.matrices()
    np.testing.assert_allclose(ins.images["J"].get_array().filled(0.0), d["J"])
    np.testing.assert_allclose(ins.images["W"].get_array().filled(0.0), d["W"])
    np.testing.assert_allclose(ins.images["M"].get_array().filled(0.0), d["M"])
    np.testing.assert_allclose(ins.images["lambda"].get_array()[:, 0], d["lambda_mult"])
    # structural zeros are masked: M is diagonal
    assert ins.images["M"].get_array().mask.sum() == 9 * 9 - 9
    ev = np.linalg.eigvalsh(d["W"])
    np.testing.assert_allclose(ins.eigenvalues_W, ev, rtol=1e-10)
    assert ins.cond_W == pytest.approx(ev[-1] / ev[0])
    assert not ins.near_singular
    assert "rank 8 (full)" in ins.info.value and "<b>1</b>" in ins.info.value
    assert ins.decomposition_size == model.compiled().decomposition_size
    assert f"{ins.decomposition_size} operations" in ins.info.value
    ins.close()


def test_inspector_flags_near_singular_pose():
    m = bar_joint_model()  # two bars in a straight line between two pins: a dead point
    m.add_bar_from_point_pair((0, 0), (1, 0))
    m.add_bar_from_point_pair((1, 0), (2, 0))
    m.add_joint([0, 1], [0.5, -0.5])
    m.add_support(0, -0.5, False, False)
    m.add_support(1, 0.5, False, False)
    ins = MatrixInspector(m, backend="static")
    assert ins.near_singular and "near-singular" in ins.info.value
    assert "dependent rows" in ins.info.value
    ins.close()


def test_inspector_formulas(model, monkeypatch):
    ins = MatrixInspector(model, backend="static")
    ins.entry_matrix.value = "J"
    ins.entry_row.value, ins.entry_col.value = 0, 2
    assert ins.show_formula() == "latex"
    assert "$$J_{0,2} = L_{0} s_{J0.0} \\sin" in ins.formula.value
    ins.entry_matrix.value = "W"
    ins.entry_row.value, ins.entry_col.value = 0, 0
    assert ins.show_formula() == "latex" and "\\frac{1}{m_{0}}" in ins.formula.value
    ins.entry_matrix.value = "M"
    ins.entry_row.value, ins.entry_col.value = 0, 1
    ins.show_formula()
    assert "structural zero" in ins.formula.value
    ins.entry_matrix.value = "lambda"
    ins.entry_row.value = 0
    assert ins.show_formula() == "text"  # far too long to typeset
    monkeypatch.setitem(sys.modules, "sympy", None)  # sympy missing: plain text
    ins.entry_matrix.value = "J"
    ins.entry_row.value, ins.entry_col.value = 0, 2
    assert ins.show_formula() == "text" and "sin(th0)" in ins.formula.value
    ins.close()


@pytest.mark.slow
def test_inspector_inactive_waits_and_reports_errors(model):
    ins = MatrixInspector(model, backend="static", active=False)
    assert ins.matrices is None and ins.stale
    ins.active = True
    assert ins.matrices is not None and not ins.stale
    ins.active = False
    model.set_bar_mass(0, 2.0)
    assert ins.stale
    ins.active = True
    assert ins.matrices["M"][0, 0] == 2.0
    ins.set_state(np.zeros(18), "zero state")
    assert ins.state_label == "zero state" and "zero state" in ins.info.value
    empty = MatrixInspector(bar_joint_model(), backend="static")
    assert empty.message.kind == "error" and "no bars" in empty.message.text
    empty.close()
    ins.close()


@pytest.mark.slow
def test_inspector_without_constraints():
    m = bar_joint_model()
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)  # a free bar: J has no rows
    ins = MatrixInspector(m, backend="static")
    assert ins.message.kind == "" and "n − rank J = 3 − 0 = <b>3</b>" in ins.info.value
    assert ins.images["J"].get_array().mask.all()
    m.add_support(0, 0.5, False, False)
    assert ins.images["J"].get_array().shape == (2, 3) and "rank 2 (full)" in ins.info.value
    ins.close()


# ====================================================================== player
@pytest.mark.slow
def test_player_simulates_and_animates(model):
    p = MotionPlayer(model, backend="static", t_end=0.5, n_frames=51)
    assert p.view in p.children  # standalone: its own view
    p.simulate_button.click()
    tr = p.trajectory
    assert tr is not None and tr.n_points == 51 and p.view.trajectory is tr
    assert p.progress.value == 3 and p.progress.bar_style == "success"
    assert p.status.kind == "ok" and "simulated" in p.status.text
    # the plotted physics is the trajectory's
    for line, y in zip(p.energy_lines, (tr.energy, tr.kinetic_energy, tr.potential_energy)):
        np.testing.assert_array_equal(line.get_xdata(), tr.t)
        np.testing.assert_array_equal(line.get_ydata(), y)
    np.testing.assert_array_equal(p.residual_lines[0].get_ydata(), np.maximum(
        np.max(np.abs(tr.position_residual), axis=1), 1e-18))
    shown = list(p.rows.value)  # the rows chosen in the picker: the first six
    assert shown == list(range(6)) and len(p.force_lines) == 6
    for line, k in zip(p.force_lines, shown):
        np.testing.assert_array_equal(line.get_ydata(), tr.lambda_mult[:, k])
    assert p.plots.force_labels == tr.constraint_labels[:6]
    legend = [t.get_text() for t in p.plots.ax_force.get_legend().get_texts()]
    assert legend == tr.constraint_labels[:6]
    assert p.plots.ax_force.get_ylabel() == "λ [N]"
    assert p.plots.ax_energy.get_ylabel() == "energy [J]"
    assert [ax.get_xlabel() for ax in p.figure.axes[:3]] == ["t [s]"] * 3
    p.rows.value = (0, 7)
    assert [ln.get_ydata()[5] for ln in p.force_lines] == [tr.lambda_mult[5, 0],
                                                           tr.lambda_mult[5, 7]]
    assert p.slider.max == 50 and p.play.max == 50
    # Play and slider are linked in the browser (jslink), not through Python
    assert isinstance(p.link, ipywidgets.widgets.widget_link.Link)
    assert p.link.source == (p.play, "value") and p.link.target == (p.slider, "value")
    fast = p.view.pane.n_fast_draws
    p.slider.value = 20
    assert p.frame == 20 and p.view.frame == 20  # traits linked to the slider
    assert_view_shows_q(p.view, model, tr.q[20])
    for c in p.cursors:
        assert c.get_xdata()[0] == pytest.approx(tr.t[20])
    assert p.time_label.value == f"t = {tr.t[20]:.3f} s"
    assert p.view.pane.n_fast_draws == fast + 1  # one blitted frame
    lo = p.plots.ax_force.get_ylim()
    p.plot_kind.value = "reactions"  # on their own range, from 0
    assert len(p.force_lines) == 6 and p.plots.ax_force.get_ylabel() == "|F| [N]"
    r = tr.reactions[0]
    np.testing.assert_allclose(p.force_lines[0].get_ydata(), np.hypot(*r.force.T))
    mags = np.hypot(*np.transpose([x.force for x in tr.reactions], (2, 0, 1)))
    ylim = p.plots.ax_force.get_ylim()
    assert ylim[0] == 0.0 and ylim != lo and ylim[1] < 1.2 * mags.max()
    p.close()


@pytest.mark.slow
def test_player_value_edit_reuses_compiled_code(model):
    ed = ModelEditor(model)
    p = MotionPlayer(model, backend="static", t_end=0.3, n_frames=31)
    p.simulate()
    cs = model.compiled()
    first = p.trajectory
    runs = p.n_runs
    ed.bar_select.value = 1
    ed.bar_mass.value = 7.0  # a value edit: re-simulated at once, same compiled code
    assert p.n_runs == runs + 1 and p.trajectory is not first
    assert p.run_info["reused"] and model.compiled() is cs
    assert "compiled code reused" in p.status.text
    assert not np.allclose(p.trajectory.lambda_mult, first.lambda_mult)
    ed.g.value = 3.0
    assert p.n_runs == runs + 2 and p.run_info["reused"]
    ed.close()
    p.close()


@pytest.mark.slow
def test_player_topology_edit_recompiles_with_progress(model):
    p = MotionPlayer(model, backend="static", t_end=0.2, n_frames=11)
    p.simulate()
    steps = []
    p.progress.observe(lambda ch: steps.append(ch["new"]), names="value")
    model.add_bar_at_attitude(-2.0, 0.0, 0.0, 1.0, 1.0)  # a free bar: new topology
    assert not p.run_info["reused"]
    assert p.trajectory.q.shape[1] == 12
    assert steps[-3:] == [1, 2, 3]  # compiled code, integration, drawing
    p.close()


@pytest.mark.slow
def test_player_reports_invalid_models(model):
    p = MotionPlayer(model, backend="static", t_end=0.2, n_frames=11)
    p.simulate()
    model.add_joint([0, 2], [0.5, 0.5])  # far apart: the pose violates the new joint
    assert p.trajectory is None and p.status.kind == "error"
    assert "violate" in p.status.text and "Assemble" in p.status.text
    assert p.slider.max == 0 and p.progress.bar_style == "danger"
    p.auto.value = False
    model.remove_joint(2)
    assert p.trajectory is None and "press Simulate" in p.status.text
    traj = p.simulate()
    assert traj is p.trajectory and traj.t[-1] == pytest.approx(p.t_end.value)
    assert traj.relative_energy_error() < 1e-10 and traj.max_position_residual() < 1e-10
    p.t_end.value = -1.0  # refused by the field, in its own words; the motion stays
    assert p.simulate() is None and p.trajectory is traj
    assert "time in s: a positive number up to 10000, got -1" in p.status.text
    p.t_end.value, p.n_frames.value = 0.2, 1
    assert p.simulate() is None
    assert "frames: at least 2" in p.status.text and "n_points" not in p.status.text
    empty = MotionPlayer(bar_joint_model(), backend="static")
    assert empty.simulate() is None and "no bars" in empty.status.text
    empty.close()
    p.close()


@pytest.mark.slow
def test_player_singular_pose_keeps_partial_motion():
    m = scissor(1)
    p = MotionPlayer(m, backend="static", t_end=3.0, n_frames=61)
    tr = p.simulate()
    assert tr is not None and tr.t[-1] < 3.0
    assert p.status.kind == "warning" and "stopped at t =" in p.status.text
    assert p.run_info["stopped"] and p.progress.bar_style == "warning"
    p.close()


@pytest.mark.slow
def test_player_exports_gif(model, tmp_path):
    from PIL import Image

    p = MotionPlayer(model, backend="static", t_end=0.2, n_frames=9)
    assert p.export("none.gif") is None
    assert "simulate first" in p.export_message.text
    p.simulate()
    p.slider.value = 4
    steps = []
    p.export_progress.observe(lambda ch: steps.append(ch["new"]), names="value")
    out = p.export("motion.gif")
    assert out == str(tmp_path / "quivira-work" / "motion.gif") and p.export_message.kind == "ok"
    with Image.open(out) as im:
        assert im.n_frames == 9
    assert steps[-1] == 10 and len(steps) >= 3  # progress shown while exporting
    assert p.download.filename == "motion.gif" and "data:image/gif;base64," in p.download.value
    assert p.slider.value == 4 and p.view.time == pytest.approx(p.trajectory.t[4])
    assert p.export("motion.avi") is None
    assert "unknown format" in p.export_message.text
    assert "mp4" not in [v for _, v in p.export_format.options] or ffmpeg_available()
    p.close()


# ====================================================================== studio
@pytest.mark.slow
def test_studio_composes_the_panels(model):
    s = Studio(model, backend="static", t_end=0.3, n_frames=31)
    assert s.editor.model is s.view.model is s.player.model is s.inspector.model is model
    assert s.player.view is s.view
    assert "3 bars" in s.status.value and "0 loads" in s.status.value
    s.editor.add_bar_button.click()
    assert "4 bars" in s.status.value and "bar added" in s.status.value
    assert len(s.view.bar_lines) == 4
    assert not s.inspector.active and s.inspector.stale
    s.tabs.selected_index = 1
    assert s.inspector.active and s.inspector.matrices["M"].shape == (12, 12)
    s.player.simulate_button.click()
    assert "0.3 s simulated" in s.status.value
    s.follow.value = True
    s.player.slider.value = 10
    assert s.inspector.state_label.startswith("frame 10")
    np.testing.assert_allclose(s.inspector.state[:12], s.player.trajectory.q[10])
    s.close()


@pytest.mark.slow
def test_studio_on_an_empty_model():
    m = bar_joint_model()
    s = Studio(m, backend="static", t_end=0.2, n_frames=11)
    s.player.simulate_button.click()
    assert "no bars" in s.player.status.text and s.player.trajectory is None
    s.tabs.selected_index = 1
    assert "no bars" in s.inspector.message.text
    s.editor.add_bar_button.click()  # the player re-runs after edits once Simulate was pressed
    assert s.player.trajectory is not None and len(s.view.bar_lines) == 1
    s.close()


@pytest.mark.slow
def test_studio_load_replaces_model_everywhere(model, tmp_path):
    s = Studio(model, backend="static")
    path = tmp_path / "chain.json"
    chain(3).save(path)
    s.editor.path.value = str(path)
    s.editor.load_button.click()
    # the file's content replaces the model's: the same object, every panel follows
    assert s.model is model and model.n_bars == 3
    assert s.view.model is s.player.model is s.inspector.model is s.editor.model is model
    assert len(s.view.bar_lines) == 3 and "3 bars" in s.status.value
    model.add_bar_at_attitude(5.0, 0.0, 0.0, 1.0, 1.0)  # still observed
    assert len(s.view.bar_lines) == 4 and "4 bars" in s.status.value
    s.close()


@pytest.mark.slow
def test_two_studios_are_independent():
    m1, m2 = four_bar(), chain(2)
    s1 = Studio(m1, backend="static", t_end=0.2, n_frames=11)
    s2 = Studio(m2, backend="static", t_end=0.2, n_frames=11)
    assert s1.view.figure is not s2.view.figure
    s1.editor.bar_x.value = 4.0
    s1.editor.add_bar_button.click()
    assert m1.n_bars == 4 and m2.n_bars == 2
    assert len(s1.view.bar_lines) == 4 and len(s2.view.bar_lines) == 2
    assert "added bar 3" in s1.editor.messages["bars"].text
    assert s2.editor.messages["bars"].text == ""
    s2.player.simulate()
    assert s2.player.trajectory is not None and s1.player.trajectory is None
    s1.close()  # closing one leaves the other working
    s2.editor.bar_select.value = 0
    s2.editor.bar_mass.value = 2.0
    assert m2.bars[0].mass == 2.0 and s2.player.run_info["reused"]
    m1.set_bar_mass(0, 5.0)  # s1 is closed: nothing is drawn for it
    assert len(s1.view.bar_lines) == 4
    s2.close()


@pytest.mark.parametrize("backend", ["static", "ipympl"])
@pytest.mark.slow
def test_closed_studio_releases_its_figures(backend):
    if backend == "ipympl":
        plt.switch_backend("module://ipympl.backend_nbagg")
    try:
        m = four_bar()
        s = Studio(m, backend=backend)
        figs = [weakref.ref(f) for f in (s.view.figure, s.player.figure, s.inspector.figure)]
        again = Studio(m, backend=backend)  # re-running a cell: a second studio
        again.close()
        s.close()
        del s, again
        gc.collect()
        assert all(r() is None for r in figs)
        assert plt.get_fignums() == []
    finally:
        plt.switch_backend("Agg")
