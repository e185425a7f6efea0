"""One case of one tool in a fresh subprocess: killed at a cut-off, imports timed apart.

The parent calls :func:`run_in_process` with a function named by module and attribute (for
example ``quivira_oracles.peers.exudyn_peer.run``) and its keyword arguments. The child,
``python -m benchmarks.harness.child SPEC`` from the repository root, imports the ``preload``
modules first (their time is the record's ``import_s``: imports are excluded from
every tool's figures), calls the function, which returns its record (a dict of figures), and
prints it as one JSON line after :data:`MARK`. A fresh process per run also keeps heyoka's
in-memory cache of compiled code from hiding a compile.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

#: the line of the child's stdout that carries its record
MARK = "@@BENCHMARK-RECORD@@"
#: the repository root: the children run there, so that ``-m`` finds this checkout
ROOT = Path(__file__).resolve().parents[2]
#: the module the children run
CHILD = "benchmarks.harness.child"


def run_in_process(module: str, function: str, kwargs: dict | None = None,
                   cutoff: float | None = None, preload: Sequence[str] = (),
                   log: bool = False, wall_key: str = "wall_s") -> dict:
    """Run ``module.function(**kwargs)`` in a fresh Python process and return its record.

    The record is the function's dict with ``status`` "ok", ``import_s`` (the ``preload``
    imports), ``peak_rss_mb`` and ``wall_s`` (the whole process, imports included). A run
    killed at ``cutoff`` seconds is ``{"status": "timeout", "total_s": cutoff,
    "total_is_lower_bound": True}``; an exception in the child or a crash gives ``status``
    "error" and ``error``. With ``log`` the child's stdout and stderr are in ``log``. The
    process's wall time goes under ``wall_key`` (another name where the function's record has
    a ``wall_s`` of its own).
    """
    spec = {"module": module, "function": function, "kwargs": kwargs or {},
            "preload": list(preload)}
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", CHILD, json.dumps(spec)],
                              capture_output=True, text=True, timeout=cutoff, env=env,
                              cwd=str(ROOT))
    except subprocess.TimeoutExpired:
        return {"status": "timeout", wall_key: time.perf_counter() - t0, "total_s": cutoff,
                "total_is_lower_bound": True}
    wall = time.perf_counter() - t0
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(MARK)]
    if not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"status": "error", wall_key: wall,
                "error": f"worker exit {proc.returncode}: " + " | ".join(tail)}
    rec = json.loads(lines[-1][len(MARK):])
    rec[wall_key] = wall
    if log:
        rec["log"] = proc.stdout + proc.stderr
    return rec
