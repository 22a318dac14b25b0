"""What a build is asked to do, named once: the settings, the exports, the theme, the content pages, the clock,
the previous publish and the build's options (:class:`BuildInputs`); and the output check every command that
writes makes first (:func:`check_output`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from podium.cache.keys import tree_fingerprint
from podium.config import Config, source_date_epoch
from podium.load.export import Scanned, scan
from podium.load.previous import previous_fingerprint
from podium.render import gzipped
from podium.render.templates import builtin_themes, theme_chain
from podium.write.site import check_output_dir

Progress = Callable[[int, int, str], None]  # (files done, files in all, the path of the last one)


def export_paths(export: Path | Sequence[Path]) -> tuple[Path, ...]:
    return (export,) if isinstance(export, Path) else tuple(export)


def content_dir(config: Config) -> Path | None:
    """The content pages' directory: ``content:``, else ``content/`` beside podium.yaml when there is one."""
    if config.content is not None:
        return config.content
    default = config.root / "content"
    return default if default.is_dir() else None


def protected(config: Config, export: Path | Sequence[Path]) -> list[Path]:
    """What the output may not overlap: the exports, the content pages, the theme override."""
    return [*export_paths(export), *(p for p in (content_dir(config), config.theme_dir) if p is not None)]


def homes(config: Config) -> list[Path]:
    """What the output may sit in but not be: the project's root, the working directory."""
    return [config.root, Path.cwd()]


def check_output(config: Config, export: Path | Sequence[Path]) -> Path:
    """The output directory as the writer will check it (write.check_output_dir), before anything is created:
    a refused ``--out`` is exit 2 with no side effect. ``podium serve`` calls it before it builds or serves."""
    return check_output_dir(config.out, protected(config, export), homes(config))


@dataclass(frozen=True)
class BuildInputs:
    """One build's inputs (:meth:`of`) and options. ``scanned`` collects what the stat pass saw of the exports
    (load/export/scan.py), so the reader does not stamp every run file again."""

    config: Config
    exports: tuple[Path, ...]
    chain: list[Path]  # the theme's directories, most specific first (render/templates.py)
    content: Path | None  # the content pages' directory
    generated_at: int | None  # SOURCE_DATE_EPOCH
    previous: Path | None = None  # the last publish (summary.json or site directory): change report, redirects
    strict: bool = False  # any problem stops the build before writing
    cache_dir: Path | None = None  # the build cache (cache/store.py), None for none
    jobs: int = 1  # worker processes for run pages and, in a cold build, for reading run directories
    explain: bool = False  # list each page rendered again and why
    progress: Progress | None = None  # called after each file is rendered
    scanned: Scanned = field(default_factory=Scanned)

    @classmethod
    def of(cls, config: Config, export: Path | Sequence[Path], **options) -> BuildInputs:
        """The inputs of a build of ``export`` under ``config``: the output is checked first (a refused output
        creates nothing, not even the cache beside it), then the clock and the theme are read."""
        check_output(config, export)
        chain = theme_chain(config.theme, [config.root / "themes", builtin_themes()], config.theme_dir)
        return cls(config, export_paths(export), chain, content_dir(config), source_date_epoch(), **options)

    def key_parts(self) -> dict[str, object]:
        """Every input of the build but podium itself (the cache adds it), the parts of its key: the theme, the
        content pages, the settings, the clock, the previous publish, the exports (by the stamp of every run
        file: load/export/scan.py) and the compressor of the gzipped parts (render/gzipped.py)."""
        return {
            "theme": tree_fingerprint(self.chain),
            "content": tree_fingerprint([self.content] if self.content else []),
            "settings": self.config,
            "clock": self.generated_at,
            "previous": previous_fingerprint(self.previous),
            "exports": scan(self.exports, self.scanned),
            "compressor": gzipped.fingerprint(),
        }
