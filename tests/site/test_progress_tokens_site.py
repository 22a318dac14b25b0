"""The tokens series end to end (cost.md §4): a build whose runs report their tokens publishes a tokens step beside
every score step, and the pages say it beside the score verdict, never merged into it.

Until the Telemetry reader fills ``RunRecord.total_tokens``, the records are given their tokens here (the demo
export: a run of an agent version after the first, or under the new judge, spends half the tokens; harrier's
3 times as many)."""

from __future__ import annotations

import json
import zlib
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

import podium
from podium import build
from podium.count import summarize
from podium.render.progress_data import progress_schema

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "content" / "demo-export"


def _with_tokens(record_of):
    def spent(run, *args, **kwargs):
        record = record_of(run, *args, **kwargs)
        conf = record.configuration
        newer = conf is not None and (conf.agent_version not in (None, "1") or conf.judge_model == "claude-judge-2")
        jitter = zlib.crc32(record.run_id.encode()) % 4_000  # no two runs alike
        tokens = 100_000 + jitter
        if newer:
            tokens = tokens * 3 if record.agent_name == "harrier" else tokens // 2
        return replace(record, total_tokens=tokens)

    return spent


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("tokens") / "site"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(build, "record_of", _with_tokens(build.record_of))
        mp.setattr(summarize, "record_of", _with_tokens(summarize.record_of))
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
        "goshawk": "cheaper",  # its score: mixed
        "gyr-falcon": "too_few_runs",
        "harrier": "costlier",  # its score: improved
        "hobby": "cheaper",
        "kestrel": "same_cost",  # a new model on the same agent version: same tokens
        "merlin": "too_few_runs",  # its score: not comparable (a new judge); the tokens never are
        "osprey": "same_cost",
    }
    assert _progress(site, "harrier")["headline"]["verdict"] == "improved"  # the score's verdict, as without tokens


def test_the_agent_page_says_tokens_beside_the_score(site):
    page = (site / "agents" / "harrier" / "index.html").read_text(encoding="utf-8")
    assert '<p class="progress-headline v-improved">▲ improved +29.3 pp since agent v2' in page
    assert " · costlier ×3.00 tokens a run (+200%" in page
    assert "<dt>tokens a run</dt><dd>costlier ×3.00 tokens a run (+200%" in page


def test_the_mission_page_has_a_tokens_column(site):
    pages = list((site / "missions").glob("*/*/index.html"))
    with_steps = [p.read_text(encoding="utf-8") for p in pages if "progress-steps" in p.read_text(encoding="utf-8")]
    costs = [page for page in with_steps if '<th scope="col">Tokens a run</th>' in page]
    assert costs and any("cheaper ×0.50 tokens a run" in page for page in costs)
