"""The machine a benchmark ran on, recorded with each result."""

from __future__ import annotations

import importlib
import os
import platform
from datetime import UTC, datetime
from pathlib import Path

#: the packages whose versions go with every result (quivira last: it is the one measured)
PACKAGES = ("numpy", "heyoka", "sympy", "scipy", "exudyn", "matplotlib", "quivira")


def load_average() -> list[float] | None:
    """The load averages over 1, 5 and 15 minutes (None where the system has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def versions(packages: tuple[str, ...] = PACKAGES) -> dict:
    """Python's version and each package's ``__version__`` (None when it does not import)."""
    out = {"python": platform.python_version()}
    for name in packages:
        try:
            out[name] = getattr(importlib.import_module(name), "__version__", "?")
        except Exception:  # noqa: BLE001 - a missing peer is recorded, not fatal
            out[name] = None
    return out


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, else what :mod:`platform` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def machine_info() -> dict:
    """The date (UTC), CPU, core count, platform, load averages and versions, in one record."""
    return {"date": datetime.now(UTC).isoformat(timespec="seconds"), "cpu": cpu_model(),
            "cpus": os.cpu_count(), "platform": platform.platform(),
            "load_average": load_average(), "versions": versions()}
