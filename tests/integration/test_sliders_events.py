"""Sliders, events, latches, stops and contacts against independent references.

The references (``quivira_oracles/sliders_exudyn.py`` and ``quivira_oracles/impacts.py``) import
no Quivira: the closed-form slider-crank and its 1-DOF ODE, Exudyn's ``ObjectJointPrismatic2D``
and ``ObjectJointSliding2D``, the closed-form free fall and impulse of a bar hitting the floor,
the latch of a two-bar hinge by conservation of angular momentum, and the bouncing sequence.
"""

from __future__ import annotations

import math
import time

import heyoka as hy
import numpy as np
import pytest

import quivira
from quivira_oracles.impacts import (
    bar_floor_impact,
    bouncing_sequence,
    free_fall_contact_time,
    free_fall_state,
    two_bar_latch_reference,
    two_bar_mass_matrix,
    two_bar_state,
)
from quivira_oracles.sliders_exudyn import (
    SliderCrank,
    simulate_slider_crank_exudyn,
    simulate_slider_crank_minimal,
    slider_crank_driven,
    slider_crank_kinematics,
)

TOL = 1e-15


# ------------------------------------------------------------------------------------------
# slider-crank
# ------------------------------------------------------------------------------------------

def slider_crank_model(p: SliderCrank, phi0: float, phid0: float, guide: str):
    """The slider-crank of the oracle in Quivira; the slider block guided by ``guide``.

    ``"prismatic"``: a prismatic joint of the block on a fixed guide bar (bar 3);
    ``"slot"``: the block's centre pinned in the slot of the fixed guide bar (rotation free);
    ``"ground"``: the block's centre on a ground slider line (rotation free).
    """
    k = slider_crank_kinematics(p, phi0, phid0, 0.0)
    q, qd = k["q"], k["qd"]
    m = quivira.bar_joint_model()
    for i in range(3):
        m.add_bar_at_attitude(q[3 * i], q[3 * i + 1], q[3 * i + 2], p.lengths[i],
                              p.masses[i])
        m.set_init_bar_velocities(i, *qd[3 * i:3 * i + 3])
    m.add_support(0, -0.5, False, False)
    m.add_joint([0, 1], [0.5, -0.5])
    m.add_joint([1, 2], [0.5, p.s_pin])
    C = k["C"]
    if guide == "ground":
        m.add_ground_slider(2, 0.0, p.alpha, (C[0] - 0.3 * p.u[0], C[1] - 0.3 * p.u[1]),
                            name="guide")
        return m
    m.add_bar_at_attitude(C[0] - 0.1 * p.u[0], C[1] - 0.1 * p.u[1], p.alpha, 1.0, 1.0)
    m.add_support(3, 0.0, False, False)
    m.add_coordinate_constraint(None, 3, X1=[[0, 0, 1]], offset=[p.alpha], name="guide angle")
    if guide == "prismatic":
        m.add_prismatic_joint(3, 2, 0.0, name="guide")
    else:
        m.add_pin_in_slot(3, 2, 0.0, name="guide")
    return m


def pose_error(q: np.ndarray, q_ref: np.ndarray) -> float:
    """Largest difference of poses, the angles (every third entry) taken modulo 2π."""
    d = np.asarray(q, float) - np.asarray(q_ref, float)
    d[..., 2::3] = (d[..., 2::3] + np.pi) % (2 * np.pi) - np.pi
    return float(np.abs(d).max())


def joint_force_on(traj, joint: int, bar: int) -> np.ndarray:
    return np.asarray(traj.joint_force(joint, bar))


@pytest.mark.parametrize("guide", ["prismatic", "slot", "ground"])
@pytest.mark.parametrize("variant", [0, 1])
def test_free_slider_crank_against_the_one_dof_reduction(guide, variant):
    """Positions, velocities and every reaction against the 1-DOF ODE and Newton-Euler."""
    p = [SliderCrank(), SliderCrank(branch=-1, alpha=-0.3, e=-0.08, s_pin=-0.4)][variant]
    if guide != "prismatic":  # a block with a free rotation is pinned at its centre
        p = SliderCrank(**{**p.__dict__, "s_pin": 0.0})
    m = slider_crank_model(p, 0.3, 8.0, guide)
    tr = m.simulate(1.0, n_points=101, tol=TOL)
    ref = simulate_slider_crank_minimal(p, 0.3, 8.0, t_end=1.0, times=101)
    assert pose_error(tr.q[:, :9], ref["q"]) < 1e-9
    assert np.abs(tr.qd[:, :9] - ref["qd"]).max() < 1e-8
    # reactions, sign conventions of the oracle: force ON the named body
    assert np.abs(tr.support_force(0) - ref["F_O"]).max() < 1e-7
    assert np.abs(joint_force_on(tr, 0, 1) - ref["F_A"]).max() < 1e-7
    assert np.abs(joint_force_on(tr, 1, 2) - ref["F_B"]).max() < 1e-7
    normal = tr.multiplier("guide.normal") if guide != "ground" else tr.multiplier(
        next(lab for lab in tr.constraint_labels if lab.startswith("guide")))
    assert np.abs(normal - ref["N"]).max() < 1e-7
    if guide == "prismatic":
        assert np.abs(tr.multiplier("guide.angle") - ref["T_G"]).max() < 1e-7
    else:
        assert np.abs(ref["T_G"]).max() < 1e-9  # the oracle's block needs no locking torque
    assert abs(tr.relative_energy_error()) < 1e-12


def test_driven_slider_crank_position_velocity_acceleration_closed_form():
    """A crank driven at φ = ω t + φ₀: slider x, ẋ, ẍ and the drive torque in closed form."""
    p, omega, phi0 = SliderCrank(), 10.0, 0.3
    m = slider_crank_model(p, phi0, omega, "prismatic")
    x0, y0, th0 = m.coordinates(0)
    m.add_constraint([th0 - omega * hy.time - phi0], name="drive")
    tr = m.simulate(1.0, n_points=101, tol=TOL)
    ref = slider_crank_driven(p, tr.t, omega, phi0)
    u = p.u
    # the slider coordinate along the guide: x = u . B, B = C + s_pin Ls u
    B = tr.q[:, 6:8] + p.s_pin * p.L_slider * u
    assert np.abs(B @ u - ref["x"]).max() < 1e-10
    assert np.abs(tr.qd[:, 6:8] @ u - ref["xd"]).max() < 1e-9
    assert np.abs(tr.qdd[:, 6:8] @ u - ref["xdd"]).max() < 1e-7
    assert np.abs(tr.qdd[:, :9] - ref["qdd"]).max() < 1e-7


@pytest.mark.parametrize("guide, exudyn_guide, rotation",
                         [("prismatic", "prismatic", True), ("slot", "sliding2d", False)])
def test_slider_crank_against_exudyn(guide, exudyn_guide, rotation):
    """Quivira against Exudyn's prismatic / sliding joint, within Exudyn's h-convergence."""
    p = SliderCrank() if rotation else SliderCrank(s_pin=0.0)
    m = slider_crank_model(p, 0.3, 8.0, guide)
    tr = m.simulate(0.5, n_points=51, tol=TOL)
    ex = simulate_slider_crank_exudyn(p, 0.3, 8.0, guide=exudyn_guide,
                                      constrain_rotation=rotation, t_end=0.5, h=1e-4,
                                      times=51)
    # measured Exudyn errors at h = 1e-4 (oracle docstring): q 4.5e-5, forces 8.4e-3 (2 s)
    assert pose_error(tr.q[:, :9], ex["q"]) < 1e-4
    late = tr.t >= 0.05
    assert np.abs(tr.multiplier("guide.normal") - ex["N"])[late].max() < 2e-2
    assert np.abs(joint_force_on(tr, 1, 2) - ex["F_B"])[late].max() < 2e-2
    if rotation:
        assert np.abs(tr.multiplier("guide.angle") - ex["T_G"])[late].max() < 2e-3


# ------------------------------------------------------------------------------------------
# a falling bar hitting the floor
# ------------------------------------------------------------------------------------------

def falling_bar(state0, length=1.0, mass=2.0, e=0.0, ends=(-0.5,)):
    m = quivira.bar_joint_model()
    m.add_bar_at_attitude(state0[0], state0[1], state0[2], length, mass)
    m.set_init_bar_velocities(0, *state0[3:])
    for k, s in enumerate(ends):
        m.add_contact(0, s, restitution=e, name=f"floor {k}")
    return m


@pytest.mark.parametrize("e", [0.0, 0.5, 1.0])
def test_falling_bar_impact_time_and_velocities(e):
    state0 = [0.0, 1.0, 0.4, 0.3, 0.5, 1.2]
    L, mass = 1.0, 2.0
    t_hit, s_hit = free_fall_contact_time(state0, L)
    m = falling_bar(state0, L, mass, e, ends=(s_hit,))
    tr = m.simulate(t_hit + 0.05, n_points=11, tol=TOL)
    impacts = [ev for ev in tr.events if ev["name"] == "floor 0"]
    assert len(impacts) == 1
    ev = impacts[0]
    assert abs(ev["t"] - t_hit) < 1e-12
    pre = free_fall_state(state0, t_hit)
    ref = bar_floor_impact(mass, L, pre[2], pre[3:], s_hit, e)
    assert np.abs(ev["state"][3:] - ref["v_plus"]).max() < 1e-10
    assert abs(ev["impulse"][0] - ref["impulse"]) < 1e-10
    assert abs(ev["kinetic_energy_lost"] - ref["energy_lost"]) < 1e-10
    assert abs(ev["approach_speed"] + ref["vn_minus"]) < 1e-10
    inertia = mass * L**2 / 12

    def kinetic(v):
        return 0.5 * mass * (v[0] ** 2 + v[1] ** 2) + 0.5 * inertia * v[2] ** 2

    def angular_momentum_about(P, x, v):  # I ω + m (c - P) × v
        return inertia * v[2] + mass * ((x[0] - P[0]) * v[1] - (x[1] - P[1]) * v[0])

    P = pre[:2] + s_hit * L * np.array([math.cos(pre[2]), math.sin(pre[2])])
    H_minus = angular_momentum_about(P, pre, pre[3:])
    H_plus = angular_momentum_about(P, ev["state"], ev["state"][3:])
    assert abs(H_plus - H_minus) < 1e-10  # for every e: the impulse acts at P
    assert abs(mass * ev["state"][3] - mass * pre[3]) < 1e-12  # no friction
    if e == 1.0:
        assert abs(kinetic(ev["state"][3:]) - kinetic(pre[3:])) < 1e-10
        # after an elastic bounce the bar flies freely: the trajectory at the end time
        after = free_fall_state([*ev["state"][:3], *ev["state"][3:]], tr.t[-1] - ev["t"])
        assert np.abs(tr.q[-1] - after[:3]).max() < 1e-10


def test_bouncing_bar_settles_zeno_safe():
    """A bar landing flat (both ends at once) with e = 0.5: the bouncing sequence, then rest."""
    H0, e, rest = 0.5, 0.5, 0.05
    m = quivira.bar_joint_model()
    m.add_bar_at_attitude(0.0, H0, 0.0, 1.0, 1.0)
    m.add_contact(0, -0.5, restitution=e, rest_speed=rest, name="left")
    m.add_contact(0, 0.5, restitution=e, rest_speed=rest, name="right")
    start = time.perf_counter()
    tr = m.simulate(2.0, n_points=201, tol=TOL, max_wall_s=60.0)
    assert time.perf_counter() - start < 60.0
    # Quivira rests when the rebound speed e v⁻ would be below rest_speed
    ref = bouncing_sequence(H0, e, v_min=rest / e)
    impacts = [ev for ev in tr.events if ev["what"] in ("impact", "rests")]
    # both ends hit together: one event per end per impact, at the same instants
    times = sorted({round(ev["t"], 9) for ev in impacts})
    assert len(times) == len(ref["t"])
    assert np.abs(np.array(times) - ref["t"]).max() < 1e-8
    assert len(tr.events) < 100  # finite: resting contact ends the sequence
    resting = tr.t > ref["t_rest"] + 1e-6
    assert resting.any()
    assert np.abs(tr.q[resting, 1]).max() < 1e-9  # lying on the floor
    assert np.abs(tr.qd[resting]).max() < 1e-9
    # resting contact carries the weight: the two contact forces sum to m g
    total = tr.multiplier("left.normal") + tr.multiplier("right.normal")
    assert np.abs(total[resting] - 9.81).max() < 1e-8


def test_contact_releases_when_the_force_turns_tensile():
    """A bar resting on the floor is lifted by an upward force ramp: it leaves when F = m g."""
    m = quivira.bar_joint_model()
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    m.add_contact(0, 0.0, name="floor")
    m.add_force_actuator(0, 0.0, 0.0, 9.81 * hy.time, name="lift")  # F = g t
    tr = m.simulate(1.5, n_points=151, tol=TOL)
    released = [ev for ev in tr.events if ev["what"] == "released"]
    assert len(released) == 1 and abs(released[0]["t"] - 1.0) < 1e-9
    # afterwards y'' = g (t - 1): y = g (t - 1)^3 / 6
    after = tr.t > 1.0
    assert np.abs(tr.q[after, 1] - 9.81 * (tr.t[after] - 1.0) ** 3 / 6).max() < 1e-9


# ------------------------------------------------------------------------------------------
# latch on a two-bar hinge
# ------------------------------------------------------------------------------------------

def two_bar_model(masses, lengths, theta, thetad, g=9.81):
    q, qd = two_bar_state(masses, lengths, theta, thetad)
    m = quivira.bar_joint_model()
    m.set_g(g)
    for i in range(2):
        m.add_bar_at_attitude(q[3 * i], q[3 * i + 1], q[3 * i + 2], lengths[i], masses[i])
        m.set_init_bar_velocities(i, *qd[3 * i:3 * i + 3])
    m.add_support(0, -0.5, False, False)
    m.add_joint([0, 1], [0.5, -0.5])
    return m


def test_latch_conserves_angular_momentum_and_holds_the_angle():
    masses, lengths = (2.0, 1.2), (1.5, 1.0)
    theta0, thetad0, phi_l = (-1.2, -0.4), (0.0, 3.0), 0.6
    m = two_bar_model(masses, lengths, theta0, thetad0)
    m.add_latch(0, 1, phi_l, name="lock")
    tr = m.simulate(2.0, n_points=201, tol=TOL)
    ref = two_bar_latch_reference(masses, lengths, theta0, thetad0, phi_l, t_end=2.0,
                                  times=201)
    latches = [ev for ev in tr.events if ev["what"] == "latched"]
    assert len(latches) == 1
    ev = latches[0]
    assert abs(ev["t"] - ref["t_latch"]) < 1e-11
    lat = ref["latch"]
    assert abs(ev["kinetic_energy_lost"] - lat["energy_lost"]) < 1e-10
    assert np.abs(ev["state"][6:] - lat["qd_plus"]).max() < 1e-9
    # angular momentum about the pivot from Quivira's own post-latch state
    th = ev["state"][[2, 5]]
    H_plus = np.ones(2) @ two_bar_mass_matrix(masses, lengths, th[1] - th[0]) @ ev["state"][
        [8, 11]]
    assert abs(H_plus - lat["H_O"]) < 1e-9
    # the whole motion, and the latched angle held afterwards
    assert np.abs(tr.q - ref["q"]).max() < 1e-9
    after = tr.t > ev["t"]
    assert np.abs(tr.q[after, 5] - tr.q[after, 2] - phi_l).max() < 1e-12
    # energy: conserved on both sides, dropping by the lost kinetic energy at the latch
    E = tr.kinetic_energy + tr.potential_energy
    assert np.abs(E - ref["energy"]).max() < 1e-9


def test_latching_lattice_locks_all_cells_at_the_exact_instant():
    """scissor(8) under hinge springs with 8 latches (the benchmark case) against the exact
    quadrature of its 1-DOF energy integral: the lock time, the lost kinetic energy (all of
    it), and the latched angle held afterwards; 7 of the 8 latches are redundant."""
    from benchmarks.latching_lattice import build_quivira, peer

    exact = peer.exact_reference()
    tr = build_quivira().simulate(1.5, n_points=31, tol=TOL)
    latched = [ev for ev in tr.events if ev["what"] == "latched"]
    assert len(latched) == 8
    assert sum(bool(ev.get("redundant")) for ev in latched) == 7
    assert max(abs(ev["t"] - exact["t_latch"]) for ev in latched) < 1e-12
    lost = sum(ev["kinetic_energy_lost"] for ev in latched)
    assert abs(lost - exact["kinetic_lost"]) < 1e-10 * exact["kinetic_lost"]
    after = tr.t > exact["t_latch"]
    phi = tr.q[:, 5::6] - tr.q[:, 2::6]
    assert np.abs(phi[after] - peer.PHI_LATCH).max() < 1e-12
    assert np.abs(tr.qd[after]).max() < 1e-10  # at rest (round-off of 48 coordinates)


def test_angle_stop_bounces_with_restitution():
    """A pendulum swinging into a stop at the bottom: the rate reverses times e, exactly."""
    L, mass, e = 1.0, 1.0, 0.6
    m = quivira.bar_joint_model()
    m.add_bar_at_attitude(0.5 * L * math.cos(-0.3), 0.5 * L * math.sin(-0.3), -0.3, L, mass)
    m.add_support(0, -0.5, False, False)
    m.add_angle_stop(None, 0, -math.pi / 2, "min", restitution=e, name="stop")
    tr = m.simulate(1.0, n_points=11, tol=TOL)
    hits = [ev for ev in tr.events if ev["name"] == "stop"]
    assert hits and hits[0]["what"] == "impact"
    # energy from -0.3 rad down to -π/2: (1/2) I_O ω² = m g L/2 (sin(-0.3) - sin(-π/2))
    I_O = mass * L**2 / 3
    omega_minus = -math.sqrt(2 * mass * 9.81 * 0.5 * L * (math.sin(-0.3) + 1.0) / I_O)
    assert abs(hits[0]["state"][5] - (-e * omega_minus)) < 1e-9
    assert abs(hits[0]["kinetic_energy_lost"]
               - 0.5 * I_O * omega_minus**2 * (1 - e**2)) < 1e-9
    assert tr.q[:, 2].min() > -math.pi / 2 - 1e-12


def test_user_event_time_and_terminal():
    """A free fall watched by a user event y = 0.2: at t = √(2 (1 - 0.2)/g), and terminal."""
    m = quivira.bar_joint_model()
    m.add_bar_at_attitude(0.0, 1.0, 0.0, 1.0, 1.0)
    x, y, th = m.coordinates(0)
    m.add_event(y - 0.2, name="mark", direction="down", terminal=True)
    tr = m.simulate(2.0, n_points=101, tol=TOL)
    t_ref = math.sqrt(2 * 0.8 / 9.81)
    assert [ev["name"] for ev in tr.events] == ["mark"]
    assert abs(tr.events[0]["t"] - t_ref) < 1e-12
    # the trajectory ends at the last output time before the terminal event
    assert t_ref - (tr.t[1] - tr.t[0]) < tr.t[-1] <= t_ref
    assert abs(tr.events[0]["state"][1] - 0.2) < 1e-12
    assert abs(tr.events[0]["state"][4] + 9.81 * t_ref) < 1e-12


# ------------------------------------------------------------------------------------------
# bad inputs
# ------------------------------------------------------------------------------------------

def two_free_bars():
    m = quivira.bar_joint_model()
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    m.add_bar_at_attitude(2.0, 0.0, 0.0, 1.0, 1.0)
    return m


@pytest.mark.parametrize("call, exc, words", [
    (lambda m: m.add_contact(0, 0.5, restitution=1.5), ValueError, "restitution"),
    (lambda m: m.add_contact(0, 0.5, restitution=-0.1), ValueError, "restitution"),
    (lambda m: m.add_contact(0, 0.5, restitution="high"), TypeError, "restitution"),
    (lambda m: m.add_angle_stop(0, 1, 0.3, "max", restitution=2.0), ValueError,
     "restitution"),
    (lambda m: m.add_angle_stop(0, 1, 0.3, "up"), ValueError, "side"),
    (lambda m: m.add_latch(0, 1, 0.5), ValueError, "joint"),
    (lambda m: m.add_latch(0, 7, 0.5), ValueError, "bar"),
    (lambda m: m.add_event(hy.make_vars("zz") - 1.0), ValueError, "zz"),
    (lambda m: m.add_event("y > 0"), TypeError, "expression"),
    (lambda m: m.add_event(m.coordinates(0)[1], direction="sideways"), ValueError,
     "direction"),
    (lambda m: m.add_prismatic_joint(0, 0, 0.0), ValueError, "same bar"),
    (lambda m: m.add_pin_in_slot(0, 1, 0.9), ValueError, "s_b"),
    (lambda m: m.add_ground_slider(0, 0.0, float("nan")), ValueError, "angle"),
])
def test_bad_inputs_are_rejected_and_leave_the_model(call, exc, words):
    m = two_free_bars()
    before = m.to_dict()
    with pytest.raises(exc, match=words):
        call(m)
    assert m.to_dict() == before
