r"""Simulation results: :class:`Trajectory` and :class:`SingularConfigurationError`.

Reaction forces are read off the multipliers, as each constraint kind defines it (its
``reaction_terms``; e.g. a pin joint's rows :math:`p_{b_k} - p_{b_0} = 0` give the force
:math:`(\lambda_{k,x}, \lambda_{k,y})` on bar :math:`b_k` and :math:`-\sum_k\lambda_k` on
bar :math:`b_0`). Signs: **the force the joint or support exerts on the bar**, in the global
frame, in the units of the model (newtons for SI data).

A trajectory is plain data: it pickles, and exports to pandas (:meth:`Trajectory.to_pandas`),
xarray (:meth:`Trajectory.to_xarray`) and CSV (:meth:`Trajectory.to_csv`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .._repr import short_repr


@dataclass
class ReactionForce:
    """Force (global x, y) that a joint or support exerts on one bar along a trajectory."""

    kind: str
    index: int
    bar: int
    force: np.ndarray  # (n_points, 2)

    @property
    def label(self) -> str:
        """A readable name, e.g. ``"joint 2 on bar 3"``."""
        return f"{self.kind} {self.index} on bar {self.bar}"


@dataclass
class Trajectory:
    r"""The motion of a model on an output grid: plain data (numpy arrays, lists, dicts).

    The multipliers, accelerations, singularity measure and reactions are evaluated by a
    compiled function the first time one of them is read (so a run that needs only energies
    and residuals does not pay for compiling it). The trajectory holds no compiled code: the
    evaluator keeps only a weak reference to the model's compiled system (and the model data
    to rebuild it); pickling a trajectory evaluates them first and stores the arrays.

    Attributes
    ----------
    t : ndarray (n_points,)
        Output times (s for SI data).
    q, qd : ndarray (n_points, n)
        Coordinates and velocities, per bar or rigid body ``(x, y, θ)`` of its (mass) centre,
        per particle ``(x, y)`` (m, rad; m/s, rad/s); see :attr:`coordinate_names`.
    coordinate_names, velocity_names : list of str
        Name of each coordinate (``x0, y0, th0, x1, ...``) and velocity (``vx0, vy0, om0,
        ...``).
    lambda_mult : ndarray (n_points, m)
        Lagrange multipliers, one column per constraint row (``J^T λ`` is the generalized
        constraint force: N for rows of positions in m).
    constraint_labels : list of str
        One label per row, ``<element>.<row>``, e.g. ``"joint2.bar3.x"``, ``"support0.y"``.
    energy, kinetic_energy, potential_energy : ndarray (n_points,)
        Mechanical energy :math:`T + V` (J), with :math:`V` the gravity potential plus the
        potential of the conservative loads (so ``energy`` is conserved by the exact motion of
        a model without dissipation or driving).
    position_residual, velocity_residual : ndarray (n_points, m)
        :math:`F(q)` and :math:`J \dot q` at every output time.
    singularity : ndarray (n_points,)
        :math:`\min_k d_k/W_{kk}` (1 well-conditioned, → 0 near a singular pose).
    qdd : ndarray (n_points, n)
        Accelerations :math:`\ddot q` from the equations of motion at each state.
    reactions : list of ReactionForce
        The force of every joint and support on every bar it touches (N).
    info : dict
        How the run was made (tolerance, Taylor order, timings in s, ...).
    constraint_groups : dict
        Rows and data of every named constraint (for :meth:`constraint_output`).
    reaction_map : list
        How multipliers become reactions: ``[((kind, index, bar), [(column, axis, sign),
        ...]), ...]``, force on the bar ``= Σ sign · λ[:, column]`` along the axis (0 = x).

    Examples
    --------
    A bar hanging at rest stays at rest, and the support's multiplier is its weight at every
    output time:

    >>> import math
    >>> import numpy as np
    >>> import quivira
    >>> model = quivira.bar_joint_model()
    >>> bar = model.add_bar_at_attitude(0.0, -0.5, -math.pi / 2, 1.0, 2.0)
    >>> model.add_support(bar, -0.5, fixed_x=True, fixed_y=True)
    0
    >>> traj = model.simulate(1.0, 11)
    >>> traj.coordinate_names, traj.constraint_labels
    (['x0', 'y0', 'th0'], ['support0.x', 'support0.y'])
    >>> traj.q.shape, traj.lambda_mult.shape
    ((11, 3), (11, 2))
    >>> bool(np.allclose(traj.multiplier("support0.y"), 2.0 * 9.81))
    True
    >>> float(np.max(np.abs(traj.q - traj.q[0]))) < 1e-12
    True
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    constraint_labels: list[str]
    kinetic_energy: np.ndarray
    potential_energy: np.ndarray
    position_residual: np.ndarray
    velocity_residual: np.ndarray
    info: dict = field(default_factory=dict)
    constraint_groups: dict = field(default_factory=dict)
    reaction_map: list = field(default_factory=list)
    coordinate_names: list[str] = field(default_factory=list)
    velocity_names: list[str] = field(default_factory=list)
    #: the energy ledger (see :meth:`energy_ledger`); zeros where the model has no such part
    gravity_energy: np.ndarray | None = None
    load_potential: np.ndarray | None = None
    elastic_energy: dict = field(default_factory=dict)
    work_in: np.ndarray | None = None
    dissipated: np.ndarray | None = None
    power_in: np.ndarray | None = None
    power_dissipated: np.ndarray | None = None
    load_power: dict = field(default_factory=dict)
    load_forces: dict = field(default_factory=dict)
    #: whether the model has drives or dampers (the work and dissipation were integrated)
    nonconservative: bool = False
    #: an energy scale of the model, :math:`\sum_i m_i |g| \ell` (J; 0 if not known): the
    #: floor of the scale of :meth:`relative_energy_error`
    energy_scale: float = 0.0
    #: the events of the run, in time order: dicts with ``t`` (s), ``name`` (of the element),
    #: ``what`` ("latched", "impact", "rests", "released", "event") and, for switches and
    #: impacts, the ``state`` there and ``kinetic_energy_lost`` (the element's share of a
    #: simultaneous impact's loss, :math:`-\Lambda_i(v_i^- + v_i^+)/2` over its rows),
    #: ``impulse``, ``approach_speed`` and ``simultaneous`` (the other elements of the impact)
    events: list = field(default_factory=list)
    #: facts about the constraints of the run: for redundant rows ``{"redundant": [labels],
    #: "unique": False, "rank": r}`` (the multipliers are then the minimum-norm solution)
    constraint_info: dict = field(default_factory=dict)
    #: computes {"lambda_mult", "qdd", "singularity"} on first access (a picklable object)
    #: the model's bodies (copies: bars, particles, rigid bodies) and, per pin joint index and
    #: per name of a two-body constraint, its bodies ``(a, b)`` (a None: ground), for the
    #: kinematics helpers :meth:`point`, :meth:`joint_angle`, :meth:`distance`
    bodies: list = field(default_factory=list, repr=False)
    joint_bodies: dict = field(default_factory=dict, repr=False)
    dynamics_source: Callable[[], dict] | None = field(default=None, repr=False)
    #: computes the :class:`~quivira.model.determinacy.Determinacy` of the start pose
    determinacy_source: Callable | None = field(default=None, repr=False)
    _dyn: dict | None = field(default=None, init=False, repr=False)
    _reactions: list | None = field(default=None, init=False, repr=False)
    _det: object | None = field(default=None, init=False, repr=False)
    _warned: bool = field(default=False, init=False, repr=False)

    def __post_init__(self) -> None:
        """Fill the energy and power arrays that were not given with zeros."""
        n = self.t.shape[0]
        for name in ("gravity_energy", "load_potential", "work_in", "dissipated", "power_in",
                     "power_dissipated"):
            if getattr(self, name) is None:
                setattr(self, name, np.zeros(n))

    def __getstate__(self) -> dict:
        """Return the state to pickle: dynamics evaluated, no compiled code, no model."""
        state = dict(self.__dict__)
        if self._dyn is None and self.dynamics_source is not None:
            state["_dyn"] = self._dynamics()
        state["_det"] = self.determinacy
        state["dynamics_source"] = None  # evaluated: no compiled code, no model in the pickle
        state["determinacy_source"] = None
        return state

    def _dynamics(self) -> dict:
        if self._dyn is None:
            if self.dynamics_source is None:
                raise ValueError("this trajectory has no multipliers (no source to compute them)")
            self._dyn = self.dynamics_source()
            self.dynamics_source = None
        return self._dyn

    # --- determinacy ---
    @property
    def determinacy(self):
        r"""Which multipliers rigid-body mechanics determines, at the **start pose** of the run.

        A :class:`~quivira.model.determinacy.Determinacy` (None for a trajectory that does not
        know its model), computed on first access from the compiled code of the run (one
        factorization of :math:`J`; nothing is compiled, no second-order test of the
        mechanisms: :meth:`bar_joint_model.determinacy` makes it). The rank of :math:`J`, hence
        which multipliers are determinate, changes only at singular poses, and the run
        reports those (:attr:`events`, :class:`SingularPassWarning`).
        """
        if self._det is None and self.determinacy_source is not None:
            self._det = self.determinacy_source()
            self.determinacy_source = None
        return self._det

    @property
    def determinate(self) -> np.ndarray:
        """Per constraint row (column of :attr:`lambda_mult`): is its multiplier determinate.

        At the start pose (see :attr:`determinacy`); all True when the trajectory does not know
        its model.
        """
        from .determinacy import determinate_rows

        return determinate_rows(self.determinacy, self.constraint_labels)

    @property
    def indeterminate(self) -> list[str]:
        """Columns of :meth:`to_pandas` that hold indeterminate values.

        The multipliers ``lambda[<label>]`` and the reaction components ``<joint j on bar b> ·
        Fx``/``Fy`` that rigid-body mechanics does not determine (only combinations of them,
        e.g. the sum of two supports' horizontal reactions, are): the values printed for them
        are one choice among many. Empty for a statically determinate model.

        Examples
        --------
        A bar pinned at both ends: only the sum of the horizontal reactions is determined.

        >>> import quivira
        >>> model = quivira.bar_joint_model()
        >>> model.add_bar_from_point_pair((0.0, 0.0), (1.0, 0.0))
        0
        >>> model.add_support(0, -0.5, False, False)
        0
        >>> model.add_support(0, 0.5, False, False)
        1
        >>> traj = model.simulate(0.1, 3)
        >>> traj.indeterminate  # doctest: +NORMALIZE_WHITESPACE
        ['lambda[support0.x]', 'lambda[support1.x]', 'support 0 on bar 0 · Fx',
         'support 1 on bar 0 · Fx']
        >>> traj.determinate.tolist()
        [False, True, False, True]
        """
        det = self.determinacy
        return [] if det is None else det.indeterminate_columns

    def determinacy_note(self) -> str:
        """One line naming the indeterminate multipliers ("" if every one is determinate)."""
        det = self.determinacy
        return "" if det is None else det.note()

    def _warn_indeterminate(self) -> None:
        # once per trajectory, when its multipliers or reactions are first read (not on
        # simulate: a run that only looks at the motion is not told about forces)
        if not self._warned:
            self._warned = True
            det = self.determinacy
            if det is not None:
                det.warn("trajectory multipliers (at the start pose)")

    @property
    def lambda_mult(self) -> np.ndarray:
        """Multipliers ``(n_points, m)`` (computed by a compiled function on first access).

        The first read warns (:class:`~quivira.model.determinacy.IndeterminateMultipliersWarning`)
        if some are indeterminate (see :attr:`indeterminate`).
        """
        self._warn_indeterminate()
        return self._dynamics()["lambda_mult"]

    @property
    def qdd(self) -> np.ndarray:
        """Accelerations ``(n_points, n)`` from the equations of motion."""
        return self._dynamics()["qdd"]

    @property
    def singularity(self) -> np.ndarray:
        r""":math:`\min_k d_k/W_{kk}` per point: 1 well-conditioned, → 0 near singular.

        :math:`d_k` are the pivots of the symbolic factorization of W in the solver's row order
        (the model's ``"ordered"`` permutation): a row-order dependent but cheap measure, bounded
        by :math:`σ_{min}(W)/\max_k W_{kk} \le \min_k d_k/W_{kk} \le 1`.
        """
        return self._dynamics()["singularity"]

    @property
    def reactions(self) -> list[ReactionForce]:
        """Force (N) of every joint and support on every bar it touches.

        Components that are indeterminate are named by :attr:`indeterminate`.
        """
        self._warn_indeterminate()
        if self._reactions is None:
            self._reactions = reactions_from_multipliers(self.lambda_mult, self.reaction_map,
                                                         self.q, self.coordinate_names)
        return self._reactions
    @property
    def energy(self) -> np.ndarray:
        """Total mechanical energy ``kinetic_energy + potential_energy``."""
        return self.kinetic_energy + self.potential_energy

    @property
    def states(self) -> np.ndarray:
        """States ``[q, qd]`` of shape ``(n_points, 2n)``."""
        return np.hstack([self.q, self.qd])

    @property
    def n_points(self) -> int:
        """Number of output times."""
        return self.t.shape[0]

    # ------------------------------------------------------------------ exports
    def _names(self) -> tuple[list[str], list[str]]:
        n = self.q.shape[1]
        q_names = list(self.coordinate_names) or [f"q{j}" for j in range(n)]
        qd_names = list(self.velocity_names) or [f"qd{j}" for j in range(n)]
        return q_names, qd_names

    def _columns(self) -> list[tuple[str, np.ndarray]]:
        """``(name, values)`` of every column of the tidy table."""
        q_names, qd_names = self._names()
        cols = [("t", self.t)]
        cols += [(c, self.q[:, j]) for j, c in enumerate(q_names)]
        cols += [(c, self.qd[:, j]) for j, c in enumerate(qd_names)]
        lam = self.lambda_mult
        cols += [(f"lambda[{lb}]", lam[:, k]) for k, lb in enumerate(self.constraint_labels)]
        for r in self.reactions:
            cols += [(f"{r.label} · F{a}", r.force[:, i]) for i, a in enumerate("xy")]
        cols += [("kinetic_energy", self.kinetic_energy),
                 ("potential_energy", self.potential_energy), ("energy", self.energy)]
        return cols

    def to_pandas(self):
        """Return the trajectory as a tidy :class:`pandas.DataFrame`: one row per output time.

        Columns ``t``, the coordinates (``x0``, ``y0``, ``th0``, ...), the velocities (``vx0``,
        ``vy0``, ``om0``, ...), the multipliers ``lambda[<constraint label>]``, the reactions
        ``<joint j on bar b> · Fx``/``Fy`` and the energies. Needs pandas.

        The columns of indeterminate multipliers and reaction components (:attr:`indeterminate`)
        are listed in ``df.attrs["indeterminate"]``, with a sentence in
        ``df.attrs["determinacy"]``: ``df.drop(columns=df.attrs["indeterminate"])`` keeps only
        determined values.
        """
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - pandas is in the test environment
            raise ImportError("Trajectory.to_pandas needs pandas: pip install pandas") from None
        df = pd.DataFrame({name: np.asarray(v) for name, v in self._columns()})
        df.attrs["indeterminate"] = self.indeterminate
        df.attrs["determinacy"] = self.determinacy_note()
        return df

    def to_xarray(self):
        """Return the trajectory as an :class:`xarray.Dataset`.

        Dims ``time`` × ``coordinate`` / ``constraint``: variables ``q``, ``qd``, ``qdd`` (time,
        coordinate), ``lambda_mult``, ``position_residual``, ``velocity_residual`` (time,
        constraint) and the energies (time); units in the ``units`` attributes (SI data). Needs
        xarray.

        A boolean coordinate ``determinate`` along ``constraint`` marks the multipliers that
        rigid-body mechanics determines (at the start pose, see :attr:`determinacy`);
        ``lambda_mult.attrs["indeterminate"]`` names the others.
        """
        try:
            import xarray as xr
        except ImportError:  # pragma: no cover - xarray is in the test environment
            raise ImportError("Trajectory.to_xarray needs xarray: pip install xarray") from None
        q_names, _ = self._names()
        tc, tk = ("time", "coordinate"), ("time", "constraint")
        det = self.determinacy
        bad = [] if det is None else det.indeterminate_labels
        data = {
            "q": (tc, self.q, {"units": "m or rad"}),
            "qd": (tc, self.qd, {"units": "m/s or rad/s"}),
            "qdd": (tc, self.qdd, {"units": "m/s^2 or rad/s^2"}),
            "lambda_mult": (tk, self.lambda_mult, {"units": "N (or N m)",
                                                   "indeterminate": ", ".join(bad)}),
            "position_residual": (tk, self.position_residual, {}),
            "velocity_residual": (tk, self.velocity_residual, {}),
            "kinetic_energy": ("time", self.kinetic_energy, {"units": "J"}),
            "potential_energy": ("time", self.potential_energy, {"units": "J"}),
            "energy": ("time", self.energy, {"units": "J"}),
        }
        return xr.Dataset(data, coords={"time": ("time", self.t, {"units": "s"}),
                                        "coordinate": q_names,
                                        "constraint": list(self.constraint_labels),
                                        "determinate": ("constraint", self.determinate)},
                          attrs={k: v for k, v in self.info.items()
                                 if isinstance(v, (int, float, str))})

    def to_csv(self, path) -> None:
        """Write the table of :meth:`to_pandas` as CSV.

        Comma-separated, a header row, every number with 17 significant digits: exact round
        trip. Needs no pandas.

        Parameters
        ----------
        path : str or Path
            The file to write.
        """
        import csv
        from pathlib import Path

        cols = self._columns()
        with Path(path).open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow([name for name, _ in cols])
            values = np.column_stack([np.asarray(v, dtype=float) for _, v in cols]) \
                if self.n_points else np.zeros((0, len(cols)))
            for row in values:
                w.writerow([repr(float(x)) for x in row])

    def max_position_residual(self) -> float:
        """Largest :math:`|F(q)|` over the trajectory."""
        r = self.position_residual
        return float(np.max(np.abs(r))) if r.size else 0.0

    def max_velocity_residual(self) -> float:
        r"""Largest :math:`|J \dot q|` over the trajectory."""
        r = self.velocity_residual
        return float(np.max(np.abs(r))) if r.size else 0.0

    def energy_balance(self) -> np.ndarray:
        """:math:`E(t) - E(0) - W_{in}(t) + D(t)` (J): zero for the exact motion of any model.

        :math:`E = T + V` (gravity, springs and constant loads), :math:`W_{in}` the work
        supplied by drives and :math:`D` the energy dissipated by dampers since :math:`t = 0`,
        both integrated with the motion (extra states of the integrator), so the balance is
        as accurate as the motion itself.
        """
        e = self.energy
        if e.shape[0] == 0:
            return np.zeros(0)
        return e - e[0] - self.work_in + self.dissipated

    def energy_ledger(self) -> dict[str, np.ndarray]:
        """Return the parts of the energy along the motion (J).

        ``kinetic``, ``gravity``, ``elastic`` (all springs), ``loads`` (potential of the constant
        loads), ``work_in`` and ``dissipated``; ``E = kinetic + gravity + elastic + loads`` and
        ``E(t) - E(0) = work_in - dissipated``. Per spring: :attr:`elastic_energy`.
        """
        elastic = sum(self.elastic_energy.values(), np.zeros(self.n_points))
        return {"kinetic": self.kinetic_energy, "gravity": self.gravity_energy,
                "elastic": elastic, "loads": self.load_potential - elastic,
                "work_in": self.work_in, "dissipated": self.dissipated}

    def element_power(self, name: str) -> np.ndarray:
        r"""Return the power (W) :math:`Q_e \cdot \dot q` of one load's force on the bars.

        The load (spring, damper, actuator, constant load) is given by its name (see
        :attr:`load_power` for the names).

        Parameters
        ----------
        name : str
            The load's name (e.g. ``"spring0"``, ``"force1"``).
        """
        try:
            return self.load_power[name]
        except KeyError:
            raise KeyError(f"no load named {short_repr(name)}; loads are "
                           f"{list(self.load_power)}") from None

    def element_force(self, name: str) -> np.ndarray:
        """Return the force of a spring, damper or actuator along the motion.

        The tension (N) of a spring-damper, the torque (N m) of a torsional spring or a torque
        actuator, the components ``(Fx, Fy)`` (N, ground frame) of a force actuator.

        Parameters
        ----------
        name : str
            The element's name.
        """
        try:
            return self.load_forces[name]
        except KeyError:
            raise KeyError(f"no spring, damper or actuator named {short_repr(name)}; they are "
                           f"{list(self.load_forces)}") from None

    def relative_energy_error(self) -> float:
        r"""How well energy is kept, relative to the energy scale (0 for fewer than two points).

        For a conservative model :math:`\max_t |E(t) - E(0)| / s` with
        :math:`s = \max(|E(0)|, \max_t T, \sum_i m_i|g|\ell)`. For a model with drives or
        dampers, where :math:`E` itself changes, the error of the energy balance
        (:meth:`energy_balance`) over :math:`\max(s, \max_t |W_{in}|, \max_t D)`. The
        term :math:`\sum_i m_i|g|\ell` (:attr:`energy_scale`: the work gravity can do over
        the model's length scale) keeps the scale meaningful where every energy is about 0,
        as for a body at rest on the floor.
        """
        e = self.energy
        if e.shape[0] < 2:
            return 0.0
        scale = max(abs(e[0]), float(np.max(np.abs(self.kinetic_energy))), self.energy_scale,
                    1e-300)
        if self.nonconservative:
            scale = max(scale, float(np.max(np.abs(self.work_in))),
                        float(np.max(np.abs(self.dissipated))))
        return float(np.max(np.abs(self.energy_balance())) / scale)

    def multiplier(self, label: str) -> np.ndarray:
        """Column of :attr:`lambda_mult` with the given constraint label.

        Parameters
        ----------
        label : str
            A label of :attr:`constraint_labels`, e.g. ``"joint0.bar1.x"``.
        """
        from .names import row_index

        return self.lambda_mult[:, row_index(self.constraint_labels, label)]

    def constraint_output(self, constraint: str | int, output: str) -> np.ndarray:
        r"""Per-constraint outputs, as Exudyn's output variables of a connector.

        Parameters
        ----------
        constraint : str or int
            Name of a named constraint, or its index among them.
        output : {"Displacement", "Velocity", "ConstraintEquation", "Force"}
            ``Displacement`` :math:`Δq = q_1 - q_0` and ``Velocity`` :math:`Δv = \dot q_1 -
            \dot q_0` of the marker coordinates (no scaling matrices; constraints between two
            markers only); ``ConstraintEquation`` the residual :math:`c` (velocity level: of
            the velocity equation; switched-off constraints included); ``Force`` the
            multipliers :math:`\lambda` of its rows.

        Returns
        -------
        numpy.ndarray
            ``(n_points, 3)`` for Displacement/Velocity, ``(n_points, rows)`` otherwise.
        """
        names = list(self.constraint_groups)
        if isinstance(constraint, str):
            if constraint not in self.constraint_groups:
                raise KeyError(f"no constraint named {short_repr(constraint)}; constraints are "
                               f"{names}")
            grp = self.constraint_groups[constraint]
        elif isinstance(constraint, (int, np.integer)) and 0 <= constraint < len(names):
            grp = self.constraint_groups[names[int(constraint)]]
        else:
            raise KeyError(f"constraint: expected a name or an index below {len(names)}, got "
                           f"{short_repr(constraint)}")
        rows = grp["rows"]
        if output == "Force":
            return self.lambda_mult[:, rows]
        if output in ("Displacement", "Velocity"):
            if "markers" not in grp:
                raise ValueError(f"{output} is defined for coordinate constraints only")
            X = self.q if output == "Displacement" else self.qd
            bar0, bar1 = grp["markers"]
            names = self.coordinate_names
            return _marker(X, bar1, names) - _marker(X, bar0, names)
        if output == "ConstraintEquation":
            if "terms" in grp:  # c = sum of sign * (marker^power) @ mat.T - offset
                X = self.qd if grp["velocity_level"] else self.q
                c = -np.asarray(grp["offset"])[None, :]
                for bar, power, sign, mat in grp["terms"]:
                    c = c + sign * (_marker(X, bar, self.coordinate_names) ** power
                                    @ np.asarray(mat).T)
                return c
            if grp["velocity_level"]:
                return self.velocity_residual[:, rows]
            return self.position_residual[:, rows]
        raise ValueError(f"output must be 'Displacement', 'Velocity', 'ConstraintEquation' or "
                         f"'Force', got {short_repr(output)}")

    # --- kinematics ---
    def _body_local(self, body: int | None, local_point) -> tuple[float, float]:
        if body is None:
            from .validation import check_point

            return check_point(local_point, "ground point")
        if not self.bodies:
            raise ValueError("this trajectory does not know its bodies; give the point as a "
                             "pair (u, v) in the body frame")
        if not 0 <= int(body) < len(self.bodies):
            raise IndexError(f"body {body} out of range (the trajectory has "
                             f"{len(self.bodies)} bodies)")
        return tuple(self.bodies[int(body)].local_point(local_point, f"body {body}: point"))

    def point(self, body: int | None, local_point=(0.0, 0.0)) -> tuple[np.ndarray, ...]:
        r"""Position, velocity and acceleration of a body point along the motion.

        For the body-frame point :math:`r = (u, v)` of a body with mass centre :math:`(x, y)`
        and angle :math:`θ`, with :math:`R(θ)r = (u\cos θ - v\sin θ,
        u\sin θ + v\cos θ)` and :math:`r_\perp = (-R_y, R_x)`:

        .. math:: p = (x, y) + R(θ) r, \quad \dot p = (\dot x, \dot y) + \dot θ\,
                  r_\perp, \quad \ddot p = (\ddot x, \ddot y) + \ddot θ\,r_\perp
                  - \dot θ^2 R(θ) r .

        Parameters
        ----------
        body : int or None
            The body (bar, particle or rigid body); None for a ground point.
        local_point : float, pair or str, optional
            A local coordinate ``s`` (the point ``(sL, 0)``), a body-frame pair ``(u, v)``
            (m), or the name of an attachment point; default the mass centre. For the ground,
            a position ``(x, y)``.

        Returns
        -------
        position, velocity, acceleration : ndarray (n_points, 2)
            In m, m/s and m/s² for SI data (global frame). Accelerations come from the
            equations of motion at each output state (:attr:`qdd`).
        """
        u, v = self._body_local(body, local_point)
        n = self.t.shape[0]
        if body is None:
            return np.tile([u, v], (n, 1)), np.zeros((n, 2)), np.zeros((n, 2))
        ix, iy, ith = body_columns(self.coordinate_names, int(body))
        q, qd = self.q, self.qd
        qdd = self.qdd
        if ith is None:
            zeros = np.zeros(n)
            th = om = al = zeros
        else:
            th, om, al = q[:, ith], qd[:, ith], qdd[:, ith]
        c, s = np.cos(th), np.sin(th)
        rx, ry = u * c - v * s, u * s + v * c
        pos = np.column_stack([q[:, ix] + rx, q[:, iy] + ry])
        vel = np.column_stack([qd[:, ix] - om * ry, qd[:, iy] + om * rx])
        acc = np.column_stack([qdd[:, ix] - al * ry - om ** 2 * rx,
                               qdd[:, iy] + al * rx - om ** 2 * ry])
        return pos, vel, acc

    def _joint_pair(self, joint) -> tuple[int | None, int]:
        if joint not in self.joint_bodies:
            raise KeyError(f"no joint {short_repr(joint)}; joints are pin joint indices and "
                           f"names of two-body constraints: {sorted(map(str, self.joint_bodies))}")
        return self.joint_bodies[joint]

    def _angle_columns(self, body: int | None, X: np.ndarray) -> np.ndarray:
        if body is None:
            return np.zeros(X.shape[0])
        ith = body_columns(self.coordinate_names, int(body))[2]
        if ith is None:
            raise ValueError(f"body {body} is a particle: it has no angle")
        return X[:, ith]

    def joint_angle(self, joint) -> np.ndarray:
        """Relative angle :math:`θ_b - θ_a` (rad, not wrapped) of a joint's two bodies.

        Parameters
        ----------
        joint : int or str
            A pin joint index (its first two bars, ``a`` then ``b``), or the name of a
            two-body constraint (weld, joint motor, disc rolling contact; ``a`` None is the
            ground, angle 0).

        Returns
        -------
        ndarray (n_points,)
        """
        a, b = self._joint_pair(joint)
        return self._angle_columns(b, self.q) - self._angle_columns(a, self.q)

    def joint_angular_velocity(self, joint) -> np.ndarray:
        r"""Return the relative angular velocity :math:`\dot θ_b - \dot θ_a` (rad/s) of a joint.

        Of the joint's two bodies (``joint`` as :meth:`joint_angle`).
        """
        a, b = self._joint_pair(joint)
        return self._angle_columns(b, self.qd) - self._angle_columns(a, self.qd)

    def distance(self, p, q) -> np.ndarray:
        """Distance (m) between two points along the motion, :math:`|p_b(t) - p_a(t)|`.

        Parameters
        ----------
        p, q : tuple
            ``(body, local_point)`` as :meth:`point` (``(None, (x, y))`` for a ground point).

        Returns
        -------
        ndarray (n_points,)
        """
        pa = self._point_position(*p)
        pb = self._point_position(*q)
        return np.hypot(pb[:, 0] - pa[:, 0], pb[:, 1] - pa[:, 1])

    def _point_position(self, body: int | None, local_point=(0.0, 0.0)) -> np.ndarray:
        u, v = self._body_local(body, local_point)
        n = self.t.shape[0]
        if body is None:
            return np.tile([u, v], (n, 1))
        ix, iy, ith = body_columns(self.coordinate_names, int(body))
        th = np.zeros(n) if ith is None else self.q[:, ith]
        c, s = np.cos(th), np.sin(th)
        return np.column_stack([self.q[:, ix] + u * c - v * s, self.q[:, iy] + u * s + v * c])

    def joint_force(self, joint: int, bar: int) -> np.ndarray:
        """Force ``(n_points, 2)`` (N, global frame) that a joint exerts on one of its bars.

        Parameters
        ----------
        joint : int
            The joint.
        bar : int
            One of its bars.
        """
        return self._reaction("joint", joint, bar)

    def support_force(self, support: int) -> np.ndarray:
        """Force ``(n_points, 2)`` (N, global frame) that a support exerts on its bar.

        Parameters
        ----------
        support : int
            The support.
        """
        return self._reaction("support", support, None)

    def _reaction(self, kind: str, index: int, bar: int | None) -> np.ndarray:
        for r in self.reactions:
            if r.kind == kind and r.index == index and (bar is None or r.bar == bar):
                return r.force
        raise KeyError(f"no reaction of {kind} {index}" + ("" if bar is None else f" on bar {bar}"))

    # --- internal forces ---
    def internal_forces(self, model, *, s=51, bars=None, qdd=None):
        """Compute N(s), V(s), M(s) along the bars in every frame.

        See :meth:`quivira.bar_joint_model.internal_forces`, which this calls with ``self``.

        Parameters
        ----------
        model : bar_joint_model
            The model this trajectory was simulated from (its current load values are used).
        s : int or sequence of float
            Number of sections, or the sections in [-0.5, 0.5].
        bars : sequence of int, optional
            The bars (default: all).
        qdd : array (n_points, n), optional
            Accelerations to use instead of :attr:`qdd`.

        Returns
        -------
        InternalForces
            With ``max_abs_N()`` and ``max_abs_M()`` per bar over the trajectory.
        """
        return model.internal_forces(self, s=s, bars=bars, qdd=qdd)


def body_columns(names: list[str] | None, body: int) -> tuple[int, int, int | None]:
    """Return the columns of ``x``, ``y`` and ``θ`` (None for a particle) of a body in ``q``.

    From the coordinate names (3 per body when the names are not known).
    """
    if not names:
        return 3 * body, 3 * body + 1, 3 * body + 2
    try:
        ix = names.index(f"x{body}")
    except ValueError:
        raise IndexError(f"body {body} out of range (the trajectory has "
                         f"{sum(n[0] == 'x' for n in names)} bodies)") from None
    ith = ix + 2 if ix + 2 < len(names) and names[ix + 2] == f"th{body}" else None
    return ix, ix + 1, ith


def _marker(X: np.ndarray, bar: int | None, names: list[str] | None = None) -> np.ndarray:
    if bar is None:
        return np.zeros((X.shape[0], 3))
    ix, iy, ith = body_columns(names, bar)
    th = np.zeros(X.shape[0]) if ith is None else X[:, ith]
    return np.column_stack([X[:, ix], X[:, iy], th])


class SingularConfigurationError(RuntimeError):
    """The integration met a singular pose or a non-finite state and was stopped.

    Attributes
    ----------
    t : float
        Time of the last valid state.
    state : numpy.ndarray
        The last valid state ``[q, qd]``.
    trajectory : Trajectory or None
        The motion on the output grid up to ``t``.
    reason : str
        What was detected.
    """

    def __init__(self, reason: str, t: float, state: np.ndarray, trajectory=None):
        super().__init__(f"{reason} at t = {t:.6g}; the integration was stopped "
                         "(see .t, .state and .trajectory of this exception)")
        self.reason = reason
        self.t = t
        self.state = state
        self.trajectory = trajectory


class BudgetExceededError(RuntimeError):
    """A long call used up its budget of steps or wall time and was stopped.

    ``simulate``, ``simulate_system``, ``sensitivities``, equilibrium paths and kinematic
    sweeps raise it with what they computed so far.

    Attributes
    ----------
    t : float
        Time reached (NaN for the calls that do not integrate in time).
    state : numpy.ndarray
        The state there (the last pose for the calls that do not integrate in time).
    trajectory : Trajectory or None
        The motion on the output grid up to ``t`` (``simulate``, ``simulate_system``).
    result : object
        The partial result of the call: the trajectory of ``simulate``, the
        ``Sensitivities`` of ``sensitivities`` up to ``t``, the ``EquilibriumPath`` or
        ``KinematicSweep`` up to the last point reached.
    """

    def __init__(self, message: str, t: float, state: np.ndarray, trajectory=None, *,
                 result=None):
        super().__init__(message)
        self.t = t
        self.state = state
        self.trajectory = trajectory
        self.result = trajectory if result is None else result


class SimulationInterrupted(KeyboardInterrupt):
    """Ctrl-C (or the notebook's "interrupt kernel") stopped a simulation or another long call.

    The motion up to then is in :attr:`trajectory`, the partial result of any long call in
    :attr:`result`.

    Attributes
    ----------
    t : float
        Time reached (NaN for the calls that do not integrate in time).
    trajectory : Trajectory or None
        The motion on the output grid up to ``t``.
    result : object
        The partial result (see :class:`BudgetExceededError`).
    """

    def __init__(self, t: float, trajectory=None, *, result=None, message: str | None = None):
        if message is None:
            message = (f"simulation interrupted at t = {t:.6g} s; the motion up to then is "
                       "in .trajectory of this exception")
        super().__init__(message)
        self.t = t
        self.trajectory = trajectory
        self.result = trajectory if result is None else result


def reactions_from_multipliers(lam: np.ndarray, reaction_map: list,
                               q: np.ndarray | None = None,
                               names: list[str] | None = None) -> list[ReactionForce]:
    r"""Turn multiplier columns into :class:`ReactionForce` records.

    See :attr:`Trajectory.reaction_map`. A term's axis is 0 (x), 1 (y), or ``("normal", b)``:
    the normal :math:`(-\sin θ_b, \cos θ_b)` of bar ``b`` along the motion (needs ``q``).
    """
    out = []
    for (kind, index, bar), terms in reaction_map:
        force = np.zeros((lam.shape[0], 2))
        for col, axis, sign in terms:
            if isinstance(axis, (tuple, list)):
                ith = body_columns(names, axis[1])[2]
                th = np.zeros(q.shape[0]) if ith is None else q[:, ith]
                force[:, 0] -= sign * lam[:, col] * np.sin(th)
                force[:, 1] += sign * lam[:, col] * np.cos(th)
            else:
                force[:, axis] += sign * lam[:, col]
        out.append(ReactionForce(kind, index, bar, force))
    return out
