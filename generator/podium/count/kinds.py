"""Each run's one kind (counting.md §2), how it ended, and the labels people read."""

from __future__ import annotations

import hashlib
import sys
from dataclasses import fields
from operator import attrgetter

from podium.count.cost import reported
from podium.count.model_names import configuration_model
from podium.model import (
    GRADING_FAILED,
    JUDGE_STATUSES,
    KIND_LABELS,
    NO_JUDGE_STATUSES,
    PARTIAL_TRIGGERS,
    SCORED_KINDS,
    Configuration,
    Run,
    RunRecord,
)
from podium.model import NOT_A_RUN_TRIGGERS as NOT_A_RUN

END_LABELS = {
    "done": "Completed",
    "timeout": "Timed out",
    "operator": "Stopped",
    "deploy_failed": "Deploy failed",
    "crashed": "Crashed",
    "cancelled": "Cancelled",
    "never_started": "Never started",
}


def classify(run: Run) -> str:
    """The first rule of counting.md §2 that matches decides."""
    grade = run.grade
    if (
        run.list_outcome in NOT_A_RUN
        or run.list_trigger in NOT_A_RUN
        or (run.shape == "not_graded" and run.result_trigger in NOT_A_RUN)
    ):
        return "not_a_run"
    if run.shape == "not_graded" or run.list_outcome == "infra_failed":
        return "infra_failed"
    if run.shape == "grading":
        return "grading"
    if grade is not None and (grade.judge_detail or "").startswith(GRADING_FAILED):
        return "grading_failed"
    if (
        run.shape != "graded"
        or grade is None
        or not grade.scores_valid
        or grade.judge_status not in JUDGE_STATUSES
        or run.partial_trigger not in PARTIAL_TRIGGERS
    ):
        return "unknown"
    if run.partial_trigger == "operator" or run.list_trigger == "operator":
        return "stopped"
    if grade.judge_status in NO_JUDGE_STATUSES:
        return "no_judge"
    if run.partial_trigger == "timeout":
        return "timed_out"
    if grade.judge_status == "partial":
        return "partial_judge"
    return "graded"


def end_of(run: Run, kind: str) -> str | None:
    """How the run ended: done, timeout, operator, deploy_failed, crashed, cancelled, … (None: not known)."""
    if kind == "not_a_run":  # whatever result.json holds, the run list's word decides (rule 1)
        result_trigger = run.result_trigger if run.shape == "not_graded" else None
        return next((t for t in (result_trigger, run.list_trigger, run.list_outcome) if t in NOT_A_RUN), None)
    if kind == "infra_failed" and run.shape != "not_graded":  # rule 2 by run-list outcome
        return run.list_trigger
    if kind == "stopped":
        return "operator"
    if kind == "timed_out":
        return "timeout"
    if run.shape == "not_graded":
        return run.result_trigger or run.list_trigger
    if run.shape == "graded" and run.partial_trigger in ("timeout", "operator"):
        return run.partial_trigger
    if run.shape == "graded" and run.partial_trigger is None and not run.partial:
        return "done"
    return run.list_trigger


def status_label(kind: str, end: str | None) -> str:
    """What the ledger's Status column says."""
    if kind in ("grading", "grading_failed", "unknown"):
        return KIND_LABELS[kind]
    if kind == "infra_failed" and end not in ("deploy_failed", "crashed"):
        return KIND_LABELS[kind]
    return END_LABELS.get(end or "", "Unknown")


def record_of(run: Run, exposed: tuple[str, ...] = ()) -> RunRecord:
    """The run's compact record: its kind decided once, its scores as the ledger reads them (counting.md §2-3).

    ``exposed``: its own submitted values found in its names (safety/redact.py ``exposed_values``).
    Older-version, page and link fields are the summary step's to fill."""
    kind = classify(run)
    end = end_of(run, kind)
    grade = run.grade
    scored = kind in SCORED_KINDS
    no_judge_ran = scored and grade.judge_status in NO_JUDGE_STATUSES
    partial_judge = scored and grade.judge_status == "partial"
    upper = grade.overall_upper if partial_judge and grade.overall_upper is not None else None
    conditions = run.conditions
    return RunRecord(
        run_id=run.run_id,
        directory=run.directory,
        source=run.source,
        agent=_shared(run.agent),
        agent_name=_shared(run.agent_name),
        mission=_shared(run.mission),
        version=_shared(run.version),
        kind=kind,
        end=end,
        status=status_label(kind, end),
        overall=grade.overall if scored else None,
        overall_upper=(upper if upper is not None else grade.overall) if scored else None,
        deterministic=grade.deterministic if scored else None,
        judge=None if not scored or no_judge_ran else grade.judge,
        judge_upper=(grade.judge_upper if grade.judge_upper is not None else grade.judge) if partial_judge else None,
        no_judge_ran=no_judge_ran,
        judge_status=_shared(grade.judge_status) if grade else None,
        judge_model=_shared(conditions.judge_model) if conditions else None,
        model_declared=_shared((conditions.model if conditions and conditions.model else None) or run.model_declared),
        models_reported=_shared_tuple(run.models_reported),
        models_more=run.models_more,
        models_digest=run.models_digest,
        started=run.started,
        completed=run.completed,
        when=run.completed or run.started,
        report_digest=run.report_digest if run.report_file else None,
        digest=run.result_digest or hashlib.sha256(repr(run).encode("utf-8", "surrogatepass")).hexdigest(),
        exposed=exposed,
        configuration=configuration_of(run),
        harness=_shared(run.harness),
        spent=reported(run.spent),
    )


_CONFIGURATIONS: dict[Configuration, Configuration] = {}


def configuration_of(run: Run) -> Configuration | None:
    """The run's configuration (progress.md §1), one object per distinct value; None without conditions."""
    conditions = run.conditions
    if conditions is None:
        return None
    model = configuration_model(run.models_reported, run.models_more, run.models_digest, conditions.model)
    value = Configuration(
        agent_version=_shared(conditions.agent_version),
        model=_shared(model),
        judge_model=_shared(conditions.judge_model or None),
        budget_seconds=conditions.budget_seconds,
    )
    return _CONFIGURATIONS.setdefault(value, value) if len(_CONFIGURATIONS) < 100_000 else value


def shared_record(record: RunRecord) -> RunRecord:
    """A record read back from the build cache, its repeated names and times shared as :func:`record_of`
    shares them (a history's records decoded as they are would each hold their own copies)."""
    when = record.when
    when = record.completed if when == record.completed else record.started if when == record.started else when
    values = list(_FIELDS(record))  # positionally: dataclasses.replace cost five times as much
    for index in _NAMES:
        values[index] = _shared(values[index])
    values[_MODELS] = _shared_tuple(tuple(sys.intern(m) for m in record.models_reported))
    values[_WHEN] = when
    if (configuration := values[_CONFIGURATION]) is not None:
        values[_CONFIGURATION] = _CONFIGURATIONS.get(configuration) or _shared_configuration(configuration)
    return RunRecord(*values)


def _shared_configuration(configuration: Configuration) -> Configuration:
    value = Configuration(
        _shared(configuration.agent_version),
        _shared(configuration.model),
        _shared(configuration.judge_model),
        configuration.budget_seconds,
    )
    return _CONFIGURATIONS.setdefault(value, value) if len(_CONFIGURATIONS) < 100_000 else value


_FIELD_NAMES = [field.name for field in fields(RunRecord)]
_FIELDS = attrgetter(*_FIELD_NAMES)
_NAMES = [
    _FIELD_NAMES.index(name)
    for name in (
        "agent",
        "agent_name",
        "mission",
        "version",
        "kind",
        "end",
        "status",
        "judge_status",
        "judge_model",
        "model_declared",
        "harness",
    )
]
_MODELS, _WHEN = _FIELD_NAMES.index("models_reported"), _FIELD_NAMES.index("when")
_CONFIGURATION = _FIELD_NAMES.index("configuration")


_TUPLES: dict[tuple, tuple] = {}


def _shared(text: str | None) -> str | None:
    """One string object per distinct name, model, version: a big history repeats them on every run."""
    return sys.intern(text) if text is not None else None


def _shared_tuple(values: tuple[str, ...]) -> tuple[str, ...]:
    if not values:
        return ()
    return _TUPLES.setdefault(values, values) if len(_TUPLES) < 100_000 else values
