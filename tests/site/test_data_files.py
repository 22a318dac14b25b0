"""The published data files (site.md): summary.json, the ledger as JSON and CSV, determinism.

One small export with every kind of run is built once; its files are checked
against the shipped schema, against strict JSON, against each other (H8) and
against figures recomputed by hand from the result.json bodies written here (H9).
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import math
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from exportkit import ExportDir, agent_id, crash_fallback, env_failure, graded, grading, run_id
from sitekit import ledger_csv, ledger_rows, read_site_file, whole_summary

from podium.build import build_site
from podium.config import load_config
from podium.count.summarize import summarize
from podium.load import published
from podium.model import Export, Figures, Run
from podium.render import data

MAIN = Path(__file__).resolve().parents[2]
SUMMARY = "api/results/summary.json"
SCHEMA = "api/results/summary.schema.json"
RUNS_JSON = "api/results/runs.json"
MEDIAN_KINDS = {"graded", "partial_judge", "timed_out"}
SCORE_COLUMNS = ("overall", "overall_upper", "deterministic", "judge", "judge_upper")
FORMULA_NAMES = ['=HYPERLINK("http://x","y")', "+1", "-2+3", "@SUM(A1)"]
QUOTED_NAME = 'comma, "quoted" name'


def _score(x: float, **kw) -> dict:
    """A graded body whose overall is exactly ``x`` (det = judge = x)."""
    return dict(det=x, judge=x, **kw)


# Every run of the fixture export: (agent, body builder kwargs or a ready body, extra ExportDir.run kwargs).
# Times: one hour apart in this order, so the ledger lists them in reverse.
SPECS = [
    ("osprey", _score(0.9), {}),
    ("osprey", _score(0.7), {}),
    ("osprey", _score(0.5), {}),
    ("osprey", _score(0.6, judge_status="partial", overall_upper=0.8, judge_upper=1.0), {}),
    ("osprey", _score(0.3, partial_trigger="timeout"), {}),
    ("osprey", dict(det=1.0, judge=0.0, judge_status="model-not-configured", judge_model=None), {}),
    ("osprey", _score(0.2, partial_trigger="operator"), {}),
    ("osprey", _score(0.1, mission_version="0.9.0"), {"version": "0.9.0"}),  # older version
    ("kestrel", _score(0.25), {}),
    ("kestrel", _score(0.75, model="=cmd|' /C calc'!A0"), {}),
    ("kestrel", "env_failure", {}),
    ("kestrel", "grading", {}),
    ("kestrel", "crash_fallback", {}),
    ("kestrel", dict(overall="high", overall_upper=None), {}),  # unknown
    ("kestrel", "cancelled", {"trigger": "cancelled"}),  # not a run
] + [(name, _score(0.7), {}) for name in FORMULA_NAMES + [QUOTED_NAME]]

EXPECTED_KINDS = {
    0: "graded",
    1: "graded",
    2: "graded",
    3: "partial_judge",
    4: "timed_out",
    5: "no_judge",
    6: "stopped",
    7: "graded",
    8: "graded",
    9: "graded",
    10: "infra_failed",
    11: "grading",
    12: "grading_failed",
    13: "unknown",
    14: "not_a_run",
    **{15 + i: "graded" for i in range(5)},
}


def _body(n: int, spec) -> dict:
    rid = run_id(n)
    if spec == "env_failure":
        return env_failure(rid)
    if spec == "grading":
        return grading(rid)
    if spec == "crash_fallback":
        return crash_fallback(rid)
    if spec == "cancelled":
        return env_failure(rid, trigger="cancelled")
    return graded(rid, **spec)


def write_export(root: Path, order=None) -> ExportDir:
    """The fixture export under ``root``, its run directories created in ``order`` (indexes)."""
    export = ExportDir(root)
    for n in order if order is not None else range(len(SPECS)):
        agent, spec, extra = SPECS[n]
        export.run(_body(n, spec), rid=run_id(n), agent=agent, at=60 * n, **extra)
    export.rows.sort(key=lambda row: row["run_id"])  # sidecar bytes independent of the order
    return export.sidecars()


def build(export: Path, out: Path, config_dir: Path):
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "podium.yaml").write_text("title: Test results\n")
    return build_site(load_config(config_dir / "podium.yaml", {"out": out}), export)


def _strict(name):
    raise ValueError(f"non-standard JSON constant {name}")


def _sorted_pairs(pairs):
    keys = [k for k, _ in pairs]
    assert keys == sorted(keys), f"keys not sorted: {keys}"
    assert len(set(keys)) == len(keys), f"duplicate keys: {keys}"
    return dict(pairs)


def _unique_pairs(pairs):
    keys = [k for k, _ in pairs]
    assert len(set(keys)) == len(keys), f"duplicate keys: {keys}"
    return dict(pairs)


def strict_json(raw: bytes):
    """Parse like a strict consumer: UTF-8, no NaN/Infinity, sorted unique keys, one trailing newline."""
    assert raw.endswith(b"\n") and not raw.endswith(b"\n\n")
    return json.loads(raw.decode("utf-8"), parse_constant=_strict, object_pairs_hook=_sorted_pairs)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> dict[str, bytes]:
    root = tmp_path_factory.mktemp("data")
    write_export(root / "export")
    built = build(root / "export", root / "site", root / "project")
    assert built.target == (root / "site").resolve()
    return {str(p.relative_to(built.target)): read_site_file(p) for p in built.target.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def index(site):
    return strict_json(site[SUMMARY])


@pytest.fixture(scope="module")
def summary(site):
    """The whole summary: summary.json with its parts merged back (podium.summary/1's shape)."""
    return whole_summary(site)


def _as(schema: dict, kind: str) -> dict:
    """summary.schema.json as the schema of one kind of its files (a $defs entry): a file of another kind, or a
    broken one, fails it with its own errors, not one "not valid under any of the given schemas"."""
    return {**{k: v for k, v in schema.items() if k != "oneOf"}, **schema["$defs"][kind]}


def _summary_files(site, index) -> list[str]:
    """summary.json and every part it links, by site path."""
    return [SUMMARY, *(e["part"] for scope in ("agents", "agents_older", "missions") for e in index[scope])]


@pytest.fixture(scope="module")
def ledger(site):
    return ledger_rows(site)  # runs.json's parts put together (sitekit)


@pytest.fixture(scope="module")
def csv_rows(site, ledger):
    """Every CSV part, in the ledger's order."""
    text = ledger_csv(site)
    rows = list(csv.reader(io.StringIO(text, newline="")))
    order = {row["run_id"]: i for i, row in enumerate(ledger)}
    return rows[0], sorted((dict(zip(rows[0], row, strict=True)) for row in rows[1:]), key=lambda r: order[r["run_id"]])


# ------------------------------------------------------------------ summary.json


def test_summary_and_its_parts_validate_against_the_shipped_schema(site, index):
    schema = json.loads(site[SCHEMA])
    assert site[SCHEMA] == (MAIN / "generator" / "podium" / "summary.schema.json").read_bytes()
    jsonschema.Draft202012Validator.check_schema(schema)
    files = _summary_files(site, index)
    parts = sorted(p for p in site if p.startswith("api/results/summary/"))
    assert sorted(set(files[1:])) == parts  # every part is linked, every link is a part
    for path in set(files):
        jsonschema.Draft202012Validator(schema).validate(strict_json(site[path]))
    for path, kind in [(SUMMARY, "Index"), *((p, "MissionPart" if "/missions/" in p else "AgentPart") for p in parts)]:
        jsonschema.Draft202012Validator(_as(schema, kind)).validate(strict_json(site[path]))


def test_each_schema_name_is_said_once_in_code_and_matches_its_shipped_schema():
    """load/published.py names every published format; the shipped JSON Schemas say the same names."""
    shipped = MAIN / "generator" / "podium"
    summary_schema = json.loads((shipped / "summary.schema.json").read_bytes())
    compare_schema = json.loads((shipped / "compare.schema.json").read_bytes())
    runs_schema = json.loads((shipped / "runs.schema.json").read_bytes())
    summary_defs = summary_schema["$defs"]
    assert summary_schema["$id"] == summary_defs["Index"]["properties"]["schema"]["const"] == published.SUMMARY_SCHEMA
    assert summary_defs["AgentPart"]["properties"]["schema"]["const"] == published.SUMMARY_AGENT_SCHEMA
    assert summary_defs["MissionPart"]["properties"]["schema"]["const"] == published.SUMMARY_MISSION_SCHEMA
    assert (
        compare_schema["$id"]
        == compare_schema["$defs"]["Index"]["properties"]["schema"]["const"]
        == published.COMPARE_SCHEMA
    )
    assert compare_schema["$defs"]["AgentPart"]["properties"]["schema"]["const"] == published.COMPARE_AGENT_SCHEMA
    assert compare_schema["$defs"]["PairFile"]["properties"]["schema"]["const"] == published.COMPARE_PAIR_SCHEMA
    assert runs_schema["$defs"]["index"]["properties"]["schema"]["const"] == published.RUNS_SCHEMA
    assert runs_schema["$id"].endswith("runs-" + published.RUNS_SCHEMA.rpartition("/")[2] + ".json")
    code = "".join(path.read_text() for path in shipped.rglob("*.py") if path.name != "published.py")
    for name in (
        published.SUMMARY_SCHEMA,
        published.SUMMARY_AGENT_SCHEMA,
        published.SUMMARY_MISSION_SCHEMA,
        published.SUMMARY_WHOLE_SCHEMA,
        published.COMPARE_SCHEMA,
        published.COMPARE_AGENT_SCHEMA,
        published.COMPARE_PAIR_SCHEMA,
        published.RUNS_SCHEMA,
        published.REPORT_SCHEMA,
        published.CHANGES_SCHEMA,
        published.REDIRECTS_SCHEMA,
    ):
        assert f'"{name}"' not in code, name


def test_the_schema_defines_the_figures_once():
    """summary.schema.json: every figure in $defs.Figures, which each object holding figures references."""
    schema = json.loads((MAIN / "generator" / "podium" / "summary.schema.json").read_bytes())
    figures = schema["$defs"]["Figures"]
    assert set(figures["properties"]) == {f.name for f in dataclasses.fields(Figures)}
    optional = {"judge_models_more", "models_reported_more", "models_declared_more"}  # only when a list is cut
    assert set(figures["required"]) == set(figures["properties"]) - optional
    for name in ("AgentMission", "MissionEntry", "ModelSummary"):
        holder = schema["$defs"][name]
        assert holder["$ref"] == "#/$defs/Figures" and not set(holder["properties"]) & set(figures["properties"])
    # an agent's index entry and its part split the figures: each refers to Figures' own, none is said again
    entry, detail = schema["$defs"]["AgentEntry"]["properties"], schema["$defs"]["AgentDetail"]["properties"]
    for name in figures["properties"]:
        (holder,) = [h for h in (entry, detail) if name in h]
        assert holder[name] == {"$ref": f"#/$defs/Figures/properties/{name}"}, name
    assert schema["$defs"]["Index"]["properties"]["totals"]["properties"]["counts"] == figures["properties"]["counts"]


def test_schema_rejects_a_broken_summary(site, index):
    validator = jsonschema.Draft202012Validator(_as(json.loads(site[SCHEMA]), "Index"))
    broken = json.loads(json.dumps(index))
    broken["agents"][0]["median"] = 1.5
    broken["totals"]["counts"]["bogus"] = 1
    assert len(list(validator.iter_errors(broken))) == 2


def test_summary_top_level(summary, index):
    assert index["schema"] == "podium.summary/2" and summary["schema"] == "podium.summary/1"
    assert summary["generator"]["name"] == "podium"
    assert summary["source"]["runs_read"] == len(SPECS)
    totals = dict(summary["totals"])
    assert totals.pop("last_run") == max(a["last_run"] for a in summary["agents"] + summary["agents_older"])
    assert totals == {
        "runs": len(SPECS) - 1,
        "not_a_run": 1,
        "counts": {
            "graded": 11,
            "partial_judge": 1,
            "timed_out": 1,
            "no_judge": 1,
            "stopped": 1,
            "infra_failed": 1,
            "grading_failed": 1,
            "grading": 1,
            "unknown": 1,
        },
    }
    assert "generated_at" not in summary  # no clock without SOURCE_DATE_EPOCH
    assert summary["problems"] == [
        {"path": f"{run_id(13)[:8]}/result.json", "field": "grade.overall", "message": "expected a number, got 'high'"}
    ]


def test_summary_figures_recomputed_by_hand(summary):
    """H9: the figures from the overall values written into the result.json bodies above."""
    agents = {a["name"]: a for a in summary["agents"]}
    osprey = agents["osprey"]
    # current: graded 0.9 0.7 0.5, partial judge 0.6 (upper 0.8), timed out 0.3; no judge and stopped left out
    assert (osprey["median"], osprey["median_upper"], osprey["best_overall"]) == (0.6, 0.7, 0.9)
    assert osprey["avg_overall"] == math.fsum([0.9, 0.7, 0.5, 0.6, 0.3]) / 5
    assert (osprey["runs"], osprey["in_median"], osprey["judge_degraded"]) == (7, 5, 1)
    assert osprey["median_ci"] is None  # n < 6
    # computed figures are published to 12 significant digits (issue 36 item 8)
    assert osprey["completion_rate"] == round(5 / 7, 12) and osprey["partial_rate"] == round(2 / 7, 12)
    assert osprey["rank"] == 6  # below the five agents at 0.7
    (older,) = summary["agents_older"]
    assert (older["name"], older["scope"], older["median"], older["runs"]) == ("osprey", "older", 0.1, 1)
    kestrel = agents["kestrel"]
    # graded 0.25 and 0.75; infra failed, grading, grading failed, unknown left out
    assert (kestrel["median"], kestrel["in_median"], kestrel["runs"]) == (0.5, 2, 6)
    assert kestrel["completion_rate"] == 3 / 3  # attempts = 6 - infra_failed - grading - unknown
    assert kestrel["rank"] == 7
    for name in FORMULA_NAMES + [QUOTED_NAME]:
        assert (agents[name]["median"], agents[name]["runs"]) == (0.7, 1)


def test_summary_ranking_order(summary):
    """Ties at 0.7 are broken by the case-folded name (counting.md §5)."""
    ranked = [a["name"] for a in summary["agents"]]
    assert ranked == ["+1", "-2+3", '=HYPERLINK("http://x","y")', "@SUM(A1)", QUOTED_NAME, "osprey", "kestrel"]
    assert [a["rank"] for a in summary["agents"]] == list(range(1, 8))


def test_summary_is_deterministic_json(site, index):
    for path in _summary_files(site, index):  # canonical: re-dumping gives the same bytes
        assert site[path] == data.dump_json(strict_json(site[path])), path


# ------------------------------------------------------------------ the ledger as JSON


def test_ledger_has_one_row_per_run_newest_first(ledger):
    assert [row["run_id"] for row in ledger] == [run_id(n) for n in reversed(range(len(SPECS)))]
    dates = [row["date"] for row in ledger]
    assert dates == sorted(dates, reverse=True)
    assert ledger[-1]["date"] == "2026-10-01T09:20:00Z"  # completed 20 minutes after BASE
    assert [row["kind"] for row in reversed(ledger)] == [EXPECTED_KINDS[n] for n in range(len(SPECS))]


def test_ledger_json_rows_are_strict_and_one_per_line(site):
    """JSON Lines: one compact object a line, one line a run, every column in the index's order."""
    index = strict_json(site[RUNS_JSON])
    for part in index["parts"]:
        lines = site[part["jsonl_gz"]].decode("utf-8").split("\n")
        assert lines[-1] == "" and len(lines) - 1 == part["runs"]
        for line in lines[:-1]:
            row = json.loads(line, object_pairs_hook=_unique_pairs, parse_constant=_strict)
            assert list(row) == index["columns"] and '", "' not in line and '": ' not in line


def test_ledger_rows_have_every_column(ledger):
    for row in ledger:
        assert set(row) == set(data.LEDGER_COLUMNS)


def test_ledger_index_and_parts_validate_against_the_shipped_schema(site):
    schema = json.loads(site["api/results/runs.schema.json"])
    index = strict_json(site[RUNS_JSON])
    jsonschema.validate(index, schema)
    for part in index["parts"]:
        for line in site[part["jsonl_gz"]].decode("utf-8").splitlines():
            jsonschema.validate(json.loads(line), schema)


def test_ledger_ungraded_kinds_have_null_scores(ledger):
    by_kind = {row["kind"]: row for row in ledger}
    for kind in ("infra_failed", "grading", "grading_failed", "unknown", "not_a_run"):
        row = by_kind[kind]
        assert {c: row[c] for c in SCORE_COLUMNS} == dict.fromkeys(SCORE_COLUMNS), kind


def test_ledger_no_judge_run(ledger):
    (row,) = [row for row in ledger if row["kind"] == "no_judge"]
    assert (row["overall"], row["deterministic"], row["judge"], row["judge_status"]) == (
        0.5,
        1.0,
        None,
        "model-not-configured",
    )
    assert row["status"] == "Completed"


def test_ledger_partial_judge_and_older(ledger):
    rows = {row["run_id"]: row for row in ledger}
    partial = rows[run_id(3)]
    assert (partial["overall"], partial["overall_upper"], partial["judge"], partial["judge_upper"]) == (
        0.6,
        0.8,
        0.6,
        1.0,
    )
    older = rows[run_id(7)]
    assert (older["version"], older["older"], older["overall"]) == ("0.9.0", True, 0.1)
    assert rows[run_id(0)]["older"] is False
    assert rows[run_id(14)]["status"] == "Cancelled"
    assert rows[run_id(0)]["url"] == f"runs/{run_id(0)}/index.html"
    assert rows[run_id(0)]["agent"] == agent_id("osprey")


# ------------------------------------------------------------------ the ledger as CSV


def test_csv_header_and_row_count(site, csv_rows):
    header, rows = csv_rows
    assert tuple(header) == data.LEDGER_COLUMNS
    assert len(rows) == len(SPECS)
    for part in strict_json(site[RUNS_JSON])["parts"]:
        assert site[part["csv"]].endswith(b"\r\n")
        assert not site[part["csv"]].startswith(b"\xef\xbb\xbf")


def test_csv_matches_the_ledger_json(ledger, csv_rows):
    """H8: same runs, same order, same numbers; an empty cell where JSON has null (site.md)."""
    _, rows = csv_rows
    assert [r["run_id"] for r in rows] == [r["run_id"] for r in ledger]
    for row, cells in zip(ledger, rows):
        for column in data.LEDGER_COLUMNS:
            if row[column] is None:
                assert cells[column] == "", (row["kind"], column)
        for column in SCORE_COLUMNS:
            value, cell = row[column], cells[column]
            if value is not None:
                assert float(cell) == value and cell == repr(value)
        if row["kind"] == "no_judge":  # judge_status says why the judge cell is empty
            assert cells["judge"] == "" and cells["judge_status"] == "model-not-configured"
        assert cells["older"] == ("true" if row["older"] else "false")
        assert cells["date"] == row["date"]
        assert cells["kind"] == row["kind"] and cells["status"] == row["status"]


def test_csv_score_columns_read_as_numbers(site):
    """Issue 17.4: read with the standard csv module, every non-empty cell of every score column is a
    float, and no cell anywhere is "—" or "No judge" (pandas and DuckDB then type the columns as numbers)."""
    reader = csv.DictReader(io.StringIO(ledger_csv(site), newline=""))
    rows = list(reader)
    seen = dict.fromkeys(SCORE_COLUMNS, 0)
    empty = dict.fromkeys(SCORE_COLUMNS, 0)
    for row in rows:
        for column in SCORE_COLUMNS:
            cell = row[column]
            if cell == "":
                empty[column] += 1
                continue
            value = float(cell)  # raises on "—", "No judge", "43.8%"
            assert math.isfinite(value) and 0.0 <= value <= 1.0, (column, cell)
            seen[column] += 1
        assert "—" not in row.values() and "No judge" not in row.values(), row
    assert all(seen.values()), seen  # every score column has numbers in this export …
    assert all(empty.values()), empty  # … and runs without one (no judge, env failure, no upper bound)
    # what a typed reader infers: a column whose every non-empty cell is a number is numeric
    for column in SCORE_COLUMNS:
        cells = [r[column] for r in rows if r[column] != ""]
        assert all(_is_number(c) for c in cells), column


def _is_number(cell: str) -> bool:
    try:
        return math.isfinite(float(cell))
    except ValueError:
        return False


def test_csv_neutralises_formulas(csv_rows):
    _, rows = csv_rows
    by_name = {}
    for r in rows:
        by_name.setdefault(r["agent_name"], r)
    for name in FORMULA_NAMES:
        assert "'" + name in by_name, name
        row = by_name["'" + name]
        assert (row["overall"], row["deterministic"], row["judge"]) == ("0.7", "0.7", "0.7")
    row = [r for r in rows if r["run_id"] == run_id(9)][0]
    assert row["model_declared"] == "'=cmd|' /C calc'!A0"
    for r in rows:
        for column, cell in r.items():
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (column, cell)


def test_csv_quotes_delimiters(csv_rows):
    _, rows = csv_rows
    assert QUOTED_NAME in {r["agent_name"] for r in rows}


def test_csv_cell_neutralises_every_formula_start():
    for text in ["=1+1", "+1", "-2+3", "@SUM(A1)", "\tcmd", "\r=1"]:
        assert data.csv_cell(text) == "'" + text
    assert data.csv_cell("plain") == "plain"
    assert data.csv_cell(-0.5) == "-0.5"  # numbers are never touched
    assert data.csv_cell(None) == ""  # no value: an empty cell, never "—"
    assert (data.csv_cell(True), data.csv_cell(["a", "b"])) == ("true", "a b")


SEMICOLON_NAMES = ["x;=1+1", "a; +SUM(A1)", 'q;"=HYPERLINK(1)"', "t;\t=cmd", "=a;@b;-c", "fine; ok"]


def test_csv_cell_neutralises_a_formula_after_a_semicolon():
    """Issue 29 item 10: a spreadsheet that splits on ";" starts a cell after each one."""
    assert data.csv_cell("x;=1+1") == "x;'=1+1"
    assert data.csv_cell("a; +SUM(A1)") == "a;' +SUM(A1)"  # past spaces…
    assert data.csv_cell('q;"=HYPERLINK(1)"') == 'q;\'"=HYPERLINK(1)"'  # …and quotes
    assert data.csv_cell("=a;@b;-c") == "'=a;'@b;'-c"  # each one, and the cell's own start
    assert data.csv_cell("fine; ok") == "fine; ok"
    assert data.csv_line(["x;'=1+1", "plain"]) == '"x;\'=1+1",plain\r\n'  # and the cell is quoted


def test_csv_split_on_semicolons_starts_no_formula():
    """The whole CSV read as a ";"-separated file: no cell starts a formula, and read as CSV each name
    comes back with only the "'"s added."""
    board = _board_with(SEMICOLON_NAMES)
    text = _all_csv(board)
    for line in text.split("\r\n"):
        for cell in line.split(";")[1:]:
            assert not cell.lstrip(' \t"').startswith(("=", "+", "-", "@")), (line, cell)
            assert not cell.startswith(("\t", "\r")), (line, cell)
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert sorted(r["agent_name"].replace(";'", ";").removeprefix("'") for r in rows) == sorted(SEMICOLON_NAMES)
    for line in text.split("\r\n")[1:-1]:
        assert line.count('"') >= 2  # every row's names hold a ";": quoted


def _board_with(names: list[str]):
    runs = tuple(
        Run(
            run_id=run_id(n),
            directory=run_id(n)[:8],
            shape="grading",
            agent=f"a{n}",
            agent_name=name,
            mission=name,
            version="1.0.0",
        )
        for n, name in enumerate(names)
    )
    return summarize(Export(runs=runs, problems=(), runs_read=len(runs), inputs_digest="sha256:0"))


def _all_csv(board) -> str:
    """Every CSV part of a board's ledger, one header."""
    texts = [data.part_csv(board, i).decode("utf-8") for i in range(len(board.ledger.parts))]
    return texts[0].partition("\r\n")[0] + "\r\n" + "".join(t.partition("\r\n")[2] for t in texts)


def test_csv_round_trips_newlines_commas_and_quotes():
    """F2 at the writer: names the reader would clean still come back whole through csv.reader."""
    names = ["a,b", 'say "hi"', "two\nlines", "car\rriage", "crlf\r\nend", "\u2028sep", "tab\tin", "é漢字"]
    text = _all_csv(_board_with(names))
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(rows) == len(names) + 1
    got = {row[0]: (row[3], row[4]) for row in rows[1:]}
    for n, name in enumerate(names):
        assert got[run_id(n)] == (name, name)


def test_ledger_json_round_trips_hostile_names():
    names = ["two\nlines", "</script><script>", "\u2028", 'q"uote']
    board = _board_with(names)
    rows = [
        json.loads(line)
        for i in range(len(board.ledger.parts))
        for line in data.part_jsonl(board, i).decode("utf-8").splitlines()
    ]
    assert sorted(r["agent_name"] for r in rows) == sorted(names)


def test_agreement_between_summary_ledger_and_csv(summary, ledger, csv_rows):
    """H8: each agent's figures recomputed from the ledger rows (JSON and CSV) equal summary.json."""
    _, cells = csv_rows
    for scope, agents in (("current", summary["agents"]), ("older", summary["agents_older"])):
        for agent in agents:
            mine = [
                r
                for r in ledger
                if r["agent"] == agent["agent"] and r["kind"] != "not_a_run" and r["older"] == (scope == "older")
            ]
            population = [r["overall"] for r in mine if r["kind"] in MEDIAN_KINDS]
            assert agent["runs"] == len(mine)
            assert agent["in_median"] == len(population)
            assert agent["median"] == (statistics.median(population) if population else None)
            assert agent["best_overall"] == (max(population) if population else None)
            assert agent["counts"] == {k: sum(r["kind"] == k for r in mine) for k in agent["counts"]}
            ids = {r["run_id"] for r in mine}
            from_csv = [float(c["overall"]) for c in cells if c["run_id"] in ids and c["kind"] in MEDIAN_KINDS]
            assert sorted(from_csv) == sorted(population)
    assert summary["totals"]["runs"] == sum(r["kind"] != "not_a_run" for r in ledger)
    assert summary["totals"]["not_a_run"] == sum(r["kind"] == "not_a_run" for r in ledger)


def test_mission_summaries_agree_with_the_ledger(summary, ledger):
    for mission in summary["missions"]:
        mine = [
            r
            for r in ledger
            if (r["mission"], r["version"]) == (mission["mission"], mission["version"]) and r["kind"] != "not_a_run"
        ]
        population = [r["overall"] for r in mine if r["kind"] in MEDIAN_KINDS]
        assert mission["runs"] == len(mine)
        assert mission["median"] == (statistics.median(population) if population else None)
        assert mission["current"] == (not any(r["older"] for r in mine))
        assert sum(a["runs"] for a in mission["agents"]) == mission["runs"]


# ------------------------------------------------------------------ I3/I4: determinism and the build date


def _env(**changes) -> dict:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("SOURCE_DATE_EPOCH", "TZ", "LC_ALL", "LANG", "LC_CTYPE", "PYTHONHASHSEED")
    }
    env["PYTHONPATH"] = os.pathsep.join([str(MAIN)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    env.update({k: v for k, v in changes.items() if v is not None})
    return env


def _cli_build(export: Path, out: Path, cwd: Path, **env) -> subprocess.CompletedProcess:
    cwd.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "podium", "build", str(export), "--out", str(out)],
        cwd=cwd,
        env=_env(**env),
        capture_output=True,
        text=True,
        timeout=300,
    )


def _digests(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_two_builds_are_byte_identical(tmp_path):
    first = write_export(tmp_path / "a" / "export")
    second = write_export(tmp_path / "b" / "deep" / "export", order=list(reversed(range(len(SPECS)))))
    assert _digests(first.root) == _digests(second.root)  # the same input bytes, created in another order
    one = _cli_build(
        first.root, tmp_path / "a" / "site", tmp_path / "a", TZ="UTC", LC_ALL="C.UTF-8", PYTHONHASHSEED="0"
    )
    two = _cli_build(
        second.root, tmp_path / "b" / "out" / "public", tmp_path / "b", TZ="Asia/Kathmandu", PYTHONHASHSEED="12345"
    )
    assert one.returncode == 0, one.stderr
    assert two.returncode == 0, two.stderr
    a, b = _digests(tmp_path / "a" / "site"), _digests(tmp_path / "b" / "out" / "public")
    assert SUMMARY in a and RUNS_JSON in a and any(path.endswith(".csv") for path in a)
    assert a == b, sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


def test_source_date_epoch_sets_generated_at(tmp_path):
    export = write_export(tmp_path / "export")
    done = _cli_build(export.root, tmp_path / "site", tmp_path / "cwd", SOURCE_DATE_EPOCH="1790000000")
    assert done.returncode == 0, done.stderr
    summary = strict_json((tmp_path / "site" / SUMMARY).read_bytes())
    assert summary["generated_at"] == "2026-09-21T14:13:20Z"


def test_no_source_date_epoch_means_no_generated_at(tmp_path):
    export = write_export(tmp_path / "export")
    done = _cli_build(export.root, tmp_path / "site", tmp_path / "cwd")
    assert done.returncode == 0, done.stderr
    assert "generated_at" not in strict_json((tmp_path / "site" / SUMMARY).read_bytes())


@pytest.mark.parametrize("value", ["yesterday", "-5", "1.5", "１２３"])
def test_invalid_source_date_epoch_stops_the_build(tmp_path, value):
    export = write_export(tmp_path / "export")
    done = _cli_build(export.root, tmp_path / "site", tmp_path / "cwd", SOURCE_DATE_EPOCH=value)
    assert done.returncode == 2
    assert "SOURCE_DATE_EPOCH" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "site").exists()


def test_source_date_epoch_beyond_year_9999_is_refused(tmp_path):
    export = write_export(tmp_path / "export")
    done = _cli_build(export.root, tmp_path / "site", tmp_path / "cwd", SOURCE_DATE_EPOCH="999999999999")
    assert done.returncode == 2
    assert "SOURCE_DATE_EPOCH" in done.stderr and "Traceback" not in done.stderr


def test_ledger_page_script_rebuilds_every_runs_link():
    """The ledger page's data names each ledger page once per part and a row by its number (a link to a
    row is most of a row's bytes when runs have no page of their own): the script's rule gives back
    exactly the url the JSON and CSV parts carry, for a run with its own page and for one without."""
    board = _board_with([f"agent{n % 3}" for n in range(12)])
    runs = list(board.runs)
    for index in range(0, len(runs), 2):  # every other run without a page: linked to its ledger row
        runs[index] = dataclasses.replace(runs[index], url=board.ledger.anchor(index, runs[index].run_id))
    board = dataclasses.replace(board, runs=tuple(runs))
    seen = 0
    for i, part in enumerate(board.ledger.parts):
        text = data.part_script(board, i).decode("ascii")
        assert text.startswith("podiumLedger.part(") and text.endswith(");\n")
        script = json.loads(text[len("podiumLedger.part(") : -len(");\n")])
        column = script["columns"].index("url")
        assert len(script["pages"]) == len(set(script["pages"]))
        for index, row in zip(part.runs, script["rows"], strict=True):
            url = row[column]
            rebuilt = f"runs/{row[0]}/index.html" if url is None else f"{script['pages'][url]}#run-{row[0]}"
            assert rebuilt == board.runs[index].url == data.ledger_row(board.runs[index])["url"]
            seen += url is not None
    assert seen == 6


def _descriptions(node):
    if isinstance(node, dict):
        if isinstance(node.get("description"), str):
            yield node["description"]
        for value in node.values():
            yield from _descriptions(value)
    elif isinstance(node, list):
        for value in node:
            yield from _descriptions(value)


def test_the_schema_explains_the_progress_headline_and_points_only_inside_the_site():
    """Issue 36 item 8: a downloader reads what every field means, the progress headline included, and each
    description that sends them on names a page of the site (About these numbers), never a file they do not have."""
    schema = json.loads((MAIN / "generator" / "podium" / "summary.schema.json").read_bytes())
    headline = schema["$defs"]["ProgressHeadline"]
    assert set(headline["required"]) == {
        *("verdict", "shift", "changed", "from", "to", "tally", "reason", "url"),
        *("newest_median", "newest_in_median"),  # what the agent scores in its newest configuration
        "tokens",  # the tokens verdict beside the score's (docs/rules/cost.md §4)
    }
    assert None in headline["properties"]["verdict"]["enum"] and "mixed" in headline["properties"]["verdict"]["enum"]
    assert "fraction" in headline["properties"]["shift"]["description"]
    partial_rate = schema["$defs"]["Figures"]["properties"]["partial_rate"]["description"]
    assert "not the partial judge" in partial_rate.lower() and "counts.partial_judge" in partial_rate
    texts = list(_descriptions(schema))
    assert any("about/index.html#" in t for t in texts)
    outside = [t for t in texts if re.search(r"\.md\b|spec/|§", t)]
    assert not outside, outside
