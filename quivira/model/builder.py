"""Symbolic assembly of a bar-joint model: Lagrangian, constraints, loads, labels.

For bars ``i`` with coordinates :math:`(x_i, y_i, θ_i)`:

.. math::
    \\mathcal L = \\sum_i \\tfrac12 m_i (\\dot x_i^2 + \\dot y_i^2)
                 + \\tfrac12 \\tfrac{m_i L_i^2}{12} \\dot θ_i^2 - m_i g y_i,

a joint of bars :math:`b_0, b_1, \\ldots` gives the rows
:math:`p_{b_k}(s_k) - p_{b_0}(s_0) = 0` (x and y) for :math:`k \\ge 1`, a support the rows
:math:`p_x - X = 0` and/or :math:`p_y - Y = 0` for its fixed directions, and a point force
:math:`f` at :math:`r = s L (\\cos θ, \\sin θ)` with torque :math:`τ` the generalized force
:math:`Q = (f_x, f_y, τ + r_x f_y - r_y f_x)`.

Numeric data (lengths, masses, g, joint and force points, force values, support positions)
enter either as runtime parameters ``hy.par[k]`` (so edits need no recompiling) or as
constants; :func:`parameter_layout` fixes the order of the parameter vector.
"""

from __future__ import annotations

from dataclasses import dataclass

import heyoka as hy

from .components import ModelData


def parameter_layout(data: ModelData) -> list[tuple[tuple, float]]:
    """Return ``[(key, value), ...]``: the runtime parameters of ``data`` in ``hy.par`` order.

    Derived quantities are parameters of their own (``1/m``, ``12/(m L^2)``, ``m g``, and
    ``s L`` for every point on a bar), so the compiled code does no arithmetic on constants;
    the last one is the Baumgarte rate ``("stabilization",)``. The compiled equations add
    further parameters computed from these (:class:`~quivira.model.monomials.Coefficients`).
    """
    out: list[tuple[tuple, float]] = [(("g",), data.g)]
    for i, b in enumerate(data.bars):
        inertia = b.mass * b.length ** 2 / 12.0
        out.append((("bar", i, "inv_mass"), 1.0 / b.mass))
        out.append((("bar", i, "inv_inertia"), 1.0 / inertia))
        out.append((("bar", i, "weight"), b.mass * data.g))
        out.append((("bar", i, "minus_weight"), -b.mass * data.g))
        out.append((("bar", i, "mass"), b.mass))
        out.append((("bar", i, "inertia"), inertia))
    for j, jt in enumerate(data.joints):
        for k, (b, s) in enumerate(zip(jt.bars, jt.s, strict=True)):
            out.append((("joint", j, k, "sL"), s * data.bars[b].length))
    for k, f in enumerate(data.forces):
        out.append((("force", k, "sL"), f.s * data.bars[f.bar].length))
        out.append((("force", k, "fx"), f.fx))
        out.append((("force", k, "fy"), f.fy))
        out.append((("force", k, "torque"), f.torque))
    for k, cc in enumerate(data.coordinate_constraints):
        out.append((("cc", k, "active"), 1.0 if cc.active else 0.0))
        for r, v in enumerate(cc.offset):
            out.append((("cc", k, "offset", r), v))
    for k, ke in enumerate(data.knife_edges):
        out.append((("knife", k, "sL"), ke.s * data.bars[ke.bar].length))
    for k, sp in enumerate(data.supports):
        out.append((("support", k, "sL"), sp.s * data.bars[sp.bar].length))
        out.append((("support", k, "x"), sp.x))
        out.append((("support", k, "y"), sp.y))
    out.append((("stabilization",), data.stabilization))
    return out


def topology_key(data: ModelData) -> tuple:
    """What the compiled code depends on: counts and connectivity, not the numeric values."""
    return (
        len(data.bars),
        tuple(tuple(j.bars) for j in data.joints),
        tuple((s.bar, s.free_x, s.free_y) for s in data.supports),
        tuple(f.bar for f in data.forces),
        tuple((c.bar0, c.bar1, _frozen(c.X0), _frozen(c.X1), _frozen(c.Y0), _frozen(c.Y1),
               c.n_rows, c.velocity_level) for c in data.coordinate_constraints),
        tuple((tuple(str(e) for e in u.exprs), u.velocity_level)
              for u in data.user_constraints),
        tuple(ke.bar for ke in data.knife_edges),
    )


def _frozen(mat):
    return None if mat is None else tuple(tuple(r) for r in mat)


def coordinate_names(n_bars: int) -> tuple[list[str], list[str]]:
    """Variable names of the coordinates ``x_i, y_i, th_i`` and velocities ``vx_i, vy_i, om_i``."""
    q = [f"{c}{i}" for i in range(n_bars) for c in ("x", "y", "th")]
    qd = [f"{c}{i}" for i in range(n_bars) for c in ("vx", "vy", "om")]
    return q, qd


@dataclass
class SymbolicModel:
    """The symbolic pieces of a model, ready for :func:`quivira.lagrangian.assemble_eom`."""

    q: list
    qd: list
    lagrangian: hy.expression
    F: list
    Q_nc: list
    labels: list[str]
    kinetic: hy.expression
    potential: hy.expression
    n_params: int
    #: per constraint row: (kind, index, bar or None, axis or row number)
    row_owner: list[tuple]
    #: velocity-level rows A(q, t) qd + b = 0, after the rows of F
    G: list
    #: diagonal shifts of W switching rows off (coordinate constraints' active flag)
    W_shift: dict
    #: f = Q_nc - gravity, and the diagonal of M (m, m, m L^2/12 per bar)
    applied: list
    mass_diag: list


def build_symbolic(data: ModelData, *, use_pars: bool = True) -> SymbolicModel:
    """Build the Lagrangian, constraint rows, generalized loads and energies of ``data``.

    With ``use_pars`` the numeric data are ``hy.par[k]`` in the order of
    :func:`parameter_layout`; otherwise they are numeric constants.
    """
    layout = parameter_layout(data)
    index = {key: k for k, (key, _) in enumerate(layout)}
    values = dict(layout)

    def P(*key):
        if use_pars:
            return hy.par[index[key]]
        return hy.expression(values[key])

    n = len(data.bars)
    q_names, qd_names = coordinate_names(n)
    q = list(hy.make_vars(*q_names)) if n else []
    qd = list(hy.make_vars(*qd_names)) if n else []
    cos_th = [hy.cos(q[3 * i + 2]) for i in range(n)]
    sin_th = [hy.sin(q[3 * i + 2]) for i in range(n)]

    def point(i, sl):
        return q[3 * i] + sl * cos_th[i], q[3 * i + 1] + sl * sin_th[i]

    kin_terms, grav_terms, load_terms = [], [], []
    for i in range(n):
        m, inertia = P("bar", i, "mass"), P("bar", i, "inertia")
        vx, vy, om = qd[3 * i : 3 * i + 3]
        kin_terms.append(0.5 * m * (vx * vx + vy * vy))
        kin_terms.append(0.5 * inertia * (om * om))
        grav_terms.append(P("bar", i, "weight") * q[3 * i + 1])

    F, labels, owners = [], [], []
    for j, jt in enumerate(data.joints):
        b0 = jt.bars[0]
        p0 = point(b0, P("joint", j, 0, "sL"))
        for k in range(1, len(jt.bars)):
            bk = jt.bars[k]
            pk = point(bk, P("joint", j, k, "sL"))
            for axis, c in (("x", 0), ("y", 1)):
                F.append(pk[c] - p0[c])
                labels.append(f"joint {j} · bar {bk} · {axis}")
                owners.append(("joint", j, bk, axis))
    for k, sp in enumerate(data.supports):
        p = point(sp.bar, P("support", k, "sL"))
        if not sp.free_x:
            F.append(p[0] - P("support", k, "x"))
            labels.append(f"support {k} · x")
            owners.append(("support", k, sp.bar, "x"))
        if not sp.free_y:
            F.append(p[1] - P("support", k, "y"))
            labels.append(f"support {k} · y")
            owners.append(("support", k, sp.bar, "y"))

    W_shift: dict = {}
    G, G_labels, G_owners, G_shift = [], [], [], {}

    def coordinate_rows(k, cc):
        a = P("cc", k, "active")
        vec = qd if cc.velocity_level else q
        rows = []
        for r in range(cc.n_rows):
            terms = []
            for bar, X, Y, sign in ((cc.bar1, cc.X1, cc.Y1, 1.0), (cc.bar0, cc.X0, cc.Y0, -1.0)):
                if bar is None:
                    continue
                v = vec[3 * bar:3 * bar + 3]
                for mat, power in ((X, 1), (Y, 2)):
                    if mat is None:
                        continue
                    for j, coef in enumerate(mat[r]):
                        if coef != 0.0:
                            term = v[j] if power == 1 else v[j] * v[j]
                            terms.append((sign * coef) * term)
            terms.append(-P("cc", k, "offset", r))
            rows.append(a * hy.sum(terms) if len(terms) > 1 else a * terms[0])
        return rows, 1.0 - a

    for k, cc in enumerate(data.coordinate_constraints):
        rows, shift = coordinate_rows(k, cc)
        for r, expr in enumerate(rows):
            label = f"{cc.name} · row {r}"
            if cc.velocity_level:
                G_shift[len(G)] = shift
                G.append(expr)
                G_labels.append(label)
                G_owners.append(("cc", k, None, r))
            else:
                W_shift[len(F)] = shift
                F.append(expr)
                labels.append(label)
                owners.append(("cc", k, None, r))
    for k, uc in enumerate(data.user_constraints):
        for r, expr in enumerate(uc.exprs):
            label = f"{uc.name} · row {r}"
            if uc.velocity_level:
                G.append(expr)
                G_labels.append(label)
                G_owners.append(("user", k, None, r))
            else:
                F.append(expr)
                labels.append(label)
                owners.append(("user", k, None, r))
    for k, ke in enumerate(data.knife_edges):
        i = ke.bar
        vx, vy, om = qd[3 * i:3 * i + 3]
        sl = P("knife", k, "sL")
        G.append(hy.sum([-(sin_th[i] * vx), cos_th[i] * vy, sl * om]))
        G_labels.append(f"{ke.name} · normal")
        G_owners.append(("knife", k, i, "n"))
    W_shift.update({len(F) + r: v for r, v in G_shift.items()})
    labels += G_labels
    owners += G_owners

    Q: list = [0.0] * (3 * n)
    Q_terms: list[list] = [[] for _ in range(3 * n)]
    for k, f in enumerate(data.forces):
        i = f.bar
        fx, fy, tau = P("force", k, "fx"), P("force", k, "fy"), P("force", k, "torque")
        sl = P("force", k, "sL")
        rx, ry = sl * cos_th[i], sl * sin_th[i]
        Q_terms[3 * i].append(fx)
        Q_terms[3 * i + 1].append(fy)
        Q_terms[3 * i + 2].extend([tau, rx * fy, -(ry * fx)])
        px, py = point(i, sl)
        # potential of a constant load: -(f . p + tau theta)
        load_terms.extend([-(fx * px), -(fy * py), -(tau * q[3 * i + 2])])
    for c in range(3 * n):
        if Q_terms[c]:
            Q[c] = hy.sum(Q_terms[c]) if len(Q_terms[c]) > 1 else Q_terms[c][0]
    # applied generalized forces including gravity: f = Q - (0, m g, 0) per bar
    applied = list(Q)
    for i in range(n):
        w = P("bar", i, "minus_weight")
        applied[3 * i + 1] = w if not Q_terms[3 * i + 1] else Q[3 * i + 1] + w

    kinetic = hy.sum(kin_terms) if kin_terms else hy.expression(0.0)
    potential = hy.sum(grav_terms + load_terms) if n else hy.expression(0.0)
    lagrangian = (kinetic - hy.sum(grav_terms)) if n else hy.expression(0.0)
    return SymbolicModel(
        q=q,
        qd=qd,
        lagrangian=lagrangian,
        F=F,
        Q_nc=Q,
        labels=labels,
        kinetic=kinetic,
        potential=potential,
        n_params=len(layout) if use_pars else 0,
        row_owner=owners,
        G=G,
        W_shift=W_shift,
        applied=applied,
        mass_diag=[x for i in range(n) for x in (P("bar", i, "mass"), P("bar", i, "mass"),
                                                  P("bar", i, "inertia"))],
    )
