"""Host budgets and the run-page setting that keeps a site inside one.

``host:`` in podium.yaml names where the site is published; :class:`Meter` counts
files and bytes as they stream to the writer and, when the site would not fit,
stops the build with an :class:`OverBudget` naming the limit and the numbers
(exit 3: the staging directory is removed, the previous site is untouched).

``run_pages: {newest: N}`` keeps run pages only for the newest N runs of each
agent on each mission version. Every run stays in the numbers, summary.json,
runs.json/csv and the ledger; a run without a page links to its ledger row
(``runs/<YYYY-MM>/<n>/index.html#run-<id>``) everywhere a run link appears; the summary applies
it as it places each record (count/summarize.py), so a history is never copied for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from podium import routes
from podium.errors import BuildError
from podium.model import Leaderboard
from podium.render.output import SiteFile

GB = 1000**3  # hosts say "1 GB"; the decimal reading is the stricter one
MIB = 1024**2


@dataclass(frozen=True)
class Host:
    name: str
    label: str
    max_bytes: int | None = None
    max_files: int | None = None
    max_file_bytes: int | None = None

    def describe(self) -> str:
        parts = []
        if self.max_bytes:
            parts.append(f"{human_size(self.max_bytes)} in all")
        if self.max_files:
            parts.append(f"{self.max_files:,} files")
        if self.max_file_bytes:
            parts.append(f"{human_size(self.max_file_bytes)} per file")
        return f"{self.label} publishes at most " + ", ".join(parts) if parts else "no limit"


HOSTS: dict[str, Host] = {
    h.name: h
    for h in (
        Host("none", "no host"),
        Host("github-pages", "GitHub Pages", max_bytes=1 * GB),
        Host("gitlab-pages", "GitLab Pages", max_bytes=1 * GB, max_files=200_000),
        Host("cloudflare-free", "Cloudflare Pages (free plan)", max_files=20_000, max_file_bytes=25 * MIB),
        Host("cloudflare", "Cloudflare Pages", max_files=100_000, max_file_bytes=25 * MIB),
    )
}


class OverBudget(BuildError):
    """The site would not fit its host; nothing was written (exit 3, like any failed build)."""


def human_size(size: int) -> str:
    """1234567 -> '1.2 MB' (decimal units, as hosts state their limits); MiB limits keep their unit."""
    if size >= MIB and size % MIB == 0 and size % 1000**2:
        return f"{size // MIB} MiB"
    for unit, scale in (("GB", 1000**3), ("MB", 1000**2), ("kB", 1000)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def section_of(path: str) -> str:
    """The part of the site a file is counted in: its first folder (``agents``, ``runs``), and under
    ``api/results/`` its own folder (``api/results/compare``, ``api/results/ledger``): what a host message names
    as over (the comparison parts were 989 MB of a 1.02 GB site at 1,400 agents)."""
    parts = path.split("/")
    if len(parts) == 1:
        return "(top)"
    if parts[:2] == ["api", "results"] and len(parts) > 3:
        return "/".join(parts[:3])
    return parts[0]


def group_sizes(board: Leaderboard) -> list[int]:
    """Runs per agent and mission version (what ``run_pages: {newest: N}`` counts within)."""
    return [len(indices) for indices in board.groups.by_agent_version.values()]


def fitting_newest(groups: list[int], pages: int) -> int:
    """The largest N such that the newest N runs of every group make at most ``pages`` pages (0: none fit)."""
    low, high = 0, max(groups, default=0)
    while low < high:
        mid = (low + high + 1) // 2
        if sum(min(g, mid) for g in groups) <= pages:
            low = mid
        else:
            high = mid - 1
    return low


class Meter:
    """Counts files and bytes on their way to the writer; enforces the host budget; reports progress.

    When the site would not fit, the rest is still rendered and measured (not
    written) so the message gives the whole site's numbers, then OverBudget.
    """

    def __init__(
        self,
        host: Host,
        *,
        groups: list[int] | None = None,
        extra_files: int = 1,
        progress: Callable[[int, str], None] | None = None,
    ):
        self.host = host
        self.groups = groups or []
        self.files = extra_files  # the writer's marker file
        self.size = 0
        self.run_pages = 0
        self.run_page_bytes = 0
        self.too_big: list[tuple[str, int]] = []
        self.progress = progress
        self.count = 0  # the site's files passed on (the writer's marker file aside)
        self.sections: dict[str, list[int]] = {}  # first path segment -> [files, bytes]
        self.largest: list[tuple[int, str]] = []  # the five biggest files, biggest first

    def summary(self) -> str:
        """'1.2 MB in 176 files', plus the share of the host's budget when one is set."""
        text = f"{human_size(self.size)} in {self.files:,} files"
        h = self.host
        used = []
        if h.max_bytes:
            used.append(f"{self.size / h.max_bytes:.1%} of its {human_size(h.max_bytes)}")
        if h.max_files:
            used.append(f"{self.files / h.max_files:.1%} of its {h.max_files:,} files")
        if used:
            text += f" ({h.label}: " + ", ".join(used) + ")"
        return text

    def over(self) -> bool:
        h = self.host
        return bool(
            (h.max_bytes and self.size > h.max_bytes) or (h.max_files and self.files > h.max_files) or self.too_big
        )

    def watch(self, files: Iterable[SiteFile]) -> Iterator[SiteFile]:
        for path, data in files:
            self.files += 1
            self.count += 1
            self.size += len(data)
            section = self.sections.setdefault(section_of(path), [0, 0])
            section[0] += 1
            section[1] += len(data)
            if len(self.largest) < 5 or len(data) > self.largest[-1][0]:
                self.largest = sorted(self.largest + [(len(data), path)], reverse=True)[:5]
            if routes.RUN_PAGE.match(path):
                self.run_pages += 1
                self.run_page_bytes += len(data)
            if self.host.max_file_bytes and len(data) > self.host.max_file_bytes:
                self.too_big.append((path, len(data)))
            if self.progress is not None:
                self.progress(self.count, path)
            if not self.over():
                yield path, data
        if self.over():
            raise OverBudget(self.message())

    def details(self) -> tuple[str, ...]:
        """The site's sections by size, its largest files and its run pages, a line each (``--verbose``)."""
        lines = [
            f"{section + '/' if section != '(top)' else section:<12} {count:>8,} files {human_size(size):>10}"
            for section, (count, size) in sorted(self.sections.items(), key=lambda item: -item[1][1])
        ]
        lines += [f"largest: {path} ({human_size(size)})" for size, path in self.largest]
        if self.run_pages:
            lines.append(
                f"{self.run_pages:,} run pages, {self.run_page_bytes // self.run_pages:,} bytes each on average"
            )
        return tuple(lines)

    def message(self) -> str:
        h = self.host
        lines = [
            f"host: {h.name}: the site would not fit. {h.describe()}; this site is "
            f"{human_size(self.size)} ({self.size:,} bytes) in {self.files:,} files."
        ]
        for path, size in self.too_big[:5]:
            lines.append(f"  {path} is {human_size(size)}, over the {human_size(h.max_file_bytes)} per-file limit")
        lines.append("Nothing was written; the previous site is untouched.")
        lines.append(self._largest())
        over_totals = (h.max_bytes and self.size > h.max_bytes) or (h.max_files and self.files > h.max_files)
        if self.run_pages and over_totals:  # (a file over the per-file limit is not helped by fewer run pages)
            lines.append(self._suggestion())
        return "\n".join(lines)

    def _largest(self) -> str:
        """What is over, by part of the site: the three largest by what the host limits (bytes, else files)."""
        by_files = bool(self.host.max_files) and not self.host.max_bytes
        ranked = sorted(self.sections.items(), key=lambda item: (-item[1][1 if not by_files else 0], item[0]))
        parts = [
            f"{section + '/' if section != '(top)' else 'files at the top'} {human_size(size)} in {count:,} "
            f"file{'s' * (count != 1)}"
            for section, (count, size) in ranked[:3]
        ]
        return "Its largest parts: " + "; ".join(parts) + "."

    def _suggestion(self) -> str:
        h = self.host
        other_files, other_bytes = self.files - self.run_pages, self.size - self.run_page_bytes
        average = self.run_page_bytes / self.run_pages
        room = []
        if h.max_bytes:
            # 5% margin: links to ledger rows are a few bytes longer than links to run pages
            room.append(int((h.max_bytes * 0.95 - other_bytes) / average))
        if h.max_files:
            room.append(h.max_files - other_files)
        pages = max(0, min(room)) if room else self.run_pages
        newest = fitting_newest(self.groups, pages) if self.groups else 0
        if pages == 0 or (self.groups and not newest):  # even with no run page the rest would not fit
            return (
                f"{self.run_pages:,} run pages make {human_size(self.run_page_bytes)} of it; without them the rest "
                f"({human_size(other_bytes)} in {other_files:,} files) would still not fit, so `run_pages` cannot "
                "make it fit: what is over is named above."
            )
        hint = (
            f"{self.run_pages:,} run pages make {human_size(self.run_page_bytes)} of it. "
            "`run_pages: {newest: N}` in podium.yaml keeps a page for the newest N runs of each agent "
            "on each mission version and links the others to their ledger row (every run stays in the "
            "numbers, the ledger and the JSON)"
        )
        if newest:
            return hint + f"; about N = {newest} would fit."
        return hint + "."
