"""A linkage built in the Studio is the linkage built in code from the same numbers.

Lesson 4's first exercise builds a two-cell scissor lattice by clicking: four bars typed by
their ends, *Infer joints*, a pin and a roller, *Simulate*. Each test here drives the widgets as
a user does (typing into the fields, clicking the buttons) and compares with an oracle the
widgets had no part in: the same steps through the model's API, or
:func:`quivira.examples.scissor`. Model data (``to_dict``, the initial state) must be equal,
and so must the motion — the frames, the multipliers and the time at which ``simulate`` stops
before the flat, singular pose.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import quivira  # noqa: E402
from quivira.examples import scissor  # noqa: E402
from quivira_widgets import ModelEditor, Studio  # noqa: E402

LESSON_4 = Path(__file__).resolve().parents[3] / "notebooks" / "04_scissors_and_studio.ipynb"
T_END, FRAMES = 2.0, 401  # the player's run (the lesson's Studio settings)


@pytest.fixture(autouse=True)
def work_in_tmp(tmp_path, monkeypatch):
    """Saves and exports land in a temporary folder, never in the repository."""
    monkeypatch.chdir(tmp_path)


def lattice_ends(cells: int, length: float, angle: float) -> list[tuple[tuple, tuple]]:
    """Return the ends of a scissor lattice's bars, as lesson 4's exercise 1 gives them.

    In cell ``c`` the rising bar runs from ``(0, c h)`` to ``(w, (c + 1) h)`` and the falling
    bar from ``(w, c h)`` to ``(0, (c + 1) h)``, with ``w = L cos α`` and ``h = L sin α``.
    """
    w, h = length * math.cos(angle), length * math.sin(angle)
    ends = []
    for c in range(cells):
        ends.append(((0.0, c * h), (w, (c + 1) * h)))
        ends.append(((w, c * h), (0.0, (c + 1) * h)))
    return ends


def typed(ends: list, text) -> list[tuple[tuple, tuple]]:
    """Return ``ends`` as the numbers the fields read from ``text(v)`` (what is typed)."""
    return [tuple(tuple(float(text(v)) for v in p) for p in pair) for pair in ends]


def build_in_editor(editor: ModelEditor, ends: list, text=None, mode: str = "endpoints") -> None:
    """Add the bars, infer the joints, pin bar 0's lower end and roll bar 1's (free in x).

    ``text`` turns a number into the text typed into a field; None sets ``.value`` to the
    number itself. ``mode`` is the bars section's "endpoints" or "attitude".
    """
    def enter(field, v):
        if text is None:
            field.value = v
        else:
            field.text.value = text(v)

    editor.bar_mode.value = mode
    for (x1, y1), (x2, y2) in ends:
        if mode == "endpoints":
            for field, v in zip((editor.bar_x1, editor.bar_y1, editor.bar_x2, editor.bar_y2),
                                (x1, y1, x2, y2)):
                enter(field, v)
        else:
            enter(editor.bar_x, 0.5 * (x1 + x2))
            enter(editor.bar_y, 0.5 * (y1 + y2))
            enter(editor.bar_theta, math.degrees(math.atan2(y2 - y1, x2 - x1)))
            enter(editor.bar_length, math.hypot(x2 - x1, y2 - y1))
        editor.add_bar_button.click()
        assert editor.messages["bars"].kind == "ok", editor.messages["bars"].text
    editor.infer_joints_button.click()
    assert editor.messages["joints"].kind == "ok", editor.messages["joints"].text
    for bar, free_x in ((0, False), (1, True)):
        editor.support_select.value = -1
        editor.support_bar.value = bar
        editor.support_s.value = -0.5
        editor.support_free_x.value = free_x
        editor.add_support_button.click()
        assert editor.messages["supports"].kind == "ok", editor.messages["supports"].text


def build_in_code(ends: list) -> quivira.BarJointModel:
    """The same steps through the model's API (a bar's mass: the default 1 kg per m)."""
    model = quivira.bar_joint_model()
    for start, end in ends:
        model.add_bar_from_point_pair(start, end)
    model.infer_joints()
    model.add_support(0, -0.5, False, False)
    model.add_support(1, -0.5, True, False)
    return model


def fold(model: quivira.BarJointModel) -> quivira.SingularConfigurationError:
    """Return where ``simulate(..., singular="stop")`` stops the falling lattice."""
    with pytest.raises(quivira.SingularConfigurationError) as info:
        model.simulate(T_END, FRAMES, singular="stop")
    return info.value


def model_data(model: quivira.BarJointModel) -> str:
    """Return the model's data as canonical JSON text (equal text: equal models)."""
    return json.dumps(model.to_dict(), sort_keys=True)


def assert_same_motion(run: quivira.Trajectory, oracle: quivira.Trajectory,
                       atol_q: float, rtol_lam: float) -> None:
    """The same frames, positions and multipliers (up to the tolerances given)."""
    assert run.n_points == oracle.n_points
    np.testing.assert_array_equal(run.t, oracle.t)
    np.testing.assert_allclose(run.q, oracle.q, rtol=0, atol=atol_q)
    assert run.constraint_labels == oracle.constraint_labels
    scale = np.max(np.abs(oracle.lambda_mult))
    np.testing.assert_allclose(run.lambda_mult, oracle.lambda_mult, rtol=0,
                               atol=rtol_lam * scale)


# ------------------------------------------------------------------------------------------
# the lattice of lesson 4's exercise 1, typed into a Studio that has simulated before
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [lambda v: f"{v:.6f}", lambda v: f"{v:.12g}"],
                         ids=["six decimals", "twelve digits"])
@pytest.mark.slow
def test_lattice_typed_in_the_studio_is_the_lattice_built_in_code(text):
    studio = Studio(scissor(3), backend="static", t_end=T_END, n_frames=FRAMES)
    player, editor = studio.player, studio.editor
    player.simulate_button.click()  # the lesson's run: from now on, edits re-simulate
    editor.new_button.click()
    model = studio.model
    ends = lattice_ends(2, 1.0, 0.6)
    build_in_editor(editor, ends, text)
    assert player.n_runs > 4  # the loose bars fell, run after run, while they were added
    oracle = build_in_code(typed(ends, text))
    assert model_data(model) == model_data(oracle)
    assert model.get_initial_state() == oracle.get_initial_state()  # nothing carried over
    assert model.degrees_of_freedom() == oracle.degrees_of_freedom() == 1
    stop, stop_oracle = fold(model), fold(oracle)
    assert stop.t == stop_oracle.t and stop.reason == stop_oracle.reason
    # what the player shows is that motion, multipliers and all
    assert player.run_revision == model.revision and player.run_info["stopped"]
    assert_same_motion(player.trajectory, stop_oracle.trajectory, 0.0, 0.0)
    studio.close()


@pytest.mark.slow
def test_lattice_typed_to_twelve_digits_moves_like_scissor():
    studio = Studio(quivira.bar_joint_model(), backend="static", t_end=T_END,
                    n_frames=FRAMES)
    build_in_editor(studio.editor, lattice_ends(2, 1.0, 0.6), lambda v: f"{v:.12g}")
    studio.player.simulate_button.click()
    stop = fold(scissor(2))
    assert studio.model.degrees_of_freedom() == 1
    assert fold(studio.model).t == pytest.approx(stop.t, rel=0, abs=1e-9)
    assert_same_motion(studio.player.trajectory, stop.trajectory, 1e-9, 1e-9)
    studio.close()


# ------------------------------------------------------------------------------------------
# lattices of other bar lengths, entered to full precision: the model of scissor(2, length=L)
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["endpoints", "attitude"])
@pytest.mark.parametrize("length", [2.0, 0.5])
@pytest.mark.slow
def test_lattice_of_any_bar_length_is_scissor(length, mode):
    studio = Studio(quivira.bar_joint_model(), backend="static", t_end=T_END,
                    n_frames=FRAMES)
    build_in_editor(studio.editor, lattice_ends(2, length, 0.6), mode=mode)
    studio.player.simulate_button.click()
    model, oracle = studio.model, scissor(2, length=length)
    for bar, bar_oracle in zip(model.bars, oracle.bars, strict=True):
        assert bar.length == pytest.approx(bar_oracle.length, rel=1e-13)
        assert bar.mass == pytest.approx(bar_oracle.mass, rel=1e-13)  # 1 kg per m, every bar
        assert bar.pose == pytest.approx(bar_oracle.pose, rel=0, abs=1e-13)
    assert [(j.bars, j.s) for j in model.joints] == [(j.bars, j.s) for j in oracle.joints]
    assert [(s.bar, s.s, s.free_x, s.free_y) for s in model.supports] == [
        (s.bar, s.s, s.free_x, s.free_y) for s in oracle.supports]
    stop, stop_oracle = fold(model), fold(oracle)
    assert stop.t == pytest.approx(stop_oracle.t, rel=0, abs=1e-8)
    assert stop.reason == stop_oracle.reason
    assert_same_motion(studio.player.trajectory, stop_oracle.trajectory, 1e-9, 1e-6)
    studio.close()


# ------------------------------------------------------------------------------------------
# the values the editor gives the model
# ------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_new_bar_mass_follows_its_length_until_a_mass_is_typed():
    model = quivira.bar_joint_model()
    oracle = quivira.bar_joint_model()
    editor = ModelEditor(model)
    editor.bar_mode.value = "endpoints"
    editor.bar_x1.value, editor.bar_y1.value = 0.0, 0.0
    editor.bar_x2.value, editor.bar_y2.value = 3.0, 4.0
    assert editor.bar_mass.value == 5.0  # what the next bar will weigh, shown
    editor.add_bar_button.click()
    oracle.add_bar_from_point_pair((0.0, 0.0), (3.0, 4.0))
    # a typed mass is kept, whatever the length, and given to the bar as typed
    editor.bar_mass.text.value = "0.9"
    editor.bar_x1.value, editor.bar_y1.value = 1.0, 1.0
    editor.bar_x2.value, editor.bar_y2.value = 4.0, 1.0
    assert editor.bar_mass.value == 0.9
    editor.add_bar_button.click()
    oracle.add_bar_from_point_pair((1.0, 1.0), (4.0, 1.0), mass=0.9)
    # the next template follows its own length again, by attitude too
    editor.bar_mode.value = "attitude"
    editor.bar_x.value, editor.bar_y.value, editor.bar_theta.value = 0.0, -1.0, 90.0
    editor.bar_length.value = 2.5
    assert editor.bar_mass.value == 2.5
    editor.add_bar_button.click()
    oracle.add_bar_from_point_pair((0.0, -2.25), (0.0, 0.25))
    assert [b.mass for b in model.bars] == [b.mass for b in oracle.bars]
    assert [b.length for b in model.bars] == [b.length for b in oracle.bars]
    editor.close()


def test_editing_one_coordinate_of_a_support_keeps_the_other_exact():
    model = quivira.bar_joint_model()
    model.add_bar_from_point_pair((0.0, 0.0), (math.cos(0.6), math.sin(0.6)))
    model.add_support(0, 0.5, False, False)  # at the bar's end: more digits than shown
    x0, y0 = model.supports[0].x, model.supports[0].y
    assert (x0, y0) == (math.cos(0.6), math.sin(0.6))
    editor = ModelEditor(model)
    editor.support_select.value = 0
    editor.support_at_point.value = False
    editor.support_x.value = 0.25
    assert (model.supports[0].x, model.supports[0].y) == (0.25, y0)
    editor.support_y.value = -0.5
    assert (model.supports[0].x, model.supports[0].y) == (0.25, -0.5)
    editor.close()


# ------------------------------------------------------------------------------------------
# lesson 4: solution 1 runs as printed on the lattice exercise 1 builds
# ------------------------------------------------------------------------------------------

def solution_code(number: int) -> str:
    """Return the Python block of lesson 4's solution ``number``, as printed."""
    cells = json.loads(LESSON_4.read_text(encoding="utf-8"))["cells"]
    text = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    found = re.findall(rf"<summary><b>Solution {number} .*?</details>", text, flags=re.S)
    assert len(found) == 1, f"lesson 4 should have one solution {number}"
    blocks = re.findall(r"```python\n(.*?)```", found[0], flags=re.S)
    assert len(blocks) == 1, f"solution {number} should print one Python block"
    return blocks[0]


@pytest.mark.slow
def test_lesson_4_solution_1_runs_as_printed():
    studio = Studio(quivira.bar_joint_model(), backend="static")
    # exercise 1: typed to the twelve digits the fields show
    build_in_editor(studio.editor, lattice_ends(2, 1.0, 0.6), lambda v: f"{v:.12g}")
    studio.player.simulate_button.click()
    namespace = {"studio": studio, "scissor": scissor, "np": np, "math": math,
                 "quivira": quivira}
    exec(compile(solution_code(1), "lesson 4, solution 1", "exec"), namespace)
    studio.close()
