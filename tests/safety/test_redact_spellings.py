"""Every spelling of a value is redacted (issue 29, items 3 and 11).

A flag read from a file ends in a newline, and the judge quotes it without one: a value is
redacted as submitted and trimmed of the white space around it, on its own run's page and, as
the mission's answer, on every other run's (item 3). And an answer is redacted in each of the
spellings tools write it in: base64 padded or unpadded, standard or URL-safe (also of the value
with the newline ``echo`` adds, and inside a longer base64 text such as a Basic credential),
percent-escapes in upper or lower case, ``+`` for a space in form encoding, JSON-escaped (item 11).

The test's encoders are the standard library's, called here; podium's list of forms is not used.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import re
from urllib.parse import quote, quote_plus

import pytest
import sitekit as kit
from exportkit import ExportDir, graded, report_md, run_id

from podium.safety.redact import Redaction

FLAG_FILE = "FLAG{read_from_a_file_42}\n"  # submitted as read from a file
PADDED = "  svc-pass-2026!  "
ANSWER = "S3cret pass>!???c"  # a space, reserved characters, and base64 with "+", "/" and "="


def _lower_escapes(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), text)


def spellings(value: str) -> dict[str, str]:
    """How tools write ``value``: every encoding item 11 lists and the ones already covered."""
    raw = value.encode()
    out = {
        "as is": value,
        "base64": base64.b64encode(raw).decode(),
        "base64 unpadded": base64.b64encode(raw).decode().rstrip("="),
        "base64 url-safe": base64.urlsafe_b64encode(raw).decode(),
        "base64 url-safe unpadded": base64.urlsafe_b64encode(raw).decode().rstrip("="),
        "base64 of echo's line": base64.b64encode(raw + b"\n").decode(),
        "percent, upper case": quote(value, safe=""),
        "percent, lower case": _lower_escapes(quote(value, safe="")),
        "form encoding": quote_plus(value, safe=""),
        "form encoding, lower case": _lower_escapes(quote_plus(value, safe="")),
        "json": json.dumps(value)[1:-1],
    }
    for prefix in ("u:", "us:", "usr:"):  # a Basic credential: the value at each offset of a base64 text
        out[f"inside base64 after {prefix!r}"] = base64.b64encode(prefix.encode() + raw + b"@x").decode()
    return out


def test_the_answer_exercises_what_it_should():
    forms = spellings(ANSWER)
    assert "+" in forms["base64"] and "/" in forms["base64"] and forms["base64"].endswith("=")
    assert forms["percent, upper case"] != forms["percent, lower case"]
    assert forms["form encoding"] != forms["percent, upper case"]


def reader_text(path: str, data: bytes) -> str:
    """A file as its reader gets it: unzipped, and entities decoded in markup."""
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    text = data.decode("utf-8", "replace")
    return html.unescape(text) if path.endswith((".html", ".svg", ".xml")) else text


def quoting(values: list[str]) -> str:
    """A judge's sentence quoting each value trimmed, in every spelling of the trimmed value."""
    return " ; ".join(f"[{name}: {form}]" for value in values for name, form in spellings(value.strip()).items())


def checks(*values: tuple[str, bool]) -> list[dict]:
    return [
        {
            "id": f"c{i}",
            "source": "artifacts",
            "ref": "flag",
            "op": "equals",
            "value": value,
            "passed": passed,
            "weight": 1.0,
            "error": None,
            "blocked_by": [],
        }
        for i, (value, passed) in enumerate(values)
    ]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("spellings")
    export = ExportDir(root / "export")
    solver, other = run_id("solver"), run_id("other")
    said = quoting([FLAG_FILE, PADDED, ANSWER])
    for rid, values in (
        (solver, checks((FLAG_FILE, True), (PADDED, True), (ANSWER, True))),
        (other, checks(("not-it-at-all", False))),
    ):
        body = graded(rid, check_breakdown=values, judge_detail=f"The judge saw {said}")
        body["grade"]["judge_breakdown"][0]["reason"] = f"Quoted {said}"
        export.run(
            body,
            rid=rid,
            report=report_md(rid=rid, extra=f"\n## Notes\n\nThe agent printed {said}\n\n```\n{said}\n```\n"),
        )
    export.sidecars()
    out = kit.build(export.root, root / "site", root=root)
    files = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    return {"files": files, "solver": solver, "other": other}


@pytest.mark.parametrize("value", [FLAG_FILE, PADDED], ids=["trailing newline", "spaces around"])
@pytest.mark.parametrize("whose", ["solver", "other"], ids=["own value", "mission answer"])
def test_a_value_with_white_space_around_it_is_redacted_trimmed(site, value, whose):
    page = reader_text("index.html", site["files"][f"runs/{site[whose]}/index.html"])
    for name, form in spellings(value.strip()).items():
        assert form not in page, (name, form)
    assert "The judge saw [as is: [REDACTED:value]]" in page


@pytest.mark.parametrize("name", sorted(spellings(ANSWER)))
def test_every_spelling_of_an_answer_is_redacted_in_every_file(site, name):
    form = spellings(ANSWER)[name]
    assert [path for path, data in site["files"].items() if form in reader_text(path, data)] == []


def test_the_base64_of_a_longer_text_is_cut_only_around_the_value():
    """Inside a Basic credential the value's own characters go; what encodes the rest may stay."""
    redact = Redaction((), {"m": [ANSWER]}).mission("m")
    credential = base64.b64encode(b"admin:" + ANSWER.encode()).decode()
    out = redact(f"Authorization: Basic {credential}")
    assert "[REDACTED:value]" in out and out.startswith("Authorization: Basic YWRtaW4")
    assert base64.b64encode(b"admin:").decode().rstrip("=") in credential


def test_a_configured_literal_with_a_newline_is_redacted_trimmed(tmp_path):
    export = ExportDir(tmp_path / "export")
    rid = run_id("configured")
    export.run(
        graded(rid, judge_detail="it used conf1gured-literal-9 and cXVvdGVk"), rid=rid, report=report_md(rid=rid)
    )
    export.sidecars()
    files = kit.site_files(kit.build(export.root, tmp_path / "site", root=tmp_path, redact=["conf1gured-literal-9\n"]))
    assert [p for p, data in files.items() if b"conf1gured-literal-9" in data] == []


def test_ordinary_text_around_the_forms_is_kept(site):
    page = site["files"][f"runs/{site['other']}/index.html"].decode()
    for name in ("base64", "percent, lower case", "form encoding", "inside base64 after 'us:'"):
        assert f"[{name}: " in html.unescape(page), name
    assert "[base64: [REDACTED:value]]" in page and "[percent, lower case: [REDACTED:value]]" in page
