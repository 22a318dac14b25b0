"""Pages that agree with each other (issue 36 item 6): an agent page warns of a model change only when the
harness reported different models (a declared name beside the reported one, or runs that never reached their
agent, are none), and the models page folds the keys that hold no run in a median into one line."""

from __future__ import annotations

import sitekit as kit
from exportkit import env_failure, graded, run_id


def _export(export):
    n = 0

    def add(agent, values, **kw):
        nonlocal n
        for x in values:
            n += 1
            rid = run_id(f"cons{n}")
            export.run(graded(rid, det=x, judge=x, **kw), rid=rid, agent=agent, mission="m1", version="1.0.0")

    add("same", [0.5, 0.625, 0.75], model="x-declared", models_reported=["x"])  # declared name != reported one
    add("same", [0.5, 0.625], model="x", models_reported=["x"])
    n += 1
    export.run(env_failure(run_id(f"cons{n}")), rid=run_id(f"cons{n}"), agent="same", mission="m1", version="1.0.0")
    add("changed", [0.5, 0.625, 0.75], models_reported=["x"])
    add("changed", [0.25, 0.375], models_reported=["y"])
    export.sidecars()
    return export.root


def test_the_model_warning_needs_two_reported_models_and_empty_keys_fold(export, tmp_path):
    files = kit.site_files(kit.build(_export(export), tmp_path / "site", root=tmp_path))

    def warnings(page: str) -> list[str]:
        doc = kit.parse_html(files[page].decode())
        return [" ".join(p.text().split()) for p in doc.all("p") if p.get("class") == "warn"]

    assert not [w for w in warnings("agents/same/index.html") if "differ in model" in w]
    (warning,) = [w for w in warnings("agents/changed/index.html") if "differ in model" in w]
    assert warning.startswith("The runs differ in model: x, y (as the harness reported them).")

    models = kit.parse_html(files["models/index.html"].decode())
    cards = [" ".join(h.text().split()) for h in models.all("h2") if h.parent.get("class") == "card-head"]
    assert cards == ["x", "y"]  # model-a (declared), from the environment failure alone, has no card
    (folded,) = [p for p in models.all("p") if "empty-keys" in (p.get("class") or "")]
    text = " ".join(folded.text().split())
    assert text.startswith("1 more model key holds no run in a median") and "model-a (declared) 1 run" in text
