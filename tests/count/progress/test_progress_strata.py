"""podium.count.progress.strata: the agent's steps across missions (progress rules §3): strata, van Elteren, the
agent verdict and tally, the mission-mix trap, budgets as a mission's."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from cputime import least_cpu
from progresskit import (
    B_NEW_JUDGE,
    HIGH,
    LOW,
    A,
    B,
    agent_fixture,
    headline,
    one_configuration_a_run,
    progress_document,
    progress_of,
    run,
    runs_of,
)

from podium.count.progress.ranktests import Differences
from podium.model import Configuration

# --- §3: agent steps ---------------------------------------------------------------------------------------


def test_agent_step_improved_with_its_tally():
    p = agent_fixture({"m1": (LOW, HIGH), "m2": (LOW, HIGH), "m3": (HIGH, HIGH)})
    step = p.newest_step
    assert (step.overall.verdict, step.overall.reasons) == ("improved", ())
    assert dict(step.overall.tally) == {"improved": 2, "steady": 1}
    assert step.overall.p < 0.01 and step.overall.z > 0
    assert [s.mission for s in step.overall.strata] == ["m1", "m2", "m3"]
    # the shift: Σ v_s shift_s / Σ v_s, v_s = 8·8/16 alike
    shifts = [s.step.shift for s in step.overall.strata]
    assert step.overall.shift == pytest.approx(sum(shifts) / 3)
    # the strata are the cells' own steps
    for stratum in step.overall.strata:
        assert stratum.step == p.cell(stratum.mission, "1.0.0").newest_step.overall
    assert dict(step.judge.tally) == {"improved": 2, "steady": 1}
    h = headline(p)
    assert (h["verdict"], h["changed"], h["tally"], h["strata"], h["segments"]) == (
        "improved",
        ["agent_version"],
        {"improved": 2, "steady": 1},
        3,
        2,
    )
    assert h["to"]["agent_version"] == "v2" and h["from"]["agent_version"] == "v1" and h["reason"] is None


def test_agent_step_mixed_names_the_strata():
    step = agent_fixture({"m1": (LOW, HIGH), "m2": (HIGH, LOW), "m3": (LOW, HIGH)}).newest_step
    assert step.overall.verdict == "mixed" and step.checks.verdict == "mixed"
    assert dict(step.overall.tally) == {"improved": 2, "regressed": 1}
    assert [s.mission for s in step.overall.strata if s.step.verdict == "regressed"] == ["m2"]


def test_agent_step_regressed_and_steady():
    assert agent_fixture({"m1": (HIGH, LOW), "m2": (HIGH, LOW)}).newest_step.overall.verdict == "regressed"
    rng = random.Random(5)
    flat = {
        f"m{i}": (
            [round(0.5 + rng.uniform(-0.03, 0.03), 3) for _ in range(30)],
            [round(0.5 + rng.uniform(-0.03, 0.03), 3) for _ in range(30)],
        )
        for i in range(3)
    }
    flat["m9"] = ([0.5] * 3, [0.2] * 3)  # too few runs: not one of "every such stratum"
    step = agent_fixture(flat).newest_step
    assert step.overall.verdict == "steady"
    assert dict(step.overall.tally) == {"steady": 3, "too_few_runs": 1}


def test_agent_step_improved_with_no_single_stratum_improved():
    """§7: the stratified test pools evidence that no one mission has enough of."""
    step = agent_fixture({f"m{i}": ([0.3, 0.31, 0.29], [0.6, 0.61, 0.59]) for i in range(6)}).newest_step
    assert dict(step.overall.tally) == {"too_few_runs": 6}
    assert step.overall.verdict == "improved" and step.overall.p < 0.01


def test_agent_step_too_few_runs():
    step = agent_fixture({"m1": ([0.3, 0.3], LOW), "m2": (LOW, [0.6, 0.6])}).newest_step
    assert step.overall.verdict == "too_few_runs"  # Σ min(m_s, n_s) = 2 + 2 < 5
    assert dict(step.overall.tally) == {"too_few_runs": 2}


def test_agent_step_unclear_when_p_is_not_small():
    step = agent_fixture({"m1": ([0.1, 0.9, 0.5, 0.3, 0.7], [0.2, 0.8, 0.6, 0.4, 0.95])}).newest_step
    assert step.overall.verdict == "unclear" and step.overall.p > 0.01


def test_agent_step_not_comparable_on_the_overall_only():
    runs = runs_of(LOW, conf=A) + runs_of(HIGH, conf=B_NEW_JUDGE)
    step = progress_of(runs).newest_step
    assert (step.overall.verdict, step.checks.verdict) == ("not_comparable", "improved")
    assert step.changed == ("agent_version", "judge_model")


def test_agent_step_partial_judge():
    runs = [run(s, conf=A, judge_upper=0.95) for s in LOW] + runs_of(HIGH, conf=B)
    runs += [run(s, conf=A, mission="m2", judge_upper=0.95) for s in LOW] + runs_of(HIGH, conf=B, mission="m2")
    step = progress_of(runs).newest_step
    assert (step.overall.verdict, step.overall.reasons) == ("unclear", ("partial_judge",))
    assert step.checks.verdict == "improved"


def test_the_judge_series_publishes_strata_and_tally_only():
    doc = progress_document(agent_fixture({"m1": (LOW, HIGH)}))
    assert set(doc["steps"][0]["judge"]) == {"strata", "tally"}


def test_the_mission_mix_trap():
    """The new configuration ran mostly on an easy mission, the old one mostly on a hard one;
    on each mission nothing changed. Pooled, it looks like a big improvement; stratified, not."""
    rng = random.Random(11)

    def hard():
        return round(rng.uniform(0.15, 0.30), 3)

    def easy():
        return round(rng.uniform(0.75, 0.90), 3)

    old = {"hard": [hard() for _ in range(30)], "easy": [easy() for _ in range(6)]}
    new = {"hard": [hard() for _ in range(6)], "easy": [easy() for _ in range(30)]}
    runs = []
    for mission, scores in old.items():
        runs += runs_of(scores, conf=A, mission=mission)
    for mission, scores in new.items():
        runs += runs_of(scores, conf=B, mission=mission)
    # the pooled comparison of all runs, written out: every verdict of §2 says improved
    pooled_x = [0.5 * s + 0.5 * s for s in old["hard"] + old["easy"]]
    pooled_y = [0.5 * s + 0.5 * s for s in new["hard"] + new["easy"]]
    pooled = Differences.of(pooled_x, pooled_y)
    lo, _ = pooled.interval(Fraction(1, 100))
    assert lo > 0 and pooled.shift() >= 0.05  # "improved", pooled
    step = progress_of(runs).newest_step
    assert step.overall.verdict != "improved" and step.checks.verdict != "improved"
    assert step.overall.p > 0.01
    assert abs(step.overall.shift) < 0.05
    assert "improved" not in step.overall.tally


def test_agent_step_with_no_decided_stratum_is_not_steady():
    # every stratum too small for a verdict, and nothing moves: not steady (steady must be earned)
    step = agent_fixture({f"m{i}": ([0.5, 0.52, 0.48], [0.5, 0.51, 0.49]) for i in range(3)}).newest_step
    assert dict(step.overall.tally) == {"too_few_runs": 3}
    assert step.overall.verdict == "unclear"


def test_agent_shift_weights_strata_by_mn_over_n():
    step = agent_fixture({"m1": (LOW, HIGH), "m2": (LOW[:5], [0.35] * 3), "m3": ([0.5] * 7, [0.52] * 9)}).newest_step
    strata = step.overall.strata
    v = [s.step.m * s.step.n / (s.step.m + s.step.n) for s in strata]
    assert step.overall.shift == pytest.approx(sum(w * s.step.shift for w, s in zip(v, strata)) / sum(v), rel=1e-12)
    assert step.overall.shift != pytest.approx(sum(s.step.shift for s in strata) / 3, rel=1e-3)


def test_agent_step_no_improvement_while_a_stratum_regressed():
    """Pooled evidence says improved (p < 0.01, shift ≥ delta), but one mission regressed: unclear."""
    per = {f"m{i}": ([0.3, 0.31, 0.29], [0.6, 0.61, 0.59]) for i in range(8)}
    per["z"] = (HIGH, LOW)
    step = agent_fixture(per).newest_step
    assert dict(step.overall.tally) == {"too_few_runs": 8, "regressed": 1}
    assert step.overall.p < 0.01 and step.overall.shift >= 0.05
    assert step.overall.verdict == "unclear"


# --- budgets are a mission's (the reading in strata.agent_keys) -----------------------------


def _on(budget: float, version: str) -> Configuration:
    return Configuration(version, "model-a", "judge-1", budget)


def test_missions_with_budgets_of_their_own_are_one_agent_configuration():
    """XORCISE sets the budget per mission: an agent whose two missions have 1,800 s and 3,600 s is one
    configuration across them, and its version change is one step compared on both missions."""
    runs = (
        runs_of(LOW, conf=_on(1800.0, "v1"), mission="jwt")
        + runs_of(LOW, conf=_on(3600.0, "v1"), mission="smb")
        + runs_of(HIGH, conf=_on(1800.0, "v2"), mission="jwt")
        + runs_of(HIGH, conf=_on(3600.0, "v2"), mission="smb")
    )
    progress = progress_of(runs)
    assert len(progress.segments) == 2 and len(progress.steps) == 1
    step = progress.steps[0]
    assert step.changed == ("agent_version",)
    assert [(s.mission, s.step.verdict) for s in step.overall.strata] == [("jwt", "improved"), ("smb", "improved")]
    assert step.overall.verdict == "improved"
    # the published configuration has no one budget: its missions have two
    assert step.from_.budget_seconds is None and step.to.budget_seconds is None
    assert progress_document(progress)["segments"][0]["configuration"]["budget_seconds"] is None


def test_a_budget_changed_on_one_mission_is_a_step_there_only():
    runs = (
        runs_of(LOW, conf=_on(1800.0, "v1"), mission="jwt")
        + runs_of(LOW, conf=_on(3600.0, "v1"), mission="smb")
        + runs_of(HIGH, conf=_on(2700.0, "v1"), mission="jwt")
    )
    progress = progress_of(runs)
    assert len(progress.steps) == 1
    step = progress.steps[0]
    assert step.changed == ("budget_seconds",)
    assert [s.mission for s in step.overall.strata] == ["jwt"]
    assert step.to.budget_seconds == 2700.0  # the new configuration runs on one mission: its budget


def test_one_budget_everywhere_reads_as_the_plain_rule():
    """With the same budget on every mission, the budget's epochs are the budgets: a change of it everywhere
    is a step with budget_seconds changed, its values published."""
    runs = (
        runs_of(LOW, conf=_on(1800.0, "v1"), mission="jwt")
        + runs_of(LOW, conf=_on(1800.0, "v1"), mission="smb")
        + runs_of(HIGH, conf=_on(3600.0, "v1"), mission="jwt")
        + runs_of(HIGH, conf=_on(3600.0, "v1"), mission="smb")
    )
    step = progress_of(runs).steps[0]
    assert step.changed == ("budget_seconds",)
    assert (step.from_.budget_seconds, step.to.budget_seconds) == (1800.0, 3600.0)
    assert len(step.overall.strata) == 2


# --- linear in cells × configurations (issue 34 item 14) -----------------------------------------------------


def test_agent_steps_cost_linear_cpu_in_cells_and_configurations():
    def cpu(n):
        runs = one_configuration_a_run(n)
        progress = progress_of(runs)
        assert len(progress.steps) == n - 1 and len(progress.cells) == n
        return least_cpu(progress_of, runs)

    small, large = cpu(1000), cpu(4000)
    assert large < 8 * max(small, 0.01), (small, large)  # quadratic: 16 times
