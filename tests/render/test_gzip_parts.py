"""Gzipped parts are the same bytes in an incremental build as in a clean one, whatever zlib runs (issue 29
item 13).

Another zlib build (zlib-ng, a patched or hardware-assisted zlib) deflates the same input to other valid
bytes. The cache keeps each file's key and bytes, so a cached part made by one zlib was kept by a build on
a runner with another: that build then differed from a clean build there. The parts' keys and the whole
build's key now hold the compressor (render/gzipped.py ``compressor_fingerprint``), and the gzip header is written by
podium, not by zlib (whose header names the platform it was built for).

"Another zlib" is emulated here: zlib.compress and zlib.compressobj are made to deflate with Huffman codes
only (a valid stream every gunzip reads, other bytes than level 9's for any text with repeats), and its
version to read as zlib-ng's.
"""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

import pytest

from podium.build import build_site
from podium.config import load_config
from podium.render import gzipped

MAIN = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def fresh_fingerprint():
    gzipped.compressor_fingerprint.cache_clear()
    yield
    gzipped.compressor_fingerprint.cache_clear()


def other_zlib(monkeypatch, *, version: str | None = "1.3.1.zlib-ng", output: bool = True) -> None:
    """This process's zlib becomes another build: other deflate bytes (``output``), another version."""
    if output:
        real_compressobj = zlib.compressobj

        def compressobj(
            level=-1,
            method=zlib.DEFLATED,
            wbits=zlib.MAX_WBITS,
            memLevel=zlib.DEF_MEM_LEVEL,
            strategy=zlib.Z_DEFAULT_STRATEGY,
            *rest,
        ):
            return real_compressobj(level, method, wbits, memLevel, zlib.Z_HUFFMAN_ONLY, *rest)

        def compress(data, /, level=-1, wbits=zlib.MAX_WBITS):
            c = real_compressobj(level, zlib.DEFLATED, wbits, zlib.DEF_MEM_LEVEL, zlib.Z_HUFFMAN_ONLY)
            return c.compress(data) + c.flush()

        monkeypatch.setattr(zlib, "compressobj", compressobj)
        monkeypatch.setattr(zlib, "compress", compress)
    if version is not None:
        monkeypatch.setattr(zlib, "ZLIB_RUNTIME_VERSION", version)
    gzipped.compressor_fingerprint.cache_clear()


def build(out: Path, cache: Path | None) -> dict[str, bytes]:
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(MAIN)
        build_site(load_config(Path("podium.yaml"), {"out": out}), Path("content/demo-export"), cache_dir=cache)
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def gz(files: dict[str, bytes]) -> dict[str, bytes]:
    return {path: data for path, data in files.items() if path.endswith(".gz")}


def test_a_runner_with_another_zlib_builds_what_a_clean_build_there_does(tmp_path, monkeypatch):
    first = build(tmp_path / "site", tmp_path / "cache")  # this runner's zlib; the cache keeps its parts…
    build(tmp_path / "other", tmp_path / "restored-cache")  # …and so does this one (its bytes too)
    other_zlib(monkeypatch)
    clean = build(tmp_path / "clean", None)  # the other runner, from nothing
    assert gz(clean) and all(clean[p] != first[p] for p in gz(clean))  # its zlib really makes other bytes
    assert all(gzip.decompress(clean[p]) == gzip.decompress(first[p]) for p in gz(clean))  # of the same data
    # the previous site there, exactly as the last build left it, and nothing else changed: no early stop
    assert build(tmp_path / "site", tmp_path / "cache") == clean
    # CI: the cache restored, the site directory empty: no part written from the cache's copy of its bytes
    assert build(tmp_path / "restored", tmp_path / "restored-cache") == clean


def test_the_gzip_header_names_no_platform_time_or_file():
    data = b'{"run_id":"x"}\n' * 100
    out = gzipped.gzip_bytes(data)
    assert out[:10] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # OS 255 "unknown", not zlib's own code
    assert gzip.decompress(out) == data
    assert out[10:-8] == gzipped.deflate(data)  # the deflate stream is the one thing a compressor decides


@pytest.mark.parametrize("change", ["output", "version"])
def test_the_fingerprint_tells_compressors_apart(monkeypatch, change):
    """By what it makes of the probe (two builds of one version can differ), and by its version."""
    here = gzipped.compressor_fingerprint()
    assert gzipped.compressor_fingerprint() == here  # the same zlib: the same name
    other_zlib(monkeypatch, version=None if change == "output" else "1.3.1.zlib-ng", output=change == "output")
    assert gzipped.compressor_fingerprint() != here
