"""pytest configuration of ``tests/``: the layout, the markers and the inner loop.

Layout
------
``unit/``
    One folder or file per module of ``quivira`` (``unit/model/``, ``unit/model/elements/``,
    ``unit/sweeps/``, ``unit/sensitivity/``) and of ``quivira_widgets`` (``unit/widgets/``).
``contract/``
    What every element kind of ``quivira.elements.KINDS`` keeps (``test_kinds.py``).
``integration/``
    Comparisons with the SymPy, Exudyn and closed-form references of the package
    ``quivira_oracles``, long runs, fuzzing, the benchmarks and the README's examples.
``browser/``
    The Studio in Chromium (Playwright, JupyterLab).
``fuzz_model_files.py``, ``long_call_models.py``
    Shared helpers, imported by name: this file puts ``tests/`` on ``sys.path``
    (``import fuzz_model_files``, ``from long_call_models import pendulum``).

Markers
-------
``slow``
    Tests that take long (compiling many models, long runs, fuzz campaigns, subprocesses),
    marked where they are defined; everything under ``integration/`` and the course notebooks
    collected from ``notebooks/`` are marked here.
``browser``
    Tests that drive a real browser (everything under ``browser/``).

Running
-------
Everything, as CI does (tests, notebooks via nbval, doctests), from the repository root::

    python -m pytest

The inner loop (unit, contract and the quick integration tests, and the doctests), in a few
minutes::

    python -m pytest -m "not slow and not browser"
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

#: not a doctest module: from the repository root, --doctest-modules would import this file a
#: second time under the name ``conftest``, which ``notebooks/conftest.py`` already holds
collect_ignore = ["conftest.py"]

#: the markers of this suite (also declared in pyproject.toml, for --strict-markers)
MARKERS = {
    "slow": "long tests, deselected by the inner loop (-m \"not slow and not browser\")",
    "browser": "drives Chromium through Playwright and JupyterLab (tests/browser/)",
}


def pytest_configure(config: pytest.Config) -> None:
    declared = " ".join(config.getini("markers"))
    for name, doc in MARKERS.items():
        if f"{name}:" not in declared:
            config.addinivalue_line("markers", f"{name}: {doc}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(item.path)
        if path.is_relative_to(TESTS / "browser"):
            item.add_marker(pytest.mark.browser)
        if path.is_relative_to(TESTS / "integration") or path.suffix == ".ipynb":
            item.add_marker(pytest.mark.slow)  # oracles, long runs, fuzz; lessons run by nbval


@pytest.fixture(autouse=True)
def _python_raises_keyboard_interrupt():
    """Give every test Python's Ctrl-C handler, whatever the run was started with.

    A run started in the background by a non-interactive shell (``cmd &`` in a script)
    inherits SIGINT *ignored*; Python then keeps it ignored, ``_thread.interrupt_main()`` and
    ``signal.raise_signal(SIGINT)`` do nothing, and every test that sends Ctrl-C to a long
    call waits for its wall budget. The handler the run had is back after the test.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.getsignal(signal.SIGINT)
    replace = before in (signal.SIG_IGN, signal.SIG_DFL)
    if replace:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        if replace:
            signal.signal(signal.SIGINT, before)
