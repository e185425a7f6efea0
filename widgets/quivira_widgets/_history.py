"""Undo and redo of model edits, from snapshots of the model's data.

A model's edits are copy-on-write, so ``model.to_dict()`` after each edit is cheap (a tenth of
a millisecond for 50 bars) and a snapshot is plain data. :class:`History` observes the model,
keeps the snapshot before every change on the undo stack, and restores one with
``model.replace_with(BarJointModel.from_dict(snapshot))``: the same model object, one
notification, compiled code kept (a value edit undone re-simulates without compiling).
"""

from __future__ import annotations

import traitlets

from quivira import BarJointModel

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
        self._undo.append((self._current, what))
        del self._undo[:-MAX_STEPS]
        self._redo.clear()
        self._current = self.model.to_dict()
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
