"""A run's report.md for its page: read from the export again (not kept in memory), rendered safely.

A rendered report is cached (cache/store.py) under its key (cache.Keys.report: the report's
bytes, the run's redaction fingerprint, podium's code and the Markdown engines' versions),
so a rebuild renders only new or changed reports, and a new answer for a mission re-renders the
reports of that mission whose run pages' texts hold it (cache/found.py, which reads them through
:meth:`ReportRenderer.texts`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from markupsafe import Markup

from podium.load.fields import drop_format
from podium.load.files import read_file
from podium.model import Problem, Run, RunRecord
from podium.render import reportmd
from podium.render.cached import NO_REPORT_KEYS, NO_REPORT_STORE, ReportKeys, ReportStore
from podium.render.markdown import render_report, report_texts
from podium.safety.redact import Redaction


class ReportRenderer:
    """report.md -> HTML with the withheld sections cut and every text redacted for its run."""

    def __init__(
        self,
        roots: Path | list[Path],
        limit: int,
        redaction: Redaction,
        cache: ReportStore = NO_REPORT_STORE,
        keys: ReportKeys = NO_REPORT_KEYS,
    ):
        self.roots = roots if isinstance(roots, list) else [roots]
        self.limit = limit
        self.redaction = redaction
        self.cache = cache
        self.keys = keys

    def inputs(self, record: RunRecord) -> tuple[str, int, str | None]:
        """What the run's report renders from besides its redaction: the engines, the size limit, the
        report's SHA-256 (None: no report)."""
        return reportmd.ENGINE, self.limit, record.report_digest

    def key(self, record: RunRecord) -> str | None:
        return self.keys.report(self.inputs(record), record, self.redaction)

    def cached(self, record: RunRecord, run: Run) -> Markup | None:
        """The report as rendered by an earlier build, when the cache has it and it passes the guard a
        fresh one passes: redacting it again for ``run`` changes nothing (a row edited to hold a key or
        a submitted value is never published; it is rendered afresh instead)."""
        key = self.key(record)
        return self.checked(self.cache.report(key) if key else None, run)

    def checked(self, html: str | None, run: Run) -> Markup | None:
        """A cached report ``html`` when redacting it again for ``run`` changes nothing, else None."""
        if html is None or self.redaction.for_run(run)(html) != html:
            return None
        return Markup(html)  # render_report's own output, kept verbatim

    def __call__(self, record: RunRecord, run: Run) -> Markup | None:
        html = self.cached(record, run)
        return html if html is not None else self.fresh(record, run)

    def fresh(self, record: RunRecord, run: Run) -> Markup | None:
        """The report rendered now (and kept for the cache), None without one; redacted with the whole
        ``run``'s own values."""
        data = self._data(record)
        if data is None:
            return None
        html = render_report(_text(data), self.redaction.for_run(run))
        key = self.key(record)
        if key and hashlib.sha256(data).hexdigest() == record.report_digest:  # unchanged since it was read
            self.cache.keep_report(key, str(html))
        return html

    def texts(self, record: RunRecord) -> list[str]:
        """The texts :meth:`fresh` would hand the run's redactor, unredacted (none without a report): what
        the build cache reads to tell which answers the report holds (cache/found.py)."""
        data = self._data(record)
        return report_texts(_text(data)) if data is not None else []

    def _data(self, record: RunRecord) -> bytes | None:
        """The run's report.md as it is now, None without one (or an unreadable one)."""
        rel = record.report_file
        if rel is None:
            return None
        data = read_file(self.roots[record.source] / rel, rel, self.limit)
        return None if data is None or isinstance(data, Problem) else data


def _text(data: bytes) -> str:
    """A report's bytes as the renderer reads them (without what a reader would not see: load/fields.py)."""
    return drop_format(data.decode("utf-8", errors="replace"))
