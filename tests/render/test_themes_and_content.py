"""Theme chains and content pages (themes/README.md; README "Configuration"; site.md "<page>/index.html").

Theme lookup, most specific first: the override directory (``theme_dir``) -> the
chosen theme -> the themes it ``extends`` -> ``default``; ``default:NAME`` always
names the default theme's own template; static files resolve the same way, file by
file. Every layer below marks the pages it provides with a ``<meta name="layer">``,
so a test reads which layer won from the built page itself.

Content pages: ``*.md`` with front matter (title, slug, order, template); every
error stops the build naming the file and the key.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sitekit as kit
from click.testing import CliRunner
from exportkit import graded, run_id

from podium import routes
from podium.build import build_site
from podium.commands.cli import main
from podium.config import Config
from podium.errors import ConfigError
from podium.render.templates import builtin_themes, static_files, theme_chain

DEFAULT = builtin_themes() / "default"


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def marker(layer: str, name: str) -> str:
    """A template that extends the default's own ``name`` and marks the page with its layer."""
    return (
        f'{{% extends "default:{name}" %}}'
        f'{{% block head %}}{{{{ super() }}}}<meta name="layer" content="{layer}">{{% endblock %}}'
    )


def layers(doc: kit.Document) -> list[str]:
    return [m.get("content") for m in doc.all("meta") if m.get("name") == "layer"]


def small_export(export):
    export.run(graded(run_id(1), det=0.5, judge=0.5))
    export.sidecars()
    return export


def build_pages(export, out: Path, **config) -> dict[str, kit.Document]:
    kit.build(export.root, out, **config)
    return {path: kit.parse_html(text) for path, text in kit.pages(kit.site_files(out)).items()}


def cli(args, cwd: Path, monkeypatch):
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


# ================================================================ theme chains


@pytest.fixture
def project(tmp_path) -> Path:
    """A project with themes/child (extends parent) and themes/parent, and an override directory.

    404.html:      override, child, parent  -> override wins
    runs.html:     child, parent            -> child wins over the theme it extends
    missions.html: parent                   -> the extended theme wins over default
    index.html:    nobody                   -> default
    """
    root = tmp_path / "project"
    child, parent, override = root / "themes" / "child", root / "themes" / "parent", root / "override"
    write(child / "theme.yaml", "name: child\nextends: parent\n")
    write(parent / "theme.yaml", "name: parent\n")
    for layer, directory, names in (
        ("override", override, ["404.html"]),
        ("child", child, ["404.html", "runs.html"]),
        ("parent", parent, ["404.html", "runs.html", "missions.html"]),
    ):
        for name in names:
            write(directory / "templates" / name, marker(layer, name))
    return root


def test_theme_chain_order_override_theme_extended_default(project):
    chain = theme_chain("child", [project / "themes", builtin_themes()], project / "override")
    assert chain == [project / "override", project / "themes" / "child", project / "themes" / "parent", DEFAULT]


def test_a_theme_without_extends_ends_at_default(project):
    assert theme_chain("parent", [project / "themes", builtin_themes()]) == [project / "themes" / "parent", DEFAULT]
    assert theme_chain("default", [project / "themes", builtin_themes()]) == [DEFAULT]


def test_the_most_specific_layer_wins_page_by_page(project, export):
    site = build_pages(
        small_export(export), project / "site", root=project, theme="child", theme_dir=project / "override"
    )
    assert layers(site["404.html"]) == ["override"]
    assert layers(site["runs/index.html"]) == ["child"]
    assert layers(site["missions/index.html"]) == ["parent"]
    assert layers(site["index.html"]) == []
    # Every page is still the default page underneath: one <main>, the nav.
    for doc in site.values():
        assert len(doc.all("main")) == 1 and len(doc.all("nav")) >= 1


def test_an_override_base_extends_the_default_base_it_replaces(project, export):
    # themes/README.md: `default:NAME` names the default theme's own template, so base.html can extend itself.
    write(
        project / "override" / "templates" / "base.html",
        '{% extends "default:base.html" %}'
        "{% block title %}Branded · {{ super() }}{% endblock %}"
        '{% block head %}<meta name="layer" content="override-base">{% endblock %}',
    )
    site = build_pages(
        small_export(export), project / "site", root=project, theme="child", theme_dir=project / "override"
    )
    for path, doc in site.items():
        (title,) = doc.head().iter("title")
        assert title.text().startswith("Branded · "), path
        assert len(doc.all("main")) == 1, path
    # The ledger page comes from child, which extends default:runs.html, which extends "base.html": the
    # override's, which extends default:base.html. child's head block calls super(): both markers, base first.
    assert layers(site["runs/index.html"]) == ["override-base", "child"]
    assert layers(site["index.html"]) == ["override-base"]


@pytest.mark.parametrize(
    "themes, chosen, named",
    [
        pytest.param({"a": "b", "b": "a"}, "a", ["a"], id="a-b-a"),
        pytest.param({"a": "a"}, "a", ["a"], id="a-a"),
        pytest.param({"a": "b", "b": "c", "c": "b"}, "a", ["b"], id="a-b-c-b"),
    ],
)
def test_an_extends_cycle_is_a_config_error(tmp_path, themes, chosen, named):
    root = tmp_path / "project"
    for name, parent in themes.items():
        write(root / "themes" / name / "theme.yaml", f"extends: {parent}\n")
        (root / "themes" / name / "templates").mkdir(parents=True)
    with pytest.raises(ConfigError) as caught:
        theme_chain(chosen, [root / "themes", builtin_themes()])
    message = str(caught.value.message)
    assert "extends" in message
    assert all(repr(n) in message for n in named), message


def test_an_extends_cycle_names_every_theme_in_it(tmp_path):
    root = tmp_path / "project"
    for name, parent in {"a": "b", "b": "a"}.items():
        write(root / "themes" / name / "theme.yaml", f"extends: {parent}\n")
        (root / "themes" / name / "templates").mkdir(parents=True)
    with pytest.raises(ConfigError) as caught:
        theme_chain("a", [root / "themes", builtin_themes()])
    assert "'a'" in caught.value.message and "'b'" in caught.value.message


def test_an_extends_cycle_exits_2_from_the_cli_and_writes_nothing(tmp_path, export, monkeypatch):
    root = tmp_path / "project"
    write(root / "themes" / "a" / "theme.yaml", "extends: b\n")
    write(root / "themes" / "b" / "theme.yaml", "extends: a\n")
    for name in "ab":
        write(root / "themes" / name / "templates" / "404.html", marker(name, "404.html"))
    write(root / "podium.yaml", "theme: a\n")
    write(root / "override" / "templates" / "index.html", marker("override", "index.html"))
    small_export(export)
    result = cli(["build", export.root, "--out", root / "site", "--theme-dir", root / "override"], root, monkeypatch)
    assert result.exit_code == 2, result.output
    assert "theme 'a'" in result.output and "extends" in result.output
    assert not (root / "site").exists()


@pytest.mark.parametrize(
    "theme_yaml, missing",
    [
        (None, "nope"),  # the chosen theme does not exist
        ("extends: ghost\n", "ghost"),  # the chosen theme extends one that does not exist
    ],
)
def test_a_missing_theme_is_named(tmp_path, export, monkeypatch, theme_yaml, missing):
    root = tmp_path / "project"
    chosen = "nope"
    if theme_yaml is not None:
        chosen = "real"
        write(root / "themes" / "real" / "theme.yaml", theme_yaml)
        (root / "themes" / "real" / "templates").mkdir(parents=True)
    with pytest.raises(ConfigError) as caught:
        theme_chain(chosen, [root / "themes", builtin_themes()])
    assert f"theme {missing!r} not found" in caught.value.message
    assert str(root / "themes") in caught.value.message  # where it was looked for

    write(root / "podium.yaml", f"theme: {chosen}\n")
    result = cli(["build", small_export(export).root, "--out", root / "site"], root, monkeypatch)
    assert result.exit_code == 2 and f"theme {missing!r} not found" in result.output
    assert not (root / "site").exists()


def test_a_theme_yaml_whose_extends_is_not_a_name_is_refused(tmp_path):
    root = tmp_path / "project"
    write(root / "themes" / "a" / "theme.yaml", "extends: [b, c]\n")
    (root / "themes" / "a" / "templates").mkdir(parents=True)
    with pytest.raises(ConfigError, match="theme.yaml: extends: expected a theme name"):
        theme_chain("a", [root / "themes", builtin_themes()])


def test_static_files_resolve_file_by_file(project, export):
    write(project / "override" / "static" / "podium.css", "/* override css */\n")
    write(project / "themes" / "child" / "static" / "podium.css", "/* child css */\n")
    write(project / "themes" / "child" / "static" / "brand.svg", "<svg xmlns='http://www.w3.org/2000/svg'/>\n")
    write(project / "themes" / "parent" / "static" / "brand.svg", "<svg id='parent'/>\n")
    write(project / "themes" / "parent" / "static" / "extra.css", "/* parent extra */\n")

    chain = theme_chain("child", [project / "themes", builtin_themes()], project / "override")
    files = static_files(chain)
    assert files["podium.css"] == project / "override" / "static" / "podium.css"
    assert files["brand.svg"] == project / "themes" / "child" / "static" / "brand.svg"
    assert files["extra.css"] == project / "themes" / "parent" / "static" / "extra.css"
    assert files["podium.js"] == DEFAULT / "static" / "podium.js"

    out = project / "site"
    kit.build(small_export(export).root, out, root=project, theme="child", theme_dir=project / "override")
    published = kit.site_files(out)
    assert published["assets/podium.css"] == b"/* override css */\n"
    assert published["assets/brand.svg"] == b"<svg xmlns='http://www.w3.org/2000/svg'/>\n"
    assert published["assets/extra.css"] == b"/* parent extra */\n"
    # Everything not overridden still comes from default, byte for byte.
    for path in sorted((DEFAULT / "static").rglob("*")):
        rel = path.relative_to(DEFAULT / "static").as_posix()
        if path.is_file() and rel != "podium.css":
            assert published[f"assets/{rel}"] == path.read_bytes(), rel


# ================================================================ content pages


def content_build(export, tmp_path, pages: dict[str, str | bytes]):
    content = tmp_path / "content"
    for name, text in pages.items():
        write(content / name, text)
    return build_pages(small_export(export), tmp_path / "site", content=content)


def build_error(export, tmp_path, pages: dict[str, str | bytes]) -> str:
    with pytest.raises(ConfigError) as caught:
        content_build(export, tmp_path, pages)
    assert not (tmp_path / "site").exists()
    return caught.value.message


def nav(doc: kit.Document) -> list[tuple[str, str]]:
    (navigation,) = [n for n in doc.all("nav") if n.get("aria-label") == "Site"]
    return [(a.text().strip(), a.get("href")) for a in navigation.iter("a")]


def test_a_content_page_is_published_at_its_slug_and_in_the_nav_by_order(export, tmp_path):
    # Orders that contradict the alphabet: the nav follows `order` (default 100), not the titles.
    site = content_build(
        export,
        tmp_path,
        {
            "guide.md": "---\ntitle: Reading the board\norder: 5\n---\n# Medians\n\nText.\n\n## Ranges\n\nMore.\n",
            "faq.md": "---\ntitle: Questions\nslug: faq-page\norder: 20\n---\nAnswers.\n",
            "zz-notes.md": "No front matter at all.\n",  # title from the file name, order 100
            "about.md": "---\ntitle: About\norder: 200\n---\nLast.\n",
        },
    )
    assert {"reading-the-board/index.html", "faq-page/index.html", "zz-notes/index.html", "about/index.html"} <= set(
        site
    )
    expected = [
        ("Agents", "index.html"),
        ("Missions", "missions/index.html"),
        ("Compare", "compare/index.html"),
        ("Models", "models/index.html"),
        ("All runs", "runs/index.html"),
        ("Reading the board", "reading-the-board/index.html"),
        ("Questions", "faq-page/index.html"),
        ("Zz notes", "zz-notes/index.html"),
        ("About", "about/index.html"),
    ]
    assert nav(site["index.html"]) == expected
    # From a page one level down, the same entries link relatively.
    assert nav(site["faq-page/index.html"])[0] == ("Agents", "../index.html")

    page = site["reading-the-board/index.html"]
    (h1,) = page.all("h1")  # the content's own "# Medians" is demoted: the page keeps one <h1>
    assert h1.text().strip() == "Reading the board"
    assert [h.text() for h in page.all("h2")] == ["Medians"]
    assert [h.text() for h in page.all("h3")] == ["Ranges"]
    (title,) = page.head().iter("title")
    assert title.text().startswith("Reading the board")


def test_content_markdown_keeps_raw_html_escaped(export, tmp_path):
    site = content_build(export, tmp_path, {"a.md": "---\ntitle: A\n---\n<script>alert(1)</script>\n"})
    page = site["a/index.html"]
    assert "<script>alert(1)</script>" in page.text()
    assert all(s.get("src") for s in page.all("script"))  # only the site's own script, no inline one


@pytest.mark.parametrize(
    "name, text, key, words",
    [
        ("unknown.md", "---\ntitle: A\ntitel: B\n---\nx\n", "titel", "unknown key"),
        ("title.md", "---\ntitle: 5\n---\nx\n", "title", "expected a string"),
        ("title-list.md", "---\ntitle: [a, b]\n---\nx\n", "title", "expected a string"),
        ("slug.md", "---\ntitle: A\nslug: 7\n---\nx\n", "slug", "expected a string"),
        ("order.md", "---\ntitle: A\norder: first\n---\nx\n", "order", "expected a whole number"),
        ("order-float.md", "---\ntitle: A\norder: 1.5\n---\nx\n", "order", "expected a whole number"),
        ("order-bool.md", "---\ntitle: A\norder: true\n---\nx\n", "order", "expected a whole number"),
        ("template-path.md", "---\ntitle: A\ntemplate: partials/cards.html\n---\nx\n", "template", "file name"),
        ("template-up.md", "---\ntitle: A\ntemplate: ../base.html\n---\nx\n", "template", "file name"),
        ("template-default.md", '---\ntitle: A\ntemplate: "default:page.html"\n---\nx\n', "template", "file name"),
        ("open.md", "---\ntitle: A\n\nbody, and the front matter never closes\n", "front matter", "never ends"),
        ("mapping.md", "---\n- a\n- b\n---\nx\n", "front matter", "expected a mapping"),
    ],
)
def test_a_front_matter_error_names_the_file_and_the_key(export, tmp_path, name, text, key, words):
    message = build_error(export, tmp_path, {name: text, "fine.md": "---\ntitle: Fine\n---\nok\n"})
    assert name in message and key in message and words in message, message
    assert "fine.md" not in message


def test_a_content_file_that_is_not_utf8_is_named(export, tmp_path):
    message = build_error(export, tmp_path, {"latin.md": "---\ntitle: Café\n---\nx\n".encode("latin-1")})
    assert "latin.md" in message and "not UTF-8" in message


def test_every_content_error_is_reported_at_once(export, tmp_path):
    message = build_error(export, tmp_path, {"one.md": "---\ntitle: 1\n---\n", "two.md": "---\norder: x\n---\n"})
    assert "one.md" in message and "two.md" in message


@pytest.mark.parametrize(
    "front, slug",
    [
        ("slug: agents", "agents"),
        ("slug: runs", "runs"),
        ("slug: api", "api"),
        ("slug: missions", "missions"),
        ("slug: assets", "assets"),
        ('slug: "404"', "404"),
        ("slug: Runs", "runs"),
        ("title: API", "api"),
        ("title: Agents", "agents"),
    ],
)
def test_a_reserved_slug_is_refused(export, tmp_path, front, slug):
    message = build_error(export, tmp_path, {"mine.md": f"---\n{front}\n---\nx\n"})
    assert "mine.md" in message and f"{slug!r}" in message and "reserved" in message


@pytest.mark.parametrize("section", sorted(s for s in routes.SECTIONS if "." not in s))
def test_every_route_of_the_site_is_refused_as_a_content_slug(export, tmp_path, section):
    """Issue 19.1: the reserved slugs are the first segments of routes.py's routes, so `compare`, `models`,
    `changes` and `badges` are refused at load like `agents` (they once passed and failed while writing)."""
    message = build_error(export, tmp_path, {"mine.md": f'---\nslug: "{section}"\n---\nx\n'})
    assert "mine.md" in message and f"{section!r}" in message and "reserved" in message


def test_a_content_page_on_a_route_stops_the_cli_with_exit_2_naming_the_file(export, tmp_path, monkeypatch):
    small_export(export)
    write(tmp_path / "content" / "compare.md", "---\ntitle: Compare\n---\nours\n")
    write(tmp_path / "podium.yaml", f"export: {export.root}\ncontent: content\nout: site\n")
    result = cli(["build"], tmp_path, monkeypatch)
    assert result.exit_code == 2 and "compare.md" in result.output and "reserved" in result.output
    assert not (tmp_path / "site").exists()


def test_every_path_of_a_site_is_one_of_the_routes(export, tmp_path):
    """Every file a site with every feature holds (feed, sitemap, badges, changes, redirects, assets, content)
    starts with a segment routes.py lists, or is a content page: a route added outside routes.py fails here."""
    small_export(export)
    content = tmp_path / "content"
    write(content / "guide.md", "---\ntitle: Guide\n---\nx\n")
    kit.build(export.root, tmp_path / "first", content=content, base_url="https://x.example/")
    config = Config(source="", root=tmp_path, out=tmp_path / "site", content=content, base_url="https://x.example/")
    build_site(config, export.root, previous=tmp_path / "first")
    paths = [p.relative_to(tmp_path / "site").as_posix() for p in (tmp_path / "site").rglob("*") if p.is_file()]
    first = {p.split("/")[0].removesuffix(".html") for p in paths if p != ".podium-site"}
    assert {"badges", "changes", "feed.xml", "sitemap.xml", "assets", "guide"} <= first
    assert first - {"guide", "about"} <= routes.SECTIONS, first - routes.SECTIONS  # about: podium's own content page


def test_two_pages_with_one_slug_are_refused_naming_both(export, tmp_path):
    message = build_error(
        export,
        tmp_path,
        {
            "a-first.md": "---\ntitle: Guide\n---\nx\n",  # slug from the title: guide
            "b-second.md": "---\ntitle: Other\nslug: Guide\n---\ny\n",  # slugged: guide
        },
    )
    assert "a-first.md" in message and "b-second.md" in message and "'guide'" in message


def test_a_content_error_exits_2_from_the_cli(tmp_path, export, monkeypatch):
    root = tmp_path / "project"
    write(root / "content" / "bad.md", "---\ntitle: A\nfoo: 1\n---\nx\n")
    result = cli(["build", small_export(export).root, "--out", root / "site"], root, monkeypatch)
    assert result.exit_code == 2
    assert "bad.md" in result.output and "foo" in result.output
    assert not (root / "site").exists()
