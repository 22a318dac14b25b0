"""Content pages: ``content/*.md`` with YAML front matter (title, slug, order, template).

Each becomes ``<slug>/index.html`` and a navigation entry. The body is kept as
Markdown here and rendered with the page in the render stage (render/markdown.py
``render_markdown``: raw HTML escaped); its description (front matter ``description``,
else the first sentence of its text) is read here, with the body's other front matter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt
from markupsafe import Markup

from podium import routes
from podium.errors import ConfigError
from podium.load.files import read_file
from podium.load.yamlfile import YamlError, parse_yaml
from podium.model import Problem
from podium.routes import slug as make_slug

TEMPLATE_NAME = re.compile(r"^[a-z0-9_-]+\.html$")
KEYS = {"title", "slug", "order", "template", "description"}
MAX_BYTES = 1024 * 1024
MAX_CHARS = 64 * 1024  # Markdown parsed at most (content pages and reports alike: render/markdown.py)
MAX_BRACKETS = 2000  # more ``[`` are escaped: runs of them would make the parser slow


@dataclass(frozen=True)
class ContentPage:
    source: str
    title: str
    slug: str
    order: int
    template: str
    body: str  # Markdown
    html: Markup | None = None  # the body rendered, with the page (render/markdown.py)
    description: str = ""  # front matter `description`, else the first sentence of the text

    @property
    def path(self) -> str:
        return f"{self.slug}/index.html"


def builtin_pages() -> tuple[Path, ...]:
    """podium's own content pages (``podium/pages/*.md``): "About these numbers", which every page's figures
    link to, section by section (routes.about)."""
    return tuple(sorted((Path(__file__).parents[1] / "pages").glob("*.md")))


def load_pages(directory: Path | None) -> tuple[ContentPage, ...]:
    """Every ``*.md`` directly in ``directory``, then podium's own pages (:func:`builtin_pages`) whose slug no
    page of ``directory`` takes (a content page ``about.md`` replaces podium's "About these numbers"); any
    error stops the build, naming file and field."""
    pages = _load_directory(directory) if directory is not None and directory.is_dir() else []
    taken = {page.slug for page in pages}
    pages += [page for path in builtin_pages() if (page := _load(path, f"podium/pages/{path.name}")).slug not in taken]
    return tuple(pages)


def _load_directory(directory: Path) -> list[ContentPage]:
    pages, errors = [], []
    for path in sorted(directory.glob("*.md")):
        try:
            pages.append(_load(path))
        except ConfigError as err:
            errors.append(str(err.message))
    seen: dict[str, str] = {}
    for page in pages:
        if page.slug in seen:
            errors.append(f"{page.source}: slug: {page.slug!r} is also used by {seen[page.slug]}")
        seen[page.slug] = page.source
    if errors:
        raise ConfigError("\n".join(errors))
    return pages


def _load(path: Path, source: str | None = None) -> ContentPage:
    """One page; ``source`` names it (its path when None)."""
    data = read_file(path, str(path), MAX_BYTES)
    if isinstance(data, Problem) or data is None:
        raise ConfigError(str(data) if data else f"{path}: cannot be read")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path}: not UTF-8 (byte offset {err.start})") from None
    meta, body = _front_matter(text, path)
    title = _field(meta, "title", str, path, path.stem.replace("-", " ").capitalize())
    slug = make_slug(_field(meta, "slug", str, path, title))
    if routes.reserved(slug):
        raise ConfigError(f"{path}: slug: {slug!r} is reserved for podium's own pages ({slug}/ is one of its routes)")
    template = _field(meta, "template", str, path, "page.html")
    if not TEMPLATE_NAME.match(template):
        raise ConfigError(f"{path}: front matter: template: expected a file name like page.html, got {template!r}")
    return ContentPage(
        source=source or str(path),
        title=title,
        slug=slug,
        order=_field(meta, "order", int, path, 100),
        template=template,
        body=body,
        description=_field(meta, "description", str, path, "") or plain_lead(body),
    )


def bounded(text: str) -> tuple[str, str]:
    """Markdown as it is parsed (at most MAX_CHARS, brackets escaped past MAX_BRACKETS), and a note to show
    when it was cut."""
    note = ""
    if len(text) > MAX_CHARS:
        note = f"\n\n*(Cut at {MAX_CHARS // 1024} KiB of {len(text) // 1024} KiB.)*\n"
        text = text[:MAX_CHARS]
    if text.count("[") > MAX_BRACKETS:
        text = text.replace("[", "\\[")
    return text, note


_PARSER = MarkdownIt("js-default", {"maxNesting": 40})  # as render/markdown.py parses it; nothing rendered here


def plain_lead(text: str, limit: int = 300) -> str:
    """The first sentence of the first paragraph of ``text`` (Markdown), as plain text (a page's description)."""
    tokens = _PARSER.parse(bounded(text)[0])
    for index, token in enumerate(tokens):
        if token.type == "paragraph_open" and index + 1 < len(tokens) and tokens[index + 1].type == "inline":
            parts = []
            for child in tokens[index + 1].children or ():
                if child.type in ("text", "code_inline"):
                    parts.append(child.content)
                elif child.type in ("softbreak", "hardbreak"):
                    parts.append(" ")
            plain = " ".join("".join(parts).split())
            if plain:
                sentence = re.split(r"(?<=[.!?])\s", plain, maxsplit=1)[0]
                return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"
    return ""


def _front_matter(text: str, path: Path) -> tuple[dict, str]:
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---\n", 4)
    if end < 0:
        raise ConfigError(f"{path}: front matter starts with --- but never ends")
    try:
        meta = parse_yaml(text[4:end]) or {}
    except YamlError as err:
        raise ConfigError(f"{path}: front matter: {err}") from None
    if not isinstance(meta, dict):
        raise ConfigError(f"{path}: front matter: expected a mapping")
    unknown = set(meta) - KEYS
    if unknown:
        raise ConfigError(f"{path}: front matter: unknown key(s) {', '.join(sorted(map(str, unknown)))}")
    return meta, text[end + 5 :]


def _field(meta: dict, key: str, kind: type, path: Path, default):
    if key not in meta:
        return default
    value = meta[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ConfigError(
            f"{path}: front matter: {key}: expected {'a string' if kind is str else 'a whole number'}, got {value!r}"
        )
    return value
