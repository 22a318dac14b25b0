"""The only stage that touches the output directory.

Files are written into a staging directory beside the target, which is swapped
in at the end; a failure leaves the previous site as it was. podium only ever
replaces or deletes a directory it created: one holding its ``.podium-site``
marker (or an empty one).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from podium.errors import BuildError, UnsafeOutput

MARKER = ".podium-site"
MARKER_TEXT = b"This directory is written by podium; `podium build` replaces it whole.\n"
_SAFE_PART = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def check_output_dir(out: Path, inputs: list[Path], homes: list[Path]) -> Path:
    """The resolved output path, or a BuildError when writing there could destroy something.

    ``inputs`` (export, content, theme) may not overlap the output at all;
    ``homes`` (project root, working directory) may hold it but not be it or sit inside it.
    """
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise UnsafeOutput(f"{out}: exists and is not a directory")
    target = out.resolve()
    if target == Path(target.anchor) or target == Path.home().resolve():
        raise UnsafeOutput(f"{out}: refusing to use a filesystem root or home directory as the output")
    for other in (p.resolve() for p in inputs):
        if target == other or target in other.parents or other in target.parents:
            raise UnsafeOutput(f"{out}: the output directory may not contain, equal or sit inside {other}")
    for other in (p.resolve() for p in homes):
        if target == other or target in other.parents:
            raise UnsafeOutput(f"{out}: the output directory may not be or contain {other}")
    if target.is_dir() and any(target.iterdir()) and not (target / MARKER).is_file():
        raise UnsafeOutput(f"{out}: exists, is not empty and was not written by podium (no {MARKER}); "
                         "choose another --out or empty it yourself")
    if (target / ".git").exists():
        raise UnsafeOutput(f"{out}: holds a .git directory; refusing to replace it")
    return target


def check_relative(path: str) -> str:
    """``path`` if it is a safe relative site path (no ``..``, no absolute, plain names)."""
    if not all(_SAFE_PART.match(part) for part in path.split("/")):
        raise BuildError(f"refusing to write unsafe output path {path!r}")
    return path


def write_site(files: Iterable[tuple[str, bytes]], out: Path, inputs: list[Path], homes: list[Path]) -> Path:
    """Write ``files`` ((site path, bytes) pairs, as they are rendered) as ``out``, atomically."""
    target = check_output_dir(out, inputs, homes)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".podium-staging-", dir=target.parent))
    written: set[str] = set()
    try:
        for path, data in files:
            if path.lower() in written:
                raise BuildError(f"two outputs would be written to {path!r}; refusing to overwrite one with the other")
            written.add(path.lower())
            dest = staging / check_relative(path)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
        (staging / MARKER).write_bytes(MARKER_TEXT)
        os.chmod(staging, 0o755)
        _swap(staging, target)
    except BaseException as err:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(err, BuildError):
            raise
        if isinstance(err, OSError):
            raise BuildError(f"{out}: writing the site failed: {err}; the previous site is untouched") from err
        raise
    return target


def _swap(staging: Path, target: Path) -> None:
    if not target.exists():
        os.replace(staging, target)
        return
    old = Path(tempfile.mkdtemp(prefix=".podium-old-", dir=target.parent))
    old.rmdir()
    os.replace(target, old)
    try:
        os.replace(staging, target)
    except OSError:
        os.replace(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)  # the new site is live; a leftover is only litter
