r"""Internal forces along the bars: axial force N(s), shear V(s), bending moment M(s).

Every bar is cut at the point :math:`x = sL` of its axis (:math:`x` from the centre, bar frame
:math:`e = (\cos θ, \sin θ)`, :math:`n = (-\sin θ, \cos θ)`). The part
:math:`[-L/2, x]` carries

* the point actions on the bar at :math:`x_j \le x`: forces :math:`F_j` and couples
  :math:`C_j` of the joints and supports (from the multipliers: row :math:`k` gives the
  generalized force :math:`\lambda_k J_k` on the bar's :math:`(x, y, θ)`), of the loads
  (point loads, springs, actuators: their generalized forces);
* the distributed gravity and d'Alembert inertia, per unit length
  :math:`μ(g - a(ξ))` with :math:`μ = m/L` and
  :math:`a(ξ) = a_c + ξ(\ddot θ\,n - \dot θ^2 e)`.

With :math:`R_L` and :math:`M_L` their resultant and their moment about the cut point
(counter-clockwise), the internal force the rest of the bar exerts on the part is
:math:`-R_L`, and

.. math::
    N = -R_L\cdot e, \qquad V = R_L\cdot n, \qquad M = -M_L,

i.e. beam-theory signs in the bar frame: :math:`N > 0` tension, :math:`dM/dx = V`, and
:math:`M > 0` sagging for a bar along +x under a downward load. Values at :math:`x` include
point actions at :math:`x` (limits from the right), so at :math:`s = 0.5` N, V and M vanish
exactly when the bar's own balance :math:`m a_c = \sum F`, :math:`I\ddot θ = \sum M` holds
(a free end is zero for the true multipliers only).

Where an action sits on the bar: a joint, support, knife edge, slider or load at its own
point ``s``; a spring at its end on that bar; a slot on the bar where the force's line of
action crosses the axis; a torsional spring or a torque between two bars at their common
joint if they share one (against the ground: at the bar's pin support, if it has one);
anything else (coordinate or user constraints) at the centre, as a force and a couple.

Models may contain other bodies (particles, rigid bodies): they get no diagram.

Where the multipliers are not all determined by rigid-body mechanics (a statically
indeterminate model: states of self-stress, :mod:`quivira.model.determinacy`), the diagrams
of the bars that a row with an indeterminate multiplier touches are one choice among many:
they are listed in :attr:`InternalForces.indeterminate_bars` (a bar in it may still have
parts of its diagram that are determined, e.g. outside the span between two redundant pins).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import heyoka as hy
import numpy as np

from .._entries import as_expression
from .._repr import short_repr
from .compiled import N_ENERGY, CompiledSystem, _batch
from .data import ModelData
from .elements import BY_KIND, Load, RowContext
from .elements.base import is_expression
from .symbolic import parameter_layout

__all__ = ["BarDiagram", "InternalForces", "internal_forces"]


# ----------------------------------------------------------------------------- loads
def _load_function(data: ModelData, cs: CompiledSystem):
    """Compile the generalized force of every load element on every coordinate.

    Cached on ``cs``: ``(cfunc of (q, qd, t) -> [Q_e,j ...], [(element key, coordinate j),
    ...])``.
    """
    key = "internal_forces_loads"
    if key in cs.extra:
        return cs.extra[key]
    layout = parameter_layout(data)
    index = {k: i for i, (k, _) in enumerate(layout)}
    n_bars = len(data.bars)
    try:
        from .symbolic import CoordinateMap
        cmap = CoordinateMap(data)
    except ImportError:  # pragma: no cover - before bodies of other kinds existed
        cmap = None
    q, qd = list(cs.q), list(cs.qd)
    factors: dict[str, hy.expression] = {}
    offsets = _offsets(data)
    for i, b in enumerate(data.bars):
        if _rotates(b):
            th = q[offsets[i] + 2]
            factors[f"c{i}"], factors[f"s{i}"] = hy.cos(th), hy.sin(th)
    for j in range(len(q)):
        factors[f"q{j}"], factors[f"v{j}"] = q[j], qd[j]

    def expr(p) -> hy.expression:
        if is_expression(p):
            return p
        terms = []
        for atom in sorted(p):
            for pars, c in sorted(p[atom].items()):
                if c == 0.0:
                    continue
                e = hy.expression(c)
                for i in pars:
                    e = e * hy.par[i]
                for f in atom:
                    e = e * factors[f]
                terms.append(e)
        if not terms:
            return hy.expression(0.0)
        return terms[0] if len(terms) == 1 else hy.sum(terms)

    exprs, owners = [], []
    for kind, pos, el in data.items():
        if not issubclass(kind, Load):
            continue
        ctx = RowContext(index, kind.kind, pos, None, n_bars)
        name = el.label_prefix(pos)
        per_j: dict[int, list] = {}
        for j, term in el.generalized_forces(ctx):
            if cmap is not None:
                jj = cmap.index(j)
                if jj is None:
                    continue
                term = cmap.term(term, name)
                j = jj
            per_j.setdefault(j, []).append(as_expression(expr(term)))
        for j, ts in per_j.items():
            exprs.append(ts[0] if len(ts) == 1 else hy.sum(ts))
            owners.append(((kind, pos), j))
    if exprs:
        cf = hy.cfunc(exprs, vars=[*q, *qd], **cs.cfunc_options)
    else:
        cf = None
    cs.extra[key] = (cf, owners)
    return cs.extra[key]


def _offsets(data: ModelData) -> list[int]:
    if hasattr(data, "offsets"):
        return data.offsets()
    return [3 * i for i in range(len(data.bars))]  # pragma: no cover - bars only


def _rotates(body) -> bool:
    return bool(getattr(body, "rotates", True))


def _is_bar(body) -> bool:
    return getattr(body, "body_kind", "bar") == "bar" and _rotates(body)


def _real(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _point_of(el, bar: int) -> float | None:
    """Local coordinate ``s`` of the element's own point on ``bar`` (None if it has none)."""
    bars, ss = getattr(el, "bars", None), getattr(el, "s", None)
    if isinstance(bars, list) and isinstance(ss, list) and bar in bars:
        v = ss[bars.index(bar)]
        return float(v) if _real(v) else None
    for b_attr, s_attr in (("bar", "s"), ("bar_a", "s_a"), ("bar_b", "s_b")):
        if getattr(el, b_attr, None) == bar:
            v = getattr(el, s_attr, None)
            if _real(v):
                return float(v)
    return None


def _common_joint(data: ModelData, el, bar: int) -> float | None:
    """Return ``s`` on ``bar`` of a pin joint shared with the element's other bar.

    Or of the bar's pin support when the element acts against the ground (couples of
    torsional springs and torques).
    """
    from .elements import PinJoint, Support

    attrs = [a for a in ("bar", "bar_a", "bar_b") if hasattr(el, a)]
    others = {getattr(el, a) for a in attrs} - {bar}
    for jt in data.of(PinJoint):
        if bar in jt.bars and any(o in jt.bars for o in others if o is not None):
            v = jt.s[jt.bars.index(bar)]
            return float(v) if _real(v) else None
    if None in others:  # against the ground: at the bar's pin support
        for sp in data.of(Support):
            if sp.bar == bar and not (sp.free_x or sp.free_y) and _real(sp.s):
                return float(sp.s)
    return None


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class BarDiagram:
    """N, V, M of one bar (see :class:`InternalForces`)."""

    bar: int
    s: np.ndarray
    x: np.ndarray
    N: np.ndarray
    V: np.ndarray
    M: np.ndarray
    #: False when the diagram depends on indeterminate multipliers (one choice among many)
    determinate: bool = True


@dataclass(frozen=True)
class InternalForces:
    """Axial force, shear force and bending moment along the bars, at one or more instants.

    Attributes
    ----------
    t : numpy.ndarray (k,)
        Times of the frames (s).
    s : numpy.ndarray (p,)
        Local coordinates of the sections, in [-0.5, 0.5].
    bars : list of int
        The bars (bodies that are bars).
    lengths : numpy.ndarray
        Their lengths (m); a section is at :math:`x = sL` from the centre.
    N, V, M : numpy.ndarray (k, len(bars), p)
        Axial force (N, tension positive), shear force (N) and bending moment (N·m), in the
        bar frame (see the module docstring for the signs).
    indeterminate_bars : list of int
        The bars whose diagrams depend on multipliers that rigid-body mechanics does not
        determine (see the module docstring): their N, V, M are one choice among many.
    """

    t: np.ndarray
    s: np.ndarray
    bars: list
    lengths: np.ndarray
    N: np.ndarray
    V: np.ndarray
    M: np.ndarray
    indeterminate_bars: list = field(default_factory=list)

    def note(self) -> str:
        """One line naming the bars with indeterminate diagrams ("" if there are none)."""
        if not self.indeterminate_bars:
            return ""
        return ("bars " + ", ".join(map(str, self.indeterminate_bars)) + ": N, V, M depend on "
                "indeterminate multipliers (statically indeterminate; one choice among many)")

    def _k(self, bar: int) -> int:
        try:
            return self.bars.index(bar)
        except ValueError:
            raise KeyError(f"bar {short_repr(bar)} has no diagram; bars are {self.bars}") from None

    def bar(self, bar: int, frame: int = 0) -> BarDiagram:
        """Return the diagram of one bar at one frame."""
        k = self._k(bar)
        return BarDiagram(bar, self.s.copy(), self.s * self.lengths[k], self.N[frame, k].copy(),
                          self.V[frame, k].copy(), self.M[frame, k].copy(),
                          bar not in self.indeterminate_bars)

    def max_abs_N(self) -> dict[int, float]:
        """Largest :math:`|N|` (N) of each bar over all frames and sections."""
        return {b: float(np.max(np.abs(self.N[:, k]))) for k, b in enumerate(self.bars)}

    def max_abs_M(self) -> dict[int, float]:
        """Largest :math:`|M|` (N·m) of each bar over all frames and sections."""
        return {b: float(np.max(np.abs(self.M[:, k]))) for k, b in enumerate(self.bars)}

    def max_abs_V(self) -> dict[int, float]:
        """Largest :math:`|V|` (N) of each bar over all frames and sections."""
        return {b: float(np.max(np.abs(self.V[:, k]))) for k, b in enumerate(self.bars)}

    def axial_centre(self) -> np.ndarray:
        """N at the centre (s = 0, or the nearest section) of each bar per frame, (k, bars)."""
        j = int(np.argmin(np.abs(self.s)))
        return self.N[:, :, j].copy()

    def to_pandas(self):
        """Return a long table: one row per frame, bar and section.

        Columns ``t``, ``bar``, ``s``, ``x``, ``N``, ``V``, ``M``;
        ``df.attrs["indeterminate_bars"]`` (see :attr:`indeterminate_bars`) and
        ``df.attrs["determinacy"]`` (:meth:`note`).
        """
        import pandas as pd

        k, nb, p = self.N.shape
        t = np.repeat(self.t, nb * p)
        bars = np.tile(np.repeat(np.array(self.bars, dtype=int), p), k)
        s = np.tile(self.s, k * nb)
        x = np.tile((self.lengths[:, None] * self.s[None, :]).ravel(), k)
        df = pd.DataFrame({"t": t, "bar": bars, "s": s, "x": x, "N": self.N.ravel(),
                           "V": self.V.ravel(), "M": self.M.ravel()})
        df.attrs["indeterminate_bars"] = list(self.indeterminate_bars)
        df.attrs["determinacy"] = self.note()
        return df

def _row_bars(data: ModelData, cs: CompiledSystem) -> list[list[int]]:
    """Return, per constraint row, the bars (with an angle) its Jacobian row touches.

    Structural pattern, cached on ``cs``.
    """
    key = "internal_forces_row_bars"
    if key not in cs.extra:
        owner = {}
        for i, (o, b) in enumerate(zip(_offsets(data), data.bars)):
            if _is_bar(b):
                for j in range(o, o + 3):
                    owner[j] = i
        rows: list[set] = [set() for _ in range(cs.m)]
        for k, j in cs.J_pattern:
            if j in owner:
                rows[k].add(owner[j])
        cs.extra[key] = [sorted(r) for r in rows]
    return cs.extra[key]


class _Actions:
    """Point actions on the bars at all frames.

    Per bar a list of ``(x, F, C)`` with ``x`` (k,) the position along the bar, ``F`` (k, 2)
    the force, ``C`` (k,) the couple.
    """

    def __init__(self, data: ModelData, q: np.ndarray, bars: list[int]) -> None:
        self.data = data
        self.offsets = _offsets(data)
        self.acts: dict[int, list] = {i: [] for i in bars}
        self.e, self.n = {}, {}
        for i in bars:
            th = q[:, self.offsets[i] + 2]
            self.e[i] = np.column_stack([np.cos(th), np.sin(th)])
            self.n[i] = np.column_stack([-np.sin(th), np.cos(th)])

    def place(self, i: int, g: np.ndarray, el) -> None:
        """Place the generalized force ``g`` (k, 3) of ``el`` on bar ``i``.

        See the module docstring for where.
        """
        L = self.data.bars[i].length
        F, tau = g[:, :2], g[:, 2]
        Fn = np.sum(F * self.n[i], axis=1)
        s_own = _point_of(el, i)
        if s_own is not None:
            x = np.full(g.shape[0], s_own * L)
        else:
            normF = np.linalg.norm(F, axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                x_line = np.where(Fn != 0.0, tau / np.where(Fn != 0.0, Fn, 1.0), 0.0)
            on_axis = (np.abs(Fn) > 1e-12 * np.maximum(normF, 1e-300)) & (
                np.abs(x_line) <= 0.5 * L * (1 + 1e-9))
            sj = _common_joint(self.data, el, i)
            x_couple = 0.0 if sj is None else sj * L
            x = np.where(on_axis, x_line, np.where(normF == 0.0, x_couple, 0.0))
        self.acts[i].append((x, F, tau - x * Fn))


def _diagrams(L: float, mass: float, g: float, e: np.ndarray, n: np.ndarray, acc: np.ndarray,
              om: np.ndarray, alpha: np.ndarray, acts: list, s: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Compute N, V, M ``(k, p)`` at the sections ``s`` of one bar in all frames.

    See the module docstring: ``e``, ``n`` (k, 2) are its axes, ``acc`` (k, 2) the centre's
    acceleration, ``om``, ``alpha`` (k,) its angular velocity and acceleration.
    """
    x = s * L
    mu = mass / L
    ell = x + 0.5 * L
    I1 = 0.5 * (x ** 2 - 0.25 * L ** 2)
    I2 = -x ** 3 / 6 + L ** 3 / 24 + x * L ** 2 / 8
    b = np.array([0.0, -g])[None, :] - acc  # per unit mass: gravity minus the acceleration
    rot = alpha[:, None] * n - (om ** 2)[:, None] * e  # a(ξ) - a_c = ξ · rot
    R = mu * (ell[None, :, None] * b[:, None, :] - I1[None, :, None] * rot[:, None, :])
    bn = np.sum(b * n, axis=1)
    ML = mu * (-bn[:, None] * (ell ** 2 / 2)[None, :] - alpha[:, None] * I2[None, :])
    eps = 1e-12 * L
    for xj, F, C in acts:
        inc = (xj[:, None] <= x[None, :] + eps).astype(float)
        R += inc[:, :, None] * F[:, None, :]
        Fn = np.sum(F * n, axis=1)
        ML += inc * ((xj[:, None] - x[None, :]) * Fn[:, None] + C[:, None])
    N = -np.einsum("kpa,ka->kp", R, e)
    V = np.einsum("kpa,ka->kp", R, n)
    return N, V, -ML


def internal_forces(data: ModelData, cs: CompiledSystem, pars: np.ndarray, t: np.ndarray,
                    q: np.ndarray, qd: np.ndarray, qdd: np.ndarray, lam: np.ndarray,
                    s: np.ndarray, bars: list[int] | None = None,
                    determinate: np.ndarray | None = None) -> InternalForces:
    """Compute N, V, M of ``bars`` (default: every bar) at the given states.

    States ``(q, qd)`` with accelerations ``qdd`` and multipliers ``lam`` (all rows), shapes
    ``(k, n)``/``(k, m)``; every frame at once (compiled functions on all states, numpy over
    frames and sections).

    Parameters
    ----------
    data : ModelData
        The model data (loads, masses, g) of the states.
    cs : CompiledSystem
        Its compiled system.
    pars : numpy.ndarray
        Its runtime parameters.
    t : numpy.ndarray (k,)
        Times (actuator laws, driven constraints).
    q, qd, qdd : numpy.ndarray (k, n)
        Coordinates, velocities, accelerations.
    lam : numpy.ndarray (k, m)
        Multipliers.
    s : numpy.ndarray (p,)
        Sections, in [-0.5, 0.5].
    bars : list of int, optional
        The bars wanted.
    determinate : numpy.ndarray of bool (m,), optional
        Per row, whether its multiplier is determinate (default: all): the bars a row that is
        not touches make :attr:`InternalForces.indeterminate_bars`.
    """
    all_bars = [i for i, b in enumerate(data.bars) if _is_bar(b)]
    bars = all_bars if bars is None else list(bars)
    offsets = _offsets(data)
    k = q.shape[0]
    t = np.broadcast_to(np.asarray(t, dtype=float), (k,)).copy()
    states = np.hstack([q, qd])
    acts = _Actions(data, q, bars)
    wanted = set(bars)
    # constraint forces: λ_k J_k on the bars each row touches
    if cs.m and k:
        col = cs.assembly.collected
        m, o = cs.m, N_ENERGY
        Jvals = _batch(cs.outputs, states, pars, t)[:, 2 * m + o:2 * m + o + len(cs.J_pattern)]
        per: dict[tuple, np.ndarray] = {}
        for p, (row, j) in enumerate(cs.J_pattern):
            for i in _row_bars(data, cs)[row]:
                if i in wanted and offsets[i] <= j < offsets[i] + 3:
                    g = per.setdefault((row, i), np.zeros((k, 3)))
                    g[:, j - offsets[i]] += lam[:, row] * Jvals[:, p]
        for (row, i), g in per.items():
            if np.any(g != 0.0):
                kind_key, pos = col.owners[row][:2]
                el = data.elements[BY_KIND[kind_key].collection][pos]
                acts.place(i, g, el)
    # loads: the generalized force of each element on each bar
    cf, owners = _load_function(data, cs)
    if cf is not None and k:
        kw = {"time": t.copy()} if cf.is_time_dependent else {}
        loads = cf(np.ascontiguousarray(states.T),
                   pars=np.repeat(pars[: cf.nparams, None], k, axis=1), **kw).T
        per = {}
        for c, ((kind, pos), j) in enumerate(owners):
            for i in bars:
                if offsets[i] <= j < offsets[i] + 3:
                    per.setdefault((kind, pos, i), np.zeros((k, 3)))[:, j - offsets[i]] += \
                        loads[:, c]
        for (kind, pos, i), g in per.items():
            if np.any(g != 0.0):
                acts.place(i, g, data.elements[kind.collection][pos])
    N = np.zeros((k, len(bars), s.shape[0]))
    V, M = np.zeros_like(N), np.zeros_like(N)
    for kb, i in enumerate(bars):
        o = offsets[i]
        b = data.bars[i]
        N[:, kb], V[:, kb], M[:, kb] = _diagrams(
            b.length, b.mass, data.g, acts.e[i], acts.n[i], qdd[:, o:o + 2], qd[:, o + 2],
            qdd[:, o + 2], acts.acts[i], s)
    for arr in (N, V, M):
        if not np.all(np.isfinite(arr)):
            raise ValueError("internal forces: non-finite values (the states or multipliers "
                             "are not finite)")
    flagged: set = set()
    if determinate is not None:
        row_bars = _row_bars(data, cs)
        for row in np.nonzero(~np.asarray(determinate, dtype=bool))[0]:
            flagged.update(row_bars[row])
    return InternalForces(t=t, s=s.copy(), bars=bars,
                          lengths=np.array([data.bars[i].length for i in bars]), N=N, V=V, M=M,
                          indeterminate_bars=[i for i in bars if i in flagged])
