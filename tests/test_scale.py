"""At 100k runs no page may exceed ~2 MB (site.md / issue): the ledger paginates, tables and plots cap.

Builds the Leaderboard in memory (no files) and renders every page except the
per-run pages, which do not grow with the export.
"""

import random
from datetime import datetime, timedelta, timezone

import pytest

from podium.model import Conditions, Export, Grade, Run
from podium.plan import Page, Site, plan_site
from podium.render.site import render_page
from podium.render.templates import builtin_themes, make_environment, theme_chain
from podium.summarize import summarize

RUNS = 100_000
LIMIT = 2 * 1024 * 1024


def synthetic_export(n: int, seed: int = 1) -> Export:
    rng = random.Random(seed)
    base = datetime(2026, 1, 1, tzinfo=timezone.utc)
    agents = [(f"{i:032x}", f"agent-{i}") for i in range(20)]
    runs = []
    for i in range(n):
        det, judge = rng.choice((0.0, 0.25, 0.5, 0.75, 1.0)), rng.random()
        status = rng.choice(("ok", "ok", "ok", "partial", "model-not-configured"))
        grade = Grade(overall=0.5 * det + 0.5 * judge, deterministic=det, judge=judge,
                      overall_upper=min(1.0, 0.5 * det + 0.5 * judge + 0.1), judge_upper=min(1.0, judge + 0.2),
                      judge_coverage=1.0, judge_status=status, judge_detail=None, scores_valid=True)
        agent, name = agents[i % len(agents)]
        mission = f"mission-{i % 10}"
        runs.append(Run(
            run_id=f"{i:032x}", directory=f"{i:032x}", shape="graded", grade=grade,
            conditions=Conditions(judge_model="judge", mission_version="1.0.0"), partial=False,
            partial_trigger=rng.choice((None, None, "timeout")), agent=agent, agent_name=name, mission=mission,
            version=rng.choice(("1.0.0", "1.0.0", "0.9.0")), started=base + timedelta(minutes=i),
        ))
    return Export(runs=tuple(runs), problems=(), runs_read=n, inputs_digest="sha256:" + "0" * 64)


@pytest.mark.slow
def test_no_page_exceeds_two_megabytes_at_100k_runs():
    board = summarize(synthetic_export(RUNS))
    site = Site("scale", "", (), None)
    env = make_environment(theme_chain("default", [builtin_themes()]))
    outputs = plan_site(board, site)
    pages = [item for item in outputs if isinstance(item, Page) and item.template != "run.html"]
    sizes = {page.path: len(render_page(page, env)) for page in pages}
    biggest = max(sizes, key=sizes.get)
    print(f"{len(sizes)} pages; biggest {biggest}: {sizes[biggest]} bytes")
    assert sizes[biggest] < LIMIT, (biggest, sizes[biggest])
    assert sum(p.startswith("runs/page/") for p in sizes) == RUNS // 500 - 1
