"""Model names as pages list them: bounded (issue 34 item 1).

A harness may report names of up to 200 characters, 8 a run (docs/rules/export.md §3.2), and a list of
names a figure or a pair publishes keeps 10 of them (count/model_names.py), the rest counted. Every page
that is not the name's own shortens a long one: its start and its end around "…" (the end of a text that
goes past a run's kept names is its digest, so two of them still read apart). The full name is on the
pages that are its own: a model key's page, a run's page (and in the data files); a title attribute
would not reach a phone, so there is none.
"""

from __future__ import annotations

NAME_SHOWN = 64  # characters of a name or model key shown where it is not the page's own subject
_TAIL = 20  # of which the end: "… + 192 more #3fa9c1d2", a version suffix "-2025-10-01"


def short_name(text: str, limit: int = NAME_SHOWN) -> str:
    """``text`` whole up to ``limit`` characters, else its start, "…" and its last 20 characters."""
    if len(text) <= limit:
        return text
    return text[: limit - _TAIL - 1] + "…" + text[-_TAIL:]


def more_names(more: int) -> str:
    """What stands for the names a list leaves out: "and 1,030 more"; "" when it leaves none out."""
    return f"and {more:,} more" if more else ""
