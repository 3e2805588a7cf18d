"""The tree is ruff clean (the project's lint configuration is in pyproject.toml)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def ruff_command() -> list[str] | None:
    """``python -m ruff`` where the package is installed in this interpreter, else ``ruff`` on PATH, else None."""
    if importlib.util.find_spec("ruff") is not None:
        return [sys.executable, "-m", "ruff"]
    executable = shutil.which("ruff")
    return None if executable is None else [executable]


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=["check", "format"])
def test_ruff_is_clean(command: list[str]) -> None:
    ruff = ruff_command()
    if ruff is None:
        pytest.skip("ruff is not installed (it comes with the dev extra: pip install -e '.[dev]')")
    result = subprocess.run([*ruff, *command, "."], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_is_found_as_a_module_without_the_executable(monkeypatch: pytest.MonkeyPatch) -> None:
    if importlib.util.find_spec("ruff") is None:
        pytest.skip("the ruff package is not installed in this interpreter")
    monkeypatch.setenv("PATH", "")
    assert shutil.which("ruff") is None
    assert ruff_command() == [sys.executable, "-m", "ruff"]
