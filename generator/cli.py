"""The ``podium`` command: thin Click commands over build.py.

Exit codes: 0 success; 1 problems found (``check``, or ``build --strict``);
2 bad usage, config or export location; 3 the build failed while writing.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from podium import __version__
from podium.build import build_site, count_export
from podium.diff import Gate, check_gates, compare, gate_line, load_bundle, to_markdown
from podium.config import Config, load_config
from podium.errors import EXIT_PROBLEMS, PodiumError
from podium.model import Leaderboard
from podium.render.data import agent_dict, dump_json, ledger_row
from podium.render.text import history_table, rank_table

CONFIG_HELP = "Settings file (default: ./podium.yaml when it exists)."
EXPORT_ARG = click.argument("export", required=False, type=click.Path(path_type=Path))
CONFIG_OPT = click.option("--config", "config_path", type=click.Path(path_type=Path), help=CONFIG_HELP)


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def say(text: str) -> None:
    """One line to stderr, control characters escaped (no CI workflow command can be formed)."""
    click.echo(_CONTROL.sub(lambda m: repr(m.group())[1:-1], text), err=True)


def _export_path(export: Path | None, config: Config) -> Path:
    path = export or config.export
    if path is None:
        raise PodiumError("no export given: pass EXPORT or set `export:` in podium.yaml")
    return path


def _report(board: Leaderboard, export: Path) -> None:
    for note in board.notes:
        say(f"note: {note}")
    for problem in board.problems:
        say(f"problem: {problem}")
    counts = ", ".join(f"{n} {k}" for k, n in board.totals.counts.items() if n)
    say(f"podium: {export}: {board.totals.runs} runs ({counts or 'none'}); "
        f"{board.totals.not_a_run} not a run; {len(board.problems)} problem(s)")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="podium")
def main() -> None:
    """Publish XORCISE run results as a static leaderboard site."""


@main.command()
@EXPORT_ARG
@click.option("--out", type=click.Path(path_type=Path), help="Output directory (default: site).")
@CONFIG_OPT
@click.option("--theme-dir", type=click.Path(path_type=Path), help="Templates and static files that override the theme.")
@click.option("--strict", is_flag=True, help="Exit 1 and write nothing when any problem is found.")
@click.option("--previous", type=click.Path(path_type=Path),
              help="The previous publish (its summary.json, or the built site directory): publish what changed.")
def build(export: Path | None, out: Path | None, config_path: Path | None, theme_dir: Path | None,
          strict: bool, previous: Path | None) -> None:
    """Build the site from EXPORT (default: `export:` in podium.yaml)."""
    config = load_config(config_path, {"out": out, "theme_dir": theme_dir})
    export = _export_path(export, config)
    built = build_site(config, export, strict=strict, previous=previous)
    _report(built.board, export)
    for warning in built.warnings:
        say(f"warning: {warning}")
    if built.target is None:
        say("podium: --strict: problems found; nothing was written")
        sys.exit(EXIT_PROBLEMS)
    say(f"podium: wrote {built.files} files ({built.size} bytes) to {built.target}")


@main.command()
@click.argument("old", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the change report as JSON instead of Markdown.")
@click.option("--fail-on-drop", "drops", multiple=True, metavar="AGENT=PP",
              help="Exit 1 when AGENT's median dropped by more than PP percentage points "
                   "(AGENT: id, slug or name; * for every agent). Repeatable.")
def diff(old: Path, new: Path, as_json: bool, drops: tuple[str, ...]) -> None:
    """Report what changed from OLD to NEW (each a summary.json or a built site directory).

    Exit 0; 1 when a --fail-on-drop gate trips; 2 when an input is not a podium summary.
    """
    gates = [Gate.parse(spec) for spec in drops]
    before, after = load_bundle(old), load_bundle(new)
    report = compare(before, after)
    results = check_gates(before, after, gates)
    if as_json:
        click.echo(dump_json({**report, "gates": results}).decode("utf-8"), nl=False)
    else:
        click.echo(to_markdown(report, results), nl=False)
    tripped = [g for g in results if g["tripped"]]
    for g in tripped:
        say(f"podium diff: gate tripped: {gate_line(g)}")
    if tripped:
        sys.exit(EXIT_PROBLEMS)


@main.command()
@EXPORT_ARG
@CONFIG_OPT
@click.option("--json", "as_json", is_flag=True, help="Print summary.json's `agents` list ([] when empty).")
def rank(export: Path | None, config_path: Path | None, as_json: bool) -> None:
    """Print the agents ranked by median, as on the site."""
    config = load_config(config_path)
    board = count_export(config, _export_path(export, config))
    if as_json:
        click.echo(dump_json([agent_dict(a) for a in board.agents]).decode("utf-8"), nl=False)
    elif not board.agents:
        click.echo("no finished runs yet — nothing to rank")
    else:
        click.echo(rank_table(board.agents))


@main.command()
@EXPORT_ARG
@CONFIG_OPT
def check(export: Path | None, config_path: Path | None) -> None:
    """Read EXPORT and list every problem; exit 1 when there is any."""
    config = load_config(config_path)
    export = _export_path(export, config)
    board = count_export(config, export)
    _report(board, export)
    if board.problems:
        sys.exit(EXIT_PROBLEMS)


@main.command()
@click.argument("agent")
@EXPORT_ARG
@CONFIG_OPT
@click.option("--json", "as_json", is_flag=True, help="Print the runs as ledger rows (runs.json format).")
def history(agent: str, export: Path | None, config_path: Path | None, as_json: bool) -> None:
    """List AGENT's runs oldest to newest (AGENT: its name, id or slug)."""
    config = load_config(config_path)
    board = count_export(config, _export_path(export, config))
    key = _find_agent(board, agent)
    records = [r for r in reversed(board.runs) if r.run.agent == key and r.kind != "not_a_run"]
    if as_json:
        click.echo(dump_json([ledger_row(r) for r in records]).decode("utf-8"), nl=False)
    else:
        click.echo(history_table(records))


def _find_agent(board: Leaderboard, wanted: str) -> str:
    agents = board.agents
    for match in (lambda a: a.agent == wanted, lambda a: a.slug == wanted, lambda a: a.name == wanted,
                  lambda a: a.name.casefold() == wanted.casefold()):
        found = [a for a in agents if match(a)]
        if len(found) == 1:
            return found[0].agent
        if len(found) > 1:
            ids = ", ".join(a.agent for a in found)
            raise PodiumError(f"agent {wanted!r} is ambiguous ({ids}); pass its id")
    known = ", ".join(a.name for a in agents) or "none"
    raise PodiumError(f"no agent {wanted!r} in this export (agents: {known})")
