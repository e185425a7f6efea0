r"""Multi-indices, total derivatives along the variational state, and Taylor polynomials.

Notation: ``w = (w_1, ..., w_W)`` are the differentiation variables, a multi-index ``α`` is a
tuple of ``W`` counts, :math:`|α| = \sum_j α_j` its order, :math:`α! = \prod_j α_j!` and
:math:`δ^α = \prod_j δ_j^{α_j}`. A *jet* of a quantity ``y(w)`` of order ``k`` is the list of
its derivatives :math:`∂^α y` for :math:`|α| ≤ k`, ``α`` in :func:`multi_indices` order; its
Taylor polynomial is

.. math:: y(w + δ) ≈ \sum_{|α| ≤ k} \frac{∂^α y}{α!}\, δ^α .

**Total derivative.** The state of a heyoka variational integrator holds, for every component
``c`` of the state ``x`` and every ``α`` with :math:`1 ≤ |α| ≤ k`, the derivative
:math:`S_{c,α} = ∂^α x_c` (heyoka's ``var_ode_sys``: derivatives, not divided by
:math:`α!`). For an expression :math:`e(x, S, p)`, its derivative along the family of motions
is

.. math:: D_j e = \frac{∂e}{∂w_j} + \sum_{c, α} \frac{∂e}{∂S_{c,α}}\, S_{c, α + e_j}
    \qquad (S_{c,0} = x_c),

and :math:`∂^α y = D^α h` for an output ``y = h(x, p)``: :class:`TotalDerivative` builds these
expressions with one ``hy.diff_tensors`` per order. With an *event shift* :math:`τ(w)` (the
motion evaluated at :math:`t^* + τ`), every state entry moves along the flow as well:
:math:`D_j S_{c,α} = S_{c,α+e_j} + τ_j\,\dot S_{c,α}`, with :math:`\dot S` the right-hand
side of the variational equations and :math:`τ_α` jets of their own — this gives the jets of
event times by the implicit function theorem at any order.
"""

from __future__ import annotations

import itertools
import math

import heyoka as hy
import numpy as np


def multi_indices(n_vars: int, order: int) -> list[tuple[int, ...]]:
    """Return all multi-indices of ``n_vars`` counts with order ``0 .. order``.

    By order, then in the order of ``itertools.combinations_with_replacement``.
    """
    out = []
    for r in range(order + 1):
        for combo in itertools.combinations_with_replacement(range(n_vars), r):
            counts = [0] * n_vars
            for j in combo:
                counts[j] += 1
            out.append(tuple(counts))
    return out


def order_of(alpha: tuple[int, ...]) -> int:
    """:math:`|α|`."""
    return int(sum(alpha))


def add_unit(alpha: tuple[int, ...], j: int) -> tuple[int, ...]:
    """:math:`α + e_j`."""
    out = list(alpha)
    out[j] += 1
    return tuple(out)


def split_last(alpha: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """Return ``(β, j)`` with :math:`α = β + e_j` and ``j`` the last variable counted in ``α``.

    ``(β, j)`` is the canonical parent of ``α``.
    """
    j = max(i for i, a in enumerate(alpha) if a)
    beta = list(alpha)
    beta[j] -= 1
    return tuple(beta), j


def factorial(alpha: tuple[int, ...]) -> float:
    """:math:`α!`."""
    return float(np.prod([math.factorial(a) for a in alpha]))


def monomials(mindex: list[tuple[int, ...]], delta: np.ndarray) -> np.ndarray:
    """Return :math:`δ^α / α!` for every multi-index.

    ``delta`` of shape ``(W,)`` or ``(N, W)``; the result ``(n_mindex,)`` or
    ``(N, n_mindex)``.
    """
    d = np.asarray(delta, dtype=float)
    single = d.ndim == 1
    d = np.atleast_2d(d)
    powers = np.array(mindex, dtype=float)  # (n_mi, W)
    with np.errstate(invalid="ignore"):
        vals = np.prod(np.where(powers[None, :, :] == 0, 1.0,
                                d[:, None, :] ** powers[None, :, :]), axis=2)
    vals = vals / np.array([factorial(a) for a in mindex])[None, :]
    return vals[0] if single else vals


class TotalDerivative:
    """Builds :math:`D^α h` for expressions ``h`` (see the module docstring).

    Parameters
    ----------
    state_vars : dict
        ``{(c, α): variable}`` for every component ``c`` and multi-index ``α`` (order 0: the
        state variable ``x_c``), as in the variational system.
    wrt_pars : list
        The parameters ``hy.par[i]`` of the differentiation variables.
    rhs : dict, optional
        ``{(c, α): right-hand side}``: with it, the derivatives include an event shift
        :math:`τ` whose jets are the variables :attr:`tau` (event mode).
    time_var : heyoka.expression, optional
        A variable standing for the time in event mode (:math:`∂/∂t` enters with
        :math:`τ_j`).
    """

    def __init__(self, state_vars: dict, wrt_pars: list, order: int, rhs: dict | None = None,
                 time_var=None) -> None:
        self.vars = state_vars
        self.pars = list(wrt_pars)
        self.W = len(self.pars)
        self.order = order
        self.mindex = multi_indices(self.W, order)
        self.by_name = {str(v): key for key, v in state_vars.items()}
        self.rhs = rhs
        self.time_var = time_var
        self.tau: dict[tuple[int, ...], hy.expression] = {}
        if rhs is not None:
            for a in self.mindex[1:]:
                self.tau[a] = hy.expression("quivira_tau_" + "_".join(map(str, a)))
            self.by_name.update({str(v): ("tau", a) for a, v in self.tau.items()})

    def _next(self, name: str, j: int):
        """Return the derivative of one variable in direction ``j`` (None: it does not move)."""
        key = self.by_name.get(name)
        if key is None:
            return None
        unit = self.mindex[1 + j]
        if key[0] == "tau":
            a = add_unit(key[1], j)
            return self.tau.get(a)
        c, a = key
        nxt = self.vars.get((c, add_unit(a, j)))
        if self.rhs is not None:
            flow = self.tau[unit] * self.rhs[key]
            nxt = flow if nxt is None else nxt + flow
        return nxt

    def jets(self, exprs: list) -> dict[tuple[int, ...], list]:
        """``{α: [D^α h for h in exprs]}`` for every multi-index up to the order."""
        out: dict[tuple[int, ...], list] = {self.mindex[0]: [hy.expression(e) for e in exprs]}
        by_order: dict[int, list[tuple[int, ...]]] = {}
        for a in self.mindex[1:]:
            by_order.setdefault(order_of(a), []).append(a)
        previous = [self.mindex[0]]
        for r in range(1, self.order + 1):
            flat = [e for a in previous for e in out[a]]
            names = sorted({nm for e in flat for nm in hy.get_variables(e)})
            args = [hy.expression(nm) for nm in names] + self.pars
            has_time = self.time_var is not None and str(self.time_var) in names
            jac = _jacobian(flat, args)
            n_e = len(exprs)
            for a in by_order[r]:
                beta, j = split_last(a)
                base = previous.index(beta) * n_e
                row_terms = []
                for i in range(n_e):
                    terms = []
                    for col, d in jac.get(base + i, {}).items():
                        if col < len(names):
                            nm = names[col]
                            if has_time and nm == str(self.time_var):
                                nxt = self.tau[self.mindex[1 + j]]
                            else:
                                nxt = self._next(nm, j)
                            if nxt is not None:
                                terms.append(d * nxt)
                        elif col - len(names) == j:
                            terms.append(d)
                    row_terms.append(hy.sum(terms) if len(terms) > 1 else
                                     (terms[0] if terms else hy.expression(0.0)))
                out[a] = row_terms
            previous = by_order[r]
        return out


def _jacobian(exprs: list, args: list) -> dict[int, dict[int, hy.expression]]:
    """``{row: {column: ∂e_row/∂arg_column}}`` of the non-zero first derivatives."""
    if not exprs or not args:
        return {}
    dt = hy.diff_tensors(exprs, diff_args=args, diff_order=1)
    out: dict[int, dict[int, hy.expression]] = {}
    for idx, d in dt.get_derivatives(1):
        i, col = idx[0], list(idx[1:]).index(1)
        if d != hy.expression(0.0):
            out.setdefault(i, {})[col] = d
    return out
