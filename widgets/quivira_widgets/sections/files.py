"""The *Files* section: the working folder, saving and loading models, uploads, downloads.

Models are saved as JSON in the working folder (:class:`quivira_widgets._files.WorkFolder`,
``quivira-work/`` next to the notebook by default) and offered as a browser download; they are
loaded from that folder or uploaded from the user's computer. A loaded model replaces the
content of the edited model object (``model.replace_with``), so every panel follows, and the
change can be undone.
"""

from __future__ import annotations

import json

import ipywidgets as widgets
import traitlets

from quivira import BarJointModel

from .._files import DownloadLink, WorkFolder
from .._wording import exception_text
from .base import STYLE, Section, button, row

#: largest model file accepted from an upload (bytes)
MAX_UPLOAD_BYTES = 20_000_000


class FilesSection(Section):
    """Working folder, save, load, upload, download (see the module docstring).

    Attributes
    ----------
    workdir : WorkFolder
        Where files go (shared with the player in a Studio).
    folder : ipywidgets.Text
        The folder, as the user types it.
    name : ipywidgets.Text
        The model's file name.
    save_button, load_button : ipywidgets.Button
    upload : ipywidgets.FileUpload
    download : DownloadLink
        The last saved model, as a browser download.
    """

    title = "Files"

    def __init__(self, model: BarJointModel, workdir: WorkFolder | None = None) -> None:
        super().__init__(model)
        self.workdir = workdir or WorkFolder()
        self.folder = widgets.Text(value=self.workdir.path, description="folder",
                                   continuous_update=False, style=STYLE,
                                   tooltip="saves and exports go here (relative to the "
                                   "notebook's folder)", layout=widgets.Layout(width="300px"))
        self.name = widgets.Text(value="model.json", description="file", style=STYLE,
                                 continuous_update=False, layout=widgets.Layout(width="300px"))
        self.save_button = button("Save", "save", "", "save the model as JSON in the folder "
                                  "and offer it as a download", "quivira-save")
        self.load_button = button("Load", "folder-open", "", "load the model file from the "
                                  "folder", "quivira-load")
        self.upload = widgets.FileUpload(accept=".json", multiple=False,
                                         description="Upload JSON", icon="upload")
        self.download = DownloadLink()
        self.on_change(self.folder, self._on_folder)
        self.workdir.observe(self._show_folder, names="path")
        self.on_click(self.save_button, self.save)
        self.on_click(self.load_button, self.load)
        self.upload.observe(self.handler(self._on_upload), names="value")
        self.children = [self.folder, self.name,
                         row(self.save_button, self.load_button, self.upload, align="center"),
                         self.download, self.message.widget]

    def _on_folder(self) -> None:
        try:
            self.workdir.path = self.folder.value
        except traitlets.TraitError as exc:
            self.message.error(str(exc))
            return
        self.message.ok(f"files go to {self.workdir.resolve()}")

    def _show_folder(self, change) -> None:
        self.put(self.folder, change["new"])

    def save(self) -> str | None:
        """Save the model to the folder (JSON) and offer it as a download; returns the path."""
        path = self.workdir.file(self.name.value, ".json")
        text = json.dumps(self.model.to_dict(), indent=1)
        path.write_text(text, encoding="utf-8")
        self.download.offer(path.name, text.encode("utf-8"), "application/json")
        self.message.ok(f"saved {path.name} in {self.workdir.path}/")
        return str(path)

    def load(self) -> None:
        """Load the model file named in :attr:`name` from the folder."""
        path = self.workdir.file(self.name.value, ".json")
        if not path.is_file():
            self.message.error(f"no file {path.name} in {self.workdir.path}/")
            return
        new = type(self.model).load(path)
        self.model.replace_with(new)
        self.message.ok(f"loaded {path.name}")

    def _on_upload(self) -> None:
        files = self.upload.value
        if not files:
            return
        f = files[0]
        name = f.get("name", "upload")
        try:
            content = bytes(f["content"])
            if len(content) > MAX_UPLOAD_BYTES:
                self.message.error(f"{name}: {len(content)} bytes, more than a model file "
                                   f"holds (limit {MAX_UPLOAD_BYTES} bytes)")
                return
            try:
                data = json.loads(content.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
                self.message.error(f"{name}: not a JSON model file ({exc})")
                return
            try:
                new = type(self.model).from_dict(data)
            except (TypeError, ValueError, RecursionError) as exc:
                self.message.error(f"{name}: {exception_text(exc)}")
                return
        finally:
            with self.syncing():
                self.upload.value = ()
        self.model.replace_with(new)
        self.message.ok(f"loaded {name}")
