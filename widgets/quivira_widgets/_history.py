"""Undo and redo of model edits, from snapshots of the model's data.

A model's edits are copy-on-write, so ``model.to_dict()`` after each edit is cheap (a tenth of
a millisecond for 50 bars) and a snapshot is plain data. :class:`History` observes the model,
keeps the snapshot before every change on the undo stack with what changed
(:func:`change_label`: by the field's declared label), and restores one with
``model.replace_with(BarJointModel.from_dict(snapshot))``: the same model object, one
notification, compiled code kept (a value edit undone re-simulates without compiling).
"""

from __future__ import annotations

import re

import traitlets

from quivira import BarJointModel
from quivira.elements import KINDS

#: notices of ``model.set`` (a body's, an element's) and of ``model.replace_with``
_SET_NOTICE = re.compile(r"(?:(?:bar|particle|body)\d+ changed|.+ '.+': .*|replaced)")
def field_word(spec) -> str:
    """Return what a declared field is called in labels: its label, or its doc for a symbol.

    A label of one or two characters (``"k"``, ``"l0"``) is a symbol: the doc's first words
    say it better when they are short (``"stiffness"``, ``"rest length"``).
    """
    label = spec.label
    if len(label) > 2:
        return label
    words = re.split(r"[(,;:]", spec.doc, maxsplit=1)[0].strip()
    return words if words and len(words.split()) <= 3 else label


def _changes(before: dict, after: dict) -> list[tuple[str, str]] | None:
    """``[(owner, what changed), ...]`` between two snapshots; None if items came or went."""
    out: list[tuple[str, str]] = []
    bb, ba = before.get("bars", []), after.get("bars", [])
    if len(bb) != len(ba):
        return None
    for i, (b0, b1) in enumerate(zip(bb, ba)):
        kind = b1.get("kind", "bar")
        out += [(f"{kind}{i}", f"{kind} {k}")
                for k in b1 if b0.get(k) != b1.get(k)]
    for kind in KINDS:
        e0, e1 = before.get(kind.collection, []), after.get(kind.collection, [])
        if len(e0) != len(e1):
            return None
        specs = kind.specs()
        for k, (a, b) in enumerate(zip(e0, e1)):
            out += [(f"{kind.collection}{k}", f"{kind.title} {field_word(specs[f])}"
                     if f in specs else f"{kind.title} {f}")
                    for f in b if a.get(f) != b.get(f)]
    for key in ("g", "stabilization"):
        if before.get(key) != after.get(key):
            out.append((key, key))
    return out


def change_label(before: dict, after: dict, notice: str) -> str:
    """Return what an edit changed, by field: ``"bar length"``, ``"spring stiffness"``.

    ``notice`` is the model's own notice of the edit: kept unless it comes from
    ``model.set`` (``"bar0 changed"``, ``"spring 'spring0': k = 2.0"``) or from a rebuild
    (``"replaced"``) and the snapshots ``before`` and ``after`` (``model.to_dict()``) differ
    in the fields of one body or element; the labels are those its kind declares
    (:func:`quivira.elements.fields_of`).
    """
    if not _SET_NOTICE.fullmatch(notice):
        return notice
    changes = _changes(before, after)
    if not changes or len({owner for owner, _ in changes}) != 1:
        return notice
    return ", ".join(dict.fromkeys(what for _, what in changes))

#: snapshots kept on each stack
MAX_STEPS = 200


class History(traitlets.HasTraits):
    """Undo/redo stacks of one model.

    Parameters
    ----------
    model : quivira.BarJointModel
        The model (observed).

    Attributes
    ----------
    can_undo, can_redo : bool
        Whether there is something to undo / redo (traits: link buttons to them).
    undo_label, redo_label : str
        What undo / redo would revert / repeat (the model's change notice).
    """

    can_undo = traitlets.Bool(False)
    can_redo = traitlets.Bool(False)
    undo_label = traitlets.Unicode("")
    redo_label = traitlets.Unicode("")

    def __init__(self, model: BarJointModel) -> None:
        super().__init__()
        self.model = model
        self._undo: list[tuple[dict, str]] = []
        self._redo: list[tuple[dict, str]] = []
        self._current = model.to_dict()
        self._restoring = False
        model.observe(self._on_change)

    def _on_change(self, what: str) -> None:
        if self._restoring:
            return
        new = self.model.to_dict()
        self._undo.append((self._current, change_label(self._current, new, what)))
        del self._undo[:-MAX_STEPS]
        self._redo.clear()
        self._current = new
        self._update()

    def _update(self) -> None:
        with self.hold_trait_notifications():
            self.can_undo = bool(self._undo)
            self.can_redo = bool(self._redo)
            self.undo_label = self._undo[-1][1] if self._undo else ""
            self.redo_label = self._redo[-1][1] if self._redo else ""

    def _restore(self, snapshot: dict) -> None:
        new = BarJointModel.from_dict(snapshot)
        self._restoring = True
        try:
            self.model.replace_with(new)
        finally:
            self._restoring = False
        self._current = self.model.to_dict()

    def undo(self) -> str | None:
        """Revert the last edit; returns what was undone (None when nothing was)."""
        if not self._undo:
            return None
        snapshot, what = self._undo.pop()
        current = self._current
        try:
            self._restore(snapshot)
        except (TypeError, ValueError):
            self._undo.append((snapshot, what))
            raise
        self._redo.append((current, what))
        self._update()
        return what

    def redo(self) -> str | None:
        """Repeat the last undone edit; returns what was redone (None when nothing was)."""
        if not self._redo:
            return None
        snapshot, what = self._redo.pop()
        current = self._current
        try:
            self._restore(snapshot)
        except (TypeError, ValueError):
            self._redo.append((snapshot, what))
            raise
        self._undo.append((current, what))
        self._update()
        return what

    def clear(self) -> None:
        """Forget both stacks (the model's present state stays)."""
        self._undo.clear()
        self._redo.clear()
        self._current = self.model.to_dict()
        self._update()

    def close(self) -> None:
        """Stop observing the model."""
        self.model.unobserve(self._on_change)
