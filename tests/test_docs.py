"""The README a newcomer reads and the docs a contributor reads say only what is there.

- README.md stays at most 8 KB; its test command is the one `.ci/run` runs; its ledger one-liner is one of
  the readers docs/data.md shows (tests/site/test_ledger_readers.py runs those).
- Every relative link of README.md and docs/ resolves (an anchor to a heading of the file it names); every
  repository path they name in backticks exists; every "file.md §N" and "file.md "Section"" names a heading.
- Every `podium` command and option the README shows is one podium has; docs/usage.md has a section per
  command naming each of its options, and every podium.yaml key.
- docs/architecture.md names every folder of generator/podium/, and its order of a build is the order
  build.py makes those calls in.
"""

from __future__ import annotations

import ast
import dataclasses
import fnmatch
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
import sitekit as kit  # ledger_readers: docs/data.md's readers, which tests/site/test_ledger_readers.py runs

from podium.commands.cli import main
from podium.config import Config

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = [README, *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "rules").glob("*.md"))]
# docs/rules/README.md maps the specifications' own section names (outside this repository) to its files
SECTIONED = [doc for doc in DOCS if doc != ROOT / "docs" / "rules" / "README.md"]
PACKAGE = ROOT / "generator" / "podium"
TOP = ("README.md", "LICENSE", "action.yml", "pyproject.toml", "podium.yaml")
REPO_PATH = re.compile(r"(?:\.ci|benchmarks|content|docs|generator|scripts|tests|themes)/[\w./-]*|" + "|".join(TOP))
PACKAGE_PATH = re.compile(r"(?:cache|commands|count|load|model|plan|render|words|write)/[\w./-]*")
LINK = re.compile(r"!?\[(?:[^\]]|\][^(])*?\]\((?P<target>[^)\s]+)\)")
SECTION_REF = re.compile(
    r"(?:\[[^\]]*\]\((?P<link>[^)#\s]+\.md)\)|`?(?P<path>[\w./-]+\.md)`?),? "
    r"(?:\"(?P<title>[^\"]+)\"|§(?P<first>\d+(?:\.\d+)*)(?:[–-]§(?P<last>\d+(?:\.\d+)*))?)"
)


def name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def prose(text: str) -> str:
    """The text without its code: fenced blocks, indented blocks, HTML comments (code spans stay)."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"^```.*?^```[^\n]*$", "", text, flags=re.S | re.M)
    return "\n".join("" if re.match(r"( {4}|\t)(?!\s*[-*\d|])", line) else line for line in text.splitlines())


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (``_`` and ``-`` kept), spaces as ``-``."""
    text = re.sub(r"[`*]|<[^>]+>", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def headings(path: Path) -> list[str]:
    text = re.sub(r"^```.*?^```[^\n]*$", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    return [re.sub(r"[`*]", "", h).strip() for h in re.findall(r"^#{1,6} (.+)$", text, re.M)]


def titles(path: Path) -> list[str]:
    """A file's headings, and a content page's front-matter title (its page's heading)."""
    front = re.match(r"---\n(.*?)\n---\n", path.read_text(encoding="utf-8"), re.S)
    return headings(path) + re.findall(r"^title: (.+)$", front.group(1) if front else "", re.M)


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for heading in headings(path):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def ignored(relative: str) -> bool:
    """Named in .gitignore (made by a build or a test run, absent from a fresh clone)."""
    patterns = [p.strip() for p in (ROOT / ".gitignore").read_text().splitlines() if p.strip()]
    return any(
        fnmatch.fnmatch(relative.rstrip("/") + "/", pattern if pattern.endswith("/") else pattern + "/")
        or relative.startswith(pattern)
        for pattern in patterns
    )


def resolve(doc: Path, target: str) -> Path | None:
    for base in (doc.parent, ROOT, ROOT / "docs"):
        if (base / target).exists():
            return (base / target).resolve()
    return None


# ---------------------------------------------------------------------------------------------- the README


def test_the_readme_is_at_most_8_kb():
    size = len(README.read_bytes())
    assert size <= 8 * 1024, f"README.md is {size:,} bytes: keep it to what a newcomer needs, the rest in docs/"


def readme_commands() -> list[str]:
    """The README's command lines: its indented code lines."""
    return [line.strip() for line in README.read_text(encoding="utf-8").splitlines() if line.startswith("    ")]


def test_ci_runs_exactly_the_readme_test_command():
    tests = [line for line in readme_commands() if "pytest" in line]
    assert tests == ["pip install '.[test]' && python -m pytest"], tests
    lines = [line for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines() if line.strip()]
    assert lines[-1] == tests[0], f".ci/run ends with {lines[-1]!r}, the README's test command is {tests[0]!r}"
    assert "pip install . && podium build" in readme_commands()


def podium_uses(text: str) -> list[tuple[str, list[str]]]:
    """Each `podium …` the text shows (code lines, code spans; a table row lends its command to the options
    in its other cells): (command, the options it names)."""
    uses = []
    for line in text.splitlines():
        spans = re.findall(r"`([^`]+)`", line) if not line.startswith("    ") else [line.strip()]
        commands = [s for s in spans if s.startswith("podium ")]
        if not commands:
            continue
        options = [o for s in spans if s.startswith("-") for o in re.findall(r"(?<![\w-])(--?[\w-]+)", s)]
        for index, command in enumerate(commands):
            words = command.split("#")[0].split()
            name = words[1] if len(words) > 1 and not words[1].startswith("-") else ""
            named = [w.split("=")[0] for w in words[2:] if w.startswith("-")]
            uses.append((name, named + (options if index == 0 and line.startswith("|") else [])))
    return uses


def options_of(command: click.Command) -> set[str]:
    return {opt for param in command.params for opt in [*param.opts, *param.secondary_opts]} | {"--help", "-h"}


def test_every_command_and_option_the_readme_shows_is_one_podium_has():
    uses = podium_uses(README.read_text(encoding="utf-8"))
    assert {name for name, _ in uses} >= set(main.commands), "the README's commands table names every command"
    for name, options in uses:
        command = main.commands.get(name) if name else main
        assert command is not None, f"the README shows `podium {name}`, which is no podium command"
        unknown = set(options) - options_of(command) - ({"--version"} if not name else set())
        assert not unknown, f"the README shows `podium {name}` with {sorted(unknown)}, which it does not take"


def test_the_command_check_can_fail():
    assert podium_uses("    podium biuld --out x") == [("biuld", ["--out"])]
    assert podium_uses("| `podium rank [EXPORT...]` | by (`--by model`, `--jsn`) |") == [("rank", ["--by", "--jsn"])]


def test_the_readme_ledger_one_liner_is_one_that_the_tests_run():
    fenced = re.findall(r"```(\w+)\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert fenced, "the README shows one ledger one-liner"
    for language, body in fenced:
        assert (language, body) in kit.ledger_readers().values(), "the README's one-liner differs from docs/data.md's"


# ---------------------------------------------------------------------------------------------- links, paths


@pytest.mark.parametrize("doc", DOCS, ids=name)
def test_every_relative_link_resolves(doc):
    broken = []
    for match in LINK.finditer(prose(doc.read_text(encoding="utf-8"))):
        target = match.group("target")
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and (file.suffix != ".md" or anchor not in anchors(file)):
            broken.append(f"{target}: no heading #{anchor} in {name(file)}")
    assert not broken, f"{name(doc)}: " + "; ".join(broken)


@pytest.mark.parametrize("doc", DOCS, ids=name)
def test_every_path_named_exists(doc):
    missing = []
    for span in re.findall(r"`([^`\n]+)`", prose(doc.read_text(encoding="utf-8"))):
        if REPO_PATH.fullmatch(span) and not ignored(span) and not (ROOT / span).exists():
            missing.append(span)
        if PACKAGE_PATH.fullmatch(span) and not (PACKAGE / span).exists():
            missing.append(f"{span} (in generator/podium/)")
    assert not missing, f"{name(doc)} names paths that do not exist: {missing}"


@pytest.mark.parametrize("doc", SECTIONED, ids=name)
def test_every_section_named_exists(doc):
    """`file.md §N` (or §N–§M) names a heading "§N …" of that file; `file.md "Title"` a heading that starts so."""
    missing = []
    for match in SECTION_REF.finditer(prose(doc.read_text(encoding="utf-8")).replace("\n", " ")):
        target = resolve(doc, match.group("link") or match.group("path"))
        if target is None:
            missing.append(f"{match.group(0)}: no such file")
            continue
        named = titles(target)
        if match.group("title"):
            wanted = [match.group("title")]
            found = [w for w in wanted if any(t.lower().startswith(w.lower()) for t in named)]
        else:
            wanted = [n for n in (match.group("first"), match.group("last")) if n]
            found = [n for n in wanted if any(re.match(rf"§{re.escape(n)}(\s|$)", t) for t in named)]
        if found != wanted:
            missing.append(match.group(0))
    assert not missing, f"{name(doc)} names sections that do not exist: {missing}"


def test_the_link_and_path_checks_can_fail(tmp_path):
    assert prose("a\n```\n[x](nowhere.md)\n```\n").strip() == "a"
    assert "#the-ledger-as-data" in {f"#{a}" for a in anchors(ROOT / "docs" / "data.md")}
    assert slug("Preview locally: `podium serve`") == "preview-locally-podium-serve"
    assert slug("`podium build [EXPORT...]`") == "podium-build-export"
    assert not REPO_PATH.fullmatch("api/results/summary.json") and REPO_PATH.fullmatch("docs/nowhere.md")
    assert ignored("tests/artifacts/") and not ignored("tests/site/")
    matches = list(SECTION_REF.finditer('see [rules/site.md](rules/site.md) §3–§5 and `docs/usage.md` "Commands"'))
    assert [(m.group("first"), m.group("last"), m.group("title")) for m in matches] == [
        ("3", "5", None),
        (None, None, "Commands"),
    ]


# ---------------------------------------------------------------------------------------------- docs/usage.md

USAGE = ROOT / "docs" / "usage.md"


def usage_section(command: str) -> str:
    text = USAGE.read_text(encoding="utf-8")
    found = re.search(rf"^### `podium {command}[ `].*?$(.*?)(?=^##)", text, re.S | re.M)
    assert found, f"docs/usage.md has no section `podium {command} …`"
    return found.group(1)


@pytest.mark.parametrize("command", sorted(main.commands))
def test_usage_names_every_option_of_every_command_and_no_other(command):
    section = usage_section(command)
    options = {p.opts[-1] if p.opts[-1].startswith("--") else p.opts[0] for p in main.commands[command].params}
    options = {o for o in options if o.startswith("-")}
    spans = [s for s in re.findall(r"`([^`\n]+)`", section) if s.startswith(("-", f"podium {command}"))]
    named = {o for s in spans for o in re.findall(r"(?<![\w-])(--[a-z][\w-]*)", s)}
    assert options <= named, f"docs/usage.md's `podium {command}` misses {sorted(options - named)}"
    assert named <= options_of(main.commands[command]), f"`podium {command}` has no {sorted(named - options)}"


def test_usage_names_every_podium_yaml_key():
    text = USAGE.read_text(encoding="utf-8")
    block = re.search(r"^## Configuration.*?```yaml\n(.*?)```(.*?)(?=^## )", text, re.S | re.M)
    assert block
    keys = {f.name for f in dataclasses.fields(Config)} - {"source", "root"}
    in_block = set(re.findall(r"^(\w+):", block.group(1), re.M))
    in_table = {k for row in re.findall(r"^\| (.+?) \|", block.group(2), re.M) for k in re.findall(r"`(\w+)`", row)}
    assert in_block == keys, f"the example podium.yaml has {sorted(in_block ^ keys)} wrong"
    assert keys <= in_table, f"the key table misses {sorted(keys - in_table)}"


# ---------------------------------------------------------------------------------------------- architecture.md

ARCHITECTURE = ROOT / "docs" / "architecture.md"


def test_architecture_names_every_folder_and_module_of_the_package():
    text = ARCHITECTURE.read_text(encoding="utf-8")
    table = re.search(r"^## The folders\n(.*?)(?=^## )", text, re.S | re.M).group(1)
    rows = [row for row in re.findall(r"^\| (.+?) \| (.+) \|$", table, re.M) if row[0].startswith("`")]
    named = {item for cell, _ in rows for item in re.findall(r"`([^`]+)`", cell)}
    wanted = {f"{p.name}/" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    wanted |= {p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py")}
    assert wanted <= named | {"*.schema.json"}, f"docs/architecture.md has no row for {sorted(wanted - named)}"
    for cell, job in rows:
        for item in re.findall(r"`([^`]+)`", cell):
            assert list(PACKAGE.glob(item.rstrip("/"))), f"docs/architecture.md names {item}, not in generator/podium/"
            if item.endswith("/"):  # the modules a folder's row names are in it
                for module in re.findall(r"`([\w/]+\.py|[\w]+/)`", job):
                    assert (PACKAGE / item / module).exists(), f"{item}{module} (docs/architecture.md)"


def build_steps() -> list[tuple[str, list[str]]]:
    """docs/architecture.md's order of a build: (the step's line, the calls it names)."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = re.search(r"<!-- build order:.*?-->(.*?)<!-- end build order -->", text, re.S)
    assert section, "docs/architecture.md lost its marked build order section"
    steps = re.findall(r"^\d+\. \*\*[^*]+\*\* — ((?:`\w+`(?:, )?)+):", section.group(1), re.M)
    lines = re.findall(r"^\d+\. .*$", section.group(1), re.M)
    assert len(steps) == len(lines) >= 5, "each step: 'N. **stage** — `call`, `call`: what it does'"
    return [(line, re.findall(r"`(\w+)`", calls)) for line, calls in zip(lines, steps)]


def call_order(source: str, entry: str = "build_site") -> list[str]:
    """The names of the calls ``entry`` makes, in the order they run: arguments before the call, a call to a
    function of the same module followed into its body (once), lambdas and nested functions not (they run
    later, if at all)."""
    module = ast.parse(source)
    functions = {n.name: n for n in module.body if isinstance(n, ast.FunctionDef)}
    order: list[str] = []
    entered: set[str] = set()

    class Calls(ast.NodeVisitor):
        def visit_Lambda(self, node):
            pass

        def visit_FunctionDef(self, node):
            pass

        def visit_Call(self, node):
            self.generic_visit(node)
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if called is None:
                return
            order.append(called)
            if called in functions and called not in entered:
                enter(called)

    def enter(function: str) -> None:
        entered.add(function)
        for statement in functions[function].body:
            Calls().visit(statement)

    enter(entry)
    return order


def test_the_order_of_a_build_is_the_order_build_py_runs():
    order = call_order((PACKAGE / "build.py").read_text(encoding="utf-8"))
    at = -1
    for line, calls in build_steps():
        for call in calls:
            assert call in order, f"build.py makes no call `{call}`: update docs/architecture.md's step {line!r}"
            index = order.index(call)
            assert index > at, f"build.py calls `{call}` earlier than docs/architecture.md says: {line!r}"
            at = index


def test_the_build_order_check_can_fail():
    source = "def build_site():\n    b(a())\n    helper()\n\ndef helper():\n    c(lambda: d())\n"
    assert call_order(source) == ["a", "b", "helper", "c"]


# ---------------------------------------------------------------------------------------------- the screenshot

SCREENSHOT = ROOT / "docs" / "images" / "home.png"


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_the_readme_screenshot_is_a_small_png_of_the_demo_home_page():
    data = SCREENSHOT.read_bytes()
    assert png_size(data) == (1000, 566)
    assert len(data) < 150_000, f"docs/images/home.png is {len(data):,} bytes: keep the README light"
    assert "](docs/images/home.png)" in README.read_text(encoding="utf-8")


@pytest.mark.browser
def test_the_screenshot_script_makes_it(tmp_path):
    """scripts/readme_screenshot.py builds the demo and takes its home page (Chromium through Playwright)."""
    chromium = os.environ.get("PODIUM_CHROMIUM", "/usr/bin/chromium")
    if not (os.access(chromium, os.X_OK) and importlib.util.find_spec("playwright")):
        if os.environ.get("PODIUM_REQUIRE_BROWSER") == "1":
            pytest.fail(f"no Chromium at {chromium} or no playwright, and PODIUM_REQUIRE_BROWSER=1")
        pytest.skip(f"no Chromium at {chromium} or no playwright")
    out = tmp_path / "home.png"
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "readme_screenshot.py"), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    data = out.read_bytes()
    assert png_size(data) == (1000, 566) and 20_000 < len(data) < 150_000
