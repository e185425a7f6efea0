"""SymPy mechanics + SciPy: ``LagrangesMethod`` with holonomic constraints, ``solve_ivp``.

The textbook route: the Lagrangian :math:`\\mathcal L = \\sum_i \\tfrac12 m_i(\\dot x_i^2 +
\\dot y_i^2) + \\tfrac12 \\tfrac{m_i L_i^2}{12} \\dot θ_i^2 - m_i g y_i` in maximal coordinates
``(x, y, θ)`` per bar, joints and supports as ``hol_coneqs``;
``LagrangesMethod.form_lagranges_equations()`` then gives ``mass_matrix_full`` and
``forcing_full`` of the system ``mass_matrix_full @ [q̇, q̈, λ] = forcing_full`` (the
constraints enter at acceleration level). Both are turned into numpy functions by
``lambdify(cse=True)``; every right-hand-side call evaluates them and solves the linear
system with ``numpy.linalg.solve``. ``scipy.integrate.solve_ivp`` with DOP853 at
``rtol = atol = 1e-12`` integrates ``[q, q̇]``, with outputs at the requested times
(``t_eval``, DOP853's dense output).

Times: ``build_s`` = the symbolic work (Lagrangian, constraints, ``LagrangesMethod``,
``mass_matrix_full``, ``forcing_full``); ``compile_s`` = ``lambdify``; ``integrate_s`` =
``solve_ivp``. Numeric data (lengths, masses, g) are substituted as numbers.
"""

from __future__ import annotations

import time

import numpy as np

from . import figures, mechanism, output_times


def build(mech):
    """``(mass_matrix_full, forcing_full, q, qd)`` of a mechanism, symbolic."""
    import sympy as sp
    from sympy.physics.mechanics import LagrangesMethod, dynamicsymbols

    n = len(mech.bars)
    names = [f"{c}{i}" for i in range(n) for c in ("x", "y", "th")]
    q = list(dynamicsymbols(" ".join(names)))
    t = dynamicsymbols._t
    qd = [qi.diff(t) for qi in q]
    g = sp.Float(mech.g)
    lag = []
    for i, (_, _, _, length, mass) in enumerate(mech.bars):
        m, inertia = sp.Float(mass), sp.Float(mass * length**2 / 12.0)
        vx, vy, om = qd[3 * i: 3 * i + 3]
        lag.append(m / 2 * (vx**2 + vy**2) + inertia / 2 * om**2 - m * g * q[3 * i + 1])
    lagrangian = sp.Add(*lag)

    def point(i, s):
        x, y, th = q[3 * i: 3 * i + 3]
        sl = sp.Float(s * mech.bars[i][3])
        return x + sl * sp.cos(th), y + sl * sp.sin(th)

    coneqs = []
    for a, sa, b, sb in mech.joints:
        pa, pb = point(a, sa), point(b, sb)
        coneqs += [pb[0] - pa[0], pb[1] - pa[1]]
    for bar, s, fx, fy, x0, y0 in mech.supports:
        p = point(bar, s)
        if not fx:
            coneqs.append(p[0] - sp.Float(x0))
        if not fy:
            coneqs.append(p[1] - sp.Float(y0))
    lm = LagrangesMethod(lagrangian, q, hol_coneqs=coneqs)
    lm.form_lagranges_equations()
    return lm.mass_matrix_full, lm.forcing_full, q, qd


def run(case: str, t_end: float | None = None, rtol: float = 1e-12, atol: float = 1e-12,
        method: str = "DOP853", n_points: int = 101) -> dict:
    import sympy as sp
    from scipy.integrate import solve_ivp

    mech = mechanism(case, t_end)
    n = mech.n_coordinates
    t0 = time.perf_counter()
    mm, ff, q, qd = build(mech)
    t1 = time.perf_counter()
    args = [*q, *qd]
    mm_f = sp.lambdify(args, mm, modules="numpy", cse=True)
    ff_f = sp.lambdify(args, ff, modules="numpy", cse=True)
    t2 = time.perf_counter()

    def rhs(_t, y):
        a = np.asarray(mm_f(*y), dtype=float)
        b = np.asarray(ff_f(*y), dtype=float).ravel()
        return np.linalg.solve(a, b)[: 2 * n]

    y0 = np.concatenate([mech.q0(), np.zeros(n)])
    t_eval = output_times(mech, n_points)
    sol = solve_ivp(rhs, (0.0, mech.t_end), y0, method=method, rtol=rtol, atol=atol,
                    t_eval=t_eval)
    t3 = time.perf_counter()
    if not sol.success:
        raise RuntimeError(f"solve_ivp failed: {sol.message}")
    return {
        "build_s": t1 - t0,
        "compile_s": t2 - t1,
        "integrate_s": t3 - t2,
        "total_s": t3 - t0,
        **figures(mech, sol.t, sol.y[:n].T, sol.y[n:].T),
        "settings": {"method": method, "rtol": rtol, "atol": atol,
                     "system_size": int(mm.shape[0]), "n_rhs_evaluations": int(sol.nfev)},
    }
