"""commands/watch.py (issue 27.4): what counts as an input, how a burst becomes one batch, when polling takes over.

In-process and quick: the end-to-end checks (a real `podium serve` in both modes) are in test_serve.py.
"""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest
from exportkit import ExportDir, graded, run_id

from podium.commands import watch
from podium.commands.watch import Inputs, Pending, Watcher, network_filesystem, notify_plan, temporary

WAIT = 30  # seconds: the longest one batch may take on a loaded machine


def test_temporary_names_are_dot_entries_and_editors_files():
    for name in (
        ".xorcise-export-x1y2",
        ".about.md.swp",
        "about.md~",
        "#about.md#",
        "4913",
        "5036",
        "about.md.swp",
        "page.html___jb_tmp___",
        "x.tmp",
        ".#about.md",
    ):
        assert temporary(name), name
    for name in ("about.md", "a41d07c2", "result.json", "4914", "4913a", "12345678", "page.html", "#tag"):
        assert not temporary(name), name


@pytest.fixture
def layout(tmp_path):
    """An export, a content directory, a theme tree with the output placed inside it, a config file."""
    root = tmp_path.resolve()
    for folder in ("export/a41d07c2", "content", "theme/templates", "theme/site", "theme/.podium-cache"):
        (root / folder).mkdir(parents=True)
    inputs = Inputs.of(
        exports=[root / "export"],
        trees=[root / "theme"],
        pages=[root / "content"],
        files=[root / "podium.yaml"],
        ignored=[root / "theme" / "site", root / "theme" / ".podium-cache"],
    )
    return root, inputs


def test_an_export_input_is_its_names_sidecars_and_each_runs_three_files(layout):
    root, inputs = layout
    export = f"{root}/export"
    for rel in (
        "",
        "/runs.json",
        "/agents.json",
        "/a41d07c2",
        "/a41d07c2/result.json",
        "/a41d07c2/report.md",
        "/a41d07c2/report.html",
        "/notes.txt",
        "/" + "ab" * 16 + "/result.json",
    ):
        assert inputs.relevant(export + rel), rel
    for rel in (
        "/a41d07c2/events.jsonl",
        "/a41d07c2/traces.otlp.jsonl",
        "/a41d07c2/extra/result.json",
        "/.xorcise-export-x1y2",
        "/.xorcise-export-x1y2/result.json",
        "/a41d07c2/.result.json.swp",
        "/a41d07c2/result.json~",
        "/not-a-run/result.json",
        "/4913",
    ):
        assert not inputs.relevant(export + rel), rel


def test_content_is_the_md_directly_inside_and_a_tree_is_every_file_but_output_and_cache(layout):
    root, inputs = layout
    assert inputs.relevant(f"{root}/content/about.md") and inputs.relevant(f"{root}/content")
    for rel in (
        "content/notes.txt",
        "content/drafts/later.md",
        "content/.about.md.swp",
        "content/about.md~",
        "content/#about.md#",
        "content/4913",
    ):
        assert not inputs.relevant(f"{root}/{rel}"), rel
    assert inputs.relevant(f"{root}/theme/templates/page.html") and inputs.relevant(f"{root}/theme/static/x.css")
    for rel in (
        "theme/site",
        "theme/site/index.html",
        "theme/.podium-cache/pages.sqlite",
        "theme/.git/HEAD",
        "theme/templates/.page.html.swp",
        "theme/templates/4913",
    ):
        assert not inputs.relevant(f"{root}/{rel}"), rel
    assert inputs.relevant(f"{root}/podium.yaml")
    assert not inputs.relevant(f"{root}/podium.yaml.bak~") and not inputs.relevant(f"{root}/site/index.html")
    assert not inputs.relevant(f"{root}/other.yaml")


def test_a_change_to_an_input_root_or_above_it_is_structural(layout):
    root, inputs = layout
    assert inputs.structural(f"{root}/export") and inputs.structural(str(root)) and inputs.relevant(str(root))
    assert not inputs.structural(f"{root}/export/a41d07c2/result.json")
    assert inputs.label(f"{root}/export/a41d07c2/result.json") == "export/a41d07c2/result.json"
    assert inputs.label(f"{root}/podium.yaml") == "podium.yaml"


def test_the_plan_watches_trees_whole_and_a_missing_input_through_the_directory_above(tmp_path):
    root = tmp_path.resolve()
    (root / "export" / "inner").mkdir(parents=True)
    inputs = Inputs.of(
        exports=[root / "export"],
        trees=[root / "export" / "inner", root / "a" / "b" / "themes"],
        pages=[root / "content"],
        files=[root / "podium.yaml"],
    )
    recursive, flat = notify_plan(inputs)
    assert recursive == [str(root / "export")]  # inner is covered by its export's watch
    assert flat == [str(root)]  # content/, a/b/themes and podium.yaml: all through the project directory


MOUNTS = """\
22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
40 22 0:35 / /mnt/nfs\\040share rw,relatime shared:20 - nfs4 server:/export rw,vers=4.2
41 40 8:2 / /mnt/nfs\\040share/local rw - ext4 /dev/sdb1 rw
42 22 0:36 / /mnt/c rw,noatime - 9p drvfs rw
"""


def test_network_file_systems_are_told_from_the_mount_that_holds_a_path():
    assert network_filesystem(["/home/x/export"], MOUNTS) is None
    assert network_filesystem(["/home/x", "/mnt/nfs share/runs"], MOUNTS) == ("/mnt/nfs share/runs", "nfs4")
    assert network_filesystem(["/mnt/nfs share/local/runs"], MOUNTS) is None  # a local mount inside it
    assert network_filesystem(["/mnt/c/Users/x"], MOUNTS) == ("/mnt/c/Users/x", "9p")
    assert network_filesystem(["/mnt/nfs shared"], MOUNTS) is None  # a prefix of the name is not inside it


def test_pending_gives_a_burst_as_one_batch_and_a_steady_stream_after_the_cap():
    pending, stop = Pending(), threading.Event()

    def burst():
        for n in range(20):
            pending.add([f"/x/{n}"])
            time.sleep(0.01)

    threading.Thread(target=burst).start()
    assert pending.take(stop, settle=0.2) == {f"/x/{n}" for n in range(20)}
    started = time.monotonic()

    def stream():
        while time.monotonic() - started < 1.5:
            pending.add([f"/y/{time.monotonic()}"])
            time.sleep(0.02)

    threading.Thread(target=stream).start()
    time.sleep(0.05)
    batch = pending.take(stop, settle=0.2, cap=0.5)
    assert batch and time.monotonic() - started < 1.2  # not held back until the stream ends
    stop.set()
    assert pending.take(stop, settle=0.2) is None


class Said(list):
    def __call__(self, line: str) -> None:
        self.append(line)


def take(watcher: Watcher, want: set[str] | None = None) -> set[str]:
    """Batches until they hold every path of ``want`` (or the first batch); fails after WAIT seconds."""
    stop, got = threading.Event(), set()
    timer = threading.Timer(WAIT, stop.set)
    timer.start()
    try:
        while True:
            batch = watcher.next_batch(stop)
            assert batch is not None, f"no change seen within {WAIT} s (got {got})"
            got |= set(batch)
            if want is None or want <= got:
                return got
    finally:
        timer.cancel()


@pytest.fixture
def project(tmp_path):
    root = tmp_path.resolve()
    export = ExportDir(root / "export")
    for n in range(40):
        rid = run_id(f"w{n}")
        export.run(graded(rid), rid=rid)
    export.sidecars()
    (root / "content").mkdir()
    (root / "content" / "about.md").write_text("---\ntitle: About\n---\nx\n")
    return root, export, Inputs.of(exports=[root / "export"], pages=[root / "content"], files=[root / "podium.yaml"])


@pytest.mark.parametrize("poll", [False, True])
def test_the_watcher_sees_an_in_place_edit_a_new_run_and_a_removed_one(project, poll):
    root, export, inputs = project
    said = Said()
    watcher = Watcher(inputs, said, poll=poll)
    try:
        assert watcher.mode == ("poll" if poll else "notify"), said
        rid = run_id("w7")
        result = root / "export" / rid[:8] / "result.json"
        data = result.read_bytes()
        result.write_bytes(data.replace(b'"overall":0.7', b'"overall":0.6'))  # same size, same inode
        assert take(watcher) == {str(result)}
        new = export.run(graded(run_id("new")), rid=run_id("new"))
        assert take(watcher, {f"{root}/export/{new[:8]}"}) >= {f"{root}/export/{new[:8]}"}
        victim = root / "export" / run_id("w3")[:8]
        for child in victim.iterdir():
            child.unlink()
        victim.rmdir()
        assert str(victim) in take(watcher, {str(victim)})
        (root / "podium.yaml").write_text("title: x\n")  # made after the watcher started
        assert take(watcher, {f"{root}/podium.yaml"}) == {f"{root}/podium.yaml"}
    finally:
        watcher.close()


def test_polling_checks_every_run_directory_in_slices_however_small(project):
    root, export, inputs = project
    watcher = Watcher(inputs, Said(), poll=True)
    poller = watcher.sources[0]
    poller.slice_s = 0.0  # one directory, then at most 32, a tick: a full round takes several ticks
    try:
        last = sorted(p for p in (root / "export").iterdir() if p.is_dir())[-1] / "result.json"
        last.write_bytes(last.read_bytes().replace(b'"overall":0.7', b'"overall":0.6'))  # in place
        assert take(watcher) == {str(last)}
    finally:
        watcher.close()


def test_polling_stays_within_its_slice(tmp_path):
    """A slice of 10 ms stops after about 10 ms however many directories are left (a 1M-run export)."""
    root = tmp_path.resolve() / "export"
    for n in range(3000):
        (root / f"{n:08x}").mkdir(parents=True)
        (root / f"{n:08x}" / "result.json").write_text("{}")
    watcher = Watcher(Inputs.of(exports=[root]), Said(), poll=True)
    poller = watcher.sources[0]
    watcher.close()  # its thread stops; the sweep is driven here
    runs = poller.runs[0]
    assert len(runs.names) == 3000 and all(runs.seen)
    started = time.process_time()  # (CPU time: a busy machine's wall clock counts other processes)
    poller._slice(time.monotonic())
    spent = time.process_time() - started
    assert 0 < runs.cursor < 3000 and spent < 0.1, (runs.cursor, spent)


def test_without_watchfiles_the_watcher_polls_and_says_why(project, monkeypatch):
    _, _, inputs = project
    monkeypatch.setitem(sys.modules, "watchfiles", None)  # import watchfiles: ImportError
    said = Said()
    watcher = Watcher(inputs, said)
    watcher.close()
    assert watcher.mode == "poll" and said == [
        "podium serve: watching the inputs by polling: watchfiles is not installed"
    ]


def test_notifications_that_cannot_start_fall_back_to_polling(project, monkeypatch):
    import watchfiles

    def refuse(*paths, **options):
        raise OSError("OS file watch limit reached")
        yield  # a generator, as watchfiles.watch is

    monkeypatch.setattr(watchfiles, "watch", refuse)
    said = Said()
    watcher = Watcher(project[2], said)
    watcher.close()
    assert watcher.mode == "poll" and "OS file watch limit reached" in said[0]


def test_a_network_file_system_is_polled(project, monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(watch, "network_filesystem", lambda paths: (next(iter(paths)), "nfs4"))
    said = Said()
    watcher = Watcher(project[2], said)
    watcher.close()
    assert watcher.mode == "poll" and "is on a network file system (nfs4)" in said[0]


def test_notifications_that_fail_while_running_hand_over_to_polling_as_a_change(project, monkeypatch):
    import watchfiles

    root, _, inputs = project
    failing = threading.Event()

    def flaky(*paths, stop_event, **options):
        yield set()  # watching has begun
        failing.wait(WAIT)
        raise RuntimeError("error in underlying watcher: queue overflow")

    monkeypatch.setattr(watchfiles, "watch", flaky)
    said = Said()
    watcher = Watcher(inputs, said)
    try:
        assert watcher.mode == "notify"
        failing.set()
        batch = take(watcher)  # the failure: every input, since events may have been lost
        assert watcher.mode == "poll" and str(root / "export") in batch
        assert (
            "by polling: notifications stopped working (RuntimeError: error in underlying watcher: queue overflow)"
            in said[-1]
        )
        (root / "content" / "about.md").write_text("---\ntitle: About\n---\ny\n")
        assert take(watcher) == {f"{root}/content/about.md"}  # and polling goes on seeing changes
    finally:
        watcher.close()


def test_a_replaced_export_directory_is_watched_again(project):
    root, _, inputs = project
    watcher = Watcher(inputs, Said(), poll=False)
    try:
        os.rename(root / "export", root / "old-export")
        (root / "export").mkdir()
        take(watcher, {f"{root}/export"})  # the new directory is watched once this batch is handed out
        fresh = root / "export" / run_id("fresh")[:8]
        fresh.mkdir()
        assert str(fresh) in take(watcher, {str(fresh)})
    finally:
        watcher.close()


def test_the_env_var_forces_polling(project, monkeypatch):
    monkeypatch.setenv("PODIUM_SERVE_POLL", "1")
    said = Said()
    watcher = Watcher(project[2], said)
    watcher.close()
    assert watcher.mode == "poll" and said == ["podium serve: watching the inputs by polling: PODIUM_SERVE_POLL is set"]
    monkeypatch.setenv("PODIUM_SERVE_POLL", "0")
    watcher = Watcher(project[2], Said())
    watcher.close()
    assert watcher.mode == "notify"
