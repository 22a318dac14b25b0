"""Shared by the progress tests: runs made to order, the fixtures several files use, and the rule of §2 written out
by brute force (the reference the computation is held against)."""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from itertools import count

from podium.count.progress import agent_headline, agent_progress
from podium.count.progress.ranktests import moses_k
from podium.count.progress.series import DELTA
from podium.model import Configuration
from podium.model.jsonable import jsonable
from podium.model.progress import ProgressRun
from podium.render.progress_data import progress_file


def progress_document(progress) -> dict:
    """The progress file as JSON data (what render/progress_data.py writes, before its bytes)."""
    return jsonable(progress_file(progress))


def headline_json(progress) -> dict:
    """The agent's headline as JSON data (every field of count/progress agent_headline)."""
    return jsonable(agent_headline(progress))


T0 = datetime(2026, 9, 1, tzinfo=UTC)
A = Configuration("v1", "model-a", "judge-1", 1800.0)
B = Configuration("v2", "model-a", "judge-1", 1800.0)
C = Configuration("v3", "model-a", "judge-1", 1800.0)
B_NEW_JUDGE = Configuration("v2", "model-a", "judge-2", 1800.0)
_serial = count(1)
_clock = count(0)


def run(
    score=None,
    *,
    det=None,
    judge=None,
    conf=A,
    kind="graded",
    mission="jwt",
    version="1.0.0",
    current=True,
    started="next",
    judge_upper=None,
    run_id=None,
    **extra,
) -> ProgressRun:
    """A run at the next minute; ``score`` sets both halves (and so the overall) alike."""
    scored = kind in ("graded", "partial_judge", "timed_out", "no_judge", "stopped")
    if scored and score is None and det is None:
        score = 0.5
    det = score if det is None else det
    judge = score if judge is None else judge
    if kind == "no_judge":
        judge = None
    overall = None
    if scored:
        overall = 0.5 * det + 0.5 * (judge or 0.0)
    partial = judge_upper is not None
    fields = dict(
        run_id=run_id or f"{next(_serial):032x}",
        mission=mission,
        version=version,
        current=current,
        started=T0 + timedelta(minutes=next(_clock)) if started == "next" else started,
        kind=kind,
        overall=overall,
        overall_upper=(0.5 * det + 0.5 * judge_upper) if partial else overall,
        deterministic=det if scored else None,
        judge=judge if scored else None,
        judge_upper=judge_upper,
        judge_status="partial" if partial else ("unavailable" if kind == "no_judge" else "ok"),
        configuration=conf,
    )
    fields.update(extra)
    return ProgressRun(**fields)


def runs_of(scores, **kw) -> list[ProgressRun]:
    return [run(s, **kw) for s in scores]


def only_cell(progress):
    assert len(progress.cells) == 1
    return progress.cells[0]


def progress_of(runs, agent="a1"):
    return agent_progress(agent, "Kestrel", "kestrel", runs)


LOW = [0.30, 0.32, 0.28, 0.31, 0.29, 0.33, 0.30, 0.27]
HIGH = [0.60, 0.62, 0.58, 0.61, 0.59, 0.63, 0.60, 0.57]


def agent_fixture(per_mission):
    """per_mission: {mission: (old scores, new scores)} for configurations A → B, interleaved in time."""
    runs = []
    for mission, (old, _) in per_mission.items():
        runs += runs_of(old, conf=A, mission=mission)
    for mission, (_, new) in per_mission.items():
        runs += runs_of(new, conf=B, mission=mission)
    return progress_of(runs)


def mixed_fixture():
    rng = random.Random(21)
    runs = []
    for mission in ("m1", "m2", "m3"):
        for conf, base in ((A, 0.3), (B, 0.5), (C, 0.45)):
            for _ in range(14):
                kind = rng.choice(
                    ["graded"] * 6 + ["timed_out", "no_judge", "stopped", "infra_failed", "partial_judge"]
                )
                s = round(min(1, max(0, base + rng.uniform(-0.1, 0.1))), 3)
                runs.append(
                    run(
                        s,
                        conf=conf,
                        mission=mission,
                        kind=kind,
                        judge_upper=min(1, s + 0.2) if kind == "partial_judge" else None,
                    )
                )
    runs += [run(0.4, mission="m1", started=None), run(kind="unknown", conf=None, mission="m2")]
    return runs


def ref_verdict(series, judge_changed, x, y):
    """§2 steps 1–5 by brute force: (verdict, steady_within, shift, ci99, ci90)."""
    m, n = len(x), len(y)
    d = sorted(b - a for a in x for b in y)
    shift = ci99 = ci90 = None
    if d:
        t = len(d)
        shift = d[t // 2] if t % 2 else (d[t // 2 - 1] + d[t // 2]) / 2
        for alpha in (Fraction(1, 100), Fraction(1, 10)):
            k = moses_k(m, n, alpha)
            interval = None if k is None else (d[k - 1], d[t - k])
            if alpha == Fraction(1, 100):
                ci99 = interval
            else:
                ci90 = interval
    delta = DELTA[series]
    if judge_changed and series in JUDGED:
        return "not_comparable", None, shift, ci99, ci90
    if m < 5 or n < 5:
        return "too_few_runs", None, shift, ci99, ci90
    if ci99 and round(ci99[0], 6) > 0 and round(shift, 6) >= delta:
        return "improved", None, shift, ci99, ci90
    if ci99 and round(ci99[1], 6) < 0 and round(shift, 6) <= -delta:
        return "regressed", None, shift, ci99, ci90
    for within in (delta, 2 * delta):
        if ci90 and round(ci90[0], 6) >= -within and round(ci90[1], 6) <= within:
            return "steady", within, shift, ci99, ci90
    return "unclear", None, shift, ci99, ci90


def ref_step(series, x, y, xu, yu):
    """One series' step with its guards (§2.5), the verdict in the series' own words (cost.md §4 for tokens)."""
    verdict, within, shift, ci99, ci90 = ref_verdict(series, False, x, y)
    reasons = []
    if verdict in ("improved", "regressed"):
        if series in JUDGED and ref_verdict(series, False, xu, yu)[0] != verdict:  # tokens: no upper values
            reasons.append("partial_judge")
        if ref_verdict(series, False, x, y[:-1])[0] != verdict or ref_verdict(series, False, x[:-1], y)[0] != verdict:
            reasons.append("just_crossed")
        if reasons:
            verdict, within = "unclear", None
    return ref_word(series, verdict), tuple(reasons), shift, ci99, ci90, within


JUDGED = ("overall", "judge")  # the series a change of judge model makes not comparable, with upper values
# cost.md §4: the tokens series says cheaper where a score says regressed, costlier for improved, same_cost for steady
TOKEN_WORDS = {"improved": "costlier", "regressed": "cheaper", "steady": "same_cost"}


def ref_word(series, verdict):
    return TOKEN_WORDS.get(verdict, verdict) if series == "tokens" else verdict


def ref_move(series, x, y):
    verdict = ref_verdict(series, False, x, y)[0]
    return verdict if verdict in ("improved", "regressed") else None


def brute(x: list[float], y: list[float]) -> list[float]:
    """All m·n float64 differences y[j] − x[i], sorted (the spec's definition)."""
    x = [v + 0.0 for v in x]
    y = [v + 0.0 for v in y]
    return sorted([b - a for a in x for b in y])


def brute_shift(d: list[float]) -> float:
    k = len(d)
    return d[k // 2] if k % 2 else (d[k // 2 - 1] + d[k // 2]) / 2


def brute_interval(d: list[float], m: int, n: int, alpha: Fraction) -> tuple[float, float] | None:
    k = moses_k(m, n, alpha)
    return None if k is None else (d[k - 1], d[m * n - k])


def brute_van_elteren(strata):
    num = den = 0.0
    for x, y in strata:
        m, n = len(x), len(y)
        if not m or not n:
            continue
        big = m + n
        u = sum(1.0 if b > a else 0.5 if b == a else 0.0 for a in x for b in y)
        ties = sum(t**3 - t for t in Counter(x + y).values())
        var = m * n / 12 * (big + 1 - ties / (big * (big - 1)))
        w = 1 / (big + 1)
        num += w * (u - m * n / 2)
        den += w * w * var
    if den == 0:
        return None, None
    z = num / math.sqrt(den)
    return z, math.erfc(abs(z) / math.sqrt(2))


def one_configuration_a_run(n: int) -> list[ProgressRun]:
    """A harness that reports a model id of its own on every run, each on a mission version of its own: n agent
    segments and n cells (an agent step once looked at every cell, a page at every cell per lookup: n² in all).
    Their start times are their own (a second apart): the shared clock of :func:`run` is not moved by them."""
    return [
        run(
            0.5,
            conf=replace(A, model=f"model-{i}"),
            mission=f"m{i:05d}",
            run_id=f"{i:032x}",
            started=T0 + timedelta(seconds=i),
        )
        for i in range(n)
    ]
