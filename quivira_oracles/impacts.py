"""Closed-form references for free fall, floor impacts, hinge latches and bouncing.

Nothing here imports Quivira (numpy, plus scipy for root finding and two ODE solutions).

Conventions (Quivira's)
-----------------------
A bar of mass ``m`` and length ``L`` has centre ``(x, y)``, angle ``theta`` (from +x,
counter-clockwise), velocities ``(vx, vy, omega)``; its point ``s`` in ``[-0.5, 0.5]`` is
``centre + s L (cos theta, sin theta)``; inertia about the centre ``I = m L^2/12``.
Gravity ``g`` along ``-y``; the floor is the line ``y = 0`` with normal ``+y``. SI units.
Impulses are the integral of the force over the (instantaneous) impact, in N s.

Free fall (:func:`bar_end_heights`, :func:`free_fall_contact_time`)
-------------------------------------------------------------------
Between impacts a bar moves freely: ``y_c(t) = y_0 + vy t - g t^2/2``,
``x_c(t) = x_0 + vx t``, ``theta(t) = theta_0 + omega t``, so the height of end ``s`` is

.. math:: y_s(t) = y_0 + v_y t - g t^2/2 + s L \\sin(\\theta_0 + \\omega t).

Released from rest (``omega = 0``) with its lowest end at height ``H``, the contact time is
``sqrt(2 H/g)`` exactly. With ``omega != 0`` :func:`free_fall_contact_time` finds the first
root of ``min_s y_s(t)`` by scanning for a sign change (steps of at most 1/64 of a turn) and
Brent's method, polished by Newton steps: accurate to a few ulp (measured against mpmath at
50 digits on 200 random throws: ``|t - t_exact| < 6e-16 t``). A tangential touch (a double
root, the end grazing the floor) is not detected.

Frictionless impact at a bar end (:func:`bar_floor_impact`)
-----------------------------------------------------------
Contact point ``P`` = end ``s``, lever ``r = s L (cos theta, sin theta)`` from the centre.
Normal (``+y``) velocity of ``P``: ``v_n = v_y + omega r_x``. A normal impulse ``Pn`` at
``P`` changes ``v_y`` by ``Pn/m``, ``omega`` by ``r_x Pn/I`` and not ``v_x``; Newton's law
``v_n^+ = -e v_n^-`` gives

.. math::

    P_n = -(1 + e)\\, m_\\mathrm{eff}\\, v_n^-,\\qquad
    m_\\mathrm{eff} = \\left(\\frac1m + \\frac{r_x^2}{I}\\right)^{-1},\\qquad
    \\Delta T = \\tfrac12 (1 - e^2)\\, m_\\mathrm{eff}\\, (v_n^-)^2 .

Conserved through the impact: the horizontal momentum ``m v_x`` (no friction) and, for EVERY
``e`` (and even with friction), the angular momentum about the ground point at ``P``,
``H_P = I omega + m (c - P) x v_c = I omega - m r x v``: the impulse acts at ``P`` so its
moment about ``P`` is zero. The kinetic energy is conserved for ``e = 1`` only; for
``e = 0`` the contact point leaves with ``v_n^+ = 0`` (the bar does NOT pivot about ``P``:
it keeps sliding horizontally, since ``v_x`` is unchanged -- a pivoting bar would need
friction).

Latch on a two-bar hinge (:func:`two_bar_latch`, :func:`two_bar_latch_reference`)
---------------------------------------------------------------------------------
Bar 0 (``m0``, ``L0``) has its ``s = -0.5`` end pinned to ground at ``O``; bar 1 (``m1``,
``L1``) has its ``s = -0.5`` end pinned to bar 0's ``s = +0.5`` end. Minimal coordinates
are the absolute angles ``theta0``, ``theta1``; the relative (hinge) angle is
``phi = theta1 - theta0``. Mass matrix (``a = m1 L0 L1/2``):

.. math::

    M = \\begin{pmatrix} m_0 L_0^2/3 + m_1 L_0^2 & a\\cos\\varphi \\\\
                          a\\cos\\varphi & m_1 L_1^2/3 \\end{pmatrix} .

When ``phi`` reaches ``phi_L`` the hinge locks plastically (``phi'^+ = 0``). The latch
impulse is a couple between the bars, the pin impulse at ``O`` has no moment about ``O``:
the angular momentum about ``O``, ``H_O = [1, 1] M theta'``, is conserved, so both bars
leave with ``Omega = [1, 1] M theta'^- / ([1, 1] M [1, 1]^T)`` (``[1,1] M [1,1]^T = I_O``,
the inertia of the locked pair about ``O``), and the kinetic energy lost is
``theta'^-^T M theta'^-/2 - I_O Omega^2/2``. In maximal coordinates this is Quivira's
``Delta qd = -M^-1 J^T W^-1 J qd^-`` with the four pin rows and the lock row
``theta_1 - theta_0`` (checked in ``tests/integration/test_slider_impact_oracles.py``). After the
latch the pair is one rigid pendulum about ``O``:
``I_O theta0'' = -g [m0 L0/2 cos theta0 + m1 (L0 cos theta0 + L1/2 cos(theta0 + phi_L))]``.
:func:`two_bar_latch_reference` integrates the free two-bar motion (``solve_ivp`` DOP853,
``rtol = atol = 1e-13``) until ``phi = phi_L`` (event), applies the latch and integrates the
pendulum: measured against ``rtol = atol = 3e-14`` (the smallest DOP853 accepts): latch time
``< 2e-14`` s, angles ``< 1e-12`` rad and rates ``< 1e-12`` rad/s over 2 s; the energy is
constant to ``2e-12`` J before and ``2e-11`` J after the latch (masses ``(2, 1.2)``, lengths
``(1.5, 1)``). Run time about 0.5 s (2 s with gravity).

Bouncing (:func:`bouncing_sequence`)
------------------------------------
A point mass, or a bar landing flat (both ends at once: equal impulses, ``omega`` stays 0),
dropped from rest at height ``H0``: impact ``k = 1, 2, ...`` at

.. math::

    t_k = t_1 + \\frac{2 e v_1}{g}\\,\\frac{1 - e^{k-1}}{1 - e},\\quad
    t_1 = \\sqrt{2 H_0/g},\\quad v_1 = \\sqrt{2 g H_0},

with approach speed ``e^{k-1} v_1``, rebound speed ``e^k v_1``, bounce height
``e^{2k} H0``; all bounces end at ``t_inf = t_1 (1 + e)/(1 - e)`` (Zeno limit).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = [
    "bar_end_heights",
    "bar_floor_impact",
    "bouncing_sequence",
    "free_fall_contact_time",
    "free_fall_state",
    "two_bar_latch",
    "two_bar_latch_reference",
    "two_bar_mass_matrix",
    "two_bar_state",
]


# --------------------------------------------------------------------------------------
# free fall
# --------------------------------------------------------------------------------------


def free_fall_state(state0: Sequence[float], t, g: float = 9.81) -> np.ndarray:
    """State ``[x, y, theta, vx, vy, omega]`` of a free bar at times ``t``.

    ``x = x0 + vx t``, ``y = y0 + vy t - g t^2/2``, ``theta = theta0 + omega t``,
    ``vy(t) = vy - g t``; shape ``(..., 6)``.
    """
    x0, y0, th0, vx, vy, om = (float(v) for v in state0)
    t = np.asarray(t, dtype=float)
    return np.stack([x0 + vx * t, y0 + vy * t - 0.5 * g * t**2, th0 + om * t,
                     np.full_like(t, vx), vy - g * t, np.full_like(t, om)], -1)


def bar_end_heights(
    state0: Sequence[float], length: float, t, g: float = 9.81
) -> tuple[np.ndarray, np.ndarray]:
    """Heights ``(y_{-1/2}(t), y_{+1/2}(t))`` of the two ends of a free bar (module docstring).
    """
    s = free_fall_state(state0, t, g)
    half = 0.5 * length * np.sin(s[..., 2])
    return s[..., 1] - half, s[..., 1] + half


def free_fall_contact_time(
    state0: Sequence[float],
    length: float,
    g: float = 9.81,
    *,
    floor: float = 0.0,
    t_max: float | None = None,
) -> tuple[float, float]:
    """First time an end of a free bar reaches the floor ``y = floor``.

    Parameters
    ----------
    state0 : sequence of 6 float
        ``[x, y, theta, vx, vy, omega]`` at ``t = 0``; both ends must be above the floor.
    length : float
        Bar length ``L``.
    g : float
        Gravity (> 0) along ``-y``.
    floor : float
        Floor height.
    t_max : float, optional
        Search horizon; default: the time the centre falls ``L/2`` below the floor.

    Returns
    -------
    (t, s) : (float, float)
        Contact time (s) and the end ``s`` (``-0.5`` or ``+0.5``) that touches. For
        ``omega = 0`` and ``vy = 0`` the time is ``sqrt(2 H/g)`` (``H`` = height of the lower
        end above the floor); otherwise the root of ``y_s(t) = floor`` (module docstring).
    """
    from scipy.optimize import brentq

    x0, y0, th0, vx, vy, om = (float(v) for v in state0)
    if g <= 0.0 or length <= 0.0:
        raise ValueError("g and length must be positive")
    hs = {s: y0 - floor + s * length * math.sin(th0) for s in (-0.5, 0.5)}
    if min(hs.values()) <= 0.0:
        raise ValueError("an end is already on or below the floor")
    if om == 0.0 and vy == 0.0:
        s = min(hs, key=hs.get)
        return math.sqrt(2.0 * hs[s] / g), s
    if t_max is None:
        # y_c(t) = floor - L/2 at the latest: every end is below the floor then
        c = y0 - floor + 0.5 * length
        t_max = (vy + math.sqrt(vy * vy + 2.0 * g * c)) / g
    dt = t_max / 64.0
    if om != 0.0:
        dt = min(dt, 2.0 * math.pi / abs(om) / 64.0)

    def f(t, s):
        return y0 - floor + vy * t - 0.5 * g * t * t + s * length * math.sin(th0 + om * t)

    def fp(t, s):
        return vy - g * t + s * length * om * math.cos(th0 + om * t)

    best = None
    for s in (-0.5, 0.5):
        t_lo = 0.0
        while t_lo < t_max:
            t_hi = min(t_lo + dt, t_max)
            if f(t_hi, s) <= 0.0:
                root = brentq(f, t_lo, t_hi, args=(s,), xtol=1e-300, rtol=9e-16,
                              maxiter=500)
                for _ in range(3):  # Newton polish on the exact motion
                    d = fp(root, s)
                    if d == 0.0:
                        break
                    step = f(root, s) / d
                    if abs(step) > dt:
                        break
                    root -= step
                if best is None or root < best[0]:
                    best = (root, s)
                break
            t_lo = t_hi
    if best is None:
        raise ValueError("no contact found before t_max")
    return float(best[0]), best[1]


# --------------------------------------------------------------------------------------
# frictionless impact of a bar end
# --------------------------------------------------------------------------------------


def bar_floor_impact(
    mass: float,
    length: float,
    theta: float,
    velocity: Sequence[float],
    s: float,
    e: float,
) -> dict[str, float | np.ndarray]:
    """Frictionless impact of bar point ``s`` on the floor (normal ``+y``), restitution ``e``.

    Parameters
    ----------
    mass, length : float
        ``m``, ``L`` (inertia ``m L^2/12``).
    theta : float
        Bar angle at the impact.
    velocity : sequence of 3 float
        Pre-impact ``(vx, vy, omega)``.
    s : float
        Contact point (local coordinate, usually ``+-0.5``).
    e : float
        Coefficient of restitution, in ``[0, 1]``.

    Returns
    -------
    dict
        ``v_plus`` (3,) post-impact ``(vx, vy, omega)``; ``impulse`` ``Pn >= 0`` (N s, on the
        bar along ``+y``); ``vn_minus``, ``vn_plus`` normal velocity of the contact point;
        ``m_eff``; ``energy_lost`` ``(1 - e^2) m_eff vn_minus^2/2`` (J); ``H_P_minus``,
        ``H_P_plus`` angular momentum about the contact point (equal); ``px`` horizontal
        momentum (unchanged).

    Raises
    ------
    ValueError
        If ``e`` is outside ``[0, 1]`` or the point is not approaching (``vn_minus >= 0``).
    """
    if not 0.0 <= e <= 1.0:
        raise ValueError(f"restitution must be in [0, 1], got {e}")
    m, L = float(mass), float(length)
    I = m * L * L / 12.0
    vx, vy, om = (float(v) for v in velocity)
    rx, ry = s * L * math.cos(theta), s * L * math.sin(theta)
    vn = vy + om * rx
    if vn >= 0.0:
        raise ValueError(f"the contact point is not approaching the floor (v_n = {vn})")
    m_eff = 1.0 / (1.0 / m + rx * rx / I)
    P = -(1.0 + e) * m_eff * vn
    vp = np.array([vx, vy + P / m, om + rx * P / I])

    def H_P(v):  # I omega + m (c - P) x v_c, with c - P = -r
        return I * v[2] + m * (-rx * v[1] + ry * v[0])

    return {
        "v_plus": vp,
        "impulse": P,
        "vn_minus": vn,
        "vn_plus": vp[1] + vp[2] * rx,
        "m_eff": m_eff,
        "energy_lost": 0.5 * (1.0 - e * e) * m_eff * vn * vn,
        "H_P_minus": H_P((vx, vy, om)),
        "H_P_plus": H_P(vp),
        "px": m * vx,
    }


# --------------------------------------------------------------------------------------
# latch on a two-bar hinge
# --------------------------------------------------------------------------------------


def two_bar_mass_matrix(
    masses: Sequence[float], lengths: Sequence[float], phi: float
) -> np.ndarray:
    """Mass matrix of the pinned two-bar chain in ``(theta0, theta1)`` (module docstring)."""
    m0, m1 = (float(v) for v in masses)
    L0, L1 = (float(v) for v in lengths)
    a = 0.5 * m1 * L0 * L1 * math.cos(phi)
    return np.array([[m0 * L0 * L0 / 3.0 + m1 * L0 * L0, a], [a, m1 * L1 * L1 / 3.0]])


def two_bar_state(
    masses: Sequence[float],
    lengths: Sequence[float],
    theta: Sequence[float],
    thetad: Sequence[float],
    pivot: Sequence[float] = (0.0, 0.0),
) -> tuple[np.ndarray, np.ndarray]:
    """Absolute ``q`` and ``qd`` (6,) of the two bars from ``theta = (theta0, theta1)``.

    Bar 0's centre is ``O + L0/2 e(theta0)``, bar 1's ``O + L0 e(theta0) + L1/2 e(theta1)``,
    ``e(t) = (cos t, sin t)``. ``masses`` is unused (kept for a uniform signature).
    """
    del masses
    L0, L1 = (float(v) for v in lengths)
    t0, t1 = (float(v) for v in theta)
    w0, w1 = (float(v) for v in thetad)
    e0, e1 = np.array([math.cos(t0), math.sin(t0)]), np.array([math.cos(t1), math.sin(t1)])
    n0, n1 = np.array([-e0[1], e0[0]]), np.array([-e1[1], e1[0]])
    O = np.asarray(pivot, dtype=float)
    c0, c1 = O + 0.5 * L0 * e0, O + L0 * e0 + 0.5 * L1 * e1
    v0, v1 = 0.5 * L0 * w0 * n0, L0 * w0 * n0 + 0.5 * L1 * w1 * n1
    return np.array([*c0, t0, *c1, t1]), np.array([*v0, w0, *v1, w1])


def two_bar_latch(
    masses: Sequence[float],
    lengths: Sequence[float],
    theta: Sequence[float],
    thetad_minus: Sequence[float],
) -> dict:
    """Plastic latch of the hinge of the pinned two-bar chain (module docstring).

    Parameters
    ----------
    masses, lengths : pair of float
        ``(m0, m1)``, ``(L0, L1)``.
    theta : pair of float
        ``(theta0, theta1)`` at the latch (``phi_L = theta1 - theta0``).
    thetad_minus : pair of float
        Pre-latch ``(theta0', theta1')``.

    Returns
    -------
    dict
        ``Omega`` common post-latch rate; ``thetad_plus`` (2,); ``H_O`` angular momentum
        about the pivot (before = after); ``I_O`` inertia of the locked pair about ``O``;
        ``T_minus``, ``T_plus``, ``energy_lost`` (J); ``lock_impulse``: the couple impulse on
        bar 1 (``-`` on bar 0), ``M11 (Omega - theta1'^-) + M01 (Omega - theta0'^-)``
        (N m s); ``qd_minus``, ``qd_plus`` (6,) maximal velocities.
    """
    t0, t1 = (float(v) for v in theta)
    wm = np.asarray(thetad_minus, dtype=float)
    M = two_bar_mass_matrix(masses, lengths, t1 - t0)
    one = np.ones(2)
    I_O = float(one @ M @ one)
    H = float(one @ M @ wm)
    Om = H / I_O
    wp = np.array([Om, Om])
    Tm, Tp = 0.5 * float(wm @ M @ wm), 0.5 * I_O * Om * Om
    _, qdm = two_bar_state(masses, lengths, (t0, t1), wm)
    _, qdp = two_bar_state(masses, lengths, (t0, t1), wp)
    return {
        "Omega": Om, "thetad_plus": wp, "H_O": H, "I_O": I_O,
        "T_minus": Tm, "T_plus": Tp, "energy_lost": Tm - Tp,
        "lock_impulse": float(M[1] @ (wp - wm)),
        "qd_minus": qdm, "qd_plus": qdp,
    }


def _two_bar_rhs(masses, lengths, g):
    m0, m1 = (float(v) for v in masses)
    L0, L1 = (float(v) for v in lengths)
    a = 0.5 * m1 * L0 * L1
    M00, M11 = m0 * L0 * L0 / 3.0 + m1 * L0 * L0, m1 * L1 * L1 / 3.0
    k0, k1 = g * (0.5 * m0 * L0 + m1 * L0), g * 0.5 * m1 * L1

    def rhs(_t, y):
        t0, t1, w0, w1 = y
        d = t1 - t0
        c, sn = math.cos(d), math.sin(d)
        r0 = -k0 * math.cos(t0) + a * sn * w1 * w1
        r1 = -k1 * math.cos(t1) - a * sn * w0 * w0
        det = M00 * M11 - a * a * c * c
        return [w0, w1, (M11 * r0 - a * c * r1) / det, (M00 * r1 - a * c * r0) / det]

    return rhs


def two_bar_latch_reference(
    masses: Sequence[float],
    lengths: Sequence[float],
    theta0: Sequence[float],
    thetad0: Sequence[float],
    phi_latch: float,
    *,
    g: float = 9.81,
    t_end: float = 2.0,
    times: int | Sequence[float] = 201,
    rtol: float = 1e-13,
    atol: float = 1e-13,
) -> dict:
    """Free two-bar motion until the hinge angle reaches ``phi_latch``, latch, rigid pendulum.

    Parameters
    ----------
    masses, lengths : pair of float
        ``(m0, m1)``, ``(L0, L1)``.
    theta0, thetad0 : pair of float
        Initial absolute angles and rates of the bars.
    phi_latch : float
        Latch angle of ``phi = theta1 - theta0`` (reached from either side).
    g : float
        Gravity along ``-y`` (0 allowed).
    t_end : float
        End time; if the latch is not reached by then, ``t_latch`` is ``nan``.
    times : int or sequence of float
        Output times or their number.
    rtol, atol : float
        ``solve_ivp`` (DOP853) tolerances of both phases.

    Returns
    -------
    dict
        ``t``, ``theta`` (nt, 2), ``thetad`` (nt, 2), ``q``, ``qd`` (nt, 6) maximal;
        ``t_latch``; ``latch`` (the :func:`two_bar_latch` dict at the latch, or None);
        ``energy`` (nt,) kinetic + gravitational (drops by ``energy_lost`` at the latch).
    """
    from scipy.integrate import solve_ivp

    t_out = np.linspace(0.0, t_end, times) if np.isscalar(times) else np.asarray(times, float)
    rhs = _two_bar_rhs(masses, lengths, g)
    y0 = [float(theta0[0]), float(theta0[1]), float(thetad0[0]), float(thetad0[1])]
    if y0[1] - y0[0] == phi_latch:
        raise ValueError("the chain starts at the latch angle")

    def event(_t, y):
        return y[1] - y[0] - phi_latch

    event.terminal = True
    sol = solve_ivp(rhs, (0.0, float(t_end)), y0, method="DOP853", rtol=rtol, atol=atol,
                    events=event, dense_output=True)
    if not sol.success:
        raise RuntimeError(sol.message)
    theta = np.empty((len(t_out), 2))
    thetad = np.empty((len(t_out), 2))
    latched = sol.t_events[0].size > 0
    t_l = float(sol.t_events[0][0]) if latched else math.nan
    before = t_out < t_l if latched else np.ones(len(t_out), bool)
    if before.any():
        ys = sol.sol(t_out[before])
        theta[before], thetad[before] = ys[:2].T, ys[2:].T
    latch = None
    if latched:
        yl = sol.y_events[0][0]
        # put the hinge exactly at phi_latch (the event root is within ~1e-15 of it)
        th_l = (float(yl[0]), float(yl[0]) + phi_latch)
        latch = two_bar_latch(masses, lengths, th_l, yl[2:])
        m0, m1 = (float(v) for v in masses)
        L0, L1 = (float(v) for v in lengths)
        I_O = latch["I_O"]

        def pend(_t, y):
            t0 = y[0]
            tq = -g * (0.5 * m0 * L0 * math.cos(t0)
                       + m1 * (L0 * math.cos(t0) + 0.5 * L1 * math.cos(t0 + phi_latch)))
            return [y[1], tq / I_O]

        after = ~before
        if after.any():
            ts = t_out[after]
            if g == 0.0:
                a0 = th_l[0] + latch["Omega"] * (ts - t_l)
                w0 = np.full(len(ts), latch["Omega"])
            else:
                s2 = solve_ivp(pend, (t_l, float(ts[-1]) + 1e-300), [th_l[0], latch["Omega"]],
                               method="DOP853", rtol=rtol, atol=atol, dense_output=True)
                a0, w0 = s2.sol(ts)
            theta[after] = np.column_stack([a0, a0 + phi_latch])
            thetad[after] = np.column_stack([w0, w0])
    q = np.empty((len(t_out), 6))
    qd = np.empty((len(t_out), 6))
    for k in range(len(t_out)):
        q[k], qd[k] = two_bar_state(masses, lengths, theta[k], thetad[k])
    m = np.array([float(v) for v in masses])
    Ls = np.array([float(v) for v in lengths])
    Ic = m * Ls**2 / 12.0
    T = 0.5 * (m * (qd[:, 0::3] ** 2 + qd[:, 1::3] ** 2) + Ic * qd[:, 2::3] ** 2).sum(1)
    energy = T + (m * g * q[:, 1::3]).sum(1)
    return {"t": t_out, "theta": theta, "thetad": thetad, "q": q, "qd": qd,
            "t_latch": t_l, "latch": latch, "energy": energy}


# --------------------------------------------------------------------------------------
# bouncing
# --------------------------------------------------------------------------------------


def bouncing_sequence(
    H0: float,
    e: float,
    g: float = 9.81,
    *,
    h_min: float | None = None,
    v_min: float | None = None,
    max_impacts: int = 10_000,
) -> dict:
    """Impacts of a point mass (or a bar landing flat) dropped from rest at height ``H0``.

    Parameters
    ----------
    H0 : float
        Initial height of the point (the bar's lower side) above the floor.
    e : float
        Restitution in ``[0, 1)``.
    g : float
        Gravity.
    h_min : float, optional
        Stop after the first impact whose rebound height ``e^{2k} H0`` is below ``h_min``.
    v_min : float, optional
        Stop at the first impact whose approach speed ``e^{k-1} v1`` is below ``v_min``
        (a resting-contact threshold): that impact is included, the point then rests.
    max_impacts : int
        Safety bound.

    Returns
    -------
    dict
        ``t`` (k,) impact times; ``v_minus`` (k,) approach velocities (negative, m/s);
        ``v_plus`` (k,) rebound velocities ``-e v_minus``; ``height_after`` (k,) rebound
        heights; ``t_inf`` Zeno limit ``t1 (1 + e)/(1 - e)``; ``t_rest`` time of the last
        listed impact; ``energy_lost`` (k,) per unit mass, ``(1 - e^2) v_minus^2/2``.
    """
    if not 0.0 <= e < 1.0:
        raise ValueError(f"restitution must be in [0, 1) for a finite sequence, got {e}")
    if H0 <= 0.0 or g <= 0.0:
        raise ValueError("H0 and g must be positive")
    if h_min is None and v_min is None:
        raise ValueError("give h_min or v_min")
    t1, v1 = math.sqrt(2.0 * H0 / g), math.sqrt(2.0 * g * H0)
    ts, vm = [], []
    for k in range(1, max_impacts + 1):
        vk = v1 * e ** (k - 1)
        tk = t1 + 2.0 * e * v1 / g * (1.0 - e ** (k - 1)) / (1.0 - e) if e > 0 else t1
        ts.append(tk)
        vm.append(-vk)
        if v_min is not None and vk < v_min:
            break
        if h_min is not None and e ** (2 * k) * H0 < h_min:
            break
        if e == 0.0:
            break
    else:
        raise RuntimeError("max_impacts reached")
    vm = np.array(vm)
    vp = -e * vm
    return {"t": np.array(ts), "v_minus": vm, "v_plus": vp,
            "height_after": vp**2 / (2.0 * g), "t_inf": t1 * (1.0 + e) / (1.0 - e),
            "t_rest": ts[-1], "energy_lost": 0.5 * (1.0 - e * e) * vm**2}
