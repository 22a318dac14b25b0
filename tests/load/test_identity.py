"""One run is counted once: identity from the best id available, and --format html exports.

A run exported twice (a full-id directory and a stale 8-hex copy) is deduplicated
on its full id, whichever copy is broken; the id comes from result.json, else
runs.json, else the report's Overview Run ID, else the one full id the 8-hex name
starts with. ``../shared/xorcise-samples-html`` holds the same eight real runs
exported as Markdown and as HTML: both read to the same summary.json.
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest
from conftest import SAMPLES_HTML, needs_samples
from exportkit import ExportDir, graded, report_md, run_id

from podium.count.summarize import summarize
from podium.load.export import load_export
from podium.render.data import dump_json, summary_data

RID = run_id("twice")
GOOD = graded(RID, det=1.0, judge=0.5)
TRUNCATED = b'{"grade": {"run_id": "' + RID.encode() + b'", "overall": 0.7'


def _copy(export: ExportDir, dirname: str, broken: bool, report: bool) -> None:
    export.run(
        TRUNCATED if broken else GOOD, rid=RID, dirname=dirname, row=True, report=report_md(rid=RID) if report else None
    )


COPIES = list(itertools.product((False, True), (False, True), (False, True), (False, True)))


@pytest.mark.parametrize("full_broken,stale_broken,stale_report,runs_json", COPIES)
def test_a_run_with_a_stale_copy_counts_once(export, full_broken, stale_broken, stale_report, runs_json):
    _copy(export, RID, full_broken, report=True)
    _copy(export, RID[:8], stale_broken, report=stale_report)
    if runs_json:
        export.rows = export.rows[:1]
        export.sidecars()
    board = summarize(load_export(export.root))
    assert board.totals.runs == 1
    assert [r.run_id for r in board.runs] == [RID]
    # the full-id directory wins (xorcise-export.md), broken or not
    assert board.runs[0].directory == RID
    assert board.runs[0].kind == ("unknown" if full_broken else "graded")
    assert any(f"{RID[:8]}/ is a stale copy of run {RID}" in note for note in board.notes)
    assert not any(p.path == RID[:8] and "same run id" in p.message for p in board.problems)


def test_the_issue_reproduction_graded_one_not_graded_plus_unknown(export):
    """Full-id directory valid, stale 8-hex copy truncated, no runs.json: one graded run."""
    _copy(export, RID, broken=False, report=True)
    _copy(export, RID[:8], broken=True, report=True)
    counts = summarize(load_export(export.root)).totals.counts
    assert counts["graded"] == 1 and counts["unknown"] == 0


def test_a_report_run_id_that_contradicts_the_directory_is_not_used(export):
    other = run_id("someone-else")
    export.run(TRUNCATED, rid=RID, dirname=RID[:8], report=report_md(rid=other), row=False)
    export.run(graded(other), rid=other, dirname=other, row=False)
    board = summarize(load_export(export.root))
    # RID[:8] keeps its own identity: two runs, the broken one unknown under its directory name
    assert sorted(r.run_id for r in board.runs) == sorted([other, RID[:8]])
    assert any(p.path == f"{RID[:8]}/report.md" and p.field == "Overview.Run ID" for p in board.problems)


def test_two_unrelated_runs_sharing_a_prefix_are_not_merged(export):
    """An 8-hex name matching two full ids is ambiguous: no guess, both full ids stay."""
    first, second = RID[:8] + "0" * 24, RID[:8] + "1" * 24
    export.run(graded(first), rid=first, dirname=first, row=False)
    export.run(graded(second), rid=second, dirname=second, row=False)
    export.run(TRUNCATED, rid=RID, dirname=RID[:8], row=False)
    board = summarize(load_export(export.root))
    assert sorted(r.run_id for r in board.runs) == [first, second]


# ------------------------------------------------------------------ --format html

pytestmark_html = needs_samples(SAMPLES_HTML)


def _summary(root: Path, tmp: Path, sidecars: bool) -> bytes:
    target = tmp / root.name
    shutil.copytree(root, target)
    if not sidecars:
        (target / "runs.json").unlink()
        (target / "agents.json").unlink()
    return dump_json(summary_data(summarize(load_export(target))))


@pytestmark_html
@pytest.mark.parametrize("sidecars", [True, False])
def test_markdown_and_html_exports_give_the_same_summary(tmp_path, sidecars):
    md = _summary(SAMPLES_HTML / "md", tmp_path / "a", sidecars)
    html = _summary(SAMPLES_HTML / "html", tmp_path / "b", sidecars)
    assert md == html
    assert b'"problems": []' in md


@pytestmark_html
def test_html_export_without_sidecars_reads_identity_from_the_overview(tmp_path):
    target = tmp_path / "html"
    shutil.copytree(SAMPLES_HTML / "html", target)
    (target / "runs.json").unlink()
    (target / "agents.json").unlink()
    board = summarize(load_export(target))
    by_id = {r.run_id[:8]: r for r in board.runs}
    regrade = by_id["3f25c137"]  # result.json says grading; its report shows the earlier grade
    assert regrade.kind == "grading"
    assert (regrade.agent_name, regrade.mission, regrade.version) == ("Søren Recon", "kerberoast-lab", "1.2.0")
    assert regrade.started is not None and regrade.completed is not None
    assert all(r.report_file is None for r in board.runs)  # report.html is never rendered
    assert "f2a542c0" in by_id  # the deploy failure has no report: (unattributed), still counted
    assert by_id["f2a542c0"].agent_name == "(unattributed)"


def test_a_mission_named_page_does_not_take_the_mission_cards_pages():
    """missions/page/<n>/ holds the later pages of mission cards: a mission slugged `page` would collide."""
    from podium import routes

    slugs = routes.mission_slugs({"page": "page", "Page": "Page", "web": "web"})
    assert slugs["web"] == "web" and "page" not in slugs.values()
    assert routes.mission_path(slugs["page"], "1.0.0") != routes.missions_page_path(2).replace("2", "1.0.0")
