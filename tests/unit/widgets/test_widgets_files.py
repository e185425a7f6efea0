"""Files and downloads: the working folder, CSV of the trajectory, GIF and MP4 of the motion."""

from __future__ import annotations

import base64
import csv
import os
import re
import stat
import sys

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from quivira.examples import four_bar  # noqa: E402
from quivira_widgets import (  # noqa: E402
    MotionPlayer,
    Studio,
    WorkFolder,
    _export,  # noqa: E402
)
from quivira_widgets._files import DownloadLink  # noqa: E402


@pytest.fixture(autouse=True)
def work_in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def link_bytes(link: DownloadLink) -> bytes:
    m = re.search(r'href="data:[^;]+;base64,([^"]+)"', link.value)
    assert m, link.value
    return base64.b64decode(m.group(1))


@pytest.mark.slow
def test_working_folder_is_next_to_the_notebook_and_chosen_by_the_user(tmp_path):
    wd = WorkFolder()
    assert wd.resolve() == tmp_path / "quivira-work" and not wd.resolve().exists()
    p = wd.file("m", ".json")
    assert p == tmp_path / "quivira-work" / "m.json" and p.parent.is_dir()
    for bad in ("", "a/b.json", "..", "x.gif", "-x.json"):
        with pytest.raises(ValueError, match="file name"):
            wd.file(bad, ".json")
    s = Studio(four_bar(), backend="static", workdir="elsewhere")
    assert s.player.workdir is s.editor.workdir is s.workdir  # one folder for the studio
    s.editor.folder.value = "runs"
    assert s.workdir.path == "runs" and "files go to" in s.editor.messages["files"].text
    s.editor.save_button.click()
    assert (tmp_path / "runs" / "model.json").exists()
    s.close()


@pytest.mark.slow
def test_trajectory_csv_download_holds_the_trajectory():
    m = four_bar()
    p = MotionPlayer(m, backend="static", t_end=0.3, n_frames=16)
    tr = p.simulate()
    p.export_format.value = "csv"
    assert p.export_path.value == "trajectory.csv"
    out = p.export()
    assert out.endswith(os.path.join("quivira-work", "trajectory.csv"))
    data = link_bytes(p.download)
    rows = list(csv.reader(data.decode().splitlines()))
    header, body = rows[0], np.array(rows[1:], dtype=float)
    assert body.shape == (16, len(header))
    col = {name: body[:, k] for k, name in enumerate(header)}
    np.testing.assert_array_equal(col["t"], tr.t)
    np.testing.assert_array_equal(col["th1"], tr.q[:, 5])
    np.testing.assert_array_equal(col["vx2"], tr.qd[:, 6])
    np.testing.assert_array_equal(col["lambda[support1.y]"], tr.lambda_mult[:, -1])
    np.testing.assert_array_equal(col["joint 0 on bar 1 · Fy"], tr.joint_force(0, 1)[:, 1])
    np.testing.assert_array_equal(col["energy"], tr.energy)
    p.close()


@pytest.mark.slow
def test_mp4_is_offered_only_with_ffmpeg_and_piped_to_it(tmp_path, monkeypatch):
    m = four_bar()
    monkeypatch.setenv("PATH", str(tmp_path / "nobin"))
    p = MotionPlayer(m, backend="static", t_end=0.2, n_frames=5)
    assert "mp4" not in [v for _, v in p.export_format.options]
    p.simulate()
    assert p.export("motion.mp4") is None and "needs ffmpeg" in p.export_message.text
    p.close()
    # a stand-in ffmpeg on the PATH: it checks the raw frames it is given and writes a file
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "ffmpeg"
    fake.write_text(f"""#!{sys.executable}
import sys
args = sys.argv[1:]
w, h = map(int, args[args.index("-s") + 1].split("x"))
data = sys.stdin.buffer.read()
assert len(data) % (w * h * 3) == 0 and args[args.index("-pix_fmt") + 1] == "rgb24"
open(args[-1], "wb").write(b"MP4:" + str(len(data) // (w * h * 3)).encode())
""")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert _export.ffmpeg_available()
    p = MotionPlayer(m, backend="static", t_end=0.2, n_frames=5)
    assert "mp4" in [v for _, v in p.export_format.options]
    p.simulate()
    p.export_format.value = "mp4"
    out = p.export()
    assert out and open(out, "rb").read() == b"MP4:5"
    assert p.download.filename == "motion.mp4" and "data:video/mp4" in p.download.value
    p.close()


@pytest.mark.slow
def test_gif_frames_are_the_motion(tmp_path):
    from PIL import Image

    m = four_bar()
    p = MotionPlayer(m, backend="static", t_end=0.4, n_frames=5)
    p.simulate()
    out = p.export("m.gif")
    with Image.open(out) as im:
        frames = []
        for k in range(im.n_frames):
            im.seek(k)
            frames.append(np.asarray(im.convert("RGB")).copy())
    assert len(frames) == 5
    assert any(not np.array_equal(frames[0], f) for f in frames[1:])  # the bars move
    assert link_bytes(p.download) == open(out, "rb").read()
    p.close()


def test_large_files_are_not_put_in_a_link(monkeypatch):
    from quivira_widgets import _files

    monkeypatch.setattr(_files, "MAX_DOWNLOAD_BYTES", 10)
    link = DownloadLink()
    link.offer("big.gif", b"x" * 11, "image/gif")
    assert "too large to download here" in link.value and link.filename == ""
