"""Centre pins (:mod:`quivira.model.centre_pins`): the compiled equations move the two centres
of a scissor's X as one, with the pin's rows out of the solve, against oracles:

* the term-by-term path (:meth:`bar_joint_model.build_lagrange_eom`, which differentiates the
  Lagrangian with every pin row in its KKT system) for accelerations and multipliers, the pins'
  own multipliers included, at states on the pins and off every other constraint, with unequal
  masses, a load on a merged centre, a spring, and after a mass edit (no recompilation);
* fourth-order central differences of ``simulate`` for the derivative with respect to the mass
  of a pinned bar (the pin's :math:`1/(m_0 + m_1)` must follow it);
* a pin moved off the centres keeps its rows (its equations compile again).
"""

from __future__ import annotations

import heyoka as hy
import numpy as np
import pytest

import quivira as qv
from quivira.examples import scissor


def lattice() -> qv.BarJointModel:
    """A 3-cell scissor with unequal masses, a force on a pinned centre, a hinge spring."""
    m = scissor(3)
    for i, mass in enumerate([1.0, 2.5, 0.7, 1.9, 1.3, 0.6]):
        m.set_bar_mass(i, mass)
    m.add_external_force(3, 0.0, 1.7, -0.9)  # at bar 3's centre, where bar 2 is pinned
    m.add_torsional_spring(0, 1, 12.0, name="hinge")
    return m


def spec_path(model):
    """Compiled (qdd, λ) of the term-by-term path, as a function of the state."""
    sys, lam = model.build_lagrange_eom(return_multipliers=True)
    n = model.n_coordinates
    cf = hy.cfunc([rhs for _, rhs in sys[n:]] + list(lam), vars=[*model.q, *model.qd])

    def f(s):
        out = cf(s, pars=model.parameter_values()[: cf.nparams]) if cf.nparams else cf(s)
        return out[:n], out[n:]

    return f


def on_pins(model, rng, k):
    """Random states off the constraints, with each centre pin's centres (and their
    velocities) equal."""
    n = model.n_coordinates
    s0 = np.array(model.get_initial_state())
    out = []
    for _ in range(k):
        s = s0.copy()
        s[:n] += 0.05 * rng.standard_normal(n)
        s[n:] = rng.standard_normal(n)
        for jt in model.joints:
            if jt.centre_pin:
                a, b = jt.bars
                for axis in (0, 1):
                    s[3 * b + axis] = s[3 * a + axis]
                    s[n + 3 * b + axis] = s[n + 3 * a + axis]
        out.append(s)
    return out


def check_against_spec_path(m, seed):
    ref = spec_path(m)
    for s in on_pins(m, np.random.default_rng(seed), 6):
        got = m.matrices(s, stabilized=True)
        qdd_ref, lam_ref = ref(s)
        np.testing.assert_allclose(got.qdd, qdd_ref, rtol=1e-10,
                                   atol=1e-10 * np.abs(qdd_ref).max())
        np.testing.assert_allclose(got.lambda_mult, lam_ref, rtol=1e-10,
                                   atol=1e-10 * np.abs(lam_ref).max())


def pin_rows(m) -> set[int]:
    """The rows of the model's centre pins."""
    heads = tuple(f"{jt.name}." for jt in m.joints if jt.centre_pin)
    return {k for k, label in enumerate(m.compiled().labels) if label.startswith(heads)}


def test_scissor_pins_leave_the_solve_and_the_equations_match_the_spec_path():
    m = lattice()
    m.set_stabilization(0.0)
    parts = m.compiled().parts
    pins = pin_rows(m)
    assert len(pins) == 2 * 3  # one pin per cell
    assert set(parts.solved_rows) == set(range(len(parts.W_rows))) - pins
    assert len(parts.solve_rows) == len(parts.W_rows) - 6
    check_against_spec_path(m, seed=3)
    # a mass edit changes the pin's 1/(m0 + m1) with the runtime parameters, not the code
    cs = m.compiled()
    m.set_bar_mass(2, 3.2)
    assert m.compiled() is cs
    check_against_spec_path(m, seed=4)


@pytest.mark.slow
def test_mass_derivative_through_a_centre_pin_matches_finite_differences():
    m = scissor(2)
    m.set_bar_mass(1, 1.6)
    t_end = 0.3
    s = m.sensitivities(t_end, ["bar 1 · mass"], order=1, outputs=["state", "lambda"],
                        n_points=3)
    jets = np.concatenate([s.array("state").values[-1], s.array("lambda").values[-1]])
    d = jets[:, s.mindex.index((1,))]

    def run(mass):
        m.set_bar_mass(1, mass)
        tr = m.simulate(t_end, n_points=3)
        return np.concatenate([tr.q[-1], tr.qd[-1], tr.lambda_mult[-1]])

    h = 2e-3
    f = {k: run(1.6 + k * h) for k in (-2, -1, 1, 2)}
    fd = (-f[2] + 8 * f[1] - 8 * f[-1] + f[-2]) / (12 * h)
    scale = np.abs(d).max()
    assert scale > 1e-2
    np.testing.assert_allclose(d, fd, rtol=0, atol=1e-6 * scale)


def test_a_pin_moved_off_the_centres_keeps_its_rows():
    m = lattice()
    m.set_stabilization(0.0)
    cs = m.compiled()
    moved = min(j for j, jt in enumerate(m.joints) if jt.centre_pin)
    m.set_joint(moved, s=[0.1, -0.1])
    assert not m.joints[moved].centre_pin
    assert m.compiled() is not cs
    parts = m.compiled().parts
    assert len(pin_rows(m)) == 4
    assert len(parts.solve_rows) == len(parts.W_rows) - 4
    check_against_spec_path(m, seed=5)
