import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the shared helpers (tests/*kit.py), whatever folder a test is in

from exportkit import ExportDir  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared"
SAMPLES = SHARED / "xorcise-samples"
SAMPLES_HTML = SHARED / "xorcise-samples-html"
# .ci/run sets these: the sample-byte tests fail (not skip) without ../shared, and the
# `slow` tests run; a local `python -m pytest` deselects `slow` and skips absent samples.
REQUIRE_SAMPLES = os.environ.get("PODIUM_REQUIRE_SAMPLES") == "1"
RUN_SLOW = os.environ.get("PODIUM_RUN_SLOW") == "1"


def needs_samples(path: Path = SAMPLES):
    """A module mark: skip without the samples, or fail when PODIUM_REQUIRE_SAMPLES=1."""
    if path.is_dir() or not REQUIRE_SAMPLES:
        return pytest.mark.skipif(not path.is_dir(), reason=f"{path} not present")
    pytest.fail(f"{path} is missing and PODIUM_REQUIRE_SAMPLES=1", pytrace=False)


@pytest.fixture
def export(tmp_path) -> ExportDir:
    return ExportDir(tmp_path / "export")


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite tests/golden/ from a fresh build instead of comparing against it",
    )


def pytest_collection_modifyitems(config, items):
    """`slow` tests run in CI (PODIUM_RUN_SLOW=1) or when asked with -m; otherwise deselected."""
    if RUN_SLOW or config.getoption("-m"):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]
