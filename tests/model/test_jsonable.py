"""podium.model.jsonable: the one serializer from dataclass fields, and the canonical bytes."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest

from podium.model import Configuration, published_version
from podium.model.jsonable import dump_json, jsonable


@dataclass(frozen=True)
class Inner:
    a: int
    b: tuple[float, float] | None


@dataclass(frozen=True)
class Outer:
    name: str
    inner: Inner
    items: tuple[Inner, ...]
    counts: dict[str, int]
    from_: str = field(default="x", metadata={"json_name": "from"})
    hidden: int = field(default=0, metadata={"json_omit": True})
    doubled: int = field(default=2, metadata={"json_value": lambda v: v * 2})


@dataclass(frozen=True)
class Flat:
    mission: str
    step: Inner = field(metadata={"json_inline": True})


def test_field_names_are_the_keys_tuples_become_lists_and_dataclasses_recurse():
    value = Outer("o", Inner(1, (0.5, 1.5)), (Inner(2, None),), {"graded": 3})
    assert jsonable(value) == {
        "name": "o",
        "inner": {"a": 1, "b": [0.5, 1.5]},
        "items": [{"a": 2, "b": None}],
        "counts": {"graded": 3},
        "from": "x",
        "doubled": 4,
    }
    assert list(jsonable(value)) == ["name", "inner", "items", "counts", "from", "doubled"]  # field order


def test_a_field_can_be_inlined_into_its_owner():
    assert jsonable(Flat("jwt", Inner(1, None))) == {"mission": "jwt", "a": 1, "b": None}


def test_an_inlined_key_published_twice_is_refused():
    @dataclass(frozen=True)
    class Clash:
        a: int
        step: Inner = field(metadata={"json_inline": True})

    with pytest.raises(ValueError, match="publishes 'a' twice"):
        jsonable(Clash(1, Inner(2, None)))


def test_only_an_object_can_be_inlined():
    @dataclass(frozen=True)
    class Bad:
        step: int = field(metadata={"json_inline": True})

    with pytest.raises(TypeError, match="inlined but is not an object"):
        jsonable(Bad(1))


def test_an_unknown_metadata_key_is_refused():
    @dataclass(frozen=True)
    class Typo:
        a: int = field(metadata={"json_nmae": "b"})

    with pytest.raises(TypeError, match="unknown metadata"):
        jsonable(Typo(1))


@pytest.mark.parametrize("value", [datetime(2026, 1, 1, tzinfo=UTC), {1: "a"}, object(), {"a"}])
def test_what_a_file_should_not_hold_is_refused_when_it_is_made(value):
    with pytest.raises(TypeError):
        jsonable(value)


def test_a_float_that_is_not_finite_is_refused_when_written():
    with pytest.raises(ValueError):
        dump_json(jsonable({"x": math.nan}))


def test_dump_json_is_canonical():
    assert dump_json({"b": 1, "a": [1.5, None]}) == b'{\n  "a": [\n    1.5,\n    null\n  ],\n  "b": 1\n}\n'
    assert dump_json({"b": "é", "a": 1}, indent=None) == '{"a":1,"b":"é"}\n'.encode()


def test_a_configuration_publishes_a_whole_agent_version_as_a_number():
    assert jsonable(Configuration("12", "m", None, 1800.0)) == {
        "agent_version": 12,
        "model": "m",
        "judge_model": None,
        "budget_seconds": 1800.0,
    }
    assert jsonable(Configuration("v2", None, None, None))["agent_version"] == "v2"


@pytest.mark.parametrize(
    "version, published",
    [
        ("5", 5),
        ("007", 7),
        (None, None),
        ("beta", "beta"),
        ("²", "²"),  # a digit to str.isdigit, not to int(): text
        ("١٢", "١٢"),  # decimal digits of another script: the text as read
        ("9" * 15, 10**15 - 1),
        ("9" * 16, "9" * 16),  # past what a JSON reader holds exactly: text
        ("9" * 5000, "9" * 5000),  # past int()'s digit limit: text, never an error
    ],
)
def test_published_version(version, published):
    assert published_version(version) == published


@dataclass(frozen=True)
class Ranked:
    agent: str
    score: float
    rank: int | None = field(default=None, metadata={"json_omit": lambda a: a.rank is None})
    more: int = field(default=0, metadata={"json_omit": lambda a: not a.more})
    cost: Inner | None = field(default=None, metadata={"json_exact": True})


def test_a_field_is_left_out_when_its_owner_says_so():
    assert jsonable(Ranked("a", 0.5)) == {"agent": "a", "score": 0.5, "cost": None}
    assert jsonable(Ranked("a", 0.5, rank=2, more=3)) == {
        "agent": "a",
        "score": 0.5,
        "rank": 2,
        "more": 3,
        "cost": None,
    }


def test_json_omit_is_true_or_a_function_of_the_owner():
    @dataclass(frozen=True)
    class Bad:
        a: int = field(metadata={"json_omit": "yes"})

    with pytest.raises(TypeError, match="json_omit is True or a function"):
        jsonable(Bad(1))


def test_floats_are_made_by_floats_except_under_an_exact_field():
    value = Ranked("a", 1 / 3, cost=Inner(1, (1 / 3, 2 / 3)))
    made = jsonable(value, floats=lambda x: round(x, 2))
    assert made == {"agent": "a", "score": 0.33, "cost": {"a": 1, "b": [1 / 3, 2 / 3]}}
    assert jsonable({"x": [1 / 3, True, 2]}, floats=lambda x: round(x, 2)) == {"x": [0.33, True, 2]}
    assert jsonable(value)["score"] == 1 / 3  # no floats: as they are


def test_a_key_published_twice_is_refused_whichever_field_comes_first():
    @dataclass(frozen=True)
    class InlineFirst:
        step: Inner = field(metadata={"json_inline": True})
        a: int = 0

    @dataclass(frozen=True)
    class Renamed:
        a: int
        b: int = field(default=0, metadata={"json_name": "a"})

    with pytest.raises(ValueError, match="InlineFirst publishes 'a' twice"):
        jsonable(InlineFirst(Inner(1, None)))
    with pytest.raises(ValueError, match="Renamed publishes 'a' twice"):
        jsonable(Renamed(1))


def test_a_key_is_written_as_it_is_spelled():
    @dataclass(frozen=True)
    class Odd:
        a: int = field(metadata={"json_name": 'it\'s "odd"\n'})

    assert jsonable(Odd(1)) == {'it\'s "odd"\n': 1}


def test_a_subclass_of_a_scalar_and_a_dataclass_in_a_mapping_are_made_too():
    class Text(str):
        pass

    made = jsonable({"x": Inner(1, (0.25, 0.5)), "t": Text("a")}, floats=lambda v: v * 2)
    assert made == {"x": {"a": 1, "b": [0.5, 1.0]}, "t": "a"}
