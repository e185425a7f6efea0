r"""User constraint: rows given as heyoka expressions.

Holonomic rows :math:`F(q, t) = 0` may use the coordinates of any bar
(``model.variables(i)[0]``: ``x{i}``, ``y{i}``, ``th{i}``) and ``hy.time`` (driven, rheonomic
constraints such as :math:`θ_0 - ωt`); velocity rows :math:`A(q, t)\dot q + b(q, t) = 0`
may also use the velocities (``model.variables(i)[1]``: ``vx{i}``, ``vy{i}``, ``om{i}``).
Their Jacobians and :math:`\dot J\dot q` (with the :math:`\partial/\partial t` terms) are
derived automatically (:mod:`quivira.constraint_rows`); each entry is one opaque term of the
assembled equations. No runtime parameters: numbers are written into the expressions.
Row ``r`` is labelled ``"<name>.row<r>"``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import heyoka as hy

from ..._entries import is_zero
from ...expression_codec import (
    check_storable,
    encode_expression,
    tree_from_legacy_pickle,
)
from ..validation import check_flag, check_name, field, list_field
from . import fields
from .base import Constraint, LoadContext, Row, RowContext, expression_text
from .registry import register


def legacy_tree(text: Any, where: str) -> list:
    """Read the expression tree of a version-1 file entry (a base64 pickle) safely."""
    import base64
    import binascii

    if not isinstance(text, str):
        raise ValueError(f"{where}: expected an encoded expression string")
    try:
        data = base64.b64decode(text, validate=True)
        return tree_from_legacy_pickle(data)
    except (ValueError, binascii.Error) as exc:
        raise ValueError(f"{where}: not a valid encoded heyoka expression ({exc}); re-create "
                         "the constraint (a UserConstraint) and save the model again") from None

_COORDS = ("x", "y", "th")
_VELS = ("vx", "vy", "om")


def allowed_variables(n_bars: int, velocity_level: bool) -> set[str]:
    """Variable names a row may use."""
    names = {f"{c}{i}" for i in range(n_bars) for c in _COORDS}
    if velocity_level:
        names |= {f"{c}{i}" for i in range(n_bars) for c in _VELS}
    return names


def check_rows(exprs: Any, n_bars: int, velocity_level: bool, where: str = "exprs"
               ) -> list[hy.expression]:
    """Validate the rows: heyoka expressions of the model's variables (and time).

    No runtime parameters; each row involves at least one coordinate (or velocity).
    """
    if isinstance(exprs, hy.expression):
        exprs = [exprs]
    try:
        rows = list(exprs)
    except TypeError:
        raise TypeError(f"{where}: expected a heyoka expression or a list of them") from None
    if not rows:
        raise ValueError(f"{where}: give at least one constraint expression")
    allowed = allowed_variables(n_bars, velocity_level)
    for r, e in enumerate(rows):
        if not isinstance(e, hy.expression):
            raise TypeError(f"{where}[{r}]: expected a heyoka expression, got "
                            f"{type(e).__name__}")
        used = set(hy.get_variables(e))
        unknown = sorted(used - allowed)
        if unknown:
            raise ValueError(
                f"{where}[{r}]: unknown variables {unknown}; use the coordinates"
                + (" and velocities" if velocity_level else "")
                + f" of the model's {n_bars} bars, model.variables(i), and hy.time")
        if hy.get_params(e):
            raise ValueError(f"{where}[{r}]: runtime parameters (hy.par) are not allowed in "
                             "user constraints; write the numbers")
        if not used:
            raise ValueError(f"{where}[{r}]: the expression involves no coordinate ({e}); a "
                             "constraint must restrict the motion of at least one bar")
        _check_moves(e, used, velocity_level, f"{where}[{r}]")
        try:
            check_storable(e)  # every model that can be saved can be loaded again
        except ValueError as exc:
            raise ValueError(f"{where}[{r}]: {exc}") from None
    return rows


def _check_moves(e: hy.expression, used: set[str], velocity_level: bool, where: str) -> None:
    r"""Refuse a row whose Jacobian is structurally zero (such as ``x0 - x0``).

    Its derivatives with respect to the coordinates (velocity rows: to the velocities,
    :math:`\partial g/\partial\dot q`) all simplify to 0, so it constrains nothing and its
    Delassus matrix :math:`W = J M^{-1} J^T` would have a zero row.
    """
    kinds = _VELS if velocity_level else _COORDS
    wrt = sorted(v for v in used if v.rstrip("0123456789") in kinds)
    if any(not is_zero(hy.diff(e, hy.expression(v))) for v in wrt):
        return
    text = expression_text(e)
    if velocity_level and not wrt:
        raise ValueError(f"{where}: a velocity row must involve a velocity "
                         f"(model.variables(i)[1]), got {text}; write position constraints "
                         "with velocity_level=False")
    raise ValueError(f"{where}: the expression {text} does not change with "
                     f"{', '.join(wrt)} (its derivatives are identically 0), so it constrains "
                     "nothing; write a row that restricts the motion")


@register(rank=500)
@dataclass
class UserConstraint(Constraint):
    r"""Constraint rows given as heyoka expressions of the coordinates (and ``hy.time``).

    With ``velocity_level`` the rows are linear in the velocities,
    :math:`A(q,t)\dot q + b = 0`. The rows are topology: remove the constraint and add
    another to change them.
    """

    exprs: list = fields.data("rows", "the rows, heyoka expressions of model.variables(i) and "
                              "hy.time, each = 0")
    velocity_level: bool = fields.flag("velocity level", "the rows are velocity rows, linear "
                                       "in the velocities", topology=True, default=False)
    name: str | None = fields.name(default=None)

    kind = "user"
    collection = "user_constraints"
    title = "constraint"
    prefix = "constraint"
    named = True
    has_name = True

    def check(self, bodies: list, where: str) -> UserConstraint:
        """Return the constraint with its rows checked (:func:`check_rows`; one row: a list)."""
        return replace(self, exprs=check_rows(self.exprs, len(bodies), self.velocity_level,
                                              f"{where}.exprs"))

    def bars_used(self) -> tuple[int, ...]:
        """Return the indices of the bodies the constraint touches."""
        bars = set()
        for e in self.exprs:
            for v in hy.get_variables(e):
                bars.add(int(v.lstrip("xythvom")))
        return tuple(sorted(bars))

    def topology(self) -> tuple:
        """Return the constraint's part of the topology key (connectivity, never values)."""
        return (self.name, tuple(str(e) for e in self.exprs), self.velocity_level)

    def reindexed(self, removed_bar: int) -> UserConstraint | None:
        """Return the constraint after bar ``removed_bar`` is deleted (None if it used it)."""
        if removed_bar in self.bars_used():
            return None
        rename = {}
        for v in {v for e in self.exprs for v in hy.get_variables(e)}:
            prefix, b = v.rstrip("0123456789"), int(v.lstrip("xythvom"))
            if b > removed_bar:
                rename[v] = hy.expression(f"{prefix}{b - 1}")
        c = self.copy()
        c.exprs = [hy.subs(e, rename) if rename else e for e in self.exprs]
        return c

    def describe(self, position: int) -> str:
        """Return the constraint's line in the model summary."""
        level = "velocity" if self.velocity_level else "position"
        rows = "; ".join(f"{e} = 0" for e in self.exprs)
        if len(rows) > 120:
            rows = rows[:117] + "..."
        return f"constraint {self.name!r}: {len(self.exprs)} {level} rows: {rows}"

    def rows(self, ctx: RowContext) -> list[Row]:
        """Return the user's expressions as rows (holonomic, or velocity level)."""
        return [Row(e, f"{self.name}.row{r}", None, r, self.velocity_level)
                for r, e in enumerate(self.exprs)]

    def group(self) -> dict:
        """Return the constraint's data recorded on trajectories (named constraints)."""
        return {"velocity_level": self.velocity_level}

    def to_dict(self) -> dict:
        """Return the constraint as plain JSON-ready data (read back by :meth:`from_dict`).

        The rows are written as expression trees under ``exprs`` and, for readers of the file,
        as text under ``text`` (ignored when reading): the format of earlier versions, which
        differs from one key per field.
        """
        return {"name": self.name, "velocity_level": self.velocity_level,
                "text": [str(e) for e in self.exprs],
                "exprs": [encode_expression(e) for e in self.exprs]}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> UserConstraint:
        """Build the constraint from :meth:`to_dict` data; ValueError naming ``where`` on errors.

        The rows are checked as the API checks them (:func:`check_rows`); a version-1 file
        holds them as pickles, read without unpickling (:func:`legacy_tree`).
        """
        vel = check_flag(field(d, "velocity_level", where), f"{where}.velocity_level")
        exprs = [cls.row_from_file(item, f"{where}.exprs[{r}]", ctx, vel)
                 for r, item in enumerate(list_field(d, "exprs", where))]
        name = check_name(field(d, "name", where), ctx.names, f"{where}.name")
        return cls(exprs=check_rows(exprs, ctx.n_bars, vel, f"{where}.exprs"),
                   velocity_level=vel, name=name)

    @classmethod
    def row_from_file(cls, tree: Any, where: str, ctx: LoadContext, velocity_level: bool
                      ) -> hy.expression:
        """Decode one row of a file, of the variables of the file's bars only."""
        if ctx.version == 1:
            tree = legacy_tree(tree, where)
        try:
            return ctx.expression(tree, where, allowed_variables(ctx.n_bars, velocity_level))
        except ValueError as exc:
            if "not in the allowed" in str(exc) or "not allowed here" in str(exc):
                raise ValueError(f"{exc}; unknown variables for a model of {ctx.n_bars} "
                                 "bars") from None
            raise
