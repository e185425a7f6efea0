"""``quivira.sweep``: many variants of a model, in heyoka batch mode across threads or workers."""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from ..budget import (
    DEFAULT_MAX_STEPS,
    DEFAULT_MAX_WALL_S,
    Budget,
    check_output_bytes,
    interrupts_polled,
)
from ..model.compiled import default_compile_options, default_tolerance
from ..model.engine_api import check_count, check_purpose, check_threshold, check_tol
from ..model.symbolic import coordinate_names, topology_key
from ..model.validation import check_flag, check_positive
from .batch import Prepared, Preparer, batch_size, context, shared_entry
from .cache import cache_dir, cache_errors, check_cache_dir
from .distributed import execute
from .opt_choice import choose_opt_level
from .results import SweepResult
from .values import check_keys, parse_values

#: the outputs a sweep can return (all by default)
OUTPUTS = ("trajectory", "final_state", "max_abs_lambda", "energy_error", "events")


@interrupts_polled()
def sweep(model, values: Any, t_end: float, *, n_points: int = 201,
          outputs: tuple[str, ...] | list[str] = OUTPUTS, executor: Any = None,
          workers: int | None = None, block_size: int | None = None, tol: float | None = None,
          purpose: str = "auto", singular: str = "pass", singular_threshold: float = 1e-8,
          max_steps: int = DEFAULT_MAX_STEPS, max_wall_s: float = DEFAULT_MAX_WALL_S,
          batch: bool = True, progress: bool = True,
          heyoka_cache_dir: str | None = None) -> SweepResult:
    r"""Simulate many variants of a model over ``[0, t_end]``.

    What ``model.simulate`` gives for each, at the cost of one compile per topology.

    Each variant integrates the constrained Lagrangian equations of its model,

    .. math:: M\ddot q = f(q, \dot q, t; p) + J^T\lambda,\qquad
              W\lambda = -(J\ddot q_a + \dot J\dot q) - 2\alpha J\dot q - \alpha^2 F,
              \qquad W = J M^{-1} J^T,

    with its own runtime parameters :math:`p` (masses, lengths, g, spring constants, named
    parameters, ...) and initial state. Variants of one topology run in the lanes of a heyoka
    batch integrator (``hy.taylor_adaptive_batch``; lanes per code as
    :func:`quivira.sweeps.batch.batch_size` chooses, each lane with its own :math:`p` and
    state), blocks of them in parallel threads or on the workers of ``executor``.

    Parameters
    ----------
    model : bar_joint_model
        The model; it is not changed (variants are applied to copies).
    values : mapping, list of dict or Grid
        ``{key: array}`` (one value per variant, arrays of equal length), a list of
        ``{key: value}`` dicts, or :func:`quivira.grid` (all combinations). Keys: ``"g"``,
        ``"bar3.mass"``, ``"bar3.length"``, initial state ``"bar3.theta"`` (``.x``, ``.y``,
        ``.vx``, ``.vy``, ``.omega``), ``"support1.x"``, ``"force0.fy"``, ``"<spring>.k"``,
        ``"<parameter>"``, ``"stabilization"``, and ``"model"`` (a model per variant; see
        :mod:`quivira.sweeps.values`). Swept initial positions are held and the rest of the
        pose is reassembled (least move of the other coordinates).
    t_end : float
        Final time (s), > 0.
    n_points : int
        Output times per variant, evenly spaced including 0 and ``t_end``.
    outputs : sequence of str
        Any of ``"trajectory"`` (q and q̇ at the output times), ``"final_state"``,
        ``"max_abs_lambda"`` (max over the output times of :math:`|\lambda_k|` per row),
        ``"energy_error"``, ``"events"``; all by default.
    executor : concurrent.futures.Executor, optional
        Where the blocks run, e.g. ``dask.distributed.Client(...).get_executor()``; each
        task ships ``model.to_dict()`` and a block of values. Default: threads here.
    workers : int, optional
        Threads when ``executor`` is None (default: the number of CPUs).
    block_size : int, optional
        Variants per task (default: one batch of lanes; 16 batches with an executor).
    tol, singular, singular_threshold, max_steps, max_wall_s
        As :meth:`~quivira.bar_joint_model.simulate`, per variant.
    purpose : {"auto", "interactive", "long"}
        The compiled code, as in :meth:`~quivira.bar_joint_model.simulate`. ``"auto"``
        (default) compiles the quick-to-build code, probes the motion of the first variants
        for a few steps and recompiles the batch integrator for speed of running only where
        the estimated integration time saved exceeds the extra compile time (the rule and
        its constants: :mod:`quivira.sweeps.opt_choice`; deterministic, so a sweep always
        gives the same numbers); ``attrs["opt_choice"]`` says what it chose and why.
    batch : bool
        False runs every variant in the scalar simulator (for comparison).
    progress : bool
        Show a progress bar (tqdm, notebook-aware) of variants done, with an ETA.
    heyoka_cache_dir : str or os.PathLike, optional
        Directory of heyoka's on-disk cache of compiled code (created if missing; checked
        before any work). In this process it is set for the sweep and the previous one
        restored when the sweep ends, also on an error or Ctrl-C; on an executor's worker
        processes it is set on their first block and kept for their lifetime (see
        :mod:`quivira.sweeps.cache`). A corrupted cache gives an error naming it and how to
        clear it.

    Returns
    -------
    SweepResult
        Per variant: status (``ok`` / ``singular`` at t / ``diverged`` at t / ``budget`` /
        ``error`` / ``cancelled``), final state, trajectory, max |λ|, energy error, events;
        ``to_xarray()`` and ``to_pandas()``. One failing variant never stops the sweep.
        Ctrl-C (interrupt kernel) stops cleanly: the variants finished are returned, the
        others have status ``"cancelled"`` and ``attrs["interrupted"]`` is True. On threads
        the call returns within about a second and leaves no thread running (batch lanes
        stop between integrator steps, scalar-simulator variants between chunks of steps);
        with an executor it returns at once, the blocks not started are cancelled and those
        running on the workers finish there.

    Raises
    ------
    TypeError, ValueError
        Bad arguments, unknown keys (the valid keys are named), arrays of different
        lengths, values a setter refuses, or variants whose constraints cannot be met;
        results larger than :data:`~quivira.budget.MAX_OUTPUT_BYTES` (before anything is
        compiled); before anything is integrated, and the model is left unchanged.

    Notes
    -----
    Models with element events (latches, angle stops, contacts, user events) run in the
    scalar simulator, in threads: their event actions (impulses, switches) are the scalar
    simulator's. So do single variants that meet a singular pose, a non-finite state or the
    step budget in batch mode, start from a symmetric state, or have redundant constraint
    rows; ``result.scalar`` and ``result.attrs["fallback"]`` say which and why.

    Examples
    --------
    Three masses of a compound pendulum over one small-oscillation period
    :math:`2\pi\sqrt{2L/(3g)}`: the motion does not depend on the mass (every variant is back
    at its start), the support force scales with it (:math:`\max|\lambda_y| \approx mg`):

    >>> import math
    >>> import quivira
    >>> model = quivira.bar_joint_model()
    >>> th0 = -math.pi / 2 + 0.02
    >>> bar = model.add_bar_at_attitude(0.5 * math.cos(th0), 0.5 * math.sin(th0), th0, 1.0, 1.0)
    >>> model.add_support(bar, -0.5, fixed_x=True, fixed_y=True)
    0
    >>> T = 2 * math.pi * math.sqrt(2 * 1.0 / (3 * 9.81))
    >>> res = quivira.sweep(model, {"bar0.mass": [1.0, 2.0, 4.0]}, T, n_points=51,
    ...                     workers=1, progress=False)
    >>> res.status.tolist()
    ['ok', 'ok', 'ok']
    >>> [round(float(th), 4) for th in res.final_state[:, 2]], round(th0, 4)
    ([-1.5508, -1.5508, -1.5508], -1.5508)
    >>> [round(float(f / 9.81), 2) for f in res.max_abs_lambda[:, 1]]
    [1.0, 2.0, 4.0]
    """
    from ..model.core import bar_joint_model

    if not isinstance(model, bar_joint_model):
        raise TypeError(f"sweep: model must be a quivira bar_joint_model, got "
                        f"{type(model).__name__}")
    t_end = check_positive(t_end, "t_end")
    n_points = check_count(n_points, "n_points", 2)
    tol = None if tol is None else check_tol(tol)
    if not isinstance(purpose, str):
        raise TypeError(f"purpose must be 'auto', 'interactive' or 'long', got {purpose!r}")
    if purpose != "auto":
        try:
            purpose = check_purpose(purpose)
        except ValueError:
            raise ValueError(f"purpose must be 'auto', 'interactive' or 'long', got "
                             f"{purpose!r}") from None
    singular_threshold = check_threshold(singular_threshold)
    if not isinstance(singular, str) or singular not in ("pass", "stop"):
        raise ValueError(f"singular must be 'pass' or 'stop', got {singular!r}")
    checked = Budget(max_steps, max_wall_s)  # each variant has its own budget
    max_steps, max_wall_s = checked.max_steps, checked.max_wall_s
    batch = check_flag(batch, "batch")
    progress = check_flag(progress, "progress")
    if isinstance(outputs, str) or not isinstance(outputs, (list, tuple)):
        raise TypeError(f"outputs must be a list of names from {OUTPUTS}, got {outputs!r}")
    bad = [o for o in outputs if o not in OUTPUTS]
    if bad:
        raise ValueError(f"outputs: unknown {bad}; choose from {OUTPUTS}")
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise TypeError("executor must be a concurrent.futures.Executor (with .submit), e.g. "
                        f"dask.distributed.Client.get_executor(), got {type(executor).__name__}")
    if workers is None:
        workers = os.cpu_count() or 1
    workers = check_count(workers, "workers", 1)
    if block_size is not None:
        block_size = check_count(block_size, "block_size", 1)
    if heyoka_cache_dir is not None:
        heyoka_cache_dir = check_cache_dir(heyoka_cache_dir)

    keys, table, n_var = parse_values(values)
    t_start = time.perf_counter()
    # the model of every variant; variants are grouped by model, models by topology
    if "model" in table:
        models = table["model"]
        for i, m in enumerate(models):
            if not isinstance(m, bar_joint_model):
                raise TypeError(f"values: 'model' of variant {i} must be a bar_joint_model, "
                                f"got {type(m).__name__}")
    else:
        models = [model] * n_var
    distinct: list = []
    model_index = np.empty(n_var, dtype=int)
    for i, m in enumerate(models):
        for j, d in enumerate(distinct):
            if d is m:
                model_index[i] = j
                break
        else:
            distinct.append(m)
            model_index[i] = len(distinct) - 1
    for m in distinct:
        if not m.bodies:
            raise ValueError("sweep: the model has no bars; add a bar first")
        check_keys(m, keys)
    check_sweep_size(n_var, n_points, max(m.n_coordinates for m in distinct),
                     max(len(m.constraint_labels) for m in distinct), "trajectory" in outputs)

    # heyoka's cache directory for this sweep, restored when it ends (workers keep theirs)
    with cache_dir(heyoka_cache_dir), cache_errors(heyoka_cache_dir):
        common = {"t_end": t_end, "n_points": n_points, "tol": tol, "purpose": purpose,
                  "singular": singular, "singular_threshold": singular_threshold,
                  "max_steps": max_steps, "max_wall_s": max_wall_s, "outputs": tuple(outputs),
                  "scalar": not batch,
                  "heyoka_cache_dir": heyoka_cache_dir}
        tasks = []
        groups = []
        topologies: dict = {}
        choices: list[str] = []
        lanes_used: list[int] = []
        blocks_used: list[int] = []
        for j, m in enumerate(distinct):
            idx = np.nonzero(model_index == j)[0]
            group_purpose = purpose
            if purpose == "auto":  # tiny systems and scalar runs: the code quick to run
                tiny = default_compile_options(m.n_coordinates, "long")["opt_level"] == 0
                group_purpose = "long" if tiny or not batch else "interactive"
            lanes = batch_size(default_compile_options(m.n_coordinates, group_purpose))
            # without tol, simulate's default rule for this model and t_end, one for the group
            group_tol = tol if tol is not None else default_tolerance(
                m.n_coordinates, t_end, m.engine.data.time_scale())
            settings = {**common, "purpose": group_purpose, "tolerance": m.tolerance,
                        "solver": m.solver, "batch_size": lanes, "tol": group_tol}
            model_dict = m.to_dict()
            key = (topology_key(m.engine.data), group_tol, group_purpose, m.solver, not batch,
                   lanes, None)
            rows = [{k: table[k][i] for k in keys if k != "model"} for i in idx]
            prep = Preparer(model_dict, keys, settings, model=bar_joint_model.from_dict(model_dict),
                            key=key)
            names = [int(i) for i in idx]
            probe = purpose == "auto" and group_purpose == "interactive"
            # the probe's chunks; without a probe, all variants at once
            chunks = preparation_chunks(len(rows), lanes) if probe else [slice(0, len(rows))]
            parts = [prep.prepare(rows[chunks[0]], names[chunks[0]])]  # starts the batch code
            k = 1
            if probe:
                # while the quick-to-build code compiles, prepare more variants; probe on the
                # first batch; prepare the rest while the chosen code compiles
                quick_code = shared_entry(model_dict, key, settings)[2]
                while k < len(chunks) and not quick_code.done():
                    parts.append(prep.prepare(rows[chunks[k]], names[chunks[k]]))
                    k += 1
                key, settings, why = _auto_batch_code(model_dict, key, settings, parts[0],
                                                      len(idx), workers)
                if key[-1] is not None:
                    shared_entry(model_dict, key, settings)  # starts compiling it
                choices.append(why)
            parts += [prep.prepare(rows[c], names[c]) for c in chunks[k:]]
            prepared = Prepared.concatenated(parts)
            topologies.setdefault(key, len(topologies))
            groups.append((m, idx, prep))
            lanes = settings["batch_size"]
            # threads: one batch per task, so that they finish together
            block = block_size or lanes * (1 if executor is None else 16)
            lanes_used.append(lanes)
            blocks_used.append(block)
            for c in range(0, len(idx), block):
                sl = slice(c, c + block)
                tasks.append((model_dict, {
                    "indices": [int(i) for i in idx[sl]], "rows": rows[sl],
                    "keys": [k for k in keys if k != "model"],
                    "base": prepared.base[sl], "state0": prepared.state0[sl],
                    "scalar": prepared.scalar[sl], "key": key, "settings": settings}))
        t_prepared = time.perf_counter()
        results, interrupted = execute(tasks, executor, workers, progress)
    wall = time.perf_counter() - t_start

    # ---------------------------------------------------------------- collect
    widest = max(distinct, key=lambda m: m.n_coordinates)
    n_max = widest.n_coordinates
    q_names, qd_names = coordinate_names(widest.engine.data)
    labels: list[str] = []
    group_labels = {}
    for j, m in enumerate(distinct):
        group_labels[j] = list(m.constraint_labels)
        for lab in group_labels[j]:
            if lab not in labels:
                labels.append(lab)
    t = np.linspace(0.0, t_end, n_points)
    want_traj = "trajectory" in outputs
    q = np.full((n_var, n_points, n_max), np.nan) if want_traj else None
    qd = np.full((n_var, n_points, n_max), np.nan) if want_traj else None
    final = np.full((n_var, 2 * n_max), np.nan)
    lam = np.full((n_var, len(labels)), np.nan)
    energy = np.full(n_var, np.nan)
    status = np.array(["cancelled"] * n_var, dtype=object)
    t_status = np.full(n_var, np.nan)
    message = np.array(["not run: the sweep was interrupted"] * n_var, dtype=object)
    events: list = [[] for _ in range(n_var)]
    scalar: list = [None] * n_var
    compile_s = 0.0
    for r in results:
        compile_s = max(compile_s, float(r.get("compile_s", 0.0)))
        for j, i in enumerate(r["indices"]):
            g = model_index[i]
            n = distinct[g].n_coordinates
            s = r["states"][j]
            if want_traj:
                q[i, :, :n] = s[:, :n]
                qd[i, :, :n] = s[:, n:2 * n]
            final[i, :n] = s[-1, :n]
            final[i, n_max:n_max + n] = s[-1, n:2 * n]
            cols = [labels.index(lab) for lab in group_labels[g]]
            lam[i, cols] = r["max_abs_lambda"][j]
            energy[i] = r["energy_error"][j]
            status[i] = r["status"][j]
            t_status[i] = r["t_status"][j]
            message[i] = r["message"][j]
            events[i] = r["events"][j]
            scalar[i] = r["scalar"][j]
    if "max_abs_lambda" not in outputs:
        lam[:] = np.nan
    reasons: dict = {}
    for s in scalar:
        if s is not None:
            reasons[s] = reasons.get(s, 0) + 1
    fallback = "; ".join(f"{v} variant(s) in the scalar simulator: {k}"
                         for k, v in reasons.items()) or "none"
    out_values = {k: (model_index.copy() if k == "model" else np.asarray(table[k]))
                  for k in keys}
    done = int(np.sum(status != "cancelled"))
    attrs = {"n_variants": n_var, "t_end": t_end, "n_points": n_points,
             "batch_size": max(lanes_used), "workers": workers if executor is None else -1,
             "executor": "threads" if executor is None else type(executor).__name__,
             "block_size": max(blocks_used), "n_tasks": len(tasks), "n_topologies": len(topologies),
             "purpose": purpose, "opt_choice": "; ".join(choices) or "not probed",
             "tol": -1.0 if tol is None else tol, "singular": singular,
             "prepare_s": t_prepared - t_start, "compile_s": compile_s, "wall_s": wall,
             "variants_per_s": done / wall if wall > 0 else float("nan"),
             "fallback": fallback, "interrupted": bool(interrupted),
             "models": "; ".join(repr(m) for m in distinct)}
    return SweepResult(
        keys=list(keys), values=out_values, t=t, coordinate_names=q_names,
        velocity_names=qd_names, constraint_labels=labels, q=q, qd=qd, final_state=final,
        max_abs_lambda=lam, energy_error=energy, status=status.astype(str),
        t_status=t_status, message=message.astype(str), events=events, scalar=scalar,
        attrs=attrs)


def check_sweep_size(n_variants: int, n_points: int, n: int, m: int, trajectory: bool) -> None:
    """Refuse, before any work, a sweep whose results would not fit in memory.

    Per variant: with ``"trajectory"`` the states at every output time twice (the blocks'
    results and the result's ``q``, ``qd``), else the final state once more; the final
    state, max |λ| per row and a few numbers.
    """
    states = 2 * n_points * 2 * n if trajectory else 2 * n
    check_output_bytes(8.0 * n_variants * (states + 2 * n + m + 4),
                       f"{n_variants} variants of n_points = {n_points}",
                       "use fewer variants or n_points, or leave 'trajectory' out of outputs")


def preparation_chunks(n: int, lanes: int) -> list[slice]:
    """Slices of a group's ``n`` variants prepared together (initial states, parameters).

    The first batch of ``lanes`` (the variants the ``purpose="auto"`` probe integrates), then
    the rest in quarters of at least four batches each. The chunks depend on ``n`` and
    ``lanes`` only, never on timing, so a sweep always prepares, and gives, the same numbers
    (``purpose="auto"`` prepares the first chunks while its first code compiles).
    """
    size = max(4 * lanes, -(-(n - lanes) // 4))
    return [slice(0, lanes)] + [slice(c, c + size) for c in range(lanes, n, size)]


def _auto_batch_code(model_dict: dict, key: tuple, settings: dict, prepared, n_variants: int,
                     workers: int) -> tuple[tuple, dict, str]:
    """Resolve ``purpose="auto"`` for a group: ``(key, settings, description)``.

    Probes the quick-to-build batch integrator of ``key`` on the group's first variants
    (see :mod:`quivira.sweeps.opt_choice`); element-event models (scalar simulator only) take
    the code quick to run, as ``purpose="long"``.
    """
    ctx = context(model_dict, key, settings)
    if ctx.ta is None:
        settings = {**settings, "purpose": "long"}
        return (*key[:2], "long", *key[3:]), settings, "scalar simulator: purpose 'long'"
    lanes = [i for i, r in enumerate(prepared.scalar) if r is None][:ctx.ta.batch_size]
    if not lanes:
        return key, settings, "opt_level 0: no variant for the batch integrator"
    pars = np.array([ctx.cs.parameters(prepared.base[i]) for i in lanes])
    states = np.zeros((len(lanes), ctx.ta.dim))
    states[:, :prepared.state0.shape[1]] = prepared.state0[lanes]
    choice = choose_opt_level(ctx, pars, states, settings["t_end"], n_variants, workers)
    if choice.opt_level == 0:
        return key, settings, choice.describe()
    lanes = batch_size({"compact_mode": True, "opt_level": 1})
    settings = {**settings, "batch_opt_level": 1, "batch_size": lanes}
    return (*key[:5], lanes, 1), settings, choice.describe()
