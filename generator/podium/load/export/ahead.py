"""The run directories of a cold build read ahead by worker processes (workers.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from podium.load.export.reader import RUN_FILES, Dir, Limits, Reader, read_dir
from podium.load.files import MiB, stamp
from podium.workers import Weighed, Workers

AHEAD_MIN = 1000  # fewer directories are read by the build's own thread: not worth starting processes for
AHEAD_CHUNK = 40  # directories per task
AHEAD_TASKS = 4  # tasks per worker sent ahead of the directory being counted
# The result.json bytes (by their size on disk) a task reads at most, unless one file alone is more, and
# all the tasks out at once: what the workers hold parsed and send back grows with those bytes (a result
# of many criteria keeps them all), so this, not the number of directories, bounds it. Real results are
# 1-12 KB: 40 directories are ~0.5 MB, and neither bound is met.
AHEAD_TASK_BYTES = 8 * MiB
AHEAD_BYTES = 64 * MiB


class ReadAhead:
    """The run directories of a cold build read by worker processes (workers.py) ahead of the build's
    thread, which takes each, in name order, as if it had read it itself (the same reader, so the same
    problems and digests). A worker takes a directory's stamps before it reads it; when the store took
    other stamps since (it changed meanwhile), the build reads it again, so a stored row never holds
    stamps older than its bytes."""

    def __init__(self, root: Path, limits: Limits, names: list[str], workers: Workers):
        self.done = workers.in_order(
            _read_dirs, _ahead_tasks(root, limits, names), workers.jobs * AHEAD_TASKS, budget=AHEAD_BYTES
        )
        self.chunk: list[tuple] = []

    def take(self, reader: Reader, name: str, stamps: dict[str, str] | None) -> Dir | None:
        """``name`` as read by a worker, its problems and digests added to ``reader``; None when it was
        not read ahead, or when ``stamps`` (the store's, None for none) are not the ones it was read under."""
        while True:
            while self.chunk:
                found, before, item, problems, hashes, file_hashes = self.chunk.pop()
                if found == name:
                    if stamps is not None and stamps != before:
                        return None
                    reader.problems += problems
                    reader.hashes, reader.file_hashes = hashes, file_hashes
                    return item
            chunk = next(self.done, None)
            if chunk is None:
                return None
            self.chunk = chunk[::-1]

    def close(self) -> None:
        self.done.close()  # the tasks not yet taken are cancelled (the workers are the build's: kept for rendering)


def _ahead_tasks(root: Path, limits: Limits, names: list[str]) -> Iterator[Weighed]:
    """The directories in tasks of at most AHEAD_CHUNK, or of AHEAD_TASK_BYTES of result.json (a file over
    ``limits`` is not read: it weighs nothing), each weighed by those bytes (taken as the tasks are)."""
    chunk: list[str] = []
    size = 0
    for name in names:
        try:
            found = os.lstat(f"{root}/{name}/result.json").st_size
        except OSError:
            found = 0
        found = found if found <= limits.result_bytes else 0
        if chunk and (len(chunk) == AHEAD_CHUNK or size + found > AHEAD_TASK_BYTES):
            yield Weighed((root, limits, chunk), size)
            chunk, size = [], 0
        chunk.append(name)
        size += found
    if chunk:
        yield Weighed((root, limits, chunk), size)


def _read_dirs(root: Path, limits: Limits, names: list[str]) -> list[tuple]:
    """In a worker: each directory as :func:`read_dir` reads it, with its stamps from before and what it
    added to its reader."""
    out = []
    for name in names:
        stamps = {file: stamp(f"{root}/{name}/{file}") for file in RUN_FILES}  # as cache/store.py takes them
        reader = Reader(root, limits)
        item = read_dir(reader, name)
        out.append((name, stamps, item, reader.problems, reader.hashes, reader.file_hashes))
    return out
