"""The published site under hostile input (guide/hostile-input.md E, F, G, I; site.md "Qualities";
xorcise-export.md "What a public site must never show").

Every page is parsed into a small DOM (tests/sitekit.py) and judged on its
elements and decoded text, never on substrings of the markup alone: a hostile
string that shows up in ``doc.text()`` was escaped; one that became markup
shows up in ``doc.tags`` instead.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import math
import re
import shutil
import time
from pathlib import Path
from urllib.parse import quote

import jinja2
import pytest
import sitekit as kit
from exportkit import ExportDir, env_failure, graded, report_md, run_id

from podium.errors import BuildError
from podium.load.fields import drop_format
from podium.plan import charts
from podium.render.data import csv_cell
from podium.render.markdown import render_report
from podium.render.templates import builtin_themes, make_environment, theme_chain
from podium.safety.redact import Redactor

SITE_TITLE = "Agent results"
ALLOWED_SCHEMES = {None, "http", "https", "mailto"}
URL_ATTRS = {"href", "src", "xlink:href", "action", "formaction", "poster", "data", "srcset", "data-ledger"}
FORBIDDEN_TAGS = {
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "foreignobject",
    "style",
    "base",
    "img",
    "image",
    "audio",
    "video",
    "template",
}
INVISIBLE = re.compile(r"[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def as_name(text: str) -> str:
    """A name as the site shows it: bidi controls and zero-width characters visibly marked (B6)."""
    return INVISIBLE.sub("\ufffd", text)


def snapshot(root: Path) -> dict[str, str]:
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        out[rel] = "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def litter(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith((".podium-staging-", ".podium-old-")))


def run_page(files: dict[str, bytes], rid: str) -> kit.Document:
    return kit.parse_html(files[f"runs/{rid}/index.html"].decode("utf-8"))


def report_div(doc: kit.Document) -> kit.Element:
    """The <div class="prose"> that holds the rendered report.md."""
    (div,) = [t for t in doc.all("div") if "prose" in (t.get("class") or "").split()]
    return div


# ====================================================================== the hostile site


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    export = ExportDir(root / "export")
    runs = kit.hostile_export(export)
    out = root / "site"
    before = kit.listing(root, skip=out)
    kit.build(export.root, out, root=root)
    after = kit.listing(root, skip=out)
    files = kit.site_files(out)
    return {
        "root": root,
        "out": out,
        "runs": runs,
        "files": files,
        "pages": kit.pages(files),
        "before": before,
        "after": after,
        "summary": json.loads(files["api/results/summary.json"]),
        "ledger": kit.ledger_rows(files),
    }


@pytest.fixture(scope="module")
def docs(hostile) -> dict[str, kit.Document]:
    return {path: kit.parse_html(text) for path, text in hostile["pages"].items()}


def test_the_hostile_site_has_every_page(hostile):
    assert len(hostile["runs"]) == len(kit.AGENT_NAMES)
    assert len(hostile["summary"]["agents"]) == len(kit.AGENT_NAMES)
    for rid in hostile["runs"]:
        assert f"runs/{rid}/index.html" in hostile["pages"]
    assert len(hostile["pages"]) > 40


def test_no_script_element_but_the_site_script(docs):
    bad = []
    for path, doc in docs.items():
        scripts = doc.all("script")
        if len(scripts) != 1:
            bad.append((path, scripts))
            continue
        (script,) = scripts
        depth = path.count("/")
        if (
            script.attrs != [("src", "../" * depth + "assets/podium.js"), ("defer", None)]
            or script.parent.tag != "head"
            or script.text() != ""
        ):
            bad.append((path, script))
    assert bad == []


def test_no_event_handler_or_style_attribute(docs):
    bad = [
        (path, tag)
        for path, doc in docs.items()
        for tag in doc.tags
        for name, _ in tag.attrs
        if name.startswith("on") or name == "style"
    ]
    assert bad == []


def test_no_frames_objects_foreign_objects_styles_or_images(docs):
    bad = [(path, tag) for path, doc in docs.items() for tag in doc.tags if tag.tag in FORBIDDEN_TAGS]
    assert bad == []


def test_every_url_has_a_safe_scheme(docs):
    seen, bad = 0, []
    for path, doc in docs.items():
        for tag in doc.tags:
            for name, value in tag.attrs:
                if name in URL_ATTRS and value is not None:
                    seen += 1
                    if kit.url_scheme(value) not in ALLOWED_SCHEMES:
                        bad.append((path, tag))
    assert seen > 1000
    assert bad == []


def test_the_scheme_oracle_sees_through_disguises():
    for value in (
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        " javascript:x",
        "java\tscript:x",
        "&#106;avascript:x",
        "jav&#x09;ascript:x",
        "\x01javascript:x",
        "vbscript:x",
    ):
        assert kit.url_scheme(value) not in ALLOWED_SCHEMES, value
    assert kit.url_scheme("data:text/html,<b>") == "data"
    assert kit.url_scheme("../runs/index.html") is None
    assert kit.url_scheme("#main") is None
    assert kit.url_scheme("https://example.com/a:b") == "https"


def test_markdown_links_with_unsafe_schemes_are_text(hostile, docs):
    """E9/E10: every attack of MARKDOWN_ATTACKS stays text; the two fine links stay links."""
    for rid in hostile["runs"]:
        div = report_div(docs[f"runs/{rid}/index.html"])
        links = {a.text(): a.get("href") for a in div.iter("a")}
        assert links == {
            "docs": "https://example.com/docs",
            "mail": "mailto:a@example.com",
            "[image: image]": "https://tracker.example/p.gif",
        }, rid
        text = div.text()
        for shown in (
            "[js](javascript:alert(1))",
            "[mixed](JaVaScRiPt:alert(1))",
            "[data](data:text/html,<script>alert(1)</script>)",
            "[vb](vbscript:msgbox(1))",
            "[file](file:///etc/passwd)",
            "<javascript:alert(1)>",
            "[ref][1]",
            "![img](javascript:alert(1))",
            "[1]: javascript:alert(1)",
            "<img src=x onerror=alert(1)>",
            '<iframe src="https://evil.example/"></iframe>',
            "<style>body { display: none }</style>",
            "<!-- a comment -->",
            "<script>alert(1)</script>",
            "<svg onload=alert(1)><foreignObject></foreignObject></svg>",
        ):
            assert shown in text, (rid, shown)
        for a in div.iter("a"):
            assert a.get("rel") == "nofollow noopener noreferrer"


def test_remote_images_become_links(docs):
    """E10: no <img> anywhere (checked above for all pages) and the pixel is a plain link."""
    pixels = [a for doc in docs.values() for a in doc.all("a") if a.get("href") == "https://tracker.example/p.gif"]
    assert pixels and all(a.text() == "[image: image]" for a in pixels)


def test_template_syntax_in_input_is_literal_text(hostile, docs):
    """E6: never evaluated: no 49, no swallowed {% %} statement."""
    for rid in hostile["runs"]:
        text = docs[f"runs/{rid}/index.html"].text()
        assert "Template: {{ 7*7 }} and {% for x in y %}" in text
        assert "Template: 49" not in text
    for name in (kit.JINJA_EXPR, kit.JINJA_STMT):
        rid = next(r for r, n in hostile["runs"].items() if n == name)
        text = docs[f"runs/{rid}/index.html"].text()
        for prefix in ("detail ", "reason ", "text ", "error "):
            assert prefix + name in text
        assert "detail 49" not in text and "reason 49" not in text
    agent = next(a for a in hostile["summary"]["agents"] if a["name"] == kit.JINJA_EXPR)
    assert docs[agent["url"]].all("h1")[0].text() == kit.JINJA_EXPR
    mission = next(m for m in hostile["summary"]["missions"] if m["mission"] == kit.JINJA_EXPR)
    assert docs[mission["url"]].all("h1")[0].text() == kit.JINJA_EXPR + " " + mission["version"]
    names = [b.text() for doc in docs.values() for b in doc.all("bdi")]
    assert names.count(kit.JINJA_EXPR) > 10 and names.count(kit.JINJA_STMT) > 10
    assert "49" not in names and "" not in names


@pytest.mark.parametrize("name", kit.SHOWN, ids=repr)
def test_hostile_name_is_shown_as_text(hostile, docs, name):
    """E1/E2/E13: the agent page, the ledger, the home page and the run page show the name as text."""
    shown = as_name(name)
    agent = next(a for a in hostile["summary"]["agents"] if a["name"] == shown)
    page = docs[agent["url"]]
    assert page.all("h1")[0].text() == shown
    assert page.all("title")[0].text() == f"{shown} · {SITE_TITLE}"
    (og,) = [m for m in page.all("meta") if m.get("property") == "og:title"]
    assert og.get("content") == f"{shown} · {SITE_TITLE}"
    for ledger in ("runs/index.html", "index.html"):
        assert shown in [b.text() for b in docs[ledger].all("bdi")], ledger
    rid = next(r for r, n in hostile["runs"].items() if n == name)
    run = docs[f"runs/{rid}/index.html"]
    bdis = [b.text() for b in run.all("bdi")]
    assert bdis.count(shown) >= 5  # agent link, check id, criterion id, declared/reported model, judge model
    text = run.text()
    for prefix in ("detail ", "reason ", "text ", "error "):  # free text keeps its characters but format ones
        assert prefix + drop_format(name) in text, prefix  # (a reader sees none: docs/rules/export.md §1)


@pytest.mark.parametrize("mission", sorted(set(kit.MISSIONS)), ids=repr)
def test_hostile_mission_is_shown_as_text(hostile, docs, mission):
    urls = [m["url"] for m in hostile["summary"]["missions"] if m["mission"] == mission]
    assert urls
    for url in urls:
        assert re.fullmatch(r"missions/[a-z0-9-]+/[a-z0-9][a-z0-9.-]*/index\.html", url)
        h1 = docs[url].all("h1")[0].text()
        assert h1.startswith(mission + " ")
    assert mission in [b.text() for b in docs["runs/index.html"].all("bdi")]
    assert mission in [o.text() for o in docs["runs/index.html"].all("option")]


def test_bidi_and_zero_width_names_are_marked_and_reported(hostile):
    problems = hostile["summary"]["problems"]
    for name in (kit.RTL, kit.ZERO_WIDTH):
        assert as_name(name) in [a["name"] for a in hostile["summary"]["agents"]]
        assert name not in [a["name"] for a in hostile["summary"]["agents"]]
    marked = [p for p in problems if p["path"] == "agents.json" and "control characters" in p["message"]]
    assert len(marked) == 2


def test_an_overlong_name_is_cut_and_reported(hostile, docs):
    cut = kit.LONG[:200] + "…"
    agent = next(a for a in hostile["summary"]["agents"] if a["name"].startswith("LLLL"))
    assert agent["name"] == cut
    assert docs[agent["url"]].all("h1")[0].text() == cut
    assert any(
        p["path"] == "agents.json" and "5000 characters long; cut to 200" in p["message"]
        for p in hostile["summary"]["problems"]
    )


def test_no_duplicate_ids_on_any_page(docs):
    bad = {}
    for path, doc in docs.items():
        ids = doc.ids()
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            bad[path] = dupes
    assert bad == {}


def test_pages_parse_without_stray_end_tags_or_comments(docs):
    """A name that closed an element or opened a comment would leave traces here."""
    assert {p: d.stray_end_tags for p, d in docs.items() if d.stray_end_tags} == {}
    assert {p: d.comments for p, d in docs.items() if d.comments} == {}


# ---------------------------------------------------------------------- SVG


def test_every_inline_svg_is_accessible_safe_xml(hostile):
    count = 0
    for path, text in hostile["pages"].items():
        for fragment in kit.inline_svgs(text):
            count += 1
            svg = kit.parse_svg(fragment)  # raises on anything that is not well-formed XML
            links = [e for e in svg.iter() if e.tag == "a"]
            if svg.get("aria-hidden") == "true":  # decoration (a legend's swatch, the strips' patterns): no link
                assert not links and svg.get("role") is None and svg.get("focusable") == "false", path
                continue
            # a chart whose marks link to runs is a group of links (role="img" may not contain
            # links: screen readers could not reach them); a chart without links is an image
            assert svg.get("role") == ("group" if links else "img"), path
            children = [c.tag for c in svg]
            assert children[:2] == ["title", "desc"], (path, children[:3])
            assert svg.find("title").text and svg.find("desc").text
            for element in svg.iter():
                assert element.tag.lower() not in ("script", "foreignobject", "iframe", "style"), path
                for name in element.attrib:
                    assert not name.lower().startswith("on") and name != "style", (path, element.tag, name)
                    if name in ("href", "{http://www.w3.org/1999/xlink}href"):
                        assert kit.url_scheme(element.attrib[name]) is None, path
    assert count > 40


def test_svg_titles_hold_the_hostile_names_exactly(hostile):
    for agent in hostile["summary"]["agents"]:
        svgs = [kit.parse_svg(f) for f in kit.inline_svgs(hostile["pages"][agent["url"]])]
        svgs = [s for s in svgs if s.get("aria-hidden") != "true"]  # decoration has no title
        titles = [s.find("title").text for s in svgs]
        assert f"Run strip of {agent['name']}, current mission versions" in titles, agent["name"]
        points = [t.text for s in svgs for a in s.iter("a") for t in a.iter("title")]
        assert points and all(" · " in p for p in points)
    for mission in hostile["summary"]["missions"]:
        svgs = [kit.parse_svg(f) for f in kit.inline_svgs(hostile["pages"][mission["url"]])]
        points = [t.text for s in svgs for a in s.iter("a") for t in a.iter("title")]
        names = {a["name"] for a in mission["agents"]}
        assert points and all(any(p.startswith(n + " · checks ") for n in names) for p in points)


def test_every_numeric_svg_attribute_is_finite(hostile):
    checked = 0
    for path, text in hostile["pages"].items():
        for fragment in kit.inline_svgs(text):
            for element in kit.parse_svg(fragment).iter():
                for name, value in element.attrib.items():
                    if name in kit.NUMERIC_SVG_ATTRS:
                        numbers = [value]
                    elif name == "viewBox":
                        numbers = value.split()
                        assert len(numbers) == 4, (path, value)
                    else:
                        continue
                    for number in numbers:
                        checked += 1
                        assert math.isfinite(float(number)) and abs(float(number)) < 1e6, (path, name, value)
    assert checked > 1000


# ---------------------------------------------------------------------- files and paths


def test_nothing_is_written_outside_the_output_directory(hostile):
    assert hostile["after"] == hostile["before"]
    assert litter(hostile["root"]) == []


def test_output_paths_are_slugs(hostile):
    for path in hostile["files"]:
        if path == ".podium-site":
            continue
        assert all(re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", part) for part in path.split("/")), path
        assert ".." not in path.split("/")
    agents = sorted(p.name for p in (hostile["out"] / "agents").iterdir())
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", a) for a in agents), agents
    assert len(agents) == len(kit.AGENT_NAMES)
    for slug in agents:
        assert sorted(p.name for p in (hostile["out"] / "agents" / slug).iterdir()) == ["index.html"]
    assert {"etc-passwd", "a-b", "con-x"} <= set(agents)
    assert not (hostile["out"] / "etc").exists() and not (hostile["out"] / "agents" / "a").exists()


# ---------------------------------------------------------------------- CSP and external requests


def csp_directives(content: str) -> dict[str, list[str]]:
    out = {}
    for part in content.split(";"):
        words = part.split()
        if words:
            assert words[0] not in out, f"directive {words[0]} twice"
            out[words[0]] = words[1:]
    return out


def test_every_page_has_one_csp_meta_first_in_head(docs):
    for path, doc in docs.items():
        csp = [m for m in doc.all("meta") if (m.get("http-equiv") or "").lower() == "content-security-policy"]
        assert len(csp) == 1, path
        head = doc.head()
        assert head.element_children()[0] is csp[0], path
        directives = csp_directives(csp[0].get("content"))
        assert directives["default-src"] == ["'none'"], path
        assert directives["script-src"] == ["'self'"], path
        assert directives["style-src"] == ["'self'"], path
        assert directives["img-src"] == ["'self'", "data:"], path
        assert not any("unsafe" in v or "*" in v for values in directives.values() for v in values), path


def test_no_page_loads_anything_from_elsewhere(hostile, docs):
    for path, doc in docs.items():
        for link in doc.all("link"):
            rel = (link.get("rel") or "").lower().split()
            if "canonical" in rel:
                continue  # only with base_url, and not a request
            assert kit.is_internal(link.get("href") or "x:"), (path, link)
        for tag in doc.tags:
            if tag.tag in ("script", "img", "source", "video", "audio", "input") and tag.has("src"):
                assert kit.is_internal(tag.get("src")), (path, tag)
        assert not [m for m in doc.all("meta") if (m.get("http-equiv") or "").lower() == "refresh"]
    css = hostile["files"]["assets/podium.css"].decode("utf-8")
    assert "@import" not in css.lower()
    for url in kit.css_urls(css):
        assert kit.is_internal(url), url
    for name, data in hostile["files"].items():
        if name.endswith((".css", ".js")):
            assert not re.search(rb"url\(\s*['\"]?\s*(https?:)?//", data, re.I), name


# ====================================================================== data files (F1-F3)

FORMULA_NAMES = (
    '=HYPERLINK("http://x","y")',
    "+1",
    "-2+3",
    "@SUM(A1)",
    "\tcmd",
    "\rcmd",
    'plain, "quoted"',
    "=1+1 model",
)


@pytest.fixture(scope="module")
def formula_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("formula")
    export = ExportDir(root / "export")
    for n, name in enumerate(FORMULA_NAMES):
        rid = run_id(f"formula-{n}")
        export.run(
            graded(rid, det=0.5, judge=0.25, model=name, models_reported=["@x", name]),
            rid=rid,
            agent=name,
            mission="=cmd|' /C calc'!A0" if n % 2 else "-m",
            at=n * 10,
        )
    export.sidecars()
    out = kit.build(export.root, root / "site", root=root)
    return kit.site_files(out)


def test_csv_formula_cells_are_neutralised(formula_site):
    rows = list(csv.reader(io.StringIO(kit.ledger_csv(formula_site), newline="")))
    header, body = rows[0], rows[1:]
    ledger = {r["run_id"]: r for r in kit.ledger_rows(formula_site)}
    assert len(body) == len(ledger) == len(FORMULA_NAMES)
    text_columns = ("agent_name", "mission", "model_declared", "models_reported")
    for row in body:
        cells = dict(zip(header, row))
        want = ledger[cells["run_id"]]
        for column in text_columns:
            value = want[column] if column != "models_reported" else " ".join(want[column])
            expected = "'" + value if value.startswith(FORMULA_START) else value
            assert cells[column] == expected, (column, value)
        for column in ("overall", "deterministic", "judge"):
            assert float(cells[column]) == want[column]  # numbers are not prefixed
        for column, cell in cells.items():
            assert not cell.startswith(FORMULA_START), (column, cell)
    names = {dict(zip(header, r))["agent_name"] for r in body}
    for name in ('=HYPERLINK("http://x","y")', "+1", "-2+3", "@SUM(A1)", "=1+1 model"):
        assert "'" + name in names
    assert 'plain, "quoted"' in names  # quoted, round-trips through csv.reader


def test_csv_cell_neutralises_tab_and_carriage_return():
    assert csv_cell("\tcmd") == "'\tcmd"
    assert csv_cell("\rcmd") == "'\rcmd"
    assert csv_cell("=1") == "'=1"
    assert csv_cell(-0.5) == "-0.5"


@pytest.mark.parametrize("site", ["hostile", "formula_site"])
def test_every_json_file_is_strict_sorted_and_ends_with_a_newline(request, site):
    files = request.getfixturevalue(site)
    files = files["files"] if site == "hostile" else files
    names = [n for n in files if n.endswith(".json")]
    assert set(names) >= {"api/results/summary.json", "api/results/runs.json", "api/results/summary.schema.json"}
    for name in names:
        data = files[name]
        kit.strict_json(data)  # raises on NaN, Infinity, duplicate or unsorted keys
        assert data.endswith(b"\n") and not data.endswith(b"\n\n"), name


def test_the_strict_json_oracle_refuses_what_it_should():
    for bad in ('{"a": NaN}', '{"a": Infinity}', '{"b": 1, "a": 2}', '{"a": 1, "a": 2}'):
        with pytest.raises(ValueError):
            kit.strict_json(bad)


def ledger_scripts(files: dict[str, bytes]) -> dict[str, bytes]:
    """The ledger page's data: its index script and every part's."""
    return {
        path: data
        for path, data in files.items()
        if path == "api/results/ledger.js" or (path.startswith("api/results/ledger/") and path.endswith(".js"))
    }


def script_json(data: bytes) -> dict:
    """A ledger script is one call with one strict JSON argument: podiumLedger.index(…) or .part(…)."""
    call = b"podiumLedger.index(" if data.startswith(b"podiumLedger.index(") else b"podiumLedger.part("
    assert data.startswith(call) and data.endswith(b");\n")
    return kit.strict_json(data[len(call) : -3])


def test_ledger_script_is_a_strict_json_assignment(hostile):
    scripts = ledger_scripts(hostile["files"])
    assert len(scripts) > 1
    names = set()
    for path, data in scripts.items():
        value = script_json(data)
        assert "\u2028".encode() not in data and "\u2029".encode() not in data
        if path != "api/results/ledger.js":
            names.add(value["agent"])
    assert names == {r["agent_name"] for r in hostile["ledger"]}


def test_ledger_script_has_no_raw_script_end(hostile):
    """E4: hostile names hold </script>; the ledger data never closes a script element."""
    for data in ledger_scripts(hostile["files"]).values():
        assert b"</script" not in data.lower()


def test_ledger_script_keeps_astral_characters(tmp_path, export):
    """An emoji in a name must stay JSON (a surrogate pair), not Python's \\U0001f985."""
    export.run(graded(run_id(1)), agent="falcon \U0001f985")
    export.sidecars()
    files = kit.site_files(kit.build(export.root, tmp_path / "site", root=tmp_path))
    index = script_json(files["api/results/ledger.js"])
    assert index["parts"][0][index["columns"].index("agent")] == "falcon \U0001f985"
    (part,) = [script_json(data) for path, data in ledger_scripts(files).items() if path != "api/results/ledger.js"]
    assert part["agent"] == "falcon \U0001f985"


# ====================================================================== leaks (G, xorcise-export.md)

LEAK_MARKERS = {
    "check value": "LEAKCHECKVALUE-5c1d",
    "report value column": "LEAKREPORTVALUE-9e2a",
    "report artifacts": "LEAKARTIFACT-3b7f",
    "report artifacts after a fake heading": "LEAKARTIFACTTAIL-41aa",
    "judge prompt": "LEAKJUDGEPROMPT-0d9c",
    "criterion prompt": "LEAKCRITERIONPROMPT-77e1",
    "traces": "LEAKTRACE-a0b1",
    "events": "LEAKEVENT-c2d3",
    "environment failure detail": "LEAKLOGTAIL-e4f5",
    "terminal detail": "LEAKTERMINALDETAIL-0617",
    "agent endpoint": "LEAKENDPOINT-2839",
    "agent otel": "LEAKOTEL-4a5b",
    "agent launch command": "LEAKLAUNCH-6c7d",
    "agent launch tips": "LEAKTIPS-8e9f",
    "agent mission preamble": "LEAKPREAMBLE-1234",
}
EXPORTKIT_MARKERS = (
    "SECRET-JUDGE-PROMPT",
    "FLAG{secret-check-value}",
    "FLAG{secret}",
    "SECRET-CRITERION-PROMPT",
    "SECRET-LOG-TAIL",
    "db.internal",
    "SECRET-EVENT",
    "SECRET-TRACE",
    "SECRET-TERMINAL-DETAIL",
    "SECRET-ENDPOINT",
    "SECRET-OTEL-TOKEN",
    "SECRET-LAUNCH",
    "FLAG{report-value}",
    "FLAG{report-artifact}",
)
OWN_VALUE = "zebra-unicorn-check-42"


def leak_report(rid: str, value: str) -> str:
    m = LEAK_MARKERS
    return (
        f"# XORCISE Run Report — m1\n\n## Overview\n\n| Field | Value |\n| --- | --- |\n| Mission | m1 v1.0.0 |\n"
        f"| Agent | osprey v1 |\n| Run ID | {rid} |\n\n"
        "## Deterministic checks\n\n| Result | Check | Weight | Op | Value | Blocked by | Error |\n"
        "| --- | --- | --- | --- | --- | --- | --- |\n"
        f"| PASS | flag | 1.0 | equals | {m['report value column']} | — | — |\n"
        f"| FAIL | format | 0.5 | matches | {value} | flag | CHECKS-ERROR-SHOWN |\n\n"
        f"## Judge rubric\n\n### recon — 1.00\n\nFound it\n\n> RUBRIC-SHOWN the agent sent {value}\n\n"
        "## Artifacts\n\n### flag (flag)\n\n"
        f"```\n{m['report artifacts']}\n## Terrain\n{m['report artifacts after a fake heading']}\n```\n\n"
        "### notes.txt (file)\n\n~~~\nmore ## Telemetry\n# Conditions\n" + m["report artifacts"] + "\n~~~\n\n"
        "## Terrain\n\nTERRAIN-SHOWN\n\n## Conditions\n\n| Field | Value |\n| --- | --- |\n| Judge model | j |\n"
    )


@pytest.fixture(scope="module")
def leak_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("leak")
    export = ExportDir(root / "export")
    m = LEAK_MARKERS
    rid = run_id("leak-graded")
    body = graded(rid, judge_detail=f"judge saw {OWN_VALUE} twice")
    grade = body["grade"]
    grade["judge_prompt"] = f"{m['judge prompt']} flag {OWN_VALUE}"
    grade["judge_breakdown"][0].update(
        criterion_prompt=m["criterion prompt"], reason=f"The agent submitted {OWN_VALUE} as asked"
    )
    grade["check_breakdown"] = [
        {
            "id": "flag",
            "source": "artifacts",
            "ref": "flag",
            "op": "equals",
            "value": m["check value"],
            "passed": True,
            "weight": 1.0,
            "error": None,
            "blocked_by": [],
        },
        {
            "id": "format",
            "source": "artifacts",
            "ref": "report",
            "op": "matches",
            "value": OWN_VALUE,
            "passed": False,
            "weight": 0.5,
            "error": f"expected {OWN_VALUE}",
            "blocked_by": ["flag"],
        },
    ]
    export.run(body, rid=rid, report=leak_report(rid, OWN_VALUE))
    failed = run_id("leak-env")
    fail_body = env_failure(failed)
    fail_body["detail"] = f"{m['environment failure detail']} at /srv/mission"
    export.run(fail_body, rid=failed, agent="osprey")
    export.run(graded(run_id("leak-plain")), agent="kestrel", report=report_md(rid=run_id("leak-plain")))
    for directory in export.root.iterdir():
        if directory.is_dir():
            (directory / "traces.otlp.jsonl").write_text(json.dumps({"resourceSpans": m["traces"]}) + "\n")
            (directory / "events.jsonl").write_text(json.dumps({"body": m["events"]}) + "\n")
    for row in export.rows:
        row["terminal_detail"] = m["terminal detail"]
    export.sidecars()
    agents = json.loads((export.root / "agents.json").read_text())
    for row in agents:
        row.update(
            endpoint=f"https://{m['agent endpoint']}.example",
            otel={"headers": m["agent otel"]},
            launch_command_template=f"{m['agent launch command']} {{prompt}}",
            launch_tips=m["agent launch tips"],
            mission_preamble=m["agent mission preamble"],
        )
    (export.root / "agents.json").write_text(json.dumps(agents, indent=2))
    out = kit.build(export.root, root / "site", root=root)
    return {"files": kit.site_files(out), "rid": rid, "export": export}


def test_the_leak_export_plants_every_marker(leak_site):
    planted = b"".join(p.read_bytes() for p in leak_site["export"].root.rglob("*") if p.is_file())
    for marker in list(LEAK_MARKERS.values()) + list(EXPORTKIT_MARKERS[:3]) + [OWN_VALUE]:
        assert marker.encode() in planted, marker


@pytest.mark.parametrize("where", sorted(LEAK_MARKERS))
def test_no_secret_reaches_any_output_file(leak_site, where):
    marker = LEAK_MARKERS[where].encode()
    leaked = [path for path, data in leak_site["files"].items() if marker in data]
    assert leaked == []


def test_no_exportkit_secret_reaches_any_output_file(leak_site):
    leaked = [(path, m) for path, data in leak_site["files"].items() for m in EXPORTKIT_MARKERS if m.encode() in data]
    assert leaked == []


def test_the_runs_own_submitted_value_is_redacted_wherever_it_is_quoted(leak_site):
    assert [p for p, data in leak_site["files"].items() if OWN_VALUE.encode() in data] == []
    doc = run_page(leak_site["files"], leak_site["rid"])
    (quote_,) = [b for b in doc.all("blockquote") if "submitted" in b.text()]
    assert quote_.text() == "The agent submitted [REDACTED:value] as asked"
    text = doc.text()
    assert "Judge: judge saw [REDACTED:value] twice" in text
    assert "expected [REDACTED:value]" in text
    assert "RUBRIC-SHOWN the agent sent [REDACTED:value]" in text


def test_the_report_keeps_what_is_public(leak_site):
    """Hiding must not over-reach: the rubric and Conditions stay. The report's checks table is
    withheld whole (the run page shows the checks from result.json, without values), and so is
    everything from Artifacts to the last section XORCISE writes after it (here Conditions)."""
    div = report_div(run_page(leak_site["files"], leak_site["rid"]))
    text = div.text()
    for shown in ("RUBRIC-SHOWN", "Judge model", "Withheld"):
        assert shown in text
    for hidden in ("CHECKS-ERROR-SHOWN", "TERRAIN-SHOWN"):
        assert hidden not in text
    headers = [[th.text() for th in table.iter("th")] for table in div.iter("table")]
    assert not any("Result" in h for h in headers)
    assert not any("Value" in h and "Field" not in h for h in headers)
    headings = [h.text() for h in div.iter("h3")]
    assert "Artifacts" not in headings and "Judge rubric" in headings and "Conditions" in headings


# ====================================================================== redaction (G1, G4-G6)

TOKENS = {
    "aws-key": "AKIAABCDEFGHIJKLMNOP",
    "github-token": "ghp_" + "aBcD1234" * 4 + "wxyz",
    "api-key": "sk-" + "abcdefghijklmnopqrstuvwx",
    "slack-token": "xoxb-123456789012-abc",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
}
PEM_BODY = (
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw",
    "7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFc",
)
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(PEM_BODY) + "\n-----END RSA PRIVATE KEY-----"
SECRET_TEXT = (
    "## Notes\n\n"
    + "\n\n".join(f"{kind} → {token}" for kind, token in TOKENS.items())
    + "\n\nAuthorization: Bearer 0123456789abcdef0123\n\n"
    "clone https://user:tok3nvalue@github.com/o/r.git now\n\n"
    "login with password=hunter2 please\n\n"
    f"{PEM}\n\n"
    "In a fence:\n\n```\n" + PEM.replace("RSA ", "EC ") + "\n```\n\n"
    "With hard breaks:  \n" + "  \n".join(PEM.replace("RSA ", "OPENSSH ").split("\n")) + "\n\n"
    "| token | where |\n| --- | --- |\n| AKIAZYXWVUTSRQPONMLK | table |\n"
)
RAW_SECRETS = (
    list(TOKENS.values())
    + ["0123456789abcdef0123", "tok3nvalue", "user:", "hunter2", "AKIAZYXWVUTSRQPONMLK"]
    + list(PEM_BODY)
)


@pytest.fixture(scope="module")
def redaction_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("redaction")
    export = ExportDir(root / "export")
    rid = run_id("redact")
    body = graded(rid, judge_detail=f"key {TOKENS['aws-key']} seen")
    body["grade"]["judge_breakdown"][0]["reason"] = f"it printed {TOKENS['github-token']}"
    body["grade"]["check_breakdown"][0]["error"] = "password: hunter2"
    export.run(body, rid=rid, report=report_md(rid=rid, extra="\n" + SECRET_TEXT))
    export.sidecars()
    out = kit.build(export.root, root / "site", root=root)
    return {"files": kit.site_files(out), "rid": rid}


@pytest.mark.parametrize("raw", RAW_SECRETS)
def test_secret_shaped_text_appears_nowhere(redaction_site, raw):
    assert [p for p, data in redaction_site["files"].items() if raw.encode() in data] == []


def test_secret_shaped_text_is_marked_redacted_on_the_run_page(redaction_site):
    doc = run_page(redaction_site["files"], redaction_site["rid"])
    report = report_div(doc).text()
    for kind in TOKENS:
        assert f"{kind} → [REDACTED:{kind}]" in report
    assert "Authorization: Bearer [REDACTED:token]" in report
    assert "clone https://github.com/o/r.git now" in report
    assert "login with password=[REDACTED:keyword] please" in report
    assert report.count("[REDACTED:private-key]") == 3
    assert "[REDACTED:aws-key]" in [td.text() for td in report_div(doc).iter("td")]
    text = doc.text()
    assert "Judge: key [REDACTED:aws-key] seen" in text
    assert "it printed [REDACTED:github-token]" in text
    assert "password: [REDACTED:keyword]" in text


LITERALS = ("my-literal-secret-123", 'pa ss/wo"rd-456')


def literal_variants(value: str) -> list[str]:
    return [value, base64.b64encode(value.encode()).decode(), quote(value, safe=""), json.dumps(value)[1:-1]]


def test_configured_literals_are_redacted_in_every_form(tmp_path, export):
    rid = run_id("literal")
    lines = [f"- form {i}: {v} end" for value in LITERALS for i, v in enumerate(literal_variants(value))]
    fenced = "\n".join(v for value in LITERALS for v in literal_variants(value))
    export.run(
        graded(rid),
        rid=rid,
        report=report_md(rid=rid, extra="\n## Notes\n\n" + "\n".join(lines) + "\n\n```\n" + fenced + "\n```\n"),
    )
    export.sidecars()
    files = kit.site_files(kit.build(export.root, tmp_path / "site", root=tmp_path, redact=LITERALS))
    for value in LITERALS:
        for variant in literal_variants(value):
            assert [p for p, data in files.items() if variant.encode() in data] == [], variant
    report = report_div(run_page(files, rid))
    items = [li.text() for li in report.iter("li")]
    assert len(items) == 8 and all(re.fullmatch(r"form \d: \[REDACTED:value\] end", i) for i in items), items
    (pre,) = report.iter("pre")
    assert pre.text().split() == ["[REDACTED:value]"] * 8


def test_a_configured_literal_in_a_name_stops_the_build_and_keeps_the_old_site(tmp_path, export):
    """G7: names are not redacted; the post-build gate refuses to publish the literal."""
    export.run(graded(run_id(1)), agent="osprey my-literal-secret-123", report=report_md(rid=run_id(1)))
    export.sidecars()
    out = tmp_path / "site"
    kit.build(export.root, out, root=tmp_path)
    before = snapshot(out)
    with pytest.raises(BuildError) as err:
        kit.build(export.root, out, root=tmp_path, redact=("my-literal-secret-123",))
    message = err.value.message
    match = re.match(r"^([\w./-]+\.(?:html|json|csv|js)): a value listed under `redact:`", message)
    assert match, message
    assert b"my-literal-secret-123" in (out / match.group(1)).read_bytes()  # it names the right file
    assert snapshot(out) == before
    assert litter(tmp_path) == []


# ====================================================================== Markdown (E8-E12)

PATHOLOGICAL = {
    "brackets": "[" * 40_000,
    "emphasis": "*_" * 40_000,
    "angles": "<" * 200_000,
    "angles-1m": "<" * 1_000_000,
    "link-openers": "[](" * 30_000,
    "jwt-like": "eyJa-" * 13_000,  # was quadratic in the redactor's jwt shape
    "scheme-like": "a." * 40_000,  # was quadratic in the redactor's userinfo rule
    "nested-quotes": "> " * 30_000 + "x",
    "backticks": "`" * 60_000,
}


@pytest.mark.parametrize("kind", sorted(PATHOLOGICAL))
def test_pathological_report_renders_in_bounded_time(tmp_path, export, kind):
    body = PATHOLOGICAL[kind]
    start = time.process_time()  # (CPU time: a busy machine's wall clock counts other processes)
    html = render_report(body, Redactor())
    elapsed = time.process_time() - start
    assert elapsed < 5.0, f"{kind}: {elapsed:.1f}s"
    assert len(html) < 1_000_000
    rid = run_id(kind)
    export.run(graded(rid), rid=rid, report=body)
    export.sidecars()
    start = time.process_time()
    files = kit.site_files(kit.build(export.root, tmp_path / "site", root=tmp_path))
    assert time.process_time() - start < 15.0
    doc = run_page(files, rid)
    div = report_div(doc)
    assert [t.tag for t in doc.tags if t.tag in ("script", "iframe")] == ["script"]
    if len(body) > 64 * 1024:
        assert "(Cut at 64 KiB of" in div.text()


def test_report_headings_never_clobber_ids(tmp_path, export):
    rid = run_id("ids")
    extra = "\n".join(
        f"## {h}\n\ntext\n"
        for h in ("location", "__proto__", "main", "ledger", "Notes", "Notes", "podium-hatch", "document")
    )
    export.run(graded(rid), rid=rid, report=report_md(rid=rid, extra="\n" + extra + "\n[x]: #main\n"))
    export.sidecars()
    files = kit.site_files(kit.build(export.root, tmp_path / "site", root=tmp_path))
    doc = run_page(files, rid)
    div = report_div(doc)
    assert [t for t in div.iter() if t is not div and (t.has("id") or t.has("name"))] == []
    ids = doc.ids()
    assert len(ids) == len(set(ids))
    assert {"location", "__proto__", "ledger", "notes", "podium-hatch", "document"}.isdisjoint(ids)
    assert ids.count("main") == 1
    headings = [h.text() for h in div.iter("h3")]
    assert headings.count("Notes") == 2 and "location" in headings


# ====================================================================== hidden parts of the report


def test_artifacts_section_and_value_column_never_show(leak_site):
    div = report_div(run_page(leak_site["files"], leak_site["rid"]))
    text = div.text()
    for where in ("report value column", "report artifacts", "report artifacts after a fake heading", "check value"):
        assert LEAK_MARKERS[where] not in text
    assert "notes.txt" not in text and "flag (flag)" not in text


def test_a_fence_left_open_before_the_artifacts_cannot_expose_them(tmp_path, export):
    """A judge reason that opens a code fence and never closes it swallows the ## Artifacts
    heading: the section's payload must not become visible code."""
    rid = run_id("fence")
    report = (
        f"# XORCISE Run Report — m1\n\n## Overview\n\n| Field | Value |\n| --- | --- |\n| Run ID | {rid} |\n\n"
        "## Judge rubric\n\n### recon — 1.00\n\nFound it\n\n> the agent wrote\n```python\nprint(1)\n\n"
        "## Artifacts\n\n### exploit.py (file)\n\n```\nSWALLOWED-ARTIFACT-PAYLOAD\n```\n\n"
        "## Deterministic checks\n\n| Result | Check | Value |\n| --- | --- | --- |\n| PASS | flag | SWALLOWED-VALUE |\n"
    )
    export.run(graded(rid), rid=rid, report=report)
    export.sidecars()
    files = kit.site_files(kit.build(export.root, tmp_path / "site", root=tmp_path))
    div = report_div(run_page(files, rid))
    assert "SWALLOWED-ARTIFACT-PAYLOAD" not in div.text() and "SWALLOWED-VALUE" not in div.text()
    assert "print(1)" in div.text()  # what came before is still shown
    assert "Withheld" in div.text()  # the cut is line-based, so an open fence cannot move it
    assert [p for p, data in files.items() if b"SWALLOWED-" in data] == []


@pytest.mark.parametrize("heading", ["## Artifacts", "##   artifacts  ", "## ARTIFACTS ##", "# Artifacts"])
def test_artifacts_heading_variants_are_dropped(heading):
    html = render_report(
        f"## Scores\n\nshown\n\n{heading}\n\n```\nHIDDEN-PAYLOAD\n```\n\n## Telemetry\n\nafter\n", Redactor()
    )
    doc = kit.parse_html(str(html))
    assert "HIDDEN-PAYLOAD" not in doc.text()
    assert "shown" in doc.text() and "after" in doc.text()


# ====================================================================== build robustness (I1, I2, E7, E15)


def overriding_theme(root: Path, files: dict[str, str]) -> Path:
    theme = root / "theme-override"
    for name, text in files.items():
        path = theme / "templates" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return theme


@pytest.fixture
def built_once(tmp_path, export):
    export.run(graded(run_id(1)), agent="osprey", report=report_md(rid=run_id(1)))
    export.run(graded(run_id(2), det=0.5), agent="kestrel")
    export.sidecars()
    out = kit.build(export.root, tmp_path / "site", root=tmp_path)
    return out, snapshot(out)


@pytest.mark.parametrize(
    "template, text, expected",
    [
        ("run.html", '{% extends "default:run.html" %}{% block main %}{{ record.nope }}{% endblock %}', "run.html"),
        ("index.html", '{% extends "base.html" %}{% block main %}{{ totalz }}{% endblock %}', "index.html"),
        (
            "agent.html",
            '{% extends "base.html" %}{% block main %}{{ agent.figures.medain|pct }}{% endblock %}',
            "agent.html",
        ),
        ("404.html", '{% extends "base.html" %}{% block main %}{% for x in %}{% endblock %}', "404.html"),
    ],
)
def test_a_failing_template_stops_the_build_and_keeps_the_old_site(
    tmp_path, export, built_once, template, text, expected
):
    out, before = built_once
    theme = overriding_theme(tmp_path, {template: text})
    with pytest.raises(BuildError) as err:
        kit.build(export.root, out, root=tmp_path, theme_dir=theme)
    assert re.search(rf"(^|/){re.escape(expected)}[: ]", err.value.message), err.value.message
    assert snapshot(out) == before
    assert litter(tmp_path) == []


def test_strict_undefined_is_on_for_every_template(tmp_path):
    env = make_environment(theme_chain("default", [builtin_themes()]))
    assert issubclass(env.undefined, jinja2.StrictUndefined)
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ run.scroe }}").render(run=object())


def test_a_removed_run_disappears_on_rebuild(tmp_path, export, built_once):
    out, _ = built_once
    gone = run_id(2)
    assert (out / "runs" / gone / "index.html").is_file()
    shutil.rmtree(export.root / gone[:8])
    export.rows = [r for r in export.rows if r["run_id"] != gone]
    export.agents = {k: v for k, v in export.agents.items() if v != "kestrel"}
    export.sidecars()
    kit.build(export.root, out, root=tmp_path)
    files = kit.site_files(out)
    assert not (out / "runs" / gone).exists()
    assert not (out / "agents" / "kestrel").exists()
    assert [p for p, data in files.items() if gone.encode() in data or gone[:8].encode() in data] == []
    assert f"runs/{run_id(1)}/index.html" in files


HOSTILE_LABELS = (kit.SVG_TEXT, kit.FOREIGN, kit.CDATA_END, kit.AMP, kit.XSS, kit.DQ_BREAK, kit.SQ_BREAK)


@pytest.mark.parametrize("label", HOSTILE_LABELS, ids=repr)
def test_svg_templates_are_autoescaped(tmp_path, label):
    """E15: a template named .svg is escaped like any other (select_autoescape would not)."""
    theme = overriding_theme(
        tmp_path,
        {
            "svg/hostile.svg": '<svg role="img" aria-label="{{ label }}">'
            "<title>{{ label }}</title><desc>d</desc>"
            '<text x="1" y="2">{{ label }}</text></svg>'
        },
    )
    env = make_environment(theme_chain("default", [builtin_themes()], theme))
    svg = kit.parse_svg(env.get_template("svg/hostile.svg").render(label=label))
    assert svg.get("aria-label") == label
    assert svg.find("title").text == label and svg.find("text").text == label
    assert [e.tag for e in svg.iter()] == ["svg", "title", "desc", "text"]
    strip = env.from_string('{% from "svg/strip.svg" import strip_svg %}{{ strip_svg(s, href, label) }}')
    rendered = strip.render(s=charts.strip([], None), href=lambda p: p, label=label)
    svg = kit.parse_svg(rendered)
    assert svg.find("title").text == label
    assert not [e for e in svg.iter() if e.tag in ("script", "foreignObject")]
