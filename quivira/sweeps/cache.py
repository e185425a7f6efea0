"""heyoka's on-disk cache of compiled code for a sweep: ``sweep(heyoka_cache_dir=...)``.

heyoka keeps compiled code in a database in one directory per process
(``heyoka.llvm_state.set_diskcache_path``), a setting of the whole process. A sweep given
``heyoka_cache_dir``:

* checks the path before any work (:func:`check_cache_dir`: a path, naming a directory it
  can write to, created if missing);
* in its own process, sets it for the sweep and restores the previous directory when the
  sweep ends, also on an error or Ctrl-C (:func:`cache_dir`);
* on the workers of an executor (e.g. Dask worker processes), sets it in each worker
  process on its first block and leaves it set for the worker's lifetime
  (:func:`use_cache_dir_here`), since the worker's later blocks compile there too; a path
  checked in the sweep's process is checked again on each worker (a cluster's local disks
  differ).

A corrupted cache makes heyoka fail when it loads a compiled module: "Could not find the
symbol ...", or, when the foreign code happens to load, whatever the C++ side trips over
next (an arithmetic overflow in a size, say). :func:`cache_errors` turns either into an
error that names the cache directory and how to clear it: an error whose text says the
cache is corrupted, and any error raised by heyoka's C++ side (a plain ``RuntimeError`` or
``OverflowError``; quivira raises its own classes) while a cache directory given to the
sweep is in use.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import heyoka as hy

#: what heyoka says when a module loaded from its cache lacks the functions it expects
CORRUPTION_SIGNS = ("Could not find the symbol", "Symbols not found")
#: the classes C++ exceptions arrive as in Python: suspect while a given cache is in use
NATIVE_ERRORS = (RuntimeError, OverflowError)


def check_cache_dir(path: Any) -> str:
    """Return ``path`` as a string, after checking it names a writable directory.

    A directory that does not exist yet is created (as heyoka would); a path to a file, or
    to a directory that cannot be created or written, is refused.

    Raises
    ------
    TypeError
        Not a ``str`` or ``os.PathLike``.
    ValueError
        Not a directory, one that cannot be created, or one this process cannot write to
        (the path is named).
    """
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"heyoka_cache_dir must be a path (str or pathlib.Path), got {path!r}")
    text = os.fspath(path)
    if not isinstance(text, str) or not text:
        raise TypeError(f"heyoka_cache_dir must be a path (str or pathlib.Path), got {path!r}")
    if os.path.exists(text) and not os.path.isdir(text):
        raise ValueError(f"heyoka_cache_dir {text!r} is not a directory; give a directory")
    try:
        os.makedirs(text, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"heyoka_cache_dir {text!r} cannot be created ({exc.strerror}); give "
                         "a directory this process can write to") from None
    if not os.access(text, os.W_OK | os.X_OK):
        raise ValueError(f"heyoka_cache_dir {text!r} is not writable by this process; give a "
                         "directory it can write to")
    return text


@contextmanager
def cache_dir(path: str | None) -> Iterator[None]:
    """Use heyoka's on-disk cache in ``path`` (checked) inside the block, then restore it.

    The previous directory is restored when the block ends, also on an error or Ctrl-C;
    None leaves the setting alone.
    """
    if path is None:
        yield
        return
    path = check_cache_dir(path)
    before = hy.llvm_state.get_diskcache_path()
    hy.llvm_state.set_diskcache_path(path)
    try:
        yield
    finally:
        hy.llvm_state.set_diskcache_path(before)


def use_cache_dir_here(path: str | None) -> None:
    """Set heyoka's cache directory of this (worker) process to ``path``, if not already.

    Checked here (the worker's disk); left set for the process's lifetime. None: nothing.
    """
    if path is not None and hy.llvm_state.get_diskcache_path() != path:
        hy.llvm_state.set_diskcache_path(check_cache_dir(path))


def explain_cache_error(exc: BaseException, path: str | None = None, *,
                        cache_in_use: bool = False) -> str:
    """Return the message of ``exc``, naming the cache and its cure if it may be the cause.

    The cache is named when the message says a loaded module lacks its functions, or, with
    ``cache_in_use`` (a cache directory was given to the sweep), when ``exc`` is exactly a
    ``RuntimeError`` or ``OverflowError``: what a C++ exception from heyoka becomes.
    ``path`` is the cache directory (default: this process's).
    """
    text = str(exc)
    said = text.split(". The full error message")[0].splitlines()[0] if text else type(
        exc).__name__
    where = path if path is not None else hy.llvm_state.get_diskcache_path()
    cure = ("clear it with heyoka.llvm_state.clear_diskcache() in a process that uses that "
            f"directory, or delete the directory {where!r}, and run again")
    if any(sign in text for sign in CORRUPTION_SIGNS):
        return (f"heyoka's on-disk cache of compiled code in {where!r} seems to be corrupted "
                f"(heyoka: {said}); {cure}")
    if cache_in_use and type(exc) in NATIVE_ERRORS:
        return (f"heyoka failed while its on-disk cache of compiled code in {where!r} was in "
                f"use (heyoka: {said}); the cache may be corrupted: {cure}")
    return text


@contextmanager
def cache_errors(path: str | None = None) -> Iterator[None]:
    """Turn heyoka's failure to load code from a corrupted cache into a clear error.

    Raises
    ------
    RuntimeError
        Naming the cache directory (``path``, default this process's) and how to clear it.
    """
    try:
        yield
    except (RuntimeError, OverflowError, ValueError) as exc:
        text = explain_cache_error(exc, path, cache_in_use=path is not None)
        if text == str(exc):
            raise
        raise RuntimeError(text) from exc
