"""The planar bar-joint model: building, editing, checking and simulating linkages.

State layout: ``[q..., qd...]`` with all coordinates first; per bar ``(x, y, θ)`` of its
centre. A point of a bar is centre + s·L·(cos θ, sin θ), s in [-0.5, 0.5]; inertia
m L²/12 about the centre; gravity g along −y (``set_g``).
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import heyoka as hy
import numpy as np

from ..lagrangian import assemble_eom, eom_result
from . import geometry as geo
from . import persistence
from .builder import build_symbolic, parameter_layout
from .compiled import (
    CompiledSystem,
)
from .components import (
    Bar,
    Force,
    Joint,
    ModelData,
    Support,
    check_flag,
    check_positive,
    check_real,
    check_s,
    check_stabilization,
)
from .constraint_api import ConstraintMethods
from .simulation import ConstraintCheck, ConstraintWarning, SimulationMethods

__all__ = ["BarJointModel", "ConstraintCheck", "ConstraintWarning", "bar_joint_model"]


class bar_joint_model(ConstraintMethods, SimulationMethods):  # noqa: N801 - API name
    """Assembly of articulated bars with joints, supports, and external loads.

    Parameters
    ----------
    tolerance : float, optional
        Largest constraint residual accepted as "fulfilled" (positions in length units,
        velocities in length/time), default 1e-10.

    Notes
    -----
    The equations of motion are those of :func:`quivira.lagrange_eom` for

    .. math:: \\mathcal L = \\sum_i \\tfrac12 m_i(\\dot x_i^2 + \\dot y_i^2)
              + \\tfrac12\\tfrac{m_i L_i^2}{12}\\dot θ_i^2 - m_i g y_i

    with joint and support constraints and point loads (see
    :mod:`quivira.model.builder`). Numeric data enter the compiled code as runtime
    parameters, and compiled integrators are cached by topology, so value edits
    (length, mass, g, forces, support positions, joint points) re-simulate without
    recompiling.
    """

    def __init__(self, tolerance: float = 1e-10) -> None:
        self.tolerance = check_positive(tolerance, "tolerance")
        self._data = ModelData()
        self._cache: OrderedDict[tuple, CompiledSystem] = OrderedDict()
        self._observers: list[Callable] = []
        self._batch_depth = 0
        self._batch_changes: list[str] = []
        self.revision = 0
        self.cache_size = 8
        #: how W λ = r is solved symbolically: "ordered" (fill-reducing permutation, measured
        #: smaller and faster to compile on lattices: benchmarks/solver_choice.py) or "lu"
        self.solver = "ordered"
        self.F: list = []
        self.q: list = []
        self.qd: list = []

    # ------------------------------------------------------------------ observers
    def observe(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(what)`` after every change of the model (``what`` names it)."""
        if callback not in self._observers:
            self._observers.append(callback)

    def unobserve(self, callback: Callable[[str], None]) -> None:
        """Stop calling ``callback`` on changes."""
        if callback in self._observers:
            self._observers.remove(callback)

    def _commit(self, data: ModelData, what: str) -> None:
        self._data = data
        self.revision += 1
        if self._batch_depth:
            self._batch_changes.append(what)
            return
        self._notify(what)

    def _notify(self, what: str) -> None:
        for cb in list(self._observers):
            try:
                cb(what)
            except Exception as exc:  # an observer's bug must not undo or hide the edit
                warnings.warn(f"model observer {cb!r} failed on {what!r}: {exc!r}",
                              RuntimeWarning, stacklevel=3)

    @contextlib.contextmanager
    def batch(self):
        """Group edits: observers are told once, at the end (``what`` = ``"batch: ..."``).

        If an edit inside raises, the edits made before it are kept (each edit is
        validated on its own) and observers are still told.
        """
        self._batch_depth += 1
        try:
            yield self
        finally:
            self._batch_depth -= 1
            if not self._batch_depth and self._batch_changes:
                changes, self._batch_changes = self._batch_changes, []
                self._notify("batch: " + ", ".join(dict.fromkeys(changes)))

    def replace_with(self, other: bar_joint_model) -> None:
        """Make this model a copy of ``other`` (e.g. one loaded from a file), keeping this
        object, its observers and its compiled-code cache; one notification."""
        if not isinstance(other, bar_joint_model):
            raise ValueError(f"replace_with: expected a bar_joint_model, got "
                             f"{type(other).__name__}")
        self.tolerance = other.tolerance
        self._commit(copy.deepcopy(other._data), "replaced")

    def _draft(self) -> ModelData:
        """A copy of the data to edit (records copied one level deep: their fields are
        numbers, tuples and lists of numbers; expressions are immutable)."""
        return self._data.copy()

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
    def joints(self) -> list[Joint]:
        """Copies of the joint records."""
        return copy.deepcopy(self._data.joints)

    @property
    def supports(self) -> list[Support]:
        """Copies of the support records."""
        return copy.deepcopy(self._data.supports)

    @property
    def forces(self) -> list[Force]:
        """Copies of the external force records."""
        return copy.deepcopy(self._data.forces)

    @property
    def g(self) -> float:
        """Gravitational acceleration (along −y)."""
        return self._data.g

    @property
    def n_coordinates(self) -> int:
        """Number of generalized coordinates, 3 per bar."""
        return 3 * self.n_bars

    @property
    def constraint_labels(self) -> list[str]:
        """One readable label per constraint row, in the order of ``F``."""
        return build_symbolic(self._data, use_pars=False).labels

    @property
    def n_constraints(self) -> int:
        """Number of constraint rows."""
        return len(self.constraint_labels)

    def coordinates(self, bar_index: int) -> tuple:
        """The heyoka variables ``(x, y, θ)`` of a bar (names ``x{i}``, ``y{i}``, ``th{i}``)."""
        i = self._check_bar(bar_index, "bar_index")
        return tuple(hy.make_vars(f"x{i}", f"y{i}", f"th{i}"))

    def velocities(self, bar_index: int) -> tuple:
        """The heyoka variables of a bar's velocities ``(vx{i}, vy{i}, om{i})``."""
        i = self._check_bar(bar_index, "bar_index")
        return tuple(hy.make_vars(f"vx{i}", f"vy{i}", f"om{i}"))

    def parameter_values(self) -> np.ndarray:
        """The runtime parameter vector (``hy.par`` values) of the current data."""
        return np.array([v for _, v in parameter_layout(self._data)], dtype=float)

    def parameter_keys(self) -> list[tuple]:
        """What each runtime parameter is, e.g. ``("bar", 2, "mass")``."""
        return [k for k, _ in parameter_layout(self._data)]

    # ------------------------------------------------------------------ validation
    def _check_bar(self, i: Any, what: str, data: ModelData | None = None) -> int:
        data = data or self._data
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise ValueError(f"{what} must be an integer bar index, got {i!r}")
        i = int(i)
        if not 0 <= i < len(data.bars):
            raise ValueError(
                f"{what}: bar index {i} out of range (the model has {len(data.bars)} bars)"
            )
        return i

    @staticmethod
    def _check_index(i: Any, items: list, kind: str) -> int:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise ValueError(f"{kind} index must be an integer, got {i!r}")
        i = int(i)
        if not 0 <= i < len(items):
            raise ValueError(f"{kind} index {i} out of range (the model has {len(items)})")
        return i

    def _posed(self, i: int, what: str, data: ModelData | None = None) -> Bar:
        b = (data or self._data).bars[i]
        if b.pose is None:
            raise ValueError(
                f"{what}: bar {i} has no initial pose yet; call set_init_bar_attitude({i}, x0, "
                "y0, theta0) first"
            )
        return b

    # ------------------------------------------------------------------ building bars
    def add_bar(self, length: float, mass: float) -> int:
        """Append a new bar (pose to be set with :meth:`set_init_bar_attitude`).

        Parameters
        ----------
        length, mass : float
            Positive bar length and mass.

        Returns
        -------
        int
            Index of the new bar.
        """
        i = self.n_bars
        L = check_positive(length, f"bar {i}: length")
        m = check_positive(mass, f"bar {i}: mass")
        data = self._draft()
        data.bars.append(Bar(L, m))
        self._commit(data, "bar added")
        return i

    def add_bar_at_attitude(self, x0: float, y0: float, theta0: float, length: float,
                            mass: float) -> int:
        """Append a bar with centre ``(x0, y0)`` and angle ``theta0``; returns its index."""
        i = self.n_bars
        pose = (check_real(x0, f"bar {i}: x0"), check_real(y0, f"bar {i}: y0"),
                check_real(theta0, f"bar {i}: theta0"))
        L = check_positive(length, f"bar {i}: length")
        m = check_positive(mass, f"bar {i}: mass")
        data = self._draft()
        data.bars.append(Bar(L, m, pose))
        self._commit(data, "bar added")
        return i

    def add_bar_from_point_pair(self, start: Sequence[float], end: Sequence[float],
                                mass_per_length: float = 1.0) -> int:
        """Append the bar from ``start`` to ``end`` (mass = mass_per_length · length).

        The bar's ``s = -0.5`` end is ``start`` and ``s = +0.5`` is ``end``.
        """
        i = self.n_bars
        p0 = self._check_point(start, f"bar {i}: start")
        p1 = self._check_point(end, f"bar {i}: end")
        rho = check_positive(mass_per_length, f"bar {i}: mass_per_length")
        L = math.hypot(p1[0] - p0[0], p1[1] - p0[1])
        if L <= 0.0:
            raise ValueError(f"bar {i}: start and end must differ (zero length), got {p0} twice")
        th = math.atan2(p1[1] - p0[1], p1[0] - p0[0])
        pose = (0.5 * (p0[0] + p1[0]), 0.5 * (p0[1] + p1[1]), th)
        data = self._draft()
        data.bars.append(Bar(L, rho * L, pose))
        self._commit(data, "bar added")
        return i

    @staticmethod
    def _check_point(p: Any, what: str) -> tuple[float, float]:
        try:
            seq = list(p)
        except TypeError:
            raise ValueError(f"{what} must be a pair (x, y), got {p!r}") from None
        if len(seq) != 2:
            raise ValueError(f"{what} must be a pair (x, y), got {len(seq)} values")
        return check_real(seq[0], f"{what} x"), check_real(seq[1], f"{what} y")

    def set_init_bar_attitude(self, bar_index: int, x0: float, y0: float, theta0: float) -> None:
        """Set the initial centre position and angle of a bar."""
        i = self._check_bar(bar_index, "bar_index")
        pose = (check_real(x0, f"bar {i}: x0"), check_real(y0, f"bar {i}: y0"),
                check_real(theta0, f"bar {i}: theta0"))
        data = self._draft()
        data.bars[i].pose = pose
        self._commit(data, "bar pose")

    def set_init_bar_velocities(self, bar_index: int, xd0: float, yd0: float,
                                thetad0: float) -> None:
        """Set the initial velocity of a bar's centre and its angular velocity."""
        i = self._check_bar(bar_index, "bar_index")
        vel = (check_real(xd0, f"bar {i}: xd0"), check_real(yd0, f"bar {i}: yd0"),
               check_real(thetad0, f"bar {i}: thetad0"))
        data = self._draft()
        data.bars[i].velocity = vel
        self._commit(data, "bar velocity")

    def set_bar_length(self, bar_index: int, length: float) -> None:
        """Change a bar's length (keeping its centre and angle)."""
        i = self._check_bar(bar_index, "bar_index")
        L = check_positive(length, f"bar {i}: length")
        data = self._draft()
        data.bars[i].length = L
        self._commit(data, "bar length")

    def set_bar_mass(self, bar_index: int, mass: float) -> None:
        """Change a bar's mass."""
        i = self._check_bar(bar_index, "bar_index")
        m = check_positive(mass, f"bar {i}: mass")
        data = self._draft()
        data.bars[i].mass = m
        self._commit(data, "bar mass")

    def set_g(self, g: float) -> None:
        """Set the gravitational acceleration (acting along −y)."""
        value = check_real(g, "g")
        data = self._draft()
        data.g = value
        self._commit(data, "g")

    @property
    def stabilization(self) -> float:
        """Baumgarte rate α (1/time) of :meth:`simulate` (default 10 per second)."""
        return self._data.stabilization

    def set_stabilization(self, rate: float) -> None:
        """Set the Baumgarte rate α with which :meth:`simulate` pulls a drifted state back
        onto the constraints: the residual then obeys :math:`\\ddot F + 2α\\dot F + α^2 F = 0`
        (velocity rows :math:`\\dot g + α g = 0`) instead of growing with time. On the
        constraints the motion and the multipliers do not depend on α. ``0`` switches it off
        (the plain index-1 equations). A runtime parameter: no recompiling.
        """
        value = check_stabilization(rate)
        data = self._draft()
        data.stabilization = value
        self._commit(data, "stabilization")

    # ------------------------------------------------------------------ joints, supports, loads
    def _validated_joint(self, bar_index: Any, s: Any, data: ModelData, j: int) -> Joint:
        try:
            bars, ss = list(bar_index), list(s)
        except TypeError:
            raise ValueError(f"joint {j}: bar_index and s must be lists") from None
        if len(bars) < 2:
            raise ValueError(f"joint {j}: a joint needs at least two bars, got {len(bars)}")
        if len(ss) != len(bars):
            raise ValueError(f"joint {j}: {len(bars)} bars but {len(ss)} values of s; give one "
                             "s per bar")
        idx = [self._check_bar(b, f"joint {j}: bar_index[{k}]", data) for k, b in enumerate(bars)]
        if len(set(idx)) != len(idx):
            raise ValueError(f"joint {j}: the same bar appears twice in {idx}")
        vals = [check_s(v, f"joint {j}: s[{k}]") for k, v in enumerate(ss)]
        return Joint(idx, vals)

    def add_joint(self, bar_index: Sequence[int], s: Sequence[float]) -> int:
        """Add a pin joint making the points ``s[k]`` of the bars ``bar_index[k]`` coincide.

        Returns the joint's index.
        """
        data = self._draft()
        j = len(data.joints)
        data.joints.append(self._validated_joint(bar_index, s, data, j))
        self._commit(data, "joint added")
        return j

    def set_joint(self, joint_index: int, bar_index: Sequence[int] | None = None,
                  s: Sequence[float] | None = None) -> None:
        """Change the bars and/or points of a joint."""
        data = self._draft()
        j = self._check_index(joint_index, data.joints, "joint")
        old = data.joints[j]
        new = self._validated_joint(old.bars if bar_index is None else bar_index,
                                    old.s if s is None else s, data, j)
        data.joints[j] = new
        self._commit(data, "joint")

    def _validated_support(self, bar_index, s, dof_in_x, dof_in_y, x, y, data, k) -> Support:
        i = self._check_bar(bar_index, f"support {k}: bar_index", data)
        sv = check_s(s, f"support {k}: s")
        fx = check_flag(dof_in_x, f"support {k}: dof_in_x")
        fy = check_flag(dof_in_y, f"support {k}: dof_in_y")
        if fx and fy:
            raise ValueError(f"support {k}: dof_in_x and dof_in_y are both True, so it would "
                             "constrain nothing; fix at least one direction")
        if x is None or y is None:
            b = self._posed(i, f"support {k}: default position", data)
            px, py = b.point(sv)
            x = px if x is None else x
            y = py if y is None else y
        return Support(i, sv, fx, fy, check_real(x, f"support {k}: x"),
                       check_real(y, f"support {k}: y"))

    def add_support(self, bar_index: int, s: float, dof_in_x: bool, dof_in_y: bool,
                    x: float | None = None, y: float | None = None) -> int:
        """Add a support (pin, or roller when one direction is free) at the point ``s``.

        ``dof_in_x`` / ``dof_in_y`` True leaves that direction free. The support position
        defaults to the point's initial position.

        Raises
        ------
        ValueError
            If the position is defaulted but the bar has no initial pose, or on bad input.
        """
        data = self._draft()
        k = len(data.supports)
        data.supports.append(self._validated_support(bar_index, s, dof_in_x, dof_in_y, x, y,
                                                     data, k))
        self._commit(data, "support added")
        return k

    def set_support(self, support_index: int, *, x: float | None = None, y: float | None = None,
                    s: float | None = None, dof_in_x: bool | None = None,
                    dof_in_y: bool | None = None) -> None:
        """Change a support's position, point or free directions."""
        data = self._draft()
        k = self._check_index(support_index, data.supports, "support")
        o = data.supports[k]
        data.supports[k] = self._validated_support(
            o.bar, o.s if s is None else s, o.free_x if dof_in_x is None else dof_in_x,
            o.free_y if dof_in_y is None else dof_in_y, o.x if x is None else x,
            o.y if y is None else y, data, k)
        self._commit(data, "support")

    def add_external_force(self, bar_index: int, s: float, fx: float, fy: float,
                           torque: float = 0.0) -> int:
        """Add a constant point load ``(fx, fy)`` at ``s`` on a bar and a torque
        (counter-clockwise positive). Returns the force's index."""
        data = self._draft()
        k = len(data.forces)
        i = self._check_bar(bar_index, f"force {k}: bar_index", data)
        f = Force(i, check_s(s, f"force {k}: s"), check_real(fx, f"force {k}: fx"),
                  check_real(fy, f"force {k}: fy"), check_real(torque, f"force {k}: torque"))
        data.forces.append(f)
        self._commit(data, "force added")
        return k

    def set_force(self, force_index: int, *, fx: float | None = None, fy: float | None = None,
                  torque: float | None = None, s: float | None = None) -> None:
        """Change a force's components, torque or point of application."""
        data = self._draft()
        k = self._check_index(force_index, data.forces, "force")
        f = data.forces[k]
        if fx is not None:
            f.fx = check_real(fx, f"force {k}: fx")
        if fy is not None:
            f.fy = check_real(fy, f"force {k}: fy")
        if torque is not None:
            f.torque = check_real(torque, f"force {k}: torque")
        if s is not None:
            f.s = check_s(s, f"force {k}: s")
        self._commit(data, "force")

    # ------------------------------------------------------------------ removing
    def remove_bar(self, bar_index: int) -> dict:
        """Remove a bar and what depends on it; higher bar indices shift down by one.

        Supports, forces and constraints on the bar are removed (user constraints that use
        its coordinates too; the others are renamed to the shifted indices); the bar leaves
        its joints, and joints left with fewer than two bars are removed. Returns what was
        removed.
        """
        data = self._draft()
        i = self._check_bar(bar_index, "bar_index", data)
        removed = {"bar": i, "joints": [], "supports": [], "forces": []}
        del data.bars[i]

        def shift(b):
            return b - 1 if b > i else b

        joints = []
        for j, jt in enumerate(data.joints):
            keep = [(b, s) for b, s in zip(jt.bars, jt.s, strict=True) if b != i]
            if len(keep) < 2:
                removed["joints"].append(j)
                continue
            joints.append(Joint([shift(b) for b, _ in keep], [s for _, s in keep]))
        data.joints = joints
        sup = []
        for k, sp in enumerate(data.supports):
            if sp.bar == i:
                removed["supports"].append(k)
            else:
                sp.bar = shift(sp.bar)
                sup.append(sp)
        data.supports = sup
        frc = []
        for k, f in enumerate(data.forces):
            if f.bar == i:
                removed["forces"].append(k)
            else:
                f.bar = shift(f.bar)
                frc.append(f)
        data.forces = frc
        removed["constraints"] = []
        kept_cc = []
        for cc in data.coordinate_constraints:
            if i in (cc.bar0, cc.bar1):
                removed["constraints"].append(cc.name)
                continue
            cc.bar0 = None if cc.bar0 is None else shift(cc.bar0)
            cc.bar1 = None if cc.bar1 is None else shift(cc.bar1)
            kept_cc.append(cc)
        data.coordinate_constraints = kept_cc
        rename = {}
        for b in range(i + 1, len(data.bars) + 1):
            for c in ("x", "y", "th", "vx", "vy", "om"):
                rename[f"{c}{b}"] = hy.expression(f"{c}{b - 1}")
        mine = {f"{c}{i}" for c in ("x", "y", "th", "vx", "vy", "om")}
        kept_uc = []
        for uc in data.user_constraints:
            if any(set(hy.get_variables(e)) & mine for e in uc.exprs):
                removed["constraints"].append(uc.name)
                continue
            uc.exprs = [hy.subs(e, rename) for e in uc.exprs]
            kept_uc.append(uc)
        data.user_constraints = kept_uc
        kept_ke = []
        for ke in data.knife_edges:
            if ke.bar == i:
                removed["constraints"].append(ke.name)
                continue
            ke.bar = shift(ke.bar)
            kept_ke.append(ke)
        data.knife_edges = kept_ke
        self._commit(data, "bar removed")
        return removed

    def remove_joint(self, joint_index: int) -> None:
        """Remove a joint (later joints shift down by one)."""
        data = self._draft()
        del data.joints[self._check_index(joint_index, data.joints, "joint")]
        self._commit(data, "joint removed")

    def remove_support(self, support_index: int) -> None:
        """Remove a support (later supports shift down by one)."""
        data = self._draft()
        del data.supports[self._check_index(support_index, data.supports, "support")]
        self._commit(data, "support removed")

    def remove_force(self, force_index: int) -> None:
        """Remove an external force (later forces shift down by one)."""
        data = self._draft()
        del data.forces[self._check_index(force_index, data.forces, "force")]
        self._commit(data, "force removed")

    def clear(self) -> None:
        """Remove all bars, joints, supports, and forces (g, the stabilization rate and the
        tolerance are kept)."""
        data = ModelData(g=self._data.g, stabilization=self._data.stabilization)
        self.F, self.q, self.qd = [], [], []
        self._commit(data, "cleared")

    # ------------------------------------------------------------------ joints from geometry
    def infer_joints(self) -> int:
        """Add joints where bars meet in their initial poses; returns the total joint count.

        Intersections anywhere along the bars count; bars meeting at one point form one joint;
        a point already joined gets only the missing bars added (no duplicate joints).
        """
        data = self._draft()
        for i in range(len(data.bars)):
            self._posed(i, "infer_joints", data)
        eps = 0.5 * self.tolerance  # an inferred joint must pass the start-up check
        for P, inc in geo.intersections(data.bars, eps):
            scale = max(1.0, float(np.max(np.abs(P))))
            existing = None
            for jt in data.joints:
                b0, s0 = jt.bars[0], jt.s[0]
                if np.linalg.norm(np.array(data.bars[b0].point(s0)) - P) <= 10 * eps * scale:
                    existing = jt
                    break
            inc = [(b, _snap_s(s)) for b, s in inc]
            if existing is None:
                bars = [b for b, _ in inc]
                data.joints.append(Joint(bars, [s for _, s in inc]))
            else:
                for b, s in inc:
                    if b not in existing.bars:
                        existing.bars.append(b)
                        existing.s.append(s)
        self._commit(data, "joints inferred")
        return len(data.joints)

    # ------------------------------------------------------------------ state
    def get_initial_state(self) -> list[float]:
        """Return ``[x_0, y_0, θ_0, ..., xd_0, yd_0, θd_0, ...]``: all coordinates, then all
        velocities."""
        q, qd = [], []
        for i, b in enumerate(self._data.bars):
            self._posed(i, "get_initial_state")
            q.extend(b.pose)
            qd.extend(b.velocity)
        return q + qd

    def set_initial_state(self, initial_state: Sequence[float]) -> list[float]:
        """Set all bar poses and velocities from a state ``[q..., qd...]``; returns it."""
        n = self.n_bars
        try:
            arr = np.asarray(initial_state, dtype=float)
        except (TypeError, ValueError):
            raise ValueError("initial_state must be a sequence of real numbers") from None
        if arr.ndim != 1 or arr.shape[0] != 6 * n:
            raise ValueError(f"initial_state: expected {6 * n} values (6 per bar for {n} bars: "
                             f"all q then all qd), got shape {arr.shape}")
        bad = np.nonzero(~np.isfinite(arr))[0]
        if bad.size:
            raise ValueError(f"initial_state: entries {bad.tolist()} are not finite")
        data = self._draft()
        for i, b in enumerate(data.bars):
            b.pose = tuple(float(v) for v in arr[3 * i:3 * i + 3])
            b.velocity = tuple(float(v) for v in arr[3 * n + 3 * i:3 * n + 3 * i + 3])
        self._commit(data, "state")
        return arr.tolist()

    # ------------------------------------------------------------------ equations
    def build_lagrange_eom(self, return_multipliers: bool = False, return_W: bool = False):
        """Assemble the symbolic first-order system of the model, numeric data as constants.

        The system can be passed straight to ``hy.taylor_adaptive(sys, state)`` with the state
        from :meth:`get_initial_state`. Sets ``self.F`` (constraint residuals), ``self.q``
        and ``self.qd`` (variables).

        Returns
        -------
        list or tuple
            As :func:`quivira.lagrange_eom`: ``sys``, ``(sys, lambda_mult)``, ``(sys, W)`` or
            ``(sys, lambda_mult, W)``; multipliers in the order of ``self.F``.
        """
        sym = build_symbolic(self._data, use_pars=False)
        parts = assemble_eom(sym.lagrangian, sym.F, sym.q, sym.qd, sym.Q_nc,
                             velocity_constraints=sym.G, W_shift=sym.W_shift,
                             solver=self.solver)
        self.F, self.q, self.qd = list(sym.F), list(sym.q), list(sym.qd)
        return eom_result(parts, return_multipliers, return_W)

    def linearize(self, q_op: Sequence[float] | None = None,
                  qd_op: Sequence[float] | None = None, *, allow_nonequilibrium: bool = False):
        """Linear model ``(A, B)`` about an operating point (default: the initial pose at
        rest), in independent coordinates chosen by coordinate partitioning of J there.

        ``x = (z, ż)``, ``ẋ = A x + B u`` with ``u`` the values ``(fx, fy, torque)`` of every
        applied force. The result unpacks as ``A, B`` and tells ``.coordinates`` (the chosen
        independent coordinates), ``.T`` (``δq = T δz``) and ``.inputs``. See
        :mod:`quivira.model.linearize` for the equations and the treatment of operating
        points that are not equilibria (ValueError unless ``allow_nonequilibrium``).
        """
        from .linearize import linearize

        return linearize(self, q_op, qd_op, allow_nonequilibrium=allow_nonequilibrium)

    def modes(self, q_op: Sequence[float] | None = None):
        """Natural frequencies and mode shapes about an equilibrium (default: the initial
        pose), from :math:`K_z v = ω^2 M_z v`; shapes mapped back to all bar coordinates.
        Returns a :class:`quivira.model.linearize.Modes`."""
        from .linearize import modes

        return modes(self, q_op)

    def mass_matrix_forms(self):
        """The model's equations in SymPy ``LagrangesMethod`` layout (numeric data as
        constants): a :class:`quivira.forms.LagrangeForms` with ``mass_matrix``,
        ``forcing``, ``mass_matrix_full``, ``forcing_full`` and ``rhs()``."""
        from ..forms import LagrangeForms

        sym = build_symbolic(self._data, use_pars=False)
        return LagrangeForms(assemble_eom(sym.lagrangian, sym.F, sym.q, sym.qd, sym.Q_nc,
                                          velocity_constraints=sym.G, W_shift=sym.W_shift,
                                          solver=self.solver))

    # ------------------------------------------------------------------ output
    def print_model(self) -> None:
        """Print a readable summary of bars, joints, supports, forces and g."""
        print(self.summary())

    def summary(self) -> str:
        """The text printed by :meth:`print_model`."""
        d = self._data
        lines = [f"bar_joint_model: {len(d.bars)} bars, {len(d.joints)} joints, "
                 f"{len(d.supports)} supports, {len(d.forces)} forces, g = {d.g:g}"]
        for i, b in enumerate(d.bars):
            pose = "pose not set" if b.pose is None else (
                f"centre ({b.pose[0]:.4g}, {b.pose[1]:.4g}), θ = {b.pose[2]:.4g} rad")
            lines.append(f"  bar {i}: L = {b.length:g}, m = {b.mass:g}, {pose}, "
                         f"velocity {tuple(round(v, 6) for v in b.velocity)}")
        for j, jt in enumerate(d.joints):
            pts = ", ".join(f"bar {b} at s = {s:g}" for b, s in zip(jt.bars, jt.s, strict=True))
            lines.append(f"  joint {j}: {pts}")
        for k, sp in enumerate(d.supports):
            kind = "pin" if not (sp.free_x or sp.free_y) else (
                "roller, free in x" if sp.free_x else "roller, free in y")
            lines.append(f"  support {k}: {kind}, bar {sp.bar} at s = {sp.s:g}, "
                         f"at ({sp.x:.4g}, {sp.y:.4g})")
        for k, f in enumerate(d.forces):
            lines.append(f"  force {k}: bar {f.bar} at s = {f.s:g}, (fx, fy) = ({f.fx:g}, "
                         f"{f.fy:g}), torque {f.torque:g}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        d = self._data
        return (f"<bar_joint_model: {len(d.bars)} bars, {len(d.joints)} joints, "
                f"{len(d.supports)} supports, {len(d.forces)} forces>")

    # ------------------------------------------------------------------ persistence
    def to_dict(self) -> dict:
        """The model as plain JSON-ready data (with ``format_version``)."""
        return persistence.to_dict(self._data, self.tolerance)

    @classmethod
    def from_dict(cls, d: dict) -> bar_joint_model:
        """A new model from :meth:`to_dict` data; malformed data raise ValueError."""
        data, tolerance = persistence.from_dict(d)
        model = cls(tolerance)
        model._data = data
        return model

    def save(self, path: str | Path) -> None:
        """Write the model to a JSON file."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=1))

    @classmethod
    def load(cls, path: str | Path) -> bar_joint_model:
        """Read a model written by :meth:`save`; a malformed file raises ValueError."""
        try:
            d = json.loads(Path(path).read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"{path}: not a valid JSON model file ({exc})") from None
        return cls.from_dict(d)


def _snap_s(s: float, eps: float = 1e-12) -> float:
    """Round a local coordinate within ``eps`` of -0.5, 0 or 0.5 to that value."""
    for v in (-0.5, 0.0, 0.5):
        if abs(s - v) <= eps:
            return v
    return float(s)


BarJointModel = bar_joint_model
