r"""Determinacy of the multipliers against oracles written independently of the code.

* the hand statics of a bar pinned at both ends (moments about a support);
* a constraint Jacobian built here from the geometry alone (a point ``s`` of a bar at
  :math:`(x, y, θ)` is :math:`(x, y) + sL(\cos θ, \sin θ)`), checked row by row against the
  model's, then numpy's SVD of it: rank, mobility, the null spaces of :math:`J` and
  :math:`J^T` (as projectors), and the criterion "c^T λ is determinate iff c has no component
  along the null space of :math:`J^T`";
* Maxwell's rule with Calladine's correction, :math:`s - k = m - n`, on random lattices.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import quivira
from quivira import examples
from quivira_oracles.determinacy import model_jacobian

G = 9.81


# ------------------------------------------------------------------ independent oracle
def _point_jacobian(bar: dict, s: float) -> np.ndarray:
    """d(point s of the bar)/d(x, y, θ), a (2, 3) block, from the bar's pose and length."""
    _, _, th = bar["pose"]
    L = bar["length"]
    return np.array([[1.0, 0.0, -s * L * math.sin(th)],
                     [0.0, 1.0, s * L * math.cos(th)]])


def oracle_jacobian(model) -> tuple[np.ndarray, list[str]]:
    """The constraint Jacobian from ``model.to_dict()`` alone, rows labelled as the model's.

    A joint row ``jointK.barB.x`` is the x difference between the joint point on the joint's
    first bar and on bar B; a support row ``supportK.x`` the x of the supported point (sign
    of a row left to the caller: a row and its negative are the same constraint).
    """
    d = model.to_dict()
    bars = d["bars"]
    n = 3 * len(bars)
    rows, labels = [], []
    for jt in d["joints"]:
        b0, s0 = jt["bars"][0], jt["s"][0]
        for b, s in zip(jt["bars"][1:], jt["s"][1:]):
            for a, axis in enumerate("xy"):
                r = np.zeros(n)
                r[3 * b0:3 * b0 + 3] += _point_jacobian(bars[b0], s0)[a]
                r[3 * b:3 * b + 3] -= _point_jacobian(bars[b], s)[a]
                rows.append(r)
                labels.append(f"{jt['name']}.bar{b}.{axis}")
    for sp in d["supports"]:
        for a, axis in enumerate("xy"):
            if sp[f"free_{axis}"]:
                continue
            r = np.zeros(n)
            r[3 * sp["bar"]:3 * sp["bar"] + 3] = _point_jacobian(bars[sp["bar"]], sp["s"])[a]
            rows.append(r)
            labels.append(f"{sp['name']}.{axis}")
    return np.array(rows).reshape(len(rows), n), labels


def checked_jacobian(model) -> np.ndarray:
    """The oracle J in the model's row order and row signs, after checking it is the model's.

    Every row of the model's J must be plus or minus the oracle row of the same label, and
    the coordinates must be ``x_i, y_i, th_i`` per bar.
    """
    Jo, labels = oracle_jacobian(model)
    det = model.determinacy()
    Jm = model_jacobian(model)
    assert sorted(det.labels) == sorted(labels)
    n = Jo.shape[1]
    assert det.coordinate_names == [f"{c}{i}" for i in range(n // 3) for c in ("x", "y", "th")]
    out = np.empty_like(Jo)
    for i, label in enumerate(det.labels):
        row = Jo[labels.index(label)]
        sign = 1.0 if float(row @ Jm[i]) >= 0.0 else -1.0
        out[i] = sign * row
    np.testing.assert_allclose(Jm, out, atol=1e-12)
    return out


def numpy_nulls(J: np.ndarray, rtol: float = 1e-9):
    """``(rank, null(J), null(J^T))`` from numpy's SVD (orthonormal bases)."""
    m, n = J.shape
    U, sv, Vt = np.linalg.svd(J)
    r = int(np.sum(sv > rtol * max(sv.max(initial=0.0), 1.0)))
    assert r == np.linalg.matrix_rank(J)
    return r, Vt[r:].T, U[:, r:]


def projector(B: np.ndarray) -> np.ndarray:
    """Orthogonal projector onto the span of the columns of ``B``."""
    if B.shape[1] == 0:
        return np.zeros((B.shape[0], B.shape[0]))
    Q, _ = np.linalg.qr(B)
    return Q @ Q.T


def pinned_bar(x_second: float = 1.0):
    """A 1 kg, 1 m bar from (0, 0) to (1, 0), pinned at its left end and at x = x_second."""
    m = quivira.bar_joint_model()
    m.add_bar_from_point_pair((0.0, 0.0), (1.0, 0.0))
    m.add_support(0, -0.5, False, False)
    m.add_support(0, x_second - 0.5, False, False)
    return m


# ------------------------------------------------------------------ a. the hand result
@pytest.mark.parametrize("x_second", [1.0, 0.75])
def test_bar_pinned_twice_vertical_reactions_by_moments_horizontal_only_summed(x_second):
    """Pins at x = 0 and x = a under the weight m g at x = 1/2: moments about each pin give
    R_0y = m g (1 - 1/(2a)) and R_1y = m g / (2a); in x only R_0x + R_1x = 0 is fixed."""
    model = pinned_bar(x_second)
    det = model.determinacy()
    assert (det.rank, det.mobility, det.n_self_stresses) == (3, 0, 1)
    flags = dict(zip(det.labels, det.determinate))
    assert flags == {"support0.x": False, "support0.y": True,
                     "support1.x": False, "support1.y": True}
    assert [(r.kind, r.index, r.x, r.y) for r in det.reactions] == [
        ("support", 0, False, True), ("support", 1, False, True)]
    cx0 = det.reaction_combination("support", 0, axis="x")
    cx1 = det.reaction_combination("support", 1, axis="x")
    cy0 = det.reaction_combination("support", 0, axis="y")
    cy1 = det.reaction_combination("support", 1, axis="y")
    assert det.is_determinate(cx0 + cx1)
    assert det.is_determinate({"support0.x": 2.0, "support1.x": 2.0})
    assert not det.is_determinate(cx0) and not det.is_determinate(cx0 - cx1)
    assert det.is_determinate(cy0) and det.is_determinate(cy1)
    assert det.is_determinate(cy0 + 3.0 * cy1 + cx0 + cx1)

    lam = model.equilibrium().lambda_mult
    a = x_second
    assert cy0 @ lam == pytest.approx(G * (1.0 - 0.5 / a), rel=1e-9)
    assert cy1 @ lam == pytest.approx(G * 0.5 / a, rel=1e-9)
    assert (cx0 + cx1) @ lam == pytest.approx(0.0, abs=1e-9)
    # the physics of "indeterminate": adding the self-stress keeps f + J^T λ = 0 (f is the
    # weight on the centre, by hand) and moves the x reactions, not the determinate ones
    J = checked_jacobian(model)
    f = np.array([0.0, -G, 0.0])
    s = det.self_stresses[:, 0]
    for lam2 in (lam, lam + 7.0 * s):
        np.testing.assert_allclose(f + J.T @ lam2, 0.0, atol=1e-9)
    assert abs(cx0 @ (7.0 * s)) > 1.0
    assert cy0 @ s == pytest.approx(0.0, abs=1e-12)
    assert (cx0 + cx1) @ s == pytest.approx(0.0, abs=1e-12)


def test_pin_and_roller_is_determinate_with_half_the_weight_each():
    model = quivira.bar_joint_model()
    model.add_bar_from_point_pair((0.0, 0.0), (1.0, 0.0))
    model.add_support(0, -0.5, False, False)
    model.add_support(0, 0.5, True, False)
    det = model.determinacy()
    assert (det.rank, det.mobility, det.n_self_stresses) == (3, 0, 0)
    assert det.determinate.all() and det.is_determinate(np.arange(3.0))
    lam = model.equilibrium().lambda_mult
    for k in (0, 1):
        assert det.reaction_combination("support", k, axis="y") @ lam == pytest.approx(G / 2)


def test_straight_two_bar_tie_is_a_first_order_mechanism_blocked_at_second_order():
    """Two bars in a line between two pins (Pellegrino & Calladine's example): one
    infinitesimal mechanism (the middle joint moves sideways: θ0' = -θ1', y' = θ0'/2 for each
    centre) and one self-stress (equal tension in both bars); the tension stiffens the
    mechanism at second order. Bent, the same bars form a determinate three-hinged arch."""
    model = quivira.bar_joint_model()
    model.add_bar_from_point_pair((0.0, 0.0), (1.0, 0.0))
    model.add_bar_from_point_pair((1.0, 0.0), (2.0, 0.0))
    model.add_support(0, -0.5, False, False)
    model.add_support(1, 0.5, False, False)
    model.add_joint([0, 1], [0.5, -0.5])
    det = model.determinacy()
    assert (det.mobility, det.n_self_stresses) == (1, 1)
    u = det.mechanisms[:, 0] / det.mechanisms[2, 0]
    np.testing.assert_allclose(u, [0.0, 0.5, 1.0, 0.0, 0.5, -1.0], atol=1e-12)
    assert det.mechanism_status == ["blocked at second order"]
    # the self-stress: the x rows carry a tension T, the y rows nothing
    s = dict(zip(det.labels, det.self_stresses[:, 0]))
    assert all(abs(v) < 1e-12 for k, v in s.items() if k.endswith(".y"))
    assert all(abs(abs(v) - 1.0) < 1e-12 for k, v in s.items() if k.endswith(".x"))

    arch = quivira.bar_joint_model()
    arch.add_bar_from_point_pair((0.0, 0.0), (1.0, 0.5))
    arch.add_bar_from_point_pair((1.0, 0.5), (2.0, 0.0))
    arch.add_support(0, -0.5, False, False)
    arch.add_support(1, 0.5, False, False)
    arch.add_joint([0, 1], [0.5, -0.5])
    det = arch.determinacy()
    assert (det.mobility, det.n_self_stresses) == (0, 0) and det.determinate.all()


def test_a_chain_with_self_stress_keeps_its_finite_motion_undecided_not_blocked():
    """The redundant double parallelogram moves (as IFToMM A02 with n = 2): its mechanism
    must not be reported blocked."""
    det = examples.double_four_bar_redundant().determinacy()
    assert (det.mobility, det.n_self_stresses) == (1, 1)
    assert det.mechanism_status == ["undecided at second order"]


# ------------------------------------------------------------------ b. numpy oracle
def _scissor_supported(cells: int, extra: list[tuple[int, float, bool, bool]]):
    m = examples.scissor(cells)
    for bar, s, fx, fy in extra:
        m.add_support(bar, s, fx, fy)
    return m


MODELS = {
    "four_bar": lambda: examples.four_bar(),
    "chain3": lambda: examples.chain(3),
    "scissor2": lambda: examples.scissor(2),
    "scissor4_three_extra": lambda: _scissor_supported(
        4, [(7, 0.5, False, False), (6, 0.5, True, False), (3, 0.5, False, True)]),
    # above NESTED_FROM rows: the nested-dissection order of the factorisation
    "scissor48_top_pins": lambda: _scissor_supported(
        48, [(95, 0.5, False, False), (94, 0.5, True, False), (40, 0.0, False, True)]),
    "double_four_bar_redundant": examples.double_four_bar_redundant,
    "a02_n3": lambda: examples.iftomm_a02(3),
}


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.slow
def test_rank_null_spaces_and_self_stresses_against_numpy_svd(name):
    model = MODELS[name]()
    J = checked_jacobian(model)
    m, n = J.shape
    if name.startswith("scissor48"):
        from quivira.sparse_gram import NESTED_FROM
        assert m >= NESTED_FROM
    r, N, Nt = numpy_nulls(J)
    det = model.determinacy()
    assert det.rank == r
    assert det.mobility == n - r
    assert det.n_self_stresses == m - r
    assert det.n_self_stresses - det.mobility == m - n
    S, U = det.self_stresses, det.mechanisms
    for j in range(S.shape[1]):
        assert np.linalg.norm(J.T @ S[:, j]) <= 1e-9 * np.linalg.norm(S[:, j])
    for j in range(U.shape[1]):
        assert np.linalg.norm(J @ U[:, j]) <= 1e-9 * np.linalg.norm(U[:, j])
    np.testing.assert_allclose(projector(S), Nt @ Nt.T, atol=1e-9)
    np.testing.assert_allclose(projector(U), N @ N.T, atol=1e-9)
    # per row: λ_i is determinate iff e_i has no part along null(J^T)
    expected = np.linalg.norm(Nt, axis=1) <= 1e-9
    np.testing.assert_array_equal(det.determinate, expected)
    dep = [det.labels.index(lb) for lb in det.dependent_rows]
    assert len(dep) == m - r
    keep = np.delete(np.arange(m), dep)
    assert np.linalg.matrix_rank(J[keep]) == r  # the dropped rows are the redundant ones


def _a02_at(n: int, phi: float):
    """IFToMM A02 with every crank at ``phi`` from the +x axis (0: the flat pose)."""
    model = examples.iftomm_a02(n)
    for i in range(n + 1):
        model.set_init_bar_attitude(2 * i, i + 0.5 * math.cos(phi), 0.5 * math.sin(phi), phi)
        if i < n:
            model.set_init_bar_attitude(2 * i + 1, i + math.cos(phi) + 0.5, math.sin(phi), 0.0)
    return model


@pytest.mark.parametrize("phi", [0.0, 0.9])
def test_a02_flat_pose_loses_n_ranks_into_n_self_stresses(phi):
    """Flat, the n parallelograms' cranks are collinear with their couplers: J loses n
    ranks, each a mechanism and a self-stress (numpy's SVD on the geometric J decides)."""
    n = 3
    model = _a02_at(n, phi)
    J = checked_jacobian(model)
    r, N, Nt = numpy_nulls(J)
    det = model.determinacy()
    assert r == (6 * n + 2 - n if phi == 0.0 else 6 * n + 2)
    assert (det.rank, det.mobility, det.n_self_stresses) == (r, J.shape[1] - r, J.shape[0] - r)
    np.testing.assert_allclose(projector(det.self_stresses), Nt @ Nt.T, atol=1e-9)
    np.testing.assert_allclose(projector(det.mechanisms), N @ N.T, atol=1e-9)
    assert not det.near_singular


def test_a02_a_hair_from_flat_is_reported_near_singular():
    """At 1e-4 rad from the flat pose the rank is the generic one, but a dependent row is
    only 1e-4 from the span of the others: the verdict must say the pose is near-singular."""
    J = checked_jacobian(_a02_at(3, 1e-4))
    det = _a02_at(3, 1e-4).determinacy()
    assert det.rank == np.linalg.matrix_rank(J) == 6 * 3 + 2
    assert det.near_singular
    assert det.smallest_kept < 1e3 * det.pivot_tol


@pytest.mark.slow
def test_self_stresses_of_a_256_bar_tower_are_accurate_enough_to_judge_combinations():
    """The Gram matrix squares the condition of J (smallest singular value 1e-4 here): the
    self-stresses must still satisfy J^T s = 0 to rounding, match numpy's null(J^T), and
    every combination in range(J) (a column of J, J v) must be judged determinate."""
    model = _scissor_supported(128, [(255, 0.5, False, False), (254, 0.5, True, False)])
    J = checked_jacobian(model)
    r, _, Nt = numpy_nulls(J)
    det = model.determinacy()
    assert (det.rank, det.n_self_stresses) == (r, 2)
    S = det.self_stresses
    assert np.all(np.linalg.norm(J.T @ S, axis=0) <= 1e-13 * np.linalg.norm(S, axis=0))
    np.testing.assert_allclose(projector(S), Nt @ Nt.T, atol=1e-10)
    rng = np.random.default_rng(7)
    assert all(det.is_determinate(J @ rng.normal(size=J.shape[1])) for _ in range(20))
    assert all(det.is_determinate(J[:, j]) for j in range(J.shape[1]))
    assert not det.is_determinate(Nt[:, 0] + J[:, 0])


@pytest.mark.parametrize("name", ["four_bar", "double_four_bar_redundant", "chain3"])
def test_mechanisms_are_orthonormal_in_the_metric_of_end_displacements(name):
    """The documented metric: a rotation counts by how far a bar's ends move, so a motion
    (x', y', θ') of a bar of length L has the squared size x'^2 + y'^2 + (L θ')^2."""
    model = MODELS[name]()
    lengths = [b["length"] for b in model.to_dict()["bars"]]
    w = np.array([v for L in lengths for v in (1.0, 1.0, L)])
    U = model.determinacy().mechanisms
    Uw = U * w[:, None]
    np.testing.assert_allclose(Uw.T @ Uw, np.eye(U.shape[1]), atol=1e-10)


# ------------------------------------------------------------------ c. properties
_lattices = st.one_of(
    st.tuples(st.just("scissor"), st.integers(1, 4),
              st.lists(st.tuples(st.integers(0, 7), st.sampled_from([-0.5, 0.0, 0.5]),
                                 st.sampled_from([(False, False), (True, False),
                                                  (False, True)])),
                       min_size=1, max_size=4)),
    st.tuples(st.just("chain"), st.integers(1, 4),
              st.lists(st.tuples(st.integers(0, 3), st.sampled_from([-0.5, 0.5, 0.2]),
                                 st.just((False, False))),
                       min_size=0, max_size=3)),
)


def _lattice(spec):
    kind, size, extra = spec
    model = examples.scissor(size) if kind == "scissor" else examples.chain(size)
    nb = 2 * size if kind == "scissor" else size
    for bar, s, (fx, fy) in extra:
        model.add_support(bar % nb, s, fx, fy)
    return model


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(spec=_lattices, seed=st.integers(0, 2**32 - 1))
@pytest.mark.slow
def test_maxwell_calladine_and_the_determinacy_criterion_on_random_lattices(spec, seed):
    model = _lattice(spec)
    J = checked_jacobian(model)
    m, n = J.shape
    r, _, Nt = numpy_nulls(J)
    det = model.determinacy()
    s, k = det.n_self_stresses, det.mobility
    assert (s, k) == (m - r, n - r)
    assert s - k == m - n
    rng = np.random.default_rng(seed)
    P = Nt @ Nt.T
    for c in (rng.normal(size=m),                      # generic: indeterminate if s > 0
              J @ rng.normal(size=n),                  # in range(J): determinate
              J @ rng.normal(size=n) + 1e-3 * rng.normal(size=m)):
        numpy_says = np.linalg.norm(P @ c) <= 1e-8 * np.linalg.norm(c)
        assert det.is_determinate(c) == numpy_says
        assert det.is_determinate(dict(zip(det.labels, c))) == numpy_says


# ------------------------------------------------------------------ d. bad input
def test_bad_states_and_combinations_are_refused_and_leave_the_model():
    model = pinned_bar(0.75)
    before = model.to_dict()
    x0 = np.array(model.get_initial_state())
    off = x0.copy()
    off[1] += 0.1
    with pytest.raises(ValueError, match=r"violates the constraints.*support0\.y"):
        model.determinacy(off)
    with pytest.raises(ValueError, match=r"state.*6"):
        model.determinacy(x0[:5])
    bad = x0.copy()
    bad[2] = np.nan
    with pytest.raises(ValueError, match="state"):
        model.determinacy(bad)
    with pytest.raises(TypeError, match="state"):
        model.determinacy("0 0 0 0 0 0")
    with pytest.raises(TypeError, match="state"):
        model.determinacy([0.5, 0, 0, 0, 0, True])
    with pytest.raises(TypeError, match="t"):
        model.determinacy(t="now")
    det = model.determinacy(x0)
    with pytest.raises(ValueError, match=r"support9\.x.*support0\.x"):
        det.is_determinate({"support9.x": 1.0})
    with pytest.raises(ValueError, match=r"4 coefficients"):
        det.is_determinate([1.0, 0.0])
    with pytest.raises(ValueError, match=r"combination.*finite"):
        det.is_determinate([1.0, np.nan, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"combination.*finite"):
        det.is_determinate({"support0.x": np.inf})
    with pytest.raises(TypeError, match=r"support0\.y"):
        det.is_determinate({"support0.y": "one"})
    with pytest.raises(ValueError, match=r"support 5"):
        det.reaction_combination("support", 5)
    with pytest.raises(ValueError, match=r"joint 0"):
        det.reaction_combination("joint", 0)
    with pytest.raises(ValueError, match="axis"):
        det.reaction_combination("support", 0, axis="z")
    assert model.to_dict() == before
