"""The process's heap: what a stage freed handed back to the operating system.

glibc's malloc keeps the memory a process frees for its next allocations; it gives back only a free stretch
at the top of its heap, so freed pages below a block still in use stay in the process's resident set
(and count in its PSS) until the process ends. A build frees a lot at once at a few points: the Aho–Corasick
automaton of every answer (safety/redact.py ``Literals``) is made through a larger intermediate one, ~2× its
size, freed when it is done; reading the export parses every result.json and keeps only compact records.
:func:`release` asks glibc to give back every free page (``malloc_trim(0)``: a walk over the heap's free
chunks, ~1 ms per 100 MB); elsewhere (another C library) it does nothing.
"""

from __future__ import annotations

import ctypes


def _trim_function():
    """glibc's ``malloc_trim``, from the symbols the process has loaded; None under another C library."""
    try:
        return getattr(ctypes.CDLL(None), "malloc_trim", None)
    except (OSError, TypeError):  # no dlopen(NULL) here (Windows)
        return None


_TRIM = _trim_function()
released = 0  # calls that asked the C library (tests count work)


def release() -> None:
    """Give back to the operating system the heap pages the process has freed (glibc; elsewhere nothing)."""
    global released
    if _TRIM is not None:
        released += 1
        _TRIM(0)
