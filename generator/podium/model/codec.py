"""Data-only encoding of podium's frozen dataclasses, for the build cache (cache/store.py).

A value becomes plain JSON (a dataclass: the list of its fields in order; a datetime: its
ISO text; bytes (model/cost.py ``Spent``): hex text; tuples: lists) and comes back only as the
type the caller names, field by field from the type hints. Nothing in a stored row can name a
type or run code: an unknown shape is a :class:`ValueError`, and the cache treats it as a corrupt row.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable
from datetime import datetime
from functools import cache


def dumps(value: object) -> str:
    return json.dumps(encode(value), ensure_ascii=True, allow_nan=False, separators=(",", ":"))


def loads(cls, text: str):
    """``text`` (what :func:`dumps` wrote) as a value of ``cls``; a ValueError for anything else, a text
    nested past the parser's depth included (a RecursionError would stop every build that reads it)."""
    try:
        return decode(cls, json.loads(text))
    except RecursionError:
        raise ValueError("nested too deeply") from None


def encode(value: object) -> object:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [encode(getattr(value, name)) for name, _ in _fields(type(value))]
    raise ValueError(f"cannot store a {type(value).__name__}")


def decode(kind, data: object):
    """``data`` as a value of the type ``kind`` (a type hint)."""
    return _decoder(kind)(data)


@cache
def _decoder(kind) -> Callable[[object], object]:
    """The function that reads a value of ``kind``: worked out once per type hint (a cached run is
    thousands of values; walking the hints for each cost most of a rebuild's replay)."""
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(kind)
        nullable = type(None) in args
        options = [option for option in args if option is not type(None)]

        if nullable and len(options) == 1:  # X | None, the usual case: no error list to make
            option = _Later(options[0])

            def optional(data):
                return None if data is None else option.get()(data)

            return optional

        def union(data):
            if data is None and nullable:
                return None
            errors = []
            for option in options:
                try:
                    return _decoder(option)(data)
                except (ValueError, TypeError) as err:
                    errors.append(str(err))
            raise ValueError("; ".join(errors) or "no type fits")

        return union
    if origin is tuple:
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _Later(args[0])

            def many(data):
                _need(data, list)
                read = item.get()
                return tuple(read(v) for v in data)

            return many

        items = [_Later(a) for a in args]

        def fixed(data):
            _need(data, list)
            if len(args) != len(data):
                raise ValueError("tuple of the wrong length")
            return tuple(item.get()(v) for item, v in zip(items, data))

        return fixed
    if origin is dict:
        key_kind, value_kind = typing.get_args(kind)

        keys, values = _Later(key_kind), _Later(value_kind)

        def mapping(data):
            _need(data, dict)
            key, value = keys.get(), values.get()
            return {key(k): value(v) for k, v in data.items()}

        return mapping
    if kind is typing.Any or kind is object:
        return lambda data: data
    if kind is datetime:

        def moment(data):
            _need(data, str)
            return datetime.fromisoformat(data)

        return moment
    if isinstance(kind, type) and issubclass(kind, bytes):  # bytes, or a type of it that checks its value

        def packed(data):
            _need(data, str)
            return kind(bytes.fromhex(data))

        return packed
    if kind is float:

        def number(data):
            if isinstance(data, bool) or not isinstance(data, (int, float)):
                raise ValueError("expected a number")
            return float(data)

        return number
    if kind in (bool, int, str):

        def plain(data):
            if type(data) is not kind:
                raise ValueError(f"expected {kind.__name__}")
            return data

        return plain
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        readers: list[Callable] = []  # filled on first use (a type may refer to itself)
        names = [name for name, _ in _fields(kind)]
        by_position = not any(f.kw_only for f in dataclasses.fields(kind) if f.init)

        def record(data):
            if not readers:
                readers.extend(_decoder(hint) for _, hint in _fields(kind))
            if type(data) is not list:
                raise ValueError("expected list")
            if len(data) != len(readers):
                raise ValueError(f"{kind.__name__}: {len(data)} fields stored, {len(readers)} expected")
            values = [read(v) for read, v in zip(readers, data)]
            return kind(*values) if by_position else kind(**dict(zip(names, values)))

        return record

    def unknown(data):
        raise ValueError(f"cannot read a {kind!r}")

    return unknown


class _Later:
    """The decoder of a type hint, worked out when first needed."""

    def __init__(self, kind):
        self.kind, self.read = kind, None

    def get(self) -> Callable[[object], object]:
        if self.read is None:
            self.read = _decoder(self.kind)
        return self.read


def _need(data: object, kind: type) -> None:
    if not isinstance(data, kind):
        raise ValueError(f"expected {kind.__name__}")


@cache
def _fields(cls: type) -> tuple[tuple[str, object], ...]:
    hints = typing.get_type_hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls) if f.init)
