"""quivira: ``model.simulate`` end to end in a fresh process (heyoka compile included).

Times: ``build_s`` = constructing the model (``quivira.examples``) + the symbolic build of the
equations (``info["build_s"]``); ``compile_s`` = the wall time ``simulate`` waited for heyoka's
compilation of the Taylor integrator and of the output functions (``info["compile_*_s"]``; both
compile in background threads from the start of the call, side by side, while the initial state
is made consistent); ``integrate_s`` = the rest of the
``simulate`` call (consistency checks at t = 0, ``propagate_grid`` over the output times,
energies and residuals at the outputs). Imports (heyoka and LLVM, ~0.7 s) are not counted, as
for the other tools.

heyoka keeps an in-memory cache of compiled code within a process, so each case must run in a
process of its own for the compile time to be honest (``benchmarks/run.py`` does that). Since
heyoka 7.10 it also keeps an on-disk cache (``~/.cache/heyoka``) shared by all processes: a
system compiled once before, by any program, then "compiles" in a fraction of the time (here
chain-64, ``purpose="long"``: 1.5 s from the disk cache against 15–19 s). The disk cache is
therefore switched off in these runs (``diskcache=False``): the figures are first-time
compiles, as for a user who builds a new mechanism.
"""

from __future__ import annotations

import time

from . import figures, mechanism, output_times, quivira_model


def run(case: str, purpose: str = "interactive", tol: float | None = 1e-12,
        t_end: float | None = None, n_points: int = 101, diskcache: bool = False,
        defaults: bool = False, cache_dir: str | None = None, warm_up: bool = False) -> dict:
    """One timed ``simulate``: with the given setting and no singularity monitor, or with
    ``defaults`` the call a user makes, ``model.simulate(t_end, n_points)``. ``cache_dir``:
    heyoka's on-disk cache there (switched on); ``warm_up``: the same call first, untimed,
    in a process of its own, so the timed run is a user's second session."""
    import heyoka as hy

    hy.llvm_state.set_diskcache_enabled(bool(diskcache or cache_dir))
    if cache_dir:
        hy.llvm_state.set_diskcache_path(cache_dir)
        if warm_up:
            import subprocess
            import sys

            code = (f"import heyoka as hy; hy.llvm_state.set_diskcache_path({cache_dir!r}); "
                    f"from peers import quivira_model; quivira_model({case!r}).simulate("
                    f"{mechanism(case, t_end).t_end!r}, n_points={n_points})")
            subprocess.run([sys.executable, "-c", code], check=True)
    mech = mechanism(case, t_end)
    t0 = time.perf_counter()
    model = quivira_model(case)
    t1 = time.perf_counter()
    if defaults:
        traj = model.simulate(mech.t_end, n_points=n_points)
    else:
        traj = model.simulate(mech.t_end, n_points=n_points, tol=tol, singular_threshold=0.0,
                              purpose=purpose)
    t2 = time.perf_counter()
    info = traj.info
    build = (t1 - t0) + float(info.get("build_s", 0.0))
    compile_s = sum(float(v) for k, v in info.items() if k.startswith("compile_"))
    total = t2 - t0
    rec = {
        "build_s": build,
        "compile_s": compile_s,
        "integrate_s": total - build - compile_s,
        "total_s": total,
        **figures(mech, traj.t, traj.q, traj.qd),
        "settings": {"purpose": "interactive" if defaults else purpose,
                     "tol": info.get("tol") if defaults else tol, "order": info.get("order"),
                     # the system simulated: its tolerance (info) and purpose, cached
                     "decomposition_size": model.compiled(
                         info["tol"], "interactive" if defaults else purpose).decomposition_size,
                     "singular_threshold": 1e-8 if defaults else 0.0, "n_points": n_points,
                     "heyoka_diskcache": bool(diskcache or cache_dir), "defaults": defaults,
                     "singularity_monitor": info.get("singularity_monitor", "off"),
                     "warm_cache": bool(cache_dir and warm_up)},
        "self_reported_energy_error": traj.relative_energy_error(),
    }
    assert len(traj.t) == len(output_times(mech, n_points)), "trajectory stopped early"
    return rec
