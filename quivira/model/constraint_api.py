"""Constraints beyond pins and supports, as methods of the bar-joint model.

* Coordinate-vector constraints (as Exudyn's ``ObjectConnectorCoordinateVector``) on the
  marker coordinate vectors :math:`q_b = (x_b, y_b, θ_b)` of two bars (or ground):

  .. math:: c = X_1 q_1 + Y_1 q_1^2 - X_0 q_0 - Y_0 q_0^2 - v_{off} = 0,

  squares element-wise; at velocity level the same with :math:`\\dot q`. Our multipliers
  follow :func:`quivira.lagrange_eom`: :math:`J^T\\lambda` is the generalized constraint
  force, so a row acts with :math:`+X_1^T\\lambda` on bar 1 and :math:`-X_0^T\\lambda` on bar 0
  (Exudyn reports the opposite sign). ``active=False`` replaces the rows by
  :math:`\\lambda = 0` through a runtime parameter: toggling needs no recompiling.
* User constraints: any heyoka expressions of the coordinates (``model.coordinates(i)``)
  and ``hy.time``; Jacobians and :math:`\\dot J\\dot q` (with the :math:`\\partial/\\partial t`
  terms of driven constraints) are derived automatically.
* Knife edges: the point ``s`` of a bar cannot move across the bar,
  :math:`-\\sin θ\\,\\dot x + \\cos θ\\,\\dot y + sL\\dot θ = 0` (non-holonomic).
"""

from __future__ import annotations

from typing import Any

import heyoka as hy
import numpy as np

from .components import CoordinateConstraint, KnifeEdge, UserConstraint, check_flag, check_s


def _matrix(mat: Any, name: str, bar: int | None, which: str) -> np.ndarray | None:
    if mat is None:
        return None
    try:
        arr = np.array(mat, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a numeric matrix, got {mat!r}") from None
    if arr.size == 0:
        return None
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"{name}: expected a 2-D matrix, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: entries must be finite")
    if bar is None:
        raise ValueError(f"{name}: marker {which} is ground (bar{which} = None), so {name} must "
                         f"be empty or None, got shape {arr.shape}")
    if arr.shape[1] != 3:
        raise ValueError(f"{name}: expected 3 columns (x, y, θ of bar {bar}), got shape "
                         f"{arr.shape}")
    return arr


class ConstraintMethods:
    """Mixin of :class:`~quivira.bar_joint_model` for the constraints described above."""

    def _bar_or_ground(self, b: Any, what: str, data) -> int | None:
        if b is None:
            return None
        return self._check_bar(b, what, data)

    def _unique_name(self, name: Any, default: str, data) -> str:
        if name is None:
            name = default
        if not isinstance(name, str) or not name:
            raise ValueError(f"name must be a non-empty string, got {name!r}")
        if name in self._constraint_names(data):
            raise ValueError(f"a constraint named {name!r} exists already; choose another name")
        return name

    @staticmethod
    def _constraint_names(data) -> list[str]:
        return ([c.name for c in data.coordinate_constraints]
                + [u.name for u in data.user_constraints] + [k.name for k in data.knife_edges])

    def add_coordinate_constraint(self, bar0: int | None, bar1: int | None, X0: Any = None,
                                  X1: Any = None, Y0: Any = None, Y1: Any = None,
                                  offset: Any = None, *, velocity_level: bool = False,
                                  active: bool = True, name: str | None = None) -> str:
        """Add :math:`X_1 q_1 + Y_1 q_1^2 - X_0 q_0 - Y_0 q_0^2 - v_{off} = 0`.

        Parameters
        ----------
        bar0, bar1 : int or None
            The bars whose ``(x, y, θ)`` are ``q0`` and ``q1``; None is ground (``q = 0``).
        X0, X1, Y0, Y1 : array_like, optional
            Linear and quadratic scaling matrices with 3 columns; empty/None are left out.
            The number of equations is the number of rows, the same for all non-empty ones.
        offset : array_like, optional
            :math:`v_{off}` (default zeros); at velocity level a velocity offset.
        velocity_level : bool
            Constrain velocities instead (a linear velocity constraint).
        active : bool
            False: the rows become :math:`\\lambda = 0` (see :meth:`set_constraint_active`).
        name : str, optional
            Used in the multiplier labels and for :meth:`Trajectory.constraint_output`.

        Returns
        -------
        str
            The constraint's name.
        """
        data = self._draft()
        k = len(data.coordinate_constraints)
        b0 = self._bar_or_ground(bar0, "bar0", data)
        b1 = self._bar_or_ground(bar1, "bar1", data)
        if b0 is None and b1 is None:
            raise ValueError("bar0 and bar1 are both ground (None); give at least one bar")
        if b0 is not None and b0 == b1:
            raise ValueError(f"bar0 and bar1 are the same bar ({b0}); use add_constraint for "
                             "relations within one bar")
        mats = {"X0": _matrix(X0, "X0", b0, "0"), "X1": _matrix(X1, "X1", b1, "1"),
                "Y0": _matrix(Y0, "Y0", b0, "0"), "Y1": _matrix(Y1, "Y1", b1, "1")}
        rows = {k_: v.shape[0] for k_, v in mats.items() if v is not None}
        if not rows:
            raise ValueError("X0, X1, Y0 and Y1 are all empty: the constraint has no equations")
        n_rows = max(rows.values())
        for key, r in rows.items():
            if r != n_rows:
                raise ValueError(f"{key}: has {r} rows but another scaling matrix has {n_rows}; "
                                 "all non-empty matrices need the same number of rows")
        if offset is None:
            off = [0.0] * n_rows
        else:
            arr = np.array(offset, dtype=float).reshape(-1)
            if arr.shape[0] != n_rows:
                raise ValueError(f"offset: expected {n_rows} values (one per equation), got "
                                 f"{arr.shape[0]}")
            if not np.all(np.isfinite(arr)):
                raise ValueError("offset: entries must be finite")
            off = arr.tolist()
        nm = self._unique_name(name, f"coordinate constraint {k}", data)
        cc = CoordinateConstraint(
            b0, b1, *(None if mats[key] is None else mats[key].tolist()
                      for key in ("X0", "X1", "Y0", "Y1")),
            off, check_flag(velocity_level, "velocity_level"), check_flag(active, "active"), nm)
        data.coordinate_constraints.append(cc)
        self._commit(data, "constraint added")
        return nm

    def add_constraint(self, exprs: Any, name: str | None = None, *,
                       velocity_level: bool = False) -> str:
        """Add constraint rows :math:`F(q, t) = 0` given as heyoka expressions.

        Expressions may use the coordinates of any bar (``model.coordinates(i)``, named
        ``x{i}``, ``y{i}``, ``th{i}``) and ``hy.time`` (driven, rheonomic constraints such as
        ``th0 - ω t``). With ``velocity_level=True`` they are velocity constraints
        :math:`A(q, t)\\dot q + b(q, t) = 0` and may use ``model.velocities(i)``. Returns the
        constraint's name.
        """
        data = self._draft()
        k = len(data.user_constraints)
        if isinstance(exprs, hy.expression):
            exprs = [exprs]
        try:
            rows = list(exprs)
        except TypeError:
            raise ValueError("exprs: expected a heyoka expression or a list of them") from None
        if not rows:
            raise ValueError("exprs: give at least one constraint expression")
        vel_flag = check_flag(velocity_level, "velocity_level")
        n = len(data.bars)
        allowed = {f"{c}{i}" for i in range(n) for c in ("x", "y", "th")}
        if vel_flag:
            allowed |= {f"{c}{i}" for i in range(n) for c in ("vx", "vy", "om")}
        for r, e in enumerate(rows):
            if not isinstance(e, hy.expression):
                raise ValueError(f"exprs[{r}]: expected a heyoka expression, got "
                                 f"{type(e).__name__}")
            unknown = sorted(set(hy.get_variables(e)) - allowed)
            if unknown:
                raise ValueError(
                    f"exprs[{r}]: unknown variables {unknown}; use model.coordinates(i)"
                    + (" and model.velocities(i)" if vel_flag else "")
                    + f" of the model's {n} bars (and hy.time)")
            if hy.get_params(e):
                raise ValueError(f"exprs[{r}]: runtime parameters (hy.par) are not allowed "
                                 "in user constraints; write the numbers")
        nm = self._unique_name(name, f"constraint {k}", data)
        data.user_constraints.append(UserConstraint(rows, nm, vel_flag))
        self._commit(data, "constraint added")
        return nm

    def add_knife_edge(self, bar_index: int, s: float, name: str | None = None) -> str:
        """Add a knife edge (skate) at the point ``s`` of a bar: that point cannot move
        across the bar, :math:`-\\sin θ\\,\\dot x + \\cos θ\\,\\dot y + sL\\dot θ = 0`.
        Returns its name."""
        data = self._draft()
        k = len(data.knife_edges)
        i = self._check_bar(bar_index, "bar_index", data)
        sv = check_s(s, f"knife edge {k}: s")
        nm = self._unique_name(name, f"knife edge {k}", data)
        data.knife_edges.append(KnifeEdge(i, sv, nm))
        self._commit(data, "constraint added")
        return nm

    def _find_constraint(self, key: Any, data) -> tuple[str, int]:
        names = self._constraint_names(data)
        groups = ([("cc", i) for i in range(len(data.coordinate_constraints))]
                  + [("user", i) for i in range(len(data.user_constraints))]
                  + [("knife", i) for i in range(len(data.knife_edges))])
        if isinstance(key, str):
            if key not in names:
                raise ValueError(f"no constraint named {key!r}; constraints are {names}")
            return groups[names.index(key)]
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool) \
                and 0 <= key < len(groups):
            return groups[int(key)]
        raise ValueError(f"constraint: expected a name or an index in [0, {len(groups)}), got "
                         f"{key!r}")

    def set_constraint_active(self, constraint: str | int, active: bool) -> None:
        """Switch a coordinate-vector constraint on or off (no recompiling: its rows are
        scaled by a runtime parameter, and an inactive row reads :math:`\\lambda = 0`)."""
        data = self._draft()
        kind, i = self._find_constraint(constraint, data)
        if kind != "cc":
            raise ValueError(f"constraint {constraint!r} is not a coordinate constraint; only "
                             "those have an active flag (remove others instead)")
        data.coordinate_constraints[i].active = check_flag(active, "active")
        self._commit(data, "constraint active")

    def set_constraint_offset(self, constraint: str | int, offset: Any) -> None:
        """Change the offset of a coordinate-vector constraint (no recompiling)."""
        data = self._draft()
        kind, i = self._find_constraint(constraint, data)
        if kind != "cc":
            raise ValueError(f"constraint {constraint!r} is not a coordinate constraint")
        cc = data.coordinate_constraints[i]
        arr = np.array(offset, dtype=float).reshape(-1)
        if arr.shape[0] != cc.n_rows or not np.all(np.isfinite(arr)):
            raise ValueError(f"offset: expected {cc.n_rows} finite values, got {offset!r}")
        cc.offset = arr.tolist()
        self._commit(data, "constraint offset")

    def remove_constraint(self, constraint: str | int) -> None:
        """Remove a coordinate, user or knife-edge constraint by name or index."""
        data = self._draft()
        kind, i = self._find_constraint(constraint, data)
        {"cc": data.coordinate_constraints, "user": data.user_constraints,
         "knife": data.knife_edges}[kind].pop(i)
        self._commit(data, "constraint removed")

    @property
    def constraint_names(self) -> list[str]:
        """Names of the coordinate, user and knife-edge constraints, in index order."""
        return self._constraint_names(self._data)
