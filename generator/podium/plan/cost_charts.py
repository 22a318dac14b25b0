"""The chart "What each score costs" (docs/rules/cost.md §6): agents as points, median score up and median
tokens a run across on a log scale, the frontier (§3) as a staircase, provisional agents hollow; and the
same as table rows for readers without the chart.

Pure geometry from the summary step's figures (every number was counted by count/cost.py): coordinates in
SVG user units, drawn by ``svg/cost.svg``. Bounded (docs/rules/site.md §9): at most ``POINTS`` agents are
drawn and listed, the frontier's first.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from podium.model.cost import Cost
from podium.words import cost_text
from podium.words.figures_text import pct, svg_number

POINTS = 60  # agents drawn and listed at most (every one is in summary.json)
WIDTH, HEIGHT = 420.0, 230.0
LEFT, RIGHT, TOP, BOTTOM = 40.0, 14.0, 12.0, 36.0
DOT = 4.0


@dataclass(frozen=True)
class CostPoint:
    """One agent on the chart, and its row in the table beside it."""

    agent: str  #: its slug (the chips and the table name it so)
    name: str
    url: str | None
    tone: int
    x: float
    y: float
    hollow: bool  #: a provisional rank: drawn hollow
    frontier: bool  #: on the frontier by tokens
    title: str  #: the point's tooltip, a sentence
    score: str  #: its median score, as the table shows it
    tokens: str  #: its median tokens a run (quartiles beside)
    duration: str  #: its median duration a run
    label_x: float  #: where a frontier point's name goes
    label_y: float
    label_end: bool  #: the name ends at label_x (a point near the right edge), else starts there


@dataclass(frozen=True)
class CostChart:
    width: float
    height: float
    left: float
    top: float
    plot_width: float
    plot_height: float
    points: tuple[CostPoint, ...]  #: drawn in this order, the table's rows in it too
    staircase: str  #: the frontier as an SVG path ("" with fewer than one agent on it)
    x_ticks: tuple[tuple[str, float], ...]  #: (label, x) on the log scale: 1k, 10k, 100k, …
    y_ticks: tuple[tuple[str, float], ...]  #: (label, y): 0%, 50%, 100%
    placed: int  #: how many agents have a median score and a median of tokens
    unplaced: int  #: how many have not (no run in the median reports tokens, or no median)
    shown: int  #: how many are drawn (at most POINTS)
    desc: str  #: the chart in one sentence, for screen readers


@dataclass(frozen=True)
class Entry:
    """What the chart is made of, per agent (plan/site.py makes them from agents or from cells)."""

    slug: str
    name: str
    url: str | None
    tone: int
    median: float | None
    cost: Cost | None
    provisional: bool
    agent: str  # the id the frontier names


def cost_chart(entries: Iterable[Entry], frontier: Iterable[str]) -> CostChart:
    """The chart of ``entries`` (in rank order); ``frontier``: the agent ids on it by tokens."""
    on = set(frontier)
    listed = list(entries)
    placed = [  # (entry, its cost, its median tokens, its median score): those the chart can place
        (e, e.cost, e.cost.total_tokens.median, e.median)
        for e in listed
        if e.median is not None and e.cost is not None and e.cost.total_tokens.median is not None
    ]
    ordered = [p for p in placed if p[0].agent in on] + [p for p in placed if p[0].agent not in on]
    drawn = ordered[:POINTS]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    values = [tokens for _, _, tokens, _ in drawn]
    low = 10 ** math.floor(math.log10(min(values))) if values else 1000.0
    high = 10 ** math.ceil(math.log10(max(values))) if values else 1_000_000.0
    if high <= low:
        high = low * 10

    def x_of(tokens: float) -> float:
        return LEFT + (math.log10(tokens) - math.log10(low)) / (math.log10(high) - math.log10(low)) * plot_w

    def y_of(score: float) -> float:
        return TOP + (1 - score) * plot_h

    points = []
    for e, c, tokens, score in drawn:
        x, y = x_of(tokens), y_of(score)
        frontier_words = " · on the frontier" if e.agent in on else ""
        points.append(
            CostPoint(
                agent=e.slug,
                name=e.name,
                url=e.url,
                tone=e.tone,
                x=x,
                y=y,
                hollow=e.provisional,
                frontier=e.agent in on,
                title=f"{e.name} · median {pct(score)} · {cost_text.tokens(tokens)} tokens a run"
                + (" · provisional rank" if e.provisional else "")
                + frontier_words,
                score=pct(score),
                tokens=cost_text.quartiles(c.total_tokens),
                duration=cost_text.quartiles(c.duration_seconds, cost_text.duration),
                label_x=x - DOT - 2 if x > WIDTH - RIGHT - 70 else x + DOT + 2,
                label_y=y - DOT - 1 if y > TOP + 10 else y + DOT + 9,
                label_end=x > WIDTH - RIGHT - 70,
            )
        )
    steps = sorted((p for p in points if p.frontier), key=lambda p: (p.x, -p.y))
    staircase = ""
    if steps:
        n = svg_number
        d = [f"M{n(steps[0].x)} {n(steps[0].y)}"]
        for point in steps[1:]:
            d.append(f"H{n(point.x)}V{n(point.y)}")
        d.append(f"H{n(LEFT + plot_w)}")
        staircase = "".join(d)
    decades = range(round(math.log10(low)), round(math.log10(high)) + 1)
    x_ticks = tuple((cost_text.tokens(10.0**k).replace(".0", ""), x_of(10.0**k)) for k in decades)  # "10k", "1M"
    y_ticks = (("0%", y_of(0.0)), ("50%", y_of(0.5)), ("100%", y_of(1.0)))
    unplaced = len(listed) - len(placed)
    desc = (
        f"{len(drawn)} agents placed by median score (up) and median tokens a run (across, log scale)"
        + (f" ({len(drawn)} of {len(placed)}: the frontier, then by rank)" if len(placed) > len(drawn) else "")
        + f"; {len(steps)} on the frontier, joined by a staircase"
        + (f"; {unplaced} not placed (no median, or no tokens reported)" if unplaced else "")
    )
    return CostChart(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        top=TOP,
        plot_width=plot_w,
        plot_height=plot_h,
        points=tuple(points),
        staircase=staircase,
        x_ticks=x_ticks,
        y_ticks=y_ticks,
        placed=len(placed),
        unplaced=unplaced,
        shown=len(drawn),
        desc=desc,
    )
