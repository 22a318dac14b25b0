"""Markup misuse lint (hostile-input.md E16) and the theme contract of themes/README.md.

Templates may not switch escaping off, mark strings safe, leave an attribute
unquoted, or carry inline script, event handlers or style attributes (the pages'
CSP forbids them). Python code may build ``Markup`` only where an allowlisted
renderer makes safe HTML. Every context key a page template receives is
documented in themes/README.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from themekit import documented, nested_keys, readme_sections

import podium.build
import podium.render.site
from podium.build import build_site
from podium.config import load_config
from podium.plan.entries import Page

REPO = Path(__file__).resolve().parents[2]
THEMES = REPO / "themes"
# report.py wraps a cached render_report() result back into Markup, unchanged
MARKUP_ALLOWED = {
    "generator/podium/render/markdown.py",
    "generator/podium/load/content.py",
    "generator/podium/render/report.py",
}

_JINJA_COMMENT = re.compile(r"\{#.*?#\}", re.S)
_JINJA_STATEMENT = re.compile(r"\{%.*?%\}", re.S)
_JINJA_EXPRESSION = re.compile(r"\{\{.*?\}\}", re.S)

# (rule, pattern, applied to: "raw" template text or "markup" = text with Jinja removed)
RULES = [
    ("|safe filter", re.compile(r"\|\s*safe\b"), "raw"),
    ("Markup( call", re.compile(r"\bMarkup\s*\("), "raw"),
    ("autoescape false", re.compile(r"autoescape\s+false\b", re.I), "raw"),
    ("|tojson (breaks out of attributes)", re.compile(r"\|\s*tojson\b"), "raw"),
    ("unquoted attribute value", re.compile(r"=\s*\{[{%]"), "raw"),
    ("event handler attribute", re.compile(r"(?i)[\s\"'/]on[a-z]+\s*="), "markup"),
    ("style attribute", re.compile(r"(?i)[\s\"'/]style\s*="), "markup"),
    ("javascript: URL", re.compile(r"(?i)javascript\s*:"), "markup"),
]
_SCRIPT_TAG = re.compile(r"(?i)<script\b[^>]*>")


def markup_only(text: str) -> str:
    """The template with Jinja removed: comments and statements vanish, expressions become a word."""
    text = _JINJA_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    text = _JINJA_STATEMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return _JINJA_EXPRESSION.sub("x", text)


def lint_template(text: str) -> list[str]:
    found = []
    views = {"raw": text, "markup": markup_only(text)}
    for rule, pattern, view in RULES:
        for match in pattern.finditer(views[view]):
            line = views[view].count("\n", 0, match.start()) + 1
            found.append(f"line {line}: {rule}: {match.group(0).strip()!r}")
    for match in _SCRIPT_TAG.finditer(text):
        if not re.search(r"(?i)\ssrc\s*=", match.group(0)):
            found.append(f"line {text.count(chr(10), 0, match.start()) + 1}: inline <script>: {match.group(0)!r}")
    return found


def lint_python(rel: str, text: str) -> list[str]:
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        code = line.split("#", 1)[0]
        if re.search(r"\bMarkup\s*\(", code) and rel not in MARKUP_ALLOWED:
            found.append(f"{rel}:{number}: Markup( outside the allowlist")
        if re.search(r"\bMarkup\s*\(\s*[fF]['\"]", code) or re.search(r"\bMarkup\s*\([^)]*\.format\(", code):
            found.append(f"{rel}:{number}: Markup of a formatted string escapes nothing")
        if re.search(r"\|\s*safe\b", line):
            found.append(f"{rel}:{number}: |safe")
        if re.search(r"autoescape\s*=\s*(False|select_autoescape)", code) or "select_autoescape" in code:
            found.append(f"{rel}:{number}: autoescape not forced on")
    return found


def template_files() -> list[Path]:
    files = [p for p in THEMES.glob("**/templates/**/*") if p.is_file()]
    assert files, "no templates found"
    return sorted(files)


@pytest.mark.parametrize("path", template_files(), ids=lambda p: p.relative_to(THEMES).as_posix())
def test_template_is_clean(path):
    assert lint_template(path.read_text(encoding="utf-8")) == []


def test_python_builds_markup_only_in_the_allowlist():
    files = sorted((REPO / "generator").glob("**/*.py"))
    assert len(files) > 10
    found = []
    for path in files:
        rel = path.relative_to(REPO).as_posix()
        found += lint_python(rel, path.read_text(encoding="utf-8"))
    assert found == []


def test_the_environment_forces_autoescape_and_strict_undefined():
    text = (REPO / "generator" / "podium" / "render" / "templates.py").read_text(encoding="utf-8")
    assert re.search(r"autoescape\s*=\s*True\b", text)
    assert re.search(r"undefined\s*=\s*jinja2\.StrictUndefined\b", text)


BAD_TEMPLATES = {
    "|safe filter": "<p>{{ name|safe }}</p>",
    "|safe filter ": "<p>{{ name | safe }}</p>",
    "Markup( call": "{% set x = Markup('<b>') %}",
    "autoescape false": "{% autoescape false %}{{ name }}{% endautoescape %}",
    "|tojson (breaks out of attributes)": '<div data-x="{{ rows|tojson }}"></div>',
    "unquoted attribute value": "<a href={{ url }}>x</a>",
    "unquoted attribute value ": '<a class={% if x %}"a"{% endif %}>x</a>',
    "event handler attribute": '<a href="#" onclick="go()">x</a>',
    "event handler attribute ": '<svg onload="{{ x }}"></svg>',
    "event handler attribute  ": "<button\n  ONMOUSEOVER='x'>b</button>",
    "style attribute": '<p style="color: red">x</p>',
    "style attribute ": "<rect style='fill:{{ c }}'/>",
    "javascript: URL": '<a href="javascript:void(0)">x</a>',
    "inline <script>": "<script>alert(1)</script>",
    "inline <script> ": '<script type="application/json">{{ x }}</script>',
}


@pytest.mark.parametrize("rule", sorted(BAD_TEMPLATES), ids=repr)
def test_the_template_lint_catches(rule):
    found = lint_template(BAD_TEMPLATES[rule])
    assert found and all(rule.strip() in f for f in found), found


def test_the_template_lint_passes_clean_markup():
    clean = (
        '{% set one = 1 %}{# on=1 style=2 #}<a href="{{ href(x) }}" class="c{% if a %} on{% endif %}" '
        'data-agent="{{ s }}">{{ name }} is on = duty</a><script src="{{ href(\'assets/podium.js\') }}" '
        'defer></script><p title="{{ t }}">x</p>'
    )
    assert lint_template(clean) == []


def test_the_python_lint_catches():
    assert lint_python("generator/podium/render/x.py", "html = Markup(text)")
    assert lint_python("generator/podium/render/markdown.py", 'html = Markup(f"<b>{name}</b>")')
    assert lint_python("generator/podium/render/markdown.py", "html = Markup('<b>{}</b>'.format(name))")
    assert lint_python("generator/podium/x.py", "env = Environment(autoescape=select_autoescape())")
    assert lint_python("generator/podium/x.py", 'TEMPLATE = "{{ x|safe }}"')
    assert lint_python("generator/podium/render/markdown.py", "return Markup(html)") == []
    assert lint_python("generator/podium/render/report.py", "def f() -> Markup | None:") == []


# ---------------------------------------------------------------------- the README documents every context key


@pytest.fixture(scope="module")
def planned_pages(tmp_path_factory) -> list[Page]:
    """Every page of the demo as rendered: its template and its whole context (run pages completed)."""
    captured: list[Page] = []
    real = podium.render.site.render_page

    def capture(page, env, extra=None):
        captured.append(Page(page.path, page.template, {**page.context, **(extra or {})}))
        return real(page, env, extra)

    out = tmp_path_factory.mktemp("lint") / "site"
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO)
        mp.setattr(podium.render.site, "render_page", capture)
        build_site(load_config(Path("podium.yaml"), {"out": out}), Path("content/demo-export"))
    return captured


def is_mapping(key: str, text: str) -> bool:
    """Documented as keyed by data: "`key` (agent → …)", or a table row "| `key` | `type` | agent → … |"."""
    return re.search(rf"`{re.escape(key)}` (?:\([^)]*|\|[^|\n]*\|[^|\n]*)→", text) is not None


def test_every_page_template_is_exercised(planned_pages):
    templates = {p.template for p in planned_pages}
    assert templates == {
        "index.html",
        "agent.html",
        "missions.html",
        "mission.html",
        "runs.html",
        "ledger_page.html",
        "run.html",
        "page.html",
        "404.html",
        "compare.html",
        "pair.html",
        "models.html",
        "model.html",
        "badge.svg",
    }


def test_every_context_key_is_documented(planned_pages):
    text, common, rows = readme_sections()
    assert {"site", "page", "page_title", "href"} <= common
    missing = set()
    for page in planned_pages:
        row = rows.get(page.template)
        assert row is not None, f"themes/README.md has no row for {page.template}"
        for key, value in page.context.items():
            if not (documented(key, row) or key in common):
                missing.add(f"{page.template}: {key}")
            if is_mapping(key, text):
                continue  # keyed by data (agent ids), documented as "`key` (agent → …)"
            if isinstance(value, dict) or (isinstance(value, list) and value and isinstance(value[0], dict)):
                for inner in sorted(nested_keys(value)):
                    if not documented(inner, text):
                        missing.add(f"{page.template}: {key} > {inner}")
    assert sorted(missing) == []


def test_the_documentation_check_can_fail():
    assert documented("report", "| `run.html` | `record`, `report()` (…) |")
    assert documented("href", "`href` gives")
    assert not documented("report", "the report is rendered")
    assert not documented("rep", "`report`")
    assert is_mapping("tones", "`tones` (agent → colour index)")
    assert not is_mapping("cards", "`cards` (each: `agent`)")


def test_the_run_page_writes_the_kind_badge_and_older_tag_as_their_macros_do():
    """run.html writes them inline (it is rendered once per run); they must not drift apart."""
    cards = (THEMES / "default/templates/partials/cards.html").read_text(encoding="utf-8")
    run = (THEMES / "default/templates/run.html").read_text(encoding="utf-8")
    macros = dict(re.findall(r"\{% macro (\w+)\([^)]*\) -%\}\n(.*?)\n\{%- endmacro %\}", cards, re.S))
    assert (
        macros["kind_badge"]
        .replace("kind_labels[kind]", "kind_labels[record.kind]")
        .replace("k-{{ kind }}", "k-{{ record.kind }}")
        in run
    )
    assert macros["older_tag"] in run
    assert "import" not in _JINJA_COMMENT.sub("", run)
