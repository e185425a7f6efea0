"""No exception escapes a handler: every widget callback runs inside :func:`guarded`.

ipywidgets runs button callbacks in a dispatcher that prints a traceback for any exception and
carries on, and a trait observer's exception goes back to whoever set the value (the comm
handler, in the browser's case): either way the user sees nothing next to the control. A
guarded handler shows the exception's message instead:

* the exceptions the core documents — ``TypeError``, ``ValueError``, ``RuntimeError`` (and
  its subclasses such as ``SingularConfigurationError``), ``OSError`` — as their message, in
  the words of the fields (:func:`quivira_widgets._wording.plain`);
* ``KeyboardInterrupt`` (the notebook's "interrupt kernel") as "interrupted";
* anything else as "unexpected <type>: <message>", and counted in
  :data:`UNEXPECTED` (the tests assert that it stays empty).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from ._wording import exception_text

#: the unexpected exceptions caught so far: (handler name, exception); for tests
UNEXPECTED: list[tuple[str, BaseException]] = []
EXPECTED = (TypeError, ValueError, RuntimeError, OSError)
_log = logging.getLogger("quivira_widgets")


def report(exc: BaseException, show: Callable[[str], Any], where: str = "") -> None:
    """Show ``exc`` through ``show(text)`` as :func:`guarded` does."""
    if isinstance(exc, KeyboardInterrupt):
        show("interrupted (the kernel was interrupted)")
        return
    if isinstance(exc, EXPECTED):
        show(exception_text(exc))
        return
    UNEXPECTED.append((where, exc))
    _log.warning("unexpected exception in %s", where, exc_info=exc)
    show(f"unexpected {exception_text(exc)} — please report this")


def guarded(show: Callable[[str], Any], where: str = "") -> Callable:
    """Wrap a handler so that any exception is shown with ``show(text)`` instead of raised."""
    def wrap(fn: Callable) -> Callable:
        name = where or getattr(fn, "__qualname__", repr(fn))

        @functools.wraps(fn)
        def run(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - shown to the user
                report(exc, show, name)
                return None
        return run
    return wrap
