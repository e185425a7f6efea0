r"""Pin joint: points of two or more bars kept coincident.

A joint of bars :math:`b_0, b_1, \ldots` at local coordinates :math:`s_0, s_1, \ldots` gives,
for every :math:`k \ge 1`, the rows

.. math:: p_{b_k}(s_k) - p_{b_0}(s_0) = 0 \qquad (x \text{ and } y),

with :math:`p_i(s) = (x_i, y_i) + sL_i(\cos θ_i, \sin θ_i)`. Their multipliers
:math:`(\lambda_{k,x}, \lambda_{k,y})` are the force the joint exerts on bar :math:`b_k` at
its joint point, and :math:`-\sum_k \lambda_k` the force on bar :math:`b_0` (global frame,
newtons for SI data). Parameters: :math:`s_k L_{b_k}` per bar (``("joint", j, k, "sL")``).
The rows are labelled with the joint's name and the bar: ``"joint2.bar3.x"``.

A *centre pin* joins two bodies at both their centres (:math:`s = 0` on each, the pin at the
centre of a scissor's X): its rows are :math:`x_1 - x_0 = 0`, :math:`y_1 - y_0 = 0` exactly, and
it carries :math:`1/(m_0 + m_1)` (``("joint", j, "inv_mass_sum")``), with which the equations
of motion move the two centres as one (:mod:`quivira.model.centre_pins`). Being a centre pin is
part of the topology, so moving the pin off the centres compiles the equations again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..._repr import short_repr
from .. import monomials as mo
from ..validation import bar_index, check_s
from . import fields
from .base import Constraint, Row, RowContext, shift_bar
from .registry import register


def _as_list(value: Any, what: str) -> list:
    """Return ``value`` as a list (a list, tuple or array; TypeError naming ``what``)."""
    if isinstance(value, (str, bytes, dict, set, frozenset)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{what} must be a list, got {short_repr(value)}")
    return list(value)


@register(rank=200)
@dataclass
class PinJoint(Constraint):
    """A pin joint making the points ``s[k]`` of the bars ``bars[k]`` coincide.

    ``bars`` are two or more distinct bodies (topology: remove the joint and add another to
    change them); ``s`` the local coordinate of the joint point on each, runtime parameters
    (an edit re-simulates without compiling, except that moving a centre pin off the
    centres, or onto them, compiles again).
    """

    bars: list[int] = fields.data("bars", "the joined bodies, two or more")
    s: list[float] = fields.data("s", "the joint point on each body, a local coordinate in "
                                 "[-1/2, 1/2]", topology=False, editable=True)
    name: str | None = fields.name(default=None)

    kind = "joint"
    collection = "joints"
    title = "joint"
    prefix = "joint"
    has_name = True
    named_since = 3

    def check(self, bodies: list, where: str) -> PinJoint:
        """Return the joint with its bars and points checked against each other."""
        bars = _as_list(self.bars, f"{where}.bars")
        ss = _as_list(self.s, f"{where}.s")
        if len(bars) < 2:
            raise ValueError(f"{where}.bars: a joint needs at least two bars, got {len(bars)}")
        if len(ss) != len(bars):
            raise ValueError(f"{where}.s: {len(bars)} bars but {len(ss)} values of s; give one "
                             "s per bar")
        idx = [bar_index(b, len(bodies), f"{where}.bars[{k}]") for k, b in enumerate(bars)]
        if len(set(idx)) != len(idx):
            raise ValueError(f"{where}.bars: the same bar appears twice in {idx}")
        return replace(self, bars=idx,
                       s=[check_s(v, f"{where}.s[{k}]") for k, v in enumerate(ss)])

    @property
    def centre_pin(self) -> bool:
        """Whether the joint pins two bodies at both their centres (see module docstring)."""
        return len(self.bars) == 2 and all(s == 0.0 for s in self.s)

    def bars_used(self) -> tuple[int, ...]:
        """Return the indices of the bodies the joint touches."""
        return tuple(self.bars)

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the joint's runtime parameters ``[(name, value), ...]``."""
        out = [((k, "sL"), s * bars[b].length) for k, (b, s) in enumerate(zip(self.bars, self.s))]
        if self.centre_pin:
            out.append((("inv_mass_sum",), 1.0 / (bars[self.bars[0]].mass
                                                  + bars[self.bars[1]].mass)))
        return out

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the joint."""
        out = {(k, "sL"): [(f"s_{{J{position}.{k}}}", 1), (f"L_{b}", 1)]
               for k, b in enumerate(self.bars)}
        if self.centre_pin:
            b0, b1 = self.bars
            out[("inv_mass_sum",)] = [(f"(m_{b0} + m_{b1})", -1)]
        return out

    def topology(self) -> tuple:
        """Return the joint's part of the topology key (connectivity, never values).

        The name (it labels the rows); a centre pin is marked: its rows and equations are
        written for :math:`s = 0`.
        """
        return (self.name, *self.bars, "centre") if self.centre_pin else (self.name, *self.bars)

    def reindexed(self, removed_bar: int) -> PinJoint | None:
        """Return the joint after bar ``removed_bar`` is deleted (None if it used it)."""
        keep = [(b, s) for b, s in zip(self.bars, self.s) if b != removed_bar]
        if len(keep) < 2:
            return None
        return replace(self, bars=[shift_bar(b, removed_bar) for b, _ in keep],
                       s=[s for _, s in keep])

    def describe(self, position: int) -> str:
        """Return the joint's line in the model summary."""
        pts = ", ".join(f"bar {b} at s = {s:g}" for b, s in zip(self.bars, self.s))
        return f"{self.name}: {pts}"

    def rows(self, ctx: RowContext) -> list[Row]:
        r"""Return the rows :math:`p_k - p_0 = 0` (x, y) for every bar ``k`` after the first.

        :math:`p_k = (x_k + s_k L_k\cos θ_k,\ y_k + s_k L_k\sin θ_k)` is the joint point of bar
        ``k``.
        """
        b0 = self.bars[0]
        out = []
        centre = self.centre_pin  # the centres themselves: no sL terms
        for k in range(1, len(self.bars)):
            bk = self.bars[k]
            for axis, name in ((0, "x"), (1, "y")):
                F = mo.add(ctx.point(bk, None if centre else ctx.par(k, "sL"), axis),
                           ctx.point(b0, None if centre else ctx.par(0, "sL"), axis, -1.0))
                out.append(Row(F, f"{self.name}.bar{bk}.{name}", bk, name))
        return out

    def reaction_terms(self, position: int, rows: list[tuple[int, Row]]) -> list:
        """Return how the joint's multipliers act as forces on the bars."""
        b0 = self.bars[0]
        out = [(("joint", position, b0), None, 0, 0.0)]  # bar b0 listed first
        for col, row in rows:
            axis = 0 if row.axis == "x" else 1
            out.append((("joint", position, row.bar), col, axis, 1.0))
            out.append((("joint", position, b0), col, axis, -1.0))
        return out


def inferred_joints(data: Any, eps: float) -> list[tuple[list[int], list[float]]]:
    """Return the bars and points ``(bars, s)`` of every joint after joints are inferred.

    The model's joints first, in order, each with the bars that meet at its point added;
    then one new joint per point where bars meet in their initial poses (within ``eps``),
    not joined yet. Intersections anywhere along the bars count; bars meeting at one point
    form one joint (no duplicate joints). ``data`` is the model's data; it is not changed.
    """
    import numpy as np

    from ..geometry import first_within, intersections

    joints = [(list(jt.bars), list(jt.s)) for jt in data.of(PinJoint)]
    meets = intersections(data.bars, eps)
    # where each joint is (its first bar's point), one row per joint, in the joints' order
    where = np.empty((len(joints) + len(meets), 2))
    for k, (bars, ss) in enumerate(joints):
        where[k] = data.bars[bars[0]].point(ss[0])
    for P, inc in meets:
        scale = max(1.0, float(np.max(np.abs(P))))
        k = first_within(where[:len(joints)], P, 10 * eps * scale)
        inc = [(b, _snap_s(s)) for b, s in inc]
        if k is None:
            where[len(joints)] = data.bars[inc[0][0]].point(inc[0][1])
            joints.append(([b for b, _ in inc], [s for _, s in inc]))
            continue
        bars, ss = joints[k]
        for b, s in inc:
            if b not in bars:
                bars.append(b)
                ss.append(s)
    return joints


def _snap_s(s: float, eps: float = 1e-12) -> float:
    """Round a local coordinate within ``eps`` of -0.5, 0 or 0.5 to that value."""
    for v in (-0.5, 0.0, 0.5):
        if abs(s - v) <= eps:
            return v
    return float(s)
