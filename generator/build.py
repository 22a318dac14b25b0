"""The one orchestrator: read, count once, plan, render, write. Reads top to bottom."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from podium.config import CONFIG_NAME, Config, source_date_epoch
from podium.load.content import load_pages
from podium.load.export import load_export
from podium.model import Leaderboard
from podium.plan import Site, plan_site
from podium.publish import prepare as prepare_publishing
from podium.render.redact import Redactor
from podium.render.report import ReportRenderer
from podium.render.site import guard_secrets, render_site
from podium.render.templates import builtin_themes, make_environment, static_files, theme_chain
from podium.summarize import summarize
from podium.write import write_site


@dataclass(frozen=True)
class Built:
    board: Leaderboard
    target: Path | None  # None when nothing was written (strict build with problems)
    files: int
    size: int
    warnings: tuple[str, ...] = ()


def count_export(config: Config, export: Path) -> Leaderboard:
    """Read the export and compute the one summary every output reads."""
    return summarize(load_export(export, config.limits), config.missions, config.source or CONFIG_NAME)


def content_dir(config: Config) -> Path | None:
    if config.content is not None:
        return config.content
    default = config.root / "content"
    return default if default.is_dir() else None


def build_site(config: Config, export: Path, *, strict: bool = False, previous: Path | None = None) -> Built:
    """Build the whole site for ``export``; under ``strict`` any problem stops before writing.

    ``previous``: the last publish (summary.json or site directory), for the change report and redirects.
    """
    generated_at = source_date_epoch()
    chain = theme_chain(config.theme, [config.root / "themes", builtin_themes()], config.theme_dir)
    env = make_environment(chain)
    pages = load_pages(content_dir(config))
    board = count_export(config, export)
    extras = prepare_publishing(board, config.title, config.base_url, generated_at, previous)
    if strict and board.problems:
        return Built(board, None, 0, 0, tuple(extras.warnings))
    redactor = Redactor(config.redact)
    site = Site(config.title, config.base_url, pages, generated_at,
                ReportRenderer(export, config.limits.report_bytes, redactor), redactor, extras.pages, extras.nav)
    outputs = extras.apply(plan_site(board, site))
    files = _Tally(guard_secrets(render_site(outputs, env, static_files(chain)), redactor.literals))
    inputs = [export] + [p for p in (content_dir(config), config.theme_dir) if p is not None]
    target = write_site(files, config.out, inputs=inputs, homes=[config.root, Path.cwd()])
    return Built(board, target, files.count, files.size, tuple(extras.warnings))


class _Tally:
    """Counts files and bytes as they stream to the writer."""

    def __init__(self, files: Iterable[tuple[str, bytes]]):
        self.files = files
        self.count = 0
        self.size = 0

    def __iter__(self) -> Iterator[tuple[str, bytes]]:
        for path, data in self.files:
            self.count += 1
            self.size += len(data)
            yield path, data
