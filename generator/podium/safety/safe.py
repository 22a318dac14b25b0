"""Values a template may show: every text written by an agent or a judge already redacted.

Security lives here, in the render stage: templates never redact, never read a
file and get no callable that could (themes/README.md lists each page's context).

- :func:`public_board` is the Leaderboard every planned page and data file reads.
  Each run keeps what the ledger and the charts need and loses what only its own
  page shows (judge_detail, rubric, checks) and its secrets (submitted values,
  answers); model names (harness-reported, so agent-controlled) are redacted with
  the run's own values and its mission's answers, and in the figures with every
  mission's answers. Comparisons are made public here too (:func:`_public_pair`):
  pair pages, compare.json and ``podium compare`` all read the pairs of this board,
  so a model name a run page redacts is redacted on each of them.
- :func:`run_view` is one run for its own page: judge_detail, rubric texts and
  reasons, check errors and model names redacted with that run's values, its
  mission's answers, the configured literals and every secret shape.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import replace

from podium import routes
from podium.count import model_names
from podium.model import (
    JUDGE_STATUSES,
    Conditions,
    Configuration,
    Figures,
    Grade,
    Leaderboard,
    ModelSummary,
    Pair,
    Problem,
    Run,
    RunRecord,
)
from podium.safety.redact import Redaction

KNOWN_STATUSES = frozenset(JUDGE_STATUSES) | {"grading-failed", "skipped"}


def public_board(board: Leaderboard, redaction: Redaction) -> Leaderboard:
    return public_board_and_pairs(board, redaction)[0]


def public_board_and_pairs(board: Leaderboard, redaction: Redaction) -> tuple[Leaderboard, Callable[[Pair], Pair]]:
    """The public board, and how one of its pairs made in full later (compare.full_pair, for ``podium
    compare``) is made public: with the names every run of the board needs redacted, as the board's own."""
    names: dict[str, str] = {}  # raw name -> as published (the most redacted form any run needs)
    seen: dict[tuple[str, str], str] = {}  # (mission, name) -> redacted: names repeat on every run of a history
    runs = tuple(_public_record(r, redaction, names, seen) for r in board.runs)
    by_directory = {r.directory: r for r in board.runs}

    def judge_model(name: str) -> str:
        return redaction.anywhere(names.get(name) or name)

    # The model lists are made again here, not in the count step, on purpose: counting reads the names as
    # recorded (two judge models that redact alike are still two), and only the render stage knows how a
    # name is published, so two names that redact alike become one entry only here, once, for the whole
    # public board; a model key that redaction changes gets its slug and page here for the same reason.
    # docs/rules/export.md §1 says what is never published.
    def published(values: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted({redaction.anywhere(names.get(v, v)) for v in values}))

    def figures(fig: Figures) -> Figures:
        return replace(
            fig,
            models_reported=published(fig.models_reported),
            models_declared=published(fig.models_declared),
            judge_models=published(fig.judge_models),
        )

    texts = _ModelTexts(board.runs, lambda name: names.get(name, name), redaction.anywhere)
    model_key, run_model, configuration_model = texts.key, texts.run_model, texts.configuration_model

    configurations: dict[Configuration, Configuration] = {}

    def configuration(conf: Configuration) -> Configuration:  # its model names as the runs publish them
        if conf not in configurations:
            shown = replace(
                conf,
                model=configuration_model(conf.model) if conf.model else conf.model,
                judge_model=judge_model(conf.judge_model) if conf.judge_model else conf.judge_model,
            )
            configurations[conf] = conf if shown == conf else shown
        return configurations[conf]

    runs = tuple(
        r
        if r.configuration is None or (c := configuration(r.configuration)) is r.configuration
        else replace(r, configuration=c)
        for r in runs
    )

    def agent(summary):
        return replace(
            summary,
            figures=figures(summary.figures),
            missions=tuple(replace(m, figures=figures(m.figures)) for m in summary.missions),
            reported_models=tuple(sorted({model_key(m) for m in summary.reported_models})),
        )

    def public_pair(pair: Pair) -> Pair:
        return _public_pair(pair, run_model, judge_model)

    return replace(
        board,
        runs=runs,
        agents=tuple(agent(a) for a in board.agents),
        agents_older=tuple(agent(a) for a in board.agents_older),
        missions=tuple(replace(m, figures=figures(m.figures)) for m in board.missions),
        problems=tuple(_public_problem(p, redaction, by_directory) for p in board.problems),
        notes=tuple(redaction.anywhere(note) for note in board.notes),
        by_model=_public_models(board, model_key, figures),
        pairs=tuple(public_pair(p) for p in board.pairs),
        progress={agent: _configurations_replaced(value, configuration) for agent, value in board.progress.items()},
    ), public_pair


class _ModelTexts:
    """The published spelling of each text a run's model names make (count/model_names.py: a model key, a
    run's model for ``model_changed``, a configuration's model), made from the published names of a run that
    makes it: each distinct text once, in time linear in its names (issue 34: trying every redacted name on
    every text with str.replace was quadratic). The text made is then redacted whole with every mission's
    answers (``anywhere``), as two names joined could spell one."""

    def __init__(self, runs: tuple[RunRecord, ...], name: Callable[[str], str], anywhere: Callable[[str], str]):
        self._runs = runs
        self._name = name
        self._anywhere = anywhere
        self._made: dict[str, dict[str, str]] | None = None

    def _texts(self) -> dict[str, dict[str, str]]:
        """kind -> raw text -> published text, for every text of every run (made on first use: by then every
        name's published form is known)."""
        if self._made is None:
            made: dict[str, dict[str, str]] = {"key": {}, "run_model": {}, "configuration_model": {}}
            keys, models, confs = made["key"], made["run_model"], made["configuration_model"]
            done: set[tuple] = set()  # the names of a run: a history repeats a few lists on every run
            name, anywhere = self._name, self._anywhere
            for r in self._runs:
                conf = r.configuration
                names = (r.models_reported, r.models_more, r.models_digest, r.model_declared, conf and conf.model)
                if names in done:
                    continue
                done.add(names)
                key = model_names.model_key(r)
                if key not in keys:
                    keys[key] = anywhere(self._whole(key) or model_names.model_key(r, name))
                model = model_names.run_model(r)
                if model is not None and model not in models:
                    models[model] = anywhere(self._whole(model) or model_names.run_model(r, name) or "")
                if conf is not None and conf.model and conf.model not in confs:
                    # with no reported names, the configuration's model is the one its conditions declare
                    reported = (r.models_reported, r.models_more, r.models_digest)
                    shown = model_names.configuration_model(*reported, None, name) if any(r.models_reported) else None
                    confs[conf.model] = anywhere(self._whole(conf.model) or shown or name(conf.model))
            self._made = made
        return self._made

    def _whole(self, text: str) -> str | None:
        """``text`` as published when it is itself a name some run redacted (one name holding `` + `` spells
        the same text as two names joined): the most redacted reading wins."""
        shown = self._name(text)
        return shown if shown != text else None

    def _published(self, kind: str, text: str) -> str:
        made = self._texts()[kind]
        # A text no run makes (none is expected) is still redacted as a whole, its names as published.
        return made[text] if text in made else self._anywhere(self._name(text))

    def key(self, text: str) -> str:
        return self._published("key", text)

    def run_model(self, text: str) -> str:
        return self._published("run_model", text)

    def configuration_model(self, text: str) -> str:
        return self._published("configuration_model", text)


def _public_models(board: Leaderboard, model_key: Callable[[str], str], figures) -> tuple[ModelSummary, ...]:
    """The by-model summaries as published: each key redacted, and every key's slug chosen in one pass
    (routes.unique_slugs), so no two pages share a path (issue 34: a redacted key's own slug was not checked
    against the others'). A key that redaction changes is named in that pass by its oldest run, not by its
    text (whose digest would let a guess at a redacted answer be checked), and always carries a digest of
    that name, so another key redacting alike never moves its page (docs/rules/compare.md §2.2)."""
    shown: dict[str, str] = {}  # the name a key goes by in the pass -> its published text
    tagged: set[str] = set()
    ident: dict[str, str] = {}  # raw key -> its name in the pass
    for summary in board.by_model:
        text = model_key(summary.model)
        name = summary.model
        if text != summary.model:
            oldest = board.runs[summary.runs[-1]] if summary.runs else None
            name = f"key of run {oldest.source}/{oldest.directory}" if oldest else f"key {summary.rank}"
            tagged.add(name)
        ident[summary.model] = name
        shown[name] = text
    slugs = routes.unique_slugs(shown, tagged=tagged)
    out = []
    for summary in board.by_model:
        name = ident[summary.model]
        slug = slugs[name]
        out.append(
            replace(
                summary, model=shown[name], slug=slug, url=routes.model_path(slug), figures=figures(summary.figures)
            )
        )
    return tuple(out)


# The text fields of a pair and of its versions that are not names a harness or a judge wrote: ids, slugs,
# paths, mission names and versions (identities, published as they are everywhere), verdicts. Every other
# text field is a model name and goes through _public_pair (tests/render/test_compare_secrets.py holds this list
# against the dataclasses, so a new field must be placed on one side).
PAIR_IDENTITY_FIELDS = frozenset({"a", "b", "a_name", "b_name", "url", "verdicts"})
PAIR_VERSION_IDENTITY_FIELDS = frozenset({"mission", "version", "url", "verdict"})


def _public_pair(pair: Pair, model_key, judge_model) -> Pair:
    """A pair as the public may see it: its model keys (``models_a``/``_b``: run_model names, so model keys'
    rules) and each version's judge models redacted as the runs' own are; the flags are computed on the
    names as recorded (two judge models that redact alike still differ) and name versions and agent ids only.
    The lists keep their length, so a redacted pair still shows how many models a side ran."""
    versions = tuple(
        _changed(
            v,
            judge_models_a=tuple(judge_model(m) for m in v.judge_models_a),
            judge_models_b=tuple(judge_model(m) for m in v.judge_models_b),
        )
        for v in pair.versions
    )
    return _changed(
        pair,
        models_a=tuple(model_key(k) for k in pair.models_a),
        models_b=tuple(model_key(k) for k in pair.models_b),
        versions=versions,
    )


def _configurations_replaced(value, public):
    """``value`` (a progress result: frozen dataclasses, tuples and dicts) with every Configuration in it
    replaced by ``public(configuration)``; the same object where nothing changes."""
    if isinstance(value, Configuration):
        return public(value)
    if isinstance(value, tuple):
        items = tuple(_configurations_replaced(v, public) for v in value)
        return value if all(a is b for a, b in zip(items, value)) else items
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changed = {}
        for f in dataclasses.fields(value):
            old = getattr(value, f.name)
            new = _configurations_replaced(old, public)
            if new is not old:
                changed[f.name] = new
        return replace(value, **changed) if changed else value
    return value


def _public_problem(problem: Problem, redaction: Redaction, by_directory: dict[str, RunRecord]) -> Problem:
    """A problem's message may quote what it found: redacted with its run's own values when it names a run
    directory, and with every mission's answers and the configured values in any case."""
    segments = problem.path.split("/")[:2]  # "<dir>/…", or "<export>/<dir>/…" with several exports
    record = next((by_directory[s] for s in segments if s in by_directory), None)
    message = redaction.for_run(record)(problem.message) if record is not None else problem.message
    return Problem(problem.path, problem.field, redaction.anywhere(message))


def _public_record(
    record: RunRecord, redaction: Redaction, names: dict[str, str], seen: dict[tuple[str, str], str]
) -> RunRecord:
    """The record with every name it publishes redacted and no own values; the same object when
    nothing changes (most runs: a history's records are not copied)."""
    if record.exposed:
        redact = redaction.for_run(record)
    else:  # its mission's redactor alone: the same name on another run of the mission reads the same
        mission = redaction.mission(record.mission)

        def redact(text: str) -> str:
            key = (record.mission, text)
            if key not in seen:
                seen[key] = mission(text)
            return seen[key]

    reported = tuple(redact(m) for m in record.models_reported)
    declared = redact(record.model_declared) if record.model_declared else record.model_declared
    judge_model = redact(record.judge_model) if record.judge_model else record.judge_model
    harness = redact(record.harness) if record.harness else record.harness  # a report's text (cost.md §1)
    status = _status(record.judge_status, redact)
    raws = (*record.models_reported, record.model_declared, record.judge_model)
    shown = (*reported, declared, judge_model)
    changed = harness != record.harness
    for raw, public in zip(raws, shown):
        if raw and public != raw:
            names[raw] = public
            changed = True
    if not changed and status == record.judge_status and not record.exposed:
        return record
    return replace(
        record,
        models_reported=reported,
        model_declared=declared,
        judge_model=judge_model,
        judge_status=status,
        harness=harness,
        exposed=(),
    )


def record_texts(record: RunRecord) -> list[str]:
    """The texts _public_record redacts: what a run's own page shows of its public record through the redactor."""
    texts = [*record.models_reported, record.model_declared, record.judge_model, record.harness]
    if record.judge_status not in KNOWN_STATUSES:
        texts.append(record.judge_status)
    return [text for text in texts if text]


def _status(status: str | None, redact) -> str | None:
    """A judge status is published as it is when XORCISE writes it; anything else is free text."""
    return status if status is None or status in KNOWN_STATUSES else redact(status)


def _redacted_conditions(conditions: Conditions | None, redact) -> Conditions | None:
    """Every free-text field of the run's conditions through the run's redactor."""
    if conditions is None:
        return None
    return _changed(
        conditions,
        **{
            name: redact(value)
            for name in _CONDITION_TEXTS
            if isinstance(value := getattr(conditions, name), str) and value
        },
    )


_CONDITION_TEXTS = ("model", "judge_model", "agent_version", "mission_version", "mission_base_version", "platform")


def run_view(run: Run, redaction: Redaction) -> Run:
    """A whole run for its own page (read back from the export): every agent- or judge-written text
    redacted with its own values, its mission's answers and the configured ones; no secrets."""
    redact = _batched(redaction.for_run(run), page_texts(run))
    grade = run.grade
    if grade is not None:
        grade = _redacted_grade(grade, redact)
    return replace(
        run,
        grade=grade,
        conditions=_redacted_conditions(run.conditions, redact),
        models_reported=tuple(redact(m) for m in run.models_reported),
        model_declared=redact(run.model_declared) if run.model_declared else run.model_declared,
        secrets=(),
        answers=(),
    )


def page_texts(run: Run) -> list:
    """The texts run_view redacts (any left out are redacted one by one: _batched)."""
    texts = [*run.models_reported, run.model_declared]
    if run.conditions is not None:
        texts += [getattr(run.conditions, name) for name in _CONDITION_TEXTS]
    grade = run.grade
    if grade is not None:
        texts += [grade.judge_detail, grade.judge_status]
        for c in grade.criteria:
            texts += [c.criterion_id, c.text, c.reason, c.status]
        for c in grade.checks:
            texts += [c.check_id, c.source, c.op, c.error, *c.blocked_by]
    return texts


def _batched(redact, texts: list):
    """``redact``, with ``texts`` redacted beforehand in one call (a page's texts cost one
    look for each secret shape, safety/redact.py)."""
    many = getattr(redact, "many", None)
    unique = list(dict.fromkeys(t for t in texts if isinstance(t, str) and t))
    if many is None or not unique:
        return redact
    done = dict(zip(unique, many(unique)))
    return lambda text: done[text] if isinstance(text, str) and text in done else redact(text)


def _redacted_grade(grade: Grade, redact) -> Grade:
    return _changed(
        grade,
        judge_detail=redact(grade.judge_detail) if grade.judge_detail else grade.judge_detail,
        judge_status=_status(grade.judge_status, redact),
        criteria=tuple(
            _changed(
                c,
                criterion_id=redact(c.criterion_id),
                text=redact(c.text),
                reason=redact(c.reason),
                status=redact(c.status),
            )
            for c in grade.criteria
        ),
        checks=tuple(
            _changed(
                c,
                check_id=redact(c.check_id),
                source=redact(c.source),
                op=redact(c.op),
                error=redact(c.error) if c.error else c.error,
                blocked_by=tuple(redact(b) for b in c.blocked_by),
            )
            for c in grade.checks
        ),
    )


def _changed(obj, **values):
    """``replace(obj, **values)``, or ``obj`` itself when they are its values already (most texts
    need no redaction, and dataclasses.replace costs far more than comparing)."""
    if all(getattr(obj, name) == value for name, value in values.items()):
        return obj
    return replace(obj, **values)
