"""The build settings: defaults <- podium.yaml <- command-line flags. Every error at once.

podium.yaml (all keys optional; paths are relative to the file)::

    title: "Agent results"          # site title
    base_url: "https://x.example/"  # only for canonical / Open Graph links
    export: content/demo-export     # the export a bare `podium build` reads
    out: site                       # output directory
    theme: default                  # a theme under themes/
    theme_dir: overrides            # templates/static files that win over the theme
    content: content                # Markdown pages (*.md with YAML front matter)
    missions:                       # pin a mission's current version
      jwt-none-bypass: {current: "1.3.0"}
    redact: ["literal secret"]      # extra strings removed from every page
    limits: {result_bytes: 4194304, report_bytes: 2097152, sidecar_bytes: 2147483648}
    host: github-pages              # fail the build when the site would not fit this host (write/hosts.py)
    run_pages: {newest: 20}         # run pages only for the newest N runs per agent and mission version
    search_engines: false           # robots.txt Disallow: / and a noindex meta on every page
    prices:                         # dollars beside tokens (docs/rules/cost.md §5), only with a dated table
      as_of: 2026-11-01             # when the prices were read (every dollar figure says so)
      source: "provider price pages"
      models:                       # by model key (docs/rules/compare.md §2), USD per 1M tokens
        gpt-5.5: {input: 1.25, output: 10.0, cache_read: 0.125, cache_creation: 1.25}

Direction: config reads podium.yaml with load's safe file and YAML readers, takes the
export limits' type from load/export/ and the host names from write/hosts.py; none of them
imports config (load/export/ is handed ``config.limits``), so every arrow points down.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
from dataclasses import dataclass, field
from dataclasses import fields as dc_fields
from pathlib import Path

from podium.errors import ConfigError
from podium.load.export import Limits
from podium.load.files import NotReadable, read_regular
from podium.load.yamlfile import YamlError, parse_yaml
from podium.model.cost import PRICE_FIELDS, Price, Prices
from podium.safety.redact import MIN_LITERAL
from podium.write.hosts import HOSTS

CONFIG_NAME = "podium.yaml"
CONFIG_MAX_BYTES = 1024 * 1024
MAX_EPOCH = 253402300799  # 9999-12-31T23:59:59Z


@dataclass(frozen=True)
class Config:
    source: str  # the config file as named in messages ("" when none)
    root: Path  # relative paths in the file resolve against this
    export: tuple[Path, ...] = ()  # one or more export directories, later ones win for a run in several
    out: Path = Path("site")
    title: str = "Agent results"
    base_url: str = ""
    theme: str = "default"
    theme_dir: Path | None = None
    content: Path | None = None
    missions: dict[str, str] = field(default_factory=dict)
    redact: tuple[str, ...] = ()
    limits: Limits = Limits()
    host: str = "none"  # a key of hosts.HOSTS
    run_pages: int | None = None  # None: a page for every run; N: the newest N per agent and mission version
    search_engines: bool = True
    prices: Prices | None = None  # None: no dollar figure anywhere (docs/rules/cost.md §5)


def load_config(path: Path | None, overrides: dict | None = None) -> Config:
    """Read ``path`` (or ./podium.yaml when it exists), apply flag ``overrides`` (None = unset)."""
    if path is None and Path(CONFIG_NAME).is_file():
        path = Path(CONFIG_NAME)
    data, root, source = {}, Path.cwd(), ""
    if path is not None:
        data, root, source = _read(path), path.resolve().parent, str(path)
    errors: list[str] = []
    values = _validate(data, root, errors)
    for key, value in (overrides or {}).items():
        if value is not None:
            values[key] = value
    if errors:
        raise ConfigError("\n".join(f"{source}: {e}" for e in errors))
    return Config(source=source, root=root, **values)


def _read(path: Path) -> dict:
    try:  # a regular file only (a FIFO or /dev/zero would hang or never end), at most CONFIG_MAX_BYTES
        text = read_regular(path, CONFIG_MAX_BYTES, follow=True).decode("utf-8-sig")
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except NotReadable as err:
        raise ConfigError(f"{path}: {err}") from None
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path}: cannot be read: {err}") from None
    try:
        data = parse_yaml(text)
    except YamlError as err:
        raise ConfigError(f"{path}: {err}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of settings at the top level")
    return data


def _validate(data: dict, root: Path, errors: list[str]) -> dict:
    known = {f.name for f in dc_fields(Config)} - {"source", "root"}
    for key in sorted(set(data) - known, key=str):
        errors.append(f"{key}: unknown setting (known: {', '.join(sorted(known))})")
    values: dict = {}
    for key in ("title", "base_url", "theme"):
        if key in data:
            values[key] = _string(data[key], key, errors)
    if values.get("base_url") and not values["base_url"].startswith(("https://", "http://")):
        errors.append(f"base_url: expected an absolute http(s) URL, got {values['base_url']!r}")
    if "export" in data:
        values["export"] = _exports(data["export"], root, errors)
    for key in ("out", "theme_dir", "content"):
        if key in data:
            text = _string(data[key], key, errors)
            values[key] = (root / text) if text else None
    if "missions" in data:
        values["missions"] = _missions(data["missions"], errors)
    if "redact" in data:
        items = data["redact"] if isinstance(data["redact"], list) else None
        if items is None:
            errors.append("redact: expected a list of strings")
        else:
            values["redact"] = tuple(s for i, v in enumerate(items) if (s := _string(v, f"redact[{i}]", errors)))
            for i, text in enumerate(items):  # (never quoted back: it is a secret)
                if isinstance(text, str) and text and len(text.strip()) < MIN_LITERAL:
                    errors.append(
                        f"redact[{i}]: a value of {len(text.strip())} character(s); podium redacts values of "
                        f"{MIN_LITERAL} characters or more (shorter ones would cut ordinary words), so this "
                        f"one would be published as it is: lengthen it or remove it"
                    )
    if "limits" in data:
        values["limits"] = _limits(data["limits"], errors)
    if "host" in data:
        values["host"] = _host(data["host"], errors)
    if "run_pages" in data:
        values["run_pages"] = _run_pages(data["run_pages"], errors)
    if "prices" in data:
        values["prices"] = _prices(data["prices"], errors)
    if "search_engines" in data:
        if isinstance(data["search_engines"], bool):
            values["search_engines"] = data["search_engines"]
        else:
            errors.append(f"search_engines: expected true or false, got {data['search_engines']!r}")
    return values


_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _prices(value, errors: list[str]) -> Prices | None:
    """``prices: {as_of, source, models: {<model key>: {input, output, cache_read, cache_creation}}}``: every
    field required (docs/rules/cost.md §5: dollars are dated and sourced, never a silent 0); a model key no
    run has is checked when the runs are counted (count/cost.py ``price_errors``)."""
    if not isinstance(value, dict):
        errors.append("prices: expected a mapping with as_of, source and models")
        return None
    before = len(errors)
    for key in sorted(set(value) - {"as_of", "source", "models"}, key=str):
        errors.append(f"prices.{key}: unknown field (known: as_of, source, models)")
    for key in ("as_of", "source", "models"):
        if key not in value:
            errors.append(
                f"prices.{key}: missing (required: the date the prices were read, where from, and the models)"
            )
    as_of = value.get("as_of")
    if isinstance(as_of, dt.datetime):
        as_of = as_of.date()
    if isinstance(as_of, dt.date):
        as_of = as_of.isoformat()
    elif "as_of" in value and not _is_date(as_of):
        errors.append(f"prices.as_of: expected a date (YYYY-MM-DD), got {as_of!r}")
    source = value.get("source")
    if "source" in value and (not isinstance(source, str) or not source.strip()):
        errors.append(f"prices.source: expected where the prices were read (a string), got {source!r}")
    models: dict[str, Price] = {}
    entries = value.get("models")
    if "models" in value and not isinstance(entries, dict):
        errors.append("prices.models: expected a mapping of model key to {input, output, cache_read, cache_creation}")
        entries = {}
    for key, entry in (entries or {}).items():
        if not isinstance(key, str):
            errors.append(f'prices.models.{key}: a model key is a string (quote it: "{key}")')
            continue
        price = _price(key, entry, errors)
        if price is not None:
            models[key] = price
    if len(errors) > before or not isinstance(as_of, str) or not isinstance(source, str):
        return None
    return Prices(as_of=as_of, source=source, models=models)


def _is_date(text: object) -> bool:
    """A real calendar date written YYYY-MM-DD."""
    if not isinstance(text, str) or _DATE.fullmatch(text) is None:
        return False
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _price(key: str, entry, errors: list[str]) -> Price | None:
    if not isinstance(entry, dict):
        errors.append(f"prices.models.{key}: expected {{{', '.join(f'{f}: USD per 1M tokens' for f in PRICE_FIELDS)}}}")
        return None
    numbers = {}
    for name in sorted(set(entry) - set(PRICE_FIELDS), key=str):
        errors.append(f"prices.models.{key}.{name}: unknown field (known: {', '.join(PRICE_FIELDS)})")
    for name in PRICE_FIELDS:
        if name not in entry:
            errors.append(f"prices.models.{key}.{name}: missing (USD per 1M tokens; write 0 for a free field)")
            continue
        number = entry[name]
        if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number) or number < 0:
            errors.append(f"prices.models.{key}.{name}: expected a number of USD per 1M tokens >= 0, got {number!r}")
            continue
        numbers[name] = float(number)
    return Price(**numbers) if len(numbers) == len(PRICE_FIELDS) else None


def _host(value, errors: list[str]) -> str:
    if isinstance(value, str) and value in HOSTS:
        return value
    errors.append(f"host: expected one of {', '.join(HOSTS)}, got {value!r}")
    return "none"


def _run_pages(value, errors: list[str]) -> int | None:
    """``all`` (the default) or ``{newest: N}`` with N a whole number >= 1."""
    if value == "all":
        return None
    newest = value.get("newest") if isinstance(value, dict) and set(value) == {"newest"} else None
    if isinstance(newest, bool) or not isinstance(newest, int) or newest < 1:
        errors.append(f"run_pages: expected `all` or {{newest: N}} with N a whole number of at least 1, got {value!r}")
        return None
    return newest


def _string(value, where: str, errors: list[str]) -> str:
    if isinstance(value, str):
        return value
    written = getattr(value, "text", value)  # a YAML float keeps the text it was written as
    hint = f' (quote it: "{written}")' if isinstance(value, (int, float)) and not isinstance(value, bool) else ""
    errors.append(f"{where}: expected a string, got {value!r}{hint}")
    return ""


def _missions(value, errors: list[str]) -> dict[str, str]:
    if not isinstance(value, dict):
        errors.append("missions: expected a mapping of mission slug to {current: VERSION}")
        return {}
    out = {}
    for slug, entry in value.items():
        if not isinstance(entry, dict) or set(entry) != {"current"}:
            errors.append(f'missions.{slug}: expected {{current: "VERSION"}}')
            continue
        version = _string(entry["current"], f"missions.{slug}.current", errors)
        if version:
            out[str(slug)] = version
    return out


def _exports(value, root: Path, errors: list[str]) -> tuple[Path, ...]:
    """``export:`` is one directory or a list of them (later exports win for a run found in several)."""
    if isinstance(value, list):
        texts = [_string(item, f"export[{i}]", errors) for i, item in enumerate(value)]
    else:
        texts = [_string(value, "export", errors)]
    return tuple(root / text for text in texts if text)


def _limits(value, errors: list[str]) -> Limits:
    if not isinstance(value, dict):
        errors.append("limits: expected a mapping")
        return Limits()
    known = {f.name for f in dc_fields(Limits)}
    numbers = {}
    for key, number in value.items():
        if key not in known:
            errors.append(f"limits.{key}: unknown limit (known: {', '.join(sorted(known))})")
        elif isinstance(number, bool) or not isinstance(number, int) or number <= 0:
            errors.append(f"limits.{key}: expected a positive whole number of bytes, got {number!r}")
        else:
            numbers[key] = number
    return Limits(**numbers)


def source_date_epoch() -> int | None:
    """SOURCE_DATE_EPOCH as an int, None when unset; a ConfigError when invalid."""
    raw = os.environ.get("SOURCE_DATE_EPOCH")
    if raw is None or raw == "":
        return None
    if not raw.isascii() or not raw.isdigit() or int(raw[:13]) > MAX_EPOCH:
        raise ConfigError(f"SOURCE_DATE_EPOCH: expected whole seconds since 1970 (up to {MAX_EPOCH}), got {raw!r}")
    return int(raw)
