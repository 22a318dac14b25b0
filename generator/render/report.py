"""A run's report.md for its page: read from the export again (not kept in memory), rendered safely."""

from __future__ import annotations

from pathlib import Path

from markupsafe import Markup

from podium.load.files import read_file
from podium.model import Problem, RunRecord
from podium.render.markdown import render_report
from podium.render.redact import Redactor


class ReportRenderer:
    def __init__(self, root: Path, limit: int, redactor: Redactor):
        self.root = root
        self.limit = limit
        self.redactor = redactor

    def __call__(self, record: RunRecord) -> Markup | None:
        rel = record.run.report_file
        if rel is None:
            return None
        data = read_file(self.root / rel, rel, self.limit)
        if data is None or isinstance(data, Problem):
            return None
        text = data.decode("utf-8", errors="replace")
        return render_report(text, self.redactor.for_run(record.run.secrets))
