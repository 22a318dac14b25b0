"""Bounded pages (site.md "Bounded"): no page grows with the run history.

The board is built in memory (no files) in the shape of the issue's ``scale`` exports:
12 agents, 40 missions of which 10 have an older version too (50 mission versions), a
model or two per agent, two judge models on some versions, every kind of run. Every
page that is not a run page or the ledger is planned and rendered, and each must stay
under 300 KB and 3,000 elements (start tags, as tests/sitekit.py parses them), whatever
the history holds.
"""

import random
import re
from datetime import UTC, datetime, timedelta

import pytest
import sitekit as kit

from podium.count.summarize import summarize
from podium.model import Conditions, Export, Grade, Problem, Run
from podium.plan.entries import LazyPage, LedgerPage, Page, RunPage
from podium.plan.site import Site, plan_site
from podium.render.site import render_page
from podium.render.templates import builtin_themes, make_environment, theme_chain

MAX_BYTES = 300_000
MAX_ELEMENTS = 3_000
START_TAG = re.compile(rb"<[A-Za-z]")
OWN = {
    "index.html",
    "agent.html",
    "missions.html",
    "mission.html",
    "model.html",
    "models.html",
    "compare.html",
    "pair.html",
}


def synthetic_export(n: int, seed: int = 1) -> Export:
    """n graded runs of 20 agents on 10 missions (two versions each): a big export fast (test_publish)."""
    rng = random.Random(seed)
    base = datetime(2026, 1, 1, tzinfo=UTC)
    agents = [(f"{i:032x}", f"agent-{i}") for i in range(20)]
    runs = []
    for i in range(n):
        det, judge = rng.choice((0.0, 0.25, 0.5, 0.75, 1.0)), rng.random()
        status = rng.choice(("ok", "ok", "ok", "partial", "model-not-configured"))
        grade = Grade(
            overall=0.5 * det + 0.5 * judge,
            deterministic=det,
            judge=judge,
            overall_upper=min(1.0, 0.5 * det + 0.5 * judge + 0.1),
            judge_upper=min(1.0, judge + 0.2),
            judge_coverage=1.0,
            judge_status=status,
            judge_detail=None,
            scores_valid=True,
        )
        agent, name = agents[i % len(agents)]
        mission = f"mission-{i % 10}"
        runs.append(
            Run(
                run_id=f"{i:032x}",
                directory=f"{i:032x}",
                shape="graded",
                grade=grade,
                conditions=Conditions(judge_model="judge", mission_version="1.0.0"),
                partial=False,
                partial_trigger=rng.choice((None, None, "timeout")),
                agent=agent,
                agent_name=name,
                mission=mission,
                version=rng.choice(("1.0.0", "1.0.0", "0.9.0")),
                started=base + timedelta(minutes=i),
            )
        )
    return Export(runs=tuple(runs), problems=(), runs_read=n, inputs_digest="sha256:" + "0" * 64)


AGENTS = (
    "osprey",
    "kestrel",
    "harrier",
    "merlin",
    "gyr-falcon",
    "saker",
    "eagle",
    "kite",
    "goshawk",
    "hobby",
    "buzzard",
    "harpy",
)
MODELS = (
    "gpt-5.5",
    "gpt-5.5-codex",
    "claude-fable-5.1",
    "claude-haiku-5.0",
    "gemini-3-pro",
    "llama-5-405b",
    "qwen-4-max",
    "mistral-large-3",
    "deepseek-v4",
    "grok-5",
)


def scale_export(n: int, seed: int = 7, agents: int = 12, missions: int = 40, problems: int = 300) -> Export:
    """The scale shape: ``agents`` agents on ``missions`` missions, a quarter of them with an older
    version beside the current one, every kind of run, a model or two per agent."""
    rng = random.Random(seed)
    base = datetime(2026, 1, 1, tzinfo=UTC)
    names = [AGENTS[i] if i < len(AGENTS) else f"agent-{i}" for i in range(agents)]
    two_versions = set(range(0, missions, 4))
    runs = []
    for i in range(n):
        a = i % agents
        m = rng.randrange(missions)
        version = "1.0.0" if m in two_versions and rng.random() < 0.3 else ("2.0.0" if m in two_versions else "1.1.0")
        kind = rng.random()
        det, judge = rng.choice((0.0, 0.25, 0.5, 0.75, 1.0)), round(rng.random(), 3)
        status = "ok" if kind < 0.7 else "partial" if kind < 0.8 else "model-not-configured" if kind < 0.9 else "ok"
        trigger = "timeout" if 0.9 <= kind < 0.95 else "operator" if 0.95 <= kind < 0.97 else None
        if a >= len(MODELS):  # many agents: many model keys too
            model = f"model-{a % 40}"
        else:
            model = MODELS[(a + (i // 5000)) % len(MODELS)] if a % 3 == 0 else MODELS[a % len(MODELS)]
        started = base + timedelta(minutes=i)
        common = dict(
            run_id=f"{i:032x}",
            directory=f"{i:032x}",
            agent=f"{a:032x}",
            agent_name=names[a],
            mission=f"mission-{m:02d}",
            version=version,
            started=started,
            completed=started + timedelta(minutes=20),
            models_reported=(model,),
        )
        if kind >= 0.97:
            runs.append(Run(shape="not_graded", result_trigger="deploy_failed", list_outcome="infra_failed", **common))
            continue
        upper = min(1.0, judge + 0.2) if status == "partial" else judge
        grade = Grade(
            overall=0.5 * det + 0.5 * judge,
            deterministic=det,
            judge=judge,
            overall_upper=0.5 * det + 0.5 * upper,
            judge_upper=upper,
            judge_coverage=1.0,
            judge_status=status,
            judge_detail=None,
            scores_valid=True,
        )
        judge_model = "judge-b" if m % 7 == 0 and i % 2 else "judge-a"
        runs.append(
            Run(
                shape="graded",
                grade=grade,
                partial=trigger is not None,
                partial_trigger=trigger,
                conditions=Conditions(model=model, judge_model=judge_model, mission_version=version),
                **common,
            )
        )
    found = tuple(Problem(f"{i:08x}/result.json", "grade.overall", "not a number") for i in range(problems))
    return Export(runs=tuple(runs), problems=found, runs_read=n + problems, inputs_digest="sha256:" + "0" * 64)


def measure_pages(export: Export) -> dict[str, tuple[int, int]]:
    """Every page podium's page templates render from this export (but run pages and the ledger):
    path -> (bytes, elements)."""
    board = summarize(export)
    env = make_environment(theme_chain("default", [builtin_themes()]))
    outputs = plan_site(board, Site("scale", "https://x.example/", (), None))
    pages = [page for page in planned_pages(outputs) if page.template in OWN]
    sizes = {}
    for page in pages:
        html = render_page(page, env)
        sizes[page.path] = (len(html), elements(html))
    return sizes


def planned_pages(outputs: list) -> list[Page]:
    """The pages of a manifest but the run pages and the ledger's, those made when rendered made now."""
    return [
        item if isinstance(item, Page) else item.page
        for item in outputs
        if isinstance(item, Page) or (isinstance(item, LazyPage) and not isinstance(item, (RunPage, LedgerPage)))
    ]


def elements(html: bytes) -> int:
    """Start tags: a "<" before a letter (text and attributes are escaped, so only tags have one);
    the count tests/sitekit.py's parser gives, without its cost."""
    return len(START_TAG.findall(html))


def assert_bounded(sizes: dict[str, tuple[int, int]]) -> None:
    by_bytes = max(sizes, key=lambda p: sizes[p][0])
    by_elements = max(sizes, key=lambda p: sizes[p][1])
    print(
        f"{len(sizes)} pages; most bytes {by_bytes} {sizes[by_bytes]}; most elements {by_elements} {sizes[by_elements]}"
    )
    over = {path: size for path, size in sizes.items() if size[0] >= MAX_BYTES or size[1] >= MAX_ELEMENTS}
    assert over == {}


@pytest.mark.slow
def test_no_page_of_the_scale_shape_outgrows_the_budget_at_100k_runs():
    sizes = measure_pages(scale_export(100_000))
    kinds = {"agents/", "missions/page/", "compare/", "models/"}
    assert all(any(path.startswith(k) for path in sizes) for k in kinds), sorted(sizes)[:20]
    assert (
        sum(path.startswith("missions/") and path.count("/") == 3 and "/page/" not in path for path in sizes) == 50
    )  # every mission version has its page
    assert_bounded(sizes)


def test_pages_hold_the_budget_whatever_the_history_holds():
    """The same shape at 6k runs, and with 100 agents: the budget is no accident of 100k runs."""
    assert_bounded(measure_pages(scale_export(6_000, problems=5)))
    assert_bounded(measure_pages(scale_export(6_000, agents=100, missions=4, problems=50)))  # full strips


def test_the_element_count_is_the_parsers():
    board = summarize(scale_export(600, agents=3, missions=2))
    env = make_environment(theme_chain("default", [builtin_themes()]))
    for page in planned_pages(plan_site(board, Site("scale", "", (), None))):
        if page.template in OWN:
            html = render_page(page, env)
            assert elements(html) == len(kit.parse_html(html.decode("utf-8")).tags), page.path
