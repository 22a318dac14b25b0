import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from exportkit import ExportDir  # noqa: E402

SAMPLES = Path(__file__).resolve().parents[2] / "shared" / "xorcise-samples"


@pytest.fixture
def export(tmp_path) -> ExportDir:
    return ExportDir(tmp_path / "export")


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true",
                     help="rewrite tests/golden/ from a fresh build instead of comparing against it")
