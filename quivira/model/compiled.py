"""Compiled code of a model topology: the Taylor integrator and the output functions.

A :class:`CompiledSystem` is built once per topology (see
:func:`quivira.model.builder.topology_key`) and integration tolerance, with every numeric
datum a runtime parameter. Changing a length, mass, g, force or support position only
changes the parameter vector ``pars``; the compiled integrator is reused.

Outputs along a trajectory are evaluated by one compiled function (``hy.cfunc``) on whole
arrays of states: multipliers :math:`\\lambda`, energies, position residuals :math:`F(q)`,
velocity residuals :math:`J\\dot q`, and the singularity measure
:math:`\\min_k d_k / W_{kk}`, where :math:`d_k` are the pivots of the LU factorization of the
Delassus matrix :math:`W` (for a symmetric positive definite :math:`W`,
:math:`0 < d_k \\le W_{kk}`; a ratio near 0 means the constraint rows are nearly dependent).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import heyoka as hy
import numpy as np

from .._entries import as_expression
from ..lagrangian import assemble_eom
from .builder import SymbolicModel, build_symbolic
from .components import ModelData


def default_compile_options(n_coordinates: int, purpose: str = "interactive") -> dict:
    """heyoka ``compact_mode`` / ``opt_level`` chosen by size and purpose.

    Measured on the 2-core development machine (see ``benchmarks/compile_options.py``):
    non-compact code compiles fast only for small systems, and ``opt_level=0`` compiles an
    order of magnitude faster than 3 at a modest cost in run time. ``"interactive"`` favours
    compile time; ``"long"`` favours run time for long integrations.
    """
    if purpose == "interactive":
        return {"compact_mode": n_coordinates > 6, "opt_level": 0}
    if purpose == "long":
        return {"compact_mode": n_coordinates > 30, "opt_level": 3 if n_coordinates <= 30 else 1}
    raise ValueError(f"purpose must be 'interactive' or 'long', got {purpose!r}")


@dataclass
class CompiledSystem:
    """Integrator and output functions of one topology; see the module docstring."""

    symbolic: SymbolicModel
    parts: object
    ta: object
    outputs: object
    geometry: object
    J_pattern: list
    n: int
    m: int
    tol: float | None
    options: dict
    timings: dict = field(default_factory=dict)

    @property
    def decomposition_size(self) -> int:
        """Length of heyoka's decomposition of the ODE system (a measure of its cost)."""
        return len(self.ta.decomposition)


def ode_system(parts) -> list:
    """First-order system ``[(q_i, qd_i)..., (qd_i, qdd_i)...]`` from :class:`EOMParts`."""
    n = len(parts.q)
    sys = [(parts.q[i], parts.qd[i]) for i in range(n)]
    sys += [(parts.qd[i], as_expression(parts.qdd[i])) for i in range(n)]
    return sys


def singularity_measures(parts) -> list:
    """Expressions :math:`d_k / W_{kk}` for every constraint row (see module docstring)."""
    if parts.W_fac is None:
        return []
    out = []
    for k, inv_d in enumerate(parts.W_fac.inv_diag):
        out.append(1.0 / (as_expression(inv_d) * as_expression(parts.W_rows[k][k])))
    return out


def compile_system(data: ModelData, tol: float | None, options: dict) -> CompiledSystem:
    """Build and compile the integrator and output functions for the topology of ``data``."""
    t0 = time.perf_counter()
    sym = build_symbolic(data, use_pars=True)
    parts = assemble_eom(sym.lagrangian, sym.F, sym.q, sym.qd, sym.Q_nc,
                         velocity_constraints=sym.G, W_shift=sym.W_shift)
    sys = ode_system(parts)
    n, m = len(sym.q), len(parts.lambda_mult)
    t1 = time.perf_counter()
    kwargs = dict(options)
    if tol is not None:
        kwargs["tol"] = tol
    ta = hy.taylor_adaptive(sys, [0.0] * (2 * n), **kwargs)  # pars: those the ODE uses
    t2 = time.perf_counter()
    out_exprs = [as_expression(x) for x in parts.lambda_mult]
    out_exprs += [sym.kinetic, sym.potential]
    pos_res = [as_expression(x) for x in sym.F] + [hy.expression(0.0)] * (m - len(sym.F))
    out_exprs += pos_res + [as_expression(x) for x in parts.velocity_residual]
    out_exprs += singularity_measures(parts)
    out_exprs += [as_expression(x) for x in parts.qdd]
    cf_opts = {k: options[k] for k in ("compact_mode", "opt_level") if k in options}
    cf_opts["batch_size"] = 1  # one scalar kernel: half the compile time of the SIMD pair
    outputs = hy.cfunc(out_exprs, vars=[*sym.q, *sym.qd], **cf_opts)
    pattern = [(k, j) for k, row in enumerate(parts.J_rows) for j in row]
    geo_exprs = [as_expression(x) for x in pos_res]
    geo_exprs += [as_expression(parts.J_rows[k][j]) for k, j in pattern]
    geometry = hy.cfunc(geo_exprs or [hy.expression(0.0)], vars=list(sym.q), **cf_opts)
    t3 = time.perf_counter()
    timings = {"build_s": t1 - t0, "compile_integrator_s": t2 - t1, "compile_outputs_s": t3 - t2}
    return CompiledSystem(sym, parts, ta, outputs, geometry, pattern, n, m, tol, dict(options),
                          timings)


def _time_kw(cf, t):
    return {"time": t} if cf.is_time_dependent else {}


def evaluate_geometry(cs: CompiledSystem, q: np.ndarray, pars: np.ndarray, t: float = 0.0):
    """Return ``(F(q, t), J(q, t))`` as numpy arrays (``J`` dense ``(m, n)``; rows of velocity
    constraints have ``F = 0`` and their ``A`` in ``J``)."""
    vals = cs.geometry(np.asarray(q, dtype=float), pars=pars[: cs.geometry.nparams],
                       **_time_kw(cs.geometry, t))
    F = vals[: cs.m].copy()
    J = np.zeros((cs.m, cs.n))
    for (k, j), v in zip(cs.J_pattern, vals[cs.m :], strict=True):
        J[k, j] = v
    return F, J


def evaluate_outputs(cs: CompiledSystem, states: np.ndarray, pars: np.ndarray,
                     t: np.ndarray | float = 0.0) -> dict:
    """Evaluate the outputs on ``states`` of shape ``(n_points, 2n)`` at times ``t`` in one
    batch call."""
    n_pts = states.shape[0]
    m = cs.m
    if n_pts == 0:
        vals = np.zeros((0, 2 + 4 * m + cs.n))
    else:
        p = np.asarray(pars, dtype=float)[: cs.outputs.nparams]
        batch_pars = np.repeat(p[:, None], n_pts, axis=1)
        kw = {}
        if cs.outputs.is_time_dependent:
            kw["time"] = np.broadcast_to(np.asarray(t, dtype=float), (n_pts,)).copy()
        vals = cs.outputs(np.ascontiguousarray(states.T), pars=batch_pars, **kw).T
    lam = vals[:, :m]
    kin = vals[:, m]
    pot = vals[:, m + 1]
    pos = vals[:, m + 2 : 2 * m + 2]
    vel = vals[:, 2 * m + 2 : 3 * m + 2]
    sing = vals[:, 3 * m + 2 : 4 * m + 2]
    qdd = vals[:, 4 * m + 2 :]
    return {
        "qdd": qdd,
        "lambda_mult": lam,
        "kinetic_energy": kin,
        "potential_energy": pot,
        "position_residual": pos,
        "velocity_residual": vel,
        "singularity": sing.min(axis=1) if m else np.ones(n_pts),
    }
