"""What a run's model names make: its model key, its model for ``model_changed``, its configuration's model,
and the bounded lists of names a figure or a pair publishes.

A run keeps its first 8 reported names; with more, it keeps how many more and a digest of the whole list
(docs/rules/export.md §3.2). The texts below are made from what it keeps, so that they are bounded and still
tell apart exactly the lists the rules tell apart (compare.md §2, progress.md §1.3): past the kept names a
text ends in `` + <n> more #<digest>``.

Each text takes a ``name`` function, the identity when counting: the render stage passes the published
(redacted) spelling of each name, so a published key is made the same way from the same parts, in time
linear in its names (safety/safe.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

from podium.model import RunRecord

UNKNOWN_MODEL = "(unknown model)"
DECLARED = " (declared)"
# Distinct names a figure (counting.md §3 ``judge_models``, ``models_reported``, ``models_declared``) or a
# pair's side (compare.md §1.3 ``models_a``/``_b``) lists: those of the most runs; the rest are counted.
MODELS_LISTED = 10

Name = Callable[[str], str]


def _same(name: str) -> str:
    return name


def rest(more: int, digest: str | None) -> str:
    """What stands for the names past the kept ones: ``192 more #3fa9c1d2``."""
    return f"{more} more #{digest}"


def reported_text(names: Iterable[str], more: int = 0, digest: str | None = None, name: Name = _same) -> str:
    """Names joined with `` + ``, then the rest when there is one (empty names left out)."""
    parts = [name(n) for n in names if n]
    if more:
        parts.append(rest(more, digest))
    return " + ".join(parts)


def model_key(record: RunRecord, name: Name = _same) -> str:
    """compare.md §2: the reported names in the harness's order joined with `` + `` (with the rest past the
    kept ones); else the declared model `` (declared)``; else ``(unknown model)``."""
    if any(record.models_reported):
        return reported_text(record.models_reported, record.models_more, record.models_digest, name)
    return name(record.model_declared) + DECLARED if record.model_declared else UNKNOWN_MODEL


def run_model(record: RunRecord, name: Name = _same) -> str | None:
    """compare.md §1.4 ``model_changed``: the reported names as in the key, else the declared model without
    `` (declared)``; None (not counted) with neither.

    So a harness that reports the model on some runs only, with the same model declared, is no change."""
    if any(record.models_reported):
        return reported_text(record.models_reported, record.models_more, record.models_digest, name)
    return name(record.model_declared) if record.model_declared else None


def configuration_model(
    names: tuple[str, ...], more: int, digest: str | None, declared: str | None, name: Name = _same
) -> str | None:
    """progress.md §1.3: the reported names distinct and sorted, joined with `` + `` (with the rest past the
    kept ones: a run that reported more is told apart by its whole list); else the declared model; else None."""
    if any(names):
        return reported_text(sorted({name(n) for n in names if n}), more, digest)
    return name(declared) if declared else None


def listed(counts: Counter[str], most: int = MODELS_LISTED) -> tuple[tuple[str, ...], int]:
    """The distinct names of ``counts`` (name -> runs) a list publishes, sorted, and how many more there are:
    all of them up to ``most``, else the ``most`` of the most runs (ties by name)."""
    counts.pop("", None)
    if len(counts) <= most:
        return tuple(sorted(counts)), 0
    top = sorted(counts, key=lambda n: (-counts[n], n))[:most]
    return tuple(sorted(top)), len(counts) - most
