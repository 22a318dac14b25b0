"""The Jinja2 environment and the theme chain.

Lookup, most specific first: the override directory (``theme_dir`` / ``--theme-dir``)
-> the chosen theme -> the themes it ``extends`` (theme.yaml) -> ``default``.
``default:base.html`` always names the default theme's own template, so an
override can extend the very template it replaces. Static files resolve the same
way, file by file. Templates are strict (``StrictUndefined``) and autoescaped
whatever their extension, ``.svg`` included.
"""

from __future__ import annotations

from pathlib import Path

import jinja2

import podium
from podium import routes
from podium.errors import ConfigError
from podium.load.yamlfile import YamlError, parse_yaml
from podium.model import KIND_LABELS, PROVISIONAL_BELOW
from podium.words import cost_text, diff_text, figures_text, names_text

# What a template may call besides Jinja's own filters and tests. themes/README.md "Filters and globals" is
# made from these two tables and their ``#:`` comments (tests/test_theme_contexts.py): a name added here
# needs its comment, and the README regenerated.
FILTERS = {  # `value|name` (or `value|name(argument)`) in a template -> the function it calls
    "pct": figures_text.pct,  #: a fraction as a percentage: `0.4375|pct` is "43.8%", None is "—"
    "pct_range": figures_text.pct_range,
    #: `low|pct_range(high)`: "43.8%", or "43.8–50.0%" when the upper bound differs
    "points": figures_text.points,  #: a gap in percentage points: `0.1625|points` is "16.3 pp"
    "rate": figures_text.rate,  #: a rate in whole percent: `0.92|rate` is "92%", None is "—"
    "n": figures_text.svg_number,  #: an SVG coordinate: at most two decimals (a NaN or infinity fails the build)
    "pp_delta": figures_text.pp_delta,  #: a signed change in percentage points: "+3.2 pp", "−0.4 pp", "±0.0 pp"
    "count_delta": figures_text.count_delta,  #: a signed count: "+3", "−2", "0"
    "left_out_text": figures_text.left_out_text,
    #: a change in the runs left out, by kind: "+2 no judge, −1 infra failed"
    "ci_range": figures_text.ci_range,  #: a 95% interval as "62.0%–71.0%"; "—" (or its argument) when there is none
    "ci_text": figures_text.ci_range,  #: `ci_range`'s older name, the same filter
    "n_runs": figures_text.n_runs,  #: a run count with its noun: `12|n_runs` is "12 runs", `1|n_runs` "1 run"
    "in_median": figures_text.in_median,  #: a `Figures`' runs in the median of all counted: "12 of 15 runs"
    "counted": figures_text.counted,  #: `3|counted("more agent")` is "3 more agents", `1|counted("agent")` "1 agent"
    "short_name": names_text.short_name,
    #: a model name or key where it is not the page's own: over 64 characters, its first 43 and last 20 around "…"
    "more_names": names_text.more_names,  #: a list's "and N more" tail ("" when none are left out)
    "utc_time": figures_text.utc_time,  #: an ISO-8601 UTC time to the minute: "2026-11-23 20:52 UTC"
    "coverage_text": figures_text.coverage_text,  #: an agent's `coverage` as a card heads it: "on 2 of 4 missions"
    "tokens": cost_text.tokens,  #: a token count as people read it: 950, "12.5k", "106k", "1.2M"; None is "—"
    "duration": cost_text.duration,  #: a run's time in seconds as "45 s", "14 min", "2.1 h"; None is "—"
}
GLOBALS = {  # a name every template can use -> its value
    "routes": routes,  #: every site path by name (`routes.LEDGER`, `routes.progress_path(slug)`): link through it
    "kind_labels": KIND_LABELS,  #: a run kind -> its label ("timed_out" -> "Timed out")
    "left_out": figures_text.left_out,  #: (kind, count, label) for each kind left out of a median that has runs
    "ledger_text": cost_text.ledger_cells,
    #: a run's overall, deterministic, judge, tokens and duration cells as the ledger shows them
    "provisional_note": figures_text.provisional_note,  #: "provisional, 1 run"
    "provisional_sentence": figures_text.provisional_sentence,  #: the line under a provisional rank's figure
    "provisional_below": PROVISIONAL_BELOW,
    #: the runs in the median a rank needs not to be provisional: never write the number in a template
    "judges_warning": figures_text.judges_warning,
    #: the sentence parts saying several models judged these runs, or none
    "rank_move": figures_text.rank_move,  #: "▲2", "▼1", "new", or "" when the rank did not move
    "verdicts": diff_text.ROW_VERDICT_WORDS,
    #: a change report row's verdict -> its words ("inside_both_cis" -> "inside both CIs: …")
    "change_headline": diff_text.change_headline,  #: a change report in one line, names, counts and numbers only
    "moving_now": diff_text.moving_now,
    #: a change report row's headline progress verdict at that publish: "▼ regressed since a new model"
    "about": routes.about,
    #: `about('ended')`: the site path of the section of "About these numbers" that explains a figure's words
    #: (topics: `routes.ABOUT_SECTIONS`); link a figure's words to it, never explain them in a tooltip alone
    "coverage_names": figures_text.coverage_names,
    #: the missions a card names of an agent's `coverage` (at most 5) and how many more
}


def builtin_themes() -> Path:
    """The themes shipped with podium: packaged beside the code, or the checkout's themes/."""
    packaged = Path(podium.__file__).parent / "themes"
    return packaged if packaged.is_dir() else Path(podium.__file__).parents[2] / "themes"


def theme_chain(theme: str, search: list[Path], override: Path | None = None) -> list[Path]:
    """Theme directories, most specific first, ending with ``default``."""
    chain: list[Path] = [override] if override is not None else []
    names: list[str] = []
    name: str | None = theme
    while name is not None:
        directory = next((base / name for base in search if (base / name / "templates").is_dir()), None)
        if directory is None:
            raise ConfigError(f"theme {name!r} not found in {', '.join(str(s) for s in search)}")
        if directory in chain:
            chain = names[names.index(name) :] + [name] if name in names else [name]
            cycle = " extends ".join(repr(n) for n in chain)
            raise ConfigError(f"theme {name!r} extends itself: {cycle}")
        chain.append(directory)
        names.append(name)
        parent = _theme_meta(directory).get("extends")
        name = parent if parent else (None if name == "default" else "default")
    return chain


def _theme_meta(directory: Path) -> dict:
    path = directory / "theme.yaml"
    if not path.is_file():
        return {}
    try:
        meta = parse_yaml(path.read_text(encoding="utf-8"))
    except (YamlError, OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: {err}") from None
    if meta is not None and not isinstance(meta, dict):
        raise ConfigError(f"{path}: expected a mapping")
    extends = (meta or {}).get("extends")
    if extends is not None and not isinstance(extends, str):
        raise ConfigError(f"{path}: extends: expected a theme name")
    return meta or {}


def make_environment(chain: list[Path]) -> jinja2.Environment:
    default = chain[-1]
    loader = jinja2.ChoiceLoader(
        [jinja2.FileSystemLoader(str(d / "templates")) for d in chain if (d / "templates").is_dir()]
        + [jinja2.PrefixLoader({"default": jinja2.FileSystemLoader(str(default / "templates"))}, delimiter=":")]
    )
    env = jinja2.Environment(
        loader=loader,
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # one environment per build: no stat of every template on every page
    )
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "allow_nan": False}
    env.filters.update(FILTERS)
    env.globals.update(GLOBALS)
    return env


def static_files(chain: list[Path]) -> dict[str, Path]:
    """Relative static path -> the file that wins (more specific themes override)."""
    files: dict[str, Path] = {}
    for directory in reversed(chain):
        static = directory / "static"
        if not static.is_dir():
            continue
        for path in sorted(static.rglob("*")):
            if path.is_file() and not path.is_symlink() and not any(p.startswith(".") for p in path.parts[-3:]):
                files[path.relative_to(static).as_posix()] = path
    return files
