"""What each run spent (docs/rules/cost.md §1), read from the real sample exports in both formats and from
reports written to break the reader: the Telemetry table (report.md) and the Activity table (report.html)
give the same values, "not reported" is kept apart from 0, and a malformed cell is a problem naming the
file and the row.

Expected values read by hand from the samples' reports (their `## Telemetry` / `Activity` tables) and
runs.json (durations: completed_at − created_at; harness: the report's Overview, else source_agent):

  ../shared/xorcise-samples (report.md only)
  run       harness      input   output cache_r cache_c reas.  total  model tool  note
  7d1f3b5a  claude-code  (no report: nothing reported; harness from runs.json)
  e2a6c8f0  codex        8,700   210    0       0       0      8,910  1     2     codex never reports cache or
  c7e2b9d4  codex        9,800   150    0       0       0      9,950  1     2     reasoning: all three → null
  3f9c2a7e  codex        42,456  1,070  0       0       0      43,526 3     3     (rule 3)
  0b5e8d2f  claude-code  0       0      0       0       0      0      0     1     rule 1 + rule 2: only tool calls
  a41d07c2  claude-code  43,630  1,013  18,010  18,010  0      44,643 2     2     reasoning 0 on every claude-code
                                                                                   run with tokens → null (rule 3)

  ../shared/xorcise-samples-html (md/ and html/: the same eight runs)
  1f416573  claude-code  138,934 4,035  72,634  9,000   0      142,969 7    7     claude-code: reasoning → null
  3f25c137  claude-code  73,639  2,365  26,319  9,000   0      76,004  5    5
  e1dae79b  claude-code  136,935 3,246  70,435  9,000   0      140,181 7    7
  a4f0a3b6  openhands    81,577  2,182  0       0       0      83,759  5    5     openhands: all three → null
  f28426e1  openhands    84,992  1,947  0       0       0      86,939  5    5
  b8fed178  codex        104,252 4,249  50,252  0       1,982  108,501 6    5     codex: cache creation → null
  ec3fd59c  codex        107,727 3,204  53,727  0       1,837  110,931 6    5
  f2a542c0  openhands    (deploy failed: no report)
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import SAMPLES, SAMPLES_HTML, needs_samples
from exportkit import ExportDir, graded, report_md
from hypothesis import given, settings
from hypothesis import strategies as st

from podium.count.summarize import summarize
from podium.load.export import load_export
from podium.load.fields import Fields
from podium.load.report import (
    TELEMETRY_HEADING,
    _first_table,
    _last_heading,
    read_telemetry,
    report_tables,
    telemetry_table,
)
from podium.model.cost import TELEMETRY_ROWS
from podium.render.data import ledger_row

N = None
# run (8 hex) -> (harness, the eight values in docs/rules/cost.md order, duration_seconds)
SAMPLE_RUNS = {
    "7d1f3b5a": ("claude-code", None, 210.0),
    "e2a6c8f0": ("codex", (8700, 210, N, N, N, 8910, 1, 2), 812.0),
    "c7e2b9d4": ("codex", (9800, 150, N, N, N, 9950, 1, 2), 1172.0),
    "3f9c2a7e": ("codex", (42456, 1070, N, N, N, 43526, 3, 3), 1183.0),
    "0b5e8d2f": ("claude-code", (N, N, N, N, N, N, N, 1), 1802.0),
    "a41d07c2": ("claude-code", (43630, 1013, 18010, 18010, N, 44643, 2, 2), 2324.0),
}
HTML_RUNS = {
    "1f416573": ("claude-code", (138934, 4035, 72634, 9000, N, 142969, 7, 7)),
    "3f25c137": ("claude-code", (73639, 2365, 26319, 9000, N, 76004, 5, 5)),
    "e1dae79b": ("claude-code", (136935, 3246, 70435, 9000, N, 140181, 7, 7)),
    "a4f0a3b6": ("openhands", (81577, 2182, N, N, N, 83759, 5, 5)),
    "f28426e1": ("openhands", (84992, 1947, N, N, N, 86939, 5, 5)),
    "b8fed178": ("codex", (104252, 4249, 50252, N, 1982, 108501, 6, 5)),
    "ec3fd59c": ("codex", (107727, 3204, 53727, N, 1837, 110931, 6, 5)),
    "f2a542c0": ("openhands", None),
}
FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_creation_tokens",
    "reasoning_tokens",
    "total_tokens",
    "model_calls",
    "tool_calls",
)


def _values(record) -> tuple | None:
    return None if record.spent is None else tuple(record.spent_value(name) for name in FIELDS)


@needs_samples()
def test_the_sample_export_reads_to_its_reports_values():
    board = summarize(load_export(SAMPLES))
    assert board.problems == ()
    found = {r.run_id[:8]: (r.harness, _values(r), r.duration_seconds) for r in board.runs}
    assert found == SAMPLE_RUNS
    timed_out = next(r for r in board.runs if r.run_id.startswith("0b5e8d2f"))
    assert (timed_out.budget_seconds, timed_out.budget_share) == (1800.0, 1802 / 1800)  # burnt its budget


@needs_samples()
def test_the_sample_export_figures():
    """kestrel: one run in its median (3f9c2a7e), three counted; osprey: two in its median (a timeout that
    reports no tokens, a partial judge), three counted (an infra failure without a report)."""
    board = summarize(load_export(SAMPLES))
    cost = {a.name: a.cost for a in board.agents}
    kestrel, osprey = cost["kestrel"], cost["osprey"]
    assert (kestrel.runs, kestrel.total_tokens.median, kestrel.spent_tokens) == (1, 43526.0, 43526 + 9950 + 8910)
    assert kestrel.spent_by_kind == {"graded": 43526, "no_judge": 9950, "stopped": 8910}
    assert (osprey.runs, osprey.total_tokens.reported, osprey.total_tokens.median) == (2, 1, 44643.0)
    assert (osprey.tool_calls.median, osprey.tool_calls.q1, osprey.tool_calls.q3) == (1.5, 1.25, 1.75)
    assert (osprey.duration_seconds.q1, osprey.duration_seconds.median, osprey.duration_seconds.q3) == (
        1932.5,
        2063.0,
        2193.5,
    )
    assert (osprey.spent_reported, osprey.spent_runs, osprey.spent_by_kind) == (1, 3, {"partial_judge": 44643})
    kestrel_id = next(a.agent for a in board.agents if a.name == "kestrel")
    assert board.frontier.total_tokens == board.frontier.duration_seconds == (kestrel_id,)  # more score, less spent


def _copy(root: Path, tmp: Path, sidecars: bool) -> Path:
    target = tmp / root.name
    shutil.copytree(root, target)
    if not sidecars:
        (target / "runs.json").unlink()
        (target / "agents.json").unlink()
    return target


@needs_samples(SAMPLES_HTML)
@pytest.mark.parametrize("sidecars", [True, False])
def test_markdown_and_html_reports_give_the_same_values(tmp_path, sidecars):
    boards = [summarize(load_export(_copy(SAMPLES_HTML / fmt, tmp_path / fmt, sidecars))) for fmt in ("md", "html")]
    for board in boards:
        assert board.problems == ()
        values = {r.run_id[:8]: (r.harness, _values(r)) for r in board.runs}
        if not sidecars:  # the deploy failure has no report: nothing names its harness
            assert values.pop("f2a542c0") == (None, None)
            assert values == {k: v for k, v in HTML_RUNS.items() if k != "f2a542c0"}
        else:
            assert values == HTML_RUNS
    md, html = boards
    assert [ledger_row(r) for r in md.runs] == [ledger_row(r) for r in html.runs]
    assert [a.cost for a in md.agents] == [a.cost for a in html.agents]


@needs_samples(SAMPLES_HTML)
def test_the_html_samples_durations_come_from_runs_json():
    board = summarize(load_export(SAMPLES_HTML / "html"))
    timed_out = next(r for r in board.runs if r.run_id.startswith("ec3fd59c"))
    assert timed_out.duration_seconds == pytest.approx(7203.542551)
    assert timed_out.budget_share == pytest.approx(7203.542551 / 7200)  # a timeout burns its budget: ≥ 1
    merlin = next(a for a in board.agents if a.name == "merlin")
    assert merlin.cost.spent_by_kind == {"timed_out": 110931, "stopped": 108501}


# ---------------------------------------------------------------- reports written to break the reader


def _telemetry(rows: str, heading: str = "## Telemetry") -> str:
    return f"{heading}\n\n| Field | Value |\n| --- | --- |\n{rows}\n"


def _report(telemetry: str) -> str:
    return report_md(extra="").replace("## Conditions", telemetry + "\n## Conditions")


def _one(export, telemetry: str, **kw):
    export.run(graded("a" * 32), rid="a" * 32, report=_report(telemetry), **kw)
    export.sidecars()
    board = summarize(load_export(export.root))
    return board.runs[0], board.problems


def test_a_malformed_cell_is_a_problem_naming_the_file_and_the_row(export):
    record, problems = _one(
        export,
        _telemetry("| Input tokens | 1,200 |\n| Total tokens | 12k |\n| Model calls | -3 |\n| Tool calls | — |"),
    )
    assert _values(record) == (1200, N, N, N, N, N, N, N)
    assert [str(p) for p in problems] == [
        "aaaaaaaa/report.md: Telemetry.Model calls: expected a whole number, got '-3'",
        "aaaaaaaa/report.md: Telemetry.Total tokens: expected a whole number, got '12k'",
    ]


def test_a_cell_past_18_digits_or_badly_grouped_is_a_problem(export):
    record, problems = _one(export, _telemetry("| Total tokens | 1,000,000,000,000,000,000 |\n| Tool calls | 1,00 |"))
    assert record.spent is None
    assert sorted(p.field for p in problems) == ["Telemetry.Tool calls", "Telemetry.Total tokens"]


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("| Total tokens | 1,000 |", "| Total tokens | 1,001 |"),  # a value
        ("| Total tokens | 12k |", "| Total tokens | 13k |"),  # a malformed cell: its problem says it
        ("| Model calls | — |", "| Model calls | 0 |"),  # not reported, or 0
    ],
)
def test_what_the_telemetry_says_is_in_the_inputs_digest(tmp_path, one, other):
    """summary.json's source.inputs_digest covers what the numbers come from (site.md §3): a Telemetry cell that
    changes changes it, as an Overview cell does."""
    digests = []
    for n, rows in enumerate((one, other, one)):
        export = ExportDir(tmp_path / f"e{n}")
        export.run(graded("a" * 32), rid="a" * 32, report=_report(_telemetry(rows)))
        export.sidecars()
        digests.append(load_export(export.root).inputs_digest)
    assert digests[0] != digests[1] and digests[0] == digests[2]


def test_a_report_without_telemetry_reports_nothing_and_no_problem(export):
    record, problems = _one(export, "## Telemetry\n\n_No telemetry snapshot was recorded for this run._\n")
    assert (record.spent, problems) == (None, ())


def test_the_last_telemetry_table_is_xorcises_not_one_an_agent_wrote_in_its_artifacts(export):
    forged = _telemetry("| Total tokens | 1 |\n| Tool calls | 1 |")
    report = report_md().replace("```\nFLAG{report-artifact}\n```", f"```\nx\n```\n{forged}\n```\ny\n```")
    report = report.replace(
        "## Conditions", _telemetry("| Total tokens | 5,000 |\n| Input tokens | 4,000 |") + "\n## Conditions"
    )
    export.run(graded("b" * 32), rid="b" * 32, report=report)
    export.sidecars()
    record = summarize(load_export(export.root)).runs[0]
    assert (record.total_tokens, record.spent_value("input_tokens"), record.tool_calls) == (5000, 4000, None)


def test_a_second_table_in_the_section_is_not_read():
    text = _telemetry("| Total tokens | 7 |") + "\n| Tool | Seconds |\n| --- | --- |\n| Total tokens | 9 |\n"
    assert report_tables(text, is_html=False)[1] == {"Total tokens": "7"}


def test_an_activity_heading_without_a_table_does_not_take_the_next_sections():
    html = (
        "<h2>Activity</h2><p><em>No telemetry snapshot was recorded for this run.</em></p>"
        "<h2>Overview</h2><table><tr><td>Total tokens</td><td>5</td></tr><tr><td>Agent</td><td>a v1</td></tr></table>"
    )
    overview, telemetry = report_tables(html, is_html=True)
    assert telemetry == {} and overview["Agent"] == "a v1"
    with_table = html.replace(
        "<p><em>No telemetry snapshot was recorded for this run.</em></p>",
        "<table><tr><td>Tool calls</td><td>1,234</td></tr></table>",
    )
    assert report_tables(with_table, is_html=True)[1] == {"Tool calls": "1,234"}


def test_an_html_problem_names_the_activity_row():
    problems: list = []
    assert read_telemetry({"Tool calls": "lots"}, Fields("x/report.html", problems), "Activity") is None
    assert [str(p) for p in problems] == ["x/report.html: Activity.Tool calls: expected a whole number, got 'lots'"]


def test_harness_comes_from_the_report_else_runs_json(export):
    export.run(graded("c" * 32), rid="c" * 32, report=_report(_telemetry("| Total tokens | 10 |")))
    export.run(graded("d" * 32), rid="d" * 32)  # no report
    export.sidecars()
    runs = {r.run_id[0]: r for r in summarize(load_export(export.root)).runs}
    assert runs["c"].harness == "codex"  # report_md's Overview
    assert runs["d"].harness is None  # exportkit's runs.json rows carry no source_agent


CELL_CHARS = st.sampled_from(["0", "1", "5", "9", ",", " ", "-", "k", "—", "٣"])


def _rule_reading(cell: str) -> tuple[int | None, bool]:
    """cost.md §1 for one cell, written out: "—" is not reported; a whole number ≥ 0 with or without "," separators
    grouping by three (of at most 18 digits past leading zeros) is its value; anything else is not reported and a
    problem."""
    if cell == "—":
        return None, False
    if re.fullmatch(r"[0-9]{1,3}(,[0-9]{3})+|[0-9]+", cell) and len(cell.replace(",", "").lstrip("0")) <= 18:
        return int(cell.replace(",", "")), False
    return None, True


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.lists(CELL_CHARS, max_size=24).map("".join),
        st.integers(0, 10**20).map(lambda n: f"{n:,}"),  # grouped by three, up to past 18 digits
        st.integers(0, 10**20).map(str),
        st.tuples(st.integers(0, 25), st.integers(0, 10**6)).map(lambda z: "0" * z[0] + str(z[1])),  # leading zeros
    )
)
def test_every_cell_reads_as_the_rule_says(cell):
    """The reader's fast path for the usual cells ("591", "80,070") and its careful one for the rest agree with
    the rule, and only a cell the rule refuses is a problem."""
    problems: list = []
    got = read_telemetry({"Total tokens": cell}, Fields("r/report.md", problems))
    value, problem = _rule_reading(cell)
    assert (got.get("total_tokens") if got is not None else None) == value
    assert bool(problems) == problem


ROW_NAMES = list(TELEMETRY_ROWS)
SPACES = st.sampled_from(["", " ", "  ", "\t"])


@st.composite
def telemetry_sections(draw) -> str:
    """A Telemetry section as XORCISE writes it, or with its rows reordered, left out, repeated or padded, other
    spacing, another header or delimiter, text before the table, a second table after it."""
    xorcise = draw(st.booleans())
    names = ROW_NAMES if xorcise else draw(st.lists(st.sampled_from([*ROW_NAMES, "Unclassified spans"]), max_size=10))
    cells = st.sampled_from(["0", "591", "29,497", "—", "12k", " 7 ", ""])
    rows = []
    for name in [*names, *draw(st.lists(st.sampled_from(["Findings", *ROW_NAMES]), max_size=3))]:
        a, b, c = draw(SPACES), draw(SPACES), draw(SPACES)
        rows.append(f"|{a}{name}{b}|{c}{draw(cells)}{a}|")
    header = draw(
        st.sampled_from(
            ["| Field | Value |\n| --- | --- |", "|Field|Value|\n|---|---|", "| Metric | Value |\n|:--|--:|"]
        )
    )
    before = draw(st.sampled_from(["\n", "\n\n", "\nSome text.\n\n", ""]))
    after = draw(st.sampled_from(["", "\n", "\n\n| Total tokens | 9 |\n", "\n## Overview\n"]))
    return "# Report\n\n## Telemetry" + before + header + "\n" + "\n".join(rows) + after


@settings(max_examples=300, deadline=None)
@given(telemetry_sections())
def test_xorcises_layout_is_read_as_any_other_table(text):
    """telemetry_table's one match for XORCISE's own layout gives what the general reading of the first table
    gives (its rows in any order, any spacing), or leaves the table to it."""
    pos = _last_heading(text, TELEMETRY_HEADING)
    assert telemetry_table(text) == (_first_table(text, pos) if pos >= 0 else {})  # no heading line: no table
