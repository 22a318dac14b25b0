"""The ledger's layout: which page lists each run, and which data part holds it (site.md, issue 18).

Pure, computed once by the summary step from the runs (newest first). Two layouts, each made so
that a run that did not change stays where it was when runs are added (histories only grow):

- **Pages** (``runs/<month>/<n>/index.html``): runs grouped by the UTC month of their date
  (``undated`` for none), each month cut into pages of ``PAGE_ROWS`` counted from its oldest run,
  each page listing its runs newest first. New runs fill the newest page of their month; an older
  month's pages change only when one of its own runs does.
- **Parts** (``api/results/ledger/<agent>/<mission>/<n>.jsonl.gz``, ``.csv``, ``.js``): runs grouped by
  agent and mission, each group cut into parts of ``PART_ROWS`` counted from its oldest run. A
  browser filter by agent or by mission loads only that agent's or that mission's parts; new runs
  fill the newest part of their group.
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

from podium import routes
from podium.model import COUNTED_KINDS, Ledger, LedgerMonth, LedgerPage, LedgerPart, RunRecord, iso_utc

PAGE_ROWS = 150  # runs listed per ledger page (a page stays under 3,000 elements)
PART_ROWS = 1000  # runs per data part (a part stays far under 4 MiB in every format)
FRONT_ROWS = 100  # the newest runs on the ledger's front page
BROWSER_LIMIT = 20_000  # a filter without an agent or a mission loads more runs than this only when asked
UNDATED = "undated"


MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def bucket_of(record: RunRecord) -> str:
    return f"{record.when.year:04d}-{record.when.month:02d}" if record.when is not None else UNDATED


def layout(runs: Sequence[RunRecord], agent_slugs: Mapping[str, str] | None = None) -> Ledger:
    """Pages and parts for ``runs`` (the board's, newest first). ``agent_slugs``: agent id -> the slug of its
    page (summarize's); each part is keyed by its agent's slug, which the ledger page filters by."""
    months: dict[str, list[int]] = defaultdict(list)
    for index, record in enumerate(runs):
        months[bucket_of(record)].append(index)
    pages: list[LedgerPage] = []
    summaries: list[LedgerMonth] = []
    page_of = [0] * len(runs)
    for bucket in sorted(months, key=lambda b: (b != UNDATED, b), reverse=True):
        indices = months[bucket]  # newest first
        count = math.ceil(len(indices) / PAGE_ROWS)
        for number in range(count, 0, -1):
            stop = len(indices) - (number - 1) * PAGE_ROWS
            own = tuple(indices[max(0, stop - PAGE_ROWS) : stop])
            for index in own:
                page_of[index] = len(pages)
            pages.append(LedgerPage(bucket, number, own, routes.ledger_page_path(bucket, number)))
        summaries.append(
            LedgerMonth(
                bucket,
                month_label(bucket),
                len(indices),
                count,
                routes.ledger_page_path(bucket, count),
                routes.ledger_page_path(bucket, 1),
            )
        )
    return Ledger(tuple(pages), tuple(summaries), _parts(runs, agent_slugs or {}), tuple(page_of))


def month_label(bucket: str) -> str:
    if bucket == UNDATED:
        return "Undated"
    year, month = bucket.split("-")
    return f"{MONTHS[int(month) - 1]} {year}"


def ledger_agent_slugs(names: Mapping[str, str], pages: Mapping[str, str]) -> dict[str, str]:
    """agent id -> its slug in the ledger: its page's where it has a page (so an agent page's link names the
    view of its own runs), else (an agent whose runs were all cancelled) a slug of its name that no other
    agent has, suffixed from its id when taken. Two agents of one name never share a view (issue 29)."""
    out = {agent: pages[agent] for agent in names if agent in pages}
    taken = set(out.values())
    rest = routes.unique_slugs({agent: name for agent, name in names.items() if agent not in pages})
    for agent, base in sorted(rest.items()):
        slug, size = base, 6
        while slug in taken:
            slug = f"{base}-{hashlib.sha256(agent.encode('utf-8', 'surrogatepass')).hexdigest()[:size]}"
            size += 2
        taken.add(slug)
        out[agent] = slug
    return out


def _parts(runs: Sequence[RunRecord], pages: Mapping[str, str]) -> tuple[LedgerPart, ...]:
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    names: dict[str, str] = {}
    for index, record in enumerate(runs):
        groups[(record.agent, record.mission)].append(index)
        names.setdefault(record.agent, record.agent_name)
    agent_slugs = ledger_agent_slugs(names, pages)
    mission_slugs = routes.unique_slugs({mission: mission for _, mission in groups})
    parts = []
    for (agent, mission), indices in sorted(groups.items(), key=lambda g: (names[g[0][0]], g[0][0], g[0][1])):
        count = math.ceil(len(indices) / PART_ROWS)
        for number in range(1, count + 1):
            stop = len(indices) - (number - 1) * PART_ROWS
            own = tuple(indices[max(0, stop - PART_ROWS) : stop])
            kinds = dict.fromkeys((*COUNTED_KINDS, "not_a_run"), 0)
            for index in own:
                kinds[runs[index].kind] += 1
            dated = [runs[i].when for i in own if runs[i].when is not None]
            parts.append(
                LedgerPart(
                    agent=agent,
                    agent_name=names[agent],
                    agent_slug=agent_slugs[agent],
                    mission=mission,
                    number=number,
                    runs=own,
                    kinds={k: n for k, n in kinds.items() if n},
                    first=iso_utc(min(dated)) if dated else None,
                    last=iso_utc(max(dated)) if dated else None,
                    paths=routes.ledger_part_paths(agent_slugs[agent], mission_slugs[mission], number),
                )
            )
    return tuple(parts)
