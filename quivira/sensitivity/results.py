r"""The result of :func:`~quivira.sensitivity.sensitivities`: jets, Taylor map, uncertainty.

A *jet* (see :mod:`.jets`) holds, for every multi-index :math:`α` with :math:`|α| ≤ k`, the
derivative :math:`∂^α y` of an output at the expansion point :math:`w_0`; the Taylor map is

.. math:: y(w_0 + δ) ≈ T_k(δ) = \sum_{|α| ≤ k} \frac{∂^α y}{α!}\, δ^α .
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..model.validation import check_positive, check_real
from .jets import factorial, monomials


def _derivative_label(alpha: tuple[int, ...], names: list[str]) -> str:
    r = sum(alpha)
    if r == 0:
        return "value"
    parts = []
    for a, nm in zip(alpha, names):
        if a:
            parts.append(f"∂{nm}" if a == 1 else f"∂{nm}^{a}")
    top = "∂" if r == 1 else f"∂^{r}"
    return f"{top}/" + " ".join(parts)


@dataclass(frozen=True)
class Normal:
    """An independent normal distribution of one variable.

    Standard deviation ``sd``, mean ``mean`` (default: the expansion point).
    """

    sd: float
    mean: float | None = None


@dataclass(frozen=True)
class Uniform:
    """An independent uniform distribution on ``[low, high]``."""

    low: float
    high: float


@dataclass
class Propagation:
    r"""Mean and covariance of outputs under independent parameter distributions.

    Attributes
    ----------
    mean : numpy.ndarray
        ``(n_t, n_out)`` (``(n_out,)`` for event times): :math:`E[T_k(δ)]`.
    cov : numpy.ndarray
        ``(n_t, n_out, n_out)``: :math:`\mathrm{Cov}[T_k(δ)]`.
    labels : list[str]
        The outputs.
    t : numpy.ndarray
        Output times.
    validity_radius : dict[str, float]
        Per variable, the ratio estimate :math:`ρ_j` of the radius within which the map's
        terms still decrease (see :meth:`Sensitivities.validity_radius`).
    spread : dict[str, float]
        Per variable, its spread: 3 standard deviations, or the largest distance of the
        uniform interval's ends from the expansion point.
    within : bool
        Whether every spread lies within the validity radius.
    """

    mean: np.ndarray
    cov: np.ndarray
    labels: list[str]
    t: np.ndarray
    validity_radius: dict
    spread: dict
    within: bool

    @property
    def sd(self) -> np.ndarray:
        """Standard deviations, the square roots of the diagonal of :attr:`cov`."""
        return np.sqrt(np.maximum(np.diagonal(self.cov, axis1=-2, axis2=-1), 0.0))


@dataclass
class Sensitivities:
    """Jets of the outputs of a motion (see the module docstring).

    Attributes
    ----------
    t : numpy.ndarray
        Output times (ending at a terminal event's time, if one occurred).
    wrt : list[str]
        The differentiation variables.
    point : numpy.ndarray
        Their values :math:`w_0` (the expansion point).
    order : int
        Highest derivative order.
    mindex : list[tuple]
        The multi-indices, in the order of the last axis of every jet array.
    arrays : dict
        ``{kind: (labels, jets)}``, ``jets`` of shape ``(n_t, n_out, n_mindex)``; kinds
        ``"state"`` (labels ``x0, y0, th0, ..., vx0, ...``), ``"energy"``, ``"lambda"``.
    events : list[dict]
        The terminal event met, if any: ``name``, ``t`` and ``jets`` of its time.
    info : dict
        Timings, the dimension of the variational state, the dependent coordinates.
    """

    t: np.ndarray
    wrt: list[str]
    point: np.ndarray
    order: int
    mindex: list
    arrays: dict
    events: list = field(default_factory=list)
    info: dict = field(default_factory=dict)

    # ------------------------------------------------------------------ access
    @property
    def derivative_labels(self) -> list[str]:
        """Readable label of each multi-index.

        For example ``"value"``, ``"∂/∂g"``, ``"∂^2/∂g ∂th0"``.
        """
        return [_derivative_label(a, self.wrt) for a in self.mindex]

    @property
    def kinds(self) -> list[str]:
        """The output kinds held (and ``"event_time"`` when an event was met)."""
        return list(self.arrays) + (["event_time"] if self.events else [])

    def _raw(self, kind: str) -> tuple[list[str], np.ndarray]:
        if not isinstance(kind, str):
            raise TypeError(f"output kind must be a string among {self.kinds}, got {kind!r}")
        if kind == "event_time" and self.events:
            return ([e["name"] for e in self.events],
                    np.array([[e["jets"] for e in self.events]]))
        if kind not in self.arrays:
            raise ValueError(f"unknown output kind {kind!r}; available: {self.kinds}")
        return self.arrays[kind]

    def array(self, kind: str = "state"):
        """Return the jets of an output kind as a labelled array.

        An ``xarray.DataArray`` with dims ``("t", "output", "derivative")`` where xarray is
        installed, else ``(numpy array, coordinates)``.
        """
        labels, jets = self._raw(kind)
        coords = {"t": self.t[: jets.shape[0]] if kind != "event_time"
                  else [e["t"] for e in self.events][:1],
                  "output": labels, "derivative": self.derivative_labels}
        try:
            import xarray as xr
        except ImportError:  # pragma: no cover - xarray is optional
            return jets, coords
        return xr.DataArray(jets, dims=("t", "output", "derivative"), coords=coords,
                            name=kind, attrs={"wrt": list(self.wrt), "order": self.order})

    def __getitem__(self, kind: str):
        """Return the jets of the output kind ``kind`` (as :meth:`array`)."""
        return self.array(kind)

    def _alpha(self, wrt: str | Sequence[str]) -> int:
        names = [wrt] if isinstance(wrt, str) else list(wrt)
        alpha = [0] * len(self.wrt)
        for nm in names:
            if nm not in self.wrt:
                raise ValueError(f"{nm!r} is not among wrt ({self.wrt})")
            alpha[self.wrt.index(nm)] += 1
        if sum(alpha) > self.order:
            raise ValueError(f"derivative of order {sum(alpha)} requested, computed up to "
                             f"order {self.order}")
        return self.mindex.index(tuple(alpha))

    def derivative(self, kind: str, output: str, wrt: str | Sequence[str] = ()) -> np.ndarray:
        """Return :math:`∂^α y` along the output times (one value for an event time).

        ``wrt`` is a name (first derivative) or a list of names (a mixed derivative; ``()``: the
        value).

        Example: ``sens.derivative("state", "th0", ["g", "g"])`` is
        :math:`∂^2θ_0/∂g^2(t)`.
        """
        labels, jets = self._raw(kind)
        if output not in labels:
            raise ValueError(f"unknown output {output!r} of {kind!r}; available: {labels}")
        k = self._alpha(wrt)
        col = jets[:, labels.index(output), k]
        return col[0] if kind == "event_time" else col

    def gradient(self, kind: str, output: str) -> np.ndarray:
        """First derivatives ``(n_t, W)`` (``(W,)`` for an event time)."""
        labels, jets = self._raw(kind)
        if output not in labels:
            raise ValueError(f"unknown output {output!r} of {kind!r}; available: {labels}")
        g = jets[:, labels.index(output), 1: 1 + len(self.wrt)]
        return g[0] if kind == "event_time" else g

    # ------------------------------------------------------------------ Taylor map
    def _delta(self, point: Mapping | Sequence | np.ndarray) -> np.ndarray:
        if isinstance(point, Mapping):
            delta = np.zeros(len(self.wrt))
            for nm, v in point.items():
                if nm not in self.wrt:
                    raise ValueError(f"taylor_map: {nm!r} is not among wrt ({self.wrt})")
                delta[self.wrt.index(nm)] = check_real(v, f"taylor_map: {nm}") - \
                    self.point[self.wrt.index(nm)]
            return delta
        arr = np.asarray(point, dtype=float)
        if arr.shape[-1:] != (len(self.wrt),):
            raise ValueError(f"taylor_map: expected {len(self.wrt)} values (wrt order "
                             f"{self.wrt}), got shape {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError("taylor_map: the values must be finite")
        return arr - self.point

    def taylor_map(self, point: Mapping | Sequence | np.ndarray,
                   kind: str | None = None) -> dict | np.ndarray:
        """Predict the outputs at other values of the variables, :math:`T_k(w - w_0)`.

        Parameters
        ----------
        point : mapping or array
            ``{name: value}`` (others at the expansion point) or values in ``wrt`` order
            (an array ``(N, W)`` predicts N points at once).
        kind : str, optional
            One output kind; by default all, as a dict (``"event_time"``: one value per
            event).
        """
        delta = self._delta(point)
        mono = monomials(self.mindex, delta)
        kinds = [kind] if kind is not None else self.kinds
        out = {}
        for k in kinds:
            _, jets = self._raw(k)
            val = jets @ mono.T  # (n_t, n_out) or (n_t, n_out, N)
            if k == "event_time":
                val = val[0]
            out[k] = val
        return out[kind] if kind is not None else out

    # ------------------------------------------------------------------ uncertainty
    def validity_radius(self, kind: str = "state", outputs: Sequence[str] | None = None
                        ) -> dict[str, float]:
        r"""Estimate, per variable :math:`w_j`, the radius within which the Taylor map holds.

        The ratio estimate of the radius within which the terms of the map along :math:`w_j`
        still decrease,

        .. math:: ρ_j = \min_{y} \frac{\max_t |∂_j^{k-1} y(t)|/(k-1)!}
            {\max_t |∂_j^{k} y(t)|/k!},

        over the outputs (all of ``kind``, or ``outputs``; the maxima over the output times
        keep a derivative that crosses zero at some time from faking a small radius; outputs
        whose order-k terms are below 1e-12 of the largest are ignored). Beyond :math:`ρ_j`
        the last term of the map exceeds the one before it and the truncated series cannot
        be trusted; well inside, the truncation
        error is about the first omitted term. Needs ``order >= 2`` (``inf`` where the
        highest-order derivatives vanish).
        """
        if self.order < 2:
            raise ValueError("validity_radius needs sensitivities of order >= 2 (it compares "
                             "the last two orders of the map)")
        labels, jets = self._raw(kind)
        sel = list(range(len(labels))) if outputs is None else \
            [labels.index(o) for o in outputs]
        k = self.order
        out = {}
        for j, nm in enumerate(self.wrt):
            hi = [0] * len(self.wrt)
            lo = [0] * len(self.wrt)
            hi[j], lo[j] = k, k - 1
            c_hi = np.max(np.abs(jets[:, sel, self.mindex.index(tuple(hi))]), axis=0) / \
                math.factorial(k)
            c_lo = np.max(np.abs(jets[:, sel, self.mindex.index(tuple(lo))]), axis=0) / \
                math.factorial(k - 1)
            floor = 1e-12 * max(np.max(c_hi, initial=0.0), 1e-300)
            mask = c_hi > floor
            ratios = c_lo[mask] / c_hi[mask]
            out[nm] = float(np.min(ratios)) if ratios.size else math.inf
        return out

    def propagate(self, distribution: Mapping[str, Any], kind: str = "state",
                  outputs: Sequence[str] | None = None) -> Propagation:
        r"""Mean and covariance of outputs when the variables are independent random values.

        With :math:`δ = w - w_0` and the Taylor map :math:`T_k(δ) = \sum_α c_α δ^α/α!`,

        .. math:: E[T_k] = \sum_α \frac{c_α}{α!} E[δ^α], \qquad
            \mathrm{Cov}[T_k] = \sum_{α,β} \frac{c_α c_β^T}{α!\,β!}
            \big(E[δ^{α+β}] - E[δ^α] E[δ^β]\big),

        exact moments of the polynomial (:math:`E[δ^α] = \prod_j E[δ_j^{α_j}]`,
        independence). At order 1 the mean is the nominal output (no correction); order 2
        adds the :math:`\tfrac12 ∂^2 y\, σ^2` correction of the mean and the quadratic
        terms of the covariance (its :math:`σ^4` terms are then complete only if third
        derivatives are negligible). The estimate holds while the spread stays within
        :meth:`validity_radius` (``within`` says so; with ``order=1`` it cannot be checked
        and is ``False``).

        Parameters
        ----------
        distribution : mapping
            ``{name: Normal(sd) | Uniform(low, high)}`` (or ``("normal", sd)``,
            ``("uniform", low, high)``); variables not named stay at their values.
        kind : str
            The output kind (``"state"``, ``"energy"``, ``"lambda"``, ``"event_time"``).
        outputs : list of str, optional
            A subset of its outputs.
        """
        if not isinstance(distribution, Mapping) or not distribution:
            raise TypeError("distribution must be a non-empty mapping {name: Normal(sd) or "
                            f"Uniform(low, high)}}, got {distribution!r}")
        W = len(self.wrt)
        max_pow = 2 * self.order
        raw = np.zeros((W, max_pow + 1))
        raw[:, 0] = 1.0
        spread = {}
        for nm, dist in distribution.items():
            if nm not in self.wrt:
                raise ValueError(f"distribution: {nm!r} is not among wrt ({self.wrt})")
            j = self.wrt.index(nm)
            dist = _as_distribution(dist, nm)
            raw[j], spread[nm] = _raw_moments(dist, self.point[j], max_pow)
        labels, jets = self._raw(kind)
        sel = list(range(len(labels))) if outputs is None else \
            [labels.index(o) for o in outputs]
        C = jets[:, sel, :]  # (n_t, n_out, n_mi)
        mi = np.array(self.mindex)
        fact = np.array([factorial(a) for a in self.mindex])
        m1 = np.prod(raw[np.arange(W)[None, :], mi], axis=1) / fact  # E[δ^α]/α!
        pair = mi[:, None, :] + mi[None, :, :]
        m2 = np.prod(raw[np.arange(W)[None, None, :], pair], axis=2) / np.outer(fact, fact)
        M = m2 - np.outer(m1, m1)
        mean = C @ m1
        cov = np.einsum("toa,ab,tpb->top", C, M, C)
        radius = self.validity_radius(kind, [labels[i] for i in sel]) if self.order >= 2 \
            else {nm: math.nan for nm in self.wrt}
        within = self.order >= 2 and all(spread[nm] <= radius[nm] for nm in spread)
        t = self.t[: C.shape[0]] if kind != "event_time" else np.array(
            [e["t"] for e in self.events][:1])
        if kind == "event_time":
            mean, cov = mean[0], cov[0]
        return Propagation(mean=mean, cov=cov, labels=[labels[i] for i in sel], t=t,
                           validity_radius={nm: radius[nm] for nm in self.wrt},
                           spread=spread, within=bool(within))


def _as_distribution(dist: Any, name: str):
    if isinstance(dist, (Normal, Uniform)):
        d = dist
    elif isinstance(dist, tuple) and dist and dist[0] == "normal" and len(dist) in (2, 3):
        d = Normal(*dist[1:])
    elif isinstance(dist, tuple) and dist and dist[0] == "uniform" and len(dist) == 3:
        d = Uniform(*dist[1:])
    else:
        raise TypeError(f"distribution of {name!r}: expected Normal(sd), Uniform(low, high), "
                        f"('normal', sd) or ('uniform', low, high), got {dist!r}")
    if isinstance(d, Normal):
        check_positive(d.sd, f"distribution of {name!r}: sd")
        if d.mean is not None:
            check_real(d.mean, f"distribution of {name!r}: mean")
    else:
        lo = check_real(d.low, f"distribution of {name!r}: low")
        hi = check_real(d.high, f"distribution of {name!r}: high")
        if not lo < hi:
            raise ValueError(f"distribution of {name!r}: low must be below high, got "
                             f"[{lo:g}, {hi:g}]")
    return d


def _raw_moments(dist, w0: float, max_pow: int) -> tuple[np.ndarray, float]:
    """:math:`E[δ^n]`, n = 0..max_pow, of :math:`δ = w - w_0`, and the spread of ``δ``."""
    n = np.arange(max_pow + 1)
    if isinstance(dist, Normal):
        mu = (w0 if dist.mean is None else dist.mean) - w0
        central = np.array([0.0 if k % 2 else
                            (dist.sd ** k * np.prod(np.arange(k - 1, 0, -2)) if k else 1.0)
                            for k in n])
        out = np.array([sum(math.comb(p, i) * mu ** (p - i) * central[i]
                            for i in range(p + 1)) for p in n])
        return out, float(abs(mu) + 3.0 * dist.sd)
    a, b = dist.low - w0, dist.high - w0
    out = np.array([(b ** (p + 1) - a ** (p + 1)) / ((p + 1) * (b - a)) for p in n])
    return out, float(max(abs(a), abs(b)))
