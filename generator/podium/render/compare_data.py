"""The comparison data (compare.md §3, in parts since issue 29): an index, a part per agent, a file per pair page.

compare.json held every pair with every shared version: agents² × versions, 56 MiB at 150 agents × 40
missions and 717 MB at 300, past what a host serves as one file. The layout (``podium.compare/2``):

- ``api/results/compare.json``, the index: every ranked agent (rank order) with its number of pairs and
  its part's path, and the pairs the site shows (each pair with a page: the top 30's), each as a
  *summary*: the pair's entry without ``versions``, with ``detail``, the path of its file in full;
- ``api/results/compare/<slug>.json``, one per agent with a pair: its pairs with a page and those with its
  nearest rivals (compare.listed_pairs: the 10 ranked just above it and the 10 just below), as summaries
  (index order: by a's rank, then b's), and ``pairs_more``, how many others it is in (issue 34: listing
  every rival made the parts grow with agents², 989 MB at 1,400 agents);
- ``api/results/compare/<slug>/<slug>.json``, one per pair with a page (the slugs sorted, as the page's
  path): the pair's entry in full, with every shared version, what its page shows.

A pair without a page has no versions on the site; ``podium compare A B --json`` computes any pair in
full (compare.full_pair). Each file is bounded or grows with one dimension only: the index with the agents
(about 150 bytes each) and its 435 pairs at most, an agent's part at most 49 pairs (about 800 bytes each),
a pair's file with its shared versions (about 500 bytes each).

Pure: Leaderboard in, typed entries (published through model/jsonable.py, floats rounded) and bytes out through
``dump_json`` (sorted keys, no NaN), so two builds of the same input are byte-identical.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources

from podium import routes
from podium.count.compare import pairs_by_agent
from podium.load.published import COMPARE_AGENT_SCHEMA, COMPARE_PAIR_SCHEMA, COMPARE_SCHEMA
from podium.model import INLINE, AgentSummary, Leaderboard, Pair, PairVersion
from podium.model.jsonable import dump_json
from podium.render.data import publish


@dataclass(frozen=True, slots=True)
class PairEntry:
    """One pair as the index and the agent parts list it: its entry without ``versions``; ``detail`` names the
    file with them (a pair with a page), else null (``podium compare`` makes them)."""

    pair: Pair = field(metadata=INLINE)
    detail: str | None


@dataclass(frozen=True, slots=True)
class FullPair:
    """One pair's entry in full (``podium compare A B --json`` prints it): every field of compare.md §1 and the
    extra ones, with every shared version."""

    pair: Pair = field(metadata=INLINE)
    versions: tuple[PairVersion, ...]


@dataclass(frozen=True, slots=True)
class PairFileHead:
    """A pair file's keys but ``versions`` (which it lists one a line): its schema and the pair's entry."""

    schema: str
    pair: Pair = field(metadata=INLINE)


@dataclass(frozen=True, slots=True)
class CompareAgent:
    """An agent in compare.json's index: its rank, how many pairs it is in and its part (None: in none)."""

    agent: str
    name: str
    slug: str
    rank: int | None
    pairs: int
    part: str | None


@dataclass(frozen=True, slots=True)
class CompareIndexHead:
    """compare.json's keys but ``pairs``."""

    schema: str
    agents: tuple[CompareAgent, ...]


@dataclass(frozen=True, slots=True)
class CompareAgentHead:
    """An agent part's keys but ``pairs``: who the agent is, and how many other pairs it is in."""

    schema: str
    agent: str
    name: str
    slug: str
    rank: int | None
    pairs_more: int


def full_pair(pair: Pair) -> dict:
    """``pair`` in full, as published (``pair`` must hold its versions: a pair with a page, or compare.full_pair)."""
    return _object(FullPair(pair, pair.versions))


def _object(value: object) -> dict:
    out = publish(value)
    assert isinstance(out, dict)  # a dataclass is published as an object
    return out


def pair_data_path(pair: Pair) -> str | None:
    """The file of a pair with a page (its page's path names the two slugs), else None."""
    if pair.url is None:
        return None
    first, second = pair.url.split("/")[1:3]  # routes.pair_path: compare/<slug>/<slug>/index.html
    return routes.compare_pair_data_path(first, second)


def _lines(head: dict, key: str, rows: list[dict]) -> bytes:
    """One JSON object: ``head``'s keys and ``key``, a list of ``rows`` one a line (keys sorted, as dump_json
    writes them), so a file of many pairs or versions reads and diffs line by line."""

    def value(v: object) -> str:
        return dump_json(v, indent=None).decode("utf-8").rstrip("\n")

    items = []
    for name in sorted([*head, key]):
        if name == key:
            listed = "\n" + ",\n".join(value(row) for row in rows) + "\n" if rows else ""
            items.append(value(key) + ":[" + listed + "]")
        else:
            items.append(value(name) + ":" + value(head[name]))
    return ("{" + ",".join(items) + "}\n").encode("utf-8")


def _listed(pair: Pair) -> dict:
    return _object(PairEntry(pair, pair_data_path(pair)))


def compare_index(board: Leaderboard) -> bytes:
    """``compare.json``: every ranked agent with its part, and the pairs with a page, one line each."""
    pairs_of = pairs_by_agent(board.pairs)
    agents = tuple(
        CompareAgent(
            a.agent,
            a.name,
            a.slug,
            a.rank,
            len(pairs_of.get(a.agent, ())),
            routes.compare_agent_data_path(a.slug) if a.agent in pairs_of else None,
        )
        for a in board.agents
    )
    shown = [_listed(p) for p in board.pairs if p.url is not None]
    return _lines(_object(CompareIndexHead(COMPARE_SCHEMA, agents)), "pairs", shown)


def compare_agent_part(board: Leaderboard, agent: AgentSummary, pairs: list[int], more: int = 0) -> bytes:
    """``compare/<slug>.json``: the pairs ``agent``'s part lists (``pairs``: their indices in ``board.pairs``,
    compare.listed_pairs: those with a page and those with its nearest rivals) and how many more it is in."""
    head = CompareAgentHead(COMPARE_AGENT_SCHEMA, agent.agent, agent.name, agent.slug, agent.rank, more)
    return _lines(_object(head), "pairs", [_listed(board.pairs[i]) for i in pairs])


def compare_pair_file(pair: Pair) -> bytes:
    """``compare/<slug>/<slug>.json``: a pair with a page, in full (its versions one a line)."""
    head = _object(PairFileHead(COMPARE_PAIR_SCHEMA, pair))
    return _lines(head, "versions", [_object(v) for v in pair.versions])


def compare_schema() -> bytes:
    """The JSON Schema of compare.json and its parts, shipped with the site."""
    return resources.files("podium").joinpath("compare.schema.json").read_bytes()
