"""Redaction costs work linear in the answers (issue 33, 1; issue 34, 5), counted, never timed by a wall clock.

Before, the cache's screen made a regular expression of every answer learned so far each time 64 more
arrived (N answers: ~N²/64 patterns built; 10k runs with a flag each took 67.7 s cold against 16.7 s
without the cache), and past ~500 answers on one mission the trie-shaped expression fell back to trying
every spelling at every position. Now every value is one automaton (safety/redact.py ``Literals``), made
once a build: these tests count the automata made and the characters they were made of, and time (CPU
time of this process) a text's redaction as the number of answers doubles.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cputime import least_cpu

from podium.build import build_site
from podium.config import Config
from podium.safety.redact import Literals, Redaction

REPO = Path(__file__).resolve().parents[2]


class Counted:
    """Literals.made and Literals.characters spent inside a with block."""

    def __enter__(self):
        self.made, self.characters = Literals.made, Literals.characters
        return self

    def __exit__(self, *exc):
        self.made, self.characters = Literals.made - self.made, Literals.characters - self.characters


def _per_run(n: int, missions: int = 10) -> dict[str, set[str]]:
    return {f"m{k}": {f"FLAG{{run_{i:08x}{k}}}" for i in range(k, n, missions)} for k in range(missions)}


def test_a_redaction_makes_one_automaton_whatever_the_number_of_answers():
    counts = {}
    for n in (500, 1000, 2000):
        with Counted() as counted:
            redaction = Redaction(["conf1gured-literal"], _per_run(n))
            assert redaction.mission("m3")("x FLAG{run_000000033} y") == "x [REDACTED:value] y"
            assert redaction.anywhere("FLAG{run_000000077}") == "[REDACTED:value]"
        counts[n] = counted
    assert all(c.made <= 2 for c in counts.values()), {n: c.made for n, c in counts.items()}  # (+ the configured)
    assert counts[1000].characters <= 2.1 * counts[500].characters
    assert counts[2000].characters <= 2.1 * counts[1000].characters


def _export(tmp: Path, runs: int) -> Path:
    out = tmp / f"export{runs}"
    subprocess.run(
        [sys.executable, str(REPO / "scripts" / "make_export.py"), str(out), "--runs", str(runs), "--per-run-answers"],
        check=True,
        capture_output=True,
    )
    return out


def test_a_cold_build_with_the_cache_makes_automata_linear_in_the_runs(tmp_path):
    """One distinct answer per run: the build's automata (the redaction's one, and a run's own values where
    its texts hold them) grow with the runs, not with their square as the screen's remade patterns did."""
    counts = {}
    for runs in (60, 120, 240):
        export = _export(tmp_path, runs)
        config = Config(source="", root=tmp_path, out=tmp_path / f"site{runs}")
        with Counted() as counted:
            build_site(config, export, cache_dir=tmp_path / f"cache{runs}")
        counts[runs] = counted
    made = {runs: c.made for runs, c in counts.items()}
    characters = {runs: c.characters for runs, c in counts.items()}
    assert made[120] <= 2.3 * made[60] and made[240] <= 2.3 * made[120], made
    assert characters[120] <= 2.3 * characters[60] and characters[240] <= 2.3 * characters[120], characters


def _crafted(n: int) -> set[str]:
    """Answers made to defeat a trie: prefixes shared and branching at every depth (issue 34, 5's shape)."""
    return {"q" * (i % 97) + f"-{i:05d}!answer" for i in range(n)} | {"Z" * (16 + i % 61) for i in range(n // 10)}


def test_a_thousand_crafted_answers_on_one_mission_cost_a_text_what_a_few_do():
    text = ("q" * 90 + "-00042!answ3r and Z" * 7 + " some judge prose, ") * 300  # ~64 KiB
    times, counts = {}, {}
    for n in (1000, 2000, 4000):
        with Counted() as counted:
            redact = Redaction([], {"m": _crafted(n)}).mission("m")
        counts[n] = counted
        times[n] = least_cpu(redact, text)
    assert all(c.made == 1 for c in counts.values())
    assert counts[4000].characters <= 4.4 * counts[1000].characters  # the answers' length, once
    floor = 0.005  # seconds: below this a ratio is timer noise
    assert times[4000] < 2 * max(times[1000], floor), times  # the answers' number does not show in a text's cost
