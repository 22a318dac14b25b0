"""podium.words.progress_text: how progress verdicts read."""

from __future__ import annotations

from podium.model.progress import SCORE_VERDICTS
from podium.words.progress_text import VERDICT_SIGNS


def test_glyphs_and_words():
    assert {v: g for v, (g, _) in VERDICT_SIGNS.items()} == {
        "improved": "▲",
        "regressed": "▼",
        "steady": "=",
        "mixed": "◆",
        "unclear": "?",
        "too_few_runs": "…",
        "not_comparable": "≠",
    }
    assert all(word for _, word in VERDICT_SIGNS.values())
    assert set(VERDICT_SIGNS) == set(SCORE_VERDICTS)
