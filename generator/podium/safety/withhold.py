"""What of a report.md is never published: the withholding contract.

XORCISE writes a report's sections in a fixed order (Overview, Scores,
Deterministic checks, Judge rubric, Artifacts, Terrain, Telemetry, Conditions)
as level-2 headings, and puts agent and judge text (artifact payloads in an
unhardened fence, rubric text and reasons, ``judge_detail``, terrain summary,
telemetry warnings, reported model names) only *inside* sections. So only that
structure is trusted, and only where an attacker cannot move it:

1. Every withheld range is computed on the ORIGINAL lines of the report (lines
   end at LF, CR or CRLF, as the Markdown parser splits them), and the text cut
   is the UNION of the ranges.
2. A range starts at the FIRST line that is an ATX heading of level 1 or 2 naming
   its section (any case, up to three leading spaces, optional closing ``#``s),
   and ends at the LAST such heading naming the section XORCISE writes after it
   (the first of the listed names that appears after the start; none: the end of
   the report). Fences, HTML blocks and link definitions are ignored: a fence
   cannot hide a boundary or forge one.
3. Forged text can therefore only make the cut larger: a forged start heading
   can only come before the real one, and a forged end heading can only be the
   last one if it comes after the real one. (This holds for reports that have
   XORCISE's section structure; when a section XORCISE always writes after a
   withheld one is missing, the cut runs to the next listed name or to the end.)

Withheld: the ``Deterministic checks`` section (its ``Value`` column holds the
submitted flags; the run page shows the checks from result.json without values)
and ``Artifacts`` together with ``Terrain`` (between it and ``Telemetry``). Each
cut range becomes one line saying what was withheld. Markdown is parsed only
after the cut, so a link definition inside a withheld range cannot be used by
published text.
"""

from __future__ import annotations

import re

# (section, the sections XORCISE writes after it, in order of preference for the end of the cut)
WITHHELD = (
    ("deterministic checks", ("judge rubric", "artifacts")),
    ("artifacts", ("telemetry", "conditions")),
)
LINE_BREAK = re.compile(r"\r\n?|\n")


def heading_name(line: str) -> str | None:
    """The lower-cased title of a level-1 or level-2 ATX heading line, else None.

    Up to three spaces, one or two ``#``, then a space or tab (or nothing but them), the
    title, and an optional closing run of ``#`` after a space or tab. String methods only, so
    linear in the line on any input (a pattern with a lazy title before optional closing
    hashes backtracked quadratically on ``## a`` + 50,000 spaces + ``b``: half a minute a
    line, hours for one agent artifact)."""
    rest = line.lstrip(" ")
    if len(line) - len(rest) > 3:
        return None
    title = rest.lstrip("#")
    if len(rest) - len(title) not in (1, 2) or (title and title[0] not in " \t"):
        return None
    title = title.strip(" \t")
    bare = title.rstrip("#")
    if bare and bare != title and bare[-1] in " \t":  # a closing sequence after a space or tab
        title = bare
    return title.strip().lower()


def withheld_ranges(lines: list[str]) -> list[tuple[int, int, str]]:
    """``(start, end, section)`` line ranges (end exclusive) to cut, each computed on ``lines``."""
    names = [heading_name(line) for line in lines]
    ranges = []
    for section, ends in WITHHELD:
        start = next((i for i, name in enumerate(names) if name == section), None)
        if start is None:
            continue
        end = len(lines)
        for following in ends:
            found = [i for i in range(start + 1, len(lines)) if names[i] == following]
            if found:
                end = found[-1]
                break
        ranges.append((start, end, section))
    return ranges


def withhold(text: str) -> str:
    """``text`` with the union of the withheld ranges cut, each cut run replaced by one note line."""
    lines = LINE_BREAK.split(text)
    ranges = withheld_ranges(lines)
    cut = [False] * len(lines)
    for start, end, _ in ranges:
        cut[start:end] = [True] * (end - start)
    starts = {start: section.capitalize() for start, _, section in ranges}
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not cut[i]:
            out.append(lines[i])
            i += 1
            continue
        j = i
        while j < len(lines) and cut[j]:
            j += 1
        names = " and ".join(starts[k] for k in sorted(starts) if i <= k < j)
        out += ["", f"*(Withheld here: {names}, which hold submitted values.)*", ""]
        i = j
    return "\n".join(out)
