"""The planar bar-joint model: the public façade over data, edits, simulation and analysis.

:class:`bar_joint_model` composes three parts, each with one job:

* a :class:`~quivira.model.editing.ModelEditor` — the data (bars and elements), copy-on-write
  edits and observers;
* a :class:`~quivira.model.simulator.Simulator` — the compiled-code cache, checks, assembly,
  simulation and the numbers at a state;
* a :class:`~quivira.model.linearize.Linearizer` built on demand from explicit inputs.

Every method here validates its arguments through the element classes
(:mod:`quivira.model.elements`) and delegates. State layout: ``[q..., qd...]`` with all
coordinates first; per bar ``(x, y, θ)`` of its centre. A point of a bar is
centre + s·L·(cos θ, sin θ), s in [-0.5, 0.5]; inertia m L²/12; gravity g along −y
(``set_g``). Units are those of the data: SI (m, kg, s, N) in all examples.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import heyoka as hy
import numpy as np

from .._repr import short_repr
from ..budget import Budget
from ..lagrangian import assemble_eom, eom_result
from . import persistence
from .data import Bar, ModelData, Particle, RigidBody, check_points, check_shape
from .editing import ModelEditor
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
from .elements.actuators import parameter_variable
from .elements.pin_joint import infer_joints
from .elements.switching import REST_SPEED
from .elements.user import check_rows
from .linearize import Linearization, Linearizer, Modes
from .results import AssemblyReport, ConstraintCheck, Sparsity, StateMatrices
from .simulator import (
    DEFAULT_MAX_STEPS,
    DEFAULT_MAX_WALL_S,
    ConstraintWarning,
    Simulator,
    initial_state,
    mass_diagonal,
)
from .symbolic import build_symbolic, parameter_layout, parameter_symbols, topology_key
from .trajectory import BudgetExceededError, SimulationInterrupted, Trajectory
from .validation import (
    check_flag,
    check_index,
    check_point,
    check_positive,
    check_real,
    check_stabilization,
    real_array,
)

__all__ = ["BarJointModel", "ConstraintCheck", "ConstraintWarning", "bar_joint_model"]


class bar_joint_model:  # noqa: N801 - API name
    r"""Assembly of articulated bars with joints, supports, constraints and loads.

    Parameters
    ----------
    tolerance : float, optional
        Largest constraint residual accepted as "fulfilled", relative to the model's length
        scale ℓ (the largest bar length or centre coordinate): positions within tolerance·ℓ,
        velocities within tolerance·ℓ per second; default 1e-10.

    Notes
    -----
    The equations of motion are those of :func:`quivira.lagrange_eom` for

    .. math:: \mathcal L = \sum_i \tfrac12 m_i(\dot x_i^2 + \dot y_i^2)
              + \tfrac12\tfrac{m_i L_i^2}{12}\dot θ_i^2 - m_i g y_i

    with the rows and loads of the model's elements (see :mod:`quivira.model.elements`).
    Numeric data enter the compiled code as runtime parameters, and compiled integrators are
    cached by topology, so value edits (length, mass, g, forces, support positions, joint
    points) re-simulate without recompiling.

    Examples
    --------
    A uniform bar of length :math:`L` pinned at one end swings with the small-oscillation
    period :math:`2\pi\sqrt{2L/(3g)}` of a compound pendulum:

    >>> import math
    >>> import numpy as np
    >>> import quivira
    >>> L, m, g = 1.0, 2.0, 9.81
    >>> model = quivira.bar_joint_model()
    >>> th0 = -math.pi / 2 + 0.02  # 0.02 rad from hanging straight down
    >>> bar = model.add_bar_at_attitude(0.5 * L * math.cos(th0), 0.5 * L * math.sin(th0),
    ...                                 th0, L, m)
    >>> model.add_support(bar, -0.5, fixed_x=True, fixed_y=True)
    0
    >>> T = 2 * math.pi * math.sqrt(2 * L / (3 * g))
    >>> traj = model.simulate(2 * T, 401)
    >>> a = traj.q[:, 2] + math.pi / 2  # the swing angle
    >>> k = np.flatnonzero((a[:-1] > 0) & (a[1:] <= 0))  # downward zero crossings
    >>> t_cross = traj.t[k] - a[k] * (traj.t[k + 1] - traj.t[k]) / (a[k + 1] - a[k])
    >>> round(float(t_cross[1] - t_cross[0]), 3), round(T, 3)
    (1.638, 1.638)
    """

    def __init__(self, tolerance: float = 1e-10) -> None:
        self.tolerance = tolerance
        self._editor = ModelEditor()
        self._simulator = Simulator()
        self.F: list = []
        self.q: list = []
        self.qd: list = []

    @property
    def _data(self) -> ModelData:
        return self._editor.data

    # ------------------------------------------------------------------ settings
    @property
    def tolerance(self) -> float:
        """Largest constraint residual accepted as fulfilled, relative to the length scale.

        See the class docstring for the model's length scale.
        """
        return self._tolerance

    @tolerance.setter
    def tolerance(self, value: float) -> None:
        self._tolerance = check_positive(value, "tolerance")

    @property
    def solver(self) -> str:
        r"""How :math:`W\lambda = r` is solved symbolically.

        ``"ordered"`` (fill-reducing symmetric permutation and :math:`LDL^T`; the default, smaller
        equations on lattices and chains) or ``"lu"``.
        """
        return self._simulator.solver

    @solver.setter
    def solver(self, value: str) -> None:
        self._simulator.solver = value

    @property
    def cache_size(self) -> int:
        """How many compiled systems (topologies × options) are kept, default 8."""
        return self._simulator.cache_size

    @cache_size.setter
    def cache_size(self, value: int) -> None:
        self._simulator.cache_size = value

    @property
    def n_compiled(self) -> int:
        """Number of compiled systems held in the cache (at most :attr:`cache_size`)."""
        return self._simulator.n_cached

    @property
    def revision(self) -> int:
        """Counter of committed edits (changes whenever the model changes)."""
        return self._editor.revision

    # ------------------------------------------------------------------ observers
    def observe(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(what)`` after every change of the model (``what`` names it).

        Parameters
        ----------
        callback : callable
            ``callback(what: str)``; an exception it raises is turned into a warning (an
            observer never undoes an edit).
        """
        self._editor.observe(callback)

    def unobserve(self, callback: Callable[[str], None]) -> None:
        """Stop calling ``callback`` on changes.

        Parameters
        ----------
        callback : callable
            A callback given to :meth:`observe`.
        """
        self._editor.unobserve(callback)

    @contextmanager
    def batch(self) -> Iterator[bar_joint_model]:
        """Group edits: observers are told once, at the end (``what`` = ``"batch: ..."``).

        If an edit inside raises, the edits made before it are kept (each edit is
        validated on its own) and observers are still told.
        """
        with self._editor.batch():
            yield self

    def replace_with(self, other: bar_joint_model) -> None:
        """Make this model a copy of ``other`` (e.g. one loaded from a file).

        This object, its observers and its compiled-code cache are kept; one notification
        (``"replaced"``).

        Parameters
        ----------
        other : bar_joint_model
            The model to copy.
        """
        if not isinstance(other, bar_joint_model):
            raise TypeError(f"replace_with: expected a bar_joint_model, got "
                            f"{type(other).__name__}")
        self.tolerance = other.tolerance
        self._editor.commit(other._data.copy(), "replaced")

    # ------------------------------------------------------------------ read access
    @property
    def n_bars(self) -> int:
        """Number of bars."""
        return len(self._data.bars)

    @property
    def bars(self) -> list[Bar]:
        """Copies of the bar records (edit through the model's methods)."""
        return copy.deepcopy(self._data.bars)

    @property
    def joints(self) -> list[PinJoint]:
        """Copies of the pin joints."""
        return [e.copy() for e in self._data.of(PinJoint)]

    @property
    def supports(self) -> list[Support]:
        """Copies of the supports."""
        return [e.copy() for e in self._data.of(Support)]

    @property
    def forces(self) -> list[PointLoad]:
        """Copies of the point loads."""
        return [e.copy() for e in self._data.of(PointLoad)]

    @property
    def elements(self) -> dict[str, list]:
        """Copies of all elements, by kind (``{"joints": [...], "supports": [...], ...}``)."""
        return {c: [e.copy() for e in lst] for c, lst in self._data.elements.items()}

    @property
    def g(self) -> float:
        """Gravitational acceleration along −y (m/s² for SI data)."""
        return self._data.g

    @property
    def stabilization(self) -> float:
        """Baumgarte rate α (1/s) of :meth:`simulate` (default 10 per second)."""
        return self._data.stabilization

    @property
    def n_coordinates(self) -> int:
        """Number of generalized coordinates, 3 per bar or rigid body, 2 per particle."""
        return self._data.n_coordinates()

    @property
    def constraint_labels(self) -> list[str]:
        """Return one readable label per constraint row.

        In the order of ``F``: holonomic rows, then velocity rows.
        """
        return build_symbolic(self._data, use_pars=False).labels

    @property
    def n_constraints(self) -> int:
        """Number of constraint rows."""
        return len(self.constraint_labels)

    @property
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
        return parameter_symbols(self._data)

    def topology_key(self) -> tuple:
        """Return what the compiled code depends on.

        Bars, the connectivity of the elements, names of constraints: equal keys share compiled
        code, value edits leave it unchanged.
        """
        return topology_key(self._data)

    # ------------------------------------------------------------------ bars
    def add_bar(self, length: float, mass: float) -> int:
        """Append a new bar (pose to be set with :meth:`set_init_bar_attitude`).

        Parameters
        ----------
        length : float
            Bar length (m), positive.
        mass : float
            Bar mass (kg), positive.

        Returns
        -------
        int
            Index of the new bar.

        Examples
        --------
        >>> import math
        >>> import quivira
        >>> model = quivira.bar_joint_model()
        >>> model.add_bar(2.0, 1.0)
        0
        >>> model.set_init_bar_attitude(0, 0.0, 1.0, math.pi / 2)  # standing on the origin
        >>> model.get_initial_state()[:3]
        [0.0, 1.0, 1.5707963267948966]
        """
        i = self.n_bars
        return self._editor.add_bar(Bar(check_positive(length, f"bar {i}: length"),
                                        check_positive(mass, f"bar {i}: mass")))

    def add_bar_at_attitude(self, x0: float, y0: float, theta0: float, length: float,
                            mass: float) -> int:
        """Append a bar with centre ``(x0, y0)`` and angle ``theta0``.

        Parameters
        ----------
        x0, y0 : float
            Initial position of the bar's centre (m).
        theta0 : float
            Initial angle from the +x axis, counter-clockwise (rad).
        length : float
            Bar length (m), positive.
        mass : float
            Bar mass (kg), positive.

        Returns
        -------
        int
            Index of the new bar.

        Examples
        --------
        >>> import math
        >>> import quivira
        >>> model = quivira.bar_joint_model()
        >>> th = math.pi / 6  # 30°, its s = -0.5 end at the origin
        >>> model.add_bar_at_attitude(0.5 * math.cos(th), 0.5 * math.sin(th), th, 1.0, 1.0)
        0
        >>> [round(v, 6) for v in model.get_initial_state()[:3]]
        [0.433013, 0.25, 0.523599]
        """
        i = self.n_bars
        pose = (check_real(x0, f"bar {i}: x0"), check_real(y0, f"bar {i}: y0"),
                check_real(theta0, f"bar {i}: theta0"))
        return self._editor.add_bar(Bar(check_positive(length, f"bar {i}: length"),
                                        check_positive(mass, f"bar {i}: mass"), pose))

    def add_bar_from_point_pair(self, start: Sequence[float], end: Sequence[float],
                                mass_per_length: float | None = None, *,
                                mass: float | None = None) -> int:
        """Append the bar from ``start`` to ``end`` (its ``s = -0.5`` and ``s = +0.5`` ends).

        Parameters
        ----------
        start, end : pair of float
            End points ``(x, y)`` (m); they must differ.
        mass_per_length : float, optional
            Mass per length (kg/m); the bar's mass is this times its length. The default
            (neither this nor ``mass`` given) is 1 kg/m.
        mass : float, optional
            The bar's mass (kg), instead of ``mass_per_length`` (give one of them).

        Returns
        -------
        int
            Index of the new bar.
        """
        i = self.n_bars
        p0 = check_point(start, f"bar {i}: start")
        p1 = check_point(end, f"bar {i}: end")
        if mass is not None and mass_per_length is not None:
            raise ValueError(f"bar {i}: give mass (kg) or mass_per_length (kg/m), not both")
        if mass is None:
            rho = check_positive(1.0 if mass_per_length is None else mass_per_length,
                                 f"bar {i}: mass_per_length")
        else:
            m = check_positive(mass, f"bar {i}: mass")
        L = math.hypot(p1[0] - p0[0], p1[1] - p0[1])
        if L <= 0.0:
            raise ValueError(f"bar {i}: start and end must differ (zero length), got {p0} twice")
        if mass is None:
            m = check_positive(rho * L, f"bar {i}: mass")
        th = math.atan2(p1[1] - p0[1], p1[0] - p0[0])
        pose = (0.5 * (p0[0] + p1[0]), 0.5 * (p0[1] + p1[1]), th)
        return self._editor.add_bar(Bar(L, m, pose))

    def set_init_bar_attitude(self, bar_index: int, x0: float, y0: float, theta0: float) -> None:
        """Set the initial centre position (m) and angle (rad) of a bar.

        Parameters
        ----------
        bar_index : int
            The bar.
        x0, y0 : float
            Initial position of its centre (m).
        theta0 : float
            Initial angle from the +x axis, counter-clockwise (rad).
        """
        i = self._editor.check_bar(bar_index, "bar_index")
        pose = (check_real(x0, f"bar {i}: x0"), check_real(y0, f"bar {i}: y0"),
                check_real(theta0, f"bar {i}: theta0"))
        self._editor.set_bar(i, "bar pose", pose=pose)

    def set_init_bar_velocities(self, bar_index: int, xd0: float, yd0: float,
                                thetad0: float) -> None:
        """Set the initial velocity of a bar's centre (m/s) and its angular velocity (rad/s).

        Parameters
        ----------
        bar_index : int
            The bar.
        xd0, yd0 : float
            Velocity of the centre (m/s).
        thetad0 : float
            Angular velocity, counter-clockwise (rad/s).
        """
        i = self._editor.check_bar(bar_index, "bar_index")
        vel = (check_real(xd0, f"bar {i}: xd0"), check_real(yd0, f"bar {i}: yd0"),
               check_real(thetad0, f"bar {i}: thetad0"))
        self._editor.set_bar(i, "bar velocity", velocity=vel)

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

    def set_g(self, g: float) -> None:
        """Set the gravitational acceleration along −y (m/s²; 9.81 by default, 0 for none).

        Parameters
        ----------
        g : float
            The acceleration of gravity (m/s²); finite.
        """
        self._editor.set_value("g", check_real(g, "g"))

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

    # ------------------------------------------------------------------ joints, supports, loads
    def add_joint(self, bar_index: Sequence[int], s: Sequence[float]) -> int:
        """Add a pin joint making the points ``s[k]`` of the bars ``bar_index[k]`` coincide.

        Parameters
        ----------
        bar_index : list of int
            Two or more distinct bars.
        s : list of float
            The local coordinate of the joint point on each bar, in [-0.5, 0.5].

        Returns
        -------
        int
            The joint's index.

        Examples
        --------
        A double pendulum hanging at rest: the joint carries the lower bar's weight, the support
        both bars' weight.

        >>> import math
        >>> import quivira
        >>> model = quivira.bar_joint_model()
        >>> upper = model.add_bar_at_attitude(0.0, -0.5, -math.pi / 2, 1.0, 1.0)
        >>> lower = model.add_bar_at_attitude(0.0, -1.5, -math.pi / 2, 1.0, 2.0)
        >>> model.add_support(upper, -0.5, fixed_x=True, fixed_y=True)
        0
        >>> model.add_joint([upper, lower], [0.5, -0.5])  # the end of one on the start of the other
        0
        >>> eq = model.equilibrium()
        >>> round(float(eq.joint_force(0, lower)[1]), 6), round(2.0 * 9.81, 6)
        (19.62, 19.62)
        >>> round(float(eq.support_force(0)[1]), 6), round(3.0 * 9.81, 6)
        (29.43, 29.43)
        """
        return self._editor.add(
            lambda data, j: PinJoint.create(bar_index, s, len(data.bars), j), PinJoint)

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
        self._editor.replace(PinJoint, joint_index, lambda data, old, j: PinJoint.create(
            old.bars if bar_index is None else bar_index, old.s if s is None else s,
            len(data.bars), j))

    def add_support(self, bar_index: int, s: float, dof_in_x: bool | None = None,
                    dof_in_y: bool | None = None, x: float | None = None,
                    y: float | None = None, *, fixed_x: bool | None = None,
                    fixed_y: bool | None = None) -> int:
        """Add a support (pin, or roller when one direction is free) at the point ``s``.

        Parameters
        ----------
        bar_index : int
            The supported bar.
        s : float
            Local coordinate of the supported point, in [-0.5, 0.5].
        dof_in_x, dof_in_y : bool
            True leaves that direction free (a roller); not both.
        x, y : float, optional
            Ground position of the support (m); default: the point's initial position.
        fixed_x, fixed_y : bool, optional
            Keyword aliases without the double negative: ``fixed_x=True`` holds the point in
            x (the same as ``dof_in_x=False``). Give each direction once, by either name.

        Returns
        -------
        int
            The support's index.

        Raises
        ------
        ValueError
            If the position is defaulted but the bar has no initial pose, or on bad values
            (TypeError on wrong types).

        Examples
        --------
        A beam on a pin and a roller: each support carries half its weight.

        >>> import quivira
        >>> model = quivira.bar_joint_model()
        >>> beam = model.add_bar_at_attitude(1.0, 0.0, 0.0, 2.0, 3.0)  # from (0, 0) to (2, 0)
        >>> model.add_support(beam, -0.5, fixed_x=True, fixed_y=True)  # a pin at the left end
        0
        >>> model.add_support(beam, 0.5, fixed_x=False, fixed_y=True)  # a roller at the right end
        1
        >>> eq = model.equilibrium()
        >>> [round(float(eq.support_force(k)[1]), 6) for k in (0, 1)], round(3.0 * 9.81 / 2, 6)
        ([14.715, 14.715], 14.715)
        """
        free = []
        for dof, fixed, axis in ((dof_in_x, fixed_x, "x"), (dof_in_y, fixed_y, "y")):
            if dof is None and fixed is None:
                raise TypeError(f"add_support: say whether the point is held in {axis}: "
                                f"fixed_{axis}=True/False (or dof_in_{axis}, True = free)")
            if fixed is not None:
                fixed = check_flag(fixed, f"add_support: fixed_{axis}")
                if dof is not None and check_flag(dof, f"add_support: dof_in_{axis}") == fixed:
                    raise ValueError(f"add_support: dof_in_{axis}={dof} and fixed_{axis}={fixed} "
                                     "contradict each other (dof_in = free = not fixed); give "
                                     "one of them")
                dof = not fixed
            free.append(dof)
        return self._editor.add(lambda data, k: Support.create(
            bar_index, s, free[0], free[1], x, y, data.bars, k), Support)

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
        self._editor.replace(Support, support_index, lambda data, o, k: Support.create(
            o.bar, o.s if s is None else s, o.free_x if dof_in_x is None else dof_in_x,
            o.free_y if dof_in_y is None else dof_in_y, o.x if x is None else x,
            o.y if y is None else y, data.bars, k))

    def add_external_force(self, bar_index: int, s: float, fx: float, fy: float,
                           torque: float = 0.0) -> int:
        """Add a constant point load on a bar.

        Parameters
        ----------
        bar_index : int
            The loaded bar.
        s : float
            Local coordinate of the point of application, in [-0.5, 0.5].
        fx, fy : float
            Force components along the global x and y axes (N).
        torque : float, optional
            Torque on the bar (N m), counter-clockwise positive.

        Returns
        -------
        int
            The force's index.
        """
        return self._editor.add(lambda data, k: PointLoad.create(
            bar_index, s, fx, fy, torque, len(data.bars), k), PointLoad)

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
        self._editor.replace(PointLoad, force_index, lambda data, o, k: PointLoad.create(
            o.bar, o.s if s is None else s, o.fx if fx is None else fx,
            o.fy if fy is None else fy, o.torque if torque is None else torque,
            len(data.bars), k))

    # ------------------------------------------------------------------ constraints
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
            Used in the multiplier labels and for :meth:`Trajectory.constraint_output`.

        Returns
        -------
        str
            The constraint's name.
        """
        def make(data, k):
            nm = self._editor.unique_name(name, f"coordinate constraint {k}", data)
            return CoordinateConstraint.create(bar0, bar1, X0, X1, Y0, Y1, offset,
                                               velocity_level, active, nm, len(data.bars))

        k = self._editor.add(make, CoordinateConstraint)
        return self._data.of(CoordinateConstraint)[k].name

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
            Used in the multiplier labels.
        velocity_level : bool
            The rows are velocity constraints :math:`A(q, t)\dot q + b(q, t) = 0` and may use
            ``model.velocities(i)``.

        Returns
        -------
        str
            The constraint's name.
        """
        from .validation import check_flag

        vel = check_flag(velocity_level, "velocity_level")

        def make(data, k):
            rows = check_rows(exprs, len(data.bars), vel)
            nm = self._editor.unique_name(name, f"constraint {k}", data)
            return UserConstraint(rows, nm, vel)

        k = self._editor.add(make, UserConstraint)
        return self._data.of(UserConstraint)[k].name

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
        def make(data, k):
            el = KnifeEdge.create(bar_index, s, None, len(data.bars), k)
            el.name = self._editor.unique_name(name, f"knife edge {k}", data)
            return el

        k = self._editor.add(make, KnifeEdge)
        return self._data.of(KnifeEdge)[k].name

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
        from .validation import check_flag

        kind, pos = self._editor.find_named(constraint)
        if not getattr(kind, "switchable", False):
            switchable = " or ".join(k.title for k in KINDS if getattr(k, "switchable", False))
            raise ValueError(f"constraint {constraint!r} is not a {switchable}; only those have "
                             "an active flag (remove others instead)")
        flag = check_flag(active, "active")

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
        self._editor.replace(kind, pos, lambda data, old, k: old.with_offset(offset))

    def remove_constraint(self, constraint: str | int) -> None:
        """Remove a named constraint by name or index.

        Parameters
        ----------
        constraint : str or int
            Name, or index among the named constraints.
        """
        kind, pos = self._editor.find_named(constraint)
        self._editor.remove(kind, pos)

    # ------------------------------------------------------------------ springs, dampers, drives
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
            Its name (default ``"spring k"``), for :meth:`set_spring` and
            :meth:`Trajectory.element_power`.

        Returns
        -------
        str
            The spring's name.
        """
        def make(data, pos):
            nm = self._editor.unique_name(name, f"spring {pos}", data)
            return SpringDamper.create(bar_a, s_a, bar_b, s_b, ground_point, k, l0, c, nm,
                                       data.bars)

        pos = self._editor.add(make, SpringDamper)
        return self._data.of(SpringDamper)[pos].name

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
            Its name (default ``"torsional spring k"``).

        Returns
        -------
        str
            The spring's name.
        """
        def make(data, pos):
            nm = self._editor.unique_name(name, f"torsional spring {pos}", data)
            return TorsionalSpring.create(bar_a, bar_b, k, phi0, c, preload, nm, data.bars)

        pos = self._editor.add(make, TorsionalSpring)
        return self._data.of(TorsionalSpring)[pos].name

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
        kind, pos = self._editor.find_name(name, "spring")
        if kind not in (SpringDamper, TorsionalSpring):
            raise ValueError(f"{name!r} is a {kind.title}, not a spring")
        allowed = ("k", "l0", "c") if kind is SpringDamper else ("k", "phi0", "c", "preload")
        unknown = sorted(set(values) - set(allowed))
        if unknown:
            raise ValueError(f"set_spring: unknown values {unknown} for a {kind.title}; "
                             f"allowed: {allowed}")
        self._editor.replace(kind, pos, lambda data, old, k: old.with_values(**values))

    def parameter(self, name: str) -> hy.expression:
        """Return the named runtime parameter ``name`` as a heyoka expression, for actuator laws.

        For example ``A = model.parameter("A"); model.add_torque_actuator(0, A * hy.sin(hy.time))``.

        Parameters
        ----------
        name : str
            A parameter added with :meth:`add_parameter`.
        """
        kind, _ = self._editor.find_name(name, "parameter")
        if kind is not Parameter:
            raise ValueError(f"{name!r} is a {kind.title}, not a parameter")
        return hy.expression(parameter_variable(name))

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
        self._editor.add(lambda data, pos: Parameter.create(name, value, data.all_names()),
                         Parameter)
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
        kind, pos = self._editor.find_name(name, "parameter")
        if kind is not Parameter:
            raise ValueError(f"{name!r} is a {kind.title}, not a parameter")
        self._editor.replace(kind, pos, lambda data, old, k: Parameter.create(
            old.name, value, set()))

    @property
    def parameters(self) -> dict[str, float]:
        """The named parameters and their values."""
        return {p.name: p.value for p in self._data.of(Parameter)}

    def _parameter_names(self, data) -> list[str]:
        return [p.name for p in data.of(Parameter)]

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
            Its name (default ``"force actuator k"``).

        Returns
        -------
        str
            Its name.
        """
        def make(data, pos):
            nm = self._editor.unique_name(name, f"force actuator {pos}", data)
            return ForceActuator.create(bar_index, s, fx, fy, frame, nm, len(data.bars),
                                        self._parameter_names(data))

        pos = self._editor.add(make, ForceActuator)
        return self._data.of(ForceActuator)[pos].name

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
            Its name (default ``"torque actuator k"``).

        Returns
        -------
        str
            Its name.
        """
        def make(data, pos):
            nm = self._editor.unique_name(name, f"torque actuator {pos}", data)
            return TorqueActuator.create(bar_index, torque, bar_a, nm, len(data.bars),
                                         self._parameter_names(data))

        pos = self._editor.add(make, TorqueActuator)
        return self._data.of(TorqueActuator)[pos].name

    @property
    def load_names(self) -> list[str]:
        """Return the names of the loads (constant loads ``"force k"``, springs, actuators).

        As used by :meth:`Trajectory.element_power`.
        """
        from .elements import Load

        return [el.label_prefix(pos) for kind, pos, el in self._data.items()
                if issubclass(kind, Load)]

    def remove_load(self, name: str) -> None:
        """Remove a named load (spring, damper, actuator) or parameter (not used by a law).

        Parameters
        ----------
        name : str
            Its name.
        """
        kind, pos = self._editor.find_name(name, "load")
        if kind is Parameter:
            var = parameter_variable(name)
            # every element holding an expression that uses it: actuator laws, a joint
            # motor's angle law, a user event's expression
            users = [getattr(el, "name", f"{k.title} {pos}")
                     for k, pos, el in self._data.items() if k is not Parameter and any(
                         isinstance(v, hy.expression) and var in hy.get_variables(v)
                         for v in vars(el).values())]
            if users:
                raise ValueError(f"parameter {name!r} is used by {users}; remove them first")
        self._editor.remove(kind, pos)

    # ------------------------------------------------------------------ sliders, latches, contact
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
            Its name (default ``"slot k"``).
        """
        def make(data, k):
            nm = self._editor.unique_name(name, f"slot {k}", data)
            return PinInSlot.create(bar_a, bar_b, s_b, offset, nm, len(data.bars))

        k = self._editor.add(make, PinInSlot)
        return self._data.of(PinInSlot)[k].name

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
            Its name (default ``"prismatic k"``).
        """
        def make(data, k):
            nm = self._editor.unique_name(name, f"prismatic {k}", data)
            return PrismaticJoint.create(bar_a, bar_b, s_b, offset, nm, data.bars, phi0)

        k = self._editor.add(make, PrismaticJoint)
        return self._data.of(PrismaticJoint)[k].name

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
            Its name (default ``"slider k"``).
        """
        def make(data, k):
            nm = self._editor.unique_name(name, f"slider {k}", data)
            return GroundSlider.create(bar_index, s, angle, point, nm, data.bars)

        k = self._editor.add(make, GroundSlider)
        return self._data.of(GroundSlider)[k].name

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
            Its name (default ``"latch k"``).
        """
        def make(data, k):
            nm = self._editor.unique_name(name, f"latch {k}", data)
            return Latch.create(bar_a, bar_b, angle, nm, data)

        k = self._editor.add(make, Latch)
        return self._data.of(Latch)[k].name

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
            Its name (default ``"stop k"``).
        """
        def make(data, k):
            nm = self._editor.unique_name(name, f"stop {k}", data)
            return AngleStop.create(bar_a, bar_b, limit, side, restitution, rest_speed, nm,
                                    len(data.bars))

        k = self._editor.add(make, AngleStop)
        return self._data.of(AngleStop)[k].name

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
            Its name (default ``"contact k"``).
        """
        def make(data, k):
            nm = self._editor.unique_name(name, f"contact {k}", data)
            return Contact.create(bar_index, s, normal_angle, height, restitution, rest_speed,
                                  nm, len(data.bars))

        k = self._editor.add(make, Contact)
        return self._data.of(Contact)[k].name

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
            Its name (default ``"event k"``).
        direction : {"any", "up", "down"}
            Count crossings where ``expr`` increases ("up"), decreases ("down"), or both.
        terminal : bool
            End the simulation at the first crossing.
        """
        def make(data, k):
            nm = self._editor.unique_name(name, f"event {k}", data)
            return UserEvent.create(expr, nm, direction, terminal, len(data.bars),
                                    self._parameter_names(data))

        k = self._editor.add(make, UserEvent)
        return self._data.of(UserEvent)[k].name

    # ------------------------------------------------------------------ removing
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
        self._editor.remove(PinJoint, joint_index)

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
        self._editor.remove(PointLoad, force_index)

    def clear(self) -> None:
        """Remove all bars and elements (g, the stabilization rate and the tolerance are kept)."""
        self.F, self.q, self.qd = [], [], []
        d = self._data
        self._editor.commit(ModelData(g=d.g, stabilization=d.stabilization), "cleared")

    def infer_joints(self) -> int:
        """Add joints where bars meet in their initial poses; returns the total joint count.

        Intersections anywhere along the bars count; bars meeting at one point form one joint;
        a point already joined gets only the missing bars added (no duplicate joints).
        """
        for i in range(self.n_bars):
            self._editor.posed_bar(i, "infer_joints")
        # an inferred joint must pass the start-up check (tolerance relative to the length scale)
        eps = 0.5 * self.tolerance * self._data.length_scale()
        self._editor.edit("joints inferred", lambda data: infer_joints(data, eps))
        return len(self._data.of(PinJoint))

    # ------------------------------------------------------------------ state
    def get_initial_state(self) -> list[float]:
        """Return the initial state ``[x_0, y_0, θ_0, ..., xd_0, yd_0, θd_0, ...]``.

        All coordinates, then all velocities (m, rad, m/s, rad/s).
        """
        return initial_state(self._data).tolist()

    def set_initial_state(self, initial_state: Sequence[float]) -> list[float]:
        """Set all bar poses and velocities from a state ``[q..., qd...]``.

        Parameters
        ----------
        initial_state : sequence of float
            6 values per bar: all coordinates, then all velocities.

        Returns
        -------
        list of float
            The state set.
        """
        n = self.n_bars
        nq = self._data.n_coordinates()
        arr = real_array(initial_state, "initial_state", "a sequence of real numbers")
        if arr.ndim != 1 or arr.shape[0] != 2 * nq:
            raise ValueError(f"initial_state: expected {2 * nq} values (6 per bar or body, 4 per "
                             f"particle, for {n} bodies: all q then all qd), got shape "
                             f"{arr.shape}")

        def change(data):
            for o, b in zip(data.offsets(), data.bars):
                k = b.n_coordinates
                pad = (0.0,) * (3 - k)  # a particle keeps θ = 0
                b.pose = tuple(float(v) for v in arr[o:o + k]) + pad
                b.velocity = tuple(float(v) for v in arr[nq + o:nq + o + k]) + pad

        self._editor.edit("state", change)
        return arr.tolist()

    # ------------------------------------------------------------------ compiled code
    def is_compiled(self, tol: float | None = None, purpose: str = "interactive", *,
                    t_end: float | None = None) -> bool:
        """Whether :meth:`simulate` with these options would reuse compiled code.

        Parameters
        ----------
        tol : float, optional
            Integrator tolerance, as :meth:`simulate`.
        purpose : {"interactive", "long"}
            Compile options, as :meth:`simulate`.
        t_end : float, optional
            Length of the run: without ``tol``, the default tolerance depends on it.
        """
        t_end = None if t_end is None else check_positive(t_end, "t_end")
        return self._simulator.is_compiled(self._data, tol, purpose, t_end)

    def compiled(self, tol: float | None = None, purpose: str = "interactive", *,
                 dynamics: bool = False, t_end: float | None = None):
        """Return the compiled system of the current topology (built on first use, then cached).

        Parameters
        ----------
        tol : float, optional
            Integrator tolerance, as :meth:`simulate`.
        purpose : {"interactive", "long"}
            Compile options, as :meth:`simulate`.
        dynamics : bool
            Also compile the function evaluating multipliers, accelerations and the
            singularity measure (otherwise on first need).
        t_end : float, optional
            Length of the run to compile for: without ``tol``, the default tolerance depends
            on it (as :meth:`simulate`'s).
        """
        t_end = None if t_end is None else check_positive(t_end, "t_end")
        return self._simulator.compiled(self._data, tol, purpose, dynamics=dynamics,
                                        t_end=t_end)

    def sparsity(self) -> Sparsity:
        """Structural non-zeros of M, J and W of the compiled equations (boolean arrays)."""
        return self._simulator.sparsity(self._data)

    def symbolic_entry(self, which: str, row: int, col: int | None = None):
        """Return one entry of the compiled equations as a heyoka expression.

        The expression is in the model's own runtime parameters (``hy.par[k]``, see
        :meth:`parameter_keys`), or ``0.0`` for a structural zero.

        Parameters
        ----------
        which : {"M", "J", "W", "lambda"}
            The matrix (or the multipliers).
        row, col : int
            The entry (``col`` not used for ``"lambda"``).
        """
        return self._simulator.symbolic_entry(self._data, which, row, col)

    # ------------------------------------------------------------------ checks and numbers
    def check_constraint_fulfillment(self, state: Sequence[float],
                                     t: float = 0.0) -> ConstraintCheck:
        r"""Evaluate the constraint residuals at a state.

        Parameters
        ----------
        state : sequence of float
            ``[q..., qd...]``.
        t : float, optional
            Time (s), which matters for driven constraints.

        Returns
        -------
        ConstraintCheck
            ``labels``, ``position`` (:math:`F(q)` per row), ``velocity``
            (:math:`J\dot q` per row), their maxima, ``tolerance`` and ``satisfied`` (both
            maxima within :attr:`tolerance`); ``bool(check)`` is ``satisfied``.
        """
        state = real_array(state, "state", "a sequence of real numbers")
        return self._simulator.check(self._data, self.tolerance, state, t)

    def degrees_of_freedom(self) -> int:
        r""":math:`n - \operatorname{rank} J` at the initial pose."""
        return self._simulator.degrees_of_freedom(self._data)

    def assemble(self, max_iter: int = 50) -> AssemblyReport:
        r"""Move the initial poses the least needed to satisfy every constraint.

        Gauss–Newton with minimum-norm steps from the drawn pose (metric
        :math:`Δx^2 + Δy^2 + (LΔθ)^2` per bar), so the result stays on the drawn branch;
        then the velocities are projected onto :math:`J\dot q = 0`.

        Parameters
        ----------
        max_iter : int
            Largest number of Gauss–Newton steps.

        Returns
        -------
        AssemblyReport
            ``moved`` (per bar: its ``(Δx, Δy, Δθ)``), ``max_move``, ``residual``.

        Raises
        ------
        ValueError
            Naming the constraints that cannot be met; the model is then unchanged.
        """
        state, report = self._simulator.assemble(self._data, self.tolerance, max_iter)
        self.set_initial_state(state)
        return report

    def matrices(self, state: Sequence[float] | None = None, t: float = 0.0, *,
                 stabilized: bool = False) -> StateMatrices:
        """Numeric ``M``, ``J``, ``W = J M⁻¹ Jᵀ``, ``lambda_mult`` and ``qdd`` at a state.

        ``lambda_mult`` and ``qdd`` are those of the Lagrangian equations, without the
        stabilization terms of :meth:`simulate` (which vanish on the constraints anyway),
        unless ``stabilized``.

        Parameters
        ----------
        state : sequence of float, optional
            ``[q..., qd...]`` (default: the initial state).
        t : float, optional
            Time (s), for driven constraints.
        stabilized : bool, optional
            Include the Baumgarte terms: the λ and q̈ that :meth:`simulate` integrates
            (different only off the constraints).

        Returns
        -------
        StateMatrices
            With the rank of J, the degrees of freedom and the singularity measure (min pivot
            ratio of W in the factorization's row order, see :class:`Trajectory`).
        """
        if state is not None:
            state = real_array(state, "state", "a sequence of real numbers")
        return self._simulator.matrices(self._data, state, t, stabilized=stabilized)

    # ------------------------------------------------------------------ simulation
    def simulate(self, t_end: float, n_points: int = 201, *, tol: float | None = None,
                 projection: bool = False, singular_threshold: float = 1e-8,
                 purpose: str = "interactive", max_steps: int = DEFAULT_MAX_STEPS,
                 max_wall_s: float = DEFAULT_MAX_WALL_S, singular: str = "pass") -> Trajectory:
        r"""Integrate the motion from the initial state over ``[0, t_end]``.

        Uses ``hy.taylor_adaptive`` (cached by topology, data as runtime parameters) and
        ``propagate_grid``; outputs are evaluated by one compiled function on all points.

        Parameters
        ----------
        t_end : float
            Final time (s), > 0.
        n_points : int
            Number of output times, evenly spaced including 0 and ``t_end``.
        tol : float, optional
            Integrator tolerance. When None it is chosen from the model's size and the run
            (:func:`~quivira.model.compiled.default_tolerance`): 1e-12 up to 20 coordinates,
            where compiling dominates the time, and for runs no longer than the model's time
            scale :math:`T = 2\pi\sqrt{\ell/g}` (ℓ the shortest bar), whose few steps cost
            little; 1e-10 otherwise, where integrating dominates (relative energy errors stay
            below about 1e-12). Code already compiled for this topology at another of these
            tolerances is re-used rather than compiled again. ``traj.info`` reports what was
            used (``tol``, ``tol_rule``, ``compact_mode``, ``opt_level``,
            ``singularity_monitor``).
        projection : bool
            Project positions and velocities onto the constraint manifold at every output
            time (Gauss–Newton in the mass metric), removing drift on long runs.
        singular_threshold : float
            The singularity monitor watches :math:`\min_k d_k/W_{kk}` (see
            :class:`Trajectory`): below this value the pose counts as singular (0: not
            watched). Models whose constraint Jacobian has full rank at every pose, proven
            from its structure (trees of pins and rollers), are not watched at all
            (:mod:`quivira.model.regularity`), which saves compile and run time.
        singular : {"pass", "stop"}
            At a singular pose (the rows of J nearly dependent, e.g. a linkage passing a flat
            or aligned pose): pass through it in a short window where the constraint
            accelerations are interpolated in time between the window's ends
            (:mod:`quivira.model.singular_window`; the crossing is recorded in
            ``traj.events`` with the rows concerned), or stop with
            :class:`SingularConfigurationError`.
        purpose : {"interactive", "long"}
            Compile options: fast compiling, or fast running.
        max_steps : int
            Budget of integrator steps (default 5·10⁷).
        max_wall_s : float
            Budget of wall time in s (default 3600).

        Returns
        -------
        Trajectory
            Times, states, multipliers, reactions, energies and residuals.

        Raises
        ------
        TypeError, ValueError
            A bad argument; initial positions that violate a constraint; redundant
            constraints; outputs that would need more than 2 GB.
        SingularConfigurationError
            A singular pose (with ``singular="stop"``) or a non-finite state was met; carries
            ``t`` (the last valid time), ``state`` and the trajectory up to then.
        BudgetExceededError
            ``max_steps`` or ``max_wall_s`` was used up; carries the trajectory so far.
        SimulationInterrupted
            Ctrl-C or the notebook's "interrupt kernel" (checked at least every 0.2 s); a
            ``KeyboardInterrupt`` carrying the trajectory so far.

        Notes
        -----
        Thread safety: a model may be simulated from several threads; the runs take turns on
        its compiled integrator. Edits from other threads during a run are not seen by it.

        Examples
        --------
        A bar of length :math:`L` pinned at one end, released horizontally from rest, passes the
        bottom with :math:`ω^2 = 3g/L` (energy), and the pin then pulls up with 2.5 times the
        weight (:math:`mg + mω^2L/2`):

        >>> import math
        >>> import numpy as np
        >>> import quivira
        >>> model = quivira.bar_joint_model()
        >>> bar = model.add_bar_at_attitude(0.5, 0.0, 0.0, 1.0, 1.0)  # horizontal, at rest
        >>> model.add_support(bar, -0.5, fixed_x=True, fixed_y=True)
        0
        >>> traj = model.simulate(1.0, 1001)
        >>> k = int(np.argmax(np.abs(traj.qd[:, 2])))  # the bar hangs straight down here
        >>> round(float(traj.q[k, 2]), 2), round(-math.pi / 2, 2)
        (-1.57, -1.57)
        >>> round(float(abs(traj.qd[k, 2])), 3), round(math.sqrt(3 * 9.81 / 1.0), 3)
        (5.425, 5.425)
        >>> round(float(traj.support_force(0)[k, 1] / 9.81), 3)
        2.5
        >>> traj.relative_energy_error() < 1e-10
        True
        """
        return self._simulator.simulate(
            self._data, self.tolerance, t_end, n_points, tol=tol, projection=projection,
            singular_threshold=singular_threshold, purpose=purpose, max_steps=max_steps,
            max_wall_s=max_wall_s, singular=singular)

    # ------------------------------------------------------------------ equations
    def build_lagrange_eom(self, return_multipliers: bool = False, return_W: bool = False):
        r"""Assemble the symbolic first-order system of the model, numeric data as constants.

        The system can be passed straight to ``hy.taylor_adaptive(sys, state)`` with the state
        from :meth:`get_initial_state`. Sets ``self.F`` (constraint residuals), ``self.q``
        and ``self.qd`` (variables).

        Parameters
        ----------
        return_multipliers : bool, optional
            Also return the multipliers :math:`\lambda` (in the order of ``self.F``).
        return_W : bool, optional
            Also return :math:`W = J M^{-1} J^T`.

        Returns
        -------
        list or tuple
            As :func:`quivira.lagrange_eom`: ``sys``, ``(sys, lambda_mult)``, ``(sys, W)`` or
            ``(sys, lambda_mult, W)``.
        """
        sym = build_symbolic(self._data, use_pars=False)
        parts = assemble_eom(sym.lagrangian, sym.F, sym.q, sym.qd, sym.Q_nc,
                             velocity_constraints=sym.G, W_shift=sym.W_shift,
                             solver=self.solver)
        self.F, self.q, self.qd = list(sym.F), list(sym.q), list(sym.qd)
        return eom_result(parts, return_multipliers, return_W)

    def mass_matrix_forms(self):
        """Return the model's equations in SymPy ``LagrangesMethod`` layout.

        Numeric data are constants: a :class:`quivira.forms.LagrangeForms` with ``mass_matrix``,
        ``forcing``, ``mass_matrix_full``, ``forcing_full`` and ``rhs()``.
        """
        from ..forms import LagrangeForms

        sym = build_symbolic(self._data, use_pars=False)
        return LagrangeForms(assemble_eom(sym.lagrangian, sym.F, sym.q, sym.qd, sym.Q_nc,
                                          velocity_constraints=sym.G, W_shift=sym.W_shift,
                                          solver=self.solver))

    def _linearizer(self) -> Linearizer:
        data = self._data
        cs = self._simulator.compiled(data)
        n = self.n_coordinates
        base = self.parameter_values()
        return Linearizer(
            system=cs, pars=Simulator.parameters(data, cs, stabilized=False),
            active=Simulator.active_rows(data, cs), mass_diag=mass_diagonal(data),
            tolerance=self.tolerance, q_default=initial_state(data, "linearize")[:n],
            inputs=list(cs.assembly.collected.inputs),
            coordinate_names=[str(v) for v in cs.q],
            parameter_scale=max(1.0, float(np.max(np.abs(base)))))

    def linearize(self, q_op: Sequence[float] | None = None,
                  qd_op: Sequence[float] | None = None, *,
                  allow_nonequilibrium: bool = False) -> Linearization:
        """Linearize the model about an operating point: return ``(A, B)``.

        The independent coordinates are chosen by coordinate partitioning of J there.

        ``x = (z, ż)``, ``ẋ = A x + B u`` with ``u`` the input values of the loads (``fx``,
        ``fy``, ``torque`` of every point load). See :mod:`quivira.model.linearize` for the
        equations and the treatment of operating points that are not equilibria.

        Parameters
        ----------
        q_op, qd_op : sequence of float, optional
            The operating point (default: the initial pose, at rest).
        allow_nonequilibrium : bool
            Give the tangent linear model of the motion through a state that is not an
            equilibrium (otherwise ValueError).

        Returns
        -------
        Linearization
            Unpacks as ``A, B``; also ``.coordinates`` (the independent coordinates), ``.T``
            (``δq = T δz``) and ``.inputs``.
        """
        return self._linearizer().linearize(q_op, qd_op,
                                            allow_nonequilibrium=allow_nonequilibrium)

    def modes(self, q_op: Sequence[float] | None = None) -> Modes:
        """Compute natural frequencies (rad/s) and mode shapes about an equilibrium.

        About the initial pose by default, from :math:`K_z v = ω^2 M_z v`; the shapes are mapped
        back to all coordinates.

        Parameters
        ----------
        q_op : sequence of float, optional
            The equilibrium pose.
        """
        return self._linearizer().modes(q_op)

    # ------------------------------------------------------------------ output
    def print_model(self) -> None:
        """Print a readable summary of bars, elements and g."""
        print(self.summary())

    def summary(self) -> str:
        """Return the text printed by :meth:`print_model`."""
        d = self._data
        lines = [f"bar_joint_model: {len(d.bars)} bars, {len(d.of(PinJoint))} joints, "
                 f"{len(d.of(Support))} supports, {len(d.of(PointLoad))} forces, g = {d.g:g}"]
        lines += [f"  {b.describe(i)}" for i, b in enumerate(d.bars)]
        lines += [f"  {el.describe(pos)}" for _, pos, el in d.items()]
        return "\n".join(lines)

    def __repr__(self) -> str:
        """Return a short description: the numbers of bars, joints, supports and forces."""
        d = self._data
        return (f"<bar_joint_model: {len(d.bars)} bars, {len(d.of(PinJoint))} joints, "
                f"{len(d.of(Support))} supports, {len(d.of(PointLoad))} forces>")

    # ------------------------------------------------------------------ persistence
    def to_dict(self) -> dict:
        """Return the model as plain JSON-ready data (with ``format_version``)."""
        return persistence.to_dict(self._data, self.tolerance)

    @classmethod
    def from_dict(cls, d: dict, *, max_expression_nodes: int | None = None
                  ) -> bar_joint_model:
        """Build a new model from :meth:`to_dict` data (format versions 1 and 2).

        Parameters
        ----------
        d : dict
            The data, e.g. parsed from a model file.
        max_expression_nodes : int, optional
            Largest total number of nodes of all the expressions (constraints, laws, events)
            of the data (default ``persistence.MAX_EXPRESSION_NODES``, 100,000: about three
            seconds of reading). The model API refuses models beyond the default, so every
            saved model reads back.

        Raises
        ------
        ValueError
            Malformed data, naming the first problem.
        """
        data, tolerance = persistence.from_dict(d, max_expression_nodes)
        model = cls(tolerance)
        model._editor.commit(data, "loaded")
        return model

    def save(self, path: str | Path) -> None:
        """Write the model to a JSON file.

        Format version 2: plain data only, expressions as JSON trees of whitelisted operations.

        Parameters
        ----------
        path : str or Path
            The file to write.
        """
        Path(path).write_text(json.dumps(self.to_dict(), indent=1, allow_nan=False))

    @classmethod
    def load(cls, path: str | Path, *, max_bytes: int = persistence.MAX_FILE_BYTES,
             max_expression_nodes: int | None = None) -> bar_joint_model:
        """Read a model written by :meth:`save` (format versions 1 and 2).

        The file is data: it is parsed as JSON and validated, nothing in it is executed or
        deserialized as objects (version-1 expressions, stored as pickles, are read by a
        limited parser without unpickling). Only regular files are read, at most
        ``max_bytes``.

        Parameters
        ----------
        path : str or Path
            The file to read.
        max_bytes : int, optional
            Largest file size read (default 10 MB).
        max_expression_nodes : int, optional
            Largest total number of nodes of the file's expressions, as :meth:`from_dict`.

        Raises
        ------
        ValueError
            A malformed or too large file, naming the problem.
        OSError
            The file cannot be opened.
        """
        return cls.from_dict(persistence.read_file(path, max_bytes),
                             max_expression_nodes=max_expression_nodes)

    # --- bodies and joints (issue 21) ---
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
            Its name (default ``"weld k"``).

        Returns
        -------
        str
            The weld's name.
        """
        def make(data, k):
            nm = self._editor.unique_name(name, f"weld {k}", data)
            return Weld.create(body_a, body_b, at, nm, data.bars)

        k = self._editor.add(make, Weld)
        return self._data.of(Weld)[k].name

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
            Its name (default ``"distance k"``).

        Returns
        -------
        str
            The link's name.
        """
        def make(data, k):
            nm = self._editor.unique_name(name, f"distance {k}", data)
            return Distance.create(body_a, point_a, body_b, point_b, length, nm, data.bars)

        k = self._editor.add(make, Distance)
        return self._data.of(Distance)[k].name

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
            Its name (default ``"pin k"``).

        Returns
        -------
        str
            The pin's name.
        """
        def make(data, k):
            nm = self._editor.unique_name(name, f"pin {k}", data)
            return BodyPin.create(body_a, point_a, body_b, point_b, nm, data.bars,
                                  self.tolerance)

        k = self._editor.add(make, BodyPin)
        return self._data.of(BodyPin)[k].name

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
        value = check_positive(length, f"{name}: length")

        def make(data, old, k):
            new = old.copy()
            new.length = value
            return new

        self._editor.replace(Distance, pos, make)

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
            Its name (default ``"rolling k"``).

        Returns
        -------
        str
            The contact's name.
        """
        def make(data, k):
            nm = self._editor.unique_name(name, f"rolling {k}", data)
            return RollingOnLine.create(body, angle, point, radius, centre, nm, data.bars)

        k = self._editor.add(make, RollingOnLine)
        return self._data.of(RollingOnLine)[k].name

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
            Its name (default ``"disc rolling k"``).

        Returns
        -------
        str
            The contact's name.
        """
        def make(data, k):
            nm = self._editor.unique_name(name, f"disc rolling {k}", data)
            return RollingOnDisc.create(body_a, body_b, radius_a, radius_b, inside, centre_a,
                                        centre_b, nm, data.bars)

        k = self._editor.add(make, RollingOnDisc)
        return self._data.of(RollingOnDisc)[k].name

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
            Its name (default ``"motor k"``).

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

        def make(data, k):
            nm = self._editor.unique_name(name, f"motor {k}", data)
            return JointMotor.create(a, b, angle_law, nm, data.bars,
                                     self._parameter_names(data))

        k = self._editor.add(make, JointMotor)
        return self._data.of(JointMotor)[k].name


    # --- statics, kinematics and internal forces (issue 15) ---
    def _statics_problem(self, t: Any = 0.0):
        from .statics import StaticsProblem

        t = check_real(t, "t")
        data = self._data
        cs = self._simulator.compiled(data)
        return StaticsProblem(data, cs, Simulator.active_rows(data, cs), t)

    def _pose(self, q: Any, what: str) -> np.ndarray:
        from .statics import _check_q

        if q is None:
            return initial_state(self._data, what)[: self.n_coordinates]
        return _check_q(q, self.n_coordinates, what)

    def _axial_forces(self, prob, q: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """N at the centre of every bar (0 for other bodies) at rest at ``q``."""
        from .internal_forces import internal_forces

        z = np.zeros((1, q.shape[0]))
        res = internal_forces(prob.data, prob.cs, prob.pars, np.array([prob.t]), q[None, :], z,
                              z, lam[None, :], np.array([0.0]))
        out = np.zeros(len(self._data.bars))
        out[res.bars] = res.N[0, :, 0]
        return out

    def equilibrium(self, q_guess: Sequence[float] | None = None, *, t: float = 0.0,
                    tol: float = 1e-10, max_iter: int = 50):
        r"""Find the static equilibrium near ``q_guess``.

        Newton on the KKT system :math:`f(q) + J^T\lambda = 0`, :math:`F(q) = 0` (see
        :mod:`quivira.model.statics`).

        Parameters
        ----------
        q_guess : sequence of float, optional
            Starting pose (default: the initial pose); a whole state ``[q, qd]`` is accepted.
        t : float
            Time, for driven constraints and actuator laws.
        tol : float
            Relative tolerance of the force and constraint residuals.
        max_iter : int
            Largest number of Newton iterations.

        Returns
        -------
        EquilibriumResult
            Pose, labelled multipliers, reactions, axial force per bar, reduced-Hessian
            eigenvalues and stability.

        Raises
        ------
        EquilibriumError
            (a ValueError) No equilibrium nearby, or a mechanism without restoring force.

        Examples
        --------
        A bar pinned at one end, started 1 rad below the horizontal, comes to rest hanging
        straight down; the support's multiplier is the weight, and the stiffness of the reduced
        Hessian is :math:`mgL/2`:

        >>> import math
        >>> import quivira
        >>> model = quivira.bar_joint_model()
        >>> bar = model.add_bar_at_attitude(0.5 * math.cos(-1.0), 0.5 * math.sin(-1.0), -1.0,
        ...                                 1.0, 2.0)
        >>> model.add_support(bar, -0.5, fixed_x=True, fixed_y=True)
        0
        >>> eq = model.equilibrium()
        >>> round(float(eq.q[2]), 6), round(-math.pi / 2, 6)
        (-1.570796, -1.570796)
        >>> round(float(eq.multiplier("support 0 · y")), 6), round(2.0 * 9.81, 6)
        (19.62, 19.62)
        >>> eq.stability, round(float(eq.eigenvalues[0]), 6)
        ('stable', 9.81)
        """
        from . import statics

        prob = self._statics_problem(t)
        q0 = self._pose(q_guess, "q_guess")
        return statics.equilibrium(prob, q0, tol=tol, max_iter=max_iter,
                                   axial=lambda q, lam: self._axial_forces(prob, q, lam))

    def equilibrium_path(self, parameter: Any, values: Sequence[float], *,
                         q_guess: Sequence[float] | None = None, tol: float = 1e-10,
                         max_points: int = 2000, max_step: float | None = None,
                         max_steps: int = DEFAULT_MAX_STEPS,
                         max_wall_s: float = DEFAULT_MAX_WALL_S):
        """Follow the equilibrium as one parameter goes from ``values[0]`` to ``values[-1]``.

        Pseudo-arclength continuation, through limit points (see :mod:`quivira.model.statics`).
        The model is not changed.

        Parameters
        ----------
        parameter : str or tuple
            ``"g"``, ``"force 0 · fy"``, ``"spring 1 · l0"`` (``"<kind> <index> · <name>"``
            of :meth:`parameter_keys`), or the name of a named parameter.
        values : sequence of float
            Start and end value (and the spacing that bounds the steps).
        q_guess : sequence of float, optional
            Pose near the equilibrium at ``values[0]`` (default: the initial pose).
        tol : float
            Relative tolerance of the residuals.
        max_points : int
            Largest number of path points.
        max_step : float, optional
            Largest step in scaled arclength (default: the spacing of ``values``).
        max_steps : int
            Budget of predictor-corrector steps.
        max_wall_s : float
            Budget of wall time (s) of the call.

        Returns
        -------
        EquilibriumPath
            Parameter, poses and multipliers along the path, stability, limit points and
            bifurcations.

        Raises
        ------
        BudgetExceededError, SimulationInterrupted
            A budget was used up, or Ctrl-C; ``.result`` holds the path so far.
        """
        from . import statics

        values = statics.check_values(values)
        label, setter = statics.resolve_parameter(self._data, parameter)
        if isinstance(max_points, bool) or not isinstance(max_points, (int, np.integer)):
            raise TypeError(f"max_points must be an integer >= 2, got {short_repr(max_points)}")
        if max_points < 2:
            raise ValueError(f"max_points must be an integer >= 2, got {max_points}")
        if max_step is not None:
            max_step = check_positive(max_step, "max_step")
        budget = Budget(max_steps, max_wall_s)
        statics.check_path_size(self.n_coordinates, self.n_constraints, int(max_points))
        prob = self._statics_problem()
        q0 = self._pose(q_guess, "q_guess")
        return statics.equilibrium_path(prob, label, setter, values, q0, tol=tol,
                                        max_points=int(max_points), max_step=max_step,
                                        budget=budget)

    def mobility(self, q: Sequence[float] | None = None, *, t: float = 0.0):
        """Return the degrees of freedom at a pose from the rank of J.

        With the redundant rows by label, and Grübler's count beside them (see
        :mod:`quivira.model.kinematics`).

        Parameters
        ----------
        q : sequence of float, optional
            The pose (default: the initial pose).
        t : float
            Time, for driven constraints.

        Returns
        -------
        Mobility
        """
        from .kinematics import mobility

        t = check_real(t, "t")
        data = self._data
        cs = self._simulator.compiled(data)
        pars = Simulator.parameters(data, cs, stabilized=False)
        return mobility(data, cs, pars, Simulator.active_rows(data, cs),
                        self._pose(q, "mobility"), t)

    def kinematic_sweep(self, driver: Any, values: Sequence[float], *,
                        q_start: Sequence[float] | None = None,
                        singular_threshold: float = 1e-6, max_steps: int = DEFAULT_MAX_STEPS,
                        max_wall_s: float = DEFAULT_MAX_WALL_S):
        """Prescribe one driver along ``values`` and solve positions, velocities and accelerations.

        The sweep stays on the current assembly branch (see :mod:`quivira.model.kinematics`).

        Parameters
        ----------
        driver : str, int or tuple
            A coordinate name (``"th0"``), index, or ``("angle", a, b)`` = θ_b − θ_a.
        values : sequence of float
            Driver values, in the order they are visited.
        q_start : sequence of float, optional
            Pose to start from (default: the initial pose).
        singular_threshold : float
            Singularity measure below which a pose counts as a dead centre.
        max_steps : int
            Budget of position solves (sub-steps between the values).
        max_wall_s : float
            Budget of wall time (s) of the call.

        Returns
        -------
        KinematicSweep
            With ``complete=False`` (and a :class:`SweepWarning`) if the driver could not pass
            a dead centre.

        Raises
        ------
        BudgetExceededError, SimulationInterrupted
            A budget was used up, or Ctrl-C; ``.result`` holds the sweep so far.
        """
        from .kinematics import check_sweep_size, kinematic_sweep, parse_driver
        from .statics import check_values

        values = check_values(values)
        thr = check_real(singular_threshold, "singular_threshold")
        if not 0.0 <= thr < 1.0:
            raise ValueError(f"singular_threshold must lie in [0, 1), got {thr:g}")
        budget = Budget(max_steps, max_wall_s)
        check_sweep_size(self.n_coordinates, values.shape[0])
        data = self._data
        cs = self._simulator.compiled(data)
        label, grad = parse_driver(driver, data, [str(v) for v in cs.q])
        pars = Simulator.parameters(data, cs, stabilized=False)
        return kinematic_sweep(data, cs, pars, Simulator.active_rows(data, cs), label, grad,
                               values, self._pose(q_start, "q_start"),
                               singular_threshold=thr, budget=budget)

    def coupler_curve(self, bar: int, s: float, driver: Any, values: Sequence[float], *,
                      offset: float = 0.0, q_start: Sequence[float] | None = None,
                      max_steps: int = DEFAULT_MAX_STEPS,
                      max_wall_s: float = DEFAULT_MAX_WALL_S):
        """Return the path of the bar point ``(sL, offset)`` (bar frame) along a kinematic sweep.

        See :meth:`kinematic_sweep`.

        Parameters
        ----------
        bar : int
            The bar.
        s : float
            Local coordinate along it, in [-0.5, 0.5].
        driver, values, q_start, max_steps, max_wall_s
            As :meth:`kinematic_sweep` (a stopped sweep's ``.result`` is the curve so far).
        offset : float
            Distance (m) of the point from the bar's axis, along its normal.

        Returns
        -------
        CouplerCurve
            ``values``, ``points`` (k, 2), ``x``, ``y`` and the sweep.
        """
        from .kinematics import CouplerCurve, point_positions
        from .validation import bar_index, check_s

        i = bar_index(bar, len(self._data.bars), "coupler_curve: bar")
        sv = check_s(s, "coupler_curve: s")
        off = check_real(offset, "coupler_curve: offset")
        if not getattr(self._data.bars[i], "rotates", True):
            raise ValueError(f"coupler_curve: body {i} is a particle; use s = 0")
        def curve(sweep):
            return CouplerCurve(sweep.values, point_positions(self._data, sweep.q, i, sv, off),
                                sweep)

        try:
            sweep = self.kinematic_sweep(driver, values, q_start=q_start, max_steps=max_steps,
                                         max_wall_s=max_wall_s)
        except (BudgetExceededError, SimulationInterrupted) as exc:
            exc.result = curve(exc.result)
            raise
        return curve(sweep)

    def transmission_angle(self, coupler: int, rocker: int, q: Any = None):
        """Return the transmission angle μ (rad) of a four-bar.

        It is the angle at the coupler–rocker joint between the two bars.

        Parameters
        ----------
        coupler, rocker : int
            The two bars (sharing a pin joint).
        q : sequence of float, array (k, n) or KinematicSweep, optional
            Pose(s) (default: the initial pose).

        Returns
        -------
        float or numpy.ndarray
            One angle per pose.
        """
        from .kinematics import KinematicSweep, transmission_angle
        from .validation import bar_index

        nb = len(self._data.bars)
        a = bar_index(coupler, nb, "transmission_angle: coupler")
        b = bar_index(rocker, nb, "transmission_angle: rocker")
        if isinstance(q, KinematicSweep):
            return transmission_angle(self._data, q.q, a, b)
        if q is not None and np.ndim(q) == 2:
            arr = real_array(q, "q", "poses of real numbers")
            if arr.shape[1] != self.n_coordinates:
                raise ValueError(f"q must have {self.n_coordinates} columns, got {arr.shape}")
            return transmission_angle(self._data, arr, a, b)
        return float(transmission_angle(self._data, self._pose(q, "q")[None, :], a, b)[0])

    def internal_forces(self, source: Any = None, *, s: Any = 51, bars: Any = None,
                        qdd: Any = None, lambda_mult: Any = None):
        """Compute the axial force N(s), shear V(s) and bending moment M(s) along the bars.

        Bar frame, tension positive, dM/dx = V; from the multipliers, loads, springs, gravity and
        the bars' d'Alembert inertia (see :mod:`quivira.model.internal_forces`). Loads are taken
        with the model's current values.

        Parameters
        ----------
        source : Trajectory, EquilibriumResult or sequence of float, optional
            Every frame of a trajectory of this model, an equilibrium, or one state
            ``[q, qd]`` (multipliers and accelerations computed there); default: the initial
            state.
        s : int or sequence of float
            Number of evenly spaced sections (>= 2), or the sections in [-0.5, 0.5].
        bars : sequence of int, optional
            The bars (default: all bars).
        qdd : array (k, n), optional
            Accelerations to use instead of those of the equations (e.g. differentiated from
            the motion).
        lambda_mult : array (k, m), optional
            Multipliers to use instead of those of the source (e.g. to see how an error in
            λ shows in the diagrams).

        Returns
        -------
        InternalForces
            ``N``, ``V``, ``M`` of shape (frames, bars, sections), ``max_abs_N()``,
            ``max_abs_M()``, ``bar(i, frame)``, ``to_pandas()``.
        """
        from .internal_forces import internal_forces
        from .statics import EquilibriumResult
        from .validation import bar_index

        data = self._data
        n = self.n_coordinates
        if isinstance(s, (int, np.integer)) and not isinstance(s, bool):
            if not 2 <= s <= 100_000:
                raise ValueError(f"s must be at least 2 sections and at most 100000, got "
                                 f"{short_repr(s)}")
            sec = np.linspace(-0.5, 0.5, int(s))
        else:
            sec = real_array(s, "s", "a number of sections or a sequence of local "
                             "coordinates").reshape(-1)
            if sec.size == 0 or np.any(np.abs(sec) > 0.5):
                raise ValueError("s: local coordinates must be finite and lie in [-0.5, 0.5]")
        if bars is not None:
            if isinstance(bars, (int, np.integer)):
                bars = [bars]
            bars = [bar_index(b, len(data.bars), "internal_forces: bars") for b in bars]
            for b in bars:
                if getattr(data.bars[b], "body_kind", "bar") != "bar":
                    raise ValueError(f"internal_forces: body {b} is not a bar")
        cs = self._simulator.compiled(data)
        pars = Simulator.parameters(data, cs, stabilized=False)
        if isinstance(source, Trajectory):
            if source.q.shape[1] != n:
                raise ValueError("internal_forces: the trajectory is not of this model "
                                 f"({source.q.shape[1]} coordinates, the model has {n})")
            if source.lambda_mult.shape[1] != cs.m:
                raise ValueError("internal_forces: the trajectory's constraint rows do not "
                                 "match this model's; simulate the model again")
            t, q, qd, lam = source.t, source.q, source.qd, source.lambda_mult
            acc = source.qdd
        elif isinstance(source, EquilibriumResult):
            t, q = np.zeros(1), source.q[None, :]
            qd = np.zeros_like(q)
            acc, lam = np.zeros_like(q), source.lambda_mult[None, :]
        else:
            state = initial_state(data, "internal_forces") if source is None else source
            arr = real_array(state, "internal_forces: source", "a Trajectory, an "
                             "EquilibriumResult or a state [q, qd]")
            if arr.shape != (2 * n,):
                raise ValueError(f"internal_forces: a state needs {2 * n} values [q, qd], got "
                                 f"shape {arr.shape}")
            mats = self.matrices(arr)
            t, q, qd = np.zeros(1), arr[None, :n], arr[None, n:]
            acc, lam = mats.qdd[None, :], mats.lambda_mult[None, :]
        if qdd is not None:
            acc = real_array(qdd, "qdd")
            if acc.shape != q.shape:
                raise ValueError(f"qdd must have shape {q.shape}, got {acc.shape}")
        if lambda_mult is not None:
            lam = real_array(lambda_mult, "lambda_mult")
            if lam.shape != (q.shape[0], cs.m):
                raise ValueError(f"lambda_mult must have shape {(q.shape[0], cs.m)}, got "
                                 f"{lam.shape}")
        return internal_forces(data, cs, pars, np.asarray(t, dtype=float), q, qd, acc, lam,
                               sec, bars)

    # --- sensitivities (issue 23) ---
    def sensitivities(self, t_end: float, wrt: str | Sequence[str], order: int = 1,
                      outputs: str | Sequence[str] = ("state", "energy"),
                      n_points: int = 201, *, tol: float | None = None,
                      at: Any = None, max_steps: int = DEFAULT_MAX_STEPS,
                      max_wall_s: float = DEFAULT_MAX_WALL_S
                      ) -> Sensitivities:  # noqa: F821 - imported on use
        r"""Compute derivatives of the motion and its outputs with respect to model data.

        Up to ``order``, from heyoka's variational equations
        :math:`\tfrac{d}{dt}∂^α x = ∂^α f(x, w)` of the (stabilized) equations of motion.

        See :func:`quivira.sensitivity.sensitivities` for the parameters (``wrt`` names such
        as ``"g"``, ``"bar 1 · mass"``, ``"torsional spring 0 · k"``, ``"th0"``), the
        treatment of the constraints and of terminal events; returns a
        :class:`~quivira.sensitivity.Sensitivities` (labelled arrays, ``taylor_map``,
        ``propagate``). The model is not changed. ``max_steps`` and ``max_wall_s`` are the
        budgets of :meth:`simulate`: a run that uses one up, or is interrupted by Ctrl-C, raises
        :class:`BudgetExceededError` or :class:`SimulationInterrupted` with the sensitivities
        so far in ``.result``.
        """
        from ..sensitivity import sensitivities

        return sensitivities(self, t_end, wrt, order, outputs, n_points, tol=tol, at=at,
                             max_steps=max_steps, max_wall_s=max_wall_s)

    # --- value edits of switching and sliding elements (widgets) ---
    #: the value fields :meth:`set_constraint_values` edits, by element kind
    _CONSTRAINT_VALUE_FIELDS = {
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
        kind, pos = self._editor.find_name(name, "constraint")
        allowed = self._CONSTRAINT_VALUE_FIELDS.get(kind.title)
        if allowed is None:
            kinds = ", ".join(self._CONSTRAINT_VALUE_FIELDS)
            raise ValueError(f"set_constraint_values: {name!r} is a {kind.title}; only a "
                             f"{kinds} has values to set here")
        unknown = sorted(set(values) - set(allowed))
        if unknown:
            raise ValueError(f"set_constraint_values: unknown fields {unknown} for the "
                             f"{kind.title} {name!r}; valid fields: {list(allowed)}")
        if not values:
            return
        data = self._editor.draft()
        items = data.of(kind)
        old = items[pos]
        v = {f: values.get(f, getattr(old, f)) for f in allowed}
        if kind is PinInSlot:
            new = PinInSlot.create(old.bar_a, old.bar_b, v["s_b"], v["offset"], name,
                                   len(data.bars))
        elif kind is PrismaticJoint:
            new = PrismaticJoint.create(old.bar_a, old.bar_b, v["s_b"], v["offset"], name,
                                        data.bars, v["phi0"])
        elif kind is GroundSlider:
            new = GroundSlider.create(old.bar, v["s"], v["angle"], v["point"], name, data.bars)
        elif kind is Latch:
            new = Latch.create(old.bar_a, old.bar_b, v["angle"], name, data)
        elif kind is AngleStop:
            new = AngleStop.create(old.bar_a, old.bar_b, v["limit"], old.side,
                                   v["restitution"], v["rest_speed"], name, len(data.bars))
        else:
            new = Contact.create(old.bar, v["s"], v["normal_angle"], v["height"],
                                 v["restitution"], v["rest_speed"], name, len(data.bars))
        if hasattr(old, "active"):
            new.active = old.active
        items[pos] = new
        shown = ", ".join(f"{f} = {short_repr(values[f])}" for f in allowed if f in values)
        self._editor.commit(data, f"{kind.title} {name!r}: {shown}")


BarJointModel = bar_joint_model
