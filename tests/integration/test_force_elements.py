"""Springs, dampers and actuators against independent oracles.

* SymPy mechanics (``LinearSpring``, ``LinearDamper``, ``TorqueActuator`` via
  ``LagrangesMethod``; quivira_oracles/force_elements_sympy.py): accelerations and multipliers at
  random states, to 1e-10.
* Exudyn (``SpringDamper``, ``TorsionalSpringDamper``, generalized-α at h = 1e-4;
  quivira_oracles/force_elements_exudyn.py): positions and element forces over 5 s. The oracle's
  h-convergence (second order: errors 100× smaller from h = 1e-3 to 1e-4) bounds its error at
  h = 1e-4 by about 1e-6 in positions and 5e-5 in forces over 5 s; the tolerances below are
  ten times that.
* Closed forms: a bar on a torsional spring (ω² = k/I_pivot, gravity off; the exact damped
  motion and its logarithmic decrement), the statics of a spring-loaded lever (multipliers =
  the pin reaction).
* The energy ledger: E(t) − E(0) − W_in(t) + D(t) stays at rounding level for a driven,
  damped lattice over 20 s.
"""

from __future__ import annotations

import math

import heyoka as hy
import numpy as np
import pytest

import quivira as qv
from quivira.examples import scissor
from quivira_oracles import force_elements_exudyn as exu
from quivira_oracles import force_elements_sympy as fes


def law(value):
    """An oracle time law (a float, or offset + A sin(ω t + phase)) as a heyoka expression."""
    if not isinstance(value, dict):
        return float(value)
    return (value.get("offset", 0.0)
            + value["A"] * hy.sin(value["omega"] * hy.time + value.get("phase", 0.0)))


def from_spec(spec: dict) -> qv.BarJointModel:
    """The oracle's model description as a quivira model (same rows, in the same order)."""
    m = qv.BarJointModel()
    m.set_g(spec["g"])
    for i, b in enumerate(spec["bars"]):
        m.add_bar_at_attitude(b["x"], b["y"], b["theta"], b["length"], b["mass"])
        m.set_init_bar_velocities(i, b["vx"], b["vy"], b["omega"])
    for a, s_a, b, s_b in spec["joints"]:
        m.add_joint([a, b], [s_a, s_b])
    for bar, s in spec["ground_pins"]:
        m.add_support(bar, s, False, False)
    for k, sd in enumerate(spec["springs"]):
        ends = [(sd.get("a"), sd.get("s_a", 0.0), sd.get("point_a")),
                (sd.get("b"), sd.get("s_b", 0.0), sd.get("point_b"))]
        if ends[0][0] is None:
            ends.reverse()
        (a, s_a, _), (b, s_b, point) = ends
        m.add_spring_damper(a, s_a, b, s_b, k=sd["k"], l0=sd["l0"], c=sd["c"],
                            ground_point=point, name=f"spring{k}")
    for k, ts in enumerate(spec["torsional_springs"]):
        m.add_torsional_spring(ts["a"], ts["b"], ts["k"], ts["phi0"], ts["c"], ts["tau0"],
                               name=f"torsion{k}")
    for k, f in enumerate(spec["forces"]):
        m.add_force_actuator(f["bar"], f["s"], law(f["fx"]), law(f["fy"]), name=f"actuator{k}")
    for k, t in enumerate(spec["torques"]):
        m.add_torque_actuator(t["bar"], law(t["tau"]), name=f"torque{k}")
    for k, t in enumerate(spec["relative_torques"]):
        m.add_torque_actuator(t["b"], law(t["tau"]), bar_a=t["a"], name=f"motor{k}")
    return m


def everything_spec() -> dict:
    spec = fes.two_bar_chain_spec(
        joint_spring={"k": 25.0, "phi0": 0.8, "c": 0.4, "tau0": 1.5},
        ground_spring={"k": 12.0, "phi0": -0.5, "c": 0.2, "tau0": -0.7},
        joint_torque={"A": 2.0, "omega": 3.0, "phase": 0.2})
    spec["springs"].append({"a": 1, "s_a": 0.5, "b": None, "point_b": (1.5, 1.0), "k": 40.0,
                            "l0": 0.6, "c": 0.9})
    # a spring-damper between the two bars (long force expressions: they once collided)
    spec["springs"].append({"a": 0, "s_a": 0.2, "b": 1, "s_b": 0.3, "k": 15.0, "l0": 0.5,
                            "c": 0.3})
    spec["forces"].append({"bar": 1, "s": 0.2, "fx": {"A": 1.5, "omega": 2.0},
                           "fy": -0.8})
    spec["torques"].append({"bar": 0, "tau": {"A": 1.2, "omega": 5.0, "offset": -0.3}})
    return spec


def test_accelerations_and_multipliers_match_sympy_mechanics():
    spec = everything_spec()
    oracle = fes.build_sympy_model(spec)
    m = from_spec(spec)
    n = m.n_coordinates
    rng = np.random.default_rng(5)
    s0 = np.array(m.get_initial_state())
    for _ in range(8):
        s = s0 + np.concatenate([0.05 * rng.standard_normal(n), rng.standard_normal(n)])
        t = float(rng.uniform(0, 3))
        qdd_ref, lam_ref = oracle.accelerations(s[:n], s[n:], t)
        got = m.matrices(s, t)
        np.testing.assert_allclose(got.qdd, qdd_ref, rtol=1e-10, atol=1e-10 * np.abs(qdd_ref).max())
        np.testing.assert_allclose(got.lambda_mult, lam_ref, rtol=1e-10,
                                   atol=1e-10 * np.abs(lam_ref).max())


def _compare_with_exudyn(spec, t_end=5.0):
    ref = exu.simulate_force_elements_exudyn(spec, t_end=t_end, h=1e-4, times=101)
    m = from_spec(spec)
    tr = m.simulate(t_end, n_points=101)
    np.testing.assert_allclose(tr.t, ref["t"], atol=1e-12)
    assert np.abs(tr.q - ref["q"]).max() < 1e-5
    assert np.abs(tr.qd - ref["qd"]).max() < 1e-4
    return m, tr, ref


def test_spring_damper_pendulum_vs_exudyn():
    spec = fes.spring_pendulum_spec(k=60.0, l0=0.5, c=0.8, theta=-0.4)
    m, tr, ref = _compare_with_exudyn(spec)
    assert np.abs(tr.element_force("spring0") - ref["spring_force"][:, 0]).max() < 5e-4
    pin = tr.support_force(0)
    assert np.abs(pin - ref["pin_forces"][:, 0]).max()[()] < 1e-2  # start-up transient of α


def test_two_bar_torsional_spring_vs_exudyn():
    spec = fes.two_bar_chain_spec(joint_spring={"k": 25.0, "phi0": 0.8, "c": 0.4, "tau0": 1.5},
                                  ground_spring={"k": 12.0, "phi0": -0.5, "c": 0.2,
                                                 "tau0": -0.7})
    m, tr, ref = _compare_with_exudyn(spec)
    torques = np.column_stack([tr.element_force("torsion0"), tr.element_force("torsion1")])
    assert np.abs(torques - ref["torsional_torque"]).max() < 5e-4


def test_torsional_pendulum_frequency_and_decrement():
    """Gravity off: θ'' = -(k/I_p)(θ - φ0) - (c/I_p)θ', exactly (any amplitude)."""
    mass, length, k = 2.0, 1.5, 30.0
    for c in (0.0, 1.2):
        spec = fes.torsional_pendulum_spec(mass=mass, length=length, k_theta=k, c_theta=c,
                                           theta=0.9, phi0=0.1)
        m = from_spec(spec)
        omega = fes.torsional_pendulum_omega(k, mass, length)
        zeta = fes.torsional_pendulum_damping_ratio(k, c, mass, length)
        td = 2 * math.pi / omega / math.sqrt(1 - zeta**2)  # the damped period
        tr = m.simulate(3 * td, n_points=301)  # 100 outputs per damped period
        ref = fes.damped_torsional_pendulum_angle(tr.t, theta0=0.9, omega0=0.0, phi0=0.1,
                                                  k_theta=k, c_theta=c, mass=mass,
                                                  length=length)
        np.testing.assert_allclose(tr.q[:, 2], ref, atol=1e-10)
        if c:  # u(t + T_d) = exp(-δ) u(t): the logarithmic decrement
            u = tr.q[:, 2] - 0.1
            for i in (3, 40, 77):
                assert math.isclose(math.log(u[i] / u[i + 100]),
                                    fes.logarithmic_decrement(zeta), rel_tol=1e-8)


def test_spring_loaded_lever_statics():
    """At the equilibrium angle from the moment balance, q̈ = 0 and the pin multipliers are
    the reaction R = (0, m g) − T u; the spring's tension equals the closed-form one."""
    for l0 in (fes.lever_level_rest_length(2.0, 400.0, 0.5), 0.3, 0.45):
        eq = fes.lever_equilibrium(mass=2.0, length=1.5, k=400.0, l0=l0, height=0.5)
        spec = fes.lever_spec(mass=2.0, length=1.5, k=400.0, l0=l0, height=0.5,
                              theta=eq["theta"])
        m = from_spec(spec)
        mats = m.matrices()
        np.testing.assert_allclose(mats.qdd, 0.0, atol=1e-10)
        np.testing.assert_allclose(mats.lambda_mult, eq["reaction"], atol=1e-10)
        tr = m.simulate(0.1, n_points=3)
        assert math.isclose(tr.element_force("spring0")[0], eq["tension"], rel_tol=1e-12)


def test_energy_balance_of_a_driven_damped_lattice():
    """A scissor lattice with a damped torsional spring at every hinge, a spring-damper to
    ground and a motor: E − E0 − W_in + D at rounding level over 20 s."""
    m = scissor(4)
    for j, jt in enumerate(m.joints):
        if len(jt.bars) == 2:
            m.add_torsional_spring(jt.bars[0], jt.bars[1], 8.0, c=0.05, name=f"hinge {j}")
    m.add_spring_damper(m.n_bars - 1, 0.5, None, ground_point=(0.0, 3.0), k=30.0, c=0.3)
    A = m.add_parameter("A", 15.0)
    m.add_torque_actuator(0, A * hy.sin(2.0 * hy.time), name="motor")
    tr = m.simulate(20.0, n_points=401)
    scale = max(np.abs(tr.energy).max(), tr.dissipated.max(), np.abs(tr.work_in).max())
    assert tr.dissipated[-1] > 0.01 * scale and np.abs(tr.work_in).max() > 0.01 * scale
    assert np.abs(tr.energy_balance()).max() < 1e-10 * scale
    assert tr.relative_energy_error() < 1e-10
    # the ledger adds up, and each element's power integrates to its share
    led = tr.energy_ledger()
    total = led["kinetic"] + led["gravity"] + led["elastic"] + led["loads"]
    np.testing.assert_allclose(total, tr.energy, rtol=0, atol=1e-12 * scale)
    p = tr.element_power("motor")
    work = np.concatenate([[0.0], np.cumsum(0.5 * (p[1:] + p[:-1]) * np.diff(tr.t))])
    # (trapezoid rule on the 0.05 s output grid: its error is about 0.3 % here)
    assert np.abs(work - tr.work_in).max() < 1e-2 * np.abs(tr.work_in).max()


def test_values_are_runtime_parameters():
    spec = everything_spec()
    m = from_spec(spec)
    m.simulate(0.5, n_points=11)
    key = m.topology_key()
    m.set_spring("spring0", k=55.0, c=0.1)
    m.set_spring("torsion1", phi0=0.2, preload=0.0)
    m.add_parameter("unused", 1.0)
    m.remove_load("unused")
    assert m.topology_key() == key and m.is_compiled()
    tr = m.simulate(0.5, n_points=11)
    spec["springs"][0].update(k=55.0, c=0.1)
    spec["torsional_springs"][1].update(phi0=0.2, tau0=0.0)
    fresh = from_spec(spec).simulate(0.5, n_points=11)
    np.testing.assert_allclose(tr.q, fresh.q, rtol=0, atol=1e-13)


def test_parameters_edit_actuator_laws_without_recompiling():
    spec = fes.force_actuated_pendulum_spec()
    m = from_spec(spec)
    A = m.add_parameter("A", 0.0)
    m.add_torque_actuator(0, A * hy.cos(3.0 * hy.time), name="drive")
    rest = m.simulate(1.0, n_points=11)
    m.set_parameter("A", 2.5)
    assert m.is_compiled()
    driven = m.simulate(1.0, n_points=11)
    spec["torques"].append({"bar": 0, "tau": {"A": 2.5, "omega": 3.0, "phase": math.pi / 2}})
    ref = fes.simulate_sympy(fes.build_sympy_model(spec), 1.0, rest.t)
    np.testing.assert_allclose(driven.q, ref["q"], atol=1e-9)
    assert np.abs(driven.q - rest.q).max() > 1e-3


def test_bad_inputs_leave_the_model_unchanged():
    m = from_spec(fes.spring_pendulum_spec())
    before = m.to_dict()
    bad = [
        (lambda: m.add_spring_damper(0, 0.5, None, ground_point=(2, 0), k=-1.0), ValueError,
         "k must be >= 0"),
        (lambda: m.add_spring_damper(0, 0.5, None, ground_point=(2, 0), k=1.0, c=-0.1),
         ValueError, "c must be >= 0"),
        (lambda: m.add_spring_damper(0, 0.5, 7, 0.0, k=1.0), ValueError, "out of range"),
        (lambda: m.add_spring_damper(0, 0.5, None, k=1.0), ValueError,
         r"give the ground point, ground=\(x, y\)"),
        (lambda: m.add_spring_damper(0, -0.5, None, ground_point=(0.0, 0.0), k=1.0),
         ValueError, "no direction"),
        (lambda: m.add_spring_damper(0, 0.5, None, ground_point="ab", k=1.0), TypeError,
         "real number"),
        (lambda: m.add_torsional_spring(None, 0, -3.0), ValueError, "k must be >= 0"),
        (lambda: m.add_torsional_spring(0, 0, 3.0), ValueError, "same bar"),
        (lambda: m.add_torsional_spring(None, 4, 3.0), ValueError, "out of range"),
        (lambda: m.add_torque_actuator(0, hy.expression("z") * 2.0), ValueError,
         r"unknown variables \['z'\]"),
        (lambda: m.add_torque_actuator(0, "fast"), TypeError, "real number"),
        (lambda: m.add_force_actuator(0, 0.5, 1.0, 0.0, frame="body"), ValueError, "frame"),
        (lambda: m.add_parameter("2A", 1.0), ValueError, "letters, digits"),
        (lambda: m.set_spring("spring0", stiffness=3.0), ValueError,
         "spring has no field 'stiffness'"),
        (lambda: m.set_spring("nope", k=3.0), ValueError, "no spring named"),
        (lambda: m.parameter("B"), ValueError, "no parameter named"),
    ]
    for call, exc, match in bad:
        with pytest.raises(exc, match=match):
            call()
        assert m.to_dict() == before


def test_springs_and_actuators_persist(tmp_path):
    m = from_spec(everything_spec())
    A = m.add_parameter("A", 1.3)
    m.add_force_actuator(0, 0.1, A * hy.cos(hy.time), 0.5, frame="bar", name="push")
    path = tmp_path / "m.json"
    m.save(path)
    back = qv.BarJointModel.load(path)
    assert back.to_dict() == m.to_dict()
    t1, t2 = m.simulate(0.4, n_points=5), back.simulate(0.4, n_points=5)
    assert np.array_equal(t1.q, t2.q) and np.array_equal(t1.work_in, t2.work_in)
    text = m.summary()
    for name in ("spring0", "torsion1", "motor0", "push", "parameter A = 1.3"):
        assert name in text
