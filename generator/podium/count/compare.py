"""Head-to-head and by-model figures (spec/compare.md), computed in the one summary step.

Pure functions over RunRecords and the figures ``summarize`` already computed:
every median, interval and ranking comes from ``figures.figures``,
``stats.median`` / ``stats.median_ci`` and ``figures.rank_key``; this module
only adds what compare.md defines on top (superiority, verdicts, the four trap
flags, model keys).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from podium import routes
from podium.count import stats
from podium.count.figures import figures, rank_key
from podium.count.model_names import listed, model_key, reported_text, run_model
from podium.count.versions import version_key
from podium.model import (
    MEDIAN_KINDS,
    AgentSummary,
    Configuration,
    Figures,
    Leaderboard,
    MissionAgent,
    ModelSummary,
    Pair,
    PairFlags,
    PairVersion,
    RunRecord,
    provisional,
)

GAP = Fraction(1, 5)  # no_judge_gap / timeout_gap threshold, compared exactly
MATRIX_AGENTS = 30  # the compare page's matrix (and the pair pages) cover the top 30 ranked agents
NEAREST = 10  # an agent's part of the data lists its pairs with the 10 rivals ranked just above it and below it
PAIR_VERDICTS = ("a_ahead", "b_ahead", "overlap", "too_few")


def reported_models(records: Iterable[RunRecord]) -> tuple[tuple[str, ...], int]:
    """The distinct models the harness reported over ``records`` (each run's reported names as its model key
    joins them, model_names.reported_text), as a figure lists them (model_names.listed: at most MODELS_LISTED,
    those of the most runs), and how many distinct ones there are in all; runs that reported none (a run that
    never reached its agent, a harness that does not say) are not counted: a declared name is not what ran."""
    counts = Counter(
        reported_text(r.models_reported, r.models_more, r.models_digest) for r in records if any(r.models_reported)
    )
    distinct = len(counts)
    return listed(counts)[0], distinct


def superiority(xs: Sequence[float], ys: Sequence[float]) -> float:
    """P(x > y) + P(x == y) / 2 over all len(xs)·len(ys) pairs, exact comparisons.

    Counted in integers (twice the wins plus the ties) with one division at the end,
    in O((n + m) log m) by bisecting the sorted ``ys``.
    """
    if not xs or not ys:
        raise ValueError("superiority of an empty sample")
    ordered = sorted(ys)
    twice = 0
    for x in xs:
        below = bisect_left(ordered, x)
        twice += below + bisect_right(ordered, x)  # 2·below + ties
    return twice / (2 * len(xs) * len(ys))


def verdict(ci_a: tuple[float, float] | None, ci_b: tuple[float, float] | None) -> str:
    """compare.md §1: too_few without both intervals, ahead only when they do not overlap."""
    if ci_a is None or ci_b is None:
        return "too_few"
    if ci_a[0] > ci_b[1]:
        return "a_ahead"
    if ci_b[0] > ci_a[1]:
        return "b_ahead"
    return "overlap"


@dataclass(frozen=True, slots=True)
class _Side:
    """One agent on one current mission version, as a pair needs it."""

    values: tuple[float, ...]  # overall over the median population
    figures: Figures
    deterministic: float | None
    judge: float | None
    judge_models: Counter[str]  # over the population's runs whose judge ran
    models: Counter[str]  # run_model over the population (its runs each), runs with no model left out
    in_median: int
    no_judge: int
    timed_out: int
    configurations: frozenset[Configuration]  # of the population, runs with no readable conditions left out


def _side(records: Sequence[RunRecord], fig: Figures) -> _Side | None:
    population = [r for r in records if r.kind in MEDIAN_KINDS]
    if not population:
        return None
    return _Side(
        values=tuple(r.overall for r in population),
        figures=fig,
        deterministic=stats.median([r.deterministic for r in population if r.deterministic is not None]),
        judge=stats.median([r.judge for r in population if r.judge is not None]),
        judge_models=Counter(r.judge_model for r in population if r.judge_model and r.judge_ran),
        models=Counter(m for m in (run_model(r) for r in population) if m is not None),
        in_median=len(population),
        no_judge=fig.counts["no_judge"],
        timed_out=fig.counts["timed_out"],
        configurations=frozenset(r.configuration for r in population if r.configuration is not None),
    )


def _sides(
    groups: Mapping[tuple[str, str, str], Sequence[RunRecord]],
    cells: Mapping[tuple[str, str, str], Figures],
    current: Mapping[str, str],
) -> dict[str, dict[tuple[str, str], _Side]]:
    """agent -> (mission, version) -> its side there, on every current version where it has a median population."""
    sides: dict[str, dict[tuple[str, str], _Side]] = defaultdict(dict)
    for (agent, mission, version), records in groups.items():
        if current.get(mission) != version:
            continue
        side = _side(records, cells[(agent, mission, version)])
        if side is not None:
            sides[agent][(mission, version)] = side
    return sides


def _shared(mine: dict, theirs: dict) -> list[tuple[str, str]]:
    return sorted(mine.keys() & theirs.keys(), key=lambda mv: (mv[0], version_key(mv[1])))


def pairs(
    agents: Sequence[AgentSummary],
    groups: Mapping[tuple[str, str, str], Sequence[RunRecord]],
    cells: Mapping[tuple[str, str, str], Figures],
    current: Mapping[str, str],
    mission_url: Callable[[str, str], str | None],
) -> tuple[Pair, ...]:
    """Every pair of ranked agents sharing a current mission version (compare.md §1).

    ``agents`` ranked (summary order), ``groups``/``cells``: counted runs and their
    figures per (agent, mission, version), as summarize computed them once.

    Only a pair with a page (among the top MATRIX_AGENTS) keeps its versions, which its page and its data
    file show: the others keep every figure over their versions, and :func:`full_pair` makes their
    versions when asked (``podium compare``). There are agents² pairs, each with its shared versions.
    """
    sides = _sides(groups, cells, current)
    out = []
    for i, a in enumerate(agents):
        mine = sides.get(a.agent)
        if not mine:
            continue
        for j in range(i + 1, len(agents)):
            b = agents[j]
            theirs = sides.get(b.agent)
            if not theirs:
                continue
            shared = _shared(mine, theirs)
            if shared:
                page = routes.pair_path(a.slug, b.slug) if j < MATRIX_AGENTS else None
                out.append(_pair(a, b, shared, mine, theirs, mission_url, page, keep_versions=page is not None))
    return tuple(out)


def pairs_by_agent(pairs: Sequence[Pair]) -> dict[str, list[int]]:
    """agent id -> the indices in ``pairs`` of the pairs it is in, in their order (an agent's part of the data)."""
    out: dict[str, list[int]] = {}
    for index, pair in enumerate(pairs):
        out.setdefault(pair.a, []).append(index)
        out.setdefault(pair.b, []).append(index)
    return out


def listed_pairs(pairs: Sequence[Pair], agent: str, indices: Sequence[int], ranks: Mapping[str, int]) -> list[int]:
    """The pairs of ``agent`` (``indices`` into ``pairs``, in their order) its part of the data lists
    (compare.md §3.1): every pair with a page, and its pairs with the NEAREST rivals ranked just above it
    and the NEAREST just below it, among the agents it makes a pair with. The rest are counted, not listed:
    every agent's part listed every rival, so the parts grew with agents² (1,400 one-run agents: 989 MB)."""
    if len(indices) <= 2 * NEAREST:
        return list(indices)
    mine = ranks[agent]
    rival = [(ranks[p.b if p.a == agent else p.a], i) for i in indices for p in (pairs[i],)]
    above = sorted((r, i) for r, i in rival if r < mine)[-NEAREST:]
    below = sorted((r, i) for r, i in rival if r > mine)[:NEAREST]
    keep = {i for _, i in above + below} | {i for i in indices if pairs[i].url is not None}
    return [i for i in indices if i in keep]


def full_pair(board: Leaderboard, pair: Pair) -> Pair:
    """``pair`` (one of ``board.pairs``) with its versions, made again from the board's runs for its two agents
    exactly as :func:`pairs` made it (the same groups, figures and current versions)."""
    if len(pair.versions) == pair.shared:
        return pair
    groups = {
        key: [board.runs[i] for i in indices]
        for key, indices in board.groups.by_agent_version.items()
        if key[0] in (pair.a, pair.b)
    }
    current = {m.mission: m.version for m in board.missions if m.current}
    urls = {(m.mission, m.version): m.url for m in board.missions}
    sides = _sides(groups, {key: figures(records) for key, records in groups.items()}, current)
    agents = {a.agent: a for a in board.agents}
    mine, theirs = sides[pair.a], sides[pair.b]
    return _pair(
        agents[pair.a],
        agents[pair.b],
        _shared(mine, theirs),
        mine,
        theirs,
        lambda mission, version: urls.get((mission, version)),
        pair.url,
        keep_versions=True,
    )


def _pair(
    a: AgentSummary,
    b: AgentSummary,
    shared: list[tuple[str, str]],
    mine: dict,
    theirs: dict,
    mission_url: Callable[[str, str], str | None],
    page: str | None,
    *,
    keep_versions: bool,
) -> Pair:
    versions = []
    judges_differ = []  # on the names as recorded, every one of them (compare.md §1.4)
    for mission, version in shared:
        x, y = mine[(mission, version)], theirs[(mission, version)]
        if x.judge_models.keys() != y.judge_models.keys():
            judges_differ.append(f"{mission} {version}")
        versions.append(
            PairVersion(
                mission=mission,
                version=version,
                url=mission_url(mission, version),
                n_a=x.in_median,
                n_b=y.in_median,
                median_a=x.figures.median,
                median_b=y.figures.median,
                median_ci_a=x.figures.median_ci,
                median_ci_b=y.figures.median_ci,
                median_diff=x.figures.median - y.figures.median,
                median_deterministic_a=x.deterministic,
                median_deterministic_b=y.deterministic,
                median_judge_a=x.judge,
                median_judge_b=y.judge,
                **_models("judge_models_a", x.judge_models),
                **_models("judge_models_b", y.judge_models),
                superiority=superiority(x.values, y.values),
                verdict=verdict(x.figures.median_ci, y.figures.median_ci),
            )
        )
    verdicts = dict.fromkeys(PAIR_VERDICTS, 0)
    for v in versions:
        verdicts[v.verdict] += 1
    xs = [mine[mv] for mv in shared]
    ys = [theirs[mv] for mv in shared]
    models_a, models_b = Counter[str](), Counter[str]()
    for side in xs:
        models_a.update(side.models)
    for side in ys:
        models_b.update(side.models)
    no_judge_a, no_judge_b = _no_judge_share(xs), _no_judge_share(ys)
    timeout_a, timeout_b = _timeout_share(xs), _timeout_share(ys)
    fields_a, fields_b = _configuration_fields(xs), _configuration_fields(ys)
    mean_superiority = stats.mean([v.superiority for v in versions])
    return Pair(
        a=a.agent,
        b=b.agent,
        a_name=a.name,
        b_name=b.name,
        url=page,
        shared=len(versions),
        superiority=mean_superiority,
        verdicts=verdicts,
        median_diff=stats.median([v.median_diff for v in versions]),
        flags=PairFlags(
            judge_models_differ=tuple(sorted(judges_differ)),
            model_changed=tuple(
                sorted(agent for agent, models in ((a.agent, models_a), (b.agent, models_b)) if len(models) > 1)
            ),
            no_judge_gap=abs(no_judge_a - no_judge_b) >= GAP,
            timeout_gap=abs(timeout_a - timeout_b) >= GAP,
            configuration_changed=tuple(
                sorted(agent for agent, fields in ((a.agent, fields_a), (b.agent, fields_b)) if fields)
            ),
        ),
        **_models("models_a", models_a),
        **_models("models_b", models_b),
        no_judge_share_a=float(no_judge_a),
        no_judge_share_b=float(no_judge_b),
        timeout_share_a=float(timeout_a),
        timeout_share_b=float(timeout_b),
        versions=tuple(versions) if keep_versions else (),
        head_to_head=head_to_head(mean_superiority),
        configuration_fields_a=fields_a,
        configuration_fields_b=fields_b,
    )


# The configuration fields a pair names when they differ among one side's runs (compare.md §1.5); the model
# is model_changed's, by compare.md §1.4's own reading of a run's model.
CONFIGURATION_TRAP_FIELDS = ("agent_version", "judge_model", "budget_seconds")


def _configuration_fields(sides: list[_Side]) -> tuple[str, ...]:
    """The fields of CONFIGURATION_TRAP_FIELDS on which one agent's runs in the median on one shared version do not
    all agree: its median there mixes configurations. Decided version by version, as each mission has a budget of
    its own."""
    return tuple(
        name
        for name in CONFIGURATION_TRAP_FIELDS
        if any(len({getattr(c, name) for c in side.configurations}) > 1 for side in sides)
    )


def head_to_head(value: float | None) -> str:
    """Whose run beats the other's more often than not, from the pair's superiority (compare.md §1.5): "a" above
    one half, "b" below (the higher ranked agent loses head to head), "even" at one half, compared as published
    (12 significant digits), so float noise in a mean of halves never decides it."""
    if value is None:  # no shared version: never a pair
        return "even"
    published = float(f"{value:.12g}")
    return "a" if published > 0.5 else ("b" if published < 0.5 else "even")


def _models(field: str, counts: Counter[str]) -> dict:
    """A side's models (or judge models) as a pair publishes them (compare.md §1.3): at most MODELS_LISTED,
    the rest counted."""
    names, more = listed(Counter(counts))
    return {field: names, f"{field}_more": more}


def _no_judge_share(sides: list[_Side]) -> Fraction:
    left_out = sum(s.no_judge for s in sides)
    whole = sum(s.in_median for s in sides) + left_out
    return Fraction(left_out, whole) if whole else Fraction(0)


def _timeout_share(sides: list[_Side]) -> Fraction:
    whole = sum(s.in_median for s in sides)
    return Fraction(sum(s.timed_out for s in sides), whole) if whole else Fraction(0)


def by_model(
    records: Sequence[RunRecord], agent_names: Mapping[str, str], agent_url: Callable[[str], str | None]
) -> tuple[ModelSummary, ...]:
    """compare.md §2: counted runs on current mission versions grouped by model key, ranked.

    ``records`` is the Leaderboard's run list: each summary keeps its runs as indices into it.
    """
    groups: dict[str, list[RunRecord]] = defaultdict(list)
    indices: dict[str, list[int]] = defaultdict(list)
    for index, record in enumerate(records):
        if not record.older and record.kind != "not_a_run":
            key = model_key(record)
            groups[key].append(record)
            indices[key].append(index)
    slugs = routes.unique_slugs({key: key for key in groups})
    summaries = []
    for key, own in groups.items():
        by_agent: dict[str, list[RunRecord]] = defaultdict(list)
        for record in own:
            by_agent[record.agent].append(record)
        members = []
        for agent, theirs in by_agent.items():
            fig = figures(theirs)
            name = agent_names[agent]
            members.append(
                (
                    rank_key(name, agent, fig),
                    MissionAgent(
                        agent, name, agent_url(agent), fig.median, fig.in_median, fig.runs, provisional(fig.in_median)
                    ),
                )
            )
        fig = figures(own)
        summaries.append(
            (
                rank_key(key, key, fig),
                ModelSummary(
                    model=key,
                    slug=slugs[key],
                    url=routes.model_path(slugs[key]),
                    rank=0,
                    figures=fig,
                    agents=tuple(sorted(agent_names[agent] for agent in by_agent)),
                    members=tuple(m for _, m in sorted(members, key=lambda m: m[0])),
                    runs=tuple(indices[key]),
                ),
            )
        )
    summaries.sort(key=lambda s: s[0])
    return tuple(
        replace(s, rank=i + 1, provisional=provisional(s.figures.in_median)) for i, (_, s) in enumerate(summaries)
    )
