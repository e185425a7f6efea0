r"""Mass-matrix forms of the constrained equations, laid out as SymPy's ``LagrangesMethod``.

With :math:`n` coordinates, :math:`m` constraint rows :math:`a(q,t)\,\ddot q + c = 0`
(holonomic rows :math:`F(q,t) = 0` differentiated twice, velocity rows
:math:`A\dot q + b = 0` once), :math:`M\ddot q = f + J^T\lambda`:

* ``mass_matrix`` — :math:`[\,M \;\; -J^T\,]`, shape ``(n, n + m)`` (SymPy: ``mass_matrix``,
  whose last columns hold its ``lam_coeffs.T = -J^T``);
* ``forcing`` — :math:`f = \partial L/\partial q - (\partial^2 L/\partial\dot q\partial q)
  \dot q - \partial^2 L/\partial\dot q\partial t + Q_{nc}`, shape ``(n,)``;
* ``mass_matrix_full`` — the augmented index-1 system in :math:`x = (q, \dot q, \lambda)`,

  .. math:: \begin{bmatrix} I & 0 & 0 \\ 0 & M & -J^T \\ 0 & J & 0 \end{bmatrix}
            \begin{bmatrix} \dot q \\ \ddot q \\ \lambda \end{bmatrix}
          = \begin{bmatrix} \dot q \\ f \\ -c \end{bmatrix},

  with ``forcing_full`` the right-hand side (SymPy's ``_f_cd`` is :math:`-c`); a switched-off
  coordinate constraint has a zero row of :math:`J` and a 1 in the :math:`\lambda` block, so
  its row reads :math:`\lambda_k = 0`;
* ``rhs()`` — the explicit first-order form :math:`(\dot q, \ddot q, \lambda)` obtained by
  quivira's elimination (:math:`W\lambda = -(J\ddot q_a + c)`), as SymPy's ``rhs()`` solves
  ``mass_matrix_full`` numerically.

The multipliers are the same as SymPy's in these forms (:math:`J^T\lambda` is the
generalized constraint force). Differences from SymPy: entries are heyoka expressions in
NumPy object arrays, structural zeros are ``hy.expression(0.)``, and the rows of velocity
constraints follow the holonomic ones (as ``LagrangesMethod`` appends ``nonhol_coneqs``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import heyoka as hy
import numpy as np

from ._entries import as_expression
from .lagrangian import EOMParts, _dense, _to_expr_array, assemble_eom

__all__ = ["LagrangeForms", "lagrange_forms"]


@dataclass
class LagrangeForms:
    """The mass-matrix forms of a constrained system (see the module docstring).

    Attributes
    ----------
    parts : EOMParts
        The sparse intermediate quantities (:class:`quivira.lagrangian.EOMParts`) the forms
        are read from.
    """

    parts: EOMParts

    @property
    def n(self) -> int:
        """Number of coordinates."""
        return len(self.parts.q)

    @property
    def m(self) -> int:
        """Number of constraint rows."""
        return len(self.parts.J_rows)

    @property
    def M(self) -> np.ndarray:
        """The ``(n, n)`` mass matrix."""
        return _dense(self.parts.M_rows, self.n)

    @property
    def J(self) -> np.ndarray:
        """The ``(m, n)`` matrix of the acceleration-level rows (``∂F/∂q``, then ``A``)."""
        return _dense(self.parts.J_rows, self.n)

    @property
    def mass_matrix(self) -> np.ndarray:
        """:math:`[M, -J^T]`, shape ``(n, n + m)``."""
        return np.hstack([self.M, _negate(self.J.T)])

    @property
    def forcing(self) -> np.ndarray:
        """:math:`f`, shape ``(n,)``."""
        return _to_expr_array(self.parts.f)

    @property
    def mass_matrix_full(self) -> np.ndarray:
        """The ``(2n + m, 2n + m)`` matrix of the augmented system."""
        n, m = self.n, self.m
        out = np.empty((2 * n + m, 2 * n + m), dtype=object)
        out[...] = hy.expression(0.0)
        for i in range(n):
            out[i, i] = hy.expression(1.0)
        out[n:2 * n, n:] = self.mass_matrix
        out[2 * n:, n:2 * n] = self.J
        for k, shift in (self.parts.W_shift or {}).items():  # switched-off rows: λ_k = 0
            out[2 * n + k, 2 * n + k] = as_expression(shift)
        return out

    @property
    def forcing_full(self) -> np.ndarray:
        r""":math:`(\dot q, f, -c)`, shape ``(2n + m,)``."""
        c = [-as_expression(x) for x in self.parts.Jdqd]
        return _to_expr_array([*self.parts.qd, *self.parts.f, *c])

    def rhs(self) -> np.ndarray:
        r""":math:`(\dot q, \ddot q, \lambda)` in explicit form, shape ``(2n + m,)``."""
        return _to_expr_array([*self.parts.qd, *self.parts.qdd, *self.parts.lambda_mult])


def _negate(A: np.ndarray) -> np.ndarray:
    out = np.empty(A.shape, dtype=object)
    for idx, x in np.ndenumerate(A):
        out[idx] = x if x == hy.expression(0.0) else -x
    return out


def lagrange_forms(lagrangian: hy.expression, F: Sequence, q: Sequence, qd: Sequence,
                   Q_nc: Any = None, *, velocity_constraints: Sequence | None = None,
                   solver: Any = "lu") -> LagrangeForms:
    r"""Mass-matrix forms of the system of :func:`quivira.lagrange_eom` (same arguments).

    With :math:`M\ddot q = f + J^T\lambda` and the constraint rows
    :math:`J\ddot q + c = 0` (see the module docstring):
    ``mass_matrix`` :math:`= [M, -J^T]`, ``forcing`` :math:`= f`, and the augmented system
    ``mass_matrix_full`` :math:`(\dot q, \ddot q, \lambda)` = ``forcing_full``.

    Parameters
    ----------
    lagrangian : heyoka.expression or float
        Scalar Lagrangian :math:`\mathcal L(q, \dot q, t)` (J); may contain only the
        variables of ``q`` and ``qd``, ``hy.time`` and runtime parameters ``hy.par[i]``.
    F : sequence of heyoka.expression
        Holonomic constraint residuals :math:`F(q, t) = 0` (``[]`` for none); only the
        variables of ``q``, ``hy.time`` and ``hy.par[i]``.
    q, qd : sequence of heyoka variables
        Generalized coordinates and velocities (same length, distinct variables).
    Q_nc : sequence, optional
        Generalized non-conservative forces in the ordering of ``q`` (N for lengths, N m for
        angles); variables of ``q`` and ``qd``, ``hy.time`` and ``hy.par[i]``.
    velocity_constraints : sequence of heyoka.expression, optional
        Rows :math:`A(q, t)\dot q + b(q, t) = 0`, linear in the velocities, appended after
        those of ``F``.
    solver : {"lu", "ordered"} or callable, optional
        How :math:`W\lambda = r` is solved for ``rhs()``; see
        :func:`quivira.find_constrained_accelerations`.

    Returns
    -------
    LagrangeForms
        With ``mass_matrix``, ``forcing``, ``mass_matrix_full``, ``forcing_full`` and
        ``rhs()``, laid out as SymPy's ``LagrangesMethod`` with ``hol_coneqs``.

    Raises
    ------
    TypeError
        If an argument or entry has the wrong type (as :func:`quivira.lagrange_eom`).
    ValueError
        For mismatched lengths, stray variables (named in the message: variables outside
        ``q`` and ``qd`` in the Lagrangian, ``Q_nc`` or ``velocity_constraints``, outside
        ``q`` in ``F``), velocity constraints that are not linear in the velocities, or an
        unknown ``solver`` name (as :func:`quivira.lagrange_eom`).
    ZeroDivisionError
        If ``M`` is singular in structure or ``W`` meets a structurally zero pivot.

    Examples
    --------
    The pendulum of :func:`quivira.lagrange_eom` (a mass of 1 kg on a 1 m rod): two
    coordinates and one row give ``mass_matrix`` :math:`[M, -J^T]` of shape (2, 3) and the
    augmented ``mass_matrix_full`` of shape (5, 5); ``rhs()`` is
    :math:`(\dot x, \dot y, \ddot x, \ddot y, \lambda)`:

    >>> import heyoka as hy
    >>> import numpy as np
    >>> import quivira
    >>> x, y, vx, vy = hy.make_vars("x", "y", "vx", "vy")
    >>> L = 0.5 * (vx**2 + vy**2) - 9.81 * y
    >>> forms = quivira.lagrange_forms(L, [x**2 + y**2 - 1.0], [x, y], [vx, vy])
    >>> forms.mass_matrix.shape, forms.mass_matrix_full.shape
    ((2, 3), (5, 5))
    >>> rhs = hy.cfunc(list(forms.rhs()), vars=[x, y, vx, vy])
    >>> state = np.array([0.6, -0.8, 1.6, 1.2])  # on the circle, moving along it at 2 m/s
    >>> [round(float(v), 10) for v in rhs(state)]  # lambda = (g y - v^2) / 2
    [1.6, 1.2, -7.1088, -0.3316, -5.924]
    """
    return LagrangeForms(assemble_eom(lagrangian, F, q, qd, Q_nc,
                                      velocity_constraints=velocity_constraints, solver=solver))
