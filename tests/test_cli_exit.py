"""The ``cuzk`` process ends as soon as its command returns (cuzk.cli.run: os._exit after flushing): its output is
complete even through a pipe, its status is the command's, and under a profiler the process exits as usual, so that
the profiler still writes its report."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def cuzk(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300)


def test_output_through_a_pipe_is_complete_and_the_status_is_the_commands(tmp_path: Path) -> None:
    done = cuzk("-m", "cuzk.cli", "info")
    assert done.returncode == 0, done.stderr
    assert "cuzk backends" in done.stdout and "reference" in done.stdout
    missing = tmp_path / "missing.zkey"
    done = cuzk("-m", "cuzk.cli", "groth16", "prove", str(missing), "w.wtns", "p.json", "q.json")
    assert done.returncode == 2
    assert done.stderr.strip().endswith("No such file or directory"), done.stderr


def test_a_profiler_still_writes_its_report(tmp_path: Path) -> None:
    report = tmp_path / "info.prof"
    done = cuzk("-m", "cProfile", "-o", str(report), "-m", "cuzk.cli", "info")
    assert done.returncode == 0, done.stderr
    assert report.is_file() and report.stat().st_size > 0
