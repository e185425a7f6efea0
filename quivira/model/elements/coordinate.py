r"""Coordinate-vector constraint (as Exudyn's ``ObjectConnectorCoordinateVector``).

On the marker coordinate vectors :math:`q_b = (x_b, y_b, θ_b)` of two bars (or ground, where
:math:`q = 0`):

.. math:: c = X_1 q_1 + Y_1 q_1^2 - X_0 q_0 - Y_0 q_0^2 - v_{off} = 0,

squares element-wise; at velocity level the same with :math:`\dot q` (rows
:math:`g(\dot q) = 0`, Chetaev's rule for the quadratic terms). :math:`J^T\lambda` is the
generalized constraint force, so a row acts with :math:`+X_1^T\lambda` on bar 1 and
:math:`-X_0^T\lambda` on bar 0 (Exudyn reports the opposite sign). The constraint is
switchable: ``active=False`` replaces its rows by :math:`\lambda = 0` through a runtime
parameter, without recompiling. Parameters: ``active`` (1 or 0) and ``offset`` per row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import monomials as mo
from ..validation import check_flag, check_name, field, list_field, optional_bar, real_array
from .base import Constraint, LoadContext, Row, RowContext, shift_bar

_MATRICES = ("X0", "X1", "Y0", "Y1")


def _matrix(mat: Any, name: str, bar: int | None, which: str) -> np.ndarray | None:
    if mat is None:
        return None
    arr = real_array(mat, name, "a numeric matrix")
    if arr.size == 0:
        return None
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"{name}: expected a 2-D matrix, got shape {arr.shape}")
    if bar is None:
        raise ValueError(f"{name}: marker {which} is ground (bar{which} = None), so {name} must "
                         f"be empty or None, got shape {arr.shape}")
    if arr.shape[1] != 3:
        raise ValueError(f"{name}: expected 3 columns (x, y, θ of bar {bar}), got shape "
                         f"{arr.shape}")
    return arr


def check_offset(offset: Any, n_rows: int) -> list[float]:
    """One finite offset per row, each within the limit of every number of the model."""
    arr = real_array(offset, "offset", f"{n_rows} numbers").reshape(-1)
    if arr.shape[0] != n_rows:
        raise ValueError(f"offset: expected {n_rows} values (one per equation), got "
                         f"{arr.shape[0]}")
    return arr.tolist()


@dataclass
class CoordinateConstraint(Constraint):
    """A coordinate-vector constraint (see the module docstring).

    :math:`X_1 q_1 + Y_1 q_1^2 - X_0 q_0 - Y_0 q_0^2 - v_{off} = 0`; ``None`` for a bar means
    ground, empty matrices are ``None``.
    """

    bar0: int | None
    bar1: int | None
    X0: list | None
    X1: list | None
    Y0: list | None
    Y1: list | None
    offset: list
    velocity_level: bool
    active: bool
    name: str

    kind = "cc"
    collection = "coordinate_constraints"
    title = "coordinate constraint"
    named = True
    has_name = True
    switchable = True

    @property
    def n_rows(self) -> int:
        """Number of equations."""
        return len(self.offset)

    @classmethod
    def create(cls, bar0: Any, bar1: Any, X0: Any, X1: Any, Y0: Any, Y1: Any, offset: Any,
               velocity_level: Any, active: Any, name: str, n_bars: int
               ) -> CoordinateConstraint:
        """Build a validated constraint (arguments as ``add_coordinate_constraint``)."""
        b0 = optional_bar(bar0, n_bars, "bar0")
        b1 = optional_bar(bar1, n_bars, "bar1")
        if b0 is None and b1 is None:
            raise ValueError("bar0 and bar1 are both ground (None); give at least one bar")
        if b0 is not None and b0 == b1:
            raise ValueError(f"bar0 and bar1 are the same bar ({b0}); use add_constraint for "
                             "relations within one bar")
        mats = {"X0": _matrix(X0, "X0", b0, "0"), "X1": _matrix(X1, "X1", b1, "1"),
                "Y0": _matrix(Y0, "Y0", b0, "0"), "Y1": _matrix(Y1, "Y1", b1, "1")}
        rows = {k: v.shape[0] for k, v in mats.items() if v is not None}
        if not rows:
            raise ValueError("X0, X1, Y0 and Y1 are all empty: the constraint has no equations")
        n_rows = max(rows.values())
        for key, r in rows.items():
            if r != n_rows:
                raise ValueError(f"{key}: has {r} rows but another scaling matrix has {n_rows}; "
                                 "all non-empty matrices need the same number of rows")
        off = [0.0] * n_rows if offset is None else check_offset(offset, n_rows)
        return cls(b0, b1, *(None if mats[k] is None else mats[k].tolist() for k in _MATRICES),
                   off, check_flag(velocity_level, "velocity_level"),
                   check_flag(active, "active"), name)

    def with_offset(self, offset: Any) -> CoordinateConstraint:
        """Return a copy with a new offset (validated)."""
        c = self.copy()
        c.offset = check_offset(offset, self.n_rows)
        return c

    def bars_used(self) -> tuple[int, ...]:
        """Return the indices of the bodies the constraint touches."""
        return tuple(b for b in (self.bar0, self.bar1) if b is not None)

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the constraint's runtime parameters ``[(name, value), ...]``."""
        return [(("active",), 1.0 if self.active else 0.0)] + [
            (("offset", r), v) for r, v in enumerate(self.offset)]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the constraint."""
        out = {("active",): [(f"a_{position}", 1)]}
        out.update({("offset", r): [(f"o_{{{position}.{r}}}", 1)] for r in range(self.n_rows)})
        return out

    def topology(self) -> tuple:
        """Return the constraint's part of the topology key (connectivity, never values)."""
        def frozen(mat):
            return None if mat is None else tuple(tuple(r) for r in mat)

        return (self.name, self.bar0, self.bar1, *(frozen(getattr(self, k)) for k in _MATRICES),
                self.n_rows, self.velocity_level)

    def reindexed(self, removed_bar: int) -> CoordinateConstraint | None:
        """Return the constraint after bar ``removed_bar`` is deleted (None if it used it)."""
        if removed_bar in (self.bar0, self.bar1):
            return None
        c = self.copy()
        c.bar0 = None if c.bar0 is None else shift_bar(c.bar0, removed_bar)
        c.bar1 = None if c.bar1 is None else shift_bar(c.bar1, removed_bar)
        return c

    def describe(self, position: int) -> str:
        """Return the constraint's line in the model summary."""
        def marker(b):
            return "ground" if b is None else f"bar {b}"

        level = "velocity" if self.velocity_level else "position"
        state = "" if self.active else ", switched off"
        return (f"constraint {self.name!r}: coordinate-vector, {marker(self.bar0)} → "
                f"{marker(self.bar1)}, {self.n_rows} {level} rows{state}")

    def rows(self, ctx: RowContext) -> list[Row]:
        """Return one row per equation, :math:`X_1 q_1 + Y_1 q_1^2 - X_0 q_0 - Y_0 q_0^2 - v_{off}`.

        At velocity level the velocities stand in place of the coordinates.
        """
        letter = ctx.v if self.velocity_level else ctx.q
        out = []
        for r in range(self.n_rows):
            terms = [mo.constant(-1.0, ctx.par("offset", r))]
            for bar, X, Y, sign in ((self.bar1, self.X1, self.Y1, 1.0),
                                    (self.bar0, self.X0, self.Y0, -1.0)):
                if bar is None:
                    continue
                for mat, power in ((X, 1), (Y, 2)):
                    if mat is None:
                        continue
                    for j, coef in enumerate(mat[r]):
                        if coef != 0.0:
                            terms.append(mo.monomial((letter(3 * bar + j),) * power,
                                                     sign * coef))
            out.append(Row(mo.add(*terms), f"{self.name} · row {r}", None, r,
                           self.velocity_level))
        return out

    def group(self) -> dict:
        """Return the constraint's data recorded on trajectories (named constraints)."""
        return {"velocity_level": self.velocity_level, "markers": (self.bar0, self.bar1),
                "terms": [(bar, power, sign, mat) for bar, X, Y, sign in
                          ((self.bar1, self.X1, self.Y1, 1), (self.bar0, self.X0, self.Y0, -1))
                          for mat, power in ((X, 1), (Y, 2)) if mat is not None],
                "offset": list(self.offset), "active": self.active,
                "bar0": self.bar0, "bar1": self.bar1, "X0": self.X0, "X1": self.X1,
                "Y0": self.Y0, "Y1": self.Y1}

    def to_dict(self) -> dict:
        """Return the constraint as plain JSON-ready data (read back by :meth:`from_dict`)."""
        return {"bar0": self.bar0, "bar1": self.bar1, "X0": self.X0, "X1": self.X1,
                "Y0": self.Y0, "Y1": self.Y1, "offset": list(self.offset),
                "velocity_level": self.velocity_level, "active": self.active, "name": self.name}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> CoordinateConstraint:
        """Build the constraint from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        values = [field(d, key, where) for key in ("bar0", "bar1", *_MATRICES)]
        offset = list_field(d, "offset", where)
        flags = [field(d, key, where) for key in ("velocity_level", "active")]
        name = check_name(field(d, "name", where), ctx.names, f"{where}.name")
        try:  # the checks of the API, so that a file holds only what the API accepts
            return cls.create(*values, offset, *flags, name, ctx.n_bars)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{where}: {exc}") from None
