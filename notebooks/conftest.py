"""Only the lessons (``NN_name.ipynb``) are collected as tests: a scratch notebook a student
adds here, or anything under a working folder such as ``quivira-work/``, is not."""

from __future__ import annotations

import re
from pathlib import Path

LESSON = re.compile(r"\d\d_[\w-]+\.ipynb")


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    if collection_path.is_dir():
        return collection_path.name in ("quivira-work", ".ipynb_checkpoints") or None
    if collection_path.suffix == ".ipynb" and not LESSON.fullmatch(collection_path.name):
        return True
    return None
