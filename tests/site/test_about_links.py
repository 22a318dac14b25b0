"""Every figure's words are explained where they stand, by one link to their section of "About these numbers"
(issue 36 item 7): podium ships that page itself (podium/pages/about.md), so a site built with no content
directory has it too, with a section for every topic a page links to (routes.ABOUT_SECTIONS)."""

from __future__ import annotations

import sitekit as kit
from exportkit import graded, run_id

from podium import routes


def _small(export):
    for i, score in enumerate([0.2, 0.4, 0.6, 0.8, 0.9, 1.0, 0.5]):
        rid = run_id(f"about{i}")
        export.run(graded(rid, det=score, judge=score), rid=rid, agent="ab", mission="m1", version="1.0.0")
    export.sidecars()
    return export.root


def test_a_site_without_content_has_the_about_page_with_every_section(export, tmp_path):
    files = kit.site_files(kit.build(_small(export), tmp_path / "site", root=tmp_path))
    assert routes.ABOUT in files
    about = kit.parse_html(files[routes.ABOUT].decode())
    ids = set(about.ids())
    missing = {topic: anchor for topic, anchor in routes.ABOUT_SECTIONS.items() if anchor not in ids}
    assert not missing, f"sections a page links to that the about page lacks: {missing}"
    home = kit.parse_html(files["index.html"].decode())
    nav = [a.get("href") for a in home.all("a") if a.parent.tag == "li"]
    assert nav[-1] == "about/index.html"
    # the home page's figures link into it: "cut short" (and "completed" beside it) to how runs ended
    links = {a.text().strip(): a.get("href") for a in home.all("a")}
    assert links["cut short"] == "about/index.html#" + routes.ABOUT_SECTIONS["ended"]


def test_a_content_page_named_about_replaces_podiums_own(export, tmp_path):
    content = tmp_path / "content"
    content.mkdir()
    (content / "about.md").write_text("---\ntitle: Our board\nslug: about\n---\nOurs.\n", encoding="utf-8")
    files = kit.site_files(kit.build(_small(export), tmp_path / "site", root=tmp_path, content=content))
    about = kit.parse_html(files[routes.ABOUT].decode())
    assert "Ours." in about.text() and "median overall score" not in about.text()
    home = kit.parse_html(files["index.html"].decode())
    nav = [a.text().strip() for a in home.all("a") if a.parent.tag == "li"]
    assert nav.count("Our board") == 1 and "About these numbers" not in nav


def test_headings_of_a_content_page_have_ids_from_their_words(export, tmp_path):
    content = tmp_path / "content"
    content.mkdir()
    (content / "guide.md").write_text("# Ranges and intervals\n\nx\n\n## Ranges and intervals\n\ny\n", encoding="utf-8")
    files = kit.site_files(kit.build(_small(export), tmp_path / "site", root=tmp_path, content=content))
    guide = kit.parse_html(files["guide/index.html"].decode())
    assert [h.get("id") for h in guide.all("h2") + guide.all("h3")] == [
        "ranges-and-intervals",
        "ranges-and-intervals-2",
    ]
