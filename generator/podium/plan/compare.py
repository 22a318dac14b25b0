"""The head-to-head and by-model pages: which template each gets, with what context.

Pure, like plan/site.py (which hooks this in): the Leaderboard in, ``(path, template,
context)`` triples out. Contexts carry the summary's Pair and ModelSummary objects,
chart geometry and sentences (words/compare_text.py); templates never count.

Pages: ``compare/index.html`` (a matrix of every pair among the top
``compare.MATRIX_AGENTS`` ranked agents), one page per such pair, ``models/index.html``
and one page per model key. Pairs below the matrix are in their agents' parts of the comparison data
(:func:`data_files`: figures over their versions) and, in full, in ``podium compare`` only.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from functools import partial

from podium import routes
from podium.count.compare import MATRIX_AGENTS, listed_pairs, pairs_by_agent
from podium.count.figures import first
from podium.model import AgentSummary, Leaderboard, ModelSummary, Pair, RunRecord
from podium.plan import charts
from podium.plan.compare_charts import intervals
from podium.plan.contexts import (
    AgentPair,
    CompareContext,
    MatrixCell,
    MatrixRow,
    ModelCard,
    ModelContext,
    ModelsContext,
    PairContext,
    PairSection,
    PairWords,
    VersionPair,
    names,
)
from podium.plan.entries import DataFile
from podium.words.compare_text import (
    flag_sentences,
    head_to_head_words,
    superiority_words,
    verdict_counts,
    verdict_words,
)
from podium.words.figures_text import models_lead
from podium.words.names_text import short_name

MODEL_RUNS = 20  # newest runs listed on a model page (site.md "Bounded")
MODEL_CARDS = 10  # model cards on models/index.html; the keys ranked below them are table rows…
MODEL_ROWS = 30  # …at most this many (every key is in compare.json)
MODEL_EMPTY_NAMED = 20  # keys with no run in a median, named on one line (each has its page)
LEFT_OUT_NAMED = 10  # agents below the matrix named on the compare page

Planned = tuple[str, str, dict]


def version_anchors(pair: Pair) -> dict[tuple[str, str], str]:
    """(mission, version) -> the id of its section on the pair page."""
    names = {f"{v.mission}\x00{v.version}": f"v {v.mission} {v.version}" for v in pair.versions}
    slugs = routes.unique_slugs(names)
    return {(v.mission, v.version): slugs[f"{v.mission}\x00{v.version}"] for v in pair.versions}


class Links:
    """Links to the pair pages, for the agent pages ("compare with…") and the mission pages."""

    def __init__(self, board: Leaderboard):
        self._agent: dict[str, list[AgentPair]] = defaultdict(list)
        self._version: dict[tuple[str, str], list[VersionPair]] = defaultdict(list)
        slugs = {a.agent: a for a in board.agents}
        for pair in board.pairs:
            if pair.url is None:
                continue
            self._agent[pair.a].append(AgentPair(other=slugs[pair.b], url=pair.url, pair=pair))
            self._agent[pair.b].append(AgentPair(other=slugs[pair.a], url=pair.url, pair=pair))
            anchors = version_anchors(pair)
            for v in pair.versions:
                self._version[(v.mission, v.version)].append(
                    VersionPair(
                        pair=pair,
                        url=pair.url,
                        anchor=anchors[(v.mission, v.version)],
                        version=v,
                        verdict=verdict_words(v.verdict, pair.a_name, pair.b_name),
                    )
                )
        for links in self._agent.values():
            links.sort(key=lambda link: (link.other.rank is None, link.other.rank or 0))  # pairs are of ranked agents

    def for_agent(self, agent: str) -> list[AgentPair]:
        return self._agent.get(agent, [])

    def for_version(self, mission: str, version: str) -> list[VersionPair]:
        return self._version.get((mission, version), [])


def data_files(board: Leaderboard) -> list[DataFile]:
    """compare.json's parts (render/compare_data.py): one per agent with a pair, one per pair with a page."""
    pairs_of = pairs_by_agent(board.pairs)
    ranks = {a.agent: a.rank or 0 for a in board.agents}  # (every agent of board.agents is ranked)
    out = [
        DataFile(
            routes.compare_agent_data_path(a.slug),
            "compare_agent",
            i,
            tuple(listed := listed_pairs(board.pairs, a.agent, pairs_of[a.agent], ranks)),
            len(pairs_of[a.agent]) - len(listed),
        )
        for i, a in enumerate(board.agents)
        if a.agent in pairs_of
    ]
    slugs = {a.agent: a.slug for a in board.agents}
    out += [
        DataFile(routes.compare_pair_data_path(slugs[p.a], slugs[p.b]), "compare_pair", i)
        for i, p in enumerate(board.pairs)
        if p.url is not None
    ]
    return out


def page_makers(board: Leaderboard) -> list[tuple[str, Callable[[], Planned]]]:
    """Each page's path, and what makes it (plan/site.py makes a page when it is keyed or rendered)."""
    out: list[tuple[str, Callable[[], Planned]]] = [(routes.COMPARE_INDEX, partial(_compare_index, board))]
    agents = {a.agent: a for a in board.agents}
    out += [(p.url, partial(_pair_page, p, p.url, agents)) for p in board.pairs if p.url is not None]
    # grouped once, in summarize; by slug, unique where two keys may publish alike (redacted: safety/safe.py)
    by_key = {m.slug: [board.runs[i] for i in m.runs] for m in board.by_model}
    out.append((routes.MODELS_INDEX, partial(_models_index, board, by_key)))
    out += [(m.url, partial(_model_page, m, by_key[m.slug])) for m in board.by_model]
    return out


def _compare_index(board: Leaderboard) -> Planned:
    top, left_out_total = first(board.agents, MATRIX_AGENTS)
    left_out = board.agents[MATRIX_AGENTS:]
    named, unnamed = first(left_out, LEFT_OUT_NAMED)
    pairs = {(p.a, p.b): p for p in board.pairs}
    rows = []
    for i, a in enumerate(top[:-1]):
        cells = tuple(MatrixCell(b=b, pair=pairs.get((a.agent, b.agent))) for b in top[i + 1 :])
        rows.append(MatrixRow(agent=a, blank=i, cells=cells))  # blank: the columns left of the diagonal
    lead = pairs.get((top[0].agent, top[1].agent)) if len(top) > 1 else None
    return (
        routes.COMPARE_INDEX,
        "compare.html",
        names(
            CompareContext(
                page_title="Compare",
                agents=tuple(top),
                columns=tuple(top[1:]),
                rows=tuple(rows),
                left_out=tuple(left_out),
                left_out_total=left_out_total,
                left_out_named=tuple(named),
                left_out_unnamed=unnamed,
                agents_total=len(top),
                pairs_total=len(board.pairs),
                limit=MATRIX_AGENTS,
                lead=_pair_words(lead) if lead is not None else None,
            )
        ),
    )


def _pair_words(pair: Pair) -> PairWords:
    return PairWords(
        pair=pair,
        superiority=superiority_words(pair.a_name, pair.b_name, pair.superiority),
        counts=verdict_counts(pair),
    )


def _pair_page(pair: Pair, url: str, agents: dict[str, AgentSummary]) -> Planned:
    anchors = version_anchors(pair)
    versions = tuple(
        PairSection(
            v=v,
            anchor=anchors[(v.mission, v.version)],
            chart=intervals(v, pair.a_name, pair.b_name),
            verdict=verdict_words(v.verdict, pair.a_name, pair.b_name),
            superiority=superiority_words(pair.a_name, pair.b_name, v.superiority),
        )
        for v in pair.versions
    )
    words = _pair_words(pair)
    return (
        url,
        "pair.html",
        names(
            PairContext(
                page_title=f"{pair.a_name} vs {pair.b_name}",
                pair=words.pair,
                superiority=words.superiority,
                counts=words.counts,
                agent_a=agents[pair.a],
                agent_b=agents[pair.b],
                flags=tuple(flag_sentences(pair)),
                loses=head_to_head_words(pair),
                versions=versions,
            )
        ),
    )


def _models_index(board: Leaderboard, by_key: dict[str, list[RunRecord]]) -> Planned:
    """Cards and rows for the keys with runs in a median; the keys with none (runs that never reached an agent,
    or were all left out) folded into one line (docs/rules/site.md §13): they rank last, on nothing."""
    keys = [m for m in board.by_model if m.figures.in_median]
    unranked = [m for m in board.by_model if not m.figures.in_median]
    empty, empty_more = first(unranked, MODEL_EMPTY_NAMED)
    cards = tuple(ModelCard(model=m, strip=charts.strip(by_key[m.slug], m.figures.median)) for m in keys[:MODEL_CARDS])
    ranked, unlisted = first(keys[MODEL_CARDS:], MODEL_ROWS)
    return (
        routes.MODELS_INDEX,
        "models.html",
        names(
            ModelsContext(
                page_title="Models",
                cards=cards,
                ranked_below=len(cards),
                lead=models_lead(board.by_model),
                ranked=tuple(ranked),
                unlisted=unlisted,
                empty=tuple(empty),
                empty_more=empty_more,
                empty_total=len(unranked),
            )
        ),
    )


def _model_page(model: ModelSummary, runs: list[RunRecord]) -> Planned:
    newest, more = first(runs, MODEL_RUNS)
    return (
        model.url,
        "model.html",
        names(
            ModelContext(
                page_title=short_name(model.model),  # the page's heading has it whole
                model=model,
                strip=charts.strip(runs, model.figures.median, charts.PAGE_SLOTS),
                runs=tuple(newest),
                more=more,
            )
        ),
    )
