"""The comparisons as terminal text: ``podium compare A B`` and ``podium rank --by model``.

The sentences are words/compare_text.py's, the same wording the pages use.
"""

from __future__ import annotations

from podium.model import ModelSummary, Pair, PairVersion
from podium.render.text import rank_cell, table, with_footnote
from podium.words.compare_text import flag_sentences, superiority_words, verdict_counts, verdict_words
from podium.words.figures_text import ci_range, counted, median_line, pct, pct_range, plain, points


def pair_text(pair: Pair, rank_a: str | None = None, rank_b: str | None = None) -> str:
    """``podium compare A B``: the pair in words, a table per shared version, the traps.

    ``rank_a``/``rank_b``: each agent's rank as ``numbers.rank_text`` writes it ("#2 · provisional, 1 run")."""
    tag_a = f" ({rank_a})" if rank_a else ""
    tag_b = f" ({rank_b})" if rank_b else ""
    lines = [
        f"{pair.a_name}{tag_a} vs {pair.b_name}{tag_b}: {counted(pair.shared, 'shared mission version')}",
        "superiority: "
        + plain(superiority_words(pair.a_name, pair.b_name, pair.superiority))
        + ", mean over the versions",
        f"median difference ({pair.a_name} − {pair.b_name}): {points(pair.median_diff)}, median over the versions",
        "verdicts: " + plain(verdict_counts(pair)),
        "",
    ]
    rows = [_version_row(pair, v) for v in pair.versions]
    lines.append(
        table(
            [
                "mission",
                "version",
                f"{pair.a_name} median",
                "95% CI",
                "n",
                f"{pair.b_name} median",
                "95% CI",
                "n",
                "checks a/b",
                "judge a/b",
                "a beats b",
                "verdict",
            ],
            rows,
        )
    )
    sentences = flag_sentences(pair)
    lines.append("")
    if sentences:
        lines += [f"! {plain(s)}" for _, s in sentences]
    else:
        lines.append("no trap flagged (judge models, model changes, no-judge gap, timeout gap)")
    return "\n".join(lines)


def _version_row(pair: Pair, v: PairVersion) -> list[str]:
    return [
        v.mission,
        v.version,
        pct(v.median_a),
        ci_range(v.median_ci_a, "no CI"),
        str(v.n_a),
        pct(v.median_b),
        ci_range(v.median_ci_b, "no CI"),
        str(v.n_b),
        f"{pct(v.median_deterministic_a)} / {pct(v.median_deterministic_b)}",
        f"{pct(v.median_judge_a)} / {pct(v.median_judge_b)}",
        pct(v.superiority),
        plain(verdict_words(v.verdict, pair.a_name, pair.b_name)),
    ]


def model_table(models: tuple[ModelSummary, ...]) -> str:
    """``podium rank --by model``."""
    rows = []
    for m in models:
        fig = m.figures
        ci = ci_range(fig.median_ci)
        rows.append(
            [
                rank_cell(m.rank, m.provisional),
                m.model,
                pct_range(fig.median, fig.median_upper),
                ci,
                pct(fig.avg_overall),
                ", ".join(m.agents),
                median_line(fig),
            ]
        )
    return with_footnote(table(["rank", "model", "median", "95% CI", "mean", "agents", "runs"], rows), models)
