"""Independent references for the IFToMM multibody benchmark problems A01, A02 and A03.

This module uses numpy and scipy only (it never imports Quivira). It gives, for each problem,
the problem data, the data needed to build the mechanism in maximal coordinates (mass-centre
``x, y`` and angle ``theta`` of every body) and a reference solution computed here in an
independent (minimal-coordinate) way.

Conventions (the same as Quivira's)
-----------------------------------
* SI units; gravity along ``-y``; angles in radians, counter-clockwise positive.
* A body has mass ``m``, centroidal moment of inertia ``I``, mass centre ``r = (x, y)`` and
  frame angle ``theta``. A point with body-frame coordinates ``p`` (relative to the mass
  centre) is at ``r + R(theta) p`` with ``R(theta) = [[cos, -sin], [sin, cos]]``.
* :class:`Body` lists, for each body, the body-frame coordinates of its named points (joints,
  spring attachment, ...), always relative to the mass centre. :class:`Pin` ties the point of
  that name on ``body_a`` to the point of the same name on ``body_b`` (``None``: the ground,
  whose point coordinates are in the ``ground`` dictionary of the model).
* Maximal-coordinate vectors are ``q = [x_0, y_0, theta_0, x_1, y_1, theta_1, ...]`` in the
  order of the ``bodies`` list, and ``qd`` their time derivatives.

Sources of the problem data
---------------------------
IFToMM Technical Committee for Multibody Dynamics, library of computational benchmark problems
(iftomm-multibody.org/benchmark; originally the MBS benchmark of the Laboratorio de Ingeniería
Mecánica, Universidade da Coruña: lim.ii.udc.es/mbsbenchmark, files
``dist/A0x/A0x_specification.xml`` by M. González, 2005), described in M. González,
D. Dopico, U. Lugrís, J. Cuadrado, "A benchmarking system for MBS simulation software: problem
standardization and performance measurement", Multibody System Dynamics 16 (2006) 179-190.

A01 simple pendulum (specification A01)
    A lumped mass of 1 kg on a massless link of 1 m pinned to the ground at the origin;
    g = 9.81 along -y; released from rest with the link horizontal, point P1 at x = +1 m,
    y = 0 (``theta0 = pi/2`` from the downward vertical); 2000 s; the reference is P1's
    ``x, y`` history, errors of 1e-1 (low) / 1e-3 (high precision) with 4000 output steps.
A02 N-four-bar mechanism (specification A02)
    N four-bar loops in a row, 2N + 1 uniform links of 1 m and 1 kg (N = 40: 81 links);
    g = 9.81 along -y; ground pins A_i = (i, 0), i = 0..N; in the initial pose all N + 1
    cranks ``A_i B_i`` are vertical (``B_i = (i, 1)``) and the N couplers ``B_i B_(i+1)`` are
    horizontal at y = 1; the initial velocity of B0 is ``xdot = +1 m/s`` (cranks turning
    clockwise at 1 rad/s); 20 s; the reference is the position and velocity of B0, errors
    of 1e-1 / 1e-3 with 400 output steps. When the mechanism is flat (all links on y = 0)
    the number of degrees of freedom jumps from 1 to N + 1. The same geometry (ground pins at
    ``(i L, 0)``, vertical cranks, horizontal couplers at ``y = L``, crank angular velocity
    ``-v0/L``) is used by Exudyn's port ``TestModels/fourBarMechanismIftomm.py``
    (jgerstmayr/EXUDYN, N = 2, 5 bars and 7 revolute joints, body order crank, coupler,
    crank, ...) and by the OpenSim implementation of the benchmark (RehabEngGroup,
    MBSbenchmarksInOpenSim).
A03 Andrews' squeezing mechanism (specification A03)
    Planar, 7 rigid bodies, 10 revolute pins (1 degree of freedom), a linear spring
    (c0 = 4530 N/m, rest length l0 = 0.07785 m) between point D of the triangle BDE and the
    ground point C, and a constant driving torque mom = 0.033 N m on the crank OF; no
    gravity. The data below are those of E. Hairer, G. Wanner, "Solving Ordinary Differential
    Equations II", Sect. VII.7 (p. 533 ff.; from W. Schiehlen, "Multibody Systems Handbook",
    Springer 1990), as coded in the Test Set for IVP Solvers (problem "andrews", F. Mazzia,
    C. Magherini, Univ. of Bari, release 2.4; formerly the CWI test set of W. Lioen and
    J. de Swart). The ground point B is ``(xb, yb) = (-0.03635, 0.03273)`` (the constraints
    vanish at the published initial state only with this sign; the OpenSim tables print
    ``+0.03635``).

Accuracy of the references (measured, see tests/integration/test_iftomm_oracles.py)
----------------------------------------------------------------------
* A01: closed form (Jacobi elliptic functions), round-off accurate (~1e-14).
* A02: the 1-DOF reduction (all cranks parallel) is a revolving pendulum. Its closed form
  :func:`a02_phi_closed_form` (Jacobi elliptic functions) agrees with a 40-digit mpmath
  evaluation to ~5e-14 over 20 s; the ``solve_ivp`` DOP853 integration at rtol = atol = 1e-13
  :func:`a02_reference` agrees with it to ~2e-10 rad and conserves the energy to ~1e-12
  (relative). Exudyn's published values for N = 2 at t = 10 s converge to it as ``h**2``.
* A03: ``solve_ivp`` DOP853 at rtol = atol = 1e-13 of the index-1 equations in the 7 angles
  :func:`a03_reference`; converged to ~3e-13 rad in the angles (DOP853 at 1e-14, Radau at
  1e-12 agree). It reproduces the published reference values at t = 0.03 (PSIDE at
  rtol = atol = 1e-14) to 1.4e-9 rad in the angles (9e-11 relative to the largest), 5.4e-7
  rad/s in the velocities (4e-10 relative to the largest), 6e-2 rad/s^2 in the accelerations
  and 1.5e-5 in the multipliers (1e-7 relative to the largest): the published values are the
  less accurate of the two. See :data:`A03_BARI_REFERENCE_T003`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp
from scipy.special import ellipj, ellipk, ellipkinc

__all__ = [
    "G",
    "Body",
    "Pin",
    "Spring",
    "PlanarModel",
    # A01
    "A01_LENGTH",
    "A01_MASS",
    "A01_THETA0",
    "A01_T_END",
    "A01_N_STEPS",
    "pendulum_omega0",
    "pendulum_period",
    "pendulum_motion",
    "a01_tip",
    "a01_model",
    "a01_maximal_state",
    # A02
    "A02_N",
    "A02_LENGTH",
    "A02_MASS",
    "A02_V0",
    "A02_T_END",
    "A02_N_STEPS",
    "a02_model",
    "a02_equivalent_inertia",
    "a02_potential",
    "a02_energy",
    "a02_reference",
    "a02_phi_closed_form",
    "a02_b0",
    "a02_maximal_state",
    "a02_singular_times",
    # A03
    "A03_PARAMS",
    "A03_Q0",
    "A03_QDD0",
    "A03_LAMBDA0",
    "A03_T_END",
    "A03_BARI_REFERENCE_T003",
    "A03_ANGLE_NAMES",
    "A03_BODY_ANGLES",
    "a03_model",
    "a03_constraints",
    "a03_dynamics",
    "a03_energy",
    "a03_reference",
    "a03_maximal_state",
    "a03_angles_from_maximal",
]

G = 9.81
"""Gravitational acceleration of the IFToMM problems A01 and A02 [m/s^2], along -y."""


# ---------------------------------------------------------------------------------------------
# Model description shared by the three problems
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Body:
    """A planar rigid body.

    Attributes
    ----------
    name : str
        Name of the body.
    mass : float
        Mass ``m`` [kg].
    inertia : float
        Moment of inertia about the mass centre ``I`` [kg m^2].
    points : dict of str to (float, float)
        Body-frame coordinates ``p`` of named points relative to the mass centre [m]; the
        point is at ``r + R(theta) p``.
    """

    name: str
    mass: float
    inertia: float
    points: dict[str, tuple[float, float]] = field(default_factory=dict)


@dataclass(frozen=True)
class Pin:
    """A revolute joint: the point ``point`` of ``body_a`` coincides with that of ``body_b``.

    ``body_b = None`` means the ground, whose point is ``PlanarModel.ground[point]``. The two
    constraint rows are ``r_a + R(theta_a) p_a - r_b - R(theta_b) p_b = 0``.
    """

    point: str
    body_a: int
    body_b: int | None


@dataclass(frozen=True)
class Spring:
    """A linear spring between the point ``point_a`` of ``body_a`` and a ground point.

    Potential ``V = k (l - l0)^2 / 2`` with ``l`` the distance between the two points.
    """

    body_a: int
    point_a: str
    ground_point: str
    stiffness: float
    rest_length: float


@dataclass(frozen=True)
class PlanarModel:
    """A mechanism in maximal coordinates.

    Attributes
    ----------
    bodies : list of Body
    pins : list of Pin
        An independent (non-redundant) set of revolute joints.
    ground : dict of str to (float, float)
        Global coordinates of the ground points.
    gravity : float
        ``g`` [m/s^2] along -y (0 for no gravity).
    springs : list of Spring
    torques : list of (int, float)
        Constant torques ``(body, tau)`` [N m] acting on bodies (reaction on the ground).
    """

    bodies: list[Body]
    pins: list[Pin]
    ground: dict[str, tuple[float, float]]
    gravity: float
    springs: list[Spring] = field(default_factory=list)
    torques: list[tuple[int, float]] = field(default_factory=list)


def _rot(theta: float) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


# ---------------------------------------------------------------------------------------------
# A01: simple pendulum
# ---------------------------------------------------------------------------------------------

A01_LENGTH = 1.0
"""Length of the massless link [m] (IFToMM A01)."""
A01_MASS = 1.0
"""Lumped mass [kg] (IFToMM A01)."""
A01_THETA0 = np.pi / 2
"""Initial angle from the downward vertical: link horizontal, P1 at x = +1 m (IFToMM A01)."""
A01_T_END = 2000.0
"""Duration of the IFToMM A01 simulation [s]."""
A01_N_STEPS = 4000
"""Number of output steps of the IFToMM A01 error measure."""


def pendulum_omega0(length: float = A01_LENGTH, g: float = G, kind: str = "point") -> float:
    """Small-amplitude angular frequency of a pendulum pinned at one end.

    ``omega0**2 = m g d / I_O`` with ``d`` the distance pivot - mass centre and ``I_O`` the
    inertia about the pivot: ``g / L`` for a point mass at distance ``L`` on a massless link
    (``kind="point"``), ``3 g / (2 L)`` for a uniform rod of length ``L`` (``kind="rod"``).

    Parameters
    ----------
    length : float
        ``L`` [m].
    g : float
        Gravitational acceleration [m/s^2].
    kind : {"point", "rod"}

    Returns
    -------
    float
        ``omega0`` [rad/s].
    """
    if kind == "point":
        return float(np.sqrt(g / length))
    if kind == "rod":
        return float(np.sqrt(1.5 * g / length))
    raise ValueError(f"kind must be 'point' or 'rod', got {kind!r}")


def pendulum_period(
    theta0: float = A01_THETA0, length: float = A01_LENGTH, g: float = G, kind: str = "point"
) -> float:
    """Exact period of a pendulum released from rest at ``theta0``.

    ``T = 4 K(m) / omega0`` with ``m = k**2 = sin(theta0/2)**2`` and ``K`` the complete
    elliptic integral of the first kind, ``K(m) = int_0^(pi/2) dpsi / sqrt(1 - m sin^2 psi)``
    (``scipy.special.ellipk`` takes the parameter ``m``).

    Parameters
    ----------
    theta0 : float
        Release angle from the downward vertical, ``0 < |theta0| < pi``.
    length, g, kind
        See :func:`pendulum_omega0`.

    Returns
    -------
    float
        Period [s]; for the IFToMM A01 data (``theta0 = pi/2``, L = 1, g = 9.81)
        ``T = 4 K(1/2) / sqrt(9.81) = 2.3678...`` s.
    """
    if not 0.0 < abs(theta0) < np.pi:
        raise ValueError("theta0 must satisfy 0 < |theta0| < pi")
    m = np.sin(theta0 / 2.0) ** 2
    return float(4.0 * ellipk(m) / pendulum_omega0(length, g, kind))


def pendulum_motion(
    t: float | np.ndarray,
    theta0: float = A01_THETA0,
    length: float = A01_LENGTH,
    g: float = G,
    kind: str = "point",
) -> tuple[np.ndarray, np.ndarray]:
    """Angle and angular velocity of a pendulum released from rest at ``theta0`` at ``t = 0``.

    The equation of motion ``theta'' = -omega0**2 sin(theta)`` (``theta`` from the downward
    vertical) has the solution

    ``sin(theta/2) = k sn(u | m)``,  ``theta' = -2 k omega0 cn(u | m)``,

    with ``k = sin(theta0/2)``, ``m = k**2``, ``u = K(m) - omega0 t`` and ``sn, cn`` the Jacobi
    elliptic functions (``scipy.special.ellipj``; ``u`` is first reduced modulo ``4 K``, the
    period of ``sn`` and ``cn``, so long times keep full accuracy).

    Parameters
    ----------
    t : float or array
        Times [s].
    theta0, length, g, kind
        See :func:`pendulum_period`.

    Returns
    -------
    theta, theta_dot : ndarray
        [rad], [rad/s], same shape as ``t``.
    """
    if not 0.0 < abs(theta0) < np.pi:
        raise ValueError("theta0 must satisfy 0 < |theta0| < pi")
    t = np.asarray(t, dtype=float)
    w0 = pendulum_omega0(length, g, kind)
    k = np.sin(theta0 / 2.0)
    m = k * k
    big_k = ellipk(m)
    u = np.mod(big_k - w0 * t, 4.0 * big_k)
    sn, cn, _, _ = ellipj(u, m)
    theta = 2.0 * np.arcsin(k * sn)
    theta_dot = -2.0 * k * w0 * cn
    return theta, theta_dot


def a01_tip(
    t: float | np.ndarray,
    theta0: float = A01_THETA0,
    length: float = A01_LENGTH,
    g: float = G,
    kind: str = "point",
) -> np.ndarray:
    """Position and velocity of the tip P1 (free end of the link), pivot at the origin.

    ``P1 = L (sin theta, -cos theta)``, ``P1' = L theta' (cos theta, sin theta)``.

    Returns
    -------
    ndarray, shape ``t.shape + (4,)``
        ``x, y, xdot, ydot`` of P1 [m], [m/s].
    """
    theta, thd = pendulum_motion(t, theta0, length, g, kind)
    s, c = np.sin(theta), np.cos(theta)
    return np.stack([length * s, -length * c, length * thd * c, length * thd * s], axis=-1)


def a01_model(
    length: float = A01_LENGTH, mass: float = A01_MASS, g: float = G, kind: str = "point"
) -> PlanarModel:
    """The pendulum as one body pinned to the ground point ``"O" = (0, 0)``.

    ``kind="point"``: the body is the lumped mass (``I = 0``, mass centre at the tip P1) and
    the pin point ``"O"`` is at body-frame ``(-L, 0)``; ``kind="rod"``: a uniform rod,
    ``I = m L**2 / 12``, ``"O"`` at ``(-L/2, 0)`` and the tip ``"P1"`` at ``(L/2, 0)``. The
    body frame's x axis points from the pivot to the tip: ``theta_body = theta - pi/2``.
    """
    if kind == "point":
        body = Body("P1", mass, 0.0, {"O": (-length, 0.0), "P1": (0.0, 0.0)})
    elif kind == "rod":
        body = Body(
            "rod", mass, mass * length**2 / 12.0, {"O": (-length / 2, 0.0), "P1": (length / 2, 0.0)}
        )
    else:
        raise ValueError(f"kind must be 'point' or 'rod', got {kind!r}")
    return PlanarModel([body], [Pin("O", 0, None)], {"O": (0.0, 0.0)}, g)


def a01_maximal_state(
    t: float,
    theta0: float = A01_THETA0,
    length: float = A01_LENGTH,
    g: float = G,
    kind: str = "point",
) -> tuple[np.ndarray, np.ndarray]:
    """Maximal-coordinate state ``q = [x, y, theta_body]`` and ``qd`` of :func:`a01_model`.

    The mass centre is at distance ``d = L`` (point) or ``L/2`` (rod) from the pivot:
    ``r = d (sin theta, -cos theta)``, ``theta_body = theta - pi/2``.
    """
    theta, thd = pendulum_motion(float(t), theta0, length, g, kind)
    d = length if kind == "point" else length / 2.0
    s, c = np.sin(theta), np.cos(theta)
    q = np.array([d * s, -d * c, theta - np.pi / 2])
    qd = np.array([d * thd * c, d * thd * s, thd])
    return q, qd


# ---------------------------------------------------------------------------------------------
# A02: N-four-bar mechanism
# ---------------------------------------------------------------------------------------------

A02_N = 40
"""Number of four-bar loops of the IFToMM problem (2N + 1 = 81 links)."""
A02_LENGTH = 1.0
"""Length of every link [m]."""
A02_MASS = 1.0
"""Mass of every (uniform) link [kg]; centroidal inertia ``m L**2 / 12``."""
A02_V0 = 1.0
"""Initial ``xdot`` of point B0 [m/s]."""
A02_T_END = 20.0
"""Duration [s]."""
A02_N_STEPS = 400
"""Number of output steps of the IFToMM A02 error measure."""


def a02_model(
    n: int = A02_N, length: float = A02_LENGTH, mass: float = A02_MASS, g: float = G
) -> PlanarModel:
    """Bodies, pins and ground points of the N-four-bar mechanism.

    Bodies, in the order of Exudyn's port: ``2 i`` = crank ``i`` (``i = 0..N``) from the ground
    point ``A_i = (i L, 0)`` (body-frame ``(-L/2, 0)``) to ``B_i`` (``(L/2, 0)``); ``2 i + 1``
    = coupler ``i`` (``i = 0..N-1``) from ``B_i`` (``(-L/2, 0)``) to ``B_(i+1)`` (``(L/2, 0)``).
    Every body is a uniform bar: mass ``m``, ``I = m L**2 / 12``.

    Pins (3 N + 1, non-redundant, 6 N + 2 rows for 6 N + 3 coordinates): crank ``i`` - ground
    at ``A_i``; crank ``i`` - coupler ``i`` at ``B_i``; coupler ``i`` - crank ``i + 1`` at
    ``B_(i+1)``. Point names are ``"A{i}"`` and ``"B{i}"``.
    """
    if n < 1:
        raise ValueError("n must be >= 1")
    inertia = mass * length**2 / 12.0
    h = length / 2.0
    bodies: list[Body] = []
    for i in range(n + 1):
        bodies.append(Body(f"crank{i}", mass, inertia, {f"A{i}": (-h, 0.0), f"B{i}": (h, 0.0)}))
        if i < n:
            bodies.append(
                Body(f"coupler{i}", mass, inertia, {f"B{i}": (-h, 0.0), f"B{i + 1}": (h, 0.0)})
            )
    pins = [Pin(f"A{i}", 2 * i, None) for i in range(n + 1)]
    for i in range(n):
        pins.append(Pin(f"B{i}", 2 * i, 2 * i + 1))
        pins.append(Pin(f"B{i + 1}", 2 * i + 1, 2 * i + 2))
    ground = {f"A{i}": (i * length, 0.0) for i in range(n + 1)}
    return PlanarModel(bodies, pins, ground, g)


def a02_equivalent_inertia(
    n: int = A02_N, length: float = A02_LENGTH, mass: float = A02_MASS
) -> float:
    """Equivalent inertia of the parallelogram motion about the crank angle ``phi``.

    All cranks stay parallel at angle ``phi`` and the couplers translate, so
    ``T = I_eq phi'**2 / 2`` with
    ``I_eq = (N + 1) m L**2 / 3 + N m L**2`` (cranks rotate about their end, the couplers'
    centres move on circles of radius ``L``).
    """
    return mass * length**2 * ((n + 1) / 3.0 + n)


def a02_potential(
    phi: float | np.ndarray,
    n: int = A02_N,
    length: float = A02_LENGTH,
    mass: float = A02_MASS,
    g: float = G,
) -> np.ndarray:
    """Gravitational potential ``V(phi) = m g L ((N + 1)/2 + N) sin(phi)`` (zero on y = 0)."""
    return mass * g * length * ((n + 1) / 2.0 + n) * np.sin(phi)


def a02_energy(
    phi: float | np.ndarray,
    phi_dot: float | np.ndarray,
    n: int = A02_N,
    length: float = A02_LENGTH,
    mass: float = A02_MASS,
    g: float = G,
) -> np.ndarray:
    """Conserved energy ``E = I_eq phi'**2 / 2 + V(phi)`` [J] (sum over all 2N + 1 links)."""
    return 0.5 * a02_equivalent_inertia(n, length, mass) * np.asarray(phi_dot) ** 2 + (
        a02_potential(phi, n, length, mass, g)
    )


def _a02_c(n: int, length: float, mass: float, g: float) -> float:
    # phi'' = -c cos(phi),  c = m g L ((N+1)/2 + N) / I_eq = 3 g (3N + 1) / (2 L (4N + 1))
    return mass * g * length * ((n + 1) / 2.0 + n) / a02_equivalent_inertia(n, length, mass)


@functools.lru_cache(maxsize=16)
def _a02_solution(n, length, mass, g, v0, t_end, rtol, atol):
    c = _a02_c(n, length, mass, g)

    def rhs(_t, y):
        return [y[1], -c * np.cos(y[0])]

    def horizontal(_t, y):
        return np.sin(y[0])

    sol = solve_ivp(
        rhs,
        (0.0, t_end),
        [np.pi / 2, -v0 / length],
        method="DOP853",
        rtol=rtol,
        atol=atol,
        dense_output=True,
        events=horizontal,
    )
    if sol.status != 0:
        raise RuntimeError(f"A02 reference integration failed: {sol.message}")
    return sol


def a02_reference(
    t: float | np.ndarray,
    n: int = A02_N,
    length: float = A02_LENGTH,
    mass: float = A02_MASS,
    g: float = G,
    v0: float = A02_V0,
    rtol: float = 1e-13,
    atol: float = 1e-13,
) -> tuple[np.ndarray, np.ndarray]:
    """Crank angle ``phi(t)`` and ``phi'(t)`` of the parallelogram motion (numerical reference).

    Energy method: with ``T = I_eq phi'**2 / 2`` and ``V(phi)`` of :func:`a02_potential`,
    Lagrange's equation ``I_eq phi'' + dV/dphi = 0`` gives

    ``phi'' = -c cos(phi)``,  ``c = m g L ((N + 1)/2 + N) / I_eq = 3 g (3N + 1) / (2 L (4N + 1))``

    with ``phi(0) = pi/2`` (cranks vertical) and ``phi'(0) = -v0 / L`` (B0 moves along +x).
    Integrated from 0 to ``max(t)`` with ``solve_ivp`` (DOP853, ``rtol = atol = 1e-13``) and
    evaluated with its dense output (the solution is cached per parameter set and end time).

    Since the motion starts at the top with ``phi' != 0``, the cranks revolve (``phi``
    decreases monotonically).

    Returns
    -------
    phi, phi_dot : ndarray
        Same shape as ``t`` [rad], [rad/s].
    """
    t = np.asarray(t, dtype=float)
    t_end = float(max(np.max(t), 1e-12)) if t.size else 1e-12
    sol = _a02_solution(
        int(n), float(length), float(mass), float(g), float(v0), t_end, float(rtol), float(atol)
    )
    y = sol.sol(t)
    return y[0], y[1]


def a02_phi_closed_form(
    t: float | np.ndarray,
    n: int = A02_N,
    length: float = A02_LENGTH,
    mass: float = A02_MASS,
    g: float = G,
    v0: float = A02_V0,
) -> tuple[np.ndarray, np.ndarray]:
    """Closed-form ``phi(t)``, ``phi'(t)`` (revolving pendulum, Jacobi elliptic functions).

    With ``theta = phi + pi/2`` the equation ``phi'' = -c cos(phi)`` becomes the pendulum
    ``theta'' = -c sin(theta)``, started at the top (``theta = pi``) with speed
    ``|phi'(0)| = v0/L``. Its energy per unit inertia, ``h = theta'**2/2 + c (1 - cos theta)
    = v0**2 / (2 L**2) + 2 c``, exceeds ``2 c``: the motion revolves. With ``psi = theta/2``,
    ``psi'**2 = (h/2) (1 - m sin^2 psi)``, ``m = 2 c / h < 1``, so

    ``psi = am(u | m)``,  ``u = K(m) - w t``,  ``w = sqrt(h/2)``,
    ``phi = 2 psi - pi/2``,  ``phi' = -2 w dn(u | m)``

    (``am`` is continued as ``am(u + 2K) = am(u) + pi``). This is an independent check of
    :func:`a02_reference`; ``v0 > 0`` is assumed.
    """
    t = np.asarray(t, dtype=float)
    c = _a02_c(n, length, mass, g)
    h = 0.5 * (v0 / length) ** 2 + 2.0 * c
    m = 2.0 * c / h
    w = np.sqrt(h / 2.0)
    big_k = ellipk(m)
    u = big_k - w * t
    j = np.floor((u + big_k) / (2.0 * big_k))
    u_r = u - 2.0 * big_k * j
    _, _, dn, ph = ellipj(u_r, m)
    psi = ph + j * np.pi
    return 2.0 * psi - np.pi / 2, -2.0 * w * dn


def a02_b0(
    t: float | np.ndarray,
    n: int = A02_N,
    length: float = A02_LENGTH,
    mass: float = A02_MASS,
    g: float = G,
    v0: float = A02_V0,
    method: str = "elliptic",
) -> np.ndarray:
    """Position and velocity of point B0 (top of crank 0).

    ``B0 = L (cos phi, sin phi)``, ``B0' = L phi' (-sin phi, cos phi)``; at ``t = 0``:
    ``(0, L, v0, 0)``. ``phi`` from :func:`a02_phi_closed_form` (``method="elliptic"``, error
    ~1e-14 over 20 s) or from the DOP853 integration :func:`a02_reference` (``method="ode"``,
    error up to ~2e-10 rad at 20 s).

    Returns
    -------
    ndarray, shape ``t.shape + (4,)``
        ``x, y, xdot, ydot`` of B0 [m], [m/s].
    """
    if method == "elliptic":
        phi, phd = a02_phi_closed_form(t, n, length, mass, g, v0)
    elif method == "ode":
        phi, phd = a02_reference(t, n, length, mass, g, v0)
    else:
        raise ValueError(f"method must be 'elliptic' or 'ode', got {method!r}")
    c, s = np.cos(phi), np.sin(phi)
    return np.stack([length * c, length * s, -length * phd * s, length * phd * c], axis=-1)


def a02_maximal_state(
    phi: float, phi_dot: float, n: int = A02_N, length: float = A02_LENGTH
) -> tuple[np.ndarray, np.ndarray]:
    """Maximal coordinates of every link of :func:`a02_model` from ``phi``, ``phi'``.

    Crank ``i`` (body ``2 i``): ``r = (i L + (L/2) cos phi, (L/2) sin phi)``,
    ``theta = phi``; coupler ``i`` (body ``2 i + 1``): ``r = ((i + 1/2) L + L cos phi,
    L sin phi)``, ``theta = 0``. Velocities are the time derivatives (``theta' = phi'`` for the
    cranks, 0 for the couplers).

    Returns
    -------
    q, qd : ndarray, shape ``(3 (2N + 1),)``
    """
    c, s = np.cos(phi), np.sin(phi)
    q = np.zeros(3 * (2 * n + 1))
    qd = np.zeros_like(q)
    for i in range(n + 1):
        b = 2 * i
        q[3 * b : 3 * b + 3] = [i * length + 0.5 * length * c, 0.5 * length * s, phi]
        qd[3 * b : 3 * b + 3] = [-0.5 * length * s * phi_dot, 0.5 * length * c * phi_dot, phi_dot]
        if i < n:
            b = 2 * i + 1
            q[3 * b : 3 * b + 3] = [(i + 0.5) * length + length * c, length * s, 0.0]
            qd[3 * b : 3 * b + 3] = [-length * s * phi_dot, length * c * phi_dot, 0.0]
    return q, qd


def a02_singular_times(
    t_end: float = A02_T_END,
    n: int = A02_N,
    length: float = A02_LENGTH,
    mass: float = A02_MASS,
    g: float = G,
    v0: float = A02_V0,
    method: str = "elliptic",
) -> np.ndarray:
    """Times in ``[0, t_end]`` at which the mechanism is flat (``sin(phi) = 0``).

    There all links lie on the line y = 0 and the rank of the constraint Jacobian drops by
    ``N`` (N + 1 degrees of freedom for that instant). Since ``phi`` decreases from ``pi/2``,
    the flat poses are ``phi = -j pi``, i.e. ``psi = pi/4 - j pi/2`` in the notation of
    :func:`a02_phi_closed_form`, reached at

    ``t_j = (K(m) - F(pi/4 - j pi/2 | m)) / w``,  ``j = 0, 1, ...``,

    with ``F`` the incomplete elliptic integral of the first kind (``scipy.special.ellipkinc``,
    continued by ``F(psi + pi) = F(psi) + 2 K``). ``method="ode"`` returns the events
    ``sin(phi) = 0`` located on the DOP853 reference instead. For the IFToMM data the first
    ones are 0.7216 s (N = 40), 0.7144 s (N = 2), 0.7085 s (N = 1).
    """
    if method == "ode":
        sol = _a02_solution(
            int(n), float(length), float(mass), float(g), float(v0), float(t_end), 1e-13, 1e-13
        )
        return np.asarray(sol.t_events[0], dtype=float)
    if method != "elliptic":
        raise ValueError(f"method must be 'elliptic' or 'ode', got {method!r}")
    c = _a02_c(n, length, mass, g)
    h = 0.5 * (v0 / length) ** 2 + 2.0 * c
    m = 2.0 * c / h
    w = np.sqrt(h / 2.0)
    big_k = ellipk(m)
    out = []
    j = 0
    while True:
        psi = np.pi / 4 - j * np.pi / 2
        k = np.round(psi / np.pi)
        tj = (big_k - ellipkinc(psi - k * np.pi, m) - 2.0 * k * big_k) / w
        if tj > t_end:
            return np.array(out)
        out.append(float(tj))
        j += 1


# ---------------------------------------------------------------------------------------------
# A03: Andrews' squeezing mechanism
# ---------------------------------------------------------------------------------------------

# fmt: off
A03_PARAMS: dict[str, float] = {
    # masses [kg] and centroidal inertias [kg m^2] of bodies 1..7
    "m1": 0.04325, "m2": 0.00365, "m3": 0.02373, "m4": 0.00706,
    "m5": 0.07050, "m6": 0.00706, "m7": 0.05498,
    "i1": 2.194e-6, "i2": 4.410e-7, "i3": 5.255e-6, "i4": 5.667e-7,
    "i5": 1.169e-5, "i6": 5.667e-7, "i7": 1.912e-5,
    # ground points A, B, C [m] (O is the origin)
    "xa": -0.06934, "ya": -0.00227, "xb": -0.03635, "yb": 0.03273, "xc": 0.014, "yc": 0.072,
    # lengths and mass-centre offsets [m]
    "d": 28e-3, "da": 115e-4, "e": 2e-2, "ea": 1421e-5, "rr": 7e-3, "ra": 92e-5,
    "ss": 35e-3, "sa": 1874e-5, "sb": 1043e-5, "sc": 18e-3, "sd": 2e-2,
    "ta": 2308e-5, "tb": 916e-5, "u": 4e-2, "ua": 1228e-5, "ub": 449e-5,
    "zf": 2e-2, "zt": 4e-2, "fa": 1421e-5,
    # spring stiffness [N/m] and rest length [m]; driving torque [N m]
    "c0": 4530.0, "l0": 7785e-5, "mom": 33e-3,
}
# fmt: on
"""Parameters of Andrews' squeezing mechanism (Hairer-Wanner / Bari test set names)."""

A03_ANGLE_NAMES = ("beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon")
"""The 7 coordinates of Hairer-Wanner, in this order."""

A03_BODY_ANGLES = np.array(
    [
        [1, 0, 0, 0, 0, 0, 0],  # body 1 (OF):  theta_1 = beta
        [1, 1, 0, 0, 0, 0, 0],  # body 2 (FE):  theta_2 = beta + Theta
        [0, 0, 1, 0, 0, 0, 0],  # body 3 (BDE): theta_3 = gamma
        [0, 0, 0, 1, 1, 0, 0],  # body 4 (GE):  theta_4 = Phi + delta
        [0, 0, 0, 0, 1, 0, 0],  # body 5 (AG):  theta_5 = delta
        [0, 0, 0, 0, 0, 1, 1],  # body 6 (HE):  theta_6 = Omega + epsilon
        [0, 0, 0, 0, 0, 0, 1],  # body 7 (AH):  theta_7 = epsilon
    ],
    dtype=float,
)
"""``theta_body = A03_BODY_ANGLES @ q``: absolute frame angles of the 7 bodies.

Row ``b`` (0-based, the order of :func:`a03_model`) is Hairer-Wanner's body ``b + 1``; the
docstrings below number the bodies 1..7 as Hairer-Wanner do."""

A03_Q0 = np.array(
    [
        -0.0617138900142764496358948458001,
        0.0,
        0.455279819163070380255912382449,
        0.222668390165885884674473185609,
        0.487364979543842550225598953530,
        -0.222668390165885884674473185609,
        1.23054744454982119249735015568,
    ]
)
"""Consistent initial angles (Bari test set); the initial velocities are zero."""

A03_QDD0 = np.array(
    [14222.4439199541138705911625887, -10666.8329399655854029433719415, 0.0, 0.0, 0.0, 0.0, 0.0]
)
"""Consistent initial accelerations published with the Bari test set [rad/s^2]."""

A03_LAMBDA0 = np.array(
    [98.5668703962410896057654982170, -6.12268834425566265503114393122, 0.0, 0.0, 0.0, 0.0]
)
"""Consistent initial multipliers published with the Bari test set (sign of ``M q'' = f -
G^T lambda``)."""

A03_T_END = 0.03
"""End time of the Bari test set problem [s]."""

# fmt: off
A03_BARI_REFERENCE_T003 = np.array(
    [
        # q: beta, Theta, gamma, Phi, delta, Omega, epsilon [rad]
        0.1581077119629904e02, -0.1575637105984298e02, 0.4082224013073101e-01,
        -0.5347301163226948e00, 0.5244099658805304e00, 0.5347301163226948e00,
        0.1048080741042263e01,
        # q' [rad/s]
        0.1139920302151208e04, -0.1424379294994111e04, 0.1103291221937134e02,
        0.1929337464421385e02, 0.5735699284790808e00, -0.1929337464421385e02,
        0.3231791658026955e00,
        # q'' [rad/s^2]
        -0.2463176316945196e05, 0.5185037701610329e05, 0.3241025686413781e06,
        0.5667493645176213e06, 0.1674362929479361e05, -0.5667493645176222e06,
        0.9826520791458422e04,
        # lambda (6)
        0.1991753333731910e03, -0.2975531228015052e02, 0.2306654119098399e02,
        0.3145271365475927e02, 0.2264249232082739e02, 0.1161740700019673e02,
    ]
)
# fmt: on
"""Reference solution of the Bari test set at t = 0.03 (``y(1..27)`` of problem "andrews":
angles, angular velocities, accelerations and the 6 multipliers). Computed by the CWI with
PSIDE at rtol = atol = 1e-14 on a Cray C90 (1112 steps), as printed in the test set's
``andrews.f`` (subroutine ``solut``)."""


def a03_model() -> PlanarModel:
    """Bodies, pins, spring and torque of Andrews' squeezing mechanism, maximal coordinates.

    Ground points: ``O = (0, 0)``, ``A = (xa, ya)``, ``B = (xb, yb)``, ``C = (xc, yc)``.
    Bodies (body-frame angle ``theta_b = A03_BODY_ANGLES[b] @ q``; point coordinates relative
    to the mass centre, in the body frame; parameter names of :data:`A03_PARAMS`):

    ====  =====  ============  ==================================================================
    b     name   theta_b       points (x, y)
    ====  =====  ============  ==================================================================
    0     OF     beta          O (-ra, 0); F (rr - ra, 0)
    1     FE     beta+Theta    F (da, 0); E (da - d, 0)          (x axis from E towards F)
    2     BDE    gamma         B (-sb, sa); D (sd - sb, sa - sc); E (-sb, sa - ss)
    3     GE     Phi+delta     G (0, e - ea); E (0, -ea)         (E = G + e (sin, -cos))
    4     AG     delta         A (-ta, -tb); G (zt - ta, -tb)
    5     HE     Omega+eps     H (fa - zf, 0); E (fa, 0)          (x axis from H towards E)
    6     AH     epsilon       A (ub, ua); H (ub, ua - u)        (H = A + u (sin, -cos))
    ====  =====  ============  ==================================================================

    i.e. the mass centres are at ``O + R(beta)(ra, 0)``, ``F - R(beta+Theta)(da, 0)``,
    ``B + R(gamma)(sb, -sa)``, ``E + R(Phi+delta)(0, ea)``, ``A + R(delta)(ta, tb)``,
    ``E - R(Omega+eps)(fa, 0)``, ``A + R(eps)(-ub, -ua)``. The distances between joints and
    mass centres are those of Hairer-Wanner's mass matrix; the directions of the off-line
    offsets of the bodies pinned to the ground (BDE, AG, AH) follow the IFToMM/OpenSim body
    frames (they do not change the motion without gravity).

    Pins (10, non-redundant: 21 - 20 = 1 degree of freedom): OF-ground at O, OF-FE at F,
    BDE-ground at B, AG-ground at A, AH-ground at A, AG-GE at G, AH-HE at H, FE-BDE, FE-GE
    and FE-HE at E. Spring: BDE's point D - ground C, ``c0 = 4530 N/m``,
    ``l0 = 0.07785 m``. Torque ``mom = 0.033 N m`` on OF. No gravity.
    """
    p = A03_PARAMS
    bodies = [
        Body("OF", p["m1"], p["i1"], {"O": (-p["ra"], 0.0), "F": (p["rr"] - p["ra"], 0.0)}),
        Body("FE", p["m2"], p["i2"], {"F": (p["da"], 0.0), "E": (p["da"] - p["d"], 0.0)}),
        Body(
            "BDE",
            p["m3"],
            p["i3"],
            {
                "B": (-p["sb"], p["sa"]),
                "D": (p["sd"] - p["sb"], p["sa"] - p["sc"]),
                "E": (-p["sb"], p["sa"] - p["ss"]),
            },
        ),
        Body("GE", p["m4"], p["i4"], {"G": (0.0, p["e"] - p["ea"]), "E": (0.0, -p["ea"])}),
        Body(
            "AG", p["m5"], p["i5"], {"A": (-p["ta"], -p["tb"]), "G": (p["zt"] - p["ta"], -p["tb"])}
        ),
        Body("HE", p["m6"], p["i6"], {"H": (p["fa"] - p["zf"], 0.0), "E": (p["fa"], 0.0)}),
        Body("AH", p["m7"], p["i7"], {"A": (p["ub"], p["ua"]), "H": (p["ub"], p["ua"] - p["u"])}),
    ]
    pins = [
        Pin("O", 0, None),
        Pin("F", 0, 1),
        Pin("B", 2, None),
        Pin("A", 4, None),
        Pin("A", 6, None),
        Pin("G", 4, 3),
        Pin("H", 6, 5),
        Pin("E", 1, 2),
        Pin("E", 1, 3),
        Pin("E", 1, 5),
    ]
    ground = {
        "O": (0.0, 0.0),
        "A": (p["xa"], p["ya"]),
        "B": (p["xb"], p["yb"]),
        "C": (p["xc"], p["yc"]),
    }
    spring = Spring(2, "D", "C", p["c0"], p["l0"])
    return PlanarModel(bodies, pins, ground, 0.0, [spring], [(0, p["mom"])])


# Kinematic tree of the 7-angle model: body -> (parent body or None for ground, joint point).
# Loop closures at E: FE = BDE, FE = GE, FE = HE (the 6 constraints of Hairer-Wanner).
_A03_TREE = {
    0: (None, "O"),
    1: (0, "F"),
    2: (None, "B"),
    4: (None, "A"),
    3: (4, "G"),
    6: (None, "A"),
    5: (6, "H"),
}
_A03_ORDER = (0, 1, 2, 4, 3, 6, 5)
_A03_CLOSURES = ((1, 2), (1, 3), (1, 5))
# Tracked points: the 7 mass centres, then D on BDE and E on FE, BDE, GE, HE.
_A03_D = 7
_A03_E = {1: 8, 2: 9, 3: 10, 5: 11}


@functools.lru_cache(maxsize=1)
def _a03_tensors() -> tuple[PlanarModel, np.ndarray, np.ndarray]:
    """Every tracked point as ``P_p = c_p + sum_k R(theta_k) V[p, k]``.

    Walking the kinematic tree from the ground: the mass centre of body ``b`` joined at
    point ``J`` to its parent ``a`` is ``r_b = J - R(theta_b) p_J^b`` with ``J = r_a +
    R(theta_a) p_J^a`` (or the ground point). Returns ``(model, c (12, 2), V (12, 7, 2))``.
    """
    model = a03_model()
    const = np.zeros((12, 2))
    vec = np.zeros((12, 7, 2))
    for b in _A03_ORDER:
        parent, point = _A03_TREE[b]
        if parent is None:
            const[b] = model.ground[point]
        else:
            const[b] = const[parent]
            vec[b] = vec[parent]
            vec[b, parent] += model.bodies[parent].points[point]
        vec[b, b] -= model.bodies[b].points[point]
    for row, (b, name) in [(_A03_D, (2, "D"))] + [(r, (b, "E")) for b, r in _A03_E.items()]:
        const[row] = const[b]
        vec[row] = vec[b]
        vec[row, b] += model.bodies[b].points[name]
    return model, const, vec


def _a03_points(q: np.ndarray, qd: np.ndarray):
    """Positions (12, 2), Jacobians (12, 2, 7) and convective accelerations (12, 2).

    ``dP/dq = sum_k (Omega R_k V_k) A_k`` (``Omega``: rotation by +90 degrees, ``A_k`` the
    row ``k`` of A03_BODY_ANGLES) and ``P'' = (dP/dq) q'' - sum_k theta_k'**2 R_k V_k``.
    """
    _, const, vec = _a03_tensors()
    theta = A03_BODY_ANGLES @ q
    theta_dot = A03_BODY_ANGLES @ qd
    c, s = np.cos(theta), np.sin(theta)
    rx = c * vec[..., 0] - s * vec[..., 1]  # (12, 7): x of R(theta_k) V[p, k]
    ry = s * vec[..., 0] + c * vec[..., 1]
    pos = const + np.stack([rx.sum(axis=1), ry.sum(axis=1)], axis=-1)
    jac = np.stack([-ry @ A03_BODY_ANGLES, rx @ A03_BODY_ANGLES], axis=1)
    w2 = theta_dot**2
    conv = -np.stack([rx @ w2, ry @ w2], axis=-1)
    return pos, jac, conv


def a03_constraints(q: np.ndarray) -> np.ndarray:
    """The 6 loop-closure constraints ``g(q) = 0`` of Hairer-Wanner, in their order and sign.

    ``g = [E_FE - E_BDE, E_FE - E_GE, E_FE - E_HE]`` (x, y of each), where ``E_b`` is point E
    reached through the chain of body ``b``: ``E_FE = rr u(beta) - d u(beta+Theta)``,
    ``E_BDE = B + ss (sin gamma, -cos gamma)``, ``E_GE = A + zt u(delta) + e (sin(Phi+delta),
    -cos(Phi+delta))``, ``E_HE = A + u (sin eps, -cos eps) + zf u(Omega+eps)``,
    ``u(a) = (cos a, sin a)``.
    """
    pos = _a03_points(np.asarray(q, dtype=float), np.zeros(7))[0]
    e1 = pos[_A03_E[1]]
    return np.concatenate([e1 - pos[_A03_E[b]] for _, b in _A03_CLOSURES])


def a03_dynamics(q: np.ndarray, qd: np.ndarray) -> dict[str, np.ndarray]:
    """Mass matrix, forces, constraint Jacobian; accelerations and multipliers (index 1).

    Derived here from the body data of :func:`a03_model` (not transcribed): with the mass
    centre ``r_b(q)`` and frame angle ``theta_b = A_b q`` of every body,

    ``M = sum_b m_b J_b^T J_b + I_b A_b^T A_b``,  ``J_b = dr_b/dq``,
    ``f = -sum_b m_b J_b^T a_b + J_D^T F_s + mom A_1^T``,

    with ``a_b`` the convective acceleration of ``r_b``, the spring force on D
    ``F_s = -c0 (l - l0) (D - C) / l``, ``l = |D - C|``, and the torque on the crank. The
    constraint Jacobian is ``G = dg/dq`` (:func:`a03_constraints`) and ``g'' = G q'' + g_c``
    with the convective term ``g_c``. The accelerations and multipliers solve

    ``[[M, G^T], [G, 0]] [q''; lambda] = [f; -g_c]``,

    i.e. ``M q'' = f - G^T lambda`` (the sign convention of the Bari test set). This ``M``
    and ``f`` agree with the hand-derived ones of Hairer-Wanner to round-off.

    Returns
    -------
    dict
        ``M`` (7, 7), ``f`` (7,), ``G`` (6, 7), ``g`` (6,), ``qdd`` (7,), ``lam`` (6,).
    """
    q = np.asarray(q, dtype=float)
    qd = np.asarray(qd, dtype=float)
    model = _a03_tensors()[0]
    pos, jac, conv = _a03_points(q, qd)
    masses = np.array([b.mass for b in model.bodies])
    inertias = np.array([b.inertia for b in model.bodies])
    jb = jac[:7]
    mass = (
        np.einsum("b,bip,biq->pq", masses, jb, jb)
        + (A03_BODY_ANGLES.T * inertias) @ A03_BODY_ANGLES
    )
    force = -np.einsum("b,bip,bi->p", masses, jb, conv[:7])
    for spring in model.springs:
        row = _A03_D if (spring.body_a, spring.point_a) == (2, "D") else None
        if row is None:
            raise NotImplementedError("only the spring at D is tracked")
        dvec = pos[row] - np.asarray(model.ground[spring.ground_point])
        length = np.hypot(*dvec)
        force += jac[row].T @ (-spring.stiffness * (length - spring.rest_length) * dvec / length)
    for b, tau in model.torques:
        force += tau * A03_BODY_ANGLES[b]
    e1 = _A03_E[1]
    rows = [_A03_E[b] for _, b in _A03_CLOSURES]
    g = np.concatenate([pos[e1] - pos[r] for r in rows])
    gq = np.concatenate([jac[e1] - jac[r] for r in rows])
    gc = np.concatenate([conv[e1] - conv[r] for r in rows])
    kkt = np.zeros((13, 13))
    kkt[:7, :7] = mass
    kkt[:7, 7:] = gq.T
    kkt[7:, :7] = gq
    sol = np.linalg.solve(kkt, np.concatenate([force, -gc]))
    return {"M": mass, "f": force, "G": gq, "g": g, "qdd": sol[:7], "lam": sol[7:]}


def a03_energy(q: np.ndarray, qd: np.ndarray) -> float:
    """Conserved ``E = q'^T M q' / 2 + c0 (l - l0)**2 / 2 - mom beta`` [J].

    (Kinetic energy, spring potential, and minus the work of the constant driving torque.)
    """
    q = np.asarray(q, dtype=float)
    qd = np.asarray(qd, dtype=float)
    p = A03_PARAMS
    dyn = a03_dynamics(q, qd)
    pd = _a03_points(q, qd)[0][_A03_D]
    length = np.hypot(pd[0] - p["xc"], pd[1] - p["yc"])
    return float(
        0.5 * qd @ dyn["M"] @ qd + 0.5 * p["c0"] * (length - p["l0"]) ** 2 - p["mom"] * q[0]
    )


@functools.lru_cache(maxsize=8)
def _a03_solution(t_end: float, rtol: float, atol: float):
    def rhs(_t, y):
        return np.concatenate([y[7:], a03_dynamics(y[:7], y[7:])["qdd"]])

    sol = solve_ivp(
        rhs,
        (0.0, t_end),
        np.concatenate([A03_Q0, np.zeros(7)]),
        method="DOP853",
        rtol=rtol,
        atol=atol,
        dense_output=True,
    )
    if sol.status != 0:
        raise RuntimeError(f"A03 reference integration failed: {sol.message}")
    return sol


def a03_reference(
    t: float | Sequence[float] | np.ndarray = A03_T_END, rtol: float = 1e-13, atol: float = 1e-13
) -> dict[str, np.ndarray]:
    """Reference solution of Andrews' mechanism in the 7 angles (independent integration).

    The index-1 equations of :func:`a03_dynamics` (``q'' `` from the KKT system, no
    stabilization: the drift of ``g`` stays below 3e-15 m over 0.03 s) are integrated from
    the consistent state ``A03_Q0``, ``q' = 0`` with ``solve_ivp`` (DOP853, rtol = atol =
    1e-13) to ``max(t)``; values at ``t`` come from the dense output (at the end time they
    are the last step). Cached per end time and tolerances.

    Returns
    -------
    dict
        ``t`` (n,), ``q`` (n, 7), ``qd`` (n, 7), ``qdd`` (n, 7), ``lam`` (n, 6), ``g`` (n, 6)
        (constraint residual), ``energy`` (n,) (:func:`a03_energy`).
    """
    t = np.atleast_1d(np.asarray(t, dtype=float))
    t_end = float(np.max(t))
    sol = _a03_solution(t_end, float(rtol), float(atol))
    y = sol.sol(t)
    y[:, t == t_end] = sol.y[:, -1:]
    q, qd = y[:7].T, y[7:].T
    dyn = [a03_dynamics(qi, qdi) for qi, qdi in zip(q, qd)]
    return {
        "t": t,
        "q": q,
        "qd": qd,
        "qdd": np.array([d["qdd"] for d in dyn]),
        "lam": np.array([d["lam"] for d in dyn]),
        "g": np.array([d["g"] for d in dyn]),
        "energy": np.array([a03_energy(qi, qdi) for qi, qdi in zip(q, qd)]),
    }


def a03_maximal_state(q: np.ndarray, qd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Maximal coordinates ``[x, y, theta]`` of the 7 bodies of :func:`a03_model`.

    ``theta_b = A03_BODY_ANGLES[b] @ q`` (not wrapped), mass centres from the kinematic tree
    (O-OF-FE, B-BDE, A-AG-GE, A-AH-HE), velocities ``J_b q'`` and ``A_b q'``.

    Returns
    -------
    x, xd : ndarray, shape (21,)
    """
    q = np.asarray(q, dtype=float)
    qd = np.asarray(qd, dtype=float)
    pos, jac, _ = _a03_points(q, qd)
    x = np.zeros((7, 3))
    xd = np.zeros((7, 3))
    x[:, :2] = pos[:7]
    x[:, 2] = A03_BODY_ANGLES @ q
    xd[:, :2] = jac[:7] @ qd
    xd[:, 2] = A03_BODY_ANGLES @ qd
    return x.ravel(), xd.ravel()


def a03_angles_from_maximal(x: np.ndarray) -> np.ndarray:
    """The 7 angles ``(beta, Theta, gamma, Phi, delta, Omega, epsilon)`` from body angles.

    Inverse of ``theta = A03_BODY_ANGLES @ q``: ``beta = theta_1``, ``Theta = theta_2 -
    theta_1``, ``gamma = theta_3``, ``Phi = theta_4 - theta_5``, ``delta = theta_5``,
    ``Omega = theta_6 - theta_7``, ``epsilon = theta_7`` (``x`` of shape (..., 21); no
    wrapping is applied, so continuous body angles give continuous angles).
    """
    x = np.asarray(x, dtype=float)
    return x[..., 2::3] @ np.linalg.inv(A03_BODY_ANGLES).T
