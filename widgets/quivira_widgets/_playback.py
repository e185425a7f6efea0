"""Playback at a chosen speed, the events marked on the timeline, and the event log.

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


#: what an event switched or hit (drawn in the switch colour on the timeline)
SWITCHES = ("latched", "impact", "rests", "released")
#: most rows the event log shows (the rest are counted below it)
MAX_LOG_ROWS = 500


def event_records(trajectory) -> list[dict]:
    """Return the events recorded by a run, in time order.

    ``trajectory.events`` (dicts with ``t``, ``name``, ``what`` and, for switches and
    impacts, ``kinetic_energy_lost``), else entries of ``trajectory.info["events"]``
    (``(t, text)`` or dicts).
    """
    out: list[dict] = []
    raw = list(getattr(trajectory, "events", None) or [])
    if not raw:
        raw = list((getattr(trajectory, "info", None) or {}).get("events", []) or [])
    for ev in raw:
        try:
            if isinstance(ev, dict):
                rec = {"t": float(ev["t"]),
                       "name": str(ev.get("name") or ev.get("kind") or "event"),
                       "what": str(ev.get("what") or "event")}
                ke = ev.get("kinetic_energy_lost")
                rec["kinetic_energy_lost"] = None if ke is None else float(ke)
                rec["redundant"] = bool(ev.get("redundant", False))
            else:
                rec = {"t": float(ev[0]), "name": str(ev[1]), "what": "event",
                       "kinetic_energy_lost": None, "redundant": False}
        except (KeyError, IndexError, TypeError, ValueError):
            continue
        out.append(rec)
    out.sort(key=lambda r: r["t"])
    return out


def event_text(rec: dict) -> str:
    """``"latch 0: latched, 89.9 J lost"`` for an event record."""
    text = f"{rec['name']}: {rec['what']}"
    ke = rec.get("kinetic_energy_lost")
    if ke:
        text += f", {ke:.4g} J lost"
    if rec.get("redundant"):
        text += " (with another)"
    return text


def events_of(trajectory, stopped: str | None) -> list[tuple[float, str]]:
    """Return the events of a run as ``(t, text)``.

    Those the trajectory records (:func:`event_records`), and where the run stopped early.
    """
    out = [(rec["t"], event_text(rec)) for rec in event_records(trajectory)]
    if stopped and trajectory.n_points:
        out.append((float(trajectory.t[-1]), stopped))
    return out


def timeline_html(events: list[tuple[float, str]], t0: float, t1: float) -> str:
    """Draw markers ▼ at the events' times along a strip as wide as the slider.

    Hover shows the text: red where the run stopped, orange for switches and impacts, blue
    for the others.
    """
    if not events or not t1 > t0:
        return ""
    marks = []
    for t, text in events:
        x = 100.0 * min(max((t - t0) / (t1 - t0), 0.0), 1.0)
        if text.startswith("stopped"):
            cls = "quivira-event"
        elif any(f": {w}" in text for w in SWITCHES):
            cls = "quivira-event quivira-event-switch"
        else:
            cls = "quivira-event quivira-event-info"
        marks.append(f'<span class="{cls}" style="left:{x:.2f}%" '
                     f'title="t = {t:.4g} s: {html.escape(text, quote=True)}">▼</span>')
    return "".join(marks)


def log_rows(records: list[dict]) -> list[tuple[float, str, str, float | None]]:
    """Return the event log's rows ``(t, element, what, kinetic energy lost or None)``."""
    return [(r["t"], r["name"], r["what"], r["kinetic_energy_lost"]) for r in records]


def log_html(rows: list[tuple[float, str, str, float | None]], now: float | None = None) -> str:
    """Return the event log as an HTML table.

    Columns t [s], element, what, kinetic energy lost [J]; rows at or before ``now`` are
    greyed (they have happened in the frame shown).
    """
    if not rows:
        return ""
    head = ("<tr><th>t [s]</th><th>element</th><th>what</th>"
            "<th>kinetic energy lost [J]</th></tr>")
    body = []
    for t, name, what, ke in rows[:MAX_LOG_ROWS]:
        past = now is not None and t <= now + 1e-12
        cls = ' class="quivira-event-past"' if past else ""
        ke_text = "" if ke is None else f"{ke:.6g}"
        body.append(f"<tr{cls}><td class=\"quivira-num\">{t:.6g}</td>"
                    f"<td>{html.escape(name)}</td><td>{html.escape(what)}</td>"
                    f"<td class=\"quivira-num\">{ke_text}</td></tr>")
    more = ""
    if len(rows) > MAX_LOG_ROWS:
        more = (f'<div class="quivira-hint">… {len(rows) - MAX_LOG_ROWS} more events '
                "(all in trajectory.events)</div>")
    return (f'<div class="quivira-event-log"><table class="quivira-event-table">{head}'
            f'{"".join(body)}</table>{more}</div>')
