"""Hostile and broken exports (guide/hostile-input.md A, B, C, D): the reader reports, never crashes.

Every bad input must give a Problem whose path, field and message are asserted; the
run is then counted (as ``unknown`` when runs.json or report.md identifies it) or
listed under problems, never dropped silently; and the summary still renders to
strict JSON.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import signal
from pathlib import Path

import pytest
from exportkit import ExportDir, agent_id, env_failure, graded, report_md, run_id
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sitekit import read_site_file

from podium.config import load_config
from podium.count.summarize import summarize
from podium.errors import BuildError, ConfigError
from podium.load.export import Limits, load_export, whole_run
from podium.model import Export, Problem
from podium.render import data

RID = run_id(1)
DIR = RID[:8]
RESULT = f"{DIR}/result.json"
REPORT = f"{DIR}/report.md"
MARKER = "OUTSIDE-MARKER-7f3c1d"


# ------------------------------------------------------------------ helpers


def _strict_constant(name):
    raise AssertionError(f"non-standard JSON constant {name} in output")


def load(export: ExportDir, **limits) -> Export:
    return load_export(export.root, Limits(**limits))


def render(ex: Export) -> dict:
    """Summarize and render the data files; the summary must be strict JSON. Returns summary.json."""
    board = summarize(ex)
    data.ledger_index(board), data.ledger_index_script(board)  # must not raise either, nor any part
    for part in range(len(board.ledger.parts)):
        data.part_jsonl_gz(board, part), data.part_csv(board, part), data.part_script(board, part)
    text = data.dump_json(data.summary_data(board)).decode("utf-8")
    return json.loads(text, parse_constant=_strict_constant)


def kinds(ex: Export) -> dict[str, str]:
    return {r.run_id: r.kind for r in summarize(ex).runs}


def assert_problem(ex: Export, path: str, field: str, message: str) -> Problem:
    """The problem at (path, field) whose message contains ``message`` (there must be one)."""
    found = [p for p in ex.problems if p.path == path and p.field == field]
    assert found, f"no problem at {path}: {field}; problems: {[str(p) for p in ex.problems]}"
    matching = [p for p in found if message in p.message]
    assert matching, f"{path}: {field}: expected {message!r} in one of {[p.message for p in found]}"
    return matching[0]


def with_raw(body: dict, where: tuple[str, ...], raw: str) -> bytes:
    """``body`` as JSON bytes with the value at ``where`` replaced by the literal text ``raw``."""
    body = json.loads(json.dumps(body))
    node = body
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = "@@RAW@@"
    return json.dumps(body, separators=(",", ":")).replace('"@@RAW@@"', raw).encode("utf-8")


def one_run(export: ExportDir, body, *, sidecars: bool = True, **kw) -> Export:
    export.run(body, rid=RID, **kw)
    if sidecars:
        export.sidecars()
    return load(export)


def assert_counted_unknown(ex: Export, run: str = RID) -> None:
    assert [r.run_id for r in ex.runs] == [run]
    assert kinds(ex) == {run: "unknown"}
    summary = render(ex)
    assert summary["totals"]["runs"] == 1
    assert summary["totals"]["counts"]["unknown"] == 1
    assert summary["source"]["runs_read"] == 1


# ------------------------------------------------------------------ C: unreadable result.json


GOOD = json.dumps(graded(RID), separators=(",", ":"))


@pytest.mark.parametrize(
    "data, message",
    [
        pytest.param(b'{"grade": {', "invalid JSON at line 1 column 12: Expecting property name", id="invalid"),
        pytest.param(
            GOOD[:40].encode(), "invalid JSON at line 1 column 20: Unterminated string starting at", id="truncated"
        ),
        pytest.param(
            GOOD[:-1].encode(),
            f"invalid JSON at line 1 column {len(GOOD)}: Expecting ',' delimiter",
            id="truncated-end",
        ),
        pytest.param(
            b'{"grade": {"overall": 0.5,}}',
            "invalid JSON at line 1 column 27: Expecting property name",
            id="trailing-comma",
        ),
        pytest.param(
            b'{\n  "grade": {\n    "overall": 0.5,\n  }\n}', "invalid JSON at line 4 column 3: ", id="multi-line"
        ),
        pytest.param(b"", "file is empty", id="empty"),
        pytest.param(b"  \n\t\r\n ", "file is empty", id="whitespace"),
        pytest.param(b"[0.9]", "expected a JSON object at the top level, got an array", id="array"),
        pytest.param(b'"graded"', "expected a JSON object at the top level, got 'graded'", id="string"),
        pytest.param(b"0.9", "expected a JSON object at the top level, got 0.9", id="number"),
        pytest.param(b"null", "the top level is null; nothing to read", id="null"),
        pytest.param(b'{"grade": {"judge_detail": "caf\xff"}}', "not UTF-8: byte 0xff at offset 31", id="byte-0xff"),
        pytest.param(b"[" * 100_000, "JSON is nested too deeply to read", id="deep-nesting"),
        pytest.param(b'{"a":' * 100_000, "JSON is nested too deeply to read", id="deep-objects"),
    ],
)
def test_unreadable_result_is_a_problem_and_counts_unknown(export, data, message):
    ex = one_run(export, data)
    assert_problem(ex, RESULT, "", message)
    assert len(ex.problems) == 1
    assert ex.runs[0].shape == "unreadable"
    assert_counted_unknown(ex)


def test_unreadable_result_without_sidecars_is_identified_by_report(export):
    ex = one_run(export, b"{broken", sidecars=False, report=report_md(agent="gyr falcon v3", mission="m9 v2.0.0"))
    assert_problem(ex, RESULT, "", "invalid JSON at line 1 column 2")
    (run,) = ex.runs
    assert (run.run_id, run.agent_name, run.mission, run.version) == (DIR, "gyr falcon", "m9", "2.0.0")
    assert_counted_unknown(ex, DIR)


def test_unreadable_and_unidentifiable_run_is_listed_under_problems_only(export):
    export.run(graded(run_id(2)), rid=run_id(2), row=False)  # a good run, for contrast
    ex = one_run(export, b"", sidecars=False)
    assert_problem(ex, RESULT, "", "file is empty")
    assert [r.run_id for r in ex.runs] == [run_id(2)]
    summary = render(ex)
    # runs_read = totals.runs + totals.not_a_run + unidentified (docs/development.md "Problems")
    assert summary["source"]["runs_read"] == 2
    assert summary["totals"]["runs"] == 1
    assert {"path": RESULT, "field": "", "message": "file is empty"} in summary["problems"]


# ------------------------------------------------------------------ C: bad fields in the grade


@pytest.mark.parametrize(
    "where, raw, field, message",
    [
        (("grade", "overall"), '"0.9"', "grade.overall", "expected a number, got '0.9'"),
        (("grade", "overall"), "true", "grade.overall", "expected a number, got true"),
        (("grade", "overall"), "false", "grade.overall", "expected a number, got false"),
        (("grade", "overall"), "null", "grade.overall", "is null; expected a number"),
        (("grade", "overall"), "[0.9]", "grade.overall", "expected a number, got an array"),
        (("grade", "overall"), '{"v":0.9}', "grade.overall", "expected a number, got an object"),
        (("grade", "overall"), "-0.1", "grade.overall", "expected a number in [0, 1], got -0.1"),
        (("grade", "overall"), "1.7", "grade.overall", "expected a number in [0, 1], got 1.7"),
        (("grade", "overall"), "NaN", "grade.overall", "NaN is not a JSON number"),
        (("grade", "overall"), "Infinity", "grade.overall", "Infinity is not a JSON number"),
        (("grade", "overall"), "-Infinity", "grade.overall", "-Infinity is not a JSON number"),
        (("grade", "overall"), "1e999", "grade.overall", "1e999 overflows a 64-bit float"),
        (("grade", "overall"), "-1e999", "grade.overall", "-1e999 overflows a 64-bit float"),
        (("grade", "overall"), "9" * 5000, "grade.overall", "integer with 5000 digits is too large"),
        (("grade", "breakdown", "deterministic"), "NaN", "grade.breakdown.deterministic", "NaN is not a JSON number"),
        (("grade", "breakdown", "judge"), '"high"', "grade.breakdown.judge", "expected a number, got 'high'"),
        (("grade", "breakdown"), "[]", "grade.breakdown", "expected an object, got an array"),
        (("grade", "overall_upper"), "2", "grade.overall_upper", "expected a number in [0, 1], got 2"),
        (
            ("grade", "judge_status"),
            '"great"',
            "grade.judge_status",
            "'great' is not a judge status podium knows; counted as unknown",
        ),
        (("partial_trigger",), '"meteor"', "partial_trigger", "'meteor' is not a trigger podium knows"),
    ],
)
def test_bad_score_field_makes_the_run_unknown(export, where, raw, field, message):
    ex = one_run(export, with_raw(graded(RID), where, raw))
    assert_problem(ex, RESULT, field, message)
    assert_counted_unknown(ex)


def test_missing_overall_makes_the_run_unknown(export):
    body = graded(RID)
    del body["grade"]["overall"]
    ex = one_run(export, body)
    assert_problem(ex, RESULT, "grade.overall", "missing; expected a number")
    assert ex.runs[0].grade.overall is None
    assert_counted_unknown(ex)


def test_duplicate_key_in_grade_is_refused_and_run_unknown(export):
    body = GOOD.replace('"overall":0.7', '"overall":0.1,"overall":0.9').encode()
    assert b'"overall":0.1,"overall":0.9' in body
    ex = one_run(export, body)
    assert_problem(ex, RESULT, "grade.overall", "duplicate key 'overall'")
    assert ex.runs[0].grade.overall is None  # neither copy is trusted
    assert_counted_unknown(ex)


def test_nan_never_reaches_a_figure(export):
    export.run(graded(run_id(2), det=0.25, judge=0.25), rid=run_id(2), at=0)
    export.run(graded(run_id(3), det=0.75, judge=0.75), rid=run_id(3), at=10)
    ex = one_run(export, with_raw(graded(RID), ("grade", "overall"), "NaN"))
    summary = render(ex)
    (agent,) = summary["agents"]
    assert (agent["median"], agent["in_median"], agent["runs"], agent["counts"]["unknown"]) == (0.5, 2, 3, 1)


def test_unknown_field_is_ignored(export):
    body = graded(RID)
    body["sucess_rate"] = 0.4
    body["grade"]["new_thing"] = {"x": [1, 2]}
    ex = one_run(export, body)
    assert ex.problems == ()
    assert kinds(ex) == {RID: "graded"}


def test_bom_is_accepted(export):
    ex = one_run(export, b"\xef\xbb\xbf" + GOOD.encode())
    assert ex.problems == ()
    assert ex.runs[0].grade.overall == 0.7
    assert kinds(ex) == {RID: "graded"}


def test_pretty_printed_result_reads_normally(export):
    ex = one_run(export, json.dumps(graded(RID), indent=4).encode() + b"\n")
    assert ex.problems == ()
    assert kinds(ex) == {RID: "graded"}


def test_lone_surrogate_in_a_string_is_cleaned_and_reported(export):
    ex = one_run(export, with_raw(graded(RID), ("conditions", "model"), '"gpt\\ud800x"'))
    assert_problem(ex, RESULT, "conditions.model", "holds control characters or lone surrogates; shown as \ufffd")
    assert ex.runs[0].conditions.model == "gpt\ufffdx"
    assert kinds(ex) == {RID: "graded"}  # a name does not spoil the score
    summary = render(ex)
    assert summary["agents"][0]["models_declared"] == ["gpt\ufffdx"]


def test_lone_surrogate_or_control_character_in_a_key_does_not_crash_the_summary(export):
    body = with_raw(graded(RID), ("grade", "extra"), '{"\\udfff": 1, "\\udfff": 2, "a\\nb": NaN}')
    ex = one_run(export, body)
    assert_problem(ex, RESULT, "grade.extra.\ufffd", "duplicate key '\\udfff'")
    assert_problem(ex, RESULT, "grade.extra.a\ufffdb", "NaN is not a JSON number")
    summary = render(ex)  # encodes as UTF-8 without a surrogate error
    assert {p["field"] for p in summary["problems"]} == {"grade.extra.\ufffd", "grade.extra.a\ufffdb"}
    assert kinds(ex) == {RID: "graded"}  # an unused field does not spoil the grade


def test_lone_surrogate_in_judge_status_is_unknown(export):
    ex = one_run(export, with_raw(graded(RID), ("grade", "judge_status"), '"\\udc80"'))
    assert_problem(ex, RESULT, "grade.judge_status", "holds control characters or lone surrogates")
    assert_problem(ex, RESULT, "grade.judge_status", "is not a judge status podium knows; counted as unknown")
    assert_counted_unknown(ex)


def test_control_characters_in_agent_name_from_agents_json(export):
    export.run(graded(RID), rid=RID, agent="evil\nname\x1b[31m\x00\u2028::x\x85")
    export.sidecars()
    ex = load(export)
    assert_problem(ex, "agents.json", "[0].name", "holds control characters or lone surrogates; shown as \ufffd")
    cleaned = "evil\ufffdname\ufffd[31m\ufffd\ufffd::x\ufffd"
    assert ex.runs[0].agent_name == cleaned
    assert len(cleaned.splitlines()) == 1
    summary = render(ex)
    assert summary["agents"][0]["name"] == cleaned


def test_control_characters_in_agent_name_from_report(export):
    ex = one_run(export, graded(RID), sidecars=False, report=report_md(agent="bell\x07agent v1"))
    assert_problem(ex, REPORT, "Overview.Agent", "holds control characters or lone surrogates")
    assert ex.runs[0].agent_name == "bell\ufffdagent"


def test_overlong_name_is_cut(export):
    export.run(graded(RID), rid=RID, agent="n" * 5000)
    export.sidecars()
    ex = load(export)
    assert_problem(ex, "agents.json", "[0].name", "is 5000 characters long; cut to 200")
    assert ex.runs[0].agent_name == "n" * 200 + "…"


# ------------------------------------------------------------------ A4: size limits


def test_result_over_the_size_limit_is_not_read(export):
    size = len(GOOD.encode())
    one_run(export, GOOD.encode(), report=report_md())
    ex = load(export, result_bytes=size - 1)
    assert_problem(ex, RESULT, "", f"is {size} bytes, over the {size - 1}-byte limit")
    assert_counted_unknown(ex)
    assert load(export, result_bytes=size).problems == ()


def test_report_over_the_size_limit_is_not_read(export):
    text = report_md(agent="marker-agent v1")
    assert one_run(export, graded(RID), sidecars=False, report=text).runs[0].agent_name == "marker-agent"
    size = len(text.encode())
    ex = load(export, report_bytes=size - 1)
    assert_problem(ex, REPORT, "", f"is {size} bytes, over the {size - 1}-byte limit")
    assert "marker-agent" not in repr(ex)
    assert ex.runs[0].report_file is None
    assert kinds(ex) == {RID: "graded"}  # the grade is fine; only the report is skipped


def test_sidecar_over_the_size_limit_falls_back_to_report(export):
    export.run(graded(RID), rid=RID, agent="kestrel", report=report_md(agent="Kestrel v4"))
    export.sidecars()
    size = (export.root / "runs.json").stat().st_size
    ex = load(export, sidecar_bytes=size - 1)
    assert_problem(ex, "runs.json", "", f"is {size} bytes, over the {size - 1}-byte limit")
    assert ex.runs[0].agent_name == "Kestrel"


# ------------------------------------------------------------------ A1–A3: links and special files


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "result.json").write_text(json.dumps(graded(RID, model=MARKER, judge_model=MARKER)))
    (outside / "report.md").write_text(report_md(agent=f"{MARKER} v1", mission=f"{MARKER} v1"))
    return outside


def test_symlinked_result_is_not_followed(export, tmp_path):
    outside = _outside(tmp_path)
    export.run(None, rid=RID)
    (export.root / DIR / "result.json").symlink_to(outside / "result.json")
    export.sidecars()
    ex = load(export)
    assert_problem(ex, RESULT, "", "is a symlink; not followed")
    assert MARKER not in repr(ex)
    assert_counted_unknown(ex)


def test_symlinked_report_is_not_followed(export, tmp_path):
    outside = _outside(tmp_path)
    export.run(graded(RID), rid=RID)
    (export.root / DIR / "report.md").symlink_to(outside / "report.md")
    ex = load(export)  # no sidecars: the report would have been the identity source
    assert_problem(ex, REPORT, "", "is a symlink; not followed")
    assert MARKER not in repr(ex)
    assert ex.runs[0].agent_name == "(unattributed)"
    assert kinds(ex) == {RID: "graded"}


def test_symlink_to_system_file_is_not_read(export):
    export.run(graded(RID), rid=RID)
    (export.root / DIR / "report.md").symlink_to("/etc/passwd")
    ex = load(export)
    assert_problem(ex, REPORT, "", "is a symlink; not followed")
    assert "root:" not in repr(ex)


def test_symlinked_run_directory_is_not_followed(export, tmp_path):
    outside = _outside(tmp_path)
    export.run(graded(RID), rid=RID)
    (export.root / "abcdef01").symlink_to(outside, target_is_directory=True)
    (export.root / "abcdef02").symlink_to(export.root / DIR, target_is_directory=True)  # would double-count
    export.sidecars()
    ex = load(export)
    assert_problem(ex, "abcdef01", "", "is a symlink; not followed")
    assert_problem(ex, "abcdef02", "", "is a symlink; not followed")
    assert MARKER not in repr(ex)
    assert [r.run_id for r in ex.runs] == [RID]
    assert ex.runs_read == 1


def test_symlink_loops_do_not_hang(export):
    export.run(graded(RID), rid=RID)
    (export.root / DIR / "loop").symlink_to("..", target_is_directory=True)
    (export.root / "abcdef03").symlink_to("abcdef03")  # points at itself
    (export.root / "abcdef04").mkdir()
    (export.root / "abcdef04" / "result.json").symlink_to("result.json")
    export.sidecars()
    ex = _with_alarm(lambda: load(export))
    assert_problem(ex, "abcdef03", "", "is a symlink; not followed")
    assert_problem(ex, "abcdef04/result.json", "", "is a symlink; not followed")
    assert [r.run_id for r in ex.runs] == [RID]
    assert kinds(ex) == {RID: "graded"}


def _with_alarm(call, seconds: int = 10):
    def fail(signum, frame):
        raise TimeoutError("the reader blocked")

    previous = signal.signal(signal.SIGALRM, fail)
    signal.alarm(seconds)
    try:
        return call()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_result_does_not_block(export):
    export.run(None, rid=RID)
    os.mkfifo(export.root / DIR / "result.json")
    os.mkfifo(export.root / DIR / "report.md")
    export.sidecars()
    ex = _with_alarm(lambda: load(export))
    assert_problem(ex, RESULT, "", "is not a regular file; not read")
    assert_problem(ex, REPORT, "", "is not a regular file; not read")
    assert_counted_unknown(ex)


def test_symlink_to_dev_zero_is_not_read(export):
    export.run(None, rid=RID)
    (export.root / DIR / "result.json").symlink_to("/dev/zero")
    export.sidecars()
    ex = _with_alarm(lambda: load(export))
    assert_problem(ex, RESULT, "", "is a symlink; not followed")
    assert_counted_unknown(ex)


def test_directory_named_result_json(export):
    export.run(None, rid=RID)
    (export.root / DIR / "result.json").mkdir()
    export.sidecars()
    ex = load(export)
    assert_problem(ex, RESULT, "", "is not a regular file; not read")
    assert_counted_unknown(ex)


def test_file_where_a_run_directory_should_be(export):
    export.run(graded(RID), rid=RID)
    (export.root / "0123abcd").write_text(GOOD)
    ex = load(export)
    assert_problem(ex, "0123abcd", "", "is a file where a run directory should be")
    assert [r.run_id for r in ex.runs] == [RID]


def test_run_directory_without_result_json(export):
    ex = one_run(export, None)
    assert_problem(ex, RESULT, "", "missing: the run cannot be classified")
    assert_counted_unknown(ex)


def test_run_directory_without_result_json_or_identity(export):
    (export.root / "0123abcd").mkdir()
    ex = load(export)
    assert ex.problems == (Problem("0123abcd/result.json", "", "missing: the run cannot be classified"),)
    assert ex.runs == ()
    assert ex.runs_read == 1


# ------------------------------------------------------------------ A6/A8: empty exports, junk entries


def test_empty_export(export):
    ex = load(export)
    assert (ex.runs, ex.problems, ex.runs_read) == ((), (), 0)
    summary = render(ex)
    assert summary["agents"] == [] and summary["totals"]["runs"] == 0


def test_dot_entries_and_macosx_are_ignored(export):
    export.run(graded(RID), rid=RID)
    export.sidecars()
    staging = export.root / ".xorcise-export-x1y2" / run_id(2)[:8]
    staging.mkdir(parents=True)
    (staging / "result.json").write_text(json.dumps(graded(run_id(2))))
    (export.root / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    (export.root / "__MACOSX" / DIR).mkdir(parents=True)
    (export.root / "__MACOSX" / DIR / "._result.json").write_bytes(b"\x00\x05\x16\x07")
    (export.root / ".hidden12").mkdir()
    (export.root / "README.txt").write_text("notes")
    ex = load(export)
    assert ex.problems == ()
    assert [r.run_id for r in ex.runs] == [RID]
    assert ex.runs_read == 1
    assert render(ex)["source"]["runs_read"] == 1


def test_unknown_files_in_a_run_directory_are_ignored(export):
    export.run(graded(RID), rid=RID, report=report_md())
    export.sidecars()
    extra = export.root / DIR
    (extra / ".DS_Store").write_bytes(b"\x00\x01")
    (extra / "notes.txt").write_text("my notes")
    (extra / "report.html").write_text("<script>x</script>")
    (extra / "screenshots").mkdir()
    (extra / "screenshots" / "a.png").write_bytes(b"\x89PNG")
    ex = load(export)
    assert ex.problems == ()
    assert kinds(ex) == {RID: "graded"}


def test_sample_export_reads_without_problems():
    samples = Path(__file__).resolve().parents[3] / "shared" / "xorcise-samples"
    if not samples.is_dir():
        pytest.skip("shared/xorcise-samples is absent")
    ex = load_export(samples)
    assert ex.problems == ()
    assert ex.runs_read == len(ex.runs) == 6


# ------------------------------------------------------------------ B4: duplicates


def test_stale_short_directory_loses_to_full_id_directory(export):
    export.run(graded(RID, det=0.2, judge=0.2), rid=RID, dirname=DIR, row=False)
    export.run(graded(RID, det=0.9, judge=0.9), rid=RID, dirname=RID)
    export.sidecars()
    ex = load(export)
    assert ex.problems == ()
    assert ex.notes == (f"{DIR}/ is a stale copy of run {RID}; {RID}/ is used",)
    (run,) = ex.runs
    assert (run.directory, run.grade.overall) == (RID, 0.9)
    assert ex.runs_read == 1
    assert render(ex)["totals"]["runs"] == 1


def test_two_directories_claiming_one_run_are_counted_once(export):
    export.run(graded(RID, det=0.9, judge=0.9), rid=RID)
    export.run(graded(RID, det=0.1, judge=0.1), rid=RID, dirname="00000000", row=False)  # sorts first
    export.sidecars()
    ex = load(export)
    assert_problem(ex, "00000000", "", f"holds the same run id as {DIR}/ ({RID}); counted once, from {DIR}/")
    assert_problem(ex, "00000000/result.json", "grade.run_id", f"run id {RID} does not match the directory name")
    (run,) = ex.runs
    assert (run.directory, run.grade.overall) == (DIR, 0.9)
    assert ex.runs_read == 1


def test_duplicate_run_in_runs_json(export):
    export.run(graded(RID), rid=RID, agent="osprey")
    export.sidecars()
    rows = json.loads((export.root / "runs.json").read_text())
    (export.root / "runs.json").write_text(json.dumps(rows + [dict(rows[0], agent_id="someone-else")]))
    ex = load(export)
    assert_problem(ex, "runs.json", "[1].run_id", f"run {RID} is listed twice; the first row is used")
    assert ex.runs[0].agent == agent_id("osprey")


# ------------------------------------------------------------------ B1/B5: identifiers


@pytest.mark.parametrize(
    "bad, message",
    [
        ("../../index", "expected 32 lower-case hex characters, got '../../index'"),
        ("a/b", "expected 32 lower-case hex characters, got 'a/b'"),
        ("a\\b", "expected 32 lower-case hex characters, got 'a\\\\b'"),
        ("6B86B273FF34FCE19D6B804EFF5A3F57", "expected 32 lower-case hex characters"),
        ("f" * 300, "is 300 characters long; cut to 64"),
        ("a\x00b", "holds control characters or lone surrogates"),
    ],
)
def test_bad_run_id_is_a_problem_and_never_a_path(export, bad, message):
    ex = one_run(export, graded(bad))
    assert_problem(ex, RESULT, "grade.run_id", message)
    (run,) = ex.runs
    assert run.run_id == RID  # identified by runs.json through the directory name instead
    assert bad not in repr(ex.runs)


def test_bad_run_id_in_env_failure_is_reported_at_run_id(export):
    ex = one_run(export, {"run_id": "../../index", "status": "not_graded", "terminal_trigger": "crashed"})
    assert_problem(ex, RESULT, "run_id", "expected 32 lower-case hex characters, got '../../index'")
    assert kinds(ex) == {RID: "infra_failed"}


def test_bad_run_ids_write_nothing_outside_the_output(export, tmp_path, monkeypatch):
    from podium.build import build_site

    for n, bad in enumerate(["../../index", "a/b", "f" * 300, "..", "/etc/passwd"]):
        export.run(graded(bad), rid=run_id(10 + n), agent=f"../../{bad}", mission="../../../m")
    rows = export.rows
    rows[0]["mission"] = "/abs/mission"
    export.sidecars()
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    before = _tree(tmp_path)
    out = work / "site"
    build_site(load_config(None, {"out": out}), export.root)
    after = _tree(tmp_path)
    new = sorted(after - before)
    assert new and all(Path(p).is_relative_to(out) for p in new), new
    assert not [p for p in new if ".." in Path(p).parts]


def _tree(root: Path) -> set[str]:
    return {str(p) for p in root.rglob("*")}


# ------------------------------------------------------------------ sidecars: broken runs.json / agents.json


def _identified_by_report(export: ExportDir) -> None:
    export.run(graded(RID), rid=RID, agent="kestrel", report=report_md(agent="Kestrel Prime v2", mission="m7 v1.0.0"))
    export.sidecars()


@pytest.mark.parametrize(
    "name, data, message",
    [
        ("runs.json", b"[{", "invalid JSON at line 1 column 3: Expecting property name enclosed in double quotes"),
        ("runs.json", b"{}", "expected a JSON array of runs, got an object; falling back to report.md"),
        ("runs.json", b"", "file is empty"),
        ("runs.json", b"null", "the top level is null; nothing to read"),
        ("agents.json", b"null", "the top level is null; nothing to read"),
        ("agents.json", b"[{", "invalid JSON at line 1 column 3: Expecting property name enclosed in double quotes"),
        ("agents.json", b'{"agents": []}', "expected a JSON array of agents, got an object; falling back to report.md"),
    ],
)
def test_broken_sidecar_falls_back_to_report(export, name, data, message):
    _identified_by_report(export)
    (export.root / name).write_bytes(data)
    ex = load(export)
    assert_problem(ex, name, "", message)
    (run,) = ex.runs
    assert run.agent_name == "Kestrel Prime"
    if name == "runs.json":
        assert (run.agent, run.mission, run.version) == ("Kestrel Prime", "m7", "1.0.0")
        assert run.started.isoformat() == "2026-10-01T09:00:00+00:00"
    else:
        assert (run.agent, run.mission) == (agent_id("kestrel"), "m1")
    assert kinds(ex) == {RID: "graded"}


def test_bad_rows_in_sidecars(export):
    _identified_by_report(export)
    rows = json.loads((export.root / "runs.json").read_text())
    (export.root / "runs.json").write_text(json.dumps([7, {"run_id": "../x"}, {"agent_id": "a"}] + rows))
    (export.root / "agents.json").write_text(json.dumps(["x", {"name": "no id"}]))
    ex = load(export)
    assert_problem(ex, "runs.json", "[0]", "expected an object, got 7")
    assert_problem(ex, "runs.json", "[1].run_id", "expected 32 lower-case hex characters, got '../x'")
    assert_problem(ex, "runs.json", "[2].run_id", "missing; expected a string")
    assert_problem(ex, "agents.json", "[0]", "expected an object, got 'x'")
    assert_problem(ex, "agents.json", "[1].id", "missing; expected a string")
    assert ex.runs[0].agent_name == "Kestrel Prime"


def test_bad_timestamp_in_runs_json(export):
    _identified_by_report(export)
    rows = json.loads((export.root / "runs.json").read_text())
    rows[0]["created_at"] = "2024-13-01T25:00"
    rows[0]["completed_at"] = "yesterday"
    (export.root / "runs.json").write_text(json.dumps(rows))
    ex = load(export)
    assert_problem(ex, "runs.json", "[0].created_at", "expected an ISO-8601 time, got '2024-13-01T25:00'")
    assert_problem(ex, "runs.json", "[0].completed_at", "expected an ISO-8601 time, got 'yesterday'")
    run = ex.runs[0]
    # report.md gives the times instead (Started 09:00:00 UTC, Duration 19m 43s)
    assert (run.started.isoformat(), run.completed.isoformat()) == (
        "2026-10-01T09:00:00+00:00",
        "2026-10-01T09:19:43+00:00",
    )


@pytest.mark.parametrize("text", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"])
def test_timestamp_out_of_range_in_utc(export, text):
    export.run(graded(RID), rid=RID)
    export.sidecars()
    rows = json.loads((export.root / "runs.json").read_text())
    rows[0]["created_at"] = text
    (export.root / "runs.json").write_text(json.dumps(rows))
    ex = load(export)
    assert_problem(ex, "runs.json", "[0].created_at", f"{text!r} is out of range in UTC")
    render(ex)


@pytest.mark.parametrize(
    "started, duration",
    [
        ("2026-10-01 09:00:00 UTC", "99999999999999h"),
        ("9999-12-31 23:00:00 UTC", "2h"),
        ("2026-10-01 09:00:00 UTC", "9" * 190 + "s"),
    ],
)
def test_report_duration_out_of_range(export, started, duration):
    ex = one_run(export, graded(RID), sidecars=False, report=report_md(started=started, duration=duration))
    assert_problem(ex, REPORT, "Overview.Duration", "ends out of range")
    assert ex.runs[0].completed is None
    render(ex)


def test_bad_report_overview_cells(export):
    ex = one_run(export, graded(RID), sidecars=False, report=report_md(started="yesterday", duration="forever"))
    assert_problem(ex, REPORT, "Overview.Started", "expected YYYY-MM-DD HH:MM:SS UTC, got 'yesterday'")
    assert ex.runs[0].started is None


def test_report_without_overview(export):
    ex = one_run(export, graded(RID), sidecars=False, report="# Just a title\n\n<script>x</script>\n")
    assert_problem(ex, REPORT, "Overview", "no Overview table found")
    assert ex.runs[0].agent_name == "(unattributed)"


def test_naive_timestamps_are_utc(export):
    export.run(graded(RID), rid=RID)
    export.sidecars()
    rows = json.loads((export.root / "runs.json").read_text())
    rows[0]["created_at"] = "2026-10-01T09:00:00"
    rows[0]["completed_at"] = "2026-10-01T11:30:00+02:00"
    (export.root / "runs.json").write_text(json.dumps(rows))
    ex = load(export)
    assert ex.problems == ()
    run = ex.runs[0]
    assert run.started.isoformat() == "2026-10-01T09:00:00+00:00"
    assert run.completed.isoformat() == "2026-10-01T09:30:00+00:00"
    summary = render(ex)
    assert summary["agents"][0]["last_run"] == "2026-10-01T09:30:00Z"


def test_runs_json_lists_a_run_without_directory(export):
    export.run(graded(RID), rid=RID)
    export.sidecars()
    rows = json.loads((export.root / "runs.json").read_text())
    (export.root / "runs.json").write_text(json.dumps(rows + [dict(rows[0], run_id=run_id(77))]))
    ex = load(export)
    assert ex.notes == ("runs.json lists 1 run(s) with no run directory; they are not counted",)
    assert [r.run_id for r in ex.runs] == [RID]


# ------------------------------------------------------------------ B3: colliding agent names


def test_case_and_nfkc_colliding_agent_names_get_distinct_stable_slugs(export):
    names = ["osprey", "Osprey", "\uff2f\uff53\uff50\uff52\uff45\uff59", "OSPREY!"]  # fullwidth "Osprey"
    for n, name in enumerate(names):
        export.run(graded(run_id(n)), rid=run_id(n), agent=name)
    export.sidecars()
    board = summarize(load(export))
    slugs = {a.name: a.slug for a in board.agents}
    assert len(set(slugs.values())) == len(names)
    assert slugs["osprey"] == "osprey"  # the name that already is the slug keeps it
    for name in names[1:]:
        suffix = hashlib.sha256(agent_id(name).encode()).hexdigest()[:6]
        assert slugs[name] == f"osprey-{suffix}"
    urls = [a.url for a in board.agents]
    assert len(set(urls)) == len(urls)
    # stable: the same slugs whatever else is in the export
    export.run(graded(run_id(9)), rid=run_id(9), agent="unrelated")
    export.sidecars()
    again = {a.name: a.slug for a in summarize(load(export)).agents}
    assert {k: again[k] for k in slugs} == slugs


# ------------------------------------------------------------------ H1: no crash, nothing dropped (property)


_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(),
    st.text(max_size=12),
    st.sampled_from(
        [
            "ok",
            "partial",
            "unavailable",
            "timeout",
            "operator",
            "grading",
            "not_graded",
            "grading failed: x",
            "1.0.0",
            RID,
            "0.5",
        ]
    ),
)
_KEYS = st.text(max_size=4) | st.sampled_from(
    [
        "grade",
        "overall",
        "breakdown",
        "deterministic",
        "judge",
        "status",
        "run_id",
        "judge_status",
        "judge_detail",
        "overall_upper",
        "partial_trigger",
        "conditions",
        "mission_version",
        "models_reported",
        "judge_breakdown",
        "check_breakdown",
    ]
)
_VALUE = st.recursive(
    _LEAF, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=5), max_leaves=25
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bodies=st.lists(_VALUE, min_size=1, max_size=4), raw=st.binary(max_size=40))
def test_any_result_json_is_counted_or_listed(tmp_path_factory, bodies, raw):
    export = ExportDir(tmp_path_factory.mktemp("export"))
    ids = []
    for n, body in enumerate(bodies):
        data = json.dumps(body, allow_nan=True).encode("utf-8", "surrogatepass")
        ids.append(export.run(data, rid=run_id(n)))
    export.run(raw, rid=run_id(99), row=False)
    export.sidecars()
    ex = load(export)
    summary = render(ex)
    unidentified = ex.runs_read - len(ex.runs)
    merged = sum("holds the same run id as" in p.message for p in ex.problems)  # B4: named, counted once
    assert ex.runs_read + merged == len(bodies) + 1
    assert summary["totals"]["runs"] + summary["totals"]["not_a_run"] + unidentified == ex.runs_read
    assert sum(summary["totals"]["counts"].values()) == summary["totals"]["runs"]
    assert set(ids) <= {r.run_id for r in ex.runs}  # every run runs.json identifies is counted
    for run in ex.runs:
        if run.grade is not None and run.grade.overall is not None:
            assert math.isfinite(run.grade.overall) and 0 <= run.grade.overall <= 1


# ------------------------------------------------------------------ D: podium.yaml


def _config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "podium.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.exit_code == 2
    message = caught.value.message
    assert message.startswith(f"{path}: ")
    return message


def test_yaml_code_execution_tag_is_refused(tmp_path):
    message = _config(tmp_path, "title: ok\nbase_url: !!python/object/apply:os.system ['touch pwned']\n")
    assert "line 2 column 11: " in message and "python/object/apply:os.system" in message
    assert not Path("pwned").exists() and not (tmp_path / "pwned").exists()


def test_yaml_alias_bomb_is_refused_quickly(tmp_path):
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)]
    message = _with_alarm(lambda: _config(tmp_path, "\n".join(levels) + "\n"), seconds=5)
    assert message.endswith("line 2 column 10: aliases (*name) are not allowed")


def test_yaml_unquoted_version_is_refused_with_a_hint(tmp_path):
    message = _config(tmp_path, "missions:\n  jwt-none-bypass:\n    current: 1.10\n")
    assert "missions.jwt-none-bypass.current: expected a string" in message
    assert "(quote it: " in message


def test_yaml_unquoted_version_hint_keeps_the_written_text(tmp_path):
    # Type errors name the file and the key path (not the line): the hint quotes what was written.
    message = _config(tmp_path, "missions:\n  jwt-none-bypass:\n    current: 1.10\n")
    assert message.endswith('missions.jwt-none-bypass.current: expected a string, got 1.10 (quote it: "1.10")')


@pytest.mark.parametrize(
    "text, where",
    [
        ("title: a\ntitle: b\n", "line 2 column 1: duplicate key 'title'"),
        ("missions:\n  m1: {current: '1'}\n  m1: {current: '2'}\n", "line 3 column 3: duplicate key 'm1'"),
    ],
)
def test_yaml_duplicate_keys_are_refused(tmp_path, text, where):
    assert _config(tmp_path, text).endswith(where)


@pytest.mark.parametrize(
    "text, message",
    [
        ("title: no\n", "title: expected a string, got False"),
        ("title: [unclosed\n", "line 2 column 1: "),
        ("- a\n- b\n", "expected a mapping of settings at the top level"),
        ("limits: {result_bytes: -1}\n", "limits.result_bytes: expected a positive whole number of bytes, got -1"),
        ("colour: red\n", "colour: unknown setting"),
        # a literal too short to redact (safety/redact.py MIN_LITERAL) would be published: refused, never quoted
        ("redact: ['long enough', 'pw123']\n", "redact[1]: a value of 5 character(s); podium redacts values of 6"),
        ("redact: ['  pw12  ']\n", "redact[0]: a value of 4 character(s)"),
    ],
)
def test_yaml_other_bad_settings(tmp_path, text, message):
    assert message in _config(tmp_path, text)


def test_a_short_redact_literal_is_never_quoted_back(tmp_path):
    assert "pw123" not in _config(tmp_path, "redact: ['pw123']\n")


def test_yaml_good_config_reads(tmp_path):
    path = tmp_path / "podium.yaml"
    path.write_text("\ufefftitle: Results\nmissions:\n  m1: {current: '1.10'}\nlimits: {result_bytes: 1000}\n")
    config = load_config(path)
    assert (config.title, config.missions, config.limits.result_bytes) == ("Results", {"m1": "1.10"}, 1000)


# ------------------------------------------------------------------ everything at once, through the whole build


def test_whole_build_survives_every_hostile_run(export, tmp_path, monkeypatch):
    from podium.build import build_site

    bodies = [
        b'{"grade": {',
        b"",
        b"[0.9]",
        b"null",
        b'{"a":"\xff"}',
        b"[" * 100_000,
        with_raw(graded(run_id(6)), ("grade", "overall"), "NaN"),
        with_raw(graded(run_id(7)), ("grade", "overall"), "1e999"),
        with_raw(graded(run_id(8)), ("grade", "overall"), "9" * 5000),
        with_raw(graded(run_id(9)), ("conditions", "model"), '"\\ud800<script>"'),
        with_raw(graded(run_id(10)), ("grade", "extra"), '{"\\udfff": 1, "\\udfff": 2}'),
        json.dumps(graded("../../index")).encode(),
    ]
    for n, body in enumerate(bodies):
        export.run(
            body,
            rid=run_id(n),
            agent=["evil\n<b>", "lone", "=1+1"][n % 3],
            mission=["../../etc", "m\u2028x"][n % 2],
            report=report_md(agent="x\x07 v1"),
        )
    (export.root / "0123abcd").mkdir()  # no result.json, no identity
    export.sidecars()
    raw = (export.root / "agents.json").read_text()
    (export.root / "agents.json").write_text(raw.replace('"name": "lone"', '"name": "\\ud800x"'))
    assert "\\ud800x" in (export.root / "agents.json").read_text()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "podium.yaml").write_text("title: T\n")
    built = build_site(load_config(tmp_path / "podium.yaml", {"out": tmp_path / "site"}), export.root)
    summary = json.loads((built.target / "api/results/summary.json").read_bytes(), parse_constant=_strict_constant)
    published = {(p["path"], p["field"], p["message"]) for p in summary["problems"]}
    assert {(p.path, p.field, p.message) for p in built.board.problems} == published
    assert (f"{run_id(6)[:8]}/result.json", "grade.overall", "NaN is not a JSON number") in published
    assert ("0123abcd/result.json", "", "missing: the run cannot be classified") in published
    assert summary["source"]["runs_read"] == len(bodies) + 1
    assert summary["totals"]["runs"] == len(bodies)  # every identified run counted once; 0123abcd listed only
    for path in built.target.rglob("*"):
        if path.suffix in (".html", ".json", ".csv", ".js", ".svg", ".xml", ".gz"):
            text = read_site_file(path).decode("utf-8")  # valid UTF-8: no lone surrogate got through
            assert "\ud800" not in text and "\\ud800" not in text, path


# ------------------------------------------------------------------ issue 15.4: invisible and non-characters in names

NOT_IN_NAMES = [
    "\ufffe",
    "\uffff",
    "\ufdd0",
    "\ufdef",
    "\U0001fffe",
    "\U0010ffff",  # noncharacters: invalid XML
    "\u2060",
    "\u2061",
    "\u2062",
    "\u2063",
    "\u2064",
    "\u061c",
    "\u00ad",
    "\u034f",
    "\u180e",
    "\u115f",
    "\u1160",
    "\u3164",
    "\uffa0",
    "\ufe0f",
    "\U000e0100",
    "\U000e0041",
    "\U000e007f",
    "\U000e0001",  # invisible look-alikes
    "\ue000",
    "\U000f0000",  # private use
    "\u0378",  # unassigned
    "\u00a0",
    "\u3000",  # spaces that pass for U+0020
]


@pytest.mark.parametrize("char", NOT_IN_NAMES, ids=[f"U+{ord(c):04X}" for c in NOT_IN_NAMES])
def test_a_name_holding_an_invisible_or_non_character_is_marked_and_reported(export, char):
    export.run(graded(RID), rid=RID, agent=f"os{char}prey")
    export.sidecars()
    ex = load(export)
    problem = assert_problem(
        ex, "agents.json", "[0].name", "holds control characters or lone surrogates; shown as \ufffd"
    )
    assert f"U+{ord(char):04X}" in problem.message
    assert ex.runs[0].agent_name == "os\ufffdprey"
    summary = render(ex)
    assert summary["agents"][0]["name"] == "os\ufffdprey"
    assert {"path": "agents.json", "field": "[0].name"}.items() <= next(
        p for p in summary["problems"] if p["field"] == "[0].name"
    ).items()


@pytest.mark.parametrize("name", ["osprey", "Kestrel-2 (β)", "合作代理", "émile", "e\u0301mile", "😀 agent", "x²"])
def test_ordinary_names_are_left_alone(export, name):
    export.run(graded(RID), rid=RID, agent=name)
    export.sidecars()
    ex = load(export)
    assert ex.problems == () and ex.runs[0].agent_name == name


def test_noncharacters_in_free_text_are_marked_too(export):
    ex = one_run(export, graded(RID, judge_detail="judge \uffff said \ufdd0 ok"))
    assert_problem(ex, RESULT, "grade.judge_detail", "shown as \ufffd (U+FFFF, U+FDD0)")
    assert ex.runs[0].grade.judge_detail == "judge \ufffd said \ufffd ok"


def test_a_run_read_again_for_its_page_after_the_export_changed_is_a_clear_error(tmp_path):
    """A run page re-reads its result.json; if the export changed since the runs were counted, the build
    stops with an error naming the file (exit 3: build again), never a traceback about a missing grade."""
    export = ExportDir(tmp_path / "export")
    rid = run_id(1)
    export.run(graded(rid, det=1.0, judge=0.5), rid=rid)
    export.sidecars()
    record = next(r for r in summarize(load_export(export.root)).runs if r.run_id == rid)
    result = export.root / record.directory / "result.json"
    assert whole_run((export.root,), record, Limits()).grade is not None
    result.write_bytes(result.read_bytes() + b" ")
    with pytest.raises(BuildError, match=rf"{record.directory}/result.json changed while the site was being built"):
        whole_run((export.root,), record, Limits())
    result.unlink()
    with pytest.raises(BuildError, match=rf"{record.directory}/result.json was removed or became unreadable"):
        whole_run((export.root,), record, Limits())


@pytest.mark.parametrize("cell, version", [("m1 v3", "r3"), ("m1 v1.0.0", "1.0.0"), ("m1 v2a", "2a")])
def test_a_reports_bare_version_is_an_install_revision(export, cell, version):
    """counting.md §7: with neither a grade nor a runs.json row to say, the report's Mission row
    gives the version, and a bare number there (``v3``) is the install revision ``r3`` (which sorts
    below every SemVer version), never SemVer 3.0.0."""
    ex = one_run(export, env_failure(RID), sidecars=False, report=report_md(mission=cell))
    assert ex.runs[0].version == version


def test_a_result_naming_another_run_keeps_the_run_runs_json_lists_there(export):
    """A directory whose result.json names another run's id, while runs.json lists a run for the directory:
    the listed run is the one exported there, so it is counted (the mismatch named as a problem), never
    merged into the run it named (found by test_any_result_json_is_counted_or_listed)."""
    first, second = run_id(1), run_id(2)
    export.run(graded(first), rid=first)
    export.run(graded(first, det=0.1, judge=0.1), rid=second)  # second's directory, first's id inside
    export.sidecars()
    ex = load(export)
    assert {r.run_id for r in ex.runs} == {first, second}
    assert_problem(ex, f"{second[:8]}/result.json", "grade.run_id", f"run id {first} does not match the directory name")
