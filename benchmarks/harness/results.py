"""Records as JSON, figures as text, and the results files of ``benchmarks/results/``."""

from __future__ import annotations

import json
import math
from pathlib import Path

#: where every benchmark writes its latest run (NAME.json, and NAME.md beside it)
RESULTS = Path(__file__).resolve().parents[1] / "results"


def finite(x) -> bool:
    """True for a finite int or float (not a bool)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def clean(x):
    """JSON-safe copy of ``x``: NaN and infinities become None, tuples lists."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [clean(v) for v in x]
    return x


def fmt_s(x) -> str:
    """Seconds with three significant digits (whole seconds from 100 s), "–" for no figure."""
    if not finite(x):
        return "–"
    return f"{x:.3g}" if x < 100 else f"{x:.0f}"


def fmt_e(x) -> str:
    """An error in the form 1.2e-10, "–" for no figure."""
    return f"{x:.1e}" if finite(x) else "–"


def markdown_table(header: list[str], rows: list[list], align: str | None = None) -> list[str]:
    """The lines of a markdown table; ``align`` one character per column ("l" or "r")."""
    align = align or "l" * len(header)
    rule = ["---:" if a == "r" else "---" for a in align]
    return ["| " + " | ".join(header) + " |", "|" + "|".join(rule) + "|"] + [
        "| " + " | ".join(str(c) for c in row) + " |" for row in rows]


def write_results(path: Path | str, doc: dict, markdown: str | None = None) -> list[Path]:
    """Write ``doc`` as JSON to ``path`` (NaN and infinities as null) and ``markdown`` beside
    it (``.md``); return the paths written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(clean(doc), indent=1, allow_nan=False) + "\n")
    written = [path]
    if markdown is not None:
        md = path.with_suffix(".md")
        md.write_text(markdown)
        written.append(md)
    return written
