"""The data podium works on: what the reader found, and what the summary step counted.

Frozen dataclasses only, no I/O. Field names of the summary types are the keys
of ``api/results/summary.json`` (site.md). Also the one home of the shared
vocabulary: kinds and their labels, XORCISE's statuses and triggers, run ids.
"""

from __future__ import annotations

import dataclasses
import operator
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:  # model/progress.py builds on this module's Configuration
    from podium.model.progress import AgentProgress

from podium.model.cost import Cost, Frontier, Prices, Spent

RUN_ID = re.compile(r"^[0-9a-f]{32}$")  # a full run id
RUN_DIR = re.compile(r"^(?:[0-9a-f]{8}|[0-9a-f]{32})$")  # a run directory's name: 8 or 32 hex
GRADING_FAILED = "grading failed"  # how the server's crash-fallback grade's judge_detail starts
PARTIAL_TRIGGERS = (None, "timeout", "operator")
NOT_A_RUN_TRIGGERS = frozenset({"cancelled", "never_started"})

# Counting.md §2, in the order the rules are applied.
KIND_ORDER = (
    "not_a_run",
    "infra_failed",
    "grading",
    "grading_failed",
    "unknown",
    "stopped",
    "no_judge",
    "timed_out",
    "partial_judge",
    "graded",
)
# The kinds that are counted (``counts`` keys), in the order counting.md §3 lists them.
COUNTED_KINDS = (
    "graded",
    "partial_judge",
    "timed_out",
    "no_judge",
    "stopped",
    "infra_failed",
    "grading_failed",
    "grading",
    "unknown",
)
MEDIAN_KINDS = frozenset({"graded", "partial_judge", "timed_out"})
LEFT_OUT_KINDS = tuple(kind for kind in COUNTED_KINDS if kind not in MEDIAN_KINDS)  # counted, not in the median
SCORED_KINDS = MEDIAN_KINDS | {"no_judge", "stopped"}  # a run of these kinds has its scores read (counting.md §2)
# Progress (docs/rules/progress.md §1.2): the runs whose checks ran are its counted runs (the checks series),
# every other counted kind is left out of it and counted beside, by kind.
CHECKS_KINDS = MEDIAN_KINDS | {"no_judge"}
PROGRESS_LEFT_OUT_KINDS = tuple(kind for kind in COUNTED_KINDS if kind not in CHECKS_KINDS)
# site.md "Ranks on few runs": a rank on fewer runs in the median than this has no interval
# (counting.md §3) and is provisional.
PROVISIONAL_BELOW = 6
JUDGE_STATUSES = ("ok", "partial", "model-not-configured", "unavailable")
NO_JUDGE_STATUSES = frozenset({"model-not-configured", "unavailable"})
JUDGE_RAN_STATUSES = frozenset({"ok", "partial"})
UNATTRIBUTED = "(unattributed)"
KIND_LABELS = {
    "graded": "Graded",
    "partial_judge": "Partial judge",
    "timed_out": "Timed out",
    "no_judge": "No judge",
    "stopped": "Stopped",
    "infra_failed": "Infra failed",
    "grading_failed": "Grading failed",
    "grading": "Grading",
    "unknown": "Unknown",
    "not_a_run": "Not a run",
}


def provisional(in_median: int) -> bool:
    """site.md: an agent or model key with fewer than 6 runs in its median ranks provisionally
    (no median at all included: it is ranked last, on nothing)."""
    return in_median < PROVISIONAL_BELOW


# How the summary types publish (model/jsonable.py reads a field's metadata; site.md, cost.md §2):
INLINE = {"json_inline": True}  # its keys are its owner's (an entry's figures)
EXACT = {"json_exact": True}  # its floats unrounded (a scope's cost and frontier, docs/rules/cost.md §2)
NOT_PUBLISHED = {"json_omit": True}  # the pages' only


def unless_set(name: str) -> dict:
    """A field published only when its owner's ``name`` is set: not None, 0 or empty (a count of more names only
    when there are more, so a site of ordinary names carries no count of nothing; an agent's coverage)."""
    return {"json_omit": lambda owner: not getattr(owner, name)}


def iso_utc(when: datetime | None) -> str | None:
    """``2026-11-23T11:08:39Z`` (whole seconds, UTC; years padded to four digits)."""
    if when is None:
        return None
    return f"{when.year:04d}-{when:%m-%dT%H:%M:%S}Z"


@dataclass(frozen=True, slots=True, order=True)
class Problem:
    """One thing that could not be read: the file, the field (JSON path) and why."""

    path: str
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}: {self.field}" if self.field else self.path
        return f"{where}: {self.message}"


@dataclass(frozen=True, slots=True)
class Criterion:
    """One rubric criterion as the judge scored it (never its prompt)."""

    criterion_id: str
    text: str
    weight: float | None
    score: float | None
    reason: str
    status: str


@dataclass(frozen=True, slots=True)
class Check:
    """One deterministic check (never the submitted value)."""

    check_id: str
    source: str
    op: str
    passed: bool | None
    weight: float | None
    error: str | None
    blocked_by: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Grade:
    """``result.json``'s grade. A score is None when missing or unusable."""

    overall: float | None
    deterministic: float | None
    judge: float | None
    overall_upper: float | None
    judge_upper: float | None
    judge_coverage: float | None
    judge_status: str | None
    judge_detail: str | None
    scores_valid: bool
    criteria: tuple[Criterion, ...] = ()
    checks: tuple[Check, ...] = ()


@dataclass(frozen=True, slots=True)
class Conditions:
    model: str | None = None
    judge_model: str | None = None
    budget_seconds: float | None = None
    agent_version: str | None = None
    install_revision: str | None = None
    mission_version: str | None = None
    mission_base_version: str | None = None
    platform: str | None = None
    intel_disclosed: bool | None = None


def published_version(version: str | None) -> int | str | None:
    """An agent version as the data files publish it (docs/rules/progress.md §7.13): a whole number as a number,
    as XORCISE's conditions hold it (ASCII digits, at most 15 of them: a number every JSON reader holds exactly),
    anything else as the text read."""
    if version is not None and version.isascii() and version.isdigit() and len(version) <= 15:
        return int(version)
    return version


@dataclass(frozen=True, slots=True)
class Configuration:
    """What the agent was when it ran (docs/rules/progress.md §1): runs that share all four are one segment.

    ``model`` is the run's reported models (distinct, sorted, joined with `` + ``), else the model its
    conditions declare, else None. Published with an agent version that is a whole number as a number."""

    agent_version: str | None = field(metadata={"json_value": published_version})
    model: str | None
    judge_model: str | None
    budget_seconds: float | None

    def changed(self, other: Configuration) -> tuple[str, ...]:
        """The fields that differ from ``other``, in CONFIGURATION_FIELDS order."""
        return tuple(name for name in CONFIGURATION_FIELDS if getattr(self, name) != getattr(other, name))


CONFIGURATION_FIELDS = ("agent_version", "model", "judge_model", "budget_seconds")


@dataclass(frozen=True, slots=True)
class Run:
    """Everything read about one run directory, before it is classified.

    ``shape`` is what result.json held: ``graded``, ``not_graded``, ``grading``,
    ``other`` (readable but none of the three) or ``unreadable`` (missing or broken).
    """

    run_id: str
    directory: str
    shape: str
    result_trigger: str | None = None
    grade: Grade | None = None
    conditions: Conditions | None = None
    partial: bool | None = None
    partial_trigger: str | None = None
    models_reported: tuple[str, ...] = ()  # at most 8 (docs/rules/export.md §3.2)
    models_more: int = 0  # how many more the harness reported
    models_digest: str | None = None  # with models_more: tells the whole list apart (export.md §3.2)
    list_outcome: str | None = None
    list_trigger: str | None = None
    agent: str = UNATTRIBUTED
    agent_name: str = UNATTRIBUTED
    mission: str = UNATTRIBUTED
    version: str = UNATTRIBUTED
    started: datetime | None = None
    completed: datetime | None = None
    model_declared: str | None = None
    report_file: str | None = None
    report_digest: str | None = None  # SHA-256 of report_file's bytes (the render cache's key)
    result_digest: str | None = None  # SHA-256 of result.json's bytes (its page reads it again, and checks)
    # Never published, only used to redact (safety/redact.py), and dropped before pages are planned:
    secrets: tuple[str, ...] = ()  # every submitted check value of this run
    answers: tuple[str, ...] = ()  # the values that passed an `artifacts` check: the mission's answers
    source: int = 0  # which export it was read from (load_exports: their order); report_file is relative to it
    harness: str | None = None  # the report's Overview Harness, else runs.json's source_agent (cost.md §1)
    spent: Spent | None = None  # its report's Telemetry values as read (None: none reported)


@dataclass(frozen=True, slots=True)
class Export:
    """What the reader returns: the runs, every problem, and what was read."""

    runs: tuple[Run, ...]
    problems: tuple[Problem, ...]
    runs_read: int
    inputs_digest: str
    notes: tuple[str, ...] = ()


# ---------------------------------------------------------------- the summary


@dataclass(frozen=True, slots=True)
class Figures:
    """Every figure of counting.md §3 over one set of runs."""

    runs: int
    in_median: int
    median: float | None
    median_upper: float | None
    median_ci: tuple[float, float] | None
    avg_overall: float | None
    best_overall: float | None
    counts: dict[str, int]
    judge_degraded: int
    completion_rate: float | None
    partial_rate: float | None
    judge_models: tuple[str, ...]
    models_reported: tuple[str, ...]
    models_declared: tuple[str, ...]
    last_run: str | None
    # Each list of names above holds at most 10 (count/model_names.py); how many more there are (published
    # only when there are more):
    judge_models_more: int = field(default=0, metadata=unless_set("judge_models_more"))
    models_reported_more: int = field(default=0, metadata=unless_set("models_reported_more"))
    models_declared_more: int = field(default=0, metadata=unless_set("models_declared_more"))


@dataclass(frozen=True, slots=True)
class RunRecord:
    """One run as every page, file and command shows it (kind decided once), and nothing more.

    Compact on purpose: the summary holds one per run of the whole history, so it keeps
    the scores, names and times the ledger, charts and figures read, and no free text
    (judge detail, rubric, checks stay in the build's store; only the run's own page
    reads them, render/site.py). Repeated strings and tuples are shared between records.
    """

    run_id: str
    directory: str
    source: int  # which export it was read from (load_exports: their order)
    agent: str
    agent_name: str
    mission: str
    version: str
    kind: str
    end: str | None  # done / timeout / operator / deploy_failed / crashed / cancelled / …
    status: str  # the human label for kind + end
    overall: float | None  # None = "—" (no usable grade)
    overall_upper: float | None
    deterministic: float | None
    judge: float | None  # None = "—", or "No judge" when no_judge_ran
    judge_upper: float | None
    no_judge_ran: bool
    judge_status: str | None
    judge_model: str | None
    model_declared: str | None
    models_reported: tuple[str, ...]
    started: datetime | None
    completed: datetime | None
    when: datetime | None  # completed, else started
    report_digest: str | None  # SHA-256 of its report.md (None: no report to render)
    digest: str  # SHA-256 of its result.json: what its page reads again (grade details, own values)
    # Never published, only used to redact (safety/redact.py), and dropped from the public board:
    exposed: tuple[str, ...] = ()  # the run's own submitted values that occur in a name it would publish
    models_more: int = 0  # reported model names past models_reported (docs/rules/export.md §3.2)
    models_digest: str | None = None  # with models_more: what tells the whole list apart
    configuration: Configuration | None = None  # None: no readable conditions (progress.md §1)
    harness: str | None = None  # docs/rules/cost.md §1
    # What it spent (docs/rules/cost.md §1; None: nothing reported), its rules 1 and 2 applied by record_of,
    # rule 3 (a harness that never reports a field) by the summary step:
    spent: Spent | None = None
    # Decided by the summary step for the whole board:
    older: bool = False
    url: str = ""
    agent_url: str | None = None
    mission_url: str | None = None

    @property
    def current(self) -> bool:
        """On its mission's current version (decided by the summary step)."""
        return not self.older

    @property
    def judge_ran(self) -> bool:
        return self.judge_status in JUDGE_RAN_STATUSES

    @property
    def report_file(self) -> str | None:
        """report.md beside result.json (report.html is never rendered)."""
        return f"{self.directory}/report.md" if self.report_digest else None

    # What the run spent (docs/rules/cost.md §1): None is "not reported", never 0.

    @property
    def total_tokens(self) -> int | None:
        return self.spent.get("total_tokens") if self.spent is not None else None

    @property
    def model_calls(self) -> int | None:
        return self.spent.get("model_calls") if self.spent is not None else None

    @property
    def tool_calls(self) -> int | None:
        return self.spent.get("tool_calls") if self.spent is not None else None

    def spent_value(self, name: str) -> int | None:
        """One Telemetry value by its field name (model/cost.py SPENT_FIELDS)."""
        return self.spent.get(name) if self.spent is not None else None

    @property
    def duration_seconds(self) -> float | None:
        """Completed minus started, as counting.md §7 reads them; None without both (or when it ends
        before it starts)."""
        if self.started is None or self.completed is None or self.completed < self.started:
            return None
        return (self.completed - self.started).total_seconds()

    @property
    def budget_seconds(self) -> float | None:
        """``conditions.budget_seconds`` when it is a number > 0."""
        configuration = self.configuration
        budget = configuration.budget_seconds if configuration is not None else None
        return budget if budget is not None and budget > 0 else None

    @property
    def budget_share(self) -> float | None:
        duration, budget = self.duration_seconds, self.budget_seconds
        return duration / budget if duration is not None and budget is not None else None


@dataclass(frozen=True, slots=True)
class AgentMission:
    """One agent on one mission version."""

    mission: str
    version: str
    current: bool
    url: str
    figures: Figures = field(metadata=INLINE)
    provisional: bool = False  # fewer than PROVISIONAL_BELOW runs in this median: no interval, a small sample
    cost: Cost | None = field(default=None, metadata=EXACT)  # what the cell's runs cost (docs/rules/cost.md §2)


@dataclass(frozen=True, slots=True)
class Coverage:
    """Where an agent's headline median was earned (docs/rules/counting.md §10): the missions whose current
    version has runs of it in the median, of every current mission version with a counted run."""

    missions: tuple[str, ...]  # mission names, sorted
    of: int  # current mission versions on the board


_RANKED = {"json_omit": lambda agent: agent.rank is None}  # an AgentSummary's keys a ranked agent's entry has
_CURRENT = {"json_omit": lambda agent: agent.scope != "current"}  # and those of its current scope's entry


@dataclass(frozen=True, slots=True)
class AgentSummary:
    """One agent in one scope; its entry in summary.json publishes ``rank``, ``provisional``, ``rank_range`` and
    ``ahead_of_next`` when it is ranked, the reported models in the current scope, ``coverage`` when it has one."""

    agent: str
    name: str
    slug: str
    url: str
    scope: str  # "current" or "older"
    rank: int | None = field(metadata=_RANKED)
    figures: Figures = field(metadata=INLINE)
    missions: tuple[AgentMission, ...]
    # ranked on fewer than PROVISIONAL_BELOW runs in the median; None: unranked
    provisional: bool | None = field(default=None, metadata={**_RANKED, "json_value": bool})
    cost: Cost | None = field(default=None, metadata=EXACT)  # what its runs in this scope cost (docs/rules/cost.md §2)
    # the current scope's: where its median was earned (None for older)
    coverage: Coverage | None = field(default=None, metadata=unless_set("coverage"))
    # The current scope's only, over the agent's runs on current and older versions: the distinct models its harness
    # reported (each run's names as its model key joins them), sorted, at most MODELS_LISTED (those of the most
    # runs) and how many more; more than one in all is a model change (a declared name beside them is none).
    reported_models: tuple[str, ...] = field(default=(), metadata=_CURRENT)
    reported_models_more: int = field(default=0, metadata=_CURRENT)
    models_changed: bool = field(default=False, metadata=_CURRENT)
    # How clear the rank is (count/standing.py, counting.md §9); None when unranked or without a 95% interval:
    # (1 + agents clearly better, agents with a median - clearly worse)
    rank_range: tuple[int, int] | None = field(default=None, metadata=_RANKED)
    # its interval lies above the next ranked agent's (None: one has none)
    ahead_of_next: bool | None = field(default=None, metadata=_RANKED)


class NamedAgent(Protocol):
    """What names an agent on the command line: its id, slug and display name (AgentSummary, count/bundle.py
    AgentView)."""

    @property
    def agent(self) -> str: ...
    @property
    def slug(self) -> str: ...
    @property
    def name(self) -> str: ...


_Named = TypeVar("_Named", bound=NamedAgent)


def agents_named(wanted: str, agents: Iterable[_Named]) -> list[_Named]:
    """The agents ``wanted`` names: those whose id is it, else whose slug, else whose name, else whose name
    case-folded (the first of these that any agent matches; more than one found is ambiguous: the caller says
    so). Empty when none does."""
    agents = list(agents)
    folded = wanted.casefold()
    for matches in (
        lambda a: a.agent == wanted,
        lambda a: a.slug == wanted,
        lambda a: a.name == wanted,
        lambda a: a.name.casefold() == folded,
    ):
        found = [a for a in agents if matches(a)]
        if found:
            return found
    return []


@dataclass(frozen=True, slots=True)
class MissionAgent:
    agent: str
    name: str
    url: str
    median: float | None
    in_median: int
    runs: int
    provisional: bool = False  # fewer than PROVISIONAL_BELOW runs in this median: no interval, a small sample


@dataclass(frozen=True, slots=True)
class MissionVersionSummary:
    mission: str
    version: str
    current: bool
    url: str
    figures: Figures = field(metadata=INLINE)
    judge_vs_checks: float | None
    agents: tuple[MissionAgent, ...]
    # runs with a score (the agreement plot's points and no-judge strip); pages only, not in JSON
    scored: int = field(default=0, metadata=NOT_PUBLISHED)
    cost: Cost | None = field(default=None, metadata=EXACT)  # what its runs cost, every agent's (docs/rules/cost.md §2)
    # its agents' frontier, on a current version only (docs/rules/cost.md §3)
    frontier: Frontier | None = field(default=None, metadata={**EXACT, **unless_set("frontier")})


@dataclass(frozen=True, slots=True)
class Totals:
    runs: int  # counted: every run but the not-a-run ones
    not_a_run: int
    counts: dict[str, int]
    last_run: str | None = None  # the newest counted run's time (counting.md §3 last_run over every run): "data as of"

    @property
    def listed(self) -> int:
        """Every run the board lists (``Leaderboard.runs``): the counted ones and the not-a-run ones."""
        return self.runs + self.not_a_run


@dataclass(frozen=True, slots=True)
class Outline:
    """What a build says about the export it read (the public board's): kept by the cache, so a build that
    finds nothing changed says it again without reading the export."""

    totals: Totals
    problems: tuple[Problem, ...]
    notes: tuple[str, ...]
    summary: str = ""  # the written site: "1.2 MB in 176 files (…)"
    details: tuple[str, ...] = ()  # its sections and largest files, a line each (budget.Meter.details)


@dataclass(frozen=True, slots=True)
class RunGroups:
    """The counted runs grouped once, as indices into ``Leaderboard.runs`` (newest first)."""

    by_agent: dict[str, tuple[int, ...]] = field(default_factory=dict)
    by_version: dict[tuple[str, str], tuple[int, ...]] = field(default_factory=dict)
    by_agent_version: dict[tuple[str, str, str], tuple[int, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """The one summary every page, file and command reads."""

    totals: Totals
    agents: tuple[AgentSummary, ...]
    agents_older: tuple[AgentSummary, ...]
    missions: tuple[MissionVersionSummary, ...]
    runs: tuple[RunRecord, ...]  # newest first
    problems: tuple[Problem, ...]
    runs_read: int
    inputs_digest: str
    notes: tuple[str, ...] = field(default=())
    groups: RunGroups = field(default_factory=RunGroups)
    pairs: tuple[Pair, ...] = field(default=())  # compare.md §1, by a's rank then b's
    by_model: tuple[ModelSummary, ...] = field(default=())  # compare.md §2, ranked
    ledger: Ledger | None = None  # which ledger page lists each run, which data part holds it (count/ledger.py)
    # agent id -> which way it is moving (docs/rules/progress.md), every agent
    progress: dict[str, AgentProgress] = field(default_factory=dict)
    frontier: Frontier = field(default_factory=Frontier)  # the agents overall (docs/rules/cost.md §3)
    prices: Prices | None = None  # podium.yaml's price table: dollars only with one (docs/rules/cost.md §5)


# ------------------------------------------------------- comparisons (compare.md)


@dataclass(frozen=True, slots=True)
class PairVersion:
    """Two agents on one shared current mission version (compare.md §1)."""

    mission: str
    version: str
    url: str | None  # the mission version's page
    n_a: int
    n_b: int
    median_a: float
    median_b: float
    median_ci_a: tuple[float, float] | None
    median_ci_b: tuple[float, float] | None
    median_diff: float  # median_a - median_b
    median_deterministic_a: float | None  # the checks half, over the same population
    median_deterministic_b: float | None
    median_judge_a: float | None  # the judge half (its lower bound under a partial judge)
    median_judge_b: float | None
    judge_models_a: tuple[str, ...]
    judge_models_b: tuple[str, ...]
    superiority: float  # P(a run of A beats a run of B), ties half
    verdict: str  # a_ahead / b_ahead / overlap / too_few
    # judge models past the MODELS_LISTED judge_models_a lists (published only when there are)
    judge_models_a_more: int = field(default=0, metadata=unless_set("judge_models_a_more"))
    judge_models_b_more: int = field(default=0, metadata=unless_set("judge_models_b_more"))


@dataclass(frozen=True, slots=True)
class PairFlags:
    """The four traps (compare.md §1); a flag is raised when its list is non-empty or it is True."""

    judge_models_differ: tuple[str, ...]  # "<mission> <version>", sorted
    model_changed: tuple[str, ...]  # agent ids, sorted
    no_judge_gap: bool
    timeout_gap: bool
    # beyond compare.md's four (docs/rules/compare.md §1.5): agents whose compared runs span configurations
    configuration_changed: tuple[str, ...] = ()  # agent ids, sorted


@dataclass(frozen=True, slots=True)
class Pair:
    """Agent ``a`` (ranked higher) against agent ``b`` over their shared current mission versions."""

    a: str
    b: str
    a_name: str
    b_name: str
    url: str | None  # the pair's page (pairs among the top ranked agents only)
    shared: int
    superiority: float
    verdicts: dict[str, int]
    median_diff: float
    flags: PairFlags
    models_a: tuple[str, ...]  # distinct models of A's median population on the shared versions (compare.run_model)
    models_b: tuple[str, ...]
    no_judge_share_a: float  # no_judge / (median population + no_judge), shared versions
    no_judge_share_b: float
    timeout_share_a: float  # timed_out / median population, shared versions
    timeout_share_b: float
    # Every shared version's figures for a pair with a page (url), else () and compare.full_pair makes them:
    # a board holds agents² pairs, and only the pages and their data files show versions (issue 29): a pair's
    # entry leaves them out, its file and ``podium compare --json`` list them (render/compare_data.py).
    versions: tuple[PairVersion, ...] = field(metadata=NOT_PUBLISHED)
    # distinct models past the MODELS_LISTED models_a lists (count/model_names.py; published only when there are)
    models_a_more: int = field(default=0, metadata=unless_set("models_a_more"))
    models_b_more: int = field(default=0, metadata=unless_set("models_b_more"))
    # docs/rules/compare.md §1.5: whose run beats the other's more often than not over the shared versions
    # ("a", "b", or "even" at exactly 50%): "b" is the higher ranked agent losing head to head.
    head_to_head: str = "even"
    # the configuration fields (agent_version, judge_model, budget_seconds) that differ among each side's
    # runs in the median on the shared versions (the model is model_changed's)
    configuration_fields_a: tuple[str, ...] = ()
    configuration_fields_b: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ModelSummary:
    """The runs on current mission versions whose harness reported one model key (compare.md §2)."""

    model: str
    slug: str
    url: str
    rank: int
    figures: Figures = field(metadata=INLINE)
    agents: tuple[str, ...]  # sorted names of the agents whose runs it holds
    members: tuple[MissionAgent, ...]  # each of those agents' figures under this key, ranked
    # its runs, as indices into Leaderboard.runs (newest first); the pages', not published
    runs: tuple[int, ...] = field(default=(), metadata=NOT_PUBLISHED)
    provisional: bool = False  # ranked on fewer than PROVISIONAL_BELOW runs in the median
    cost: Cost | None = field(default=None, metadata=EXACT)  # what its runs cost (docs/rules/cost.md §2)


def _quick_to_pickle(cls: type) -> None:
    """State as a tuple of the fields, read and set by precomputed names.

    A slotted dataclass's own ``__getstate__``/``__setstate__`` look its fields up on
    every call; the build pickles run records for cache keys, the parse cache and the
    worker processes tens of thousands of times, where that lookup was most of the cost."""
    names = tuple(f.name for f in dataclasses.fields(cls))
    get = operator.attrgetter(*names)
    one = len(names) == 1

    def getstate(self):
        return (get(self),) if one else get(self)

    def setstate(self, state):
        for name, value in zip(names, state, strict=True):
            object.__setattr__(self, name, value)

    cls.__getstate__, cls.__setstate__ = getstate, setstate


# The ledger's layout (made by count/ledger.py).


@dataclass(frozen=True, slots=True)
class LedgerPage:
    bucket: str  # "2026-09" or "undated"
    number: int  # 1 = the month's oldest runs
    runs: tuple[int, ...]  # indices into Leaderboard.runs, newest first
    path: str


@dataclass(frozen=True, slots=True)
class LedgerMonth:
    bucket: str
    label: str  # "September 2026", "Undated"
    runs: int
    pages: int
    newest: str  # its newest page's path
    oldest: str


@dataclass(frozen=True, slots=True)
class LedgerPart:
    """One part of the ledger; runs.json lists it (its number as ``part``, how many runs, its paths' keys)."""

    agent: str
    agent_name: str
    # its agent's page slug (unique): what the ledger page's view filters by
    agent_slug: str = field(metadata=NOT_PUBLISHED)
    mission: str
    number: int = field(metadata={"json_name": "part"})  # 1 = the group's oldest runs
    # indices into Leaderboard.runs, newest first (runs.json: how many)
    runs: tuple[int, ...] = field(metadata={"json_value": len})
    kinds: dict[str, int]  # runs of each kind in it (a kind filter skips parts without one)
    first: str | None  # its oldest and newest dates
    last: str | None
    paths: dict[str, str] = field(metadata=INLINE)  # "jsonl_gz", "csv", "script" -> path


@dataclass(frozen=True, slots=True)
class Ledger:
    pages: tuple[LedgerPage, ...]  # newest month first, each month's newest page first
    months: tuple[LedgerMonth, ...]  # newest first (undated last)
    parts: tuple[LedgerPart, ...]  # by agent name, mission, number
    page_of: tuple[int, ...]  # Leaderboard.runs index -> index into pages

    def anchor(self, index: int, run_id: str) -> str:
        """Where run number ``index`` is listed: its row on its ledger page."""
        return f"{self.pages[self.page_of[index]].path}#run-{run_id}"


for _cls in [v for v in list(globals().values()) if dataclasses.is_dataclass(v) and isinstance(v, type)]:
    if "__slots__" in vars(_cls):
        _quick_to_pickle(_cls)
del _cls
