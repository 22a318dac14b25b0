"""A small project for the build-cache tests (tests/cache/): an export of a few graded runs with reports, a
site directory and a cache directory beside it, built with or without the cache and compared with a clean
build of the same export."""

from __future__ import annotations

from pathlib import Path

from exportkit import ExportDir, graded, report_md, run_id

import podium.build
from podium.build import build_site
from podium.config import Config


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root``, by its relative path: its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


class CacheProject:
    """``runs`` graded runs (``run-0``…, osprey and kestrel in turn, each with a report), or ``export`` as
    given; built into ``site`` with the cache in ``cache`` (``db``: its database), from ``settings`` (the
    Config's fields)."""

    def __init__(self, tmp: Path, runs: int = 6, settings: dict | None = None, export: ExportDir | None = None):
        self.tmp = tmp
        self.settings: dict = {"title": "Board"} if settings is None else settings
        self.export = export if export is not None else ExportDir(tmp / "export")
        if export is None:
            for n in range(runs):
                self.add(n)
            self.export.sidecars()
        self.cache = tmp / "cache"
        self.db = self.cache / "cache.sqlite"

    def add(self, n: int, mission: str = "m1", **grade) -> str:
        """Run ``n`` (not yet in the sidecars: call ``export.sidecars()``); its id."""
        rid = run_id(f"run-{n}")
        self.export.run(
            graded(rid, det=(n % 4) / 4, judge=0.5, **grade),
            rid=rid,
            mission=mission,
            agent=("osprey", "kestrel")[n % 2],
            report=report_md(rid=rid, extra=f"| Note | run {n} |\n"),
        )
        return rid

    def config(self, out: str = "site") -> Config:
        return Config(source="", root=self.tmp, out=self.tmp / out, **self.settings)

    def build(self, out: str = "site", cache: bool = True, **kw) -> podium.build.Built:
        return build_site(self.config(out), self.export.root, cache_dir=self.cache if cache else None, **kw)

    def assert_same_as_clean(self, export: Path | None = None, site: Path | None = None, **kw) -> None:
        """The site (default: this project's) equals a clean build, without a cache, of ``export`` (default:
        this project's)."""
        clean = self.tmp / f"clean-{len(list(self.tmp.glob('clean-*')))}"
        build_site(self.config(clean.name), export or self.export.root, **kw)
        assert tree(site or self.tmp / "site") == tree(clean)
