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


STOPPED_WITH_A_BROKEN_FINALIZER = """
import atexit, multiprocessing, sys
import cuzk.cli as cli

class HalfBuilt:  # as llvmlite's PassBuilder when a signal stops its __init__
    def __del__(self):
        raise AttributeError("half built")

left = [HalfBuilt()]
atexit.register(left.clear)  # its finalizer runs on the way out, after the command's line

class Args:
    command = "prove"

    @staticmethod
    def run(args):
        raise {signal}

cli.build_parser = lambda: type("P", (), {{"parse_args": staticmethod(lambda argv: Args)}})
cli.run([])
"""


def test_a_stopped_command_prints_one_line_even_when_a_finalizer_fails_at_the_exit() -> None:
    """After Ctrl-C (or SIGTERM) the command's one line is the last thing on stderr: an object the signal left half
    built (an interrupted compile's) fails in its finalizer at the exit, and that is not printed. Both exits: with
    multiprocessing imported (sys.exit, the finalizers run) as cuzk prove is."""
    for signal, status, line in (("KeyboardInterrupt", 130, "cuzk prove: interrupted"),
                                 ("cli.Terminated", 143, "cuzk prove: terminated (SIGTERM)")):  # fmt: skip
        done = subprocess.run([sys.executable, "-c", STOPPED_WITH_A_BROKEN_FINALIZER.format(signal=signal)],
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert (done.returncode, done.stderr.splitlines()) == (status, [line])
