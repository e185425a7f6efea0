"""Playback at a chosen speed, and the events marked on the timeline.

The ``Play`` widget advances the frame slider in the browser every ``interval`` ms by ``step``
frames. Real time at speed ``s`` means ``step · dt / interval = s / 1000`` for frames ``dt``
seconds apart: :func:`play_timing` picks the step that keeps the interval near 40 ms (25 updates
per second, what the kernel can draw), then the interval that makes the speed exact.
"""

from __future__ import annotations

import html

#: the speeds offered
SPEEDS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0)
#: the wanted time between two frame updates (ms)
TARGET_INTERVAL_MS = 40.0


def play_timing(dt: float, speed: float) -> tuple[int, int]:
    """``(interval_ms, step)`` playing frames ``dt`` s apart at ``speed`` × real time.

    Raises
    ------
    ValueError
        If ``dt`` or ``speed`` is not positive and finite.
    """
    if not (dt > 0 and speed > 0) or dt == float("inf") or speed == float("inf"):
        raise ValueError(f"dt and speed must be positive and finite, got {dt!r}, {speed!r}")
    frames_per_ms = speed / (1000.0 * dt)
    step = max(1, round(frames_per_ms * TARGET_INTERVAL_MS))
    interval = round(step / frames_per_ms)
    return int(min(max(interval, 10), 2000)), int(step)


def events_of(trajectory, stopped: str | None) -> list[tuple[float, str]]:
    """Events of a run as ``(t, text)``: those the trajectory records in ``info["events"]``
    (entries ``(t, text)`` or dicts with ``"t"`` and ``"name"``/``"kind"``), and where the run
    stopped early."""
    out: list[tuple[float, str]] = []
    for ev in (trajectory.info or {}).get("events", []) or []:
        try:
            if isinstance(ev, dict):
                out.append((float(ev["t"]), str(ev.get("name") or ev.get("kind") or "event")))
            else:
                out.append((float(ev[0]), str(ev[1])))
        except (KeyError, IndexError, TypeError, ValueError):
            continue
    if stopped and trajectory.n_points:
        out.append((float(trajectory.t[-1]), stopped))
    return out


def timeline_html(events: list[tuple[float, str]], t0: float, t1: float) -> str:
    """Markers ▼ at the events' times along a strip as wide as the slider (hover: the text)."""
    if not events or not t1 > t0:
        return ""
    marks = []
    for t, text in events:
        x = 100.0 * min(max((t - t0) / (t1 - t0), 0.0), 1.0)
        cls = "quivira-event" + ("" if "stop" in text else " quivira-event-info")
        marks.append(f'<span class="{cls}" style="left:{x:.2f}%" '
                     f'title="t = {t:.4g} s: {html.escape(text, quote=True)}">▼</span>')
    return "".join(marks)
