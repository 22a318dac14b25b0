"""podium.words.progress_text: how progress verdicts read."""

from __future__ import annotations

import math

from progresskit import HIGH, LOW, progress_of, run

from podium.model import Configuration
from podium.model.progress import COST_VERDICTS, SCORE_VERDICTS, AgentSeries, StepSeries, Stratum
from podium.plan.progress import panel, version_step
from podium.render.text import history_steps
from podium.words.progress_text import (
    COST_SIGNS,
    VERDICT_SIGNS,
    checks_instead,
    field_text,
    has_tokens,
    headline_text,
    newest_text,
    not_compared,
    quoted,
    short_change,
    step_series_text,
    tally_text,
    tokens_text,
    verdict_label,
)


def test_glyphs_and_words():
    assert {v: g for v, (g, _) in VERDICT_SIGNS.items()} == {
        "improved": "▲",
        "regressed": "▼",
        "steady": "=",
        "mixed": "◆",
        "unclear": "?",
        "too_few_runs": "…",
        "not_comparable": "≠",
    }
    assert all(word for _, word in VERDICT_SIGNS.values())
    assert set(VERDICT_SIGNS) == set(SCORE_VERDICTS)


# --- the tokens series (cost.md §4) -------------------------------------------------------------------------


def step_series(verdict, shift, m=8, n=8, reasons=()):
    return StepSeries(verdict, reasons, shift, None, None, None, None, m, n)


def test_tokens_read_as_a_ratio_of_tokens_a_run_and_its_percentage():
    assert tokens_text(step_series("cheaper", math.log(0.62))) == "cheaper ×0.62 tokens a run (−38%)"
    assert tokens_text(step_series("costlier", math.log(1.4))) == "costlier ×1.40 tokens a run (+40%)"
    assert tokens_text(step_series("same_cost", 0.0)) == "same cost ×1.00 tokens a run (±0%)"
    assert tokens_text(step_series("too_few_runs", None, 3, 9)) == "tokens: too few runs (3 of the 5 runs needed)"
    crossed = tokens_text(step_series("unclear", math.log(2), reasons=("just_crossed",)))
    assert crossed == "cost unclear ×2.00 tokens a run (+100%), unclear: not without the newest run"
    stratum = Stratum("m1", "1.0.0", step_series("cheaper", math.log(0.5), 2, 4))
    agent = AgentSeries("cheaper", (), math.log(0.5), -3.1, 0.0019, {"cheaper": 1}, (stratum,))
    assert tokens_text(agent) == "cheaper ×0.50 tokens a run (−50%, p 0.0019)"
    few = AgentSeries("too_few_runs", (), None, None, None, {"too_few_runs": 1}, (stratum,))
    assert tokens_text(few) == "tokens: too few runs (2 of the 5 runs needed)"
    assert tally_text({"cheaper": 2, "same_cost": 1}, COST_SIGNS) == "cheaper on 2, same cost on 1"
    assert verdict_label("same_cost") == "= same cost" and verdict_label("cheaper") == "↓ cheaper"
    assert set(COST_SIGNS) == set(COST_VERDICTS)


def test_tokens_are_said_only_when_a_side_reports_them():
    assert not has_tokens(step_series("too_few_runs", None, 0, 0))
    assert has_tokens(step_series("too_few_runs", None, 0, 3))
    assert not has_tokens(AgentSeries("too_few_runs", (), None, None, None, {}, ()))


V1, V2 = Configuration("1", "model-a", "judge-1", 1800.0), Configuration("2", "model-a", "judge-1", 1800.0)


def _two_configurations(tokens_a, tokens_b):
    runs = []
    for mission in ("m1", "m2"):
        runs += [run(s, conf=V1, mission=mission, total_tokens=tokens_a) for s in LOW]
    for mission in ("m1", "m2"):
        runs += [run(s, conf=V2, mission=mission, total_tokens=tokens_b) for s in HIGH]
    return progress_of(runs)


def test_the_headline_history_and_pages_put_the_tokens_verdict_beside_the_score():
    reported = _two_configurations(100_000, 50_000)
    line = headline_text(reported)
    assert line.startswith("▲ improved +30.0 pp since agent v2 · improved on 2 of 2 missions · ")
    assert line.endswith(" · cheaper ×0.50 tokens a run (−50%, p < 0.0001)")
    view = panel(reported, "kestrel").steps[0]
    assert view.overall.startswith("▲ improved") and view.tokens.startswith("cheaper ×0.50 tokens a run")
    step = version_step(reported, "m1", "1.0.0", None)
    assert step.overall.startswith("▲ improved") and step.tokens == "cheaper ×0.50 tokens a run (−50%)"
    history = history_steps(reported)
    assert "  tokens    cheaper ×0.50 tokens a run (−50%" in history
    assert (
        "tokens" in history.splitlines()[history.splitlines().index("Newest step on each current mission version:") + 1]
    )


def test_nothing_is_said_of_tokens_when_no_run_reports_them():
    silent = _two_configurations(None, None)
    assert "token" not in headline_text(silent)
    assert panel(silent, "kestrel").steps[0].tokens is None
    assert version_step(silent, "m1", "1.0.0", None).tokens is None
    assert "token" not in history_steps(silent)


# --- configuration values a harness reported are quoted wherever a sentence carries them (issue 34 item 13) ---


HOSTILE = "gpt-5.5 · ▲ improved +40.0 pp"  # a model name written to read as podium's own verdict


def test_a_reported_name_is_quoted_and_cannot_close_its_quotation():
    assert quoted("gpt-5.5") == "“gpt-5.5”"
    assert quoted("a” · ▲ improved “b") == '“a" · ▲ improved "b”'
    conf = Configuration("beta-2", HOSTILE, "judge” · ok", 3600.0)
    assert field_text(conf, "model") == f"model “{HOSTILE}”"
    assert field_text(conf, "judge_model") == 'judge model “judge" · ok”'
    assert field_text(conf, "agent_version") == "agent “beta-2”"  # a version that is not a number is text too
    assert field_text(Configuration("5", None, None, None), "agent_version") == "agent v5"
    assert field_text(conf, "budget_seconds") == "budget 3,600 s"
    assert short_change(("agent_version",), conf) == "“beta-2”"


def test_every_sentence_that_names_a_model_quotes_it():
    """The headline, the agent page's step and its configurations, the mission version page and `podium history`
    (the run strip's band titles are the steps' ``since``)."""
    old, new = Configuration("1", "model-a", "judge-1", 1800.0), Configuration("1", HOSTILE, "judge-1", 1800.0)
    runs = []
    for mission in ("m1", "m2"):
        runs += [run(s, conf=old, mission=mission) for s in LOW] + [run(s, conf=new, mission=mission) for s in HIGH]
    progress = progress_of(runs)
    texts = [headline_text(progress), history_steps(progress)]
    view = panel(progress, "kestrel").steps[0]
    texts += [view.since, view.title, view.after]
    step = version_step(progress, "m1", "1.0.0", None)
    texts += [step.since]
    for text in texts:
        assert HOSTILE in text
        assert f"“{HOSTILE}”" in text and HOSTILE not in text.replace(f"“{HOSTILE}”", ""), text


# --- issue 36 items 4 and 5: verdicts in words, with the interval that decided them ------------------------------


def test_a_steady_step_names_its_90_percent_interval_and_band_and_a_move_its_99_percent_one():
    steady = StepSeries("steady", (), -0.005, -0.01, (-0.2, 0.2), (-0.03, 0.02), 0.05, 12, 12)
    assert step_series_text(steady) == "= steady −0.5 pp (90% CI −3.0 pp to +2.0 pp, within ±5.0 pp)"
    moved = StepSeries("improved", (), 0.12, 0.1, (0.04, 0.2), (0.06, 0.18), None, 12, 12)
    assert step_series_text(moved) == "▲ improved +12.0 pp (99% CI +4.0 pp to +20.0 pp)"
    few = StepSeries("too_few_runs", (), None, None, None, None, None, 3, 9)
    assert step_series_text(few) == "… too few runs (3 of the 5 runs needed)"


def test_a_version_an_agent_step_does_not_compare_on_says_why():
    assert not_compared(before=True, since=False) == "no runs since the change"
    assert not_compared(before=False, since=True) == "no runs before the change: nothing to compare"
    assert not_compared(before=False, since=False) == "not run in either configuration"
    checks = StepSeries("improved", (), 0.2, 0.2, (0.1, 0.3), (0.12, 0.28), None, 8, 8)
    assert checks_instead(checks) == (
        "≠ not comparable (judge model changed); on the checks: ▲ improved +20.0 pp (99% CI +10.0 pp to +30.0 pp)"
    )


def _agent_step(per_mission: dict[str, tuple[list[float], list[float]]]):
    runs = []
    for mission, (old, new) in per_mission.items():
        runs += [run(s, conf=V1, mission=mission) for s in old] + [run(s, conf=V2, mission=mission) for s in new]
    return progress_of(runs)


def test_a_mixed_headline_names_the_missions_each_way_and_no_pooled_shift():
    progress = _agent_step({"m1": (LOW, HIGH), "m2": (HIGH, LOW)})
    assert progress.newest_step.overall.verdict == "mixed"
    line = headline_text(progress)
    assert line == "◆ mixed since agent v2: improved on m1, regressed on m2"
    assert " pp" not in line  # +30 and −30 averaged would read as no move at all
    assert panel(progress, "kestrel").steps[0].overall == "◆ mixed: improved on m1, regressed on m2"


def test_a_move_no_single_mission_shows_says_so_where_it_stands():
    """Four missions of 4 runs a side: each too few alone, the stratified test over all of them decides."""
    few_low, few_high = LOW[:4], HIGH[:4]
    progress = _agent_step({m: (few_low, few_high) for m in ("m1", "m2", "m3", "m4")})
    overall = progress.newest_step.overall
    assert overall.verdict == "improved" and not overall.tally.get("improved")
    line = headline_text(progress)
    assert line.startswith("▲ improved +30.0 pp since agent v2 · the missions together show it, none alone (")
    assert panel(progress, "kestrel").steps[0].overall.endswith(": the missions together show it, none alone")


def test_the_newest_configuration_reads_its_own_median_beside_the_pooled_one():
    progress = _agent_step({"m1": (LOW, HIGH), "m2": (LOW, HIGH[:3])})
    assert newest_text(progress) == "since agent v2: median 60.0% over 11 runs"
    few = _agent_step({"m1": (LOW, HIGH[:3])})
    assert newest_text(few) == "since agent v2: median 60.0% over only 3 runs"  # under 6: no interval
    assert newest_text(progress_of([run(s, conf=V1) for s in LOW])) is None  # one configuration: the headline's
