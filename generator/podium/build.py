"""The one orchestrator: read, count once, make safe, plan, render, write. Reads top to bottom."""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from podium.cache.keys import tree_fingerprint
from podium.cache.store import NO_CACHE, NoCache, open_cache
from podium.config import CONFIG_NAME, Config, source_date_epoch
from podium.count import compare
from podium.count.kinds import record_of, shared_record
from podium.count.summarize import summarize
from podium.load.content import load_pages
from podium.load.export import Scanned, WholeRuns, load_exports, run_key, scan, witnessed_answers
from podium.load.files import NotReadable, read_regular
from podium.load.published import MAX_BYTES
from podium.model import Leaderboard, Outline, Pair, Run, RunRecord, codec
from podium.plan.entries import Blob, LazyPage, Page
from podium.plan.site import Site, plan_site
from podium.render import gzipped
from podium.render.changes import prepare as prepare_publishing
from podium.render.crawlers import crawler_files
from podium.render.markdown import render_content
from podium.render.redact import Answers, Redaction, exposed_values
from podium.render.report import ReportRenderer
from podium.render.safe import public_board_and_pairs
from podium.render.site import SiteRenderer, guard_secrets, render_site
from podium.render.templates import (
    builtin_themes,
    make_environment,
    static_files,
    theme_chain,
)
from podium.write import hosts
from podium.write.site import check_output_dir, list_site, write_site


@dataclass(frozen=True)
class Built:
    board: Leaderboard | None  # the public board (render/safe.py): what the site shows; None when nothing changed
    outline: Outline  # what to print about the export (the public board's totals, problems, notes)
    target: Path | None  # None when nothing was written (strict build with problems)
    files: int
    size: int
    notes: tuple[str, ...] = ()  # about the site, not the export (e.g. sitemap.xml left out)
    meter: hosts.Meter | None = None  # sizes by section, the largest files, the host budget used
    warnings: tuple[str, ...] = ()  # about --previous (a damaged change history, no base_url for the feed)
    rendered: int = 0  # pages rendered by this build
    reused: int = 0  # pages taken back from the previous site (unchanged inputs, cache/store.py)
    why: tuple[tuple[str, tuple[str, ...]], ...] = ()  # with explain: each page rendered again, and why
    build_why: tuple[str, ...] = ()  # with explain: why the build did not stop early (nothing changed)
    damaged: tuple[tuple[str, int], ...] = ()  # cache rows that did not read back and were made again, by column


def count_export(config: Config, export: Path | Sequence[Path], cache: NoCache = NO_CACHE) -> Leaderboard:
    """Read the export(s) and compute the one summary every output reads (raw: names not yet redacted)."""
    return _read(config, export, cache)[0]


def _read(
    config: Config, export: Path | Sequence[Path], cache: NoCache, jobs: int = 1, scanned: Scanned | None = None
) -> tuple[Leaderboard, Answers]:
    """Each run read, kept as its compact record (kinds.record_of); each mission's answers collected
    (``jobs``: worker processes that may read run directories ahead; ``scanned``: what the stat pass saw,
    load/export/)."""
    roots = _paths(export)
    known = _known_answers(cache, roots, config.limits.result_bytes)
    keep = _Keep(cache, roots, known)
    board = summarize(
        load_exports(roots, config.limits, cache, keep, jobs, scanned),
        config.missions,
        config.source or CONFIG_NAME,
        config.run_pages,
        config.prices,
    )
    cache.keep_redacted(*keep.redacted(config.redact))
    return board, keep.answers


def _known_answers(cache: NoCache, roots: Sequence[Path], limit: int) -> dict[str, str]:
    """The last build's answers, by their salted digests: the cache keeps no answer, only a run holding each
    (its witness), whose result.json is read again (one file per distinct answer, when still unchanged)."""
    wanted: dict[tuple[str, str], set[str]] = {}
    for digest, _, witness, sha in cache.redacted_values():
        if witness and sha:
            wanted.setdefault((witness, sha), set()).add(digest)
    known = {}
    for (witness, sha), digests in wanted.items():
        for answer in witnessed_answers(roots, witness, sha, limit):
            if (digest := cache.digest(answer)) in digests:
                known[digest] = answer
    return known


class _Keep:
    """What the build keeps of each run as it is read (load/export/stored.py ``Keeper``): its compact record, and
    its answers added to its mission's. The cache stores both as data, the answers as their salted digests
    only (cache/store.py: no secret is kept), and a rebuild takes them back for a run whose inputs did not change,
    each digest made an answer again by ``known`` (digest -> answer: the last build's, read from their
    witnesses, and those of the runs read so far); a digest it does not know makes the run counted afresh
    (its result.json read again)."""

    STORED = tuple[RunRecord, tuple[str, ...]]  # the record, its answers' salted digests

    def __init__(self, cache: NoCache = NO_CACHE, roots: Sequence[Path] = (), known: dict[str, str] | None = None):
        self.answers = Answers()
        self.cache = cache
        self.roots = list(roots)
        self.known = dict(known or {})
        self.stored = bool(roots) and cache.digest("") != ""  # a cache that keeps runs (no digest: NoCache)
        self.witnesses: dict[str, tuple[str, str, str]] = {}  # digest -> (mission, a run holding it, its SHA-256)

    def __call__(self, run: Run) -> RunRecord:
        self.answers.add(run)
        if run.answers and self.stored:
            self._witness(run.mission, run.answers, run.source, run.directory, run.result_digest)
        return record_of(run, exposed=exposed_values(run))

    def _witness(self, mission: str, answers: Iterable[str], source: int, directory: str, sha: str | None) -> None:
        for answer in answers:
            digest = self.cache.digest(answer)
            self.known.setdefault(digest, answer)
            if sha and digest not in self.witnesses:
                self.witnesses[digest] = (mission, run_key(source, directory), sha)

    def dumps(self, run: Run, record: RunRecord) -> str:
        return codec.dumps((record, tuple(sorted(self.cache.digest(answer) for answer in run.answers))))

    def loads(self, text: str) -> RunRecord | None:
        try:
            record, digests = codec.loads(self.STORED, text)
        except (ValueError, TypeError, KeyError):
            return None
        answers = [answer for digest in digests if (answer := self.known.get(digest)) is not None]
        if len(answers) != len(digests):
            return None  # an answer no witness gave back: counted afresh
        if answers:
            self.answers.add_values(record.mission, answers)
            if record.source < len(self.roots):
                self._witness(record.mission, answers, record.source, record.directory, record.digest)
        return shared_record(record)

    def redacted(
        self, configured: Sequence[str]
    ) -> tuple[list[tuple[str, str | None, str | None, str | None]], dict[str, str]]:
        """What the cache keeps of this build's redacted values (cache/store.py ``keep_redacted``): each answer's
        digest, mission and witness, each configured literal's digest; and digest -> value for all of them."""
        if not self.stored:
            return [], {}
        plain = {digest: answer for digest, answer in self.known.items() if digest in self.witnesses}
        rows: list[tuple[str, str | None, str | None, str | None]] = [
            (digest, *self.witnesses[digest]) for digest in sorted(plain)
        ]
        for value in configured:
            digest = self.cache.digest(value)
            if digest not in plain:
                plain[digest] = value
                rows.append((digest, None, None, None))
        return rows, plain


@dataclass(frozen=True)
class Counted:
    """The summary twice: ``raw`` (run pages are made from it in the render stage, which redacts each one)
    and ``public``, the redacted board every page, data file and printed line reads; ``public_pair`` makes
    a pair of ``raw`` public as ``public``'s are (render/safe.py)."""

    raw: Leaderboard
    public: Leaderboard
    redaction: Redaction
    public_pair: Callable[[Pair], Pair]

    def pair(self, a: str, b: str) -> Pair | None:
        """The public pair of agents ``a`` and ``b`` (ids, either order) with every shared version, or None
        when they share none: the board keeps versions only for the pairs with a page (count/compare.py)."""
        found = [p for p in self.raw.pairs if {p.a, p.b} == {a, b}]
        return self.public_pair(compare.full_pair(self.raw, found[0])) if found else None


def count(
    config: Config,
    export: Path | Sequence[Path],
    cache: NoCache = NO_CACHE,
    jobs: int = 1,
    scanned: Scanned | None = None,
) -> Counted:
    """Read, count once (with ``run_pages`` applied, as the site links runs), and make the public view."""
    board, answers = _read(config, export, cache, jobs, scanned)
    redaction = Redaction(config.redact, answers.by_mission)
    cache.settle(redaction.holds_any)  # the rows read go into the cache file, checked for every answer
    public, public_pair = public_board_and_pairs(board, redaction)
    return Counted(board, public, redaction, public_pair)


def public_view(config: Config, export: Path | Sequence[Path]) -> Leaderboard:
    """The one way in for every command that prints: the board exactly as the site publishes it."""
    return count(config, export).public


PairOf = Callable[[str, str], Pair | None]  # two agent ids (either order) -> their public pair in full


def public_comparisons(config: Config, export: Path | Sequence[Path]) -> tuple[Leaderboard, PairOf]:
    """``public_view``, and the public pair of any two agents in full (``podium compare``: the board keeps the
    versions of the pairs with a page only); the raw board stays here."""
    counted = count(config, export)
    return counted.public, counted.pair


def _paths(export: Path | Sequence[Path]) -> list[Path]:
    return [export] if isinstance(export, Path) else list(export)


def content_dir(config: Config) -> Path | None:
    if config.content is not None:
        return config.content
    default = config.root / "content"
    return default if default.is_dir() else None


def check_output(config: Config, export: Path | Sequence[Path]) -> Path:
    """The output directory as the writer will check it (write.check_output_dir), before anything is created:
    a refused ``--out`` is exit 2 with no side effect. ``podium serve`` calls it before it builds or serves."""
    inputs = _paths(export) + [p for p in (content_dir(config), config.theme_dir) if p is not None]
    return check_output_dir(config.out, inputs, [config.root, Path.cwd()])


def build_site(
    config: Config,
    export: Path | Sequence[Path],
    *,
    strict: bool = False,
    previous: Path | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    cache_dir: Path | None = None,
    jobs: int = 1,
    explain: bool = False,
) -> Built:
    """Build the whole site for ``export``; under ``strict`` any problem stops before writing.

    ``previous``: the last publish (summary.json or site directory), for the change report and redirects.
    ``progress(done, total, path)`` is called after each file is rendered; the host
    budget (``host:``) is enforced as files stream to the writer (write/hosts.py).
    ``cache_dir``: the build cache (cache/store.py), or None for none (the CLI's default: ``.podium-cache`` beside
    the output directory).
    ``jobs``: worker processes for run pages (render/site.py) and, in a cold build, for reading run
    directories (load/export/).
    ``explain``: list each page rendered again and why (``Built.why``, ``Built.build_why``).

    Python's cycle collector is paused for the build: a build makes no reference cycles
    worth collecting (peak memory is the same without it), while each full collection
    walks every run record held. At 10k runs it cost 11% of a cold build and 25% of a
    rebuild.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        check_output(config, export)  # first: a refused output creates nothing, not even the cache beside it
        generated_at = source_date_epoch()
        chain = theme_chain(config.theme, [config.root / "themes", builtin_themes()], config.theme_dir)
        env = make_environment(chain)
        pages = render_content(load_pages(content_dir(config)))
        cache = open_cache(cache_dir)
        scanned = Scanned()  # what the stat pass saw, so the reader does not stamp every run file again
        try:
            last = cache.unchanged_build(
                lambda: _inputs(config, export, chain, generated_at, previous, scanned), config.out
            )
            if last is not None:
                return _unchanged(config, *last, strict)
            return _build(
                config,
                export,
                env,
                chain,
                pages,
                cache,
                generated_at,
                strict,
                previous,
                progress,
                jobs,
                explain,
                scanned,
            )
        finally:
            cache.close()
    finally:
        if collecting:  # podium serve builds again and again in one process
            gc.enable()


def _inputs(
    config: Config,
    export: Path | Sequence[Path],
    chain: list[Path],
    generated_at: int | None,
    previous: Path | None,
    scanned: Scanned,
) -> dict[str, object]:
    """Every input of the build but podium itself (the cache adds it), the parts of its key: the theme, the
    content pages, the settings, the clock, the previous publish, the exports (by the stamp of every
    run file: load.export.scan) and the compressor of the gzipped parts (render/gzipped.py)."""
    content = content_dir(config)
    return {
        "theme": tree_fingerprint(chain),
        "content": tree_fingerprint([content] if content else []),
        "settings": config,
        "clock": generated_at,
        "previous": _previous_fingerprint(previous),
        "exports": scan(_paths(export), scanned),
        "compressor": gzipped.fingerprint(),
    }


def _previous_fingerprint(previous: Path | None) -> str | None:
    """The previous publish's files this build reads (summary, change history, redirects), by their bytes."""
    if previous is None:
        return None
    folder = previous if previous.is_dir() else previous.parent
    names = [previous] if previous.is_file() else [folder / "api/results/summary.json"]
    names += [names[0].parent / "changes.json", names[0].parent / "redirects.json"]
    digest = hashlib.sha256()
    for path in names:
        try:
            digest.update(hashlib.sha256(read_regular(path, MAX_BYTES)).digest())
        except (OSError, NotReadable):
            digest.update(b"-")
    return digest.hexdigest()


def _unchanged(config: Config, outline: Outline, pages: int, strict: bool) -> Built:
    """Nothing changed since the last build, which wrote the site that is still there: it stays."""
    if strict and outline.problems:
        return Built(None, outline, None, 0, 0)
    return Built(None, outline, config.out.resolve(), pages, 0, reused=pages)


def _build(
    config: Config,
    export: Path | Sequence[Path],
    env,
    chain: list[Path],
    pages,
    cache: NoCache,
    generated_at: int | None,
    strict: bool,
    previous: Path | None,
    progress,
    jobs: int,
    explain: bool,
    scanned: Scanned,
) -> Built:
    counted = count(config, export, cache, jobs, scanned)
    board, public, redaction = counted.raw, counted.public, counted.redaction
    if strict and board.problems:
        return Built(public, _outline(public), None, 0, 0, build_why=cache.build_why if explain else ())
    extras = prepare_publishing(public, config.title, config.base_url, generated_at, previous)
    site = Site(config.title, config.base_url, pages, generated_at, config.search_engines, extras.pages, extras.nav)
    manifest = extras.apply(plan_site(public, site, static_files(chain)))
    listed = [
        e.path
        for e in manifest
        if isinstance(e, LazyPage)
        or (isinstance(e, Page) and e.path.endswith(".html") and e.template != "redirect.html")
    ]
    extra, notes = crawler_files(listed, config.base_url, config.search_engines)
    manifest += [Blob(path, data) for path, data in extra.items()]
    keys = cache.keys(chain, redaction.configured)
    reports = ReportRenderer(_paths(export), config.limits.report_bytes, redaction, cache, keys)
    old = list_site(config.out) if not config.out.is_symlink() else None  # the site this build updates
    whole = WholeRuns(tuple(_paths(export)), config.limits)
    renderer = SiteRenderer(
        env,
        public,
        board.runs,
        whole,
        redaction,
        reports,
        generated_at,
        cache=cache,
        keys=keys,
        old_site=config.out if old else None,
        old_files=old.files if old else None,
        jobs=jobs,
        chain=chain,
        explain=explain,
    )
    meter = hosts.Meter(
        hosts.HOSTS[config.host],
        groups=hosts.group_sizes(board),
        progress=(lambda done, path: progress(done, len(manifest), path)) if progress else None,
    )
    files = _Tally(meter.watch(guard_secrets(render_site(manifest, renderer), redaction.literals)))
    inputs = _paths(export) + [p for p in (content_dir(config), config.theme_dir) if p is not None]
    target = write_site(files, config.out, inputs=inputs, homes=[config.root, Path.cwd()], previous=old)
    outline = _outline(public, meter.summary(), meter.details())
    cache.commit(target, outline)
    notes += [cache.note] if cache.note else []
    return Built(
        public,
        outline,
        target,
        files.count,
        files.size,
        tuple(notes),
        meter,
        tuple(extras.warnings),
        renderer.rendered,
        renderer.reused,
        tuple(renderer.explained),
        cache.build_why if explain else (),
        tuple(cache.ignored().items()),
    )


def _outline(board: Leaderboard, summary: str = "", details: tuple[str, ...] = ()) -> Outline:
    return Outline(board.totals, board.problems, board.notes, summary, details)


class _Tally:
    """Counts files and bytes as they stream to the writer."""

    def __init__(self, files: Iterable[tuple[str, bytes]]):
        self.files = files
        self.count = 0
        self.size = 0

    def __iter__(self) -> Iterator[tuple[str, bytes]]:
        for path, data in self.files:
            self.count += 1
            self.size += len(data)
            yield path, data
