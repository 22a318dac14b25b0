"""A build's worker processes (workers.py): forked once, when first needed, and shared by its stages."""

from __future__ import annotations

import os
from contextlib import closing
from pathlib import Path

import pytest
from exportkit import ExportDir, graded, report_md, run_id

import podium.load.export
import podium.load.export.ahead
import podium.render.site
from podium import heap, workers
from podium.build import build_site
from podium.config import Config


def _note(folder: str, what: str) -> None:
    with open(Path(folder) / f"{what}-{os.getpid()}", "a") as handle:
        handle.write(".")


def _noted(folder: Path, what: str) -> dict[int, int]:
    return {int(p.name.split("-")[1]): len(p.read_text()) for p in folder.glob(f"{what}-*")}


class _Counted:
    """The workers' task functions, each call noted (module-level: a task's function is pickled by its name)."""

    notes = ""
    real_read, real_render = podium.load.export.ahead._read_dirs, podium.render.site._render_chunk

    @staticmethod
    def read(*args):
        _note(_Counted.notes, "read")
        return _Counted.real_read(*args)

    @staticmethod
    def render(*args):
        _note(_Counted.notes, "render")
        return _Counted.real_render(*args)


def test_a_setup_runs_once_in_each_worker_before_the_tasks_after_it(tmp_path):
    with closing(workers.Workers(3)) as three:
        three.everywhere(_note, str(tmp_path), "setup")
        done = list(three.in_order(_note, [(str(tmp_path), "task")] * 30, ahead=6))
        setups = _noted(tmp_path, "setup")
        assert len(setups) == 3 and set(setups.values()) == {1} and os.getpid() not in setups
        assert len(done) == 30 and set(_noted(tmp_path, "task")) <= set(setups)
        assert sum(_noted(tmp_path, "task").values()) == 30


def _released() -> int:
    return heap.released


@pytest.mark.skipif(heap._TRIM is None, reason="glibc only")
def test_a_worker_gives_back_what_its_setup_freed(tmp_path):
    """A setup (the report renderer, its automaton made again in the worker through a larger one) is followed
    by heap.release() in each worker (heap.py)."""
    with closing(workers.Workers(2)) as two:
        before = set(two.in_order(_released, [()] * 8, ahead=4))
        two.everywhere(_note, str(tmp_path), "setup")
        after = set(two.in_order(_released, [()] * 8, ahead=4))
    assert after == {n + 1 for n in before} and len(_noted(tmp_path, "setup")) == 2


def test_no_worker_is_forked_until_one_is_needed():
    with closing(workers.Workers(2)) as two:
        assert two.executor is None
        assert two.many and not workers.NO_WORKERS.many


def test_a_cold_build_reads_ahead_and_renders_with_the_same_workers(tmp_path, monkeypatch):
    """The workers are forked once, for the read-ahead, before the build holds the history, and render its run
    pages too (each stage used to fork a pool of its own, the render stage's from the whole build)."""
    export = ExportDir(tmp_path / "export")
    for n in range(12):
        rid = run_id(f"run-{n}")
        export.run(
            graded(rid, det=0.5, judge=0.5), rid=rid, agent=("osprey", "kestrel")[n % 2], report=report_md(rid=rid)
        )
    export.sidecars()
    notes = tmp_path / "notes"
    notes.mkdir()
    monkeypatch.setattr(_Counted, "notes", str(notes))
    monkeypatch.setattr(podium.load.export, "AHEAD_MIN", 2)
    monkeypatch.setattr(podium.load.export.ahead, "AHEAD_CHUNK", 3)
    monkeypatch.setattr(podium.render.site, "PARALLEL_MIN", 2)
    monkeypatch.setattr(podium.render.site, "CHUNK", 3)
    monkeypatch.setattr(podium.load.export.ahead, "_read_dirs", _Counted.read)
    monkeypatch.setattr(podium.render.site, "_render_chunk", _Counted.render)
    built = build_site(Config(source="", root=tmp_path, out=tmp_path / "site"), export.root, jobs=2)
    assert built.target is not None
    readers, renderers = _noted(notes, "read"), _noted(notes, "render")
    assert sum(readers.values()) == 4 and sum(renderers.values()) == 4  # 12 directories, 12 run pages, by 3
    assert set(renderers) <= set(readers) and os.getpid() not in readers
