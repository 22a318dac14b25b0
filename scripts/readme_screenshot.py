"""The README's screenshot: the demo site's home page, light scheme, 1000 x 566 CSS pixels.

    python scripts/readme_screenshot.py [OUT]    # default: docs/images/home.png

Builds the demo (podium.yaml) into a temporary directory and takes the page with Playwright and
Debian's Chromium (/usr/bin/chromium, or PODIUM_CHROMIUM). The window shows the headline, the legend
and the first two agent cards; the PNG stays small (under 150 KB: tests/test_docs.py checks it).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VIEWPORT = {"width": 1000, "height": 566}
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def build_demo(out: Path) -> Path:
    from podium.build import build_site
    from podium.config import load_config

    os.chdir(ROOT)
    config = load_config(Path("podium.yaml"), {"out": out})
    return build_site(config, list(config.export), cache_dir=None).target


def screenshot(site: Path, png: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=os.environ.get("PODIUM_CHROMIUM", "/usr/bin/chromium"), args=FLAGS
        )
        try:
            page = browser.new_page(viewport=VIEWPORT, device_scale_factor=1, color_scheme="light")
            page.goto((site / "index.html").as_uri())
            page.screenshot(path=str(png))
        finally:
            browser.close()


def main(argv: list[str]) -> None:
    png = Path(argv[0]).resolve() if argv else ROOT / "docs" / "images" / "home.png"
    png.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        screenshot(build_demo(Path(work) / "site"), png)
    print(f"{png}: {png.stat().st_size:,} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])
