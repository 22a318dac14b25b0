"""The stat pass: what the exports hold as the file system tells it, without reading a file."""

from __future__ import annotations

import hashlib
import os
from array import array
from collections.abc import Sequence
from pathlib import Path

from podium.load.export.reader import RUN_FILES
from podium.load.files import stamp
from podium.model import RUN_DIR


class Scanned:
    """What the stat pass (:func:`scan`) saw of each run directory, for the reader that follows it: per
    export, in name order, an 8-byte digest of each run directory's name and file stamps (an array: 8
    bytes a run, never the stamps themselves). A stored parse whose stamps have the digest the stat pass
    saw is taken without stamping its three files a second time (cache/store.py ``parsed``). The build then
    counts the export as its stat pass found it: a file changed after that is the next build's change
    (its stat pass sees it; the whole-build key this build stores is of the stamps it saw), and a run page
    rendered from such a file stops the build (whole_run checks the bytes)."""

    def __init__(self) -> None:
        self.roots: list[array] = []


def stamps_digest(name: str, stamps: Sequence[str]) -> int:
    return int.from_bytes(
        hashlib.blake2b("\0".join((name, *stamps)).encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big"
    )


def scan(roots: Sequence[Path], scanned: Scanned | None = None) -> str:
    """A digest of what the exports hold as the file system tells it, without reading a file: every
    entry's name and, for run directories and sidecars, each file's stamp (load/files.py). Equal
    digests: nothing was added, removed, replaced or touched (a build whose inputs all agree stops here).
    ``scanned`` collects each run directory's stamps' digest for the reader (:class:`Scanned`)."""
    digest = hashlib.sha256()
    for root in roots:
        digest.update(f"{root.resolve()}\0".encode())
        try:
            entries = sorted(os.scandir(root), key=lambda e: e.name)
        except OSError as err:
            digest.update(f"unreadable: {err}".encode())
            continue
        seen = array("Q")
        if scanned is not None:
            scanned.roots.append(seen)
        for entry in entries:  # paths as text: a Path made per file cost three times the stat itself
            digest.update(entry.name.encode("utf-8", "surrogatepass") + b"\0")
            if RUN_DIR.match(entry.name) and entry.is_dir(follow_symlinks=False):
                stamps = [stamp(f"{entry.path}/{file}") for file in RUN_FILES]
                for text in stamps:
                    digest.update(text.encode() + b"|")
                seen.append(stamps_digest(entry.name, stamps))
            else:
                digest.update(stamp(entry.path).encode() + b"|")
    return digest.hexdigest()
