"""write/hosts.py's message when a site would not fit: advice that can help (issue 34 item 7)."""

from __future__ import annotations

import pytest

from podium.write.hosts import Host, Meter, OverBudget

RUN = "runs/" + "ab" * 16 + "/index.html"


def message(host: Host, files: list[tuple[str, bytes]], groups: list[int]) -> str:
    meter = Meter(host, groups=groups)
    with pytest.raises(OverBudget) as err:
        list(meter.watch(files))
    return err.value.message


def test_a_file_over_its_limit_is_named_and_fewer_run_pages_are_not_advised():
    """A 28 MB progress file on Cloudflare Pages once got "`run_pages: {newest: N}` … about N = 6500 would fit":
    no number of run pages makes that file smaller."""
    host = Host("cf", "Cloudflare Pages", max_files=100_000, max_file_bytes=1_000)
    files = [(RUN.replace("ab", f"{i:02x}", 1), b"x" * 100) for i in range(50)]
    files += [("api/results/progress/kestrel.json", b"x" * 5_000)]
    text = message(host, files, groups=[50])
    assert "api/results/progress/kestrel.json is 5.0 kB, over the 1.0 kB per-file limit" in text
    assert (
        "`run_pages` in podium.yaml keeps fewer run pages; it does not make api/results/progress/kestrel.json" in text
    )
    assert "about N =" not in text and "{newest: N}" not in text


def test_a_site_over_its_total_still_gets_the_run_pages_advice():
    host = Host("tiny", "Tiny host", max_bytes=3_000)
    files = [(RUN.replace("ab", f"{i:02x}", 1), b"x" * 100) for i in range(50)] + [("index.html", b"x" * 500)]
    text = message(host, files, groups=[25, 25])
    assert "`run_pages: {newest: N}`" in text and "about N = " in text
    assert "does not make" not in text
