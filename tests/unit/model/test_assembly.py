"""The compiled equations of a bar model (monomial assembly, derived parameters, Baumgarte
stabilization) against independent references.

* Oracle for the equations: :meth:`bar_joint_model.build_lagrange_eom`, the term-by-term path, which
  differentiates the Lagrangian and the constraint residuals term by term with numbers as
  constants. At random states, on and off the constraints, the compiled accelerations and
  multipliers with the stabilization switched off must agree with it.
* Oracle for the stabilization terms: the defining equations solved with NumPy,
  :math:`λ_α - λ_0 = -W^{-1}(2α v + α^2 F)` (velocity rows: :math:`-W^{-1} α g`) and
  :math:`\\ddot q_α - \\ddot q_0 = M^{-1}J^T(λ_α - λ_0)`.
* Derived parameters: their values against their own formulas evaluated by heyoka.
"""

from __future__ import annotations

import math

import heyoka as hy
import numpy as np
import pytest

import quivira as qv
from quivira.examples import chain


def everything_model() -> qv.BarJointModel:
    """Five bars with a pin and a roller support, a three-bar joint, a point force with a
    torque, coordinate-vector constraints (linear + quadratic, inactive, velocity level), a
    driven user constraint and a knife edge: every kind of row the assembly builds."""
    m = qv.BarJointModel()
    m.add_bar_at_attitude(0.0, 0.0, 0.3, 1.0, 1.0)
    m.add_bar_at_attitude(0.9, 0.4, -0.5, 1.3, 0.8)
    m.add_bar_at_attitude(0.5, 1.1, 1.2, 0.9, 1.7)
    m.add_bar_at_attitude(1.8, 0.2, 0.1, 1.1, 1.2)
    m.add_bar_at_attitude(2.5, -0.4, 2.0, 0.7, 0.6)
    m.add_support(0, -0.5, False, False, -0.4, -0.1)
    m.add_support(3, 0.5, True, False, 2.3, 0.3)
    m.add_joint([0, 1, 2], [0.5, -0.5, -0.3])
    m.add_joint([1, 3], [0.5, -0.2])
    m.add_external_force(2, 0.4, 1.5, -2.0, torque=0.7)
    m.add_coordinate_constraint(1, 4, X0=[[0.0, 0.0, 1.0]], X1=[[0.0, 0.0, -2.0]],
                                Y1=[[0.3, 0.0, 0.0]], offset=[0.1], name="gear")
    m.add_coordinate_constraint(2, 4, X0=[[1.0, 0.0, 0.0]], X1=[[1.0, 0.0, 0.0]],
                                offset=[0.4], active=False, name="off")
    m.add_coordinate_constraint(None, 4, X1=[[0.0, 1.0, 0.0]], offset=[0.25],
                                velocity_level=True, name="lift")
    x4, y4, th4 = m.coordinates(4)
    m.add_constraint([x4 - 0.2 * hy.sin(1.3 * hy.time) - 2.5], name="drive")
    m.add_knife_edge(2, 0.1)
    m.set_g(9.81)
    return m


def oracle(model):
    """Compiled (qdd, λ) of the term-by-term path, as a function of (state, t)."""
    sys, lam = model.build_lagrange_eom(return_multipliers=True)
    n = model.n_coordinates
    exprs = [rhs for _, rhs in sys[n:]] + list(lam)
    cf = hy.cfunc(exprs, vars=[*model.q, *model.qd])

    def f(state, t):
        out = cf(np.asarray(state, dtype=float), time=t) if cf.is_time_dependent \
            else cf(np.asarray(state, dtype=float))
        return out[:n], out[n:]

    return f


def random_states(model, k, seed):
    rng = np.random.default_rng(seed)
    s0 = np.array(model.get_initial_state())
    n = model.n_coordinates
    out = []
    for _ in range(k):
        s = s0.copy()
        s[:n] += 0.05 * rng.standard_normal(n)  # off the constraints
        s[n:] = rng.standard_normal(n)
        out.append(s)
    return np.array(out), rng.uniform(0.0, 3.0, k)


def test_compiled_equations_match_the_spec_path_off_the_constraints():
    m = everything_model()
    m.set_stabilization(0.0)
    ref = oracle(m)
    states, times = random_states(m, 12, seed=1)
    for s, t in zip(states, times):
        got = m.matrices(s, t, stabilized=True)  # the integrated equations, α = 0
        qdd_ref, lam_ref = ref(s, t)
        np.testing.assert_allclose(got.qdd, qdd_ref, rtol=1e-10,
                                   atol=1e-10 * np.abs(qdd_ref).max())
        np.testing.assert_allclose(got.lambda_mult, lam_ref, rtol=1e-10,
                                   atol=1e-10 * np.abs(lam_ref).max())


def test_stabilization_terms_are_the_baumgarte_correction():
    m = everything_model()
    alpha = 7.0
    m.set_stabilization(alpha)
    labels = m.constraint_labels
    # velocity rows ("lift", the knife edge) follow the holonomic rows
    n_hol = sum(1 for lb in labels if not lb.startswith(("lift", "knife")))
    Minv = 1.0 / np.array([w for b in m.bars for w in (b.mass, b.mass, b.mass * b.length**2 / 12)])
    # the switched-off constraint "off": W_kk + 1, λ_k = 0
    shift = np.array([1.0 if lb.startswith("off") else 0.0 for lb in labels])
    states, times = random_states(m, 6, seed=2)
    for s, t in zip(states, times):
        d_zero = m.matrices(s, t)
        chk = m.check_constraint_fulfillment(s, t)
        F, v, J = chk.position, chk.velocity, d_zero.J
        W = (J * Minv) @ J.T
        W[np.diag_indices_from(W)] += shift
        active = 1.0 - shift
        rhs = np.concatenate([2 * alpha * v[:n_hol] + alpha**2 * F[:n_hol],
                              alpha * v[n_hol:]]) * active
        dlam = -np.linalg.solve(W, rhs)
        d_alpha = m.matrices(s, t, stabilized=True)
        got = d_alpha.lambda_mult - d_zero.lambda_mult
        scale = np.abs(d_alpha.lambda_mult).max()
        np.testing.assert_allclose(got, dlam, rtol=1e-8, atol=1e-11 * scale)
        np.testing.assert_allclose(d_alpha.qdd - d_zero.qdd, Minv * (J.T @ dlam),
                                   rtol=1e-8, atol=1e-11 * np.abs(d_alpha.qdd).max())
        assert np.max(np.abs(dlam)) > 1e-3 * scale  # off the constraints it matters


def test_derived_parameters_equal_their_formulas():
    m = everything_model()
    cs = m.compiled()
    base = m.parameter_values()
    full = cs.parameters(base)
    assert len(full) == len(base) + len(cs.coefficients) and len(cs.coefficients) > 0
    assert np.array_equal(full[: len(base)], base)
    formulas = cs.coefficients.formulas()
    keys = sorted(formulas, key=lambda p: int(str(p)[1:]))
    cf = hy.cfunc([formulas[k] for k in keys], vars=[])
    derived = full[len(base):]
    np.testing.assert_allclose(cf(np.zeros(0), pars=base), derived, rtol=1e-15,
                               atol=1e-15 * np.abs(derived).max())


def test_expanded_equations_use_base_parameters_only():
    m = everything_model()
    cs = m.compiled()
    base = m.parameter_values()
    qdd = cs.expand_parameters(cs.parts.qdd)
    assert max(int(str(p)[1:]) for e in qdd for p in hy.get_params(e)) < len(base)
    cf = hy.cfunc(qdd, vars=[*cs.parts.q, *cs.parts.qd])
    states, times = random_states(m, 4, seed=3)
    for s, t in zip(states, times):
        ref = m.matrices(s, t, stabilized=True).qdd
        got = cf(s, pars=base[: cf.nparams], time=t)
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())
    sys = cs.ode_system(expand_parameters=True)
    assert [str(v) for v, _ in sys] == [str(v) for v in (*cs.parts.q, *cs.parts.qd)]


def test_stabilization_keeps_a_chain_on_its_constraints():
    """Index-1 drift grows without the stabilization; with it the residuals stay at rounding
    level, and on the constraints the motion is the same."""
    runs = {}
    for alpha in (0.0, 10.0):
        m = chain(6)
        m.set_stabilization(alpha)
        runs[alpha] = m.simulate(60.0, n_points=601, tol=1e-11, singular_threshold=0.0)
    drift = {a: np.abs(tr.position_residual).max() for a, tr in runs.items()}
    assert drift[10.0] < 1e-12 < drift[0.0] / 100
    early = runs[0.0].t <= 1.0  # before the chaotic motions part
    assert np.abs(runs[10.0].q[early] - runs[0.0].q[early]).max() < 1e-9
    assert runs[10.0].info["stabilization"] == 10.0


def test_stabilization_is_a_runtime_parameter():
    m = chain(3)
    tr1 = m.simulate(0.5, n_points=11)
    cs = m.compiled()
    m.set_stabilization(0.0)
    tr0 = m.simulate(0.5, n_points=11)
    assert m.compiled() is cs
    assert tr0.info["stabilization"] == 0.0
    assert np.abs(tr1.q - tr0.q).max() < 1e-12
    assert math.isfinite(tr0.relative_energy_error())


@pytest.mark.parametrize("alpha", [0.0, 10.0])
def test_matrices_report_the_unstabilized_multipliers(alpha):
    m = everything_model()
    m.set_stabilization(alpha)
    state, t = random_states(m, 1, seed=4)
    got = m.matrices(state[0], t=t[0])
    qdd_ref, lam_ref = oracle(m)(state[0], t[0])
    np.testing.assert_allclose(got["lambda_mult"], lam_ref, rtol=1e-10,
                               atol=1e-10 * np.abs(lam_ref).max())
    np.testing.assert_allclose(got["qdd"], qdd_ref, rtol=1e-10, atol=1e-10 * np.abs(qdd_ref).max())


@pytest.mark.parametrize("make", ["everything", "scissor"])
def test_plain_equations_of_batch_code_match_the_spec_path(make):
    """The sweep's batch code integrates :meth:`CompiledSystem.plain_assembly`: without the
    diagonal scale and the singular window's terms, its accelerations and multipliers are
    those of the term-by-term path (α = 0) off the constraints, and it reads none of those
    run parameters."""
    from quivira.examples import scissor

    if make == "everything":
        m = everything_model()
    else:
        m = scissor(2)
        m.add_torsional_spring(0, 1, 35.0, name="hinge")  # a load in the plain equations
    m.set_stabilization(0.0)
    cs = m.compiled()
    plain = cs.plain_assembly()
    assert plain is not cs.assembly
    layout = [k for k, _ in qv.model.symbolic.parameter_layout(m._data)]
    unused = {i for i, k in enumerate(layout)
              if k[0] in ("diagonal_scale", "window_keep", "window_t0", "window_accel")}
    exprs = list(plain.parts.qdd) + list(plain.parts.lambda_mult)
    used = {int(str(p)[1:]) for e in exprs for p in hy.get_params(e)}
    assert not used & unused
    if make == "scissor":  # the full equations do carry the window (not structurally regular)
        full = {int(str(p)[1:]) for e in cs.parts.qdd for p in hy.get_params(e)}
        assert full & unused
    cf = hy.cfunc(exprs, vars=[*cs.parts.q, *cs.parts.qd])
    pars = cs.parameters(m.parameter_values())
    ref = oracle(m)
    n = m.n_coordinates
    states, times = random_states(m, 8, seed=5)
    for s, t in zip(on_centre_pins(m, states), times):
        kw = {"time": t} if cf.is_time_dependent else {}
        got = cf(s, pars=pars[: cf.nparams], **kw)
        qdd_ref, lam_ref = ref(s, t)
        np.testing.assert_allclose(got[:n], qdd_ref, rtol=1e-10,
                                   atol=1e-10 * np.abs(qdd_ref).max())
        np.testing.assert_allclose(got[n:], lam_ref, rtol=1e-10,
                                   atol=1e-10 * np.abs(lam_ref).max())


def on_centre_pins(model, states):
    """The states with each centre pin's second centre moved onto its first (positions and
    velocities): on the rows the compiled equations eliminate
    (:mod:`quivira.model.centre_pins`), off all the others."""
    n = model.n_coordinates
    out = np.array(states, dtype=float)
    for jt in model.joints:
        if jt.centre_pin:
            a, b = jt.bars
            for axis in (0, 1):
                out[..., 3 * b + axis] = out[..., 3 * a + axis]
                out[..., n + 3 * b + axis] = out[..., n + 3 * a + axis]
    return out


@pytest.mark.slow
def test_a_long_mast_in_nested_dissection_order_matches_numpy():
    """A 72-cell scissor mast (431 rows, 287 in the solve once its centre pins are
    eliminated) is factorized in nested-dissection order
    (:func:`quivira.lagrangian.fill_reducing_order`); its compiled multipliers and
    accelerations at rest, off the constraints (on the centre pins), against NumPy on the
    same M, J and W:
    :math:`W\\lambda = -J\\ddot q_a` with :math:`\\ddot q_a = -g e_y` (no velocity terms at
    rest, no stabilization) and :math:`\\ddot q = \\ddot q_a + M^{-1}J^T\\lambda`."""
    from quivira.examples import scissor
    from quivira.lagrangian import DISSECTION_MIN_ROWS, fill_reducing_order
    from quivira.ordering import minimum_degree, nested_dissection

    m = scissor(72)
    parts = m.compiled().parts
    pattern = [set(r) for r in parts.solve_rows]
    assert len(pattern) == len(parts.W_rows) - 2 * 72 >= DISSECTION_MIN_ROWS
    assert parts.W_solve.perm == fill_reducing_order(pattern) == nested_dissection(pattern)
    assert parts.W_solve.perm != minimum_degree(pattern)
    n = m.n_coordinates
    rng = np.random.default_rng(7)
    s0 = np.array(m.get_initial_state())
    for _ in range(3):
        s = s0.copy()
        s[:n] += 0.02 * rng.standard_normal(n)
        s[n:] = 0.0
        s = on_centre_pins(m, s)
        got = m.matrices(s)
        qdd_a = np.zeros(n)
        qdd_a[1::3] = -m.g
        lam = np.linalg.solve(got.W, -got.J @ qdd_a)
        qdd = qdd_a + np.linalg.solve(got.M, got.J.T @ lam)
        np.testing.assert_allclose(got.lambda_mult, lam, rtol=1e-9,
                                   atol=1e-9 * np.abs(lam).max())
        np.testing.assert_allclose(got.qdd, qdd, rtol=1e-9, atol=1e-9 * np.abs(qdd).max())
