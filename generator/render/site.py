"""Render the manifest: pages through Jinja, data files from the public board, assets as they are.

Yields (site path, bytes) one file at a time so the writer can stream them. A run
page's context is completed here with its safe values (render/safe.py): the
run's redacted record and its rendered report. ``guard_secrets`` stops the build
if a configured secret made it into any file.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import jinja2
from podium.errors import BuildError
from podium.model import Leaderboard, RunRecord
from podium.plan import Blob, DataFile, Entry, Page
from podium.render import compare_data, data
from podium.render.redact import Redaction
from podium.render.report import ReportRenderer
from podium.render.safe import run_view

DATA_FILES = {  # routes.DATA_FILES kind -> its bytes from the public board
    "summary": lambda board, generated_at: data.dump_json(data.summary_dict(board, generated_at)),
    "schema": lambda board, generated_at: data.summary_schema(),
    "runs_json": lambda board, generated_at: data.ledger_json(board),
    "runs_csv": lambda board, generated_at: data.ledger_csv(board),
    "ledger_js": lambda board, generated_at: data.ledger_script(board),
    "compare": lambda board, generated_at: compare_data.compare_json(board),
    "compare_schema": lambda board, generated_at: compare_data.compare_schema(),
}


class SiteRenderer:
    """Everything the render stage needs: the theme, the public board, and each run's raw record."""

    def __init__(self, env: jinja2.Environment, board: Leaderboard, runs: Iterable[RunRecord],
                 redaction: Redaction, reports: ReportRenderer, generated_at: int | None):
        self.env = env
        self.board = board
        self.runs = {record.run.run_id: record for record in runs}
        self.redaction = redaction
        self.reports = reports
        self.generated_at = generated_at

    def render(self, entry: Entry) -> bytes:
        if isinstance(entry, Page):
            return render_page(entry, self.env, self.run_context(entry.run_id) if entry.run_id else None)
        if isinstance(entry, DataFile):
            return DATA_FILES[entry.kind](self.board, self.generated_at)
        if isinstance(entry, Blob):
            return entry.data
        return entry.source.read_bytes()

    def run_context(self, run_id: str) -> dict:
        """The run page's safe values: its record (texts redacted, no secrets) and its report's HTML."""
        record = self.runs[run_id]
        return {"record": run_view(record, self.redaction), "report_html": self.reports(record.run)}


def render_site(manifest: Iterable[Entry], renderer: SiteRenderer) -> Iterator[tuple[str, bytes]]:
    for entry in manifest:
        yield entry.path, renderer.render(entry)


def render_page(page: Page, env: jinja2.Environment, extra: dict | None = None) -> bytes:
    context = {**page.context, **extra} if extra else page.context
    try:
        return env.get_template(page.template).render(context).encode("utf-8")
    except jinja2.TemplateSyntaxError as err:
        raise BuildError(f"{err.filename or err.name}:{err.lineno}: template error: {err.message}") from None
    except jinja2.TemplateError as err:
        raise BuildError(f"{page.template} (rendering {page.path}): {err}") from None


def guard_secrets(files: Iterable[tuple[str, bytes]], literals: list[str]) -> Iterator[tuple[str, bytes]]:
    """Pass files through; a BuildError names the first file holding a configured secret."""
    needles = [v.encode("utf-8", "surrogatepass") for v in literals]
    for path, data_bytes in files:
        for needle in needles:
            if needle in data_bytes:
                raise BuildError(f"{path}: a value listed under `redact:` would be published; nothing was written")
        yield path, data_bytes

