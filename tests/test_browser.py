"""The built demo site in a real browser (headless Chromium driven by Playwright).

What this proves, on the site built from content/demo-export and opened from file://:
  - every kind of page loads with no console error or warning, no page error, no failed
    request and no request that leaves the disk (so the CSP admits the site's own files);
  - the ledger sorts (Overall, both directions, as aria-sort says) and filters (kind, search,
    agent, mission, and ?agent= in the URL), with counts that match api/results/runs.json;
  - the ledger's filters and sort live in the URL fragment (#agent=…&kind=…&sort=…&dir=…):
    restored on load, rewritten as the reader filters, linked from agent and mission pages;
  - axe-core (WCAG 2.0/2.1 A and AA rules plus axe's best practices) finds nothing on any
    kind of page, light and dark, phone and desktop; every page has a description and an icon;
  - the ledger does not shift when its script shows the filter form; print shows the cards and
    charts without the navigation, black on white;
  - mission-card chips highlight exactly their agent's points on hover, keyboard focus and press;
  - run-strip columns carry a tooltip with a score;
  - with JavaScript off the ledger, its links and its pager still work and the filter stays hidden;
  - no page of any kind is wider than a 390 px phone with its details opened, and the overall score of the
    ledger's first row and of each per-version table's first row is on screen without scrolling sideways
    (issue 36); distinct light and dark schemes;
  - screenshots for a human to look at land in tests/artifacts/: home, an agent of each progress verdict, the
    ledger, a run page and the missions, dark, light and phone.

Skips when Chromium or Playwright is missing, unless PODIUM_REQUIRE_BROWSER=1, which turns
the skip into a failure. PODIUM_CHROMIUM names another Chromium binary.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest
from sitekit import ledger_rows_at

REPO_ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO_ROOT / "tests" / "artifacts"
REQUIRE = os.environ.get("PODIUM_REQUIRE_BROWSER") == "1"
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
TIMEOUT_MS = 10_000

pytestmark = pytest.mark.browser


def _find_chromium() -> str | None:
    override = os.environ.get("PODIUM_CHROMIUM")
    candidates = [override] if override else ["/usr/bin/chromium", shutil.which("chromium")]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


CHROMIUM = _find_chromium()
try:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright
except ImportError as err:  # pragma: no cover - depends on the environment
    sync_playwright = None
    PlaywrightError = Exception
    _PLAYWRIGHT_MISSING = f"the playwright Python package cannot be imported ({err})"
else:
    _PLAYWRIGHT_MISSING = ""

_MISSING = "; ".join(
    filter(
        None,
        [
            _PLAYWRIGHT_MISSING,
            ""
            if CHROMIUM
            else (
                f"no executable Chromium at $PODIUM_CHROMIUM={os.environ['PODIUM_CHROMIUM']}"
                if os.environ.get("PODIUM_CHROMIUM")
                else "no Chromium at /usr/bin/chromium or on PATH"
            ),
        ],
    )
)

if _MISSING and not REQUIRE:
    pytest.skip(f"browser tests skipped: {_MISSING}", allow_module_level=True)


def _unavailable(reason: str):
    message = f"browser tests cannot run: {reason}"
    if REQUIRE:
        pytest.fail(message + " (PODIUM_REQUIRE_BROWSER=1 makes this a failure)", pytrace=False)
    pytest.skip(message)


# ----------------------------------------------------------------------------- fixtures


def _build(out: Path, **sizes) -> Path:
    """The demo site; ``sizes`` change count/ledger.py's (PAGE_ROWS, FRONT_ROWS, BROWSER_LIMIT) for this build."""
    from podium.build import build_site
    from podium.config import load_config
    from podium.count import ledger

    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO_ROOT)
        for name, value in sizes.items():
            mp.setattr(ledger, name, value)
        build_site(load_config(Path("podium.yaml"), {"out": out}), Path("content/demo-export"))
    return out


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return _build(tmp_path_factory.mktemp("browser") / "site")


@pytest.fixture(scope="module")
def paged_site(tmp_path_factory) -> Path:
    """The demo site with 40 runs per ledger page and 30 on the front page, so months have several pages."""
    return _build(tmp_path_factory.mktemp("browser-paged") / "site", PAGE_ROWS=40, FRONT_ROWS=30)


@pytest.fixture(scope="module")
def limited_site(tmp_path_factory) -> Path:
    """The demo site whose ledger loads more than 50 runs only when asked (a big history, in small)."""
    return _build(tmp_path_factory.mktemp("browser-limited") / "site", BROWSER_LIMIT=50)


@pytest.fixture(scope="module")
def runs_json(site) -> list[dict]:
    return ledger_rows_at(site)


@pytest.fixture(scope="module")
def summary(site) -> dict:
    return json.loads((site / "api" / "results" / "summary.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def browser():
    """The launched Chromium, or the reason there is none (reported by new_page inside the test,
    so that under PODIUM_REQUIRE_BROWSER=1 every test FAILS rather than errors in setup)."""
    if _MISSING:
        yield _MISSING
        return
    manager = sync_playwright().start()
    try:
        try:
            instance = manager.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        except PlaywrightError as err:
            yield f"{CHROMIUM} does not launch: {err}"
            return
        yield instance
        instance.close()
    finally:
        manager.stop()


@pytest.fixture
def new_page(browser):
    """new_page(**context_options) -> (page, watch); everything is closed after the test."""
    contexts = []

    def make(**options):
        if isinstance(browser, str):
            _unavailable(browser)  # in the test body, so it counts as a failure, not a setup error
        options.setdefault("viewport", {"width": 1280, "height": 900})
        context = browser.new_context(**options)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        return page, Watch(page)

    yield make
    for context in contexts:
        context.close()


class Watch:
    """Everything on a page that should never happen on this site."""

    def __init__(self, page):
        self.problems: list[str] = []
        self.requests: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda err: self.problems.append(f"page error: {err}"))
        page.on("requestfailed", self._failed)
        page.on("request", self._request)

    def _failed(self, req):
        # Chromium fetches the page's icon after the load event; leaving the page first cancels
        # that fetch (ERR_ABORTED). That is not a fault of the site; a missing icon still fails.
        if req.url.endswith("/assets/favicon.svg") and req.failure == "net::ERR_ABORTED":
            return
        self.problems.append(f"request failed: {req.url} ({req.failure})")

    def _console(self, msg):
        if msg.type in ("error", "warning"):
            where = msg.location or {}
            self.problems.append(
                f"console {msg.type}: {msg.text} [{where.get('url', '?')}:{where.get('lineNumber', '?')}]"
            )

    def _request(self, req):
        self.requests.append(req.url)
        if not req.url.startswith("file:"):
            self.problems.append(f"request leaves the disk: {req.url}")

    def assert_clean(self):
        assert not self.problems, "\n".join(self.problems)


def url(root: Path, rel: str, query: str = "") -> str:
    return (root / rel).as_uri() + query


def settle(page):
    """Wait for lazily loaded fonts: a missing one then shows up as a problem, and leaving the
    page does not abort a font request half-way (which would be reported as net::ERR_ABORTED)."""
    page.evaluate("() => document.fonts.ready.then(() => document.fonts.size)")


def open_page(page, root: Path, rel: str, query: str = ""):
    page.goto(url(root, rel, query), wait_until="load")
    settle(page)


def follow(page, locator):
    """Click a link and wait until the page it leads to has loaded."""
    settle(page)
    locator.click()
    page.wait_for_load_state("load")
    settle(page)


def back(page):
    page.go_back(wait_until="load")
    settle(page)


# ----------------------------------------------------------------------------- every page loads clean


def _pages_to_check(site: Path, summary: dict, runs: list[dict]) -> list[str]:
    pages = ["index.html", "missions/index.html", "runs/index.html", "404.html"]
    pages += sorted({a["url"] for a in summary["agents"] + summary["agents_older"]})
    pages += [m["url"] for m in summary["missions"]]
    seen_kinds: set[str] = set()
    for row in runs:  # one run page of every kind
        if row["kind"] not in seen_kinds:
            seen_kinds.add(row["kind"])
            pages.append(row["url"])
    pages += sorted(
        str(p.relative_to(site))
        for p in site.glob("*/index.html")
        if p.parent.name not in ("agents", "missions", "runs", "api", "assets")
    )
    return pages


def test_pages_load_without_errors_or_foreign_requests(site, summary, runs_json, new_page):
    pages = _pages_to_check(site, summary, runs_json)
    # at least the six kinds of page the brief names
    assert {"index.html", "missions/index.html", "runs/index.html"} <= set(pages)
    assert any(p.startswith("agents/") for p in pages)
    assert any(p.startswith("missions/") and p.count("/") == 3 for p in pages)
    assert any(p.startswith("runs/") and p != "runs/index.html" for p in pages)
    page, _ = new_page()
    report = []
    for rel in pages:
        watch = Watch(page)  # listeners accumulate; each Watch sees only what follows it
        open_page(page, site, rel)
        if rel == "runs/index.html":
            # the ledger data is loaded on first use: make it load, under the same watch
            page.select_option("select[name=kind]", "graded")
            _wait_count(page)
            assert any(u.endswith("/api/results/ledger.js") for u in watch.requests), watch.requests
        report += [f"{rel}: {problem}" for problem in watch.problems]
    assert not report, "\n".join(report)


# ----------------------------------------------------------------------------- the ledger

_PCT = re.compile(r"^(\d+(?:\.\d+)?)(?:[–-]\d+(?:\.\d+)?)?%\*?$")


def _overall(text: str) -> float | None:
    """'87.5%' -> 87.5, '68.8–93.8%' -> 68.8 (the lower bound), '50.0%*' -> 50.0, '—' -> None."""
    text = text.strip()
    if text == "—":
        return None
    match = _PCT.match(text)
    assert match, f"unexpected Overall cell text {text!r}"
    return float(match.group(1))


def _wait_count(page) -> str:
    page.wait_for_function(
        "() => /\\d+ of \\d+ runs/.test(document.querySelector('#ledger-filters output[name=count]').value)"
    )
    settle(page)
    return page.eval_on_selector("#ledger-filters output[name=count]", "o => o.value")


def _rerender(page, action):
    """Run action() and wait until the ledger body has been rebuilt by the script."""
    page.eval_on_selector("#ledger tbody tr", "tr => tr.setAttribute('data-probe', '')")
    action()
    try:
        page.wait_for_function("() => !document.querySelector('#ledger tbody tr[data-probe]')")
    except PlaywrightError as err:
        raise AssertionError(
            f"the ledger did not re-render after the action "
            f"(count output: {page.eval_on_selector('output[name=count]', 'o => o.value')!r})"
        ) from err
    return _wait_count(page)


def _column(page, n: int) -> list[str]:
    return page.eval_on_selector_all(
        f"#ledger tbody tr > td:nth-child({n})", "tds => tds.map(td => td.textContent.trim())"
    )


OVERALL_COL, AGENT_COL, MISSION_COL, STATUS_COL = 6, 3, 4, 5


def _assert_sorted(values: list[float | None], direction: str):
    numbers = [v for v in values if v is not None]
    assert numbers, "no scored runs in the ledger"
    expected = sorted(numbers, reverse=direction == "descending")
    assert numbers == expected, f"Overall not {direction}: {numbers[:20]}…"
    first_blank = next((i for i, v in enumerate(values) if v is None), len(values))
    assert all(v is None for v in values[first_blank:]), (
        f"runs without a score ('—') are mixed in with scored ones when {direction}"
    )


VIEW_PAGE = 100  # rows the script draws at a time (podium.js PAGE)


def _every_view_page(page, n: int) -> list[str]:
    """Column ``n`` over every page of the current view (the script draws VIEW_PAGE rows at a time),
    leaving the view on its first page."""
    values = _column(page, n)
    older = page.locator("#ledger-pager [name=older]")
    turns = 0
    while page.locator("#ledger-pager").is_visible() and not older.is_disabled():
        _rerender(page, older.click)
        values += _column(page, n)
        turns += 1
    for _ in range(turns):
        _rerender(page, page.locator("#ledger-pager [name=newer]").click)
    return values


def test_ledger_sorts_by_overall(site, runs_json, new_page):
    page, watch = new_page()
    open_page(page, site, "runs/index.html")
    button = page.locator("#ledger th[data-sort=overall] > button")
    assert button.count() == 1, "the Overall header has no sort button"
    header = page.locator("#ledger th[data-sort=overall]")
    directions = []
    for _ in range(2):
        count = _rerender(page, button.click)
        assert count == f"{len(runs_json)} of {len(runs_json)} runs"
        direction = header.get_attribute("aria-sort")
        assert direction in ("ascending", "descending"), f"aria-sort={direction!r}"
        assert page.locator("#ledger th[aria-sort]").count() == 1
        assert len(_column(page, OVERALL_COL)) == min(VIEW_PAGE, len(runs_json))  # drawn a page at a time
        values = [_overall(t) for t in _every_view_page(page, OVERALL_COL)]
        assert len(values) == len(runs_json)
        _assert_sorted(values, direction)
        directions.append((direction, values[0]))
    (d1, top1), (d2, top2) = directions
    assert d1 != d2, "a second click does not flip the order"
    assert top1 != top2, "the first row stays the same after flipping the order"
    watch.assert_clean()


def test_ledger_sorts_by_tokens_and_time(site, runs_json, new_page):
    """docs/rules/cost.md §6: the Tokens and Time columns sort like the others, runs that report none last."""
    page, watch = new_page()
    open_page(page, site, "runs/index.html")
    by_run = {r["run_id"][:8]: r for r in runs_json}
    for key, column in (("tokens", "total_tokens"), ("duration", "duration_seconds")):
        button = page.locator(f"#ledger th[data-sort={key}] > button")
        assert button.count() == 1, f"the {key} header has no sort button"
        _rerender(page, button.click)
        direction = page.locator(f"#ledger th[data-sort={key}]").get_attribute("aria-sort")
        values = [by_run[run][column] for run in _every_view_page(page, 2)]
        assert len(values) == len(runs_json)
        numbers = [v if column == "total_tokens" else round(v) for v in values if v is not None]
        assert numbers == sorted(numbers, reverse=direction == "descending"), f"{key} not {direction}"
        first_blank = next((i for i, v in enumerate(values) if v is None), len(values))
        assert all(v is None for v in values[first_blank:]), f"runs without {key} are mixed in"
        assert any(v is None for v in values) or key == "duration"  # the demo has runs without tokens
    watch.assert_clean()


def test_ledger_filters_by_kind_search_agent_and_mission(site, runs_json, new_page):
    page, watch = new_page()
    open_page(page, site, "runs/index.html")
    form = page.locator("form#ledger-filters")
    assert form.is_visible(), "the script did not un-hide the filter form"
    total = len(runs_json)

    # kind
    label = page.eval_on_selector("select[name=kind] option[value=no_judge]", "o => o.textContent.trim()")
    assert label == "No judge"
    expected = sum(r["kind"] == "no_judge" for r in runs_json)
    assert expected > 0, "the demo export has no no_judge run to filter for"
    count = _rerender(page, lambda: page.select_option("select[name=kind]", "no_judge"))
    assert count == f"{expected} of {total} runs"
    statuses = page.eval_on_selector_all(
        f"#ledger tbody tr > td:nth-child({STATUS_COL})",
        "tds => tds.map(td => [td.textContent.trim(), td.querySelector('.kind')?.textContent.trim()])",
    )
    assert len(statuses) == expected
    bad = [s for s in statuses if s[1] != "No judge"]
    assert not bad, f"rows shown for kind no_judge without the 'No judge' label: {bad}"
    assert page.locator(".pager").count() == 0 or page.locator(".pager").is_hidden()
    _rerender(page, lambda: page.select_option("select[name=kind]", ""))

    # search box: every agent name, each narrowed to exactly that agent's runs
    names = sorted({r["agent_name"] for r in runs_json})
    assert names
    for name in names:
        expected = sum(r["agent_name"] == name for r in runs_json)
        count = _rerender(page, lambda name=name: page.fill("input[name=q]", name))
        agents = _column(page, AGENT_COL)
        assert set(agents) == {name}, f"search {name!r} shows rows of {sorted(set(agents))}"
        assert count == f"{expected} of {total} runs", f"search {name!r}"
        assert len(agents) == expected
    _rerender(page, lambda: page.fill("input[name=q]", ""))

    # agent and mission selects
    name = names[-1]
    count = _rerender(page, lambda: page.select_option("select[name=agent]", name))
    assert set(_column(page, AGENT_COL)) == {name}
    assert count == f"{sum(r['agent_name'] == name for r in runs_json)} of {total} runs"
    _rerender(page, lambda: page.select_option("select[name=agent]", ""))
    mission = sorted({r["mission"] for r in runs_json})[0]
    count = _rerender(page, lambda: page.select_option("select[name=mission]", mission))
    missions = _column(page, MISSION_COL)
    assert missions and all(m.split()[0] == mission for m in missions), missions
    assert count == f"{sum(r['mission'] == mission for r in runs_json)} of {total} runs"
    watch.assert_clean()


def test_ledger_prefilters_from_the_url(site, runs_json, summary, new_page):
    """?agent= by the agent's name, as links read before views were keyed by slug (one agent has it)."""
    name = max((r["agent_name"] for r in runs_json), key=lambda n: (" " in n, n))  # prefer a name with a space
    expected = sum(r["agent_name"] == name for r in runs_json)
    page, watch = new_page()
    open_page(page, site, "runs/index.html", "?agent=" + quote(name))
    count = _wait_count(page)
    slug = {a["name"]: a["slug"] for a in summary["agents"]}[name]
    assert slug != name  # the name was really turned into the agent's slug
    assert page.eval_on_selector("select[name=agent]", "s => s.value") == slug
    assert count == f"{expected} of {len(runs_json)} runs"
    agents = _column(page, AGENT_COL)
    assert len(agents) == expected and set(agents) == {name}, sorted(set(agents))
    watch.assert_clean()


def test_a_filtered_ledger_fetches_only_its_parts(site, runs_json, new_page):
    """Issue 18: the ledger's data are parts (one per agent and mission); a view by agent or by mission
    loads the index and exactly the parts holding its runs, and shows every one of them."""
    index = json.loads((site / "api/results/runs.json").read_text(encoding="utf-8"))
    page, watch = new_page()
    open_page(page, site, "runs/index.html")
    assert not any("/api/results/" in u for u in watch.requests), "ledger data loaded before any filter"
    name = sorted({p["agent_name"] for p in index["parts"]})[1]
    count = _rerender(page, lambda: page.select_option("select[name=agent]", name))
    loaded = {u.split("/api/results/", 1)[1] for u in watch.requests if "/api/results/" in u}
    wanted = {p["script"].removeprefix("api/results/") for p in index["parts"] if p["agent_name"] == name}
    assert loaded == {"ledger.js"} | wanted, sorted(loaded)
    assert count == f"{sum(r['agent_name'] == name for r in runs_json)} of {len(runs_json)} runs"
    watch.assert_clean()
    mission = sorted({p["mission"] for p in index["parts"]})[0]  # a mission's view, linked to
    page, watch = new_page()
    open_page(page, site, "runs/index.html", "#mission=" + quote(mission))
    count = _wait_count(page)
    loaded = {u.split("/api/results/", 1)[1] for u in watch.requests if "/api/results/" in u}
    wanted = {p["script"].removeprefix("api/results/") for p in index["parts"] if p["mission"] == mission}
    assert loaded == {"ledger.js"} | wanted, sorted(loaded)
    assert count == f"{sum(r['mission'] == mission for r in runs_json)} of {len(runs_json)} runs"
    watch.assert_clean()


def test_a_view_of_more_runs_than_the_limit_waits_to_be_asked(limited_site, new_page):
    """Without an agent or a mission, a view that needs more runs than the limit loads nothing until
    the reader asks; then every part loads and the view is drawn a page at a time."""
    total = len(ledger_rows_at(limited_site))
    page, watch = new_page()
    open_page(page, limited_site, "runs/index.html")
    page.locator("#ledger th[data-sort=overall] > button").click()
    page.wait_for_function("() => /needs \\d+ runs/.test(document.querySelector('output[name=count]').value)")
    load = page.locator(".ledger-load button")
    assert load.is_visible()
    assert not any("/api/results/ledger/" in u for u in watch.requests), "parts loaded before being asked"
    count = _rerender(page, load.click)
    assert count == f"{total} of {total} runs"
    assert load.is_hidden()
    assert len(_column(page, OVERALL_COL)) == min(VIEW_PAGE, total)
    watch.assert_clean()


def test_the_view_is_drawn_a_page_at_a_time_and_the_page_is_in_the_address(site, runs_json, new_page):
    page, watch = new_page()
    open_page(page, site, "runs/index.html")
    _rerender(page, lambda: page.locator("#ledger th[data-sort=run] > button").click())
    first = _column(page, 2)
    assert len(first) == min(VIEW_PAGE, len(runs_json)) and first == sorted(first)
    assert page.locator("#ledger-pager").is_visible()
    _rerender(page, page.locator("#ledger-pager [name=older]").click)
    second = _column(page, 2)
    assert second == sorted(r["run_id"][:8] for r in runs_json)[VIEW_PAGE : 2 * VIEW_PAGE]
    assert _hash_params(page) == {"sort": "run", "dir": "asc", "page": "2"}
    page.reload(wait_until="load")
    settle(page)
    _wait_count(page)
    assert _column(page, 2) == second
    watch.assert_clean()


def test_ledger_pages_link_their_runs_from_deeper_paths(paged_site, new_page):
    """A month's page (runs/<month>/<n>/) links each run with a page with the right relative prefix."""
    page, watch = new_page()
    month = sorted(p.parent.parent.name for p in (paged_site / "runs").glob("20*/*/index.html"))[-1]
    open_page(page, paged_site, f"runs/{month}/1/index.html")
    link = page.locator("table.ledger tbody tr td:nth-child(2) a").first  # the run id: styled by position
    prefix = link.text_content().strip()
    follow(page, link)
    assert re.search(rf"/runs/{prefix}[0-9a-f]{{24}}/index\.html$", page.url), page.url
    assert page.locator("h1").count() == 1
    watch.assert_clean()


# ----------------------------------------------------------------------------- JavaScript off


def test_filter_form_stays_hidden_without_javascript(site, paged_site, new_page):
    page, watch = new_page(java_script_enabled=False)
    for root, rel in ((site, "runs/index.html"), (paged_site, "runs/index.html")):
        open_page(page, root, rel)
        form = page.locator("form#ledger-filters")
        assert form.get_attribute("hidden") is not None
        assert form.is_hidden(), (
            f"{rel}: the filter form (hidden attribute) is displayed without JavaScript; "
            f"computed display: {form.evaluate('f => getComputedStyle(f).display')!r}"
        )
    watch.assert_clean()


def test_ledger_without_javascript(site, paged_site, runs_json, new_page):
    page, watch = new_page(java_script_enabled=False)
    open_page(page, site, "runs/index.html")
    assert page.locator("#ledger th button").count() == 0
    rows = page.locator("#ledger tbody tr")
    assert rows.count() == min(len(runs_json), 100)
    first_id = runs_json[0]["run_id"]
    assert rows.first.locator("a.mono").text_content().strip() == first_id[:8]
    follow(page, rows.first.locator("a.mono"))
    assert page.url == url(site, f"runs/{first_id}/index.html")
    assert first_id[:8] in page.locator("h1").text_content()

    # every run is on a page of its month (a build with 30 runs up front and 40 a page)
    by_month: dict[str, list[dict]] = {}
    for row in runs_json:
        by_month.setdefault(row["date"][:7] if row["date"] else "undated", []).append(row)
    open_page(page, paged_site, "runs/index.html")
    assert page.locator("#ledger tbody tr").count() == 30
    months = page.locator(".ledger-months li > a:first-child")
    assert months.count() == len(by_month)
    newest = max(m for m in by_month if m != "undated")
    follow(page, page.locator(".ledger-months a", has_text=re.compile(r"\d{4}$")).first)
    pages = -(-len(by_month[newest]) // 40)
    assert page.url == url(paged_site, f"runs/{newest}/{pages}/index.html")
    ids = page.eval_on_selector_all("table.ledger tbody tr", "trs => trs.map(tr => tr.id.slice(4, 12))")
    rest = len(by_month[newest]) % 40 or 40
    assert ids == [r["run_id"][:8] for r in by_month[newest][:rest]]  # the month's newest page: newest first
    seen = list(ids)
    while page.locator("nav.pager a[rel=next]").count():
        follow(page, page.locator("nav.pager a[rel=next]").first)
        seen += page.eval_on_selector_all("table.ledger tbody tr", "trs => trs.map(tr => tr.id.slice(4, 12))")
    assert seen == [r["run_id"][:8] for r in runs_json]  # older and older: every run once, newest first
    back(page)
    follow(page, page.locator("nav.pager a[rel=prev]").first)
    watch.assert_clean()


# ----------------------------------------------------------------------------- mission chips


def _plot_state(card) -> dict:
    return card.evaluate("""card => {
        const plot = card.querySelector('svg.plot');
        return {
            highlighting: plot.classList.contains('highlighting'),
            hl: [...plot.querySelectorAll('.pt')].filter(p => p.classList.contains('hl'))
                    .map(p => p.getAttribute('data-agent')),
            points: [...plot.querySelectorAll('.pt')].map(p => p.getAttribute('data-agent')),  // links or paths
            pressed: [...card.querySelectorAll('.chip[data-agent]')].map(c => c.getAttribute('aria-pressed')),
        };
    }""")


def _assert_highlights(page, card, agent: str | None, where: str):
    state = _plot_state(card)
    if agent is None:
        assert not state["highlighting"], f"{where}: the plot stays highlighted"
        assert not state["hl"], f"{where}: points stay highlighted: {state['hl']}"
    else:
        assert state["highlighting"], f"{where}: the plot did not get class 'highlighting'"
        assert state["hl"], f"{where}: no point of {agent} got class 'hl'"
        assert set(state["hl"]) == {agent}, f"{where}: highlighted points of {sorted(set(state['hl']))}"
        assert len(state["hl"]) == state["points"].count(agent), (
            f"{where}: {len(state['hl'])} of {state['points'].count(agent)} points of {agent} highlighted"
        )
    others = page.eval_on_selector_all(".plot-card svg.plot.highlighting", "ps => ps.length")
    assert others == (0 if agent is None else 1), f"{where}: {others} plots highlighted on the page"


def _chip_with_points(card, start: int = 0):
    state = _plot_state(card)
    chips = card.locator(".chip[data-agent]")
    agents = chips.evaluate_all("cs => cs.map(c => c.getAttribute('data-agent'))")
    for i, agent in enumerate(agents):
        if i >= start and agent in state["points"]:
            return i, agent, chips
    return None


def test_chips_highlight_their_agents_points(site, new_page):
    page, watch = new_page()
    open_page(page, site, "missions/index.html")
    cards = page.locator(".plot-card")
    assert cards.count() > 0
    card = next((cards.nth(i) for i in range(cards.count()) if _chip_with_points(cards.nth(i), 1)), None)
    assert card is not None, "no mission card has a chip (after the first) whose agent has points"
    assert card.locator("svg.plot").count() == 1

    # hover
    i, agent, chips = _chip_with_points(card)
    _assert_highlights(page, card, None, "before anything")
    chips.nth(i).hover()
    _assert_highlights(page, card, agent, f"hovering chip {agent}")
    page.mouse.move(0, 0)
    _assert_highlights(page, card, None, f"after leaving chip {agent}")

    # keyboard: Tab onto a chip, then Enter presses it and Space un-presses it
    i, agent, chips = _chip_with_points(card, 1)
    chips.nth(i - 1).focus()
    page.keyboard.press("Tab")
    assert chips.nth(i).evaluate("c => c === document.activeElement"), "Tab does not reach the next chip"
    _assert_highlights(page, card, agent, f"focusing chip {agent} with Tab")
    assert _plot_state(card)["pressed"].count("true") == 0

    page.keyboard.press("Enter")
    assert chips.nth(i).get_attribute("aria-pressed") == "true", "Enter does not press the chip"
    assert _plot_state(card)["pressed"].count("true") == 1
    _assert_highlights(page, card, agent, f"after pressing chip {agent}")
    page.evaluate("() => document.activeElement.blur()")
    _assert_highlights(page, card, agent, f"pressed chip {agent} after focus left it")

    chips.nth(i).focus()
    page.keyboard.press("Space")
    assert _plot_state(card)["pressed"].count("true") == 0, "pressing again does not clear aria-pressed"
    assert chips.nth(i).get_attribute("aria-pressed") == "false"
    page.evaluate("() => document.activeElement.blur()")
    _assert_highlights(page, card, None, "after un-pressing and leaving the chip")

    # pressing by mouse, then pressing another chip moves the press
    j, other, chips = _chip_with_points(card)
    assert j != i, "the first chip with points was expected before the one used above"
    chips.nth(i).click()
    chips.nth(j).click()
    page.mouse.move(0, 0)
    page.evaluate("() => document.activeElement.blur()")
    assert _plot_state(card)["pressed"] == ["true" if k == j else "false" for k in range(chips.count())]
    _assert_highlights(page, card, other, f"after clicking chip {agent}, then chip {other}")
    watch.assert_clean()


# ----------------------------------------------------------------------------- run strip


def test_run_strip_columns_have_a_score_tooltip(site, new_page):
    page, watch = new_page()
    open_page(page, site, "index.html")
    first = page.locator("svg.strip a").first
    title = first.evaluate("a => a.querySelector(':scope > title')?.textContent ?? null")
    assert title is not None, "the first run-strip column has no <title>"
    assert re.search(r"\d+(\.\d+)?%|no score", title), f"tooltip without a score: {title!r}"
    columns = page.eval_on_selector_all(
        "svg.strip a",
        "as => as.map(a => [a.getAttribute('href'), a.querySelector(':scope > title')?.textContent ?? null])",
    )
    assert len(columns) > 1
    for href, text in columns:
        assert text and re.search(r"\d+(\.\d+)?%|no score", text), f"{href}: tooltip {text!r}"
        assert (site / href).is_file(), f"run-strip link to a missing page: {href}"
    watch.assert_clean()


# ----------------------------------------------------------------------------- layout, schemes, screenshots


PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 1, "is_mobile": True, "has_touch": True}


@pytest.fixture(scope="module")
def changes_site(tmp_path_factory) -> Path:
    """The demo site built with --previous: a publish made before the demo's last 15 days of runs, so its change
    report has agents, mission versions and runs in it (the one page kind the demo site alone lacks)."""
    from podium.build import build_site
    from podium.config import load_config

    root = tmp_path_factory.mktemp("changes")
    export = root / "earlier-export"
    shutil.copytree(REPO_ROOT / "content" / "demo-export", export)
    rows = json.loads((export / "runs.json").read_text(encoding="utf-8"))
    for row in rows:
        if row["created_at"] >= "2026-11-09":
            shutil.rmtree(export / row["run_id"][:8], ignore_errors=True)
    kept = [row for row in rows if row["created_at"] < "2026-11-09"]
    assert 0 < len(kept) < len(rows)
    (export / "runs.json").write_text(json.dumps(kept), encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO_ROOT)
        config = load_config(Path("podium.yaml"), {"out": root / "earlier"})
        build_site(config, export)
        out = root / "site"
        build_site(
            load_config(Path("podium.yaml"), {"out": out}), Path("content/demo-export"), previous=root / "earlier"
        )
    assert (out / "changes" / "1" / "index.html").is_file()
    return out


def _every_page_kind(site: Path, summary: dict, runs: list[dict]) -> list[str]:
    """One page of every kind (every agent page: one per verdict in the demo; a run page of every kind)."""
    pages = _pages_to_check(site, summary, runs)  # home, missions, ledger, 404, agents, missions, runs, content
    pages += ["compare/index.html", "models/index.html"]
    pages += [sorted(str(p.relative_to(site)) for p in site.glob("compare/*/*/index.html"))[0]]
    pages += [summary["by_model"][0]["url"]]
    pages += [sorted(str(p.relative_to(site)) for p in site.glob("runs/20*/*/index.html"))[-1]]  # a month's page
    pages += [sorted(str(p.relative_to(site)) for p in site.glob("missions/page/*/index.html"))[:1]][0]
    return list(dict.fromkeys(pages))


def _width_problems(page, rel: str) -> list[str]:
    """The page at phone width with every <details> opened: wider than the viewport, or a table cell or caption
    cut off by the page's edge (outside a scroll box of its own)."""
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    scroll = page.evaluate("() => document.documentElement.scrollWidth")
    # the screen's width, not window.innerWidth: a mobile browser widens its layout viewport to a page that
    # overflows (then zooms out), so innerWidth grows with the very overflow this looks for
    screen = page.viewport_size["width"]
    return [f"{rel}: scrollWidth {scroll} > {screen} px with every details open"] if scroll > screen else []


def test_no_page_is_wider_than_a_phone(site, changes_site, summary, runs_json, new_page):
    """Issue 36 item 3: at 390 px, no page of any kind is wider than the screen, with its details opened (a run
    page's report: an unbroken image digest once widened it to 668 px)."""
    page, watch = new_page(**PHONE)
    pages = _every_page_kind(site, summary, runs_json)
    assert len(pages) > 20 and any(p.startswith("compare/") and p.count("/") == 3 for p in pages)
    assert any(
        "/report" in (site / p).read_text(encoding="utf-8") or "<details>" in (site / p).read_text(encoding="utf-8")
        for p in pages
    )
    wide = []
    for rel in pages:
        open_page(page, site, rel)
        wide += _width_problems(page, rel)
    for rel in ("changes/index.html", "changes/1/index.html"):
        open_page(page, changes_site, rel)
        wide += _width_problems(page, rel)
    assert not wide, "pages scroll sideways on a 390 px phone:\n" + "\n".join(wide)
    watch.assert_clean()


def _in_view(page, selector: str) -> dict | None:
    """Where the first element matching ``selector`` is, against the screen (the viewport's width: a mobile
    browser's innerWidth grows with a page that overflows): its text, left and right edges."""
    box = page.evaluate(
        """sel => { const e = document.querySelector(sel); if (!e) return null;
            const r = e.getBoundingClientRect();
            return {text: e.textContent.trim(), left: r.left, right: r.right}; }""",
        selector,
    )
    return box and {**box, "width": page.viewport_size["width"]}


def _assert_visible_score(page, rel: str, selector: str) -> str:
    box = _in_view(page, selector)
    assert box is not None, f"{rel}: nothing matches {selector}"
    assert box["text"], f"{rel}: {selector} is empty"
    assert 0 <= box["left"] and box["right"] <= box["width"], (
        f"{rel}: the score {box['text']!r} ({selector}) lies at {box['left']:.0f}–{box['right']:.0f} px, "
        f"outside the {box['width']} px screen: it needs a sideways scroll"
    )
    return box["text"]


def test_a_phone_shows_the_first_rows_score_without_scrolling_sideways(site, changes_site, summary, new_page):
    """Issue 36 item 3: the overall score of the ledger's first row (front page, as drawn by its script, and a
    month's page) and of the first row of every per-version table (agent, mission, change report) is on screen."""
    page, watch = new_page(**PHONE)
    open_page(page, site, "runs/index.html")
    first = _assert_visible_score(page, "runs/index.html", "#ledger tbody tr:first-child td.overall")
    assert first == _overall_text(site, "runs/index.html")
    _rerender(page, lambda: page.select_option("select[name=kind]", "graded"))  # rows drawn by podium.js
    assert re.match(r"\d", _assert_visible_score(page, "runs/index.html", "#ledger tbody tr:first-child td.overall"))
    month = sorted(str(p.relative_to(site)) for p in site.glob("runs/20*/*/index.html"))[-1]
    open_page(page, site, month)
    _assert_visible_score(page, month, "table.lean tbody tr:first-child td:nth-child(6)")
    for agent in summary["agents"]:
        open_page(page, site, agent["url"])
        _assert_visible_score(page, agent["url"], ".mission-table table.runs tbody tr:first-child td.overall")
    mission = summary["missions"][0]["url"]
    open_page(page, site, mission)
    _assert_visible_score(page, mission, "table.runs tbody tr:first-child td.overall")
    _assert_visible_score(page, mission, "table.agents-table tbody tr:first-child td.num")
    open_page(page, changes_site, "changes/1/index.html")
    _assert_visible_score(page, "changes/1/index.html", "table.changes tbody tr:first-child td.lead-cell")
    watch.assert_clean()


GLYPHS_ONLY = re.compile(r"^[\s▲▼=◆?…≠—+−±\d.%pp]*$")


def test_progress_cells_are_in_words(site, summary, new_page):
    """Issue 36 item 4: each agent's table of mission versions at its newest steps, and each mission version's
    table of the agents' newest steps, say the verdict in words in the cell (a phone cannot hover), never a glyph
    alone nor a bare "—", and nothing is said in a title only; a decided cell names the interval that decided it."""
    page, watch = new_page(**PHONE)
    seen, bad = 0, []
    pages = [a["url"] for a in summary["agents"]] + [m["url"] for m in summary["missions"] if m["current"]]
    for rel in pages:
        open_page(page, site, rel)
        cells = page.eval_on_selector_all(
            ".progress-table td, .progress-steps td",
            "tds => tds.map(td => [td.textContent.trim(), td.getAttribute('title'), td.className])",
        )
        for text, title, cls in cells:
            seen += 1
            if GLYPHS_ONLY.match(text) or title:
                bad.append(f"{rel}: {text!r} (title {title!r})")
            if any(f"v-{v}" in cls.split() for v in ("improved", "regressed", "unclear")) and "99% CI" not in text:
                bad.append(f"{rel}: {text!r} names no interval")
            if "v-steady" in cls.split() and "90% CI" not in text:
                bad.append(f"{rel}: {text!r} is steady without its 90% interval")
    assert seen > 20 and not bad, "\n".join(bad)
    watch.assert_clean()


def _overall_text(site: Path, rel: str) -> str:
    """The first ledger row's overall cell as the HTML writes it."""
    doc = (site / rel).read_text(encoding="utf-8")
    return re.search(r'<td class="num overall"[^>]*>([^<]*)</td>', doc).group(1).strip()


def _luminance(css: str) -> float:
    match = re.match(r"rgba?\((\d+), (\d+), (\d+)", css)
    assert match, f"unexpected colour {css!r}"
    r, g, b = (int(x) for x in match.groups())
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_light_and_dark_schemes_differ(site, new_page):
    colours = {}
    for scheme in ("light", "dark"):
        page, watch = new_page(color_scheme=scheme)
        open_page(page, site, "index.html")
        colours[scheme] = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
        watch.assert_clean()
    assert colours["light"] != colours["dark"], colours
    assert _luminance(colours["dark"]) < _luminance(colours["light"]), colours


SCREENSHOT_MODES = {
    "dark": {"color_scheme": "dark", "viewport": {"width": 1280, "height": 900}},
    "light": {"color_scheme": "light", "viewport": {"width": 1280, "height": 900}},
    "phone": {"color_scheme": "dark", **PHONE},
}


def test_screenshots(site, summary, runs_json, new_page):
    """For a human to look at (issue 36): the home page, an agent of each progress verdict, the ledger and a run
    page (its report opened), each in the dark and light schemes and on a 390 px phone, in tests/artifacts/."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    targets = [("home", "index.html"), ("ledger", "runs/index.html"), ("missions", "missions/index.html")]
    run = next(r["url"] for r in runs_json if r["kind"] == "partial_judge")
    targets.append(("run", run))
    by_verdict: dict[str, str] = {}
    for agent in summary["agents"]:
        by_verdict.setdefault(agent["progress"]["verdict"] or "none", agent["url"])
    assert len(by_verdict) >= 7, f"the demo should show every verdict: {sorted(by_verdict)}"
    targets += [(f"agent-{verdict}", url) for verdict, url in sorted(by_verdict.items())]
    for mode, options in SCREENSHOT_MODES.items():
        page, watch = new_page(**options)
        for name, rel in targets:
            target = ARTIFACTS / f"{name}-{mode}.png"
            target.unlink(missing_ok=True)  # so a stale file cannot pass for a new one
            open_page(page, site, rel)
            page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
            page.screenshot(path=str(target), full_page=True)
            assert target.stat().st_size > 10_000, target
        watch.assert_clean()


# ----------------------------------------------------------------------------- accessibility (axe-core)

try:
    from axe_playwright_python.sync_playwright import Axe
except ImportError as err:  # pragma: no cover - depends on the environment
    Axe = None
    _AXE_MISSING = f"axe-playwright-python cannot be imported ({err})"
else:
    _AXE_MISSING = ""

AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]},
    "resultTypes": ["violations"],
    "preload": False,  # axe would fetch the stylesheets with XHR, which file:// pages refuse (console errors)
}


def _axe_pages(site: Path, summary: dict, runs: list[dict]) -> list[str]:
    """One page of every kind, and a run page of every run kind."""
    pages = [
        "index.html",
        summary["agents"][0]["url"],
        "missions/index.html",
        summary["missions"][0]["url"],
        "runs/index.html",
        "404.html",
    ]
    pages += sorted(
        str(p.relative_to(site))
        for p in site.glob("*/index.html")
        if p.parent.name not in ("agents", "missions", "runs", "api", "assets")
    )
    pages.append(summary["by_model"][0]["url"])  # a model page
    pages.append(sorted(str(p.relative_to(site)) for p in site.glob("compare/*/*/index.html"))[0])  # a pair page
    seen: set[str] = set()
    for row in runs:
        if row["kind"] not in seen:
            seen.add(row["kind"])
            pages.append(row["url"])
    return pages


def _axe_violations(page, where: str) -> list[str]:
    result = Axe().run(page, options=AXE_OPTIONS).response
    return [
        f"{where}: {v['id']} ({v['impact']}): {v['help']} at "
        + "; ".join(
            f"{' '.join(n['target'])} [{n.get('failureSummary', '').splitlines()[-1].strip()}]" for n in v["nodes"][:5]
        )
        + (f" … and {len(v['nodes']) - 5} more" if len(v["nodes"]) > 5 else "")
        for v in result["violations"]
    ]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width,height", [(1280, 900), (390, 844)], ids=["desktop", "phone"])
def test_axe_finds_no_violations(site, summary, runs_json, new_page, scheme, width, height):
    if _AXE_MISSING:
        _unavailable(_AXE_MISSING)
    phone = width < 600
    page, watch = new_page(
        color_scheme=scheme, viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone
    )
    found = []
    for rel in _axe_pages(site, summary, runs_json):
        open_page(page, site, rel)
        found += _axe_violations(page, rel)
        head = page.evaluate("""() => ({
            description: document.querySelector('meta[name=description]')?.content ?? '',
            icon: document.querySelector('link[rel=icon]')?.href ?? ''})""")
        if len(head["description"].strip()) < 20:
            found.append(f"{rel}: meta description missing or too short: {head['description']!r}")
        if not head["icon"].startswith("file:") or not Path(head["icon"].removeprefix("file://")).is_file():
            found.append(f"{rel}: the icon link does not name a file of the site: {head['icon']!r}")
    # the ledger as the script leaves it: filter form shown, sort buttons, rows it rendered
    open_page(page, site, "runs/index.html")
    _rerender(page, lambda: page.select_option("select[name=kind]", "no_judge"))
    found += _axe_violations(page, "runs/index.html (filtered by the script)")
    assert not found, f"axe-core, {scheme} scheme, {width}x{height}:\n" + "\n".join(found)
    watch.assert_clean()


# Links among other text (issue 17.3). The demo's names are long enough that axe-core never counts its
# heading and paragraph links as "in a text block"; short names, a provisional rank, an older mission
# version and a clipped run table make it do so on an agent page, where it found link-in-text-block
# violations in the dark scheme. This site is built to have them.


def _text_links_export(root: Path) -> Path:
    from exportkit import ExportDir, env_failure, graded, run_id

    export = ExportDir(root)
    n = 0

    def add(agent, mission, version, values):
        nonlocal n
        for x in values:
            n += 1
            export.run(
                graded(run_id(f"tl{n}"), det=x, judge=x, mission_version=version, models_reported=["x"]),
                rid=run_id(f"tl{n}"),
                agent=agent,
                mission=mission,
                version=version,
            )

    add("ab", "m1", "1.1.0", [0.5, 0.625, 0.75, 0.75, 0.875, 0.9375, 1.0])
    add("ab", "m1", "1.0.0", [0.5, 0.75, 0.25])  # an older version: its heading link sits beside a tag
    add("cd", "m1", "1.1.0", [0.25, 0.375, 0.5, 0.5, 0.625, 0.75])
    add("ef", "m1", "1.1.0", [1.0])  # a provisional rank
    n += 1
    export.run(env_failure(run_id(f"tl{n}")), rid=run_id(f"tl{n}"), agent="gh", mission="m1", version="1.1.0")
    export.sidecars()
    return export.root


@pytest.fixture(scope="module")
def text_links_site(tmp_path_factory) -> Path:
    from podium.build import build_site
    from podium.config import Config
    from podium.plan import site as plan

    root = tmp_path_factory.mktemp("text-links")
    out = root / "site"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(plan, "VERSION_RUNS", (2, 2))  # so each run table ends on "N earlier runs are in the ledger."
        mp.setattr(plan, "MISSION_RUNS", 2)
        build_site(
            Config(source="", root=root, out=out, base_url="https://example.org/board/", title="t"),
            _text_links_export(root / "export"),
        )
    return out


IN_TEXT_BLOCK = """() => {
  axe.setup();
  try {
    return [...document.querySelectorAll('main a[href]')].filter(a => !a.closest('svg'))
      .filter(a => axe.commons.dom.isInTextBlock(a))
      .map(a => [a.closest('p, h1, h2, h3, th, td')?.className || a.parentElement.tagName, a.textContent.trim(),
                 getComputedStyle(a).textDecorationLine]);
  } finally { axe.teardown(); }
}"""


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_axe_finds_no_violations_where_links_sit_in_text(text_links_site, new_page, scheme):
    """An agent page whose links sit among text (the older-runs notes, the "Compare with…" paragraph,
    the eyebrow, an older version's heading, the badge paragraph), the compare matrix and a pair page
    with provisional ranks, the ledger: axe finds nothing, and every link axe counts as inside text is
    underlined (not told apart by colour alone)."""
    if _AXE_MISSING:
        _unavailable(_AXE_MISSING)
    site = text_links_site
    page, watch = new_page(color_scheme=scheme)
    found = []
    in_text: dict[str, list] = {}
    pages = [
        "agents/ab/index.html",
        "agents/cd/index.html",
        "agents/ef/index.html",
        "agents/gh/index.html",
        "compare/index.html",
        "index.html",
        "runs/index.html",
        "models/index.html",
    ]
    pages += sorted(str(p.relative_to(site)) for p in site.glob("compare/*/*/index.html"))
    for rel in pages:
        open_page(page, site, rel)
        found += _axe_violations(page, rel)  # injects axe-core
        in_text[rel] = page.evaluate(IN_TEXT_BLOCK)
    assert not found, f"axe-core, {scheme} scheme:\n" + "\n".join(found)
    agent = in_text["agents/ab/index.html"]
    where = {cls for cls, _, _ in agent}
    # the case is really exercised: paragraph links and a heading link count as inside text
    assert "CAPTION" in where, agent  # a run table's caption: "… · 1 earlier run is in the ledger."
    assert {"cd", "ef"} <= {t for c, t, _ in agent if c == "P"}, agent  # the "Compare with…" paragraph
    assert any(t == "m1 1.0.0" for _, t, _ in agent), agent  # the older version's heading
    not_underlined = [(rel, link) for rel, links in in_text.items() for link in links if "underline" not in link[2]]
    assert not not_underlined, not_underlined
    watch.assert_clean()


# ----------------------------------------------------------------------------- the ledger view as a link


def _hash_params(page) -> dict[str, str]:
    return dict(page.evaluate("() => [...new URLSearchParams(location.hash.slice(1)).entries()]"))


def test_ledger_view_lives_in_the_fragment(site, runs_json, summary, new_page):
    total = len(runs_json)
    kinds: dict[tuple[str, str], int] = {}
    for r in runs_json:
        kinds[(r["agent_name"], r["kind"])] = kinds.get((r["agent_name"], r["kind"]), 0) + 1
    # an agent with a space in its name, and a kind it has more than one run of but not only that kind
    (name, kind), expected = max(
        ((k, n) for k, n in kinds.items() if k[1] != "graded"), key=lambda item: (" " in item[0][0], item[1])
    )
    slug = {a["name"]: a["slug"] for a in summary["agents"]}[name]  # the view's key (issue 29: names repeat)
    page, watch = new_page()

    # opening a link with a fragment shows exactly the runs it names
    open_page(page, site, "runs/index.html", "#agent=" + quote(slug) + "&kind=" + kind)
    count = _wait_count(page)
    assert count == f"{expected} of {total} runs"
    assert page.eval_on_selector("select[name=agent]", "s => s.value") == slug
    assert page.eval_on_selector("select[name=kind]", "s => s.value") == kind
    assert set(_column(page, AGENT_COL)) == {name}
    assert len(_column(page, AGENT_COL)) == expected

    # filtering rewrites the fragment (without adding history entries)
    history = page.evaluate("() => history.length")
    _rerender(page, lambda: page.select_option("select[name=kind]", ""))
    assert _hash_params(page) == {"agent": slug}
    _rerender(page, lambda: page.fill("input[name=q]", "completed"))
    assert _hash_params(page) == {"agent": slug, "q": "completed"}
    _rerender(page, lambda: page.locator("#ledger th[data-sort=overall] > button").click())
    params = _hash_params(page)
    assert params == {"agent": slug, "q": "completed", "sort": "overall", "dir": "asc"}, params
    assert page.evaluate("() => history.length") == history, "filtering added history entries"
    shown = _column(page, OVERALL_COL)

    # the rewritten address restores the same view
    page.reload(wait_until="load")
    settle(page)
    _wait_count(page)
    assert page.eval_on_selector("input[name=q]", "i => i.value") == "completed"
    assert page.locator("#ledger th[data-sort=overall]").get_attribute("aria-sort") == "ascending"
    assert _column(page, OVERALL_COL) == shown

    # clearing everything clears the fragment
    _rerender(page, lambda: page.fill("input[name=q]", ""))
    _rerender(page, lambda: page.select_option("select[name=agent]", ""))
    _rerender(page, lambda: page.locator("#ledger th[data-sort=date] > button").click())  # newest first
    assert page.evaluate("() => location.hash") == ""
    _rerender(page, lambda: page.locator("#ledger th[data-sort=date] > button").click())  # oldest first
    assert _hash_params(page) == {"sort": "date", "dir": "asc"}
    watch.assert_clean()


def test_agent_and_mission_pages_link_to_their_filtered_ledger(site, summary, runs_json, new_page):
    total = len(runs_json)
    page, watch = new_page()
    agent = summary["agents"][0]
    open_page(page, site, agent["url"])
    follow(page, page.locator("a", has_text=re.compile(r"^Every run of .* in the ledger$")))
    count = _wait_count(page)
    assert _hash_params(page) == {"agent": agent["slug"]}
    assert count == f"{sum(r['agent_name'] == agent['name'] for r in runs_json)} of {total} runs"

    mission = summary["missions"][0]
    open_page(page, site, mission["url"])
    follow(page, page.locator("a", has_text=re.compile(r"^Every run on .* in the ledger$")))
    count = _wait_count(page)
    label = f"{mission['mission']} {mission['version']}"
    assert page.eval_on_selector("select[name=mission]", "s => s.value") == label
    expected = sum(r["mission"] == mission["mission"] and r["version"] == mission["version"] for r in runs_json)
    assert count == f"{expected} of {total} runs"
    assert set(_column(page, MISSION_COL)) <= {label, label + " older version"}
    watch.assert_clean()


@pytest.fixture(scope="module")
def twins_site(tmp_path_factory) -> Path:
    """Two agents named kestrel (tests/count/test_ledger_agents.py's export)."""
    import sitekit
    from exportkit import twins

    root = tmp_path_factory.mktemp("twins")
    return sitekit.build(twins(root / "export").root, root / "site")


def test_two_agents_of_one_name_open_two_ledger_views(twins_site, new_page):
    """Issue 29 item 9: each twin's page links to a view of its own runs only (by slug), the ledger's agent
    choice tells them apart, and a link by a name (made before slugs) still works where one agent has it."""
    site = twins_site
    summary = json.loads((site / "api/results/summary.json").read_text(encoding="utf-8"))
    rows = ledger_rows_at(site)
    twins = [a for a in summary["agents"] if a["name"] == "kestrel"]
    assert len(twins) == 2
    page, watch = new_page()
    for agent in twins:
        open_page(page, site, agent["url"])
        follow(page, page.locator("a", has_text=re.compile(r"^Every run of .* in the ledger$")))
        count = _wait_count(page)
        assert _hash_params(page) == {"agent": agent["slug"]}
        assert page.eval_on_selector("select[name=agent]", "s => s.value") == agent["slug"]
        own = [r for r in rows if r["agent"] == agent["agent"]]
        assert count == f"{len(own)} of {len(rows)} runs", agent["slug"]
        shown = sorted(
            page.eval_on_selector_all("#ledger tbody tr td:nth-child(2) a", "as => as.map(a => a.textContent)")
        )
        assert shown == sorted(r["run_id"][:8] for r in own)
    labels = page.eval_on_selector_all("select[name=agent] option", "os => os.map(o => o.textContent)")
    assert {"all", "osprey", *(f"kestrel ({a['slug']})" for a in twins)} < set(labels)  # and the cancelled kestrel
    assert len(labels) == 5 and len(set(labels)) == 5
    # "kestrel" is a slug too (the cancelled kestrel's: the two with pages are suffixed): a slug wins over names
    open_page(page, site, "runs/index.html", "#agent=kestrel")
    assert _wait_count(page) == f"1 of {len(rows)} runs"
    assert page.eval_on_selector("select[name=agent]", "s => s.value") == "kestrel"
    open_page(page, site, "runs/index.html", "#agent=osprey&kind=graded")  # a name one agent has still works
    assert _wait_count(page) == f"1 of {len(rows)} runs"
    watch.assert_clean()


# ----------------------------------------------------------------------------- layout shift, print


@pytest.mark.parametrize("width,height", [(1280, 900), (390, 844)], ids=["desktop", "phone"])
def test_ledger_does_not_shift_when_its_script_runs(site, new_page, width, height):
    """The filter form appears where room was kept for it: the table does not move down.
    (Columns may still settle sideways while a slow machine parses the rows; that is the
    table's own layout, not the script's, and is not what this measures.)"""
    page, watch = new_page(viewport={"width": width, "height": height})
    page.add_init_script("""document.addEventListener('DOMContentLoaded', () => {
        const table = document.getElementById('ledger'), form = document.getElementById('ledger-filters');
        if (table) window.__before = [table.getBoundingClientRect().top, form.hidden, form.getBoundingClientRect().height];
    });""")  # runs before podium.js's own DOMContentLoaded handler, which shows the form
    open_page(page, site, "runs/index.html")
    assert page.locator("form#ledger-filters").is_visible()
    (before, hidden, room), after = page.evaluate(
        "() => [window.__before, document.getElementById('ledger').getBoundingClientRect().top]"
    )
    assert hidden and room > 20, f"no room is kept for the hidden filter form ({room}px)"
    # a font that arrives late may still nudge the page by a few pixels; the form would move it by 50-110
    assert abs(after - before) <= 4, f"showing the filter form moved the ledger table from y={before} to y={after}"
    # and the browser's own layout-shift record agrees: shifts that move content down or up
    # stay far below what the form caused (0.03-0.09); a late font swap may move it by a pixel or four
    shifts = page.evaluate("""() => new Promise(resolve => {
        new PerformanceObserver(list => resolve(list.getEntries()
                .filter(e => e.sources.some(s => Math.abs(s.currentRect.y - s.previousRect.y) > 0.5))
                .map(e => [e.value, e.sources.map(s => `${s.node?.nodeName} ${s.previousRect.y} -> ${s.currentRect.y}`)])))
            .observe({type: 'layout-shift', buffered: true});
        setTimeout(() => resolve([]), 1000);
    })""")
    assert sum(value for value, _ in shifts) < 0.01, f"content moved down or up on the ledger at {width}px: {shifts}"
    watch.assert_clean()


def test_print_shows_cards_and_charts_black_on_white(site, summary, new_page):
    page, watch = new_page(color_scheme="dark")
    for rel in (summary["agents"][0]["url"], summary["missions"][0]["url"], "index.html"):
        open_page(page, site, rel)
        page.emulate_media(media="print")
        state = page.evaluate("""() => ({
            nav: getComputedStyle(document.querySelector('header.top nav')).display,
            foot: getComputedStyle(document.querySelector('footer.foot')).display,
            background: getComputedStyle(document.body).backgroundColor,
            text: getComputedStyle(document.body).color,
            heading: getComputedStyle(document.querySelector('h1')).color,
            charts: [...document.querySelectorAll('svg.strip, svg.plot')]
                .filter(svg => svg.getBoundingClientRect().height > 0).length,
        })""")
        assert state["nav"] == "none" and state["foot"] == "none", f"{rel}: {state}"
        assert state["background"] == "rgb(255, 255, 255)", f"{rel}: {state}"
        assert state["text"] == state["heading"] == "rgb(0, 0, 0)", f"{rel}: {state}"
        assert state["charts"] > 0, f"{rel}: no chart is printed"
        page.emulate_media(media="screen")
    watch.assert_clean()
