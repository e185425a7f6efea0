"""The Studio in a real browser: JupyterLab + Debian's Chromium driven by Playwright.

The test starts JupyterLab on 127.0.0.1 (free port, random token, settings and config in a
temporary folder, news and update checks off), writes a notebook that shows
``Studio(four_bar())``, runs it in ``/usr/bin/chromium`` (no browser download), clicks
*Add bar* and *Simulate*, and checks that the page changed: the bar count, the player's
status and the figure canvases. A screenshot goes to ``tests/screenshots/`` (git-ignored).

Outside CI (``CI`` unset) the test is skipped when Chromium is missing; in CI it must run.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
REPO = Path(__file__).resolve().parents[1]
SCREENSHOTS = REPO / "tests" / "screenshots"
IN_CI = bool(os.environ.get("CI"))

pytestmark = [
    pytest.mark.skipif(not IN_CI and not os.path.exists(CHROMIUM),
                       reason=f"{CHROMIUM} not found (apt-get install chromium); runs in CI"),
    pytest.mark.timeout(300),
]

NOTEBOOK_CODE = ("from quivira_widgets import Studio\n"
                 "from quivira.examples import four_bar\n"
                 "s = Studio(four_bar())\n"
                 "s")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _write_settings(settings: Path) -> None:
    """User settings: no news, no update checks, no toasts; start the kernel by itself."""
    files = {
        "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
            {"fetchNews": "false", "checkForUpdates": False, "doNotDisturbMode": True},
        "@jupyterlab/notebook-extension/tracker.jupyterlab-settings":
            {"autoStartDefaultKernel": True},
    }
    for rel, content in files.items():
        path = settings / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(content))


def _write_notebook(path: Path) -> None:
    nb = {
        "cells": [{"cell_type": "code", "execution_count": None, "id": "studio",
                   "metadata": {}, "outputs": [], "source": NOTEBOOK_CODE}],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                    "language": "python"},
                     "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb, indent=1))


@pytest.fixture(scope="module")
def jupyter_lab(tmp_path_factory):
    """A JupyterLab server in a temporary root; yields ``(base_url, token, root)``."""
    root = tmp_path_factory.mktemp("lab")
    home = root / ".home"
    for sub in ("settings", "workspaces", "config", "runtime", "data", "ipython", "mpl"):
        (home / sub).mkdir(parents=True)
    _write_settings(home / "settings")
    _write_notebook(root / "studio.ipynb")
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(os.environ)
    env.update({
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTER_DATA_DIR": str(home / "data"),
        "IPYTHONDIR": str(home / "ipython"),
        "MPLCONFIGDIR": str(home / "mpl"),
        "JUPYTER_PLATFORM_DIRS": "1",
        # the kernel finds the packages even without an installed distribution
        "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "widgets"),
                                       env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    })
    cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}",
           "--ServerApp.ip=127.0.0.1", "--ServerApp.port_retries=0",
           f"--ServerApp.token={token}", f"--ServerApp.root_dir={root}",
           "--ServerApp.allow_root=True", "--LabApp.news_url=None"]
    log = open(root / "jupyter.log", "w")  # noqa: SIM115 - closed in the finalizer
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                raise RuntimeError("JupyterLab exited: " + (root / "jupyter.log").read_text())
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("JupyterLab did not start in 90 s: "
                                       + (root / "jupyter.log").read_text()) from None
                time.sleep(0.5)
        yield base, token, root
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


def _run_first_cell(page, expect) -> None:
    """Run the notebook's first cell; retried, as a run asked for before the kernel is
    connected is dropped (the prompt stays ``[ ]:``)."""
    cell = page.locator(".jp-Notebook .jp-Cell").first
    prompt = cell.locator(".jp-InputPrompt")
    for _ in range(8):
        prompt.click()
        page.keyboard.press("Escape")
        page.keyboard.press("Shift+Enter")
        try:
            expect(prompt).to_have_text(re.compile(r"\[(\*|\d+)\]"), timeout=15_000)
            return
        except AssertionError:
            continue
    raise AssertionError("the notebook cell never started running (kernel not connected?)")


def test_studio_in_jupyterlab(jupyter_lab):
    from playwright.sync_api import expect, sync_playwright

    base, token, root = jupyter_lab
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 1480, "height": 1500})
        try:
            page.goto(f"{base}/lab/tree/studio.ipynb?token={token}", timeout=120_000)
            page.locator(".jp-Notebook .jp-Cell .cm-content").first.wait_for(timeout=120_000)
            _run_first_cell(page, expect)
            studio = page.locator(".quivira-studio")
            studio.wait_for(timeout=120_000)
            counts = studio.locator(".quivira-status-counts")
            expect(counts).to_contain_text("3 bars · 2 joints", timeout=60_000)
            # the figures are ipympl canvases (a <canvas> each)
            expect(studio.locator(".quivira-view canvas").first).to_be_visible(timeout=60_000)

            # a new bar from the default fields: centre (0, 0), horizontal, length 1 ...
            studio.locator("button.quivira-add-bar").click()
            expect(counts).to_contain_text("4 bars", timeout=60_000)
            expect(studio.locator(".quivira-editor .quivira-ok")).to_contain_text(
                "added bar 3")
            # ... crosses the crank's pinned end at the origin: "Infer joints" pins it there
            studio.get_by_text("Joints", exact=True).click()
            studio.locator("button.quivira-infer-joints").click()
            expect(counts).to_contain_text("3 joints", timeout=60_000)

            studio.locator("button.quivira-simulate").click()
            status = studio.locator(".quivira-player-status")
            expect(status).to_contain_text("simulated", timeout=120_000)
            expect(status.locator(".quivira-ok")).to_have_count(1)
            assert studio.locator("canvas").count() >= 2  # view and time plots

            # scrub: a click on the middle of the frame slider shows that frame (the kernel
            # moves the bars and writes the time) ...
            time_label = studio.locator(".quivira-time")
            expect(time_label).to_have_text("t = 0.000 s", timeout=30_000)
            studio.locator(".quivira-player .widget-slider .noUi-target").click()
            expect(time_label).not_to_have_text("t = 0.000 s", timeout=30_000)
            scrubbed = time_label.inner_text()
            # ... and Play drives the slider from the browser (jslink)
            play_buttons = studio.locator(".quivira-player .widget-play button")
            play_buttons.nth(0).click()
            expect(time_label).not_to_have_text(scrubbed, timeout=30_000)
            play_buttons.nth(0).click()  # the same button pauses
            expect(time_label).not_to_have_text("t = 0.000 s")
            page.wait_for_timeout(1500)  # let the canvases receive their last frames
            studio.screenshot(path=str(SCREENSHOTS / "studio.png"))
        except Exception as exc:
            # keep what the page showed, and the notebook's output, for the failure report
            page.screenshot(path=str(SCREENSHOTS / "failure.png"), full_page=True)
            outputs = page.locator(".jp-OutputArea").all_inner_texts()
            log = (root / "jupyter.log").read_text()[-3000:]
            raise AssertionError(f"browser test failed; outputs: {outputs!r}; screenshot "
                                 f"{SCREENSHOTS / 'failure.png'}; server log tail:\n{log}") from exc
        finally:
            browser.close()
    assert (SCREENSHOTS / "studio.png").stat().st_size > 10_000
    shutil.rmtree(root / ".home", ignore_errors=True)
