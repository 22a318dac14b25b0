"""Markdown to safe HTML: content pages (markdown-it-py) and run reports (pulldown-cmark).

Content pages: markdown-it-py's ``js-default`` preset: raw HTML is escaped, tables
on, link schemes validated (``javascript:``, ``vbscript:``, ``file:``, ``data:``
other than images are refused). On top of it: images become plain links (no
remote requests), links get ``rel="nofollow noopener noreferrer"``, headings move
one level down so a page keeps one ``<h1>``, and time is bounded (input cap, and
``[`` runs that would make the parser slow are escaped).

Reports (xorcise-export.md "What a public site must never show"): the
secret-bearing sections are cut line by line before parsing (safety/withhold.py
states the contract), the same bounds apply, then render/reportmd.py renders the
rest with pulldown-cmark to the HTML markdown-it-py would write, with the same
rules, and as a second layer drops anything still under an ``Artifacts`` heading
and the ``Value`` column of a checks table; every text is passed through the
redactor, a run of text at a time across its line breaks. (Reports are most of a
cold build's work, and this renderer is several times faster; docs/development.md "Dependencies, and why".)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markupsafe import Markup

from podium import routes
from podium.load.content import ContentPage, bounded
from podium.render import reportmd
from podium.safety.withhold import withhold

_REL = reportmd.REL


def _render_image(self, tokens, idx, options, env) -> str:
    token = tokens[idx]
    src = escapeHtml(token.attrGet("src") or "")
    alt = escapeHtml(self.renderInlineAsText(token.children or [], options, env)) or "image"
    return f'<a href="{src}" rel="{_REL}">[image: {alt}]</a>'


def _render_link_open(self, tokens, idx, options, env) -> str:
    tokens[idx].attrSet("rel", _REL)
    return self.renderToken(tokens, idx, options, env)


def _markdown() -> MarkdownIt:
    md = MarkdownIt("js-default", {"maxNesting": 40})
    md.add_render_rule("image", _render_image)
    md.add_render_rule("link_open", _render_link_open)
    return md


_MD = _markdown()


def rendered(page: ContentPage) -> ContentPage:
    """A content page (load/content.py) with its Markdown body rendered."""
    return replace(page, html=render_markdown(page.body))


def render_markdown(text: str) -> Markup:
    """A trusted content page (still with raw HTML escaped)."""
    text, note = bounded(text)
    tokens = _MD.parse(text + note)
    _demote_headings(tokens, top=2)
    _anchor_headings(tokens)
    return Markup(_MD.renderer.render(tokens, _MD.options, {}))


def _anchor_headings(tokens: list) -> None:
    """Give each heading an ``id``: the slug of its text (``## Ranges and intervals`` is
    ``#ranges-and-intervals``), a repeated one suffixed ``-2``, ``-3``…, so pages can link to a section
    (routes.about: every figure's explanation on "About these numbers")."""
    seen: dict[str, int] = {}
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and index + 1 < len(tokens):
            anchor = routes.slug(tokens[index + 1].content)
            seen[anchor] = seen.get(anchor, 0) + 1
            token.attrSet("id", anchor if seen[anchor] == 1 else f"{anchor}-{seen[anchor]}")


def render_report(text: str, redact: Callable[[str], str]) -> Markup:
    """A run's report.md without its secret-bearing parts, every text redacted (render/reportmd.py)."""
    return Markup(reportmd.render(_report_source(text), redact))


def report_texts(text: str) -> list[str]:
    """The texts :func:`render_report` hands its redactor for ``text`` (render/reportmd.py ``texts_to_redact``)."""
    return reportmd.texts_to_redact(_report_source(text))


def _report_source(text: str) -> str:
    """A report as the report renderer is given it: its secret-bearing parts cut, bounded."""
    text, note = bounded(withhold(text))
    return text + note


def _demote_headings(tokens: list, top: int) -> None:
    """Renumber headings to sit under the page's own: the first becomes h<top>, and each one
    is at most one level below the heading before it, so no level is ever skipped (a content
    page's "##" under its h1 becomes h2; "#" then "###" becomes h<top>, h<top+1>). Levels are
    capped at h6. (render/reportmd.py numbers a report's headings the same way.)"""
    open_levels: list[int] = []  # source levels of the headings enclosing this point
    for token in tokens:
        if token.type == "heading_open":
            level = int(token.tag[1])
            while open_levels and open_levels[-1] >= level:
                open_levels.pop()
            open_levels.append(level)
            token.tag = f"h{min(top + len(open_levels) - 1, 6)}"
        elif token.type == "heading_close":
            token.tag = f"h{min(top + len(open_levels) - 1, 6)}"
