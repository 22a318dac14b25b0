"""How comparisons read, in words: verdicts and trap sentences.

One wording for pages (planned by plan/compare.py) and the CLI (render/compare_text.py).
A sentence is a tuple of numbers.Part; a part that holds agent-controlled text (an
agent name, a model key, a mission) is marked ``name`` so a page wraps it in ``<bdi>``
(the template escapes every part). Nothing here computes a figure: the numbers come from the Pair.
"""

from __future__ import annotations

from podium.model import PROVISIONAL_BELOW, Pair
from podium.words.figures_text import Part, Sentence, pct
from podium.words.names_text import short_name

OVERLAP = "overlapping: not evidence of a difference"
TOO_FEW = f"too few runs: fewer than {PROVISIONAL_BELOW} on a side"
AHEAD = "ahead"


def _n(text: str) -> Part:
    return Part(text, True)


def verdict_words(verdict: str, a_name: str, b_name: str) -> Sentence:
    """ "osprey ahead", "overlapping: not evidence of a difference", "too few runs: fewer than 6 on a side"."""
    if verdict == "a_ahead":
        return (_n(a_name), Part(f" {AHEAD}"))
    if verdict == "b_ahead":
        return (_n(b_name), Part(f" {AHEAD}"))
    if verdict == "overlap":
        return (Part(OVERLAP),)
    if verdict == "too_few":
        return (Part(TOO_FEW),)
    raise ValueError(f"not a verdict: {verdict!r}")


def verdict_counts(pair: Pair) -> Sentence:
    """ "1 osprey ahead · 0 harrier ahead · 2 overlapping · 1 too few runs" """
    v = pair.verdicts
    return (
        Part(f"{v['a_ahead']} "),
        _n(pair.a_name),
        Part(f" ahead · {v['b_ahead']} "),
        _n(pair.b_name),
        Part(f" ahead · {v['overlap']} overlapping · {v['too_few']} too few runs"),
    )


def _join(items: list[str]) -> list[Part]:
    parts: list[Part] = []
    for i, item in enumerate(items):
        if i:
            parts.append(Part(" and " if i == len(items) - 1 else ", "))
        parts.append(_n(item))
    return parts


def flag_sentences(pair: Pair) -> list[tuple[str, Sentence]]:
    """(flag, sentence) for each trap raised on ``pair``, in compare.md's order."""
    out: list[tuple[str, Sentence]] = []
    flags = pair.flags
    names = {pair.a: pair.a_name, pair.b: pair.b_name}
    models = {pair.a: pair.models_a, pair.b: pair.models_b}
    if flags.judge_models_differ:
        out.append(
            (
                "judge_models_differ",
                (
                    Part("Judge models differ on "),
                    *_join(list(flags.judge_models_differ)),
                    Part(": the judge halves of "),
                    _n(pair.a_name),
                    Part(" and "),
                    _n(pair.b_name),
                    Part(" may not compare there."),
                ),
            )
        )
    more = {pair.a: pair.models_a_more, pair.b: pair.models_b_more}
    for agent in flags.model_changed:
        keys = [short_name(k) for k in models[agent]]
        if more[agent]:
            keys.append(f"{more[agent]:,} more")  # a list of 10 of them (count/model_names.py)
        out.append(
            (
                "model_changed",
                (
                    _n(names[agent]),
                    Part(f"'s runs on the shared versions ran {len(models[agent]) + more[agent]:,} models ("),
                    *_join(keys),
                    Part("): its scores mix models."),
                ),
            )
        )
    out += _configuration_sentences(pair)
    if flags.no_judge_gap:
        hi, lo, share_hi, share_lo = _higher(pair, pair.no_judge_share_a, pair.no_judge_share_b)
        out.append(
            (
                "no_judge_gap",
                (
                    _n(hi),
                    Part(
                        f" has {pct(share_hi)} of its runs on the shared versions left out for want of a "
                        f"judge, against {pct(share_lo)} for "
                    ),
                    _n(lo),
                    Part(": its median rests on fewer of its runs."),
                ),
            )
        )
    if flags.timeout_gap:
        hi, lo, share_hi, share_lo = _higher(pair, pair.timeout_share_a, pair.timeout_share_b)
        out.append(
            (
                "timeout_gap",
                (
                    Part(f"{pct(share_hi)} of "),
                    _n(hi),
                    Part(f"'s runs in the median timed out, against {pct(share_lo)} of "),
                    _n(lo),
                    Part("'s: timeouts pull its median down more."),
                ),
            )
        )
    return out


CONFIGURATION_FIELDS = {"agent_version": "agent version", "judge_model": "judge model", "budget_seconds": "budget"}


def _configuration_sentences(pair: Pair) -> list[tuple[str, Sentence]]:
    """docs/rules/compare.md §1.5: "goshawk's runs on the shared versions span more than one agent version: …"."""
    out: list[tuple[str, Sentence]] = []
    sides = ((pair.a, pair.a_name, pair.configuration_fields_a), (pair.b, pair.b_name, pair.configuration_fields_b))
    for agent, name, fields in sides:
        if agent not in pair.flags.configuration_changed:
            continue
        what = [CONFIGURATION_FIELDS[f] for f in fields]
        listed = what[0] if len(what) == 1 else ", ".join(what[:-1]) + " and " + what[-1]
        out.append(
            (
                "configuration_changed",
                (
                    _n(name),
                    Part(
                        f" changed configuration during the compared runs: they span more than one {listed}, so its "
                        "medians here mix them (its page says which way it moved since)."
                    ),
                ),
            )
        )
    return out


def head_to_head_words(pair: Pair) -> Sentence:
    """When the higher ranked agent loses head to head (docs/rules/compare.md §1.5): "goshawk is ranked above
    harrier but loses head to head: a run of goshawk beats a run of harrier only 44.6% of the time on the
    missions they share (ties count half)."; nothing otherwise."""
    if pair.head_to_head != "b":
        return ()
    return (
        _n(pair.a_name),
        Part(" is ranked above "),
        _n(pair.b_name),
        Part(" but loses head to head: a run of "),
        _n(pair.a_name),
        Part(" beats a run of "),
        _n(pair.b_name),
        Part(f" only {pct(pair.superiority)} of the time on the missions they share (ties count half)."),
    )


def _higher(pair: Pair, share_a: float, share_b: float) -> tuple[str, str, float, float]:
    if share_a >= share_b:
        return pair.a_name, pair.b_name, share_a, share_b
    return pair.b_name, pair.a_name, share_b, share_a


def superiority_words(a_name: str, b_name: str, value: float) -> Sentence:
    return (
        Part("a run of "),
        _n(a_name),
        Part(" beats a run of "),
        _n(b_name),
        Part(f" {pct(value)} of the time (ties count half)"),
    )
