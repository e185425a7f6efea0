r"""Results mark the multipliers that rigid-body mechanics does not determine.

Oracles written here, independently of the code:

* the hand statics of a 1 kg, 1 m bar pinned at both ends under g: moments about each pin
  give the vertical reactions :math:`mg/2`; in x only :math:`R_{0x} + R_{1x} = 0` is fixed;
* the constraint functions of pins and supports from ``model.to_dict()`` (a point ``s`` of a
  bar at :math:`(x, y, θ)` is :math:`(x, y) + sL(\cos θ, \sin θ)`), differentiated by central
  differences, and numpy's SVD of that Jacobian: multiplier ``i`` is indeterminate iff some
  null vector of :math:`J^T` has a non-zero component ``i``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import quivira
from quivira import IndeterminateMultipliersWarning, examples

G = 9.81


# ------------------------------------------------------------------ independent oracle
def _point(bars: list, q: np.ndarray, bar: int, s: float) -> np.ndarray:
    x, y, th = q[3 * bar:3 * bar + 3]
    L = bars[bar]["length"]
    return np.array([x + s * L * math.cos(th), y + s * L * math.sin(th)])


def constraint_functions(model) -> tuple[list[str], callable]:
    """Labels and ``F(q)`` of the pin and support rows, from the model's data alone."""
    d = model.to_dict()
    bars = d["bars"]
    labels, parts = [], []
    for jt in d["joints"]:
        b0, s0 = jt["bars"][0], jt["s"][0]
        for b, s in zip(jt["bars"][1:], jt["s"][1:]):
            for a, axis in enumerate("xy"):
                labels.append(f"{jt['name']}.bar{b}.{axis}")
                parts.append(lambda q, b0=b0, s0=s0, b=b, s=s, a=a:
                             _point(bars, q, b0, s0)[a] - _point(bars, q, b, s)[a])
    for sp in d["supports"]:
        for a, axis in enumerate("xy"):
            if not sp[f"free_{axis}"]:
                labels.append(f"{sp['name']}.{axis}")
                parts.append(lambda q, sp=sp, a=a, ax=axis:
                             _point(bars, q, sp["bar"], sp["s"])[a] - sp[ax])
    return labels, lambda q: np.array([f(q) for f in parts])


def oracle_indeterminate(model, q: np.ndarray) -> tuple[set[str], np.ndarray, list[str]]:
    """``(labels of indeterminate rows, J, labels)`` at ``q`` by central differences + SVD."""
    labels, F = constraint_functions(model)
    n, h = q.shape[0], 1e-6
    J = np.column_stack([(F(q + h * e) - F(q - h * e)) / (2 * h) for e in np.eye(n)])
    U, sv, _ = np.linalg.svd(J)
    r = int(np.sum(sv > 1e-7 * sv.max()))
    Nt = U[:, r:]  # null space of J^T
    return {lb for lb, row in zip(labels, Nt) if np.linalg.norm(row) > 1e-6}, J, labels


def start_pose(model) -> np.ndarray:
    return np.array([v for b in model.to_dict()["bars"] for v in b["pose"]])


def pinned_bar():
    """A 1 kg, 1 m bar from (0, 0) to (1, 0), pinned at both ends."""
    m = quivira.bar_joint_model()
    m.add_bar_from_point_pair((0.0, 0.0), (1.0, 0.0))
    m.add_support(0, -0.5, False, False)
    m.add_support(0, 0.5, False, False)
    return m


def recorded(fn):
    """Return ``(value of fn(), IndeterminateMultipliersWarning messages)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # the once-only must be the result's, not Python's
        out = fn()
    return out, [str(w.message) for w in caught
                 if issubclass(w.category, IndeterminateMultipliersWarning)]


HORIZONTAL = ["lambda[support0.x]", "lambda[support1.x]", "support 0 on bar 0 · Fx",
              "support 1 on bar 0 · Fx"]


# ------------------------------------------------------------------ the pinned bar
def test_trajectory_of_a_bar_pinned_twice_marks_only_the_horizontal_reactions():
    model = pinned_bar()
    traj = model.simulate(0.5, 6)
    _, early = recorded(lambda: (traj.q, traj.qd, traj.t, traj.energy))
    assert early == []  # the motion alone: no word about forces
    np.testing.assert_allclose(traj.q - traj.q[0], 0.0, atol=1e-12)  # it stays at rest
    assert traj.indeterminate == HORIZONTAL
    assert traj.determinacy.indeterminate_labels == ["support0.x", "support1.x"]
    assert [(r.x, r.y) for r in traj.determinacy.reactions] == [(False, True), (False, True)]

    def read_everything():
        traj.lambda_mult, traj.reactions, traj.multiplier("support0.x")
        traj.support_force(0), traj.support_force(1)
        return traj.to_pandas(), traj.to_xarray()

    (df, ds), msgs = recorded(read_everything)
    assert len(msgs) == 1  # once per run, however often the forces are read
    assert "support0.x" in msgs[0] and "support1.x" in msgs[0]
    assert "support0.y" not in msgs[0] and "support1.y" not in msgs[0]
    # hand statics: R_y = m g / 2 at each pin; only R_0x + R_1x (= 0) is determined
    for k in (0, 1):
        np.testing.assert_allclose(traj.support_force(k)[:, 1], G / 2, rtol=1e-9)
    np.testing.assert_allclose(traj.support_force(0)[:, 0] + traj.support_force(1)[:, 0], 0.0,
                               atol=1e-9)
    det = traj.determinacy
    assert det.is_determinate(det.reaction_combination("support", 0, axis="x")
                              + det.reaction_combination("support", 1, axis="x"))
    assert df.attrs["indeterminate"] == HORIZONTAL
    assert set(HORIZONTAL) <= set(df.columns)
    assert "support0.x" in df.attrs["determinacy"]
    assert dict(zip(ds["constraint"].values, ds["determinate"].values)) == {
        "support0.x": False, "support0.y": True, "support1.x": False, "support1.y": True}


def test_pickled_trajectory_keeps_its_marks():
    import pickle

    traj = pinned_bar().simulate(0.1, 3)
    back = pickle.loads(pickle.dumps(traj))
    assert back.indeterminate == HORIZONTAL
    _, msgs = recorded(lambda: back.lambda_mult)
    assert len(msgs) == 1


def test_equilibrium_of_a_bar_pinned_twice_marks_the_same_and_warns_once():
    model = pinned_bar()
    res, msgs = recorded(model.equilibrium)
    assert msgs == []  # solving is not reading
    assert res.indeterminate == HORIZONTAL
    np.testing.assert_array_equal(res.determinate, [False, True, False, True])

    def read():
        res.lambda_mult, res.reactions, res.multiplier("support1.y"), res.joint_force
        return res.support_force(0), res.support_force(1), res.to_pandas(), \
            res.reactions_to_pandas()

    (f0, f1, df, rdf), msgs = recorded(read)
    assert len(msgs) == 1 and "support0.x" in msgs[0] and "support1.x" in msgs[0]
    np.testing.assert_allclose([f0[1], f1[1]], [G / 2, G / 2], rtol=1e-9)
    assert f0[0] + f1[0] == pytest.approx(0.0, abs=1e-9)
    assert df.attrs["indeterminate"] == ["support0.x", "support1.x"]
    assert rdf.attrs["indeterminate"] == ["support 0 on bar 0 · Fx", "support 1 on bar 0 · Fx"]


def test_internal_forces_of_the_bar_pinned_twice_are_flagged():
    model = pinned_bar()
    res = model.equilibrium()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IndeterminateMultipliersWarning)
        diag = model.internal_forces(res)
    assert diag.indeterminate_bars == [0]
    assert not diag.bar(0).determinate
    assert diag.to_pandas().attrs["indeterminate_bars"] == [0]
    assert "bars 0" in diag.note()


# ------------------------------------------------------------------ no redundancy
def test_four_bar_marks_nothing_and_never_warns():
    model = examples.four_bar()
    traj = model.simulate(0.5, 11)
    assert oracle_indeterminate(model, start_pose(model))[0] == set()
    (df, ds, diag), msgs = recorded(lambda: (traj.to_pandas(), traj.to_xarray(),
                                             model.internal_forces(traj)))
    assert msgs == []
    assert traj.indeterminate == [] and df.attrs["indeterminate"] == []
    assert bool(ds["determinate"].all())
    assert diag.indeterminate_bars == [] and diag.bar(1).determinate


# ------------------------------------------------------------------ a redundant mechanism
def test_double_parallelogram_marks_the_rows_numpy_finds_in_the_null_space_of_JT():
    model = examples.double_four_bar_redundant()
    expected, J, labels = oracle_indeterminate(model, start_pose(model))
    assert expected  # the middle crank repeats the outer two: a state of self-stress
    assert any(lb.startswith("joint1") for lb in expected)  # the middle link's pin
    traj = model.simulate(0.2, 5)
    _, msgs = recorded(lambda: (traj.q, traj.qd))
    assert msgs == []
    assert set(traj.determinacy.indeterminate_labels) == expected
    assert {c[len("lambda["):-1] for c in traj.indeterminate if c.startswith("lambda[")} \
        == expected
    (lam, diag), msgs = recorded(lambda: (traj.lambda_mult, model.internal_forces(traj)))
    assert len(msgs) == 1 and all(lb in msgs[0] for lb in expected)
    # the bars whose coordinates an indeterminate row involves
    touched = {j // 3 for lb in expected
               for j in np.nonzero(np.abs(J[labels.index(lb)]) > 1e-9)[0]}
    assert set(diag.indeterminate_bars) == touched


# ------------------------------------------------------------------ random redundant lattices
def _random_lattice(rng: np.random.Generator):
    """A scissor lattice with an extra pin (two rows on a one-dof mechanism: at least one state
    of self-stress) and sometimes a roller, at random bars and points."""
    cells = int(rng.integers(1, 5))
    model = examples.scissor(cells)
    model.add_support(int(rng.integers(0, 2 * cells)), float(rng.uniform(-0.5, 0.5)),
                      False, False)
    if rng.random() < 0.5:
        fx, fy = [(True, False), (False, True)][int(rng.integers(0, 2))]
        model.add_support(int(rng.integers(0, 2 * cells)),
                          float(rng.choice([-0.5, 0.0, 0.5])), fx, fy)
    return model


@pytest.mark.parametrize("seed", range(24))
def test_marked_rows_of_random_supported_scissors_are_numpys_null_space_of_JT(seed):
    model = _random_lattice(np.random.default_rng(seed))
    expected, _, labels = oracle_indeterminate(model, start_pose(model))
    traj = model.simulate(0.01, 2)
    assert set(traj.constraint_labels) == set(labels)
    assert set(traj.determinacy.indeterminate_labels) == expected
    marked = {lb for lb, ok in zip(traj.constraint_labels, traj.determinate) if not ok}
    assert marked == expected
    assert expected  # the extra pin makes the lattice redundant
    _, msgs = recorded(lambda: traj.lambda_mult)
    assert len(msgs) == 1
