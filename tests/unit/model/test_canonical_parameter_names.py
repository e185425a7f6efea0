"""The model's canonical names (``model.parameters()``) name continuation parameters and
sensitivity variables too: the same numbers as the earlier spellings, no warning."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import quivira as qv
from quivira.elements import SpringDamper
from quivira.examples import chain


def von_mises() -> qv.BarJointModel:
    """A slider held by two springs to (±1, 0), loaded at its centre (snap-through)."""
    m = qv.BarJointModel()
    m.set_g(0.0)
    m.add_bar_at_attitude(0.0, 0.5, math.pi / 2, 0.2, 1.0)
    m.add_support(0, -0.5, False, True)
    m.add_support(0, 0.5, False, True)
    for x in (-1.0, 1.0):
        m.add(SpringDamper(bar_a=0, s_a=0.0, bar_b=None, ground=(x, 0.0), k=100.0))
    m.add_external_force(0, 0.0, 0.0, 0.0)
    return m


@pytest.mark.slow
def test_equilibrium_path_reads_the_canonical_name_of_a_load():
    with pytest.warns(PendingDeprecationWarning, match="earlier spelling of 'force0.fy'"):
        old = von_mises().equilibrium_path("force 0 · fy", [0.0, -40.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = von_mises().equilibrium_path("force0.fy", [0.0, -40.0])
    # the springs' upward push on the slider at height y (rest length L0 = √(1 + 0.5²)):
    # P(y) = 2 k y (L0/√(1 + y²) − 1); the snap-through load is its maximum on [0, 0.5]
    y = np.linspace(0.0, 0.5, 200_001)
    L0 = math.hypot(1.0, 0.5)
    force = 2 * 100.0 * y * (L0 / np.sqrt(1.0 + y * y) - 1.0)
    assert new.limit_points[0].parameter == old.limit_points[0].parameter
    assert new.parameter_name == old.parameter_name == "force0.fy"
    assert -new.limit_points[0].parameter == pytest.approx(force.max(), rel=1e-6)


def test_sensitivities_read_canonical_names_with_the_same_derivatives():
    wrt_old = ["g", "bar 1 · mass", "th0"]
    wrt_new = ["g", "bar1.mass", "bar0.theta"]
    with pytest.warns(PendingDeprecationWarning, match="earlier spelling of 'bar1.mass'"):
        a = chain(2).sensitivities(0.5, wrt_old, order=1, n_points=6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = chain(2).sensitivities(0.5, wrt_new, order=1, n_points=6)
    for old, new in zip(wrt_old, wrt_new):
        da = a.derivative("state", "th1", old)
        np.testing.assert_array_equal(da, b.derivative("state", "th1", new))
        assert np.all(np.isfinite(da)) and np.any(da != 0.0)
    with pytest.raises(ValueError, match="named twice"):
        chain(2).sensitivities(0.5, ["bar1.mass", "bar 1 · mass"])
    with pytest.raises(ValueError, match="unknown name 'bar9.mass'"):
        chain(2).sensitivities(0.5, ["bar9.mass"])


def test_sensitivity_variables_are_the_models_names():
    """Every variable of a chain with the usual elements is named as in model.parameters()."""
    from quivira.elements import Parameter, TorsionalSpring
    from quivira.sensitivity import variable_names

    m = chain(3)
    m.add(TorsionalSpring(bar_a=0, bar_b=1, k=1.0, phi0=0.5, c=0.1))
    m.add(Parameter(name="A", value=2.0))
    m.add_external_force(2, 0.5, 1.0, -2.0)
    table = {n.name: n for n in m.parameters()}
    names = variable_names(m)
    assert names[0] == "g" and "torsion0.k" in names and "bar2.omega" in names
    assert [n for n in names if n not in table] == []
    # and only the differentiable ones
    assert all(table[n].differentiable for n in names)
