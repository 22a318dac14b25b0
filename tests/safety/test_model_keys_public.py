"""Model keys as published: slugs chosen in one pass, and made in time linear in the names (issue 34 items 3, 4).

- Item 3: a redacted by-model key's slug was ``slug(redacted) + "-" + sha256(raw)[:6]``, checked against
  nothing: a run reporting a key-shaped model and another reporting a model named like the first's slug made
  two pages on one path, and every build failed (exit 3); 4,000 distinct key-shaped names collided by chance.
  Now every key's slug is chosen in the one unique-slug pass (routes.unique_slugs); a redacted one is named in
  it by its oldest run, never by its text (whose digest would check a guess at a redacted answer).
- Item 4: ``model_key`` tried every redacted name on every text with ``str.replace``, re-sorting them on
  every call: 100 / 200 / 400 runs of 200 key-shaped names took 6 / 24 / 97 s. Now each distinct text is
  made once from its run's published names (safety/safe.py ``_ModelTexts``).
"""

from __future__ import annotations

import hashlib

import pytest
import sitekit as kit
from cputime import least_cpu
from exportkit import ExportDir, flood_names, graded, run_id

from podium import routes
from podium.count.summarize import summarize
from podium.load.export import load_export
from podium.safety.redact import Redaction
from podium.safety.safe import public_board

KEY = "sk-" + "Jq7Rk2Lm9Np4Xs8TWd3Fg6Hj1Kl5Zx0C"


def _public(export: ExportDir):
    board = summarize(load_export(export.sidecars().root))
    return board, public_board(board, Redaction(()))


def test_a_model_named_like_a_redacted_keys_slug_gets_its_own_page(tmp_path):
    """The collision of issue 34 item 3, built: before, both pages were ``models/redacted-api-key-<6 hex>/``."""
    export = ExportDir(tmp_path / "export")
    export.run(graded(run_id("secret"), models_reported=[KEY]), agent="osprey")
    board, public = _public(export)
    (redacted,) = public.by_model
    assert KEY not in redacted.model and KEY not in redacted.slug
    old_slug = f"{routes.slug(redacted.model)}-{hashlib.sha256(KEY.encode()).hexdigest()[:6]}"
    export.run(graded(run_id("twin"), models_reported=[old_slug]), agent="kestrel")
    export.run(graded(run_id("twin2"), models_reported=[redacted.slug]), agent="kestrel")
    board, public = _public(export)
    slugs = [m.slug for m in public.by_model]
    assert len(slugs) == len(set(slugs)) == 3
    assert {old_slug, redacted.slug} <= set(slugs)  # the plain names keep their plain slugs
    site = kit.build(export.root, tmp_path / "site")  # exit 3 before
    pages = kit.pages(kit.site_files(site))
    assert sum(path.startswith("models/") for path in pages) == 4
    assert not any(KEY in text for text in pages.values())


# Two key-shaped names whose SHA-256 digests share their first 6 hex digits (a02fc4), found by trying names:
# how 4,000 distinct ones collided by chance, as issue 34 found.
TWINS = ("sk-003631Jq7Rk2Lm9Np4Xs8TWd3Fg6Hj1Kl5Zx0C", "sk-005212Jq7Rk2Lm9Np4Xs8TWd3Fg6Hj1Kl5Zx0C")


def test_redacted_keys_whose_digests_collide_still_get_a_page_each(tmp_path, monkeypatch):
    """Two keys whose 6-digit digests are the same made one path before; and with every digest of the pass
    made to collide on its first digit (the rest zeros), 40 redacted keys still get a slug each."""
    assert len({hashlib.sha256(t.encode()).hexdigest()[:6] for t in TWINS}) == 1
    export = ExportDir(tmp_path / "twins")
    for n, name in enumerate(TWINS):
        export.run(graded(run_id(f"t{n}"), models_reported=[name]))
    _, public = _public(export)
    assert len({m.slug for m in public.by_model}) == 2
    real = routes._digest
    monkeypatch.setattr(routes, "_digest", lambda text, size: real(text, 1).ljust(size, "0"))
    export = ExportDir(tmp_path / "export")
    for n in range(40):
        export.run(graded(run_id(f"k{n}"), models_reported=[f"sk-{n:02d}" + "Jq7Rk2Lm9Np4Xs8TWd3Fg6Hj1Kl5Zx0C"]))
    _, public = _public(export)
    slugs = [m.slug for m in public.by_model]
    assert len(set(slugs)) == len(slugs) == 40
    assert all(s.startswith("redacted") for s in slugs)


def test_a_redacted_keys_slug_does_not_depend_on_its_text(tmp_path):
    """Named by its oldest run: the slug carries no digest of the redacted text (a guess at an answer could be
    checked against one), and stays where it is when the key's newer runs change."""
    export = ExportDir(tmp_path / "export")
    export.run(graded(run_id("one"), models_reported=[KEY]), at=1)
    _, public = _public(export)
    (first,) = public.by_model
    assert hashlib.sha256(KEY.encode()).hexdigest()[:6] not in first.slug
    export.run(graded(run_id("two"), models_reported=[KEY]), at=2)
    _, public = _public(export)
    assert [m.slug for m in public.by_model] == [first.slug]


@pytest.fixture(scope="module")
def flooded_boards(tmp_path_factory):
    """200 and 400 runs of 8 kept key-shaped names each (and the rest counted), one agent: every name redacted,
    one model key and one configuration per run."""
    boards = {}
    for runs in (200, 400):
        root = tmp_path_factory.mktemp(f"keys{runs}")
        export = ExportDir(root)
        for n in range(runs):
            export.run(graded(run_id(f"k{runs}-{n}"), models_reported=flood_names(n, 8, 51, "sk")), at=n)
        boards[runs] = summarize(load_export(export.sidecars().root))
    return boards


def test_publishing_model_keys_is_linear_in_the_names(flooded_boards):
    """The public board of twice the runs takes under three times the CPU time (quadratic: four times; before,
    200 runs took 0.8 s and 400 took 4.5 s here; now 0.04 s and 0.1 s)."""
    redaction = Redaction(())
    small, large = (least_cpu(public_board, flooded_boards[n], redaction) for n in (200, 400))
    assert large < 3 * max(small, 0.05), (small, large)
    public = public_board(flooded_boards[400], redaction)
    assert len({m.slug for m in public.by_model}) == 400
    assert not any("sk-" in m.model for m in public.by_model)
