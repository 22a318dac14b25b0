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

Pure: Leaderboard in, dicts and bytes out; the bytes go through ``data.dump_json`` (sorted keys, no
NaN), so two builds of the same input are byte-identical.
"""

from __future__ import annotations

from importlib import resources

from podium import routes
from podium.count.compare import pairs_by_agent
from podium.count.stats import published
from podium.load.published import COMPARE_AGENT_SCHEMA, COMPARE_PAIR_SCHEMA, COMPARE_SCHEMA
from podium.model import AgentSummary, Leaderboard, Pair, PairVersion
from podium.render.data import dump_json, names_more


def _ci(ci: tuple[float, float] | None) -> list[float] | None:
    return list(ci) if ci else None


def version_dict(v: PairVersion) -> dict:
    return published(
        {
            "mission": v.mission,
            "version": v.version,
            "url": v.url,
            "n_a": v.n_a,
            "n_b": v.n_b,
            "median_a": v.median_a,
            "median_b": v.median_b,
            "median_ci_a": _ci(v.median_ci_a),
            "median_ci_b": _ci(v.median_ci_b),
            "median_diff": v.median_diff,
            "median_deterministic_a": v.median_deterministic_a,
            "median_deterministic_b": v.median_deterministic_b,
            "median_judge_a": v.median_judge_a,
            "median_judge_b": v.median_judge_b,
            "judge_models_a": list(v.judge_models_a),
            "judge_models_b": list(v.judge_models_b),
            "superiority": v.superiority,
            "verdict": v.verdict,
            **names_more(v, "judge_models_a", "judge_models_b"),
        }
    )


def pair_dict(pair: Pair) -> dict:
    """One pair's entry in full (a pair file holds it, beside its ``schema``; ``podium compare A B --json``
    prints it): every field of compare.md §1 and the extra ones, with ``versions`` (``pair`` must hold them)."""
    return {**pair_summary(pair, detail=False), "versions": [version_dict(v) for v in pair.versions]}


def pair_summary(pair: Pair, *, detail: bool = True) -> dict:
    """One pair as the index and the agent parts list it: its entry without ``versions``; ``detail`` names the
    file with them (a pair with a page), else null (``podium compare`` makes them)."""
    out = {
        "a": pair.a,
        "b": pair.b,
        "a_name": pair.a_name,
        "b_name": pair.b_name,
        "url": pair.url,
        "shared": pair.shared,
        "superiority": pair.superiority,
        "verdicts": dict(pair.verdicts),
        "median_diff": pair.median_diff,
        "flags": {
            "judge_models_differ": list(pair.flags.judge_models_differ),
            "model_changed": list(pair.flags.model_changed),
            "no_judge_gap": pair.flags.no_judge_gap,
            "timeout_gap": pair.flags.timeout_gap,
            "configuration_changed": list(pair.flags.configuration_changed),
        },
        "head_to_head": pair.head_to_head,
        "configuration_fields_a": list(pair.configuration_fields_a),
        "configuration_fields_b": list(pair.configuration_fields_b),
        "models_a": list(pair.models_a),
        "models_b": list(pair.models_b),
        "no_judge_share_a": pair.no_judge_share_a,
        "no_judge_share_b": pair.no_judge_share_b,
        "timeout_share_a": pair.timeout_share_a,
        "timeout_share_b": pair.timeout_share_b,
        **names_more(pair, "models_a", "models_b"),
    }
    if detail:
        out["detail"] = pair_data_path(pair)
    return published(out)


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


def compare_index(board: Leaderboard) -> bytes:
    """``compare.json``: every ranked agent with its part, and the pairs with a page, one line each."""
    pairs_of = pairs_by_agent(board.pairs)
    agents = [
        {
            "agent": a.agent,
            "name": a.name,
            "slug": a.slug,
            "rank": a.rank,
            "pairs": len(pairs_of.get(a.agent, ())),
            "part": routes.compare_agent_data_path(a.slug) if a.agent in pairs_of else None,
        }
        for a in board.agents
    ]
    shown = [pair_summary(p) for p in board.pairs if p.url is not None]
    head = {"schema": COMPARE_SCHEMA, "agents": agents}
    return _lines(head, "pairs", shown)


def compare_agent_part(board: Leaderboard, agent: AgentSummary, pairs: list[int], more: int = 0) -> bytes:
    """``compare/<slug>.json``: the pairs ``agent``'s part lists (``pairs``: their indices in ``board.pairs``,
    compare.listed_pairs: those with a page and those with its nearest rivals) and how many more it is in."""
    head = {
        "schema": COMPARE_AGENT_SCHEMA,
        "agent": agent.agent,
        "name": agent.name,
        "slug": agent.slug,
        "rank": agent.rank,
        "pairs_more": more,
    }
    return _lines(head, "pairs", [pair_summary(board.pairs[i]) for i in pairs])


def compare_pair_file(pair: Pair) -> bytes:
    """``compare/<slug>/<slug>.json``: a pair with a page, in full (its versions one a line)."""
    entry = pair_dict(pair)
    versions = entry.pop("versions")
    return _lines({"schema": COMPARE_PAIR_SCHEMA, **entry}, "versions", versions)


def compare_schema() -> bytes:
    """The JSON Schema of compare.json and its parts, shipped with the site."""
    return resources.files("podium").joinpath("compare.schema.json").read_bytes()
