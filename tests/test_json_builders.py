"""One way to make JSON (issue 35 item 3): every JSON document podium publishes is a typed value made into JSON by
model/jsonable.py, never a dict written out key by key.

Read from the code: no function in generator/podium writes a dict literal (or ``dict(...)`` with keyword
arguments) of more than MAX_KEYS text keys holding values it computed, and no function is named like a
hand-written serializer (``as_json``, ``to_json``, ``*_dict``), except the few listed in ALLOWED, each with why it
is not a document built by hand. A new builder fails here: give it a dataclass whose fields are its keys
(docs/architecture.md, "A new data file").
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "generator" / "podium"
MAX_KEYS = 3  # {"schema": ..., "reports": ...} is a wrapper; four computed keys are a document

# "<path under generator/podium>::<function>": why it is not a JSON document built by hand.
ALLOWED = {
    "build.py::build_site": "keyword arguments handed on to BuildInputs.of, not a document",
    "inputs.py::key_parts": "the parts of the build's cache key (hashed, never published)",
    "cache/keys.py::__getstate__": "a pickled cache key maker's state, never published",
    "cache/keys.py::page": "the parts of a page's cache key (hashed, never published)",
    "cache/keys.py::run_page": "the parts of a run page's cache key (hashed, never published)",
    "count/bundle.py::_agent_shape": "the shape a published summary is read back with (load/shape.py), not made",
    "count/cost.py::figures_of": "each measure's values by name, a table the Cost is made from",
    "plan/charts.py::agreement": "keyword arguments two Point(...) calls share",
    "render/summary_parts.py::summary_index": (
        "summary.json's index is the published whole summary (render/data.py Summary) with its entries cut to "
        "their headlines by split(): a cut of published data, whose keys the Summary type declares"
    ),
    "load/jsonfile.py::_dict": "the bytes a dict of n members holds (a size estimate), not a serializer",
    "load/export/runs.py::_from_result": "keyword arguments for Run(...), read from result.json, not published",
    "model/cost.py::as_dict": "a Spent's values by Telemetry row, for its repr and tests; never published",
    "model/jsonable.py::_maker": "the names the function jsonable writes for a class sees",
}


def _text_keys(node: ast.AST) -> int | None:
    """How many text keys a dict literal or ``dict(k=v, ...)`` writes when one of its values is computed (None when
    it is not such a node, or a table of constants)."""
    if isinstance(node, ast.Dict):
        keys = [k for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        values = node.values
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        keys = [k for k in node.keywords if k.arg is not None]
        values = [k.value for k in node.keywords]
    else:
        return None
    if all(isinstance(v, ast.Constant) for v in values):
        return None  # a lookup table (words, labels), not a document made from values
    return len(keys)


def findings(package: Path = PACKAGE) -> dict[str, str]:
    """``<path>::<function>`` -> what it does that a JSON document built by hand does."""
    found: dict[str, str] = {}
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))

        def visit(node: ast.AST, function: str | None, rel: str = rel) -> None:
            for child in ast.iter_child_nodes(node):
                inner = function
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    inner = child.name
                    name = child.name
                    if name in ("as_json", "to_json") or name.endswith("_dict"):
                        found.setdefault(f"{rel}::{name}", f"a function named {name}")
                if function is not None and (n := _text_keys(child)) is not None and n > MAX_KEYS:
                    found.setdefault(f"{rel}::{function}", f"line {child.lineno}: a dict of {n} text keys")
                visit(child, inner, rel)

        visit(tree, None)
    return found


def test_every_json_document_is_a_typed_value():
    found = findings()
    new = {where: what for where, what in found.items() if where not in ALLOWED}
    assert not new, (
        "JSON built by hand (make it a dataclass whose fields are its keys and publish it with "
        "podium.model.jsonable; docs/architecture.md 'A new data file'):\n"
        + "\n".join(f"  {where}: {what}" for where, what in sorted(new.items()))
    )


def test_every_exception_is_still_there():
    """An entry of ALLOWED whose code changed or went is removed, so the list stays the exceptions that are."""
    stale = sorted(set(ALLOWED) - set(findings()))
    assert not stale, f"no longer found, remove from ALLOWED: {stale}"


def test_a_hand_built_document_is_found(tmp_path):
    """The check itself: a builder written the old way, a serializer's name, and what is not a document."""
    (tmp_path / "data.py").write_text(
        "TABLE = {'a': 1, 'b': 2, 'c': 3, 'd': 4, 'e': 5}\n"  # module level: a constant table
        "def words(x):\n"
        "    return {'a': 'x', 'b': 'y', 'c': 'z', 'd': 'w'}[x]\n"  # constants only: a lookup
        "def agent_entry(a):\n"
        "    return {'agent': a.agent, 'name': a.name, 'slug': a.slug, 'url': a.url}\n"
        "def options(a):\n"
        "    return dict(one=a, two=a, three=a, four=a)\n"
        "def small(a):\n"
        "    return {'schema': 'x/1', 'runs': a, 'parts': a}\n"
        "class Row:\n"
        "    def as_json(self):\n"
        "        return self\n"
        "def figures_dict(f):\n"
        "    return f\n",
        encoding="utf-8",
    )
    found = findings(tmp_path)
    assert set(found) == {"data.py::agent_entry", "data.py::options", "data.py::as_json", "data.py::figures_dict"}
    assert found["data.py::agent_entry"] == "line 5: a dict of 4 text keys"
