"""The board read, counted once and made public: the build's load and count steps (build.py), and the one way
in for every command that prints (``podium rank``, ``compare``, ``check``; the library's ``public_view``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from podium.cache.store import NO_CACHE, NoCache
from podium.cache.witnesses import RunKeeper
from podium.config import CONFIG_NAME, Config
from podium.count import compare
from podium.count.summarize import summarize
from podium.heap import release
from podium.inputs import export_paths
from podium.load.export import Scanned, load_exports
from podium.model import Export, Leaderboard, Pair
from podium.safety.redact import Redaction, forget_spellings
from podium.safety.safe import public_board_and_pairs
from podium.workers import NO_WORKERS, Workers


@dataclass(frozen=True)
class Counted:
    """The summary twice: ``raw`` (run pages are made from it in the render stage, which redacts each one)
    and ``public``, the redacted board every page, data file and printed line reads; ``public_pair`` makes
    a pair of ``raw`` public as ``public``'s are (safety/safe.py)."""

    raw: Leaderboard
    public: Leaderboard
    redaction: Redaction
    public_pair: Callable[[Pair], Pair]

    def pair(self, a: str, b: str) -> Pair | None:
        """The public pair of agents ``a`` and ``b`` (ids, either order) with every shared version, or None
        when they share none: the board keeps versions only for the pairs with a page (count/compare.py)."""
        found = [p for p in self.raw.pairs if {p.a, p.b} == {a, b}]
        return self.public_pair(compare.full_pair(self.raw, found[0])) if found else None


def load_runs(
    config: Config,
    exports: Sequence[Path],
    cache: NoCache = NO_CACHE,
    workers: Workers = NO_WORKERS,
    scanned: Scanned | None = None,
) -> tuple[Export, RunKeeper]:
    """Each run of ``exports`` read, kept as its compact record (kinds.record_of), each mission's answers
    collected (``workers``: the build's, which may read run directories ahead; ``scanned``: what the stat pass
    saw, load/export/)."""
    keeper = RunKeeper.start(cache, exports, config.limits.result_bytes)
    export = load_exports(exports, config.limits, cache, keeper, workers, scanned)
    keeper.finish(config.redact)
    return export, keeper


def count_runs(config: Config, export: Export, keeper: RunKeeper) -> Counted:
    """Count every run once (with ``run_pages`` applied, as the site links runs), and make the public view."""
    # the redaction first: what making it takes at once (its automaton, each answer's spellings) is then not
    # on top of the board's figures, and is given back before they are counted (issue 33, 3)
    redaction = Redaction(config.redact, keeper.answers.by_mission)
    forget_spellings()  # (the redaction holds them)
    release()  # what making its automaton took, given back (heap.py)
    board = _summary(config, export)
    keeper.cache.settle(redaction.holds_any)  # the rows read go into the cache file, checked for every answer
    public, public_pair = public_board_and_pairs(board, redaction)
    return Counted(board, public, redaction, public_pair)


def _summary(config: Config, export: Export) -> Leaderboard:
    return summarize(export, config.missions, config.source or CONFIG_NAME, config.run_pages, config.prices)


def _counted(config: Config, export: Path | Sequence[Path]) -> Counted:
    return count_runs(config, *load_runs(config, export_paths(export)))


def count_export(config: Config, export: Path | Sequence[Path]) -> Leaderboard:
    """Read the export(s) and compute the one summary every output reads (raw: names not yet redacted)."""
    return _summary(config, load_runs(config, export_paths(export))[0])


def public_view(config: Config, export: Path | Sequence[Path]) -> Leaderboard:
    """The one way in for every command that prints: the board exactly as the site publishes it."""
    return _counted(config, export).public


PairOf = Callable[[str, str], Pair | None]  # two agent ids (either order) -> their public pair in full


def public_comparisons(config: Config, export: Path | Sequence[Path]) -> tuple[Leaderboard, PairOf]:
    """``public_view``, and the public pair of any two agents in full (``podium compare``: the board keeps the
    versions of the pairs with a page only); the raw board stays here."""
    found = _counted(config, export)
    return found.public, found.pair
