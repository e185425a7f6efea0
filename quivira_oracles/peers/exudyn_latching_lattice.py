"""Exudyn peer of the latching scissor-8 lattice, and its exact reference.

No Quivira import: the geometry of ``quivira.examples.scissor(8)`` is replicated here.

The model (so that Quivira can build the very same one)
-------------------------------------------------------
* **Lattice** = ``scissor(8)``: ``CELLS = 8`` X-cells of bars of length ``L = 1`` m, mass
  ``m = 1`` kg (``mass_per_length = 1``), inertia ``m L^2/12``, initial angle
  ``ALPHA0 = 0.6`` rad, ``g = 9.81`` along ``-y``, at rest. With ``w = L cos(ALPHA0)``,
  ``h = L sin(ALPHA0)``: bar ``2c`` runs from ``(0, c h)`` to ``(w, c h + h)`` (angle
  ``ALPHA0``), bar ``2c + 1`` from ``(w, c h)`` to ``(0, c h + h)`` (angle
  ``pi - ALPHA0``); the ``s = -0.5`` end is the first point. Pins (``infer_joints``): the 8
  centres (bars ``2c``, ``2c + 1`` at ``s = 0``), and at every level ``c = 1..7`` the left
  corner (bar ``2c - 1`` at ``s = +0.5`` with bar ``2c`` at ``s = -0.5``) and the right
  corner (bar ``2c - 2`` at ``s = +0.5`` with bar ``2c + 1`` at ``s = -0.5``): 22 pins.
  Supports: bar 0's ``s = -0.5`` end pinned at ``(0, 0)``; bar 1's ``s = -0.5`` end on a
  roller at ``(w, 0)`` free in ``x``. One degree of freedom: every cell has the same angle
  ``alpha`` (bars ``2c`` at ``alpha``, bars ``2c + 1`` at ``pi - alpha``).
* **16 hinge springs** (Quivira ``add_torsional_spring(a, b, k, phi0)``, Exudyn
  ``ObjectConnectorTorsionalSpringDamper`` with marker 0 on bar ``a`` (or ground), marker 1
  on bar ``b``; torque ``k (phi - phi0)`` with ``phi = theta_b - theta_a``, ``-`` on ``b``,
  ``+`` on ``a``), all of stiffness ``K_HINGE = 20`` N m/rad, no damping, with the rest
  angles of the fully raised lattice ``alpha_rest = pi/2``:

  - 8 centre pivots ``(a, b) = (2c, 2c + 1)``: ``phi = pi - 2 alpha``, ``phi0 = 0``;
  - 7 left corners ``(2c - 1, 2c)``, ``c = 1..7``: ``phi = 2 alpha - pi``, ``phi0 = 0``;
  - foot ``(None, 0)`` (bar 0 to ground): ``phi = alpha``, ``phi0 = pi/2``.

  The spring energy is ``U = 30.5 K_HINGE (pi/2 - alpha)^2``; the lattice rises (the
  springs beat gravity: ``61 K (pi/2 - alpha) > 64 m g L cos(alpha)`` on the whole way).
* **8 latches** on the centre pivots ``(2c, 2c + 1)``: each locks when its
  ``phi = theta_{2c+1} - theta_{2c}`` falls to ``PHI_LATCH = 0.75`` rad
  (``alpha_L = (pi - 0.75)/2 = 1.19580`` rad). All 8 cross at the same instant (the cells
  are identical), so one latch locks the mechanism and the other 7 are redundant (with
  exact lock rows ``theta_{2c+1} - theta_{2c} = PHI_LATCH`` the Delassus matrix ``W`` is
  then singular: rank 1 among the 8 lock rows); the exact (plastic) latch stops the lattice
  dead: the whole kinetic energy is lost and the angles stay at ``PHI_LATCH`` for ever.
* 5 s simulated (``T_END``).

Exudyn's latches (there is no latch element): a stiff **penalty torsional spring-damper**
``ObjectConnectorTorsionalSpringDamper`` (``stiffness = K_LATCH = 1e6`` N m/rad, ``offset =
PHI_LATCH``, damping = critical for the locked lattice, ``sqrt(32 K_LATCH M_eff(alpha_L))/16
= 2510`` N m s/rad, :func:`critical_latch_damping`) per centre pivot, created with
``activeConnector = False`` and switched on (``mbs.SetObjectParameter(...,
"activeConnector", True)``) by a ``postStepUserFunction`` after the first step that ends
with ``phi <= PHI_LATCH``, so it acts from the next step on (a switch-on, not a one-sided
stop: it holds both ways, as a latch does; a one-sided spring would need a Python torque
user function called at every Newton iteration). A post-step function is used because Exudyn
calls it with the state at its time argument (once at ``t = 0`` and after every step),
whereas a pre-step function receives the END time of the coming step with the state at its
start. The latch time reported is the linear interpolation of the crossing between the last
two step ends.

The penalty spring does not hold ``PHI_LATCH`` exactly: at rest the lattice's net
spring-and-gravity torque ``Q(alpha)`` is carried by the 8 latch springs (generalized
stiffness ``32 K_LATCH`` in ``alpha``), so Exudyn settles at
``phi = PHI_LATCH - 2 (alpha* - alpha_L)`` with ``Q(alpha*) = 32 K_LATCH (alpha* - alpha_L)``
(:func:`penalty_equilibrium`: ``1.4221e-5`` rad below ``PHI_LATCH`` for ``K_LATCH = 1e6``):
that is Exudyn's error of the latched angle, set by the penalty stiffness, not by ``h``.

Exact reference (:func:`exact_reference`): the lattice is a 1-DOF conservative system in
``alpha`` until the latch, with (``m``, ``L`` of one bar, ``C = CELLS``)

.. math::

    M_\\mathrm{eff}(\\alpha) = 2 m L^2 \\left(\\tfrac{C}{4}\\sin^2\\alpha
        + \\tfrac{C(4C^2-1)}{12}\\cos^2\\alpha + \\tfrac{C}{12}\\right),\\quad
    U = 30.5 K (\\pi/2 - \\alpha)^2,\\quad V = m g L C^2 \\sin\\alpha,

so ``t_L = int_{alpha0}^{alpha_L} d alpha / sqrt(2 (E0 - U - V)/M_eff)`` (with
``alpha = alpha0 + u^2`` the integrand is smooth; ``scipy.integrate.quad`` agrees with an
80-digit mpmath quadrature to ``1e-16`` s): ``t_L = 0.574408552130597`` s, ``alpha' = 3.2081``
rad/s just before the latch, and the whole kinetic energy, ``259.41`` J, lost in it.

Solver: as ``exudyn_peer`` (``NodeRigidBody2D`` + ``ObjectRigidBody2D``, revolute pins, the
roller as ``ObjectJointPrismatic2D`` without rotation constraint, implicit generalized-alpha
with spectral radius 0.8, full Newton, Exudyn's default Newton tolerances, EigenSparse above
24 coordinates). The hinge angles stay inside ``(-pi, pi)``, so Exudyn's wrapped relative
angle is the continuous one and no ``NodeGenericData`` is needed.

Measured (exudyn 1.13.6, 2 shared cores, 5 s simulated; keys of :func:`run`):

====  =======  ===========  ===================  ===================  ===========  ========
h     k_latch  integrate_s  latch_time_error     latched_angle_error  kinetic_end  residual
====  =======  ===========  ===================  ===================  ===========  ========
1e-3  1e6      1.6          9.1e-7 s             1.4221e-5 rad        2e-21 J      2e-15
1e-4  1e6      18-20        3.2e-10 s            1.4221e-5 rad        1e-19 J      3e-15
1e-3  1e8      1.6          9.1e-7 s             1.4221e-7 rad        2e-21 J      2e-15
1e-4  1e8      20           3.2e-10 s            1.4221e-7 rad        5e-19 J      9e-16
1e-4  1e4      19           3.2e-10 s            1.4193e-3 rad        1e-19 J      2e-15
====  =======  ===========  ===================  ===================  ===========  ========

All 8 latches fire in the same step; the latched angles equal :func:`penalty_equilibrium`
to ``< 1e-15`` rad at 5 s (``latched_angle_error_vs_penalty``), i.e. the latched-angle error
is exactly the penalty deflection ``~ Q(alpha_L)/(16 k_latch)`` and does not depend on ``h``.
The post-step latch function costs about 7 % of the integration time (0.3 s runs at
``h = 1e-3`` with and without it); build is 3-4 ms.
"""

from __future__ import annotations

import math
import time

import numpy as np

CELLS = 8
LENGTH = 1.0
MASS = 1.0  # mass_per_length 1 x length 1
ALPHA0 = 0.6
G = 9.81
K_HINGE = 20.0
ALPHA_REST = 0.5 * math.pi
PHI_LATCH = 0.75
K_LATCH = 1.0e6
T_END = 5.0
#: coefficients of U = SPRING_FACTOR/2 * K (alpha_rest - alpha)^2: 8 centres and 7 corners
#: each 4 (phi = +-2 alpha), the foot 1
SPRING_FACTOR = 4 * CELLS + 4 * (CELLS - 1) + 1
#: Exudyn's dense linear solver up to this many coordinates (as ``exudyn_peer``)
DENSE_UP_TO = 24


def alpha_of_phi(phi_centre: float) -> float:
    """Cell angle ``alpha`` of a centre-pivot angle ``phi = pi - 2 alpha``."""
    return 0.5 * (math.pi - phi_centre)


ALPHA_LATCH = alpha_of_phi(PHI_LATCH)


def lattice(cells: int = CELLS, length: float = LENGTH, alpha0: float = ALPHA0,
            mass: float = MASS) -> dict:
    """Plain description of the lattice (module docstring): bars, pins, supports, springs.

    Returns
    -------
    dict
        ``bars``: ``(x, y, theta, length, mass)``; ``joints``: ``(a, s_a, b, s_b)``;
        ``pin``: ``(bar, s, x, y)``; ``roller``: ``(bar, s, x, y)`` free in ``x``;
        ``springs``: ``(a or None, b, phi0)``; ``latches``: ``(a, b)`` centre pivots.
    """
    h, w = length * math.sin(alpha0), length * math.cos(alpha0)
    bars, joints = [], []
    for c in range(cells):
        bars.append((0.5 * w, (c + 0.5) * h, alpha0, length, mass))
        bars.append((0.5 * w, (c + 0.5) * h, math.pi - alpha0, length, mass))
        joints.append((2 * c, 0.0, 2 * c + 1, 0.0))
    for c in range(1, cells):
        joints.append((2 * c - 1, 0.5, 2 * c, -0.5))  # left corner at (0, c h)
        joints.append((2 * c - 2, 0.5, 2 * c + 1, -0.5))  # right corner at (w, c h)
    springs = [(2 * c, 2 * c + 1, math.pi - 2 * ALPHA_REST) for c in range(cells)]
    springs += [(2 * c - 1, 2 * c, 2 * ALPHA_REST - math.pi) for c in range(1, cells)]
    springs.append((None, 0, ALPHA_REST))
    return {"bars": bars, "joints": joints, "pin": (0, -0.5, 0.0, 0.0),
            "roller": (1, -0.5, w, 0.0), "springs": springs,
            "latches": [(2 * c, 2 * c + 1) for c in range(cells)]}


# ------------------------------------------------------------------------------------------
# exact 1-DOF reference
# ------------------------------------------------------------------------------------------


def effective_mass(alpha: float) -> float:
    """``M_eff(alpha)`` of the lattice in its cell angle (module docstring) [kg m^2]."""
    C = CELLS
    s2, c2 = math.sin(alpha) ** 2, math.cos(alpha) ** 2
    return 2.0 * MASS * LENGTH**2 * (C * s2 / 4.0 + C * (4 * C * C - 1) / 12.0 * c2 + C / 12.0)


def generalized_torque(alpha: float) -> float:
    """``Q(alpha) = -d(U + V)/d alpha`` of the hinge springs and gravity [N m]."""
    return (SPRING_FACTOR * K_HINGE * (ALPHA_REST - alpha)
            - MASS * G * LENGTH * CELLS**2 * math.cos(alpha))


def _work_over_u2(u: float) -> float:
    """``(E0 - U - V)/u^2`` at ``alpha = ALPHA0 + u^2``, without cancellation."""
    a = ALPHA0 + u * u
    spring = 0.5 * SPRING_FACTOR * K_HINGE * (2.0 * ALPHA_REST - ALPHA0 - a)
    # sin(a0) - sin(a) = -2 cos((a + a0)/2) sin(u^2/2)
    x = 0.5 * u * u
    sinc = 1.0 if x == 0.0 else math.sin(x) / x
    grav = -MASS * G * LENGTH * CELLS**2 * math.cos(0.5 * (a + ALPHA0)) * sinc
    return spring + grav


def exact_reference() -> dict:
    """Exact latch of the lattice (module docstring).

    Returns
    -------
    dict
        ``t_latch`` (s); ``alpha_latch``, ``phi_latch`` (rad); ``alphad_latch`` (rad/s) just
        before the latch; ``kinetic_lost`` (J) = the whole kinetic energy at the latch;
        ``phi_centre_final`` = ``PHI_LATCH`` (held exactly by a plastic latch).
    """
    from scipy.integrate import quad

    umax = math.sqrt(ALPHA_LATCH - ALPHA0)

    def integrand(u):
        a = ALPHA0 + u * u
        return 2.0 / math.sqrt(2.0 * _work_over_u2(u) / effective_mass(a))

    t_l, _err = quad(integrand, 0.0, umax, epsabs=0.0, epsrel=1e-13, limit=200)
    W = _work_over_u2(umax) * umax * umax
    ad = math.sqrt(2.0 * W / effective_mass(ALPHA_LATCH))
    return {"t_latch": t_l, "alpha_latch": ALPHA_LATCH, "phi_latch": PHI_LATCH,
            "alphad_latch": ad, "kinetic_lost": W, "phi_centre_final": PHI_LATCH}


def penalty_equilibrium(k_latch: float = K_LATCH) -> dict:
    """Static rest of the lattice held by 8 penalty latch springs of stiffness ``k_latch``.

    Solves ``Q(alpha) = 32 k_latch (alpha - alpha_L)`` (Newton); returns ``alpha``, the
    centre angle ``phi = pi - 2 alpha`` and its offset ``phi - PHI_LATCH`` (negative).
    """
    a = ALPHA_LATCH
    for _ in range(50):
        f = generalized_torque(a) - 4 * CELLS * k_latch * (a - ALPHA_LATCH)
        df = (-SPRING_FACTOR * K_HINGE + MASS * G * LENGTH * CELLS**2 * math.sin(a)
              - 4 * CELLS * k_latch)
        step = f / df
        a -= step
        if abs(step) < 1e-16:
            break
    phi = math.pi - 2.0 * a
    return {"alpha": a, "phi": phi, "phi_offset": phi - PHI_LATCH}


def critical_latch_damping(k_latch: float = K_LATCH) -> float:
    """Damping per latch making the locked lattice critically damped [N m s/rad].

    The locked mode in ``alpha`` has stiffness ``32 k`` and damping ``32 d``; critical:
    ``32 d = 2 sqrt(32 k M_eff(alpha_L))``.
    """
    return 2.0 * math.sqrt(4 * CELLS * k_latch * effective_mass(ALPHA_LATCH)) / (4 * CELLS)


# ------------------------------------------------------------------------------------------
# Exudyn model
# ------------------------------------------------------------------------------------------


def run(h: float = 1e-4, t_end: float = T_END, *, k_latch: float = K_LATCH,
        d_latch: float | None = None, solver: str = "auto", n_points: int = 101,
        spectral_radius: float = 0.8, with_latches: bool = True,
        with_springs: bool = True) -> dict:
    """Build and simulate the latching lattice in Exudyn.

    Parameters
    ----------
    h : float
        Fixed step (s).
    t_end : float
        Simulated time (s).
    k_latch, d_latch : float
        Latch penalty stiffness (N m/rad) and damping (N m s/rad; default critical, see
        :func:`critical_latch_damping`).
    solver : {"auto", "EXUdense", "EigenSparse"}
        Linear solver ("auto": EigenSparse, the lattice has 48 coordinates).
    n_points : int
        Output times ``linspace(0, t_end, n_points)`` for ``t``, ``phi_centre``,
        ``alpha`` (sampled at the last step end at or before each).
    spectral_radius : float
        Generalized-alpha spectral radius at infinity.
    with_latches, with_springs : bool
        Leave out the latches (and the post-step function) or the 16 hinge springs (for
        timing the parts; without springs the lattice collapses under gravity).

    Returns
    -------
    dict
        ``build_s``, ``integrate_s``, ``total_s`` (s of wall time; ``integrate_s`` includes
        the Python post-step latch function); ``latch_times`` (8,) interpolated crossing of
        each centre pivot (nan if it never latched); ``latched_angles`` (8,) centre angles
        ``phi = theta_{2c+1} - theta_{2c}`` at ``t_end``; ``exact`` (:func:`exact_reference`),
        ``penalty`` (:func:`penalty_equilibrium`); ``latch_time_error``
        (max |t_latch - exact|), ``latched_angle_error`` (max |phi - PHI_LATCH| at
        ``t_end``), ``latched_angle_error_vs_penalty`` (against the penalty equilibrium);
        ``kinetic_end`` (J); ``residual`` (max joint/support residual at ``t_end``);
        ``t``, ``phi_centre`` (n_points, 8), ``alpha`` (n_points,) = ``theta_0``;
        ``settings``.
    """
    import exudyn as exu
    from exudyn import itemInterface as ii

    if d_latch is None:
        d_latch = critical_latch_damping(k_latch)
    spec = lattice()
    bars = spec["bars"]
    nb = len(bars)
    if solver == "auto":
        solver = "EXUdense" if 3 * nb <= DENSE_UP_TO else "EigenSparse"
    n_steps = int(round(t_end / h))
    t0 = time.perf_counter()

    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.AddObject(ii.ObjectGround(referencePosition=[0.0, 0.0, 0.0]))
    ref = np.array([c for b in bars for c in b[:3]], dtype=float)
    nodes, bodies = [], []
    for x, y, th, length, mass in bars:
        nd = mbs.AddNode(ii.NodeRigidBody2D(referenceCoordinates=[x, y, th],
                                            initialVelocities=[0.0, 0.0, 0.0]))
        bd = mbs.AddObject(ii.ObjectRigidBody2D(nodeNumber=nd, mass=mass,
                                                inertia=mass * length**2 / 12.0))
        nodes.append(nd)
        bodies.append(bd)
        mm = mbs.AddMarker(ii.MarkerBodyMass(bodyNumber=bd))
        mbs.AddLoad(ii.LoadMassProportional(markerNumber=mm, loadVector=[0.0, -G, 0.0]))

    def pos(i, s):
        return mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=bodies[i],
                                                   localPosition=[s * bars[i][3], 0.0, 0.0]))

    for a, sa, b, sb in spec["joints"]:
        mbs.AddObject(ii.ObjectJointRevolute2D(markerNumbers=[pos(a, sa), pos(b, sb)]))
    bar, s, x0, y0 = spec["pin"]
    mg = mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=ground, localPosition=[x0, y0, 0.0]))
    mbs.AddObject(ii.ObjectJointRevolute2D(markerNumbers=[mg, pos(bar, s)]))
    bar, s, x0, y0 = spec["roller"]
    mb = mbs.AddMarker(ii.MarkerBodyRigid(bodyNumber=bodies[bar],
                                          localPosition=[s * bars[bar][3], 0.0, 0.0]))
    mgr = mbs.AddMarker(ii.MarkerBodyRigid(bodyNumber=ground, localPosition=[x0, y0, 0.0]))
    mbs.AddObject(ii.ObjectJointPrismatic2D(markerNumbers=[mb, mgr], axisMarker0=[1.0, 0, 0],
                                            normalMarker1=[0.0, 1.0, 0.0],
                                            constrainRotation=False))

    rigid = {}

    def rigid_marker(i):
        if i not in rigid:
            body = ground if i is None else bodies[i]
            rigid[i] = mbs.AddMarker(ii.MarkerBodyRigid(bodyNumber=body,
                                                        localPosition=[0.0] * 3))
        return rigid[i]

    for a, b, phi0 in spec["springs"] if with_springs else ():
        mbs.AddObject(ii.ObjectConnectorTorsionalSpringDamper(
            markerNumbers=[rigid_marker(a), rigid_marker(b)], stiffness=K_HINGE,
            damping=0.0, offset=phi0))
    latch_objects = [
        mbs.AddObject(ii.ObjectConnectorTorsionalSpringDamper(
            markerNumbers=[rigid_marker(a), rigid_marker(b)], stiffness=float(k_latch),
            damping=float(d_latch), offset=PHI_LATCH, activeConnector=False))
        for a, b in (spec["latches"] if with_latches else ())]

    mbs.Assemble()
    sd = mbs.systemData
    ltg_theta = np.array([sd.GetNodeLTGODE2(nd)[2] for nd in nodes])
    th_ref = ref[2::3]
    pairs = np.array(spec["latches"])
    t_out = np.linspace(0.0, t_end, n_points)
    state = {"prev_t": 0.0, "prev_phi": th_ref[pairs[:, 1]] - th_ref[pairs[:, 0]],
             "k_out": 0}
    latch_times = np.full(len(pairs), math.nan)
    rec_phi = np.empty((n_points, len(pairs)))
    rec_alpha = np.empty(n_points)

    def post_step(mbs_, t):
        # called after every step (and once at t = 0) with the state at time t
        theta = np.asarray(mbs_.systemData.GetODE2Coordinates())[ltg_theta] + th_ref
        phi = theta[pairs[:, 1]] - theta[pairs[:, 0]]
        k = state["k_out"]
        while k < n_points and t_out[k] <= t + 1e-9 * h:
            rec_phi[k], rec_alpha[k] = phi, theta[0]
            k += 1
        state["k_out"] = k
        for j in np.nonzero(np.isnan(latch_times) & (phi <= PHI_LATCH))[0]:
            p0, t_prev = state["prev_phi"][j], state["prev_t"]
            latch_times[j] = t_prev + (t - t_prev) * (p0 - PHI_LATCH) / (p0 - phi[j])
            mbs_.SetObjectParameter(latch_objects[j], "activeConnector", True)
        state["prev_t"], state["prev_phi"] = t, phi
        return True

    if with_latches:
        mbs.SetPostStepUserFunction(post_step)

    ss = exu.SimulationSettings()
    ti = ss.timeIntegration
    ti.numberOfSteps = n_steps
    ti.endTime = float(t_end)
    ti.verboseMode = 0
    ti.generalizedAlpha.spectralRadius = float(spectral_radius)
    ti.generalizedAlpha.computeInitialAccelerations = True
    ti.newton.useModifiedNewton = False
    ss.linearSolver.solverType = getattr(exu.LinearSolverType, solver)
    ss.solution.file.write = False
    ss.solution.sensors.writePeriod = float(t_end)
    ss.show.statistics = False
    ss.show.computationTime = False
    t1 = time.perf_counter()
    ok = exu.SolveDynamic(mbs, ss, solverType=exu.DynamicSolverType.GeneralizedAlpha)
    if not ok:
        raise RuntimeError("Exudyn dynamic solver failed")
    q = np.asarray(sd.GetODE2Coordinates()) + _ref_in_ltg(sd, nodes, ref)
    qd = np.asarray(sd.GetODE2Coordinates_t())
    t2 = time.perf_counter()

    qb = np.empty(3 * nb)
    vb = np.empty(3 * nb)
    for i, nd in enumerate(nodes):
        ix = list(sd.GetNodeLTGODE2(nd))
        qb[3 * i: 3 * i + 3], vb[3 * i: 3 * i + 3] = q[ix], qd[ix]
    theta = qb[2::3]
    phi_end = theta[pairs[:, 1]] - theta[pairs[:, 0]]
    m = np.array([b[4] for b in bars])
    inertia = np.array([b[4] * b[3] ** 2 / 12.0 for b in bars])
    kinetic = 0.5 * float(np.sum(m * (vb[0::3] ** 2 + vb[1::3] ** 2) + inertia * vb[2::3] ** 2))
    exact = exact_reference()
    pen = penalty_equilibrium(k_latch)
    return {
        "build_s": t1 - t0,
        "integrate_s": t2 - t1,
        "total_s": t2 - t0,
        "latch_times": latch_times,
        "latched_angles": phi_end,
        "exact": exact,
        "penalty": pen,
        "latch_time_error": float(np.max(np.abs(latch_times - exact["t_latch"]))),
        "latched_angle_error": float(np.max(np.abs(phi_end - PHI_LATCH))),
        "latched_angle_error_vs_penalty": float(np.max(np.abs(phi_end - pen["phi"]))),
        "kinetic_end": kinetic,
        "residual": _residual(spec, qb),
        "t": t_out,
        "phi_centre": rec_phi,
        "alpha": rec_alpha,
        "settings": {"h": h, "t_end": t_end, "n_steps": n_steps, "k_latch": k_latch,
                     "d_latch": d_latch, "k_hinge": K_HINGE, "phi_latch": PHI_LATCH,
                     "spectral_radius": spectral_radius, "linear_solver": solver,
                     "newton": "full, Exudyn default tolerances"},
    }


def _ref_in_ltg(sd, nodes, ref):
    """Reference coordinates placed at the nodes' global ODE2 indices."""
    out = np.zeros(sd.ODE2Size())
    for i, nd in enumerate(nodes):
        out[list(sd.GetNodeLTGODE2(nd))] = ref[3 * i: 3 * i + 3]
    return out


def _residual(spec, q) -> float:
    def point(i, s):
        L = spec["bars"][i][3]
        x, y, th = q[3 * i: 3 * i + 3]
        return np.array([x + s * L * math.cos(th), y + s * L * math.sin(th)])

    res = [np.abs(point(b, sb) - point(a, sa)).max() for a, sa, b, sb in spec["joints"]]
    bar, s, x0, y0 = spec["pin"]
    res.append(np.abs(point(bar, s) - (x0, y0)).max())
    bar, s, _x0, y0 = spec["roller"]
    res.append(abs(point(bar, s)[1] - y0))
    return float(max(res))


if __name__ == "__main__":
    import json
    import sys

    hs = [float(a) for a in sys.argv[1:]] or [1e-3, 1e-4]
    for step in hs:
        r = run(step, T_END)
        show = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in r.items()
                if k not in ("t", "phi_centre", "alpha")}
        print(json.dumps(show, indent=1))
