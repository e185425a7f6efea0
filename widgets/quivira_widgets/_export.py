"""Export the motion of a view as GIF or MP4, frame by frame, with progress.

Frames are rendered the way the animation is: the background once, then only the moving
artists per frame (:meth:`FigurePane.frame_pixels`), a few milliseconds each. GIF frames share
one adaptive palette made from the first frame and are written by Pillow; MP4 frames are
piped as raw RGBA to ``ffmpeg`` (H.264, yuv420p), which must be on the PATH (Binder installs
it from ``binder/apt.txt``). At most :data:`MAX_EXPORT_FRAMES` frames are written, evenly
spaced, at the speed of the motion where possible.
"""

from __future__ import annotations

import io
import math
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np

MAX_EXPORT_FRAMES = 150
FORMATS = {"gif": "image/gif", "mp4": "video/mp4", "csv": "text/csv"}


def ffmpeg_available() -> bool:
    """Tell whether an ``ffmpeg`` executable is on the PATH (MP4 export)."""
    return shutil.which("ffmpeg") is not None


def frame_indices(n_points: int) -> list[int]:
    """Evenly spaced frames, at most :data:`MAX_EXPORT_FRAMES`, including the first."""
    stride = max(1, math.ceil(n_points / MAX_EXPORT_FRAMES))
    return list(range(0, n_points, stride))


def frames_per_second(t: np.ndarray, frames: list[int]) -> int:
    """Frame rate that plays ``frames`` of times ``t`` in real time, within 5 … 30."""
    span = float(t[frames[-1]] - t[frames[0]]) or 1.0
    return int(min(max(round(len(frames) / span), 5), 30))


def render_frames(view, trajectory, frames: list[int],
                  progress: Callable[[int, int], None] | None = None) -> list[np.ndarray]:
    """RGB frames ``(h, w, 3)`` of ``view`` showing ``trajectory`` at ``frames``."""
    out = []
    pane = view.pane
    for j, k in enumerate(frames):
        view.show_state(trajectory.q[k], t=float(trajectory.t[k]), render=False)
        out.append(pane.frame_pixels(full=j == 0)[..., :3])
        if progress is not None:
            progress(j + 1, len(frames))
    return out


def gif_bytes(frames: list[np.ndarray], fps: int) -> bytes:
    """Encode RGB ``frames`` at ``fps`` as an animated, looping GIF."""
    from PIL import Image

    first = Image.fromarray(frames[0]).quantize(colors=128, method=Image.Quantize.MEDIANCUT)
    images = [first] + [Image.fromarray(f).quantize(palette=first, dither=Image.Dither.NONE)
                        for f in frames[1:]]
    with io.BytesIO() as out:
        images[0].save(out, format="GIF", save_all=True, append_images=images[1:],
                       duration=int(round(1000 / fps)), loop=0, disposal=1)
        return out.getvalue()


def write_mp4(frames: list[np.ndarray], fps: int, path: Path) -> None:
    """Write RGB ``frames`` as an H.264 MP4 with ``ffmpeg``.

    Raises
    ------
    RuntimeError
        If ffmpeg is missing or fails (its last output lines are in the message).
    """
    exe = shutil.which("ffmpeg")
    if exe is None:
        raise RuntimeError("MP4 needs ffmpeg on the PATH; export a GIF instead")
    h, w = frames[0].shape[:2]
    cmd = [exe, "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgb24",
           "-s", f"{w}x{h}", "-r", str(fps), "-i", "-", "-vf",
           "scale=trunc(iw/2)*2:trunc(ih/2)*2", "-pix_fmt", "yuv420p", "-vcodec", "libx264",
           str(path)]
    data = b"".join(np.ascontiguousarray(f).tobytes() for f in frames)
    try:
        run = subprocess.run(cmd, input=data, capture_output=True, timeout=300, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RuntimeError(f"ffmpeg failed: {exc}") from None
    if run.returncode != 0 or not path.exists():
        tail = run.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        raise RuntimeError(f"ffmpeg failed (exit {run.returncode}): {' / '.join(tail)}")
