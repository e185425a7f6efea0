"""Sphinx configuration of the Quivira documentation site.

Build from the repository root with warnings as errors (as CI does)::

    python -m sphinx -W -b html docs docs/_build/html

The course pages are the notebooks of ``notebooks/``, copied into ``docs/course/`` at the start
of every build (that folder is generated and git-ignored) with a *launch on Binder* and a
*download* line added at the top of each copy. They are rendered by myst-nb from their stored
outputs (``nb_execution_mode = "off"``): the test suite already executes every lesson with
nbval. ``QUIVIRA_DOCS_EXECUTE=1`` executes them during the build instead (figures included;
a few minutes), with the results cached in ``docs/_build/.jupyter_cache``.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path[:0] = [str(ROOT), str(ROOT / "widgets")]

import quivira  # noqa: E402

# -- project ---------------------------------------------------------------------------------
project = "Quivira"
author = "Quivira developers"
copyright = "2026, Quivira developers (MPL-2.0)"  # noqa: A001 - Sphinx's name
release = quivira.__version__
version = ".".join(release.split(".")[:2])

REPOSITORY = "https://github.com/quivira-dev/quivira"
BINDER = "https://mybinder.org/v2/gh/quivira-dev/quivira/HEAD?urlpath=lab/tree/notebooks/{name}"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]

exclude_patterns = ["_build", "**.ipynb_checkpoints", "course/quivira-work"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"

# -- API reference ---------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # numpydoc lists the types from the docstrings
numpydoc_show_class_members = False  # autodoc documents the members
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# -- MyST and notebooks ----------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "html_image", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "cache" if os.environ.get("QUIVIRA_DOCS_EXECUTE") == "1" else "off"
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_cache_path = str(DOCS / "_build" / ".jupyter_cache")
nb_merge_streams = True

# Lessons start with one H1 and use H2/H3 below it; notebook markdown may still skip a level.
suppress_warnings = ["myst.header"]

# -- HTML ------------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"Quivira {release}"
html_static_path = ["_static"]
html_css_files = ["quivira.css"]
html_theme_options = {
    "source_repository": REPOSITORY,
    "source_branch": "main",
    "source_directory": "docs/",
}

# -- the course: notebooks copied with a Binder line -----------------------------------------
LESSON = re.compile(r"\d\d_[\w-]+\.ipynb")


def _binder_line(name: str) -> str:
    return (
        f"[![Launch on Binder](https://mybinder.org/badge_logo.svg)]({BINDER.format(name=name)})"
        f" &nbsp; *Launch this lesson on Binder* (nothing to install), or "
        f"[download the notebook]({REPOSITORY}/raw/main/notebooks/{name}) and run it with "
        f"`pip install -e \".[lab]\"` in a clone of the repository."
    )


def _with_binder_line(nb: dict, name: str) -> dict:
    """The notebook with the Binder line right under its title (the first line of its first
    markdown cell, when that is a heading), or in a cell of its own at the top."""
    line = _binder_line(name)
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        title, sep, rest = text.partition("\n")
        if title.startswith("# "):
            cell["source"] = f"{title}\n\n{line}\n{sep}{rest}"
            return nb
        break
    nb["cells"].insert(0, {"cell_type": "markdown", "metadata": {}, "source": line,
                           "id": "binder-link"})
    return nb


def copy_course(source: Path = ROOT / "notebooks", target: Path = DOCS / "course") -> list[str]:
    """Copy the lessons ``NN_name.ipynb`` into ``target``, each with a Binder line under its
    title; returns the names copied. Files no longer in ``source`` are
    removed from ``target``."""
    target.mkdir(exist_ok=True)
    names = sorted(p.name for p in source.glob("*.ipynb") if LESSON.fullmatch(p.name))
    for old in target.glob("*.ipynb"):
        if old.name not in names:
            old.unlink()
    for name in names:
        nb = _with_binder_line(json.loads((source / name).read_text(encoding="utf-8")), name)
        text = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
        out = target / name
        if not out.exists() or out.read_text(encoding="utf-8") != text:
            out.write_text(text, encoding="utf-8")  # unchanged copies keep their mtime
    return names


COURSE = copy_course()
