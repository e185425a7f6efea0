r"""Points of bodies in their own frame.

Shared by the joints between any two bodies (weld, distance, body pin, rolling, joint motor).

A point of body :math:`i` is given in the body frame by :math:`(u, v)` (m) relative to the
mass centre; its position and velocity are

.. math::
    p = \begin{pmatrix} x_i + u\cos θ_i - v\sin θ_i \\ y_i + u\sin θ_i + v\cos θ_i
        \end{pmatrix}, \qquad
    \dot p = \begin{pmatrix} \dot x_i - (u\sin θ_i + v\cos θ_i)\,\dot θ_i \\
              \dot y_i + (u\cos θ_i - v\sin θ_i)\,\dot θ_i \end{pmatrix}.

``body`` None is the ground: :math:`(u, v)` are then ground coordinates and :math:`\dot p = 0`.
A point is referred to by a *point reference*: a number ``s`` (the point :math:`(sL, 0)` of the
body's axis, as for bars), a pair ``(u, v)`` in metres, or the name of an attachment point of a
rigid body. The reference is stored and resolved against the current bodies whenever the
runtime parameters are computed, so a point follows edits of its body.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from typing import Any

from ..._repr import short_repr
from .. import monomials as mo
from ..validation import check_point, check_real, optional_bar
from . import fields
from .base import RowContext, shift_bar


def point_ref(label: str, doc: str = "", *, default: Any = dataclasses.MISSING) -> Any:
    """Declare a point reference (see the module docstring): a runtime field, editable.

    The kind checks it (:func:`check_ref`, :func:`resolve`); the body-frame coordinates it
    resolves to are runtime parameters, so an edit re-simulates without compiling.
    """
    return fields.data(label, doc, topology=False, editable=True, default=default)


def point_poly(ctx: RowContext, body: int | None, u: int, v: int, axis: int,
               sign: float = 1.0) -> mo.Poly:
    """Return ``sign`` times the x (``axis=0``) or y (``axis=1``) coordinate of a body point.

    As a poly; ``u``, ``v`` are the indices of its parameters.
    """
    if body is None:
        return mo.constant(sign, u if axis == 0 else v)
    c, s = ctx.cos(body), ctx.sin(body)
    if axis == 0:
        return mo.add(mo.monomial((ctx.q(3 * body),), sign), mo.monomial((c,), sign, u),
                      mo.monomial((s,), -sign, v))
    return mo.add(mo.monomial((ctx.q(3 * body + 1),), sign), mo.monomial((s,), sign, u),
                  mo.monomial((c,), sign, v))


def point_velocity_poly(ctx: RowContext, body: int | None, u: int, v: int, axis: int,
                        sign: float = 1.0) -> mo.Poly:
    """``sign`` times the x or y velocity of a body point as a poly (0 for ground)."""
    if body is None:
        return {}
    c, s, om = ctx.cos(body), ctx.sin(body), ctx.v(3 * body + 2)
    if axis == 0:
        return mo.add(mo.monomial((ctx.v(3 * body),), sign), mo.monomial((s, om), -sign, u),
                      mo.monomial((c, om), -sign, v))
    return mo.add(mo.monomial((ctx.v(3 * body + 1),), sign), mo.monomial((c, om), sign, u),
                  mo.monomial((s, om), -sign, v))


def angle_poly(ctx: RowContext, body: int | None, sign: float = 1.0) -> mo.Poly:
    """``sign`` times the angle of a body (0 for ground)."""
    return {} if body is None else mo.monomial((ctx.q(3 * body + 2),), sign)


def check_ref(ref: Any, what: str) -> Any:
    """Validate a point reference as stored (JSON-ready).

    A float ``s``, a list ``[u, v]`` or a name.
    """
    if isinstance(ref, str):
        if not ref:
            raise ValueError(f"{what}: a point name must not be empty")
        return ref
    if isinstance(ref, numbers.Real) and not isinstance(ref, bool):
        return check_real(ref, what)
    return list(check_point(ref, what))


def resolve(bars: list, body: int | None, ref: Any, what: str) -> tuple[float, float]:
    """Body-frame coordinates ``(u, v)`` of a reference (ground coordinates for ground)."""
    if body is None:
        if isinstance(ref, str) or isinstance(ref, numbers.Real):
            raise ValueError(f"{what}: a ground point is a pair (x, y), got {short_repr(ref)}")
        return check_point(ref, what)
    return tuple(bars[body].local_point(ref, what))


def world(bars: list, body: int | None, uv: tuple[float, float]) -> tuple[float, float]:
    """Return the initial position of a resolved point."""
    if body is None:
        return uv
    if bars[body].pose is None:
        raise ValueError(f"body {body} has no initial pose yet; set it first")
    return bars[body].world(*uv)


def local_at(bars: list, body: int | None, P: tuple[float, float]) -> tuple[float, float]:
    """Return the body-frame coordinates ``(u, v)`` of the ground point ``P`` (initial pose).

    The inverse of :func:`world`; the ground's coordinates of ``P`` are ``P``.
    """
    if body is None:
        return P
    if bars[body].pose is None:
        raise ValueError(f"body {body} has no initial pose yet; set it first")
    x, y, th = bars[body].pose
    c, s = math.cos(th), math.sin(th)
    dx, dy = P[0] - x, P[1] - y
    return (c * dx + s * dy, -s * dx + c * dy)


def body_of(value: Any, bars: list, what: str, *, rotating: bool = False,
            ground: bool = True) -> int | None:
    """Validate a body index (None for ground when allowed); ``rotating``: not a particle."""
    if value is None and not ground:
        raise TypeError(f"{what} must be a body index (ground is not allowed here)")
    i = optional_bar(value, len(bars), what)
    if rotating and i is not None and not bars[i].rotates:
        raise ValueError(f"{what}: body {i} is a particle, which has no angle; use a bar or a "
                         "rigid body here")
    return i


def shifted(body: int | None, removed: int) -> int | None:
    """Return a body index after ``removed`` is deleted (None stays None)."""
    return None if body is None else shift_bar(body, removed)


def ref_text(body: int | None, ref: Any) -> str:
    """Return a point's text for the model summary."""
    if body is None:
        return f"ground ({ref[0]:.4g}, {ref[1]:.4g})"
    if isinstance(ref, str):
        return f"body {body} point {ref!r}"
    if isinstance(ref, numbers.Real):
        return f"body {body} at s = {ref:g}"
    return f"body {body} at ({ref[0]:.4g}, {ref[1]:.4g})"


class TwoBodies:
    """Mixin of the elements between ``body_a`` (None: the ground) and ``body_b``.

    Weld, distance, body pin, rolling on a disc, joint motor: the bodies used, and the
    element after a body is deleted.
    """

    def bars_used(self) -> tuple[int, ...]:
        """Return the indices of the bodies the element touches."""
        return tuple(i for i in (self.body_a, self.body_b) if i is not None)

    def topology(self) -> tuple:
        """Return the element's part of the topology key (connectivity, never values)."""
        return (self.name, self.body_a, self.body_b)

    def check_pair(self, bodies: list, where: str, *, rotating: bool = False) -> None:
        """Check that the two bodies differ; with ``rotating``, that neither is a particle.

        ValueError naming ``where``; the indices themselves are checked as declared.
        """
        if self.body_a is not None and self.body_a == self.body_b:
            raise ValueError(f"{where}: body_a and body_b are the same body ({self.body_b})")
        if rotating:
            for f in ("body_a", "body_b"):
                body_of(getattr(self, f), bodies, f"{where}.{f}", rotating=True)

    def reindexed(self, removed_bar: int):
        """Return the element after bar ``removed_bar`` is deleted (None if it used it)."""
        if removed_bar in self.bars_used():
            return None
        c = self.copy()
        c.body_a, c.body_b = shifted(self.body_a, removed_bar), shifted(self.body_b, removed_bar)
        return c


def coincidence_rows(ctx: RowContext, body_a: int | None, body_b: int,
                     label: str) -> list:
    """Return the rows :math:`p_b - p_a = 0` (x, y) of two body points.

    Their coordinates are the element's parameters ``ua, va, ub, vb`` (a pin; the position
    part of a weld); the rows are labelled ``<label>.x`` and ``<label>.y``.
    """
    from .base import Row

    ua, va, ub, vb = (ctx.par(k) for k in ("ua", "va", "ub", "vb"))
    out = []
    for axis, name in ((0, "x"), (1, "y")):
        F = mo.add(point_poly(ctx, body_b, ub, vb, axis),
                   point_poly(ctx, body_a, ua, va, axis, -1.0))
        out.append(Row(F, f"{label}.{name}", body_b, name))
    return out
