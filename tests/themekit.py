"""The theme contract as themes/README.md writes it: its context sections, whether a key is documented, and the
keys a context holds (tests/render/test_templates_lint.py, tests/plan/test_changes_feed_badges.py)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from podium.plan import contexts

README = Path(__file__).resolve().parents[1] / "themes" / "README.md"


def readme_sections() -> tuple[str, set[str], dict[str, str]]:
    """The whole README, the fields of its "Context every page gets" table, and the per-template rows."""
    text = README.read_text(encoding="utf-8")
    section = re.search(r"^## Context every page gets\n(.*?)(?=^## )", text, re.S | re.M)
    assert section, "themes/README.md lost its 'Context every page gets' section"
    common = set(re.findall(r"^\|\s*`(\w+)`\s*\|", section.group(1), re.M))
    rows = {}
    for line in text.splitlines():  # the standalone templates: a table row each
        match = re.match(r"^\|\s*`([\w./-]+\.(?:html|svg|xml))`\s*\|(.*)\|\s*$", line)
        if match:
            rows[match.group(1)] = match.group(2)
    for match in re.finditer(r"^### `([\w./-]+\.(?:html|svg|xml))`\n(.*?)(?=^#|^<!--)", text, re.S | re.M):
        rows[match.group(1)] = match.group(2)  # a page's: its section (tests/test_theme_contexts.py makes it)
    return text, common, rows


def documented(key: str, text: str) -> bool:
    return re.search(rf"`{re.escape(key)}(?:\([^`]*\))?`", text) is not None


def nested_keys(value, depth: int = 0) -> set[str]:
    """Keys of dicts inside a context value (dicts, and lists of dicts), a few levels down."""
    keys: set[str] = set()
    if depth > 3:
        return keys
    if dataclasses.is_dataclass(value) and type(value).__module__ == contexts.__name__:
        for field in dataclasses.fields(value):
            keys.add(field.name)
            keys |= nested_keys(getattr(value, field.name), depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                keys.add(key)
            keys |= nested_keys(item, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value[:5]:
            keys |= nested_keys(item, depth + 1)
    return keys
