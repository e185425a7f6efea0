"""Independent references for the offset slider-crank: closed forms, a 1-DOF ODE and Exudyn.

Nothing here imports Quivira. Three independent references of the same mechanism:

1. :func:`slider_crank_kinematics` -- exact closed-form position, velocity and acceleration
   of every bar for a given crank angle, rate and angular acceleration
   (:func:`slider_crank_driven` for ``phi = omega t + phi0``), and
   :func:`slider_crank_inverse_dynamics` -- the Newton-Euler equations of the three bars
   solved (9x9 linear system) for every joint reaction and the crank torque.
2. :func:`simulate_slider_crank_minimal` -- the free (undriven) mechanism in its single
   coordinate ``phi``, integrated with ``solve_ivp`` (DOP853, ``rtol = atol = 1e-12``), with
   the reactions from the inverse dynamics along the solution.
3. :func:`simulate_slider_crank_exudyn` -- the mechanism in Exudyn (exudyn 1.13.6) in
   absolute coordinates (``NodeRigidBody2D`` per bar), implicit generalized-alpha (spectral
   radius 0.8, full Newton), as :mod:`oracles.exudyn_planar`, with the guide built as

   * ``guide="prismatic"``: ``ObjectJointPrismatic2D`` between the slider (marker 0) and
     the ground (marker 1);
   * ``guide="sliding2d"``: ``ObjectJointSliding2D`` of the slider (marker 0) on a straight
     ``ObjectANCFCable2D`` whose 8 nodal coordinates are all fixed by
     ``ObjectConnectorCoordinate`` (so the slot is exactly straight and rigid). In exudyn
     1.13.6 ``ObjectJointSliding2D`` only accepts a Cable2D (ANCF) body as marker 1: there is
     no rigid-bar version; this is the way to use it as a rigid ground slot;

   and ``constrain_rotation=True`` (a prismatic slider: the block keeps the guide direction)
   or ``False`` (pin-in-slot: the slider centre stays on the guide line, its rotation is free).
   ``omega_drive`` prescribes ``phi = omega t + phi0`` with an ``ObjectConnectorCoordinate``
   (ground coordinate -> crank angle) whose ``offsetUserFunction`` returns ``omega t``
   (the marker value is the node DISPLACEMENT from its reference ``phi0``, checked).

Geometry and conventions (SI units, Quivira's bar conventions)
--------------------------------------------------------------
A bar of length ``L`` has centre ``(x, y)`` and angle ``theta``; its point ``s`` in
``[-0.5, 0.5]`` is ``centre + s L (cos theta, sin theta)``; inertia ``m L^2/12``;
gravity ``g`` along ``-y``. ``q = [x_0, y_0, theta_0, x_1, y_1, theta_1, x_2, y_2, theta_2]``
(absolute).

* bar 0 = crank, length ``r``: its ``s = -0.5`` end pinned to ground at the origin ``O``,
  ``theta_0 = phi``; crank pin ``A = r (cos phi, sin phi)`` is its ``s = +0.5`` end.
* bar 1 = coupler (connecting rod), length ``l``: ``s = -0.5`` at ``A``, ``s = +0.5`` at the
  slider pin ``B``; ``theta_1 = beta``.
* bar 2 = slider block, length ``Ls`` (only its inertia uses it), ``theta_2 = alpha``; its
  point ``s_pin`` is pinned to the coupler at ``B``; its centre ``C = B - s_pin Ls u``.
* guide: the line ``{P : n . P = e}`` with direction ``u = (cos alpha, sin alpha)`` and
  normal ``n = (-sin alpha, cos alpha)`` (``alpha = 0``: the line ``y = e``). The slider
  coordinate is ``x = u . B``. The block axis lies on the guide line.

Closed form (frame turned by ``-alpha``: ``phi' = phi - alpha``, ``sigma = branch = +-1``,
``D = sqrt(l^2 - (e - r sin phi')^2)``, singular when ``D = 0``):

.. math::

    x = r\\cos\\varphi' + \\sigma D,\\qquad \\sin\\beta' = (e - r\\sin\\varphi')/l,\\quad
    l\\cos\\beta' = \\sigma D,\\quad \\beta = \\beta' + \\alpha,

    \\dot\\beta = -\\frac{r\\cos\\varphi'\\,\\dot\\varphi}{l\\cos\\beta'},\\qquad
    \\dot x = -r\\sin\\varphi'\\,\\dot\\varphi - l\\sin\\beta'\\,\\dot\\beta,

    \\ddot\\beta = \\frac{r\\sin\\varphi'\\,\\dot\\varphi^2 - r\\cos\\varphi'\\,\\ddot\\varphi
    + l\\sin\\beta'\\,\\dot\\beta^2}{l\\cos\\beta'},\\qquad
    \\ddot x = -r\\cos\\varphi'\\,\\dot\\varphi^2 - r\\sin\\varphi'\\,\\ddot\\varphi
    - l\\cos\\beta'\\,\\dot\\beta^2 - l\\sin\\beta'\\,\\ddot\\beta .

Reactions (all global, all "force ON the named body")
-----------------------------------------------------
``F_O`` (2): ground pin on the crank at ``O``; ``F_A`` (2): crank on the coupler at ``A``
(the crank feels ``-F_A``); ``F_B`` (2): coupler on the slider at ``B`` (the coupler feels
``-F_B``); ``N`` (scalar): guide normal force on the slider along ``n``, acting at the slider
CENTRE ``C``; ``T_G``: locking torque of the guide on the slider (about ``C``; zero for a
pin-in-slot); ``tau``: drive torque on the crank (counter-clockwise positive). Newton-Euler:

.. math::

    m_0 a_0 &= F_O - F_A - m_0 g e_y,\\quad
    I_0\\ddot\\varphi = (O - c_0)\\times F_O - (A - c_0)\\times F_A + \\tau \\\\
    m_1 a_1 &= F_A - F_B - m_1 g e_y,\\quad
    I_1\\ddot\\beta = (A - c_1)\\times F_A - (B - c_1)\\times F_B \\\\
    m_2 a_C &= F_B + N n - m_2 g e_y,\\quad 0 = (B - C)\\times F_B + T_G .

The force the guide exerts on the slider is ``N n`` applied at ``C`` plus the couple
``T_G`` (frictionless: no component along ``u``).

Exudyn's outputs and their mapping
----------------------------------
exudyn 1.13.6; the multipliers are the algebraic coordinates
``mbs.systemData.GetAECoordinates()`` at ``GetObjectLTGAE(joint)``, recorded after every
step by a post-step user function; Exudyn's equations are ``M q'' + C_q^T lambda = f``.

* ``ObjectJointRevolute2D`` ``(m0, m1)``, equations ``p_m1 - p_m0 = 0``:
  ``lambda`` = force ON the body of m0. Used as ``(ground, crank)``, ``(crank, coupler)``,
  ``(coupler, slider)``, so ``F_O = -lambda``, ``F_A = -lambda``, ``F_B = -lambda``.
* ``ObjectJointPrismatic2D`` (slider centre rigid marker m0, ground rigid marker m1 on the
  guide, ``axisMarker0 = (1, 0, 0)`` = the block axis, ``normalMarker1 = n``), equations
  ``(p_m1 - p_m0) . n1 = 0`` and (if ``constrainRotation``) ``(A_0 t_0) . n1 = 0``.
  ``lambda_0`` = normal force ON the slider along ``n1 = n``: ``N = lambda_0``;
  ``lambda_1``: the torque ON the slider is ``-lambda_1 ((e_z x A_0 t_0) . n1) = -lambda_1``
  (``n1 = e_z x u`` here), so ``T_G = -lambda_1``. With ``constrainRotation=False`` the
  second equation is ``lambda_1 = 0``. ``OutputVariableType.Force`` is NOT implemented for
  this object in 1.13.6 (``SysError``), hence the algebraic coordinates. Verified on a block
  on a guide inclined by 0.4 rad under gravity, a 3 N push and a 0.7 N m torque:
  ``lambda_0 = 19.2395 = m g cos(alpha) - f . n``, ``lambda_1 = 0.7``.
* ``ObjectJointSliding2D`` (classical formulation, the default), algebraic coordinates
  ``[lambda_x, lambda_y, s_local(, lambda_rot)]``: ``(lambda_x, lambda_y)`` = global force
  ON the slider (marker 0), orthogonal to the slot (third equation), so ``N = lambda . n``;
  the rotation equation ``r' . (A_0 e_y) = 0`` gives the torque ON the slider
  ``+lambda_rot |r'|`` (``|r'| = 1`` here): ``T_G = +lambda_rot``. Same verification
  (``lambda = (-7.492, 17.721) = 19.2395 n``, ``lambda_rot = -0.7``). ``Force`` output =
  ``(lambda_x, lambda_y, 0)``. The non-classical formulation was found to lag (sliding
  coordinate off by ``1.2e-4`` after 0.1 s at ``h = 1e-3``) and is not used.
* drive ``ObjectConnectorCoordinate`` (ground coordinate m0, crank angle m1), equation
  ``theta_0 - theta_0_ref - omega t = 0``: ``tau = -lambda``.

Accuracy to expect (measured, exudyn 1.13.6, spectral radius 0.8, Newton tol 1e-12)
---------------------------------------------------------------------------------
Default mechanism (:class:`SliderCrank`: ``r = 0.2``, ``l = 0.6``, ``e = 0.05``,
``alpha = 0.1``, masses ``1, 2, 1.5``, ``Ls = 0.2``, ``s_pin = 0.3``, ``g = 9.81``).
Maximal absolute errors over 201 output times (``q`` in m and rad, ``qd`` in m/s and rad/s,
forces in N, torques in N m); "late" = ``t >= 0.05`` (after the start-up transient of the
index-3 multipliers, see ``exudyn_planar``). Identical (to 2 digits) for ``"prismatic"`` and
``"sliding2d"``, with and without ``constrain_rotation``.

* Driven, ``omega = 10`` rad/s from ``phi0 = 0.3``, 1 s, against the closed form and
  :func:`slider_crank_inverse_dynamics` (peaks: ``|F_O|`` 93, ``|F_A|`` 83, ``|F_B|`` 37,
  ``|N|`` 40, ``|T_G|`` 1.5, ``|tau|`` 9.0):

  ============  ========  =======  =====================  =====================
  h             q         qd       F_O / F_A / F_B / N    T_G / tau
  ============  ========  =======  =====================  =====================
  1e-3          2e-15     4.2e-5   0.33/0.29/0.13/0.083   5.0e-3 / 5.7e-2
  1e-3 late                        2.5e-3/2.3e-3/1.2e-3/  3.2e-5 / 3.2e-4
                                   5.3e-4
  1e-4          9e-13     2.7e-7   6.0e-5/5.0e-5/2.2e-5/  1.2e-6 / 1.2e-5
                                   2.0e-5
  ============  ========  =======  =====================  =====================

  (``q`` is exact: the crank angle is prescribed and the mechanism has one degree of
  freedom.)
* Free (gravity only), from ``phi0 = 0.3`` with ``phid0 = 8`` rad/s, 2 s (the crank swings
  over 5.5 rad), against :func:`simulate_slider_crank_minimal` (peaks: ``|F_O|`` 133,
  ``|F_A|`` 113, ``|F_B|`` 44, ``|N|`` 37, ``|T_G|`` 1.3; ``E0 = 5.35`` J):

  ============  =======  =======  ==========  ==========================  =======
  h             q        qd       max|E-E0|   F_O / F_A / F_B / N         T_G
  ============  =======  =======  ==========  ==========================  =======
  1e-3          4.5e-3   3.6e-2   6.2e-4      2.3/2.1/1.0/0.22            1.3e-2
  1e-3 late                                   0.84/0.72/0.28/0.093        5.6e-3
  1e-4          4.5e-5   3.6e-4   6.2e-6      8.4e-3/7.2e-3/2.8e-3/9.3e-4 5.6e-5
  ============  =======  =======  ==========  ==========================  =======

  The energy error is a bounded oscillation; the ``q`` error is mostly a phase error growing
  linearly in time (1 s: about half of the 2 s figures).
* The minimal reference itself: ``phi`` agrees with ``rtol = atol = 1e-13`` to ``1.4e-10``
  over 2 s, its energy is constant to ``7e-11`` J, and the torque that the inverse dynamics
  needs along it is ``< 3e-15`` N m.

Suggested tolerances at ``h = 1e-4`` (up to 1 s): driven ``q`` 1e-9, ``qd`` 2e-6, forces
5e-4 N, torques 1e-4 N m; free ``q`` 1e-4, ``qd`` 1e-3, forces 2e-2 N, ``T_G`` 2e-4 N m,
energy 2e-5 J.

Run time (2 shared cores, 1 s simulated at ``h = 1e-4``): 0.4 s (prismatic) / 0.6-1.3 s
(sliding2d, 8 extra coordinate constraints); the Python post-step callback that reads the
multipliers is included.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "SliderCrank",
    "slider_crank_driven",
    "slider_crank_energy",
    "slider_crank_inverse_dynamics",
    "slider_crank_kinematics",
    "simulate_slider_crank_exudyn",
    "simulate_slider_crank_minimal",
]

@dataclass(frozen=True)
class SliderCrank:
    """Parameters of the offset slider-crank (SI units; see the module docstring).

    ``r``, ``l``: crank and coupler lengths; ``e``: guide offset (the guide is
    ``n . P = e``); ``alpha``: guide inclination (rad); ``m_crank``, ``m_coupler``,
    ``m_slider``: masses; ``L_slider``: block length (inertia ``m_slider L_slider^2/12``);
    ``s_pin``: local coordinate of the coupler pin on the block; ``branch``: ``+1`` when the
    slider is on the ``+u`` side of the crank pin (``x = r cos phi' + D``), ``-1`` else;
    ``g``: gravity along ``-y``.
    """

    r: float = 0.2
    l: float = 0.6
    e: float = 0.05
    alpha: float = 0.1
    m_crank: float = 1.0
    m_coupler: float = 2.0
    m_slider: float = 1.5
    L_slider: float = 0.2
    s_pin: float = 0.3
    branch: int = 1
    g: float = 9.81

    @property
    def masses(self) -> np.ndarray:
        return np.array([self.m_crank, self.m_coupler, self.m_slider])

    @property
    def lengths(self) -> np.ndarray:
        return np.array([self.r, self.l, self.L_slider])

    @property
    def inertias(self) -> np.ndarray:
        return self.masses * self.lengths**2 / 12.0

    @property
    def u(self) -> np.ndarray:
        return np.array([math.cos(self.alpha), math.sin(self.alpha)])

    @property
    def n(self) -> np.ndarray:
        return np.array([-math.sin(self.alpha), math.cos(self.alpha)])


def _check(p: SliderCrank) -> None:
    if min(p.r, p.l, p.L_slider, p.m_crank, p.m_coupler, p.m_slider) <= 0.0:
        raise ValueError("lengths and masses must be positive")
    if p.branch not in (1, -1):
        raise ValueError("branch must be +1 or -1")


def slider_crank_kinematics(
    p: SliderCrank, phi, phid=0.0, phidd=0.0
) -> dict[str, np.ndarray]:
    """Exact kinematics of the slider-crank for crank angle ``phi`` and its derivatives.

    Parameters
    ----------
    p : SliderCrank
        Mechanism.
    phi, phid, phidd : float or array_like
        Crank angle ``phi = theta_0`` (rad), rate (rad/s) and angular acceleration
        (rad/s^2); broadcast together.

    Returns
    -------
    dict
        ``x, xd, xdd``: slider coordinate ``u . B`` along the guide and its derivatives;
        ``beta, betad, betadd``: coupler angle ``theta_1`` (``beta' + alpha``, with
        ``beta' = atan2(e - r sin phi', sigma D)``) and derivatives (formulas in the module
        docstring); ``A``, ``B``, ``C`` (..., 2): crank pin, slider pin, slider centre;
        ``q``, ``qd``, ``qdd`` (..., 9): absolute coordinates of the three bars and their
        first and second time derivatives.

    Raises
    ------
    ValueError
        If the coupler cannot reach the guide (``l^2 < (e - r sin phi')^2``) or the
        parameters are invalid.
    """
    _check(p)
    phi, phid, phidd = np.broadcast_arrays(
        np.asarray(phi, float), np.asarray(phid, float), np.asarray(phidd, float)
    )
    r, l, e, a, sg = p.r, p.l, p.e, p.alpha, p.branch
    pp = phi - a
    sp, cp = np.sin(pp), np.cos(pp)
    h = e - r * sp  # = l sin(beta')
    D2 = l * l - h * h
    if np.any(D2 <= 0.0):
        raise ValueError("the coupler cannot reach the guide (l^2 <= (e - r sin phi')^2)")
    lc = sg * np.sqrt(D2)  # = l cos(beta')
    x = r * cp + lc
    betap = np.arctan2(h, lc)
    betad = -r * cp * phid / lc
    xd = -r * sp * phid - h * betad
    betadd = (r * sp * phid**2 - r * cp * phidd + h * betad**2) / lc
    xdd = -r * cp * phid**2 - r * sp * phidd - lc * betad**2 - h * betadd

    u, n = p.u, p.n
    cphi, sphi = np.cos(phi), np.sin(phi)
    A = r * np.stack([cphi, sphi], -1)
    vA = r * phid[..., None] * np.stack([-sphi, cphi], -1)
    aA = r * phidd[..., None] * np.stack([-sphi, cphi], -1) - r * (phid**2)[..., None] * (
        np.stack([cphi, sphi], -1)
    )
    B = x[..., None] * u + e * n
    vB = xd[..., None] * u
    aB = xdd[..., None] * u
    C = B - p.s_pin * p.L_slider * u
    beta = betap + a
    al = np.full_like(phi, a)
    zero = np.zeros_like(phi)
    q = np.stack([0.5 * A[..., 0], 0.5 * A[..., 1], phi,
                  0.5 * (A[..., 0] + B[..., 0]), 0.5 * (A[..., 1] + B[..., 1]), beta,
                  C[..., 0], C[..., 1], al], -1)
    qd = np.stack([0.5 * vA[..., 0], 0.5 * vA[..., 1], phid,
                   0.5 * (vA[..., 0] + vB[..., 0]), 0.5 * (vA[..., 1] + vB[..., 1]), betad,
                   vB[..., 0], vB[..., 1], zero], -1)
    qdd = np.stack([0.5 * aA[..., 0], 0.5 * aA[..., 1], phidd,
                    0.5 * (aA[..., 0] + aB[..., 0]), 0.5 * (aA[..., 1] + aB[..., 1]), betadd,
                    aB[..., 0], aB[..., 1], zero], -1)
    return {"x": x, "xd": xd, "xdd": xdd, "beta": beta, "betad": betad, "betadd": betadd,
            "A": A, "B": B, "C": C, "q": q, "qd": qd, "qdd": qdd}


def slider_crank_driven(
    p: SliderCrank, t, omega: float, phi0: float = 0.0
) -> dict[str, np.ndarray]:
    """Closed-form kinematics at times ``t`` for the crank driven at ``phi = omega t + phi0``.

    Parameters
    ----------
    p : SliderCrank
        Mechanism.
    t : float or array_like
        Times (s).
    omega : float
        Constant crank speed (rad/s, counter-clockwise positive).
    phi0 : float
        Crank angle at ``t = 0`` (rad).

    Returns
    -------
    dict
        :func:`slider_crank_kinematics` with ``phid = omega``, ``phidd = 0``, plus ``t``
        and ``phi``.
    """
    t = np.asarray(t, dtype=float)
    phi = omega * t + phi0
    out = slider_crank_kinematics(p, phi, np.full_like(phi, omega), np.zeros_like(phi))
    out["t"], out["phi"] = t, phi
    return out


def slider_crank_inverse_dynamics(
    p: SliderCrank, phi, phid, phidd
) -> dict[str, np.ndarray]:
    """Joint reactions and crank torque from the Newton-Euler equations (module docstring).

    Parameters
    ----------
    p : SliderCrank
        Mechanism (gravity ``p.g`` along ``-y``).
    phi, phid, phidd : float or array_like
        Crank angle, rate and angular acceleration.

    Returns
    -------
    dict
        ``F_O`` (..., 2) ground pin ON the crank; ``F_A`` (..., 2) crank ON the coupler;
        ``F_B`` (..., 2) coupler ON the slider; ``N`` (...) guide normal force ON the slider
        along ``n`` (at the slider centre); ``T_G`` (...) locking torque ON the slider
        (about its centre); ``tau`` (...) torque ON the crank needed for this motion
        (about 0 along a free motion). Units N and N m.
    """
    k = slider_crank_kinematics(p, phi, phid, phidd)
    shape = k["x"].shape
    q, qdd = k["q"].reshape(-1, 9), k["qdd"].reshape(-1, 9)
    A, B = k["A"].reshape(-1, 2), k["B"].reshape(-1, 2)
    m, I, g, n = p.masses, p.inertias, p.g, p.n
    nt = q.shape[0]
    # unknowns z = [F_O(2), F_A(2), F_B(2), N, T_G, tau]
    M = np.zeros((nt, 9, 9))
    rhs = np.zeros((nt, 9))
    c0, c1, c2 = q[:, 0:2], q[:, 3:5], q[:, 6:8]
    O = np.zeros_like(A)

    def moment_row(arm):  # coefficients of (F_x, F_y) in arm x F
        return np.stack([-arm[:, 1], arm[:, 0]], -1)

    # crank: m0 a0 = F_O - F_A - m0 g e_y ; I0 phidd = (O-c0) x F_O - (A-c0) x F_A + tau
    M[:, 0, 0] = M[:, 1, 1] = 1.0
    M[:, 0, 2] = M[:, 1, 3] = -1.0
    rhs[:, 0] = m[0] * qdd[:, 0]
    rhs[:, 1] = m[0] * qdd[:, 1] + m[0] * g
    M[:, 2, 0:2] = moment_row(O - c0)
    M[:, 2, 2:4] = -moment_row(A - c0)
    M[:, 2, 8] = 1.0
    rhs[:, 2] = I[0] * qdd[:, 2]
    # coupler: m1 a1 = F_A - F_B - m1 g e_y ; I1 betadd = (A-c1) x F_A - (B-c1) x F_B
    M[:, 3, 2] = M[:, 4, 3] = 1.0
    M[:, 3, 4] = M[:, 4, 5] = -1.0
    rhs[:, 3] = m[1] * qdd[:, 3]
    rhs[:, 4] = m[1] * qdd[:, 4] + m[1] * g
    M[:, 5, 2:4] = moment_row(A - c1)
    M[:, 5, 4:6] = -moment_row(B - c1)
    rhs[:, 5] = I[1] * qdd[:, 5]
    # slider: m2 aC = F_B + N n - m2 g e_y ; 0 = (B - C) x F_B + T_G
    M[:, 6, 4] = M[:, 7, 5] = 1.0
    M[:, 6, 6], M[:, 7, 6] = n[0], n[1]
    rhs[:, 6] = m[2] * qdd[:, 6]
    rhs[:, 7] = m[2] * qdd[:, 7] + m[2] * g
    M[:, 8, 4:6] = moment_row(B - c2)
    M[:, 8, 7] = 1.0
    rhs[:, 8] = I[2] * qdd[:, 8]
    z = np.linalg.solve(M, rhs[..., None])[..., 0]
    return {
        "F_O": z[:, 0:2].reshape(*shape, 2),
        "F_A": z[:, 2:4].reshape(*shape, 2),
        "F_B": z[:, 4:6].reshape(*shape, 2),
        "N": z[:, 6].reshape(shape),
        "T_G": z[:, 7].reshape(shape),
        "tau": z[:, 8].reshape(shape),
    }


def slider_crank_energy(p: SliderCrank, q, qd) -> np.ndarray:
    """Kinetic plus gravitational energy ``sum (m v^2/2 + I omega^2/2 + m g y)`` [J]."""
    q, qd = np.asarray(q, float), np.asarray(qd, float)
    m, I = p.masses, p.inertias
    T = 0.5 * (m * (qd[..., 0::3] ** 2 + qd[..., 1::3] ** 2) + I * qd[..., 2::3] ** 2).sum(-1)
    return T + (m * p.g * q[..., 1::3]).sum(-1)


def _mass_and_bias(p: SliderCrank, phi: float) -> tuple[float, float, float]:
    """``M(phi)``, ``C(phi)``, ``Q(phi)`` of ``M phi'' + C phi'^2 = Q`` (exact, from the
    velocity and acceleration coefficients of the closed form)."""
    k = slider_crank_kinematics(p, phi, 1.0, 0.0)
    V, W = k["qd"], k["qdd"]
    m3 = np.repeat(p.masses, 3)
    m3[2::3] = p.inertias
    M = float(np.sum(m3 * V * V))
    C = float(np.sum(m3 * W * V))
    Q = float(-p.g * np.sum(p.masses * V[1::3]))
    return M, C, Q


def simulate_slider_crank_minimal(
    p: SliderCrank,
    phi0: float,
    phid0: float,
    *,
    t_end: float = 2.0,
    times: int | Sequence[float] = 201,
    rtol: float = 1e-12,
    atol: float = 1e-12,
) -> dict[str, np.ndarray]:
    """The free slider-crank (gravity only) in its coordinate ``phi``, by ``solve_ivp``.

    Lagrange's equation ``M(phi) phi'' + C(phi) phi'^2 = Q(phi)`` with
    ``M = sum m_i V_i . V_i``, ``C = sum m_i W_i . V_i``, ``Q = -g sum m_i V_{i,y}``, where
    ``V_i`` and ``W_i`` are the velocity (per unit ``phi'``) and the acceleration at
    ``phi' = 1``, ``phi'' = 0`` of every coordinate (inertia ``I_i`` for the angles), taken
    from :func:`slider_crank_kinematics`.

    Parameters
    ----------
    p : SliderCrank
        Mechanism.
    phi0, phid0 : float
        Initial crank angle (rad) and rate (rad/s).
    t_end : float
        End time (s).
    times : int or sequence of float
        Output times or their number (``linspace(0, t_end, times)``).
    rtol, atol : float
        ``solve_ivp`` (DOP853) tolerances. Measured: ``1e-12`` gives ``phi`` to
        ``1.4e-10`` rad over 2 s (against ``rtol = atol = 1e-13``); about 1 s of run time
        per simulated second.

    Returns
    -------
    dict
        ``t``, ``phi``, ``phid``, ``phidd``, ``q``, ``qd`` (nt, 9), ``energy`` (nt,) and the
        reactions of :func:`slider_crank_inverse_dynamics` (``tau`` is the residual torque,
        about ``1e-12``).
    """
    from scipy.integrate import solve_ivp

    _check(p)
    t_out = np.linspace(0.0, t_end, times) if np.isscalar(times) else np.asarray(times, float)

    def rhs(_t, y):
        M, C, Q = _mass_and_bias(p, y[0])
        return [y[1], (Q - C * y[1] ** 2) / M]

    sol = solve_ivp(rhs, (0.0, float(t_out[-1])), [phi0, phid0], method="DOP853",
                    t_eval=t_out, rtol=rtol, atol=atol)
    if not sol.success:
        raise RuntimeError(sol.message)
    phi, phid = sol.y
    phidd = np.array([rhs(0.0, y)[1] for y in sol.y.T])
    k = slider_crank_kinematics(p, phi, phid, phidd)
    out = {"t": t_out, "phi": phi, "phid": phid, "phidd": phidd, "q": k["q"], "qd": k["qd"],
           "energy": slider_crank_energy(p, k["q"], k["qd"])}
    out.update(slider_crank_inverse_dynamics(p, phi, phid, phidd))
    return out


GUIDES = ("prismatic", "sliding2d")


def simulate_slider_crank_exudyn(
    p: SliderCrank,
    phi0: float,
    phid0: float,
    *,
    guide: str = "prismatic",
    constrain_rotation: bool = True,
    omega_drive: float | None = None,
    t_end: float = 1.0,
    h: float = 1e-4,
    times: int | Sequence[float] = 201,
    spectral_radius: float = 0.8,
    newton_tol: float = 1e-12,
) -> dict[str, np.ndarray]:
    """Simulate the slider-crank in Exudyn (see the module docstring for the mapping).

    Parameters
    ----------
    p : SliderCrank
        Mechanism. With ``constrain_rotation=False`` (pin-in-slot) ``p.s_pin`` must be 0,
        so that the block, pinned and guided at its centre, keeps its angle.
    phi0, phid0 : float
        Initial crank angle and rate; the initial state of every bar is the consistent one
        of :func:`slider_crank_kinematics`. With ``omega_drive`` given, ``phid0`` must equal
        it.
    guide : {"prismatic", "sliding2d"}
        ``ObjectJointPrismatic2D`` to ground, or ``ObjectJointSliding2D`` on a fixed Cable2D.
    constrain_rotation : bool
        True: prismatic slider (rotation locked to the guide); False: pin-in-slot.
    omega_drive : float, optional
        If given, the crank angle is prescribed: ``phi = phi0 + omega_drive t``.
    t_end, h : float
        End time and fixed step (s); ``round(t_end/h)`` steps.
    times : int or sequence of float
        Output times or their number; values between steps are interpolated linearly.
    spectral_radius, newton_tol : float
        Generalized-alpha spectral radius; Newton tolerance (relative and absolute).

    Returns
    -------
    dict
        ``t``; ``q``, ``qd`` (nt, 9) absolute; ``x`` (nt,) slider coordinate ``u . B``;
        ``F_O``, ``F_A``, ``F_B`` (nt, 2), ``N``, ``T_G``, ``tau`` (nt,) with the meanings of
        :func:`slider_crank_inverse_dynamics` (``tau = 0`` without drive);
        ``F_guide`` (nt, 2): the full guide force ON the slider (``N n`` for the prismatic
        joint, ``(lambda_x, lambda_y)`` for the sliding joint); ``energy`` (nt,) [J].
    """
    import exudyn as exu
    from exudyn import itemInterface as ii

    _check(p)
    if guide not in GUIDES:
        raise ValueError(f"guide must be one of {GUIDES}, got {guide!r}")
    if not constrain_rotation and p.s_pin != 0.0:
        raise ValueError("a pin-in-slot slider needs s_pin = 0 (pinned at its centre)")
    if omega_drive is not None and phid0 != omega_drive:
        raise ValueError("phid0 must equal omega_drive for a driven crank")
    n_steps = int(round(t_end / h))
    if n_steps < 1:
        raise ValueError("t_end/h must be at least 1")
    t_out = np.linspace(0.0, t_end, times) if np.isscalar(times) else np.asarray(times, float)

    k0 = slider_crank_kinematics(p, phi0, phid0, 0.0)
    q0, qd0 = k0["q"], k0["qd"]
    u, nrm = p.u, p.n

    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.AddObject(ii.ObjectGround(referencePosition=[0.0, 0.0, 0.0]))
    nodes, bodies = [], []
    for i in range(3):
        nd = mbs.AddNode(ii.NodeRigidBody2D(referenceCoordinates=q0[3 * i: 3 * i + 3].tolist(),
                                            initialVelocities=qd0[3 * i: 3 * i + 3].tolist()))
        bd = mbs.AddObject(ii.ObjectRigidBody2D(nodeNumber=nd, mass=float(p.masses[i]),
                                                inertia=float(p.inertias[i])))
        nodes.append(nd)
        bodies.append(bd)
        if p.g != 0.0:
            mm = mbs.AddMarker(ii.MarkerBodyMass(bodyNumber=bd))
            mbs.AddLoad(ii.LoadMassProportional(markerNumber=mm, loadVector=[0.0, -p.g, 0.0]))

    def pos_marker(body, local):
        return mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=body,
                                                   localPosition=[local[0], local[1], 0.0]))

    L = p.lengths
    j_O = mbs.AddObject(ii.ObjectJointRevolute2D(markerNumbers=[
        pos_marker(ground, (0.0, 0.0)), pos_marker(bodies[0], (-0.5 * L[0], 0.0))]))
    j_A = mbs.AddObject(ii.ObjectJointRevolute2D(markerNumbers=[
        pos_marker(bodies[0], (0.5 * L[0], 0.0)), pos_marker(bodies[1], (-0.5 * L[1], 0.0))]))
    j_B = mbs.AddObject(ii.ObjectJointRevolute2D(markerNumbers=[
        pos_marker(bodies[1], (0.5 * L[1], 0.0)),
        pos_marker(bodies[2], (p.s_pin * L[2], 0.0))]))

    m_slider = mbs.AddMarker(ii.MarkerBodyRigid(bodyNumber=bodies[2], localPosition=[0.0] * 3))
    C0 = k0["C"]
    if guide == "prismatic":
        m_g = mbs.AddMarker(ii.MarkerBodyRigid(bodyNumber=ground,
                                               localPosition=[C0[0], C0[1], 0.0]))
        j_G = mbs.AddObject(ii.ObjectJointPrismatic2D(
            markerNumbers=[m_slider, m_g], axisMarker0=[1.0, 0.0, 0.0],
            normalMarker1=[nrm[0], nrm[1], 0.0], constrainRotation=bool(constrain_rotation)))
    else:
        # straight Cable2D slot from P0 to P0 + Lc u, all nodal coordinates fixed
        span = 4.0 * (p.r + p.l) + 1.0
        Lc = 2.0 * span
        P0 = C0 - span * u
        cnodes = [mbs.AddNode(ii.NodePoint2DSlope1(
            referenceCoordinates=[P[0], P[1], u[0], u[1]])) for P in (P0, P0 + Lc * u)]
        cable = mbs.AddObject(ii.ObjectANCFCable2D(
            nodeNumbers=cnodes, length=Lc, massPerLength=1.0, bendingStiffness=1.0,
            axialStiffness=1.0))
        gn = mbs.AddNode(ii.NodePointGround())
        mgc = mbs.AddMarker(ii.MarkerNodeCoordinate(nodeNumber=gn, coordinate=0))
        for cn in cnodes:
            for c in range(4):
                mc = mbs.AddMarker(ii.MarkerNodeCoordinate(nodeNumber=cn, coordinate=c))
                mbs.AddObject(ii.ObjectConnectorCoordinate(markerNumbers=[mgc, mc]))
        m_cab = mbs.AddMarker(ii.MarkerBodyCable2DCoordinates(bodyNumber=cable))
        dn = mbs.AddNode(ii.NodeGenericData(initialCoordinates=[0.0, span],
                                            numberOfDataCoordinates=2))
        j_G = mbs.AddObject(ii.ObjectJointSliding2D(
            markerNumbers=[m_slider, m_cab], slidingMarkerNumbers=[m_cab],
            slidingMarkerOffsets=[0.0], nodeNumber=dn, useClassicalFormulation=True,
            constrainRotation=bool(constrain_rotation)))

    j_D = None
    if omega_drive is not None:
        w = float(omega_drive)
        gn2 = mbs.AddNode(ii.NodePointGround())
        m0 = mbs.AddMarker(ii.MarkerNodeCoordinate(nodeNumber=gn2, coordinate=0))
        m1 = mbs.AddMarker(ii.MarkerNodeCoordinate(nodeNumber=nodes[0], coordinate=2))

        def offset(_mbs, t, _item, _off):
            return w * t  # the marker value is the displacement theta_0 - phi0

        j_D = mbs.AddObject(ii.ObjectConnectorCoordinate(markerNumbers=[m0, m1],
                                                         offsetUserFunction=offset))

    mbs.Assemble()
    sd = mbs.systemData
    ltg_q = np.concatenate([np.asarray(sd.GetNodeLTGODE2(nd), int) for nd in nodes])
    joints = [j_O, j_A, j_B, j_G] + ([j_D] if j_D is not None else [])
    ltg_ae = [np.asarray(sd.GetObjectLTGAE(j), int) for j in joints]
    rec_t, rec_q, rec_v, rec_l = [], [], [], []

    def record(mbs_, t):
        # Exudyn calls it once at t = 0 (after the initial accelerations) and after every
        # step, with the state at t (a pre-step function would get the END time of the step
        # with the state at its start)
        s = mbs_.systemData
        ae = np.asarray(s.GetAECoordinates())
        rec_t.append(t)
        rec_q.append(np.asarray(s.GetODE2Coordinates())[ltg_q])
        rec_v.append(np.asarray(s.GetODE2Coordinates_t())[ltg_q])
        rec_l.append(np.concatenate([ae[ix] for ix in ltg_ae]))
        return True

    mbs.SetPostStepUserFunction(record)

    ss = exu.SimulationSettings()
    ti = ss.timeIntegration
    ti.numberOfSteps = n_steps
    ti.endTime = float(t_end)
    ti.verboseMode = 0
    ti.generalizedAlpha.spectralRadius = float(spectral_radius)
    ti.generalizedAlpha.computeInitialAccelerations = True
    ti.newton.useModifiedNewton = False
    ti.newton.relativeTolerance = float(newton_tol)
    ti.newton.absoluteTolerance = float(newton_tol)
    ss.solution.file.write = False
    ss.solution.sensors.writePeriod = float(t_end)
    ss.show.statistics = False
    ss.show.computationTime = False
    ok = exu.SolveDynamic(mbs, ss, solverType=exu.DynamicSolverType.GeneralizedAlpha)
    if not ok:
        raise RuntimeError("Exudyn dynamic solver failed")

    ts = np.asarray(rec_t)
    keep = np.append(np.diff(ts) > 0.0, True)

    def resample(a):
        a = np.asarray(a)[keep]
        return np.column_stack([np.interp(t_out, ts[keep], a[:, c]) for c in range(a.shape[1])])

    q = resample(rec_q) + q0
    qd = resample(rec_v)
    lam = resample(rec_l)
    sizes = [len(ix) for ix in ltg_ae]
    off = np.cumsum([0] + sizes)
    lam_O, lam_A, lam_B, lam_G = (lam[:, off[i]: off[i + 1]] for i in range(4))
    if guide == "prismatic":
        N = lam_G[:, 0]
        T_G = -lam_G[:, 1] if constrain_rotation else np.zeros(len(t_out))
        F_guide = N[:, None] * nrm
    else:
        F_guide = lam_G[:, 0:2]
        N = F_guide @ nrm
        T_G = lam_G[:, 3] if constrain_rotation else np.zeros(len(t_out))
    tau = -lam[:, off[4]] if j_D is not None else np.zeros(len(t_out))
    B = q[:, 6:8] + p.s_pin * p.L_slider * np.column_stack([np.cos(q[:, 8]), np.sin(q[:, 8])])
    return {
        "t": t_out, "q": q, "qd": qd, "x": B @ u,
        "F_O": -lam_O[:, 0:2], "F_A": -lam_A[:, 0:2], "F_B": -lam_B[:, 0:2],
        "N": N, "T_G": T_G, "tau": tau, "F_guide": F_guide,
        "energy": slider_crank_energy(p, q, qd),
    }
