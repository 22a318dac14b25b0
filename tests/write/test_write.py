"""The writer (site.md "Atomic"; guide/hostile-input.md A7, I1, I2): staging, swap, path guards."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import threading
from pathlib import Path

import pytest
from exportkit import ExportDir, graded, run_id
from sitekit import ledger_rows_at

from podium.build import build_site
from podium.config import load_config
from podium.errors import BuildError
from podium.write import site as write
from podium.write.site import MARKER, MARKER_TEXT, check_output_dir, write_site


def snapshot(root: Path) -> dict[str, str]:
    """Every entry under ``root``: files by content digest, directories and links marked."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_symlink():
            out[rel] = "link:" + os.readlink(path)
        elif path.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def litter(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith((".podium-staging-", ".podium-old-")))


def files_of(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def area(tmp_path):
    """A project root, an export inside it and the usual output path."""
    (tmp_path / "export").mkdir()
    return tmp_path


def put(files, out: Path, area: Path) -> Path:
    pairs = files.items() if isinstance(files, dict) else files
    return write_site(pairs, out, inputs=[area / "export"], homes=[area])


SITE_ONE = {"index.html": b"<p>one</p>\n", "runs/a/index.html": b"a\n", "api/results/summary.json": b"{}\n"}
SITE_TWO = {"index.html": b"<p>two</p>\n", "agents/b/index.html": b"b\n"}


# ------------------------------------------------------------------ atomic swap


def test_first_build_writes_files_and_marker(area):
    target = put(SITE_ONE, area / "site", area)
    assert target == (area / "site").resolve()
    assert files_of(target) == {**SITE_ONE, MARKER: MARKER_TEXT}
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o755
    assert litter(area) == []


def test_second_build_replaces_the_first_whole(area):
    put(SITE_ONE, area / "site", area)
    put(SITE_TWO, area / "site", area)
    assert files_of(area / "site") == {**SITE_TWO, MARKER: MARKER_TEXT}  # nothing stale from the first
    assert not (area / "site" / "runs").exists()
    assert litter(area) == []


def test_empty_existing_directory_is_used(area):
    (area / "site").mkdir()
    put(SITE_ONE, area / "site", area)
    assert files_of(area / "site") == {**SITE_ONE, MARKER: MARKER_TEXT}


def test_output_in_a_new_nested_directory(area):
    put(SITE_ONE, area / "public" / "www", area)
    assert files_of(area / "public" / "www")["index.html"] == b"<p>one</p>\n"


def test_pairs_as_they_are_rendered_are_written(area):
    put(iter(SITE_ONE.items()), area / "site", area)
    assert files_of(area / "site") == {**SITE_ONE, MARKER: MARKER_TEXT}


def test_the_writer_makes_a_directory_again_after_forgetting_it(area, monkeypatch):
    monkeypatch.setattr(write, "MADE_KEPT", 2)  # forgets after two directories, as it does after 4096
    files = {f"runs/{n % 5}/{n}.html": str(n).encode() for n in range(20)}  # back and forth between five
    put(files, area / "site", area)
    assert files_of(area / "site") == {**files, MARKER: MARKER_TEXT}


def test_the_writer_makes_a_run_pages_folder_with_one_mkdir_even_after_forgetting(area, monkeypatch):
    monkeypatch.setattr(write, "WRITERS", 1)  # one thread: the counts below are exact
    monkeypatch.setattr(write, "MADE_KEPT", 4)
    calls: list[str] = []
    real = os.makedirs
    monkeypatch.setattr(write.os, "makedirs", lambda path, **kw: calls.append(path) or real(path, **kw))
    files = {f"runs/{n}/index.html": b"x" for n in range(20)}
    put(files, area / "site", area)
    assert files_of(area / "site") == {**files, MARKER: MARKER_TEXT}
    folders = [c for c in calls if "/runs/" in c]  # (os.makedirs calls itself for runs/ the first time)
    assert len(folders) == 10  # after each forgetting, runs/ is known again at once: the next folder is one mkdir


def _failing(after: int, error: BaseException):
    """Rendered pairs that fail on the file after ``after`` good ones, like a template raising on page 7."""
    for n in range(after):
        yield f"page{n}/index.html", b"new"
    raise error


@pytest.mark.parametrize(
    "error, raised",
    [
        (RuntimeError("template exploded on page 7"), RuntimeError),
        (BuildError("page.html:3: template error: boom"), BuildError),
        (OSError(28, "No space left on device"), BuildError),
        (KeyboardInterrupt(), KeyboardInterrupt),
    ],
)
def test_failed_build_leaves_the_old_site_untouched(area, error, raised):
    put(SITE_ONE, area / "site", area)
    before = snapshot(area / "site")
    with pytest.raises(raised) as caught:
        put(_failing(6, error), area / "site", area)
    if isinstance(error, OSError):
        assert caught.value.exit_code == 3
        assert "writing the site failed" in caught.value.message
        assert "the previous site is untouched" in caught.value.message
    assert snapshot(area / "site") == before
    assert litter(area) == []


def test_failing_file_write_leaves_the_old_site_untouched(area, monkeypatch):
    put(SITE_ONE, area / "site", area)
    before = snapshot(area / "site")
    real = write._Writer._write
    calls = []

    def flaky(self, rel, data):  # on the writer's thread: the error reaches the build's
        calls.append(rel)
        if len(calls) == 2:
            raise OSError(5, "Input/output error")
        return real(self, rel, data)

    monkeypatch.setattr(write._Writer, "_write", flaky)
    with pytest.raises(BuildError, match="Input/output error"):
        put(SITE_TWO, area / "site", area)
    monkeypatch.undo()
    assert len(calls) == 2  # nothing written after the error
    assert snapshot(area / "site") == before
    assert litter(area) == []


def test_a_failing_render_stops_the_writer_before_the_staging_is_removed(area):
    """An error while files are still queued: the writer thread has stopped (nothing written after) and no
    staging directory is left behind."""
    put(SITE_ONE, area / "site", area)
    before = snapshot(area / "site")

    def files():
        for number in range(200):
            yield f"page-{number}.html", b"x" * 300_000  # more than the writer queues
        raise RuntimeError("a template failed")

    with pytest.raises(RuntimeError, match="a template failed"):
        write.write_site(files(), area / "site", inputs=[], homes=[area])
    assert not any(t.name == "podium-writer" for t in threading.enumerate())
    assert snapshot(area / "site") == before
    assert litter(area) == []


def test_failing_swap_leaves_an_empty_output_empty(area, monkeypatch):
    (area / "site").mkdir()
    real = os.replace

    def refuse_staging(src, dst):
        if Path(src).name.startswith(".podium-staging-"):
            raise OSError(16, "Device or resource busy")
        return real(src, dst)

    monkeypatch.setattr(write.os, "replace", refuse_staging)
    with pytest.raises(BuildError, match="Device or resource busy"):
        put(SITE_ONE, area / "site", area)
    monkeypatch.undo()
    assert snapshot(area / "site") == {}
    assert litter(area) == []


def test_a_file_written_into_an_empty_output_during_the_build_survives(area):
    """Issue 15.4: the output was empty when the build checked it; another process writes into it
    while pages are rendered. The swap must not delete that file: the build stops (exit 3) naming it."""
    (area / "site").mkdir()

    def rendering():
        yield "index.html", b"<p>one</p>\n"
        (area / "site" / "notes.txt").write_text("written by someone else")
        yield "runs/a/index.html", b"a\n"

    with pytest.raises(BuildError) as caught:
        put(rendering(), area / "site", area)
    assert caught.value.exit_code == 3
    assert "notes.txt" in caught.value.message and "appeared there during the build" in caught.value.message
    assert snapshot(area / "site") == {"notes.txt": hashlib.sha256(b"written by someone else").hexdigest()}
    assert litter(area) == []


def test_a_file_written_into_a_site_during_an_update_survives(area):
    """The same race on a rebuild: a file another process writes where the update would put a new file."""
    put(SITE_ONE, area / "site", area)
    before = snapshot(area / "site")

    def rendering():
        yield "index.html", b"<p>two</p>\n"
        (area / "site" / "agents").mkdir()
        (area / "site" / "agents" / "b").mkdir()
        (area / "site" / "agents" / "b" / "index.html").write_text("someone else's")
        yield "agents/b/index.html", b"b\n"

    with pytest.raises(BuildError, match="appeared during the build") as caught:
        put(rendering(), area / "site", area)
    assert caught.value.exit_code == 3
    assert snapshot(area / "site") == {
        **before,
        "agents": "dir",
        "agents/b": "dir",
        "agents/b/index.html": hashlib.sha256(b"someone else's").hexdigest(),
    }


UPDATE = {
    "index.html": b"<p>two</p>\n",
    "runs/a/index.html": b"a2\n",
    "runs/b/index.html": b"b\n",
    "api": b"a file where a directory was\n",
}


@pytest.mark.parametrize("failing", range(1, 10))
def test_an_update_failing_at_any_step_puts_the_old_site_back(area, monkeypatch, failing):
    """Every rename and mkdir of an update (old files moved out, new ones moved in) can fail:
    the journal puts the previous site back exactly, whichever step it was."""
    put(SITE_ONE, area / "site", area)
    (area / "site" / "stray-link").symlink_to(area / "export")
    before = snapshot(area / "site")
    steps = []
    mkdir = os.mkdir

    def flaky(real):
        def step(*args):
            if real is mkdir and len(args) > 1:  # the staging directory, the output's parent
                return real(*args)
            steps.append(args)
            if len(steps) == failing:
                raise OSError(5, "Input/output error")
            return real(*args)

        return step

    monkeypatch.setattr(write.os, "replace", flaky(os.replace))
    monkeypatch.setattr(write.os, "mkdir", flaky(os.mkdir))
    if failing > 8:  # past the last of its eight steps: the update goes through
        put(UPDATE, area / "site", area)
        monkeypatch.undo()
        assert files_of(area / "site") == {**UPDATE, MARKER: MARKER_TEXT}
        assert not (area / "site" / "stray-link").is_symlink()
    else:
        with pytest.raises(BuildError, match="Input/output error"):
            put(UPDATE, area / "site", area)
        monkeypatch.undo()
        assert snapshot(area / "site") == before
    assert litter(area) == []


def test_an_update_without_hard_links_moves_the_old_files_out_instead(area, monkeypatch):
    put(SITE_ONE, area / "site", area)

    def no_links(src, dst):
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(write.os, "link", no_links)
    put(UPDATE, area / "site", area)
    assert files_of(area / "site") == {**UPDATE, MARKER: MARKER_TEXT}
    assert litter(area) == []


def test_an_update_leaves_the_tree_a_new_site_would_have(area):
    put(SITE_ONE, area / "site", area)
    (area / "site" / "runs" / "a" / "extra.txt").write_bytes(b"added by hand\n")
    (area / "site" / "empty" / "dir").mkdir(parents=True)
    put(UPDATE, area / "site", area)
    put(UPDATE, area / "fresh", area)
    assert snapshot(area / "site") == snapshot(area / "fresh")


def test_failing_first_build_creates_no_output(area):
    with pytest.raises(RuntimeError):
        put(_failing(3, RuntimeError("boom")), area / "site", area)
    assert not (area / "site").exists()
    assert litter(area) == []


# ------------------------------------------------------------------ refusing dangerous outputs


def _refused(out: Path, area: Path, message: str, *, inputs=None, homes=None) -> None:
    watched = [p for p in {out, area} if p.exists() and p.resolve() != Path("/")]
    before = {p: snapshot(p) for p in watched}
    with pytest.raises(BuildError) as caught:
        write_site(
            SITE_ONE.items(),
            out,
            inputs=[area / "export"] if inputs is None else inputs,
            homes=[area] if homes is None else homes,
        )
    assert message in caught.value.message
    assert caught.value.message.startswith(f"{out}: ")
    for path, snap in before.items():
        assert snapshot(path) == snap, f"{path} changed"
    assert litter(out.parent) == [] if out.parent.exists() else True


def test_refuses_out_equal_to_the_export(area):
    (area / "export" / "a41d07c2").mkdir()
    _refused(area / "export", area, "the output directory may not contain, equal or sit inside")


def test_refuses_out_inside_the_export(area):
    _refused(area / "export" / "site", area, "the output directory may not contain, equal or sit inside")
    assert not (area / "export" / "site").exists()


def test_refuses_export_inside_out(area):
    (area / "out" / "export").mkdir(parents=True)
    (area / "out" / MARKER).write_bytes(MARKER_TEXT)
    _refused(area / "out", area, "may not contain, equal or sit inside", inputs=[area / "out" / "export"])


def test_refuses_the_filesystem_root(area):
    _refused(Path("/"), area, "refusing to use a filesystem root or home directory")


def test_refuses_the_home_directory(area):
    with pytest.raises(BuildError, match="filesystem root or home directory"):
        check_output_dir(Path.home(), [area / "export"], [area])


def test_refuses_the_project_root_and_cwd(area, monkeypatch):
    project = area / "project"
    (project / "sub").mkdir(parents=True)
    monkeypatch.chdir(project / "sub")
    homes = [project, Path.cwd()]
    _refused(project, area, "the output directory may not be or contain", homes=homes)
    _refused(Path("."), area, "the output directory may not be or contain", homes=homes)
    _refused(Path(".."), area, "the output directory may not be or contain", homes=homes)
    _refused(area, area, "the output directory may not contain, equal or sit inside", homes=homes)


def test_refuses_a_foreign_non_empty_directory_and_leaves_it_alone(area):
    mine = area / "docs"
    mine.mkdir()
    (mine / "thesis.tex").write_text("years of work")
    (mine / "figures").mkdir()
    _refused(mine, area, f"exists, is not empty and was not written by podium (no {MARKER})")
    assert (mine / "thesis.tex").read_text() == "years of work"


def test_refuses_a_directory_holding_git(area):
    site = area / "site"
    put(SITE_ONE, site, area)
    (site / ".git").mkdir()
    (site / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    _refused(site, area, "holds a .git directory; refusing to replace it")


def test_refuses_a_file_as_output(area):
    (area / "site").write_text("not a dir")
    _refused(area / "site", area, "exists and is not a directory")


@pytest.mark.parametrize(
    "bad",
    [
        "../x",
        "/abs",
        "a/../b",
        "",
        ".",
        "..",
        "a//b",
        "a/",
        "./a",
        "a\\b",
        ".hidden",
        "a/.podium-site",
        "sp ace.html",
        "a\x00b",
    ],
)
def test_unsafe_relative_paths_are_refused(area, bad):
    put(SITE_ONE, area / "site", area)
    before = snapshot(area)
    files = {"index.html": b"fine", bad: b"EVIL"}
    with pytest.raises(BuildError) as caught:
        put(files, area / "site", area)
    assert caught.value.message == f"refusing to write unsafe output path {bad!r}"
    assert snapshot(area) == before  # nothing written anywhere: not inside, not beside, not above
    assert not Path("/abs").exists()


def test_unsafe_path_on_a_first_build_creates_no_output(area):
    with pytest.raises(BuildError, match="unsafe output path"):
        put({"index.html": b"x", "../escape.html": b"EVIL"}, area / "site", area)
    assert not (area / "site").exists()
    assert not (area / "escape.html").exists()
    assert litter(area) == []


def test_two_outputs_to_one_path_are_refused(area):
    with pytest.raises(BuildError, match="two outputs would be written to 'Index.html'"):
        put([("index.html", b"1"), ("Index.html", b"2")], area / "site", area)
    assert not (area / "site").exists()


# ------------------------------------------------------------------ through the build (I1, I2)


def _config(area: Path, out: Path):
    (area / "podium.yaml").write_text("title: T\n")
    return load_config(area / "podium.yaml", {"out": out})


def test_removed_run_disappears_on_rebuild(area):
    export = ExportDir(area / "export")
    keep, gone = run_id(1), run_id(2)
    export.run(graded(keep), rid=keep, agent="osprey")
    export.run(graded(gone), rid=gone, agent="gyrfalcon", mission="m2")
    export.sidecars()
    site = area / "site"
    build_site(_config(area, site), export.root)
    assert (site / "runs" / gone / "index.html").is_file()
    assert any(gone.encode() in data for data in files_of(site).values())

    shutil.rmtree(export.root / gone[:8])
    export.rows = [row for row in export.rows if row["run_id"] != gone]
    export.agents.pop(next(k for k, v in export.agents.items() if v == "gyrfalcon"))
    export.sidecars()
    build_site(_config(area, site), export.root)
    assert not (site / "runs" / gone).exists()
    assert (site / "runs" / keep / "index.html").is_file()
    for path, data in files_of(site).items():
        assert gone.encode() not in data, path
        assert gone[:8] not in path
        assert b"gyrfalcon" not in data, path
    rows = ledger_rows_at(site)
    assert [row["run_id"] for row in rows] == [keep]
    assert litter(area) == []


def test_build_failing_midway_keeps_the_old_site(area, monkeypatch):
    export = ExportDir(area / "export")
    for n in range(3):
        export.run(graded(run_id(n)), rid=run_id(n))
    export.sidecars()
    site = area / "site"
    build_site(_config(area, site), export.root)
    before = snapshot(site)
    export.run(graded(run_id(9)), rid=run_id(9))
    export.sidecars()
    real = write.check_relative
    seen = []

    def fail_on_seventh(path):
        seen.append(path)
        if len(seen) == 7:
            raise BuildError("index.html:7: template error: boom")
        return real(path)

    monkeypatch.setattr(write, "check_relative", fail_on_seventh)
    with pytest.raises(BuildError, match="boom"):
        build_site(_config(area, site), export.root)
    assert len(seen) == 7
    assert snapshot(site) == before
    assert litter(area) == []
