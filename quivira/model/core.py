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

import dataclasses
import functools
import json
import math
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import heyoka as hy
import numpy as np

from .._repr import short_repr
from ..budget import Budget, interrupts_polled
from ..lagrangian import assemble_eom, eom_result
from . import names, persistence
from .data import Bar, ModelData
from .editing import UNSET, ModelEditor
from .elements import (
    Parameter,
    PinJoint,
    PointLoad,
    Support,
)
from .elements.actuators import parameter_variable
from .elements.pin_joint import inferred_joints
from .engine_api import Engine, study
from .linearize import Linearization, Linearizer, Modes
from .names import Name
from .results import AssemblyReport, ConstraintCheck, Sparsity, StateMatrices
from .simulator import (
    DEFAULT_MAX_STEPS,
    DEFAULT_MAX_WALL_S,
    ConstraintWarning,
    Simulator,
    initial_state,
    mass_diagonal,
)
from .symbolic import build_symbolic, parameter_layout, topology_key
from .trajectory import BudgetExceededError, SimulationInterrupted, Trajectory
from .validation import (
    check_flag,
    check_point,
    check_positive,
    check_real,
    real_array,
)

if TYPE_CHECKING:  # for the annotation only: the model does not import a study at run time
    from ..sensitivity import Sensitivities

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

    @property
    def _data(self) -> ModelData:
        return self._editor.data

    @property
    def engine(self) -> Engine:
        """The declared engine API of this model, for studies, widgets and benchmarks.

        An :class:`~quivira.model.engine_api.Engine` over this model's parts: ``data`` (the
        current data snapshot), ``simulator`` (the compiled-code cache), ``lock`` and
        ``commit(data, what)``. Not needed for modelling or simulating: the methods of the
        model are the user API.
        """
        return Engine(self._editor, self._simulator)

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
    def g(self) -> float:
        """Gravitational acceleration along −y (m/s² for SI data)."""
        return self._data.g


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








    def topology_key(self) -> tuple:
        """Return what the compiled code depends on.

        Bars, the connectivity of the elements, names of constraints: equal keys share compiled
        code, value edits leave it unchanged.
        """
        return topology_key(self._data)

    # ------------------------------------------------------------------ earlier releases
    def __getattr__(self, name: str) -> Any:
        """Run a member of an earlier release, with a pending deprecation (:mod:`.legacy`)."""
        if name.startswith("_"):
            raise AttributeError(name)
        from . import legacy

        fn = getattr(legacy, name, None) if name in legacy.REPLACEMENTS else None
        if fn is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        warnings.warn(f"model.{name} is deprecated; use {legacy.REPLACEMENTS[name]} (it goes "
                      "in the next release)", names.EARLIER_SPELLING, stacklevel=2)
        if name in legacy.PROPERTIES:
            return fn(self)
        return functools.partial(fn, self)

    # ------------------------------------------------------------------ the generic API
    def add(self, item: Any) -> str:
        """Add a body or an element; return its name.

        Parameters
        ----------
        item : Bar, Particle, RigidBody or an element of :mod:`quivira.elements`
            E.g. ``quivira.elements.Contact(bar=0, s=0.5, restitution=0.3)``. Its fields are
            checked as the kind declares them (:mod:`quivira.model.elements.fields`); an
            element without a name gets its kind's prefix and the first free index
            (``"contact0"``).

        Returns
        -------
        str
            The canonical name (``"bar3"``, ``"contact0"``, or the name given).

        Raises
        ------
        TypeError, ValueError
            Naming the element and the field to fix; the model is left as it was.

        Examples
        --------
        >>> import quivira
        >>> from quivira.elements import Contact
        >>> model = quivira.bar_joint_model()
        >>> model.add_bar_at_attitude(0.0, 0.5, 0.0, 1.0, 1.0)
        0
        >>> model.add(Contact(bar=0, s=-0.5, restitution=0.5))
        'contact0'
        >>> model.element("contact0").restitution
        0.5
        """
        return self._editor.add_item(item)

    def set(self, name: str, value: Any = UNSET, /, **values: Any) -> None:
        """Set values of a body, an element, a named parameter or the model, by name.

        ``model.set("spring0", k=200.0, c=1.5)``, ``model.set("spring0.k", 200.0)``,
        ``model.set("bar3", mass=2.0, omega=1.0)``, ``model.set("g", 1.62)``,
        ``model.set("A", 0.3)`` (a named parameter). A value that is not topology changes
        runtime parameters only: the next simulation reuses the compiled code. The names are
        those of :meth:`parameters`.

        Raises
        ------
        TypeError, ValueError
            An unknown name or field (with the valid ones), a field that cannot be edited, a
            bad value; the model is left as it was.
        """
        self._editor.set_by_name(name, value, values)

    def remove(self, name: str) -> dict | None:
        """Remove a body (and what depends on it) or an element, by name.

        Returns what a body's removal took with it (see :meth:`remove_bar`), None for an
        element.
        """
        return self._editor.remove_by_name(name)

    def element(self, name: str) -> Any:
        """Return a copy of the element (or body) called ``name``."""
        return self._editor.item(name).copy()

    @property
    def elements(self) -> dict[str, Any]:
        """Every element by name (copies), in row order."""
        return {nm: el.copy() for nm, el in self._editor.named_items().items()}

    @property
    def bodies(self) -> list:
        """Copies of the bodies (bars, particles, rigid bodies), in index order."""
        return [b.copy() for b in self._data.bars]

    def variables(self, body: int | str) -> tuple[tuple, tuple]:
        """Return the heyoka variables of a body's coordinates and velocities, for laws.

        ``((x3, y3, th3), (vx3, vy3, om3))`` for body 3 (a particle has no angle), by index or
        name (``"bar3"``). These are the symbols of laws and user rows, e.g.
        ``Parameter`` ``A`` times ``hy.sin(th3)``.
        """
        if isinstance(body, str):
            i = names.body_index(self._data, body)
            if i is None:
                known = [names.body_name(k, b) for k, b in enumerate(self._data.bars)]
                raise ValueError(f"no body is called {body!r}; bodies are {known}")
        else:
            i = self._editor.check_bar(body, "body")
        k = self._data.bars[i].n_coordinates
        q = tuple(hy.make_vars(*(f"{c}{i}" for c in ("x", "y", "th")[:k])))
        qd = tuple(hy.make_vars(*(f"{c}{i}" for c in ("vx", "vy", "om")[:k])))
        return q, qd

    def parameters(self) -> list[Name]:
        """Return every settable number of the model: its name, unit, value and roles.

        The names are the keys of sweeps, the variables of sensitivities and the arguments of
        :meth:`set` (see :mod:`quivira.model.names`).

        Examples
        --------
        >>> from quivira.examples import chain
        >>> model = chain(1)
        >>> [(p.name, p.unit, p.value) for p in model.parameters()][:3]
        [('g', 'm/s²', 9.81), ('stabilization', '1/s', 10.0), ('bar0.mass', 'kg', 1.0)]
        """
        return names.parameters(self._data)

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
        i = len(self._data.bars)
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
        i = len(self._data.bars)
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
        i = len(self._data.bars)
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



    def set_g(self, g: float) -> None:
        """Set the gravitational acceleration along −y (m/s²; 9.81 by default, 0 for none).

        Parameters
        ----------
        g : float
            The acceleration of gravity (m/s²); finite.
        """
        self._editor.set_value("g", check_real(g, "g"))


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
            The joint's index. Its name (the first free ``joint<k>``, see
            :attr:`elements`) labels its rows, e.g. ``"joint0.bar1.x"``.

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
        self.add(PinJoint(bars=bar_index, s=s))
        return len(self._data.of(PinJoint)) - 1


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
        self.add(Support(bar=bar_index, s=s, free_x=free[0], free_y=free[1], x=x, y=y))
        return len(self._data.of(Support)) - 1


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
            The force's index. The load is named ``"force<k>"`` (the first free ``k``) in
            :attr:`elements` and :meth:`parameters`, e.g. ``"force0.fy"``.

        Examples
        --------
        A horizontal bar pinned at its left end, held level by a point load: the load's
        moment about the pin balances the weight's.

        >>> import quivira
        >>> model = quivira.bar_joint_model()
        >>> beam = model.add_bar_at_attitude(0.5, 0.0, 0.0, 1.0, 2.0)
        >>> model.add_support(beam, -0.5, fixed_x=True, fixed_y=True)
        0
        >>> model.add_external_force(beam, 0.5, 0.0, 9.81)  # m g L/2 = F L
        0
        >>> list(model.elements)
        ['support0', 'force0']
        >>> eq = model.equilibrium()
        >>> [round(float(v), 6) for v in eq.support_force(0)]
        [0.0, 9.81]
        """
        self.add(PointLoad(bar=bar_index, s=s, fx=fx, fy=fy, torque=torque))
        return len(self._data.of(PointLoad)) - 1


    # ------------------------------------------------------------------ constraints






    # ------------------------------------------------------------------ springs, dampers, drives



    def parameter(self, name: str) -> hy.expression:
        """Return the named runtime parameter ``name`` as a heyoka expression, for laws.

        For example, after ``model.add(Parameter(name="A", value=0.5))``,
        ``model.add(TorqueActuator(bar=0, torque=model.parameter("A") * hy.sin(hy.time)))``;
        ``model.set("A", 0.7)`` then re-simulates without compiling.

        Parameters
        ----------
        name : str
            A :class:`~quivira.model.elements.Parameter` of the model.
        """
        kind, _ = self._editor.find_name(name, "parameter")
        if kind is not Parameter:
            raise ValueError(f"{name!r} is a {kind.title}, not a parameter")
        return hy.expression(parameter_variable(name))








    # ------------------------------------------------------------------ sliders, latches, contact







    # ------------------------------------------------------------------ removing




    def clear(self) -> None:
        """Remove all bars and elements (g, the stabilization rate and the tolerance are kept)."""
        d = self._data
        self._editor.commit(ModelData(g=d.g, stabilization=d.stabilization), "cleared")

    def infer_joints(self) -> int:
        """Add joints where bars meet in their initial poses; returns the total joint count.

        Intersections anywhere along the bars count; bars meeting at one point form one joint;
        a point already joined gets only the missing bars added (no duplicate joints).
        """
        for i in range(len(self._data.bars)):
            self._editor.posed_bar(i, "infer_joints")
        # an inferred joint must pass the start-up check (tolerance relative to the length scale)
        eps = 0.5 * self.tolerance * self._data.length_scale()
        old = self._data.of(PinJoint)
        found = inferred_joints(self._data, eps)
        with self.batch():
            for k, (bars, s) in enumerate(found[:len(old)]):
                if len(bars) > len(old[k].bars):  # bars meeting at the joint's point join it
                    self._editor.replace(PinJoint, k, lambda data, el, _, bars=bars, s=s:
                                         dataclasses.replace(el, bars=bars, s=s)
                                         .checked(data.bars, el.name))
            for bars, s in found[len(old):]:
                self.add(PinJoint(bars=bars, s=s))
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
        n = len(self._data.bars)
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

    def determinacy(self, state: Sequence[float] | None = None, *, t: float = 0.0):
        r"""Which multipliers rigid-body mechanics determines at a pose, and why not the others.

        The rank of :math:`J` (pivot tolerance and margins reported), the mechanisms (null
        space of :math:`J`, with which extend to a finite motion where a second-order test
        decides), the states of self-stress (:math:`J^T s = 0`), and per multiplier and per
        reaction component whether it is determinate; any linear combination can be asked
        (:meth:`~quivira.model.determinacy.Determinacy.is_determinate`). See
        :mod:`quivira.model.determinacy`.

        Parameters
        ----------
        state : array_like, optional
            ``[q, qd]`` on the constraints (default: the initial state).
        t : float
            Time (for rows that depend on it).

        Examples
        --------
        A bar pinned at both ends: the vertical reactions are determinate, the horizontal
        ones only through their sum.

        >>> import quivira
        >>> model = quivira.bar_joint_model()
        >>> model.add_bar_at_attitude(0.5, 0.0, 0.0, 1.0, 1.0)
        0
        >>> model.add_support(0, -0.5, fixed_x=True, fixed_y=True)
        0
        >>> model.add_support(0, 0.5, fixed_x=True, fixed_y=True)
        1
        >>> det = model.determinacy()
        >>> det.n_self_stresses, det.mobility
        (1, 0)
        >>> [(r.x, r.y) for r in det.reactions]
        [(False, True), (False, True)]
        >>> det.is_determinate(det.reaction_combination("support", 0, axis="x")
        ...                    + det.reaction_combination("support", 1, axis="x"))
        True
        """
        from .determinacy import of_model

        x = (initial_state(self._data, "determinacy") if state is None
             else real_array(state, "state", "a sequence of numbers"))
        return of_model(self._simulator, self._data, x, check_real(t, "t"))

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
        from :meth:`get_initial_state`. The rows are those of :attr:`F`, in that order.

        Parameters
        ----------
        return_multipliers : bool, optional
            Also return the multipliers :math:`\lambda` (in the order of :attr:`F`).
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
        return eom_result(parts, return_multipliers, return_W)

    @property
    def F(self) -> list:
        """The holonomic constraint residuals :math:`F(q)` (numeric data as constants).

        In the order of the rows of :meth:`build_lagrange_eom` and of :attr:`constraint_labels`
        (velocity rows follow them).
        """
        return list(build_symbolic(self._data, use_pars=False).F)

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
        base = np.array([v for _, v in parameter_layout(data)], dtype=float)
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

    # --- bodies and joints ---













    # --- statics, kinematics and internal forces ---
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
        >>> round(float(eq.multiplier("support0.y")), 6), round(2.0 * 9.81, 6)
        (19.62, 19.62)
        >>> eq.stability, round(float(eq.eigenvalues[0]), 6)
        ('stable', 9.81)
        """
        from . import statics

        prob = self._statics_problem(t)
        q0 = self._pose(q_guess, "q_guess")
        return statics.equilibrium(prob, q0, tol=tol, max_iter=max_iter,
                                   axial=lambda q, lam: self._axial_forces(prob, q, lam),
                                   determinacy=True)

    @interrupts_polled()
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
        parameter : str
            ``"g"``, an element's runtime datum such as ``"force0.fy"`` or ``"spring1.l0"``,
            or the name of a named parameter (:meth:`parameters` lists the names).
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
        statics.check_path_size(self.n_coordinates, len(self.constraint_labels),
                                int(max_points))
        prob = self._statics_problem()
        q0 = self._pose(q_guess, "q_guess")
        return statics.equilibrium_path(prob, label, setter, values, q0, tol=tol,
                                        max_points=int(max_points), max_step=max_step,
                                        budget=budget)

    def grashof(self, input: int | None = None):
        """Classify the model's four-bar by Grashof's criterion.

        The four-bar is three bars, two of them pinned to the ground (pin supports) and
        joined through the third by two pin joints; link lengths are between the pin points
        (see :mod:`quivira.model.four_bar`).

        Parameters
        ----------
        input : int, optional
            The input bar, one of the two grounded bars (default: the lower index).

        Returns
        -------
        Grashof
            As :func:`quivira.grashof` of the model's link lengths.

        Raises
        ------
        ValueError
            The model is not a four-bar (naming what it has), or it cannot be assembled.
        """
        from .four_bar import four_bar_links, grashof

        return grashof(*four_bar_links(self._data, input).lengths)

    def four_bar_analysis(self, input: int | None = None):
        """Analyse the model's four-bar in closed form.

        Grashof class, input toggles and range, transmission-angle extremes and, for a
        crank–rocker, the rocker's limit positions and time ratio. Angles are measured from
        the ground line (pivot of the input to pivot of the output), for the assembly with
        the coupler–output pin on the left of the line from the input's tip to the output's
        pivot (see :mod:`quivira.model.four_bar`).

        Parameters
        ----------
        input : int, optional
            As :meth:`grashof`.

        Returns
        -------
        FourBarAnalysis
            With ``links``: the bars found, and whether the model is in the mirror assembly
            (``links.mirrored``: negate the angles).

        Raises
        ------
        ValueError
            As :meth:`grashof`.
        """
        from .four_bar import four_bar_analysis, four_bar_links

        links = four_bar_links(self._data, input)
        return four_bar_analysis(*links.lengths, links=links)

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

    @interrupts_polled()
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

    def point_motion(self, body: int | str, point: Any = 0.0, source: Any = None, *,
                     frame: int | str | None = None, rate: float = 1.0):
        r"""Return the position, velocity and acceleration of a body point.

        Exact rigid-body formulas :math:`v_P = v_c + ω × r`,
        :math:`a_P = a_c + α × r - ω^2 r` (see :mod:`quivira.model.point_kinematics`).

        Parameters
        ----------
        body : int or str
            The body, by index or name (``"bar2"``).
        point : float, pair or str
            Local coordinate ``s`` along the body (in [-0.5, 0.5]), a body-frame offset
            ``(u, v)`` (m), or a named point (as :meth:`~quivira.model.data.Bar.local_point`).
        source : state, Trajectory or KinematicSweep, optional
            A state ``[q, qd]`` on the constraints (default: the initial state; accelerations
            from :meth:`matrices`), every frame of a trajectory (its ``qdd``), or a kinematic
            sweep at the constant driver ``rate``.
        frame : int or str, optional
            A body whose moving frame splits the acceleration into transport, Coriolis and
            relative parts (``.relative``).
        rate : float
            Driver rate (1/s for an angle) of a sweep.

        Returns
        -------
        PointMotion
            ``position``, ``velocity``, ``acceleration`` ((2,) for a state, (k, 2) otherwise),
            ``tangential_acceleration``, ``normal_acceleration``, ``curvature_radius``.

        Examples
        --------
        >>> from quivira.examples import four_bar
        >>> model = four_bar()
        >>> model.point_motion("bar0", 0.5).position.round(6).tolist()  # the crank tip
        [0.5, 0.866025]
        """
        from .point_kinematics import of_model

        return of_model(self, body, point, source, frame=frame, rate=rate)

    def instant_centres(self, state: Sequence[float] | None = None):
        """Return every instant centre of the linkage at a pose, exactly from the velocities.

        The ground is body ``"ground"``; bodies keep their indices (see
        :mod:`quivira.model.instant_centres`, also for Kennedy's check).

        Parameters
        ----------
        state : sequence of float, optional
            A pose ``q`` or a state ``[q, qd]`` on the constraints (default: the initial
            state). Without velocities (or with zero ones) the mechanism's unit-rate motion
            (null space of J) is used: the linkage must then have one degree of freedom.

        Returns
        -------
        InstantCentres
            ``ic["ground", 2]`` is the centre of body 2 relative to ground.

        Examples
        --------
        The crank–coupler centre of a four-bar is their common pin, the crank tip:

        >>> from quivira.examples import four_bar
        >>> ic = four_bar().instant_centres()
        >>> len(ic), ic[0, 1].point.round(6).tolist()
        (6, [0.5, 0.866025])
        """
        from .instant_centres import of_model

        return of_model(self, state)

    def centrodes(self, body: int | str, source: Any, *, rate: float = 1.0):
        """Return the fixed and moving centrodes of a body along a trajectory or sweep.

        Parameters
        ----------
        body : int or str
            The body (relative to ground).
        source : Trajectory or KinematicSweep
            The motion (a sweep at the driver ``rate``).
        rate : float
            Driver rate of a sweep (the centrodes do not depend on it unless it is 0).

        Returns
        -------
        Centrodes
            ``fixed`` (ground frame) and ``moving`` (body frame) loci (k, 2), ``finite``.
        """
        from .instant_centres import centrodes_of_model

        return centrodes_of_model(self, body, source, rate)

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
            ``max_abs_M()``, ``bar(i, frame)``, ``to_pandas()``; ``indeterminate_bars``: the
            bars whose diagrams depend on indeterminate multipliers (at the first frame).
        """
        from .determinacy import of_compiled
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
            determinate = source.determinate
        elif isinstance(source, EquilibriumResult):
            t, q = np.zeros(1), source.q[None, :]
            qd = np.zeros_like(q)
            acc, lam = np.zeros_like(q), source.lambda_mult[None, :]
            determinate = source.determinate
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
            determinate = of_compiled(cs, data, arr, pars, second_order=False
                                      ).determinate_rows(cs.labels)
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
                               sec, bars, determinate)

    # --- sensitivities ---
    def sensitivities(self, t_end: float, wrt: str | Sequence[str], order: int = 1,
                      outputs: str | Sequence[str] = ("state", "energy"),
                      n_points: int = 201, *, tol: float | None = None,
                      at: Any = None, max_steps: int = DEFAULT_MAX_STEPS,
                      max_wall_s: float = DEFAULT_MAX_WALL_S
                      ) -> Sensitivities:
        r"""Compute derivatives of the motion and its outputs with respect to model data.

        Up to ``order``, from heyoka's variational equations
        :math:`\tfrac{d}{dt}∂^α x = ∂^α f(x, w)` of the (stabilized) equations of motion.

        See :func:`quivira.sensitivity.sensitivities` for the parameters (``wrt`` names such
        as ``"g"``, ``"bar1.mass"``, ``"torsion0.k"``, ``"bar0.theta"``), the
        treatment of the constraints and of terminal events; returns a
        :class:`~quivira.sensitivity.Sensitivities` (labelled arrays, ``taylor_map``,
        ``propagate``). The model is not changed. ``max_steps`` and ``max_wall_s`` are the
        budgets of :meth:`simulate`: a run that uses one up, or is interrupted by Ctrl-C, raises
        :class:`BudgetExceededError` or :class:`SimulationInterrupted` with the sensitivities
        so far in ``.result``.
        """
        # registered by quivira.sensitivity: the model does not import the study
        return study("sensitivities")(self, t_end, wrt, order, outputs, n_points, tol=tol,
                                      at=at, max_steps=max_steps, max_wall_s=max_wall_s)


BarJointModel = bar_joint_model
