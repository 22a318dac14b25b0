"""The second layer against leaks: redact secret-shaped text before it is published.

The first layer is never reading or publishing the secret-bearing parts at all
(xorcise-export.md). This layer rewrites, in every piece of free text a page
shows: provider token shapes, bearer tokens, private keys, JWTs, credentials in
URLs, ``password=…``-style pairs, flag-shaped strings, the run's own submitted
check values, and literal values configured under ``redact:`` (also in their
base64, URL-encoded and JSON-escaped forms).
"""

from __future__ import annotations

import base64
import json
import re
from urllib.parse import quote

MIN_LITERAL = 6  # shorter values would redact ordinary words

_SHAPES = [
    ("private-key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)")),
    ("aws-key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})")),
    ("api-key", re.compile(r"\bsk-[A-Za-z0-9_-]{16,}")),
    ("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    # A JWT starts a run of token characters: with a bare \b every "-eyJ" inside a long
    # run would be a new start that rescans the run (quadratic time on hostile text).
    ("jwt", re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*")),
    ("flag", re.compile(r"\b(?:FLAG|flag|Flag|CTF|ctf)\{[^}\n]{1,200}\}")),
]
_BEARER = re.compile(r"(?i)\b(bearer|token)(\s+)[A-Za-z0-9._~+/=-]{12,}")
_KEYWORD = re.compile(
    r"(?i)\b(password|passwd|pwd|secret|api[_-]?key|access[_-]?key|auth[_-]?token|client[_-]?secret)"
    r"(\s*[=:]\s*)(\"[^\"\n]*\"|'[^'\n]*'|[^\s,;]+)")
# The scheme must start its run of scheme characters (linear time, see the jwt shape).
_USERINFO = re.compile(r"(?i)(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*://)[^/\s@:]+(?::[^/\s@]*)?@")


def literal_forms(values: tuple[str, ...] | list[str]) -> list[str]:
    """Each value as written, base64-encoded, URL-encoded and JSON-escaped (long enough ones)."""
    forms: set[str] = set()
    for value in values:
        if len(value) < MIN_LITERAL:
            continue
        raw = value.encode("utf-8", "surrogatepass")
        forms.update({value, base64.b64encode(raw).decode(), quote(value, safe=""), json.dumps(value)[1:-1]})
    return sorted((f for f in forms if len(f) >= MIN_LITERAL), key=lambda f: (-len(f), f))


class Redactor:
    """Rewrites text; one per build (configured literals) extended per run (its check values)."""

    def __init__(self, values: tuple[str, ...] = ()):
        self.values = tuple(values)
        self.literals = literal_forms(self.values)
        self._literal_re = _alternation(self.literals)
        self._runs: dict[tuple[str, ...], Redactor] = {}

    def for_run(self, secrets: tuple[str, ...]) -> "Redactor":
        """This redactor plus one run's own secrets (its submitted check values)."""
        if not secrets:
            return self
        if secrets not in self._runs:
            self._runs[secrets] = Redactor(self.values + secrets)
        return self._runs[secrets]

    def __call__(self, text: str) -> str:
        if not text:
            return text
        if self._literal_re is not None:
            text = self._literal_re.sub("[REDACTED:value]", text)
        for name, pattern in _SHAPES:
            text = pattern.sub(f"[REDACTED:{name}]", text)
        text = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}[REDACTED:token]", text)
        text = _KEYWORD.sub(lambda m: f"{m.group(1)}{m.group(2)}[REDACTED:keyword]", text)
        return _USERINFO.sub(r"\1", text)


def _alternation(literals: list[str]):
    if not literals:
        return None
    return re.compile("|".join(re.escape(v) for v in literals))
