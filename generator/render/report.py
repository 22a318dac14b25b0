"""A run's report.md for its page: read from the export again (not kept in memory), rendered safely."""

from __future__ import annotations

from pathlib import Path

from markupsafe import Markup
from podium.load.files import read_file
from podium.model import Problem, Run
from podium.render.markdown import render_report
from podium.render.redact import Redaction


class ReportRenderer:
    """report.md -> HTML with the withheld sections cut and every text redacted for its run."""

    def __init__(self, roots: Path | list[Path], limit: int, redaction: Redaction):
        self.roots = roots if isinstance(roots, list) else [roots]
        self.limit = limit
        self.redaction = redaction

    def __call__(self, run: Run) -> Markup | None:
        rel = run.report_file
        if rel is None:
            return None
        data = read_file(self.roots[run.source] / rel, rel, self.limit)
        if data is None or isinstance(data, Problem):
            return None
        return render_report(data.decode("utf-8", errors="replace"), self.redaction.for_run(run))
