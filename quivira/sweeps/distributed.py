"""Executing the blocks of a sweep.

Threads of this process, or any ``concurrent.futures`` executor, with a progress bar and a
clean stop on Ctrl-C.

Every task is :func:`quivira.sweeps.batch.run_block` applied to the model's
:meth:`~quivira.bar_joint_model.to_dict` data (plain JSON) and a block of values and prepared
numbers (parameter vectors, initial states); no compiled integrator is ever shipped (heyoka's
pickles are not portable between machines). A worker compiles once per topology and keeps the
compiled code for its lifetime; heyoka's on-disk cache (``heyoka_cache_dir=``, best on the
worker's local disk) makes compiling again in a new worker process cheap.

With Dask::

    from dask.distributed import Client, LocalCluster
    client = Client(LocalCluster(n_workers=2, processes=True))
    res = quivira.sweep(model, values, 10.0, executor=client.get_executor())

On a SLURM cluster, with dask-jobqueue::

    from dask_jobqueue import SLURMCluster
    cluster = SLURMCluster(cores=8, processes=8, memory="16GB", walltime="01:00:00",
                           local_directory="$TMPDIR")
    cluster.scale(jobs=4)                      # 4 SLURM jobs of 8 single-threaded workers
    client = Client(cluster)
    res = quivira.sweep(model, values, 10.0, executor=client.get_executor(),
                        heyoka_cache_dir="/tmp/heyoka-cache")
"""

from __future__ import annotations

import concurrent.futures as cf
import threading
from typing import Any

from ..budget import interrupt_seen, raise_pending_interrupt
from .batch import run_block


def progress_bar(total: int, enabled: bool):
    """Return a notebook-aware tqdm bar, or a silent stand-in.

    ``tqdm.auto``: variants done / total, rate and ETA; the stand-in when disabled or tqdm is
    missing.
    """
    if enabled:
        try:
            from tqdm.auto import tqdm
        except ImportError:  # pragma: no cover - tqdm is an optional dependency
            return _Silent()
        return tqdm(total=total, unit="variant", desc="sweep", smoothing=0.1)
    return _Silent()


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


#: longest wait (s) after Ctrl-C for the blocks running on threads to stop; they stop at
#: their next chunk of integrator steps, within a fraction of a second, unless one is still
#: compiling its code (which cannot be interrupted)
CANCEL_WAIT_S = 10.0


def execute(tasks: list[tuple[dict, dict]], executor: Any, workers: int, progress: bool
            ) -> tuple[list[dict], bool]:
    """Run ``tasks`` (``(model_dict, block)`` pairs) and return ``(results, interrupted)``.

    ``executor`` None: a thread pool of ``workers`` threads in this process. The blocks
    share a cancel flag (a ``threading.Event``): Ctrl-C in the main thread sets it, every
    running block stops at its next chunk of integrator steps (batch lanes between steps,
    scalar-simulator variants between chunks, blocks not started at once), and the call
    returns what finished once the threads have stopped (within about a second; at most
    :data:`CANCEL_WAIT_S`), leaving no thread running. Otherwise any
    ``concurrent.futures.Executor`` (e.g. ``dask.distributed.Client.get_executor()``):
    Ctrl-C cancels the blocks not yet started and returns at once with those finished (the
    blocks running on the workers cannot be stopped from here; they finish there). An
    error in a block stops the others the same way and is raised.
    """
    total = sum(len(b["indices"]) for _, b in tasks)
    bar = progress_bar(total, progress)
    cancel = threading.Event()
    own = executor is None
    pool = (cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="quivira-sweep")
            if own else executor)
    futures: dict = {}
    collected: dict = {}
    interrupted = False
    stopped = True  # whether no block is still running when this call returns
    try:
        for model_dict, block in tasks:
            if own:
                block = {**block, "cancel": cancel}
            futures[pool.submit(run_block, model_dict, block)] = len(block["indices"])
        pending = set(futures)
        while pending:
            done, pending = cf.wait(pending, timeout=0.1, return_when=cf.FIRST_COMPLETED)
            raise_pending_interrupt()  # a Ctrl-C swallowed in the main thread
            for f in done:
                collected[f] = f.result()
                bar.update(futures[f])
    except BaseException as exc:
        interrupted = isinstance(exc, KeyboardInterrupt)
        if interrupted:
            interrupt_seen()
        stopped = _stop(futures, cancel, own)
        if not interrupted:
            raise
        collected.update({f: f.result() for f in futures
                          if f not in collected and f.done() and not f.cancelled()
                          and f.exception() is None})
    finally:
        bar.close()
        if own:
            pool.shutdown(wait=stopped, cancel_futures=True)
    return list(collected.values()), interrupted


def _stop(futures: dict, cancel: threading.Event, own: bool) -> bool:
    """Cancel the blocks: those not started, and (threads) the running ones via ``cancel``.

    With threads, waits for the running ones to stop (at most :data:`CANCEL_WAIT_S`; a
    second Ctrl-C stops waiting). Returns whether none is still running.
    """
    cancel.set()
    for f in futures:
        f.cancel()
    if not own:
        return True
    try:
        _, running = cf.wait(list(futures), timeout=CANCEL_WAIT_S)
    except KeyboardInterrupt:
        interrupt_seen()
        return False
    return not running
