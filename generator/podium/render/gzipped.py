"""Gzip files whose bytes are the same wherever the same compressor makes them, and that compressor's name.

Deflate's output is not defined by the format: zlib, zlib-ng (the zlib of Fedora, Arch and some Python
builds) and patched or hardware-assisted zlibs each compress the same input to other, equally valid
bytes. A cached part (cache/store.py keeps each file's key and bytes) made by one of them must not be kept by a
build that runs another, or an incremental build would differ from a clean one on the same runner. So:

- :func:`gzip_bytes` writes the gzip wrapper itself (no name, no time, OS "unknown", as Python's
  ``gzip`` does with ``mtime``): only the deflate stream depends on the compressor, not on the platform
  zlib was built for (zlib writes its own OS code: 3 on Unix, 19 on macOS, 10 on Windows);
- :func:`compressor_fingerprint` names the compressor: zlib's version strings (zlib-ng in compat mode says
  ``1.3.0.zlib-ng``) and the digest of what it makes of a fixed probe at the parts' settings, which also
  tells apart two builds that report one version. The gzipped parts' cache keys and the whole build's key
  hold it (render/site.py, build.py), so a runner with another compressor compresses every part again.

Why not bytes that no compressor decides (stored blocks, or a compressor of our own): stored blocks
would publish the ledger uncompressed (five times the bytes: a 1M-run site no longer fits GitHub Pages'
1 GB), and a deflate written in Python would take minutes over a 1M-run ledger where zlib takes seconds.
"""

from __future__ import annotations

import functools
import hashlib
import struct
import zlib

LEVEL = 9
MEM_LEVEL = 8  # zlib's default, said here so that a changed default cannot change the bytes unnoticed
# ID1 ID2, CM = deflate, FLG = none, MTIME = 0, XFL = 2 (maximum compression), OS = 255 (unknown)
HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"


def deflate(data: bytes) -> bytes:
    """A raw deflate stream of ``data``, at the parts' settings, by the zlib this Python runs."""
    compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS, MEM_LEVEL, zlib.Z_DEFAULT_STRATEGY)
    return compressor.compress(data) + compressor.flush()


def gzip_bytes(data: bytes) -> bytes:
    """``data`` gzipped (RFC 1952, one member): ``gzip.decompress`` gives it back."""
    return HEADER + deflate(data) + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


def _probe() -> bytes:
    """About 96 KB like a ledger part (JSON Lines of ids, names, scores and dates), the same on every machine
    (made from SHA-256, not from a random generator): long enough that compressors which match strings or
    cut blocks differently make different bytes of it."""
    lines = []
    for n in range(400):
        h = hashlib.sha256(str(n).encode()).hexdigest()
        lines.append(
            f'{{"run_id":"{h[:32]}","date":"2026-{1 + n % 12:02d}-{1 + n % 28:02d}T{n % 24:02d}:{h[32:34]}:'
            f'00Z","agent":"{h[40:48]}","agent_name":"agent {n % 17}","mission":"mission-{n % 5}",'
            f'"version":"1.{n % 3}.0","older":{"true" if n % 7 == 0 else "false"},"kind":"graded",'
            f'"overall":0.{int(h[50:54], 16)},"judge":{"null" if n % 9 == 0 else "0." + h[56:58]}}}'
        )
    return ("\n".join(lines) + "\n").encode("ascii")


@functools.cache
def compressor_fingerprint() -> str:
    """The compressor :func:`deflate` runs, as a cache key part: the same here and on another machine only
    when both make the same bytes of the probe and report the same zlib."""
    digest = hashlib.sha256(deflate(_probe())).hexdigest()
    ng = getattr(zlib, "ZLIBNG_VERSION", "")  # Python 3.14+ built on zlib-ng proper
    return f"zlib {zlib.ZLIB_RUNTIME_VERSION}{' zlib-ng ' + ng if ng else ''} probe {digest[:16]}"
