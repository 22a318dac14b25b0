"""podium: static leaderboard sites from XORCISE run exports.

The pipeline, one folder a stage: ``load/`` (read the export) -> ``count/`` (count every
run once, docs/rules/counting.md) -> ``words/`` (how the figures read) -> ``plan/`` (list every
output file) -> ``render/`` (bytes in memory) -> ``write/`` (the only writer), with ``model/``
(the data types) below them all and ``cache/`` (the build cache) above; ``build.py`` runs it top
to bottom and ``commands/`` is the ``podium`` command. Each layer imports only from the layers
below it (``[tool.importlinter]`` in pyproject.toml, checked by tests/test_layers.py).

For library users, one entry point (what ``podium build`` runs)::

    import podium
    config = podium.load_config(Path("podium.yaml"))        # or None: defaults (+ ./podium.yaml if present)
    built = podium.build_site(config, Path("runs/"), cache_dir=Path(".podium-cache"))
    built.target, built.outline.totals                       # where the site is, what was counted

and, to read the board without writing anything, ``podium.public_view(config, export)``:
the summary exactly as the site publishes it (names redacted), which ``podium rank``
and the other printing commands read.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_API = {
    "build_site": "podium.build",
    "public_view": "podium.views",
    "Built": "podium.build",
    "load_config": "podium.config",
    "Config": "podium.config",
}
__all__ = ["__version__", *_API]


def __getattr__(name: str):
    """The entry points, imported when first used (``import podium`` alone stays cheap)."""
    if name in _API:
        return getattr(importlib.import_module(_API[name]), name)
    raise AttributeError(f"module 'podium' has no attribute {name!r}")
