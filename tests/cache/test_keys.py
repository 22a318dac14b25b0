"""Page keys hold the board's values by their digests, made once per build (cache/keys.py key_of): a key still
changes with anything its page shows, and costs what the page itself adds."""

from __future__ import annotations

import dataclasses

import podium.cache.keys as keys
from podium.cache.keys import key_of
from podium.model import Configuration, Problem


def problem(message: str = "bad") -> Problem:
    return Problem("a1b2c3d4/result.json", "grade", message)


def context(*values) -> dict:
    return {"page_title": "x", "shown": list(values), "nested": {"deeper": (values, 1.5)}}


def test_equal_contexts_of_equal_values_have_equal_keys_in_one_build_and_the_next():
    memo: dict = {}
    one, two = key_of(context(problem(), problem("other")), memo=memo), key_of(context(problem(), problem("other")))
    assert one is not None and one == key_of(context(problem(), problem("other")), memo=memo)
    assert key_of(context(problem(), problem("other")), memo={}) == one  # the next build: another memo
    assert two is not None and two != one  # (without a memo the values are pickled in line: another spelling)


def test_a_key_changes_with_any_field_of_a_value_it_holds_however_deep():
    memo: dict = {}
    base = key_of(context(problem()), memo=memo)
    for field in ("path", "field", "message"):
        changed = dataclasses.replace(problem(), **{field: "changed"})
        assert key_of(context(changed), memo=memo) != base, field
        assert key_of({"in": [{"a": (changed,)}]}, memo=memo) != key_of({"in": [{"a": (problem(),)}]}, memo=memo)


@dataclasses.dataclass(frozen=True)
class One:
    a: str
    b: int


@dataclasses.dataclass(frozen=True)
class Other:
    a: str
    b: int


def test_values_of_two_types_with_the_same_fields_do_not_share_a_key(monkeypatch):
    monkeypatch.setattr(keys, "_SHARED_MODULES", (*keys._SHARED_MODULES, __name__))
    monkeypatch.setattr(keys, "_FIELDS", {})
    memo: dict = {}
    assert keys._fields_of(One)[1]
    assert key_of(context(One("x", 1)), memo=memo) != key_of(context(Other("x", 1)), memo=memo)
    assert key_of(context(Configuration("1", "m", "j", 60.0)), memo=memo) == key_of(
        context(Configuration("1", "m", "j", 60.0)), memo=memo
    )


def test_a_value_many_pages_hold_is_digested_once_per_build(monkeypatch):
    read = []
    real, shared = keys._fields_of(Problem)
    monkeypatch.setitem(keys._FIELDS, Problem, (lambda obj: read.append(obj) or real(obj), shared))
    shared = problem()
    memo: dict = {}
    pages = [key_of(context(shared, problem(str(n))), memo=memo) for n in range(50)]
    assert len(set(pages)) == 50
    assert read.count(shared) == 1 and len(read) == 51


@dataclasses.dataclass
class Mutable:
    value: int


def test_values_that_may_change_or_are_not_the_boards_are_pickled_in_line():
    assert not keys._fields_of(Mutable)[1] and keys._fields_of(Problem)[1]
    memo: dict = {}
    thing = Mutable(1)
    before = key_of(context(thing), memo=memo)
    thing.value = 2
    assert key_of(context(thing), memo=memo) != before


@dataclasses.dataclass(frozen=True)
class Point:
    x: float
    y: float


def test_keying_a_context_leaves_its_values_as_they_were():
    """Pickling a plain object makes its ``__dict__`` and leaves it on the object (a few hundred bytes on each
    of a site's tens of thousands of chart points, held until the site is written): a key reads fields."""
    import gc

    point = Point(1.0, 2.0)
    before = [type(r) for r in gc.get_referents(point)]
    assert key_of(context(point), memo={}) is not None
    assert [type(r) for r in gc.get_referents(point)] == before and dict not in before
