"""Several exports in one build (issue 8): each run counted once, the later export's copy wins.

CI often exports only each batch's new runs into a fresh directory, and teams run more
than one XORCISE server. A run exported while still grading and again once graded
counts as graded; each such duplicate is a note, never a problem.
"""

from __future__ import annotations

import json

from click.testing import CliRunner
from exportkit import ExportDir, graded, grading, report_md, run_id
from sitekit import site_files

from podium.build import build_site
from podium.commands.cli import main
from podium.config import Config, load_config
from podium.views import count_export

SHARED = run_id("regraded")


def two_batches(tmp_path) -> tuple[ExportDir, ExportDir]:
    first = ExportDir(tmp_path / "batch-1")
    first.run(graded(run_id("only-first"), det=1.0, judge=1.0), rid=run_id("only-first"))
    first.run(grading(SHARED), rid=SHARED, report=report_md(rid=SHARED, extra="| Note | FIRST-COPY-REPORT |\n"))
    first.sidecars()
    second = ExportDir(tmp_path / "batch-2")
    second.run(
        graded(SHARED, det=0.5, judge=0.5),
        rid=SHARED,
        report=report_md(rid=SHARED, extra="| Note | SECOND-COPY-REPORT |\n"),
    )
    second.run(graded(run_id("only-second"), det=0.0, judge=0.5), rid=run_id("only-second"))
    (second.root / run_id("broken")[:8]).mkdir()  # a run directory with no result.json
    second.sidecars()
    return first, second


def config(tmp_path, **values) -> Config:
    return Config(source="", root=tmp_path, out=tmp_path / "site", **values)


def test_a_run_in_two_exports_counts_once_from_the_later(tmp_path):
    first, second = two_batches(tmp_path)
    board = count_export(config(tmp_path), [first.root, second.root])
    assert board.totals.runs == 3 and board.runs_read == 4  # 3 runs + 1 directory nothing identifies
    assert board.totals.counts["graded"] == 3 and board.totals.counts["grading"] == 0
    assert any(f"run {SHARED} is in batch-1/ and batch-2/" in note for note in board.notes)
    assert not any(SHARED[:8] in p.path for p in board.problems)


def test_the_order_decides_which_copy_counts(tmp_path):
    first, second = two_batches(tmp_path)
    board = count_export(config(tmp_path), [second.root, first.root])
    assert board.totals.counts["grading"] == 1 and board.totals.counts["graded"] == 2


def test_problem_paths_name_their_export_and_no_local_path(tmp_path):
    first, second = two_batches(tmp_path)
    board = count_export(config(tmp_path), [first.root, second.root])
    assert [p.path for p in board.problems] == [f"batch-2/{run_id('broken')[:8]}/result.json"]
    same = ExportDir(tmp_path / "other" / "batch-1")
    same.run(graded(run_id("x")), rid=run_id("x"))
    (same.root / run_id("y")[:8]).mkdir()
    board = count_export(config(tmp_path), [first.root, same.root])
    assert [p.path for p in board.problems] == [f"batch-1-2/{run_id('y')[:8]}/result.json"]
    assert str(tmp_path) not in json.dumps([p.path for p in board.problems])


def test_the_run_page_shows_the_winning_copys_report(tmp_path):
    first, second = two_batches(tmp_path)
    build_site(config(tmp_path), [first.root, second.root])
    files = site_files(tmp_path / "site")
    page = files[f"runs/{SHARED}/index.html"].decode()
    assert "SECOND-COPY-REPORT" in page and "FIRST-COPY-REPORT" not in page
    summary = json.loads(files["api/results/summary.json"])
    assert summary["totals"]["runs"] == 3 and summary["source"]["runs_read"] == 4


def test_several_exports_from_the_command_line_and_from_podium_yaml(tmp_path, monkeypatch):
    first, second = two_batches(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["rank", "--json", str(first.root), str(second.root)])
    assert result.exit_code == 0, result.output
    assert sum(a["runs"] for a in json.loads(result.stdout)) == 3
    (tmp_path / "podium.yaml").write_text("export: [batch-1, batch-2]\n", encoding="utf-8")
    assert load_config(tmp_path / "podium.yaml").export == (tmp_path / "batch-1", tmp_path / "batch-2")
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 1  # the broken directory is a problem
    assert "batch-1, " in result.stderr and "3 runs" in result.stderr
    (tmp_path / "podium.yaml").write_text("export: [batch-1, 7]\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 2 and "export[1]" in result.output
