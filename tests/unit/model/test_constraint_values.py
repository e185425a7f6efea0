"""``model.set_constraint_values``: value edits of slots, sliders, latches, stops and contacts
(one undoable edit, validated as by the constructors, no recompiling)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import quivira as qv

G = 9.81


def _stop_model(e: float) -> qv.BarJointModel:
    """A 1 m, 1 kg bar pinned at its start, released horizontal, stopped at θ = −0.5 rad."""
    m = qv.BarJointModel()
    m.add_bar_from_point_pair((0.0, 0.0), (1.0, 0.0), 1.0)
    m.add_support(0, -0.5, False, False)
    m.add_angle_stop(None, 0, -0.5, side="min", restitution=e, name="stop")
    return m


def test_stop_restitution_edit_changes_rebound_without_recompiling():
    m = _stop_model(0.5)
    m.simulate(1.0, n_points=20)
    n = m.n_compiled
    m.set_constraint_values("stop", restitution=0.8)
    assert m.elements["stop"].restitution == 0.8
    traj = m.simulate(1.0, n_points=20)
    assert m.n_compiled == n
    ev = next(e for e in traj.events if e["name"] == "stop")
    # closed form: energy from θ = 0 to −0.5 of a rod pinned at its end, I = m L²/3
    omega = math.sqrt(3.0 * G * math.sin(0.5))
    assert ev["approach_speed"] == pytest.approx(omega, rel=1e-9)
    thd_after = ev["state"][5]
    assert thd_after == pytest.approx(0.8 * omega, rel=1e-9)   # θ̇⁺ = −e θ̇⁻, θ̇⁻ = −ω


def test_bad_values_raise_and_leave_model_unchanged():
    m = _stop_model(0.5)
    m.add_ground_slider(0, 0.5, angle=0.0, name="guide")
    before = m.to_dict()
    rev = m.revision
    for name, values, words in (
            ("stop", {"restitution": 1.5}, "restitution"),
            ("stop", {"restitution": "abc"}, "restitution"),
            ("stop", {"rest_speed": -1.0}, "rest_speed"),
            ("stop", {"bogus": 1.0}, "valid fields: ['limit', 'restitution', 'rest_speed']"),
            ("guide", {"point": (1.0,)}, "point"),
            ("nope", {"limit": 1.0}, "names are")):
        with pytest.raises((ValueError, TypeError), match=words.replace("[", r"\[")
                           .replace("]", r"\]")):
            m.set_constraint_values(name, **values)
        assert m.to_dict() == before
        assert m.revision == rev


def test_values_of_each_kind_and_undo_notice():
    m = qv.BarJointModel()
    m.add_bar_from_point_pair((0.0, 0.0), (1.0, 0.0))
    m.add_bar_from_point_pair((1.0, 0.0), (2.0, 0.0))
    m.add_support(0, -0.5, False, False)
    m.add_joint([0, 1], [0.5, -0.5])
    m.add_latch(0, 1, 0.7, name="L")
    m.add_pin_in_slot(0, 1, 0.5, name="S")
    m.add_contact(1, 0.5, height=-1.0, restitution=0.3, name="C")
    seen = []
    m.observe(seen.append)
    m.set_constraint_values("L", angle=0.9)
    m.set_constraint_values("S", offset=0.25, s_b=0.0)
    m.set_constraint_values("C", height=-2.0, restitution=0.6)
    el = m.elements
    assert el["L"].angle == 0.9 and el["L"].active is False
    assert (el["S"].offset, el["S"].s_b) == (0.25, 0.0)
    assert (el["C"].height, el["C"].restitution) == (-2.0, 0.6)
    assert len(seen) == 3 and "'C'" in seen[-1] and "height" in seen[-1]
    # the edited values reach the runtime parameters (the slot offset is one of them)
    pars = dict(zip(m.parameter_keys(), m.parameter_values(), strict=True))
    assert any(np.isclose(v, 0.25) for k, v in pars.items() if "offset" in str(k))
    m.add_coordinate_constraint(0, 1, X0=[[0, 0, 1]], X1=[[0, 0, 1]], offset=[0.0], name="par")
    with pytest.raises(ValueError, match="is a coordinate"):
        m.set_constraint_values("par", offset=1.0)


@pytest.mark.slow
def test_sliders_section_edits_through_model_set():
    from quivira_widgets import Studio

    m = _stop_model(0.5)
    calls = []
    orig = m.set

    def spy(name, **values):
        calls.append((name, values))
        return orig(name, **values)

    m.set = spy
    s = Studio(m, backend="static")
    try:
        m.simulate(0.5, n_points=5)
        n = m.n_compiled
        sec = s.editor.sliders
        sec.select.value = 0
        rev = m.revision
        sec.restitution.value = 0.9
        assert calls == [("stop", {"restitution": 0.9})]
        assert m.elements["stop"].restitution == 0.9
        assert m.revision == rev + 1  # one edit, one undo step
        s.editor.undo_button.click()
        assert m.elements["stop"].restitution == 0.5
        before = m.to_dict()
        sec.restitution.text.value = "1.5"  # refused by the field, the model unchanged
        assert sec.restitution.error and "restitution" in sec.restitution.error
        assert m.to_dict() == before
        m.simulate(0.5, n_points=5)
        assert m.n_compiled == n
    finally:
        s.close()
