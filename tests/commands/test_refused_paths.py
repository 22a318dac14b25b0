"""Paths podium must refuse cleanly (issue 15.4): exit 2 with a message, no traceback, no side effect.

A refused ``--out`` creates nothing, not even the build cache beside it; a symlink loop in
any path given on the command line is a message, not a RuntimeError; ``--out afile/site``
(a regular file on the way) is refused before anything is made.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from exportkit import ExportDir, graded, run_id

from podium.commands.cli import main


def podium(*args, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """The real command in a subprocess (so HOME and the working directory are its own)."""
    env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "podium", *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def snapshot(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.fixture
def area(tmp_path):
    export = ExportDir(tmp_path / "export")
    rid = run_id("refused")
    export.run(graded(rid), rid=rid, agent="osprey")
    export.sidecars()
    (tmp_path / "work").mkdir()
    return tmp_path


def assert_refused(result: subprocess.CompletedProcess, *words: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr and "RuntimeError" not in result.stderr, result.stderr
    for word in words:
        assert word in result.stderr, (word, result.stderr)


def test_a_refused_home_directory_creates_no_cache_beside_it(area):
    home = area / "home"
    (home / "notes").mkdir(parents=True)
    before = snapshot(area)
    result = podium("build", area / "export", "--out", home, cwd=area / "work", env={"HOME": str(home)})
    assert_refused(result, "filesystem root or home directory")
    assert snapshot(area) == before  # no .podium-cache beside it, no staging directory


def test_a_refused_foreign_directory_creates_no_cache_beside_it(area):
    mine = area / "docs"
    mine.mkdir()
    (mine / "thesis.tex").write_text("years of work")
    before = snapshot(area)
    result = podium("build", area / "export", "--out", mine, cwd=area / "work")
    assert_refused(result, "was not written by podium")
    assert snapshot(area) == before


def test_a_refused_root_creates_nothing_at_the_root(area):
    if os.path.lexists("/.podium-cache"):
        pytest.skip("/.podium-cache exists already; cannot tell who made it")
    try:
        result = podium("build", area / "export", "--out", "/", cwd=area / "work")
        assert_refused(result, "filesystem root or home directory")
        assert not os.path.lexists("/.podium-cache")
    finally:  # a regression must not leave litter at the root of the machine
        if os.path.isdir("/.podium-cache") and not os.path.islink("/.podium-cache"):
            shutil.rmtree("/.podium-cache", ignore_errors=True)


def test_out_under_a_regular_file_is_refused(area):
    (area / "afile").write_text("a file, not a directory")
    before = snapshot(area)
    result = podium("build", area / "export", "--out", area / "afile" / "site", cwd=area / "work")
    assert_refused(result, "afile exists and is not a directory")
    assert snapshot(area) == before
    assert (area / "afile").read_text() == "a file, not a directory"


@pytest.mark.parametrize(
    "flag", ["--out", "--out-parent", "--theme-dir", "--config", "--previous", "export", "export-parent", "--cache-dir"]
)
def test_a_symlink_loop_in_any_path_is_exit_2_with_a_message(area, flag):
    os.symlink("loop-b", area / "loop-a")
    os.symlink("loop-a", area / "loop-b")
    loop, through = area / "loop-a", area / "loop-a" / "x"
    args = {
        "--out": ["--out", loop],
        "--out-parent": ["--out", through],
        "--theme-dir": ["--theme-dir", through],
        "--config": ["--config", through],
        "--previous": ["--previous", through],
        "--cache-dir": ["--cache-dir", through],
    }.get(flag, [])
    export = {"export": loop, "export-parent": through}.get(flag, area / "export")
    out = [] if flag.startswith("--out") else ["--out", area / "site"]
    result = podium("build", export, *out, *args, cwd=area / "work")
    if flag == "--cache-dir":  # an unusable cache is not used; the build goes on
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
        return
    assert_refused(result, "loop-a")


def test_a_loop_in_the_export_of_check_and_rank_is_exit_2(area, monkeypatch):
    monkeypatch.chdir(area / "work")
    os.symlink("loop", area / "loop")
    for command in ("check", "rank"):
        result = CliRunner().invoke(main, [command, str(area / "loop" / "x")])
        assert result.exit_code == 2 and "loop" in result.output, result.output


@pytest.mark.parametrize("how", ["fifo", "dev-zero"])
def test_a_config_that_is_not_a_regular_file_is_exit_2_not_a_hang(area, how):
    config = area / "podium.yaml"
    if how == "fifo":
        os.mkfifo(config)
    else:
        config.symlink_to("/dev/zero")
    result = podium("build", area / "export", "--out", area / "site", "--config", config, cwd=area / "work")
    assert_refused(result, f"{config}: is not a regular file")
    assert not (area / "site").exists()
