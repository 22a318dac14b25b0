"""Build a site for a test and read it back: a small DOM oracle over ``html.parser``.

``parse_html(text)`` gives a :class:`Document`: every start tag in source order
(``doc.tags``, whatever the nesting) and a tree (``doc.root``) for text and
structure. Text is taken after the parser has decoded character references, so
``doc.text()`` holding ``"><script>`` means the page *shows* those characters:
they were escaped, not parsed as markup.

``build(config_kwargs, export_root, out)`` runs the real build; ``site_files``
reads every output file back as bytes.
"""

from __future__ import annotations

import gzip
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

from podium.build import build_site
from podium.config import Config

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
RAW_TEXT = {"script", "style"}


@dataclass
class Element:
    tag: str
    attrs: list[tuple[str, str | None]]
    line: int
    parent: Element | None = None
    children: list = field(default_factory=list)  # Element | str
    self_closing: bool = False

    def get(self, name: str, default=None):
        for key, value in self.attrs:
            if key == name:
                return value if value is not None else ""
        return default

    def has(self, name: str) -> bool:
        return any(key == name for key, _ in self.attrs)

    def iter(self, tag: str | None = None):
        if tag is None or self.tag == tag:
            yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.iter(tag)

    def text(self) -> str:
        """The decoded text inside this element (script/style contents included)."""
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def element_children(self) -> list[Element]:
        return [c for c in self.children if isinstance(c, Element)]

    def __repr__(self) -> str:
        return f"<{self.tag} {self.attrs!r} line {self.line}>"


class _TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", [], 0)
        self.stack = [self.root]
        self.tags: list[Element] = []
        self.stray_end_tags: list[tuple[str, int]] = []
        self.comments: list[str] = []
        self.decls: list[str] = []

    def handle_starttag(self, tag, attrs):
        self._open(tag, attrs, self_closing=False)

    def handle_startendtag(self, tag, attrs):
        self._open(tag, attrs, self_closing=True)

    def _open(self, tag, attrs, self_closing):
        element = Element(tag, list(attrs), self.getpos()[0], self.stack[-1], self_closing=self_closing)
        self.stack[-1].children.append(element)
        self.tags.append(element)
        if not self_closing and tag not in VOID:
            self.stack.append(element)

    def handle_endtag(self, tag):
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return
        self.stray_end_tags.append((tag, self.getpos()[0]))

    def handle_data(self, data):
        self.stack[-1].children.append(data)

    def handle_comment(self, data):
        self.comments.append(data)

    def handle_decl(self, decl):
        self.decls.append(decl)


@dataclass
class Document:
    root: Element
    tags: list[Element]
    stray_end_tags: list[tuple[str, int]]
    comments: list[str]
    source: str

    def all(self, tag: str) -> list[Element]:
        return [t for t in self.tags if t.tag == tag]

    def text(self) -> str:
        return self.root.text()

    def head(self) -> Element:
        (head,) = self.all("head")
        return head

    def attribute_values(self) -> list[str]:
        return [v for t in self.tags for _, v in t.attrs if v is not None]

    def ids(self) -> list[str]:
        return [t.get("id") for t in self.tags if t.has("id")]


def parse_html(text: str) -> Document:
    builder = _TreeBuilder()
    builder.feed(text)
    builder.close()
    return Document(builder.root, builder.tags, builder.stray_end_tags, builder.comments, text)


# ------------------------------------------------------------------ links

_URL_IN_CSS = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)", re.I)
_STRIP = "".join(chr(c) for c in range(0x21)) + "\x7f"


def url_scheme(value: str) -> str | None:
    """The scheme a browser would see in an attribute value (lower case), None when relative.

    The value is unescaped again (a second round of entities), then control
    characters and whitespace are removed anywhere, as browsers do for schemes.
    """
    text = unescape(value)
    text = "".join(ch for ch in text if ch not in _STRIP and ch not in "\u00a0\u200b\ufeff")
    match = re.match(r"^([A-Za-z][A-Za-z0-9+.\-]*):", text)
    return match.group(1).lower() if match else None


def is_internal(url: str) -> bool:
    return url_scheme(url) is None and not url.startswith("//")


def split_target(url: str) -> tuple[str, str]:
    """(path, fragment) of a relative URL; the query is dropped."""
    parts = urlsplit(url)
    return parts.path, parts.fragment


def css_urls(css: str) -> list[str]:
    return [m.group(2) for m in _URL_IN_CSS.finditer(css)]


# ------------------------------------------------------------------ SVG

_SVG = re.compile(r"<svg\b.*?</svg>", re.S)
NUMERIC_SVG_ATTRS = {"x", "y", "width", "height", "cx", "cy", "r", "x1", "x2", "y1", "y2", "rx", "ry"}


def inline_svgs(html_text: str) -> list[str]:
    return _SVG.findall(html_text)


def parse_svg(fragment: str) -> ET.Element:
    return ET.fromstring(fragment)


# ------------------------------------------------------------------ JSON


def _no_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")


class Unsorted(ValueError):
    pass


def _sorted_object(pairs):
    keys = [k for k, _ in pairs]
    if keys != sorted(keys):
        raise Unsorted(f"keys not sorted: {keys}")
    if len(set(keys)) != len(keys):
        raise ValueError(f"duplicate keys: {keys}")
    return dict(pairs)


def strict_json(text: str | bytes, *, sorted_keys: bool = True):
    """json.loads refusing NaN/Infinity, duplicate keys and (optionally) unsorted keys."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    hook = _sorted_object if sorted_keys else None
    return json.loads(text, parse_constant=_no_constant, object_pairs_hook=hook)


# ------------------------------------------------------------------ build


def build(export_root: Path, out: Path, **config) -> Path:
    root = config.pop("root", out.parent)
    build_site(Config(source="", root=root, out=out, **config), export_root)
    return out


def read_site_file(path: Path) -> bytes:
    """A site file's bytes; a gzipped one (``.gz``: the ledger's JSON parts) decompressed, so every check
    (secrets, escaping, schemas) reads what a user gets after gunzip."""
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


def site_files(out: Path) -> dict[str, bytes]:
    """Every file of the built site by its site path (``/``-separated), ``.gz`` files decompressed."""
    return {p.relative_to(out).as_posix(): read_site_file(p) for p in sorted(out.rglob("*")) if p.is_file()}


def pages(files: dict[str, bytes]) -> dict[str, str]:
    return {path: data.decode("utf-8") for path, data in files.items() if path.endswith(".html")}


def listing(root: Path, skip: Path | None = None) -> set[str]:
    """Every path under ``root`` (files, dirs, links), except under ``skip``."""
    out = set()
    for path in root.rglob("*"):
        if skip is not None and (path == skip or skip in path.parents):
            continue
        out.add(path.relative_to(root).as_posix())
    return out


# ------------------------------------------------------------------ the hostile export

XSS = '"><script>alert(1)</script>'
SQ_BREAK = "' onmouseover=alert(1) x='"
DQ_BREAK = '" autofocus onfocus=alert(1) x="'
SVG_TEXT = "</text><script>x</script>"
FOREIGN = "<foreignObject>"
CDATA_END = "]]>"
AMP = "&amp;"
JINJA_EXPR = "{{ 7*7 }}"
JINJA_STMT = "{% for x in y %}"
IMG = "<img src=x onerror=alert(1)>"
IFRAME = '<iframe src="javascript:alert(1)"></iframe>'
STYLE = "<style>body{display:none}</style>"
COMMENT = "<!-- hidden -->"
JS_URL = "javascript:alert(1)"
RTL = "gpt\u202eevil"
ZERO_WIDTH = "model\u200b"
LONG = "L" * 4999 + "!"
PATHS = ("../../etc/passwd", "a/b", "CON")

# Strings that must reach the page as text, character for character.
SHOWN = (
    XSS,
    SQ_BREAK,
    DQ_BREAK,
    SVG_TEXT,
    FOREIGN,
    CDATA_END,
    AMP,
    JINJA_EXPR,
    JINJA_STMT,
    IMG,
    IFRAME,
    STYLE,
    COMMENT,
    JS_URL,
    RTL,
    ZERO_WIDTH,
) + PATHS
AGENT_NAMES = SHOWN + (LONG,)
MISSIONS = (XSS, SVG_TEXT, JINJA_EXPR, "../../etc/passwd", "a/b", "CON", DQ_BREAK, "m-plain")

# Markdown that must never become a live link, image, element or template output.
MARKDOWN_ATTACKS = """
[js](javascript:alert(1)) [mixed](JaVaScRiPt:alert(1)) [spaced]( javascript:alert(1))
[data](data:text/html,<script>alert(1)</script>) [vb](vbscript:msgbox(1)) [file](file:///etc/passwd)
[entity](&#106;avascript:alert(1)) [tab](java\tscript:alert(1)) <javascript:alert(1)>
[ref][1] and ![img](javascript:alert(1)) and ![](https://tracker.example/p.gif)

[1]: javascript:alert(1)

<img src=x onerror=alert(1)>

<iframe src="https://evil.example/"></iframe>

<style>body { display: none }</style>

<!-- a comment -->

<script>alert(1)</script>

<svg onload=alert(1)><foreignObject></foreignObject></svg>

Template: {{ 7*7 }} and {% for x in y %}

Fine link: [docs](https://example.com/docs) and [mail](mailto:a@example.com)
"""


def hostile_report(agent: str, mission: str, rid: str, extra: str = "") -> str:
    from exportkit import report_md

    return report_md(
        agent=f"{agent} v1",
        mission=f"{mission} v1.0.0",
        rid=rid,
        extra=f"\n## Notes\n\n{agent}\n\n{MARKDOWN_ATTACKS}\n{extra}",
    )


def hostile_export(export, *, extra_report: str = ""):
    """One agent per hostile name, each with a graded run whose every free-text field is hostile.

    Returns {run id: hostile name}. ``export`` is an exportkit.ExportDir.
    """
    from exportkit import graded, run_id

    runs = {}
    for n, name in enumerate(AGENT_NAMES):
        rid = run_id(f"hostile-{n}")
        mission = MISSIONS[n % len(MISSIONS)]
        text = name[:200]
        body = graded(
            rid,
            det=(n % 5) / 4,
            judge=((n + 2) % 5) / 4,
            model=text,
            judge_model=text,
            models_reported=[text, "=1+1"],
            judge_detail=f"detail {name}",
        )
        body["grade"]["judge_breakdown"][0].update(criterion_id=text, text=f"text {name}", reason=f"reason {name}")
        body["grade"]["check_breakdown"][0].update(id=text, error=f"error {name}")
        if n % 4 == 1:
            body["conditions"]["mission_version"] = None
            body["conditions"]["install_revision"] = n
        export.run(
            body,
            rid=rid,
            agent=name,
            mission=mission,
            at=n * 30,
            report=hostile_report(name, mission, rid, extra_report),
        )
        runs[rid] = name
    export.sidecars()
    return runs


# ------------------------------------------------------------------ the ledger, from its parts

RUNS_INDEX = "api/results/runs.json"


def ledger_rows(files: dict[str, bytes]) -> list[dict]:
    """The whole ledger as runs.json used to hold it (one dict per run, newest first), put together from
    the index and its JSON Lines parts: the layout a script reading the data follows (docs/data.md; one
    object per run and line since podium.runs/4)."""
    index = strict_json(files[RUNS_INDEX])
    rows = []
    for part in index["parts"]:
        raw = files[part["jsonl_gz"]]  # gzipped as written, or already read through read_site_file
        text = (gzip.decompress(raw) if raw.startswith(b"\x1f\x8b") else raw).decode("utf-8")
        assert text.endswith("\n") and len(text.splitlines()) == part["runs"], part["jsonl_gz"]
        for line in text.splitlines():
            row = strict_json(line, sorted_keys=False)
            assert list(row) == index["columns"], part["jsonl_gz"]  # every column, in order
            assert (row["agent"], row["agent_name"], row["mission"]) == (
                part["agent"],
                part["agent_name"],
                part["mission"],
            )
            rows.append(row)
    assert len(rows) == index["runs"]
    return sorted(rows, key=lambda r: (r["date"] is None, _negated(r["date"] or ""), r["run_id"]))


def _negated(text: str) -> tuple:
    return tuple(-ord(c) for c in text)


def ledger_csv(files: dict[str, bytes]) -> str:
    """Every CSV part of the ledger, as one CSV text with one header (parts concatenate)."""
    index = strict_json(files[RUNS_INDEX])
    header, bodies = None, []
    for part in index["parts"]:
        text = files[part["csv"]].decode("utf-8")
        first, _, body = text.partition("\r\n")
        assert header in (None, first)
        header = first
        bodies.append(body)
    return (header or ",".join(index["columns"])) + "\r\n" + "".join(bodies)


def ledger_rows_at(site: Path) -> list[dict]:
    """:func:`ledger_rows` of a built site directory (reads only the index and its JSON parts, gunzipped)."""
    index = strict_json((site / RUNS_INDEX).read_bytes())
    files = {RUNS_INDEX: (site / RUNS_INDEX).read_bytes()}
    files.update({part["jsonl_gz"]: read_site_file(site / part["jsonl_gz"]) for part in index["parts"]})
    return ledger_rows(files)


DATA_DOC = Path(__file__).resolve().parents[1] / "docs" / "data.md"


def ledger_readers() -> dict[str, tuple[str, str]]:
    """The fenced blocks of docs/data.md's "The ledger as data" (pandas, DuckDB, jq, the standard library),
    by the tool their first comment names: (language, body). tests/site/test_ledger_readers.py runs each."""
    text = DATA_DOC.read_text(encoding="utf-8")
    section = re.search(r"^##+ The ledger as data\n(.*?)(?=^##+ |\Z)", text, re.S | re.M)
    assert section, "docs/data.md lost its section 'The ledger as data'"
    blocks = {}
    for language, body in re.findall(r"```(\w+)\n(.*?)```", section.group(1), re.S):
        tool = re.match(r"(?:#|--) ([\w ]+?):", body)
        assert tool, f"a {language} block of docs/data.md's 'The ledger as data' names no tool in its first comment"
        blocks[tool.group(1)] = (language, body)
    return blocks
