"""Structural regularity of J (no singularity monitor where J never loses rank).

The oracle is numpy: the singular values of J at many random poses (any q, constraints
satisfied or not, since the claim is "full row rank at every pose"), and a pose where J of a
looped mechanism is known to lose rank.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import quivira as qv
from quivira.examples import chain, four_bar, scissor
from quivira.model.regularity import structurally_regular


def _rows(model):
    return model.compiled().parts.J_rows


def _min_singular_value(model, rng, n_poses=200):
    n = len(model.compiled().q)
    worst = np.inf
    for _ in range(n_poses):
        state = np.concatenate([rng.uniform(-3, 3, n), np.zeros(n)])
        J = model.matrices(state)["J"]
        worst = min(worst, np.linalg.svd(J, compute_uv=False)[-1])
    return worst


def _star_tree(roller=False):
    """Three bars on one ground pin and a fourth hanging from the first by a pin: a tree whose
    root is the ground. With ``roller``, the far end of the third bar also rides on a roller:
    bar 2 is then held twice (a loop through the ground), not proven regular."""
    m = qv.BarJointModel()
    for k in range(4):
        m.add_bar_at_attitude(0.5 * math.cos(0.4 + k), 0.5 * math.sin(0.4 + k), 0.4 + k, 1.0, 1.0)
    m.add_joint([0, 1, 2], [-0.5, -0.5, -0.5])
    m.add_support(0, -0.5, False, False)
    m.add_joint([0, 3], [0.5, -0.5])
    if roller:
        m.add_support(2, 0.5, True, False)           # the far end of bar 2 on its line y = c
    m.assemble()
    return m


@pytest.mark.parametrize("make", [lambda: chain(5), _star_tree], ids=["chain5", "star"])
def test_trees_are_regular_and_numpy_agrees(make):
    model = make()
    assert structurally_regular(_rows(model))
    rng = np.random.default_rng(7)
    assert _min_singular_value(model, rng) > 1e-3   # full row rank at every pose tried
    assert not model.compiled().monitor
    traj = model.simulate(0.5, n_points=11)
    assert traj.info["singularity_monitor"].startswith("off")


def test_loops_keep_the_monitor_and_do_lose_rank():
    fb, sc = four_bar(), scissor(2)
    assert not structurally_regular(_rows(fb)) and not structurally_regular(_rows(sc))
    assert fb.compiled().monitor and sc.compiled().monitor
    # one monitor event per pivot ratio of the solved W: per constraint row, but for the
    # rows of centre pins, which leave the solve (scissor(2): two pins, four rows)
    for model, eliminated in ((fb, 0), (sc, 4)):
        cs = model.compiled()
        assert sum(e["role"] == "singular" for e in cs.terminal_events) == cs.m - eliminated
    assert fb.simulate(0.2, n_points=5).info["singularity_monitor"] == "on"
    # a pin and a vertical-guide roller on one bar: J loses rank when the bar stands upright
    m = qv.BarJointModel()
    m.add_bar_at_attitude(0.0, 0.0, 0.3, 2.0, 1.0)
    m.add_support(0, -0.5, False, False)
    m.add_support(0, 0.5, True, False)                 # the far end moves along x only
    assert not structurally_regular(_rows(m))
    assert not structurally_regular(_rows(_star_tree(roller=True)))
    upright = np.array([0.0, 0.0, math.pi / 2, 0.0, 0.0, 0.0])
    s = np.linalg.svd(m.matrices(upright)["J"], compute_uv=False)
    assert s[-1] < 1e-12                               # the structure test was right to refuse


def test_constant_entries_only():
    """A column touched once, but with an entry that depends on a parameter, proves nothing."""
    import heyoka as hy

    one, par = hy.expression(1.0), hy.par[0]
    assert structurally_regular([{0: one}, {0: par, 1: -one}])
    assert not structurally_regular([{0: par}])
    assert not structurally_regular([{0: one, 1: one}, {0: one, 1: one}])   # dependent rows
    assert structurally_regular([])


def test_default_tolerance_reported():
    small, large = chain(2), chain(12)   # 6 and 36 coordinates
    ts, tl = small.simulate(3.0, n_points=3), large.simulate(3.0, n_points=3)
    assert ts.info["tol"] == 1e-12 and tl.info["tol"] == 1e-10
    assert ts.info["tol_rule"].startswith("default")
    assert small.simulate(0.1, n_points=3, tol=1e-9).info["tol_rule"] == "given"
    # the default of a large model still conserves energy far below 1e-10 (released from rest)
    e = large.simulate(2.0, n_points=41)
    assert e.relative_energy_error() < 1e-11


def test_time_scale_is_the_period_of_the_shortest_bar():
    m = chain(3, length=0.5, g=4.0)
    m.set_bar_length(1, 0.25)
    assert m._data.time_scale() == pytest.approx(2 * math.pi * math.sqrt(0.25 / 4.0), rel=1e-15)
    assert chain(3, g=0.0)._data.time_scale() is None


@pytest.mark.slow
def test_short_runs_of_large_models_take_the_tight_tolerance():
    # chain of 12 bars of 1 m: T = 2 pi sqrt(1 / 9.81) = 2.006 s
    assert chain(12).simulate(2.0, n_points=3).info["tol"] == 1e-12
    assert chain(12).simulate(2.1, n_points=3).info["tol"] == 1e-10
    assert chain(12, g=0.0).simulate(0.1, n_points=3).info["tol"] == 1e-10  # no time scale
    # an edit of t_end re-uses the compiled code at the other default tolerance
    m = chain(12)
    m.simulate(3.0, n_points=3)
    again = m.simulate(0.5, n_points=3)
    assert again.info["tol"] == 1e-10 and "re-using" in again.info["tol_rule"]
    assert m.compiled().tol == 1e-10 and m.is_compiled()
    assert m._simulator.n_cached == 1


def test_compiling_ahead_for_a_run_takes_its_default_tolerance():
    m = chain(12)
    assert not m.is_compiled(t_end=1.0)
    assert m.compiled(t_end=1.0).tol == 1e-12 and m.is_compiled(t_end=1.0)
    traj = m.simulate(1.0, n_points=3)
    assert traj.info["tol"] == 1e-12 and "re-using" not in traj.info["tol_rule"]
    with pytest.raises(ValueError, match="t_end"):
        m.compiled(t_end=-1.0)
    with pytest.raises(TypeError, match="t_end"):
        m.is_compiled(t_end="long")
    assert m._simulator.n_cached == 1
