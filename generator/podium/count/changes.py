"""What a build carries on from the previous publish: the change reports (this build's against it, and the last
few kept) and the old paths of agents and mission versions that still redirect.

The history (``changes.json``) and the redirects (``redirects.json``) are read back only as names, ids, kinds
and numbers, checked field by field (load/shape.py ``pick``: the change report's shape is diff.REPORT_SHAPE);
a file that does not check out is ignored with a warning (the history starts again), never published as it
is. Names are cleaned and capped, and at most MAX_REDIRECTS redirects are carried.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from podium.count import diff
from podium.count.bundle import Bundle, bundle_from, bundle_of
from podium.load.previous import Carried, PreviousPublish
from podium.load.published import CHANGES_SCHEMA, REDIRECTS_SCHEMA
from podium.load.shape import INT, TEXT, TIME_TEXT, URL, Misfit, OneOf, Opt, pick
from podium.model import Leaderboard, iso_utc

KEEP_REPORTS = 10  # change reports kept (pages, changes.json, feed)
EPOCH = "1970-01-01T00:00:00Z"
MAX_REDIRECTS = 10_000  # entries of a previous redirects.json; a longer one is ignored with a warning
_OLD_PATH = re.compile(r"^(?:agents/[a-z0-9-]{1,80}|missions/[a-z0-9-]{1,80}/[a-z0-9][a-z0-9.-]{0,80})/index\.html$")
_HISTORY = {
    "schema": OneOf({CHANGES_SCHEMA}),
    "reports": [{"number": INT, "updated": TIME_TEXT, "report": diff.REPORT_SHAPE}],
}
_REDIRECT = {
    "from": URL,
    "kind": OneOf({"agent", "mission"}),
    "agent": Opt(TEXT),
    "mission": Opt(TEXT),
    "version": Opt(TEXT),
}


@dataclass(frozen=True, slots=True)
class RedirectEntry:
    """An old path as redirects.json lists it (and a later build reads it back, _REDIRECT): an agent's (``agent``)
    or a mission version's (``mission``, ``version``)."""

    from_: str = field(metadata={"json_name": "from"})
    kind: str  # "agent" or "mission"
    agent: str | None
    mission: str | None
    version: str | None


@dataclass(frozen=True)
class Redirect:
    source: str  # the old path
    target: str  # the page there now
    name: str  # what moved: the agent's name, or the mission and version
    entry: RedirectEntry


@dataclass(frozen=True, slots=True)
class RedirectsFile:
    """redirects.json: every old path still redirected (a later build carries them on)."""

    schema: str
    redirects: tuple[RedirectEntry, ...]


@dataclass(frozen=True, slots=True)
class ChangesFile:
    """changes.json: the change reports kept, newest first (each number, updated, report: podium.diff/1, as
    published or as read back)."""

    schema: str
    reports: tuple[dict, ...]


@dataclass(frozen=True)
class Changes:
    reports: tuple[dict, ...]  # the change reports kept, newest first: number, updated, report (podium.diff/1)
    redirects: tuple[Redirect, ...]
    warnings: tuple[str, ...]  # a history or redirects file ignored, and why


def count_changes(board: Leaderboard, previous: PreviousPublish, generated_at: int | None) -> Changes:
    """``board`` (the public one) against the previous publish: this build's change report when anything
    changed, added to the history carried, and the redirects of the old paths still here under another (with no
    previous summary, one too large to read back, the redirects carried only)."""
    warnings: list[str] = [previous.warning] if previous.warning else []
    old = None
    if previous.summary is not None:  # a BundleError (exit 2) names the file and the field
        old = bundle_from(previous.summary, previous.where, previous.parts)
        warnings += old.warnings
    reports = _history(previous.history, warnings)
    if old is not None and (report := diff.compare(old, new := bundle_of(board)))["changed"]:
        number = max((r["number"] for r in reports), default=0) + 1
        when = (
            iso_utc(datetime.fromtimestamp(generated_at, UTC))
            if generated_at is not None
            else new.newest or old.newest or EPOCH
        )
        reports.insert(0, {"number": number, "updated": when, "report": report})
    redirects = _redirects(board, old, _carried(previous.redirects, warnings))
    return Changes(tuple(reports[:KEEP_REPORTS]), tuple(redirects), tuple(warnings))


def _history(carried: Carried, warnings: list[str]) -> list[dict]:
    """The previous build's change reports (newest first), or [] with a warning when they do not check out.
    Only what podium writes is carried: known keys, names capped, no free text."""
    path, doc = carried.path, _value(carried, warnings)
    if doc is None:
        return []
    try:
        picked = pick(doc, _HISTORY)["reports"]
    except Misfit:
        warnings.append(f"{path}: ignored, not a {CHANGES_SCHEMA} history; the change history starts again")
        return []
    reports = [{**r, "report": diff.with_counts(r["report"])} for r in picked if r["number"] > 0]
    reports.sort(key=lambda r: -r["number"])
    numbers = [r["number"] for r in reports]
    if len(set(numbers)) != len(numbers) or len(reports) != len(picked):
        warnings.append(f"{path}: ignored, report numbers or dates are not valid; the change history starts again")
        return []
    return reports[:KEEP_REPORTS]


def _carried(carried: Carried, warnings: list[str]) -> list[dict]:
    """The previous redirects (known keys only), at most MAX_REDIRECTS; else [] with a warning."""
    path, doc = carried.path, _value(carried, warnings)
    if doc is None:
        return []
    try:
        pick(doc, {"schema": OneOf({REDIRECTS_SCHEMA})})
        entries = doc.get("redirects") if isinstance(doc, dict) else None
        if isinstance(entries, list) and len(entries) > MAX_REDIRECTS:
            warnings.append(
                f"{path}: ignored, {len(entries)} redirects is more than the {MAX_REDIRECTS:,} podium "
                "carries; earlier redirects are dropped"
            )
            return []
        return pick(entries, [_REDIRECT])
    except Misfit:
        warnings.append(f"{path}: ignored, not a {REDIRECTS_SCHEMA} list; earlier redirects are dropped")
        return []


def _value(carried: Carried, warnings: list[str]) -> object | None:
    """A carried file's JSON value (None: absent, or not read: its warning is added)."""
    if carried.warning is not None:
        warnings.append(carried.warning)
    return carried.value


def _redirects(board: Leaderboard, old: Bundle | None, carried: list[dict]) -> list[Redirect]:
    """Old paths of agents and mission versions that are still here under another path (``old`` None: those
    carried only)."""
    agents = {a.agent: a for a in board.agents}
    missions = {(m.mission, m.version): m for m in board.missions}
    wanted: dict[str, RedirectEntry] = {}
    for e in carried:  # checked by _REDIRECT: these keys, of these types
        wanted.setdefault(e["from"], RedirectEntry(e["from"], e["kind"], e["agent"], e["mission"], e["version"]))
    for view in [*old.agents.values(), *old.older.values()] if old is not None else []:
        if view.url:
            wanted[view.url] = RedirectEntry(view.url, "agent", view.agent, None, None)
    for m in old.missions.values() if old is not None else []:
        if m.url:
            wanted[m.url] = RedirectEntry(m.url, "mission", None, m.mission, m.version)
    live = {a.url for a in board.agents} | {m.url for m in board.missions}
    out = []
    for source, entry in sorted(wanted.items()):
        if entry.kind == "agent":
            agent = agents.get(entry.agent) if entry.agent is not None else None
            to, name = (agent.url, agent.name) if agent else (None, None)
        else:
            version = missions.get((entry.mission, entry.version))  # type: ignore[arg-type]  # None finds none
            to, name = (version.url, f"{version.mission} {version.version}") if version else (None, None)
        if (
            to is None
            or name is None
            or source == to
            or source in live
            or not _OLD_PATH.match(source)
            or ".." in source
        ):
            continue
        out.append(Redirect(source, to, name, entry))
    return out
