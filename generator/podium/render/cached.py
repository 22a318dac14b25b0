"""What the render stage asks of a build cache, declared here so that render never imports one.

The cache implements these (cache/keys.py ``Keys``, cache/store.py ``BuildCache``, cache/outdated.py
``Outdated``) and build.py hands its instances in: :class:`ReportKeys` and :class:`ReportStore`, a rendered
report's key and the reports kept; :class:`Reuse`, what was decided for each file of the manifest before
anything is rendered (left in the previous site, written from the cache's copy, or rendered). Without a
cache the renderer uses :data:`NO_REPORT_KEYS`, :data:`NO_REPORT_STORE` and :data:`RENDER_ALL`: every lookup
misses, no key is made, every file is rendered.
"""

from __future__ import annotations

from typing import Any, Protocol

from podium.render.output import Kept


class ReportKeys(Protocol):
    """A rendered report's key (None: it is not kept)."""

    def report(self, report: tuple, record: Any, redaction: Any) -> str | None: ...


class ReportStore(Protocol):
    """The rendered reports a build reads and keeps."""

    def report(self, key: str) -> str | None: ...

    def keep_report(self, key: str, html: str) -> None: ...


class Reuse(Protocol):
    """What happens to each file of the manifest (by its index), decided before anything is rendered."""

    def kept(self, index: int) -> Kept | None:
        """The file left in the previous site as it is (None: it is written)."""
        ...

    def stored(self, index: int) -> bytes | None:
        """The file's bytes from the cache's copy (None: it is rendered)."""
        ...

    def to_render(self, index: int) -> bool:
        """Whether the file was found to need rendering (a copy that does not read back is rendered too)."""
        ...

    def rendered_as(self, index: int, data: bytes) -> None:
        """The file was rendered as ``data`` (the cache keeps it for the next build)."""
        ...


class _NoReportKeys:
    def report(self, report, record, redaction):
        return None


class _NoReportStore:
    def report(self, key):
        return None

    def keep_report(self, key, html):
        pass


class _RenderAll:
    def kept(self, index):
        return None

    def stored(self, index):
        return None

    def to_render(self, index):
        return True

    def rendered_as(self, index, data):
        pass


NO_REPORT_KEYS: ReportKeys = _NoReportKeys()
NO_REPORT_STORE: ReportStore = _NoReportStore()
RENDER_ALL: Reuse = _RenderAll()
