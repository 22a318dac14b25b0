"""The report renderer (render/reportmd.py, pulldown-cmark) against the one it replaced
(tests/mdit_reference.py, markdown-it-py): the same HTML on real and synthetic reports, every
construct known to render differently listed with both outputs, and the same guarantees (no raw
HTML, no unsafe link, nothing of a withheld part, bounded time) on hostile input.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from conftest import SAMPLES, SAMPLES_HTML, needs_samples
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from mdit_reference import render_cut
from mdit_reference import render_report as reference_report
from sitekit import parse_html, url_scheme
from test_withholding import POSITIONS, WITHHELD_POSITIONS, canary, hostile_injections, leaked, report

from podium.load.content import MAX_CHARS
from podium.render import reportmd
from podium.render.markdown import render_report
from podium.safety.redact import Redaction, Redactor

REPO = Path(__file__).resolve().parents[2]
REDACT = Redactor(["some-literal-value-123", "FLAG{n0n3_alg_1s_n0t_a_s1gnatur3}"])


def reports(*roots: Path) -> list[Path]:
    return sorted(path for root in roots for path in root.rglob("report.md"))


# ---------------------------------------------------------------------------- the same HTML


@needs_samples(SAMPLES)
@needs_samples(SAMPLES_HTML)
def test_the_real_sample_reports_render_byte_for_byte_as_before():
    paths = reports(SAMPLES, SAMPLES_HTML)
    assert len(paths) >= 12
    for path in paths:
        text = path.read_text(encoding="utf-8")
        assert str(render_report(text, REDACT)) == str(reference_report(text, REDACT)), path


def test_the_demo_export_reports_render_byte_for_byte_as_before():
    paths = reports(REPO / "content" / "demo-export")
    assert len(paths) > 100
    run = type("Run", (), {"mission": "m", "answers": (), "secrets": ("own-secret-value",)})()
    redact = Redaction(["podium-demo"], [run]).for_run(run)
    for path in paths:
        text = path.read_text(encoding="utf-8")
        assert str(render_report(text, redact)) == str(reference_report(text, redact)), path


# Every construct found to render differently (hypothesis and hand search over reports, hostile
# Markdown and the CommonMark corners), as (markdown, markdown-it-py's HTML, ours). None links
# more, shows raw HTML or shows more of a withheld part: where they differ on what is shown,
# ours shows less.
DIFFERENCES = {
    # redacted where markdown-it-py did not redact (a secret there was published)
    "a link title is redacted": (
        '[a](https://x.example "FLAG{t}")',
        '<p><a href="https://x.example" title="FLAG{t}" rel="nofollow noopener noreferrer">a</a></p>\n',
        '<p><a href="https://x.example" title="[REDACTED:flag]" rel="nofollow noopener noreferrer">a</a></p>\n',
    ),
    "a code block's language is redacted": (
        "```FLAG{x}\ncode\n```",
        '<pre><code class="language-FLAG{x}">code\n</code></pre>\n',
        '<pre><code class="language-[REDACTED:flag]">code\n</code></pre>\n',
    ),
    # the second layer hides more (render/reportmd.py: it must hide all markdown-it-py hid)
    "a section title with markup still names the section": (
        "## **Artifacts**\n\nsecret\n\n## Telemetry\n\nok",
        "<h2><strong>Artifacts</strong></h2>\n<p>secret</p>\n<h2>Telemetry</h2>\n<p>ok</p>\n",
        "<h2>Telemetry</h2>\n<p>ok</p>\n",
    ),
    "an element opened in a dropped section is dropped whole": (
        "## Artifacts\n\n- secret\n- ## Telemetry\n- shown?\n\n## Conditions\n\nok",
        "<h2>Telemetry</h2>\n</li>\n<li>shown?</li>\n</ul>\n<h2>Conditions</h2>\n<p>ok</p>\n",
        "<h2>Conditions</h2>\n<p>ok</p>\n",
    ),
    "a paragraph's last or underlined line naming a withheld section starts it": (
        "text\nArtifacts\n\nmore",
        "<p>text\nArtifacts</p>\n<p>more</p>\n",
        "",
    ),
    "a heading with a pipe (a table to markdown-it-py, maybe) does not end a section": (
        "## Artifacts\n\nx\n\na | b\n---\n\nsecret",
        "<h2>a | b</h2>\n<p>secret</p>\n",
        "",
    ),
    "text with a pipe under Deterministic checks (table rows, maybe) is dropped": (
        "## Deterministic checks\n\npara\n| Value |\n---\n| secret |",
        "<h2>Deterministic checks</h2>\n<p>para</p>\n<table>\n<thead>\n<tr></tr>\n</thead>\n<tbody>\n<tr></tr>\n"
        "</tbody>\n</table>\n",
        "<h2>Deterministic checks</h2>\n",
    ),
    # links: fewer, never more
    "a refused link inside link text keeps the outer one from linking": (
        "[a [l](javascript:x)](https://ok.example)",
        '<p><a href="https://ok.example" rel="nofollow noopener noreferrer">a [l](javascript:x)</a></p>\n',
        "<p>[a [l](javascript:x)](https://ok.example)</p>\n",
    ),
    "a refused duplicate link definition is dropped, not shown": (
        "[a]: https://ok.example\n[a]: javascript:x\n\n[a]",
        '<p><a href="https://ok.example" rel="nofollow noopener noreferrer">a</a>: javascript:x</p>\n'
        '<p><a href="https://ok.example" rel="nofollow noopener noreferrer">a</a></p>\n',
        '<p><a href="https://ok.example" rel="nofollow noopener noreferrer">a</a></p>\n',
    ),
    "an e-mail autolink with a lone tilde is text": (
        "<a~b@c.example>",
        '<p><a href="mailto:a~b@c.example" rel="nofollow noopener noreferrer">a~b@c.example</a></p>\n',
        "<p>&lt;a~b@c.example&gt;</p>\n",
    ),
    "an angle-bracket destination on the next line is text": (
        "[x](\n<https://a.example/b c>)",
        '<p><a href="https://a.example/b%20c" rel="nofollow noopener noreferrer">x</a></p>\n',
        "<p>[x](\n&lt;https://a.example/b c&gt;)</p>\n",
    ),
    # block structure: pulldown-cmark's reading of the CommonMark and GFM corners
    "a line after a link definition continues its paragraph": (
        "[1]: https://ok.example\n3) x",
        '<ol start="3">\n<li>x</li>\n</ol>\n',
        "<p>3) x</p>\n",
    ),
    "an indented line after a link definition is not code": (
        "[1]: https://ok.example\n    code",
        "<pre><code>code\n</code></pre>\n",
        "<p>code</p>\n",
    ),
    "a table delimiter row without pipes underlines a heading": (
        "a |\n---\nb",
        "<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>b</td>\n</tr>\n</tbody>\n</table>\n",
        "<h2>a |</h2>\n<p>b</p>\n",
    ),
    "a table row starting with > is a block quote": (
        "> a | b\n|---|---|\n| c | d |",
        "<table>\n<thead>\n<tr>\n<th>&gt; a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>c</td>\n<td>d</td>\n"
        "</tr>\n</tbody>\n</table>\n",
        "<blockquote>\n<p>a | b\n|---|---|\n| c | d |</p>\n</blockquote>\n",
    ),
    "a row of only a pipe ends a table": (
        "| a |\n|---|\n| b\n |",
        "<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>b</td>\n</tr>\n<tr>\n<td></td>\n"
        "</tr>\n</tbody>\n</table>\n",
        "<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>b</td>\n</tr>\n</tbody>\n</table>\n"
        "<p>|</p>\n",
    ),
    "nesting beyond the limit: its text is shown, not its elements": (
        "> " * 70 + "deep",
        "<blockquote>\n" * 39 + "<blockquote></blockquote>\n" + "</blockquote>\n" * 39,
        "<blockquote>\n" * 64 + "deep" + "</blockquote>\n" * 64,
    ),
    # white space
    "a tab in the white space ending a line makes a hard break": ("a \t\nb", "<p>a \t\nb</p>\n", "<p>a<br>\nb</p>\n"),
    "a closing #-sequence after a tab stays in the heading": (
        "### Title\t##",
        "<h2>Title</h2>\n",
        "<h2>Title\t##</h2>\n",
    ),
    "the blank last line of an unclosed fence is kept": (
        "```\na\n\n\t",
        "<pre><code>a\n\n</code></pre>\n",
        "<pre><code>a\n\n\t</code></pre>\n",
    ),
}


@pytest.mark.parametrize("name", sorted(DIFFERENCES))
def test_every_known_difference(name):
    markdown, before, now = DIFFERENCES[name]
    assert str(render_cut(markdown, Redactor())) == before
    assert reportmd.render(markdown, Redactor()) == now


# Constructs rendered the same (the corners the differences above are next to).
SAME = [
    "~~~a~~~ and ~~b~~~ ~a~ ~~s~~",
    "<div>\n*x*\n</div>",
    'a <span title="*x*">b</span> (<b>bold</b>)',
    "a\x00b",
    "![a `FLAG{c}` b](https://x.example/i.png)",
    "`c`x  \ny",
    "- <div>\n- b",
    "> [!NOTE]\n> hi",
    "## Deterministic checks\n\n| Value |\n|---|\n| s |",
    "> [a](javascript:x\n> 'T')",
    "x <a@b.c>  \ny",
    "[x](&#106;avascript:y) [x]( javascript:y 'T') [x](<javascript:y>) ![*i*](vbscript:x) [](file:///x)",
    "<javascript:alert(1)> <data:text/html,x> <https://ü.example/ä> <a@b.example> <MAILTO:a@b.example>",
    "[r][1] ![i][1]\n\n[1]: javascript:alert(1)\n[2]: data:image/png;base64,AAAA\n\n![p][2]",
    "- a\n  > q\n- b\n  ```\n  c\n  ```\n- c\n  # h\n  d\n-\n- > x\n\n> \n\n1. a\n\n   b\n",
    "| a | b | c |\n|:-|:-:|-:|\n| 1 |\n\n| h |\n|---|\n",
    "    code",
    "***\n---\n___",
    "a  \nb\\\nc",
    "\\<x> &lt;div&gt; &amp; &#0; &copy;",
    "*a **b** c* __d__ ***e***",
    "[a ![b](x)](y)",
    "![a ![b](x) c](y)",
    "![<https://xn--tda.example/a%20b>](x) <https://xn--tda.example/a%20b> ![a <b@c.example>](x)",
]


@pytest.mark.parametrize("markdown", SAME)
def test_corners_render_the_same(markdown):
    assert reportmd.render(markdown, REDACT) == str(render_cut(markdown, REDACT))


# ---------------------------------------------------------------------------- the guarantees

TAGS = {
    "p",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "em",
    "strong",
    "s",
    "code",
    "pre",
    "a",
    "ul",
    "ol",
    "li",
    "blockquote",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "br",
    "hr",
}
ATTRIBUTES = {
    ("a", "href"),
    ("a", "rel"),
    ("a", "title"),
    ("ol", "start"),
    ("th", "style"),
    ("td", "style"),
    ("code", "class"),
}
SAFE_SCHEMES = {None, "http", "https", "mailto", "ftp", "ssh"}


def assert_safe(html: str) -> None:
    doc = parse_html(html)
    assert doc.comments == [] and doc.stray_end_tags == [], html
    for tag in doc.tags:
        assert tag.tag in TAGS, (tag, html)
        for name, value in tag.attrs:
            assert (tag.tag, name) in ATTRIBUTES, (tag, html)
            if name == "href":
                assert (
                    url_scheme(value) in SAFE_SCHEMES
                    or url_scheme(value) == "data"
                    and re.match(r"data:image/(gif|png|jpeg|webp);", value)
                ), (value, html)
            elif name == "rel":
                assert value == reportmd.REL
            elif name == "style":
                assert value in ("text-align:left", "text-align:center", "text-align:right")
            elif name == "class":
                assert value.startswith("language-")
            elif name == "start":
                assert value.isdigit()


RAW_HTML = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<iframe src="https://evil.example/"></iframe>',
    "<style>body { display: none }</style>",
    "<!-- a comment -->",
    "<svg onload=alert(1)><foreignObject></foreignObject></svg>",
    '<a href="javascript:alert(1)">x</a>',
    "<?php echo 1; ?>",
    "<!DOCTYPE html>",
    "<![CDATA[ x ]]>",
    "</div>",
    "<textarea>",
    "<pre>\n\n## Artifacts\n\n</pre>",
    "<b\nonclick=alert(1)>x</b>",
    "<div\n",
    "<x-y z=1/>",
]


@pytest.mark.parametrize("raw", RAW_HTML)
@pytest.mark.parametrize("where", ["block", "inline", "in a list", "in a quote", "in a table", "after a paren"])
def test_raw_html_is_escaped_text(raw, where):
    markdown = {
        "block": raw,
        "inline": f"text {raw} text",
        "in a list": f"- {raw}",
        "in a quote": f"> {raw}",
        "in a table": f"| a |\n|---|\n| {raw} |",
        "after a paren": f"see ({raw})",
    }[where]
    html = reportmd.render(markdown, Redactor())
    assert_safe(html)
    assert raw.split()[0][:4] in parse_html(html).text(), html  # shown as text
    if "\n" not in raw:  # (a line break inside a container: DIFFERENCES)
        assert html == str(render_cut(markdown, Redactor()))


UNSAFE_LINKS = [
    "[js](javascript:alert(1))",
    "[mixed](JaVaScRiPt:alert(1))",
    "[data](data:text/html,<script>alert(1)</script>)",
    "[vb](vbscript:msgbox(1))",
    "[file](file:///etc/passwd)",
    "<javascript:alert(1)>",
    "<vbscript:x>",
    "<data:text/html,x>",
    "[ref][1]\n\n[1]: javascript:alert(1)",
    "[ref]\n\n[ref]: <javascript:alert(1)>",
    "![img](javascript:alert(1))",
    "![img][i]\n\n[i]: vbscript:x",
    "[e](&#106;avascript:alert(1))",
    "[e](&#x6A;avascript:alert(1))",
    "[e](java&#x09;script:x)",
    "[e](\\javascript:x)",
    "[e](<javascript:x>)",
    "[e]( javascript:x )",
    "[t](javascript:x 'title')",
    "[s](data:image/svg+xml;base64,PHN2Zz4=)",
    "[n](javascript%3Aalert(1))",
    "[u](jav\u0000ascript:x)",
]


@pytest.mark.parametrize("link", UNSAFE_LINKS)
def test_unsafe_link_schemes_never_link(link):
    for markdown in (link, f"text {link} text", f"> - {link}", f"| a |\n|---|\n| {link} |"):
        html = reportmd.render(markdown, Redactor())
        assert_safe(html)
        assert html == str(render_cut(markdown, Redactor()))


def test_safe_links_and_images_are_links_with_rel():
    html = reportmd.render(
        "[d](https://example.com/docs) <mailto:a@example.com> ![p](https://t.example/p.gif) "
        "![i](data:image/png;base64,AAAA) [r](../x#y)",
        Redactor(),
    )
    links = {a.text(): a.get("href") for a in parse_html(html).all("a")}
    assert links == {
        "d": "https://example.com/docs",
        "mailto:a@example.com": "mailto:a@example.com",
        "[image: p]": "https://t.example/p.gif",
        "[image: i]": "data:image/png;base64,AAAA",
        "r": "../x#y",
    }
    assert all(a.get("rel") == reportmd.REL for a in parse_html(html).all("a"))
    assert "<img" not in html


BOMBS = {
    "60,000 nested >": ">" * 60_000 + "x",
    "30,000 nested '> '": "> " * 30_000 + "x",
    "3,000-deep list": "- " * 3_000 + "x",
    "3,000-deep ordered list": "1. " * 3_000 + "x",
    "3,000 indented list levels": "\n".join("  " * i + "- x" for i in range(3_000)),
    "quotes and lists": "> - " * 15_000 + "x",
    "50,000 [": "[" * 50_000,
    "1,999 nested refused links": "[" * 1_999 + "x" + "](javascript:y)" * 1_999,
    "1,999 nested refused images": "![" * 1_999 + "x" + "](javascript:y)" * 1_999,
    "[]( openers": "[](" * 30_000,
    "*_ runs": "*_" * 40_000,
    "1,000,000 <": "<" * 1_000_000,
    "30,000 tags": "<b>" * 30_000,
    "backslashes before <": ("\\" * 1_000 + "<b>") * 60,
    "60,000 backticks": "`" * 60_000,
    "lone tildes": "~a " * 20_000,
    "3,000 refused definitions": "".join(f"[{i}]: javascript:x\n" for i in range(3_000)) + "[1]",
    "20,000 references": "[a]: /u\n" + "[a]" * 20_000,
    "a wide table": "|" + "a|" * 20_000 + "\n|" + "-|" * 20_000 + "\n|" + "b|" * 20_000,
    "section names with long lines": "artifacts\nx" + " " * 60_000 + "y",
    "5,000 Artifacts headings": "## Artifacts\n" * 5_000,
}


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_pathological_markdown_is_bounded(name):
    text = BOMBS[name]
    for render in (lambda t: reportmd.render(t, Redactor()), lambda t: str(render_report(t, Redactor()))):
        start = time.process_time()  # (CPU time: a busy machine's wall clock counts other processes)
        html = render(text)
        assert time.process_time() - start < 3.0, name
        assert len(html) < 12 * len(text) + 1000
        if len(text) < 300_000:
            assert_safe(html)
    assert len(str(render_report(text, Redactor()))) < 40 * MAX_CHARS


# ---------------------------------------------------------------------------- withheld parts


@seed(20261204)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_injections())
def test_the_second_layer_hides_all_that_markdown_it_py_hid(case):
    """Without the line cut (safety/withhold.py), on every forgery form of the withholding fuzz
    test: no canary is shown that markdown-it-py's second layer hid, and, with the cut, none."""
    inject, newline = case
    text = report(inject).replace("\n", newline)
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # (as withhold() hands it over)
    ours = set(leaked(reportmd.render(text, Redactor())))
    theirs = set(leaked(str(render_cut(text, Redactor()))))
    assert ours <= theirs
    assert leaked(str(render_report(report(inject).replace("\n", newline), Redactor()))) == []


def test_the_second_layer_alone_hides_the_artifacts_section_and_the_value_column():
    text = report({p: canary(p) for p in POSITIONS})
    html = reportmd.render(text, Redactor())  # no line cut
    assert canary("artifact") not in html and canary("checks_value") not in html
    assert canary("checks_error") in html and canary("terrain") in html  # (the line cut's to hide)
    for variant in (
        "# Artifacts",
        "##   artifacts  ",
        "## ARTIFACTS ##",
        "Artifacts\n===",
        "Artifacts\n---",
        "> ## Artifacts",
        "- ## Artifacts",
        "## *Artifacts*",
        "## Artifacts\t##",
    ):
        html = reportmd.render(
            f"## Scores\n\nshown\n\n{variant}\n\n```\nHIDDEN\n```\n\nHIDDEN-2\n\n## Telemetry\n\nafter", Redactor()
        )
        assert "HIDDEN" not in html, variant
        assert "shown" in html and "after" in html, variant
    for header in ("Value", "value", " VALUE ", "**Value**", "`Value`"):
        html = reportmd.render(
            f"## Deterministic checks\n\n| Check | {header} | Error |\n| --- | --- | --- |\n"
            "| flag | SECRET-VALUE | e |\n| f2 | | e2 |\n| f3 |",
            Redactor(),
        )
        assert "SECRET-VALUE" not in html and "flag" in html and "e2" in html, header
        assert_safe(html)


# ---------------------------------------------------------------------------- hostile Markdown

ATOMS = [
    "text",
    "*em*",
    "**strong**",
    "_u_",
    "`code`",
    "``a`b``",
    "[l](https://x.example/a)",
    "[l](javascript:alert(1))",
    "![i](https://x.example/p.png)",
    "![i *e*](javascript:x)",
    "<https://a.example/ü>",
    "<a@b.example>",
    "<javascript:x>",
    "<b>",
    "</b>",
    "<!-- c -->",
    "<div>",
    "~x~",
    "~~s~~",
    "~",
    "\\<x>",
    "&amp;",
    "&#106;",
    "FLAG{f}",
    "some-literal-value-123",
    "[r][1]",
    "[1]",
    "[x]: javascript:y",
    "[1]: https://ok.example",
    "\\",
    "  ",
    "|",
    "#",
    "## ",
    "> ",
    "- ",
    "1. ",
    "```",
    "~~~",
    "    ",
    "***",
    "---",
    "===",
    "<pre>",
    "</pre>",
    "<script>",
    "(<b>)",
    "[a](<b c>)",
    "*",
    "_",
    "[",
    "]",
    "(",
    ")",
    "Artifacts",
    "Deterministic checks",
    "Value",
    "| a | b |",
    "|---|---|",
    "| c | d |",
    "\t",
    "Bearer abcdefghijklmnop",
    "password=x",
    "\u27e1",
    "\u2053",
]
documents = st.lists(st.lists(st.sampled_from(ATOMS), max_size=7).map(" ".join), min_size=1, max_size=9).map("\n".join)


@seed(20261205)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_hostile_markdown_renders_safely_and_redacted(markdown):
    html = reportmd.render(markdown, REDACT)
    assert_safe(html)
    text = parse_html(html).text()
    assert "some-literal-value-123" not in text and "FLAG{f}" not in text and "abcdefghijklmnop" not in text
    if not re.search(r"Artifacts|Deterministic|\]:|\||~~~|\t|\\ +\n|---|===", markdown):
        assert html == str(render_cut(markdown, REDACT))  # the constructs rendered alike, rendered alike


def test_stand_in_characters_in_the_text_are_kept():
    text = "\u27e1 \u2bd1 \u2e3a \u27e2 \u2bd2 <b> \u2053 \u2bd3 \u2e3b \u27e3 \u2bd4 ~x"
    html = reportmd.render(text, Redactor())
    assert html == str(render_cut(text, Redactor()))
    assert parse_html(html).text().strip() == text


def test_a_texts_hard_breaks_survive_unless_it_is_redacted():
    assert reportmd.render("a  \nb\\\nc", Redactor()) == "<p>a<br>\nb<br>\nc</p>\n"
    key = "-----BEGIN RSA PRIVATE KEY-----  \nMIIE\\\n-----END RSA PRIVATE KEY-----"
    assert reportmd.render(key, Redactor()) == "<p>[REDACTED:private-key]</p>\n"  # the run, redacted whole


def test_report_withholding_still_runs_first():
    html = str(render_report(report({"artifact": "## Judge rubric\nSOLUTION-SCRIPT-BODY"}), Redactor()))
    assert "SOLUTION-SCRIPT-BODY" not in html and "Withheld" in html
    assert all(canary(p) not in html for p in WITHHELD_POSITIONS)


def test_a_report_holding_every_stand_in_is_still_safe():
    """With no stand-in free, "<" stays: pulldown-cmark then reads HTML, written as escaped text;
    an HTML block naming a withheld section starts it, and under the checks heading one is dropped."""
    every = "".join(reportmd._LT_STANDINS + reportmd._TILDE_STANDINS)
    html = reportmd.render(
        every + "\n\n<pre>\n\n## Artifacts\n\nSECRET-1\n\n</pre>\n\nSECRET-2\n\n## Telemetry\n\n"
        "ok <b>x</b> <script>alert(1)</script>\n\n## Deterministic checks\n\n<div>\n| a | SECRET-3 |\n"
        "</div>\n\n| Check | Value |\n|---|---|\n| f | SECRET-4 |",
        Redactor(),
    )
    assert_safe(html)
    assert "SECRET" not in html
    assert "ok &lt;b&gt;x&lt;/b&gt; &lt;script&gt;alert(1)&lt;/script&gt;" in html and every in html


def test_a_lone_surrogate_becomes_the_replacement_character():
    assert reportmd.render("a\ud800b <b>", Redactor()) == "<p>a\ufffdb &lt;b&gt;</p>\n"
