"""IFToMM benchmark problems A02 (N-four-bar) and A03 (Andrews' mechanism): quivira and Exudyn.

Both tools integrate the same mechanism in maximal coordinates; the error figure of each run is
computed here, by the same numpy code for both tools, against the independent references of
``quivira_oracles/iftomm.py`` (which imports neither tool):

* ``a02-N`` (``quivira.examples.iftomm_a02(N)``, 20 s, 401 outputs = the IFToMM 400 output
  steps): ``reference_error`` = the largest difference of point B0's x, y, ẋ, ẏ from the
  closed-form parallelogram motion (``a02_b0``). The IFToMM "high precision" threshold is 1e-3.
  Exudyn needs its dense solver with ``ignoreSingularJacobian`` to pass the flat poses (the
  sparse one stops at the first): ``exudyn_peer.run(..., solver="EXUdense",
  ignore_singular_jacobian=True)``.
* ``a03`` (``quivira.examples.iftomm_a03()``, 0.03 s, 31 outputs): ``reference_error`` = the
  largest difference of the 7 body angles from the test set's angles (``a03_reference``, DOP853
  at 1e-13 in the 7 minimal angles), in rad; the same 1e-3 is used as its threshold.
  ``rate_error`` is the same for the angular velocities (rad/s). Exudyn:
  ``exudyn_a03.run``.

A run can stop early (``t_stop``): an Exudyn run whose full span would take hours is simulated
over its first part, its integration time extrapolated to the full span in proportion to the
simulated time (a fixed step costs the same everywhere), and its error over that part is a
lower bound of its error over the full span (the error only accumulates). ``extrapolated`` and
``t_reached`` say so in the record.
"""

from __future__ import annotations

import math
import time

import numpy as np

#: (t_end, n_points) of the problems: A02 runs the IFToMM 20 s with 400 output steps, A03 the
#: test set's 0.03 s
SPANS = {"a02": (20.0, 401), "a03": (0.03, 31)}
#: the IFToMM "high precision" threshold of the position and velocity errors
THRESHOLD = 1e-3


def span(case: str) -> tuple[float, int]:
    """``(t_end, n_points)`` of an IFToMM case name (``a02-N`` or ``a03``)."""
    kind = case.split("-")[0]
    if kind not in SPANS:
        raise ValueError(f"unknown IFToMM case {case!r}: expected a02-N or a03")
    return SPANS[kind]


def _oracle():
    from .. import iftomm

    return iftomm


def reference_errors(case: str, t: np.ndarray, q: np.ndarray, qd: np.ndarray,
                     frame_offsets: np.ndarray | None = None) -> dict:
    """``reference_error`` (and ``rate_error`` for A03) of a run, from its maximal coordinates.

    ``q``, ``qd``: ``(len(t), 3 * bodies)``, per body ``(x, y, θ)`` of its mass centre;
    ``frame_offsets``: angles to subtract from each body's θ to reach the oracle's body frames
    (A03 in quivira turns BDE's frame so that D lies on its axis).
    """
    o = _oracle()
    t, q, qd = np.asarray(t, float), np.asarray(q, float), np.asarray(qd, float)
    if case.startswith("a02"):
        n = int(case.split("-")[1])
        x, y, th = q[:, 0], q[:, 1], q[:, 2]
        vx, vy, w = qd[:, 0], qd[:, 1], qd[:, 2]
        half = 0.5 * o.A02_LENGTH  # B0 is the s = +1/2 end of crank 0
        b0 = np.stack([x + half * np.cos(th), y + half * np.sin(th),
                       vx - half * np.sin(th) * w, vy + half * np.cos(th) * w], -1)
        err = np.abs(b0 - o.a02_b0(t, n))
        return {"reference_error": float(err.max()),
                "reference_error_xy_vxvy": [float(v) for v in err.max(0)],
                "reference_error_so_far": _so_far(t, err)}
    ref = o.a03_reference(t)
    theta = q[:, 2::3] - (0.0 if frame_offsets is None else frame_offsets)
    err = np.abs(theta - ref["q"] @ o.A03_BODY_ANGLES.T)
    want_rate = ref["qd"] @ o.A03_BODY_ANGLES.T
    return {"reference_error": float(err.max()),
            "rate_error": float(np.abs(qd[:, 2::3] - want_rate).max()),
            "reference_error_so_far": _so_far(t, err)}


def _so_far(t: np.ndarray, err: np.ndarray) -> list:
    """``[[t_i, max error over [0, t_i]], ...]``: to compare runs over a common span."""
    return [[float(a), float(b)] for a, b in zip(t, np.maximum.accumulate(err.max(1)))]


def error_until(rec: dict, t: float) -> float:
    """A record's largest error over ``[0, t]`` (its output times up to ``t``)."""
    rows = [e for s, e in rec["reference_error_so_far"] if s <= t + 1e-12]
    return rows[-1] if rows else math.nan


def _a02_energy_error(case: str, t, q, qd) -> dict:
    from . import figures, mechanism

    f = figures(mechanism(case, float(t[-1])), t, q, qd)
    return {k: f[k] for k in ("energy_error", "residual", "residual_max")}


def _frames(offsets: np.ndarray) -> np.ndarray:
    """``(x, y, θ)`` offsets per body: ``offsets`` on the angles, 0 on the positions."""
    out = np.zeros(3 * len(offsets))
    out[2::3] = offsets
    return out


def run_quivira(case: str, tol: float | None = None, t_stop: float | None = None,
                cache_dir: str | None = None) -> dict:
    """``model.simulate(t_end, n_points)`` with every default (``tol`` if given), timed.

    Times as in ``quivira_peer``: build = the model and its symbolic equations, compile =
    heyoka's JIT (waited for), integrate = the rest of the call. heyoka's disk cache is off
    (a first-time compile) unless ``cache_dir`` is given (the cache there, switched on).
    """
    import heyoka as hy

    from quivira import examples

    hy.llvm_state.set_diskcache_enabled(cache_dir is not None)
    if cache_dir is not None:
        hy.llvm_state.set_diskcache_path(cache_dir)
    t_end, n_points = span(case)
    if t_stop is not None:
        n_points = int(round((n_points - 1) * t_stop / t_end)) + 1
        t_end = float(t_stop)
    t0 = time.perf_counter()
    model = examples.iftomm_a03() if case == "a03" else examples.iftomm_a02(
        int(case.split("-")[1]))
    t1 = time.perf_counter()
    kw = {} if tol is None else {"tol": tol}
    traj = model.simulate(t_end, n_points=n_points, **kw)
    t2 = time.perf_counter()
    info = traj.info
    build = (t1 - t0) + float(info.get("build_s", 0.0))
    compile_s = sum(float(v) for k, v in info.items() if k.startswith("compile_"))
    offsets = None
    if case == "a03":
        a = examples.ANDREWS
        offsets = np.zeros(7)
        offsets[2] = math.atan2(a["sa"] - a["sc"], a["sd"] - a["sb"])
    rec = {
        "build_s": build, "compile_s": compile_s, "integrate_s": (t2 - t0) - build - compile_s,
        "total_s": t2 - t0, "t_reached": float(traj.t[-1]), "n_outputs": int(len(traj.t)),
        "extrapolated": False,
        **reference_errors(case, traj.t, traj.q, traj.qd, offsets),
        "energy_error": (a03_energy_balance_error(traj.q - _frames(offsets), traj.qd)
                         if case == "a03" else traj.relative_energy_error()),
        "residual": float(traj.max_position_residual()),
        "settings": {"tol": info.get("tol"), "tol_rule": info.get("tol_rule"),
                     "singular": "pass", "crossings": sum(
                         1 for ev in traj.events if ev.get("what") == "singular pose"),
                     "heyoka_diskcache": cache_dir is not None},
    }
    return rec


def a03_energy_balance_error(q: np.ndarray, qd: np.ndarray) -> float:
    r"""A03's energy balance from maximal coordinates (oracle body frames), for any tool.

    :math:`\max_t |T + V_s - W - T_0 - V_{s,0}| / \max(\max_t T, \max_t |W|)` with
    :math:`T = \sum_b (m_b |v_b|^2 + I_b \omega_b^2)/2`, the spring's
    :math:`V_s = c_0 (|D - C| - \ell_0)^2 / 2` and the torque's work
    :math:`W = \tau (\theta_{OF} - \theta_{OF}(0))`.
    """
    model = _oracle().a03_model()
    q, qd = np.atleast_2d(q), np.atleast_2d(qd)
    m = np.array([b.mass for b in model.bodies])
    inertia = np.array([b.inertia for b in model.bodies])
    T = 0.5 * (m * (qd[:, 0::3] ** 2 + qd[:, 1::3] ** 2) + inertia * qd[:, 2::3] ** 2).sum(1)
    V = np.zeros(len(q))
    for sp in model.springs:
        b = sp.body_a
        u, v = model.bodies[b].points[sp.point_a]
        th = q[:, 3 * b + 2]
        dx = q[:, 3 * b] + np.cos(th) * u - np.sin(th) * v - model.ground[sp.ground_point][0]
        dy = q[:, 3 * b + 1] + np.sin(th) * u + np.cos(th) * v - model.ground[sp.ground_point][1]
        V += 0.5 * sp.stiffness * (np.hypot(dx, dy) - sp.rest_length) ** 2
    W = sum(tau * (q[:, 3 * b + 2] - q[0, 3 * b + 2]) for b, tau in model.torques)
    balance = T + V - W - (T[0] + V[0])
    return float(np.abs(balance).max() / max(float(T.max()), float(np.abs(W).max()), 1e-300))


def run_exudyn(case: str, h: float, t_stop: float | None = None) -> dict:
    """Exudyn's generalized-α (spectral radius 0.8, full Newton) at the fixed step ``h``.

    ``t_stop``: simulate only ``[0, t_stop]`` and extrapolate the integration time to the full
    span (``extrapolated``); the errors are those of the simulated part (lower bounds).
    """
    t_end, n_points = span(case)
    t_sim = t_end if t_stop is None else min(float(t_stop), t_end)
    n_sim = max(2, int(round((n_points - 1) * t_sim / t_end)) + 1)
    if case == "a03":
        from . import exudyn_a03

        r = exudyn_a03.run(h=h, t_end=t_sim, n_points=n_sim, states=True)
        extra = {"energy_error": a03_energy_balance_error(r["q"], r["qd"])}
    else:
        from . import exudyn_peer

        r = exudyn_peer.run(case, h=h, t_end=t_sim, n_points=n_sim, solver="EXUdense",
                            ignore_singular_jacobian=True, states=True)
        extra = _a02_energy_error(case, r["t"], r["q"], r["qd"])
    scale = t_end / t_sim
    rec = {
        "build_s": r["build_s"], "compile_s": 0.0, "integrate_s": r["integrate_s"] * scale,
        "total_s": r["build_s"] + r["integrate_s"] * scale,
        "measured_s": r["total_s"], "t_reached": float(t_sim), "n_outputs": n_points,
        "extrapolated": t_sim < t_end,
        **reference_errors(case, r["t"], r["q"], r["qd"]),
        **extra,
        "settings": {**r["settings"], "t_simulated": t_sim},
    }
    return rec
