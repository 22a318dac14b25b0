"""A mission's answers stay secret on every run's page, and templates only ever get safe values.

Run A of ``kerberoast-lab`` passed its artifacts checks with the service password
and the account name: they are the mission's answers. Run B of the same mission
(another version) never submitted them, but its judge quotes them in every field a
judge or an agent writes. No output file may hold them in any form. Ordinary short
values (``fetched``) and plain words (``swordfish``) stay readable on other runs'
pages (safety/redact.py ``is_answer``).
"""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

from exportkit import ExportDir, graded, report_md, run_id
from sitekit import build, site_files

from podium.safety.redact import is_answer

PASSWORD = "Autumn2026!"
ACCOUNT = "CORP\\svc_sql01"
ANSWERS = (PASSWORD, ACCOUNT)
ORDINARY = ("fetched", "swordfish")


def forms(value: str) -> list[str]:
    return [value, base64.b64encode(value.encode()).decode(), quote(value, safe=""), json.dumps(value)[1:-1]]


def quoted_everywhere() -> str:
    return " / ".join(form for value in ANSWERS for form in forms(value)) + " and " + " ".join(ORDINARY)


def checks(values: list[tuple[str, str, bool]]) -> list[dict]:
    return [
        {
            "id": f"c{i}",
            "source": "artifacts",
            "ref": "flag",
            "op": op,
            "value": value,
            "passed": passed,
            "weight": 1.0,
            "error": None,
            "blocked_by": [],
        }
        for i, (value, op, passed) in enumerate(values)
    ]


def make_export(root) -> tuple[ExportDir, str, str]:
    export = ExportDir(root)
    solver, quoter = run_id("solver"), run_id("quoter")
    export.run(
        graded(
            solver,
            mission_version="1.2.0",
            check_breakdown=checks(
                [
                    (PASSWORD, "equals", True),
                    (ACCOUNT, "equals", True),
                    ("fetched", "observed", True),
                    ("swordfish", "equals", True),
                    ("WRONG-GUESS-123", "equals", False),
                ]
            ),
        ),
        rid=solver,
        mission="kerberoast-lab",
        version="1.2.0",
    )
    said = f"Recovered the service password {quoted_everywhere()} from the TGS but never submitted it"
    body = graded(
        quoter,
        mission_version="1.3.0",
        judge_detail=said,
        models_reported=[f"gpt-{PASSWORD}"],
        check_breakdown=checks([("not-it-at-all", "equals", False)]),
        judge_breakdown=[
            {
                "criterion_id": "recon",
                "text": said,
                "weight": 1.0,
                "score": 0.5,
                "reason": said,
                "status": "ok",
                "criterion_prompt": "x",
            }
        ],
    )
    export.run(
        body,
        rid=quoter,
        mission="kerberoast-lab",
        version="1.3.0",
        report=report_md(
            mission="kerberoast-lab v1.3.0",
            rid=quoter,
            extra=f"| Agent model | {said} |\n\n## Judge rubric\n\n> {said}\n",
        ),
    )
    export.sidecars()
    return export, solver, quoter


def test_answers_are_redacted_in_every_output_file(tmp_path):
    export, _, quoter = make_export(tmp_path / "export")
    files = site_files(build(export.root, tmp_path / "site"))
    page = files[f"runs/{quoter}/index.html"].decode()
    assert "Recovered the service password" in page and "[REDACTED:value]" in page
    for path, data in files.items():
        text = data.decode("utf-8", errors="replace")
        for value in ANSWERS:
            for form in forms(value):
                assert form not in text, (path, form)
                assert form.replace("\\", "&#92;") not in text, (path, form)
    assert "WRONG-GUESS-123" not in b"".join(files.values()).decode(
        errors="replace"
    )  # a failed value is the solver's own secret


def test_short_and_plain_values_are_not_redacted_on_other_runs_pages(tmp_path):
    export, solver, quoter = make_export(tmp_path / "export")
    files = site_files(build(export.root, tmp_path / "site"))
    quoter_page = files[f"runs/{quoter}/index.html"].decode()
    for word in ORDINARY:
        assert word in quoter_page, word
    solver_page = files[f"runs/{solver}/index.html"].decode()
    assert "swordfish" not in solver_page  # on its own run's page a submitted value is always redacted


def test_the_answer_rule_both_sides():
    for value in (
        PASSWORD,
        ACCOUNT,
        "db01.corp.local",
        "5f4dcc3b5aa765d61d8327deb882cf99",
        "correct horse battery staple",
    ):
        assert is_answer(value), value
    for value in ("fetched", "swordfish", "administrator", "Admin1!", "   padded   ", "completed"):
        assert not is_answer(value), value


def test_templates_get_no_secret_in_any_field(tmp_path):
    """A theme override printing every field of every object in the run page's context (its public record and its whole run) publishes nothing."""
    export, _, quoter = make_export(tmp_path / "export")
    override = tmp_path / "theme" / "templates"
    override.mkdir(parents=True)
    (override / "run.html").write_text(
        '{% extends "default:run.html" %}{% block main %}{{ super() }}'
        "<pre>{{ record }}</pre><pre>{{ run }}</pre><pre>{{ report_html }}</pre><pre>{{ page }}</pre><pre>{{ site }}</pre>"
        "<pre>{{ page_title }}</pre>{% endblock %}",
        encoding="utf-8",
    )
    for name in ("index.html", "runs.html", "agent.html", "mission.html", "missions.html"):
        (override / name).write_text(
            f'{{% extends "default:{name}" %}}{{% block main %}}{{{{ super() }}}}<pre>'
            + "{% for key in ['cards', 'rows', 'runs', 'tables', 'agent', 'mission', 'older', 'missions'] %}"
            + "{% if key in self._TemplateReference__context %}{{ self._TemplateReference__context[key] }}{% endif %}"
            + "{% endfor %}</pre>{% endblock %}",
            encoding="utf-8",
        )
    files = site_files(build(export.root, tmp_path / "site", theme_dir=tmp_path / "theme"))
    page = files[f"runs/{quoter}/index.html"].decode()
    assert "secrets=()" in page and "answers=()" in page  # the dump really printed the record
    everything = b"".join(files.values()).decode("utf-8", errors="replace")
    assert "RunRecord(" in files["runs/index.html"].decode()  # ...and the ledger's records
    for secret in (
        *ANSWERS,
        "WRONG-GUESS-123",
        "SECRET-JUDGE-PROMPT",
        "SECRET-CRITERION-PROMPT",
        "SECRET-LOG-TAIL",
        "SECRET-TERMINAL-DETAIL",
        "SECRET-ENDPOINT",
        "SECRET-EVENT",
        "SECRET-TRACE",
    ):
        assert secret not in everything, secret
