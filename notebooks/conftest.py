"""pytest configuration of the course notebooks.

Only the lessons (``NN_name.ipynb``) are collected as tests: a scratch notebook a student adds
here, or anything under a working folder such as ``quivira-work/``, is not; nor are the helper
scripts here (``--doctest-modules`` would import them, and ``store_checked_outputs.py`` needs
nbclient).

When nbval is installed, the lessons run in its *lax* mode (a notebook fails on an error or a
failed ``assert``; outputs are compared only for cells marked ``# NBVAL_CHECK_OUTPUT``), in a
kernel of the current interpreter, with the sanitizer ``notebooks/sanitize.cfg`` and a 300 s
cell timeout. These options are set here rather than in ``addopts`` of ``pyproject.toml`` so
that ``pytest tests`` works where nbval is not installed; options given on the command line
(``--nbval-kernel-name``, ``--nbval-cell-timeout``, ``--nbval-sanitize-with``) win.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

LESSON = re.compile(r"\d\d_[\w-]+\.ipynb")
#: nbval's default cell timeout (s), replaced by :data:`CELL_TIMEOUT` unless given explicitly
NBVAL_DEFAULT_TIMEOUT = 2000.0
CELL_TIMEOUT = 300.0


def pytest_configure(config: pytest.Config) -> None:
    opt = config.option
    if not hasattr(opt, "nbval_lax"):  # nbval is not installed (or disabled with -p no:nbval)
        return
    opt.nbval_lax = True  # also with --nbval: only the marked cells' outputs are compared
    if not opt.nbval_kernel_name:
        opt.nbval_current_env = True
    if opt.nbval_sanitize_with is None:
        opt.nbval_sanitize_with = str(Path(__file__).with_name("sanitize.cfg"))
    if opt.nbval_cell_timeout == NBVAL_DEFAULT_TIMEOUT:
        opt.nbval_cell_timeout = CELL_TIMEOUT


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if collection_path.is_dir():
        return collection_path.name in ("quivira-work", ".ipynb_checkpoints") or None
    if collection_path.suffix == ".ipynb" and not LESSON.fullmatch(collection_path.name):
        return True
    if collection_path.suffix == ".py" and collection_path.name != "conftest.py":
        return True
    return None
