"""``cuzk bench`` as a user runs it: sizes it cannot hold, malformed ranges and bad counts are one line on stderr
and exit 2 before anything is timed; a tiny run prints its table, and says nothing on stderr unless it is a
terminal (where it names each operation and size as it goes)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cuzk.cli import bench
from cuzk.reference.curves import CURVES
from cuzk.reference.errors import CuzkError

TINY = ["--backend", "reference", "--curve", "bn254", "--msm", "2-2", "--msm-g2", "", "--ntt", "", "--repeat", "1"]


def cuzk_bench(*argv: str, timeout: float = 120, **kwargs: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "cuzk.cli", "bench", *argv]
    return subprocess.run(command, text=True, check=False, timeout=timeout, **kwargs)  # type: ignore[call-overload]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--msm", "30-31"], "cuzk bench: --msm: 2^31 is more than the backends' MSMs support (at most 2^28)"),
        (["--msm", "18-10"], "cuzk bench: --msm 18-10: the range is descending; write 10-18"),
        (["--ntt", "a-b"], "cuzk bench: --ntt takes log2 ranges such as 10-18 (or one size, 16), not 'a-b'"),
        (["--msm-g2", "-3"], "cuzk bench: --msm-g2 takes log2 ranges such as 10-18 (or one size, 16), not '-3'"),
        (["--repeat", "0"], "cuzk bench: --repeat must be at least 1, got 0"),
        (["--curve", "bn254", "--ntt", "29"], "cuzk bench: --ntt: 2^29 is more than bn254's scalar field has roots"),
    ],
    ids=["msm-too-large", "descending", "malformed", "negative", "repeat-zero", "ntt-beyond-two-adicity"],
)
def test_bad_arguments_are_one_line_and_exit_2(argv: list[str], message: str) -> None:
    result = cuzk_bench("--backend", "reference", *argv, capture_output=True, timeout=30)  # accepted, it would run on
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(message), result.stderr


def test_a_tiny_run_prints_its_table_and_nothing_else() -> None:
    result = cuzk_bench(*TINY, capture_output=True)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    header, columns, row = result.stdout.splitlines()
    assert header.startswith("backend reference: ") and columns.split()[:3] == ["curve", "op", "n"]
    assert row.split()[:4] == ["bn254", "msm", "g1", "2^2"] and row.split()[-1] == "1"


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals on this platform")
def test_progress_on_a_terminal_names_each_size() -> None:
    primary, secondary = os.openpty()
    argv = [*TINY, "--msm", "1-2"]  # the later --msm wins
    try:
        try:
            result = cuzk_bench(*argv, stdout=subprocess.PIPE, stderr=secondary)
        finally:
            os.close(secondary)
        progress = b""
        while chunk := _read(primary):
            progress += chunk
    finally:
        os.close(primary)
    assert result.returncode == 0
    lines = progress.decode().splitlines()
    assert lines == [
        "cuzk bench: bn254 g1: building 2^2 bases",
        "cuzk bench: bn254 msm g1 2^1",
        "cuzk bench: bn254 msm g1 2^2",
    ]
    assert "msm g1" in result.stdout


def _read(fd: int) -> bytes:
    """What the pseudo-terminal still holds; Linux answers EIO, not b"", once its other end is closed and drained."""
    try:
        return os.read(fd, 4096)
    except OSError:
        return b""


def test_memory_bound_is_checked_against_what_is_available() -> None:
    bn254 = CURVES["bn254"]
    # 2^20 G1 points of BN254: (64 + 32) bytes each, times the working factor
    need = (1 << 20) * 96 * bench.WORKING_FACTOR
    bench.check_sizes(bn254, range(20, 21), range(0), range(0), memory=need)
    with pytest.raises(CuzkError, match=r"^--msm: 2\^20 needs about 0\.9 GiB of memory and 0\.9 GiB is available"):
        bench.check_sizes(bn254, range(20, 21), range(0), range(0), memory=need - 1)
    with pytest.raises(CuzkError, match=r"^--msm-g2: 2\^20 needs"):
        bench.check_sizes(bn254, range(0), range(20, 21), range(0), memory=need)  # G2 points are twice as large


def test_available_memory_is_positive() -> None:
    assert bench.available_memory() > 0
