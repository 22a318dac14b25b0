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
from podium.words import cost_text, diff_text, figures_text


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
    env.filters.update(
        pct=figures_text.pct,
        pct_range=figures_text.pct_range,
        points=figures_text.points,
        rate=figures_text.rate,
        n=figures_text.svg_number,
    )
    env.globals.update(routes=routes)  # every path a template links to by name (routes.LEDGER, ...)
    env.globals.update(
        kind_labels=KIND_LABELS,
        left_out=figures_text.left_out,
        ledger_text=cost_text.ledger_cells,
        provisional_note=figures_text.provisional_note,
        provisional_sentence=figures_text.provisional_sentence,
        provisional_below=PROVISIONAL_BELOW,
        judges_warning=figures_text.judges_warning,
    )
    env.filters.update(
        pp_delta=figures_text.pp_delta,
        count_delta=figures_text.count_delta,
        left_out_text=figures_text.left_out_text,
        ci_range=figures_text.ci_range,
        ci_text=figures_text.ci_range,
        n_runs=figures_text.n_runs,
        in_median=figures_text.in_median,
        counted=figures_text.counted,
    )
    env.globals.update(
        rank_move=figures_text.rank_move, verdicts=diff_text.VERDICTS, change_headline=diff_text.headline
    )
    env.filters.update(tokens=cost_text.tokens, duration=cost_text.duration)  # docs/rules/cost.md §6
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
