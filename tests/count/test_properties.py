"""Properties of the one summary step, on random in-memory exports (hypothesis).

The reference below (kinds, current versions, median, interval, mean, ranking,
agreement) is written from counting.md independently of generator/, with
``fractions.Fraction`` and ``math.comb`` for exact arithmetic. Scores come from
a grid of multiples of 1/8, so every float the code computes can be compared
with the exactly rounded reference using ``==``.
"""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from math import comb

from exportkit import run_id
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from podium.count import stats
from podium.count.summarize import summarize
from podium.model import COUNTED_KINDS, Conditions, Export, Grade, Run
from podium.render.data import ledger_row, summary_data

BASE = datetime(2026, 10, 1, 9, 0, 0, tzinfo=UTC)
GRID = [Fraction(k, 8) for k in range(9)]  # 0, 1/8, ..., 1
AGENTS = ["alpha", "Bravo", "bravo", "c d"]
MISSIONS = ["m1", "m2"]
# Reference order of the versions used, lowest first (counting.md §4: SemVer numerically,
# above r<n>, which compare by n).
VERSION_ORDER = ["r3", "r12", "1.0.0", "1.9.0", "1.10.0"]
JUDGE_STATUSES = ["ok"] * 10 + ["partial"] * 5 + ["model-not-configured", "unavailable"] * 2 + ["weird", None]
PARTIAL_TRIGGERS = [None] * 12 + ["timeout"] * 5 + ["operator"] * 2 + ["meteor"]
NOT_A_RUN = {"cancelled", "never_started"}
MEDIAN_KINDS = {"graded", "partial_judge", "timed_out"}
LEVEL = Fraction(95, 100)

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------- reference


def ref_j(n: int) -> int | None:
    """Largest j with 1 - 2·P(B <= j-1) >= 0.95, B ~ Binomial(n, 1/2), taken literally.

    cum(j) = sum_{i<j} C(n, i) = 2^n · P(B <= j-1). The scan uses the integer form
    20·(2^n - 2·cum) >= 19·2^n of the same inequality; cum only grows with j, so
    the condition holds for j = 1..J and fails after, and the scan may stop at the
    first failure. The Fraction form is then checked at J and J+1.
    """
    total = 2**n
    cums = [0]  # cums[j] = cum(j)
    best = None
    for j in range(1, n + 1):
        cums.append(cums[-1] + comb(n, j - 1))
        if 20 * (total - 2 * cums[j]) >= 19 * total:
            best = j
        else:
            break

    def holds(j):
        cum = cums[j] if j < len(cums) else sum(comb(n, i) for i in range(j))
        return 1 - 2 * Fraction(cum, total) >= LEVEL

    if best is None:
        assert not holds(1)
    else:
        assert holds(best) and (best == n or not holds(best + 1))
    return best


def ref_median(values: list[Fraction]) -> Fraction | None:
    xs = sorted(values)
    n = len(xs)
    if n == 0:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def ref_ci(values: list[Fraction]):
    xs = sorted(values)
    n = len(xs)
    j = ref_j(n) if n else None
    if j is None:
        return None
    return (float(xs[j - 1]), float(xs[n - j]))  # x(j), x(n+1-j), 1-based


def flt(x):
    return None if x is None else float(x)


def ref_kind(s: dict) -> str:
    """counting.md §2, first matching row wins."""
    if (
        s["list_outcome"] in NOT_A_RUN
        or s["list_trigger"] in NOT_A_RUN
        or (s["shape"] == "not_graded" and s["result_trigger"] in NOT_A_RUN)
    ):
        return "not_a_run"
    if s["shape"] == "not_graded" or s["list_outcome"] == "infra_failed":
        return "infra_failed"
    if s["shape"] == "grading":
        return "grading"
    if s["shape"] == "graded" and (s["judge_detail"] or "").startswith("grading failed"):
        return "grading_failed"
    if (
        s["shape"] != "graded"
        or not s["valid"]
        or s["judge_status"] not in ("ok", "partial", "model-not-configured", "unavailable")
        or s["partial_trigger"] not in (None, "timeout", "operator")
    ):
        return "unknown"
    if s["partial_trigger"] == "operator" or s["list_trigger"] == "operator":
        return "stopped"
    if s["judge_status"] in ("model-not-configured", "unavailable"):
        return "no_judge"
    if s["partial_trigger"] == "timeout":
        return "timed_out"
    if s["judge_status"] == "partial":
        return "partial_judge"
    return "graded"


def ref_figures(specs: list[dict]) -> dict:
    pop = [s for s in specs if s["kind"] in MEDIAN_KINDS]
    lows = [s["overall"] for s in pop]
    uppers = [s["overall_upper"] if s["overall_upper"] is not None else s["overall"] for s in pop]
    return {
        "runs": len(specs),
        "in_median": len(pop),
        "median": flt(ref_median(lows)),
        "median_upper": flt(ref_median(uppers)),
        "median_ci": ref_ci(lows),
        "avg_overall": flt(sum(lows) / len(lows)) if lows else None,
        "best_overall": flt(max(lows)) if lows else None,
        "counts": {k: sum(s["kind"] == k for s in specs) for k in COUNTED_KINDS},
    }


def got_figures(fig) -> dict:
    return {
        "runs": fig.runs,
        "in_median": fig.in_median,
        "median": fig.median,
        "median_upper": fig.median_upper,
        "median_ci": None if fig.median_ci is None else tuple(fig.median_ci),
        "avg_overall": fig.avg_overall,
        "best_overall": fig.best_overall,
        "counts": dict(fig.counts),
    }


# ---------------------------------------------------------------- generation


def pick(draw, clean, clean_values, noisy_values):
    return draw(st.sampled_from(clean_values if clean else noisy_values))


@st.composite
def run_specs(draw, agents=tuple(AGENTS), missions=tuple(MISSIONS), versions=tuple(VERSION_ORDER)) -> dict:
    """One run's kind-shaping facts. A "clean" run is a plausible graded run; a noisy one
    mixes every shape, run-list outcome and trigger, and bad or unknown values."""
    clean = draw(st.sampled_from([True, True, True, False]))
    shape = pick(draw, clean, ["graded"], ["graded"] * 4 + ["not_graded", "grading", "other", "unreadable"])
    s = {
        "shape": shape,
        "agent": draw(st.sampled_from(agents)),
        "mission": draw(st.sampled_from(missions)),
        "version": draw(st.sampled_from(versions)),
        "result_trigger": draw(st.sampled_from(["deploy_failed", "crashed", "cancelled", "never_started"]))
        if shape == "not_graded"
        else None,
        "list_outcome": pick(
            draw,
            clean,
            [None, "completed", "partial"],
            [None, "completed", "partial", "infra_failed", "cancelled", "never_started"],
        ),
        "list_trigger": pick(
            draw,
            clean,
            [None, None, "done"],
            [None, "done", "timeout", "operator", "deploy_failed", "crashed", "cancelled", "never_started"],
        ),
        "start": draw(st.none() | st.integers(0, 50)),
        "duration": draw(st.none() | st.integers(0, 30)),
        "judge_status": None,
        "judge_detail": None,
        "partial_trigger": None,
        "valid": False,
        "overall": None,
        "overall_upper": None,
        "det": None,
        "judge": None,
        "judge_model": None,
        "models_reported": (),
        "model": None,
    }
    if shape == "graded":
        status = pick(
            draw,
            clean,
            ["ok"] * 4 + ["partial"] * 2 + ["model-not-configured", "unavailable"],
            ["ok", "partial", "model-not-configured", "unavailable", "weird", None],
        )
        det = draw(st.sampled_from(GRID))
        judge = Fraction(0) if status in ("model-not-configured", "unavailable") else draw(st.sampled_from(GRID))
        overall = draw(st.sampled_from(GRID))  # podium reads grade.overall as given
        upper = None
        if status == "partial":
            upper = draw(st.none() | st.sampled_from([x for x in GRID if x >= overall]))
        elif draw(st.booleans()):
            upper = overall
        s.update(
            judge_status=status,
            judge_detail=pick(draw, clean, [None, "fine"], [None, "fine", "grading failed: worker crashed"]),
            partial_trigger=pick(
                draw, clean, [None] * 4 + ["timeout"] * 2 + ["operator"], [None, "timeout", "operator", "meteor"]
            ),
            valid=pick(draw, clean, [True], [True, False]),
            det=det,
            judge=judge,
            overall=overall,
            overall_upper=upper,
            judge_model=draw(st.sampled_from([None, "j1", "j2"])),
            models_reported=tuple(draw(st.lists(st.sampled_from(["ma", "mb", "mc"]), max_size=2))),
            model=draw(st.sampled_from([None, "model-a", "model-b"])),
        )
        if s["judge_detail"] and s["judge_detail"].startswith("grading failed"):
            s.update(valid=False, overall=None, overall_upper=None, det=None, judge=None)
        if not s["valid"]:
            s.update(overall=None, overall_upper=None)
    return s


@st.composite
def exports(draw) -> list[dict]:
    """0..24 runs over a random subset of agents, missions and versions (small subsets give
    populations of 6 and more, so the interval is exercised too)."""
    agents = draw(st.lists(st.sampled_from(AGENTS), min_size=1, max_size=4, unique=True))
    missions = draw(st.lists(st.sampled_from(MISSIONS), min_size=1, max_size=2, unique=True))
    versions = draw(st.lists(st.sampled_from(VERSION_ORDER), min_size=1, max_size=5, unique=True))
    n = draw(st.integers(0, 24))
    return draw(st.lists(run_specs(tuple(agents), tuple(missions), tuple(versions)), min_size=n, max_size=n))


def to_run(index: int, s: dict) -> Run:
    rid = run_id(("prop", index))
    grade = conditions = None
    if s["shape"] == "graded":
        grade = Grade(
            overall=flt(s["overall"]),
            deterministic=flt(s["det"]),
            judge=flt(s["judge"]),
            overall_upper=flt(s["overall_upper"]),
            judge_upper=flt(s["judge"]),
            judge_coverage=None,
            judge_status=s["judge_status"],
            judge_detail=s["judge_detail"],
            scores_valid=s["valid"],
        )
        conditions = Conditions(model=s["model"], judge_model=s["judge_model"], mission_version=s["version"])
    started = BASE + timedelta(minutes=s["start"]) if s["start"] is not None else None
    completed = started + timedelta(minutes=s["duration"]) if started and s["duration"] is not None else None
    return Run(
        run_id=rid,
        directory=rid[:8],
        shape=s["shape"],
        result_trigger=s["result_trigger"],
        grade=grade,
        conditions=conditions,
        partial=s["partial_trigger"] is not None if s["shape"] == "graded" else None,
        partial_trigger=s["partial_trigger"],
        models_reported=s["models_reported"],
        list_outcome=s["list_outcome"],
        list_trigger=s["list_trigger"],
        agent="id-" + s["agent"],
        agent_name=s["agent"],
        mission=s["mission"],
        version=s["version"],
        started=started,
        completed=completed,
        model_declared=s["model"],
    )


def make_export(runs) -> Export:
    return Export(runs=tuple(runs), problems=(), runs_read=len(runs), inputs_digest="sha256:" + "0" * 64)


EXPORTS = exports()


def all_summaries(board):
    for a in board.agents + board.agents_older:
        yield a.figures
        for m in a.missions:
            yield m.figures
    for m in board.missions:
        yield m.figures


# ---------------------------------------------------------------- properties


@SETTINGS
@given(EXPORTS, st.randoms(use_true_random=False))
def test_order_independent(specs, rnd):
    runs = [to_run(i, s) for i, s in enumerate(specs)]
    board = summarize(make_export(runs))
    shuffled = list(runs)
    rnd.shuffle(shuffled)
    again = summarize(make_export(shuffled))
    assert summary_data(again) == summary_data(board)
    assert [ledger_row(r) for r in again.runs] == [ledger_row(r) for r in board.runs]


@SETTINGS
@given(EXPORTS)
def test_every_run_once_and_totals(specs):
    runs = [to_run(i, s) for i, s in enumerate(specs)]
    board = summarize(make_export(runs))
    ids = [r.run_id for r in board.runs]
    assert sorted(ids) == sorted(r.run_id for r in runs)
    assert len(set(ids)) == len(ids)
    assert board.totals.runs + board.totals.not_a_run == len(runs)
    kinds = [ref_kind(s) for s in specs]
    assert board.totals.not_a_run == kinds.count("not_a_run")
    assert board.totals.counts == {k: kinds.count(k) for k in COUNTED_KINDS}
    by_id = {r.run_id: r.kind for r in board.runs}
    assert [by_id[r.run_id] for r in runs] == kinds


@SETTINGS
@given(EXPORTS)
def test_counts_rates_and_population_of_every_summary(specs):
    board = summarize(make_export([to_run(i, s) for i, s in enumerate(specs)]))
    for fig in all_summaries(board):
        assert sum(fig.counts.values()) == fig.runs
        assert list(fig.counts) == list(COUNTED_KINDS)
        assert fig.in_median == fig.counts["graded"] + fig.counts["partial_judge"] + fig.counts["timed_out"]
        assert fig.judge_degraded == fig.counts["no_judge"]
        for rate in (fig.completion_rate, fig.partial_rate):
            assert rate is None or 0 <= rate <= 1
        attempts = fig.runs - fig.counts["infra_failed"] - fig.counts["grading"] - fig.counts["unknown"]
        assert (fig.completion_rate is None) == (attempts == 0)
        assert (fig.partial_rate is None) == (attempts == 0)
        if fig.completion_rate is not None:
            assert fig.completion_rate + fig.partial_rate <= 1 + 1e-12
        assert (fig.median is None) == (fig.in_median == 0)
        if fig.median is not None:
            assert fig.median <= fig.median_upper
            low, high = fig.median_ci or (fig.median, fig.median)
            assert low <= fig.median <= high


@SETTINGS
@given(EXPORTS)
def test_figures_match_reference(specs):
    runs = [to_run(i, s) for i, s in enumerate(specs)]
    board = summarize(make_export(runs))
    specs = [dict(s, kind=ref_kind(s)) for s in specs]
    counted = [s for s in specs if s["kind"] != "not_a_run"]

    # §4: current = the highest version seen per mission (over counted runs)
    current = {}
    for s in counted:
        best = current.get(s["mission"])
        if best is None or VERSION_ORDER.index(s["version"]) > VERSION_ORDER.index(best):
            current[s["mission"]] = s["version"]

    # per agent: headline (current versions only) and older
    by_agent = defaultdict(list)
    for s in counted:
        by_agent[s["agent"]].append(s)
    assert sorted(a.name for a in board.agents) == sorted(by_agent)
    expected_headline = {}
    for name, own in by_agent.items():
        mine = [s for s in own if current[s["mission"]] == s["version"]]
        theirs = [s for s in own if current[s["mission"]] != s["version"]]
        expected_headline[name] = ref_figures(mine)
        head = [a for a in board.agents if a.name == name][0]
        assert got_figures(head.figures) == expected_headline[name], name
        olds = [a for a in board.agents_older if a.name == name]
        if theirs:
            assert len(olds) == 1
            assert got_figures(olds[0].figures) == ref_figures(theirs)
        else:
            assert olds == []
        # per agent on each mission version
        groups = defaultdict(list)
        for s in own:
            groups[(s["mission"], s["version"])].append(s)
        got = {(m.mission, m.version): got_figures(m.figures) for a in [head] + olds for m in a.missions}
        assert got == {key: ref_figures(group) for key, group in groups.items()}

    # §5 ranking
    def rank_key(name):
        f = expected_headline[name]
        if f["median"] is None:
            return (1, 0, 0, 0, name.casefold(), name)
        return (0, -f["median"], -f["avg_overall"], -f["in_median"], name.casefold(), name)

    assert [a.name for a in board.agents] == sorted(by_agent, key=rank_key)
    assert [a.rank for a in board.agents] == list(range(1, len(by_agent) + 1))

    # per mission version, with its chips and grader agreement
    versions = defaultdict(list)
    for s in counted:
        versions[(s["mission"], s["version"])].append(s)
    got = {(m.mission, m.version): m for m in board.missions}
    assert set(got) == set(versions)
    for key, own in versions.items():
        card = got[key]
        assert card.current == (current[key[0]] == key[1])
        assert got_figures(card.figures) == ref_figures(own)
        full = [
            abs(s["det"] - s["judge"])
            for s in own
            if s["kind"] in ("graded", "timed_out", "stopped") and s["judge_status"] == "ok"
        ]
        assert card.judge_vs_checks == (flt(sum(full) / len(full)) if full else None)
        chips = defaultdict(list)
        for s in own:
            chips[s["agent"]].append(s)
        assert {c.name: c.median for c in card.agents} == {
            name: ref_figures(theirs)["median"] for name, theirs in chips.items()
        }


def test_ci_rank_matches_exact_reference_up_to_1100():
    """Exact integer path up to 1024, floating-point path above it."""
    for n in range(1, 1101):
        assert stats.ci_rank(n) == ref_j(n), n


def test_ci_rank_known_values():
    # n=5: 1 - 2/32 = 0.9375 < 0.95 -> none; n=6 -> 1; n=9 -> 2; n=17 -> 5 (worked out in test_figures)
    assert [stats.ci_rank(n) for n in (1, 2, 5, 6, 9, 17)] == [None, None, None, 1, 2, 5]


@SETTINGS
@given(st.lists(st.sampled_from(GRID), max_size=40))
def test_stats_match_reference(values):
    floats = [float(v) for v in values]
    random.Random(len(values)).shuffle(floats)
    assert stats.median(floats) == flt(ref_median(values))
    assert stats.mean(floats) == (flt(sum(values) / len(values)) if values else None)
    got = stats.median_ci(floats)
    assert (None if got is None else tuple(got)) == ref_ci(values)
