r"""Budgets of long calls: steps, wall time, cancellation and output size.

Every call that integrates or loops for long — ``simulate``, ``simulate_system``,
``sensitivities``, sweeps, statics paths, kinematic sweeps — takes the same two budget
arguments, ``max_steps`` and ``max_wall_s``, and checks them the same way, through a
:class:`Budget`:

* Work is done in **chunks** between which Python code runs, so that Ctrl-C (a notebook's
  "interrupt kernel") is raised within a fraction of a second, a cancellation requested from
  another thread (:attr:`Budget.cancel`) is seen, and the budgets are checked.
* The size of a chunk (integrator steps, or loop iterations) is a function of the problem's
  size alone (:func:`chunk_steps`), **never of the wall time**: the sequence of integrator
  steps, hence every result, is the same bit for bit on an idle and on a busy machine. A budget
  may stop a run; it never changes its steps.
* Outputs are sized **before any work** (:func:`check_output_bytes`), against one limit,
  :data:`MAX_OUTPUT_BYTES`, with a message that names what to reduce.
* Ctrl-C cannot be lost. Python raises ``KeyboardInterrupt`` wherever the main thread happens
  to be, and where that is a finalizer, a callback or code that swallows exceptions, the
  interrupt is gone and a loop of hours goes on. While a long call runs
  (:func:`interrupts_polled`), SIGINT also leaves a mark that :meth:`Budget.exceeded` reads
  between chunks: an interrupt that was swallowed is raised again there, in the loop's own
  frame, which turns it into a result so far.
"""

from __future__ import annotations

import math
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: default budget of integrator steps of one call
DEFAULT_MAX_STEPS = 50_000_000
#: default budget of wall time (s) of one call
DEFAULT_MAX_WALL_S = 3600.0
#: largest memory (bytes) the outputs of one call may need
MAX_OUTPUT_BYTES = 2e9
#: wall time (s) one chunk is sized for on a typical machine (a machine 10x slower still
#: answers Ctrl-C within a second)
CHUNK_TARGET_S = 0.05
#: seconds per operation of one Taylor step, per unit of :func:`chunk_steps`'s ``cost``
#: (measured once on a 2-core x86_64 machine; only the chunk sizes depend on it)
SECONDS_PER_COST = 6e-7
#: largest chunk of integrator steps
MAX_CHUNK = 1 << 16


def _count(value: Any, what: str, minimum: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{what} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _seconds(value: Any, what: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                       np.floating)):
        raise TypeError(f"{what} must be a positive number of seconds, got {value!r}")
    v = float(value)
    if not math.isfinite(v) or v <= 0.0:
        raise ValueError(f"{what} must be positive (a finite number of seconds), got {v!r}")
    return v


def chunk_steps(cost: float) -> int:
    r"""Return the number of integrator steps of one chunk for a system of ``cost``.

    ``cost`` is a measure of the work of one step (for the bar model, the structural non-zeros
    of :math:`J` and :math:`W` plus the number of coordinates; heyoka's decomposition is about
    five times that). The chunk lasts about :data:`CHUNK_TARGET_S` on a typical machine. It
    depends on ``cost`` only, so that the steps are the same whatever the machine's load.
    """
    if not math.isfinite(cost) or cost <= 0.0:
        return 1
    return int(min(MAX_CHUNK, max(1, CHUNK_TARGET_S / (SECONDS_PER_COST * cost))))


def check_output_bytes(nbytes: float, what: str, fix: str, *, of: str = "outputs") -> None:
    """Refuse, before any work, outputs needing more than :data:`MAX_OUTPUT_BYTES`.

    Parameters
    ----------
    nbytes : float
        The memory the outputs would need.
    what : str
        What asks for them, e.g. ``"n_points = 10**9"``.
    fix : str
        What to reduce, e.g. ``"use fewer n_points"``.
    of : str, optional
        What the memory is for, in the message (``"outputs"``; e.g. ``"working memory"``
        for the equations a call builds).

    Raises
    ------
    ValueError
        Above the limit.
    """
    if not nbytes <= MAX_OUTPUT_BYTES:  # also NaN
        raise ValueError(f"{what} would need about {nbytes / 1e9:.3g} GB of {of} (limit "
                         f"{MAX_OUTPUT_BYTES / 1e9:g} GB); {fix}")


def decomposition_cost(ta) -> float:
    """Return the :func:`chunk_steps` cost of one step of the heyoka integrator ``ta``.

    A fifth of the length of heyoka's decomposition of its system (the decomposition of the
    bar model is about five times the measure ``chunk_steps`` is calibrated on). It depends on
    the system alone, so chunks of steps sized from it do too.
    """
    return len(ta.decomposition) / 5.0


# ---------------------------------------------------------------------- Ctrl-C
class _Interrupts:
    """The SIGINT handler of the long calls running in the main thread (see the module)."""

    depth = 0  # long calls running in the main thread, nested
    previous: Any = None  # the handler before the outermost one started (None: not ours)
    pending = False  # a SIGINT that no loop has turned into a result yet


def _on_sigint(signum: int, frame: Any) -> None:
    """Mark the interrupt as pending, then raise it as Python's default handler does."""
    _Interrupts.pending = True
    signal.default_int_handler(signum, frame)


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextmanager
def interrupts_polled() -> Iterator[None]:
    """Run a long call so that its loops see every Ctrl-C, even one that was swallowed.

    In the main thread, while Python's default SIGINT handler is in place (a script, a
    notebook kernel), SIGINT still raises ``KeyboardInterrupt`` at once and also marks the
    interrupt as pending; :meth:`Budget.exceeded`, between chunks, raises a pending interrupt
    again in the loop's frame (:func:`raise_pending_interrupt`). The previous handler is back
    when the outermost long call returns. Elsewhere (other threads, a handler of the user's
    own) nothing changes. Also a decorator.
    """
    if not _in_main_thread():
        yield
        return
    if _Interrupts.depth == 0:
        current = signal.getsignal(signal.SIGINT)
        if current is signal.default_int_handler:
            signal.signal(signal.SIGINT, _on_sigint)
            _Interrupts.previous = current
        _Interrupts.pending = False
    _Interrupts.depth += 1
    try:
        yield
    finally:
        _Interrupts.depth -= 1
        if _Interrupts.depth == 0:
            if _Interrupts.previous is not None:
                signal.signal(signal.SIGINT, _Interrupts.previous)
                _Interrupts.previous = None
            _Interrupts.pending = False


def interrupt_seen() -> None:
    """Say that a ``KeyboardInterrupt`` reached a loop (it is not raised again)."""
    if _in_main_thread():
        _Interrupts.pending = False


def raise_pending_interrupt() -> None:
    """Raise ``KeyboardInterrupt`` if a Ctrl-C was swallowed before reaching a loop.

    Called between chunks by :meth:`Budget.exceeded` (main thread only).
    """
    if _Interrupts.pending and _in_main_thread():
        _Interrupts.pending = False
        raise KeyboardInterrupt("Ctrl-C (raised again between chunks: it had been swallowed "
                                "where it first arrived)")


@dataclass
class Budget:
    """The budgets of one long call, and how much of them is used.

    Parameters
    ----------
    max_steps : int
        Integrator steps (or loop iterations) allowed.
    max_wall_s : float
        Wall time allowed (s).
    cancel : threading.Event, optional
        Set by another thread to stop the call at the next chunk (a sweep's Ctrl-C).
    """

    max_steps: int = DEFAULT_MAX_STEPS
    max_wall_s: float = DEFAULT_MAX_WALL_S
    cancel: threading.Event | None = None
    steps: int = 0
    start: float = field(default_factory=lambda: time.perf_counter())

    def __post_init__(self) -> None:
        """Check the budgets (TypeError/ValueError naming the argument)."""
        self.max_steps = _count(self.max_steps, "max_steps", 1)
        self.max_wall_s = _seconds(self.max_wall_s, "max_wall_s")

    @property
    def wall_s(self) -> float:
        """Wall time used so far (s)."""
        return time.perf_counter() - self.start

    @property
    def steps_left(self) -> int:
        """Steps still allowed."""
        return max(self.max_steps - self.steps, 0)

    def add(self, steps: int) -> None:
        """Count ``steps`` more steps (or iterations)."""
        self.steps += int(steps)

    def cancelled(self) -> bool:
        """Whether another thread asked this call to stop."""
        return self.cancel is not None and self.cancel.is_set()

    def exceeded(self, t: float | None = None, *, at: str | None = None,
                 shorter: str = "simulate a shorter time", unit: str = "integrator steps"
                 ) -> str | None:
        """Return why the call must stop now (a sentence), or None.

        Raises ``KeyboardInterrupt`` for a Ctrl-C that was swallowed since the long call
        started (:func:`interrupts_polled`), so that the loop ends as on any Ctrl-C.

        ``t`` is the simulated time reached, quoted in the sentence. Calls that loop over
        something other than time say where they are with ``at`` (e.g. ``"at g = 3.5"``),
        what to do instead of simulating a shorter time with ``shorter`` (e.g. ``"follow a
        shorter range of values"``) and what they count as steps with ``unit`` (e.g.
        ``"Newton iterations"``).
        """
        raise_pending_interrupt()
        if at is None:
            at = "" if t is None else f"at t = {t:.6g} s"
        at = f" {at}" if at else ""
        if self.cancelled():
            return f"cancelled{at}"
        if self.steps >= self.max_steps:
            return (f"stopped after {self.steps} {unit}{at} (max_steps = "
                    f"{self.max_steps}); pass a larger max_steps, or {shorter}")
        used = self.wall_s
        if used >= self.max_wall_s:
            return (f"stopped after {used:.3g} s of wall time{at} (max_wall_s = "
                    f"{self.max_wall_s:g}); pass a larger max_wall_s, or {shorter}")
        return None

    def chunk(self, cost: float) -> int:
        """Return the steps of the next chunk: :func:`chunk_steps`, within what is left."""
        return max(1, min(chunk_steps(cost), self.steps_left))


def propagate_grid(ta, grid: np.ndarray, budget: Budget, cost: float
                   ) -> tuple[np.ndarray, Any, str | None]:
    """Integrate ``ta`` over the output ``grid`` in chunks, within ``budget``.

    ``ta`` must be at ``grid[0]``. Returns ``(states, outcome, stop)``: the states reached on
    the grid (``grid[0]`` included), heyoka's last outcome, and why the run stopped early (a
    sentence from :meth:`Budget.exceeded`, ``"non-finite state"``, or None when it reached
    the end). Ctrl-C between chunks raises ``KeyboardInterrupt`` with the states so far in its
    ``states`` attribute.
    """
    import heyoka as hy

    rows = [np.array(ta.state)]
    k = 1
    outcome = hy.taylor_outcome.time_limit
    try:
        while k < len(grid):
            if grid[k] <= ta.time:
                rows.append(np.array(ta.state))
                k += 1
                continue
            stop = budget.exceeded(float(ta.time))
            if stop is not None:
                return np.array(rows), outcome, stop
            res = ta.propagate_grid(np.concatenate([[ta.time], grid[k:]]),
                                    max_steps=budget.chunk(cost))
            outcome = res[0]
            budget.add(res[3])
            new = list(np.asarray(res[5])[1:])
            while new and not np.all(np.isfinite(new[-1])):
                new.pop()
            rows.extend(new)
            k += len(new)
            if outcome not in (hy.taylor_outcome.time_limit, hy.taylor_outcome.step_limit):
                return np.array(rows), outcome, (
                    "non-finite state" if outcome == hy.taylor_outcome.err_nf_state
                    else f"integrator stopped ({outcome})")
    except KeyboardInterrupt as exc:
        interrupt_seen()
        exc.states = np.array(rows)
        raise
    return np.array(rows), outcome, None


# ---------------------------------------------------------------------- loops
def stop_if_exceeded(budget: Budget, what: str, where: str, partial: Callable[[str], Any],
                     state: np.ndarray, **words: str) -> None:
    """Raise ``BudgetExceededError`` if ``budget`` is used up, with the result so far.

    For calls that loop over something other than time (equilibrium paths, kinematic
    sweeps). ``what`` names the call, ``where`` says where it is (e.g. ``"at g = 3.5"``),
    ``partial(message)`` builds its partial result (called only when stopping, with the
    reason), ``state`` is the last pose; ``words`` go to :meth:`Budget.exceeded`
    (``shorter``, ``unit``).
    """
    stop = budget.exceeded(at=where, **words)
    if stop is not None:
        from .model.trajectory import BudgetExceededError

        raise BudgetExceededError(f"{what} {stop}", math.nan, state, result=partial(stop))


@contextmanager
def partial_on_interrupt(what: str, where: Callable[[], str],
                         partial: Callable[[str], Any]) -> Iterator[None]:
    """Turn Ctrl-C inside the block into ``SimulationInterrupted`` with the result so far.

    ``where()`` says where the loop was (e.g. ``"at g = 3.5"``), ``partial(message)`` builds
    what it computed up to then (its ``result``).
    """
    try:
        yield
    except KeyboardInterrupt:
        from .model.trajectory import SimulationInterrupted

        interrupt_seen()
        at = where()
        raise SimulationInterrupted(math.nan, result=partial(f"interrupted {at}"), message=(
            f"{what} interrupted {at}; what it computed up to then is in .result of this "
            "exception")) from None
