"""podium.render.progress_data: the progress file key by key (progress rules §6), against progress.schema.json, and
the agent's headline."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace
from datetime import timedelta

import jsonschema
import pytest
from progresskit import (
    B_NEW_JUDGE,
    HIGH,
    LOW,
    T0,
    A,
    B,
    headline_json,
    mixed_fixture,
    progress_document,
    progress_of,
    run,
    runs_of,
)

from podium.count.progress.series import FILE_KEPT, SCORE_SERIES
from podium.model.jsonable import jsonable
from podium.render.progress_data import progress_bytes, progress_schema


def test_the_document_has_the_keys_of_section_6():
    """podium.progress/2: podium.progress/1 and the tokens series (cost.md §4): a tokens entry shaped like overall's
    at every cell and agent step, the headline's tokens verdict and shift, the tokens delta in the method block."""
    p = progress_of(mixed_fixture())
    doc = progress_document(p)
    json.dumps(doc, allow_nan=False)
    assert set(doc) == {
        "schema",
        "agent",
        "name",
        "slug",
        "method",
        "headline",
        "segments",
        "steps",
        "earlier",
        "cells",
    }
    assert doc["earlier"] is None  # three configurations: every one in full
    assert doc["schema"] == "podium.progress/2" and (doc["agent"], doc["name"], doc["slug"]) == (
        "a1",
        "Kestrel",
        "kestrel",
    )
    assert doc["method"] == {
        "alpha_change": 0.01,
        "alpha_steady": 0.1,
        "n_min": 5,
        "exact_max": 50,
        "delta": {"overall": 0.05, "checks": 0.1, "judge": 0.1, "tokens": math.log(1.25)},
        "steady_bands": {
            "overall": [0.05, 0.1],
            "checks": [0.1, 0.2],
            "judge": [0.1, 0.2],
            "tokens": [math.log(1.25), 2 * math.log(1.25)],
        },
        "shift_alpha": "0.01/(n-9)",
        "shift_delta": 0.05,
        "shift_max": 16,
    }
    assert set(doc["headline"]) == {"verdict", "shift", "changed", "tally", "tokens"}
    assert set(doc["headline"]["tokens"]) == {"verdict", "shift"}
    conf = {"agent_version", "model", "judge_model", "budget_seconds"}
    step_keys = {"verdict", "reasons", "shift", "delta_median", "ci99", "ci90", "steady_within", "m", "n"}
    for seg in doc["segments"]:
        assert (
            set(seg) == {"configuration", "first_run_id", "last_run_id", "runs", "median"}
            and set(seg["configuration"]) == conf
        )
    for step in doc["steps"]:
        assert set(step) == {"from", "to", "changed", "overall", "checks", "judge", "tokens"}
        for name in ("overall", "checks", "tokens"):
            assert set(step[name]) == {"verdict", "reasons", "shift", "z", "p", "tally", "strata"}
            for stratum in step[name]["strata"]:
                assert set(stratum) == {"mission", "version"} | step_keys
    for cell in doc["cells"]:
        assert set(cell) == {
            "mission",
            "version",
            "current",
            "segments",
            "steps",
            "shifts",
            "left_out_unplaced",
            "undated",
            "earlier",
        }
        assert cell["earlier"] is None
        for seg in cell["segments"]:
            assert set(seg) == {"configuration", "first_run_id", "last_run_id", "runs", "left_out", "median"}
        for step in cell["steps"]:
            assert set(step) == {"from", "to", "changed", "overall", "checks", "judge", "tokens", "attribution"}
            for name in (*SCORE_SERIES, "tokens"):
                assert set(step[name]) == step_keys
                for pair in ("ci99", "ci90"):
                    assert step[name][pair] is None or isinstance(step[name][pair], list)
    assert doc["headline"] == {
        **{k: headline_json(p)[k] for k in ("verdict", "shift", "changed", "tally")},
        "tokens": {"verdict": p.newest_step.tokens.verdict, "shift": p.newest_step.tokens.shift},
    }
    assert len(doc["steps"]) == len(doc["segments"]) - 1


SCHEMA = json.loads(progress_schema())


def spending(per_mission):
    """Runs A → B on each mission, B spending ``ratio`` times A's tokens: {mission: ratio}."""
    base = [100_000 + 1_000 * i for i in range(40)]
    runs = []
    for mission in per_mission:
        runs += [run(0.5, conf=A, mission=mission, total_tokens=t) for t in base]
    for mission, ratio in per_mission.items():
        runs += [run(0.5, conf=B, mission=mission, total_tokens=round(t * ratio)) for t in base]
    return runs


def test_the_tokens_fixtures_reach_every_tokens_verdict():
    verdicts = set()
    for ratios in (
        {"m1": 0.5, "m2": 0.4},
        {"m1": 3, "m2": 1},
        {"m1": 1.01, "m2": 2.5, "m3": 0.3},
    ):
        doc = progress_document(progress_of(spending(ratios)))
        verdicts.add(doc["headline"]["tokens"]["verdict"])
        verdicts |= {cell["steps"][0]["tokens"]["verdict"] for cell in doc["cells"]}
    assert verdicts == {"cheaper", "costlier", "same_cost", "mixed"}


@pytest.mark.parametrize("fixture", ["mixed", "agent", "partial", "empty", "one", "cheaper", "costlier", "same"])
def test_the_document_matches_progress_schema_json(fixture):
    runs = {
        "mixed": mixed_fixture,
        "agent": lambda: [
            r for m in ("m1", "m2") for r in runs_of(LOW, conf=A, mission=m) + runs_of(HIGH, conf=B, mission=m)
        ],
        "partial": lambda: [run(s, conf=A, judge_upper=0.95) for s in LOW[:5]] + runs_of(HIGH[:5], conf=B_NEW_JUDGE),
        "empty": lambda: [run(kind="infra_failed", conf=None)],
        "one": lambda: runs_of(LOW, conf=A),
        # the tokens series with something to say: every tokens verdict a step and an agent step publish
        "cheaper": lambda: spending({"m1": 0.5, "m2": 0.4}),
        "costlier": lambda: spending({"m1": 3, "m2": 1}),
        "same": lambda: spending({"m1": 1.01, "m2": 2.5, "m3": 0.3}),
    }[fixture]()
    doc = json.loads(json.dumps(progress_document(progress_of(runs)), allow_nan=False))
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)


def test_the_schema_refuses_what_the_document_never_holds():
    doc = json.loads(json.dumps(progress_document(progress_of(mixed_fixture()))))
    validator = jsonschema.Draft202012Validator(SCHEMA)
    doc["cells"][0]["steps"][0]["overall"]["verdict"] = "mixed"  # a cell step is never mixed
    assert not validator.is_valid(doc)


def test_counts_of_zero_are_omitted():
    doc = progress_document(progress_of(runs_of(LOW, conf=A) + runs_of(HIGH, conf=B)))
    cell = doc["cells"][0]
    assert cell["left_out_unplaced"] == {} and cell["segments"][0]["left_out"] == {}
    assert doc["steps"][0]["overall"]["tally"] == {"improved": 1}


def test_headline_with_one_configuration_or_none():
    one = headline_json(progress_of(runs_of(LOW, conf=A)))
    assert one == {
        "verdict": None,
        "shift": None,
        "changed": [],
        "tally": {},
        "reason": "one_configuration",
        "reasons": [],
        "from": None,
        "to": jsonable(A),
        "strata": 0,
        "segments": 1,
    }
    assert headline_json(progress_of([]))["reason"] == "no_counted_runs"


# --- bounded (issue 34 item 7, progress rules §7.19) -------------------------------------------------------------


def per_run_models(n: int, missions: int = 3):
    """A harness that reports a model id of its own on every run: every run a configuration of its own."""
    return [
        run(0.5, conf=replace(A, model=f"model-{i:06d}"), mission=f"m{i % missions}", started=T0 + timedelta(seconds=i))
        for i in range(n)
    ]


def test_the_file_keeps_the_newest_configurations_and_counts_the_rest():
    doc = progress_document(progress_of(per_run_models(60)))
    assert len(doc["segments"]) == FILE_KEPT and len(doc["steps"]) == FILE_KEPT - 1
    assert doc["earlier"] == {"segments": 52, "steps": 52, "runs": {"overall": 52, "checks": 52, "judge": 52}}
    assert doc["segments"][-1]["configuration"]["model"] == "model-000059"  # the newest
    for cell in doc["cells"]:
        assert len(cell["segments"]) == FILE_KEPT and cell["earlier"]["segments"] == 20 - FILE_KEPT
        assert cell["earlier"]["runs"] == dict.fromkeys(("overall", "checks", "judge"), 20 - FILE_KEPT)
        for i, step in enumerate(cell["steps"]):  # steps[i] still compares segments[i] with segments[i + 1]
            assert step["from"] == cell["segments"][i]["configuration"]
            assert step["to"] == cell["segments"][i + 1]["configuration"]
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)


def test_a_cells_earlier_configurations_count_their_left_out_runs_and_shifts():
    rng = random.Random(15)
    jump = [round(rng.uniform(0.3, 0.4), 3) for _ in range(15)] + [round(rng.uniform(0.6, 0.7), 3) for _ in range(15)]
    runs = runs_of(jump, conf=A) + [run(kind="infra_failed", conf=A)]  # the oldest: a shift, a left-out run
    runs += [run(0.5, conf=replace(B, model=f"model-{i}")) for i in range(FILE_KEPT)]
    progress = progress_of(runs)
    assert len(progress.cells[0].shifts) == 1 and progress.cells[0].segments[0].left_out == {"infra_failed": 1}
    cell = progress_document(progress)["cells"][0]
    assert cell["earlier"] == {
        "segments": 1,
        "steps": 1,
        "runs": {"overall": 30, "checks": 30, "judge": 30},
        "left_out": {"infra_failed": 1},
        "shifts": 1,
    }
    assert cell["shifts"] == []


def test_shifts_in_kept_segments_are_numbered_in_the_kept_list():
    rng = random.Random(15)
    jump = [round(rng.uniform(0.3, 0.4), 3) for _ in range(15)] + [round(rng.uniform(0.6, 0.7), 3) for _ in range(15)]
    runs = [run(0.5, conf=replace(B, model=f"model-{i}")) for i in range(FILE_KEPT)] + runs_of(jump, conf=A)
    cell = progress_document(progress_of(runs))["cells"][0]
    assert cell["earlier"]["segments"] == 1 and cell["earlier"]["shifts"] == 0
    assert [s["segment"] for s in cell["shifts"]] == [FILE_KEPT - 1]
    assert cell["segments"][FILE_KEPT - 1]["configuration"] == jsonable(A)


def test_no_file_grows_with_the_configurations():
    """A per-run model id made a file of 3 KB a configuration: 24 MB at 8,000 runs (over Cloudflare's 25 MiB at
    about 8,700). Bounded, the file is the same size at 1,000 runs and at 8,000."""
    sizes = [len(progress_bytes(progress_of(per_run_models(n)))) for n in (1000, 8000)]
    assert sizes[1] <= sizes[0] * 1.01 and sizes[1] < 100_000, sizes
