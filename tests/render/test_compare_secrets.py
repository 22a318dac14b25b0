"""Model names on comparison outputs are redacted as on run pages (issue 29 item 4).

A judge model, like every model name, is written by the harness from what it was told: it can hold a key,
a configured literal or a mission's answer. Run pages redact it; the pair page, the compare data files
and ``podium compare`` (text and ``--json``) read the pairs of the same public board (safety/safe.py),
so none of them may print one either. The flags are computed on the names as recorded: two judge
models that redact alike still differ.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from exportkit import ExportDir, graded, run_id
from sitekit import read_site_file

from podium.commands.cli import main
from podium.model import Pair, PairVersion
from podium.safety.safe import PAIR_IDENTITY_FIELDS, PAIR_VERSION_IDENTITY_FIELDS

KEY = "sk-live-" + "Jq7Rk2Lm9Np4Xs8T" * 2  # a provider key's shape
OTHER_KEY = "sk-live-" + "Wd3Fg6Hj1Kl5Zx0C" * 2
LITERAL = "judge-CONFIGURED-4471"
ANSWER = "Lantern#2026!answer"
SECRETS = (KEY, OTHER_KEY, LITERAL, ANSWER)


def planted(root: Path) -> ExportDir:
    """osprey and kestrel share m1; their judges' names are a key, another key, a configured literal
    and m1's answer (osprey submitted it and passed)."""
    export = ExportDir(root)
    answer = [
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
    for n, judge in enumerate((KEY, KEY, f"judge {ANSWER}")):
        export.run(
            graded(
                run_id(f"o{n}"),
                det=1.0,
                judge=0.9,
                judge_model=judge,
                check_breakdown=answer,
                models_reported=[f"model {LITERAL}"],
            ),
            rid=run_id(f"o{n}"),
            agent="osprey",
            mission="m1",
            at=n,
        )
    for n, judge in enumerate((OTHER_KEY, LITERAL, OTHER_KEY)):
        export.run(
            graded(run_id(f"k{n}"), det=0.5, judge=0.4, judge_model=judge),
            rid=run_id(f"k{n}"),
            agent="kestrel",
            mission="m1",
            at=10 + n,
        )
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


def podium(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def test_judge_models_are_redacted_on_every_comparison_output(project):
    podium("build", "--no-cache")
    site = project / "site"
    outputs = {
        p.relative_to(site).as_posix(): read_site_file(p).decode("utf-8")
        for p in [
            *site.glob("api/results/compare*"),
            *site.glob("api/results/compare/**/*.json"),
            *site.glob("compare/**/*.html"),
        ]
        if p.is_file()
    }
    pair_pages = [path for path in outputs if path.count("/") == 3]
    assert pair_pages, sorted(outputs)  # the pair has its page
    assert "[REDACTED" in outputs[pair_pages[0]]  # its judge models are on it, redacted
    for path, text in outputs.items():
        assert leaks(text) == [], path
    compare_json = podium("compare", "osprey", "kestrel", "--json")
    assert leaks(compare_json) == []
    pair = json.loads(compare_json)
    (version,) = pair["versions"]
    assert len(version["judge_models_a"]) == 2 and len(version["judge_models_b"]) == 2  # both names, redacted
    assert all("[REDACTED" in name for name in version["judge_models_a"] + version["judge_models_b"])
    assert pair["flags"]["judge_models_differ"] == ["m1 1.0.0"]  # decided on the names as recorded
    assert leaks(podium("compare", "kestrel", "osprey")) == []
    run_page = (site / "runs" / run_id("o0") / "index.html").read_text(encoding="utf-8")
    assert leaks(run_page) == [] and "[REDACTED" in run_page  # as the run pages always did


def test_every_text_field_of_a_pair_is_an_identity_or_made_public():
    """A field added to Pair or PairVersion must be placed: an identity published as it is, or a name
    safety/safe.py redacts. These are the names it redacts today."""

    def texts(cls) -> set[str]:
        return {f.name for f in dataclasses.fields(cls) if "str" in str(f.type)}

    # head_to_head ("a", "b", "even") and the configuration field names are podium's words, never names
    words = {"head_to_head", "configuration_fields_a", "configuration_fields_b"}
    assert texts(Pair) - PAIR_IDENTITY_FIELDS - words == {"models_a", "models_b"}
    assert texts(PairVersion) - PAIR_VERSION_IDENTITY_FIELDS == {"judge_models_a", "judge_models_b"}
    assert {"flags", "versions"} <= {f.name for f in dataclasses.fields(Pair)}  # flags hold versions and ids only
