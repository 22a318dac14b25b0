"""Render the plan: pages through Jinja, data files as they are, static assets from the theme.

Yields (site path, bytes) one file at a time so the writer can stream them;
``guard_secrets`` stops the build if a configured secret made it into any file.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import jinja2

from podium.errors import BuildError
from podium.plan import Page

ASSETS = "assets"


def render_site(outputs: dict[str, Page | bytes], env: jinja2.Environment,
                static: dict[str, Path]) -> Iterator[tuple[str, bytes]]:
    for path, item in outputs.items():
        yield path, render_page(item, env) if isinstance(item, Page) else item
    for rel, source in sorted(static.items()):
        yield f"{ASSETS}/{rel}", source.read_bytes()


def render_page(page: Page, env: jinja2.Environment) -> bytes:
    try:
        return env.get_template(page.template).render(page.context).encode("utf-8")
    except jinja2.TemplateSyntaxError as err:
        raise BuildError(f"{err.filename or err.name}:{err.lineno}: template error: {err.message}") from None
    except jinja2.TemplateError as err:
        raise BuildError(f"{page.template} (rendering {page.path}): {err}") from None


def guard_secrets(files: Iterable[tuple[str, bytes]], literals: list[str]) -> Iterator[tuple[str, bytes]]:
    """Pass files through; a BuildError names the first file holding a configured secret."""
    needles = [v.encode("utf-8", "surrogatepass") for v in literals]
    for path, data in files:
        for needle in needles:
            if needle in data:
                raise BuildError(f"{path}: a value listed under `redact:` would be published; nothing was written")
        yield path, data
