"""Sphinx configuration of the Quivira documentation site.

Build from the repository root with warnings as errors (a quick build: lessons without their
figures, see below)::

    python -m sphinx -W -b html docs docs/_build/html

The course pages are the notebooks ``notebooks/NN_name.ipynb``, copied into ``docs/course/``
at the start of every build (that folder is generated and git-ignored) with a *launch on
Binder* and a *download* line added at the top of each copy; a new lesson needs no other step
(the course's table of contents globs ``course/*``). The notebooks are stored without outputs,
so the published site is built with ``QUIVIRA_DOCS_EXECUTE=1`` (as CI does)::

    QUIVIRA_DOCS_EXECUTE=1 python -m sphinx -W --keep-going -b html docs docs/_build/html

which executes every lesson during the build (figures, and the ``to_jshtml`` animations of
matplotlib as HTML; 2.5 to 5 minutes for the course on two cores, each lesson under half a
minute), with the results cached in ``docs/_build/.jupyter_cache`` (an unchanged lesson is not
executed again). Without it the lessons are rendered from their stored outputs
(``nb_execution_mode = "off"``): code and text, no figures; a quick check of the pages.

Widgets (the Studio and its panels) need a running kernel: on the site, each widget output is
replaced by a note with a link to the Binder launch and the screenshots of ``widgets.md``, and
a still image of the Studio where the cell builds one (see :func:`static_widget_outputs`).
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

exclude_patterns = ["_build", "**.ipynb_checkpoints", "course/quivira-work", "design"]
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


# -- widget outputs of executed lessons ------------------------------------------------------
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
STUDIO_IMAGE = "/_static/img/studio.png"  # a screenshot of the widgets page (browser test)


def _widget_note(docname: str, source: str) -> list:
    """Return the nodes shown instead of a widget view: a note, and the Studio still image.

    ``source`` is the code of the cell; the image is added when it builds a ``Studio``.
    """
    from docutils import nodes
    from sphinx import addnodes

    name = docname.rsplit("/", 1)[-1] + ".ipynb"
    para = nodes.paragraph()
    para += nodes.Text("This cell shows an interactive widget; it needs a running Python "
                       "kernel, so it is not drawn on this page. ")
    para += nodes.reference("", "Launch the lesson on Binder", refuri=BINDER.format(name=name))
    para += nodes.Text(" (or run it locally) to use it; the ")
    xref = addnodes.pending_xref("", refdomain="std", reftype="doc", reftarget="/widgets",
                                 refexplicit=True, refdoc=docname)
    xref += nodes.inline("", "Widgets page")
    para += xref
    para += nodes.Text(" has screenshots of every panel.")
    out = [nodes.note("", para)]
    if "Studio(" in source:
        image = nodes.image(uri=STUDIO_IMAGE, alt="The Studio after a simulation (a four-bar "
                            "linkage)", width="55%")
        caption = nodes.caption("", "The Studio after a simulation (here a four-bar linkage; "
                                "screenshot of the browser test of the widgets).")
        out.append(nodes.figure("", image, caption, align="center"))
    return out


def static_widget_outputs(app, doctree) -> None:
    """Replace the ipywidgets views of executed lessons by a note (and a still image).

    A widget view on a static page would need its JavaScript (ipywidgets' HTML manager and,
    for the figures, ipympl's) from a CDN and would still not react without a kernel: the
    note says so and links to Binder and the widgets page. The notebook's widget state (a
    megabyte for the Studio) and the HTML manager are then left out of the page.
    """
    from docutils import nodes

    docname = app.env.docname
    replaced = 0
    for raw in list(doctree.findall(nodes.raw)):
        if f'<script type="{WIDGET_VIEW}">' not in raw.astext():
            continue
        cell = raw.parent
        while cell is not None and "cell" not in cell.get("classes", []):
            cell = cell.parent
        source = ""
        if cell is not None:
            blocks = list(cell.findall(nodes.literal_block))
            source = blocks[0].astext() if blocks else ""
        new = _widget_note(docname, source)
        for node in new:
            if isinstance(node, nodes.figure):
                doctree.set_id(node)  # HTML needs an id for a figure
        raw.replace_self(new)
        replaced += 1
    if replaced:
        # myst-nb registers the widget state and the HTML manager per document (internal
        # store: skipped quietly if it changes)
        meta = getattr(app.env, "nb_metadata", {}).get(docname, {})
        for key in [k for k in meta.get("js_files", {}) if k.startswith("ipywidgets")]:
            del meta["js_files"][key]


def setup(app):
    # before Sphinx's image collector (priority 500), which must see the still image
    app.connect("doctree-read", static_widget_outputs, priority=400)
    return {"parallel_read_safe": True}
