r"""Which batch code a sweep compiles: quick to build or quick to run.

heyoka's compact-mode code compiles about five times faster at ``opt_level=0`` than at
``opt_level=1`` but runs about three times slower (scissor-8 with 16 springs, 8 lanes, on
this project's 2-core machine: 0.55 s against 2.7 s to compile, 11.9 ms against 4.2 ms per
lane for 10 s of motion). Which is faster for a sweep depends on how much integrating there
is, which only the motion tells. So ``purpose="auto"`` (the default of :func:`quivira.sweep`)
compiles the quick-to-build code, integrates the first lanes of the group for
:data:`PROBE_STEPS` steps, and estimates the work of the whole sweep from the step rate:

.. math::

    T_0 = k\,D\,p^2\,\bar r\,t_{end}\,L, \qquad
    \text{opt\_level 1 iff}\quad \frac{T_0\,(1 - 1/s)}{w} > C_1 = a + b\,D,

with :math:`D` the length of the Taylor decomposition, :math:`p` the Taylor order,
:math:`\bar r` the mean steps per simulated second of the probe lanes, :math:`L` the lanes
to integrate (variants rounded up to whole batches), :math:`w` the workers that share them,
:math:`s` the speed-up of ``opt_level=1`` and :math:`C_1` its compile time. The constants
were measured here (four-bar and scissor-8); only their ratios matter, and both sides scale
alike with the CPU.

The decision uses step counts and sizes, never a clock, so the same sweep always compiles
the same code and gives the same numbers bit for bit (on threads or on a Dask cluster: the
caller decides once and ships the choice with every block).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .batch import Context, load_lanes

#: steps of the probe integration (all lanes stop after them)
PROBE_STEPS = 16
#: seconds per lane-step, per decomposition entry and per order², compact mode, opt_level 0
K_STEP = 1.8e-10
#: run-time speed-up of opt_level 1 over opt_level 0 (compact mode)
SPEEDUP = 2.9
#: compile time of an opt_level-1 batch integrator: C_FIXED + C_ENTRY * D seconds
C_FIXED, C_ENTRY = 0.54, 4.35e-4


@dataclass(frozen=True)
class OptChoice:
    """The outcome: ``opt_level`` of the batch code and the estimate behind it."""

    opt_level: int
    steps_per_s: float
    opt0_work_s: float
    opt1_compile_s: float

    def describe(self) -> str:
        """One line for ``result.attrs``."""
        return (f"opt_level {self.opt_level}: {self.steps_per_s:.3g} steps per simulated "
                f"second in the probe, estimated opt_level-0 integration "
                f"{self.opt0_work_s:.3g} s of CPU against an opt_level-1 compile of "
                f"{self.opt1_compile_s:.3g} s")


def probe_step_rate(ctx: Context, pars: np.ndarray, states: np.ndarray, t_end: float
                    ) -> float:
    """Mean Taylor steps per simulated second of the lanes ``pars``, ``states`` (≤ lanes).

    Integrates them from t = 0 for at most :data:`PROBE_STEPS` steps (or to ``t_end``) in the
    batch integrator of ``ctx``; returns NaN if no lane advanced.
    """
    ta = ctx.ta
    size = ta.batch_size
    k = min(len(pars), size)
    load_lanes(ctx, pars, states, list(range(k)))
    ta.propagate_until(np.full(size, float(t_end)), max_steps=PROBE_STEPS)
    times = np.asarray(ta.time, dtype=float)[:k]
    steps = np.array([float(r[3]) for r in ta.propagate_res[:k]])
    ok = np.isfinite(times) & (times > 0)
    if not np.any(ok):
        return float("nan")
    return float(np.mean(steps[ok] / times[ok]))


def choose_opt_level(ctx: Context, pars: np.ndarray, states: np.ndarray, t_end: float,
                     n_variants: int, workers: int) -> OptChoice:
    """Decide the ``opt_level`` of the batch code for ``n_variants`` variants (see module).

    ``ctx`` holds the opt_level-0 batch integrator; ``pars``/``states`` are the first lanes.
    """
    ta = ctx.ta
    rate = probe_step_rate(ctx, pars, states, t_end)
    D, p, size = len(ta.decomposition), int(ta.order), ta.batch_size
    n_lanes = -(-n_variants // size) * size
    compile1 = C_FIXED + C_ENTRY * D
    if not np.isfinite(rate):  # the probe did not advance: keep the quick-to-build code
        return OptChoice(0, float("nan"), float("nan"), compile1)
    work0 = K_STEP * D * p * p * rate * t_end * n_lanes
    w = max(1, min(workers, n_lanes // size))
    level = 1 if work0 * (1.0 - 1.0 / SPEEDUP) / w > compile1 else 0
    return OptChoice(level, rate, work0, compile1)
