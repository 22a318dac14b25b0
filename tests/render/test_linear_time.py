"""Every pattern and parser that reads agent-written text runs in linear time (issue 29, item 1).

An agent writes its artifacts, and XORCISE puts them in a report inside a fence it does not
harden: any line of a report, of any length up to the report cap (2 MiB), is the attacker's.
One heading pattern that backtracked quadratically on ``## a`` + 50,000 spaces + ``b`` took
29 s on that line and would have taken ~12 h at the cap, so one run would stop every later
build. These tests time each parser on adversarial lines of doubling length, up to 1 MB, and
assert linear behaviour: the time at twice the input is under three times the time. Time is the
process's CPU time (``time.process_time``), never a wall clock: on a busy machine (a CI run beside
other builds) the wall clock counts other processes' turns, and a ratio of two wall clocks failed
there while the code was linear (issue 33, 5); a small floor keeps timer noise out of the ratio.

Two sweeps: the functions that read report text, each on the inputs that defeated it or could;
and every compiled pattern of the package, on lines made of the fragments such patterns key on.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest
from cputime import least_cpu
from hypothesis import given, settings
from hypothesis import strategies as st

import podium
from podium.load import report
from podium.render import reportmd
from podium.safety import withhold
from podium.safety.redact import Redactor

MB = 1 << 20
FLOOR = 0.004  # seconds: below this a ratio is timer noise
SWEEP_FLOOR = 0.02  # the same for one pattern's scan of a line (a quadratic one takes minutes at 512 KiB)


def _seconds(fn, arg) -> float:
    """The least CPU time this process spent on ``fn(arg)`` in two tries."""
    return least_cpu(fn, arg, tries=2)


def assert_linear(fn, make, *, largest: int = 2 * MB, smallest: int = 16 * 1024, what: str = "") -> None:
    """``fn(make(n))`` for n doubling up to ``largest`` (2 MiB, the report cap): twice the input under
    three times the time at every step above the floor, and at the last step always.

    A quadratic parser shows a ratio of ~4 at every step once it takes measurable time, so it fails
    long before the largest input (which would take hours). One steep step below the largest is
    let through: a scan in C can slow by a constant once its input outgrows the CPU's cache
    (pulldown-cmark's between 512 KiB and 1 MiB here), which is not growth."""
    size, last, steep = smallest, None, []
    while size <= largest:
        took = _seconds(fn, make(size))
        if last is not None and took >= 3 * max(last, FLOOR):  # once more, both sizes: a busy machine is noisy
            last, took = _seconds(fn, make(size // 2)), _seconds(fn, make(size))
        assert took < 5.0, f"{what or fn.__name__}: {took:.1f} s at {size:,} chars"
        if last is not None and took >= 3 * max(last, FLOOR):
            steep.append(f"{took:.3f} s at {size:,} chars, {last:.3f} s at {size // 2:,}")
            assert len(steep) == 1 and size < largest, f"{what or fn.__name__} is not linear: " + "; ".join(steep)
        last, size = took, size * 2


def _fill(head: str, tail: str = "b", filler: str = " "):
    return lambda n: head + filler * n + tail


def _repeat(unit: str, tail: str = ""):
    return lambda n: unit * (n // len(unit)) + tail


def _report_with(line_of):
    """A report whose Artifacts section holds the line in its fence, as an attacker agent writes it."""

    def make(n: int) -> str:
        return (
            "# XORCISE Run Report — m\n\n## Overview\n\n| Field | Value |\n|---|---|\n| Agent | a v1 |\n\n"
            "## Artifacts\n\n### report (artifact)\n\n```\n" + line_of(n) + "\n```\n\n## Telemetry\n\nok\n"
        )

    return make


# (what, function, input maker): the parsers of agent-written text and what defeated each
FUNCTIONS = [
    ("heading_name: ## a + spaces + b", withhold.heading_name, _fill("## a")),
    ("heading_name: ## + tabs + #", withhold.heading_name, _fill("##", "#x", "\t")),
    ("withhold: the line in a fence", withhold.withhold, _report_with(_fill("## a"))),
    ("withhold: many short headings", withhold.withhold, _repeat("## a  b\n")),
    ("overview_table_html: <h2 without >", report.overview_table_html, _repeat("<h2")),
    ("overview_table_html: <h2> without a title", report.overview_table_html, _repeat("<h2> ")),
    ("overview_table_html: titles without </table>", report.overview_table_html, _repeat("<h2>Overview</h2>")),
    (
        "overview_table_html: <tr without >",
        report.overview_table_html,
        lambda n: "<h2>Overview</h2><table>" + "<tr" * (n // 3) + "</table>",
    ),
    (
        "overview_table_html: rows without </tr>",
        report.overview_table_html,
        lambda n: "<h2>Overview</h2><table>" + "<tr>" * (n // 4) + "</table>",
    ),
    (
        "overview_table_html: cells without a close",
        report.overview_table_html,
        lambda n: "<h2>Overview</h2><table><tr>" + "<td>" * (n // 4) + "</tr></table>",
    ),
    (
        "overview_table_html: < in a cell",
        report.overview_table_html,
        lambda n: "<h2>Overview</h2><table><tr><td>" + "<" * n + "</td><td>x</td></tr></table>",
    ),
    ("tables_html: <h2> Activity without </table>", report.tables_html, _repeat("<h2>Activity</h2>")),
    ("tables_html: titles alternating", report.tables_html, _repeat("<h2>Activity</h2><h2>Overview</h2>")),
    (
        "tables_html: an Activity without a table before each",
        report.tables_html,
        _repeat("<h2>Activity</h2><p>x</p><h2>Overview</h2><table></table>"),
    ),
    ("telemetry_table: headings", report.telemetry_table, _repeat("## Telemetry\n")),
    ("telemetry_table: headings in one line", report.telemetry_table, _repeat("x## Telemetry")),
    ("telemetry_table: headings not alone", report.telemetry_table, _repeat("## Telemetry x\n")),
    ("telemetry_table: pipes", report.telemetry_table, lambda n: "## Telemetry\n\n" + "|" * n + "\n"),
    ("telemetry_table: rows", report.telemetry_table, lambda n: "## Telemetry\n" + "|a|1|\n" * (n // 6)),
    ("overview_table: pipes", report.overview_table, lambda n: "## Overview\n\n" + "|" * n + "\n"),
    ("overview_table: escaped pipes", report.overview_table, lambda n: "## Overview\n\n| " + "\\|" * (n // 2) + "\n"),
    ("closing hashes", lambda t: reportmd._without_closing_hashes(t), _repeat(" #", "x#")),
    ("heading title", reportmd._heading_title, _repeat("> - 1. ", "# artifacts #")),
    (
        "render: a heading of closing-hash runs",
        lambda t: reportmd.render(t, str),
        lambda n: "## a" + " #" * (n // 2) + "x#\n",
    ),
    ("render: the ReDoS line in a fence", lambda t: reportmd.render(t, str), _report_with(_fill("## a"))),
    ("render: a heading line of spaces", lambda t: reportmd.render(t, str), _fill("## a", "b\n")),
    ("render: < then letters", lambda t: reportmd.render(t, str), _repeat("<a:b")),
    ("render: spaces before <", lambda t: reportmd.render(t, str), _repeat(" " * 64 + "<a")),
    ("render: backslashes before ~", lambda t: reportmd.render(t, str), _repeat("\\\\\\~")),
    ("render: ]: definitions", lambda t: reportmd.render(t, str), _repeat("[a]: <")),
    (
        "render: refused definitions",
        lambda t: reportmd.render(t, str),
        lambda n: "".join(f"[a{i}]: javascript:x\n" for i in range(n // 20)),
    ),
    ("redact: keyword and spaces", Redactor(["Answ3r-One!x7"]), _fill("password:", "")),
    ("redact: token runs", Redactor(["Answ3r-One!x7"]), _repeat("sk-")),
    ("redact: scheme runs", Redactor(["Answ3r-One!x7"]), _repeat("a://")),
    ("redact: private key starts", Redactor(["Answ3r-One!x7"]), _repeat("-----BEGIN A")),
    ("redact: gate words and spaces", Redactor(["Answ3r-One!x7"]), _repeat("key \u00e9\u00e9 token  passw ")),
    ("redact: a gate word before a long run", Redactor(["Answ3r-One!x7"]), _fill("api_key", "x", "\u00e9")),
    (
        "render: a block of split secrets",  # its cuts were mapped onto its pieces in pieces x cuts (issue 34, 15)
        lambda t: reportmd.render(t, Redactor(["Answ3r One!x7"])),
        lambda n: "Answ3r **One**!x7 and " * (n // 22),
    ),
    ("redact: secrets split by white space", Redactor(["Answ3r One!x7"]), _repeat("Answ3r\n\t One!x7 ")),
    ("redact: format characters", Redactor(["Answ3r One!x7"]), _repeat("Answ3r \u200bOne!x7\u00ad ")),
    ("section words in a line", reportmd._may_name_section, _repeat("artifacts \u00e9 ")),
    ("section words on many lines", reportmd._may_name_section, _repeat("## deterministic   \n")),
    ("underlined section names", reportmd._named_sections, _repeat("## artifacts\n" + " " * 40 + "\n")),
    ("duration", report.parse_duration, _repeat("1")),
]


@pytest.mark.parametrize("what,fn,make", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_parser_is_linear_on_adversarial_lines(what, fn, make):
    assert_linear(fn, make, what=what)


def _package_patterns() -> list[tuple[str, re.Pattern]]:
    """Every compiled pattern at module level in the podium package (and in its tables of patterns)."""
    found = {}
    for info in pkgutil.walk_packages(podium.__path__, "podium."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern):
                found.setdefault(id(value), (f"{info.name}.{name}", value))
            elif isinstance(value, (list, tuple, dict)):  # tables of patterns (redact's shapes and gates)
                items = value.values() if isinstance(value, dict) else value
                for k, item in enumerate(items):
                    for inner in item if isinstance(item, tuple) else (item,):
                        if isinstance(inner, re.Pattern):
                            found.setdefault(id(inner), (f"{info.name}.{name}[{k}]", inner))
    return sorted(found.values(), key=lambda pair: pair[0])


# Patterns the code only ever applies anchored (``.match`` at one position, each position of a
# text at most once): swept with ``.match`` at the start. Unanchored, their leading runs make a
# search rescan from every start, but the functions that call them are swept above on the inputs
# that would make them do so. Every other pattern is swept as a search over the whole line.
ANCHORED = {
    "podium.load.jsonfile._SPACE",  # JSON parser: white space at the parser's position
    "podium.load.report._DURATION",  # fullmatch of one Overview cell
    "podium.load.report._DURATION_PART",  # findall only on a cell _DURATION matched whole
    "podium.load.report._OVERVIEW_TITLE",
    "podium.load.report._TITLES",  # after an <h2 ...>'s ">", as _OVERVIEW_TITLE
    "podium.load.report._WHOLE",  # fullmatch of one Telemetry cell
    "podium.load.shape.DIGEST_TEXT",  # fullmatch of one bounded JSON value
    "podium.load.shape.SITE_PATH",
    "podium.load.shape.TIME",  # after an <h2 ...>'s ">" (each one once)
    "podium.safety.redact._BEARER_GATE[1]",  # after a gate word (the runs after each word are disjoint)
    "podium.safety.redact._KEYWORD_GATE[1]",
    "podium.safety.redact._USERINFO_GATE[1]",
    "podium.render.reportmd._CHECKS_ELSE",  # after the first section word of a line (once a line)
    "podium.render.reportmd._NOTHING_ELSE",
    "podium.render.reportmd._UNDERLINE",  # the line after a heading-like line
}

FRAGMENTS = [
    "## a",
    "#",
    " #",
    "<h2",
    "<tr",
    "<td",
    "<",
    "<a:",
    "a@",
    "sk-",
    "token",
    "password:",
    "FLAG{",
    "-----BEGIN ",
    "eyJa.",
    "a://",
    "|",
    "\\",
    "~",
    "=",
    "-",
    " ",
    "\t",
    "a",
    "1",
    ".",
    "[",
    ">",
    "\x80",
]


def _lines(size: int) -> list[str]:
    out = []
    for fragment in FRAGMENTS:
        out.append(fragment * (size // len(fragment)))
        out.append(fragment + " " * size + "b")
        out.append((fragment + " ") * (size // (len(fragment) + 1)) + "x#")
    return out


def test_every_pattern_in_the_package_is_linear_on_adversarial_lines():
    """Each pattern scans every adversarial line at 16 KiB (a quadratic one is already slow there,
    long before it could take minutes), then its three slowest lines at 512 KiB and 1 MiB: twice
    the input under three times the time."""
    patterns = _package_patterns()
    names = {name for name, _ in patterns}
    assert len(patterns) > 30  # the walk found the package's patterns (withhold, report, reportmd, redact, ...)
    assert ANCHORED <= names, f"ANCHORED names patterns that are gone: {sorted(ANCHORED - names)}"
    lines = {size: _lines(size) for size in (16 * 1024, MB // 2, MB)}
    encoded = {size: [line.encode("utf-8", "surrogatepass") for line in texts] for size, texts in lines.items()}
    slow = []
    for name, pattern in patterns:
        inputs = encoded if isinstance(pattern.pattern, bytes) else lines
        if name in ANCHORED:
            scan = pattern.match
        else:
            scan = lambda text, findall=pattern.findall: len(findall(text))  # noqa: E731
        probes = sorted(((_seconds(scan, line), k) for k, line in enumerate(inputs[16 * 1024])), reverse=True)
        if probes[0][0] > 0.05:
            slow.append(f"{name} on {lines[16 * 1024][probes[0][1]][:12]!r}…: {probes[0][0]:.3f} s at 16 KiB")
            continue
        for _, k in probes[:3]:
            half, whole = inputs[MB // 2][k], inputs[MB][k]
            first, second = _seconds(scan, half), _seconds(scan, whole)
            if second >= 3 * max(first, SWEEP_FLOOR):  # once more: a busy machine is noisy
                first, second = _seconds(scan, half), _seconds(scan, whole)
            if second >= 3 * max(first, SWEEP_FLOOR):
                slow.append(f"{name} on {lines[MB][k][:12]!r}…: {first:.3f} s at 512 KiB, {second:.3f} s at 1 MiB")
    assert not slow, "\n".join(slow)


# The linear parsers give what the patterns they replaced gave, on every input.

_OLD_HEADING = re.compile(r"^ {0,3}#{1,2}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$|^ {0,3}#{1,2}[ \t]*$")
_OLD_OVERVIEW = re.compile(r"<h2[^>]*>\s*Overview\s*</h2>(.*?)</table>", re.S | re.I)
_OLD_ROW = re.compile(r"<tr[^>]*>(.*?)</tr>", re.S | re.I)
_OLD_CELL = re.compile(r"<t[dh][^>]*>(.*?)</t[dh]>", re.S | re.I)
_OLD_TAG = re.compile(r"<[^>]*>")


def _old_overview_table_html(text: str) -> dict[str, str]:
    import html

    tables = _OLD_OVERVIEW.findall(text)
    table: dict[str, str] = {}
    for row in _OLD_ROW.findall(tables[-1]) if tables else []:
        cells = [html.unescape(_OLD_TAG.sub("", c)).strip() for c in _OLD_CELL.findall(row)]
        if len(cells) >= 2 and cells[0] not in table:
            table[cells[0]] = cells[1]
    return table


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=" \t#aB\x0b\u00a0", max_size=12), st.integers(0, 4), st.integers(0, 3))
def test_heading_name_is_the_pattern_it_replaced(tail, spaces, hashes):
    for line in (tail, " " * spaces + "#" * hashes + tail):
        match = _OLD_HEADING.match(line)
        assert withhold.heading_name(line) == (None if match is None else (match.group(1) or "").strip().lower())


_HTML_TOKENS = [
    "<h2>",
    "<H2 a>",
    "<h2",
    "Overview",
    " ",
    "\n",
    "</h2>",
    "<table>",
    "</table>",
    "<tr>",
    "<tr",
    "</tr>",
    "<td>",
    "<th x>",
    "<td",
    "</td>",
    "</th>",
    "a",
    "b",
    ">",
    "<",
    "&amp;",
    "<b>",
]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_HTML_TOKENS), max_size=30))
def test_overview_table_html_is_the_patterns_it_replaced(tokens):
    text = "".join(tokens)
    assert report.overview_table_html(text) == _old_overview_table_html(text)
    # and with a real table somewhere in it
    text = "".join(tokens[:5]) + "<h2>Overview</h2><table><tr><td>Agent</td><td>a v1</td></tr>" + "".join(tokens[5:])
    assert report.overview_table_html(text) == _old_overview_table_html(text)


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=" #a\t", max_size=14))
def test_closing_hashes_are_the_pattern_they_replaced(title):
    assert reportmd._without_closing_hashes(title) == re.sub(r"(?: #+)+$", "", title)


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="1.dhmsx ", max_size=10))
def test_duration_is_what_it_was(text):
    compact = text.replace(" ", "")
    parts = re.findall(r"(\d+(?:\.\d+)?)([dhms])", compact)
    expected = None if not parts or "".join(n + u for n, u in parts) != compact else report.parse_duration(text)
    assert report.parse_duration(text) == expected
    if expected is not None:
        assert expected == sum(float(n) * {"d": 86400, "h": 3600, "m": 60, "s": 1}[u] for n, u in parts)
