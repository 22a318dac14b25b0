"""themes/README.md's context tables are made from the context dataclasses (generator/podium/plan/contexts.py),
and its list of filters and globals from the tables the Jinja environment is made with
(generator/podium/render/templates.py ``FILTERS`` and ``GLOBALS``).

Each context table lists a context's fields: name, type (as annotated) and the field's ``#:`` doc comment;
each filter or global: its name, what it calls (or its value's type) and its ``#:`` comment. This test
renders them and fails when the README's generated sections differ, so the documentation cannot drift
from what the plan hands to templates and what templates may call. After changing either, regenerate with

    PODIUM_UPDATE_THEME_CONTEXTS=1 python -m pytest tests/test_theme_contexts.py

(or ``python tests/test_theme_contexts.py --update``) and commit themes/README.md.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import os
import re
import sys
import types
from pathlib import Path

import jinja2.defaults

from podium.plan import contexts
from podium.render import templates

README = Path(__file__).resolve().parents[1] / "themes" / "README.md"
UPDATE = "PODIUM_UPDATE_THEME_CONTEXTS"
COMMON = frozenset(f.name for f in dataclasses.fields(contexts.PageContext))  # in the common table
SECTION = re.compile(r"(<!-- generated: (?P<name>[a-z]+) .*?-->\n)(?P<body>.*?)(<!-- end generated -->)", re.S)


def field_docs() -> dict[str, dict[str, tuple[str, str]]]:
    """class name -> field name -> (type as annotated, its ``#:`` doc comment), from contexts.py's source."""
    source = inspect.getsource(contexts)
    lines = source.splitlines()
    out: dict[str, dict[str, tuple[str, str]]] = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ClassDef):
            continue
        docs = out.setdefault(node.name, {})
        for item in node.body:
            if not (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)):
                continue
            assert item.end_lineno is not None
            docs[item.target.id] = (ast.unparse(item.annotation), doc_comment(lines, item.end_lineno))
    return out


def doc_comment(lines: list[str], end: int) -> str:
    """The ``#:`` doc comment of the item that ends on line ``end`` (1-based): on that line, and on the ``#:``
    lines right after it."""
    parts = []
    trailing = re.search(r"#:\s?(.*)$", lines[end - 1])
    if trailing:
        parts.append(trailing.group(1).strip())
    at = end
    while at < len(lines) and lines[at].strip().startswith("#:"):
        parts.append(lines[at].strip()[2:].strip())
        at += 1
    return " ".join(p for p in parts if p)


def _cell(text: str) -> str:
    return text.replace("``", "`").replace("|", "\\|")


def _doc(cls: type, docs: dict) -> list[tuple[str, str, str]]:
    """(name, type, doc) of each of a dataclass's fields, or of a TypedDict's keys, in order."""
    if dataclasses.is_dataclass(cls):
        names = [f.name for f in dataclasses.fields(cls)]
    else:
        names = list(cls.__annotations__)
    rows = []
    for name in names:
        owner = next(c for c in cls.__mro__ if name in docs.get(c.__name__, {}))
        kind, doc = docs[owner.__name__][name]
        assert doc or not dataclasses.is_dataclass(cls), f"{cls.__name__}.{name} has no #: doc comment"
        rows.append((name, kind, doc))
    return rows


def _table(cls: type, docs: dict, skip: frozenset[str] = frozenset()) -> list[str]:
    out = ["| field | type | what it is |", "|---|---|---|"]
    out += [f"| `{name}` | `{_cell(kind)}` | {_cell(doc)} |" for name, kind, doc in _doc(cls, docs) if name not in skip]
    return out


def _summary(cls: type) -> str:
    doc = inspect.getdoc(cls) or ""
    return _cell(" ".join(doc.split()))


def table_docs(name: str) -> dict[str, str]:
    """Each key of render/templates.py's ``name`` table (FILTERS, GLOBALS) -> its ``#:`` doc comment (on the
    entry's last line, and the ``#:`` lines right after it)."""
    source = inspect.getsource(templates)
    lines = source.splitlines()
    table = next(
        node.value
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == [name]
    )
    assert isinstance(table, ast.Dict)
    docs = {}
    for key, value in zip(table.keys, table.values):
        assert isinstance(key, ast.Constant) and value.end_lineno is not None
        docs[key.value] = doc_comment(lines, value.end_lineno)
    return docs


def _calls(value: object) -> str:
    """What a filter or global is: the function it calls, with its parameters and where it is defined; or
    the type of its value."""
    if isinstance(value, types.ModuleType):
        return f"the module `{value.__name__}`"
    if callable(value):
        where = value.__module__.removeprefix("podium.").replace(".", "/") + ".py"
        params = ", ".join(inspect.signature(value).parameters)
        return f"`{value.__name__}({params})` in `{where}`"
    if isinstance(value, dict):
        return f"a `dict` of {len(value)}"
    return f"`{type(value).__name__}` {value!r}"


def _functions(name: str, table: dict[str, object], kind: str) -> list[str]:
    docs = table_docs(name)
    out = [f"| {kind} | what it is | what it gives |", "|---|---|---|"]
    out += [f"| `{key}` | {_cell(_calls(value))} | {_cell(docs[key])} |" for key, value in table.items()]
    return out


def render_sections() -> dict[str, str]:
    """Each generated section of themes/README.md, as it should read."""
    docs = field_docs()
    common = _table(contexts.CommonContext, docs)
    pages: list[str] = []
    for template, cls in contexts.PAGES.items():
        pages += [f"### `{template}`", "", f"`{cls.__name__}`: {_summary(cls)}", ""]
        if template == "404.html":
            pages += ["Nothing more.", ""]
            continue
        pages += _table(cls, docs, COMMON)
        added = contexts.ADDED_AT_RENDER.get(template)
        if added is not None:
            pages += [f"| `{name}` | `{_cell(kind)}` | {_cell(doc)} |" for name, kind, doc in _doc(added, docs)]
        pages.append("")
    standalone: list[str] = []
    for template, cls in contexts.STANDALONE.items():
        standalone += [f"### `{template}`", "", f"`{cls.__name__}`: {_summary(cls)}", ""]
        standalone += _table(cls, docs) + [""]
    values: list[str] = []
    for cls in contexts.VALUES:
        values += [f"### `{cls.__name__}`", ""]
        if cls.__doc__ and not cls.__doc__.startswith(f"{cls.__name__}("):  # a docstring, not dataclass's own
            values += [_summary(cls), ""]
        values += _table(cls, docs) + [""]
    filters = _functions("FILTERS", templates.FILTERS, "filter")
    filters += ["", *_functions("GLOBALS", templates.GLOBALS, "global")]
    return {
        "common": "\n".join(common) + "\n",
        "filters": "\n".join(filters) + "\n",
        "pages": "\n".join(pages),
        "standalone": "\n".join(standalone),
        "values": "\n".join(values),
    }


def rewritten(text: str) -> str:
    sections = render_sections()
    found = {m.group("name") for m in SECTION.finditer(text)}
    assert found == set(sections), f"themes/README.md's generated sections are {sorted(found)}, not {sorted(sections)}"
    return SECTION.sub(lambda m: m.group(1) + sections[m.group("name")] + m.group(4), text)


def test_the_readme_tables_are_made_from_the_context_dataclasses():
    text = README.read_text(encoding="utf-8")
    made = rewritten(text)
    if os.environ.get(UPDATE):
        README.write_text(made, encoding="utf-8")
        return
    assert made == text, (
        "themes/README.md's context tables differ from generator/podium/plan/contexts.py: regenerate them with "
        f"`{UPDATE}=1 python -m pytest tests/test_theme_contexts.py` (or `python tests/test_theme_contexts.py "
        "--update`) and commit the README"
    )


def test_every_field_has_a_doc_comment():
    docs = field_docs()
    pages = [*contexts.PAGES.values(), *contexts.STANDALONE.values(), *contexts.ADDED_AT_RENDER.values()]
    for cls in [contexts.CommonContext, *pages]:
        for name, _kind, doc in _doc(cls, docs):
            assert doc, f"{cls.__name__}.{name}"
    for cls in contexts.VALUES:
        if dataclasses.is_dataclass(cls):
            assert all(doc for _name, _kind, doc in _doc(cls, docs)), cls.__name__


def test_every_filter_and_global_a_template_can_call_is_in_the_tables_with_a_doc_comment():
    """The environment's own filters and globals beyond Jinja's are exactly FILTERS and GLOBALS (nothing added
    around them, undocumented), each with its ``#:`` comment."""
    env = templates.make_environment(templates.theme_chain("default", [templates.builtin_themes()]))
    assert {k: v for k, v in env.filters.items() if k not in jinja2.defaults.DEFAULT_FILTERS} == templates.FILTERS
    extra = {k: v for k, v in env.globals.items() if k not in jinja2.defaults.DEFAULT_NAMESPACE}
    assert extra == templates.GLOBALS
    for name, table in (("FILTERS", templates.FILTERS), ("GLOBALS", templates.GLOBALS)):
        docs = table_docs(name)
        assert set(docs) == set(table)
        assert all(docs.values()), [key for key, doc in docs.items() if not doc]


def test_the_check_can_fail():
    text = README.read_text(encoding="utf-8")
    assert rewritten(text.replace("| `page_title` |", "| `page_titel` |", 1)) == text
    assert rewritten(text.replace("| `pct_range` |", "| `pct_rnage` |", 1)) == text


def test_contexts_pickle_the_same_way_each_time():
    """A page's cache key is its context pickled (cache/store.py key_of): a context must give the same
    bytes each time it is made."""
    import pickle

    one = contexts.Pager(number=1, paths=("a", "b"), pages=2, first=1, last=12, total=20)
    two = contexts.Pager(number=1, paths=("a", "b"), pages=2, first=1, last=12, total=20)
    assert pickle.dumps(contexts.names(one), protocol=5) == pickle.dumps(contexts.names(two), protocol=5)
    assert all(
        cls.__dataclass_params__.frozen
        for cls in [*contexts.PAGES.values(), *contexts.STANDALONE.values(), *contexts.VALUES]
        if dataclasses.is_dataclass(cls)
    )


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit(f"usage: python {sys.argv[0]} --update  (rewrites themes/README.md's generated tables)")
    README.write_text(rewritten(README.read_text(encoding="utf-8")), encoding="utf-8")
