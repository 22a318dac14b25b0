"""Where what each score costs shows (docs/rules/cost.md §5, §6): the price table in podium.yaml, summary.json
and its schema, the ledger's columns, ``podium rank --by cost``, ``podium diff`` and the pages."""

from __future__ import annotations

import copy
import json
import shutil

import pytest
from click.testing import CliRunner
from conftest import SAMPLES, needs_samples
from sitekit import ledger_csv, ledger_rows, site_files, strict_json, whole_summary

from podium.commands.cli import main
from podium.config import load_config
from podium.count.bundle import bundle_from
from podium.count.diff import REPORT_SHAPE, compare, frontier_changed, tokens_changed
from podium.count.summarize import summarize
from podium.errors import ConfigError
from podium.load.export import load_export
from podium.load.shape import pick
from podium.render.data import LEDGER_COLUMNS, summary_data
from podium.words.diff_text import change_headline, to_markdown

pytestmark = needs_samples()

KESTREL = "c33c6fe7ad404518b059065321c11083"
OSPREY = "af529b76ff4a4fb88e99066338e17640"
PRICES = """prices:
  as_of: 2026-11-01
  source: "provider price pages"
  models:
    gpt-5.5: {input: 1.25, output: 10.0, cache_read: 0.125, cache_creation: 1.25}
"""


# ---------------------------------------------------------------- podium.yaml prices


def _config(tmp_path, text: str):
    path = tmp_path / "podium.yaml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


@pytest.mark.parametrize(
    "text, message",
    [
        ("prices: {source: x, models: {}}", "prices.as_of: missing"),
        ("prices: {as_of: 2026-11-01, models: {}}", "prices.source: missing"),
        ("prices: {as_of: 2026-11-01, source: x}", "prices.models: missing"),
        ("prices: {as_of: yesterday, source: x, models: {}}", "prices.as_of: expected a date (YYYY-MM-DD)"),
        (
            "prices: {as_of: 2026-11-01, source: x, models: {m: {input: 1, output: 2, cache_read: 0}}}",
            "prices.models.m.cache_creation: missing",
        ),
        (
            "prices: {as_of: 2026-11-01, source: x, models: {m: {input: -1, output: 2, cache_read: 0, "
            "cache_creation: 0}}}",
            "prices.models.m.input: expected a number of USD per 1M tokens >= 0",
        ),
        ("prices: {as_of: 2026-11-01, source: x, models: {}, currency: EUR}", "prices.currency: unknown field"),
    ],
)
def test_a_price_table_is_checked_whole(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _config(tmp_path, text)


def test_a_price_for_a_model_no_run_has_stops_the_build_naming_it(tmp_path):
    (tmp_path / "podium.yaml").write_text(PRICES.replace("gpt-5.5:", "gpt-9:"), encoding="utf-8")
    result = CliRunner().invoke(
        main, ["build", str(SAMPLES), "--config", str(tmp_path / "podium.yaml"), "--out", str(tmp_path / "s")]
    )
    assert result.exit_code == 2
    assert "prices.models.gpt-9: no run has this model key" in result.output
    assert not (tmp_path / "s").exists()


# ---------------------------------------------------------------- the data files


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("cost")
    (root / "podium.yaml").write_text(PRICES, encoding="utf-8")
    out = root / "site"
    result = CliRunner().invoke(
        main, ["build", str(SAMPLES), "--config", str(root / "podium.yaml"), "--out", str(out), "--no-cache", "-q"]
    )
    assert result.exit_code == 0, result.output
    return site_files(out)


def test_summary_carries_cost_frontier_and_the_price_date(built):
    summary = whole_summary(built)  # the index with each agent's and mission version's part merged back
    assert summary["prices"] == {"as_of": "2026-11-01", "source": "provider price pages"}
    assert summary["frontier"] == {"total_tokens": [KESTREL], "duration_seconds": [KESTREL]}
    kestrel = next(a for a in summary["agents"] if a["agent"] == KESTREL)
    assert kestrel["cost"]["spent_by_kind"] == {"graded": 43526, "no_judge": 9950, "stopped": 8910}
    # of kestrel's runs only 3f9c2a7e has a priced key (gpt-5.5); the other two's key is "(unknown model)"
    assert kestrel["cost"]["cost_usd"]["median"] == (42456 * 1.25 + 1070 * 10.0) / 1e6  # cache not reported
    assert (kestrel["cost"]["spent_usd_reported"], kestrel["cost"]["spent_usd"]) == (1, (42456 * 1.25 + 10700) / 1e6)
    for entry in kestrel["missions"] + summary["missions"] + summary["by_model"]:
        assert set(entry["cost"]) >= {"runs", "total_tokens", "spent_tokens", "spent_by_kind"}
    assert all("frontier" in m for m in summary["missions"] if m["current"])


def test_the_ledger_has_every_cost_column_null_or_empty_when_not_reported(built):
    rows = {r["run_id"][:8]: r for r in ledger_rows(built)}
    timed_out = rows["0b5e8d2f"]  # reports 0 tokens and 0 model calls beside 1 tool call
    assert (timed_out["total_tokens"], timed_out["model_calls"], timed_out["tool_calls"]) == (None, None, 1)
    assert timed_out["budget_share"] == 1802 / 1800
    assert rows["7d1f3b5a"]["harness"] == "claude-code" and rows["7d1f3b5a"]["total_tokens"] is None
    graded = rows["3f9c2a7e"]
    assert (graded["cost_usd"], graded["cache_unpriced"]) == ((42456 * 1.25 + 1070 * 10.0) / 1e6, True)
    assert rows["a41d07c2"]["cost_usd"] is None  # osprey's key has no price: null, never 0
    index = strict_json(built["api/results/runs.json"])
    assert index["columns"] == [*LEDGER_COLUMNS, "cost_usd", "cache_unpriced"]
    header = ledger_csv(built).splitlines()[0].split(",")
    assert header == index["columns"]


def test_pages_say_what_a_run_spent_and_at_which_prices(built):
    page = built[next(p for p in built if p.startswith("runs/0b5e8d2f"))].decode()
    assert "not reported (by claude-code)" in page  # its tokens: a total of 0 is "not reported"
    assert "30 min of a 30 min budget (100%: it ran out)" in page
    home = built["index.html"].decode()
    assert "What each score costs" in home and 'class="cost-chart"' in home
    agent = built["agents/kestrel/index.html"].decode()
    assert "at prices of 2026-11-01" in agent
    assert "went to runs with no judge" in agent  # 9,950 of 62,386 tokens: 16%


# ---------------------------------------------------------------- podium rank --by cost


def test_rank_by_cost_prints_the_frontier_and_json_is_summary_agents(tmp_path):
    runner = CliRunner()
    with runner.isolated_filesystem(temp_dir=tmp_path):
        table = runner.invoke(main, ["rank", str(SAMPLES), "--by", "cost"])
        as_json = runner.invoke(main, ["rank", str(SAMPLES), "--by", "cost", "--json"])
    assert table.exit_code == 0 and as_json.exit_code == 0
    first = table.output.splitlines()[1].split()
    assert first[:4] == ["1", "provisional", "kestrel", "92.5%"] and first[-3:] == ["tokens", "and", "time"]
    summary = summary_data(summarize(load_export(SAMPLES)))
    expected = json.dumps(summary["agents"], sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    assert as_json.output == expected


# ---------------------------------------------------------------- podium diff and the change report


def test_a_diff_names_an_agent_that_joined_or_left_the_frontier():
    old = summary_data(summarize(load_export(SAMPLES)))
    new = copy.deepcopy(old)
    new["frontier"]["total_tokens"] = [OSPREY]
    report = compare(bundle_from(old, "old"), bundle_from(new, "new"))
    pick(report, REPORT_SHAPE)  # what changes.json keeps reads back
    changed = {r["name"]: r["cost"] for r in report["agents"] if frontier_changed(r)}
    one = {"tokens_verdict": "too_few_runs", "old_tokens_verdict": "too_few_runs", "tokens_known_before": True}
    assert changed == {
        "kestrel": {"median_tokens": 43526.0, "old_median_tokens": 43526.0, "frontier": False, "old_frontier": True}
        | one,
        "osprey": {"median_tokens": 44643.0, "old_median_tokens": 44643.0, "frontier": True, "old_frontier": False}
        | one,
    }
    assert report["changed"]
    text = to_markdown(report)
    assert "kestrel: left the cost frontier: 43.5k tokens a run, median 92.5%" in text
    assert "2 agents joined or left the cost frontier" in change_headline(report)
    unchanged = compare(bundle_from(old, "old"), bundle_from(old, "again"))
    assert not unchanged["changed"] and not any(frontier_changed(r) for r in unchanged["agents"])


def test_a_diff_names_a_cost_verdict_that_changed():
    """docs/rules/cost.md §6: the tokens verdict of an agent's newest step, like a score verdict."""
    old = summary_data(summarize(load_export(SAMPLES)))
    new = copy.deepcopy(old)
    new["agents"][0]["progress"]["tokens"]["verdict"] = "cheaper"  # was too_few_runs
    report = compare(bundle_from(old, "old"), bundle_from(new, "new"))
    pick(report, REPORT_SHAPE)
    changed = [r["name"] for r in report["agents"] if tokens_changed(r)]
    assert changed == [new["agents"][0]["name"]] and report["changed"]
    assert f"{new['agents'][0]['name']}: tokens … too few runs → ↓ cheaper" in to_markdown(report)
    assert "1 cost verdict changed" in change_headline(report)
    del old["agents"][0]["progress"]["tokens"]  # a summary from before the tokens series: nothing to compare
    report = compare(bundle_from(old, "old"), bundle_from(new, "new"))
    assert not any(tokens_changed(r) for r in report["agents"])


def test_a_summary_from_before_cost_reads_as_no_frontier_change():
    old = summary_data(summarize(load_export(SAMPLES)))
    del old["frontier"]
    for agent in old["agents"]:
        del agent["cost"]
    new = summary_data(summarize(load_export(SAMPLES)))
    report = compare(bundle_from(old, "old"), bundle_from(new, "new"))
    assert not any(frontier_changed(r) for r in report["agents"])
    assert all(r["cost"]["old_frontier"] is None for r in report["agents"])


def test_a_built_sites_change_page_names_the_frontier_change(tmp_path):
    out = tmp_path / "site"
    runner = CliRunner()
    assert runner.invoke(main, ["build", str(SAMPLES), "--out", str(out), "--no-cache", "-q"]).exit_code == 0
    previous = tmp_path / "previous.json"
    summary = json.loads((out / "api/results/summary.json").read_text(encoding="utf-8"))
    summary["frontier"]["total_tokens"] = [OSPREY]
    previous.write_text(json.dumps(summary), encoding="utf-8")
    shutil.rmtree(out)
    result = runner.invoke(
        main, ["build", str(SAMPLES), "--out", str(out), "--no-cache", "-q", "--previous", str(previous)]
    )
    assert result.exit_code == 0, result.output
    change = (out / "changes/1/index.html").read_text(encoding="utf-8")
    assert "joined the cost frontier" in change and "left the cost frontier" in change


def test_a_harness_name_is_published_redacted(tmp_path, export):
    """The harness is a report's text like a model name: a configured secret in it never reaches the ledger or
    a page (docs/rules/export.md §1)."""
    from exportkit import graded, report_md

    secret = "sk-live-0123456789abcdef"
    report = report_md().replace("| Harness | codex |", f"| Harness | codex {secret} |")
    report = report.replace(
        "## Conditions", "## Telemetry\n\n| Field | Value |\n| --- | --- |\n| Total tokens | 0 |\n\n## Conditions"
    )
    export.run(graded("e" * 32), rid="e" * 32, report=report)
    export.sidecars()
    (tmp_path / "podium.yaml").write_text(f'redact: ["{secret}"]\n', encoding="utf-8")
    out = tmp_path / "site"
    result = CliRunner().invoke(
        main,
        ["build", str(export.root), "--config", str(tmp_path / "podium.yaml"), "--out", str(out), "--no-cache", "-q"],
    )
    assert result.exit_code == 0, result.output
    files = site_files(out)
    assert not [path for path, data in files.items() if secret.encode() in data]
    (row,) = ledger_rows(files)
    assert row["harness"].startswith("codex ") and row["total_tokens"] is None
    page = files[f"runs/{'e' * 32}/index.html"].decode()
    assert f"not reported (by {row['harness']})" in page
