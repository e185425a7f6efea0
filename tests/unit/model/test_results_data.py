"""Results as plain data: trajectories pickle and export, query results are frozen dataclasses,
and the public API the widgets use (sparsity, symbolic entries) agrees with the numbers.

Oracles: the arrays of the trajectory itself (exports must reproduce them exactly), NumPy on
the same numbers (W = J M⁻¹ Jᵀ from the matrices), and a fresh model built from the same data
(a trajectory whose compiled code is gone recomputes its multipliers bit for bit).
"""

from __future__ import annotations

import dataclasses
import gc
import pickle
import weakref

import heyoka as hy
import numpy as np
import pytest

import quivira as qv
from quivira.elements import GearPair
from quivira.examples import chain, four_bar
from quivira.model.elements import KINDS


def every_kind_model() -> qv.BarJointModel:
    """A model with an element of every registered kind (pins, supports, coordinate,
    user and velocity constraints, a knife edge, a point load), consistent at t = 0."""
    m = qv.BarJointModel()
    m.add_bar_at_attitude(0.5, 0.0, 0.0, 1.0, 1.0)
    m.add_bar_at_attitude(1.0, -0.5, -np.pi / 2, 1.0, 2.0)
    m.add_bar_at_attitude(3.0, 0.0, 0.0, 1.0, 1.5)
    m.add_support(0, -0.5, False, False)
    m.add_joint([0, 1], [0.5, -0.5])
    m.add_support(2, 0.0, True, False)  # roller, free in x
    m.add_coordinate_constraint(None, 2, X1=[[0, 0, 1]], offset=[0.0], name="level")
    m.add_coordinate_constraint(0, 2, X0=[[1, 0, 0]], X1=[[1, 0, 0]], offset=[2.5],
                                active=False, name="spacer")
    x2, y2, th2 = m.coordinates(2)
    m.add_constraint([x2 - 3.0 - 0.1 * hy.sin(2.0 * hy.time)], name="drive")
    m.add_knife_edge(1, 0.3, name="skate")
    m.add_external_force(1, 0.5, 2.0, -1.0, torque=0.3)
    m.set_init_bar_velocities(2, 0.2, 0.0, 0.0)
    m.add_spring_damper(1, 0.5, None, ground_point=(1.5, -1.5), k=20.0, c=0.4)
    m.add_torsional_spring(0, 1, 6.0, c=0.1, preload=0.2)
    A = m.add_parameter("A", 0.7)
    m.add_torque_actuator(1, A * hy.sin(3.0 * hy.time), bar_a=0, name="motor")
    m.add_force_actuator(2, 0.5, 0.0, -0.5 * A, frame="bar", name="push")
    # a slider-crank: crank 3 pinned at (5, 0), coupler 4 whose end slides on y = 0
    c, s = 0.5 * np.cos(1.0), 0.5 * np.sin(1.0)
    m.add_bar_from_point_pair((5.0, 0.0), (5.0 + c, s))
    end = 5.0 + c + np.sqrt(1.5**2 - s**2)
    m.add_bar_from_point_pair((5.0 + c, s), (end, 0.0))
    m.add_support(3, -0.5, False, False)
    m.add_joint([3, 4], [0.5, -0.5])
    m.add_ground_slider(4, 0.5, angle=0.0, name="guide")
    # a bar pinned in the slot of the coupler, and a bar sliding along it (prismatic)
    p = (5.0 + c + 0.3 * (end - 5.0 - c), s * 0.7)
    m.add_bar_from_point_pair(p, (p[0] + 0.2, p[1] + 0.9))
    m.add_pin_in_slot(4, 5, -0.5, name="pin slot")
    th5 = m.bars[5].pose[2]
    m.add_bar_at_attitude(m.bars[5].pose[0] + 0.1 * np.cos(th5),
                          m.bars[5].pose[1] + 0.1 * np.sin(th5), th5, 0.4, 0.3)
    m.add_prismatic_joint(5, 6, 0.0, name="sleeve")
    m.add_latch(3, 4, -2.5, name="lock")
    m.add_angle_stop(0, 1, 0.5, "max", 0.3, name="limit")
    m.add_contact(2, 0.5, height=-5.0, restitution=0.5, name="floor")
    m.add_event(y2 + 0.05, name="dip", direction="down")
    # bodies: a welded pair, a link to the ground, a rolling disc, a disc in a driven ring
    k = m.n_bars
    m.add_bar_at_attitude(10.0, -0.5, -np.pi / 2, 1.0, 1.0)
    m.add_support(k, -0.5, fixed_x=True, fixed_y=True)
    m.add_bar_at_attitude(10.0, -1.0, 0.0, 0.6, 0.5)
    m.add_weld(k, k + 1, at=(10.0, -1.0), name="weld")
    m.add_distance(k + 1, 0.5, None, (10.3, -1.4), name="link")
    d = m.add_body(12.0, 0.25, 0.0, 1.0, 0.03, {"kind": "disc", "radius": 0.25})
    m.add_rolling_on_line(d, 0.0, (12.0, 0.0), name="roll")
    ring = m.add_body(14.0, 0.0, 0.0, 2.0, 0.5, {"kind": "disc", "radius": 1.0})
    m.add_support(ring, 0.0, fixed_x=True, fixed_y=True)
    small = m.add_body(14.0, -0.8, 0.0, 0.3, 0.006, {"kind": "disc", "radius": 0.2})
    m.add_rolling_on_disc(ring, small, inside=True, name="ring roll")
    m.add_joint_motor(None, A * (1.0 - hy.cos(hy.time)), bodies=(None, ring),
                      name="ring drive")
    # a pin at an off-axis point of a rigid body (IFToMM A03's kind of joint)
    plate = m.add_body(16.0, 0.0, 0.0, 1.0, 0.01, points={"corner": (0.1, 0.05)})
    m.add_pin(None, (16.1, 0.05), plate, "corner", name="corner pin")
    # a pinned gear driven by the ring
    gear = m.add_bar_at_attitude(14.0, 1.6, 0.0, 0.8, 0.4)
    m.add_support(gear, 0.0, fixed_x=True, fixed_y=True)
    m.add(GearPair(body_a=ring, body_b=gear, radius_a=1.0, radius_b=0.6, name="idler"))
    return m


def test_model_has_every_registered_kind():
    m = every_kind_model()
    assert {type(e) for e in m.elements.values()} == set(KINDS)


def test_trajectory_pickles_for_every_kind():
    m = every_kind_model()
    tr = m.simulate(0.5, n_points=21)
    blob = pickle.dumps(tr)
    back = pickle.loads(blob)
    for name in ("t", "q", "qd", "kinetic_energy", "potential_energy", "position_residual",
                 "velocity_residual", "lambda_mult", "qdd", "singularity"):
        assert np.array_equal(getattr(back, name), getattr(tr, name)), name
    assert back.constraint_labels == tr.constraint_labels
    assert [r.label for r in back.reactions] == [r.label for r in tr.reactions]
    for a, b in zip(back.reactions, tr.reactions):
        assert np.array_equal(a.force, b.force)
    for name in tr.constraint_groups:
        for out in ("Force", "ConstraintEquation"):
            assert np.array_equal(back.constraint_output(name, out),
                                  tr.constraint_output(name, out))
    assert np.array_equal(back.constraint_output("spacer", "Displacement"),
                          tr.q[:, 6:9] - tr.q[:, 0:3])
    # the pickle holds data only: no compiled code, no heyoka objects
    assert b"heyoka" not in blob and b"CompiledSystem" not in blob


def test_trajectory_does_not_keep_compiled_code_alive():
    m = four_bar()
    first = m.simulate(1.0, n_points=11)
    lam = first.lambda_mult.copy()
    later = m.simulate(1.0, n_points=11)  # multipliers not read yet
    ref = weakref.ref(m.compiled())
    del m
    gc.collect()
    assert ref() is None  # only the model held the compiled system
    # the multipliers are compiled again from the data the trajectory was made from
    assert np.array_equal(later.lambda_mult, lam)


def test_exports_reproduce_the_arrays(tmp_path):
    m = every_kind_model()
    tr = m.simulate(0.4, n_points=9)
    df = tr.to_pandas()
    assert len(df) == tr.n_points
    assert np.array_equal(df["t"].to_numpy(), tr.t)
    for j, name in enumerate(tr.coordinate_names):
        assert np.array_equal(df[name].to_numpy(), tr.q[:, j])
        assert np.array_equal(df[tr.velocity_names[j]].to_numpy(), tr.qd[:, j])
    for k, label in enumerate(tr.constraint_labels):
        assert np.array_equal(df[f"lambda[{label}]"].to_numpy(), tr.lambda_mult[:, k])
    fs = tr.support_force(0)
    assert np.array_equal(df["support 0 on bar 0 · Fx"].to_numpy(), fs[:, 0])
    assert np.array_equal(df["energy"].to_numpy(), tr.energy)

    ds = tr.to_xarray()
    assert ds["q"].dims == ("time", "coordinate") and ds["lambda_mult"].dims == ("time",
                                                                                  "constraint")
    assert list(ds["coordinate"].values) == tr.coordinate_names
    assert list(ds["constraint"].values) == tr.constraint_labels
    assert np.array_equal(ds["q"].values, tr.q)
    assert np.array_equal(ds["lambda_mult"].values, tr.lambda_mult)
    assert np.array_equal(ds["velocity_residual"].sel(constraint="skate.normal").values,
                          tr.velocity_residual[:, tr.constraint_labels.index("skate.normal")])
    assert np.array_equal(ds["time"].values, tr.t)

    path = tmp_path / "motion.csv"
    tr.to_csv(path)
    import pandas as pd

    back = pd.read_csv(path)
    assert list(back.columns) == list(df.columns)
    assert np.array_equal(back.to_numpy(), df.to_numpy())  # 17 digits: exact round trip


def test_query_results_are_frozen_dataclasses():
    m = chain(2, angle=-np.pi / 2)  # hanging at rest: an equilibrium
    chk = m.check_constraint_fulfillment(m.get_initial_state())
    mats = m.matrices()
    rep = m.assemble()
    A, B = m.linearize()
    lin = m.linearize()
    for r in (chk, mats, rep, lin, m.modes(), m.sparsity()):
        assert dataclasses.is_dataclass(r)
        field = dataclasses.fields(r)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(r, field, None)
    assert np.array_equal(A, lin.A) and np.array_equal(B, lin.B)
    assert chk["satisfied"] is chk.satisfied and bool(chk)
    assert mats["J"] is mats.J and rep["residual"] == rep.residual


@pytest.mark.slow
def test_sparsity_and_symbolic_entries_agree_with_the_numbers():
    """Every structural non-zero pattern covers the numeric non-zeros, and each symbolic entry
    evaluated at the model's parameters equals the numeric entry (W from NumPy, J M⁻¹ Jᵀ)."""
    m = every_kind_model()
    state = np.array(m.get_initial_state())
    n = m.n_coordinates
    state[n:] = np.random.default_rng(3).standard_normal(n)
    mats = m.matrices(state, t=0.3)
    sp = m.sparsity()
    for name in ("M", "J", "W"):
        num = getattr(mats, name)
        assert getattr(sp, name).shape == num.shape
        assert not np.any((num != 0) & ~getattr(sp, name)), name
    pars = m.parameter_values()
    x = [*(hy.expression(f"{c}{i}") for i in range(m.n_bars) for c in ("x", "y", "th")),
         *(hy.expression(f"{c}{i}") for i in range(m.n_bars) for c in ("vx", "vy", "om"))]
    W_ref = (mats.J / np.diag(mats.M)[None, :]) @ mats.J.T
    W_ref[np.diag_indices_from(W_ref)] += [1.0 if lb.startswith("spacer") else 0.0
                                           for lb in mats.labels]  # switched off: W_kk + 1
    checked = 0
    for which, ref in (("M", mats.M), ("J", mats.J), ("W", W_ref)):
        rows, cols = np.nonzero(getattr(sp, which))
        for i, j in list(zip(rows, cols))[:40]:
            e = m.symbolic_entry(which, int(i), int(j))
            cf = hy.cfunc([hy.expression(0.0) * x[0] + e], vars=x)
            val = cf(state, pars=pars[: cf.nparams], time=0.3) if cf.is_time_dependent \
                else cf(state, pars=pars[: cf.nparams])
            assert val[0] == pytest.approx(ref[i, j], rel=1e-12, abs=1e-12), (which, i, j)
            checked += 1
    assert checked > 60
    assert m.symbolic_entry("J", 0, n - 1) == 0.0 or sp.J[0, n - 1]
    with pytest.raises(ValueError, match="out of range"):
        m.symbolic_entry("W", 99, 0)
    with pytest.raises(TypeError, match="must be an integer"):
        m.symbolic_entry("J", 0, 1.5)
    with pytest.raises(ValueError, match="'M', 'J', 'W' or 'lambda'"):
        m.symbolic_entry("Q", 0, 0)


def test_topology_key_and_is_compiled_follow_edits():
    m = four_bar()
    key = m.topology_key()
    assert not m.is_compiled()
    m.simulate(0.1, n_points=3)
    assert m.is_compiled() and m.n_compiled == 1
    m.set_bar_mass(0, 3.0)
    assert m.topology_key() == key and m.is_compiled()
    m.add_external_force(1, 0.0, 1.0, 0.0)
    assert m.topology_key() != key and not m.is_compiled()
