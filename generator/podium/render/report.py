"""A run's report.md for its page: read from the export again (not kept in memory), rendered safely.

A rendered report is cached (cache.py) under a key of the report's bytes, the run's
redaction fingerprint, podium's code and the Markdown engines' versions, so a rebuild
renders only new or changed reports, and a new answer for a mission re-renders every
report of that mission.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from markupsafe import Markup
from podium.cache import NoCache
from podium.load.files import read_file
from podium.model import Problem, Run
from podium.render import reportmd
from podium.render.markdown import render_report
from podium.render.redact import Redaction


class ReportRenderer:
    """report.md -> HTML with the withheld sections cut and every text redacted for its run."""

    def __init__(self, roots: Path | list[Path], limit: int, redaction: Redaction, cache: NoCache | None = None,
                 code: str = ""):
        self.roots = roots if isinstance(roots, list) else [roots]
        self.limit = limit
        self.redaction = redaction
        self.cache = cache or NoCache()
        self.code = code

    def key(self, run: Run) -> str | None:
        if run.report_file is None or run.report_digest is None:
            return None
        parts = (self.code, reportmd.ENGINE, str(self.limit), run.report_digest, self.redaction.fingerprint(run))
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()

    def cached(self, run: Run) -> Markup | None:
        key = self.key(run)
        html = self.cache.report(key) if key else None
        return Markup(html) if html is not None else None  # render_report's own output, kept verbatim

    def __call__(self, run: Run) -> Markup | None:
        html = self.cached(run)
        return html if html is not None else self.fresh(run)

    def fresh(self, run: Run) -> Markup | None:
        """The report rendered now (and kept for the cache), None without one."""
        rel = run.report_file
        if rel is None:
            return None
        data = read_file(self.roots[run.source] / rel, rel, self.limit)
        if data is None or isinstance(data, Problem):
            return None
        html = render_report(data.decode("utf-8", errors="replace"), self.redaction.for_run(run))
        key = self.key(run)
        if key and hashlib.sha256(data).hexdigest() == run.report_digest:  # unchanged since it was read
            self.cache.keep_report(key, str(html))
        return html
