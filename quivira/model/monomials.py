r"""Sums of monomials ``coefficient × atom`` for building a bar model's equations cheaply.

The entries of a bar model's :math:`J`, :math:`\dot J\dot q`, :math:`W = J M^{-1} J^T` and
right-hand sides are sums of products of a *coefficient*, which depends only on the model's
data (lengths, masses, g, points on bars), and an *atom*, a product of functions of the state
such as :math:`\sin θ_i`, :math:`\cos θ_i\,\dot θ_i^2` or a coordinate.

A :data:`Poly` keeps that split: ``{atom_key: coefficient}``, where an atom key is the sorted
tuple of the names of its factors (``()`` is the atom 1) and a coefficient is a polynomial in
the model's runtime parameters, ``{(i, j, ...): c}`` for :math:`c\,p_i p_j \cdots`. Products
and sums are formed here exactly, in Python, and turned into heyoka expressions only at the
end (:func:`to_expression`):

* each coefficient becomes **one** runtime parameter, a *derived* one registered in
  :class:`Coefficients` and computed from the base parameters before each run
  (:meth:`Coefficients.values`), so the compiled code does no arithmetic on data;
* each atom is built once (:class:`AtomTable`) and shared by every entry that contains it:
  for a bar, :math:`\sin^2θ`, :math:`\sin θ\cos θ`, :math:`\cos^2 θ` serve all the
  entries of :math:`W` that the bar couples.

The expressions are the same functions as the ones built term by term from the Lagrangian;
they only cost fewer operations in heyoka's Taylor decomposition.
"""

from __future__ import annotations

from collections.abc import Iterable

import heyoka as hy
import numpy as np

#: a polynomial in the runtime parameters: sorted parameter indices -> constant factor
ParamPoly = dict[tuple[int, ...], float]
#: a sum of monomials: sorted atom factor names -> coefficient
Poly = dict[tuple[str, ...], ParamPoly]


def constant(c: float, *params: int) -> Poly:
    r"""Return the monomial :math:`c\,p_{i}p_{j}\cdots` with the atom 1."""
    return {(): {tuple(sorted(params)): float(c)}} if c != 0.0 else {}


def monomial(atom: Iterable[str], c: float, *params: int) -> Poly:
    r"""Return the monomial :math:`c\,p_i\cdots\,a_1 a_2\cdots` (atom factors by name)."""
    return {tuple(sorted(atom)): {tuple(sorted(params)): float(c)}} if c != 0.0 else {}


def add(*polys: Poly) -> Poly:
    """Sum of polys (terms with equal atoms and parameters are merged)."""
    out: Poly = {}
    for p in polys:
        for atom, coef in p.items():
            acc = out.setdefault(atom, {})
            for pars, c in coef.items():
                acc[pars] = acc.get(pars, 0.0) + c
    return out


def mul(a: Poly, b: Poly) -> Poly:
    """Product of two polys."""
    out: Poly = {}
    for atom_a, coef_a in a.items():
        for atom_b, coef_b in b.items():
            acc = out.setdefault(tuple(sorted(atom_a + atom_b)), {})
            for pa, ca in coef_a.items():
                for pb, cb in coef_b.items():
                    key = tuple(sorted(pa + pb))
                    acc[key] = acc.get(key, 0.0) + ca * cb
    return out


def scale(p: Poly, c: float) -> Poly:
    """``c`` times a poly."""
    return {atom: {pars: c * v for pars, v in coef.items()} for atom, coef in p.items()}


def _canonical(coef: ParamPoly) -> tuple:
    return tuple(sorted((pars, c) for pars, c in coef.items() if c != 0.0))


class Coefficients:
    """Registry of the derived runtime parameters: each a polynomial in the base ones.

    Base parameters are ``hy.par[0 .. n_base - 1]`` (the model's
    :func:`~quivira.model.symbolic.parameter_layout`); derived ones follow in order of
    registration.
    """

    def __init__(self, n_base: int) -> None:
        self.n_base = n_base
        self._index: dict[tuple, int] = {}
        self._terms: list[tuple] = []
        self._flat_cache: tuple | None = None  # (number of terms it covers, arrays)
        self._formulas: tuple[int, dict] = (0, {})  # (number of terms it covers, formulas)

    def __len__(self) -> int:
        """Return the number of derived parameters."""
        return len(self._terms)

    def extends(self, other: Coefficients) -> bool:
        """Whether every derived parameter of ``other`` is one of these, at the same index."""
        n = len(other._terms)
        return other.n_base == self.n_base and other._terms == self._terms[:n]

    def expression(self, coef: ParamPoly) -> hy.expression | None:
        """Return the coefficient as one expression.

        ``None`` if it is zero, a constant if it has no parameter, the base ``hy.par[i]`` itself
        if it is just that, else a derived ``hy.par[k]``.
        """
        terms = _canonical(coef)
        if not terms:
            return None
        if len(terms) == 1:
            pars, c = terms[0]
            if not pars:
                return hy.expression(c)
            if len(pars) == 1 and c == 1.0:
                return hy.par[pars[0]]
        k = self._index.get(terms)
        if k is None:
            k = self.n_base + len(self._terms)
            self._index[terms] = k
            self._terms.append(terms)
        return hy.par[k]

    def values(self, base: np.ndarray) -> np.ndarray:
        """Return the whole parameter vector: ``base`` followed by the derived values."""
        base = np.asarray(base, dtype=float)
        if base.shape[0] != self.n_base:
            raise ValueError(f"expected {self.n_base} base parameter values, got {base.shape[0]}")
        if not self._terms:
            return base.copy()
        owner, consts, factors = self._flat()
        ext = np.append(base, 1.0)  # index n_base: the factor 1 padding shorter products
        vals = np.bincount(owner, weights=consts * np.prod(ext[factors], axis=1),
                           minlength=len(self._terms))
        return np.concatenate([base, vals])

    def _flat(self):
        """Return the index arrays of all terms (owner, constant, factors padded with 1's index).

        Rebuilt only when parameters were registered since.
        """
        cached = self._flat_cache
        if cached is not None and cached[0] == len(self._terms):
            return cached[1]
        rows = [(k, c, pars) for k, terms in enumerate(self._terms) for pars, c in terms]
        width = max(len(p) for _, _, p in rows)
        owner = np.array([k for k, _, _ in rows], dtype=np.int64)
        consts = np.array([c for _, c, _ in rows])
        factors = np.full((len(rows), max(width, 1)), self.n_base, dtype=np.int64)
        for r, (_, _, pars) in enumerate(rows):
            factors[r, : len(pars)] = pars
        self._flat_cache = (len(self._terms), (owner, consts, factors))
        return owner, consts, factors

    def formulas(self) -> dict:
        """Return ``{hy.par[k]: expression in the base parameters}`` for every derived parameter.

        For :func:`heyoka.subs`, e.g. before differentiating with respect to a datum; built once,
        extended when parameters were registered since.
        """
        done, out = self._formulas
        for k in range(done, len(self._terms)):
            parts = []
            for pars, c in self._terms[k]:
                e = hy.expression(c)
                for i in pars:
                    e = e * hy.par[i]
                parts.append(e)
            out[hy.par[self.n_base + k]] = parts[0] if len(parts) == 1 else hy.sum(parts)
        self._formulas = (len(self._terms), out)
        return dict(out)


class AtomTable:
    """The expressions of atoms, each product built once from its factors.

    ``factors`` maps factor names to expressions (e.g. ``"s3"`` to ``sin(th3)``); an atom
    ``(a, b, c)`` is built as ``(a·b)·c``, so atoms sharing a sorted prefix share its product.
    """

    def __init__(self, factors: dict[str, hy.expression]) -> None:
        self.factors = dict(factors)
        self._cache: dict[tuple[str, ...], hy.expression] = {}
        self._names: dict[hy.expression, str] = {}

    def name_of(self, expr: hy.expression) -> str:
        """Register an arbitrary expression as a factor and return its name.

        Equal expressions, by heyoka's structural equality, get the same name (``str`` would not
        do: heyoka shortens long printouts, so different expressions could print alike).
        """
        name = self._names.get(expr)
        if name is None:
            name = f"e:{len(self._names)}"
            self._names[expr] = name
            self.factors[name] = expr
        return name

    def expression(self, atom: tuple[str, ...]) -> hy.expression:
        """Return the heyoka expression of an atom (the product of its factors), cached."""
        e = self._cache.get(atom)
        if e is None:
            if len(atom) == 1:
                e = self.factors[atom[0]]
            else:
                e = self.expression(atom[:-1]) * self.factors[atom[-1]]
            self._cache[atom] = e
        return e


def to_expression(p: Poly, coefs: Coefficients, atoms: AtomTable):
    """Return the poly as a flat sum ``Σ coefficient · atom`` (a float 0.0 when it vanishes)."""
    terms = []
    for atom in sorted(p):
        c = coefs.expression(p[atom])
        if c is None:
            continue
        terms.append(c if not atom else c * atoms.expression(atom))
    if not terms:
        return 0.0
    return terms[0] if len(terms) == 1 else hy.sum(terms)


def grouped_sum(groups: dict[tuple[str, ...], list], atoms: AtomTable):
    """Return ``Σ_atom atom · Σ_k x_k`` for ``groups = {atom: [x_k, ...]}``.

    A float 0.0 if empty; one product per atom however many terms share it.
    """
    terms = []
    for atom in sorted(groups):
        xs = [x for x in groups[atom] if x is not None]
        if not xs:
            continue
        s = xs[0] if len(xs) == 1 else hy.sum(xs)
        terms.append(s if not atom else atoms.expression(atom) * s)
    if not terms:
        return 0.0
    return terms[0] if len(terms) == 1 else hy.sum(terms)
