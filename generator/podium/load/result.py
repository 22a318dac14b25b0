"""``result.json``: the three shapes of xorcise-export.md, read field by field.

Only what a public site may show is kept: never ``judge_prompt``,
``criterion_prompt`` or a check's submitted ``value``, never the ``detail`` log
tail of an environment failure.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from podium.load.fields import Fields, describe
from podium.model import (
    GRADING_FAILED,
    JUDGE_STATUSES,
    PARTIAL_TRIGGERS,
    RUN_ID,
    Check,
    Conditions,
    Criterion,
    Grade,
)

MISTYPED = "(not a string)"  # a status or trigger of the wrong JSON type: never a known value
# Criteria and checks read of one result (a rubric or a mission has a handful): the run page shows each,
# so a result.json of a million small ones would make a page, and its memory, of a million rows.
MAX_ENTRIES = 500
# Reported model names kept of one run (docs/rules/export.md §3.2): each is repeated on every output that
# lists models, so 200 names of 512 characters on each run made a 68 MB summary.json at 130 runs (issue
# 34). The rest are counted (``models_more``), and a digest of the whole list keeps two lists apart.
MODELS_PER_RUN = 8
MODEL_NAME_LIMIT = 200  # characters of a reported model name, as of a declared one (export.md §7)


@dataclass(frozen=True, slots=True)
class Result:
    shape: str  # graded / not_graded / grading / other
    run_id: str | None = None
    status: str | None = None
    result_trigger: str | None = None
    grade: Grade | None = None
    conditions: Conditions | None = None
    partial: bool | None = None
    partial_trigger: str | None = None
    models_reported: tuple[str, ...] = ()
    models_more: int = 0  # reported names past the first MODELS_PER_RUN
    models_digest: str | None = None  # with models_more: what tells the whole list apart from another
    secrets: tuple[str, ...] = ()
    answers: tuple[str, ...] = ()


def read_result(value: object, fields: Fields) -> Result | None:
    """The Result in a parsed result.json, or None when its top level is not an object."""
    if not isinstance(value, dict):
        fields.report("", f"expected a JSON object at the top level, got {describe(value)}")
        return None
    status = fields.string(value, "status", "status")
    if status is None and _mistyped(value, "status"):
        return Result("other", run_id=_run_id(fields, value, "run_id"), status=MISTYPED)
    if status == "not_graded":
        return Result(
            "not_graded",
            run_id=_run_id(fields, value, "run_id"),
            status=status,
            result_trigger=fields.string(value, "terminal_trigger", "terminal_trigger"),
        )
    if status == "grading":
        return Result("grading", run_id=_run_id(fields, value, "run_id"), status=status)
    if status is not None:
        fields.report("status", f"{status!r} is not a status podium knows; counted as unknown")
        return Result("other", run_id=_run_id(fields, value, "run_id"), status=status)
    grade = fields.mapping(value, "grade", "grade")
    if grade is None:
        if fields.present(value, "grade"):
            return Result("other", run_id=_run_id(fields, value, "run_id"))
        fields.report("", "has neither a grade nor a status; counted as unknown")
        return Result("other", run_id=_run_id(fields, value, "run_id"))
    partial_trigger = fields.string(value, "partial_trigger", "partial_trigger")
    if partial_trigger is None and _mistyped(value, "partial_trigger"):
        partial_trigger = MISTYPED  # reported already; makes the run unknown (counting.md §2 rule 5)
    elif partial_trigger not in PARTIAL_TRIGGERS:
        fields.report("partial_trigger", f"{partial_trigger!r} is not a trigger podium knows; counted as unknown")
    secrets, answers = _submitted_values(grade)
    return Result(
        "graded",
        run_id=_run_id(fields, grade, "grade.run_id"),
        grade=read_grade(grade, fields),
        conditions=read_conditions(fields.mapping(value, "conditions", "conditions") or {}, fields),
        partial=fields.boolean(value, "partial", "partial"),
        partial_trigger=partial_trigger,
        **read_models(value, fields),
        secrets=secrets,
        answers=answers,
    )


def read_models(value: dict, fields: Fields) -> dict:
    """``models_reported`` (docs/rules/export.md §3.2): the first MODELS_PER_RUN non-empty names in the
    harness's order, each cut at MODEL_NAME_LIMIT characters; how many more there are (``models_more``); and
    with more, ``models_digest``: the first 8 hex digits of the SHA-256 of the whole list (JSON, each name as
    kept), which the model key and the configuration carry so that two lists differing past the kept names
    stay apart. Names past the kept ones are cleaned as the kept ones (a problem per kind, not per name)."""
    items = fields.array(value, "models_reported", "models_reported") or []
    names: list[str] = []
    for index, item in enumerate(items):
        where = f"models_reported[{index}]"
        if not isinstance(item, str):
            fields.report(where, f"expected a string, got {describe(item)}")
        elif item:
            kept = len(names) < MODELS_PER_RUN
            names.append(fields.clean(item, where, limit=MODEL_NAME_LIMIT) if kept else _quiet(item))
    if len(names) <= MODELS_PER_RUN:
        return {"models_reported": tuple(names)}
    more = len(names) - MODELS_PER_RUN
    fields.report(
        "models_reported",
        f"holds {len(names):,} model names; the first {MODELS_PER_RUN} are kept and the other {more:,} counted",
    )
    whole = json.dumps(names, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return {
        "models_reported": tuple(names[:MODELS_PER_RUN]),
        "models_more": more,
        "models_digest": hashlib.sha256(whole).hexdigest()[:8],
    }


def _quiet(name: str) -> str:
    """A name past the kept ones as a kept one would read (cleaned, cut), with no problem of its own."""
    return Fields("", []).clean(name, "", limit=MODEL_NAME_LIMIT)


def _submitted_values(grade: dict) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Kept only so pages can redact them: every check's submitted value (``secrets``), and
    the values that passed an ``artifacts`` check (``answers``: the mission's known answers)."""
    values, answers = set(), set()
    checks = grade.get("check_breakdown")
    for item in checks if isinstance(checks, list) else []:
        value = item.get("value") if isinstance(item, dict) else None
        if isinstance(value, str) and value.strip():
            values.add(value)
            if item.get("source") == "artifacts" and item.get("passed") is True:
                answers.add(value)
    return tuple(sorted(values)), tuple(sorted(answers))


def _mistyped(obj: dict, key: str) -> bool:
    """True when ``key`` holds something other than a string or null (already reported)."""
    return obj.get(key) is not None


def _run_id(fields: Fields, obj: dict, field: str) -> str | None:
    key = field.rsplit(".", 1)[-1]
    run_id = fields.string(obj, key, field, limit=64)
    if run_id is None:
        return None
    if not RUN_ID.match(run_id):
        fields.report(field, f"expected 32 lower-case hex characters, got {describe(run_id)}")
        return None
    return run_id


def read_grade(grade: dict, fields: Fields) -> Grade:
    detail = fields.string(grade, "judge_detail", "grade.judge_detail", line=False, limit=2000)
    status = fields.string(grade, "judge_status", "grade.judge_status", limit=64)
    crash_fallback = detail is not None and detail.startswith(GRADING_FAILED)
    if status not in JUDGE_STATUSES and not crash_fallback:
        what = "missing" if status is None else f"{status!r} is not a judge status podium knows"
        fields.report("grade.judge_status", f"{what}; counted as unknown")
    scores = _read_scores(grade, fields, check=not crash_fallback)
    return Grade(
        judge_status=status,
        judge_detail=detail,
        judge_coverage=fields.number(grade, "judge_coverage", "grade.judge_coverage", lo=0, hi=1),
        criteria=_read_criteria(grade, fields),
        checks=_read_checks(grade, fields),
        **scores,
    )


def _read_scores(grade: dict, fields: Fields, check: bool) -> dict:
    """overall, the halves and the upper bounds; ``scores_valid`` only when all are usable."""
    if not check:  # the crash-fallback grade: its zeros are not scores
        return dict(
            overall=None, deterministic=None, judge=None, overall_upper=None, judge_upper=None, scores_valid=False
        )
    breakdown = fields.mapping(grade, "breakdown", "grade.breakdown", required=True) or {}
    got = dict(
        overall=fields.number(grade, "overall", "grade.overall", lo=0, hi=1, required=True),
        deterministic=fields.number(
            breakdown, "deterministic", "grade.breakdown.deterministic", lo=0, hi=1, required=True
        ),
        judge=fields.number(breakdown, "judge", "grade.breakdown.judge", lo=0, hi=1, required=True),
    )
    valid = all(v is not None for v in got.values())
    for name, lower in (("overall_upper", "overall"), ("judge_upper", "judge")):
        upper = fields.number(grade, name, f"grade.{name}", lo=0, hi=1)
        if fields.present(grade, name) and grade[name] is not None and upper is None:
            valid = False
        if upper is not None and got[lower] is not None and upper < got[lower]:
            fields.report(f"grade.{name}", f"{upper!r} is below {lower} {got[lower]!r}")
            valid = False
        got[name] = upper
    return dict(got, scores_valid=valid)


def _entries(grade: dict, fields: Fields, key: str, what: str) -> list:
    """The first MAX_ENTRIES elements of ``grade[key]`` (an array), and a problem when there are more."""
    items = fields.array(grade, key, f"grade.{key}") or []
    if len(items) > MAX_ENTRIES:
        fields.report(f"grade.{key}", f"holds {len(items):,} {what}; the first {MAX_ENTRIES} are read")
    return items[:MAX_ENTRIES]


def _read_criteria(grade: dict, fields: Fields) -> tuple[Criterion, ...]:
    out = []
    for index, item in enumerate(_entries(grade, fields, "judge_breakdown", "criteria")):
        where = f"grade.judge_breakdown[{index}]"
        if not isinstance(item, dict):
            fields.report(where, f"expected an object, got {describe(item)}")
            continue
        out.append(
            Criterion(
                criterion_id=fields.string(item, "criterion_id", f"{where}.criterion_id") or f"#{index + 1}",
                text=fields.string(item, "text", f"{where}.text", line=False, limit=2000) or "",
                weight=fields.number(item, "weight", f"{where}.weight", lo=0, hi=1e6),
                score=fields.number(item, "score", f"{where}.score", lo=0, hi=1),
                reason=fields.string(item, "reason", f"{where}.reason", line=False, limit=4000) or "",
                status=fields.string(item, "status", f"{where}.status", limit=64) or "unknown",
            )
        )
    return tuple(out)


def _read_checks(grade: dict, fields: Fields) -> tuple[Check, ...]:
    out = []
    for index, item in enumerate(_entries(grade, fields, "check_breakdown", "checks")):
        where = f"grade.check_breakdown[{index}]"
        if not isinstance(item, dict):
            fields.report(where, f"expected an object, got {describe(item)}")
            continue
        out.append(
            Check(
                check_id=fields.string(item, "id", f"{where}.id") or f"#{index + 1}",
                source=fields.string(item, "source", f"{where}.source") or "",
                op=fields.string(item, "op", f"{where}.op") or "",
                passed=fields.boolean(item, "passed", f"{where}.passed"),
                weight=fields.number(item, "weight", f"{where}.weight", lo=0, hi=1e6),
                error=fields.string(item, "error", f"{where}.error", line=False, limit=500),
                blocked_by=fields.strings(item, "blocked_by", f"{where}.blocked_by"),
            )
        )
    return tuple(out)


def read_conditions(cond: dict, fields: Fields) -> Conditions:
    def text(key: str) -> str | None:
        return fields.string(cond, key, f"conditions.{key}", limit=200)

    disclosed = cond.get("intel_disclosed")
    return Conditions(
        model=text("model"),
        judge_model=text("judge_model"),
        budget_seconds=fields.number(cond, "budget_seconds", "conditions.budget_seconds", lo=0, hi=1e9),
        agent_version=fields.integer_text(cond, "agent_version", "conditions.agent_version"),
        install_revision=fields.integer_text(cond, "install_revision", "conditions.install_revision"),
        mission_version=text("mission_version"),
        mission_base_version=text("mission_base_version"),
        platform=text("platform"),
        intel_disclosed=bool(disclosed) if isinstance(disclosed, (bool, int)) else None,
    )
