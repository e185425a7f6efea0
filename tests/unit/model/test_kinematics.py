"""Kinematic analysis: mobility, sweeps along a driver, coupler curves and the
transmission angle of a four-bar, against Freudenstein's equation and closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest

import quivira as qv
from quivira.examples import four_bar
from quivira.model.kinematics import SweepWarning

a, b, c, d = 1.0, 3.0, 2.5, 3.0  # crank, coupler, rocker, ground of examples.four_bar()
K1, K2, K3 = d / a, d / c, (a * a - b * b + c * c + d * d) / (2 * a * c)


def rocker_closed_form(phi: np.ndarray, branch: int) -> np.ndarray:
    """ψ(φ) from Freudenstein's equation K1 cos ψ − K2 cos φ + K3 = cos(φ − ψ), solved by the
    tangent half-angle substitution (branch ±1)."""
    A = math.cos(0) * np.cos(phi) - K1 - K2 * np.cos(phi) + K3
    B = -2 * np.sin(phi)
    C = K1 - (K2 + 1) * np.cos(phi) + K3
    return 2 * np.arctan2(-B + branch * np.sqrt(B * B - 4 * A * C), 2 * A)


def wrap(x):
    return (x + np.pi) % (2 * np.pi) - np.pi


def test_four_bar_sweep_matches_freudenstein():
    m = four_bar()
    phi = np.linspace(math.pi / 3, math.pi / 3 + 2 * math.pi, 145)
    sweep = m.kinematic_sweep("th0", phi)
    assert sweep.complete and len(sweep) == 145
    th0, th1, th2 = sweep.coordinate("th0"), sweep.coordinate("th1"), sweep.coordinate("th2")
    np.testing.assert_allclose(th0, phi, atol=1e-12)
    residual = K1 * np.cos(th2) - K2 * np.cos(th0) + K3 - np.cos(th0 - th2)
    print(f"four-bar: max Freudenstein residual {np.max(np.abs(residual)):.2e}")
    assert np.max(np.abs(residual)) < 1e-12
    # the same assembly branch all the way round (no jump to the mirror branch)
    branch = min((1, -1), key=lambda s: abs(wrap(rocker_closed_form(phi[:1], s)[0] - th2[0])))
    psi = rocker_closed_form(phi, branch)
    err = np.max(np.abs(wrap(psi - th2)))
    print(f"four-bar: max rocker-angle error vs closed form {err:.2e} rad")
    assert err < 1e-10
    # velocity ratio ω4/ω2 = a sin(θ2 − θ3) / (c sin(θ4 − θ3))
    ratio = a * np.sin(th0 - th1) / (c * np.sin(th2 - th1))
    np.testing.assert_allclose(sweep.dq[:, 8], ratio, rtol=0, atol=1e-10)
    # acceleration: the derivative of that ratio, by the five-point central difference of the
    # closed form (truncation h^4 ψ^(6)/90 and rounding 16 eps / (12 h^2) ψ: about 1e-9)
    h = 1e-3
    dpsi = {k: wrap(rocker_closed_form(phi + k * h, branch) - psi) for k in (-2, -1, 1, 2)}
    d2 = (-dpsi[2] + 16 * dpsi[1] + 16 * dpsi[-1] - dpsi[-2]) / (12 * h ** 2)
    np.testing.assert_allclose(sweep.ddq[:, 8], d2, rtol=0, atol=1e-8)
    assert not sweep.singular_points


def test_coupler_curve_matches_closed_form():
    m = four_bar()
    phi = np.linspace(0.0, 2 * math.pi, 91) + math.pi / 3
    curve = m.coupler_curve(1, 0.0, "th0", phi, offset=0.6)
    branch = min((1, -1), key=lambda s: abs(wrap(rocker_closed_form(phi[:1], s)[0]
                                                 - m.get_initial_state()[8])))
    psi = rocker_closed_form(phi, branch)
    A = np.column_stack([a * np.cos(phi), a * np.sin(phi)])
    B = np.column_stack([d + c * np.cos(psi), c * np.sin(psi)])
    u = (B - A) / b
    nrm = np.column_stack([-u[:, 1], u[:, 0]])
    P = 0.5 * (A + B) + 0.6 * nrm
    err = np.max(np.abs(curve.points - P))
    print(f"coupler curve: max point error {err:.2e} m")
    assert err < 1e-10
    assert curve.complete and curve.x.shape == (91,)


def test_transmission_angle_closed_form():
    m = four_bar()
    phi = np.linspace(0.0, 2 * math.pi, 37) + math.pi / 3
    sweep = m.kinematic_sweep("th0", phi)
    mu = m.transmission_angle(1, 2, sweep)
    cos_mu = (b * b + c * c - a * a - d * d + 2 * a * d * np.cos(phi)) / (2 * b * c)
    np.testing.assert_allclose(np.cos(mu), cos_mu, rtol=0, atol=1e-12)
    mu0 = m.transmission_angle(1, 2)
    assert abs(math.cos(mu0) - cos_mu[0]) < 1e-12


def test_mobility_four_bar_truss_and_redundant_parallelogram():
    mob = four_bar().mobility()
    assert (mob.dof, mob.grubler, mob.rank, mob.n_rows) == (1, 1, 8, 8)
    assert mob.agrees and not mob.redundant
    truss = qv.BarJointModel()
    for p, q in [((0, 0), (4, 0)), ((4, 0), (2, 3)), ((2, 3), (0, 0))]:
        truss.add_bar_from_point_pair(p, q)
    for i in range(3):
        truss.add_joint([i, (i + 1) % 3], [0.5, -0.5])
    truss.add_support(0, -0.5, False, False)
    truss.add_support(0, 0.5, True, False)
    assert (truss.mobility().dof, truss.mobility().grubler) == (0, 0)
    # a double parallelogram: three parallel cranks under one coupler — Grübler says 0,
    # the rank of J says 1 (one row repeats the others)
    m = qv.BarJointModel()
    for x in (0.0, 1.0, 2.0):
        m.add_bar_from_point_pair((x, 0.0), (x, 1.0))
    m.add_bar_from_point_pair((0.0, 1.0), (2.0, 1.0))
    for k in range(3):
        m.add_support(k, -0.5, False, False)
    m.add_joint([3, 0], [-0.5, 0.5])
    m.add_joint([3, 1], [0.0, 0.5])
    m.add_joint([3, 2], [0.5, 0.5])
    mob = m.mobility()
    print(f"double parallelogram: dof {mob.dof}, Grübler {mob.grubler}, redundant "
          f"{mob.redundant}")
    assert mob.grubler == 0 and mob.dof == 1 and not mob.agrees
    # scanning rows in order (joints, then supports), the last vertical row adds nothing
    assert mob.redundant == ["support2.y"]
    # it still moves: the coupler translates on a circle, the three cranks stay parallel
    sweep = m.kinematic_sweep("th0", np.linspace(math.pi / 2, math.pi / 2 - 1.0, 11))
    assert sweep.complete and not sweep.singular_points
    for k in (1, 2):
        np.testing.assert_allclose(sweep.coordinate(f"th{k}"), sweep.values, atol=1e-12)
    np.testing.assert_allclose(sweep.coordinate("th3"), 0.0, atol=1e-12)


def test_rocker_driven_four_bar_stops_at_the_dead_centre():
    m = four_bar()
    psi0 = m.get_initial_state()[8]
    # the rocker's upper extreme: crank and coupler folded in line, |O2 C| = b - a
    cos_lim = ((b - a) ** 2 - d * d - c * c) / (2 * d * c)
    psi_lim = math.acos(cos_lim)  # above the ground line (elbow-up assembly)
    assert psi_lim > psi0
    values = np.linspace(psi0, psi_lim + 0.2, 41)
    with pytest.warns(SweepWarning, match="dead centre"):
        sweep = m.kinematic_sweep("th2", values)
    assert not sweep.complete
    reached = sweep.values[-1]
    print(f"dead centre: sweep stopped at ψ = {reached:.12f}, {psi_lim - reached:.2e} rad "
          f"before the closed-form limit; singularity measure {sweep.singularity[-1]:.2e}")
    assert psi_lim - 1e-8 < reached <= psi_lim + 1e-12
    assert sweep.singularity[-1] < 1e-4 * sweep.singularity[0]
    assert sweep.singular_points == [len(sweep) - 1]
    # near the limit the crank moves fast per unit rocker angle
    assert abs(sweep.dq[-1, 2]) > 10 * abs(sweep.dq[0, 2])


def test_sweep_with_a_relative_angle_driver():
    m = four_bar()
    th = m.get_initial_state()[:9]
    rel0 = th[5] - th[2]
    sweep = m.kinematic_sweep(("angle", 0, 1), np.linspace(rel0, rel0 + 0.3, 7))
    assert sweep.complete
    np.testing.assert_allclose(sweep.q[:, 5] - sweep.q[:, 2], sweep.values, atol=1e-12)
    residual = (K1 * np.cos(sweep.q[:, 8]) - K2 * np.cos(sweep.q[:, 2]) + K3
                - np.cos(sweep.q[:, 2] - sweep.q[:, 8]))
    assert np.max(np.abs(residual)) < 1e-12
    df = sweep.to_pandas()
    assert "angle 1 - 0" in df.columns and "dth2" in df.columns


def test_bad_inputs_raise_clear_errors():
    m = four_bar()
    before = m.to_dict()
    with pytest.raises(ValueError, match="no coordinate named 'phi'"):
        m.kinematic_sweep("phi", [0.0, 1.0])
    with pytest.raises(TypeError, match="driver must be"):
        m.kinematic_sweep(1.5, [0.0, 1.0])
    with pytest.raises(ValueError, match="out of range"):
        m.kinematic_sweep(12, [0.0, 1.0])
    with pytest.raises(ValueError, match="at least 2"):
        m.kinematic_sweep("th0", [1.0])
    with pytest.raises(ValueError, match="cannot place"):
        m.kinematic_sweep("x0", [5.0, 6.0])
    with pytest.raises(ValueError, match="share no pin joint"):
        m.transmission_angle(0, 2)
    with pytest.raises(ValueError, match="s"):
        m.coupler_curve(1, 0.7, "th0", [1.0, 1.1])
    with pytest.raises(ValueError, match="q_start must have 9"):
        m.kinematic_sweep("th0", [1.0, 1.1], q_start=[0.0])
    assert m.to_dict() == before
