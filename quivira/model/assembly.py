r"""The equations of motion of a bar model, assembled from sums of monomials.

Same equations as :func:`quivira.lagrangian.assemble_eom` for the model's Lagrangian (see
:mod:`quivira.model.symbolic`), built for speed of the compiled integrator:

1. :math:`M = \operatorname{diag}(m_i, m_i, I_i)` (:math:`I_i = m_i L_i^2/12` for a bar, the
   given inertia of a rigid body, no angle for a particle) is constant, so the applied
   accelerations are :math:`\ddot q_a = -g\,e_y + M^{-1} f` with :math:`f` the generalized
   forces of the loads.
2. Every constraint row is a :data:`~quivira.model.monomials.Poly` in the coordinates
   (:math:`x_i, y_i`, :math:`\cos θ_i`, :math:`\sin θ_i`) and, for velocity rows, the
   velocities. Differentiating the polys gives, row by row,
   :math:`J_k = \partial F_k/\partial q`, the velocity residual :math:`v_k = J_k \dot q` and
   :math:`c_k = \partial v_k/\partial q \cdot \dot q = (\dot J\dot q)_k`; for a velocity row
   :math:`g_k(q, \dot q) = 0`: :math:`J_k = \partial g_k/\partial\dot q` (Chetaev's rule for
   rows nonlinear in :math:`\dot q`), :math:`v_k = g_k`,
   :math:`c_k = \partial g_k/\partial q \cdot \dot q`. User rows (any heyoka expressions,
   possibly of ``hy.time``) come from :mod:`quivira.constraint_rows`, each entry one opaque
   atom.
3. :math:`W = J M^{-1} J^T` entry by entry as polys (for a bar, the atoms
   :math:`\sin^2θ, \sin θ\cos θ, \cos^2θ` serve every entry it couples), with the diagonal
   shifts that switch the rows of switchable constraints off, and the diagonal scaled by a
   runtime parameter :math:`1 + ε` (1 except across singular poses, where the regularized
   :math:`W + ε\,\mathrm{diag}(W)` keeps :math:`\ddot q` finite and accurate).
4. Right-hand side with Baumgarte stabilization at rate :math:`α` (runtime parameter
   ``("stabilization",)``):

   .. math:: W\lambda = -\bigl(J\ddot q_a + c + 2α\,v + α^2 F\bigr)
             \quad\text{(holonomic rows)}, \qquad
             W\lambda = -\bigl(J\ddot q_a + c + α\,g\bigr) \quad\text{(velocity rows)},

   so a drift of the constraints decays as :math:`\ddot F + 2α\dot F + α^2 F = 0` (and
   :math:`\dot g + α g = 0`) instead of growing; on the constraint manifold the terms vanish
   and the motion and multipliers are exactly those of the unstabilized equations.
5. :math:`\lambda` by the chosen solver (:func:`quivira.lagrangian._solve_W`), and
   :math:`\ddot q = \ddot q_a + M^{-1} J^T \lambda`, where the terms of a coordinate sharing an
   atom are summed before the one product with it.

The rows of centre pins (two bodies pinned at both centres, every scissor X) leave steps 3-5:
the pair's centres move as one point of mass :math:`m_a + m_b`, W is built and solved for
the other rows with the pair's columns summed, and the pin's multiplier follows from one
body's equation (:mod:`quivira.model.centre_pins`). ``W_rows`` still holds W of all rows.

Coefficients (products of lengths, inverse masses, α, ...) become derived runtime parameters
(:class:`~quivira.model.monomials.Coefficients`): the compiled code does no arithmetic on data.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import heyoka as hy

from .._entries import as_expression, is_zero
from ..constraint_rows import holonomic_rows, velocity_rows
from ..lagrangian import EOMParts, _solve_W
from . import monomials as mo
from .centre_pins import (
    find_merges,
    merged_columns,
    pair_acceleration,
    pin_multiplier,
    reduced_inverse_masses,
    reduced_jacobian,
)
from .data import ModelData
from .elements.base import is_expression
from .regularity import structurally_regular
from .symbolic import Collected, collect, parameter_layout, variables

__all__ = ["assemble_bar_model"]


class _Row:
    """One constraint row as polys.

    ``J`` (column → poly), ``c``, ``v``, ``F`` (None for velocity rows), the diagonal shift of W
    (a poly, or None).
    """

    def __init__(self, J, c, v, F, shift=None):
        self.J, self.c, self.v, self.F, self.shift = J, c, v, F, shift


#: per thread: the angle coordinates of the bodies being assembled, ``angle[body] = j`` with
#: θ_body = ``q{j}`` and its inverse, or None for 3 coordinates per body (θ_i = ``q{3i+2}``)
_LAYOUT = threading.local()


def _angles(data: ModelData | None) -> None:
    """Set the angle coordinates of the bodies of ``data`` for this thread (None: 3 per body)."""
    _LAYOUT.maps = None
    if data is not None and data.has_particles():
        angle = dict(enumerate(data.theta_indices()))
        _LAYOUT.maps = (angle, {j: i for i, j in angle.items() if j is not None})


def _angle_of(body: int) -> int:
    maps = getattr(_LAYOUT, "maps", None)
    return 3 * body + 2 if maps is None else maps[0][body]


def _body_of_angle(j: int) -> int | None:
    """Return the body whose angle is ``q{j}`` (None if ``q{j}`` is not an angle)."""
    maps = getattr(_LAYOUT, "maps", None)
    if maps is None:
        return j // 3 if j % 3 == 2 else None
    return maps[1].get(j)


def _factor_derivative(name: str, var: str) -> mo.Poly | None:
    """Differentiate a factor of the structural rows: ∂(factor)/∂(variable).

    The factors are coordinates ``q{j}``, velocities ``v{j}``, ``c{i}`` = cos θ_i and
    ``s{i}`` = sin θ_i (θ_i is ``q{3i+2}`` for 3 coordinates per body, else the body's angle
    coordinate).
    """
    if name == var:
        return mo.constant(1.0)
    if var[0] == "q" and name[0] in "cs":
        i = _body_of_angle(int(var[1:]))
        if i is not None and int(name[1:]) == i:
            return mo.monomial((f"s{i}",), -1.0) if name[0] == "c" else \
                mo.monomial((f"c{i}",), 1.0)
    return None


def _derivative(p: mo.Poly, var: str) -> mo.Poly:
    """∂p/∂var by the product rule over the factors of each atom."""
    out: list[mo.Poly] = []
    for atom, coef in p.items():
        for i, name in enumerate(atom):
            d = _factor_derivative(name, var)
            if d is not None:
                rest = {atom[:i] + atom[i + 1:]: coef}
                out.append(mo.mul(d, rest))
    return mo.add(*out)


def _variables_of(p: mo.Poly, prefix: str) -> list[str]:
    """Coordinate (``prefix="q"``) or velocity (``"v"``) names ``p`` depends on."""
    names = set()
    for atom in p:
        for f in atom:
            if f[0] == prefix:
                names.add(f)
            elif prefix == "q" and f[0] in "cs":
                names.add(f"q{_angle_of(int(f[1:]))}")
    return sorted(names, key=lambda s: int(s[1:]))


def _gradient(p: mo.Poly, prefix: str) -> dict[int, mo.Poly]:
    """Non-zero ∂p/∂q_j (``prefix="q"``) or ∂p/∂qd_j (``"v"``), by column j."""
    out = {}
    for var in _variables_of(p, prefix):
        d = _derivative(p, var)
        if d:
            out[int(var[1:])] = d
    return out


def _holonomic(F: mo.Poly, shift=None) -> _Row:
    J = _gradient(F, "q")
    v = mo.add(*(mo.mul(d, mo.monomial((f"v{j}",), 1.0)) for j, d in J.items()))
    c = mo.add(*(mo.mul(_derivative(v, var), mo.monomial((f"v{var[1:]}",), 1.0))
                 for var in _variables_of(v, "q")))
    return _Row(J, c, v, F, shift)


def _velocity(g: mo.Poly, shift=None) -> _Row:
    J = _gradient(g, "v")
    c = mo.add(*(mo.mul(_derivative(g, var), mo.monomial((f"v{var[1:]}",), 1.0))
                 for var in _variables_of(g, "q")))
    return _Row(J, c, g, None, shift)


def _opaque_rows(exprs: list, q: list, qd: list, atoms: mo.AtomTable, holonomic: bool):
    """Rows of user expressions, each entry of J, c, v, F one opaque atom."""
    built = holonomic_rows(exprs, q, qd) if holonomic else \
        velocity_rows(exprs, q, qd, allow_nonlinear=True)

    def poly(e) -> mo.Poly:
        if is_zero(e):
            return {}
        if not isinstance(e, hy.expression):
            return mo.constant(float(e))
        return mo.monomial((atoms.name_of(e),), 1.0)

    out = []
    for k, expr in enumerate(exprs):
        J = {j: poly(x) for j, x in built.a[k].items()}
        out.append(_Row(J, poly(built.c[k]), poly(built.velocity_residual[k]),
                        poly(expr) if holonomic else None))
    return out


@dataclass
class BarAssembly:
    """The assembled equations of a bar model and what the compiled outputs need."""

    #: the equations (:class:`~quivira.lagrangian.EOMParts`)
    parts: EOMParts
    #: the derived runtime parameters the expressions use
    coefficients: mo.Coefficients
    #: the element definitions they come from (:func:`~quivira.model.symbolic.collect`)
    collected: Collected
    #: :math:`F(q, t)` per row (0 for velocity rows)
    position_residual: list
    #: kinetic energy, gravity potential and the potential of the conservative loads
    kinetic: hy.expression
    gravity: hy.expression
    load_potential: hy.expression
    #: power supplied by drives and dissipated by dampers
    power_in: hy.expression
    dissipation: hy.expression
    #: per load (by name): the power of its force; per elastic load: its energy
    load_power: dict
    elastic: dict
    #: per load (by name): its force outputs ``[(label, expression), ...]``
    load_forces: dict
    #: the elements' events (the dicts of :attr:`Collected.events` with their ``expr``)
    events: list

    @property
    def potential(self) -> hy.expression:
        """Gravity plus the potential of the conservative loads."""
        return self.gravity + self.load_potential


def assemble_bar_model(data: ModelData, solver="ordered",
                       excluded: frozenset = frozenset(), run_terms: bool = True,
                       merge: bool = True) -> BarAssembly:
    """Build the model's equations (see the module docstring).

    The rows ``excluded`` (redundant ones, see :func:`~quivira.model.symbolic.collect`) are
    left out. ``run_terms=False`` leaves out what only the scalar simulator's passage through
    singular poses uses: the diagonal scale :math:`1 + ε` of W and the window's terms
    (:func:`window_acceleration`), i.e. the equations at their values outside a window, for
    code that never crosses a singular pose itself (a sweep's batch lanes hand such a variant
    to the scalar simulator). The runtime parameters and derived coefficients are the same.
    ``merge=False`` keeps the rows of centre pins in the solve instead of moving each pinned
    pair of centres as one (:mod:`~quivira.model.centre_pins`): the same motion and
    multipliers, with a larger W (for tests and comparisons).
    """
    layout = parameter_layout(data)
    index = {key: k for k, (key, _) in enumerate(layout)}
    col = collect(data, index, excluded=excluded)
    coefs = mo.Coefficients(len(layout))
    _angles(data)
    try:
        return _assemble(data, solver, layout, index, col, coefs, run_terms, merge)
    finally:
        _angles(None)


def _assemble(data, solver, layout, index, col, coefs, run_terms=True,
              merge=True) -> BarAssembly:
    n = data.n_coordinates()
    q, qd = variables(data)
    offsets = data.offsets()
    factors = {}
    for i, j in enumerate(data.theta_indices()):
        if j is not None:
            factors[f"c{i}"], factors[f"s{i}"] = hy.cos(q[j]), hy.sin(q[j])
    for j in range(n):
        factors[f"q{j}"], factors[f"v{j}"] = q[j], qd[j]
    atoms = mo.AtomTable(factors)

    # --- rows, in the order of the labels; consecutive user rows are derived together
    rows: list[_Row] = []
    for group, holonomic in ((col.rows[:col.n_holonomic], True),
                             (col.rows[col.n_holonomic:], False)):
        shifts = (col.shifts[:col.n_holonomic] if holonomic else col.shifts[col.n_holonomic:])
        pending: list = []
        for r, shift in list(zip(group, shifts)) + [(None, None)]:
            if r is not None and is_expression(r.value):
                pending.append(r.value)
                continue
            if pending:
                rows.extend(_opaque_rows(pending, q, qd, atoms, holonomic))
                pending = []
            if r is not None:
                rows.append(_holonomic(r.value, shift) if holonomic
                            else _velocity(r.value, shift))
    n_hol = col.n_holonomic
    m = len(rows)

    # --- applied accelerations qdd_a = -g e_y + M^-1 f, f the loads' generalized forces
    # (gravity is -g exactly, so that it cancels exactly where two bars' rows meet)
    inv_M = [mo.constant(1.0, p) for p in col.inv_mass_params]

    def terms_poly(terms) -> mo.Poly:
        """Return a sum of polys and opaque heyoka expressions as one poly."""
        return mo.add(*(mo.monomial((atoms.name_of(t),), 1.0) if is_expression(t) else t
                        for t in terms))

    f = [terms_poly(terms) for terms in col.Q]
    qdd_a = [mo.mul(inv_M[j], f[j]) for j in range(n)]
    for o in offsets:
        qdd_a[o + 1] = mo.add(qdd_a[o + 1], mo.constant(-1.0, index[("g",)]))
    # --- centre pins: their rows leave the solve, their pairs of columns move as one
    # (see centre_pins); the solve runs on the kept rows in the reduced columns
    merges = find_merges(rows, col.owners, col.shifts, n_hol, index) if merge else []
    rep = merged_columns(merges, n)
    eliminated = {e.row for e in merges}
    kept = [k for k in range(m) if k not in eliminated]
    inv_Mr = reduced_inverse_masses(merges, inv_M)
    f_r = list(f)
    for e in merges:
        f_r[e.i], f_r[e.j] = mo.add(f[e.i], f[e.j]), {}
    qdd_ar = [mo.mul(inv_Mr[j], f_r[j]) for j in range(n)]
    for o in offsets:
        if rep[o + 1] == o + 1:
            qdd_ar[o + 1] = mo.add(qdd_ar[o + 1], mo.constant(-1.0, index[("g",)]))
    J_r = [reduced_jacobian(rows[k].J, rep) for k in kept] if merges else \
        [r.J for r in rows]
    diag_scale = hy.par[index[("diagonal_scale",)]] if run_terms else None
    # W of all rows (what the inspector shows), and the one that is solved
    W_rows, GJ = _delassus([r.J for r in rows], inv_M, [r.shift for r in rows], coefs, atoms,
                           diag_scale)
    W_solved = W_rows
    if merges:
        W_solved, GJ = _delassus(J_r, inv_Mr, [rows[k].shift for k in kept], coefs, atoms,
                                 diag_scale)
    alpha = index[("stabilization",)]
    rhs = []
    for t, k in enumerate(kept):
        r = rows[k]
        terms = [r.c] + [mo.mul(x, qdd_ar[j]) for j, x in J_r[t].items() if qdd_ar[j]]
        if r.F is not None:
            terms += [mo.mul(r.v, mo.constant(2.0, alpha)), mo.mul(r.F, mo.constant(1.0, alpha,
                                                                                   alpha))]
        else:
            terms.append(mo.mul(r.v, mo.constant(1.0, alpha)))
        rhs.append(mo.to_expression(mo.scale(mo.add(*terms), -1.0), coefs, atoms))

    def expr(p):
        return mo.to_expression(p, coefs, atoms)

    J_rows = []
    for r in rows:
        row = {j: expr(x) for j, x in sorted(r.J.items())}
        J_rows.append({j: x for j, x in row.items() if not is_zero(x)})

    # --- multipliers and accelerations
    if kept:
        lam_r, W_solve = _solve_W(W_solved, rhs, solver)
    else:
        lam_r, W_solve = [], None
    window = run_terms and W_solve is not None and not structurally_regular(J_rows)
    # across a singular pose (see singular_window): keep = 0 and the constraint accelerations
    # a_0 + a_1 (t - t_e) of the window instead of those of the solve
    lam_used = [x * hy.par[index[("window_keep",)]] for x in lam_r] if window else lam_r
    rows_of_col: dict[int, list[int]] = {}
    for t, Jt in enumerate(J_r):
        for j in Jt:
            rows_of_col.setdefault(j, []).append(t)
    qdd = []
    for j in range(n):
        if rep[j] != j:
            qdd.append(None)  # its pair's, below
            continue
        groups: dict[tuple, list] = {atom: [coefs.expression(c)]
                                     for atom, c in qdd_ar[j].items()}
        for t in rows_of_col.get(j, []):
            if is_zero(lam_r[t]):
                continue
            for atom, c in GJ[t][j].items():
                e = coefs.expression(c)
                if e is not None:
                    groups.setdefault(atom, []).append(e * lam_used[t])
        acc = mo.grouped_sum(groups, atoms)
        if window:
            acc = acc + window_acceleration(index, j)
        qdd.append(acc)
    for e in merges:  # the merged column's acceleration is its pair's, stabilized
        qdd[e.j] = pair_acceleration(e, qdd[e.i], q, qd, coefs, alpha)
    lam: list = [0.0] * m
    for t, k in enumerate(kept):
        lam[k] = lam_r[t]
    if merges:
        _pin_multipliers(merges, lam, J_rows, f, col.mass_params, expr)
    weight_at = {o + 1: col.weight_params[i] for i, o in enumerate(offsets)}
    applied = [mo.add(f[j], mo.constant(1.0, weight_at[j]) if j in weight_at else {})
               for j in range(n)]
    parts = EOMParts(
        q=list(q), qd=list(qd),
        M_rows=[{j: hy.par[p]} for j, p in enumerate(col.mass_params)],
        f=[as_expression(expr(x)) for x in applied], J_rows=J_rows,
        Jdqd=[expr(r.c) for r in rows],
        qdd_a=[expr(x) for x in qdd_a], qdd=[as_expression(x) for x in qdd],
        lambda_mult=list(lam), W_rows=W_rows, W_solve=W_solve,
        W_solved=W_solved if merges else None, solved_rows=kept if merges else None,
        velocity_residual=[expr(r.v) for r in rows], n_holonomic=n_hol,
        W_shift={k: as_expression(expr(p)) for k, p in enumerate(col.shifts) if p is not None})
    F = [as_expression(0.0 if r.F is None else expr(r.F)) for r in rows]

    def terms_expr(terms):
        return as_expression(expr(terms_poly(terms)))

    return BarAssembly(
        parts, coefs, col, F, kinetic=as_expression(expr(col.kinetic)),
        gravity=as_expression(expr(col.gravity)), load_potential=terms_expr(col.load_potential),
        power_in=terms_expr(col.power_in), dissipation=terms_expr(col.dissipation),
        load_power={k: terms_expr(v) for k, v in col.load_power.items()},
        elastic={k: terms_expr(v) for k, v in col.elastic.items()},
        load_forces={k: [(label, terms_expr(t)) for label, t in v]
                     for k, v in col.load_forces.items()},
        events=[dict(ev, expr=_event_expression(ev, lam, expr)) for ev in col.events])


def _delassus(J: list[dict], inv_M: list, shifts: list, coefs, atoms,
              diag_scale) -> tuple[list[dict], list[dict]]:
    r"""Return :math:`W = J M^{-1} J^T` as expression rows, and :math:`(M^{-1}J^T)^T` as polys.

    ``J`` rows of polys by column, ``inv_M`` the diagonal of :math:`M^{-1}` (polys),
    ``shifts`` the diagonal shift of each row (a poly or None); the diagonal is multiplied by
    ``diag_scale`` (:math:`1 + ε`) unless it is None. Built from the upper triangle, mirrored.
    """
    m = len(J)
    rows_of_col: dict[int, list[int]] = {}
    for k, r in enumerate(J):
        for j in r:
            rows_of_col.setdefault(j, []).append(k)
    GJ = [{j: mo.mul(inv_M[j], x) for j, x in r.items()} for r in J]
    W_poly: list[dict[int, list]] = [{} for _ in range(m)]
    for j, ks in rows_of_col.items():
        for a, k in enumerate(ks):
            for ell in ks[a:]:
                W_poly[k].setdefault(ell, []).append(mo.mul(J[k][j], GJ[ell][j]))
    for k, shift in enumerate(shifts):
        if shift is not None:
            W_poly[k].setdefault(k, []).append(shift)
    W_rows: list[dict] = [{} for _ in range(m)]
    for k in range(m):
        for ell, parts in W_poly[k].items():
            w = mo.to_expression(mo.add(*parts), coefs, atoms)
            if not is_zero(w):
                if ell == k and diag_scale is not None:
                    w = as_expression(w) * diag_scale
                W_rows[k][ell] = w
                W_rows[ell][k] = w
    return W_rows, GJ


def _pin_multipliers(merges, lam: list, J_rows: list, f: list, mass_params: list,
                     expr) -> None:
    r"""Write the multipliers of the eliminated centre-pin rows into ``lam`` (in place).

    :func:`~quivira.model.centre_pins.pin_multiplier` with
    :math:`A_c = f_c + \sum_k J_{kc}\lambda_k` over the solved rows (``lam`` is still 0 for
    the eliminated ones), from one pass over ``J_rows`` (expressions).
    """
    terms: dict[int, list] = {c: [as_expression(expr(f[c]))]
                              for e in merges for c in (e.i, e.j)}
    for k, row in enumerate(J_rows):
        if is_zero(lam[k]):
            continue
        for c, x in row.items():
            if c in terms:
                terms[c].append(as_expression(x) * lam[k])

    def force_on(c: int) -> hy.expression:
        return terms[c][0] if len(terms[c]) == 1 else hy.sum(terms[c])

    for e in merges:
        lam[e.row] = pin_multiplier(e, mass_params, force_on)


def window_acceleration(index: dict, j: int) -> hy.expression:
    r"""Return :math:`a_{0j} + a_{1j}(t - t_e)`, the window's constraint acceleration of ``j``.

    Runtime parameters (:func:`~quivira.model.symbolic.window_layout`); 0 outside a window.
    """
    tau = hy.time - hy.par[index[("window_t0",)]]
    return hy.par[index[("window_accel", j, 0)]] + hy.par[index[("window_accel", j, 1)]] * tau


def _event_expression(ev: dict, lam: list, expr) -> hy.expression:
    """Return the event function of an element's event, gated by its active flag.

    See :class:`~quivira.model.elements.base.EventSpec` (its ``offset`` parameter is added to
    the function). Watched only while off:
    :math:`f(1 - a) + a`; only while on: :math:`f a + (1 - a)`.
    """
    value = ev["value"]
    if isinstance(value, tuple):  # ("lambda", column)
        f = as_expression(lam[value[1]])
    elif is_expression(value):
        f = value
    else:
        f = as_expression(expr(value))
    if ev.get("offset") is not None:
        f = f + hy.par[ev["offset"]]
    if ev["flag"] is None or ev["when"] == "always":
        return f
    a = hy.par[ev["flag"]]
    if ev["when"] == "inactive":
        return f * (1.0 - a) + a
    return f * a + (1.0 - a)
