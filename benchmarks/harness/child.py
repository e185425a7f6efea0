"""The child side of :func:`benchmarks.harness.process.run_in_process` (run with ``-m``)."""

from __future__ import annotations

import importlib
import json
import sys
import time

from .process import MARK
from .results import clean


def _peak_rss_mb() -> float:
    """Peak resident memory of this process (build + compile + simulate), in MB."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def child(spec: dict) -> dict:
    """Run one spec of :func:`run_in_process` in this process; its record (errors included)."""
    t0 = time.perf_counter()
    try:
        for name in spec.get("preload", ()):
            importlib.import_module(name)
        import_s = time.perf_counter() - t0
        run = getattr(importlib.import_module(spec["module"]), spec["function"])
        rec = dict(run(**spec.get("kwargs", {})))
        rec.update(status="ok", import_s=import_s, peak_rss_mb=_peak_rss_mb())
    except Exception as exc:  # noqa: BLE001 - reported in the record
        rec = {"status": "error", "error": f"{type(exc).__name__}: {exc}"}
    return rec


if __name__ == "__main__":
    print(MARK + json.dumps(clean(child(json.loads(sys.argv[1])))), flush=True)
