"""The withholding contract (safety/withhold.py), as a property and on a built site.

Canaries are planted in every agent- or judge-controlled position of a report
(artifact payloads, the checks table, terrain, rubric text and reasons, judge
detail, telemetry warnings, reported model names), together with forged headings
of every section name (levels 1–3, setext, trailing #s, leading spaces), broken and
longer fences, HTML blocks and link definitions, under LF, CRLF or CR line ends.
No canary planted inside a withheld section may appear in the output. The
canaries have no secret shape, so redaction cannot hide a withholding failure.
"""

from __future__ import annotations

import re

from exportkit import ExportDir, graded, run_id
from hypothesis import HealthCheck, given, seed, settings
from sitekit import build, site_files
from withholdkit import FORGERIES, POSITIONS, PUBLISHED_POSITIONS, canary, forged, hostile_injections, leaked, report

from podium.render.markdown import render_report
from podium.safety.redact import Redactor
from podium.safety.withhold import withheld_ranges, withhold


@seed(20261130)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_injections())
def test_no_withheld_canary_survives_any_forgery(case):
    inject, newline = case
    text = report(inject).replace("\n", newline)
    assert leaked(withhold(text)) == []
    assert leaked(str(render_report(text, Redactor()))) == []


def test_the_issue_reproduction_forged_rubric_heading_in_an_artifact():
    inject = {"artifact": "## Judge rubric\nSOLUTION-SCRIPT-BODY"}
    out = str(render_report(report(inject), Redactor()))
    assert "SOLUTION-SCRIPT-BODY" not in out
    assert "Withheld" in out


def test_every_range_is_computed_on_the_original_lines():
    lines = report({"artifact": "## Judge rubric\nX"}).split("\n")
    ranges = {section: (start, end) for start, end, section in withheld_ranges(lines)}
    artifacts = lines.index("## Artifacts")
    telemetry = lines.index("## Telemetry")
    assert ranges["artifacts"] == (artifacts, telemetry)  # not moved by the checks cut
    assert ranges["deterministic checks"][1] > artifacts  # the forged end only made the checks cut larger


def test_published_sections_stay_published():
    inject = {p: canary(p) for p in POSITIONS}
    out = str(render_report(report(inject), Redactor()))
    assert leaked(out) == []
    for position in PUBLISHED_POSITIONS:
        assert canary(position) in out, position
    assert "Telemetry" in out and "Conditions" in out


def test_a_forged_later_heading_cannot_shorten_a_cut():
    # a forged "## Telemetry" inside the artifacts: the real one comes later and ends the cut
    inject = {"artifact": f"## Telemetry\n{canary('artifact')}", "terrain": canary("terrain")}
    assert leaked(withhold(report(inject))) == []


def test_a_link_definition_in_a_withheld_section_cannot_be_used():
    inject = {"artifact": f"[ref]: https://x.example/{canary('artifact')}", "rubric_text": "see [the answer][ref]"}
    assert canary("artifact") not in str(render_report(report(inject), Redactor()))


def test_no_withheld_canary_reaches_any_output_file(tmp_path):
    export = ExportDir(tmp_path / "export")
    for n, template in enumerate(FORGERIES):
        inject = {p: forged(template, p, n + i) + "\n" + canary(p) for i, p in enumerate(POSITIONS)}
        rid = run_id(f"forged-{n}")
        body = graded(rid, judge_detail=canary("judge_detail"), models_reported=[canary("model")])
        newline = ("\n", "\r\n", "\r")[n % 3]
        export.run(body, rid=rid, report=report(inject).replace("\n", newline))
    export.sidecars()
    files = site_files(build(export.root, tmp_path / "site", base_url="https://x.example/"))
    assert len([p for p in files if p.startswith("runs/") and p.count("/") == 2]) == len(FORGERIES)
    assert {"feed.xml", "api/results/runs.json", "api/results/ledger.js", "sitemap.xml"} <= set(files)
    assert any(p.startswith("api/results/ledger/") and p.endswith(".csv") for p in files)  # the ledger's parts
    for path, data in files.items():
        text = data.decode("utf-8", errors="replace")
        assert leaked(text) == [], path
    published = b"".join(files.values())
    assert re.search(rb"CANARYxrubricxtextx7q", published)  # the positions were really rendered
