"""The README's Python examples run as written, with the API of this release.

Every ```python block of README.md runs in one namespace, in order (later blocks use the
names of earlier ones, as a reader pasting them into one notebook would), with the warnings of
earlier spellings (``PendingDeprecationWarning``) raised by the README's own lines as errors:
the README shows the current API.
The SLURM block needs a SLURM cluster and is checked for syntax only.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import matplotlib
import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
#: blocks that need a machine this suite does not have: compiled, not run
NEEDS_A_CLUSTER = ("SLURMCluster",)


def blocks() -> list[str]:
    """The ```python blocks of the README, in order."""
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_readme_has_examples():
    assert len(blocks()) >= 10


@pytest.mark.timeout(900)
def test_readme_examples_run_with_the_current_api(tmp_path, monkeypatch):
    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)  # files the examples write land here
    namespace: dict = {"__name__": "__readme__"}
    for k, code in enumerate(blocks()):
        compiled = compile(code, f"README.md python block {k}", "exec")
        if any(word in code for word in NEEDS_A_CLUSTER):
            continue
        with warnings.catch_warnings():
            # the README's own calls (the widgets' inner calls are theirs)
            for category in (PendingDeprecationWarning, DeprecationWarning):
                warnings.filterwarnings("error", category=category, module="__readme__")
            try:
                exec(compiled, namespace)  # noqa: S102 - the README's own examples
            finally:
                client = namespace.pop("client", None)
                if client is not None:
                    client.close()
