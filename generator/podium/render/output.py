"""What the render stage hands the writer (write/site.py): each file as its site path and its bytes, or
:class:`Kept` for a file the previous build wrote with exactly the bytes this one would."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Kept:
    """An output file the previous build wrote with exactly the bytes this one would: left in place."""

    size: int

    def __len__(self) -> int:  # counted by the host budget like any file
        return self.size


SiteFile = tuple[str, bytes | Kept]  # a file on its way to the writer: its site path, its bytes or Kept
