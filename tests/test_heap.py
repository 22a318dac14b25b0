"""heap.py: what the process freed is handed back to the system (glibc's malloc_trim), measured on this process's
own resident pages before and after, as a share of what was freed (no threshold that another process could move)."""

from __future__ import annotations

import os

import pytest

from podium import heap

PAGE = os.sysconf("SC_PAGE_SIZE")


def _resident() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * PAGE


@pytest.mark.skipif(heap._TRIM is None or not os.path.exists("/proc/self/statm"), reason="glibc on Linux only")
def test_freed_blocks_below_live_ones_are_given_back():
    """64 MB in 16 KB blocks (glibc's heap, under its mmap threshold), one in 64 kept: what free() leaves
    resident (only the top of the heap is given back by free alone), release() gives back."""
    blocks = [bytes(16 * 1024 - 64) for _ in range(4096)]
    kept = blocks[::64]
    del blocks
    before = _resident()
    released = heap.released
    heap.release()
    given_back = before - _resident()
    assert heap.released == released + 1
    assert given_back >= 0.5 * 63 / 64 * 4096 * 16 * 1024, given_back
    assert len(kept) == 64
