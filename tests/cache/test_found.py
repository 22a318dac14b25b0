"""A run page's key names only the answers that occur in its texts (cache/found.py): a batch of per-run answers
renders the batch's own run pages, and an old page a new answer occurs in is rendered again and redacted.

Every rebuild is compared with a clean build (no cache) of the same export."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest
from cachekit import CacheProject
from exportkit import graded, report_md, run_id
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import podium.build
import podium.cache.found
import podium.load.export.runs
from podium.cache.found import _Scan
from podium.cache.skeleton import report_skeleton, result_skeleton, skeleton
from podium.load.fields import Fields, drop_format
from podium.load.result import read_result
from podium.render.markdown import render_report, report_texts
from podium.safety.redact import Redaction, as_read
from podium.safety.safe import page_texts


def _check(value: str) -> dict:
    return {
        "id": "flag",
        "source": "artifacts",
        "ref": "flag",
        "op": "equals",
        "value": value,
        "passed": True,
        "weight": 1.0,
        "error": None,
        "blocked_by": [],
    }


def answer(n: int) -> str:
    return f"Fl4g-run-{n}!x7q"  # one distinct answer per run, as CTF platforms deploy them


class PerRun(CacheProject):
    """Runs each with an answer of their own (passed), in two missions."""

    def add(self, n: int, mission: str | None = None, report_extra: str = "", value: str | None = None, **grade) -> str:
        rid = run_id(f"run-{n}")
        body = graded(rid, det=1.0, judge=0.5, check_breakdown=[_check(value or answer(n))], **grade)
        self.export.run(
            body,
            rid=rid,
            mission=mission or ("m1", "m2")[n % 2],
            agent=("osprey", "kestrel")[n % 2],
            report=report_md(rid=rid, extra=f"| Note | run {n} |\n{report_extra}"),
        )
        return rid


@pytest.fixture
def project(tmp_path) -> PerRun:
    project = PerRun(tmp_path, runs=8)
    project.build()
    return project


_RUN_PAGE = re.compile(r"runs/[0-9a-f]{32}/index\.html")


def _run_pages(built: podium.build.Built) -> list[str]:
    return sorted(path for path, _ in built.why if _RUN_PAGE.fullmatch(path))


def _page(project: CacheProject, n: int) -> str:
    return (project.tmp / "site" / "runs" / run_id(f"run-{n}") / "index.html").read_text()


def _batch(project: PerRun, numbers, **kw) -> podium.build.Built:
    for n in numbers:
        project.add(n, **kw)
    project.export.sidecars()
    return project.build(explain=True)


def test_a_batch_of_per_run_answers_renders_only_its_own_run_pages(project):
    built = _batch(project, range(8, 11))
    assert _run_pages(built) == sorted(f"runs/{run_id(f'run-{n}')}/index.html" for n in range(8, 11))
    project.assert_same_as_clean()
    again = _batch(project, range(11, 14))  # and the next batch, on the rows this one kept
    assert len(_run_pages(again)) == 3
    project.assert_same_as_clean()


def test_a_batch_glances_at_the_kept_runs_once_and_reads_only_those_that_may_hold_a_new_answer(project, monkeypatch):
    made = []
    real = podium.cache.found.FoundAnswers

    def counting(*args):
        made.append(real(*args))
        return made[-1]

    monkeypatch.setattr(podium.cache.found, "FoundAnswers", counting)
    report = project.export.root / run_id("run-2")[:8] / "report.md"
    report.write_text(report.read_text() + f"\nrun-8 will submit {answer(8)}\n")  # (quoted before it exists)
    project.build()
    built = _batch(project, range(8, 10))
    # every run of the two missions is glanced at (each has a new answer); only run-2's texts may hold one, and do
    assert (made[-1].glanced, made[-1].read) == (10, 1)
    assert _run_pages(built) == sorted(f"runs/{run_id(f'run-{n}')}/index.html" for n in (2, 8, 9))
    assert answer(8) not in _page(project, 2)
    project.export.run(
        graded(run_id("run-20"), det=0.0, judge=0.5), rid=run_id("run-20"), mission="m1", report=report_md()
    )
    project.export.sidecars()
    project.build()
    # no new answer (it passed nothing): only the new run is looked for its mission's answers, and holds none
    assert (made[-1].glanced, made[-1].read) == (1, 0)


@pytest.mark.parametrize(
    "spelled",
    [
        "**Quoted**-0ld!answer",
        "Quoted&#45;0ld!answer",
        "[Quoted](https://example.com/x)-0ld!answer",
        "Quo\u200bted-0ld!answer",
    ],
    ids=["emphasis", "entity", "link", "format character"],
)
def test_a_new_answer_quoted_in_an_old_report_re_renders_that_page_redacted(project, spelled):
    quoted = "Quoted-0ld!answer"
    report = project.export.root / run_id("run-2")[:8] / "report.md"
    report.write_text(report.read_text() + f"\nThe agent said {spelled} twice.\n")
    project.build()
    assert quoted[6:] in _page(project, 2)
    built = _batch(project, [9], value=quoted)  # run-9 (mission m2) passes it; run-2 is of m1: m1's page kept
    assert f"runs/{run_id('run-2')}/index.html" not in _run_pages(built)
    built = _batch(project, [10], value=quoted)  # run-10 is of m1: run-2's page holds it
    assert f"runs/{run_id('run-2')}/index.html" in _run_pages(built)
    assert quoted[6:] not in _page(project, 2)
    project.assert_same_as_clean()


@pytest.mark.parametrize(
    "where",
    [
        {"judge_detail": "the agent printed Fl4g-new-1!x7q\u200b… then Fl4g-new-1!x7q"},
        {"models_reported": ["gpt-Fl4g-new-1!x7q"]},
        {"model": "m Fl4g-new-1!x7q"},
    ],
    ids=["judge detail", "reported model", "declared model"],
)
def test_a_new_answer_in_an_old_runs_result_json_texts_re_renders_that_page(tmp_path, where):
    project = PerRun(tmp_path, runs=0)
    project.add(0, mission="m1", **where)
    project.add(1, mission="m1")
    project.export.sidecars()
    project.build()
    assert "Fl4g-new-1!x7q" in _page(project, 0)
    built = _batch(project, [2], mission="m1", value="Fl4g-new-1!x7q")
    assert f"runs/{run_id('run-0')}/index.html" in _run_pages(built)
    assert f"runs/{run_id('run-1')}/index.html" not in _run_pages(built)
    assert "Fl4g-new-1!x7q" not in _page(project, 0)
    project.assert_same_as_clean()


def test_an_answer_removed_with_its_run_is_shown_again_where_quoted(project):
    quoted = answer(4)  # run-4's own answer (mission m1), quoted in run-2's report
    report = project.export.root / run_id("run-2")[:8] / "report.md"
    report.write_text(report.read_text() + f"\nA neighbour's flag: {quoted}\n")
    project.build()
    assert quoted not in _page(project, 2)
    gone = project.export.root / run_id("run-4")[:8]
    for path in gone.iterdir():
        path.unlink()
    gone.rmdir()
    project.export.rows = [row for row in project.export.rows if row["run_id"] != run_id("run-4")]
    project.export.sidecars()
    built = project.build(explain=True)
    assert f"runs/{run_id('run-2')}/index.html" in _run_pages(built)
    assert quoted in _page(project, 2)  # nobody passed it any more: no longer an answer
    project.assert_same_as_clean()


def test_a_batch_without_the_found_rows_renders_every_run_page_again(project, monkeypatch):
    """What the found rows save (and that this test module's counts could fail): keyed by every answer of the
    mission, as before, a batch of per-run answers changes every run page's key."""
    monkeypatch.setattr(podium.build, "found_answers", lambda *args: None)
    project.build()
    built = _batch(project, range(8, 10))
    assert len(_run_pages(built)) == 10


# -------------------------------------------------- the scan, hostile texts

_SPLITS = ["\n", " \n  ", "\u200b", "\u00ad", "**", "*", "`", "~~", "\t", "  "]
_MODES = [f"split {cut}" for cut in _SPLITS] + ["entity", "link", "json", "percent", "plain", "brackets", "credentials"]
OLD, NEW = "0ld-Answ3r!kept", "N3w-answer!zz9"


def _quoted(mode: str, at: int) -> tuple[str, str]:
    """The new answer for ``mode`` and how a report quotes it: split by white space, a format character or markup
    (``at``: where), a character entity, in a link's text, JSON- or percent-escaped; around the old answer (a
    spelling with brackets meets its replacement); after a URL's credentials (met once they are cut)."""
    if mode == "brackets":
        return "x[REDACTED:value]1", f"x{OLD}1"
    if mode == "credentials":
        return "https://H0st-part!9", "https://u:pw@H0st-part!9"
    at = 1 + at % (len(NEW) - 1)
    if mode.startswith("split "):
        cut = mode[6:]
        close = cut if cut in ("**", "*", "`", "~~") else ""
        return NEW, NEW[:at] + cut + NEW[at:] + close
    spelled = {
        "entity": NEW[:at] + f"&#{ord(NEW[at])};" + NEW[at + 1 :],
        "link": f"[{NEW[:at]}](https://example.com/x){NEW[at:]}",
        "json": NEW.replace("!", "\\u0021"),
        "percent": NEW.replace("!", "%21"),
    }
    return NEW, spelled.get(mode, NEW)


@given(
    words=st.lists(
        st.sampled_from(
            ["the", "flag", "is", "`x`", "**b**", "|", "\n", "- ", "> ", "#", "[a](b)", "&amp;", "é", "\u200b", OLD]
        ),
        max_size=30,
    ),
    mode=st.sampled_from(_MODES),
    at=st.integers(0, 1000),
    where=st.integers(0, 1000),
    quoted=st.booleans(),
)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_report_the_scan_finds_no_new_answer_in_renders_as_before(words, mode, at, where, quoted):
    """The property behind the key: a report in whose texts the scan finds none of the new answers renders byte
    for byte as it did without them; one that renders otherwise is always found."""
    new, spelled = _quoted(mode, at)
    text = " ".join(words)
    if quoted:
        where %= len(text) + 1
        text = text[:where] + " " + spelled + " " + text[where:]
    before = Redaction([], {"m": [OLD]}).mission("m")
    after = Redaction([], {"m": [OLD, new]}).mission("m")
    found = _Scan([("new", new)]).found(report_texts(text))
    if render_report(text, after) != render_report(text, before):
        assert found
    if not found:
        assert render_report(text, after) == render_report(text, before)


def test_a_credentials_place_is_looked_across():
    """``https://user:pw@Host…`` loses its credentials: a spelling spanning the place they left is found."""
    text = "a\u200bb see https://user:secret@Part-two-of!it here"  # (a format character: the reader view's pass)
    new = "https://Part-two-of!it"
    before = Redaction([], {"m": ["filler-answer!1"]}).mission("m")
    after = Redaction([], {"m": ["filler-answer!1", new]}).mission("m")
    assert after(text) != before(text)  # found only once the credentials are cut
    assert new not in text.replace("\u200b", "")
    assert _Scan([("d", new)]).found([text]) == {"d"}
    assert _Scan([("d", "https://Other-host!x")]).found([text]) == set()


def test_a_spelling_with_a_bracket_counts_as_found_everywhere():
    assert _Scan([("d", "a]REDACTED!9")]).found(["nothing alike"]) == {"d"}
    assert _Scan([("d", "plain-Answer!9")]).found(["nothing alike"]) == set()


def test_encoded_and_split_spellings_are_found():
    new = "Enc0ded!answer"
    scan = _Scan([("d", new)])
    assert scan.found(["Enc0ded%21answer"]) == {"d"}  # percent-encoded
    assert scan.found(["RW5jMGRlZCFhbnN3ZXI"]) == {"d"}  # base64
    assert scan.found(["Enc0\u200bded!an\n  swer"]) == set()  # (a space is not nothing: "an swer" is another text)
    assert scan.found(["Enc0\u200bded!answer"]) == {"d"}  # as a reader sees it
    assert scan.found(report_texts(f"x **{new[:4]}**{new[4:]} y")) == {"d"}  # joined across the markup
    assert scan.found(report_texts(f"x {new[:4]}&#{ord(new[4])};{new[5:]} y")) == {"d"}  # an entity decoded


_PIECES = [
    "Sec",
    "r3t",
    "-x!",
    "**",
    "*",
    "_",
    "`",
    "~~",
    "\n",
    "\n> ",
    "\n- ",
    "  \n",
    "\\",
    "|",
    "#",
    "<b>",
    "é",
    "\u200b",
    "\n## Artifacts\n",
    "\n## Telemetry\n",
    "\n## Deterministic checks\n",
    "\n## Judge rubric\n",
    "\r",
    "\u200b## Telemetry\n",
]


@given(st.lists(st.sampled_from(_PIECES + ["&amp;", "[a](b)", "<http://x>", "xn--a"]), max_size=40))
@example(["Sec", "\n## Artifacts\n", "r3t", "\n", "\u200b## Telemetry\n", "-x!"])  # a heading behind a format character
@example(["Sec", "\n## Artifacts\n", "r3t", "\r## Telemetry\r", "-x!"])  # lines that end in CR
@example(["Sec", "\n## Deterministic checks\n", "r3t", "\n## Judge rubric\n", "-x!", "\n## Artifacts\n"])
@settings(max_examples=300, deadline=None)
def test_a_reports_skeleton_holds_every_text_its_page_redacts(pieces):
    """cache/skeleton.py's claim on reports: every text the renderer hands the redactor has its skeleton in the
    report's (or the report is one to read whole)."""
    text = "".join(pieces)
    seen = report_skeleton(text.encode())
    if seen is None:
        assert any(p in text for p in ("&", "](", "<http", "xn--"))
        return
    whole = report_skeleton(text.encode(), cut=False)  # (the withheld sections too: more, never less)
    for piece in report_texts(drop_format(text)):  # (read as render/report.py reads a report)
        assert skeleton(as_read(piece)) in seen
        assert skeleton(as_read(piece)) in whole


@given(st.text(), st.booleans(), st.booleans(), st.integers(0, 6))
@settings(max_examples=300, deadline=None)
def test_a_result_jsons_skeleton_holds_every_text_the_loader_reads(value, ascii_only, line, every):
    """The claim on result.json: a string as the loader cleans it has its skeleton in the file's, escapes decoded
    (``every``: each so many characters written as a ``\\u`` escape, as any JSON writer may)."""
    written = "".join(
        f"\\u{ord(ch):04x}"
        if every and ch.isascii() and ch.isalnum() and n % every == 0
        else json.dumps(ch, ensure_ascii=ascii_only)[1:-1]
        for n, ch in enumerate(value)
    )
    data = ('{"judge_detail": "' + written + '"}').encode("utf-8", "surrogatepass")
    assert json.loads(data) == {"judge_detail": value}
    assert skeleton(Fields("r", []).clean(value, "f", line=line)) in (result_skeleton(data))


_HOSTILE = st.text(alphabet=st.sampled_from('aZ9-!/\\"\n\t\u200b\u00e9\x01 {}[]:,'), max_size=12)


@given(_HOSTILE, _HOSTILE, _HOSTILE, _HOSTILE)
@example('see "value": "Leak3d-s3cret!" here', "x\\", '"value":"y"', 'm "value" : "z"')  # a value's shape, quoted
@settings(max_examples=150, deadline=None)
def test_a_result_jsons_skeleton_holds_every_text_its_page_redacts(detail, reason, error, model):
    """The same, through the loader: every text run_view redacts (safety/safe.py ``page_texts``) of a result.json
    with hostile strings in its judge detail, a rubric reason, a check's error and a model name."""
    body = graded("r" * 32, judge_detail=detail, models_reported=[model], model=model)
    body["grade"]["judge_breakdown"][0]["reason"] = reason
    body["grade"]["check_breakdown"][0]["error"] = error
    data = json.dumps(body).encode()
    result = read_result(json.loads(data), Fields("r", []))
    seen = result_skeleton(data)
    run = SimpleNamespace(
        models_reported=result.models_reported, model_declared=None, conditions=result.conditions, grade=result.grade
    )
    for text in page_texts(run):
        if isinstance(text, str):
            assert skeleton(as_read(text)) in seen


def test_an_answer_spelled_with_json_escapes_is_read_back_from_its_witness(tmp_path, monkeypatch):
    """load/export/runs.py ``witnessed_answers`` reads the checks' values from a witness's bytes: an answer the
    file writes with escapes (a quote, a backslash, a non-ASCII letter) is read back, so its run is taken back
    from the cache, not counted afresh."""
    project = PerRun(tmp_path, runs=0)
    for n, value in enumerate(['qu"ote\\d-Fl4g!', "caf\u00e9-Fl4g-9!x", "tab\tand\u2028line-Fl4g!"]):
        project.add(n, mission="m1", value=value)
    project.export.sidecars()
    data = (project.export.root / run_id("run-1")[:8] / "result.json").read_bytes()
    (project.export.root / run_id("run-1")[:8] / "result.json").write_bytes(data.replace("é".encode(), b"\\u00e9"))
    project.build()
    project.add(7, mission="m1")
    project.export.sidecars()
    counted: list[str] = []
    real = podium.load.export.runs._attribute
    monkeypatch.setattr(
        podium.load.export.runs, "_attribute", lambda item, *a: counted.append(item.run_id) or real(item, *a)
    )
    project.build()
    assert counted == [run_id("run-7")]
    monkeypatch.undo()
    project.assert_same_as_clean()


def test_a_new_answer_of_another_mission_in_a_runs_configuration_model_re_renders_its_page(tmp_path):
    """A run's configuration, as its public record carries it, has its model redacted with every mission's answers
    (safety/safe.py ``_ModelTexts``), which the found answers (its own mission's) do not name: the run page's key
    holds that configuration, so a theme that shows it never keeps a page the new answer would redact."""
    templates = tmp_path / "overrides" / "templates"
    templates.mkdir(parents=True)
    (templates / "run.html").write_text('<p id="conf">{{ record.configuration.model if record.configuration }}</p>\n')
    project = PerRun(tmp_path, runs=0)
    project.settings = {"title": "Board", "theme_dir": tmp_path / "overrides"}
    project.add(0, mission="m1", model="cfg Fl4g-new-1!x7q")
    project.add(1, mission="m2")
    project.export.sidecars()
    project.build()
    assert "Fl4g-new-1!x7q" in _page(project, 0)
    _batch(project, [3], mission="m2", value="Fl4g-new-1!x7q")  # another mission's answer
    assert "Fl4g-new-1!x7q" not in _page(project, 0)
    project.assert_same_as_clean()
