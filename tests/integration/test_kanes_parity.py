"""Parity of quivira's mass-matrix forms, linearization, velocity constraints and solver
choice with SymPy's ``LagrangesMethod`` / ``KanesMethod``, analytic results and NumPy.

Oracles: SymPy (symbolic mechanics, evaluated numerically with ``lambdify``), hand-derived
formulas (pendulum frequencies, generalized forces) and NumPy (KKT solves, finite
differences of a potential). quivira's heyoka expressions are evaluated with
``hy.cfunc(list, vars=[...])``.

Sign convention (shared with SymPy's ``mass_matrix_full`` / ``forcing_full``):
``d/dt dL/dqd - dL/dq = Q_nc + J^T lam``; SymPy's ``mass_matrix = [M, -J^T]``, so the
multipliers solved from ``mass_matrix_full @ (qd, qdd, lam) = forcing_full`` equal ours.
"""

from __future__ import annotations

import math
import warnings

import heyoka as hy
import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp
from scipy.optimize import brentq
from sympy.physics.mechanics import (
    KanesMethod,
    LagrangesMethod,
    Point,
    ReferenceFrame,
    RigidBody,
    dynamicsymbols,
    inertia,
)

import quivira
from quivira import examples

G = 9.81
T_SYM = dynamicsymbols._t
TOL = 1e-10
N_STATES = 10
FORM_NAMES = ("mass_matrix", "forcing", "mass_matrix_full", "forcing_full")


# ------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------


def hvars(*names):
    """heyoka variables as a list (``hy.make_vars`` returns a bare variable for one name)."""
    return [hy.expression(nm) for nm in names]


def _expr(x):
    return x if isinstance(x, hy.expression) else hy.expression(float(x))


def hy_evaluator(arrays, variables):
    """One compiled function for several object arrays; returns ``(state, t=0) -> [arrays]``."""
    arrays = [np.asarray(a, dtype=object) for a in arrays]
    flat = [_expr(x) for a in arrays for x in a.ravel()]
    cf = hy.cfunc(flat, vars=list(variables))

    def evaluate(state, t=0.0):
        kw = {"time": t} if cf.is_time_dependent else {}
        out = cf(np.asarray(state, dtype=float), **kw)
        res, k = [], 0
        for a in arrays:
            res.append(out[k:k + a.size].reshape(a.shape))
            k += a.size
        return res

    return evaluate


def sympy_evaluator(exprs, q):
    """``(state (q, qd), t=0) -> [numpy arrays]`` for SymPy expressions in dynamic symbols."""
    qd = [qi.diff(T_SYM) for qi in q]
    f = sp.lambdify([T_SYM, *q, *qd], list(exprs), "numpy")

    def evaluate(state, t=0.0):
        return [np.array(v, dtype=float) for v in f(t, *state)]

    return evaluate


def lagranges(L, q, hol=None, nonhol=None, forcelist=None, frame=None):
    LM = LagrangesMethod(L, q, hol_coneqs=hol, nonhol_coneqs=nonhol, forcelist=forcelist,
                         frame=frame)
    LM.form_lagranges_equations()
    return LM


def solve_full(MMf, ff):
    return np.linalg.solve(MMf, ff.reshape(-1))


def compare_forms(forms, LM, q_sym, hvars_q, hvars_qd, states, *, sympy_rhs=False, times=None):
    """Compare the four forms and rhs() of quivira with SymPy at ``states`` (and ``times``)."""
    n, m = forms.n, forms.m
    assert forms.mass_matrix.shape == (n, n + m)
    assert forms.forcing.shape == (n,)
    assert forms.mass_matrix_full.shape == (2 * n + m, 2 * n + m)
    assert forms.forcing_full.shape == (2 * n + m,)
    assert forms.rhs().shape == (2 * n + m,)
    ours = hy_evaluator([getattr(forms, nm) for nm in FORM_NAMES] + [forms.rhs()],
                        [*hvars_q, *hvars_qd])
    sym_exprs = [getattr(LM, nm) for nm in FORM_NAMES]
    if sympy_rhs:
        sym_exprs.append(LM.rhs())
    theirs = sympy_evaluator(sym_exprs, q_sym)
    times = [0.0] * len(states) if times is None else times
    for state, t in zip(states, times, strict=True):
        a, b = ours(state, t), theirs(state, t)
        for nm, x, y in zip(FORM_NAMES, a, b, strict=False):
            np.testing.assert_allclose(x, y.reshape(x.shape), rtol=TOL, atol=TOL, err_msg=nm)
        rhs_ref = b[4].reshape(-1) if sympy_rhs else solve_full(b[2], b[3])
        np.testing.assert_allclose(a[4], rhs_ref, rtol=TOL, atol=TOL, err_msg="rhs")
        # and the augmented system is satisfied by our explicit rhs
        np.testing.assert_allclose(a[2] @ a[4], a[3], rtol=TOL, atol=TOL)


# ------------------------------------------------------------------------------------------
# 1. mass-matrix forms
# ------------------------------------------------------------------------------------------


def pendulum_states(rng, ell):
    for _ in range(N_STATES):
        th, om = rng.uniform(-math.pi, math.pi), rng.uniform(-3, 3)
        yield [ell * math.sin(th), -ell * math.cos(th),
               ell * math.cos(th) * om, ell * math.sin(th) * om]


def test_forms_cartesian_pendulum_vs_sympy():
    m, ell = 0.7, 1.3
    x, y = dynamicsymbols("x y")
    xd, yd = x.diff(T_SYM), y.diff(T_SYM)
    LM = lagranges(sp.Rational(1, 2) * m * (xd**2 + yd**2) - m * G * y, [x, y],
                   hol=[x**2 + y**2 - ell**2])
    hx, hyv, hxd, hyd = hvars("x", "y", "xd", "yd")
    Lh = 0.5 * m * (hxd * hxd + hyd * hyd) - m * G * hyv
    forms = quivira.lagrange_forms(Lh, [hx * hx + hyv * hyv - ell**2], [hx, hyv], [hxd, hyd])
    assert (forms.n, forms.m) == (2, 1)
    states = list(pendulum_states(np.random.default_rng(1), ell))
    compare_forms(forms, LM, [x, y], [hx, hyv], [hxd, hyd], states, sympy_rhs=True)
    # the multiplier of the pendulum is physical: J^T lam = 2 lam (x, y) is the rod force,
    # so -2 lam ell = m (v^2/ell + g cos(th)) (tension), and rhs()[-1] is that lam
    ev = hy_evaluator([forms.rhs()], [hx, hyv, hxd, hyd])
    for s in states:
        lam = ev(s)[0][-1]
        v2 = s[2] ** 2 + s[3] ** 2
        cos_th = -s[1] / ell
        assert -2 * lam * ell == pytest.approx(m * (v2 / ell + G * cos_th), rel=1e-12)


def test_forms_polar_pendulum_moving_pivot_rheonomic_length_vs_sympy():
    """Configuration-dependent M (polar coordinates), an explicitly time-dependent
    Lagrangian (pivot driven horizontally, a sin Ωt) and a driven rod length
    r = ℓ + ε sin ωt: the ∂²L/∂q̇∂q, ∂²L/∂q̇∂t, ∂J/∂t and ∂²F/∂t² terms."""
    m, ell, eps, w, amp, Om = 0.9, 1.2, 0.15, 2.3, 0.25, 1.7
    r, th = dynamicsymbols("r th")
    t = T_SYM
    px = amp * sp.sin(Om * t) + r * sp.sin(th)
    py = -r * sp.cos(th)
    L = sp.Rational(1, 2) * m * (px.diff(t) ** 2 + py.diff(t) ** 2) - m * G * py
    LM = lagranges(L, [r, th], hol=[r - ell - eps * sp.sin(w * t)])
    hr, hth, hrd, hthd = hvars("r", "th", "rd", "thd")
    tt = hy.time
    vx = amp * Om * hy.cos(Om * tt) + hrd * hy.sin(hth) + hr * hy.cos(hth) * hthd
    vy = -(hrd * hy.cos(hth)) + hr * hy.sin(hth) * hthd
    Lh = 0.5 * m * (vx * vx + vy * vy) + m * G * hr * hy.cos(hth)
    forms = quivira.lagrange_forms(Lh, [hr - ell - eps * hy.sin(w * tt)], [hr, hth], [hrd, hthd])
    rng = np.random.default_rng(11)
    times = list(rng.uniform(0.0, 5.0, N_STATES))
    states = [[ell + eps * math.sin(w * tk), rng.uniform(-math.pi, math.pi),
               eps * w * math.cos(w * tk), rng.uniform(-3, 3)] for tk in times]
    compare_forms(forms, LM, [r, th], [hr, hth], [hrd, hthd], states, sympy_rhs=True,
                  times=times)


def double_pendulum_states(rng, l1, l2):
    for _ in range(N_STATES):
        t1, t2 = rng.uniform(-math.pi, math.pi, 2)
        w1, w2 = rng.uniform(-3, 3, 2)
        x1, y1 = l1 * math.sin(t1), -l1 * math.cos(t1)
        x2, y2 = x1 + l2 * math.sin(t2), y1 - l2 * math.cos(t2)
        u1, v1 = l1 * math.cos(t1) * w1, l1 * math.sin(t1) * w1
        u2, v2 = u1 + l2 * math.cos(t2) * w2, v1 + l2 * math.sin(t2) * w2
        yield [x1, y1, x2, y2, u1, v1, u2, v2]


def test_forms_double_pendulum_maximal_coordinates_with_drag_vs_sympy():
    m1, m2, l1, l2, c = 0.8, 1.3, 1.1, 0.7, 0.35
    q = list(dynamicsymbols("x1 y1 x2 y2"))
    qd = [qi.diff(T_SYM) for qi in q]
    x1, y1, x2, y2 = q
    L = (sp.Rational(1, 2) * m1 * (qd[0]**2 + qd[1]**2)
         + sp.Rational(1, 2) * m2 * (qd[2]**2 + qd[3]**2) - m1 * G * y1 - m2 * G * y2)
    hol = [x1**2 + y1**2 - l1**2, (x2 - x1)**2 + (y2 - y1)**2 - l2**2]
    N = ReferenceFrame("N")
    P2 = Point("P2")
    P2.set_vel(N, qd[2] * N.x + qd[3] * N.y)
    LM = lagranges(L, q, hol=hol, forcelist=[(P2, -c * P2.vel(N))], frame=N)

    hq = hvars("x1", "y1", "x2", "y2")
    hqd = hvars("u1", "v1", "u2", "v2")
    a1, b1, a2, b2 = hq
    Lh = (0.5 * m1 * (hqd[0] * hqd[0] + hqd[1] * hqd[1])
          + 0.5 * m2 * (hqd[2] * hqd[2] + hqd[3] * hqd[3]) - m1 * G * b1 - m2 * G * b2)
    Fh = [a1 * a1 + b1 * b1 - l1**2, (a2 - a1) * (a2 - a1) + (b2 - b1) * (b2 - b1) - l2**2]
    Q = [0.0, 0.0, -c * hqd[2], -c * hqd[3]]
    forms = quivira.lagrange_forms(Lh, Fh, hq, hqd, Q_nc=Q)
    assert (forms.n, forms.m) == (4, 2)
    states = list(double_pendulum_states(np.random.default_rng(2), l1, l2))
    compare_forms(forms, LM, q, hq, hqd, states)
    # rhs() agrees with lagrange_eom's first-order system and multipliers
    sys, lam = quivira.lagrange_eom(Lh, Fh, hq, hqd, Q, return_multipliers=True)
    ev = hy_evaluator([forms.rhs(), [r for _, r in sys], lam], [*hq, *hqd])
    for s in states:
        rhs, sys_rhs, lam_v = ev(s)
        np.testing.assert_allclose(rhs[:8], sys_rhs, rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(rhs[8:], lam_v, rtol=1e-13, atol=1e-13)


def test_bar_model_forms_vs_hand_built_lagranges():
    """One bar pinned at its s = -0.5 end at the origin, with a tip load and a torque."""
    Lb, mb, fx, fy, tau = 1.3, 0.7, 0.3, -0.2, 0.15
    model = examples.chain(1, length=Lb, mass=mb, angle=0.4)
    model.add_external_force(0, 0.5, fx, fy, tau)
    forms = model.mass_matrix_forms()
    assert (forms.n, forms.m) == (3, 2)
    hq, hqd = forms.parts.q, forms.parts.qd
    assert [str(v) for v in hq] == ["x0", "y0", "th0"]

    x, y, th = dynamicsymbols("x y th")
    xd, yd, thd = (v.diff(T_SYM) for v in (x, y, th))
    inertia_c = mb * Lb**2 / 12
    L = sp.Rational(1, 2) * mb * (xd**2 + yd**2) + sp.Rational(1, 2) * inertia_c * thd**2 \
        - mb * G * y
    hol = [x - Lb / 2 * sp.cos(th), y - Lb / 2 * sp.sin(th)]  # point s = -0.5 at (0, 0)
    N = ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [th, N.z])
    tip = Point("tip")
    tip.set_vel(N, (xd - Lb / 2 * sp.sin(th) * thd) * N.x + (yd + Lb / 2 * sp.cos(th) * thd) * N.y)
    LM = lagranges(L, [x, y, th], hol=hol,
                   forcelist=[(tip, fx * N.x + fy * N.y), (B, tau * N.z)], frame=N)
    rng = np.random.default_rng(3)
    states = []
    for _ in range(N_STATES):
        t, w = rng.uniform(-math.pi, math.pi), rng.uniform(-3, 3)
        states.append([Lb / 2 * math.cos(t), Lb / 2 * math.sin(t), t,
                       -Lb / 2 * math.sin(t) * w, Lb / 2 * math.cos(t) * w, w])
    compare_forms(forms, LM, [x, y, th], hq, hqd, states, sympy_rhs=True)
    # and the compiled model gives the same qdd and multipliers
    ev = hy_evaluator([forms.rhs()], [*hq, *hqd])
    for s in states[:3]:
        mat = model.matrices(s)
        r = ev(s)[0]
        np.testing.assert_allclose(mat["qdd"], r[3:6], rtol=TOL, atol=TOL)
        np.testing.assert_allclose(mat["lambda_mult"], r[6:], rtol=TOL, atol=TOL)


def test_forms_of_model_with_inactive_constraint_are_solvable():
    """An inactive coordinate constraint (active=False, λ = 0 through a shift of W) has a zero
    row of J and a 1 in the λ block of mass_matrix_full, so the augmented system is solvable
    as SymPy's rhs() solves it, and agrees with rhs()."""
    model = examples.chain(2, angle=-0.3)
    model.add_coordinate_constraint(None, 1, X1=[[0, 0, 1]], offset=[-0.3], active=False)
    forms = model.mass_matrix_forms()
    ev = hy_evaluator([forms.mass_matrix_full, forms.forcing_full, forms.rhs()],
                      [*forms.parts.q, *forms.parts.qd])
    state = np.array(model.get_initial_state())
    MMf, ff, rhs = ev(state)
    np.testing.assert_allclose(rhs[6:12], model.matrices(state)["qdd"], rtol=TOL, atol=TOL)
    assert rhs[-1] == 0.0
    assert np.linalg.matrix_rank(MMf) == MMf.shape[0]


# ------------------------------------------------------------------------------------------
# 2. linearization and modes
# ------------------------------------------------------------------------------------------


def hanging_bar(Lb, mb, forces=()):
    model = quivira.bar_joint_model()
    model.set_g(G)
    model.add_bar_at_attitude(0.0, -Lb / 2, -math.pi / 2, Lb, mb)
    model.add_support(0, -0.5, False, False, 0.0, 0.0)  # s = -0.5 is the top end here
    for s, fx_, fy_ in forces:
        model.add_external_force(0, s, fx_, fy_)
    return model


def test_hanging_bar_frequency_and_tangent_basis():
    Lb, mb = 1.3, 0.7
    model = hanging_bar(Lb, mb)
    w2 = 3 * G / (2 * Lb)
    md = model.modes()
    assert len(md) == 1
    assert md.omega_squared[0] == pytest.approx(w2, rel=TOL)
    assert md.omega[0] == pytest.approx(math.sqrt(w2), rel=TOL)
    assert bool(md.stable[0])
    A, B = model.linearize()
    lin = model.linearize()
    assert lin.coordinates == ["th0"]
    np.testing.assert_allclose(A, [[0.0, 1.0], [-w2, 0.0]], rtol=TOL, atol=TOL)
    assert B.shape == (2, 0)
    # δq = T δθ: the centre moves by (L/2) δθ horizontally at the hanging pose
    np.testing.assert_allclose(lin.T[:, 0], [Lb / 2, 0.0, 1.0], atol=1e-14)
    J = model.matrices()["J"]
    np.testing.assert_allclose(J @ md.shapes, 0.0, atol=TOL)
    assert np.max(np.abs(md.shapes)) == pytest.approx(1.0)


def test_pendulum_input_matrix_for_tip_and_centre_forces():
    """B = ∂θ̈/∂u by hand: I_pivot θ̈ = Q_θ with Q_θ = ∂r/∂θ · f, r = pivot + d (cos θ, sin θ),
    d = L for the tip (s = 0.5), d = L/2 for the centre (s = 0); at θ = -π/2 ∂r/∂θ = (d, 0)."""
    Lb, mb = 1.3, 0.7
    model = hanging_bar(Lb, mb, forces=[(0.5, 0.0, 0.0), (0.0, 0.0, 0.0)])
    lin = model.linearize()
    A, B = lin
    assert lin.inputs == ["force0.fx", "force0.fy", "force0.torque",
                          "force1.fx", "force1.fy", "force1.torque"]
    assert lin.coordinates == ["th0"]
    i_pivot = mb * Lb**2 / 3
    th = -math.pi / 2
    col = {nm: B[:, k] for k, nm in enumerate(lin.inputs)}
    for k, d in ((0, Lb), (1, Lb / 2)):
        assert col[f"force{k}.fx"][1] == pytest.approx(-d * math.sin(th) / i_pivot, rel=TOL)
        assert col[f"force{k}.fy"][1] == pytest.approx(d * math.cos(th) / i_pivot, abs=TOL)
        assert col[f"force{k}.torque"][1] == pytest.approx(1 / i_pivot, rel=TOL)
    np.testing.assert_allclose(B[0], 0.0, atol=0.0)
    assert col["force0.fx"][1] == pytest.approx(3 / (mb * Lb), rel=TOL)
    np.testing.assert_allclose(A[1, 0], -3 * G / (2 * Lb), rtol=TOL)


def test_linearize_operating_point_errors_and_nonequilibrium():
    Lb, mb = 1.3, 0.7
    model = hanging_bar(Lb, mb)
    q_hang = np.array([0.0, -Lb / 2, -math.pi / 2])
    with pytest.raises(ValueError, match=r"violates support0.x by"):
        model.linearize(q_hang + [0.1, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"qd_op violates"):
        model.linearize(q_hang, [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"must have 3 entries"):
        model.linearize(q_hang[:2])
    # a consistent pose at rest, off the equilibrium
    th = -math.pi / 2 + 0.4
    q_off = np.array([Lb / 2 * math.cos(th), Lb / 2 * math.sin(th), th])
    with pytest.raises(ValueError, match=r"not an equilibrium.*allow_nonequilibrium=True"):
        model.linearize(q_off)
    with pytest.raises(ValueError, match=r"not an equilibrium"):
        model.modes(q_off)
    lin = model.linearize(q_off, allow_nonequilibrium=True)
    assert lin.coordinates == ["th0"]
    # θ̈ = -(3g/2L) cos θ along the constraint manifold: ∂θ̈/∂θ = (3g/2L) sin θ
    np.testing.assert_allclose(lin.A, [[0.0, 1.0], [3 * G / (2 * Lb) * math.sin(th), 0.0]],
                               rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(lin.q_op, q_off)
    # a knife edge makes linearization unsupported, with a clear message
    model.add_knife_edge(0, 0.2)
    with pytest.raises(ValueError, match=r"velocity \(non-holonomic\) constraints"):
        model.linearize()


def sympy_double_bar_kane(Lb, mb):
    """Two uniform bars (inertia m L²/12 about the centre) hanging from a pin, in absolute
    joint angles: SymPy's ``KanesMethod`` after ``kanes_equations``, and its symbols."""
    q1, q2, u1, u2 = dynamicsymbols("q1 q2 u1 u2")
    N = ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [q1, N.z])
    B = N.orientnew("B", "Axis", [q2, N.z])
    A.set_ang_vel(N, u1 * N.z)
    B.set_ang_vel(N, u2 * N.z)
    O = Point("O")
    O.set_vel(N, 0)
    Ac, P = O.locatenew("Ac", Lb / 2 * A.x), O.locatenew("P", Lb * A.x)
    Bc = P.locatenew("Bc", Lb / 2 * B.x)
    for pt, base, frame in ((Ac, O, A), (P, O, A), (Bc, P, B)):
        pt.v2pt_theory(base, N, frame)
    Ic = mb * Lb**2 / 12
    bodies = [RigidBody("bA", Ac, A, mb, (inertia(A, 0, 0, Ic), Ac)),
              RigidBody("bB", Bc, B, mb, (inertia(B, 0, 0, Ic), Bc))]
    KM = KanesMethod(N, [q1, q2], [u1, u2], kd_eqs=[q1.diff(T_SYM) - u1, q2.diff(T_SYM) - u2])
    KM.kanes_equations(bodies, [(Ac, -mb * G * N.y), (Bc, -mb * G * N.y)])
    return KM, (q1, q2, u1, u2)


def sympy_double_bar_pendulum(Lb, mb):
    """SymPy's linearization ``A`` of the double bar pendulum about the hanging pose."""
    KM, (q1, q2, u1, u2) = sympy_double_bar_kane(Lb, mb)
    op = {q1: -math.pi / 2, q2: -math.pi / 2, u1: 0, u2: 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        A_lin = KM.linearize(A_and_B=True, op_point=op)[0]  # (A, B, r)
    return np.array(A_lin.subs(op), dtype=float)


def test_double_bar_pendulum_modes_vs_sympy_kane():
    Lb, mb = 1.2, 0.9
    A_ref = sympy_double_bar_pendulum(Lb, mb)
    # eigenvalues of A are ±iω: λ² = -ω² (each ω² twice)
    lam = np.linalg.eigvals(A_ref)
    assert np.max(np.abs(lam.real)) < 1e-10
    w2_ref = np.sort(lam.imag[lam.imag > 0] ** 2)
    model = examples.chain(2, length=Lb, mass=mb, angle=-math.pi / 2)
    lin = model.linearize()
    assert len(lin.independent) == 2 and lin.A.shape == (4, 4)
    lam_q = np.linalg.eigvals(lin.A)
    assert np.max(np.abs(lam_q.real)) < 1e-8
    np.testing.assert_allclose(np.sort(lam_q.imag[lam_q.imag > 0] ** 2), w2_ref, rtol=1e-8)
    md = model.modes()
    assert len(md) == 2 and bool(np.all(md.stable)) and md.shapes.shape == (6, 2)
    np.testing.assert_allclose(md.omega_squared, w2_ref, rtol=1e-8)
    J = model.matrices()["J"]
    np.testing.assert_allclose(J @ md.shapes, 0.0, atol=TOL)
    # mode shapes in the bar angles are SymPy's eigenvectors of the angle block
    K_ref = A_ref[2:, :2]
    w, V = np.linalg.eig(K_ref)
    order = np.argsort(-w.real)
    for k, col in enumerate(order):
        v_ref = V[:, col].real / np.linalg.norm(V[:, col].real)
        v = md.shapes[[2, 5], k]
        v = v / np.linalg.norm(v)
        assert abs(float(v @ v_ref)) == pytest.approx(1.0, abs=1e-8)


def sympy_double_bar_rhs(Lb, mb):
    """``(θ1, θ2, ω1, ω2) -> (θ̇, ω̇)`` of the double bar pendulum by SymPy's KanesMethod."""
    KM, syms = sympy_double_bar_kane(Lb, mb)
    f = sp.lambdify(list(syms), list(KM.rhs()), "numpy")
    return lambda x: np.array(f(*x), dtype=float)


def reduced_jacobian(rhs_angles, Lb, ind, th_op, w_op, h=1e-6):
    """Jacobian of the reduced ODE z̈ = g(z, ż) in the bar coordinates ``z = q[ind]``
    chosen by quivira, from SymPy's ODE in the angles (numpy: Newton for θ(z), chain rule
    for ż and z̈, central differences)."""
    ind = list(ind)

    def q_of(th):
        c1, s1, c2, s2 = np.cos(th[0]), np.sin(th[0]), np.cos(th[1]), np.sin(th[1])
        q = np.array([Lb / 2 * c1, Lb / 2 * s1, th[0], Lb * c1 + Lb / 2 * c2,
                      Lb * s1 + Lb / 2 * s2, th[1]])
        dq = np.array([[-Lb / 2 * s1, 0], [Lb / 2 * c1, 0], [1, 0], [-Lb * s1, -Lb / 2 * s2],
                       [Lb * c1, Lb / 2 * c2], [0, 1]])
        d2 = [np.array([-Lb / 2 * c1, -Lb / 2 * s1, 0, -Lb * c1, -Lb * s1, 0]),
              np.array([0, 0, 0, -Lb / 2 * c2, -Lb / 2 * s2, 0])]  # ∂²q/∂θ_i², no mixed
        return q, dq, d2

    def g(x):
        z, zd = x[:2], x[2:]
        th = np.array(th_op, dtype=float)
        for _ in range(30):
            q, dq, _ = q_of(th)
            th = th - np.linalg.solve(dq[ind], q[ind] - z)
        q, dq, d2 = q_of(th)
        w = np.linalg.solve(dq[ind], zd)
        wd = rhs_angles(np.concatenate([th, w]))[2:]
        zdd = dq[ind] @ wd + (d2[0] * w[0] ** 2 + d2[1] * w[1] ** 2)[ind]
        return np.concatenate([zd, zdd])

    q0, dq0, _ = q_of(np.asarray(th_op, dtype=float))
    x0 = np.concatenate([q0[ind], dq0[ind] @ np.asarray(w_op, dtype=float)])
    return np.column_stack([(g(x0 + h * e) - g(x0 - h * e)) / (2 * h) for e in np.eye(4)])


def double_bar_state(Lb, th, w):
    (t1, t2), (w1, w2) = th, w
    c1, s1, c2, s2 = math.cos(t1), math.sin(t1), math.cos(t2), math.sin(t2)
    q = [Lb / 2 * c1, Lb / 2 * s1, t1, Lb * c1 + Lb / 2 * c2, Lb * s1 + Lb / 2 * s2, t2]
    qd = [-Lb / 2 * s1 * w1, Lb / 2 * c1 * w1, w1, -Lb * s1 * w1 - Lb / 2 * s2 * w2,
          Lb * c1 * w1 + Lb / 2 * c2 * w2, w2]
    return np.array(q), np.array(qd)


def test_tangent_linear_model_at_rest_off_equilibrium_vs_sympy():
    """allow_nonequilibrium at a pose at rest: A is the Jacobian of the reduced ODE in the
    coordinates quivira chose (here not the joint angles)."""
    Lb, mb, th = 1.2, 0.9, (-1.2, -0.9)
    model = examples.chain(2, length=Lb, mass=mb, angle=-0.3)
    q_op, _ = double_bar_state(Lb, th, (0.0, 0.0))
    lin = model.linearize(q_op, allow_nonequilibrium=True)
    A_ref = reduced_jacobian(sympy_double_bar_rhs(Lb, mb), Lb, lin.independent, th, (0, 0))
    np.testing.assert_allclose(lin.A, A_ref, rtol=0, atol=1e-6)


def test_tangent_linear_model_at_moving_operating_point_vs_sympy():
    """With qd_op != 0 the A_q block includes S A_qd (∂T/∂z δz) ż0, the change of the velocity
    tangent map q̇ = T(q) ż along δz (without it A would be off by ~0.8 here)."""
    Lb, mb, th, w = 1.2, 0.9, (-1.2, -0.9), (0.8, -1.3)
    model = examples.chain(2, length=Lb, mass=mb, angle=-0.3)
    q_op, qd_op = double_bar_state(Lb, th, w)
    lin = model.linearize(q_op, qd_op, allow_nonequilibrium=True)
    A_ref = reduced_jacobian(sympy_double_bar_rhs(Lb, mb), Lb, lin.independent, th, w)
    np.testing.assert_allclose(lin.A[:, 2:], A_ref[:, 2:], rtol=0, atol=1e-6)  # A_qd: fine
    np.testing.assert_allclose(lin.A, A_ref, rtol=0, atol=1e-6)


def four_bar_state(a):
    return np.array(examples.four_bar(crank_angle=a).get_initial_state())


def test_four_bar_equilibria_one_mode_vs_energy_method():
    """Static equilibria of the gravity-loaded four-bar found by root-finding θ̈_crank = 0 at
    rest; ω² checked against V''(a) / m_eff(a) along the one-parameter family of poses
    q(a) built by ``examples.four_bar(crank_angle=a)`` (NumPy finite differences)."""
    probe = examples.four_bar()
    n = probe.n_coordinates
    masses = np.diag(probe.matrices()["M"])

    def crank_acc(a):
        return probe.matrices(four_bar_state(a))["qdd"][2]

    grid = np.linspace(0.0, 2 * math.pi, 25)
    vals = [crank_acc(a) for a in grid]
    roots = [brentq(crank_acc, grid[k], grid[k + 1], xtol=1e-14)
             for k in range(len(grid) - 1) if vals[k] * vals[k + 1] < 0]
    assert len(roots) >= 2  # a potential has a minimum and a maximum over a crank turn

    def q_of(a):
        return four_bar_state(a)[:n]

    def potential(a):
        return G * float(masses[1::3] @ q_of(a)[1::3])

    h = 1e-3
    signs = set()
    for a in roots:
        model = examples.four_bar(crank_angle=a)
        md = model.modes()
        assert len(md) == 1 and md.shapes.shape == (9, 1)
        st = np.array(model.get_initial_state())
        np.testing.assert_allclose(model.matrices()["qdd"], 0.0, atol=1e-9)
        J = model.matrices()["J"]
        np.testing.assert_allclose(J @ md.shapes, 0.0, atol=TOL)
        # energy method (5-point stencils); angle differences wrapped to (-π, π]
        d = [q_of(a + k * h) - st[:n] for k in (-2, -1, 1, 2)]
        for x in d:
            x[2::3] = np.angle(np.exp(1j * x[2::3]))
        dq = (d[0] - 8 * d[1] + 8 * d[2] - d[3]) / (12 * h)
        m_eff = float(dq @ (masses * dq))
        Vs = [potential(a + k * h) for k in (-2, -1, 0, 1, 2)]
        dV = (Vs[0] - 8 * Vs[1] + 8 * Vs[3] - Vs[4]) / (12 * h)
        d2V = (-Vs[0] + 16 * Vs[1] - 30 * Vs[2] + 16 * Vs[3] - Vs[4]) / (12 * h * h)
        assert abs(dV) < 1e-8 * max(1.0, abs(d2V))
        assert md.omega_squared[0] == pytest.approx(d2V / m_eff, rel=1e-6)
        assert bool(md.stable[0]) == (d2V > 0)
        signs.add(bool(md.stable[0]))
        # the mode shape is the direction of motion along the family
        s = md.shapes[:, 0]
        assert abs(float(s @ dq)) / (np.linalg.norm(s) * np.linalg.norm(dq)) == \
            pytest.approx(1.0, abs=1e-7)
    assert signs == {True, False}


# ------------------------------------------------------------------------------------------
# 3. velocity (non-holonomic) constraints: knife edges
# ------------------------------------------------------------------------------------------


def sled_states(rng, a):
    """States of a sled (centre x, y, heading θ) whose knife edge, at distance ``a`` ahead of
    the centre along the heading, does not slip sideways: lateral centre speed = -a θ̇."""
    for _ in range(N_STATES):
        x, y, th = rng.uniform(-2, 2), rng.uniform(-2, 2), rng.uniform(-math.pi, math.pi)
        u, w = rng.uniform(-2, 2), rng.uniform(-3, 3)
        v = -a * w
        yield [x, y, th, u * math.cos(th) - v * math.sin(th), u * math.sin(th) + v * math.cos(th),
               w]


def test_lagrange_eom_knife_edge_sled_vs_sympy():
    """A sled with thrust along its heading and spin damping, knife edge at distance a."""
    m, inertia_c, a, thrust, damp = 1.4, 0.11, 0.3, 0.8, 0.25
    x, y, th = dynamicsymbols("x y th")
    xd, yd, thd = (v.diff(T_SYM) for v in (x, y, th))
    N = ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [th, N.z])
    C = Point("C")
    C.set_vel(N, xd * N.x + yd * N.y)
    L = sp.Rational(1, 2) * m * (xd**2 + yd**2) + sp.Rational(1, 2) * inertia_c * thd**2
    nonhol = [-sp.sin(th) * xd + sp.cos(th) * yd + a * thd]
    LM = lagranges(L, [x, y, th], nonhol=nonhol,
                   forcelist=[(C, thrust * B.x), (B, -damp * thd * N.z)], frame=N)

    hq, hqd = hvars("x", "y", "th"), hvars("vx", "vy", "om")
    Lh = 0.5 * m * (hqd[0] * hqd[0] + hqd[1] * hqd[1]) + 0.5 * inertia_c * hqd[2] * hqd[2]
    knife = [-(hy.sin(hq[2]) * hqd[0]) + hy.cos(hq[2]) * hqd[1] + a * hqd[2]]
    Q = [thrust * hy.cos(hq[2]), thrust * hy.sin(hq[2]), -damp * hqd[2]]
    forms = quivira.lagrange_forms(Lh, [], hq, hqd, Q, velocity_constraints=knife)
    assert (forms.n, forms.m) == (3, 1)
    states = list(sled_states(np.random.default_rng(4), a))
    compare_forms(forms, LM, [x, y, th], hq, hqd, states)
    sys, lam = quivira.lagrange_eom(Lh, [], hq, hqd, Q, return_multipliers=True,
                                    velocity_constraints=knife)
    ev = hy_evaluator([[r for _, r in sys], lam], [*hq, *hqd])
    ref = sympy_evaluator([LM.mass_matrix_full, LM.forcing_full], [x, y, th])
    for s in states:
        rhs, lam_v = ev(s)
        sol = solve_full(*ref(s))
        np.testing.assert_allclose(rhs, sol[:6], rtol=TOL, atol=TOL)
        np.testing.assert_allclose(lam_v, sol[6:], rtol=TOL, atol=TOL)
        # Newton for the sled by hand: lateral force λ at the knife = m a_⊥, torque a λ = I θ̈
        c, s_ = math.cos(s[2]), math.sin(s[2])
        assert m * (-s_ * rhs[3] + c * rhs[4]) == pytest.approx(lam_v[0], abs=1e-12)
        assert inertia_c * rhs[5] == pytest.approx(a * lam_v[0] - damp * s[5], abs=1e-12)
    # a velocity row that is not linear in the velocities is refused
    with pytest.raises(ValueError, match=r"velocity_constraints\[0\]: must be linear"):
        quivira.lagrange_eom(Lh, [], hq, hqd, velocity_constraints=[hqd[0] * hqd[0] - 1.0])


SLED = {"m": 1.0, "L": 1.0, "s": 0.3, "th0": 0.4, "u0": 1.0, "w0": 1.5, "t_end": 5.0}


def sympy_sled_trajectory(t_eval):
    """The Chaplygin sled by SymPy's KanesMethod in body-frame speeds (forward u1, lateral
    u2, spin u3), the knife edge u2 + a u3 = 0 as a velocity constraint with u2 dependent;
    ``rhs()`` lambdified and integrated by DOP853."""
    m, a = SLED["m"], SLED["s"] * SLED["L"]
    inertia_c = m * SLED["L"] ** 2 / 12
    x, y, th = dynamicsymbols("x y th")
    u1, u2, u3 = dynamicsymbols("u1 u2 u3")
    N = ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [th, N.z])
    B.set_ang_vel(N, u3 * N.z)
    C = Point("C")
    C.set_vel(N, u1 * B.x + u2 * B.y)
    body = RigidBody("sled", C, B, m, (inertia(B, 0, 0, inertia_c), C))
    kd = [x.diff(T_SYM) - (u1 * sp.cos(th) - u2 * sp.sin(th)),
          y.diff(T_SYM) - (u1 * sp.sin(th) + u2 * sp.cos(th)), th.diff(T_SYM) - u3]
    KM = KanesMethod(N, [x, y, th], [u1, u3], kd_eqs=kd, u_dependent=[u2],
                     velocity_constraints=[u2 + a * u3])
    KM.kanes_equations([body], [])
    args = [*KM.q, *KM.u]
    f = sp.lambdify(args, list(KM.rhs()), "numpy")
    th0, w0 = SLED["th0"], SLED["w0"]
    init = {x: 0.0, y: 0.0, th: th0, u1: SLED["u0"], u2: -a * w0, u3: w0}
    sol = solve_ivp(lambda t, z: f(*z), (0.0, SLED["t_end"]), [init[v] for v in args],
                    method="DOP853", rtol=1e-13, atol=1e-13, t_eval=t_eval)
    assert sol.success
    # accelerations of the centre in the plane along the SymPy solution
    acc = []
    for z in sol.y.T:
        d = f(*z)
        zz = dict(zip(args, z, strict=True))
        dd = dict(zip(args, d, strict=True))
        c, s = math.cos(zz[th]), math.sin(zz[th])
        du1, du2, w = dd[u1], dd[u2], zz[u3]
        ax = (du1 - zz[u2] * w) * c - (du2 + zz[u1] * w) * s  # d/dt of u1 B.x + u2 B.y
        ay = (du1 - zz[u2] * w) * s + (du2 + zz[u1] * w) * c
        acc.append([ax, ay, dd[u3]])
    return sol.y[:3].T, np.array(acc)


def sled_model():
    model = quivira.bar_joint_model()
    model.set_g(0.0)
    model.add_bar_at_attitude(0.0, 0.0, SLED["th0"], SLED["L"], SLED["m"])
    name = model.add_knife_edge(0, SLED["s"])
    a, th0, w0, u0 = SLED["s"] * SLED["L"], SLED["th0"], SLED["w0"], SLED["u0"]
    v = -a * w0  # lateral speed of the centre that keeps the knife edge from slipping
    model.set_init_bar_velocities(0, u0 * math.cos(th0) - v * math.sin(th0),
                                  u0 * math.sin(th0) + v * math.cos(th0), w0)
    return model, name


def test_chaplygin_sled_model_vs_sympy_kane():
    model, name = sled_model()
    assert name == "knife0"
    assert model.constraint_names == ["knife0"]
    traj = model.simulate(SLED["t_end"], n_points=101)
    assert traj.t[-1] == pytest.approx(SLED["t_end"])
    assert traj.constraint_labels == ["knife0.normal"]
    assert traj.lambda_mult.shape == (101, 1)
    # g = 0: energy is kinetic and is conserved; the knife edge does not slip
    assert np.max(np.abs(traj.energy - traj.energy[0])) < 1e-10
    assert np.max(np.abs(traj.potential_energy)) == 0.0
    assert traj.max_velocity_residual() < 1e-12
    # SymPy's Kane equations of the same sled
    q_ref, acc_ref = sympy_sled_trajectory(traj.t)
    np.testing.assert_allclose(traj.q, q_ref, rtol=0, atol=1e-8)
    np.testing.assert_allclose(traj.qdd, acc_ref, rtol=0, atol=1e-8)
    # the sled turned: the test is not about a straight line
    assert abs(traj.q[-1, 2] - traj.q[0, 2]) > 0.5
    # the multiplier is the lateral force of the knife on the sled: λ = m a_⊥ (Newton,
    # from the accelerations with numpy), and its moment about the centre is I θ̈
    th = traj.q[:, 2]
    qdd = traj.qdd
    a_perp = -np.sin(th) * qdd[:, 0] + np.cos(th) * qdd[:, 1]
    lam = traj.lambda_mult[:, 0]
    np.testing.assert_allclose(lam, SLED["m"] * a_perp, rtol=0, atol=1e-10)
    inertia_c = SLED["m"] * SLED["L"] ** 2 / 12
    np.testing.assert_allclose(inertia_c * qdd[:, 2], SLED["s"] * SLED["L"] * lam, atol=1e-10)
    # no force along the bar: m a_∥ = 0
    a_par = np.cos(th) * qdd[:, 0] + np.sin(th) * qdd[:, 1]
    np.testing.assert_allclose(a_par, 0.0, atol=1e-10)
    assert np.max(np.abs(lam)) > 0.1


def test_knife_edge_model_forms_are_the_function_api_sled():
    """The bar model with a knife edge in mass-matrix form equals lagrange_forms with the
    same velocity row (compared numerically)."""
    model, _ = sled_model()
    forms = model.mass_matrix_forms()
    assert (forms.n, forms.m) == (3, 1)
    m, a = SLED["m"], SLED["s"] * SLED["L"]
    hq, hqd = forms.parts.q, forms.parts.qd
    Lh = 0.5 * m * (hqd[0] * hqd[0] + hqd[1] * hqd[1]) + 0.5 * (m / 12) * hqd[2] * hqd[2]
    knife = [-(hy.sin(hq[2]) * hqd[0]) + hy.cos(hq[2]) * hqd[1] + a * hqd[2]]
    ref = quivira.lagrange_forms(Lh, [], hq, hqd, velocity_constraints=knife)
    names = [*FORM_NAMES, "rhs"]

    def arrays(f):
        return [getattr(f, nm) for nm in FORM_NAMES] + [f.rhs()]

    ev_a, ev_b = hy_evaluator(arrays(forms), [*hq, *hqd]), hy_evaluator(arrays(ref), [*hq, *hqd])
    for s in sled_states(np.random.default_rng(5), a):
        for nm, x, y in zip(names, ev_a(s), ev_b(s), strict=True):
            np.testing.assert_allclose(x, y, rtol=TOL, atol=TOL, err_msg=nm)


# ------------------------------------------------------------------------------------------
# 4. solver choice for W λ = r
# ------------------------------------------------------------------------------------------


def double_bar_maximal(Lb=1.1, mb=0.9, torques=(0.3, -0.2)):
    """Two bars in maximal coordinates (x, y, θ each), pinned at the origin and joined end
    to end; returns (L, F, q, qd, Q_nc, M numeric, f as heyoka)."""
    q = hvars("x1", "y1", "t1", "x2", "y2", "t2")
    qd = hvars("u1", "v1", "w1", "u2", "v2", "w2")
    h = Lb / 2
    inertia_c = mb * Lb**2 / 12
    L = hy.sum([0.5 * mb * (qd[0] * qd[0] + qd[1] * qd[1] + qd[3] * qd[3] + qd[4] * qd[4]),
                0.5 * inertia_c * (qd[2] * qd[2] + qd[5] * qd[5]),
                -(mb * G) * q[1], -(mb * G) * q[4]])
    c1, s1, c2, s2 = hy.cos(q[2]), hy.sin(q[2]), hy.cos(q[5]), hy.sin(q[5])
    F = [q[0] - h * c1, q[1] - h * s1,
         (q[3] - h * c2) - (q[0] + h * c1), (q[4] - h * s2) - (q[1] + h * s1)]
    Q = [0.0, 0.0, torques[0], 0.0, 0.0, torques[1]]
    return L, F, q, qd, Q, np.diag([mb, mb, inertia_c] * 2)


def double_bar_states(rng, Lb=1.1):
    h = Lb / 2
    for _ in range(N_STATES):
        t1, t2 = rng.uniform(-math.pi, math.pi, 2)
        w1, w2 = rng.uniform(-3, 3, 2)
        x1, y1 = h * math.cos(t1), h * math.sin(t1)
        x2, y2 = 2 * x1 + h * math.cos(t2), 2 * y1 + h * math.sin(t2)
        u1, v1 = -h * math.sin(t1) * w1, h * math.cos(t1) * w1
        u2, v2 = 2 * u1 - h * math.sin(t2) * w2, 2 * v1 + h * math.cos(t2) * w2
        yield [x1, y1, t1, x2, y2, t2, u1, v1, w1, u2, v2, w2]


SOLVERS = {"lu": "lu", "ordered": "ordered",
           "callable": lambda A, b: quivira.gaussian_elimination(A, b)}


def test_find_constrained_accelerations_solvers_agree_with_numpy_kkt():
    L, F, q, qd, Q, M_num = double_bar_maximal()
    M = quivira.build_mass_matrix(L, qd)
    J = quivira.build_constraint_jacobian(F, q)
    Jdqd = quivira.build_Jdqd(J, q, qd)
    g_acc = [0.0, -G, 0.0, 0.0, -G, 0.0]  # free accelerations: gravity only (M diagonal)
    outs = {}
    for key, solver in SOLVERS.items():
        qdd, lam, W = quivira.find_constrained_accelerations(g_acc, J, M, Jdqd, Q,
                                                             return_W=True, solver=solver)
        assert qdd.shape == (6,) and lam.shape == (4,) and W.shape == (4, 4)
        outs[key] = hy_evaluator([qdd, lam, W], [*q, *qd])
    ev_J = hy_evaluator([J, Jdqd], [*q, *qd])
    f_num = np.array([0.0, -0.9 * G, 0.3, 0.0, -0.9 * G, -0.2])
    for s in double_bar_states(np.random.default_rng(6)):
        res = {k: ev(s) for k, ev in outs.items()}
        for k in ("ordered", "callable"):
            for a, b in zip(res["lu"], res[k], strict=True):
                np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12, err_msg=k)
        Jn, jd = ev_J(s)
        kkt = np.block([[M_num, -Jn.T], [Jn, np.zeros((4, 4))]])
        sol = np.linalg.solve(kkt, np.concatenate([f_num, -jd]))
        qdd, lam, W = res["lu"]
        np.testing.assert_allclose(qdd, sol[:6], rtol=TOL, atol=TOL)
        np.testing.assert_allclose(lam, sol[6:], rtol=TOL, atol=TOL)
        np.testing.assert_allclose(W, Jn @ np.linalg.solve(M_num, Jn.T), rtol=TOL, atol=TOL)


def test_lagrange_eom_solvers_agree_and_bad_solver_messages():
    L, F, q, qd, Q, _ = double_bar_maximal()
    evs = {}
    for key, solver in SOLVERS.items():
        sys, lam = quivira.lagrange_eom(L, F, q, qd, Q, return_multipliers=True, solver=solver)
        evs[key] = hy_evaluator([[r for _, r in sys], lam], [*q, *qd])
    forms = quivira.lagrange_forms(L, F, q, qd, Q, solver="ordered")
    ev_forms = hy_evaluator([forms.rhs(), forms.mass_matrix_full, forms.forcing_full],
                            [*q, *qd])
    for s in double_bar_states(np.random.default_rng(7)):
        ref = evs["lu"](s)
        for key in ("ordered", "callable"):
            for a, b in zip(ref, evs[key](s), strict=True):
                np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12, err_msg=key)
        rhs, MMf, ff = ev_forms(s)
        np.testing.assert_allclose(rhs, np.linalg.solve(MMf, ff), rtol=TOL, atol=TOL)
        np.testing.assert_allclose(rhs[:12], ref[0], rtol=1e-12, atol=1e-12)
    msg = r"solver: expected 'lu', 'ordered' or a callable f\(A, b\), got 'qr'"
    with pytest.raises(ValueError, match=msg):
        quivira.lagrange_eom(L, F, q, qd, Q, solver="qr")
    g_acc = [0.0, -G, 0.0, 0.0, -G, 0.0]
    M = quivira.build_mass_matrix(L, qd)
    J = quivira.build_constraint_jacobian(F, q)
    with pytest.raises(ValueError, match=msg):
        quivira.find_constrained_accelerations(g_acc, J, M, quivira.build_Jdqd(J, q, qd),
                                               solver="qr")
    with pytest.raises(ValueError, match=r"solver: must return 4 values"):
        quivira.lagrange_eom(L, F, q, qd, solver=lambda A, b: list(b)[:3])


def test_model_solver_default_ordered_and_lu_same_trajectory():
    for build in (lambda: examples.chain(3, angle=-0.3), lambda: examples.scissor(2)):
        model = build()
        assert model.solver == "ordered"
        perm = model.compiled().parts.W_solve.perm
        assert perm != sorted(perm)  # the ordering is not the identity: a real comparison
        t_ord = model.simulate(0.3, n_points=31)  # the scissor collapses at t ≈ 0.4
        model.solver = "lu"
        t_lu = model.simulate(0.3, n_points=31)
        np.testing.assert_allclose(t_lu.q, t_ord.q, rtol=0, atol=1e-10)
        np.testing.assert_allclose(t_lu.qd, t_ord.qd, rtol=0, atol=1e-10)
        np.testing.assert_allclose(t_lu.lambda_mult, t_ord.lambda_mult, rtol=0, atol=1e-9)
        assert np.ptp(t_ord.q[:, 2]) > 1e-2  # it moved
