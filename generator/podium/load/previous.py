"""The previous publish a build carries on from (``podium build --previous PREV``, ``podium diff``): PREV is a
summary.json, or a site directory holding ``api/results/summary.json``; beside the summary, ``changes.json``
holds the last few change reports and ``redirects.json`` the old paths that still redirect.

Each is read as a published file (load/published.py: a regular file of bounded size, strict JSON) and handed
on as its JSON value; what it must hold is checked where it is used (count/bundle.py for the summary,
count/changes.py for the history and the redirects). A summary that cannot be read stops the build (a
:class:`BundleError`, exit 2); a history or redirects file that cannot be read is ignored with a warning.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from podium import routes
from podium.errors import PodiumError
from podium.load.files import NotReadable, TooLarge, read_regular
from podium.load.published import MAX_BYTES, read

SUMMARY_IN_SITE = Path(routes.SUMMARY_JSON)
HISTORY = "changes.json"
REDIRECTS = "redirects.json"


class BundleError(PodiumError):
    """An input is not a readable podium summary; the message names the file and the field (exit 2)."""


class BundleTooLarge(BundleError):
    """A summary over the size podium reads back (load/published.py MAX_BYTES): a build with ``--previous``
    goes on without a change report (count/changes.py); ``podium diff``, given the file, stops (exit 2)."""


@dataclass(frozen=True)
class Carried:
    """A file carried from the previous publish: its JSON value, or None (absent, or with ``warning``)."""

    path: Path
    value: object | None = None
    warning: str | None = None


@dataclass(frozen=True)
class PreviousPublish:
    summary: object | None  # summary.json's JSON value; None when it is too large to read back (``warning``)
    where: str  # summary.json's path, as a problem names it
    history: Carried  # changes.json
    redirects: Carried  # redirects.json
    warning: str | None = None  # the summary ignored, and why


def summary_path(path: Path) -> Path:
    """A summary.json path, or a built site directory's ``api/results/summary.json``."""
    return path / SUMMARY_IN_SITE if path.is_dir() else path


def read_summary(path: Path) -> tuple[object, str]:
    """The JSON value of the summary ``path`` names (:func:`summary_path`) and where it is, as problems name it;
    a BundleError when it cannot be read."""
    file = summary_path(path)
    where = str(file)
    try:
        return read(file), where
    except FileNotFoundError:
        hint = " (not a built podium site?)" if path.is_dir() else ""
        raise BundleError(f"{where}: file not found{hint}") from None
    except TooLarge as err:
        raise BundleTooLarge(
            f"{where}: {err}: podium reads back a summary of at most {MAX_BYTES // (1024 * 1024)} MiB"
        ) from None
    except NotReadable as err:
        raise BundleError(f"{where}: {err}; not a podium summary") from None


def read_previous(path: Path) -> PreviousPublish:
    """The previous publish at ``path``: its summary (a BundleError when it cannot be read; one larger than podium
    reads back is ignored with a warning: a summary that grew past it would otherwise make every later build
    with ``--previous`` fail, and through the action every later publish, issue 34), change history and
    redirects."""
    folder = summary_path(path).parent
    history, redirects = _carried(folder / HISTORY), _carried(folder / REDIRECTS)
    try:
        summary, where = read_summary(path)
    except BundleTooLarge as err:
        why = f"--previous {err}; ignored: no change report this time (the change history is kept)"
        return PreviousPublish(None, str(summary_path(path)), history, redirects, why)
    return PreviousPublish(summary, where, history, redirects)


def _carried(path: Path) -> Carried:
    if not os.path.lexists(path):
        return Carried(path)
    try:
        return Carried(path, read(path))
    except (NotReadable, OSError) as err:
        return Carried(path, warning=f"{path}: ignored, cannot be read as JSON ({err}); it starts again")


def previous_fingerprint(path: Path | None) -> str | None:
    """The files of the previous publish a build reads (its summary, change history and redirects), by their
    bytes: a part of the whole build's key (cache/store.py ``unchanged_build``)."""
    if path is None:
        return None
    summary = summary_path(path)
    digest = hashlib.sha256()
    for file in (summary, summary.parent / HISTORY, summary.parent / REDIRECTS):
        try:
            digest.update(hashlib.sha256(read_regular(file, MAX_BYTES)).digest())
        except (OSError, NotReadable):
            digest.update(b"-")
    return digest.hexdigest()
