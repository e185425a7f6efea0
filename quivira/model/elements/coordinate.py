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
Row ``r`` is labelled ``"<name>.row<r>"``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .. import monomials as mo
from ..validation import real_array
from . import fields
from .base import Constraint, Row, RowContext, shift_bar
from .registry import register

_MATRICES = ("X0", "X1", "Y0", "Y1")


def _matrix(mat: Any, where: str, key: str, bar: int | None) -> np.ndarray | None:
    """Return the scaling matrix ``key`` as a 2-D array (None if empty); ``where`` names it."""
    if mat is None:
        return None
    what = f"{where}.{key}"
    arr = real_array(mat, what, "a numeric matrix")
    if arr.size == 0:
        return None
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"{what}: expected a 2-D matrix, got shape {arr.shape}")
    if bar is None:
        m = key[-1]
        raise ValueError(f"{what}: marker {m} is ground (bar{m} = None), so {key} must be "
                         f"empty or None, got shape {arr.shape}")
    if arr.shape[1] != 3:
        raise ValueError(f"{what}: expected 3 columns (x, y, θ of bar {bar}), got shape "
                         f"{arr.shape}")
    return arr


def check_offset(offset: Any, n_rows: int, what: str = "offset") -> list[float]:
    """One finite offset per row, each within the limit of every number of the model."""
    arr = real_array(offset, what, f"{n_rows} numbers").reshape(-1)
    if arr.shape[0] != n_rows:
        raise ValueError(f"{what}: expected {n_rows} values (one per equation), got "
                         f"{arr.shape[0]}")
    return arr.tolist()


@register(rank=400)
@dataclass
class CoordinateConstraint(Constraint):
    """A coordinate-vector constraint (see the module docstring).

    :math:`X_1 q_1 + Y_1 q_1^2 - X_0 q_0 - Y_0 q_0^2 - v_{off} = 0`; ``None`` for a bar means
    ground, empty matrices are ``None``. The bars, matrices and level are topology; the
    offset and the ``active`` flag are runtime parameters (no recompiling).
    """

    bar0: int | None = fields.body("bar0", "the body of marker 0 (None: the ground, q = 0)",
                                   ground=True)
    bar1: int | None = fields.body("bar1", "the body of marker 1 (None: the ground, q = 0)",
                                   ground=True)
    X0: list | None = fields.data("X0", "linear scaling matrix of marker 0, 3 columns",
                                  default=None)
    X1: list | None = fields.data("X1", "linear scaling matrix of marker 1, 3 columns",
                                  default=None)
    Y0: list | None = fields.data("Y0", "quadratic scaling matrix of marker 0, 3 columns",
                                  default=None)
    Y1: list | None = fields.data("Y1", "quadratic scaling matrix of marker 1, 3 columns",
                                  default=None)
    offset: list | None = fields.data("offset", "v_off, one value per row (None: zeros); m or "
                                      "rad, at velocity level m/s or rad/s", topology=False,
                                      editable=True, default=None)
    velocity_level: bool = fields.flag("velocity level", "constrain the velocities instead",
                                       topology=True, default=False)
    active: bool = fields.flag("active", "the rows are switched on (off: λ = 0, no "
                               "recompiling)", default=True)
    name: str | None = fields.name(default=None)

    kind = "cc"
    collection = "coordinate_constraints"
    title = "coordinate constraint"
    prefix = "coordinate"
    named = True
    has_name = True
    switchable = True

    @property
    def n_rows(self) -> int:
        """Number of equations."""
        return len(self.offset)

    def check(self, bodies: list, where: str) -> CoordinateConstraint:
        """Return the constraint with its matrices and offset checked against its markers.

        Empty matrices become None, the others lists of rows; the offset None becomes zeros.
        """
        b0, b1 = self.bar0, self.bar1
        if b0 is None and b1 is None:
            raise ValueError(f"{where}: bar0 and bar1 are both ground (None); give at least "
                             "one bar")
        if b0 is not None and b0 == b1:
            raise ValueError(f"{where}: bar0 and bar1 are the same bar ({b0}); use a "
                             "UserConstraint for relations within one bar")
        mats = {k: _matrix(getattr(self, k), where, k, b0 if k.endswith("0") else b1)
                for k in _MATRICES}
        rows = {k: v.shape[0] for k, v in mats.items() if v is not None}
        if not rows:
            raise ValueError(f"{where}: X0, X1, Y0 and Y1 are all empty: the constraint has no "
                             "equations")
        n_rows = max(rows.values())
        for key, r in rows.items():
            if r != n_rows:
                raise ValueError(f"{where}.{key}: has {r} rows but another scaling matrix has "
                                 f"{n_rows}; all non-empty matrices need the same number of rows")
        off = ([0.0] * n_rows if self.offset is None
               else check_offset(self.offset, n_rows, f"{where}.offset"))
        return replace(self, offset=off,
                       **{k: None if m is None else m.tolist() for k, m in mats.items()})

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
            out.append(Row(mo.add(*terms), f"{self.name}.row{r}", None, r,
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
