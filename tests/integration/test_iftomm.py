"""IFToMM benchmark problems A01 and A02 and the redundant double four-bar,
against the independent references of ``quivira_oracles/iftomm.py`` (closed-form elliptic
solutions; nothing there imports Quivira).

A02 passes its flat poses (the rank of J drops by n there) in a window where the constraint
accelerations are interpolated in time, with a mass-metric projection after each crossing
(``simulate(..., singular="pass")``, the default; see ``quivira.model.singular_window``).
"""

from __future__ import annotations

import numpy as np
import pytest

from quivira.examples import double_four_bar_redundant, iftomm_a01, iftomm_a02
from quivira_oracles import iftomm as o

TOL = 1e-15


def crank_tip(tr, bar: int = 0) -> np.ndarray:
    """x, y, ẋ, ẏ of the s = +0.5 end of a bar (B₀ for crank 0), from the trajectory."""
    x, y, th = tr.q[:, 3 * bar], tr.q[:, 3 * bar + 1], tr.q[:, 3 * bar + 2]
    vx, vy, w = tr.qd[:, 3 * bar], tr.qd[:, 3 * bar + 1], tr.qd[:, 3 * bar + 2]
    return np.stack([x + 0.5 * np.cos(th), y + 0.5 * np.sin(th),
                     vx - 0.5 * np.sin(th) * w, vy + 0.5 * np.cos(th) * w], -1)


def test_a01_pendulum_against_the_elliptic_solution():
    tr = iftomm_a01().simulate(20.0, n_points=401, tol=TOL)
    ref = o.a01_tip(tr.t)  # x, y, ẋ, ẏ of the mass
    got = np.column_stack([tr.q[:, 0], tr.q[:, 1], tr.qd[:, 0], tr.qd[:, 1]])
    assert np.abs(got - ref).max() < 1e-10
    # the exact period 4 K(1/2) √(L/g): the mass is back at (L, 0) after each period
    T = o.pendulum_period()
    back = iftomm_a01().simulate(3 * T, n_points=4, tol=TOL)
    assert np.abs(back.q[:, :2] - [1.0, 0.0]).max() < 1e-10
    # the link's tension balances gravity and the centripetal force: T = m (g cos θ + L θ̇²)
    theta = np.arctan2(tr.q[:, 0], -tr.q[:, 1])
    v2 = tr.qd[:, 0] ** 2 + tr.qd[:, 1] ** 2
    tension = 9.81 * np.cos(theta) + v2
    assert np.abs(tr.multiplier("link.tension") - tension).max() < 1e-9
    assert tr.relative_energy_error() < 1e-12


@pytest.mark.parametrize("n, tol", [(1, TOL), (2, TOL), (40, 1e-12)])
def test_a02_passes_its_flat_poses(n, tol):
    """B₀'s position and velocity over the IFToMM 20 s with 400 output steps, against the
    closed-form parallelogram motion, to 1e-8 (the IFToMM "high precision" bound is 1e-3),
    with every flat pose crossed in a window that interpolates the constraint accelerations
    (n = 40 is the IFToMM problem: 81 bars, the rank of J drops by 40 at each crossing)."""
    tr = iftomm_a02(n).simulate(20.0, n_points=401, tol=tol)
    err = np.abs(crank_tip(tr) - o.a02_b0(tr.t, n)).max()
    assert err < 1e-8
    crossings = [ev for ev in tr.events if ev["what"] == "singular pose"]
    # every half turn of the cranks is a flat pose: count them from the reference angle
    phi, _ = o.a02_phi_closed_form(np.linspace(0.0, 20.0, 200001), n)
    flat = np.count_nonzero(np.diff(np.floor(phi / np.pi)) != 0)
    assert len(crossings) == flat
    assert all(ev["window"] == "interpolated" for ev in crossings)
    assert tr.relative_energy_error() < 1e-10
    assert tr.max_position_residual() < 1e-10


def test_redundant_double_four_bar_moves_like_a02_with_n_2():
    """The double parallelogram with its redundant middle crank: one row flagged redundant,
    the motion of A02 with n = 2, and the minimum-norm reactions with the right resultant
    (Newton for the whole mechanism: Σ reactions = Σ m (a + g e_y))."""
    m = double_four_bar_redundant()
    tr = m.simulate(20.0, n_points=401, tol=TOL)
    assert tr.constraint_info["unique"] is False and len(tr.constraint_info["redundant"]) == 1
    err = np.abs(crank_tip(tr) - o.a02_b0(tr.t, 2)).max()
    assert err < 1e-5
    masses = np.array([1.0, 1.0, 1.0, 2.0])
    total = sum(tr.support_force(i) for i in range(3))
    acc = tr.qdd.reshape(len(tr.t), 4, 3)[:, :, :2]
    newton = (masses[None, :, None] * acc).sum(1) + np.array([0.0, 9.81 * masses.sum()])
    regular = np.ones(len(tr.t), bool)
    for ev in tr.events:  # away from the flat poses, where the split is ill-conditioned
        regular &= np.abs(tr.t - ev["t"]) > 0.05
    assert np.abs(total - newton)[regular].max() < 1e-8


def test_an_inaccurate_singular_pass_warns_and_an_accurate_one_does_not():
    """The energy balance T + V − W + D is checked across each crossing: A02 passes cleanly;
    a sprung scissor mast falling through flat poses with a coarse threshold (regularization
    error ∝ threshold) warns, and the event records the change the warning reports."""
    import math
    import warnings

    from quivira.examples import scissor
    from quivira.model.simulator import SingularPassWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", SingularPassWarning)
        iftomm_a02(1).simulate(5.0, n_points=51, tol=TOL)
    m = scissor(3, angle=0.25)
    for c in range(3):
        m.add_torsional_spring(2 * c, 2 * c + 1, 2.0, math.pi - 2.6)
    with pytest.warns(SingularPassWarning, match="energy balance"):
        tr = m.simulate(2.0, n_points=201, singular_threshold=1e-5)
    changes = [ev["energy_change"] for ev in tr.events if "energy_change" in ev]
    E = tr.kinetic_energy + tr.potential_energy
    assert changes and max(abs(c) for c in changes) > 1e-7 * np.abs(E).max()
    # the reported changes are the jumps of the trajectory's own energy balance
    assert abs(sum(changes) - tr.energy_balance()[-1]) < 1e-2 * max(abs(c) for c in changes)


def test_a03_andrews_squeezing_mechanism_against_the_reference():
    """Andrews' mechanism (7 rigid bodies, 10 pins at body points, a spring and a torque)
    over the test set's 0.03 s against the independent 7-angle integration (DOP853 at 1e-13)
    and against the published PSIDE values at t = 0.03 (angles and rates)."""
    import math

    from quivira.examples import ANDREWS, iftomm_a03

    m = iftomm_a03()
    tr = m.simulate(0.03, n_points=31, tol=TOL)
    ref = o.a03_reference(tr.t)
    theta = tr.q[:, 2::3].T.copy()
    omega = tr.qd[:, 2::3].T
    psi = math.atan2(ANDREWS["sa"] - ANDREWS["sc"], ANDREWS["sd"] - ANDREWS["sb"])
    theta[2] -= psi  # BDE's frame is turned by psi (D on its axis)
    assert np.abs(theta - o.A03_BODY_ANGLES @ ref["q"].T).max() < 1e-9
    assert np.abs(omega - o.A03_BODY_ANGLES @ ref["qd"].T).max() < 1e-6
    bari = o.A03_BARI_REFERENCE_T003
    assert np.abs(theta[:, -1] - o.A03_BODY_ANGLES @ bari[:7]).max() < 1e-8
    assert np.abs(omega[:, -1] - o.A03_BODY_ANGLES @ bari[7:14]).max() < 1e-5
    # energy: the torque's work goes into kinetic and spring energy
    assert np.abs(tr.energy_balance()).max() < 1e-10 * max(1.0, np.abs(tr.work_in).max())
    # the model file round-trips (pins at named body points included) to the same motion
    back = type(m).from_dict(m.to_dict())
    assert back.to_dict() == m.to_dict()
    tr2 = back.simulate(0.03, n_points=31, tol=TOL)
    assert np.array_equal(tr2.q, tr.q)


def test_body_pin_bad_inputs_leave_the_model():
    from quivira.examples import iftomm_a03

    m = iftomm_a03()
    before = m.to_dict()
    with pytest.raises(ValueError, match="apart"):
        m.add_pin(0, "O", 2, "D")
    with pytest.raises(ValueError, match="same body"):
        m.add_pin(1, "F", 1, "E")
    with pytest.raises(ValueError, match="nope|point"):
        m.add_pin(0, "nope", 1, "F")
    with pytest.raises(TypeError):
        m.add_pin(0, "O", None, (0.0, 0.0))
    assert m.to_dict() == before


def test_a02_fallback_window_regularizes_when_the_first_pass_fails(monkeypatch):
    """When the window's first pass cannot find the exit (here: no step allowed), the crossing
    falls back to the regularized solve W + ε diag W: still through every flat pose, with the
    error of a regularization ∝ threshold (1e-8) instead of the interpolation's, against the
    same closed form, and every crossing says which way it was made."""
    from quivira.model import singular_window

    monkeypatch.setattr(singular_window, "MAX_STEPS", 0)
    tr = iftomm_a02(2).simulate(20.0, n_points=401, tol=TOL)
    crossings = [ev for ev in tr.events if ev["what"] == "singular pose"]
    assert crossings and all(ev["window"] == "regularized" for ev in crossings)
    # the monitor's one event per pivot ratio watches the release inside the window: every
    # crossing ends with "regular again", and the next flat pose is seen again
    whats = [ev["what"] for ev in tr.events]
    assert whats == ["singular pose", "regular again"] * len(crossings)
    assert all(b["t"] > a["t"] for a, b in zip(tr.events, tr.events[1:]))
    err = np.abs(crank_tip(tr) - o.a02_b0(tr.t, 2)).max()
    assert err < 1e-5
    # the regularized window drops part of the vanishing mode's force: measurably less exact
    # than the interpolated one (1.8e-9 in test_a02_passes_its_flat_poses)
    assert err > 1e-8
    assert tr.relative_energy_error() < 1e-8
