"""README badge geometry: the flat two-part badge people know, sized for its text.

A badge is shown as an ``<img>`` in someone else's README, where the site's own
font cannot load, so it uses Verdana (11 px, then Geneva, DejaVu Sans) and sizes
each half from Verdana's advance widths. ``textLength`` pins each text to that
width, so a fallback font still fits.
"""

from __future__ import annotations

from dataclasses import dataclass

PAD = 6  # px of space each side of a text
LABEL = "podium"
# Verdana advance widths at 11 px (ASCII); anything else counts as a wide glyph.
_WIDTHS = {
    " ": 3.87,
    "!": 4.33,
    "#": 9.0,
    "%": 11.87,
    "(": 4.54,
    ")": 4.54,
    "+": 9.0,
    ",": 3.64,
    "-": 4.33,
    ".": 3.64,
    "/": 4.87,
    ":": 4.54,
    "?": 5.96,
    "_": 7.0,
    "·": 3.64,
    "–": 7.0,
    "—": 11.0,
}
_WIDTHS.update(dict.fromkeys("0123456789", 7.0))
_WIDTHS.update(
    zip(
        "abcdefghijklmnopqrstuvwxyz",
        (
            6.66,
            6.82,
            5.73,
            6.82,
            6.55,
            3.87,
            6.82,
            6.96,
            3.02,
            3.79,
            6.5,
            3.02,
            10.66,
            6.96,
            6.67,
            6.82,
            6.82,
            4.69,
            5.73,
            4.33,
            6.96,
            6.5,
            9.0,
            6.5,
            6.5,
            5.73,
        ),
    )
)
_WIDTHS.update(
    zip(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        (
            7.51,
            7.55,
            7.68,
            8.48,
            6.96,
            6.32,
            8.53,
            8.27,
            4.62,
            4.98,
            7.62,
            6.12,
            9.27,
            8.23,
            8.66,
            6.63,
            8.66,
            7.65,
            7.51,
            6.78,
            8.05,
            7.51,
            10.87,
            7.53,
            6.78,
            7.53,
        ),
    )
)
WIDE = 11.0


def text_width(text: str) -> float:
    """Estimated width of ``text`` in Verdana 11 px."""
    return round(sum(_WIDTHS.get(ch, WIDE if ord(ch) > 0x7F else 7.0) for ch in text), 2)


@dataclass(frozen=True)
class Badge:
    label: str
    value: str
    title: str  # the <title>: who, the median, its CI, the rank, how many runs
    tone: str  # "ranked", "provisional" (ranked on fewer than 6 runs in the median) or "none" (no median)
    label_width: float
    value_width: float
    label_text: float  # textLength of each text
    value_text: float

    @property
    def width(self) -> float:
        return self.label_width + self.value_width


def badge(label: str, value: str, title: str, tone: str) -> Badge:
    lt, vt = text_width(label), text_width(value)
    return Badge(label, value, title, tone, round(lt + 2 * PAD), round(vt + 2 * PAD), lt, vt)
