"""Gear pair: two discs on fixed pins meshing, against the equivalent-inertia solution."""

from __future__ import annotations

import json

import numpy as np
import pytest

import quivira as qv
from quivira.elements import GearPair, Particle, PointLoad, Support, fields_of
from quivira.model.elements import KINDS

RA, RB = 0.2, 0.5          # pitch radii (m)
LA, LB = 0.6, 1.2          # bar lengths (m): the gears' bodies
MA, MB = 2.0, 3.0          # masses (kg)
IA, IB = MA * LA**2 / 12, MB * LB**2 / 12  # inertias about the centres (the pins)
TAU = 1.5                  # torque on body a (N m)


def gears(internal: bool = False, torque: float = TAU, omega_a: float = 0.0
          ) -> qv.BarJointModel:
    """Bars 0 and 1 pinned at their centres, meshing; a torque on bar 0; bar 1 tilted 0.3."""
    m = qv.BarJointModel()
    m.add_bar_at_attitude(0.0, 0.0, 0.0, LA, MA)
    m.add_bar_at_attitude(RA + RB, 0.0, 0.3, LB, MB)
    m.add(Support(bar=0, s=0.0))
    m.add(Support(bar=1, s=0.0))
    m.add(GearPair(body_a=0, body_b=1, radius_a=RA, radius_b=RB, internal=internal))
    if torque:
        m.add(PointLoad(bar=0, s=0.0, fx=0.0, fy=0.0, torque=torque))
    if omega_a:
        sigma = -1.0 if internal else 1.0
        m.set("bar0", omega=omega_a)
        m.set("bar1", omega=-sigma * RA / RB * omega_a)
    return m


def text(m: qv.BarJointModel) -> str:
    return json.dumps(m.to_dict(), sort_keys=True)


@pytest.mark.parametrize("internal", [False, True])
def test_accelerations_and_tooth_force_equal_the_equivalent_inertia_solution(internal):
    sigma = -1.0 if internal else 1.0
    alpha_a = TAU / (IA + IB * (RA / RB) ** 2)      # the inertia of b reflected onto a
    alpha_b = -sigma * RA / RB * alpha_a             # equal arcs at the pitch point
    tooth = sigma * IB * alpha_b / RB                # the torque driving b, over its radius
    tr = gears(internal).simulate(0.5, 11)
    assert np.allclose(tr.qdd[:, 2], alpha_a, rtol=1e-10, atol=0)
    assert np.allclose(tr.qdd[:, 5], alpha_b, rtol=1e-10, atol=0)
    assert np.allclose(tr.multiplier("gear0.force"), tooth, rtol=1e-10, atol=0)
    # the torque balance of body a by hand: I_a α_a = τ + r_a λ
    assert IA * alpha_a == pytest.approx(TAU + RA * tooth, rel=1e-12)
    t = tr.t
    assert np.allclose(tr.q[:, 2], 0.5 * alpha_a * t**2, rtol=1e-9, atol=1e-12)
    assert np.allclose(tr.q[:, 5], 0.3 + 0.5 * alpha_b * t**2, rtol=1e-9, atol=1e-12)
    assert tr.max_position_residual() < 1e-10


def test_free_gears_keep_their_energy_and_speed_ratio():
    tr = gears(torque=0.0, omega_a=3.0).simulate(4.0, 41)
    om_b = -RA / RB * 3.0
    T = 0.5 * IA * 3.0**2 + 0.5 * IB * om_b**2
    assert np.allclose(tr.kinetic_energy, T, rtol=1e-10)
    assert np.ptp(tr.energy) < 1e-10 * T
    assert np.allclose(tr.qd[:, 5], om_b, rtol=1e-10)
    assert np.allclose(tr.multiplier("gear0.force"), 0.0, atol=1e-9)
    assert tr.max_position_residual() < 1e-10 and tr.max_velocity_residual() < 1e-10


def test_parameters_are_named_by_field_and_edit_without_recompiling():
    m = gears()
    names = {p.name: p for p in m.parameters() if p.name.startswith("gear0.")}
    assert list(names) == ["gear0.radius_a", "gear0.radius_b", "gear0.angle_a0",
                           "gear0.angle_b0"]
    assert [names[n].value for n in names] == [RA, RB, 0.0, 0.3]  # angles: initial ones
    assert all(p.runtime and p.sweepable for p in names.values())
    m.simulate(0.1, 2)
    cs = m.compiled()
    m.set("gear0", radius_b=0.4)
    tr = m.simulate(0.5, 11)
    assert m.compiled() is cs
    assert np.allclose(tr.qdd[:, 2], TAU / (IA + IB * (RA / 0.4) ** 2), rtol=1e-10)


def test_the_kind_is_registered_public_and_described():
    assert GearPair in KINDS
    names = [k.__name__ for k in KINDS]
    assert names.index("JointMotor") < names.index("GearPair") < names.index("Latch")
    assert [f["field"] for f in fields_of(GearPair)] == [
        "body_a", "body_b", "radius_a", "radius_b", "internal", "angle_a0", "angle_b0", "name"]
    assert {f["field"]: f["unit"] for f in fields_of(GearPair)}["radius_a"] == "m"
    m = gears()
    assert "gear pair (external mesh)" in m.summary()


def test_file_round_trip_gives_the_same_model_and_motion():
    m = gears(internal=True)
    d = json.loads(json.dumps(m.to_dict()))
    assert d["gear_pairs"] == [{"body_a": 0, "body_b": 1, "radius_a": RA, "radius_b": RB,
                                "internal": True, "angle_a0": 0.0, "angle_b0": 0.3,
                                "name": "gear0"}]
    back = qv.BarJointModel.from_dict(d)
    assert text(back) == text(m)
    assert np.array_equal(back.simulate(0.3, 4).q, m.simulate(0.3, 4).q)
    bad = json.loads(json.dumps(d))
    bad["gear_pairs"][0]["radius_b"] = -1.0
    with pytest.raises(ValueError, match=r"gear_pairs\[0\]\.radius_b must be positive"):
        qv.BarJointModel.from_dict(bad)


def test_removing_a_body_removes_the_pair_and_shifts_indices():
    m = gears(torque=0.0)
    m.add_bar_at_attitude(-1.0, 0.0, 0.0, 1.0, 1.0)  # bar 2
    m.add(GearPair(body_a=2, body_b=1, radius_a=0.1, radius_b=0.3, name="g2"))
    m.remove("bar0")
    assert [el.name for el in m.elements.values() if isinstance(el, GearPair)] == ["g2"]
    assert (m.element("g2").body_a, m.element("g2").body_b) == (1, 0)


def test_bad_input_names_the_field_and_changes_nothing():
    m = gears()
    before = text(m)
    cases = [
        (dict(body_a=0, body_b=1, radius_a=0.0, radius_b=RB), ValueError,
         r"gear1: radius_a must be positive"),
        (dict(body_a=0, body_b=1, radius_a=RA, radius_b=-0.1), ValueError,
         r"gear1: radius_b must be positive"),
        (dict(body_a=0, body_b=1, radius_a="big", radius_b=RB), TypeError,
         r"gear1: radius_a must be a real"),
        (dict(body_a=1, body_b=1, radius_a=RA, radius_b=RB), ValueError,
         r"gear1: body_a and body_b are the same body \(1\)"),
        (dict(body_a=0, body_b=7, radius_a=RA, radius_b=RB), ValueError,
         r"gear1: body_b: bar index 7 out of range"),
        (dict(body_a=None, body_b=1, radius_a=RA, radius_b=RB), TypeError,
         r"gear1: body_a"),
        (dict(body_a=0, body_b=1, radius_a=RA, radius_b=RB, internal="yes"), TypeError,
         r"gear1: internal must be True or False"),
    ]
    for kw, exc, match in cases:
        with pytest.raises(exc, match=match):
            m.add(GearPair(**kw))
        assert text(m) == before
    with pytest.raises(ValueError, match=r"gear0: radius_a must be positive"):
        m.set("gear0", radius_a=-1.0)
    with pytest.raises(ValueError, match=r"gear0: 'body_a' cannot be edited"):
        m.set("gear0", body_a=1)
    assert text(m) == before


def test_a_particle_has_no_angle_to_gear():
    m = qv.BarJointModel()
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    m.add(Particle(mass=1.0, pose=(1.0, 0.0)))
    before = text(m)
    with pytest.raises(ValueError, match=r"gear0\.body_b: body 1 is a particle"):
        m.add(GearPair(body_a=0, body_b=1, radius_a=RA, radius_b=RB))
    assert text(m) == before
