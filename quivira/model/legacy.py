"""The model's methods of earlier releases, kept for one release with a warning.

``bar_joint_model`` has a small generic API (``add``, ``set``, ``remove``, ``element``,
``parameters``, ...) besides the contract's methods. The per-kind methods it had before
(``add_contact``, ``set_spring``, ``n_bars``, ...) are here: reading one of them on a model
warns once per call site with the replacement (:data:`REPLACEMENTS`) and runs it: a
PendingDeprecationWarning while the course moves to the new API, then a DeprecationWarning.
They go in the next release.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import numbers
from collections.abc import Sequence
from typing import Any

import heyoka as hy
import numpy as np

from .._repr import short_repr
from . import names
from .data import Bar, Particle, RigidBody, check_points, check_shape
from .elements import (
    KINDS,
    AngleStop,
    BodyPin,
    Contact,
    CoordinateConstraint,
    Distance,
    ForceActuator,
    GroundSlider,
    JointMotor,
    KnifeEdge,
    Latch,
    Parameter,
    PinInSlot,
    PinJoint,
    PointLoad,
    PrismaticJoint,
    RollingOnDisc,
    RollingOnLine,
    SpringDamper,
    Support,
    TorqueActuator,
    TorsionalSpring,
    UserConstraint,
    UserEvent,
    Weld,
)
from .elements.body_points import local_at
from .elements.switching import REST_SPEED
from .symbolic import parameter_layout
from .symbolic import parameter_symbols as _parameter_symbols
from .validation import (
    check_flag,
    check_index,
    check_point,
    check_positive,
    check_real,
    check_stabilization,
)

#: the earlier members that were properties (read as values, not called)
PROPERTIES = frozenset({"n_compiled", "n_bars", "bars", "joints", "supports", "forces",
                        "stabilization", "n_constraints", "constraint_names", "load_names",
                        "q", "qd"})

def n_compiled(self) -> int:
    """Return the number of compiled systems held in the cache (at most :attr:`cache_size`)."""
    return self._simulator.n_cached


def n_bars(self) -> int:
    """Return the number of bars."""
    return len(self._data.bars)


def bars(self) -> list[Bar]:
    """Return copies of the bar records (edit through the model's methods)."""
    return copy.deepcopy(self._data.bars)


def joints(self) -> list[PinJoint]:
    """Return copies of the pin joints."""
    return [e.copy() for e in self._data.of(PinJoint)]


def supports(self) -> list[Support]:
    """Return copies of the supports."""
    return [e.copy() for e in self._data.of(Support)]


def forces(self) -> list[PointLoad]:
    """Return copies of the point loads."""
    return [e.copy() for e in self._data.of(PointLoad)]


def _force_name(self, force_index: int) -> str:
    """Return the name of the constant point load ``force_index``."""
    loads = self._data.of(PointLoad)
    return loads[check_index(force_index, len(loads), "force")].name


def stabilization(self) -> float:
    """Baumgarte rate α (1/s) of :meth:`simulate` (default 10 per second)."""
    return self._data.stabilization


def n_constraints(self) -> int:
    """Return the number of constraint rows."""
    return len(self.constraint_labels)


def constraint_names(self) -> list[str]:
    """Names of the named constraints, in index order."""
    return self._data.names()


def coordinates(self, bar_index: int) -> tuple:
    """Return the heyoka variables ``(x, y, θ)`` of a bar (names ``x{i}``, ``y{i}``, ``th{i}``).

    Parameters
    ----------
    bar_index : int
        The bar.
    """
    i = self._editor.check_bar(bar_index, "bar_index")
    names = ("x", "y", "th")[:self._data.bars[i].n_coordinates]  # a particle: (x, y)
    return tuple(hy.make_vars(*(f"{c}{i}" for c in names)))


def velocities(self, bar_index: int) -> tuple:
    """Return the heyoka variables of a bar's velocities ``(vx{i}, vy{i}, om{i})``.

    Parameters
    ----------
    bar_index : int
        The bar.
    """
    i = self._editor.check_bar(bar_index, "bar_index")
    names = ("vx", "vy", "om")[:self._data.bars[i].n_coordinates]  # a particle: (vx, vy)
    return tuple(hy.make_vars(*(f"{c}{i}" for c in names)))


def parameter_values(self) -> np.ndarray:
    """Return the runtime parameter vector (``hy.par`` values) of the current data."""
    return np.array([v for _, v in parameter_layout(self._data)], dtype=float)


def parameter_keys(self) -> list[tuple]:
    """Return what each runtime parameter is.

    For example ``("bar", 2, "mass")`` or ``("joint", 0, 1, "sL")``.
    """
    return [k for k, _ in parameter_layout(self._data)]


def parameter_symbols(self) -> list[list[tuple[str, int]]]:
    """Return the readable symbol of each runtime parameter as factors ``(name, power)``.

    For example ``[("m_2", -1)]`` for :math:`1/m_2` (LaTeX names; empty where there is none).
    """
    return _parameter_symbols(self._data)


def set_bar_length(self, bar_index: int, length: float) -> None:
    """Change a bar's length (m), keeping its centre and angle.

    Parameters
    ----------
    bar_index : int
        The bar.
    length : float
        New length (m), positive.
    """
    i = self._editor.check_bar(bar_index, "bar_index")
    self._editor.set_bar(i, "bar length", length=check_positive(length, f"bar {i}: length"))


def set_bar_mass(self, bar_index: int, mass: float) -> None:
    """Change a bar's mass (kg).

    Parameters
    ----------
    bar_index : int
        The bar.
    mass : float
        New mass (kg), positive.
    """
    i = self._editor.check_bar(bar_index, "bar_index")
    self._editor.set_bar(i, "bar mass", mass=check_positive(mass, f"bar {i}: mass"))


def set_stabilization(self, rate: float) -> None:
    r"""Set the Baumgarte rate α (1/s) of :meth:`simulate`.

    It pulls a drifted state back onto the constraints.

    The residual then obeys :math:`\ddot F + 2α\dot F + α^2 F = 0` (velocity rows
    :math:`\dot g + α g = 0`) instead of growing with time. On the constraints the motion
    and the multipliers do not depend on α. A runtime parameter: no recompiling.

    Parameters
    ----------
    rate : float
        α in 1/s, >= 0; ``0`` switches the stabilization off (the plain index-1
        equations). The default, 10/s, suits linkages of metre-sized bars (motions of
        about a second); α is a frequency, so for a much larger or slower model choose it
        a few times its highest natural frequency (a large α on a slow model costs many
        small steps).
    """
    self._editor.set_value("stabilization", check_stabilization(rate))


def set_joint(self, joint_index: int, bar_index: Sequence[int] | None = None,
              s: Sequence[float] | None = None) -> None:
    """Change the bars and/or points of a joint.

    Parameters
    ----------
    joint_index : int
        The joint.
    bar_index, s : list, optional
        New bars and local coordinates (as :meth:`add_joint`); None keeps them.
    """
    joints = self._data.of(PinJoint)
    old = joints[check_index(joint_index, len(joints), "joint")]
    if bar_index is None:
        if s is not None:
            self.set(old.name, s=s)
        return
    # the bars are topology, not a value to set: the joint is replaced where it is, so that
    # its index (the rows' order) stays
    self._editor.replace(PinJoint, joint_index, lambda data, el, _: dataclasses.replace(
        el, bars=bar_index, s=el.s if s is None else s).checked(data.bars, el.name))


def set_support(self, support_index: int, *, x: float | None = None, y: float | None = None,
                s: float | None = None, dof_in_x: bool | None = None,
                dof_in_y: bool | None = None) -> None:
    """Change a support's position (m), point or free directions (None keeps a value).

    Parameters
    ----------
    support_index : int
        The support.
    x, y : float, optional
        Ground position (m).
    s : float, optional
        Local coordinate of the supported point.
    dof_in_x, dof_in_y : bool, optional
        Free directions.
    """
    i = check_index(support_index, len(self._data.of(Support)), "support")
    changes = {f: v for f, v in (("x", x), ("y", y), ("s", s), ("free_x", dof_in_x),
                                 ("free_y", dof_in_y)) if v is not None}
    self.set(self._data.of(Support)[i].name, **changes)


def set_force(self, force_index: int, *, fx: float | None = None, fy: float | None = None,
              torque: float | None = None, s: float | None = None) -> None:
    """Change a force's components (N), torque (N m) or point (None keeps a value).

    Parameters
    ----------
    force_index : int
        The force.
    fx, fy, torque, s : float, optional
        New values, as :meth:`add_external_force`.
    """
    values = {f: v for f, v in (("fx", fx), ("fy", fy), ("torque", torque), ("s", s))
              if v is not None}
    self.set(_force_name(self, force_index), **values)


def add_coordinate_constraint(self, bar0: int | None, bar1: int | None, X0: Any = None,
                              X1: Any = None, Y0: Any = None, Y1: Any = None,
                              offset: Any = None, *, velocity_level: bool = False,
                              active: bool = True, name: str | None = None) -> str:
    r"""Add Exudyn's coordinate-vector constraint.

    The rows are :math:`X_1 q_1 + Y_1 q_1^2 - X_0 q_0 - Y_0 q_0^2 - v_{off} = 0` (see
    :mod:`quivira.model.elements.coordinate`).

    Parameters
    ----------
    bar0, bar1 : int or None
        The bars whose ``(x, y, θ)`` are ``q0`` and ``q1``; None is ground (``q = 0``).
    X0, X1, Y0, Y1 : array_like, optional
        Linear and quadratic scaling matrices with 3 columns; empty/None are left out.
        The number of equations is the number of rows, the same for all non-empty ones.
    offset : array_like, optional
        :math:`v_{off}` (default zeros), in the units of the rows (m or rad; at velocity
        level m/s or rad/s).
    velocity_level : bool
        Constrain velocities instead (a velocity constraint).
    active : bool
        False: the rows become :math:`\lambda = 0` (see :meth:`set_constraint_active`).
    name : str, optional
        Its name (default ``"coordinate<k>"``, the first free k), used in the multiplier
        labels and for :meth:`Trajectory.constraint_output`.

    Returns
    -------
    str
        The constraint's name.
    """
    return self.add(CoordinateConstraint(bar0=bar0, bar1=bar1, X0=X0, X1=X1, Y0=Y0, Y1=Y1,
                                         offset=offset, velocity_level=velocity_level,
                                         active=active, name=name))


def add_constraint(self, exprs: Any, name: str | None = None, *,
                   velocity_level: bool = False) -> str:
    r"""Add constraint rows :math:`F(q, t) = 0` given as heyoka expressions.

    Parameters
    ----------
    exprs : heyoka.expression or list of them
        Rows in the coordinates of any bar (``model.coordinates(i)``, named ``x{i}``,
        ``y{i}``, ``th{i}``) and ``hy.time`` (driven, rheonomic constraints such as
        ``th0 - ω t``); each must involve at least one coordinate.
    name : str, optional
        Its name (default ``"constraint<k>"``, the first free k), used in the multiplier
        labels.
    velocity_level : bool
        The rows are velocity constraints :math:`A(q, t)\dot q + b(q, t) = 0` and may use
        ``model.velocities(i)``.

    Returns
    -------
    str
        The constraint's name.
    """
    return self.add(UserConstraint(exprs=exprs, velocity_level=velocity_level, name=name))


def add_knife_edge(self, bar_index: int, s: float, name: str | None = None) -> str:
    r"""Add a knife edge (skate) at the point ``s`` of a bar.

    That point cannot move across the bar:
    :math:`-\sin θ\,\dot x + \cos θ\,\dot y + sL\dot θ = 0`.

    Parameters
    ----------
    bar_index : int
        The bar.
    s : float
        Local coordinate of the edge, in [-0.5, 0.5].
    name : str, optional
        Used in the multiplier label.

    Returns
    -------
    str
        Its name.
    """
    return self.add(KnifeEdge(bar=bar_index, s=s, name=name))


def set_constraint_active(self, constraint: str | int, active: bool) -> None:
    r"""Switch a switchable constraint (a coordinate-vector constraint) on or off.

    No recompiling: its rows are scaled by a runtime parameter, and an inactive row reads
    :math:`\lambda = 0`.

    Parameters
    ----------
    constraint : str or int
        Name, or index among the named constraints.
    active : bool
        On or off.
    """
    kind, pos = self._editor.find_named(constraint)
    if not kind.switchable:
        switchable = " or ".join(k.title for k in KINDS if k.switchable)
        raise ValueError(f"constraint {constraint!r} is not a {switchable}; only those have "
                         "an active flag (remove others instead)")
    flag = check_flag(active, "active")
    spec = kind.specs().get("active")
    if spec is not None and spec.editable:  # a declared field: the generic edit
        self.set(self._data.of(kind)[pos].name, active=flag)
        return

    def make(data, old, k):
        c = old.copy()
        c.active = flag
        return c

    self._editor.replace(kind, pos, make)


def set_constraint_offset(self, constraint: str | int, offset: Any) -> None:
    """Change the offset of a coordinate-vector constraint (no recompiling).

    Parameters
    ----------
    constraint : str or int
        Name, or index among the named constraints.
    offset : array_like
        One value per row (m or rad; m/s or rad/s at velocity level).
    """
    kind, pos = self._editor.find_named(constraint)
    if kind is not CoordinateConstraint:
        raise ValueError(f"constraint {constraint!r} is not a coordinate constraint")
    self.set(self._data.of(kind)[pos].name, offset=offset)


def remove_constraint(self, constraint: str | int) -> None:
    """Remove a named constraint by name or index.

    Parameters
    ----------
    constraint : str or int
        Name, or index among the named constraints.
    """
    kind, pos = self._editor.find_named(constraint)
    self.remove(self._data.of(kind)[pos].name)


def add_spring_damper(self, bar_a: int, s_a: float, bar_b: int | None, s_b: float = 0.0,
                      k: float = 0.0, l0: float | None = None, c: float = 0.0, *,
                      ground_point: Sequence[float] | None = None,
                      name: str | None = None) -> str:
    r"""Add a point-to-point spring-damper (Exudyn ``SpringDamper`` semantics).

    The force :math:`f = k(\ell - \ell_0) + c\,\dot\ell` acts along the line, tension positive.

    Parameters
    ----------
    bar_a : int
        The bar of the first end.
    s_a : float
        Local coordinate of the first end, in [-0.5, 0.5].
    bar_b : int or None
        The bar of the second end, or None for a ground point (``ground_point``).
    s_b : float
        Local coordinate of the second end on ``bar_b``.
    k : float
        Stiffness (N/m), >= 0.
    l0 : float, optional
        Rest length (m); default the initial distance of the ends.
    c : float
        Damping (N s/m) on the rate of the length, >= 0.
    ground_point : pair of float, optional
        The ground end ``(x, y)`` (m) when ``bar_b`` is None.
    name : str, optional
        Its name (default ``"spring<k>"``), for :meth:`set_spring` and
        :meth:`Trajectory.element_power`.

    Returns
    -------
    str
        The spring's name.
    """
    return self.add(SpringDamper(bar_a=bar_a, s_a=s_a, bar_b=bar_b, s_b=s_b,
                                 ground=ground_point, k=k, l0=l0, c=c, name=name))


def add_torsional_spring(self, bar_a: int | None, bar_b: int, k: float,
                         phi0: float | None = None, c: float = 0.0, preload: float = 0.0,
                         *, name: str | None = None) -> str:
    r"""Add a torsional spring-damper on the relative angle :math:`φ = θ_b - θ_a`.

    Exudyn ``TorsionalSpringDamper`` semantics: :math:`τ = k(φ - φ_0) + c\dot φ + τ_0` acts
    with :math:`-τ` on bar b and :math:`+τ` on bar a.

    Parameters
    ----------
    bar_a : int or None
        The first bar, or None for ground (:math:`θ_a = 0`).
    bar_b : int
        The second bar.
    k : float
        Stiffness (N m/rad), >= 0.
    phi0 : float, optional
        Rest angle (rad); default the initial relative angle.
    c : float
        Damping (N m s/rad) on the relative angular velocity, >= 0.
    preload : float
        Constant torque :math:`τ_0` (N m).
    name : str, optional
        Its name (default ``"torsion<k>"``).

    Returns
    -------
    str
        The spring's name.
    """
    return self.add(TorsionalSpring(bar_a=bar_a, bar_b=bar_b, k=k, phi0=phi0, c=c,
                                    preload=preload, name=name))


def set_spring(self, name: str, **values: float) -> None:
    """Change values of a spring-damper or a torsional spring, without recompiling.

    ``k``, ``l0``, ``c`` of a spring-damper; ``k``, ``phi0``, ``c``, ``preload`` of a torsional
    spring.

    Parameters
    ----------
    name : str
        The spring's name.
    **values : float
        The new values (N/m, m, N s/m; N m/rad, rad, N m s/rad, N m).
    """
    kind, _ = self._editor.find_name(name, "spring")
    if kind not in (SpringDamper, TorsionalSpring):
        raise ValueError(f"{name!r} is a {kind.title}, not a spring")
    self.set(name, **values)


def add_parameter(self, name: str, value: float) -> hy.expression:
    """Add a named runtime parameter and return it as an expression.

    It is edited with :meth:`set_parameter` without recompiling (see :meth:`parameter`).

    Parameters
    ----------
    name : str
        Letters, digits and ``_``, not starting with a digit.
    value : float
        Its value (in the units the laws give it).
    """
    if not isinstance(name, str):
        raise TypeError(f"parameter name must be a string, got {short_repr(name)}")
    self.add(Parameter(name=name, value=value))
    return self.parameter(name)


def set_parameter(self, name: str, value: float) -> None:
    """Change a named parameter's value (no recompiling).

    Parameters
    ----------
    name : str
        The parameter.
    value : float
        Its new value.
    """
    kind, _ = self._editor.find_name(name, "parameter")
    if kind is not Parameter:
        raise ValueError(f"{name!r} is a {kind.title}, not a parameter")
    self.set(name, value=value)


def add_force_actuator(self, bar_index: int, s: float, fx: Any, fy: Any, *,
                       frame: str = "ground", name: str | None = None) -> str:
    """Add a force on a bar point whose components are laws.

    Laws are numbers or heyoka expressions of ``hy.time``, coordinates, velocities and
    :meth:`parameter`.

    Parameters
    ----------
    bar_index : int
        The bar.
    s : float
        Local coordinate of the point, in [-0.5, 0.5].
    fx, fy : float or heyoka.expression
        Components (N): along x and y (``frame="ground"``) or along and across the bar
        (``frame="bar"``).
    frame : {"ground", "bar"}
        The frame of the components.
    name : str, optional
        Its name (default ``"actuator<k>"``).

    Returns
    -------
    str
        Its name.
    """
    return self.add(ForceActuator(bar=bar_index, s=s, fx=fx, fy=fy, frame=frame, name=name))


def add_torque_actuator(self, bar_index: int, torque: Any, *, bar_a: int | None = None,
                        name: str | None = None) -> str:
    """Add a torque on a bar whose value is a law.

    The reaction :math:`-τ` acts on ``bar_a``, if given; the law is a number or a heyoka
    expression, e.g. a motor ``A*hy.sin(w*hy.time)``.

    Parameters
    ----------
    bar_index : int
        The driven bar (receives :math:`+τ`).
    torque : float or heyoka.expression
        The law (N m).
    bar_a : int, optional
        The bar receiving :math:`-τ` (a torque between two bars).
    name : str, optional
        Its name (default ``"torque<k>"``).

    Returns
    -------
    str
        Its name.
    """
    return self.add(TorqueActuator(bar=bar_index, torque=torque, bar_a=bar_a, name=name))


def load_names(self) -> list[str]:
    """Return the names of the loads (constant loads ``"force<k>"``, springs, actuators).

    As used by :meth:`Trajectory.element_power`.
    """
    from .elements import Load

    return [nm for nm, el in self.elements.items() if isinstance(el, Load)]


def remove_load(self, name: str) -> None:
    """Remove a named load (spring, damper, actuator) or parameter (not used by a law).

    Parameters
    ----------
    name : str
        Its name.
    """
    self._editor.find_name(name, "load")
    self.remove(name)


def add_pin_in_slot(self, bar_a: int, bar_b: int, s_b: float, offset: float = 0.0, *,
                    name: str | None = None) -> str:
    """Add a pin-in-slot joint (Exudyn ``ObjectJointSliding2D``).

    The point ``s_b`` of ``bar_b`` stays on the line of ``bar_a`` (shifted by ``offset`` along
    its normal), rotation free; the multiplier is the normal force on ``bar_b`` (N).

    Parameters
    ----------
    bar_a : int
        The bar with the slot (its axis is the line).
    bar_b : int
        The bar with the pin.
    s_b : float
        Local coordinate of the pin on ``bar_b``.
    offset : float
        Distance (m) of the slot line from the axis of ``bar_a``, along its normal.
    name : str, optional
        Its name (default ``"slot<k>"``).
    """
    return self.add(PinInSlot(bar_a=bar_a, bar_b=bar_b, s_b=s_b, offset=offset, name=name))


def add_prismatic_joint(self, bar_a: int, bar_b: int, s_b: float = 0.0,
                        offset: float = 0.0, phi0: float | None = None, *,
                        name: str | None = None) -> str:
    """Add a prismatic joint (Exudyn ``ObjectJointPrismatic2D``).

    ``bar_b`` slides along ``bar_a``, its point ``s_b`` on the axis of ``bar_a`` (shifted by
    ``offset``) and the relative rotation locked at ``phi0``. Multipliers: the normal force
    (N) and the locking torque (N m) on ``bar_b``.

    Parameters
    ----------
    bar_a, bar_b : int
        The guide and the sliding bar.
    s_b : float
        The point of ``bar_b`` on the guide line.
    offset : float
        Distance (m) of the guide line from the axis of ``bar_a``.
    phi0 : float, optional
        Locked relative angle (rad); default the initial one.
    name : str, optional
        Its name (default ``"prismatic<k>"``).
    """
    return self.add(PrismaticJoint(bar_a=bar_a, bar_b=bar_b, s_b=s_b, offset=offset,
                                   phi0=phi0, name=name))


def add_ground_slider(self, bar_index: int, s: float, angle: float,
                      point: Sequence[float] | None = None, *,
                      name: str | None = None) -> str:
    """Add a slider of a bar point on a ground line.

    The point ``s`` of a bar stays on the ground line through ``point`` at ``angle`` (rad
    from +x); the multiplier is the force (N) along the line's normal.

    Parameters
    ----------
    bar_index : int
        The bar.
    s : float
        Local coordinate of the sliding point.
    angle : float
        Direction of the guide (rad).
    point : pair of float, optional
        A point of the guide (m); default the sliding point's initial position.
    name : str, optional
        Its name (default ``"slider<k>"``).
    """
    return self.add(GroundSlider(bar=bar_index, s=s, angle=angle, point=point, name=name))


def add_latch(self, bar_a: int | None, bar_b: int, angle: float, *,
              name: str | None = None) -> str:
    """Add a latch that locks a hinge when its angle is reached.

    When the relative angle :math:`θ_b - θ_a` reaches ``angle`` during a simulation, the
    hinge locks at that instant (a plastic impulse through W; the kinetic energy lost is
    recorded in ``traj.events``).

    Parameters
    ----------
    bar_a : int or None
        The first bar (None: ground; then ``bar_b`` must be supported).
    bar_b : int
        The second bar; the two must share a joint.
    angle : float
        The latch angle (rad).
    name : str, optional
        Its name (default ``"latch<k>"``).
    """
    return self.add(Latch(bar_a=bar_a, bar_b=bar_b, angle=angle, name=name))


def add_angle_stop(self, bar_a: int | None, bar_b: int, limit: float, side: str = "max",
                   restitution: float = 0.0, *, rest_speed: float = REST_SPEED,
                   name: str | None = None) -> str:
    r"""Add a one-sided limit of the relative angle :math:`φ = θ_b - θ_a`.

    ``side="max"`` keeps :math:`φ \le` ``limit``, ``"min"`` keeps :math:`φ \ge` ``limit``;
    impacts with restitution ``e`` (Newton's law through W), resting when slower than
    ``rest_speed``.

    Parameters
    ----------
    bar_a : int or None
        The first bar (None: ground).
    bar_b : int
        The second bar.
    limit : float
        The limit angle (rad).
    side : {"max", "min"}
        Which side is allowed.
    restitution : float
        Coefficient of restitution in [0, 1].
    rest_speed : float
        Approach speed (rad/s) below which the stop holds instead of bouncing.
    name : str, optional
        Its name (default ``"stop<k>"``).
    """
    return self.add(AngleStop(bar_a=bar_a, bar_b=bar_b, limit=limit, side=side,
                              restitution=restitution, rest_speed=rest_speed, name=name))


def add_contact(self, bar_index: int, s: float, height: float = 0.0,
                restitution: float = 0.0, *, normal_angle: float = math.pi / 2,
                rest_speed: float = REST_SPEED, name: str | None = None) -> str:
    r"""Add a unilateral contact of a bar point with a ground line.

    The point stays where :math:`n \cdot p \ge h`, :math:`n = (\cos α, \sin α)` (default
    :math:`α = π/2`: a floor :math:`y \ge h`; :math:`α = 0`: a wall :math:`x \ge h`); impacts
    with restitution ``e``, resting contact below ``rest_speed``, release when the contact
    force turns tensile. The multiplier is the contact force (N, ≥ 0).

    Parameters
    ----------
    bar_index : int
        The bar.
    s : float
        Local coordinate of the contact point.
    height : float
        :math:`h` (m).
    restitution : float
        Coefficient of restitution in [0, 1].
    normal_angle : float
        Direction of the line's normal (rad).
    rest_speed : float
        Approach speed (m/s) below which the point rests instead of bouncing.
    name : str, optional
        Its name (default ``"contact<k>"``).
    """
    return self.add(Contact(bar=bar_index, s=s, normal_angle=normal_angle, height=height,
                            restitution=restitution, rest_speed=rest_speed, name=name))


def add_event(self, expr: hy.expression, name: str | None = None, *,
              direction: str = "any", terminal: bool = False) -> str:
    """Watch ``expr = 0`` during simulations.

    Each zero crossing is located on the Taylor series and recorded in ``traj.events``; a
    terminal event ends the simulation there.

    Parameters
    ----------
    expr : heyoka.expression
        A function of ``hy.time``, coordinates, velocities and named parameters.
    name : str, optional
        Its name (default ``"event<k>"``).
    direction : {"any", "up", "down"}
        Count crossings where ``expr`` increases ("up"), decreases ("down"), or both.
    terminal : bool
        End the simulation at the first crossing.
    """
    return self.add(UserEvent(expr=expr, direction=direction, terminal=terminal, name=name))


def remove_bar(self, bar_index: int) -> dict:
    """Remove a bar and what depends on it; higher bar indices shift down by one.

    Elements on the bar are removed (user constraints that use its coordinates too; the
    others are renamed to the shifted indices); the bar leaves its joints, and joints left
    with fewer than two bars are removed.

    Parameters
    ----------
    bar_index : int
        The bar.

    Returns
    -------
    dict
        What was removed: ``"bar"``, the indices of removed ``"joints"``, ``"supports"``,
        ``"forces"``, and the names of removed ``"constraints"``.
    """
    return self._editor.remove_bar(bar_index)


def remove_joint(self, joint_index: int) -> None:
    """Remove a joint (later joints shift down by one).

    Parameters
    ----------
    joint_index : int
        The joint.
    """
    joints = self._data.of(PinJoint)
    self.remove(joints[check_index(joint_index, len(joints), "joint")].name)


def remove_support(self, support_index: int) -> None:
    """Remove a support (later supports shift down by one).

    Parameters
    ----------
    support_index : int
        The support.
    """
    self._editor.remove(Support, support_index)


def remove_force(self, force_index: int) -> None:
    """Remove a constant point load (later ones shift down by one).

    Parameters
    ----------
    force_index : int
        The load.
    """
    self.remove(_force_name(self, force_index))


def add_particle(self, x: float, y: float, m: float, *, vx: float = 0.0,
                 vy: float = 0.0) -> int:
    r"""Append a point mass at ``(x, y)``: two coordinates ``(x, y)``, no angle.

    Its kinetic energy is :math:`\tfrac12 m(\dot x^2 + \dot y^2)`, its weight
    :math:`-mg\,e_y`. Joints, links and supports attach at its position (``s = 0`` or the
    point ``(0, 0)``); elements that need an angle (welds, motors, torsional springs) refuse
    it. Its mass is a runtime parameter (``set_bar_mass``).

    Parameters
    ----------
    x, y : float
        Initial position (m).
    m : float
        Mass (kg), positive.
    vx, vy : float, optional
        Initial velocity (m/s).

    Returns
    -------
    int
        Index of the new body (bodies and bars share one index).
    """
    i = self.n_bars
    pose = (check_real(x, f"particle {i}: x"), check_real(y, f"particle {i}: y"), 0.0)
    vel = (check_real(vx, f"particle {i}: vx"), check_real(vy, f"particle {i}: vy"), 0.0)
    return self._editor.add_bar(Particle(check_positive(m, f"particle {i}: m"), pose, vel))


def add_body(self, x: float, y: float, theta: float, m: float, I: float,  # noqa: E741
             shape: dict | str | None = None, points: dict | None = None, *,
             length: float | None = None) -> int:
    r"""Append a planar rigid body with coordinates ``(x, y, θ)`` of its mass centre.

    Kinetic energy :math:`\tfrac12 m(\dot x^2 + \dot y^2) + \tfrac12 I\dot θ^2`
    (``I`` about the mass centre). A body point :math:`(u, v)` (body frame, relative to
    the mass centre) is at :math:`(x, y) + R(θ)(u, v)`; an offset mass centre is expressed
    by attachment points away from ``(0, 0)``. ``m`` and ``I`` are runtime parameters.

    Parameters
    ----------
    x, y : float
        Initial position of the mass centre (m).
    theta : float
        Initial angle of the body frame (rad).
    m : float
        Mass (kg), positive.
    I : float
        Moment of inertia about the mass centre (kg·m²), positive.
    shape : dict or str, optional
        Drawing shape: ``{"kind": "disc", "radius": R}`` (a disc is also what the rolling
        contacts use by default), ``{"kind": "plate", "width": w, "height": h}``, or
        None.
    points : dict, optional
        Named attachment points ``{name: (u, v)}`` (m, body frame); elements refer to them
        by name.
    length : float, optional
        Reference length ℓ (m) of local coordinates ``s`` (the point ``(sℓ, 0)``) used by
        the bar-style elements (joints, supports, loads); default: the disc's diameter,
        the plate's width, else :math:`\sqrt{12 I/m}`.

    Returns
    -------
    int
        Index of the new body.
    """
    i = self.n_bars
    w = f"body {i}"
    pose = (check_real(x, f"{w}: x"), check_real(y, f"{w}: y"),
            check_real(theta, f"{w}: theta"))
    body = RigidBody(check_positive(m, f"{w}: m"), check_positive(I, f"{w}: I"), pose,
                     shape=check_shape(shape, f"{w}: shape"),
                     points=check_points(points, f"{w}: points"),
                     ref_length=None if length is None else check_positive(length,
                                                                           f"{w}: length"))
    return self._editor.add_bar(body)


def set_body_inertia(self, body: int, I: float) -> None:  # noqa: E741
    """Change the moment of inertia (kg·m²) of a rigid body about its mass centre.

    A runtime parameter: no recompiling. A bar's inertia follows its mass and length.

    Parameters
    ----------
    body : int
        The rigid body.
    I : float
        New inertia (kg·m²), positive.
    """
    i = self._editor.check_bar(body, "body")
    if not isinstance(self._data.bars[i], RigidBody):
        raise ValueError(f"body {i} is a {self._data.bars[i].body_kind}: its inertia follows "
                         "from its mass (and length); set_body_inertia is for rigid bodies")
    self._editor.set_bar(i, "body inertia", inertia=check_positive(I, f"body {i}: I"))


def body_kind(self, body: int) -> str:
    """``"bar"``, ``"particle"`` or ``"body"`` (a rigid body).

    Parameters
    ----------
    body : int
        The body.
    """
    return self._data.bars[self._editor.check_bar(body, "body")].body_kind


def body_coordinates(self, body: int) -> list[int]:
    """Return the indices of a body's coordinates in ``q``.

    ``[x, y, θ]``, or ``[x, y]`` for a particle.

    Parameters
    ----------
    body : int
        The body.
    """
    i = self._editor.check_bar(body, "body")
    o = self._data.offsets()[i]
    return list(range(o, o + self._data.bars[i].n_coordinates))


def add_weld(self, body_a: int | None, body_b: int, at: Sequence[float] | None = None, *,
             name: str | None = None) -> str:
    """Weld two bodies (or a body to the ground, ``body_a=None``) as they are posed now.

    Rows :math:`p_b - p_a = 0` at the weld point and :math:`θ_b - θ_a - φ_0 = 0`; the
    multipliers are the force (N, on body b, global x and y) and the torque (N·m) the weld
    transmits (:class:`~quivira.model.elements.Weld`).

    Parameters
    ----------
    body_a : int or None
        First body, or None for the ground.
    body_b : int
        Second body (not a particle).
    at : pair of float, optional
        The weld point (m, global, initial pose); default: body b's mass centre.
    name : str, optional
        Its name (default ``"weld<k>"``, the first free k).

    Returns
    -------
    str
        The weld's name.
    """
    point_a = point_b = None
    if at is not None:  # the weld point in each frame
        P = check_point(at, "add_weld: at")
        point_a, point_b = (_in_frame(self._data.bars, i, P) for i in (body_a, body_b))
    return self.add(Weld(body_a=body_a, body_b=body_b, point_a=point_a, point_b=point_b,
                         name=name))


def _in_frame(bodies: list, body: Any, P: tuple[float, float]) -> tuple[float, float] | None:
    """Return the ground point ``P`` in the frame of ``body`` (the ground: ``P`` itself).

    None if ``body`` is not a posed body of the model: the weld's checks then say why.
    """
    if body is None:
        return P
    if isinstance(body, numbers.Integral) and not isinstance(body, (bool, np.bool_)) \
            and 0 <= body < len(bodies) and bodies[body].pose is not None:
        return local_at(bodies, int(body), P)
    return None


def add_distance(self, body_a: int | None, point_a: Any, body_b: int | None,
                 point_b: Any, length: float | None = None, *,
                 name: str | None = None) -> str:
    r"""Add a massless rigid link between two points of bodies (or a body and the ground).

    Row :math:`(\ell^2 - d\cdot d)/(2\ell) = 0` with :math:`d = p_b - p_a`; its
    multiplier is the link's tension (N, positive when it pulls the points together;
    :class:`~quivira.model.elements.Distance`).

    Parameters
    ----------
    body_a, body_b : int or None
        The bodies (None: the ground; then the point is a ground position ``(x, y)``).
    point_a, point_b
        Point references: a local coordinate ``s`` (the point ``(sℓ, 0)``), a body-frame
        pair ``(u, v)`` (m), or the name of an attachment point of a rigid body.
    length : float, optional
        The link's length (m); default: the initial distance of the points.
    name : str, optional
        Its name (default ``"distance<k>"``, the first free k).

    Returns
    -------
    str
        The link's name.
    """
    return self.add(Distance(body_a=body_a, point_a=point_a, body_b=body_b, point_b=point_b,
                             length=length, name=name))


def add_pin(self, body_a: int | None, point_a: Any, body_b: int, point_b: Any, *,
            name: str | None = None) -> str:
    """Pin two body points together (a revolute joint anywhere on the bodies).

    Rows :math:`p_b - p_a = 0` in x and y; their multipliers are the force (N) on body b
    (:class:`~quivira.model.elements.BodyPin`). For points on the bodies' axes,
    :meth:`add_joint` does the same.

    Parameters
    ----------
    body_a : int or None
        The first body (None: the ground; ``point_a`` is then a ground position (m)).
    point_a, point_b
        Point references: a local coordinate ``s``, a body-frame pair ``(u, v)`` (m), or
        the name of an attachment point of a rigid body.
    body_b : int
        The second body.
    name : str, optional
        Its name (default ``"pin<k>"``, the first free k).

    Returns
    -------
    str
        The pin's name.
    """
    pin = BodyPin(body_a=body_a, point_a=point_a, body_b=body_b, point_b=point_b, name=name)
    bodies = self._data.bars
    where = names.default_name(self._data, BodyPin.prefix) if name is None else name
    gap = pin.checked(bodies, where).gap(bodies)
    scale = max([1.0] + [abs(c) for bar in bodies if bar.pose for c in bar.pose[:2]])
    if gap > self.tolerance * scale:
        raise ValueError(f"{where}: the two points are {gap:.3g} m apart in the initial "
                         "pose; move the bodies so that they coincide, or call "
                         "model.assemble() after adding the pin")
    return self.add(pin)


def set_distance_length(self, name: str, length: float) -> None:
    """Change a link's length (m; a runtime parameter, no recompiling).

    Parameters
    ----------
    name : str
        The link's name.
    length : float
        New length (m), positive.
    """
    kind, pos = self._editor.find_name(name, "distance")
    if kind is not Distance:
        raise ValueError(f"{name!r} is a {kind.title}, not a distance link")
    self.set(name, length=length)


def add_rolling_on_line(self, body: int, angle: float = 0.0,
                        point: Sequence[float] | None = None, *,
                        radius: float | None = None, centre: Any = (0.0, 0.0),
                        name: str | None = None) -> str:
    r"""Add a disc that rolls without slipping on a ground line (holonomic form).

    Rows :math:`n\cdot(c - P) - R = 0` and :math:`t\cdot c + Rθ = t\cdot c_0 + Rθ_0`
    (:math:`x + Rθ` = const on level ground) with :math:`t = (\cos α, \sin α)`,
    :math:`n = (-\sin α, \cos α)`; multipliers: the normal force along :math:`n` and
    the friction force along :math:`t` on the disc, at the contact point (N;
    :class:`~quivira.model.elements.RollingOnLine`).

    Parameters
    ----------
    body : int
        The disc (a rigid body or bar).
    angle : float, optional
        Direction α of the line (rad); the disc lies on its left (+n) side.
    point : pair of float, optional
        A point of the line (m); default: the line touching the disc in its initial pose.
    radius : float, optional
        Rolling radius (m); default the radius of the body's disc shape.
    centre : point reference, optional
        The disc's centre on the body (default its mass centre).
    name : str, optional
        Its name (default ``"rolling<k>"``).

    Returns
    -------
    str
        The contact's name.
    """
    return self.add(RollingOnLine(body=body, angle=angle, point=point, radius=radius,
                                  centre=centre, name=name))


def add_rolling_on_disc(self, body_a: int | None, body_b: int, *, inside: bool = False,
                        radius_a: float | None = None, radius_b: float | None = None,
                        centre_a: Any = None, centre_b: Any = None,
                        name: str | None = None) -> str:
    r"""Add disc b rolling without slipping on disc a.

    Outside it, or inside it with ``inside=True``; ``body_a=None`` is a fixed ground circle.

    Rows: the centre distance :math:`|c_b - c_a| = R_a \pm R_b` and, at velocity level,
    equal velocities of the two material points in contact (see
    :class:`~quivira.model.elements.RollingOnDisc`); multipliers: the normal and friction
    forces on disc b (N).

    Parameters
    ----------
    body_a : int or None
        The disc rolled on, or None for a ground circle (then give ``radius_a`` and
        ``centre_a``).
    body_b : int
        The rolling disc.
    inside : bool, optional
        Disc b rolls inside disc a (a ring); default outside.
    radius_a, radius_b : float, optional
        Radii (m); default the bodies' disc shapes.
    centre_a, centre_b : point reference, optional
        Disc centres on the bodies (default the mass centres); for the ground, ``centre_a``
        is the circle's centre ``(x, y)``.
    name : str, optional
        Its name (default ``"disc<k>"``).

    Returns
    -------
    str
        The contact's name.
    """
    return self.add(RollingOnDisc(body_a=body_a, body_b=body_b, radius_a=radius_a,
                                  radius_b=radius_b, inside=inside, centre_a=centre_a,
                                  centre_b=centre_b, name=name))


def add_joint_motor(self, joint: int | None, angle_law: Any, *,
                    bodies: Sequence[int | None] | None = None,
                    name: str | None = None) -> str:
    """Drive the relative angle of a pin joint's first two bodies by a law of time.

    Row :math:`θ_b - θ_a - φ(t) = 0` (rheonomic); its multiplier is the motor torque on
    body b (N·m; :class:`~quivira.model.elements.JointMotor`).

    Parameters
    ----------
    joint : int or None
        A pin joint: ``a, b`` are its first two bars. None: give ``bodies``.
    angle_law : heyoka expression or float
        :math:`φ(t)` (rad), of ``hy.time`` and named parameters
        (``model.parameter(name)``, runtime: editing them does not recompile).
    bodies : pair, optional
        ``(a, b)`` instead of a joint; ``a`` None drives the absolute angle of ``b``.
    name : str, optional
        Its name (default ``"motor<k>"``).

    Returns
    -------
    str
        The motor's name.
    """
    if (joint is None) == (bodies is None):
        raise TypeError("add_joint_motor: give a pin joint index or bodies=(a, b), one of "
                        "them")
    if joint is not None:
        jt = self._data.of(PinJoint)[check_index(joint, len(self._data.of(PinJoint)),
                                                 "joint")]
        a, b = jt.bars[0], jt.bars[1]
    else:
        try:
            a, b = bodies
        except (TypeError, ValueError):
            raise TypeError(f"add_joint_motor: bodies must be a pair (a, b), got "
                            f"{short_repr(bodies)}") from None

    return self.add(JointMotor(body_a=a, body_b=b, law=angle_law, name=name))


#: the value fields :func:`set_constraint_values` edits, by element kind
CONSTRAINT_VALUE_FIELDS = {
    "pin-in-slot": ("s_b", "offset"),
    "prismatic joint": ("s_b", "offset", "phi0"),
    "ground slider": ("s", "angle", "point"),
    "latch": ("angle",),
    "angle stop": ("limit", "restitution", "rest_speed"),
    "contact": ("s", "normal_angle", "height", "restitution", "rest_speed"),
}


def set_constraint_values(self, name: str, **values: Any) -> None:
    """Change value fields of a named slider, latch, stop or contact.

    Slot, prismatic joint, ground slider, latch, angle stop or contact, by name: one undoable
    edit, validated as by the ``add_*`` method.

    Fields: slot ``s_b``, ``offset``; prismatic joint ``s_b``, ``offset``, ``phi0``;
    ground slider ``s``, ``angle``, ``point``; latch ``angle``; angle stop ``limit``,
    ``restitution``, ``rest_speed``; contact ``s``, ``normal_angle``, ``height``,
    ``restitution``, ``rest_speed`` (m, rad, rad/s or m/s). These are runtime parameters
    or event data, so the model re-simulates without compiling, except a slider's
    ``angle`` and a contact's ``normal_angle`` (the direction of their reaction).
    Bars, a stop's side and a latch's or stop's state are kept.

    Parameters
    ----------
    name : str
        The element's name.
    **values : float
        The new values (``point``: a pair of floats).

    Raises
    ------
    ValueError
        If no such element, an unknown field or a refused value (the model is unchanged).
    """
    kind, _ = self._editor.find_name(name, "constraint")
    allowed = CONSTRAINT_VALUE_FIELDS.get(kind.title)
    if allowed is None:
        kinds = ", ".join(CONSTRAINT_VALUE_FIELDS)
        raise ValueError(f"set_constraint_values: {name!r} is a {kind.title}; only a "
                         f"{kinds} has values to set here")
    unknown = sorted(set(values) - set(allowed))
    if unknown:
        raise ValueError(f"set_constraint_values: unknown fields {unknown} for the "
                         f"{kind.title} {name!r}; valid fields: {list(allowed)}")
    if not values:
        return
    self.set(name, **values)


def q(self) -> list:
    """Return the coordinate variables of every body (``model.variables(i)[0]``)."""
    return [v for i in range(len(self._data.bars)) for v in self.variables(i)[0]]


def qd(self) -> list:
    """Return the velocity variables of every body (``model.variables(i)[1]``)."""
    return [v for i in range(len(self._data.bars)) for v in self.variables(i)[1]]


#: what to use instead of each earlier member
REPLACEMENTS: dict[str, str] = {
    name: ("model.add(quivira.elements.<Kind>(...))" if name.startswith("add_")
           else "model.set(name, ...)" if name.startswith("set_")
           else "model.remove(name)" if name.startswith("remove_")
           else "model.parameters(), model.elements or model.bodies")
    for name in (
        "n_compiled",
        "n_bars",
        "bars",
        "joints",
        "supports",
        "forces",
        "stabilization",
        "n_constraints",
        "constraint_names",
        "coordinates",
        "velocities",
        "parameter_values",
        "parameter_keys",
        "parameter_symbols",
        "set_bar_length",
        "set_bar_mass",
        "set_stabilization",
        "set_joint",
        "set_support",
        "set_force",
        "add_coordinate_constraint",
        "add_constraint",
        "add_knife_edge",
        "set_constraint_active",
        "set_constraint_offset",
        "remove_constraint",
        "add_spring_damper",
        "add_torsional_spring",
        "set_spring",
        "add_parameter",
        "set_parameter",
        "add_force_actuator",
        "add_torque_actuator",
        "load_names",
        "remove_load",
        "add_pin_in_slot",
        "add_prismatic_joint",
        "add_ground_slider",
        "add_latch",
        "add_angle_stop",
        "add_contact",
        "add_event",
        "remove_bar",
        "remove_joint",
        "remove_support",
        "remove_force",
        "add_particle",
        "add_body",
        "set_body_inertia",
        "body_kind",
        "body_coordinates",
        "add_weld",
        "add_distance",
        "add_pin",
        "set_distance_length",
        "add_rolling_on_line",
        "add_rolling_on_disc",
        "add_joint_motor",
        "set_constraint_values",
        "q",
        "qd",
    )
}
