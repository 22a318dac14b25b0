"""The bounded pages' new parts in a real browser (site.md "Bounded"): the missions index's
pages and pager, the ranked tables under the home and models cards, an agent page's
per-version captions that link the filtered ledger, the card plots drawn as paths.

The demo export is built with its limits lowered so that each part shows up: two agent
cards and two ranked rows, two mission cards a page, two model cards, two runs a version.
axe-core finds nothing on those pages in either scheme, on a desktop and on a phone, no
page scrolls sideways on a phone, and a card plot's chips still light their agent's marks
by pointer and keyboard on a later page. Fixtures and helpers are tests/test_browser.py's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_browser import (  # noqa: F401  (browser, new_page: fixtures)
    _AXE_MISSING,
    REPO_ROOT,
    _assert_highlights,
    _axe_violations,
    _chip_with_points,
    _unavailable,
    browser,
    new_page,
    open_page,
)

pytestmark = pytest.mark.browser

PAGES = ["index.html", "missions/index.html", "missions/page/2/index.html", "models/index.html", "compare/index.html"]


@pytest.fixture(scope="module")
def bounded_site(tmp_path_factory) -> Path:
    from podium.build import build_site
    from podium.config import load_config
    from podium.plan import compare as plan_compare
    from podium.plan import site as plan

    out = tmp_path_factory.mktemp("bounded") / "site"
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO_ROOT)
        for module, name, value in (
            (plan, "HOME_CARDS", 2),
            (plan, "HOME_ROWS", 2),
            (plan, "MISSION_CARDS", 2),
            (plan, "VERSION_RUNS", (2, 2)),
            (plan, "MISSION_RUNS", 2),
            (plan_compare, "MODEL_CARDS", 2),
            (plan_compare, "MODEL_ROWS", 2),
        ):
            mp.setattr(module, name, value)
        build_site(load_config(Path("podium.yaml"), {"out": out}), Path("content/demo-export"))
    return out


def _pages(site: Path) -> list[str]:
    agent = sorted(str(p.relative_to(site)) for p in site.glob("agents/*/index.html"))[0]
    mission = sorted(str(p.relative_to(site)) for p in site.glob("missions/*/*/index.html") if "/page/" not in str(p))[
        0
    ]
    pair = sorted(str(p.relative_to(site)) for p in site.glob("compare/*/*/index.html"))[0]
    return PAGES + [agent, mission, pair]


def test_the_bounded_site_has_each_part(bounded_site):
    index = (bounded_site / "index.html").read_text(encoding="utf-8")
    assert 'class="ranked"' in index and "more agent" in index
    assert 'aria-label="Pages of mission versions"' in (bounded_site / "missions/index.html").read_text("utf-8")
    assert 'class="ranked"' in (bounded_site / "models/index.html").read_text(encoding="utf-8")
    agents = [p.read_text(encoding="utf-8") for p in bounded_site.glob("agents/*/index.html")]
    assert any('earlier runs are in <a href="../../runs/index.html#agent=' in html for html in agents)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width,height", [(1280, 900), (390, 844)], ids=["desktop", "phone"])
def test_axe_finds_nothing_on_the_bounded_pages(bounded_site, new_page, scheme, width, height):
    if _AXE_MISSING:
        _unavailable(_AXE_MISSING)
    phone = width < 600
    page, watch = new_page(
        color_scheme=scheme, viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone
    )
    found, wide = [], []
    for rel in _pages(bounded_site):
        open_page(page, bounded_site, rel)
        found += _axe_violations(page, rel)
        if phone:
            scroll, inner = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
            if scroll > inner:
                wide.append(f"{rel}: scrollWidth {scroll} > innerWidth {inner}")
    assert not found, f"axe-core, {scheme} scheme, {width}x{height}:\n" + "\n".join(found)
    assert not wide, "\n".join(wide)
    watch.assert_clean()


def test_chips_light_their_agents_marks_on_a_later_page_of_cards(bounded_site, new_page):
    page, watch = new_page()
    open_page(page, bounded_site, "missions/page/2/index.html")
    cards = page.locator(".plot-card")
    card = next((cards.nth(i) for i in range(cards.count()) if _chip_with_points(cards.nth(i), 1)), None)
    assert card is not None, "no card on page 2 has a second chip whose agent has marks"
    assert card.locator("svg.plot a").count() == 0 and card.locator("svg.plot path.pt").count() > 0
    i, agent, chips = _chip_with_points(card)
    chips.nth(i).hover()
    _assert_highlights(page, card, agent, f"hovering chip {agent}")
    page.mouse.move(0, 0)
    _assert_highlights(page, card, None, f"after leaving chip {agent}")
    i, agent, chips = _chip_with_points(card, 1)
    chips.nth(i - 1).focus()
    page.keyboard.press("Tab")
    _assert_highlights(page, card, agent, f"focusing chip {agent} with Tab")
    page.keyboard.press("Enter")
    assert chips.nth(i).get_attribute("aria-pressed") == "true"
    page.evaluate("() => document.activeElement.blur()")
    _assert_highlights(page, card, agent, f"pressed chip {agent} after focus left it")
    watch.assert_clean()
