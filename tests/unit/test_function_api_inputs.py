"""Input validation of the function API, and oracles for what valid inputs produce.

1. Wrong types raise :class:`TypeError`, wrong values :class:`ValueError`, in every function
   of the function API.
2. Inputs that would silently give wrong equations raise :class:`ValueError` naming the
   stray variable: a Lagrangian, velocity constraints or ``Q_nc`` with variables outside
   q ∪ q̇, holonomic constraints with variables outside q (velocities in particular).
   ``hy.time`` and runtime parameters ``hy.par[i]`` are accepted everywhere, and the inputs
   of :func:`quivira.find_constrained_accelerations` are free-form.
3. Oracles: heyoka's own :func:`heyoka.lagrangian` for unconstrained systems (double
   pendulum, a charged particle in a central potential with a time-dependent and a magnetic
   force, an elastic pendulum with ``hy.par`` parameters, a time-dependent Lagrangian),
   compiled with :func:`heyoka.cfunc` and compared at random states to 1e-12 relative; and
   NumPy's dense solution of the KKT system
   :math:`M\\ddot q = f + J^T\\lambda,\\ J\\ddot q = -c` for constrained ones.

heyoka's convention (``hy.lagrangian(L, qs, qdots, D)``):
:math:`\\frac{d}{dt}\\partial L/\\partial\\dot q - \\partial L/\\partial q
= -\\partial D/\\partial\\dot q`, so a generalized force :math:`Q_{nc}` is passed to it as
the dissipation function :math:`D` with :math:`-\\partial D/\\partial \\dot q = Q_{nc}`
(:math:`D = \\tfrac12 c\\,\\dot q^2` for :math:`Q = -c\\dot q`, :math:`D = -Q(t)\\cdot\\dot q`
for a force that depends on time only), or, where :math:`Q_{nc}` is not of that form, as a
term of the Lagrangian (a vector potential for a magnetic force).
"""

from __future__ import annotations

import math
import zlib

import heyoka as hy
import numpy as np
import pytest

import quivira as qv

x, y, z, vx, vy, vz = hy.make_vars("x", "y", "z", "vx", "vy", "vz")
t_var = hy.make_vars("t")  # a *variable* named t, not hy.time
q2, qd2 = [x, y], [vx, vy]
L_pend = 0.5 * (vx * vx + vy * vy) - 9.81 * y
F_pend = [x * x + y * y - 1.0]
M2 = np.diag([1.0, 1.0]).astype(object)
J2 = np.array([[2 * x, 2 * y]], dtype=object)

ALLOWED_RULE = r"hy\.time and runtime parameters hy\.par\[i\]"


def rhs_of(sys) -> dict[str, hy.expression]:
    """``{state variable name: right-hand side}`` of a first-order system."""
    return {str(v): r for v, r in sys}


# ------------------------------------------------------------------------------------------
# 1. TypeError for a wrong type, ValueError for a wrong value
# ------------------------------------------------------------------------------------------

FAC3 = qv.gaussian_factorize(np.eye(3))

TYPE_ERRORS = [
    ("create_block_diagonal", lambda: qv.create_block_diagonal(None),
     r"blocks: expected a sequence of square arrays, got NoneType"),
    ("create_block_diagonal", lambda: qv.create_block_diagonal([np.eye(2), 3.0]),
     r"blocks\[1\]: expected a 2-D array .*got float"),
    ("create_block_diagonal", lambda: qv.create_block_diagonal([[["a"]]]),
     r"blocks\[0\]: entries must be real numbers or heyoka expressions, got str"),
    ("gaussian_elimination", lambda: qv.gaussian_elimination("S", [1.0]),
     r"S: expected a 2-D array .*got str"),
    ("gaussian_elimination", lambda: qv.gaussian_elimination(np.eye(1), 1.0),
     r"b: expected a sequence \(vector\), got a single float"),
    ("gaussian_elimination", lambda: qv.gaussian_elimination(np.eye(1), [None]),
     r"b: entries must be real numbers or heyoka expressions, got NoneType"),
    ("gaussian_factorize", lambda: qv.gaussian_factorize(None),
     r"S: expected a 2-D array .*got NoneType"),
    ("gaussian_factorize", lambda: qv.gaussian_factorize([[1.0, True], [0.0, 1.0]]),
     r"S: entries must be real numbers or heyoka expressions, got bool"),
    ("gaussian_solve_factored", lambda: qv.gaussian_solve_factored(np.eye(3), [1.0] * 3),
     r"factorization: expected the result of gaussian_factorize, got ndarray"),
    ("gaussian_solve_factored", lambda: qv.gaussian_solve_factored(FAC3, x),
     r"b: expected a sequence \(vector\), got a single expression"),
    ("gaussian_solve_factored", lambda: qv.gaussian_solve_factored(FAC3, {1.0, 2.0, 3.0}),
     r"b: expected a sequence \(vector\) or numpy.ndarray, got set"),
    ("invert_matrix", lambda: qv.invert_matrix(2.0), r"matrix: expected a 2-D array .*float"),
    ("invert_matrix", lambda: qv.invert_matrix([[1.0, 0.0], [0.0, "1"]]),
     r"matrix: entries must be real numbers or heyoka expressions, got str"),
    ("build_mass_matrix", lambda: qv.build_mass_matrix("L", qd2),
     r"lagrangian: expected a scalar heyoka expression, got str"),
    ("build_mass_matrix", lambda: qv.build_mass_matrix(L_pend, vx),
     r"qd: expected a sequence of heyoka variables, got a single expression"),
    ("build_mass_matrix", lambda: qv.build_mass_matrix(L_pend, None),
     r"qd: expected a sequence of heyoka variables, got NoneType"),
    ("build_constraint_jacobian", lambda: qv.build_constraint_jacobian(F_pend[0], q2),
     r"F: expected a sequence \(vector\), got a single expression"),
    ("build_constraint_jacobian", lambda: qv.build_constraint_jacobian(F_pend, "xy"),
     r"q: expected a sequence of heyoka variables, got str"),
    ("build_Jdqd", lambda: qv.build_Jdqd(None, q2, qd2),
     r"J: expected a 2-D array .*got NoneType"),
    ("build_Jdqd", lambda: qv.build_Jdqd(J2, q2, [vx, 1.0]),
     r"qd: entry 1 must be a heyoka variable"),
    ("find_constrained_accelerations",
     lambda: qv.find_constrained_accelerations([0.0, -9.81], J2, "M", [0.0]),
     r"M: expected a 2-D array .*got str"),
    ("find_constrained_accelerations",
     lambda: qv.find_constrained_accelerations(-9.81, J2, M2, [0.0]),
     r"qdd_free: expected a sequence \(vector\), got a single float"),
    ("find_constrained_accelerations",
     lambda: qv.find_constrained_accelerations([0.0, -9.81], J2, M2, [0.0], solver=2),
     r"solver: expected 'lu', 'ordered' or a callable f\(A, b\), got 2"),
    ("lagrange_eom", lambda: qv.lagrange_eom(None, F_pend, q2, qd2),
     r"lagrangian: expected a scalar heyoka expression, got NoneType"),
    ("lagrange_eom", lambda: qv.lagrange_eom(L_pend, None, q2, qd2),
     r"F: expected a sequence of constraint residuals \(use \[\] for none\)"),
    ("lagrange_eom", lambda: qv.lagrange_eom(L_pend, F_pend, q2, qd2, Q_nc=-vx),
     r"Q_nc: expected a sequence \(vector\), got a single expression"),
    ("lagrange_eom", lambda: qv.lagrange_eom(L_pend, [], q2, qd2, velocity_constraints=vx),
     r"velocity_constraints: expected a sequence of expressions"),
    ("lagrange_eom", lambda: qv.lagrange_eom(L_pend, [], q2, qd2, solver=None),
     r"solver: expected 'lu', 'ordered' or a callable f\(A, b\), got None"),
    ("lagrange_forms", lambda: qv.lagrange_forms(L_pend, "F", q2, qd2),
     r"F: expected a sequence of constraint residuals"),
    ("lagrange_forms", lambda: qv.lagrange_forms(L_pend, F_pend, q2, (vx, "vy")),
     r"qd: entry 1 must be a heyoka variable"),
]


@pytest.mark.parametrize(("func", "call", "match"), TYPE_ERRORS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(TYPE_ERRORS)])
def test_wrong_type_is_type_error(func, call, match):
    with pytest.raises(TypeError, match=match) as info:
        call()
    assert not isinstance(info.value, ValueError)  # no hybrid class any more


def test_every_function_of_the_api_is_covered_by_a_type_error_case():
    api = {"create_block_diagonal", "gaussian_elimination", "gaussian_factorize",
           "gaussian_solve_factored", "invert_matrix", "build_mass_matrix",
           "build_constraint_jacobian", "build_Jdqd", "find_constrained_accelerations",
           "lagrange_eom", "lagrange_forms"}
    assert {c[0] for c in TYPE_ERRORS} == api


def test_entry_type_error_is_gone():
    assert not hasattr(qv, "EntryTypeError")
    import quivira._entries as entries

    assert not hasattr(entries, "EntryTypeError")


VALUE_ERRORS = [
    (lambda: qv.lagrange_eom(L_pend, F_pend, [x, hy.par[0]], qd2),
     r"q: entry 1 must be a heyoka variable .*got p0"),
    (lambda: qv.lagrange_eom(L_pend, F_pend, [x, hy.time], qd2),
     r"q: entry 1 must be a heyoka variable"),
    (lambda: qv.build_mass_matrix(L_pend, [vx, 2.0 * vy]), r"qd: entry 1 must be a heyoka"),
    (lambda: qv.lagrange_eom(L_pend, [], q2, qd2, solver="qr"),
     r"solver: expected 'lu', 'ordered' or a callable f\(A, b\), got 'qr'"),
    (lambda: qv.find_constrained_accelerations([0.0, -9.81], [], M2, [], solver="LU"),
     r"solver: expected 'lu', 'ordered'"),
    (lambda: qv.create_block_diagonal(np.eye(2)), r"blocks\[0\]: expected a 2-D array"),
    (lambda: qv.gaussian_elimination([[1.0, 0.0], [0.0]], [1.0, 1.0]), r"S: expected a 2-D"),
]


@pytest.mark.parametrize(("call", "match"), VALUE_ERRORS)
def test_wrong_value_is_value_error(call, match):
    with pytest.raises(ValueError, match=match) as info:
        call()
    assert not isinstance(info.value, TypeError)


# ------------------------------------------------------------------------------------------
# 2. stray variables
# ------------------------------------------------------------------------------------------

STRAY = [
    # Lagrangian: outside q ∪ q̇
    (dict(lagrangian=L_pend + z * x), r"lagrangian: contains the variable\(s\) \['z'\], which "
     r"are neither coordinates \(q\) nor velocities \(qd\); a Lagrangian may depend only on "
     r"q, qd, " + ALLOWED_RULE),
    (dict(lagrangian=L_pend + vz * vz + z), r"lagrangian: contains the variable\(s\) "
     r"\['vz', 'z'\]"),
    (dict(lagrangian=L_pend + hy.cos(t_var) * x), r"lagrangian: contains the variable\(s\) "
     r"\['t'\].*for the time use hy\.time, not a variable named 't'"),
    # holonomic constraints: velocities, or anything else outside q
    (dict(F=[x * x + y * y - 1.0, vx * x + vy * y]), r"F\[1\]: contains the velocity "
     r"variable\(s\) \['vx', 'vy'\]; a holonomic constraint F\(q, t\) = 0 may depend only on "
     r"q, " + ALLOWED_RULE + r" \(pass constraints on velocities as velocity_constraints=\)"),
    (dict(F=[x * x + y * y - z * z]), r"F\[0\]: contains the variable\(s\) \['z'\], which are "
     r"not coordinates \(q\); a holonomic constraint F\(q, t\) = 0 may depend only on q, "
     + ALLOWED_RULE),
    (dict(F=[x - z * vx]), r"F\[0\]: contains the variable\(s\) \['z'\], which are not "
     r"coordinates.*also contains the velocity variable\(s\) \['vx'\].*velocity_constraints="),
    (dict(F=[x - hy.sin(t_var)]), r"F\[0\]: contains the variable\(s\) \['t'\].*use hy\.time"),
    # velocity constraints: outside q ∪ q̇
    (dict(F=[], velocity_constraints=[vx - z * vy]), r"velocity_constraints\[0\]: contains "
     r"the variable\(s\) \['z'\], which are neither coordinates \(q\) nor velocities \(qd\); a "
     r"velocity constraint A\(q, t\) qd \+ b\(q, t\) = 0 may depend only on q, qd, "
     + ALLOWED_RULE),
    # generalized forces: outside q ∪ q̇
    (dict(Q_nc=[0.0, -z * vy]), r"Q_nc\[1\]: contains the variable\(s\) \['z'\], which are "
     r"neither coordinates \(q\) nor velocities \(qd\); generalized forces may depend only on "
     r"q, qd, " + ALLOWED_RULE),
    (dict(Q_nc=[hy.cos(t_var), 0.0]), r"Q_nc\[0\]: contains the variable\(s\) \['t'\].*hy\.time"),
]


@pytest.mark.parametrize("builder", ["lagrange_eom", "lagrange_forms"])
@pytest.mark.parametrize(("override", "match"), STRAY)
def test_stray_variables_are_rejected_with_their_names(builder, override, match):
    args = dict(lagrangian=L_pend, F=F_pend, Q_nc=None, velocity_constraints=None)
    args.update(override)
    fn = getattr(qv, builder)
    with pytest.raises(ValueError, match=match):
        fn(args["lagrangian"], args["F"], q2, qd2, args["Q_nc"],
           velocity_constraints=args["velocity_constraints"])


def test_stray_check_precedes_the_symbolic_work():
    """The Lagrangian is checked first, so a wrong L is reported even with a singular M."""
    with pytest.raises(ValueError, match=r"lagrangian: .*\['z'\]"):
        qv.lagrange_eom(z * y, [], q2, qd2)


def test_time_and_parameters_are_accepted_everywhere():
    """hy.time and hy.par in L, F, velocity constraints and Q_nc; checked numerically: a
    particle (mass p0, gravity p1) on a circle of radius p2 that is also driven along x at
    the speed p3 cos t (velocity row), pushed by Q = (p4 cos t, 0). The results equal the
    NumPy solution of the KKT system with the rows a = [[2x, 2y], [1, 0]],
    c = [2(vx² + vy²), p3 sin t]."""
    m, g, r, u, f0 = (hy.par[i] for i in range(5))
    L = 0.5 * m * (vx * vx + vy * vy) - m * g * y
    F = [x * x + y * y - r * r]
    G = [vx - u * hy.cos(hy.time)]
    Q = [f0 * hy.cos(hy.time), 0.0]
    sys, lam = qv.lagrange_eom(L, F, q2, qd2, Q, velocity_constraints=G,
                               return_multipliers=True)
    rhs = rhs_of(sys)
    cf = hy.cfunc([rhs["vx"], rhs["vy"], *lam], [x, y, vx, vy])
    rng = np.random.default_rng(3)
    for _ in range(10):
        pars = rng.uniform(0.5, 2.0, 5)
        state = rng.uniform(-1.0, 1.0, 4)
        state[1] = rng.uniform(0.3, 1.0) * rng.choice([-1.0, 1.0])  # W singular at y = 0
        tm = rng.uniform(0.0, 10.0)
        mv, gv, _, uv, fv = pars
        xv, yv, vxv, vyv = state
        Mn = mv * np.eye(2)
        A = np.array([[2 * xv, 2 * yv], [1.0, 0.0]])
        c = np.array([2 * (vxv**2 + vyv**2), uv * math.sin(tm)])
        f = np.array([fv * math.cos(tm), -mv * gv])
        kkt = np.block([[Mn, -A.T], [A, np.zeros((2, 2))]])
        ref = np.linalg.solve(kkt, np.concatenate([f, -c]))
        got = cf(state, pars=pars, time=tm)
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12 * np.max(np.abs(ref)))


def test_find_constrained_accelerations_inputs_are_free_form():
    """M, J, qdd_free and Jdqd may contain any symbols of the caller (m, k, w here are
    variables that are neither coordinates nor velocities); checked against NumPy."""
    m, k, w = hy.make_vars("m", "k", "w")
    M = np.array([[m, 0.0], [0.0, 2.0 * m]], dtype=object)
    J = np.array([[k, w]], dtype=object)
    qdd_free = [w * k, -9.81]
    Jdqd = [k * w * w]
    Q = [hy.sin(hy.time) * m, w]
    qdd, lam, W = qv.find_constrained_accelerations(qdd_free, J, M, Jdqd, Q, return_W=True)
    cf = hy.cfunc([*qdd, *lam, W[0, 0]], [m, k, w])
    rng = np.random.default_rng(4)
    for _ in range(5):
        mv, kv, wv = rng.uniform(0.5, 2.0, 3)
        tm = rng.uniform(0, 5)
        Mn = np.diag([mv, 2 * mv])
        Jn = np.array([[kv, wv]])
        f = Mn @ np.array([wv * kv, -9.81]) + np.array([math.sin(tm) * mv, wv])
        kkt = np.block([[Mn, -Jn.T], [Jn, np.zeros((1, 1))]])
        ref = np.linalg.solve(kkt, np.concatenate([f, [-kv * wv * wv]]))
        Wn = (Jn @ np.linalg.solve(Mn, Jn.T))[0, 0]
        np.testing.assert_allclose(cf([mv, kv, wv], time=tm), [*ref, Wn], rtol=1e-12)


# ------------------------------------------------------------------------------------------
# 3. heyoka's hy.lagrangian as the oracle of unconstrained systems
# ------------------------------------------------------------------------------------------


def double_pendulum(damping: float = 0.0):
    """Point masses m1, m2 on massless rods l1, l2, angles from the downward vertical."""
    th1, th2, w1, w2 = hy.make_vars("th1", "th2", "w1", "w2")
    m1, m2, l1, l2, g = 1.3, 0.7, 1.1, 0.8, 9.81
    y1 = -l1 * hy.cos(th1)
    u1, v1 = l1 * hy.cos(th1) * w1, l1 * hy.sin(th1) * w1
    u2 = u1 + l2 * hy.cos(th2) * w2
    v2 = v1 + l2 * hy.sin(th2) * w2
    y2 = y1 - l2 * hy.cos(th2)
    L = (0.5 * m1 * (u1 * u1 + v1 * v1) + 0.5 * m2 * (u2 * u2 + v2 * v2)
         - m1 * g * y1 - m2 * g * y2)
    q, qd = [th1, th2], [w1, w2]
    Q = [-damping * w1, -damping * w2] if damping else None
    D = 0.5 * damping * (w1 * w1 + w2 * w2)  # -dD/dw = Q
    return dict(L=L, q=q, qd=qd, Q=Q, L_oracle=L, D=hy.expression(D), n_pars=0)


def central_force_particle():
    """A charged particle (mass m) in the potential -k/r, pushed by the rotating force
    F0 (cos ωt, sin ωt) and deflected by a magnetic field B along z (force B (vy, -vx)).

    Oracle side: the rotating force as D = -F(t)·v, the magnetic force through the vector
    potential term (B/2)(x vy - y vx) of the Lagrangian (then m ẍ = B ẏ, m ÿ = -B ẋ)."""
    m, k, f0, om, B = 0.9, 2.5, 0.4, 1.7, 0.6
    r = hy.sqrt(x * x + y * y)
    L = 0.5 * m * (vx * vx + vy * vy) + k / r
    fx, fy = f0 * hy.cos(om * hy.time), f0 * hy.sin(om * hy.time)
    Q = [fx + B * vy, fy - B * vx]
    L_oracle = L + 0.5 * B * (x * vy - y * vx)
    D = -(fx * vx + fy * vy)
    return dict(L=L, q=q2, qd=qd2, Q=Q, L_oracle=L_oracle, D=D, n_pars=0)


def elastic_pendulum_with_parameters():
    """A mass p0 on a spring (stiffness p1, rest length p2) in gravity p3, polar
    coordinates (r, φ), with viscous damping p4 on the radial velocity."""
    r, ph, vr, vph = hy.make_vars("r", "ph", "vr", "vph")
    m, k, l0, g, c = (hy.par[i] for i in range(5))
    L = (0.5 * m * (vr * vr + r * r * vph * vph) - 0.5 * k * (r - l0) * (r - l0)
         + m * g * r * hy.cos(ph))
    Q = [-c * vr, 0.0]
    D = 0.5 * c * vr * vr
    return dict(L=L, q=[r, ph], qd=[vr, vph], Q=Q, L_oracle=L, D=D, n_pars=5)


def pendulum_on_a_shaken_pivot():
    """A time-dependent Lagrangian: a pendulum (mass p0, length p1) whose pivot moves
    vertically as p2 cos(p3 t); exercises -∂²L/∂θ̇∂t."""
    th, w = hy.make_vars("th", "w")
    m, ell, a, om = (hy.par[i] for i in range(4))
    yp = a * hy.cos(om * hy.time)
    ypd = -a * om * hy.sin(om * hy.time)
    by = yp - ell * hy.cos(th)
    vbx, vby = ell * hy.cos(th) * w, ypd + ell * hy.sin(th) * w
    L = 0.5 * m * (vbx * vbx + vby * vby) - m * 9.81 * by
    return dict(L=L, q=[th], qd=[w], Q=None, L_oracle=L, D=hy.expression(0.0), n_pars=4)


SYSTEMS = {
    "double pendulum": lambda: double_pendulum(),
    "damped double pendulum": lambda: double_pendulum(damping=0.35),
    "central force, rotating and magnetic forces": central_force_particle,
    "elastic pendulum with hy.par": elastic_pendulum_with_parameters,
    "time-dependent Lagrangian": pendulum_on_a_shaken_pivot,
}


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_unconstrained_equations_equal_heyoka_lagrangian(name):
    s = SYSTEMS[name]()
    q, qd = s["q"], s["qd"]
    ours = rhs_of(qv.lagrange_eom(s["L"], [], q, qd, s["Q"]))
    theirs = rhs_of(hy.lagrangian(s["L_oracle"], q, qd, s["D"]))
    names = [str(v) for v in [*q, *qd]]
    assert sorted(ours) == sorted(theirs) == sorted(names)
    variables = [*q, *qd]
    cf_ours = hy.cfunc([ours[nm] for nm in names], variables)
    cf_theirs = hy.cfunc([theirs[nm] for nm in names], variables)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    for _ in range(20):
        state = rng.uniform(-2.0, 2.0, len(variables))
        if name == "elastic pendulum with hy.par":
            state[0] = rng.uniform(0.5, 2.0)  # r > 0
        if name == "central force, rotating and magnetic forces":
            state[:2] = rng.uniform(0.3, 2.0, 2) * rng.choice([-1, 1], 2)  # away from r = 0
        pars = rng.uniform(0.5, 2.0, s["n_pars"])
        tm = rng.uniform(0.0, 10.0)
        a = cf_ours(state, pars=pars, time=tm)
        b = cf_theirs(state, pars=pars, time=tm)
        assert np.all(np.isfinite(b))
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * np.max(np.abs(b)))


def test_heyoka_dissipation_sign_convention():
    """The sign used above: hy.lagrangian with D = c v²/2 gives v' = -c v (a damper)."""
    sys = rhs_of(hy.lagrangian(0.5 * vx * vx, [x], [vx], 0.5 * 0.3 * vx * vx))
    assert hy.cfunc([sys["vx"]], [x, vx])([0.0, 2.0])[0] == pytest.approx(-0.6, rel=1e-15)


# ------------------------------------------------------------------------------------------
# 4. a constrained case against NumPy: the pendulum as a particle on a circle
# ------------------------------------------------------------------------------------------


def test_pendulum_on_a_circle_equals_numpy_kkt():
    """Particle (mass m) on x² + y² = ℓ² in gravity g, with a damping force -c v.

    NumPy side, from the hand formulas: M = m I, f = (-c vx, -c vy - m g), J = (2x, 2y),
    J̇q̇ = 2(vx² + vy²); the KKT system [[M, -Jᵀ], [J, 0]] (q̈, λ) = (f, -J̇q̇) is solved at
    consistent states (on the circle, velocity tangent to it)."""
    m, g, ell, c = 1.4, 9.81, 0.8, 0.25
    L = 0.5 * m * (vx * vx + vy * vy) - m * g * y
    F = [x * x + y * y - ell * ell]
    Q = [-c * vx, -c * vy]
    sys, lam, W = qv.lagrange_eom(L, F, q2, qd2, Q, return_multipliers=True, return_W=True)
    rhs = rhs_of(sys)
    cf = hy.cfunc([rhs["x"], rhs["y"], rhs["vx"], rhs["vy"], lam[0], W[0, 0]], [x, y, vx, vy])
    rng = np.random.default_rng(5)
    for _ in range(20):
        phi, phid = rng.uniform(-math.pi, math.pi), rng.uniform(-4.0, 4.0)
        xv, yv = ell * math.sin(phi), -ell * math.cos(phi)
        vxv, vyv = ell * math.cos(phi) * phid, ell * math.sin(phi) * phid
        Mn = m * np.eye(2)
        Jn = np.array([[2 * xv, 2 * yv]])
        f = np.array([-c * vxv, -c * vyv - m * g])
        kkt = np.block([[Mn, -Jn.T], [Jn, np.zeros((1, 1))]])
        sol = np.linalg.solve(kkt, np.concatenate([f, [-2 * (vxv**2 + vyv**2)]]))
        got = cf([xv, yv, vxv, vyv])
        np.testing.assert_allclose(got[:2], [vxv, vyv], rtol=1e-15)
        np.testing.assert_allclose(got[2:4], sol[:2], rtol=1e-12, atol=1e-12 * m * g)
        np.testing.assert_allclose(got[4], sol[2], rtol=1e-12)
        np.testing.assert_allclose(got[5], 4 * ell * ell / m, rtol=1e-12)
        # and the physics: the rod force J^T λ is the tension m g cos φ + m ℓ φ̇², inwards
        tension = m * g * math.cos(phi) + m * ell * phid**2
        np.testing.assert_allclose(-2 * ell * got[4], tension, rtol=1e-11,
                                   atol=1e-12 * m * g)
