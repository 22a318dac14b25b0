"""A cold build's run directories read ahead by worker processes (load/export/ahead.py ``ReadAhead``): the same
export as the build's own thread reads it, problems and digests included, and a directory that changed
after a worker read it is read again rather than stored under stamps older than its bytes."""

from __future__ import annotations

import os
import threading
from contextlib import closing
from pathlib import Path

import pytest
from exportkit import ExportDir, crash_fallback, graded, report_md, run_id

from podium import workers
from podium.cache.store import open_cache
from podium.errors import BuildError
from podium.load import export as reader
from podium.load.export import ahead, load_export, stored


def _export(root: Path) -> ExportDir:
    """Runs of every kind, bad files among them, in more directories than one task holds."""
    export = ExportDir(root)
    for n in range(90):
        rid = run_id(n)
        if n % 9 == 0:
            export.run(crash_fallback(rid), rid=rid, trigger="crashed")
        elif n % 11 == 0:
            export.run(b'{"grade": {"run_id": "' + rid.encode() + b'", "overall": "high"', rid=rid)  # cut short
        elif n % 13 == 0:
            export.run(None, rid=rid, report=report_md(), agent=None)  # no result.json: a problem
        else:
            export.run(
                graded(rid, det=(n % 7) / 7, judge=(n % 5) / 5, model=f"model-{n % 3}"),
                rid=rid,
                agent=f"agent-{n % 4}",
                mission=f"m{n % 3}",
                report=report_md(),
            )
    return export.sidecars()


@pytest.fixture
def ahead_for_any_size(monkeypatch):
    monkeypatch.setattr(reader, "AHEAD_MIN", 1)
    monkeypatch.setattr(ahead, "AHEAD_CHUNK", 7)


def test_read_ahead_reads_what_the_build_reads(tmp_path, ahead_for_any_size, monkeypatch):
    root = _export(tmp_path / "export").root
    alone = load_export(root)
    read_here = []
    real = stored.read_dir
    monkeypatch.setattr(stored, "read_dir", lambda r, name: read_here.append(name) or real(r, name))
    with closing(workers.Workers(2)) as two:
        ahead = load_export(root, workers=two)
    assert read_here == []  # every directory came from a worker
    assert ahead == alone
    assert ahead.problems and ahead.inputs_digest == alone.inputs_digest


def test_a_directory_changed_after_a_worker_read_it_is_read_again(tmp_path, ahead_for_any_size, monkeypatch):
    """The cache's stamps are taken after the worker's read: they differ, so the row stores what the build
    read itself, under those stamps."""
    root = _export(tmp_path / "export").root
    changed = sorted(p.name for p in root.iterdir() if p.is_dir())[40]
    real = ahead._read_dirs

    def read_then_change(root_, limits, names):
        out = real(root_, limits, names)
        if changed in names:  # as if a run was re-graded while the build ran
            result = root / changed / "result.json"
            result.write_bytes(result.read_bytes().replace(b'"judge_status":"ok"', b'"judge_status":"failed"'))
            os.utime(result)
        return out

    monkeypatch.setattr(ahead, "_read_dirs", read_then_change)
    read_here = []
    real_read = stored.read_dir
    monkeypatch.setattr(stored, "read_dir", lambda r, name: read_here.append(name) or real_read(r, name))
    cache = open_cache(tmp_path / "cache")
    try:
        assert cache.cold()
        first = load_export(root, cache=cache, workers=_InProcess())  # (here, so the worker can change a file)
        cache.settle(lambda text: False)  # every answer known (none to look for): the rows go into the file
    finally:
        cache.close()
    assert changed in read_here
    monkeypatch.undo()
    assert first == load_export(root)  # the export as it now is
    assert _grades(first)[changed] == "failed"
    cache = open_cache(tmp_path / "cache")
    try:
        assert not cache.cold()
        again = load_export(root, cache=cache)  # from the stored rows (lightened: their texts are read by pages)
    finally:
        cache.close()
    assert _grades(again) == _grades(first)  # each row holds the bytes its stamps name


def _grades(export) -> dict[str, str | None]:
    return {run.directory: run.grade.judge_status if run.grade else run.shape for run in export.runs}


class _InProcess(workers.Workers):
    """The build's workers without processes: tasks run in this process, in order."""

    def __init__(self):
        super().__init__(2)

    def in_order(self, function, tasks, ahead, *, budget=None):
        for task in tasks:
            yield function(*(task.args if budget is not None else task))


def _die(code: int) -> None:
    os._exit(code)  # as the kernel's OOM killer would end it: no exception, no result


def test_a_worker_that_dies_stops_the_build_instead_of_hanging():
    results: list = []

    def run() -> None:
        try:
            list(workers.in_order(workers.pool(2), _die, [(3,), (3,)], 2))
        except BuildError as err:
            results.append(str(err))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive(), "the build waited forever for a dead worker's result"
    assert results and "worker process of the build died" in results[0]
