"""Every command prints only what the site publishes (issue 15 §1).

An export plants every kind of secret the site redacts: a configured ``redact:`` literal,
a run's own submitted check value, a mission's answer (a value that passed an artifacts
check on another run), key-shaped model names, and agent-written report text. The built
site holds none of them; neither does stdout or stderr of any command and flag. The
``--json`` outputs equal the published JSON byte for byte where docs/usage.md says so.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from exportkit import ExportDir, graded, report_md, run_id
from sitekit import read_site_file

from podium.commands.cli import main
from podium.render.data import dump_json

LITERAL = "CONFIGURED-literal-7781"
OWN = "FLAG{own-value-5521}"
ANSWER = "Autumn2026!answer"
KEY = "sk-proj-" + "A1b2C3d4E5f6G7h8" * 3
LIVE_KEY = "sk-live-" + "Zz9Yy8Xx7Ww6Vv5U" * 2
SECRETS = (LITERAL, OWN, ANSWER, KEY, LIVE_KEY)


def forms(value: str) -> list[str]:
    return [value, base64.b64encode(value.encode()).decode(), quote(value, safe=""), json.dumps(value)[1:-1]]


def planted(root: Path) -> ExportDir:
    export = ExportDir(root)
    answer_check = [
        {
            "id": "flag",
            "source": "artifacts",
            "ref": "flag",
            "op": "equals",
            "value": ANSWER,
            "passed": True,
            "weight": 1.0,
            "error": None,
            "blocked_by": [],
        }
    ]
    own_check = [
        {
            "id": "flag",
            "source": "artifacts",
            "ref": "flag",
            "op": "equals",
            "value": OWN,
            "passed": False,
            "weight": 1.0,
            "error": None,
            "blocked_by": [],
        }
    ]
    # osprey solves the mission: its submitted value is the mission's answer
    for n in range(3):
        export.run(
            graded(run_id(f"solve{n}"), det=1.0, judge=0.8, check_breakdown=answer_check, models_reported=[KEY]),
            rid=run_id(f"solve{n}"),
            agent="osprey",
            mission="m1",
            at=n * 60,
        )
    # kestrel: model names carry the mission's answer, its own check value, a configured literal and a key
    for n in range(3):
        said = f"Quoted {ANSWER} and {OWN} and {LITERAL} and {LIVE_KEY}"
        export.run(
            graded(
                run_id(f"quote{n}"),
                det=0.5,
                judge=0.4,
                check_breakdown=own_check,
                models_reported=[f"gpt-{ANSWER}", f"model-{OWN}", f"m-{LITERAL}", LIVE_KEY],
                model=f"declared-{OWN}",
                judge_detail=said,
            ),
            rid=run_id(f"quote{n}"),
            agent="kestrel",
            mission="m1",
            at=200 + n * 60,
            report=report_md(
                agent="kestrel v1",
                mission="m1 v1.0.0",
                rid=run_id(f"quote{n}"),
                extra=f"\n{said}\n\n## Judge rubric\n\n> {said}\n",
            ),
        )
    # a problem whose message would quote the run's own value and a key (an unknown judge status)
    export.run(
        graded(run_id("odd"), judge_status=OWN, check_breakdown=own_check),
        rid=run_id("odd"),
        agent="kestrel",
        mission="m1",
        at=600,
    )
    export.run(graded(run_id("odd2"), judge_status=KEY), rid=run_id("odd2"), agent="kestrel", mission="m1", at=660)
    return export.sidecars()


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    planted(tmp_path / "export")
    (tmp_path / "podium.yaml").write_text(
        f"title: t\nexport: export\nout: site\nredact: [{json.dumps(LITERAL)}]\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def leaks(text: str) -> list[str]:
    return [form for secret in SECRETS for form in forms(secret) if form in text]


def run_cli(*args: str, code: int | None = 0):
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    output = result.stdout + result.stderr
    assert "Traceback" not in output
    if code is not None:
        assert result.exit_code == code, output
    return result


def test_the_site_itself_holds_no_planted_secret(project):
    run_cli("build", "--no-cache")
    for path in (project / "site").rglob("*"):
        if path.is_file():
            assert leaks(read_site_file(path).decode("utf-8", "replace")) == [], path


COMMANDS = [
    ("build", "--no-cache"),
    ("build", "--no-cache", "--verbose"),
    ("build", "--no-cache", "--strict"),
    ("check",),
    ("rank",),
    ("rank", "--json"),
    ("rank", "--by", "model"),
    ("rank", "--by", "model", "--json"),
    ("compare", "osprey", "kestrel"),
    ("compare", "osprey", "kestrel", "--json"),
    ("history", "osprey"),
    ("history", "osprey", "--json"),
    ("history", "kestrel"),
    ("history", "kestrel", "--json"),
]


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_no_command_prints_a_planted_secret(project, args):
    result = run_cli(*args, code=None)
    assert result.exit_code in (0, 1), result.output
    assert leaks(result.stdout) == []
    assert leaks(result.stderr) == []


def test_diff_prints_no_planted_secret(project):
    run_cli("build", "--no-cache", "--out", "old")
    (project / "export" / run_id("solve0")[:8]).rename(project / "gone")  # something changed
    run_cli("build", "--no-cache", "--out", "new")
    for args in (
        ("diff", "old", "new"),
        ("diff", "old", "new", "--json"),
        ("diff", "old", "new", "--fail-on-drop", "*=0"),
    ):
        result = run_cli(*args, code=None)
        assert leaks(result.stdout + result.stderr) == [], args


def test_serve_lines_hold_no_planted_secret(project):
    proc = subprocess.Popen(
        [sys.executable, "-m", "podium", "serve", "--port", "0"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline, seen = time.monotonic() + 60, ""
        while "serving" not in seen and time.monotonic() < deadline and proc.poll() is None:
            seen += proc.stderr.readline()
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=20)
    assert "serving" in seen, seen + err
    assert leaks(seen + out + err) == []


def test_json_outputs_equal_the_published_files_byte_for_byte(project):
    run_cli("build", "--no-cache")
    results = project / "site" / "api" / "results"
    summary = json.loads((results / "summary.json").read_text(encoding="utf-8"))
    assert run_cli("rank", "--json").stdout_bytes == dump_json(summary["agents"])
    assert run_cli("rank", "--by", "model", "--json").stdout_bytes == dump_json(summary["by_model"])
    pairs = json.loads((results / "compare.json").read_text(encoding="utf-8"))["pairs"]  # those with a page
    summary_of_pair = next(p for p in pairs if {p["a_name"], p["b_name"]} == {"osprey", "kestrel"})
    pair = json.loads((project / "site" / summary_of_pair["detail"]).read_text(encoding="utf-8"))  # in full
    assert pair.pop("schema") == "podium.compare-pair/1"
    assert run_cli("compare", "kestrel", "osprey", "--json").stdout_bytes == dump_json(pair)
    kestrel = next(a for a in summary["agents"] if a["name"] == "kestrel")
    assert (
        run_cli("history", "kestrel", "--json").stdout_bytes
        == (project / "site" / kestrel["progress"]["url"]).read_bytes()
    )


def test_commands_read_the_board_through_one_way_in():
    """commands/cli.py never sees the raw summary: it imports the public view and the build, nothing that counts."""
    source = (Path(__file__).parents[2] / "generator" / "podium" / "commands" / "cli.py").read_text(encoding="utf-8")
    imported = set(re.findall(r"^from podium\.([\w.]+) import", source, re.M))
    assert not imported & {"count.summarize", "load.export", "count.compare", "safety.safe"}
    assert "count_export" not in source and "summarize(" not in source
