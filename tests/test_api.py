"""The library entry point (issue 19.7): build a site from an export and a config, get what was counted back."""

from pathlib import Path

import pytest

import podium

DEMO = Path(__file__).resolve().parents[1] / "content" / "demo-export"


def test_build_a_site_from_python(tmp_path):
    config = podium.load_config(None, {"out": tmp_path / "site"})
    built = podium.build_site(config, DEMO)
    assert isinstance(built, podium.Built) and built.target == tmp_path / "site"
    assert (tmp_path / "site" / "index.html").is_file()
    assert built.board.totals.runs == built.outline.totals.runs > 100


def test_the_public_view_is_the_board_the_site_publishes(tmp_path):
    config = podium.load_config(None, {"out": tmp_path / "site"})
    board = podium.public_view(config, DEMO)
    built = podium.build_site(config, DEMO)
    assert board.totals == built.board.totals and [a.agent for a in board.agents] == [
        a.agent for a in built.board.agents
    ]


def test_only_the_entry_points_are_offered():
    assert set(podium.__all__) == {"__version__", "build_site", "public_view", "Built", "load_config", "Config"}
    with pytest.raises(AttributeError):
        podium.nothing_here  # noqa: B018
