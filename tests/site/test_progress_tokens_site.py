"""The tokens series end to end (cost.md §4): a build whose runs report their tokens publishes a tokens step beside
every score step, and the pages say it beside the score verdict, never merged into it.

The demo export's runs report their tokens as its harnesses do (scripts/make_export.py HARNESS_TELEMETRY): the
story's kestrel moved to a smaller model and spends 0.45 times the tokens, harrier's v2 twice as many; gyr
falcon's harness reports no tokens at all."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

import podium
from podium.render.progress_data import progress_schema

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "content" / "demo-export"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("tokens") / "site"
    podium.build_site(podium.load_config(None, {"out": out}), DEMO)
    return out


def _progress(site, slug):
    return json.loads((site / "api" / "results" / "progress" / f"{slug}.json").read_text(encoding="utf-8"))


def test_the_progress_files_carry_tokens_verdicts_and_match_the_schema(site):
    schema = json.loads(progress_schema())
    verdicts = {}
    for path in sorted((site / "api" / "results" / "progress").glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        jsonschema.Draft202012Validator(schema).validate(doc)
        verdicts[path.stem] = doc["headline"]["tokens"]["verdict"]
    assert verdicts == {
        "goshawk": "unclear",  # its score: mixed
        "gyr-falcon": "too_few_runs",  # its harness (aider) reports no tokens
        "harrier": "costlier",  # its score: improved; v2 spends twice the tokens
        "hobby": "unclear",
        "kestrel": "cheaper",  # its score: regressed; its smaller model spends 0.45 times the tokens
        "merlin": "too_few_runs",  # its score: not comparable (a new judge); the tokens never are
        "osprey": "unclear",
    }
    assert _progress(site, "harrier")["headline"]["verdict"] == "improved"  # the score's verdict, as without tokens


def test_the_agent_page_says_tokens_beside_the_score(site):
    page = (site / "agents" / "harrier" / "index.html").read_text(encoding="utf-8")
    assert '<p class="progress-headline v-improved">▲ improved +29.3 pp since agent v2' in page
    assert " · costlier ×2.32 tokens a run (+132%" in page
    assert "<dt>tokens a run</dt><dd>costlier ×2.32 tokens a run (+132%" in page


def test_the_mission_page_has_a_tokens_column(site):
    pages = list((site / "missions").glob("*/*/index.html"))
    with_steps = [p.read_text(encoding="utf-8") for p in pages if "progress-steps" in p.read_text(encoding="utf-8")]
    costs = [page for page in with_steps if '<th scope="col">Tokens a run</th>' in page]
    assert costs and any("cheaper ×0.50 tokens a run" in page for page in costs)  # kestrel on smb-share-loot


def test_each_mission_version_on_the_agent_page_says_its_tokens_beside_its_score(site):
    """docs/rules/cost.md §6: on the agent page, each current mission version's cell at a step gives the tokens
    verdict after the score's ("▼ regressed … · cheaper ×0.50 tokens a run"), never in its place."""
    page = (site / "agents" / "kestrel" / "index.html").read_text(encoding="utf-8")
    table = page[page.index('<table class="progress-table stack">') :]
    table = table[: table.index("</table>")]
    assert "▼ regressed −51.5 pp (99% CI −72.0 pp to −17.0 pp) · cheaper ×0.50 tokens a run (−50%)" in table
    assert 'class="v-regressed lead-cell"' in table  # the cell's class is the score's verdict
