"""Springs, dampers and actuators in the widgets, headless: editor, view and player.

Elements are added by typing into the editor's fields and clicking its buttons; each time the
model must be what the core's API gives for the same element (``to_dict`` compared). Value
edits must re-simulate with the compiled code reused. What the view draws and what the player
plots is compared with numbers computed here with numpy from the trajectory's arrays (bar
points from ``q``, the ledger from ``energy_ledger()``), never with what the widgets print.
"""

from __future__ import annotations

import json
import math

import matplotlib

matplotlib.use("Agg")

import heyoka as hy  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from quivira import BarJointModel  # noqa: E402
from quivira.examples import four_bar  # noqa: E402
from quivira_widgets import ModelEditor, MotionPlayer, Studio, _guard  # noqa: E402
from quivira_widgets._fields import NumberField, OptionalNumberField  # noqa: E402
from quivira_widgets._laws import Law, read_law  # noqa: E402
from quivira_widgets._modelinfo import by_collection
from quivira_widgets.sections.base import GROUND  # noqa: E402

HOSTILE = ["abc", "", "nan", "inf", "-inf", "1e400", "1e-400", "0x10", "1,5", "True", "[1]",
           "1e20", "-1", "1e12"]


@pytest.fixture(autouse=True)
def no_unexpected(tmp_path, monkeypatch):
    """Work in a temporary folder; no handler may have caught an unexpected exception."""
    monkeypatch.chdir(tmp_path)
    _guard.UNEXPECTED.clear()
    yield
    assert _guard.UNEXPECTED == []


def user_parameters(model) -> dict[str, float]:
    """The model's named parameters and their values, ``{name: value}``."""
    return {e.name: e.value for e in by_collection(model)["parameters"]}


def type_into(field, text: str) -> None:
    """Type ``text`` and press Enter, as in the browser."""
    field.text.value = text


def elements_of(model: BarJointModel) -> dict:
    """The model's data as the core writes it (JSON round trip: plain comparable data)."""
    return json.loads(json.dumps(model.to_dict()))


def bar_point(q: np.ndarray, lengths: np.ndarray, bar: int, s: float) -> np.ndarray:
    """The point ``s`` of ``bar`` for coordinates ``q`` (one frame), with numpy."""
    x, y, th = q[3 * bar:3 * bar + 3]
    return np.array([x + s * lengths[bar] * math.cos(th), y + s * lengths[bar] * math.sin(th)])


def pieces(line) -> list[np.ndarray]:
    """The polylines of a line whose pieces are separated by rows of NaN."""
    xy = np.column_stack([np.asarray(line.get_xdata(), dtype=float),
                          np.asarray(line.get_ydata(), dtype=float)])
    out, cur = [], []
    for p in xy:
        if np.isnan(p).all():
            if cur:
                out.append(np.array(cur))
            cur = []
        else:
            cur.append(p)
    if cur:
        out.append(np.array(cur))
    return out


def sprung_model() -> BarJointModel:
    """A four-bar with a spring-damper to ground, a damper between bars, torsional springs at
    a joint and to ground (no bar-to-bar spring: see the report on the core)."""
    m = four_bar()
    m.add_spring_damper(1, 0.0, None, k=60.0, c=0.8, ground_point=(1.2, 3.0))
    m.add_torsional_spring(0, 1, k=4.0, c=0.05)
    m.add_torsional_spring(None, 2, k=6.0, preload=0.5)
    return m


# ====================================================================== editor
def test_springs_added_in_the_editor_are_those_of_the_api():
    m = four_bar()
    ed = ModelEditor(m)
    # a spring-damper from bar 1's centre to a ground point, l0 left empty
    ed.spring_bar_a.value = 1
    type_into(ed.spring_s_a, "0.25")
    ed.spring_end_b.value = GROUND
    type_into(ed.spring_ground_x, "1.5")
    type_into(ed.spring_ground_y, "3")
    type_into(ed.spring_k, "80")
    type_into(ed.spring_l0, "")
    type_into(ed.spring_c, "1.5")
    ed.add_spring_button.click()
    assert ed.messages["springs"].text == "added spring0"
    # a damper alone between two bars, with a rest length
    ed.spring_bar_a.value = 0
    type_into(ed.spring_s_a, "0")
    ed.spring_end_b.value = 2
    type_into(ed.spring_s_b, "-0.2")
    type_into(ed.spring_k, "0")
    type_into(ed.spring_l0, "2.5")
    type_into(ed.spring_c, "3")
    ed.add_spring_button.click()
    # torsional springs: at joint 0 (φ0 empty: the initial angle), and bar 2 to ground
    ed.spring_kind.value = "torsion"
    ed.torsion_a.value, ed.torsion_b.value = 0, 1
    type_into(ed.torsion_k, "5")
    type_into(ed.torsion_c, "0.1")
    ed.add_spring_button.click()
    ed.spring_kind.value = "torsion"
    ed.torsion_a.value, ed.torsion_b.value = GROUND, 2
    type_into(ed.torsion_k, "7")
    type_into(ed.torsion_phi0, "95")
    type_into(ed.torsion_preload, "-0.5")
    ed.add_spring_button.click()
    assert ed.messages["springs"].text == "added torsion1"

    api = four_bar()
    api.add_spring_damper(1, 0.25, None, k=80.0, c=1.5, ground_point=(1.5, 3.0))
    api.add_spring_damper(0, 0.0, 2, -0.2, k=0.0, l0=2.5, c=3.0)
    api.add_torsional_spring(0, 1, k=5.0, c=0.1)
    api.add_torsional_spring(None, 2, k=7.0, phi0=math.radians(95.0), preload=-0.5)
    assert elements_of(m) == elements_of(api)
    labels = [lb for lb, _ in ed.spring_select.options]
    assert labels[1].startswith("spring0: bar 1 (s = 0.25) ↔ ground (1.5, 3)")
    assert "torsion1: ground ↔ bar 2" in labels[4]
    ed.close()


def test_actuators_added_in_the_editor_are_those_of_the_api():
    m = four_bar()
    ed = ModelEditor(m)
    ed.actuator_kind.value = "force"
    ed.actuator_law.value = "sine"
    ed.actuator_bar.value = 2
    type_into(ed.actuator_s, "0.5")
    ed.actuator_frame.value = "bar"
    type_into(ed.actuator_direction, "90")
    type_into(ed.actuator_offset, "1")
    type_into(ed.actuator_amplitude, "4")
    type_into(ed.actuator_omega, "3")
    type_into(ed.actuator_phase, "30")
    ed.add_actuator_button.click()
    assert ed.messages["actuators"].text == "added actuator0"
    ed.actuator_kind.value = "torque"
    ed.actuator_law.value = "constant"
    ed.actuator_bar.value = 1
    ed.actuator_reaction.value = 0
    type_into(ed.actuator_offset, "-2")
    ed.add_actuator_button.click()
    assert ed.messages["actuators"].text == "added torque0"

    api = four_bar()
    for name, value in (("fa0_offset", 1.0), ("fa0_A", 4.0), ("fa0_w", 3.0),
                        ("fa0_phase", math.radians(30.0)), ("fa0_dir", math.radians(90.0))):
        api.add_parameter(name, value)
    P = api.parameter
    g = P("fa0_offset") + P("fa0_A") * hy.sin(P("fa0_w") * hy.time + P("fa0_phase"))
    api.add_force_actuator(2, 0.5, g * hy.cos(P("fa0_dir")), g * hy.sin(P("fa0_dir")),
                           frame="bar")
    api.add_parameter("tq0_offset", -2.0)
    api.add_torque_actuator(1, api.parameter("tq0_offset"), bar_a=0)
    assert elements_of(m) == elements_of(api)
    assert user_parameters(m) == user_parameters(api)
    labels = [lb for lb, _ in ed.actuator_select.options]
    assert labels[1] == ("actuator0: force on bar 2 (s = 0.5), F(t) = 1 + 4·sin(3 t + "
                         "30°) N along α = 90°")
    assert labels[2] == "torque0: torque on bar 1 (−τ on bar 0), τ(t) = -2 N·m"
    ed.close()


def test_sinusoidal_law_drives_as_written():
    """The torque a motor made in the editor exerts along a run is g0 + A sin(ω t + φ)."""
    m = four_bar()
    ed = ModelEditor(m)
    ed.actuator_kind.value, ed.actuator_law.value = "torque", "sine"
    ed.actuator_bar.value = 0
    for f, text in ((ed.actuator_offset, "0.5"), (ed.actuator_amplitude, "2"),
                    (ed.actuator_omega, "5"), (ed.actuator_phase, "-45")):
        type_into(f, text)
    name = ed.add_actuator()
    tr = m.simulate(1.0, 41)
    want = 0.5 + 2.0 * np.sin(5.0 * tr.t - math.pi / 4)
    np.testing.assert_allclose(tr.element_force(name), want, rtol=0, atol=1e-12)
    # the law is read back after a save/load round trip (e.g. undo)
    copy = BarJointModel.from_dict(json.loads(json.dumps(m.to_dict())))
    prefix, law = read_law(copy, [by_collection(copy)["torque_actuators"][0].torque])
    assert prefix == "tq0" and law == Law("sine", 0.5, 2.0, 5.0, -math.pi / 4)
    ed.close()


def test_laws_written_in_code_are_listed_not_edited():
    m = four_bar()
    th0 = m.coordinates(0)[2]
    name = m.add_torque_actuator(0, -3.0 * th0)
    ed = ModelEditor(m)
    ed.actuator_select.value = 0
    assert "law set in code" in ed.actuator_select.options[1][0]
    assert all(f.disabled for f in (ed.actuator_offset, ed.actuator_amplitude,
                                    ed.actuator_omega, ed.actuator_phase))
    assert "th0" in ed.actuators.law_text.value
    ed.delete_actuator_button.click()
    assert name not in m.load_names and ed.messages["actuators"].text == f"deleted {name}"
    ed.close()


@pytest.mark.slow
def test_hostile_values_in_every_new_field_leave_the_model_unchanged():
    m = sprung_model()
    ed = ModelEditor(m)
    ed.actuator_kind.value = "force"
    ed.add_actuator_button.click()
    ed.actuator_kind.value, ed.actuator_law.value = "torque", "sine"
    ed.add_actuator_button.click()
    sections = ((ed.springs, ed.spring_select), (ed.actuators, ed.actuator_select))
    n_refused = 0
    for section, select in sections:
        for choice in [v for _, v in select.options]:  # "+ new" and every existing item
            select.value = choice
            fields = [f for f in _all_fields(section) if not f.disabled]
            for f in fields:
                for bad in HOSTILE:
                    before = elements_of(m)
                    try:
                        f.spec.parse(bad)
                    except ValueError as exc:
                        if isinstance(f, OptionalNumberField) and not bad.strip():
                            continue  # empty: "initial"; an accepted value
                        type_into(f, bad)
                        assert f.error == str(exc), (f.description, bad)
                        assert f.message.text == str(exc)
                        assert elements_of(m) == before, (f.description, bad)
                        n_refused += 1
                        if choice == -1:
                            _make_relevant(ed, f)
                            section.add_button.click()
                            assert "correct the marked field first" in section.message.text
                            assert elements_of(m) == before
                f.set_quietly(f.value)  # clear the bad text again
    assert n_refused > 200
    ed.close()


def _make_relevant(ed, field) -> None:
    """Set the "+ new" template to the kind of element ``field`` belongs to."""
    if field in (ed.torsion_k, ed.torsion_phi0, ed.torsion_c, ed.torsion_preload):
        ed.spring_kind.value = "torsion"
    elif field in (ed.spring_s_a, ed.spring_s_b, ed.spring_ground_x, ed.spring_ground_y,
                   ed.spring_k, ed.spring_l0, ed.spring_c):
        ed.spring_kind.value = "spring"
        ed.spring_end_b.value = 0 if field is ed.spring_s_b else GROUND
    else:
        ed.actuator_kind.value = "force" if field in (ed.actuator_s,
                                                      ed.actuator_direction) else "torque"
        ed.actuator_law.value = "sine"


def _all_fields(section) -> list[NumberField]:
    seen, stack, out = set(), [section], []
    while stack:
        w = stack.pop()
        if id(w) in seen:
            continue
        seen.add(id(w))
        if isinstance(w, NumberField):
            out.append(w)
            continue
        stack.extend(getattr(w, "children", ()) or ())
    return out


def test_core_refusals_are_shown_and_change_nothing():
    m = four_bar()
    ed = ModelEditor(m)
    # both ends at the same point: the core refuses, the section says why
    ed.spring_bar_a.value = 0
    type_into(ed.spring_s_a, "0.5")
    ed.spring_end_b.value = 1
    type_into(ed.spring_s_b, "-0.5")
    before = elements_of(m)
    ed.add_spring_button.click()
    assert ed.messages["springs"].kind == "error"
    assert "coincide" in ed.messages["springs"].text and elements_of(m) == before
    ed.spring_kind.value = "torsion"
    ed.torsion_a.value, ed.torsion_b.value = 1, 1
    ed.add_spring_button.click()
    assert "same bar" in ed.messages["springs"].text and elements_of(m) == before
    ed.actuator_kind.value = "torque"
    ed.actuator_bar.value, ed.actuator_reaction.value = 2, 2
    ed.add_actuator_button.click()
    assert "the driven bar itself" in ed.messages["actuators"].text
    assert elements_of(m) == before
    ed.close()


def test_undo_and_redo_of_springs_and_actuators():
    m = four_bar()
    ed = ModelEditor(m)
    start = elements_of(m)
    name = ed.add_spring()
    added = elements_of(m)
    ed.spring_select.value = 0
    type_into(ed.spring_k, "321")
    assert by_collection(m)["springs"][0].k == 321.0
    ed.undo()
    assert by_collection(m)["springs"][0].k == 100.0 and ed.spring_k.value == 100.0
    ed.undo()
    assert elements_of(m) == start and name not in m.load_names
    ed.redo()
    assert elements_of(m) == added
    # an actuator and its parameters come and go in one step
    before = elements_of(m)
    act = ed.add_actuator()
    assert act in m.load_names and set(user_parameters(m)) == {"tq0_offset", "tq0_A", "tq0_w",
                                                        "tq0_phase"}
    ed.undo()
    assert elements_of(m) == before and user_parameters(m) == {}
    ed.redo()
    ed.actuator_select.value = 0
    ed.delete_actuator_button.click()
    assert act not in m.load_names and user_parameters(m) == {}
    ed.undo()
    assert act in m.load_names and len(user_parameters(m)) == 4
    ed.close()


# ====================================================================== re-simulation
@pytest.mark.slow
def test_value_edits_resimulate_with_the_compiled_code():
    m = sprung_model()
    s = Studio(m, backend="static", t_end=0.4, n_frames=21)
    ed, p = s.editor, s.player
    ed.actuator_kind.value, ed.actuator_law.value = "torque", "sine"
    ed.actuator_bar.value = 0
    ed.add_actuator_button.click()
    ed.actuator_kind.value, ed.actuator_law.value = "force", "constant"
    ed.add_actuator_button.click()
    p.simulate_button.click()
    assert p.trajectory is not None and m.is_compiled()
    edits = [
        (ed.spring_select, 0, ed.spring_k, "90", lambda: by_collection(m)["springs"][0].k == 90.0),
        (ed.spring_select, 0, ed.spring_c, "0", lambda: by_collection(m)["springs"][0].c == 0.0),
        (ed.spring_select, 0, ed.spring_l0, "1.1",
         lambda: by_collection(m)["springs"][0].l0 == 1.1),
        (ed.spring_select, 1, ed.torsion_k, "9",
         lambda: by_collection(m)["torsional_springs"][0].k == 9.0),
        (ed.spring_select, 1, ed.torsion_phi0, "-20",
         lambda: by_collection(m)["torsional_springs"][0].phi0 == math.radians(-20.0)),
        (ed.spring_select, 2, ed.torsion_preload, "1.5",
         lambda: by_collection(m)["torsional_springs"][1].preload == 1.5),
        (ed.spring_select, 2, ed.torsion_c, "0.2",
         lambda: by_collection(m)["torsional_springs"][1].c == 0.2),
        (ed.actuator_select, 0, ed.actuator_direction, "45",
         lambda: user_parameters(m)["fa0_dir"] == math.radians(45.0)),
        (ed.actuator_select, 0, ed.actuator_offset, "7",
         lambda: user_parameters(m)["fa0_offset"] == 7.0),
        (ed.actuator_select, 1, ed.actuator_amplitude, "3.5",
         lambda: user_parameters(m)["tq0_A"] == 3.5),
        (ed.actuator_select, 1, ed.actuator_omega, "4", lambda: user_parameters(m)["tq0_w"] == 4.0),
        (ed.actuator_select, 1, ed.actuator_phase, "90",
         lambda: user_parameters(m)["tq0_phase"] == math.radians(90.0)),
    ]
    for select, k, field, text, check in edits:
        select.value = k
        runs = p.n_runs
        type_into(field, text)
        assert check(), (field.description, text)
        assert p.n_runs == runs + 1, field.description  # re-simulated ...
        assert p.run_info["reused"] and m.is_compiled(), field.description  # ... not compiled
    # the amplitude edit reached the motion: the motor's torque follows the new law
    tr = p.trajectory
    law = 0.0 + 3.5 * np.sin(4.0 * tr.t + math.pi / 2)
    np.testing.assert_allclose(tr.element_force("torque0"), law, atol=1e-12)
    # emptying l0 gives the initial distance, computed here from the poses
    ed.spring_select.value = 0
    type_into(ed.spring_l0, "")
    x, y, th = m.bars[1].pose
    l0 = by_collection(m)["springs"][0].l0
    assert l0 == pytest.approx(math.hypot(x - 1.2, y - 3.0), rel=1e-12)
    assert p.run_info["reused"] and "initial distance" in ed.messages["springs"].text
    s.close()


# ====================================================================== player plots
@pytest.mark.slow
def test_ledger_and_element_forces_plot_the_trajectory():
    m = sprung_model()
    m.add_external_force(1, 0.5, 0.0, -4.0)
    A = m.add_parameter("A", 1.5)
    m.add_torque_actuator(0, A * hy.sin(2.0 * hy.time), name="motor")
    p = MotionPlayer(m, backend="static", t_end=1.5, n_frames=61)
    tr = p.simulate()
    led = tr.energy_ledger()
    plots = p.ledger
    # offsets: gravity and loads from their lowest value, kinetic and elastic from 0
    want_off = {"kinetic": 0.0, "gravity": led["gravity"].min(),
                "elastic": min(0.0, led["elastic"].min()), "loads": led["loads"].min(),
                "dissipated": 0.0}
    assert plots.offsets == pytest.approx(want_off, abs=0)
    scale = max(np.abs(v).max() for v in led.values())
    base = np.zeros(tr.n_points)
    for key in ("kinetic", "gravity", "elastic", "loads", "dissipated"):
        band = plots.bands[key].get_paths()[0].vertices
        n = tr.n_points
        np.testing.assert_array_equal(band[:n, 0], tr.t)
        upper, lower = band[:n, 1], band[n:2 * n, 1][::-1]
        np.testing.assert_allclose(lower, base, atol=1e-12 * scale)
        np.testing.assert_allclose(upper - lower, led[key] - want_off[key],
                                   atol=1e-12 * scale)
        base = base + (led[key] - want_off[key])
    shift = sum(want_off.values())
    np.testing.assert_allclose(plots.top_line.get_ydata(),
                               tr.energy + tr.dissipated - shift, atol=1e-12 * scale)
    np.testing.assert_allclose(plots.work_line.get_ydata() - (tr.energy[0] - shift),
                               tr.work_in, atol=1e-12 * scale)
    np.testing.assert_array_equal(plots.balance_line.get_ydata(), tr.energy_balance())
    assert np.abs(plots.balance_line.get_ydata()).max() < 1e-9 * scale  # the books balance
    # element forces: every series, the trajectory's own numbers, on the axis of its unit
    assert [lb for lb, _ in p.element_rows.options] == [
        "spring0 · tension", "torsion0 · torque", "torsion1 · torque",
        "motor · torque"]
    for line, label, unit in zip(plots.force_lines, plots.force_labels, plots.force_units):
        name = label.split(" · ")[0]
        np.testing.assert_array_equal(line.get_ydata(), tr.element_force(name))
        assert line.axes is (plots.ax_forces if unit == "N" else plots.ax_torques)
        assert unit == ("N" if name.startswith("spring") else "N·m")
    np.testing.assert_allclose(tr.element_force("motor"), 1.5 * np.sin(2.0 * tr.t),
                               atol=1e-12)
    # the picker chooses the series, like the constraint rows
    p.element_rows.value = (3,)
    assert plots.force_labels == ["motor · torque"] and len(plots.force_lines) == 1
    assert not plots.ax_forces.lines or all(ln.axes is plots.ax_torques
                                            for ln in plots.force_lines)
    # units on every axis
    for ax in (plots.ax_ledger, plots.ax_balance, plots.ax_forces, plots.ax_torques):
        assert "[" in ax.get_ylabel() and ax.get_ylabel().endswith("]"), ax.get_ylabel()
    for ax in (plots.ax_ledger, plots.ax_balance, plots.ax_forces):
        assert ax.get_xlabel() == "t [s]"
    # the time cursor follows the frame
    p.slider.value = 30
    assert all(c.get_xdata()[0] == tr.t[30] for c in plots.cursors)
    p.close()


@pytest.mark.slow
def test_drawn_springs_coils_and_actuators_follow_the_motion():
    m = sprung_model()
    m.add_spring_damper(0, 0.0, 2, -0.3, k=0.0, c=2.0)  # a damper alone, between bars
    m.add_torque_actuator(1, 2.0 * hy.cos(3.0 * hy.time), bar_a=0, name="motor")
    m.add_force_actuator(2, 0.5, 0.0, 6.0, frame="bar", name="push")
    p = MotionPlayer(m, backend="static", t_end=1.0, n_frames=41)
    tr = p.simulate()
    layer = p.view.force_layer
    L = np.array([b.length for b in m.bars])
    springs = by_collection(m)["springs"]
    for k in (0, 17, 40):
        p.slider.value = k
        q = tr.q[k]
        zig = pieces(layer.spring_line)
        assert len(zig) == 1  # the damper alone has no zigzag
        sp = springs[0]
        np.testing.assert_allclose(zig[0][0], bar_point(q, L, sp.bar_a, sp.s_a), atol=1e-12)
        np.testing.assert_allclose(zig[0][-1], sp.ground, atol=1e-12)
        for j, sp in enumerate(springs):
            a = bar_point(q, L, sp.bar_a, sp.s_a)
            b = np.asarray(sp.ground) if sp.bar_b is None else bar_point(q, L, sp.bar_b,
                                                                         sp.s_b)
            np.testing.assert_allclose(layer.spring_ends[j], [a, b], atol=1e-12)
        # both dampers: a piston that starts at end a and ends at end b
        dampers = pieces(layer.damper_line)
        a1 = bar_point(q, L, 0, 0.0)
        b1 = bar_point(q, L, 2, -0.3)
        assert any(np.allclose(d[0], a1, atol=1e-12) for d in dampers)
        assert any(np.allclose(d[-1], b1, atol=1e-12) for d in dampers)
        # coils: at joint 0 (bar 1's start) and at bar 2's support; inner end along bar a,
        # outer end along bar b
        coils = pieces(layer.coil_line)
        for coil, (bar_a, bar_b, s_b) in zip(coils, ((0, 1, -0.5), (None, 2, -0.5))):
            centre = bar_point(q, L, bar_b, s_b)
            th_a = 0.0 if bar_a is None else q[3 * bar_a + 2]
            th_b = q[3 * bar_b + 2]
            inner, outer = coil[0] - centre, coil[-1] - centre
            assert math.isclose(math.atan2(inner[1], inner[0]) % (2 * math.pi),
                                th_a % (2 * math.pi), abs_tol=1e-9)
            direction = np.array([math.cos(th_b), math.sin(th_b)])
            np.testing.assert_allclose(outer / np.linalg.norm(outer), direction, atol=1e-9)
        # actuators: the arrow is the trajectory's force at this frame, to scale
        force = tr.element_force("push")[k]
        arrow = np.array([layer.arrows.U[0], layer.arrows.V[0]])
        cross = arrow[0] * force[1] - arrow[1] * force[0]
        assert abs(cross) <= 1e-9 * np.hypot(*arrow) * np.hypot(*force)
        assert arrow @ force > 0
        np.testing.assert_allclose(layer.arrows.get_offsets()[0], bar_point(q, L, 2, 0.5),
                                   atol=1e-12)
        torque = tr.element_force("motor")[k]
        assert layer.torques[0] == torque
        arc = pieces(layer.arc_line)[0]
        centre = bar_point(q, L, 1, -0.5)  # at the joint of the two bars
        u, v = arc[0] - centre, arc[1] - centre
        turn = u[0] * v[1] - u[1] * v[0]
        assert np.sign(turn) == np.sign(torque)
    p.close()


def test_view_draws_actuators_at_the_initial_state_from_their_laws():
    m = four_bar()
    ed = ModelEditor(m)
    ed.actuator_kind.value, ed.actuator_law.value = "force", "sine"
    ed.actuator_bar.value, ed.actuator_frame.value = 2, "ground"
    for f, text in ((ed.actuator_offset, "1"), (ed.actuator_amplitude, "2"),
                    (ed.actuator_phase, "90"), (ed.actuator_direction, "180")):
        type_into(f, text)
    ed.add_actuator_button.click()
    from quivira_widgets import ModelView

    view = ModelView(m, backend="static")
    # g(0) = 1 + 2 sin(90°) = 3 N along α = 180°
    np.testing.assert_allclose(view.force_layer.forces, [[-3.0, 0.0]], atol=1e-12)
    assert view.force_layer.arrows.U[0] < 0
    view.close()
    ed.close()
