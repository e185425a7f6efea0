r"""Design by exact gradients: ``quivira.optimize``.

scipy.optimize with gradients from the variational equations.

The objective is a Python function of an :class:`Objective` view of one run; what it reads
from the view are :class:`Dual` numbers, a value with its gradient with respect to the design
variables (forward-mode differentiation: :math:`(u, ∇u) ∘ (v, ∇v)` by the chain rule), so
the objective's gradient is exact to the integration's accuracy. Peaks use the output time
of the largest value (Danskin's theorem: the gradient of :math:`\max_i y(t_i, w)` is that of
the maximizing term, where it is unique).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model.validation import check_real
from .analysis import sensitivities
from .results import Sensitivities


class Dual:
    """A value with its gradient, :math:`(u, ∇u)`; arithmetic applies the chain rule."""

    __slots__ = ("value", "grad")

    def __init__(self, value: float, grad: np.ndarray) -> None:
        self.value = float(value)
        self.grad = np.asarray(grad, dtype=float)

    @staticmethod
    def _lift(other: Any, n: int) -> Dual:
        if isinstance(other, Dual):
            return other
        return Dual(check_real(other, "a number in the objective"), np.zeros(n))

    def __add__(self, other):
        """Return the sum: values and gradients add."""
        o = self._lift(other, self.grad.size)
        return Dual(self.value + o.value, self.grad + o.grad)

    __radd__ = __add__

    def __sub__(self, other):
        """Return the difference: values and gradients subtract."""
        o = self._lift(other, self.grad.size)
        return Dual(self.value - o.value, self.grad - o.grad)

    def __rsub__(self, other):
        """Return ``other - self``."""
        return self._lift(other, self.grad.size) - self

    def __neg__(self):
        """Return the negation of value and gradient."""
        return Dual(-self.value, -self.grad)

    def __mul__(self, other):
        """Return the product, with the product rule :math:`(uv)' = u'v + uv'`."""
        o = self._lift(other, self.grad.size)
        return Dual(self.value * o.value, self.grad * o.value + o.grad * self.value)

    __rmul__ = __mul__

    def __truediv__(self, other):
        """Return the quotient, with the quotient rule :math:`(u/v)' = (u'v - uv')/v^2`."""
        o = self._lift(other, self.grad.size)
        return Dual(self.value / o.value,
                    (self.grad * o.value - o.grad * self.value) / (o.value * o.value))

    def __rtruediv__(self, other):
        """Return ``other / self``."""
        return self._lift(other, self.grad.size) / self

    def __pow__(self, p: float):
        """Return the power to a real exponent :math:`p`, with :math:`(u^p)' = p u^{p-1} u'`."""
        p = check_real(p, "exponent")
        return Dual(self.value ** p, p * self.value ** (p - 1.0) * self.grad)

    def __abs__(self):
        """Return the absolute value (the gradient's sign follows the value's)."""
        return self if self.value >= 0.0 else -self

    def __float__(self) -> float:
        """Return the value, dropping the gradient."""
        return self.value

    def __repr__(self) -> str:
        """Return ``Dual(value, grad=...)``."""
        return f"Dual({self.value!r}, grad={self.grad!r})"


class Objective:
    """What an objective function reads from one run (values as :class:`Dual`).

    Parameters
    ----------
    sens : Sensitivities
        First-order sensitivities of the run.
    """

    def __init__(self, sens: Sensitivities) -> None:
        self.sens = sens
        self.t = sens.t

    def _series(self, kind: str, output: str) -> tuple[np.ndarray, np.ndarray]:
        values = self.sens.derivative(kind, output)
        grads = self.sens.gradient(kind, output)
        return values, grads

    def at(self, kind: str, output: str, index: int = -1) -> Dual:
        """Return the output at one output time (default: the last)."""
        v, g = self._series(kind, output)
        return Dual(v[index], g[index])

    def final(self, output: str, kind: str = "state") -> Dual:
        """Return the output at the final time (``output`` e.g. ``"th3"``)."""
        return self.at(kind, output, -1)

    def peak_abs(self, kind: str, output: str) -> Dual:
        r"""Return :math:`\max_i |y(t_i)|` over the output times.

        With its gradient at the maximizing time.
        """
        v, g = self._series(kind, output)
        i = int(np.argmax(np.abs(v)))
        return abs(Dual(v[i], g[i]))

    def integral(self, kind: str, output: str) -> Dual:
        r"""Return :math:`\int y\,dt` over the run by the trapezoidal rule on the output times.

        The gradient is the same rule applied to :math:`∂y/∂w`.
        """
        v, g = self._series(kind, output)
        t = self.t[: v.shape[0]]
        dt = np.diff(t)
        w = np.zeros_like(t)
        w[:-1] += dt / 2
        w[1:] += dt / 2
        return Dual(w @ v, w @ g)

    def event_time(self, name: str | None = None) -> Dual:
        """Return the time of the terminal event met (``name`` to check which one)."""
        if not self.sens.events:
            raise ValueError("the objective needs an event time, but no terminal event "
                             "occurred before t_end; raise t_end or check the event")
        ev = self.sens.events[0]
        if name is not None and ev["name"] != name:
            raise ValueError(f"the terminal event met was {ev['name']!r}, not {name!r}")
        W = len(self.sens.wrt)
        return Dual(ev["jets"][0], ev["jets"][1: 1 + W])


@dataclass
class OptimizeResult:
    """The result of :func:`optimize`.

    Attributes
    ----------
    x : numpy.ndarray
        The optimal values, in ``wrt`` order; ``values`` by name.
    fun : float
        The objective there; ``jac`` its gradient.
    success : bool
        scipy's verdict; ``message`` its message, ``nit``/``nfev`` its counts.
    scipy_result : object
        scipy's own result.
    """

    x: np.ndarray
    values: dict
    fun: float
    jac: np.ndarray
    success: bool
    message: str
    nit: int
    nfev: int
    scipy_result: Any


def optimize(model, objective: Callable[[Objective], Dual], wrt: Sequence[str],
             bounds: Sequence[tuple[float | None, float | None]] | None = None, *,
             t_end: float, x0: Sequence[float] | None = None, n_points: int = 201,
             outputs: Sequence[str] = ("state",), method: str = "L-BFGS-B",
             tol: float | None = None, options: Mapping | None = None) -> OptimizeResult:
    """Minimize an objective over a trajectory with exact gradients.

    Each evaluation runs :func:`~quivira.sensitivity.sensitivities` of order 1 at the trial
    values (the model itself is not changed; the compiled variational integrator is reused)
    and calls ``objective`` on its :class:`Objective` view, which returns a :class:`Dual`
    :math:`(J(w), ∇J(w))`; ``scipy.optimize.minimize`` gets both (``jac=True``).

    Parameters
    ----------
    model : bar_joint_model
        The model (not changed; apply the result with its setters).
    objective : callable
        ``objective(view) -> Dual``, e.g. ``lambda v: (v.event_time() - 1.2) ** 2`` or
        ``lambda v: v.peak_abs("lambda", "joint 3 · bar 4 · x")``.
    wrt : list of str
        The design variables (names as for ``sensitivities``).
    bounds : list of (low, high), optional
        Bounds per variable (None for none).
    t_end : float
        Length of each run (s).
    x0 : list of float, optional
        Starting values (default: the model's).
    n_points : int
        Output times per run (peaks and integrals use them).
    outputs : list of str
        Output kinds the objective reads (``"state"``, ``"energy"``, ``"lambda"``).
    method : str
        A scipy.optimize.minimize method that uses gradients (default L-BFGS-B).
    tol : float, optional
        Integrator tolerance.
    options : mapping, optional
        Passed to scipy.

    Raises
    ------
    TypeError
        ``objective`` is not callable or does not return a Dual.
    ValueError
        Bad names, bounds or starting values.
    """
    try:
        from scipy.optimize import minimize
    except ImportError:  # pragma: no cover - scipy is installed with the test extras
        raise ImportError("quivira.optimize needs scipy (pip install scipy)") from None

    if not callable(objective):
        raise TypeError(f"objective must be a function of an Objective view, got {objective!r}")
    base = sensitivities(model, t_end, wrt, 1, outputs, n_points, tol=tol)
    names = list(base.wrt)
    W = len(names)
    start = base.point.copy() if x0 is None else np.array(
        [check_real(v, "x0") for v in x0], dtype=float)
    if start.shape != (W,):
        raise ValueError(f"x0: expected {W} values (one per wrt name), got {start.shape}")
    if bounds is not None:
        bounds = list(bounds)
        if len(bounds) != W:
            raise ValueError(f"bounds: expected {W} pairs (one per wrt name), got {len(bounds)}")
        for (lo, hi), nm in zip(bounds, names):
            if lo is not None and hi is not None and not check_real(lo, f"bounds of {nm}") < \
                    check_real(hi, f"bounds of {nm}"):
                raise ValueError(f"bounds of {nm!r}: low must be below high, got ({lo}, {hi})")
    cache: dict[tuple, Dual] = {}

    def evaluate(x: np.ndarray) -> Dual:
        key = tuple(np.asarray(x, dtype=float))
        hit = cache.get(key)
        if hit is None:
            s = base if np.array_equal(x, base.point) else sensitivities(
                model, t_end, names, 1, outputs, n_points, tol=tol, at=list(key))
            hit = objective(Objective(s))
            if not isinstance(hit, Dual):
                raise TypeError(f"the objective must return a Dual (a value read from the "
                                f"view, or arithmetic on such values), got {hit!r}")
            if not np.isfinite(hit.value) or not np.all(np.isfinite(hit.grad)):
                raise ValueError(f"the objective is not finite at {dict(zip(names, key))}")
            cache[key] = hit
        return hit

    def fun(x):
        d = evaluate(x)
        return d.value, d.grad

    res = minimize(fun, start, jac=True, bounds=bounds, method=method,
                   options=dict(options or {}))
    final = evaluate(res.x)
    return OptimizeResult(x=np.array(res.x), values=dict(zip(names, map(float, res.x))),
                          fun=final.value, jac=final.grad, success=bool(res.success),
                          message=str(res.message), nit=int(getattr(res, "nit", 0)),
                          nfev=int(res.nfev), scipy_result=res)
