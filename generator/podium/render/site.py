"""Render the manifest: pages through Jinja, data files from the public board, assets as they are.

Yields (site path, bytes) one file at a time so the writer can stream them. A run
page's context is completed here with its safe values (safety/safe.py): the
run's redacted record and its rendered report. ``guard_secrets`` stops the build
if a configured secret made it into any file, in its bytes or as a reader sees it.
"""

from __future__ import annotations

import copy
import zlib
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from pathlib import Path

import jinja2
from markupsafe import Markup

from podium.errors import BuildError
from podium.model import Leaderboard, Run, RunRecord
from podium.plan.contexts import RunValues, names
from podium.plan.entries import CrawlerFile, DataFile, Document, Entry, LazyPage, MarkdownPage, Page, RunPage
from podium.render import compare_data, data, progress_data, summary_parts
from podium.render.cached import NO_REPORT_STORE, NO_REUSE, Reuse
from podium.render.crawlers import crawler_bytes
from podium.render.markdown import rendered
from podium.render.output import Kept, SiteFile
from podium.render.report import ReportRenderer
from podium.render.templates import make_environment
from podium.safety.redact import Literals, Redaction, as_read_fast
from podium.safety.safe import run_view
from podium.safety.visible import reader_texts
from podium.workers import NO_WORKERS, Workers

DATA_FILE_BYTES = {  # a DataFile's kind -> its bytes from the public board (and the ledger part or pairs it names)
    "summary": lambda board, generated_at, entry: data.dump_json(summary_parts.summary_index(board, generated_at)),
    "summary_agent": lambda board, generated_at, entry: data.dump_json(
        summary_parts.agent_part(board, entry.part, entry.older)
    ),
    "summary_mission": lambda board, generated_at, entry: data.dump_json(summary_parts.mission_part(board, entry.part)),
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


class SiteRenderer:
    """Everything the render stage needs: the theme (its ``chain`` of directories), the public board, each run's
    raw record (in the board's order: a RunPage's index names one) and where it is read again for its own page
    (``whole``), its report (``reports``, which redacts it with the build's redaction) and the build time. With
    the build's ``workers`` (workers.py), the run pages to render, when there are enough of them, are rendered
    by them, in manifest order (each makes its own environment from ``chain``)."""

    def __init__(
        self,
        chain: list[Path],
        board: Leaderboard,
        runs: Sequence[RunRecord],
        whole,
        reports: ReportRenderer,
        generated_at: int | None,
        workers: Workers = NO_WORKERS,
    ):
        self.chain = chain
        self.env = make_environment(chain)
        self.board = board
        self.runs = runs
        self.whole = whole  # each run as read, for its own page (load/export/runs.py WholeRuns)
        self.reports = reports
        self.generated_at = generated_at
        self.workers = workers

    def render(self, entry: Entry) -> bytes:
        if isinstance(entry, RunPage):
            return render_page(entry.page, self.env, self.run_context(entry.index))
        if isinstance(entry, LazyPage):
            return render_page(entry.page, self.env)
        if isinstance(entry, MarkdownPage):
            return render_page(entry, self.env, {"content": rendered(entry.context["content"])})
        if isinstance(entry, Page):
            return render_page(entry, self.env)
        if isinstance(entry, DataFile):
            return DATA_FILE_BYTES[entry.kind](self.board, self.generated_at, entry)
        if isinstance(entry, Document):
            return data.dump_json(entry.value)
        if isinstance(entry, CrawlerFile):
            return crawler_bytes(entry)
        return entry.source.read_bytes()

    def run_context(self, index: int) -> dict:
        record = self.runs[index]
        run = self.whole.whole(record)
        return run_values(run, self.reports.redaction, self.reports(record, run))


def render_site(manifest: list[Entry], renderer: SiteRenderer, reuse: Reuse = NO_REUSE) -> Iterator[SiteFile]:
    """(path, bytes) for every entry in manifest order, or (path, Kept) for a file left as it is, as ``reuse``
    (cache/outdated.py) decided before anything is rendered; a file whose inputs are unchanged but which the
    output no longer holds is written from the cache's copy. Run pages maybe rendered by the build's workers,
    which are started here, before the files are asked for (the writer's threads start then)."""
    pending = [i for i, entry in enumerate(manifest) if isinstance(entry, RunPage) and reuse.to_render(i)]
    parallel = None
    if renderer.workers.many and len(pending) >= PARALLEL_MIN:
        parallel = _parallel(manifest, pending, renderer)
    return _rendered(manifest, renderer, reuse, parallel)


def _rendered(manifest: list[Entry], renderer: SiteRenderer, reuse: Reuse, parallel) -> Iterator[SiteFile]:
    for index, entry in enumerate(manifest):
        kept = reuse.kept(index)
        if kept is not None:
            yield entry.path, kept
            continue
        data_bytes = reuse.stored(index)
        if data_bytes is None:
            if parallel is not None and isinstance(entry, RunPage) and reuse.to_render(index):
                data_bytes, report_key, report_html = next(parallel)
                if report_key and report_html is not None:
                    renderer.reports.cache.keep_report(report_key, report_html)
            else:
                data_bytes = renderer.render(entry)
            reuse.rendered_as(index, data_bytes)
        yield entry.path, data_bytes


PARALLEL_MIN = 1000  # fewer run pages to render are not worth starting processes for: a rebuild adding 100
# runs at 10k took as long without workers and peaked at 92 MB instead of 148 (two workers and their server)
CHUNK = 32  # run pages per task
AHEAD = 8  # tasks per worker sent ahead of the page being written: the results waiting stay bounded
_WORKER: tuple | None = None  # a worker process's theme and reports


def _parallel(manifest: list[Entry], pending: list[int], renderer: SiteRenderer) -> Iterator:
    """For each of ``pending`` (indexes of run pages in the manifest), in order: its (bytes, report key, fresh
    report html), from a pool of worker processes (workers.py).

    Each worker is given the theme chain and the report renderer once (the workers are forked now if they
    were not before), then each run page's page, raw
    record and the cached rendering of its report, if any (only
    the parent reads and writes the cache: one SQLite connection, no locks between
    processes); the worker checks a cached report as ReportRenderer.cached does, and the
    parent keeps the new reports as they come back. Results come back in ``pending`` order,
    streamed as they are ready; tasks are sent by the build's own thread (the one that
    reads the cache), at most AHEAD per worker ahead of the page being written, so the
    pages waiting to be written stay bounded whatever the history holds.
    """
    reports = copy.copy(renderer.reports)
    reports.cache = NO_REPORT_STORE

    def task(entry: Entry) -> tuple[Page, RunRecord, str | None, str | None]:
        if not isinstance(entry, RunPage):  # pending lists run pages only
            raise TypeError(f"{entry.path}: not a run page")
        record = renderer.runs[entry.index]
        key = renderer.reports.key(record)  # (made here: the build's keys know what a worker's do not)
        return entry.page, record, renderer.reports.cache.report(key) if key else None, key

    workers = renderer.workers
    workers.everywhere(_start_worker, renderer.chain, reports, renderer.whole)
    indexes = iter(pending)
    chunks = iter(lambda: list(islice(indexes, CHUNK)), [])
    tasks = (([task(manifest[i]) for i in chunk],) for chunk in chunks)  # made as they are sent
    return (page for done in workers.in_order(_render_chunk, tasks, workers.jobs * AHEAD) for page in done)


def _start_worker(chain: list[Path], reports: ReportRenderer, whole) -> None:
    global _WORKER
    _WORKER = (make_environment(chain), reports, whole)


def _render_chunk(
    task: list[tuple[Page, RunRecord, str | None, str | None]],
) -> list[tuple[bytes, str | None, str | None]]:
    if _WORKER is None:
        raise RuntimeError("a worker process renders only after _start_worker")
    env, reports, whole = _WORKER
    out = []
    for page, record, stored, key in task:
        run = whole.whole(record)
        cached = reports.checked(stored, run)
        html = cached if cached is not None else reports.fresh(record, run)
        data_bytes = render_page(page, env, run_values(run, reports.redaction, html))
        fresh = None if cached is not None or html is None else str(html)
        out.append((data_bytes, key, fresh))
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


def guard_secrets(files: Iterable[SiteFile], literals: list[str]) -> Iterator[SiteFile]:
    """Pass files through; a BuildError names the first file holding a configured secret, in its bytes
    or as a reader sees it (safety/visible.py: markup with its entities decoded and its tags removed,
    a gzip part decompressed; then, as safety/redact.py reads every text, each run of white space one
    space and format characters removed), so that ``conf1gured-<s>literal</s>``, ``&#99;onf1gured-literal``
    or ``conf1gured-\u200bliteral`` does not pass. One automaton of every spelling, one pass a reading.

    A Kept file passed this guard when it was written, and the configured secrets are part
    of every file's key (cache/keys.py), so it is not read again."""
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
