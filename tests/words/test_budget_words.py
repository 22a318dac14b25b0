"""Two different budgets never read the same (issue 34): "since budget 600 s" was said of a move from 600 s
to 600.4 s, and of the configuration lines on both sides of it, as a budget was printed to the second."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from progresskit import run

from podium.count.progress import agent_progress
from podium.model import Configuration
from podium.plan.progress import configuration_text, panel
from podium.words import diff_text, progress_text
from podium.words.figures_text import seconds

budgets = st.floats(min_value=0, max_value=1e9, allow_nan=False)  # what load/result.py accepts


@given(budgets, budgets)
def test_two_budgets_read_apart(a, b):
    assert (seconds(a) == seconds(b)) == (a == b)


def test_a_budget_reads_as_seconds():
    assert [seconds(x) for x in (3600.0, 600.4, 0.25, 1_234_567.5)] == ["3,600 s", "600.4 s", "0.25 s", "1,234,567.5 s"]


def _runs(budget: float) -> list:
    return [run(0.5, conf=Configuration("1", "model-a", "judge-1", budget)) for _ in range(6)]


def test_a_budget_moved_by_under_a_second_reads_as_moved():
    """The agent page's step (since, before, after) and the change report say 600 s and 600.4 s apart."""
    progress = agent_progress("a1", "Kestrel", "kestrel", _runs(600.0) + _runs(600.4))
    (step,) = progress.steps
    assert step.changed == ("budget_seconds",)
    assert progress_text.since(step) == "since budget 600.4 s"
    assert configuration_text(step.from_) != configuration_text(step.to)
    assert "budget 600 s" in configuration_text(step.from_) and "budget 600.4 s" in configuration_text(step.to)
    assert panel(progress, "kestrel").columns == ("since budget 600.4 s",)
    row = {
        "name": "Kestrel",
        "progress": {
            "changed": ["budget_seconds"],
            "budget_seconds": 600.4,
            "agent_version": 1,
            "old_verdict": "steady",
            "verdict": "improved",
        },
    }
    assert diff_text.progress_line(row).endswith("since budget 600.4 s")
