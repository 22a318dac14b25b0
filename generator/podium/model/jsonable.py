"""The one way a data file is made from typed values: :func:`jsonable` turns a value into plain JSON data,
:func:`dump_json` writes canonical bytes.

``jsonable(value)``:

- ``None``, ``bool``, ``int``, ``float`` and ``str`` are themselves (a float that is not finite is refused
  when the bytes are written: ``allow_nan=False``);
- a tuple or a list becomes a list, each item made the same way;
- a mapping becomes an object; its keys must be text (a key of another type is a TypeError, never a
  silent ``str()``);
- a dataclass instance becomes an object whose keys are its field names, in field order, each value made
  the same way (nested dataclasses recurse);
- anything else is a TypeError naming its type: a value a file should not hold is found when the file is
  made, not by a reader.

Where the published format differs from the fields, the field says so in its metadata, one key each
(``field(metadata={...})``; any other ``json_*`` key is a TypeError):

- ``"json_name": "from"``: published under another key (``from`` is a Python keyword);
- ``"json_omit": True``: not published (an index the pages use, a figure the file does not carry);
  ``"json_omit": f``: not published when ``f(owner)`` is true (a key a file carries only for a ranked agent,
  a count of more names only when there are more);
- ``"json_inline": True``: the field's own keys are published as its owner's (a stratum's step);
  a key published twice is a ValueError;
- ``"json_value": f``: ``f(value)`` is published in its place (an agent version that is a whole number
  as a number);
- ``"json_exact": True``: its floats are published as they are, never through ``floats`` (docs/rules/cost.md §2:
  a scope's cost is published unrounded where every other figure is rounded).

``jsonable(value, floats=f)`` publishes each float ``x`` as ``f(x)`` (render/data.py: rounded, docs/rules/site.md
§3), except under a ``json_exact`` field.

The types say how they publish (their fields and this metadata), never by code of their own: this module is the one
place that makes JSON from them, and the schema tests (``summary.schema.json``, ``runs.schema.json``,
``compare.schema.json``, ``progress.schema.json``) guard what it makes. It sits in ``model/``, below every stage,
so each layer that owns a JSON document makes it from typed values: render/'s data files (``data.py``,
``summary_parts.py``, ``compare_data.py``, ``progress_data.py``) and count/diff.py's change report. A new document
is a dataclass whose fields are its keys (tests/test_json_builders.py: no hand-built dict of keys elsewhere).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping

_KEYS = frozenset({"json_name", "json_omit", "json_inline", "json_value", "json_exact"})
Floats = Callable[[float], float]


@dataclasses.dataclass(frozen=True, slots=True)
class _Field:
    attribute: str
    key: str
    inline: bool
    value: Callable[[object], object] | None
    omit: Callable[[object], bool] | None  # not published when omit(owner)
    exact: bool


def jsonable(value: object, *, floats: Floats | None = None) -> object:
    """``value`` as plain JSON data (dicts, lists, text, numbers, booleans, None): see the module docstring."""
    return _made(value, floats)


_SCALARS = frozenset({str, int, bool, type(None)})  # published as they are (a subclass takes the long way)


def _made(value: object, floats: Floats | None) -> object:
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is float:
        return value if floats is None else floats(value)  # type: ignore[arg-type]  # a float, just checked
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if floats is None else floats(value)
    if isinstance(value, (tuple, list)):
        return [_made(item, floats) for item in value]
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"jsonable: a key of a published mapping must be text, got {type(key).__name__}")
            out[key] = _made(item, floats)
        return out
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _object(value, floats)
    raise TypeError(f"jsonable: cannot publish a {type(value).__name__}")


def _object(value: object, floats: Floats | None) -> dict:
    cls = type(value)
    make = _MAKERS.get(cls)
    if make is None:
        make = _MAKERS[cls] = _maker(cls)
    return make(value, floats)


_MAKERS: dict[type, Callable[[object, Floats | None], dict]] = {}


def _maker(cls: type) -> Callable[[object, Floats | None], dict]:
    """The function that publishes a ``cls``, written out once per class as dataclasses writes an ``__init__``:
    a statement or two a field, so a ledger row of 36 fields (made for every run in every format) costs 36
    attribute reads, not 36 trips through a loop over the plan."""
    env: dict[str, object] = {"_made": _made, "_S": _SCALARS, "_twice": _twice, "_not_object": _not_object}
    lines = ["def make(v, floats):", "    out = {}"]
    keys: set[str] = set()
    inlined = False
    for number, f in enumerate(_planned(cls)):
        pad = "    "
        if f.omit is not None:
            env[f"omit{number}"] = f.omit
            lines.append(f"    if not omit{number}(v):")
            pad = "        "
        read = f"v.{f.attribute}"
        if f.value is not None:
            env[f"value{number}"] = f.value
            read = f"value{number}({read})"
        lines.append(f"{pad}x = {read}")
        if f.exact:
            lines.append(f"{pad}x = x if type(x) in _S else _made(x, None)")
        else:  # a float made here, not by a call (a ledger row has eight)
            lines.append(f"{pad}kind = type(x)")
            lines.append(f"{pad}if kind is float: x = x if floats is None else floats(x)")
            lines.append(f"{pad}elif kind not in _S: x = _made(x, floats)")
        if f.inline:
            lines.append(f"{pad}if not isinstance(x, dict): _not_object({cls.__name__!r}, {f.attribute!r})")
            lines.append(f"{pad}for key in x:")
            lines.append(f"{pad}    if key in out: _twice({cls.__name__!r}, key)")
            lines.append(f"{pad}out.update(x)")
            inlined = True
            continue
        if inlined or f.key in keys:  # a key an inlined field may have published, or another field's name
            lines.append(f"{pad}if {f.key!r} in out: _twice({cls.__name__!r}, {f.key!r})")
        keys.add(f.key)
        lines.append(f"{pad}out[{f.key!r}] = x")
    lines.append("    return out")
    exec("\n".join(lines), env)  # noqa: S102  # only field names (identifiers) and repr()'d keys are written
    return env["make"]  # type: ignore[return-value]  # defined just above


def _twice(owner: str, key: str) -> None:
    raise ValueError(f"jsonable: {owner} publishes {key!r} twice")


def _not_object(owner: str, attribute: str) -> None:
    raise TypeError(f"jsonable: {owner}.{attribute} is inlined but is not an object")


def _planned(cls: type) -> tuple[_Field, ...]:
    plan = []
    for f in dataclasses.fields(cls):
        spelled = {key: f.metadata[key] for key in f.metadata if str(key).startswith("json_")}
        if unknown := set(spelled) - _KEYS:
            raise TypeError(f"jsonable: {cls.__name__}.{f.name}: unknown metadata {sorted(unknown)}")
        omit = spelled.get("json_omit")
        if omit is True:
            continue
        if omit is False:
            omit = None
        if omit is not None and not callable(omit):
            raise TypeError(f"jsonable: {cls.__name__}.{f.name}: json_omit is True or a function of its owner")
        plan.append(
            _Field(
                f.name,
                spelled.get("json_name", f.name),
                bool(spelled.get("json_inline")),
                spelled.get("json_value"),
                omit,
                bool(spelled.get("json_exact")),
            )
        )
    return tuple(plan)


def dump_json(value: object, *, indent: int | None = 2) -> bytes:
    """Canonical JSON bytes: sorted keys, finite numbers only, trailing newline."""
    text = json.dumps(
        value,
        sort_keys=True,
        allow_nan=False,
        ensure_ascii=False,
        indent=indent,
        separators=(",", ": ") if indent else (",", ":"),
    )
    return (text + "\n").encode("utf-8")
