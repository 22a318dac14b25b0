"""Mission versions: their order and which one is current (counting.md §4).

SemVer versions compare numerically (a pre-release sorts below its release) and
rank above pre-versioning ``r<n>`` ones, which compare by n. Anything else
(``(unattributed)``, free text) ranks below both, by its text.
"""

from __future__ import annotations

import re

_SEMVER = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$")
_REVISION = re.compile(r"^r(\d+)$")


def version_key(version: str) -> tuple:
    """A sort key: higher key = newer version. Total and deterministic."""
    match = _SEMVER.match(version)
    if match:
        numbers = tuple(int(part or 0) for part in match.group(1, 2, 3))
        pre = match.group(4)
        pre_key = (1,) if pre is None else (0, tuple(_pre_part(p) for p in pre.split(".")))
        return (2, numbers, pre_key, version)
    match = _REVISION.match(version)
    if match:
        return (1, (int(match.group(1)),), (), version)
    return (0, (), (), version)


def _pre_part(part: str) -> tuple:
    """SemVer pre-release identifiers: numeric ones sort below alphanumeric ones."""
    return (0, int(part), "") if part.isdigit() else (1, 0, part)


def current_versions(seen: dict[str, set[str]], configured: dict[str, str]) -> dict[str, str]:
    """mission -> its current version: the configured one, else the highest seen."""
    current = {mission: max(versions, key=version_key) for mission, versions in seen.items()}
    for mission, version in configured.items():
        if mission in current:
            current[mission] = version
    return current
