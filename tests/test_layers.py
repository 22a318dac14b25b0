"""The pipeline imports one way: import-linter's layers contract in pyproject.toml passes, fails on a
planted upward import, and names every module of the package; every folder ships (pyproject.toml)."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "generator" / "podium"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
LAYERS = PYPROJECT["tool"]["importlinter"]["contracts"][0]["layers"]


def lint_imports(project: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` over the podium package in ``project``/generator, with ``project``'s pyproject.toml."""
    script = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    if script is None:
        pytest.fail("import-linter is not installed: pip install -e '.[test]'")
    env = {**os.environ, "PYTHONPATH": str(project / "generator")}
    return subprocess.run([script, "--no-cache"], cwd=project, env=env, capture_output=True, text=True, timeout=300)


def test_the_layers_contract_is_kept():
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 1 kept, 0 broken." in done.stdout


def test_an_upward_import_breaks_it(tmp_path):
    shutil.copytree(PACKAGE, tmp_path / "generator" / "podium", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    planted = tmp_path / "generator" / "podium" / "count" / "stats.py"
    planted.write_text(
        planted.read_text(encoding="utf-8") + "\nfrom podium.render import data  # noqa\n", encoding="utf-8"
    )
    done = lint_imports(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "podium.count is not allowed to import podium.render" in done.stdout
    assert "podium.count.stats -> podium.render.data" in done.stdout


def test_every_module_is_in_a_layer():
    """A new top-level module or folder must be placed in the pipeline (pyproject.toml), not left outside it."""
    named = {layer.removeprefix("podium.") for layer in LAYERS}
    present = {p.stem for p in PACKAGE.glob("*.py")} | {
        p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()
    }
    assert present - {"__init__", "__main__"} == named


def test_every_folder_ships():
    packages = set(PYPROJECT["tool"]["setuptools"]["packages"])
    folders = {"podium"} | {
        "podium." + ".".join(p.parent.relative_to(PACKAGE).parts)
        for p in PACKAGE.rglob("__init__.py")
        if p.parent != PACKAGE
    }
    assert folders | {"podium.themes"} == packages


# ---------------------------------------------------------------------- the tests' own imports

TESTS = ROOT / "tests"


def foreign_test_imports(tests: Path) -> list[str]:
    """Each import of a test module (``test_*``) that is not beside the importing file: a test reaches
    another folder's helpers only through a kit at tests/ (docs/architecture.md, "Tests")."""
    bad = []
    for path in sorted(tests.rglob("*.py")):
        if "golden" in path.relative_to(tests).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top.startswith("test_") and not (path.parent / f"{top}.py").is_file():
                    bad.append(f"{path.relative_to(tests)}: {name}")
    return bad


def test_no_test_imports_another_folders_test_module():
    assert foreign_test_imports(TESTS) == []


def test_a_test_importing_another_folders_test_module_is_found(tmp_path):
    (tmp_path / "count").mkdir()
    (tmp_path / "render").mkdir()
    (tmp_path / "count" / "test_a.py").write_text("def helper():\n    return 1\n")
    (tmp_path / "render" / "test_b.py").write_text("def test_b():\n    from test_a import helper\n")
    (tmp_path / "render" / "test_c.py").write_text("import test_b\n")  # beside it: allowed
    assert foreign_test_imports(tmp_path) == ["render/test_b.py: test_a"]
