"""Inputs that never lie: refused values say what is expected, fresh defaults, no escaping
exception — every button clicked after every bad value, as the fuzzing campaign did."""

from __future__ import annotations

import json
import logging
import math

import matplotlib

matplotlib.use("Agg")

import ipywidgets as widgets  # noqa: E402
import pytest  # noqa: E402

from quivira import BarJointModel  # noqa: E402
from quivira.examples import four_bar  # noqa: E402
from quivira_widgets import (  # noqa: E402
    ModelEditor,
    Studio,
    _guard,  # noqa: E402
)
from quivira_widgets._fields import (  # noqa: E402
    ListField,
    NumberField,
    NumberSpec,
    OptionalNumberField,
    _Field,
)
from quivira_widgets._specs import (  # noqa: E402
    COORD_X,
    FRAMES,
    GRAVITY,
    LENGTH,
    MAX_T_END,
    TIME,
)
from quivira_widgets._wording import plain  # noqa: E402

BAD = ["abc", "", "nan", "inf", "-inf", "1e400", "-1e400", "1e-400", "0x10", "1,5", "True",
       "[1]", "1e20", "-1", "0"]


@pytest.fixture(autouse=True)
def work_in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def walk(root):
    """Every widget below ``root``."""
    seen, stack = set(), [root]
    while stack:
        w = stack.pop()
        if id(w) in seen:
            continue
        seen.add(id(w))
        yield w
        stack.extend(getattr(w, "children", ()) or ())


# ====================================================================== parsing
@pytest.mark.parametrize("text, message", [
    ("abc", "length in m: a positive number up to 1e+06, got 'abc'"),
    ("", "length in m: a positive number up to 1e+06, got an empty field"),
    ("nan", "length in m: a positive number up to 1e+06, got 'nan'"),
    ("1e400", "length in m: a positive number up to 1e+06, got '1e400' (too large)"),
    ("1e-400", "rounds to 0"),
    ("1,5", "(write a point for decimals, e.g. 1.5)"),
    ("0", "length in m: a positive number up to 1e+06, got '0'"),
    ("-2", "length in m: a positive number up to 1e+06, got '-2'"),
    ("1e7", "length in m: at most 1e+06"),
])
def test_length_spec_names_what_is_expected(text, message):
    with pytest.raises(ValueError) as info:
        LENGTH.parse(text)
    assert message in str(info.value)


def test_specs_accept_and_warn():
    assert LENGTH.parse(" 2.5 ") == (2.5, "")
    assert COORD_X.parse("−3e-2") == (-0.03, "")  # a typographic minus is a minus
    value, warning = GRAVITY.parse("-9.81")
    assert value == -9.81 and "gravity points up" in warning
    value, warning = LENGTH.parse("2e4")
    assert value == 2e4 and "unusually large" in warning
    assert FRAMES.parse("201") == (201, "")
    with pytest.raises(ValueError, match="frames: a whole number from 2 to 100000, got '2.5'"):
        FRAMES.parse("2.5")
    with pytest.raises(ValueError, match="at most 10000 .the Studio's simulation budget."):
        TIME.parse("1e20")
    assert TIME.hi == MAX_T_END == 1e4


def test_field_keeps_typed_text_until_corrected():
    f = NumberField(NumberSpec("length", "m", positive=True), 1.0)
    seen = []
    f.observe(lambda ch: seen.append(ch["new"]), names="value")
    f.text.value = "abc"
    assert f.text.value == "abc" and f.value == 1.0 and seen == []
    assert f.error == "length in m: a positive number, got 'abc'"
    assert "quivira-invalid" in f._dom_classes and "got &#x27;abc&#x27;" in f.message.widget.value
    f.text.value = "2.50"
    assert f.value == 2.5 and f.error == "" and f.text.value == "2.50" and seen == [2.5]
    assert "quivira-invalid" not in f._dom_classes and f.message.widget.value == ""
    f.value = 1.23456789012345678  # from code: exact, the text shows 12 digits
    assert f.value == 1.23456789012345678 and f.text.value == "1.23456789012"


def test_list_field_parses_in_the_kernel():
    f = ListField("bars", "index", [0, 1])
    f.text.value = "0; 2 3"
    assert f.value == [0, 2, 3] and f.error == ""
    f.text.value = "1"
    assert "two or more bar numbers" in f.error and f.value == [0, 2, 3]
    s = ListField("points s", "s", [0.5, -0.5])
    s.text.value = "0.5, 0.7"
    assert "each point from -0.5 (start) to 0.5 (end); got 0.7" in s.error


def test_core_messages_in_the_words_of_the_fields():
    assert plain("t_end must be positive, got -1.0") == "the time span must be positive, got -1.0"
    assert plain("n_points must be an integer >= 2") == (
        "the number of frames must be an integer >= 2")
    assert plain("joint 2: bar_index[1] = 7 out of range") == (
        "joint 2: the 2nd bar of the list = 7 out of range")


# ====================================================================== defaults
def test_new_bar_starts_fresh_near_the_view_centre():
    m = four_bar()
    s = Studio(m, backend="static")
    ed = s.editor
    ed.bar_select.value = 1  # a bar selected: its values in the fields ...
    assert ed.bar_length.value == pytest.approx(m.bars[1].length)
    assert ed.add_bar_button.disabled  # ... and Add needs "+ new bar"
    ed.bar_select.value = -1  # "+ new bar": fresh defaults, not a copy of bar 1
    cx, cy = (0.5 * (s.view.limits[0] + s.view.limits[1]),
              0.5 * (s.view.limits[2] + s.view.limits[3]))
    # the view's centre, rounded to three digits to be easy to read
    assert (ed.bar_x.value, ed.bar_y.value, ed.bar_theta.value) == (
        float(f"{cx:.3g}"), float(f"{cy:.3g}"), 0.0)
    assert abs(ed.bar_x.value - cx) < 0.01 and abs(ed.bar_y.value - cy) < 0.01
    cx, cy = ed.bar_x.value, ed.bar_y.value
    assert ed.bar_length.value == pytest.approx(sorted(b.length for b in m.bars)[1])
    ed.add_bar_button.click()
    new = m.bars[3]
    assert new.pose[:2] == pytest.approx((cx, cy), abs=1e-9) and new.pose[2] == 0.0
    assert all(new.pose[:2] != b.pose[:2] for b in m.bars[:3])
    assert "it is free" in ed.messages["bars"].text
    ed.add_bar_button.click()  # the next one does not land on the first
    assert m.bars[4].pose[:2] != m.bars[3].pose[:2]
    s.close()


def test_g_below_zero_and_large_values_warn():
    m = four_bar()
    ed = ModelEditor(m)
    ed.g.text.value = "-1"
    assert m.g == -1.0 and ed.g.warning.startswith("g < 0") and "quivira-warned" in \
        ed.g._dom_classes
    ed.bar_select.value = 0
    ed.bar_mass.text.value = "5e6"
    assert m.bars[0].mass == 5e6 and "unusually large" in ed.bar_mass.warning
    ed.close()


@pytest.mark.slow
def test_studio_fields_refuse_what_exceeds_the_budget():
    m = four_bar()
    s = Studio(m, backend="static", t_end=0.2, n_frames=11)
    p = s.player
    p.t_end.text.value = "1e20"
    assert p.t_end.error.startswith("time in s: at most 10000")
    assert p.status.kind == "error" and "budget" in p.status.text
    p.simulate_button.click()
    assert p.trajectory is None and "correct the marked field" in p.status.text
    p.n_frames.text.value = "100000000"
    assert "frames: at most 100000" in p.n_frames.error
    p.t_end.text.value, p.n_frames.text.value = "0.2", "11"
    p.simulate_button.click()
    assert p.trajectory is not None and p.status.kind == "ok"
    s.editor.toolbar.example_n.text.value = "500"  # examples too: chain(500) compiles long
    assert "n: at most 40" in s.editor.toolbar.example_n.error
    s.close()


# ====================================================================== fuzz
def _fields(root) -> list[_Field]:
    return [w for w in walk(root) if isinstance(w, _Field)]


def _buttons(root) -> list[widgets.Button]:
    return [w for w in walk(root) if isinstance(w, widgets.Button)]


@pytest.mark.slow
def test_every_button_after_every_bad_value(caplog):
    """The fuzzing campaign's recipe: type a bad value into every field, then click every
    button; nothing may escape a handler, nothing unexpected may be caught, and every refused
    field says why next to it. The model has springs and actuators made in the editor, so
    their fields are fuzzed with an item selected, too."""
    m = four_bar()
    m.add_spring_damper(1, 0.0, 2, 0.0, k=20.0, c=0.5)
    m.add_torsional_spring(0, 1, k=3.0)
    s = Studio(m, backend="static", t_end=0.2, n_frames=11)
    s.editor.actuator_kind.value = "force"
    s.editor.add_actuator_button.click()
    s.editor.actuator_kind.value = "torque"
    s.editor.add_actuator_button.click()
    assert len(m.load_names) == 4
    s.player.simulate_button.click()  # from now on edits re-simulate
    s.editor.sections.selected_index = 0
    _guard.UNEXPECTED.clear()
    caplog.set_level(logging.WARNING)
    texts = [w for w in walk(s) if isinstance(w, widgets.Text)
             and not any(w is f.text for f in _fields(s))]
    n_clicks = 0
    for bad in BAD:
        for sel in (s.editor.bar_select, s.editor.joint_select, s.editor.support_select,
                    s.editor.force_select, s.editor.spring_select, s.editor.actuator_select):
            if len(sel.options) > 1 and bad in ("abc", "nan", "1e20"):
                # edit an existing item, too (the last one: a torsional spring, a torque)
                sel.value = sel.options[1 if bad != "1e20" else -1][1]
        for f in _fields(s):
            if f.disabled:
                continue
            f.text.value = bad
            if isinstance(f, OptionalNumberField) and not bad.strip():
                assert f.error == "" and f.value is None, f.description  # empty: "initial"
            elif isinstance(f, NumberField):
                try:
                    f.spec.parse(bad)
                except ValueError as exc:
                    assert f.error == str(exc), (f.description, bad)
                    assert f.message.text == str(exc)
        for t in texts:
            t.value = bad
        for b in _buttons(s):
            if b.disabled:
                continue
            b.click()
            n_clicks += 1
        assert _guard.UNEXPECTED == [], (bad, _guard.UNEXPECTED)
        escaped = [r for r in caplog.records if "Exception in callback" in r.getMessage()]
        assert escaped == [], (bad, escaped[0].getMessage())
        # the model is always one the core accepts
        BarJointModel.from_dict(json.loads(json.dumps(m.to_dict())))
    assert n_clicks > 10 * len(BAD)
    # after all that the Studio still works
    s.editor.toolbar.example.value = "four_bar"
    s.editor.toolbar.example_button.click()
    s.player.t_end.value, s.player.n_frames.value = 0.2, 11
    s.player.auto.value = True
    s.player.simulate_button.click()
    assert s.player.trajectory is not None and math.isclose(s.player.trajectory.t[-1], 0.2)
    s.close()


def test_unexpected_exceptions_are_shown_and_counted():
    shown = []
    _guard.UNEXPECTED.clear()

    @_guard.guarded(shown.append, "test")
    def boom():
        raise ZeroDivisionError("float division by zero")

    assert boom() is None
    assert shown == ["unexpected ZeroDivisionError: float division by zero — please report this"]
    assert len(_guard.UNEXPECTED) == 1
    _guard.UNEXPECTED.clear()

    @_guard.guarded(shown.append)
    def refused():
        raise ValueError("t_end must be positive")

    refused()
    assert shown[-1] == "the time span must be positive" and _guard.UNEXPECTED == []
