"""Where files go, and how they reach the browser.

:class:`WorkFolder` — the folder that saves and exports write to. By default
``quivira-work/`` in the kernel's working directory (next to the notebook), made on first
use; the repository's ``.gitignore`` lists ``quivira-work/``. It holds models (JSON), motions
(GIF, MP4) and trajectories (CSV) only — never notebooks — so nothing in it is collected as a
test. The path is a trait, shared by the panels of a Studio.

:class:`DownloadLink` — a link that hands a file to the browser: the bytes travel in a
``data:`` URL with the HTML ``download`` attribute, so a click saves the file on the user's
machine (also on Binder, where the kernel's disk is not the user's).
"""

from __future__ import annotations

import base64
import html
import os
import re
from pathlib import Path

import ipywidgets as widgets
import traitlets

DEFAULT_FOLDER = "quivira-work"
#: files larger than this are written to the folder but not offered as a download link
MAX_DOWNLOAD_BYTES = 40_000_000
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.()+-]{0,120}")


class WorkFolder(traitlets.HasTraits):
    """The folder for saves and exports (see the module docstring).

    Attributes
    ----------
    path : str
        The folder, relative to the kernel's working directory or absolute.
    """

    path = traitlets.Unicode(DEFAULT_FOLDER)

    @traitlets.validate("path")
    def _check_path(self, proposal) -> str:
        p = str(proposal["value"]).strip()
        if not p:
            raise traitlets.TraitError("folder: write a folder name, e.g. quivira-work")
        if "\x00" in p:
            raise traitlets.TraitError("folder: the name holds a NUL character")
        return p

    def resolve(self) -> Path:
        """Return the folder as an absolute path (not created)."""
        p = Path(os.path.expanduser(self.path))
        return p if p.is_absolute() else Path.cwd() / p

    def file(self, name: str, suffix: str) -> Path:
        """Return the path of file ``name`` in the folder, made if needed.

        ``name`` gets ``suffix`` (e.g. ``".json"``) when it has none.

        Raises
        ------
        ValueError
            If ``name`` is empty, holds a folder part or characters other than letters,
            digits, spaces and ``_ . ( ) + -``, or has another suffix.
        OSError
            If the folder cannot be made.
        """
        n = str(name).strip()
        if not n:
            raise ValueError(f"file name: write a name such as model{suffix}")
        if "/" in n or "\\" in n or n in (".", ".."):
            raise ValueError(f"file name: a name only, without folders (the folder is "
                             f"{self.path!r}), got {n!r}")
        if not Path(n).suffix:
            n += suffix
        if Path(n).suffix.lower() != suffix:
            raise ValueError(f"file name: a {suffix} file, e.g. model{suffix}; got {n!r}")
        if not _NAME.fullmatch(n):
            raise ValueError("file name: letters, digits, spaces and _ . ( ) + - only, "
                             f"starting with a letter or digit; got {n!r}")
        folder = self.resolve()
        folder.mkdir(parents=True, exist_ok=True)
        return folder / n


class DownloadLink(widgets.HTML):
    """A link that downloads a file in the browser (see the module docstring).

    Attributes
    ----------
    filename : str
        The name of the file offered ("" when none).
    size : int
        Its size in bytes.
    """

    filename = traitlets.Unicode("")
    size = traitlets.Int(0)

    def __init__(self) -> None:
        super().__init__(value="")
        self.add_class("quivira-download-link")

    def offer(self, filename: str, data: bytes, mime: str) -> None:
        """Offer ``data`` as ``filename`` (replacing the previous file)."""
        if len(data) > MAX_DOWNLOAD_BYTES:
            self.withdraw()
            self.value = (f'<span class="quivira-hint">{html.escape(filename)} is '
                          f"{_size(len(data))}: too large to download here; it is in the "
                          "working folder</span>")
            return
        payload = base64.b64encode(data).decode("ascii")
        name = html.escape(filename, quote=True)
        self.value = (f'<a class="quivira-download" download="{name}" '
                      f'href="data:{mime};base64,{payload}" title="save {name} on this '
                      f'computer">⬇ download {name}</a> <span class="quivira-hint">'
                      f"({_size(len(data))})</span>")
        self.filename = filename
        self.size = len(data)

    def withdraw(self) -> None:
        """Remove the link."""
        self.value = ""
        self.filename = ""
        self.size = 0


def _size(n: int) -> str:
    if n < 1000:
        return f"{n} B"
    if n < 1_000_000:
        return f"{n / 1000:.1f} kB"
    return f"{n / 1e6:.1f} MB"
