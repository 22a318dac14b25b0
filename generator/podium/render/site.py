"""Render the manifest: pages through Jinja, data files from the public board, assets as they are.

Yields (site path, bytes) one file at a time so the writer can stream them. A run
page's context is completed here with its safe values (render/safe.py): the
run's redacted record and its rendered report. ``guard_secrets`` stops the build
if a configured secret made it into any file, in its bytes or as a reader sees it.
"""

from __future__ import annotations

import copy
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from itertools import islice
from pathlib import Path

import jinja2
from markupsafe import Markup

from podium import workers
from podium.errors import BuildError
from podium.load.files import Stamp
from podium.model import Leaderboard, LedgerPart, Run, RunRecord
from podium.plan.contexts import RunValues, names
from podium.plan.entries import Asset, Blob, DataFile, Entry, LazyPage, LedgerPage, Page, RunPage
from podium.render import compare_data, data, gzipped, progress_data
from podium.render.cached import NO_KEYS, NO_STORE, FileKeys, Kept, Key, Store
from podium.render.redact import Literals, Redaction, as_read_fast
from podium.render.report import ReportRenderer
from podium.render.safe import run_view
from podium.render.templates import make_environment
from podium.render.visible import reader_texts

DATA_FILES = {  # a DataFile's kind -> its bytes from the public board (and the ledger part or pairs it names)
    "summary": lambda board, generated_at, entry: data.dump_json(data.summary_dict(board, generated_at)),
    "schema": lambda board, generated_at, entry: data.summary_schema(),
    "runs_json": lambda board, generated_at, entry: data.ledger_index(board, generated_at),
    "runs_schema": lambda board, generated_at, entry: data.runs_schema(),
    "ledger_js": lambda board, generated_at, entry: data.ledger_index_script(board),
    "part_jsonl_gz": lambda board, generated_at, entry: data.part_jsonl_gz(board, entry.part),
    "part_csv": lambda board, generated_at, entry: data.part_csv(board, entry.part),
    "part_script": lambda board, generated_at, entry: data.part_script(board, entry.part),
    "compare": lambda board, generated_at, entry: compare_data.compare_index(board),
    "compare_schema": lambda board, generated_at, entry: compare_data.compare_schema(),
    "compare_agent": lambda board, generated_at, entry: compare_data.compare_agent_part(
        board, board.agents[entry.part], list(entry.pairs), entry.more
    ),
    "compare_pair": lambda board, generated_at, entry: compare_data.compare_pair_file(board.pairs[entry.part]),
    "progress": lambda board, generated_at, entry: progress_data.progress_bytes(
        board.progress[board.agents[entry.part].agent]
    ),
    "progress_schema": lambda board, generated_at, entry: progress_data.progress_schema(),
}
LEDGER_PARTS = frozenset({"part_jsonl_gz", "part_csv", "part_script"})  # a DataFile's part: a ledger part
GZIPPED = frozenset({"part_jsonl_gz"})  # data files whose bytes depend on the compressor (render/gzipped.py)


class SiteRenderer:
    """Everything the render stage needs: the theme, the public board, and each run's raw record.

    With a cache (render/cached.py's ``Store``, and the ``keys`` it made) a page whose key is unchanged is left in
    the previous site (``old_site``, as ``old_files`` lists it); with ``jobs`` > 1 (and the theme
    ``chain`` ``env`` was made from) the run pages that must be rendered, when there are enough of
    them, are rendered by a pool of worker processes, in manifest order. With ``explain``, each
    page rendered is listed in ``explained`` with why (cache/store.py ``why``).
    """

    def __init__(
        self,
        env: jinja2.Environment,
        board: Leaderboard,
        runs: Sequence[RunRecord],
        whole,
        redaction: Redaction,
        reports: ReportRenderer,
        generated_at: int | None,
        *,
        cache: Store = NO_STORE,
        keys: FileKeys = NO_KEYS,
        old_site: Path | None = None,
        old_files: dict[str, Stamp] | None = None,
        jobs: int = 1,
        chain: list[Path] | None = None,
        explain: bool = False,
    ):
        self.env = env
        self.board = board
        self.runs = runs  # the raw records, in the board's order (a RunPage's index names one)
        self.whole = whole  # each run as read, for its own page (build.py)
        self.redaction = redaction
        self.reports = reports
        self.generated_at = generated_at
        self.cache = cache
        self.keys = keys
        self.old_site = old_site
        self.old_files = old_files or {}
        self.chain = chain  # the theme chain ``env`` was made from: worker processes make their own
        self.jobs = jobs if chain is not None else 1
        self.reused = 0
        self.rendered = 0
        self.explain = explain
        self.explained: list[tuple[str, tuple[str, ...]]] = []  # (page, why it was rendered again)

    def render(self, entry: Entry) -> bytes:
        if isinstance(entry, RunPage):
            return render_page(entry.page, self.env, self.run_context(entry.index))
        if isinstance(entry, LazyPage):
            return render_page(entry.page, self.env)
        if isinstance(entry, Page):
            return render_page(entry, self.env)
        if isinstance(entry, DataFile):
            return DATA_FILES[entry.kind](self.board, self.generated_at, entry)
        if isinstance(entry, Blob):
            return entry.data
        return entry.source.read_bytes()

    def run_context(self, index: int) -> dict:
        record = self.runs[index]
        run = self.whole.whole(record)
        return run_values(run, self.redaction, self.reports(record, run))

    def key(self, entry: Entry) -> Key | None:
        """The file's cache key (cache.Keys), from everything it is made from. A page: its template and
        context (a run page: its raw record, its report and its redaction instead of the public record);
        a ledger part: its runs (a gzipped one: and the compressor); a part of the comparisons: its pairs; any
        other data file: the summary without the runs (which no other data file lists); a file copied or made
        elsewhere: its bytes. None without a cache."""
        keys = self.keys
        if isinstance(entry, DataFile):
            number = entry.part
            if number is not None and entry.kind == "progress":  # an agent's progress file: its result alone
                owner = self.board.agents[number]
                return keys.data_file(
                    entry.path,
                    entry.kind,
                    lambda: (owner.agent, owner.name, owner.slug, self.board.progress[owner.agent]),
                )
            if number is not None and entry.kind == "compare_agent":  # what it writes of the agent, and its pairs
                agent = self.board.agents[number]
                return keys.data_file(
                    entry.path,
                    entry.kind,
                    lambda: (
                        (agent.agent, agent.name, agent.slug, agent.rank, entry.more),
                        [self.board.pairs[i] for i in entry.pairs],
                    ),
                )
            if number is not None and entry.kind == "compare_pair":
                pair = self.board.pairs[number]
                return keys.data_file(entry.path, entry.kind, lambda: (pair,))
            if number is not None and entry.kind in LEDGER_PARTS:
                part = (self.board.ledger.parts if self.board.ledger else ())[number]
                return keys.data_file(
                    entry.path,
                    entry.kind,
                    lambda: (_part_key(part), [self.board.runs[i] for i in part.runs]),
                    compressor=gzipped.fingerprint() if entry.kind in GZIPPED else None,
                )
            return keys.data_file(
                entry.path, entry.kind, lambda: (_without_runs(self.board), self.generated_at), once=True
            )
        if isinstance(entry, Blob):
            return keys.file(entry.path, lambda: entry.data)
        if isinstance(entry, Asset):
            return keys.file(entry.path, entry.source.read_bytes)
        if isinstance(entry, RunPage):
            record = self.runs[entry.index]
            return keys.run_page(entry.pages.chrome, record, self.reports.inputs(record), self.redaction)
        if isinstance(entry, LedgerPage):
            return keys.ledger_page(entry.pages.chrome, entry.path, entry.pages.key_parts(entry.index))
        page = entry if isinstance(entry, Page) else entry.page
        return keys.page(page.path, page.template, page.context)

    def unchanged(self, entry: Entry, key: Key | None) -> bool:
        """Whether ``entry``'s file is left as the previous build wrote it: its inputs and the file are unchanged."""
        found = self.old_files.get(entry.path)
        if found is None or not self.cache.unchanged(entry.path, key, found, self.old_site):
            return False
        if isinstance(entry, RunPage):
            self.cache.still_uses_report(self.reports.key(self.runs[entry.index]))
        return True

    def why(self, entry: Entry, key: Key | None) -> tuple[str, ...]:
        return self.cache.why(entry.path, key, entry.path in self.old_files)


def _part_key(part: LedgerPart) -> tuple[LedgerPart, int]:
    """A ledger part in a key: without its runs' indexes (its runs are keyed by their records), with their number."""
    return replace(part, runs=()), len(part.runs)


def _without_runs(board: Leaderboard) -> tuple:
    """What every data file but the ledger's parts is made from: the board without its runs."""
    ledger = board.ledger
    parts = tuple(_part_key(p) for p in ledger.parts) if ledger else ()
    return (
        board.totals,
        board.agents,
        board.agents_older,
        board.missions,
        board.problems,
        board.runs_read,
        board.inputs_digest,
        board.pairs,
        tuple(replace(m, runs=()) for m in board.by_model),
        parts,
        len(board.runs),
    )


def render_site(manifest: list[Entry], renderer: SiteRenderer) -> Iterator[tuple[str, bytes | Kept]]:
    """(path, bytes) for every entry in manifest order, or (path, Kept) for a page left as it is;
    run pages maybe rendered in parallel.

    Keys and the unchanged pages are found up front (to know which run pages workers must render);
    only the keys of the files not kept are held, and one byte per entry. A file whose inputs are
    unchanged but which the output no longer holds is written from the cache's copy (STORED).
    """
    kept = bytearray(len(manifest))  # RENDER, KEPT or STORED
    keys: dict[int, Key | None] = {}
    shas: dict[int, str] = {}  # STORED: the SHA-256 of the cache's copy
    renderer.cache.expect_pages(entry.path for entry in manifest)
    for index, entry in enumerate(manifest):
        key = renderer.key(entry)
        if renderer.unchanged(entry, key):
            kept[index] = KEPT
            continue
        keys[index] = key
        sha = renderer.cache.stored_sha(entry.path, key)
        if sha is not None:
            kept[index], shas[index] = STORED, sha

    def pending() -> Iterator[int]:  # the run pages to render
        return (i for i, entry in enumerate(manifest) if kept[i] == RENDER and isinstance(entry, RunPage))

    parallel = None
    if renderer.jobs > 1 and sum(1 for _ in pending()) >= PARALLEL_MIN:
        parallel = _parallel(manifest, pending(), renderer)
    for index, entry in enumerate(manifest):
        if kept[index] == KEPT:
            renderer.reused += isinstance(entry, (Page, LazyPage))
            yield entry.path, Kept(renderer.old_files[entry.path].size)
            continue
        key = keys.pop(index)
        data_bytes = None
        if kept[index] == STORED and key is not None:
            data_bytes = renderer.cache.stored(entry.path, key, shas.pop(index))
        if data_bytes is not None:
            renderer.reused += isinstance(entry, (Page, LazyPage))
            if renderer.explain and isinstance(entry, (Page, LazyPage)):  # written again, if not rendered
                renderer.explained.append((entry.path, renderer.why(entry, key)))
            if isinstance(entry, RunPage):
                renderer.cache.still_uses_report(renderer.reports.key(renderer.runs[entry.index]))
            yield entry.path, data_bytes
            continue
        if parallel is not None and kept[index] == RENDER and isinstance(entry, RunPage):
            data_bytes, report_key, report_html, was_cached = next(parallel)
            if was_cached:
                renderer.cache.still_uses_report(report_key)
            elif report_key and report_html is not None:
                renderer.cache.keep_report(report_key, report_html)
            renderer.rendered += 1
        else:
            data_bytes = renderer.render(entry)
            renderer.rendered += isinstance(entry, (Page, LazyPage))
        if renderer.explain and isinstance(entry, (Page, LazyPage)):
            renderer.explained.append((entry.path, renderer.why(entry, key)))
        renderer.cache.keep_page(entry.path, key, data_bytes)
        yield entry.path, data_bytes


RENDER, KEPT, STORED = 0, 1, 2  # what render_site does with a file: render it, leave it, write the cache's copy
PARALLEL_MIN = 1000  # fewer run pages to render are not worth starting processes for: a rebuild adding 100
# runs at 10k took as long without workers and peaked at 92 MB instead of 148 (two workers and their server)
CHUNK = 32  # run pages per task
AHEAD = 8  # tasks per worker sent ahead of the page being written: the results waiting stay bounded
_WORKER: tuple | None = None  # a worker process's theme and reports


def _parallel(manifest: list[Entry], pending: Iterator[int], renderer: SiteRenderer) -> Iterator:
    """For each of ``pending`` (indexes of run pages in the manifest), in order: its (bytes, report key,
    fresh report html, report was cached), from a pool of worker processes (workers.py).

    Each worker is given the theme chain and the report renderer once, then each run page's page, raw
    record and the cached rendering of its report, if any (only
    the parent reads and writes the cache: one SQLite connection, no locks between
    processes); the worker checks a cached report as ReportRenderer.cached does, and the
    parent keeps the new reports as they come back. Results come back in ``pending`` order,
    streamed as they are ready; tasks are sent by the build's own thread (the one that
    reads the cache), at most AHEAD per worker ahead of the page being written, so the
    pages waiting to be written stay bounded whatever the history holds.
    """
    reports = copy.copy(renderer.reports)
    reports.cache = NO_STORE

    def task(entry: Entry) -> tuple[Page, RunRecord, str | None]:
        if not isinstance(entry, RunPage):  # pending lists run pages only
            raise TypeError(f"{entry.path}: not a run page")
        record = renderer.runs[entry.index]
        key = renderer.reports.key(record)
        return entry.page, record, renderer.cache.report(key) if key else None

    pool = workers.pool(renderer.jobs, _start_worker, (renderer.chain, reports, renderer.whole))
    chunks = iter(lambda: list(islice(pending, CHUNK)), [])
    tasks = (([task(manifest[i]) for i in chunk],) for chunk in chunks)  # made as they are sent
    return (page for done in workers.in_order(pool, _render_chunk, tasks, renderer.jobs * AHEAD) for page in done)


def _start_worker(chain: list[Path], reports: ReportRenderer, whole) -> None:
    global _WORKER
    _WORKER = (make_environment(chain), reports, whole)


def _render_chunk(task: list[tuple[Page, RunRecord, str | None]]) -> list[tuple[bytes, str | None, str | None, bool]]:
    if _WORKER is None:
        raise RuntimeError("a worker process renders only after _start_worker")
    env, reports, whole = _WORKER
    out = []
    for page, record, stored in task:
        run = whole.whole(record)
        cached = reports.checked(stored, run)
        html = cached if cached is not None else reports.fresh(record, run)
        data_bytes = render_page(page, env, run_values(run, reports.redaction, html))
        fresh = None if cached is not None or html is None else str(html)
        out.append((data_bytes, reports.key(record), fresh, cached is not None))
    return out


def run_values(run: Run, redaction: Redaction, report_html: Markup | None) -> dict:
    """A run page's safe values besides its public record: the whole run (texts redacted, no secrets)
    and its report's HTML."""
    return names(RunValues(run=run_view(run, redaction), report_html=report_html))


def render_page(page: Page, env: jinja2.Environment, extra: dict | None = None) -> bytes:
    context = {**page.context, **extra} if extra else page.context
    try:
        return env.get_template(page.template).render(context).encode("utf-8")
    except jinja2.TemplateSyntaxError as err:
        raise BuildError(f"{err.filename or err.name}:{err.lineno}: template error: {err.message}") from None
    except jinja2.TemplateError as err:
        raise BuildError(f"{page.template} (rendering {page.path}): {err}") from None


def guard_secrets(files: Iterable[tuple[str, bytes | Kept]], literals: list[str]) -> Iterator[tuple[str, bytes | Kept]]:
    """Pass files through; a BuildError names the first file holding a configured secret, in its bytes
    or as a reader sees it (render/visible.py: markup with its entities decoded and its tags removed,
    a gzip part decompressed; then, as render/redact.py reads every text, each run of white space one
    space and format characters removed), so that ``conf1gured-<s>literal</s>``, ``&#99;onf1gured-literal``
    or ``conf1gured-\u200bliteral`` does not pass. One automaton of every spelling, one pass a reading.

    A Kept file passed this guard when it was written, and the configured secrets are part
    of every file's key (cache.Keys), so it is not read again."""
    found = Literals(literals) if literals else None
    for path, data_bytes in files:
        if found is not None and not isinstance(data_bytes, Kept):
            text = data_bytes.decode("utf-8", "replace")
            if found.spans(text):
                raise BuildError(f"{path}: a value listed under `redact:` would be published; nothing was written")
            try:
                for seen in (text, *reader_texts(path, data_bytes)):
                    if found.spans(as_read_fast(seen)):
                        raise BuildError(
                            f"{path}: a value listed under `redact:` would be published (as a reader "
                            "sees the file: tags removed, entities decoded, unzipped, white space "
                            "collapsed, format characters removed); nothing was written"
                        )
            except (ValueError, zlib.error) as err:
                raise BuildError(
                    f"{path}: cannot be read back to check it for secrets ({err}); nothing was written"
                ) from None
        yield path, data_bytes
