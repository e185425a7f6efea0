r"""Constraint rows at acceleration level: holonomic (possibly rheonomic) and velocity rows.

Every constraint row enters the equations of motion as

.. math:: a_k(q, t)\,\ddot q + c_k(q, \dot q, t) = 0,

stored as the sparse row :math:`a_k` ("row of J") and the term :math:`c_k`.

*Holonomic* rows :math:`F_k(q, t) = 0`: :math:`a_k = \partial F_k/\partial q` and

.. math:: c_k = \frac{\partial (J_k\dot q)}{\partial q}\dot q
          + 2\frac{\partial J_k}{\partial t}\dot q + \frac{\partial^2 F_k}{\partial t^2},

the velocity residual being :math:`J_k\dot q + \partial F_k/\partial t`.

*Velocity* rows :math:`g_k = A_k(q, t)\dot q + b_k(q, t) = 0` (linear in :math:`\dot q`):
:math:`a_k = \partial g_k/\partial \dot q = A_k` and
:math:`c_k = (\partial g_k/\partial q)\,\dot q + \partial g_k/\partial t`; the velocity
residual is :math:`g_k` itself.

Time derivatives are taken by replacing ``hy.time`` with an auxiliary coordinate τ whose
velocity is 1, differentiating, and substituting back: with
:math:`\tilde q = (q, τ)`, :math:`\dot{\tilde q} = (\dot q, 1)` the holonomic formula
above is the single directional derivative
:math:`c_k = \partial(\tilde J_k \dot{\tilde q})/\partial \tilde q \cdot \dot{\tilde q}`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import heyoka as hy

from ._entries import flat_sum, is_zero

_TAU = hy.expression("quivira_tau")


def _index(variables: list) -> dict[str, int]:
    return {str(v): i for i, v in enumerate(variables)}


def _deps(expr: Any, index: dict[str, int]) -> list[int]:
    if not isinstance(expr, hy.expression):
        return []
    return sorted(index[v] for v in hy.get_variables(expr) if v in index)


def _untime(expr: Any) -> Any:
    return hy.subs(expr, {hy.time: _TAU}) if isinstance(expr, hy.expression) else expr


def _retime(expr: Any) -> Any:
    return hy.subs(expr, {_TAU: hy.time}) if isinstance(expr, hy.expression) else expr


def _grad(expr: Any, variables: list, index: dict[str, int]) -> dict[int, Any]:
    out = {}
    for j in _deps(expr, index):
        d = hy.diff(expr, variables[j])
        if not is_zero(d):
            out[j] = d
    return out


@dataclass
class Rows:
    """Constraint rows: ``a`` (sparse rows, dict column → entry), ``c``, velocity residuals."""

    a: list
    c: list
    velocity_residual: list


def holonomic_rows(F: list, q: list, qd: list) -> Rows:
    r"""Rows of :math:`F(q, t) = 0` (see the module docstring).

    Inputs are not validated here (:func:`quivira.lagrange_eom` does it).

    Parameters
    ----------
    F : list
        Residuals :math:`F_k(q, t)`: numbers or heyoka expressions of ``q``, ``hy.time`` and
        runtime parameters.
    q, qd : list of heyoka variables
        Coordinates and velocities (same length).

    Returns
    -------
    Rows
        ``a[k]`` the sparse row :math:`\partial F_k/\partial q`, ``c[k]`` the term
        :math:`c_k`, ``velocity_residual[k]`` :math:`J_k\dot q + \partial F_k/\partial t`.
    """
    q_aug = [*q, _TAU]
    qd_aug = [*qd, 1.0]
    idx = _index(q_aug)
    n = len(q)
    a_rows, c_rows, v_rows = [], [], []
    for Fk in F:
        Fk_t = _untime(Fk)
        grad = _grad(Fk_t, q_aug, idx)
        Jqd_aug = flat_sum([x * qd_aug[j] for j, x in grad.items()])  # J qd + dF/dt
        c = flat_sum([d * qd_aug[j] for j, d in _grad(Jqd_aug, q_aug, idx).items()])
        a_rows.append({j: _retime(x) for j, x in grad.items() if j < n})
        c_rows.append(_retime(c))
        v_rows.append(_retime(Jqd_aug))
    return Rows(a_rows, c_rows, v_rows)


def velocity_rows(G: list, q: list, qd: list, *, allow_nonlinear: bool = False) -> Rows:
    r"""Rows of :math:`A(q, t)\dot q + b(q, t) = 0` (see the module docstring).

    With ``allow_nonlinear`` a row may be any :math:`g(q, \dot q, t) = 0`: then
    :math:`a = \partial g/\partial\dot q` depends on the velocities, the acceleration
    equation is still :math:`a\ddot q + (\partial g/\partial q)\dot q + \partial g/\partial t
    = 0`, and the constraint force :math:`a^T\lambda` follows Chetaev's rule (as Exudyn's
    velocity-level coordinate constraints with quadratic terms).

    Inputs are not validated here beyond linearity (:func:`quivira.lagrange_eom` checks the
    variables).

    Parameters
    ----------
    G : list
        Residuals :math:`g_k(q, \dot q, t)`: numbers or heyoka expressions.
    q, qd : list of heyoka variables
        Coordinates and velocities (same length).
    allow_nonlinear : bool, optional
        Accept rows that are not linear in the velocities (see above). Default False.

    Returns
    -------
    Rows
        ``a[k]`` the sparse row :math:`\partial g_k/\partial \dot q`, ``c[k]`` the term
        :math:`c_k`, ``velocity_residual[k]`` :math:`g_k`.

    Raises
    ------
    ValueError
        If a row is not linear in the velocities and ``allow_nonlinear`` is False.
    """
    q_aug = [*q, _TAU]
    qd_aug = [*qd, 1.0]
    iq = _index(q_aug)
    iqd = _index(qd)
    a_rows, c_rows, v_rows = [], [], []
    for k, g in enumerate(G):
        g_t = _untime(g)
        A = _grad(g_t, qd, iqd)
        for j, x in A.items():
            if not allow_nonlinear and _deps(x, iqd):
                raise ValueError(
                    f"velocity_constraints[{k}]: must be linear in the velocities "
                    f"(A(q, t) qd + b(q, t)), but d/d{qd[j]} still depends on velocities"
                )
        c = flat_sum([d * qd_aug[j] for j, d in _grad(g_t, q_aug, iq).items()])
        a_rows.append({j: _retime(x) for j, x in A.items()})
        c_rows.append(_retime(c))
        v_rows.append(g)
    return Rows(a_rows, c_rows, v_rows)
