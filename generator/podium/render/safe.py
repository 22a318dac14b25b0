"""Values a template may show: every text written by an agent or a judge already redacted.

Security lives here, in the render stage: templates never redact, never read a
file and get no callable that could (themes/README.md lists each page's context).

- :func:`public_board` is the Leaderboard every planned page and data file reads.
  Each run keeps what the ledger and the charts need and loses what only its own
  page shows (judge_detail, rubric, checks) and its secrets (submitted values,
  answers); model names (harness-reported, so agent-controlled) are redacted with
  the run's own values and its mission's answers, and in the figures with every
  mission's answers.
- :func:`run_view` is one run for its own page: judge_detail, rubric texts and
  reasons, check errors and model names redacted with that run's values, its
  mission's answers, the configured literals and every secret shape.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

from podium import routes
from podium.model import Figures, Grade, Leaderboard, Problem, Run, RunRecord
from podium.render.redact import Redaction


def public_board(board: Leaderboard, redaction: Redaction) -> Leaderboard:
    names: dict[str, str] = {}  # raw model name -> as published (the most redacted form any run needs)
    runs = tuple(replace(r, run=_public_run(r.run, redaction, names)) for r in board.runs)

    def published(values: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted({redaction.anywhere(names.get(v, v)) for v in values}))

    def figures(fig: Figures) -> Figures:
        return replace(fig, models_reported=published(fig.models_reported),
                       models_declared=published(fig.models_declared))

    def model_key(key: str) -> str:  # compare.md §2: reported names joined with " + ", or "<declared> (declared)"
        # Longest names first: a name inside a longer one is then still replaced in what the longer
        # one became, never cut out of it before the longer one could be matched whole.
        for raw, shown in sorted(names.items(), key=lambda item: (-len(item[0]), item[0])):
            key = key.replace(raw, shown)
        return redaction.anywhere(key)

    def model(summary):
        key = model_key(summary.model)
        if key == summary.model:
            return replace(summary, figures=figures(summary.figures))
        slug = f"{routes.slug(key)}-{hashlib.sha256(summary.model.encode('utf-8', 'surrogatepass')).hexdigest()[:6]}"
        return replace(summary, model=key, slug=slug, url=routes.model_path(slug), figures=figures(summary.figures))

    def agent(summary):
        return replace(summary, figures=figures(summary.figures),
                       missions=tuple(replace(m, figures=figures(m.figures)) for m in summary.missions))

    return replace(
        board,
        runs=runs,
        agents=tuple(agent(a) for a in board.agents),
        agents_older=tuple(agent(a) for a in board.agents_older),
        missions=tuple(replace(m, figures=figures(m.figures)) for m in board.missions),
        problems=tuple(Problem(p.path, p.field, redaction.anywhere(p.message)) for p in board.problems),
        by_model=tuple(model(m) for m in board.by_model),
        pairs=tuple(replace(p, models_a=tuple(model_key(k) for k in p.models_a),
                            models_b=tuple(model_key(k) for k in p.models_b)) for p in board.pairs),
    )


def _public_run(run: Run, redaction: Redaction, names: dict[str, str]) -> Run:
    redact = redaction.for_run(run)
    reported = tuple(redact(m) for m in run.models_reported)
    declared = redact(run.model_declared) if run.model_declared else run.model_declared
    for raw, shown in zip(run.models_reported + (run.model_declared,), reported + (declared,)):
        if raw and shown != raw:
            names[raw] = shown
    grade = replace(run.grade, judge_detail=None, criteria=(), checks=()) if run.grade else None
    return replace(run, grade=grade, models_reported=reported, model_declared=declared, secrets=(), answers=())


def run_view(record: RunRecord, redaction: Redaction) -> RunRecord:
    """``record`` for its own page: every agent- or judge-written text redacted, no secrets."""
    run = record.run
    redact = redaction.for_run(run)
    grade = run.grade
    if grade is not None:
        grade = _redacted_grade(grade, redact)
    return replace(record, run=replace(
        run, grade=grade, models_reported=tuple(redact(m) for m in run.models_reported),
        model_declared=redact(run.model_declared) if run.model_declared else run.model_declared,
        secrets=(), answers=()))


def _redacted_grade(grade: Grade, redact) -> Grade:
    return replace(
        grade,
        judge_detail=redact(grade.judge_detail) if grade.judge_detail else grade.judge_detail,
        criteria=tuple(replace(c, text=redact(c.text), reason=redact(c.reason)) for c in grade.criteria),
        checks=tuple(replace(c, error=redact(c.error) if c.error else c.error) for c in grade.checks),
    )
