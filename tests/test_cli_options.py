"""The command line as a package: the console script and ``python -m cuzk.cli`` reach its main, and the engine
options it mirrors into the environment take effect (--threads is the cpu backend's thread count)."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cuzk.cli import main, run
from tests._suite_backends import usable_or_skip

ROOT = Path(__file__).resolve().parent.parent

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli", reason="tomllib is in the standard library from Python 3.11")


@pytest.fixture
def engine_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start without CUZK_THREADS and CUZK_DEVICE; the CLI sets them in os.environ itself, so restore them after."""
    for name in ("CUZK_THREADS", "CUZK_DEVICE"):
        monkeypatch.setenv(name, "")  # records the value to restore, none included
        monkeypatch.delenv(name)


def test_console_script_is_run() -> None:
    """The console script is cuzk.cli.run: main, then the process's end (tests/test_cli_exit.py)."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    module, _, name = scripts["cuzk"].partition(":")
    assert getattr(importlib.import_module(module), name) is run


def test_python_m_runs_the_command_line() -> None:
    result = subprocess.run([sys.executable, "-m", "cuzk.cli", "--help"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert all(command in result.stdout for command in ("info", "walkthrough", "prove", "bench", "groth16", "zkey"))


@pytest.mark.usefixtures("engine_environment")
@pytest.mark.parametrize("threads", [1, 2])  # one of them differs from the default (all cores) on any machine
def test_threads_sets_the_cpu_backends_thread_count(threads: int, capsys: pytest.CaptureFixture[str]) -> None:
    usable_or_skip("cpu")
    argv = ["bench", "--backend", "cpu", "--threads", str(threads), "--curve", "bn254", "--msm", "", "--msm-g2", ""]
    assert main([*argv, "--ntt", "10", "--repeat", "1"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header.startswith("backend cpu: ") and re.search(rf"\b{threads} threads?\b", header), header
