"""``model.matrices()`` of a redundant model: finite λ and q̈, never NaN.

W = J M⁻¹ Jᵀ is singular when rows are dependent; its factorisation gave NaN multipliers and
accelerations (and ``internal_forces`` then refused the state). The oracle is numpy's
least-squares solution of the same KKT system: q̈ is unique, and so is Jᵀλ.
"""

from __future__ import annotations

import numpy as np
import pytest

import quivira as qv
from quivira import examples


def _random_redundant_lattice(seed: int) -> qv.BarJointModel:
    """A scissor lattice at rest with an extra pin (at least one state of self-stress)."""
    rng = np.random.default_rng(seed)
    cells = int(rng.integers(1, 5))
    model = examples.scissor(cells)
    model.add_support(int(rng.integers(0, 2 * cells)), float(rng.uniform(-0.5, 0.5)),
                      False, False)
    return model


def _gravity(model: qv.BarJointModel) -> np.ndarray:
    return np.concatenate([(0.0, -b.mass * model.g, 0.0) for b in model.bodies])


@pytest.mark.parametrize("seed", range(12))
def test_lambda_and_qdd_of_a_redundant_lattice_are_numpys_kkt_solution(seed):
    model = _random_redundant_lattice(seed)
    mx = model.matrices()
    J, M = mx.J, mx.M
    n, m = M.shape[0], J.shape[0]
    assert mx.rank_J < m  # redundant
    assert np.all(np.isfinite(mx.lambda_mult)) and np.all(np.isfinite(mx.qdd))
    # at rest and scleronomic: M q̈ = Q + Jᵀλ, J q̈ = 0 (numpy's least squares: q̈ unique)
    K = np.block([[M, -J.T], [J, np.zeros((m, m))]])
    sol = np.linalg.lstsq(K, np.concatenate([_gravity(model), np.zeros(m)]), rcond=None)[0]
    scale = float(np.max(np.abs(_gravity(model))))
    np.testing.assert_allclose(mx.qdd, sol[:n], atol=1e-9 * scale)
    np.testing.assert_allclose(J.T @ mx.lambda_mult, J.T @ sol[n:], atol=1e-9 * scale)
    # the minimum-norm λ: no component along a state of self-stress (null space of Jᵀ)
    _, sv, Vt = np.linalg.svd(J.T)
    null = Vt[np.sum(sv > 1e-9 * sv[0]):]
    assert null.shape[0] >= 1
    np.testing.assert_allclose(null @ mx.lambda_mult, 0.0, atol=1e-9 * scale)


def test_bar_pinned_at_both_ends_carries_half_its_weight_at_each_pin():
    m = qv.BarJointModel()
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 2.0)
    m.add_support(0, -0.5, False, False, x=-0.5, y=0.0)
    m.add_support(0, 0.5, False, False, x=0.5, y=0.0)
    mx = m.matrices()
    lam = dict(zip(mx.labels, mx.lambda_mult))
    assert lam["support0.y"] == pytest.approx(2.0 * m.g / 2, rel=1e-12)
    assert lam["support1.y"] == pytest.approx(2.0 * m.g / 2, rel=1e-12)
    np.testing.assert_allclose(mx.qdd, 0.0, atol=1e-12)
    forces = m.internal_forces(m.get_initial_state())  # used to refuse: non-finite λ
    # a simply supported beam under its weight (textbook): |V| ≤ mg/2, M_max = mgL/8
    assert np.max(np.abs(forces.V)) == pytest.approx(2.0 * m.g / 2, rel=1e-9)
    assert np.max(np.abs(forces.M)) == pytest.approx(2.0 * m.g * 1.0 / 8, rel=1e-9)
