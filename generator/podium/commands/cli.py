"""The ``podium`` command: thin Click commands over build.py.

Exit codes: 0 success; 1 problems found (``check``, or ``build --strict``);
2 bad usage, config or export location; 3 the build failed while writing.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import click

from podium import __version__, routes
from podium.build import Built, build_site
from podium.cache.store import DEFAULT_DIR as DEFAULT_CACHE
from podium.commands.progress_bar import Progress
from podium.config import Config, load_config
from podium.count.diff import diff_files
from podium.errors import EXIT_PROBLEMS, PodiumError
from podium.model import Leaderboard, Outline, agents_named
from podium.render.compare_data import full_pair
from podium.render.compare_terminal import model_table, pair_text
from podium.render.data import dump_json, publish, ranked_agents
from podium.render.progress_data import progress_bytes
from podium.render.text import cost_table, history_steps, history_table, rank_table
from podium.views import public_comparisons, public_view
from podium.words.diff_text import gate_line, to_markdown
from podium.words.figures_text import rank_text
from podium.write.hosts import HOSTS

CONFIG_HELP = "Settings file (default: ./podium.yaml when it exists)."
EXPORT_ARG = click.argument("export", nargs=-1, type=click.Path(path_type=Path))
CONFIG_OPT = click.option("--config", "config_path", type=click.Path(path_type=Path), help=CONFIG_HELP)


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def say(text: str) -> None:
    """One line to stderr, control characters escaped (no CI workflow command can be formed)."""
    click.echo(_CONTROL.sub(lambda m: repr(m.group())[1:-1], text), err=True)


def _export_path(export: tuple[Path, ...], config: Config) -> list[Path]:
    """The export directories to read: the command line's, else podium.yaml's ``export:``."""
    paths = list(export or config.export)
    if not paths:
        raise PodiumError("no export given: pass EXPORT or set `export:` in podium.yaml")
    return paths


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _report(board: Leaderboard | Outline, export: list[Path]) -> None:
    for note in board.notes:
        say(f"note: {note}")
    for problem in board.problems:
        say(f"problem: {problem}")
    counts = ", ".join(f"{n} {k}" for k, n in board.totals.counts.items() if n)
    say(
        f"podium: {', '.join(map(str, export))}: {board.totals.runs} runs ({counts or 'none'}); "
        f"{board.totals.not_a_run} not a run; {len(board.problems)} problem(s)"
    )


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="podium")
def main() -> None:
    """Publish XORCISE run results as a static leaderboard site."""


@main.command()
@EXPORT_ARG
@click.option("--out", type=click.Path(path_type=Path), help="Output directory (default: site).")
@CONFIG_OPT
@click.option(
    "--theme-dir", type=click.Path(path_type=Path), help="Templates and static files that override the theme."
)
@click.option("--strict", is_flag=True, help="Exit 1 and write nothing when any problem is found.")
@click.option(
    "--previous",
    type=click.Path(path_type=Path),
    help="The previous publish (its summary.json, or the built site directory): publish what changed.",
)
@click.option(
    "--cache-dir",
    type=click.Path(path_type=Path),
    help="The build cache (default: .podium-cache beside the output directory).",
)
@click.option("--no-cache", is_flag=True, help="Neither read nor write the build cache.")
@click.option(
    "--host",
    type=click.Choice(list(HOSTS)),
    default=None,
    help="Fail when the site would not fit this host (overrides `host:` in podium.yaml).",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes for run pages (default: the machine's cores).",
)
@click.option("--quiet", "-q", is_flag=True, help="Print only errors (problems are still in summary.json).")
@click.option("--verbose", "-v", is_flag=True, help="Also print the size of each section and the largest files.")
@click.option(
    "--explain",
    is_flag=True,
    help="Print why each page was rendered again (a new page, its run, report, template or settings "
    "changed, ...) and a count per reason.",
)
def build(
    export: tuple[Path, ...],
    out: Path | None,
    config_path: Path | None,
    theme_dir: Path | None,
    strict: bool,
    previous: Path | None,
    cache_dir: Path | None,
    no_cache: bool,
    host: str | None,
    jobs: int | None,
    quiet: bool,
    verbose: bool,
    explain: bool,
) -> None:
    """Build the site from EXPORT... (default: `export:` in podium.yaml; a run in several exports counts once,
    from the last)."""
    if quiet and (verbose or explain):
        raise click.UsageError(f"--quiet and --{'verbose' if verbose else 'explain'} exclude each other")
    config = load_config(config_path, {"out": out, "theme_dir": theme_dir, "host": host})
    given = export
    export = _export_path(export, config)
    bar = None if quiet else Progress()
    try:
        built = build_site(
            config,
            export,
            strict=strict,
            previous=previous,
            progress=bar,
            cache_dir=None if no_cache else (cache_dir or config.out.parent / DEFAULT_CACHE),
            jobs=jobs or _cores(),
            explain=explain,
        )
    finally:
        if bar is not None:
            bar.finish()
    if not quiet:
        _report(built.outline, export)
        for warning in built.warnings:
            say(f"warning: {warning}")
    if built.target is None:
        say("podium: --strict: problems found; nothing was written")
        sys.exit(EXIT_PROBLEMS)
    if quiet:
        return
    for note in built.notes:
        say(f"note: {note}")
    meter = built.meter
    if (verbose or explain) and built.damaged:
        rows = ", ".join(f"{count:,} {row}" for row, count in built.damaged)
        say(
            f"podium: cache: {sum(count for _, count in built.damaged):,} damaged row(s) ignored and made again "
            f"({rows})"
        )
    if verbose:
        for line in built.outline.details:  # the site's sections and largest files (kept when nothing changed)
            say(f"podium:   {line}")
        say(f"podium:   {built.rendered:,} pages rendered, {built.reused:,} unchanged ones reused from the last build")
    if explain:
        _explain(built)
    if built.board is None:
        say(
            f"podium: nothing changed since the last build; {built.target} stays as it was "
            f"({built.outline.summary or f'{built.files} files'})"
        )
    else:
        say(f"podium: wrote {meter.summary() if meter else built.files} to {built.target}")
    say(where_to_look(built.target, given, config_path, theme_dir))


def where_to_look(target: Path, export: Sequence[Path], config_path: Path | None, theme_dir: Path | None) -> str:
    """The build's last line: the page to open, or the ``podium serve`` command that previews the same site."""
    serve = ["podium", "serve", *map(str, export)]
    if config_path is not None:
        serve += ["--config", str(config_path)]
    if theme_dir is not None:
        serve += ["--theme-dir", str(theme_dir)]
    return f"podium: open {target / routes.HOME} in a browser, or preview the site with `{shlex.join(serve)}`"


def _explain(built: Built) -> None:
    """``build --explain``: why the build went on, each page rendered again and why, a count per reason."""
    if built.board is None:
        say(
            "podium: explain: nothing to render again: no input changed since the last build, "
            "and the site is as it left it"
        )
        return
    say(f"podium: explain: the build went on: {'; '.join(built.build_why)}")
    counts: Counter[str] = Counter()
    for path, why in built.why:
        say(f"podium: explain: {path}: {'; '.join(why)}")
        counts.update(why)
    reasons = ", ".join(f"{n:,} {reason}" for reason, n in counts.most_common())
    say(
        f"podium: explain: {len(built.why):,} page(s) rendered again"
        + (f" ({reasons})" if reasons else "")
        + f"; {built.reused:,} reused"
    )


@main.command()
@click.argument("old", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the change report as JSON instead of Markdown.")
@click.option(
    "--fail-on-drop",
    "drops",
    multiple=True,
    metavar="AGENT=PP",
    help="Exit 1 when AGENT's median dropped by more than PP percentage points "
    "(AGENT: id, slug or name; * for every agent). Repeatable.",
)
def diff(old: Path, new: Path, as_json: bool, drops: tuple[str, ...]) -> None:
    """Report what changed from OLD to NEW (each a summary.json or a built site directory).

    Exit 0; 1 when a --fail-on-drop gate trips; 2 when an input is not a podium summary.
    """
    warnings: list[str] = []
    report, results = diff_files(old, new, drops, warnings)
    for warning in warnings:
        say(f"podium diff: warning: {warning}")
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
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print summary.json's `agents` list, each with its `cost` (`by_model` with --by model; [] when empty).",
)
@click.option(
    "--by",
    "by",
    type=click.Choice(["agent", "model", "cost"]),
    default="agent",
    show_default=True,
    help="Rank agents, or the models their harnesses reported (runs on current mission versions); "
    "cost: the agents with their median tokens and time a run, and whether each is on the cost frontier.",
)
def rank(export: tuple[Path, ...], config_path: Path | None, as_json: bool, by: str) -> None:
    """Print the agents (or models) ranked by median, as on the site."""
    config = load_config(config_path)
    board = public_view(config, _export_path(export, config))
    if by == "model":
        _print_ranked(board.by_model, as_json, model_table)
    elif by == "cost" and not as_json:
        _print_ranked(board.agents, False, lambda agents: cost_table(agents, board))
    else:  # --json: summary.json's agents, the same bytes, each with its cost (docs/rules/cost.md §6)
        _print_ranked(ranked_agents(board) if as_json else board.agents, as_json, rank_table)


def _print_ranked(ranked: Sequence, as_json: bool, as_table: Callable[..., str]) -> None:
    """``podium rank``'s output, by agent or by model: the JSON list (as summary.json publishes each), the table,
    or why there is none."""
    if as_json:
        click.echo(dump_json(publish(ranked)).decode("utf-8"), nl=False)
    elif not ranked:
        click.echo("no finished runs yet — nothing to rank")
    else:
        click.echo(as_table(ranked))


@main.command()
@EXPORT_ARG
@CONFIG_OPT
def check(export: tuple[Path, ...], config_path: Path | None) -> None:
    """Read EXPORT and list every problem; exit 1 when there is any."""
    config = load_config(config_path)
    export = _export_path(export, config)
    board = public_view(config, export)
    _report(board, export)
    if board.problems:
        sys.exit(EXIT_PROBLEMS)


@main.command()
@click.argument("agent")
@EXPORT_ARG
@CONFIG_OPT
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the agent's progress file (api/results/progress/<slug>.json), byte for byte.",
)
def history(agent: str, export: tuple[Path, ...], config_path: Path | None, as_json: bool) -> None:
    """List AGENT's runs oldest to newest, then which way it is moving (AGENT: its name, id or slug)."""
    config = load_config(config_path)
    board = public_view(config, _export_path(export, config))
    key = _find_agent(board, agent)
    if as_json:
        click.echo(progress_bytes(board.progress[key]).decode("utf-8"), nl=False)
        return
    records = [r for r in reversed(board.runs) if r.agent == key and r.kind != "not_a_run"]
    click.echo(history_table(records) + "\n" + history_steps(board.progress[key]))


@main.command()
@click.argument("agent_a")
@click.argument("agent_b")
@EXPORT_ARG
@CONFIG_OPT
@click.option("--json", "as_json", is_flag=True, help="Print the pair's entry, with every shared version.")
def compare(agent_a: str, agent_b: str, export: tuple[Path, ...], config_path: Path | None, as_json: bool) -> None:
    """Compare two agents head to head on the mission versions they share (each: name, id or slug; any order)."""
    config = load_config(config_path)
    board, pair_of = public_comparisons(config, _export_path(export, config))
    first, second = _find_agent(board, agent_a), _find_agent(board, agent_b)
    if first == second:
        raise PodiumError(f"{agent_a!r} and {agent_b!r} are the same agent; name two")
    pair = pair_of(first, second)
    if pair is None:
        names = {a.agent: a.name for a in board.agents}
        raise PodiumError(
            f"no comparison of {names[first]!r} and {names[second]!r}: they share no current mission "
            "version on which both have runs in the median"
        )
    if as_json:
        click.echo(dump_json(full_pair(pair)).decode("utf-8"), nl=False)
    else:
        ranks = {a.agent: rank_text(a.rank, a.provisional, a.figures.in_median) for a in board.agents}
        click.echo(pair_text(pair, ranks.get(pair.a), ranks.get(pair.b)))


def _find_agent(board: Leaderboard, wanted: str) -> str:
    found = agents_named(wanted, board.agents)
    if len(found) == 1:
        return found[0].agent
    if found:
        raise PodiumError(f"agent {wanted!r} is ambiguous ({', '.join(a.agent for a in found)}); pass its id")
    known = ", ".join(a.name for a in board.agents) or "none"
    raise PodiumError(f"no agent {wanted!r} in this export (agents: {known})")


@main.command()
@EXPORT_ARG
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="Port to listen on (0: any free port).",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on. Only loopback unless you name another address here.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    help="Build into this directory (default: a temporary one, removed on exit).",
)
@CONFIG_OPT
@click.option(
    "--theme-dir", type=click.Path(path_type=Path), help="Templates and static files that override the theme."
)
def serve(
    export: tuple[Path, ...], port: int, host: str, out: Path | None, config_path: Path | None, theme_dir: Path | None
) -> None:
    """Build, serve the site on 127.0.0.1 and rebuild when the export, content, theme or config changes."""
    from podium.commands.serve import serve as run_server

    run_server(config_path, export, host=host, port=port, out=out, theme_dir=theme_dir, say=say, jobs=_cores())
