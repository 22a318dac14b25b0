"""model.agents_named: the one way an agent named on the command line is found (podium agent/compare, and
podium diff's --fail-on-drop): by id, else slug, else name, else case-folded name; more than one is ambiguous."""

from types import SimpleNamespace

import pytest

from podium.commands.cli import _find_agent
from podium.count.diff import _match
from podium.errors import PodiumError
from podium.model import agents_named


def agent(agent: str, slug: str, name: str) -> SimpleNamespace:
    return SimpleNamespace(agent=agent, slug=slug, name=name)


KESTREL = agent("k1", "kestrel", "Kestrel")
KESTREL_2 = agent("k2", "kestrel-2", "Kestrel")
OSPREY = agent("osprey", "osprey-slug", "Osprey")
AGENTS = [KESTREL, KESTREL_2, OSPREY]


def test_each_way_of_naming_an_agent_in_its_order():
    assert agents_named("k2", AGENTS) == [KESTREL_2]  # id
    assert agents_named("osprey-slug", AGENTS) == [OSPREY]  # slug
    assert agents_named("Osprey", AGENTS) == [OSPREY]  # name
    assert agents_named("oSPREY", AGENTS) == [OSPREY]  # case-folded name
    assert agents_named("Kestrel", AGENTS) == [KESTREL, KESTREL_2]  # ambiguous: the caller says so
    assert agents_named("falcon", AGENTS) == []


def test_an_id_is_taken_before_a_name_that_reads_the_same():
    named_like_an_id = agent("x9", "x9-slug", "osprey")
    assert agents_named("osprey", [named_like_an_id, OSPREY]) == [OSPREY]


def test_the_agent_command_says_ambiguous_and_unknown():
    board = SimpleNamespace(agents=AGENTS)
    assert _find_agent(board, "kestrel-2") == "k2"
    with pytest.raises(PodiumError, match=r"agent 'Kestrel' is ambiguous \(k1, k2\); pass its id"):
        _find_agent(board, "Kestrel")
    with pytest.raises(PodiumError, match=r"no agent 'falcon' in this export \(agents: Kestrel, Kestrel, Osprey\)"):
        _find_agent(board, "falcon")


def test_a_gate_names_its_agent_in_either_bundle():
    old = SimpleNamespace(agents={a.agent: a for a in (KESTREL, OSPREY)})
    new = SimpleNamespace(agents={a.agent: a for a in AGENTS})
    assert _match("OSPREY", old, new) == [OSPREY]
    assert _match("kestrel-2", old, new) == []  # new since the old bundle: nothing to drop from
    with pytest.raises(PodiumError, match="names more than one agent"):
        _match("Kestrel", old, new)
    with pytest.raises(PodiumError, match="no such agent in either summary"):
        _match("falcon", old, new)
