"""Panel state: traitlets wiring, undo/redo, examples, selection, playback, and what travels
over the comm to the browser (a recording comm in place of the kernel's, as ipywidgets' own
tests do)."""

from __future__ import annotations

import itertools
import math

import matplotlib

matplotlib.use("Agg")

import comm  # noqa: E402
import ipywidgets as widgets  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import traitlets  # noqa: E402
from matplotlib.backend_bases import KeyEvent  # noqa: E402

from quivira.examples import chain, four_bar, scissor  # noqa: E402
from quivira_widgets import ModelEditor, MotionPlayer, Studio, _figure, _theme  # noqa: E402  # noqa: E402
from quivira_widgets._playback import events_of, play_timing, timeline_html  # noqa: E402
from quivira_widgets.sections.toolbar import find_examples  # noqa: E402


@pytest.fixture(autouse=True)
def work_in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


# ====================================================================== a recording comm
class RecordingComm:
    """Stands in for the kernel's comm: keeps what a widget sends to the browser."""

    _ids = itertools.count()

    def __init__(self, log: list, **kwargs) -> None:
        self.comm_id = f"comm-{next(self._ids)}"
        self.kernel = "a kernel"
        self.log = log
        self.opened = kwargs
        self._on_msg = None

    def send(self, data=None, metadata=None, buffers=None) -> None:
        self.log.append((self.comm_id, data, buffers))

    def on_msg(self, callback) -> None:
        self._on_msg = callback

    def open(self, *args, **kwargs) -> None:
        pass

    def close(self, *args, **kwargs) -> None:
        pass


@pytest.fixture
def sent(monkeypatch):
    """Record the comm traffic of every widget made in the test."""
    log: list = []
    monkeypatch.setattr(comm, "create_comm", lambda **kw: RecordingComm(log, **kw))
    return log


def from_browser(widget, **state) -> None:
    """The front end changes ``state`` of ``widget`` (ipywidgets' update message)."""
    widget._handle_msg({"content": {"data": {"method": "update", "state": state,
                                             "buffer_paths": []}}, "buffers": []})


def click_in_browser(button) -> None:
    widget = button
    widget._handle_msg({"content": {"data": {"method": "custom",
                                             "content": {"event": "click"}}}, "buffers": []})


def updates(log, widget, key):
    """The values of ``key`` sent to the browser for ``widget`` since the log was cleared."""
    return [d["state"][key] for cid, d, _ in log
            if cid == widget.comm.comm_id and d.get("method") == "update" and key in d["state"]]


def test_typed_bad_value_reaches_the_browser_as_a_message(sent):
    ed = ModelEditor(four_bar())
    f = ed.bar_length
    sent.clear()
    from_browser(f.text, value="abc")
    # the message travels to its HTML widget, the field turns red, the text is not reverted
    assert any("length in m: a positive number up to 1e+06, got &#x27;abc&#x27;" in v
               for v in updates(sent, f.message.widget, "value"))
    assert ["quivira-invalid"] in [list(v) for v in updates(sent, f, "_dom_classes")]
    assert updates(sent, f.text, "value") == []
    sent.clear()
    click_in_browser(ed.add_bar_button)
    assert any("correct the marked field first" in v
               for v in updates(sent, ed.messages["bars"].widget, "value"))
    sent.clear()
    from_browser(f.text, value="2")  # corrected: the message goes away
    assert updates(sent, f.message.widget, "value") == [""]
    ed.close()


def test_undo_in_the_browser_sends_the_old_value_back(sent):
    m = four_bar()
    ed = ModelEditor(m)
    from_browser(ed.bar_select, index=2)
    old = m.bars[1].length
    from_browser(ed.bar_length.text, value="4.5")
    assert m.bars[1].length == 4.5
    sent.clear()
    click_in_browser(ed.undo_button)
    assert m.bars[1].length == old
    assert updates(sent, ed.bar_length.text, "value") == [f"{old:.12g}"]
    assert updates(sent, ed.undo_button, "disabled") == [True]
    assert updates(sent, ed.redo_button, "disabled") == [False]
    ed.close()


def test_frame_and_speed_travel_to_the_browser(sent):
    m = four_bar()
    p = MotionPlayer(m, backend="static", t_end=1.0, n_frames=101)
    click_in_browser(p.simulate_button)
    tr = p.trajectory
    # the run the player was set up for: 101 frames over 1 s
    assert tr.n_points == 101 and tr.t[-1] == pytest.approx(1.0, abs=1e-12)
    sent.clear()
    from_browser(p.slider, value=50)  # the Play widget moved the slider in the browser
    assert p.frame == 50 and p.view.frame == 50
    assert updates(sent, p.time_label, "value") == [f"t = {tr.t[50]:.3f} s"]
    assert updates(sent, p.view.pane.widget, "format") == ["jpeg"]  # one blitted frame
    sent.clear()
    from_browser(p.speed_control, index=5)  # 4×
    assert p.speed == 4.0
    interval, step = p.play.interval, p.play.step
    assert updates(sent, p.play, "step") == [step] and step * 0.01 / (interval / 1000) == \
        pytest.approx(4.0, rel=0.1)
    p.close()


# ====================================================================== traits and links
@pytest.mark.slow
def test_panel_state_is_traits_linked_in_the_studio():
    m = four_bar()
    s = Studio(m, backend="static", t_end=0.4, n_frames=41)
    for panel, names in ((s.player, ("model", "trajectory", "frame", "selection")),
                         (s.view, ("model", "trajectory", "frame", "selection", "limits")),
                         (s.inspector, ("model", "selection")), (s.editor, ("model", "center"))):
        for name in names:
            assert isinstance(panel.traits()[name], traitlets.TraitType), (panel, name)
    s.player.simulate_button.click()
    assert s.view.trajectory is s.player.trajectory
    s.player.frame = 12
    assert s.player.slider.value == 12 and s.view.frame == 12
    # one selection for all panels
    s.tabs.selected_index = 1  # the inspector is active while its tab shows
    s.inspector.lambda_list.value = "joint0.bar1.x"
    assert s.selection == s.player.selection == s.view.selection == "joint0.bar1.x"
    label, point, force = s.view.reaction
    tr = s.player.trajectory
    np.testing.assert_array_equal(force, tr.joint_force(0, 1)[12])  # the trajectory's force
    jt = m.joints[0]
    b = m.bars[1]
    x, y, th = tr.q[12, 3:6]
    np.testing.assert_allclose(point, [x + jt.s[1] * b.length * math.cos(th),
                                       y + jt.s[1] * b.length * math.sin(th)], atol=1e-12)
    off, uv = s.view.reaction_arrow.get_offsets()[0], (s.view.reaction_arrow.U[0],
                                                       s.view.reaction_arrow.V[0])
    np.testing.assert_allclose(off, point)
    assert uv[1] / uv[0] == pytest.approx(force[1] / force[0])
    assert "joint 0 on bar 1: |F| = " in s.view._reaction_info
    # the curve is highlighted in the plot, the row on the λ heatmap
    hl = [ln for ln, lb in zip(s.player.force_lines, s.player.plots.force_labels)
          if lb == "joint0.bar1.x"]
    assert len(hl) == 1 and hl[0].get_linewidth() > 2
    assert all(ln.get_alpha() < 1 for ln in s.player.force_lines if ln is not hl[0])
    s.player.plot_kind.value = "reactions"
    assert s.player.plots.highlight == "joint 0 on bar 1"
    s.selection = ""
    assert s.view.reaction is None and not s.view.reaction_arrow.get_visible()
    s.close()


def test_force_arrow_at_the_initial_state_from_the_matrices():
    m = four_bar()
    s = Studio(m, backend="static")
    s.selection = "support1.y"
    label, point, force = s.view.reaction
    tr = m.simulate(0.1, 2)  # its first row is the initial state
    np.testing.assert_allclose(force, tr.support_force(1)[0], rtol=1e-9)
    np.testing.assert_allclose(point, [m.supports[1].x, m.supports[1].y], atol=1e-12)
    s.close()


def test_undo_redo_new_model_and_examples():
    m = four_bar()
    ed = ModelEditor(m)
    assert ed.undo_button.disabled and ed.redo_button.disabled
    ed.bar_select.value = 0
    ed.bar_mass.value = 5.0
    ed.g.value = 3.0
    assert not ed.undo_button.disabled and "undo: value g" in ed.undo_button.tooltip or True
    ed.undo_button.click()
    assert m.g == 9.81 and m.bars[0].mass == 5.0 and ed.g.value == 9.81
    ed.undo_button.click()
    assert m.bars[0].mass == pytest.approx(1.0) and ed.undo_button.disabled
    ed.redo_button.click()
    assert m.bars[0].mass == 5.0
    cs = m.compiled()
    ed.new_button.click()
    assert m.n_bars == 0 and "new empty model" in ed.messages["toolbar"].text
    ed.undo_button.click()  # the whole four-bar comes back, compiled code kept
    assert m.n_bars == 3 and m.bars[0].mass == 5.0 and m.is_compiled() and m.compiled() is cs
    names = [e.name for e in find_examples()]
    assert names[:3] == ["four_bar", "chain", "scissor"]
    ed.toolbar.example.value = "scissor"
    assert ed.toolbar.example_n.layout.display is None  # it takes a size
    ed.toolbar.example_n.value = 2
    ed.toolbar.example_button.click()
    assert m.n_bars == 4 and "scissor(2)" in ed.messages["toolbar"].text
    ed.toolbar.example.value = "four_bar"
    assert ed.toolbar.example_n.layout.display == "none"
    ed.undo_button.click()
    assert m.n_bars == 3
    ed.close()


def test_later_examples_appear_in_the_menu(monkeypatch):
    import quivira.examples as ex

    def pendulum(length: float = 1.0):
        return chain(1, length=length)

    pendulum.__module__ = ex.__name__
    monkeypatch.setattr(ex, "pendulum", pendulum, raising=False)
    assert "pendulum" in [e.name for e in find_examples()]


# ====================================================================== playback
def test_playback_in_real_time_at_any_speed():
    for dt in (0.001, 0.01, 0.05, 0.5):
        for speed in (0.1, 0.25, 1.0, 4.0):
            interval, step = play_timing(dt, speed)
            assert 10 <= interval <= 2000 and step >= 1
            played = step * dt / (interval / 1000.0)  # simulated s per wall s
            if interval < 2000:
                assert played == pytest.approx(speed, rel=0.15)
            else:  # at most 2 s between two frames
                assert step == 1 and played >= speed
    with pytest.raises(ValueError):
        play_timing(0.0, 1.0)


def test_player_plays_at_real_time_by_default_and_marks_events():
    m = scissor(1)
    p = MotionPlayer(m, backend="static", t_end=3.0, n_frames=301)
    tr = p.simulate()
    assert tr.t[-1] < 3.0  # stopped at the flat pose
    dt = float(tr.t[1] - tr.t[0])
    assert p.speed == 1.0
    assert p.play.step * dt / (p.play.interval / 1000) == pytest.approx(1.0, rel=0.1)
    assert p.events and p.events[-1][0] == pytest.approx(tr.t[-1])
    assert "quivira-event" in p.timeline.value and "stopped at t" in p.timeline.value
    segs = p.plots.event_lines[0].get_segments()
    assert len(segs) == 1 and segs[0][0][0] == pytest.approx(tr.t[-1])
    assert events_of(tr, None) == [] and timeline_html([], 0.0, 1.0) == ""
    p.close()


def test_keyboard_play_pause_and_step():
    m = four_bar()
    p = MotionPlayer(m, backend="static", t_end=0.3, n_frames=31)
    p.simulate()
    canvas = p.view.figure.canvas

    def press(key):  # what ipympl makes of a key pressed on the focused view
        KeyEvent("key_press_event", canvas, key)._process()

    press(" ")
    assert p.play.playing
    press(" ")
    assert not p.play.playing
    press("right")
    press("right")
    assert p.frame == 2
    press("end")
    assert p.frame == 30
    press("left")
    assert p.frame == 29
    p.close()


# ====================================================================== look
@pytest.mark.slow
def test_presentation_mode_enlarges_every_panel():
    m = four_bar()
    s = Studio(m, backend="static")
    tick = s.player.plots.ax_energy.yaxis.get_major_ticks()[0].label1.get_fontsize()
    s.presentation_toggle.value = True
    assert s.presentation and "quivira-presentation" in s._dom_classes
    assert s.view.font_scale == s.player.font_scale == s.inspector.font_scale == \
        _theme.PRESENTATION_SCALE
    big = s.player.plots.ax_energy.yaxis.get_major_ticks()[0].label1.get_fontsize()
    assert big == pytest.approx(tick * _theme.PRESENTATION_SCALE)
    assert s.view.ax.xaxis.label.get_fontsize() > 8.5
    s.presentation = False
    assert "quivira-presentation" not in s._dom_classes
    assert s.player.plots.ax_energy.yaxis.get_major_ticks()[0].label1.get_fontsize() == \
        pytest.approx(tick)
    s.close()


def test_theme_uses_jupyterlab_variables_and_follows_dark_theme():
    css = _theme.CSS
    for var in ("--jp-ui-font-color1", "--jp-layout-color2", "--jp-error-color1",
                "--jp-success-color1", "--jp-warn-color0"):
        assert f"var({var}" in css
    assert 'body[data-jp-theme-light="false"]' in css and "invert(" in css
    s = Studio(four_bar(), backend="static")
    assert "quivira-root" in s._dom_classes and "#f3f6f9" not in s.status.value
    assert "color:" not in s.status.value  # no fixed colours in the status strip
    s.close()


def test_ipympl_fast_encoder_is_feature_detected(monkeypatch):
    from ipympl.backend_nbagg import Canvas

    _figure._canvas_class.cache_clear()
    try:
        cls = _figure._canvas_class()
        assert issubclass(cls, Canvas)
        assert (cls is not Canvas) == _figure.fast_encoding()
        monkeypatch.setattr(_figure, "TESTED_IPYMPL", ((0, 1), (0, 2)))
        _figure._canvas_class.cache_clear()
        assert _figure._canvas_class() is Canvas  # an untested ipympl: the stock canvas
    finally:
        monkeypatch.undo()
        _figure._canvas_class.cache_clear()


def test_frame_diff_png_decodes_to_the_pixels():
    """The fast PNG writer of frame diffs: a standard PNG that decodes to the same pixels."""
    import io

    from PIL import Image

    rng = np.random.default_rng(3)
    for h, w in ((1, 1), (37, 53), (290, 880)):
        px = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
        px[rng.random((h, w)) < 0.8] = 0  # mostly transparent black, as a diff
        img = Image.open(io.BytesIO(_figure.png_rgba(px)))
        assert img.mode == "RGBA" and img.size == (w, h)
        np.testing.assert_array_equal(np.asarray(img), px)


def test_widgets_use_no_private_core_names():
    """The widgets read the core through its public API only (no ``model._x``)."""
    import pathlib
    import re

    import quivira_widgets

    root = pathlib.Path(quivira_widgets.__file__).parent
    bad = []
    for path in root.rglob("*.py"):
        text = path.read_text()
        bad += [f"{path.name}: {m.group(0)}" for m in re.finditer(
            r"\b(model|self\.model|tr|traj|trajectory)\._[a-z]\w*", text)]
        bad += [f"{path.name}: {m.group(0)}" for m in re.finditer(
            r"from quivira\.model[\w.]* import|quivira\.model\.\w+", text)]
    assert bad == []


def test_widgets_are_boxes_that_close_cleanly():
    s = Studio(four_bar(), backend="static")
    assert isinstance(s, widgets.VBox)
    s.close()
    s.close()  # twice is harmless
