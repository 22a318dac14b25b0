"""spec/compare.md on small inline exports: pairs, superiority, verdicts, the four traps, model keys.

Every expected number is worked out by hand from the spec (the arithmetic is in
the comments). Scores are multiples of 1/16, so sums and midpoints are exact.
``add(export, agent, mission, values)`` writes one graded run per value whose
two halves are both the value, so its overall is exactly the value.

Two facts of counting.md's interval used below: with 6, 7 or 8 runs the 95%
interval of the median is [min, max] (j = 1); with fewer than 6 there is none.
"""

from __future__ import annotations

from itertools import count

import pytest
from exportkit import agent_id, graded, run_id
from hypothesis import given, settings
from hypothesis import strategies as st

from podium.count.compare import model_key, run_model, superiority, verdict
from podium.count.kinds import record_of
from podium.count.summarize import summarize
from podium.load.export import load_export
from podium.model import Conditions, Run

_ids = count(1)


def add(export, agent, mission, values, *, version="1.0.0", **kw):
    """One graded run of ``agent`` on ``mission`` ``version`` per value (overall == value)."""
    for x in values:
        n = next(_ids)
        export.run(
            graded(run_id(n), det=x, judge=x, mission_version=version, **kw),
            rid=run_id(n),
            agent=agent,
            mission=mission,
            version=version,
        )


def board_of(export, **kw):
    export.sidecars()
    return summarize(load_export(export.root), **kw)


def the_pair(board, a, b):
    found = [p for p in board.pairs if (p.a_name, p.b_name) == (a, b)]
    assert len(found) == 1, [(p.a_name, p.b_name) for p in board.pairs]
    return found[0]


HIGH = [0.75, 0.8125, 0.875, 0.875, 0.9375, 1.0]  # median 0.875, CI [0.75, 1.0]
LOW = [0.25, 0.3125, 0.375, 0.5, 0.5, 0.625]  # median 0.4375, CI [0.25, 0.625]


# ------------------------------------------------------------------ superiority and verdict, directly


def test_superiority_counts_wins_and_half_ties():
    # (0.5>0.25) 1, (0.5>0.125) 1, (0.25==0.25) 1/2, (0.25>0.125) 1  ->  3.5 / 4
    assert superiority([0.5, 0.25], [0.25, 0.125]) == 0.875
    assert superiority([0.25, 0.125], [0.5, 0.25]) == 0.125  # the other way round: 0.5 / 4
    assert superiority([0.5] * 3, [0.5] * 7) == 0.5  # all ties


def test_superiority_compares_floats_exactly():
    # 0.1 + 0.2 is 0.30000000000000004 in binary: strictly above 0.3, not a tie
    assert superiority([0.1 + 0.2], [0.3]) == 1.0
    assert superiority([0.3], [0.1 + 0.2]) == 0.0


def brute_force(xs, ys):
    wins = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in xs for y in ys)
    return wins / (len(xs) * len(ys))


scores = st.sampled_from([i / 16 for i in range(17)]) | st.floats(0, 1)


@settings(max_examples=300, deadline=None)
@given(st.lists(scores, min_size=1, max_size=30), st.lists(scores, min_size=1, max_size=30))
def test_superiority_matches_a_brute_force_count(xs, ys):
    assert superiority(xs, ys) == pytest.approx(brute_force(xs, ys), abs=1e-12)
    # order-free, and the two directions add up to one
    assert superiority(list(reversed(xs)), sorted(ys)) == superiority(xs, ys)
    assert superiority(xs, ys) + superiority(ys, xs) == pytest.approx(1.0, abs=1e-12)


def test_verdict_needs_both_intervals_and_no_overlap():
    assert verdict(None, (0.1, 0.2)) == "too_few"
    assert verdict((0.8, 0.9), None) == "too_few"
    assert verdict((0.5, 0.9), (0.1, 0.4)) == "a_ahead"
    assert verdict((0.1, 0.4), (0.5, 0.9)) == "b_ahead"
    assert verdict((0.4, 0.9), (0.1, 0.4)) == "overlap"  # touching intervals overlap: "ahead" is strict
    assert verdict((0.1, 0.4), (0.4, 0.9)) == "overlap"
    assert verdict((0.2, 0.8), (0.4, 0.5)) == "overlap"


# ------------------------------------------------------------------ pairs through the summary step


def test_a_pair_by_hand(export):
    add(export, "osprey", "m1", HIGH)
    add(export, "harrier", "m1", LOW)
    pair = the_pair(board_of(export), "osprey", "harrier")
    assert (pair.a, pair.b) == (agent_id("osprey"), agent_id("harrier"))
    assert pair.shared == 1
    (v,) = pair.versions
    assert (v.mission, v.version, v.n_a, v.n_b) == ("m1", "1.0.0", 6, 6)
    assert (v.median_a, v.median_b) == (0.875, 0.4375)
    assert (v.median_ci_a, v.median_ci_b) == ((0.75, 1.0), (0.25, 0.625))
    assert v.median_diff == 0.4375
    assert (v.median_deterministic_a, v.median_judge_b) == (0.875, 0.4375)  # halves equal overall here
    assert v.superiority == 1.0  # every HIGH value beats every LOW value
    assert v.verdict == "a_ahead"
    assert pair.verdicts == {"a_ahead": 1, "b_ahead": 0, "overlap": 0, "too_few": 0}
    assert pair.superiority == 1.0 and pair.median_diff == 0.4375


def test_touching_intervals_are_an_overlap(export):
    add(export, "osprey", "m1", HIGH)  # CI [0.75, 1.0]
    add(export, "harrier", "m1", [0.25, 0.3125, 0.375, 0.5, 0.5, 0.75])  # CI [0.25, 0.75]: touches 0.75
    (v,) = the_pair(board_of(export), "osprey", "harrier").versions
    assert v.verdict == "overlap"
    # 6 of HIGH's x against 0.75: 0.75 ties (1/2), five win -> 5.5 ; 30 other pairs all won -> 35.5 / 36
    assert v.superiority == 35.5 / 36


def test_fewer_than_six_runs_on_a_side_is_too_few(export):
    add(export, "osprey", "m1", HIGH[:5])  # 5 runs: no interval
    add(export, "harrier", "m1", LOW)
    (v,) = the_pair(board_of(export), "osprey", "harrier").versions
    assert v.median_ci_a is None and v.median_ci_b == (0.25, 0.625)
    assert v.verdict == "too_few"
    assert v.superiority == 1.0  # superiority does not need an interval


def test_ties_everywhere(export):
    add(export, "osprey", "m1", [0.5] * 6)
    add(export, "harrier", "m1", [0.5] * 6)
    board = board_of(export)
    # equal medians, means and counts: the name breaks the tie, so harrier is `a`
    pair = the_pair(board, "harrier", "osprey")
    (v,) = pair.versions
    assert v.superiority == 0.5 and v.median_diff == 0.0
    assert v.verdict == "overlap"  # [0.5, 0.5] and [0.5, 0.5]: neither low is above the other's high


def test_a_lower_ranked_agent_ahead_on_one_version(export):
    # m1: osprey median 0.3125, CI [0.25, 0.375]; harrier median 0.6875, CI [0.625, 0.75]  -> b_ahead
    add(export, "osprey", "m1", [0.25, 0.25, 0.3125, 0.3125, 0.375, 0.375])
    add(export, "harrier", "m1", [0.625, 0.625, 0.6875, 0.6875, 0.75, 0.75])
    # m2: osprey 7 x 1.0, harrier 7 x 0.5  -> a_ahead, and it makes osprey rank first overall:
    # osprey's 13 values have median (7th) 1.0, harrier's 0.5
    add(export, "osprey", "m2", [1.0] * 7)
    add(export, "harrier", "m2", [0.5] * 7)
    board = board_of(export)
    assert [a.name for a in board.agents] == ["osprey", "harrier"]
    pair = the_pair(board, "osprey", "harrier")
    assert [(v.mission, v.verdict) for v in pair.versions] == [("m1", "b_ahead"), ("m2", "a_ahead")]
    assert pair.verdicts == {"a_ahead": 1, "b_ahead": 1, "overlap": 0, "too_few": 0}
    assert [v.superiority for v in pair.versions] == [0.0, 1.0]
    assert pair.superiority == 0.5  # each version weighs the same
    # median_diff: m1 0.3125 - 0.6875 = -0.375, m2 0.5; the median of two is their mean
    assert [v.median_diff for v in pair.versions] == [-0.375, 0.5]
    assert pair.median_diff == 0.0625


def test_superiority_is_the_unweighted_mean_over_versions(export):
    add(export, "osprey", "m1", [1.0] * 30)  # many runs on m1 ...
    add(export, "harrier", "m1", [0.5])
    add(export, "osprey", "m2", [0.5])  # ... one on m2
    add(export, "harrier", "m2", [0.5])
    pair = the_pair(board_of(export), "osprey", "harrier")
    assert [v.superiority for v in pair.versions] == [1.0, 0.5]
    assert pair.superiority == 0.75  # not (30 + 0.5) / 31


def test_only_shared_current_versions_with_a_median_population_count(export):
    add(export, "osprey", "m1", [0.5], version="1.0.0")  # older version of m1 ...
    add(export, "harrier", "m1", [0.25], version="1.0.0")
    add(export, "osprey", "m1", [0.75], version="2.0.0")  # ... current: 2.0.0
    add(export, "harrier", "m1", [0.25], version="2.0.0")
    add(export, "osprey", "m2", [0.75])  # m2: harrier has no run in the median there
    export.run(
        graded(run_id(9001), det=0.5, judge=0.0, judge_status="model-not-configured", judge_model=None),
        rid=run_id(9001),
        agent="harrier",
        mission="m2",
    )
    add(export, "osprey", "m3", [0.75])  # m3: only osprey
    pair = the_pair(board_of(export), "osprey", "harrier")
    assert [(v.mission, v.version) for v in pair.versions] == [("m1", "2.0.0")]
    assert pair.shared == 1


def test_no_shared_version_no_pair(export):
    add(export, "osprey", "m1", [0.75])
    add(export, "harrier", "m2", [0.5])
    assert board_of(export).pairs == ()


def test_pairs_are_ordered_by_rank_and_versions_by_mission(export):
    for mission in ("m2", "m1"):
        add(export, "osprey", mission, [0.875])
        add(export, "harrier", mission, [0.625])
        add(export, "kestrel", mission, [0.375])
    board = board_of(export)
    assert [(p.a_name, p.b_name) for p in board.pairs] == [
        ("osprey", "harrier"),
        ("osprey", "kestrel"),
        ("harrier", "kestrel"),
    ]
    assert [v.mission for v in board.pairs[0].versions] == ["m1", "m2"]


# ------------------------------------------------------------------ the four traps


def test_judge_models_differ_raised_and_named(export):
    add(export, "osprey", "m1", [0.75], judge_model="judge-1")
    add(export, "harrier", "m1", [0.5], judge_model="judge-2")
    add(export, "osprey", "m2", [0.75], judge_model="judge-1")
    add(export, "harrier", "m2", [0.5], judge_model="judge-1")
    pair = the_pair(board_of(export), "osprey", "harrier")
    assert pair.flags.judge_models_differ == ("m1 1.0.0",)
    assert pair.versions[0].judge_models_a == ("judge-1",) and pair.versions[0].judge_models_b == ("judge-2",)


def test_judge_models_differ_not_raised_by_runs_outside_the_median(export):
    add(export, "osprey", "m1", [0.75], judge_model="judge-1")
    add(export, "harrier", "m1", [0.5], judge_model="judge-1")
    # a stopped run judged by another model is left out of the median: it does not count
    export.run(
        graded(run_id(9101), det=0.5, judge=0.5, judge_model="judge-2", partial_trigger="operator"),
        rid=run_id(9101),
        agent="harrier",
        mission="m1",
    )
    pair = the_pair(board_of(export), "osprey", "harrier")
    assert pair.flags.judge_models_differ == ()


def test_model_changed_raised_for_the_agent_that_mixes_models(export):
    add(export, "osprey", "m1", [0.75, 0.75], models_reported=["model-x"])
    add(export, "osprey", "m1", [0.75], models_reported=["model-y"])
    add(export, "harrier", "m1", [0.5, 0.5], models_reported=["model-x"])
    pair = the_pair(board_of(export), "osprey", "harrier")
    assert pair.flags.model_changed == (agent_id("osprey"),)
    assert pair.models_a == ("model-x", "model-y") and pair.models_b == ("model-x",)


def test_model_changed_not_raised_when_the_harness_skips_the_model_on_some_runs(export):
    # compare.md: a run that reported no model counts as its declared model, without " (declared)"
    add(export, "osprey", "m1", [0.75], models_reported=["model-x"])
    add(export, "osprey", "m1", [0.75], models_reported=[], model="model-x")  # by-model key "model-x (declared)"
    add(export, "harrier", "m1", [0.5], models_reported=["model-x"])
    add(export, "harrier", "m1", [0.5], models_reported=[], model=None)  # runs.json row's model: model-a
    board = board_of(export)
    pair = the_pair(board, "osprey", "harrier")
    assert pair.flags.model_changed == (agent_id("harrier"),)  # model-x reported, model-a declared
    assert pair.models_a == ("model-x",) and pair.models_b == ("model-a", "model-x")
    # the by-model keys (§2) are unchanged: the declared fallback is its own key there
    assert {m.model for m in board.by_model} == {"model-x", "model-x (declared)", "model-a (declared)"}


def test_model_changed_raised_by_a_declared_model_that_differs_from_the_reported_one(export):
    add(export, "osprey", "m1", [0.75], models_reported=["model-x"])
    add(export, "osprey", "m1", [0.75], models_reported=[], model="model-y")
    add(export, "harrier", "m1", [0.5, 0.5], models_reported=["model-x"])
    pair = the_pair(board_of(export), "osprey", "harrier")
    assert pair.flags.model_changed == (agent_id("osprey"),)
    assert pair.models_a == ("model-x", "model-y")


def test_model_changed_leaves_out_a_run_with_no_model_at_all(export):
    add(export, "osprey", "m1", [0.75], models_reported=["model-x"])
    add(export, "harrier", "m1", [0.5], models_reported=["model-x"])
    export.sidecars()
    for row in export.rows:
        row["model"] = None
    n = next(_ids)  # neither reported nor declared (result.json nor runs.json): not counted
    export.run(graded(run_id(n), det=0.75, judge=0.75, model=None), rid=run_id(n), agent="osprey", mission="m1")
    export.rows[-1]["model"] = None
    pair = the_pair(board_of(export), "osprey", "harrier")
    assert pair.flags.model_changed == ()
    assert pair.models_a == ("model-x",)
    assert pair.versions[0].n_a == 2  # the run still counts in the median
    assert "(unknown model)" in {m.model for m in board_of(export).by_model}


def test_run_model_rules():
    bare = dict(run_id="0" * 32, directory="x", shape="graded")
    assert run_model(record_of(Run(**bare, models_reported=("z-model", "a-model")))) == "z-model + a-model"
    assert (
        run_model(record_of(Run(**bare, models_reported=("",), conditions=Conditions(model="declared")))) == "declared"
    )
    assert run_model(record_of(Run(**bare, model_declared="from-runs-json"))) == "from-runs-json"
    assert run_model(record_of(Run(**bare))) is None


def test_model_changed_not_raised_by_runs_outside_the_median_or_other_versions(export):
    add(export, "osprey", "m1", [0.75], models_reported=["model-x"])
    add(export, "harrier", "m1", [0.5], models_reported=["model-x"])
    export.run(
        graded(run_id(9201), det=0.5, judge=0.5, models_reported=["model-y"], partial_trigger="operator"),
        rid=run_id(9201),
        agent="osprey",
        mission="m1",
    )  # stopped: not in the median
    add(export, "osprey", "m2", [0.75], models_reported=["model-z"])  # m2 is not shared
    pair = the_pair(board_of(export), "osprey", "harrier")
    assert pair.flags.model_changed == ()


def no_judge_run(export, agent, mission="m1"):
    n = next(_ids)
    export.run(
        graded(run_id(n), det=0.5, judge=0.0, judge_status="model-not-configured", judge_model=None),
        rid=run_id(n),
        agent=agent,
        mission=mission,
    )


def timed_out_run(export, agent, x=0.25, mission="m1"):
    n = next(_ids)
    export.run(
        graded(run_id(n), det=x, judge=x, partial_trigger="timeout"), rid=run_id(n), agent=agent, mission=mission
    )


@pytest.mark.parametrize("in_median, raised", [(8, True), (9, False)])
def test_no_judge_gap_at_the_boundary(export, in_median, raised):
    add(export, "osprey", "m1", [0.75] * 6)  # s = 0 / 6
    add(export, "harrier", "m1", [0.5] * in_median)
    no_judge_run(export, "harrier")
    no_judge_run(export, "harrier")  # s = 2 / 10 = 0.2 (raised, >=) or 2 / 11 (not)
    pair = the_pair(board_of(export), "osprey", "harrier")
    assert pair.flags.no_judge_gap is raised
    assert pair.no_judge_share_b == 2 / (in_median + 2) and pair.no_judge_share_a == 0.0


def test_no_judge_gap_is_compared_exactly_not_in_floating_point(export):
    # 3/10 - 1/10 is exactly 0.2, but 0.3 - 0.1 == 0.19999999999999998 in floats
    add(export, "osprey", "m1", [0.75] * 7)
    for _ in range(3):
        no_judge_run(export, "osprey")
    add(export, "harrier", "m1", [0.5] * 9)
    no_judge_run(export, "harrier")
    pair = the_pair(board_of(export), "osprey", "harrier")
    assert (pair.no_judge_share_a, pair.no_judge_share_b) == (0.3, 0.1)
    assert pair.flags.no_judge_gap is True


def test_no_judge_gap_pools_the_shared_versions(export):
    # m1: osprey 1 no judge of 1 + 4; m2: 0 of 5  -> 1 / 10 = 0.1 ; harrier 0  -> not raised
    add(export, "osprey", "m1", [0.75] * 4)
    no_judge_run(export, "osprey", "m1")
    add(export, "osprey", "m2", [0.75] * 5)
    add(export, "harrier", "m1", [0.5] * 3)
    add(export, "harrier", "m2", [0.5] * 3)
    pair = the_pair(board_of(export), "osprey", "harrier")
    assert pair.no_judge_share_a == 0.1 and pair.flags.no_judge_gap is False


@pytest.mark.parametrize("graded_runs, raised", [(8, True), (9, False)])
def test_timeout_gap_at_the_boundary(export, graded_runs, raised):
    add(export, "osprey", "m1", [0.75] * 6)  # t = 0
    add(export, "harrier", "m1", [0.5] * graded_runs)
    timed_out_run(export, "harrier")
    timed_out_run(export, "harrier")  # t = 2 / 10 (raised) or 2 / 11 (not); timeouts are in the median
    pair = the_pair(board_of(export), "osprey", "harrier")
    assert pair.versions[0].n_b == graded_runs + 2
    assert pair.flags.timeout_gap is raised
    assert pair.timeout_share_b == 2 / (graded_runs + 2)


def test_no_flag_on_a_clean_pair(export):
    add(export, "osprey", "m1", HIGH, models_reported=["model-x"])
    add(export, "harrier", "m1", LOW, models_reported=["model-y"])
    flags = the_pair(board_of(export), "osprey", "harrier").flags
    assert (flags.judge_models_differ, flags.model_changed, flags.no_judge_gap, flags.timeout_gap) == (
        (),
        (),
        False,
        False,
    )


# ------------------------------------------------------------------ model keys and the by-model view


def test_model_key_rules():
    bare = dict(run_id="0" * 32, directory="x", shape="graded")
    assert (
        model_key(record_of(Run(**bare, models_reported=("z-model", "a-model")))) == "z-model + a-model"
    )  # order kept
    assert (
        model_key(record_of(Run(**bare, models_reported=("only",), conditions=Conditions(model="declared")))) == "only"
    )
    assert model_key(record_of(Run(**bare, conditions=Conditions(model="declared")))) == "declared (declared)"
    assert model_key(record_of(Run(**bare, model_declared="from-runs-json"))) == "from-runs-json (declared)"
    assert model_key(record_of(Run(**bare))) == "(unknown model)"


def test_model_key_falls_back_to_the_runs_json_model(export):
    add(export, "osprey", "m1", [0.75], models_reported=[], model=None)  # exportkit's runs.json row: model-a
    (model,) = board_of(export).by_model
    assert model.model == "model-a (declared)"


def test_by_model_groups_across_agents_and_ranks(export):
    add(export, "osprey", "m1", [0.75, 0.875], models_reported=["gpt", "mini"])
    add(export, "kestrel", "m1", [0.25], models_reported=["gpt", "mini"])
    add(export, "harrier", "m1", [0.5, 0.5], models_reported=["claude"])
    board = board_of(export)
    assert [(m.rank, m.model) for m in board.by_model] == [(1, "gpt + mini"), (2, "claude")]
    gpt = board.by_model[0]
    # 0.25, 0.75, 0.875 -> median 0.75 ; mean 1.875 / 3 = 0.625
    assert (gpt.figures.median, gpt.figures.avg_overall, gpt.figures.in_median) == (0.75, 0.625, 3)
    assert gpt.agents == ("kestrel", "osprey")
    assert [(m.name, m.median) for m in gpt.members] == [("osprey", 0.8125), ("kestrel", 0.25)]
    assert gpt.slug == "gpt-mini" and gpt.url == "models/gpt-mini/index.html"


def test_by_model_ties_rank_by_key(export):
    add(export, "osprey", "m1", [0.5], models_reported=["b-model"])
    add(export, "osprey", "m1", [0.5], models_reported=["a-model"])
    assert [m.model for m in board_of(export).by_model] == ["a-model", "b-model"]


def test_by_model_leaves_out_older_versions(export):
    add(export, "osprey", "m1", [0.25], version="1.0.0", models_reported=["old-model"])
    add(export, "osprey", "m1", [0.75], version="2.0.0", models_reported=["new-model"])
    board = board_of(export)
    assert [m.model for m in board.by_model] == ["new-model"]
    assert board.by_model[0].figures.runs == 1


def test_by_model_counts_every_kind_and_names_left_outs(export):
    add(export, "osprey", "m1", [0.75], models_reported=["gpt"])
    no_judge_run(export, "osprey")  # exportkit: models_reported [] and model-a declared
    board = board_of(export)
    keys = {m.model: m for m in board.by_model}
    assert set(keys) == {"gpt", "model-a (declared)"}
    assert keys["model-a (declared)"].figures.counts["no_judge"] == 1
    assert keys["model-a (declared)"].figures.median is None
    assert [m.model for m in board.by_model][-1] == "model-a (declared)"  # no median: ranked last


def test_demo_harnesses_that_skip_the_model_are_not_flagged(tmp_path):
    # make_export.py's plain shape (the demo before --story: 150 runs, seed 7): its kestrel and gyr
    # falcon report their model on some runs only and declare the same one: no change. Under the old
    # "(declared)" key every pair of that export was flagged.
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts" / "make_export.py"
    subprocess.run([sys.executable, str(script), str(tmp_path / "plain")], check=True, capture_output=True)
    board = summarize(load_export(tmp_path / "plain"))
    flagged = {(p.a_name, p.b_name): p.flags.model_changed for p in board.pairs}
    assert flagged[("kestrel", "gyr falcon")] == ()
    assert not all(flagged.values())
    names = {a.agent: a.name for a in board.agents}
    assert all(names[agent] not in ("kestrel", "gyr falcon") for flags in flagged.values() for agent in flags)
