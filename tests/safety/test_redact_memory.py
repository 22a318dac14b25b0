"""What the redaction keeps is bounded per answer, counted, never read off a process's resident size (issue 33, 3).

The automaton of every answer (safety/redact.py ``Literals``) holds each spelling's last ``ANCHOR`` characters,
not the spelling, so what it holds grows with the number of spellings, not with their length; the spellings
computed while the export is read are forgotten once the build's redaction holds them.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from podium.config import Config
from podium.safety import redact
from podium.safety.redact import Literals, Redaction
from podium.views import count_runs, load_runs

REPO = Path(__file__).resolve().parents[2]


def _answers(n: int, length: int, missions: int = 5) -> dict[str, set[str]]:
    """``n`` per-run flags of ``length`` characters, spread over ``missions``."""

    def flag(i: int) -> str:
        body = "".join(hashlib.sha256(f"{i}:{k}".encode()).hexdigest() for k in range(length // 64 + 1))
        return f"FLAG{{{body[: length - 6]}}}"

    return {f"m{k}": {flag(i) for i in range(k, n, missions)} for k in range(missions)}


def _held(answers: dict[str, set[str]]) -> tuple[int, int, Redaction]:
    """The characters of the spellings the redaction's automata were made of, and of what they hold."""
    characters, held = Literals.characters, Literals.held
    redaction = Redaction([], answers)
    return Literals.characters - characters, Literals.held - held, redaction


def test_the_automaton_holds_an_anchor_of_each_spelling_whatever_its_length():
    short, long = _answers(300, 50), _answers(300, 500)
    short_characters, short_held, _ = _held(short)
    long_characters, long_held, redaction = _held(long)
    assert long_characters >= 8 * short_characters  # ten times longer spellings...
    assert long_held <= 1.1 * short_held  # ...the same anchors
    forms = len(redact.literal_forms([v for values in long.values() for v in values]))
    assert long_held <= redact.ANCHOR * forms
    value = sorted(long["m2"])[0]
    assert redaction.mission("m2")(f"it was {value}!") == "it was [REDACTED:value]!"
    assert redaction.mission("m2")(f"almost {value[:-2]}!") == f"almost {value[:-2]}!"


def test_a_build_forgets_each_values_spellings_once_its_redaction_holds_them(tmp_path):
    export = tmp_path / "export"
    subprocess.run(
        [sys.executable, str(REPO / "scripts" / "make_export.py"), str(export), "--runs", "120", "--per-run-answers"],
        check=True,
        capture_output=True,
    )
    config = Config(source="", root=tmp_path, out=tmp_path / "site")
    redact._encodings.cache_clear()
    loaded = load_runs(config, [export])
    assert redact._encodings.cache_info().currsize >= 30  # every answer's spellings, computed as it was read
    counted = count_runs(config, *loaded)
    assert redact._encodings.cache_info().currsize <= 5
    assert len(counted.redaction._every._lengths) >= 30 * 4  # (the redaction holds them)
