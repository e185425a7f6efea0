"""The one benchmark harness: what every benchmark of ``benchmarks/`` needs, once.

* :mod:`~benchmarks.harness.process` — one case of one tool in a fresh subprocess
  (``run_in_process``), killed at a cut-off, imports timed apart, its record read back;
* :mod:`~benchmarks.harness.paired` — medians, the median of repeated fresh runs, and paired
  rounds: two noisy figures (quivira and a peer, or two quivira calls) run interleaved in one
  run, compared by the ratio of their medians;
* :mod:`~benchmarks.harness.machine` — the machine information recorded with each result (CPU,
  cores, platform, load averages, versions);
* :mod:`~benchmarks.harness.results` — JSON-safe records, number formats, and writing
  ``benchmarks/results/NAME.json`` with its markdown table beside it.
"""

from .machine import cpu_model, load_average, machine_info, versions
from .paired import (
    close_to_bound,
    median,
    median_of_runs,
    paired_default,
    peer_side_by_side,
    repeats,
    side_by_side,
)
from .process import run_in_process
from .results import RESULTS, clean, finite, fmt_e, fmt_s, markdown_table, write_results

__all__ = ["RESULTS", "clean", "close_to_bound", "cpu_model", "finite", "fmt_e", "fmt_s",
           "load_average", "machine_info", "markdown_table", "median", "median_of_runs",
           "paired_default", "peer_side_by_side", "repeats", "run_in_process", "side_by_side",
           "versions", "write_results"]
