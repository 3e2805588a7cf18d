"""The test command's quiet summary: skips grouped by reason, one line per distinct reason with its count, while
failures, errors and xfails stay pytest's own lines (tests/_suite_summary.py, hooked in tests/conftest.py)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from ._suite_summary import grouped, lists_skips_itself, normalise, skip_reason, summary_lines, write_grouped_skips

ROOT = Path(__file__).resolve().parent.parent
CUPY = "the cuda backend cannot run here: cupy is not installed"


def test_reasons_lose_pytests_prefix_and_location() -> None:
    assert normalise("Skipped: cupy is not installed") == "cupy is not installed"
    assert normalise("tests/backends/_gpu.py:31: Skipped: cupy is not installed") == "cupy is not installed"
    assert normalise("C:/x/test_a.py:7: cupy is not installed") == "cupy is not installed"
    assert normalise("  cupy is\n   not installed ") == "cupy is not installed"
    assert normalise("") == normalise("Skipped: ") == "(no reason given)"
    assert normalise("needs a GPU: see docs/gpu.md:12") == "needs a GPU: see docs/gpu.md:12"  # not a prefix
    assert skip_reason(("tests/a.py", 3, "Skipped: cupy is not installed")) == "cupy is not installed"
    assert skip_reason("Skipped: no pseudo-terminals") == "no pseudo-terminals"


def test_same_reasons_from_different_places_make_one_line() -> None:
    reasons = [
        f"Skipped: {CUPY}",
        f"tests/engine/test_prover.py:44: {CUPY}",
        CUPY,
        "no pseudo-terminals",
        "Skipped: no pseudo-terminals",
        "g++ is not installed",
    ]
    assert grouped(reasons) == [(3, CUPY), (2, "no pseudo-terminals"), (1, "g++ is not installed")]
    assert summary_lines(reasons) == [
        f"SKIPPED 3× {CUPY}",
        "SKIPPED 2× no pseudo-terminals",
        "SKIPPED 1× g++ is not installed",
    ]
    assert summary_lines([]) == []


def test_pytests_own_skip_lines_replace_the_groups() -> None:
    assert lists_skips_itself("wsxXEf") and lists_skips_itself("s") and lists_skips_itself("A")
    assert not lists_skips_itself("wfExX") and not lists_skips_itself("")


class FakeReporter:
    """What write_grouped_skips uses of pytest's TerminalReporter."""

    def __init__(self, reportchars: str, skipped: list[Any]) -> None:
        self.reportchars, self.stats = reportchars, {"skipped": skipped}
        self.written: list[str] = []

    def write_sep(self, sep: str, title: str, **markup: bool) -> None:
        self.written.append(f"{sep * 3} {title} {sep * 3}")

    def write_line(self, line: str, **markup: bool) -> None:
        self.written.append(line)


class Report:
    def __init__(self, longrepr: Any) -> None:
        self.longrepr = longrepr


def test_the_section_is_written_once_per_run() -> None:
    skipped = [Report(("a.py", 1, f"Skipped: {CUPY}")), Report(("b.py", 9, f"Skipped: {CUPY}"))]
    reporter = FakeReporter("wfExX", skipped)
    assert write_grouped_skips(reporter) == [f"SKIPPED 2× {CUPY}"]
    assert reporter.written == ["=== 2 skipped, 1 reason ===", f"SKIPPED 2× {CUPY}"]
    listing = FakeReporter("wsxXEf", skipped)  # -ra: pytest lists each skip itself
    assert write_grouped_skips(listing) == [] and listing.written == []
    assert write_grouped_skips(FakeReporter("wfExX", [])) == []


SAMPLE = f"""
import pytest

CUPY = {CUPY!r}


@pytest.mark.parametrize("k", range(3))
def test_needs_cupy(k: int) -> None:
    pytest.skip(CUPY)


def test_needs_cupy_too() -> None:
    pytest.skip(CUPY)


@pytest.mark.skip(reason="no pseudo-terminals")
def test_marked() -> None:
    raise AssertionError("not run")


@pytest.mark.skipif(True, reason="no pseudo-terminals")
def test_marked_elsewhere() -> None:
    raise AssertionError("not run")


def test_passes() -> None:
    assert 1 + 1 == 2


@pytest.mark.xfail(reason="a known bug", strict=True)
def test_known_bug() -> None:
    assert 1 + 1 == 3


def test_fails() -> None:
    assert 1 + 1 == 3, "a real failure"
"""

MISSING = """
import pytest

pytest.importorskip("cuzk_suite_summary_absent_module")


def test_never_collected() -> None:
    raise AssertionError("not collected")
"""


def run_pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest with this project's configuration (pyproject's addopts) on ``project``'s tests folder."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTEST_ADDOPTS", None)
    command = [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(project)]
    command += ["-p", "no:cacheprovider", "--color=no", *args, "tests"]
    return subprocess.run(command, cwd=project, env=env, text=True, capture_output=True, timeout=300)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A tests folder holding this project's conftest.py and summary module, and two generated test files."""
    tests = tmp_path / "tests"
    tests.mkdir()
    for name in ("conftest.py", "_suite_summary.py"):
        shutil.copy(ROOT / "tests" / name, tests / name)
    (tests / "test_sample.py").write_text(textwrap.dedent(SAMPLE), encoding="utf-8")
    (tests / "test_missing.py").write_text(textwrap.dedent(MISSING), encoding="utf-8")
    return tmp_path


def test_the_test_command_groups_skips_and_keeps_failures(project: Path) -> None:
    result = run_pytest(project, "-q")
    out = result.stdout
    assert result.returncode == 1, out + result.stderr  # test_fails failed
    skipped = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    assert skipped == [
        f"SKIPPED 4× {CUPY}",
        "SKIPPED 2× no pseudo-terminals",
        "SKIPPED 1× could not import 'cuzk_suite_summary_absent_module': "
        "No module named 'cuzk_suite_summary_absent_module'",
    ], out
    assert re.search(r"^=+ 7 skipped, 3 reasons =+$", out, re.MULTILINE), out
    assert "FAILED tests/test_sample.py::test_fails - AssertionError: a real failure" in out
    assert "XFAIL tests/test_sample.py::test_known_bug - a known bug" in out
    assert out.index("skipped, 3 reasons") < out.index("short test summary info")  # groups, then pytest's lines
    assert re.search(r"1 failed, 1 passed, 7 skipped, 1 xfailed in ", out), out.splitlines()[-1]


def test_rs_lists_each_location_instead(project: Path) -> None:
    result = run_pytest(project, "-q", "-rs")
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "skipped, 3 reasons" not in out and not re.search(r"^SKIPPED \d+×", out, re.MULTILINE), out
    assert re.search(rf"^SKIPPED \[3\] tests/test_sample\.py:\d+: {re.escape(CUPY)}$", out, re.MULTILINE), out
    assert re.search(rf"^SKIPPED \[1\] tests/test_sample\.py:\d+: {re.escape(CUPY)}$", out, re.MULTILINE), out
