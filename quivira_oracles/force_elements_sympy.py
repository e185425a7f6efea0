"""Independent SymPy-mechanics oracle for springs, dampers and actuators on planar bars.

This module does not use Quivira. It builds planar pin-jointed bar models with
:mod:`sympy.physics.mechanics` (``RigidBody``, ``Point``, ``ReferenceFrame``,
``LagrangesMethod``) and the load objects of :mod:`sympy.physics.mechanics.actuator`
(``LinearSpring``, ``LinearDamper`` and ``TorqueActuator`` on a ``LinearPathway``), in
maximal coordinates with the pins as holonomic constraints, and returns lambdified
accelerations and multipliers. It also holds the model descriptions ("specs") shared with
the Exudyn oracle :mod:`oracles.force_elements_exudyn` and a few closed forms.

Conventions (the same as Quivira's)
-----------------------------------
* Bar ``i`` has generalized coordinates ``(x_i, y_i, theta_i)`` of its centre; the point at
  local coordinate ``s`` in ``[-0.5, 0.5]`` is ``centre + s*L_i*(cos theta_i, sin theta_i)``.
  Mass ``m_i``, inertia about the centre ``m_i*L_i**2/12``. Gravity ``g`` along ``-y``.
  SI units. ``q = [x_0, y_0, theta_0, x_1, ...]``, state ``[q..., qd...]``.
* Multipliers: Lagrange's equations read ``d/dt dL/dqd - dL/dq = Q_nc + J^T lam`` with
  ``J = dPhi/dq``, i.e. ``M qdd = f(q, qd, t) + J^T lam``, so ``J^T lam`` is the generalized
  constraint force. Constraint rows, in this order: for each joint ``(a, s_a, b, s_b)`` of
  ``spec["joints"]`` the two rows ``p_b(s_b) - p_a(s_a) = 0`` (x then y); then for each
  ground pin ``(bar, s)`` of ``spec["ground_pins"]`` the rows ``p_bar(s) - X = 0`` (x then
  y), ``X`` being the initial location of that point. Hence ``lam`` of a ground pin is the
  force of the pin ON the bar and ``lam`` of a joint the force of the joint ON bar ``b``.
  SymPy 1.14 stores ``lam_coeffs = -J`` and ``mass_matrix = [M, -J^T]``; the multipliers
  solved from ``mass_matrix_full @ (qd, qdd, lam) = forcing_full`` are therefore exactly the
  ones above (checked against statics in ``tests/integration/test_force_element_oracles.py``: a bar
  hanging from a pin gives ``lam = (0, m g)``). ``LM.eom`` has the opposite sign of ``lam``
  (sympy/sympy#30215); it is not used here.

Force elements (semantics of Exudyn 1.13.6, see :mod:`oracles.force_elements_exudyn`)
------------------------------------------------------------------------------------
* Point-to-point spring-damper between end points ``p_a`` and ``p_b`` (a bar point or a
  fixed ground point each): ``d = |p_b - p_a|``, ``u = (p_b - p_a)/d``, tension
  ``f = k (d - l0) + c dd/dt`` (positive when pulling the ends together); the force on end
  ``b`` is ``-f u`` and on end ``a`` is ``+f u``. Elastic energy ``k (d - l0)**2 / 2``,
  dissipated power ``c (dd/dt)**2``. Built with ``LinearSpring(k, LinearPathway(Pa, Pb),
  l0)`` and ``LinearDamper(c, pathway)``; SymPy's pathway force is expansile (positive
  pushes apart), so the tension is ``-(spring.force + damper.force)``.
* Torsional spring-damper between bars ``a`` and ``b`` (``a = None``: ground): relative
  angle ``phi = theta_b - theta_a`` (``theta_b`` for ground; NOT wrapped to
  ``(-pi, pi]``), element torque ``tau = k_theta (phi - phi0) + c_theta dphi/dt + tau0``;
  the generalized force is ``-tau`` on ``theta_b`` and ``+tau`` on ``theta_a``. So a
  positive preload ``tau0`` acts like the rest angle ``phi0 - tau0/k_theta``.
  Energy ``k_theta (phi - phi0)**2 / 2 + tau0 (phi - phi0)`` (the preload is
  conservative; its potential is counted with the elastic energy), dissipated power
  ``c_theta (dphi/dt)**2``. Built with two ``TorqueActuator(T, N.z, B_b, B_a)`` (spring
  plus preload, damper), which apply ``T`` to ``B_b`` and ``-T`` to ``B_a``; ``T = -tau``.
* Force actuator: ``(fx(t), fy(t))`` in the ground frame at bar point ``s``. SymPy's
  ``ForceActuator`` acts only along a pathway, so this one is a plain ``Force`` load.
  Power ``f . v_P``.
* Torque on a bar: ``TorqueActuator(tau(t), N.z, B_i)``, counter-clockwise positive,
  generalized force ``+tau`` on ``theta_i``. Power ``tau * dtheta_i/dt``.
* Torque between two bars ``a``, ``b``: ``TorqueActuator(tau(t), N.z, B_b, B_a)``: ``+tau``
  on ``theta_b``, ``-tau`` on ``theta_a`` (it drives ``phi = theta_b - theta_a`` up; note
  the opposite sign of the RESTORING torsional element torque above). Power
  ``tau * dphi/dt``.
* Time laws: a float (constant) or a dict ``{"A", "omega", "phase"=0, "offset"=0}`` meaning
  ``offset + A*sin(omega*t + phase)``.

Energy ledger of :func:`simulate_sympy`: ``energy = kinetic + gravity + elastic``,
``gravity = sum(m g y)``, ``work_in`` = time integral of the actuator power,
``dissipated`` = time integral of the damper power (both integrated as extra ODE states), so
``energy - energy[0] - work_in + dissipated`` is zero up to the integration error.

Spec format (plain dicts; used by both oracles)
-----------------------------------------------
``{"bars": [{x, y, theta, length, mass, vx, vy, omega}], "joints": [(a, s_a, b, s_b)],
"ground_pins": [(bar, s)], "springs": [{a, s_a | point_a, b, s_b | point_b, k, l0, c}],
"torsional_springs": [{a, b, k, phi0, c, tau0}], "forces": [{bar, s, fx, fy}],
"torques": [{bar, tau}], "relative_torques": [{a, b, tau}], "g": float}``; ``a = None``
means ground (then ``point_a = (X, Y)`` for a spring). Initial velocities must be
consistent with the pins (the spec builders below make them so).

Accuracy: :meth:`SympyForceModel.accelerations` solves the small KKT system in double
precision (relative error ~1e-14). :func:`simulate_sympy` integrates the index-1 ODE with
``solve_ivp`` (DOP853, ``rtol = atol = 1e-12`` by default), without constraint
stabilization. Measured over 2 s (201 outputs) for the spec builders below, with springs,
dampers, preloads and actuators switched on: pin residual ``max |Phi|`` <= 4.4e-12 m and
``max |energy - E0 - W + D|`` <= 7.5e-12 of the peak kinetic energy (<= 1.3e-10 J).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp
from sympy.physics.mechanics import (
    Force,
    LagrangesMethod,
    LinearDamper,
    LinearPathway,
    LinearSpring,
    Point,
    ReferenceFrame,
    RigidBody,
    TorqueActuator,
    dynamicsymbols,
    inertia,
)

__all__ = [
    "SympyForceModel",
    "bar_point",
    "build_sympy_model",
    "chain_bars",
    "damped_torsional_pendulum_angle",
    "force_actuated_pendulum_spec",
    "lever_equilibrium",
    "lever_level_rest_length",
    "lever_spec",
    "logarithmic_decrement",
    "simulate_sympy",
    "spring_pendulum_spec",
    "time_law",
    "torsional_pendulum_damping_ratio",
    "torsional_pendulum_omega",
    "torsional_pendulum_spec",
    "two_bar_chain_spec",
]

T_SYM = dynamicsymbols._t

TimeLaw = float | dict


# ------------------------------------------------------------------------------------------
# time laws
# ------------------------------------------------------------------------------------------


def _law_parts(law: TimeLaw) -> tuple[float, float, float, float]:
    if isinstance(law, dict):
        return (
            float(law["A"]),
            float(law["omega"]),
            float(law.get("phase", 0.0)),
            float(law.get("offset", 0.0)),
        )
    return 0.0, 0.0, 0.0, float(law)


def time_law(law: TimeLaw, t: float) -> float:
    """Value of a time law, ``offset + A*sin(omega*t + phase)`` (a float is a constant).

    Parameters
    ----------
    law : float or dict
        Constant, or ``{"A", "omega", "phase"=0, "offset"=0}``.
    t : float
        Time [s].

    Returns
    -------
    float
        The value at ``t``.
    """
    a, w, p, c = _law_parts(law)
    return c + a * math.sin(w * t + p)


def _law_sym(law: TimeLaw) -> sp.Expr:
    a, w, p, c = _law_parts(law)
    return sp.Float(c) + sp.Float(a) * sp.sin(sp.Float(w) * T_SYM + sp.Float(p))


# ------------------------------------------------------------------------------------------
# specs
# ------------------------------------------------------------------------------------------


def chain_bars(
    lengths: Sequence[float],
    masses: Sequence[float],
    thetas: Sequence[float],
    omegas: Sequence[float] | None = None,
    pivot: Sequence[float] = (0.0, 0.0),
) -> list[dict]:
    """Poses and consistent velocities of an open chain hanging from ``pivot``.

    Bar 0's ``s = -0.5`` end is at ``pivot``; bar ``i``'s ``s = -0.5`` end is at bar
    ``i-1``'s ``s = +0.5`` end. With ``e_i = (cos theta_i, sin theta_i)`` and
    ``n_i = (-sin theta_i, cos theta_i)``: ``c_i = p_i + L_i e_i / 2``,
    ``v_ci = v_pi + omega_i L_i n_i / 2``, ``p_{i+1} = p_i + L_i e_i``,
    ``v_p{i+1} = v_pi + omega_i L_i n_i``.

    Parameters
    ----------
    lengths, masses, thetas : sequence of float
        Bar lengths [m], masses [kg] and absolute angles [rad].
    omegas : sequence of float, optional
        Absolute angular velocities [rad/s] (default zero).
    pivot : (float, float)
        Location of the first bar's ``s = -0.5`` end.

    Returns
    -------
    list of dict
        ``{x, y, theta, length, mass, vx, vy, omega}`` per bar.
    """
    omegas = [0.0] * len(lengths) if omegas is None else list(omegas)
    p = np.array(pivot, dtype=float)
    v = np.zeros(2)
    bars = []
    for L, m, th, om in zip(lengths, masses, thetas, omegas, strict=True):
        e = np.array([math.cos(th), math.sin(th)])
        n = np.array([-math.sin(th), math.cos(th)])
        c, vc = p + 0.5 * L * e, v + 0.5 * om * L * n
        bars.append(
            {
                "x": float(c[0]),
                "y": float(c[1]),
                "theta": float(th),
                "length": float(L),
                "mass": float(m),
                "vx": float(vc[0]),
                "vy": float(vc[1]),
                "omega": float(om),
            }
        )
        p, v = p + L * e, v + om * L * n
    return bars


def bar_point(bar: dict, s: float) -> np.ndarray:
    """Global position ``(x, y) + s L (cos theta, sin theta)`` of a bar point of a spec."""
    c, sn = math.cos(bar["theta"]), math.sin(bar["theta"])
    return np.array([bar["x"] + s * bar["length"] * c, bar["y"] + s * bar["length"] * sn])


def _empty_spec(bars, g):
    return {
        "bars": bars,
        "joints": [],
        "ground_pins": [],
        "springs": [],
        "torsional_springs": [],
        "forces": [],
        "torques": [],
        "relative_torques": [],
        "g": float(g),
    }


def spring_pendulum_spec(
    *,
    mass: float = 2.0,
    length: float = 1.5,
    theta: float = -0.4,
    omega: float = 0.0,
    anchor: Sequence[float] = (1.2, 0.6),
    k: float = 60.0,
    l0: float | None = 0.5,
    c: float = 0.0,
    s_spring: float = 0.5,
    pivot: Sequence[float] = (0.0, 0.0),
    g: float = 9.81,
) -> dict:
    """Bar pinned to ground at its ``s = -0.5`` end with a spring-damper to a ground point.

    The spring runs from the ground point ``anchor`` (end ``a``) to the bar point
    ``s_spring`` (end ``b``). ``l0 = None`` means the initial distance.

    Returns
    -------
    dict
        A spec (see the module docstring).
    """
    spec = _empty_spec(chain_bars([length], [mass], [theta], [omega], pivot), g)
    spec["ground_pins"].append((0, -0.5))
    if l0 is None:
        l0 = float(np.linalg.norm(bar_point(spec["bars"][0], s_spring) - np.asarray(anchor)))
    spec["springs"].append(
        {
            "a": None,
            "point_a": (float(anchor[0]), float(anchor[1])),
            "b": 0,
            "s_b": float(s_spring),
            "k": float(k),
            "l0": float(l0),
            "c": float(c),
        }
    )
    return spec


def _torsional(a, b, d, phi_init):
    phi0 = d.get("phi0")
    return {
        "a": a,
        "b": b,
        "k": float(d["k"]),
        "phi0": float(phi_init if phi0 is None else phi0),
        "c": float(d.get("c", 0.0)),
        "tau0": float(d.get("tau0", 0.0)),
    }


def two_bar_chain_spec(
    *,
    masses: Sequence[float] = (2.0, 1.2),
    lengths: Sequence[float] = (1.5, 1.0),
    thetas: Sequence[float] = (-0.9, 0.3),
    omegas: Sequence[float] = (0.0, 0.0),
    joint_spring: dict | None = None,
    ground_spring: dict | None = None,
    joint_torque: TimeLaw | None = None,
    pivot: Sequence[float] = (0.0, 0.0),
    g: float = 9.81,
) -> dict:
    """Two-bar chain: bar 0 pinned to ground at ``s = -0.5``, bar 1 pinned to bar 0's tip.

    Parameters
    ----------
    masses, lengths, thetas, omegas : pairs of float
        Data of bars 0 and 1 (absolute angles and angular velocities).
    joint_spring : dict, optional
        ``{k, phi0=None, c=0, tau0=0}``: torsional spring-damper between bar 0 (``a``) and
        bar 1 (``b``), ``phi = theta_1 - theta_0``; ``phi0 = None`` means the initial
        relative angle.
    ground_spring : dict, optional
        The same between ground (``a = None``) and bar 0, ``phi = theta_0``.
    joint_torque : time law, optional
        Actuator torque between the bars: ``+tau(t)`` on bar 1, ``-tau(t)`` on bar 0.
    pivot : (float, float)
        Ground pin location.
    g : float
        Gravity along ``-y``.

    Returns
    -------
    dict
        A spec (see the module docstring).
    """
    spec = _empty_spec(chain_bars(lengths, masses, thetas, omegas, pivot), g)
    spec["ground_pins"].append((0, -0.5))
    spec["joints"].append((0, 0.5, 1, -0.5))
    if joint_spring is not None:
        spec["torsional_springs"].append(
            _torsional(0, 1, joint_spring, float(thetas[1]) - float(thetas[0]))
        )
    if ground_spring is not None:
        spec["torsional_springs"].append(_torsional(None, 0, ground_spring, float(thetas[0])))
    if joint_torque is not None:
        spec["relative_torques"].append({"a": 0, "b": 1, "tau": joint_torque})
    return spec


def torsional_pendulum_spec(
    *,
    mass: float = 2.0,
    length: float = 1.5,
    k_theta: float = 30.0,
    phi0: float = 0.0,
    c_theta: float = 0.0,
    tau0: float = 0.0,
    theta: float = 0.3,
    omega: float = 0.0,
    g: float = 0.0,
) -> dict:
    """One bar pinned to ground at ``s = -0.5`` (at the origin) with a torsional spring there.

    The torsional spring-damper is between ground and the bar (``phi = theta``).

    Returns
    -------
    dict
        A spec (see the module docstring).
    """
    spec = _empty_spec(chain_bars([length], [mass], [theta], [omega]), g)
    spec["ground_pins"].append((0, -0.5))
    spec["torsional_springs"].append(
        _torsional(None, 0, {"k": k_theta, "phi0": phi0, "c": c_theta, "tau0": tau0}, theta)
    )
    return spec


def force_actuated_pendulum_spec(
    *,
    mass: float = 2.0,
    length: float = 1.5,
    theta: float = -0.4,
    omega: float = 0.0,
    s_force: float = 0.5,
    fx: TimeLaw = 0.0,
    fy: TimeLaw = 0.0,
    torque: TimeLaw | None = None,
    g: float = 9.81,
) -> dict:
    """Bar pinned to ground at ``s = -0.5`` driven by a ground-frame force at ``s_force``.

    ``torque`` (optional) adds a torque actuator on the bar (counter-clockwise positive).

    Returns
    -------
    dict
        A spec (see the module docstring).
    """
    spec = _empty_spec(chain_bars([length], [mass], [theta], [omega]), g)
    spec["ground_pins"].append((0, -0.5))
    spec["forces"].append({"bar": 0, "s": float(s_force), "fx": fx, "fy": fy})
    if torque is not None:
        spec["torques"].append({"bar": 0, "tau": torque})
    return spec


def lever_spec(
    *,
    mass: float = 2.0,
    length: float = 1.5,
    k: float = 400.0,
    l0: float = 0.4,
    height: float = 0.5,
    c: float = 0.0,
    theta: float = 0.0,
    g: float = 9.81,
) -> dict:
    """Spring-loaded lever: bar pinned at ``s = -0.5`` to the origin, spring tip -> above.

    The spring runs from the ground point ``(length, height)`` (end ``a``) to the bar tip
    ``s = +0.5`` (end ``b``); the bar starts at angle ``theta`` at rest.

    Returns
    -------
    dict
        A spec (see the module docstring).
    """
    spec = _empty_spec(chain_bars([length], [mass], [theta]), g)
    spec["ground_pins"].append((0, -0.5))
    spec["springs"].append(
        {
            "a": None,
            "point_a": (float(length), float(height)),
            "b": 0,
            "s_b": 0.5,
            "k": float(k),
            "l0": float(l0),
            "c": float(c),
        }
    )
    return spec


# ------------------------------------------------------------------------------------------
# SymPy model
# ------------------------------------------------------------------------------------------


@dataclass
class SympyForceModel:
    """Lambdified SymPy model of a spec (see :func:`build_sympy_model`).

    Attributes
    ----------
    spec : dict
        The spec it was built from.
    n, m : int
        Number of coordinates ``3*nbars`` and of constraint rows.
    q, qd : list
        SymPy dynamic symbols of the coordinates and their time derivatives.
    lagranges : LagrangesMethod
        The SymPy object (equations already formed).
    constraint_labels : list of str
        One label per multiplier, e.g. ``"joint0.x"``, ``"pin0.y"``.
    """

    spec: dict
    n: int
    m: int
    q: list
    qd: list
    lagranges: LagrangesMethod
    constraint_labels: list[str]
    _funcs: dict[str, Any] = field(repr=False)

    def _call(self, name, q, qd, t):
        return self._funcs[name](float(t), *np.asarray(q, float), *np.asarray(qd, float))

    def accelerations(self, q, qd, t: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """Accelerations and multipliers at ``(q, qd, t)``.

        Solves ``M qdd - J^T lam = f``, ``J qdd = -Jdot qd`` (SymPy's ``mass_matrix_full``
        and ``forcing_full``), i.e. ``M qdd = f + J^T lam`` with Quivira's sign.

        Parameters
        ----------
        q, qd : array_like (n,)
            Coordinates and velocities.
        t : float
            Time (actuator laws).

        Returns
        -------
        qdd : ndarray (n,)
        lam : ndarray (m,)
            Multipliers, ordered as ``constraint_labels``.
        """
        mmf = np.asarray(self._call("mmf", q, qd, t), dtype=float)
        ff = np.asarray(self._call("ff", q, qd, t), dtype=float).reshape(-1)
        sol = np.linalg.solve(mmf, ff)
        return sol[self.n : 2 * self.n], sol[2 * self.n :]

    def mass_matrix(self, q) -> np.ndarray:
        """Mass matrix ``M`` (block diagonal ``diag(m, m, m L^2/12)``)."""
        return np.asarray(self._call("M", q, np.zeros(self.n), 0.0), dtype=float)

    def generalized_forces(self, q, qd, t: float = 0.0) -> np.ndarray:
        """``f``: all applied generalized forces (gravity, elements, actuators), ``(n,)``."""
        return np.asarray(self._call("f", q, qd, t), dtype=float).reshape(-1)

    def constraint_jacobian(self, q) -> np.ndarray:
        """``J = dPhi/dq`` (m, n), rows ordered as ``constraint_labels``."""
        return np.asarray(self._call("J", q, np.zeros(self.n), 0.0), dtype=float)

    def constraints(self, q) -> np.ndarray:
        """Constraint residual ``Phi(q)`` (m,)."""
        return np.asarray(self._call("phi", q, np.zeros(self.n), 0.0), dtype=float).reshape(-1)

    def spring_forces(self, q, qd) -> np.ndarray:
        """Tension ``k (d - l0) + c dd/dt`` of every spring-damper (tension positive) [N]."""
        return np.asarray(self._call("tension", q, qd, 0.0), dtype=float).reshape(-1)

    def spring_lengths(self, q) -> np.ndarray:
        """Current length ``d`` of every spring-damper [m]."""
        return np.asarray(self._call("length", q, np.zeros(self.n), 0.0), float).reshape(-1)

    def torsional_torques(self, q, qd) -> np.ndarray:
        """Element torque ``k (phi - phi0) + c dphi/dt + tau0`` of every torsional element."""
        return np.asarray(self._call("torque", q, qd, 0.0), dtype=float).reshape(-1)

    def torsional_angles(self, q) -> np.ndarray:
        """Relative angle ``phi = theta_b - theta_a`` of every torsional element [rad]."""
        return np.asarray(self._call("phi_rel", q, np.zeros(self.n), 0.0), float).reshape(-1)

    def energy_parts(self, q, qd) -> dict[str, float]:
        """``kinetic``, ``gravity`` (``sum m g y``), ``elastic`` and their sum ``energy``."""
        e = np.asarray(self._call("energies", q, qd, 0.0), dtype=float).reshape(-1)
        kin, grav, ela = (float(v) for v in e)
        return {"kinetic": kin, "gravity": grav, "elastic": ela, "energy": kin + grav + ela}

    def power_in(self, q, qd, t: float) -> float:
        """Power of the actuators (forces, torques, relative torques) [W]."""
        return float(self._call("p_in", q, qd, t))

    def power_dissipated(self, q, qd) -> float:
        """Power dissipated by the dampers, ``sum c dd^2 + sum c_theta dphi^2`` [W] (>= 0)."""
        return float(self._call("p_diss", q, qd, 0.0))

    def initial_state(self) -> np.ndarray:
        """``[q0, qd0]`` of the spec (absolute coordinates and velocities)."""
        bars = self.spec["bars"]
        q0 = [v for b in bars for v in (b["x"], b["y"], b["theta"])]
        qd0 = [float(b.get(k, 0.0)) for b in bars for k in ("vx", "vy", "omega")]
        return np.array(q0 + qd0, dtype=float)

    def rhs(self, t: float, y) -> np.ndarray:
        """``d/dt [q, qd] = [qd, qdd]`` for ``solve_ivp``."""
        q, qd = y[: self.n], y[self.n : 2 * self.n]
        qdd, _ = self.accelerations(q, qd, t)
        return np.concatenate([qd, qdd])


def build_sympy_model(spec: dict) -> SympyForceModel:
    """Build a spec with :mod:`sympy.physics.mechanics` and lambdify it.

    Kinematics: frame ``N``, origin ``O``; bar ``i`` has frame ``B_i`` rotated by
    ``theta_i`` about ``N.z``, centre ``C_i = O + x_i N.x + y_i N.y`` and is a ``RigidBody``
    with mass ``m_i`` and central inertia ``m_i L_i^2/12`` about ``B_i.z``. The Lagrangian is
    ``T - sum m_i g y_i``; the pins enter ``LagrangesMethod`` as ``hol_coneqs`` and the
    elements as loads (see the module docstring for the formulas and signs).

    Parameters
    ----------
    spec : dict
        Model description (see the module docstring).

    Returns
    -------
    SympyForceModel
    """
    bars = spec["bars"]
    nb = len(bars)
    g = sp.Float(spec.get("g", 9.81))
    N = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(N, 0)

    q, qd, frames, centres, bodies, lengths = [], [], [], [], [], []
    for i, b in enumerate(bars):
        x, y, th = dynamicsymbols(f"x{i} y{i} theta{i}")
        q += [x, y, th]
        qd += [x.diff(T_SYM), y.diff(T_SYM), th.diff(T_SYM)]
        B = ReferenceFrame(f"B{i}")
        B.orient_axis(N, N.z, th)
        C = O.locatenew(f"C{i}", x * N.x + y * N.y)
        C.set_vel(N, x.diff(T_SYM) * N.x + y.diff(T_SYM) * N.y)
        m, L = sp.Float(b["mass"]), sp.Float(b["length"])
        Ic = m * L**2 / 12
        body = RigidBody(f"bar{i}", C, B, m, (inertia(B, 0, Ic, Ic), C))
        body.potential_energy = m * g * y
        frames.append(B)
        centres.append(C)
        bodies.append(body)
        lengths.append(L)

    def theta(i):
        return q[3 * i + 2]

    def point(bar, s, name):
        if bar is None:
            raise ValueError("a bar point needs a bar index")
        if not 0 <= bar < nb:
            raise ValueError(f"no bar {bar}")
        P = centres[bar].locatenew(name, sp.Float(s) * lengths[bar] * frames[bar].x)
        P.v2pt_theory(centres[bar], N, frames[bar])
        return P

    def ground_point(xy, name):
        P = O.locatenew(name, sp.Float(xy[0]) * N.x + sp.Float(xy[1]) * N.y)
        P.set_vel(N, 0)
        return P

    def xy(P):
        r = P.pos_from(O)
        return [r.dot(N.x), r.dot(N.y)]

    # --- constraints ---
    hol, labels = [], []
    for j, (a, sa, b, sb) in enumerate(spec.get("joints", ())):
        pa, pb = xy(point(a, sa, f"J{j}a")), xy(point(b, sb, f"J{j}b"))
        hol += [pb[0] - pa[0], pb[1] - pa[1]]
        labels += [f"joint{j}.x", f"joint{j}.y"]
    for p, (bi, s) in enumerate(spec.get("ground_pins", ())):
        X = bar_point(bars[bi], s)
        pp = xy(point(bi, s, f"G{p}"))
        hol += [pp[0] - sp.Float(X[0]), pp[1] - sp.Float(X[1])]
        labels += [f"pin{p}.x", f"pin{p}.y"]

    # --- loads ---
    conservative, dampers, actuators = [], [], []
    tensions, spring_lengths, elastic = [], [], []
    for k_, sd in enumerate(spec.get("springs", ())):
        ends = []
        for end in ("a", "b"):
            if sd.get(end) is None:
                ends.append(ground_point(sd[f"point_{end}"], f"S{k_}{end}"))
            else:
                ends.append(point(sd[end], sd[f"s_{end}"], f"S{k_}{end}"))
        if float(sd["k"]) < 0 or float(sd.get("c", 0.0)) < 0:
            raise ValueError("negative stiffness or damping")
        path = LinearPathway(*ends)
        spring = LinearSpring(sp.Float(sd["k"]), path, sp.Float(sd["l0"]))
        damper = LinearDamper(sp.Float(sd.get("c", 0.0)), path)
        conservative += spring.to_loads()
        dampers += damper.to_loads()
        tensions.append(-(spring.force + damper.force))
        spring_lengths.append(path.length)
        elastic.append(sp.Float(sd["k"]) * (path.length - sp.Float(sd["l0"])) ** 2 / 2)
    torques, phis = [], []
    for ts in spec.get("torsional_springs", ()):
        a, b = ts["a"], ts["b"]
        phi = theta(b) - (0 if a is None else theta(a))
        phid = phi.diff(T_SYM)
        kt, c, tau0 = sp.Float(ts["k"]), sp.Float(ts.get("c", 0.0)), sp.Float(ts.get("tau0", 0.0))
        phi0 = sp.Float(ts["phi0"])
        react = N if a is None else frames[a]
        spring_torque = -(kt * (phi - phi0) + tau0)
        conservative += TorqueActuator(spring_torque, N.z, frames[b], react).to_loads()
        dampers += TorqueActuator(-c * phid, N.z, frames[b], react).to_loads()
        torques.append(kt * (phi - phi0) + c * phid + tau0)
        phis.append(phi)
        elastic.append(kt * (phi - phi0) ** 2 / 2 + tau0 * (phi - phi0))
    for j, fa in enumerate(spec.get("forces", ())):
        P = point(fa["bar"], fa["s"], f"F{j}")
        # no SymPy actuator applies a fixed-direction force: a plain Force load
        actuators.append(Force(P, _law_sym(fa["fx"]) * N.x + _law_sym(fa["fy"]) * N.y))
    for ta in spec.get("torques", ()):
        actuators += TorqueActuator(_law_sym(ta["tau"]), N.z, frames[ta["bar"]]).to_loads()
    for ta in spec.get("relative_torques", ()):
        react = N if ta["a"] is None else frames[ta["a"]]
        actuators += TorqueActuator(_law_sym(ta["tau"]), N.z, frames[ta["b"]], react).to_loads()

    L_sym = sum((bd.kinetic_energy(N) for bd in bodies), sp.S.Zero) - sum(
        (bd.potential_energy for bd in bodies), sp.S.Zero
    )
    loads = conservative + dampers + actuators
    LM = LagrangesMethod(L_sym, q, hol_coneqs=hol or None, forcelist=loads or None, frame=N)
    LM.form_lagranges_equations()

    def power(load_list):
        tot = sp.S.Zero
        for ld in load_list:
            loc, vec = ld
            if isinstance(loc, ReferenceFrame):
                tot += vec.dot(loc.ang_vel_in(N))
            else:
                tot += vec.dot(loc.vel(N))
        return tot

    n = 3 * nb
    m = len(hol)
    qs = sp.symbols(f"q0:{n}")
    qds = sp.symbols(f"qd0:{n}")
    ts_ = sp.Symbol("t")
    rep = {d: s for d, s in zip(qd, qds)}
    rep.update({a: s for a, s in zip(q, qs)})
    rep[T_SYM] = ts_

    def lam(expr):
        if isinstance(expr, list | tuple):
            expr = sp.Matrix(expr) if expr else sp.zeros(0, 1)
        e = sp.sympify(expr).xreplace(rep)
        return sp.lambdify([ts_, *qs, *qds], e, "numpy")

    kinetic = sum((bd.kinetic_energy(N) for bd in bodies), sp.S.Zero)
    gravity = sum((bd.potential_energy for bd in bodies), sp.S.Zero)
    Mfull = LM.mass_matrix_full
    funcs = {
        "mmf": lam(Mfull),
        "ff": lam(LM.forcing_full),
        "M": lam(LM.mass_matrix[:, :n]),
        "f": lam(LM.forcing),
        "J": lam(-LM.lam_coeffs if m else sp.zeros(0, n)),
        "phi": lam(hol),
        "tension": lam(tensions),
        "length": lam(spring_lengths),
        "torque": lam(torques),
        "phi_rel": lam(phis),
        "energies": lam([kinetic, gravity, sum(elastic, sp.S.Zero)]),
        "p_in": lam(power(actuators)),
        "p_diss": lam(-power(dampers)),
    }
    return SympyForceModel(spec, n, m, q, qd, LM, labels, funcs)


def simulate_sympy(
    model: SympyForceModel,
    t_end: float,
    times: Sequence[float] | int = 101,
    *,
    rtol: float = 1e-12,
    atol: float = 1e-12,
    method: str = "DOP853",
    y0: Sequence[float] | None = None,
) -> dict[str, np.ndarray]:
    """Integrate a :class:`SympyForceModel` with ``scipy.integrate.solve_ivp``.

    The state is ``[q, qd, W, D]`` with ``dW/dt`` = actuator power and ``dD/dt`` = damper
    power, so ``energy - energy[0] - work_in + dissipated`` measures the integration error.

    Parameters
    ----------
    model : SympyForceModel
    t_end : float
        End time [s].
    times : int or sequence of float
        Output times, or their number (``linspace(0, t_end, times)``).
    rtol, atol : float
        ``solve_ivp`` tolerances.
    method : str
        ``solve_ivp`` method.
    y0 : array_like, optional
        Initial ``[q, qd]`` (default: the spec's).

    Returns
    -------
    dict
        ``t``; ``q``, ``qd`` (nt, n); ``lam`` (nt, m); ``spring_force``, ``spring_length``
        (nt, nsprings); ``torsional_torque``, ``torsional_angle`` (nt, ntorsional);
        ``kinetic``, ``gravity``, ``elastic``, ``energy``, ``work_in``, ``dissipated``
        (nt,); ``constraint_residual`` (nt,) = ``max |Phi(q)|``.
    """
    from scipy.integrate import solve_ivp

    n = model.n
    t_eval = np.linspace(0.0, t_end, times) if isinstance(times, int) else np.asarray(times)
    y_start = model.initial_state() if y0 is None else np.asarray(y0, dtype=float)

    def f(t, y):
        q, qd = y[:n], y[n : 2 * n]
        qdd, _ = model.accelerations(q, qd, t)
        return np.concatenate(
            [qd, qdd, [model.power_in(q, qd, t), model.power_dissipated(q, qd)]]
        )

    sol = solve_ivp(
        f, (0.0, float(t_end)), np.concatenate([y_start, [0.0, 0.0]]), method=method,
        t_eval=t_eval, rtol=rtol, atol=atol,
    )
    if not sol.success:
        raise RuntimeError(sol.message)
    Y = sol.y.T
    q, qd = Y[:, :n], Y[:, n : 2 * n]
    out: dict[str, list] = {k: [] for k in (
        "lam", "spring_force", "spring_length", "torsional_torque", "torsional_angle",
        "kinetic", "gravity", "elastic", "energy", "constraint_residual",
    )}
    for t, qi, qdi in zip(sol.t, q, qd):
        out["lam"].append(model.accelerations(qi, qdi, t)[1])
        out["spring_force"].append(model.spring_forces(qi, qdi))
        out["spring_length"].append(model.spring_lengths(qi))
        out["torsional_torque"].append(model.torsional_torques(qi, qdi))
        out["torsional_angle"].append(model.torsional_angles(qi))
        e = model.energy_parts(qi, qdi)
        for k in ("kinetic", "gravity", "elastic", "energy"):
            out[k].append(e[k])
        res = model.constraints(qi)
        out["constraint_residual"].append(float(np.max(np.abs(res))) if res.size else 0.0)
    res = {k: np.asarray(v, dtype=float) for k, v in out.items()}
    res.update(t=sol.t, q=q, qd=qd, work_in=Y[:, 2 * n], dissipated=Y[:, 2 * n + 1])
    return res


# ------------------------------------------------------------------------------------------
# closed forms
# ------------------------------------------------------------------------------------------


def torsional_pendulum_omega(k_theta: float, mass: float, length: float) -> float:
    """Natural angular frequency of a bar on a torsional spring about its pinned end.

    With gravity off, a uniform bar pinned at one end (``I_pivot = m L^2/3``) and a
    torsional spring ``k_theta`` at the pin obeys ``I_pivot theta'' = -k_theta (theta -
    phi0)`` EXACTLY (no small-angle approximation is involved), so
    ``omega^2 = k_theta / I_pivot = 3 k_theta / (m L^2)``.

    Returns
    -------
    float
        ``omega`` [rad/s].
    """
    return math.sqrt(k_theta / (mass * length**2 / 3.0))


def torsional_pendulum_damping_ratio(
    k_theta: float, c_theta: float, mass: float, length: float
) -> float:
    """Damping ratio ``zeta = c_theta / (2 sqrt(k_theta I_pivot))``, ``I_pivot = m L^2/3``."""
    return c_theta / (2.0 * math.sqrt(k_theta * mass * length**2 / 3.0))


def logarithmic_decrement(zeta: float) -> float:
    """Logarithmic decrement ``delta = 2 pi zeta / sqrt(1 - zeta^2)`` (``0 <= zeta < 1``).

    For ``I theta'' + c theta' + k (theta - phi0) = 0`` the deviation ``theta - phi0``
    is multiplied by exactly ``exp(-delta)`` over one damped period
    ``T_d = 2 pi / (omega sqrt(1 - zeta^2))``, at any time (not only at peaks).
    """
    if not 0.0 <= zeta < 1.0:
        raise ValueError("the logarithmic decrement needs 0 <= zeta < 1")
    return 2.0 * math.pi * zeta / math.sqrt(1.0 - zeta**2)


def damped_torsional_pendulum_angle(
    t,
    *,
    theta0: float,
    omega0: float,
    phi0: float,
    k_theta: float,
    c_theta: float,
    mass: float,
    length: float,
    tau0: float = 0.0,
):
    """Exact ``theta(t)`` of the (under)damped bar on a torsional spring, gravity off.

    ``I theta'' + c theta' + k (theta - phi0) + tau0 = 0`` with ``I = m L^2/3``; with
    ``theta_e = phi0 - tau0/k``, ``u = theta - theta_e``,
    ``u(t) = exp(-zeta w t) (u0 cos(w_d t) + (omega0 + zeta w u0)/w_d sin(w_d t))``,
    ``w = sqrt(k/I)``, ``w_d = w sqrt(1 - zeta^2)``.

    Returns
    -------
    ndarray or float
        ``theta(t)`` [rad].
    """
    w = torsional_pendulum_omega(k_theta, mass, length)
    z = torsional_pendulum_damping_ratio(k_theta, c_theta, mass, length)
    if z >= 1.0:
        raise ValueError("only the underdamped case is implemented")
    wd = w * math.sqrt(1.0 - z * z)
    theta_e = phi0 - tau0 / k_theta
    u0 = theta0 - theta_e
    t = np.asarray(t, dtype=float)
    u = np.exp(-z * w * t) * (u0 * np.cos(wd * t) + (omega0 + z * w * u0) / wd * np.sin(wd * t))
    return theta_e + u


def lever_level_rest_length(mass: float, k: float, height: float, g: float = 9.81) -> float:
    """Rest length that makes the spring-loaded lever of :func:`lever_spec` rest level.

    At ``theta = 0`` the spring is vertical with length ``height`` and tension
    ``k (height - l0)``; moments about the pin, ``k (height - l0) L = m g L/2``, give
    ``l0 = height - m g / (2 k)``; then the tension is ``m g/2`` and the pin reaction on
    the bar ``(0, m g/2)``.
    """
    return height - mass * g / (2.0 * k)


def lever_equilibrium(
    *, mass: float, length: float, k: float, l0: float, height: float, g: float = 9.81
) -> dict[str, Any]:
    """Static equilibrium of the spring-loaded lever of :func:`lever_spec` (statics only).

    Tip ``P = L (cos th, sin th)``, anchor ``A = (L, height)``, ``d = |A - P|``,
    ``u = (A - P)/d``, tension ``T = k (d - l0)`` (force ``T u`` on the tip). Moment about
    the pin: ``T (P_x u_y - P_y u_x) - m g (L/2) cos th = 0``, solved for ``th`` by
    bracketing around the small-deflection estimate ``th ~ (k (height - l0) - m g/2)/(k L)``
    (exact root to ~1e-15). Pin reaction on the bar (force balance):
    ``R = (0, m g) - T u``. For ``l0 = height - m g/(2k)`` the root is ``th = 0`` exactly.

    Returns
    -------
    dict
        ``theta`` [rad], ``tension`` [N], ``reaction`` (2,) [N], ``spring_length`` [m].
    """
    from scipy.optimize import brentq

    def parts(th):
        P = length * np.array([math.cos(th), math.sin(th)])
        r = np.array([length, height]) - P
        d = float(np.linalg.norm(r))
        u = r / d
        T = k * (d - l0)
        moment = T * (P[0] * u[1] - P[1] * u[0]) - mass * g * 0.5 * length * math.cos(th)
        return moment, T, u, d

    est = (k * (height - l0) - 0.5 * mass * g) / (k * length)
    if parts(est)[0] == 0.0:
        th = est
    else:
        step = max(abs(est), 1e-3)
        lo, hi = est - step, est + step
        while parts(lo)[0] * parts(hi)[0] > 0.0:
            step *= 1.5
            lo, hi = est - step, est + step
            if step > math.pi:
                raise RuntimeError("no equilibrium found near the estimate")
        th = brentq(lambda x: parts(x)[0], lo, hi, xtol=1e-16, rtol=4 * np.finfo(float).eps)
    _, T, u, d = parts(th)
    return {
        "theta": th,
        "tension": T,
        "reaction": np.array([0.0, mass * g]) - T * u,
        "spring_length": d,
    }
