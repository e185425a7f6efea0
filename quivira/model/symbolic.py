r"""The equations of a bar model as written by its bodies and elements.

For bodies ``i`` with coordinates :math:`(x_i, y_i, θ_i)` of their mass centres (a particle
has :math:`(x_i, y_i)` only) the Lagrangian is

.. math::
    \mathcal L = \sum_i \tfrac12 m_i (\dot x_i^2 + \dot y_i^2)
                 + \tfrac12 I_i \dot θ_i^2 - m_i g y_i,

with :math:`I_i = m_i L_i^2/12` for a bar and the given inertia of a rigid body (no angle
term for a particle). Elements write their rows in a layout of 3 coordinates per body;
:class:`CoordinateMap` maps them to the model's coordinates when there are particles.
Every element adds constraint rows or generalized forces, defined once in its class
(:mod:`quivira.model.elements`) as sums of monomials. This module collects them:

* :func:`parameter_layout` — the runtime parameter vector (``hy.par`` order): g, the bars'
  parameters, every element's parameters in registry order, the Baumgarte rate last;
* :func:`topology_key` — what compiled code depends on;
* :func:`collect` — rows, loads and energies as monomials, with labels, owners and the reaction
  map: the input of the fast assembly (:mod:`quivira.model.assembly`);
* :func:`build_symbolic` — the same turned into heyoka expressions term by term, for
  :func:`quivira.lagrangian.assemble_eom` (``build_lagrange_eom``, ``mass_matrix_forms``),
  with data as runtime parameters or as constants.

A switchable constraint (one with an ``active`` parameter :math:`a`) has its rows multiplied
by :math:`a` and :math:`1 - a` added to its diagonal entry of :math:`W`: switched off, a row
reads :math:`\lambda_k = 0`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import heyoka as hy

from .._entries import as_expression, is_zero
from . import monomials as mo
from .data import ModelData
from .elements import KINDS, Constraint, Load, Row, RowContext
from .elements.base import is_expression

#: default threshold of the singularity monitor (a pivot ratio of W)
DEFAULT_SINGULAR_THRESHOLD = 1e-8


#: the run's own parameters (set by ``simulate`` or derived from the whole model, not edited
#: as the model's data)
RUN_PARAMETERS = ("diagonal_scale", "singular_release", "singular_threshold", "event_gap",
                  "release_force", "window_keep", "window_t0", "window_accel", "stabilization")


#: a unilateral row (contact, stop) closes when its gap falls through -EVENT_GAP times the
#: length scale ``max(ℓ, 1)``, not through 0: a gap that starts at 0 (a contact just released,
#: or just left after an impact) hovers there by rounding, and heyoka would see a crossing of 0
#: at every step. 1e-13·ℓ is some 500 roundings of a position and far below any physical gap.
EVENT_GAP = 1e-13
#: a closed unilateral row releases when its force falls through -RELEASE_FORCE times the
#: model's weight :math:`|g|\sum m_i`, not through 0, for the same reason: a force that starts
#: at 0 (a contact that just closed at rest with nothing to carry yet) hovers there by rounding
RELEASE_FORCE = 1e-12


def parameter_layout(data: ModelData) -> list[tuple[tuple, float]]:
    r"""``[(key, value), ...]``: the runtime parameters of ``data`` in ``hy.par`` order.

    Keys: ``("g",)``, ``("bar", i, name)``, ``(kind, index, *name)`` of the elements, then
    the run's own: ``("diagonal_scale",)`` (1 + ε of the regularization :math:`W + ε\,
    \mathrm{diag}(W)` used across singular poses, 1 otherwise), ``("singular_release",)`` and
    ``("singular_threshold",)`` (the singularity monitor's thresholds, set by ``simulate``),
    ``("event_gap",)`` and ``("release_force",)`` (the offsets of the events of unilateral
    rows, :data:`EVENT_GAP` and :data:`RELEASE_FORCE`), the window across singular poses
    (:func:`window_layout`) and ``("stabilization",)`` last.
    The compiled equations add further parameters computed from these
    (:class:`~quivira.model.monomials.Coefficients`).
    """
    out: list[tuple[tuple, float]] = [(("g",), data.g)]
    for i, b in enumerate(data.bars):
        out.extend((("bar", i, name), v) for name, v in b.parameters(data.g))
    for kind, pos, el in data.items():
        out.extend(((kind.kind, pos, *name), v) for name, v in el.parameters(data.bars))
    out.append((("diagonal_scale",), 1.0))
    out.append((("singular_release",), -1.0))
    out.append((("singular_threshold",), DEFAULT_SINGULAR_THRESHOLD))
    out.append((("event_gap",), EVENT_GAP * max(data.length_scale(), 1.0)))
    out.append((("release_force",), RELEASE_FORCE * abs(data.g)
                * sum(b.mass for b in data.bars)))
    out.extend(window_layout(data.n_coordinates()))
    out.append((("stabilization",), data.stabilization))
    return out


def window_layout(n: int) -> list[tuple[tuple, float]]:
    r"""Return the parameters of the window across a singular pose (values outside it).

    ``("window_keep",)`` (1: the constraint accelerations :math:`M^{-1}J^T\lambda` are those
    of the solve; 0 inside the window), ``("window_t0",)`` (the window's entry time
    :math:`t_e`) and, per coordinate ``j``, ``("window_accel", j, 0)`` and
    ``("window_accel", j, 1)``: :math:`a_{0j}, a_{1j}` of the constraint acceleration
    :math:`a_{0j} + a_{1j}(t - t_e)` used inside the window (0 outside); see
    :mod:`quivira.model.singular_window`.
    """
    out: list[tuple[tuple, float]] = [(("window_keep",), 1.0), (("window_t0",), 0.0)]
    out.extend((("window_accel", j, k), 0.0) for j in range(n) for k in (0, 1))
    return out


def parameter_symbols(data: ModelData) -> list[list[tuple[str, int]]]:
    """Return the symbol of every runtime parameter, in layout order.

    As factors ``(name, power)`` (e.g. ``[("m_2", -1)]`` for :math:`1/m_2`); empty where
    there is no readable symbol.
    """
    sym: dict[tuple, list] = {("g",): [("g", 1)], ("stabilization",): [("alpha", 1)]}
    for i, b in enumerate(data.bars):
        sym.update({("bar", i, k): v for k, v in b.parameter_symbols(i).items()})
    for kind, pos, el in data.items():
        sym.update({(kind.kind, pos, *k): v
                    for k, v in el.parameter_symbols(pos, data.bars).items()})
    return [sym.get(key, []) for key, _ in parameter_layout(data)]


def topology_key(data: ModelData) -> tuple:
    """Return what the compiled code depends on: counts and connectivity, not numeric values.

    The number of bodies, and the kinds of the bodies when some are not bars.
    """
    head = (len(data.bars),)
    if any(b.body_kind != "bar" for b in data.bars):
        head += (tuple(b.body_kind for b in data.bars),)
    return head + tuple(
        tuple(el.topology() for el in data.elements[kind.collection]) for kind in KINDS)


def _coordinate_counts(bodies) -> list[int]:
    """Return the number of coordinates per body.

    ``bodies`` is a count of bars (3 each), a :class:`ModelData` or a list of bodies.
    """
    if isinstance(bodies, ModelData):
        bodies = bodies.bars
    if isinstance(bodies, int):
        return [3] * bodies
    return [b.n_coordinates for b in bodies]


def coordinate_names(bodies) -> tuple[list[str], list[str]]:
    """Return the variable names of the coordinates and velocities.

    Coordinates ``x_i, y_i, th_i`` and velocities ``vx_i, vy_i, om_i`` (``bodies``: a number
    of bars, a :class:`ModelData` or its bodies; a particle has no ``th_i``/``om_i``).
    """
    q, qd = [], []
    for i, n in enumerate(_coordinate_counts(bodies)):
        q += [f"{c}{i}" for c in ("x", "y", "th")[:n]]
        qd += [f"{c}{i}" for c in ("vx", "vy", "om")[:n]]
    return q, qd


class CoordinateMap:
    r"""From the elements' layout to the model's coordinates.

    Elements write their rows in a layout of 3 coordinates per body (``q{3i+k}``,
    ``v{3i+k}``, ``c{i}``/``s{i}`` for :math:`\cos θ_i`/:math:`\sin θ_i`; variables
    ``x{i}, y{i}, th{i}``). With particles (2 coordinates, no angle) the model's layout differs:
    this maps ``q{3i+k}`` to ``q{o_i+k}`` with :math:`o_i` the body's first coordinate, and for a
    particle sets :math:`θ_i = 0` (its frame is the ground frame: :math:`\cos θ_i = 1`,
    :math:`\sin θ_i = 0`, :math:`\dot θ_i = 0`). An element that uses a particle's angle as
    a coordinate (a torsional spring, an angle lock) is an error naming it. Without particles
    the map is the identity (nothing is rewritten).
    """

    def __init__(self, data: ModelData) -> None:
        self.offsets = data.offsets()
        self.particles = {i for i, b in enumerate(data.bars) if not b.rotates}
        self.identity = not self.particles
        zero = hy.expression(0.0)
        self.zero = {f"{c}{i}": zero for i in self.particles for c in ("th", "om")}

    def index(self, j: int) -> int | None:
        """Return the model coordinate of the element-layout coordinate ``j``.

        None: a particle's angle.
        """
        if self.identity:
            return j
        i, k = divmod(j, 3)
        if i in self.particles and k == 2:
            return None
        return self.offsets[i] + k

    def poly(self, p: mo.Poly, where: str = "") -> mo.Poly:
        """Return a poly rewritten in the model's coordinates."""
        if self.identity or not isinstance(p, dict):
            return p
        out: list[mo.Poly] = []
        for atom, coef in p.items():
            names, zero = [], False
            for f in atom:
                head, rest = f[0], f[1:]
                if head in "qv" and rest.isdigit():
                    j = self.index(int(rest))
                    if j is None:
                        raise ValueError(f"{where}: uses the angle of particle {int(rest) // 3}, "
                                         "which has none (a particle has coordinates x, y "
                                         "only); attach it to a bar or rigid body instead")
                    names.append(f"{head}{j}")
                elif head in "cs" and rest.isdigit() and int(rest) in self.particles:
                    if head == "s":
                        zero = True
                        break
                else:
                    names.append(f)
            if not zero:
                out.append({tuple(sorted(names)): dict(coef)})
        return mo.add(*out)

    def term(self, t, where: str = ""):
        """Return a term (poly or heyoka expression) in the model's coordinates."""
        if self.identity:
            return t
        if is_expression(t):
            return hy.subs(t, self.zero) if self.zero else t
        return self.poly(t, where)

    def terms(self, x, where: str = ""):
        """:meth:`term` of a term, a list of terms, or None/{}."""
        if self.identity or x is None:
            return x
        if isinstance(x, list):
            return [self.term(t, where) for t in x]
        return self.term(x, where)


def joint_bodies(data: ModelData) -> dict:
    """Return the two bodies ``(a, b)`` of every pin joint and named two-body constraint.

    Pin joints by index (their first two bars), named constraints by name (``a`` None for the
    ground); for :meth:`Trajectory.joint_angle`.
    """
    out: dict = {}
    for kind, pos, el in data.items():
        if kind.kind == "joint":
            out[pos] = (el.bars[0], el.bars[1])
        elif kind.named and hasattr(el, "body_b") and hasattr(el, "body_a"):
            out[el.name] = (el.body_a, el.body_b)
        elif kind.named and hasattr(el, "bar_b") and hasattr(el, "bar_a"):
            out[el.name] = (el.bar_a, el.bar_b)
    return out


#: a sum given as terms, each a :data:`~quivira.model.monomials.Poly` or a heyoka expression
Terms = list


@dataclass
class Collected:
    """Rows, loads and energies of a model as monomials (see :func:`collect`).

    Sums of load terms are :data:`Terms` (polys and heyoka expressions).
    """

    #: rows in order: holonomic first, then velocity rows; values are polys or expressions
    rows: list[Row]
    #: per row: ``(kind, index, bar or None, axis or row number)``
    owners: list[tuple]
    #: per row: the poly that shifts W_kk (``1 - a`` of a switchable element) or None
    shifts: list
    n_holonomic: int
    #: per coordinate: the terms of the loads' generalized forces
    Q: list
    #: kinetic energy and gravity potential, polys
    kinetic: mo.Poly
    gravity: mo.Poly
    #: the diagonal of M as parameter indices per coordinate (m, m, I per bar)
    mass_params: list[int]
    #: parameter indices of 1/M per coordinate
    inv_mass_params: list[int]
    #: parameter index of -m g per bar (gravity's force along y)
    weight_params: list[int]
    #: ``[((kind, index, bar), [(column, axis, sign), ...]), ...]``: forces on bars from λ
    reaction_map: list
    #: ``[(parameter index, "kind index · name"), ...]`` of the loads' input parameters
    inputs: list = field(default_factory=list)
    #: potential of the conservative loads (elastic ones included)
    load_potential: Terms = field(default_factory=list)
    #: per elastic load (by name): its elastic energy
    elastic: dict = field(default_factory=dict)
    #: power supplied by drives, and dissipated by dampers
    power_in: Terms = field(default_factory=list)
    dissipation: Terms = field(default_factory=list)
    #: per load (by name): the power of its force, Q · q̇
    load_power: dict = field(default_factory=dict)
    #: per load (by name): its own force outputs ``[(label, term), ...]``
    load_forces: dict = field(default_factory=dict)
    #: events: dicts with kind, position, role, value (poly, expression or ("lambda", col)),
    #: direction, when, flag (the active parameter's index or None), terminal
    events: list = field(default_factory=list)
    #: per switchable element (kind, position): (its active parameter index, its columns)
    switches: dict = field(default_factory=dict)
    #: per row: ``(kind, position, row of the element)`` (what ``excluded`` refers to)
    row_ids: list = field(default_factory=list)
    #: whether the equations carry the integrated work and dissipation (extra states)
    ledger: bool = False

    @property
    def labels(self) -> list[str]:
        """One label per row."""
        return [r.label for r in self.rows]


def _as_terms(x) -> Terms:
    if x is None or (isinstance(x, dict) and not x):
        return []
    return list(x) if isinstance(x, list) else [x]


def collect(data: ModelData, index: dict[tuple, int], values: list[float] | None = None,
            excluded: frozenset = frozenset()) -> Collected:
    """Ask every body and element for its part of the equations.

    ``index``: parameter key → position in :func:`parameter_layout`; with ``values``,
    expressions of elements use the numbers instead of runtime parameters. Rows
    ``(kind, position, row)`` in ``excluded`` (redundant ones) are left out.
    """
    n_bars = len(data.bars)
    cmap = CoordinateMap(data)
    qd_vars = [hy.expression(n) for n in coordinate_names(data)[1]]
    hol: list = []
    vel: list = []
    Q: list[Terms] = [[] for _ in range(data.n_coordinates())]
    extra: dict = {"load_potential": [], "power_in": [], "dissipation": [], "elastic": {},
                   "load_power": {}, "load_forces": {}, "inputs": [], "ledger": False,
                   "events": []}
    per_element: list = []
    for kind, pos, el in data.items():
        ctx = RowContext(index, kind.kind, pos, values, n_bars)
        if issubclass(kind, Constraint):
            shift, flag = None, None
            if kind.switchable:
                flag = ctx.par("active")
                shift = mo.add(mo.constant(1.0), mo.constant(-1.0, flag))
            mine = []
            where = el.label_prefix(pos)
            raw_rows = [r if cmap.identity else Row(cmap.term(r.value, where), r.label, r.bar,
                                                    r.axis, r.velocity)
                        for r in el.rows(ctx)]
            for r, row in enumerate(raw_rows):
                if (kind.kind, pos, r) in excluded:
                    continue
                if flag is not None:
                    value = (ctx._expr(flag) * row.value if is_expression(row.value)
                             else mo.mul(row.value, mo.constant(1.0, flag)))
                    row = Row(value, row.label, row.bar, row.axis, row.velocity)
                entry = (row, (kind.kind, pos, row.bar, row.axis), shift, (kind.kind, pos, r))
                (vel if row.velocity else hol).append(entry)
                mine.append(entry)
            per_element.append((kind, pos, el, mine))
            extra["ledger"] |= getattr(kind, "dissipates", False)  # impacts lose energy
            for ev in el.events(ctx):
                value = ev.value
                if not isinstance(value, tuple):
                    value = cmap.term(value, where)
                if isinstance(value, tuple) and value[0] == "row":
                    value = raw_rows[value[1]].value
                elif isinstance(value, tuple) and value[0] == "lambda":
                    value = ("lambda", id(mine[value[1]][0]))  # a column, resolved below
                extra["events"].append({"kind": kind, "position": pos, "role": ev.role,
                                        "value": value, "direction": ev.direction,
                                        "when": ev.when, "flag": flag,
                                        "terminal": ev.terminal, "offset": ev.offset})
        elif issubclass(kind, Load):
            power: Terms = []
            name = el.label_prefix(pos)
            for j, term in el.generalized_forces(ctx):
                j = cmap.index(j)
                if j is None:  # the angle of a particle: it has none to turn
                    torque = getattr(el, "torque", 0.0)
                    if not (isinstance(torque, (int, float)) and torque == 0.0):
                        raise ValueError(f"{name}: a torque on a particle (body "
                                         f"{getattr(el, 'bar', '?')}), which has no angle to "
                                         "turn; apply it to a bar or a rigid body")
                    continue
                term = cmap.term(term, name)
                Q[j].append(term)
                power.append(term * qd_vars[j] if is_expression(term)
                             else mo.mul(term, mo.monomial((f"v{j}",), 1.0)))
            extra["load_power"][name] = power
            forces = el.force_outputs(ctx)
            if forces:
                extra["load_forces"][name] = [(label, cmap.terms(_as_terms(t), name))
                                              for label, t in forces]
            V = cmap.terms(_as_terms(el.potential(ctx)), name)
            extra["load_potential"] += V
            if kind.elastic:
                extra["elastic"][name] = V
            extra["power_in"] += cmap.terms(_as_terms(el.power_in(ctx)), name)
            extra["dissipation"] += cmap.terms(_as_terms(el.dissipation(ctx)), name)
            extra["ledger"] |= kind.drives or kind.dissipates
            extra["inputs"] += [(ctx.par(nm), f"{name}.{nm}") for nm in kind.inputs]
        else:
            extra["events"] += [{"kind": kind, "position": pos, "role": ev.role,
                                 "value": ev.value if isinstance(ev.value, tuple)
                                 else cmap.term(ev.value, el.label_prefix(pos)),
                                 "direction": ev.direction, "when": ev.when,
                                 "flag": None, "terminal": ev.terminal, "offset": ev.offset}
                                for ev in el.events(ctx)]
    entries = hol + vel
    column = {id(e[0]): k for k, e in enumerate(entries)}
    for ev in extra["events"]:
        if isinstance(ev["value"], tuple) and ev["value"][0] == "lambda":
            ev["value"] = ("lambda", column[ev["value"][1]])
    switches = {}
    for kind, pos, _, mine in per_element:
        if kind.switchable:
            switches[(kind.kind, pos)] = (index[(kind.kind, pos, "active")],
                                          [column[id(e[0])] for e in mine])
    reactions: dict[tuple, list] = {}
    for _, pos, el, mine in per_element:
        cols = [(column[id(e[0])], e[0]) for e in mine]
        for key, col, axis, sign in el.reaction_terms(pos, cols):
            terms = reactions.setdefault(key, [])
            if col is not None:
                terms.append((col, axis, sign))
    kinetic, gravity = [], []
    mass_params, inv_mass_params, weight_params = [], [], []
    for i, (b, o) in enumerate(zip(data.bars, data.offsets())):
        m = index[("bar", i, "mass")]
        pars = [(o, m), (o + 1, m)]
        inv = [index[("bar", i, "inv_mass")]] * 2
        if b.rotates:
            pars.append((o + 2, index[("bar", i, "inertia")]))
            inv.append(index[("bar", i, "inv_inertia")])
        for j, mp in pars:
            kinetic.append(mo.monomial((f"v{j}", f"v{j}"), 0.5, mp))
        gravity.append(mo.monomial((f"q{o + 1}",), 1.0, index[("bar", i, "weight")]))
        mass_params += [mp for _, mp in pars]
        inv_mass_params += inv
        weight_params.append(index[("bar", i, "minus_weight")])
    return Collected(
        rows=[e[0] for e in entries], owners=[e[1] for e in entries],
        shifts=[e[2] for e in entries], row_ids=[e[3] for e in entries],
        n_holonomic=len(hol), Q=Q, kinetic=mo.add(*kinetic),
        gravity=mo.add(*gravity), mass_params=mass_params, inv_mass_params=inv_mass_params,
        weight_params=weight_params, reaction_map=list(reactions.items()), switches=switches,
        **extra)


# ------------------------------------------------------------------------ heyoka expressions
@dataclass
class SymbolicModel:
    """The symbolic pieces of a model, ready for :func:`quivira.lagrangian.assemble_eom`."""

    q: list
    qd: list
    lagrangian: hy.expression
    #: holonomic rows F(q, t) and velocity rows g(q, qd, t) (after F)
    F: list
    G: list
    Q_nc: list
    labels: list[str]
    kinetic: hy.expression
    potential: hy.expression
    #: diagonal shifts of W switching rows off (switchable elements)
    W_shift: dict
    #: f = Q_nc - gravity, and the diagonal of M (m, m, m L^2/12 per bar)
    applied: list
    mass_diag: list
    collected: Collected


def variables(bodies) -> tuple[list, list]:
    """Return the heyoka variables ``q`` and ``qd`` (``bodies`` as :func:`coordinate_names`)."""
    q_names, qd_names = coordinate_names(bodies)
    if not q_names:
        return [], []
    return list(hy.make_vars(*q_names)), list(hy.make_vars(*qd_names))


def build_symbolic(data: ModelData, *, use_pars: bool = True) -> SymbolicModel:
    """Build the Lagrangian, constraint rows, generalized loads and energies of ``data``.

    As heyoka expressions, written term by term from the element definitions.

    With ``use_pars`` the numeric data are ``hy.par[k]`` in the order of
    :func:`parameter_layout`; otherwise they are numeric constants.
    """
    layout = parameter_layout(data)
    index = {key: k for k, (key, _) in enumerate(layout)}
    values = [v for _, v in layout]
    col = collect(data, index, None if use_pars else values)
    n = len(data.bars)
    q, qd = variables(data)
    factors: dict[str, hy.expression] = {}
    for i, j in enumerate(data.theta_indices()):
        if j is not None:
            factors[f"c{i}"], factors[f"s{i}"] = hy.cos(q[j]), hy.sin(q[j])
    for j in range(len(q)):
        factors[f"q{j}"], factors[f"v{j}"] = q[j], qd[j]

    def coefficient(pars: tuple, c: float):
        if use_pars:
            e = None if c == 1.0 and pars else hy.expression(c)
            for i in pars:
                e = hy.par[i] if e is None else e * hy.par[i]
            return e
        v = c
        for i in pars:
            v *= values[i]
        return hy.expression(v)

    def expr(p) -> hy.expression | float:
        if isinstance(p, list):  # Terms
            parts = [as_expression(expr(t)) for t in p if is_expression(t) or t]
            if not parts:
                return 0.0
            return parts[0] if len(parts) == 1 else hy.sum(parts)
        if is_expression(p):
            return p
        terms = []
        for atom in sorted(p):
            for pars, c in sorted(p[atom].items()):
                if c == 0.0:
                    continue
                e = coefficient(pars, c)
                for f in atom:
                    e = e * factors[f]
                terms.append(e)
        if not terms:
            return 0.0
        return terms[0] if len(terms) == 1 else hy.sum(terms)

    F = [expr(r.value) for r in col.rows[:col.n_holonomic]]
    G = [expr(r.value) for r in col.rows[col.n_holonomic:]]
    W_shift = {k: expr(s) for k, s in enumerate(col.shifts) if s is not None}
    Q = [expr(p) for p in col.Q]
    applied = list(Q)
    for i, o in enumerate(data.offsets()):
        w = expr(mo.constant(1.0, col.weight_params[i]))
        applied[o + 1] = w if is_zero(Q[o + 1]) else Q[o + 1] + w
    kinetic = expr(col.kinetic) if n else hy.expression(0.0)
    potential = expr([col.gravity, *col.load_potential]) if n else hy.expression(0.0)
    lagrangian = (hy.expression(kinetic) - expr(col.gravity)) if n else hy.expression(0.0)
    return SymbolicModel(
        q=q, qd=qd, lagrangian=lagrangian, F=F, G=G, Q_nc=Q, labels=col.labels,
        kinetic=hy.expression(kinetic), potential=hy.expression(potential), W_shift=W_shift,
        applied=applied, mass_diag=[expr(mo.constant(1.0, p)) for p in col.mass_params],
        collected=col)
