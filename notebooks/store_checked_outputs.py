"""Store the reference outputs of the ``# NBVAL_CHECK_OUTPUT`` cells, and only those.

nbval (lax mode) compares a cell's output only when the notebook holds a stored output for
it. Lessons are committed without outputs, except the cells marked ``# NBVAL_CHECK_OUTPUT``,
which print rounded, machine-independent numbers: this script executes each lesson, keeps
the outputs of those cells and clears every other output.

Run from the repository root after editing a lesson:
``python notebooks/store_checked_outputs.py [notebooks/NN_*.ipynb ...]``
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

MARK = "NBVAL_CHECK_OUTPUT"


def store(path: Path) -> int:
    """Execute ``path`` and keep only the checked cells' outputs; returns how many."""
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    kept = 0
    for cell in nb.cells:
        cell.metadata.pop("execution", None)  # timestamps
        if cell.cell_type != "code":
            continue
        if MARK in cell.source:
            kept += 1
            cell.outputs = [o for o in cell.outputs if o.get("output_type") != "display_data"]
        else:
            cell.outputs = []
            cell.execution_count = None
    for key in ("widgets",):
        nb.metadata.pop(key, None)
    nbformat.write(nb, path)
    return kept


def main(argv: list[str]) -> int:
    paths = [Path(p) for p in argv] or sorted(Path("notebooks").glob("[0-9][0-9]_*.ipynb"))
    for p in paths:
        print(f"{p}: {store(p)} checked cell(s) stored", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
