"""The one orchestrator: read, count once, plan, write. Reads top to bottom."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from generator.config import CONFIG_NAME, Config, source_date_epoch
from generator.load.export import load_export
from generator.model import Leaderboard
from generator.plan import site_files
from generator.summarize import summarize
from generator.write import write_site


@dataclass(frozen=True)
class Built:
    board: Leaderboard
    target: Path | None  # None when nothing was written (strict build with problems)
    files: int
    size: int


def count_export(config: Config, export: Path) -> Leaderboard:
    """Read the export and compute the one summary every output reads."""
    return summarize(load_export(export, config.limits), config.missions, config.source or CONFIG_NAME)


def build_site(config: Config, export: Path, *, strict: bool = False) -> Built:
    """Build the whole site for ``export``; under ``strict`` any problem stops before writing."""
    generated_at = source_date_epoch()
    board = count_export(config, export)
    if strict and board.problems:
        return Built(board, None, 0, 0)
    files = site_files(board, generated_at)
    inputs = [export] + [p for p in (config.content, config.theme_dir) if p is not None]
    target = write_site(files, config.out, inputs=inputs, homes=[config.root, Path.cwd()])
    return Built(board, target, len(files), sum(len(b) for b in files.values()))
