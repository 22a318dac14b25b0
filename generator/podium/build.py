"""The one orchestrator: load, count, plan, render, write, top to bottom, like the folders.

Everything is gathered before anything is written (MkDocs: "gather everything, then write"): the export, the
previous publish and the content pages are read, every figure is counted once and made public, every file is
planned, the cache decides which of them to render again (cache/outdated.py), and the writer puts the site
in place. Without a change since the last build the build stops after the stat pass.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from podium.cache.found import found_answers
from podium.cache.outdated import Outdated
from podium.cache.page_keys import FileKeys
from podium.cache.store import NoCache, open_cache
from podium.config import Config
from podium.count.changes import count_changes
from podium.inputs import BuildInputs, Progress, homes, protected
from podium.load.content import load_pages
from podium.load.export import WholeRuns
from podium.load.previous import read_previous
from podium.model import Leaderboard, Outline
from podium.plan.changes import plan_extras
from podium.plan.crawlers import crawler_notes
from podium.plan.site import Site, plan_site
from podium.render.report import ReportRenderer
from podium.render.site import SiteRenderer, guard_secrets, render_site
from podium.render.templates import static_files
from podium.views import count_runs, load_runs
from podium.workers import Workers
from podium.write.hosts import HOSTS, Meter, group_sizes
from podium.write.site import list_site, write_site


@dataclass(frozen=True, kw_only=True)
class Built:
    board: Leaderboard | None  # the public board (safety/safe.py): what the site shows; None when nothing changed
    outline: Outline  # what to print about the export (the public board's totals, problems, notes)
    target: Path | None = None  # None when nothing was written (strict build with problems)
    files: int = 0
    size: int = 0
    notes: tuple[str, ...] = ()  # about the site, not the export (e.g. sitemap.xml left out)
    meter: Meter | None = None  # sizes by section, the largest files, the host budget used
    warnings: tuple[str, ...] = ()  # about --previous (a damaged change history, no base_url for the feed)
    rendered: int = 0  # pages rendered by this build
    reused: int = 0  # pages taken back from the previous site (unchanged inputs, cache/outdated.py)
    why: tuple[tuple[str, tuple[str, ...]], ...] = ()  # with explain: each page rendered again, and why
    build_why: tuple[str, ...] = ()  # with explain: why the build did not stop early (nothing changed)
    damaged: tuple[tuple[str, int], ...] = ()  # cache rows that did not read back and were made again, by column


def build_site(
    config: Config,
    export: Path | Sequence[Path],
    *,
    strict: bool = False,
    previous: Path | None = None,
    progress: Progress | None = None,
    cache_dir: Path | None = None,
    jobs: int = 1,
    explain: bool = False,
) -> Built:
    """Build the whole site for ``export`` (inputs.py ``BuildInputs`` says what each option is); under ``strict``
    any problem stops before writing. Python's cycle collector is paused for the build: a build makes no
    reference cycles worth collecting, while each full collection walks every run record held (at 10k runs
    11% of a cold build and 25% of a rebuild)."""
    options = dict(strict=strict, previous=previous, progress=progress, cache_dir=cache_dir, jobs=jobs, explain=explain)
    inputs = BuildInputs.of(config, export, **options)  # first: a refused output creates nothing
    with _collector_paused(), closing(open_cache(cache_dir)) as cache, closing(Workers(inputs.jobs)) as workers:
        last = cache.unchanged_build(inputs.key_parts, config.out)
        return _build(inputs, cache, workers) if last is None else _unchanged(inputs, *last)


def _build(inputs: BuildInputs, cache: NoCache, workers: Workers) -> Built:
    config, why = inputs.config, cache.build_why if inputs.explain else ()
    # load: the runs (an unchanged one's record taken back from the cache), the previous publish, the content pages
    export, keeper = load_runs(config, inputs.exports, cache, workers, inputs.scanned)
    previous = read_previous(inputs.previous) if inputs.previous is not None else None
    content = load_pages(inputs.content)
    # count: every figure once and the public board, then the change report against the previous publish
    counted = count_runs(config, export, keeper)
    board, raw = counted.public, counted.raw
    if inputs.strict and raw.problems:
        return Built(board=board, outline=_outline(board), build_why=why)
    changes = count_changes(board, previous, inputs.generated_at) if previous is not None else None
    # plan: every file of the site
    extras = plan_extras(board, config.title, config.base_url, inputs.generated_at, changes)
    site = Site(config.title, config.base_url, content, inputs.generated_at, config.search_engines, extras)
    manifest = plan_site(board, site, static_files(inputs.chain))
    # render: only what changed (the cache decides up front which files are left as the last build wrote them)
    old = list_site(config.out) if not config.out.is_symlink() else None  # the site this build updates
    keys = cache.keys(inputs.chain, counted.redaction.configured)
    reports = ReportRenderer(list(inputs.exports), config.limits.report_bytes, counted.redaction, cache, keys)
    whole = WholeRuns(inputs.exports, config.limits)
    keys.found = found_answers(cache, keys, counted.redaction, whole, reports)  # a run page's key: the answers it holds
    keyed = FileKeys(keys, board, raw.runs, reports, counted.redaction, inputs.generated_at)
    outdated = Outdated(manifest, keyed, cache, config.out, old.files if old else None, inputs.explain)
    renderer = SiteRenderer(inputs.chain, board, raw.runs, whole, reports, inputs.generated_at, workers)
    files = guard_secrets(render_site(manifest, renderer, outdated), counted.redaction.literals)
    # write: the files as they come, within the host's budget; then the cache remembers the site in place
    meter = Meter(HOSTS[config.host], groups=group_sizes(raw), progress=_progress(inputs.progress, len(manifest)))
    target = write_site(meter.watch(files), config.out, protected(config, inputs.exports), homes(config), old)
    outline = _outline(board, meter.summary(), meter.details())
    cache.commit(target, outline)
    return Built(
        board=board,
        outline=outline,
        target=target,
        files=meter.count,
        size=meter.size,
        notes=(*crawler_notes(config.base_url, config.search_engines), *([cache.note] if cache.note else [])),
        meter=meter,
        warnings=extras.warnings,
        rendered=outdated.rendered,
        reused=outdated.reused,
        why=tuple(outdated.explained),
        build_why=why,
        damaged=tuple(cache.ignored().items()),
    )


def _unchanged(inputs: BuildInputs, outline: Outline, pages: int) -> Built:
    """Nothing changed since the last build, which wrote the site that is still there: it stays."""
    if inputs.strict and outline.problems:
        return Built(board=None, outline=outline)
    return Built(board=None, outline=outline, target=inputs.config.out.resolve(), files=pages, reused=pages)


def _outline(board: Leaderboard, summary: str = "", details: tuple[str, ...] = ()) -> Outline:
    return Outline(board.totals, board.problems, board.notes, summary, details)


def _progress(progress: Progress | None, total: int):
    return (lambda done, path: progress(done, total, path)) if progress else None


@contextmanager
def _collector_paused() -> Iterator[None]:
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:  # podium serve builds again and again in one process
            gc.enable()
