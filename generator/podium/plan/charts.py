"""Chart geometry, computed at build time: the run strip and the grader-agreement plot.

Pure functions from RunRecords to shapes with coordinates in SVG user units;
the SVG templates only draw them. A strip draws facts, not kinds (counting.md
§2 notes): a timed-out run gets its red cap whatever its kind.

Bounded (site.md "Bounded"): every chart draws a bounded number of runs, and its
marks cost few elements. A strip column is a link holding its tooltip and its hit
area; the marks of all columns are drawn as one path per mark class
(:class:`Mark`), so a column costs three elements whatever it shows. A card's
agreement plot draws its points as one path per agent and mark (:class:`Layer`),
not one link each; the mission page's plot keeps a link per point.
"""

from __future__ import annotations

from dataclasses import dataclass

from podium.model import KIND_LABELS, RunRecord
from podium.words.figures_text import pct, pct_range, svg_number

# Run strip
COLUMN = 10.0  # slot width incl. gap
BAR = 7.0
HEIGHT = 80.0  # 100% overall
TOP = 4.0  # room for the timeout cap
CAP = 3.0
CARD_SLOTS = 48  # newest runs shown on an agent card
PAGE_SLOTS = 100  # newest runs shown on an agent page (and a model page)
MARK_ORDER = (
    "checks",
    "checks stopped",
    "judge",
    "judge stopped",
    "nojudge",
    "hatch",
    "cap",
    "slot infra",
    "slot pending",
)  # drawn in this order, as each column drew them

# Agreement plot
PLOT = 200.0  # the square, 0..100% on both axes
LEFT, TOP_PAD, RIGHT = 34.0, 12.0, 10.0
STRIP_GAP = 34.0  # from the plot's bottom edge to the no-judge strip
PLOT_POINTS = 200  # newest runs drawn on the mission page's plot, a link each (as many as a card draws)
DOT = 3.0  # a point's radius


@dataclass(frozen=True)
class Shape:
    cls: str
    x: float
    y: float
    w: float
    h: float


@dataclass(frozen=True)
class Column:
    """One run: a link to its page, with its tooltip and its hit area (``hit``); ``shapes`` are
    its marks, drawn by the strip's :class:`Mark` paths."""

    url: str
    title: str
    x: float
    hit: Shape
    shapes: tuple[Shape, ...]


@dataclass(frozen=True)
class Mark:
    """Every rectangle of one mark class (``cls``: "checks", "judge stopped", "cap", …) as one SVG path."""

    cls: str
    d: str


@dataclass(frozen=True)
class Strip:
    width: float
    height: float
    columns: tuple[Column, ...]
    marks: tuple[Mark, ...]
    median_y: float | None
    shown: int
    total: int
    desc: str


def run_title(record: RunRecord) -> str:
    """Tooltip text for a run: score, kind, mission version, date."""
    score = pct_range(record.overall, record.overall_upper) if record.overall is not None else "no score"
    if record.no_judge_ran:
        score += " (no judge)"
    when = record.when.strftime("%Y-%m-%d") if record.when else "date unknown"
    return f"{score} · {KIND_LABELS[record.kind]} · {record.status} · {record.mission} {record.version} · {when}"


def strip(records: list[RunRecord], median: float | None, slots: int = CARD_SLOTS) -> Strip:
    """Columns oldest -> newest for the newest ``slots`` of ``records`` (given newest first)."""
    shown = list(reversed(records[:slots]))
    width = max(len(shown), CARD_SLOTS) * COLUMN
    columns = tuple(_column(r, i * COLUMN) for i, r in enumerate(shown))
    base = TOP + HEIGHT
    desc = f"{len(shown)} of {len(records)} runs, oldest to newest; dashed line: median {pct(median)}"
    return Strip(
        width,
        base + 1,
        columns,
        _marks(columns),
        None if median is None else base - median * HEIGHT,
        len(shown),
        len(records),
        desc,
    )


def _marks(columns: tuple[Column, ...]) -> tuple[Mark, ...]:
    """One path per mark class, a closed rectangle per column that has the mark."""
    paths: dict[str, list[str]] = {cls: [] for cls in MARK_ORDER}
    for column in columns:
        for sh in column.shapes:
            paths[sh.cls].append(
                f"M{svg_number(sh.x)} {svg_number(sh.y)}h{svg_number(sh.w)}v{svg_number(sh.h)}h{svg_number(-sh.w)}z"
            )
    return tuple(Mark(cls, "".join(d)) for cls, d in paths.items() if d)


def _column(record: RunRecord, x: float) -> Column:
    base = TOP + HEIGHT
    hit = Shape("hit", x, 0, COLUMN, base + 1)
    shapes: list[Shape] = []
    bx = x + (COLUMN - BAR) / 2
    if record.overall is None:
        slot = "slot infra" if record.kind == "infra_failed" else "slot pending"  # strips draw counted runs only
        shapes.append(Shape(slot, bx, TOP, BAR, HEIGHT))
        return Column(record.url, run_title(record), x, hit, tuple(shapes))
    tone = " stopped" if record.kind == "stopped" else ""
    checks = 0.5 * record.deterministic * HEIGHT
    top = base - checks
    shapes.append(Shape("checks" + tone, bx, top, BAR, checks))
    if record.no_judge_ran:
        shapes.append(Shape("nojudge", bx, top - 0.5 * HEIGHT, BAR, 0.5 * HEIGHT))
    else:
        judge = 0.5 * record.judge * HEIGHT
        shapes.append(Shape("judge" + tone, bx, top - judge, BAR, judge))
        top -= judge
        if record.judge_upper is not None and record.judge_upper > record.judge:
            extra = 0.5 * (record.judge_upper - record.judge) * HEIGHT
            shapes.append(Shape("hatch", bx, top - extra, BAR, extra))
            top -= extra
    if record.end == "timeout":
        shapes.append(Shape("cap", bx, top - CAP, BAR, CAP))
    return Column(record.url, run_title(record), x, hit, tuple(shapes))


@dataclass(frozen=True)
class Point:
    url: str
    title: str
    agent: str  # the agent's slug (chips highlight by it)
    tone: int  # colour index of the agent
    x: float
    y: float
    y_upper: float | None = None  # partial judge: a bar from y up to y_upper


@dataclass(frozen=True)
class Layer:
    """One agent's points of one mark as one SVG path (a card's plot draws no link per point).

    ``cls``: "bars" (partial judges, from the lower to the upper judge value), "dots" (a
    circle per run whose judge ran) or "nj" (a square per no-judge run on the strip)."""

    agent: str  # the agent's slug (chips highlight by it)
    tone: int
    cls: str
    d: str


@dataclass(frozen=True)
class Plot:
    width: float
    height: float
    left: float  # the square's left edge
    top: float  # the square's top edge
    size: float  # the square's side
    strip_y: float
    points: tuple[Point, ...]  # linked plots: one link per run
    strip: tuple[Point, ...]
    layers: tuple[Layer, ...]  # unlinked plots (cards): the same marks, a path per agent and mark
    diagonals: tuple[tuple[str, float, float, float, float, float, float], ...]  # label, x1, y1, x2, y2, lx, ly
    ticks: tuple[tuple[str, float], ...]  # label, offset from the square's origin
    shown: int
    total: int
    desc: str


def _xy(det: float, judge: float) -> tuple[float, float]:
    return LEFT + det * PLOT, TOP_PAD + (1 - judge) * PLOT


def agreement(
    records: list[RunRecord],
    slugs: dict[str, str],
    tones: dict[str, int],
    limit: int = PLOT_POINTS,
    total: int | None = None,
    linked: bool = True,
) -> Plot:
    """Points (checks across, judge up) for runs whose judge ran; no-judge runs on a strip below.

    ``records`` newest first; the newest ``limit`` with a score are drawn. ``total``: how many
    runs have a score (the summary's ``MissionVersionSummary.scored``; default: those of
    ``records``). ``linked``: a link per point (the mission page), else the points of each
    agent as paths (:class:`Layer`, mission cards)."""
    drawn = []
    for record in records:
        if record.overall is not None:
            drawn.append(record)
            if len(drawn) == limit:
                break
    if total is None:
        total = sum(r.overall is not None for r in records)
    strip_y = TOP_PAD + PLOT + STRIP_GAP
    points, below = [], []
    for record in reversed(drawn):
        agent = record.agent
        x, y = _xy(record.deterministic, record.judge or 0.0)
        common = dict(url=record.url, agent=slugs.get(agent, ""), tone=tones.get(agent, 0), x=x)
        title = f"{record.agent_name} · checks {pct(record.deterministic)} · "
        if record.no_judge_ran:
            below.append(Point(title=title + "no judge · " + run_title(record), y=strip_y, **common))
            continue
        upper = record.judge_upper if record.judge_upper is not None and record.judge_upper > record.judge else None
        points.append(
            Point(
                title=title + f"judge {pct_range(record.judge, upper)} · " + run_title(record),
                y=y,
                y_upper=None if upper is None else _xy(0, upper)[1],
                **common,
            )
        )
    diagonals = []
    for label, total_score in (("25", 0.5), ("50", 1.0), ("75", 1.5)):  # det + judge = 2 * overall
        x1, y1 = _xy(max(0.0, total_score - 1), min(1.0, total_score))
        x2, y2 = _xy(min(1.0, total_score), max(0.0, total_score - 1))
        lx, ly = _xy(total_score / 2, total_score / 2)
        diagonals.append((label, x1, y1, x2, y2, lx + 3, ly - 3))
    desc = (
        f"{len(points)} runs with a judge, placed by checks (across) and judge (up); "
        f"{len(below)} runs with no judge on the strip below"
        + (f"; the newest {len(drawn)} of {total} runs are drawn" if total > len(drawn) else "")
    )
    layers = () if linked else _layers(points, below)
    return Plot(
        LEFT + PLOT + RIGHT,
        strip_y + 10,
        LEFT,
        TOP_PAD,
        PLOT,
        strip_y,
        tuple(points) if linked else (),
        tuple(below) if linked else (),
        layers,
        tuple(diagonals),
        (("0%", 0.0), ("50%", PLOT / 2), ("100%", PLOT)),
        len(drawn),
        total,
        desc,
    )


def _layers(points: list[Point], below: list[Point]) -> tuple[Layer, ...]:
    """Each agent's bars, dots and no-judge squares as three paths, agents in order of first appearance."""
    n = svg_number
    parts: dict[tuple[str, int], dict[str, list[str]]] = {}

    def add(pt: Point, cls: str, d: str) -> None:
        parts.setdefault((pt.agent, pt.tone), {"bars": [], "dots": [], "nj": []})[cls].append(d)

    for pt in points:
        if pt.y_upper is not None:
            add(pt, "bars", f"M{n(pt.x)} {n(pt.y)}V{n(pt.y_upper)}")
        add(
            pt,
            "dots",
            f"M{n(pt.x - DOT)} {n(pt.y)}a{n(DOT)} {n(DOT)} 0 1 0 {n(2 * DOT)} 0"
            f"a{n(DOT)} {n(DOT)} 0 1 0 {n(-2 * DOT)} 0",
        )
    for pt in below:
        add(pt, "nj", f"M{n(pt.x - 2.5)} {n(pt.y - 2.5)}h5v5h-5z")
    return tuple(
        Layer(agent, tone, cls, "".join(d)) for (agent, tone), marks in parts.items() for cls, d in marks.items() if d
    )
