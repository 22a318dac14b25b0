"""Data-only encoding of podium's frozen dataclasses, for the build cache (cache.py).

A value becomes plain JSON (a dataclass: the list of its fields in order; a datetime: its
ISO text; tuples: lists) and comes back only as the type the caller names, field by field
from the type hints. Nothing in a stored row can name a type or run code: an unknown shape
is a :class:`ValueError`, and the cache treats it as a corrupt row.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from datetime import datetime
from functools import cache


def dumps(value: object) -> str:
    return json.dumps(encode(value), ensure_ascii=True, allow_nan=False, separators=(",", ":"))


def loads(cls, text: str):
    return decode(cls, json.loads(text))


def encode(value: object) -> object:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [encode(getattr(value, name)) for name, _ in _fields(type(value))]
    raise ValueError(f"cannot store a {type(value).__name__}")


def decode(kind, data: object):
    """``data`` as a value of the type ``kind`` (a type hint)."""
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(kind)
        if data is None and type(None) in options:
            return None
        errors = []
        for option in options:
            if option is type(None):
                continue
            try:
                return decode(option, data)
            except (ValueError, TypeError) as err:
                errors.append(str(err))
        raise ValueError("; ".join(errors) or "no type fits")
    if origin is tuple:
        args = typing.get_args(kind)
        _need(data, list)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(args[0], v) for v in data)
        if len(args) != len(data):
            raise ValueError("tuple of the wrong length")
        return tuple(decode(a, v) for a, v in zip(args, data))
    if origin is dict:
        key_kind, value_kind = typing.get_args(kind)
        _need(data, dict)
        return {decode(key_kind, k): decode(value_kind, v) for k, v in data.items()}
    if kind is typing.Any or kind is object:
        return data
    if kind is datetime:
        _need(data, str)
        return datetime.fromisoformat(data)
    if kind is float:
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise ValueError("expected a number")
        return float(data)
    if kind in (bool, int, str):
        if type(data) is not kind:
            raise ValueError(f"expected {kind.__name__}")
        return data
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        fields = _fields(kind)
        _need(data, list)
        if len(data) != len(fields):
            raise ValueError(f"{kind.__name__}: {len(data)} fields stored, {len(fields)} expected")
        return kind(**{name: decode(hint, v) for (name, hint), v in zip(fields, data)})
    raise ValueError(f"cannot read a {kind!r}")


def _need(data: object, kind: type) -> None:
    if not isinstance(data, kind):
        raise ValueError(f"expected {kind.__name__}")


@cache
def _fields(cls: type) -> tuple[tuple[str, object], ...]:
    hints = typing.get_type_hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls) if f.init)
