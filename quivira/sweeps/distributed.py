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
import time
from typing import Any

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


def execute(tasks: list[tuple[dict, dict]], executor: Any, workers: int, progress: bool
            ) -> tuple[list[dict], bool]:
    """Run ``tasks`` (``(model_dict, block)`` pairs) and return ``(results, interrupted)``.

    ``executor`` None: a thread pool of ``workers`` threads in this process (the blocks
    share a cancel flag: Ctrl-C stops every block between integrator steps). Otherwise any
    ``concurrent.futures.Executor`` (e.g. ``dask.distributed.Client.get_executor()``):
    Ctrl-C cancels the blocks not yet started and returns those finished.
    """
    total = sum(len(b["indices"]) for _, b in tasks)
    bar = progress_bar(total, progress)
    cancel = threading.Event()
    own = executor is None
    pool = cf.ThreadPoolExecutor(max_workers=workers) if own else executor
    futures: dict = {}
    collected: dict = {}
    interrupted = False
    try:
        for model_dict, block in tasks:
            if own:
                block = {**block, "cancel": cancel}
            futures[pool.submit(run_block, model_dict, block)] = len(block["indices"])
        pending = set(futures)
        while pending:
            done, pending = cf.wait(pending, timeout=0.1, return_when=cf.FIRST_COMPLETED)
            for f in done:
                collected[f] = f.result()
                bar.update(futures[f])
    except KeyboardInterrupt:
        interrupted = True
        cancel.set()
        for f in futures:
            f.cancel()
        deadline = time.monotonic() + 30.0
        for f in futures:
            if f in collected or f.cancelled():
                continue
            try:
                collected[f] = f.result(timeout=max(0.0, deadline - time.monotonic()))
            except (cf.CancelledError, cf.TimeoutError, KeyboardInterrupt):
                continue
    finally:
        bar.close()
        if own:
            pool.shutdown(wait=not interrupted, cancel_futures=True)
    results = list(collected.values())
    return results, interrupted
