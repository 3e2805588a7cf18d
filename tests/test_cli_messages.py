"""What a user without a GPU reads: the auto fallback as one line on stderr, ``cuzk info``'s table (install hints
whole, the selected backend and why, 80 columns) and its errors. Every command runs in a subprocess, beside a
plug-in that registers a faster backend that cannot run (``fakegpu``), so the fallback happens on any machine."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cuzk.backends import info_table, registry

PLUGIN = """
from cuzk.backends.reference import ReferenceBackend


class NoDeviceBackend(ReferenceBackend):
    name = "fakegpu"
    priority = 1000

    def unavailable_reason(self):
        return "no CUDA device found (fake); install it with pip install 'cuzk[fakegpu]' on a machine with a GPU"
"""


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the ``fakegpu`` plug-in and its dist-info, for PYTHONPATH."""
    root = tmp_path_factory.mktemp("plugin")
    (root / "cuzk_messages_plugin.py").write_text(PLUGIN)
    dist_info = root / "cuzk_messages_plugin-0.1.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: cuzk_messages_plugin\nVersion: 0.1\n")
    (dist_info / "entry_points.txt").write_text("[cuzk.backends]\nfakegpu = cuzk_messages_plugin:NoDeviceBackend\n")
    return root


def cuzk(plugin: Path, *argv: str, columns: int = 200, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m cuzk.cli ARGV`` with the plug-in, COLUMNS and ``env`` (CUZK_* from this shell removed)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("CUZK_") and k != "PYTHONWARNINGS"}
    path = os.pathsep.join(p for p in (str(plugin), environ.get("PYTHONPATH", "")) if p)
    environ.update(PYTHONPATH=path, COLUMNS=str(columns), **env)
    return subprocess.run(
        [sys.executable, "-m", "cuzk.cli", *argv], capture_output=True, text=True, env=environ, timeout=300
    )


def row_of(table: str, name: str) -> str:
    """The first line of ``name``'s row in a rich table."""
    return next(line for line in table.splitlines() if re.match(rf"^\W*{name}\b", line))


def test_auto_fallback_is_one_short_line_on_stderr(plugin: Path) -> None:
    result = cuzk(plugin, "prove", "--constraints", "50", "--quiet")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    fallback = [line for line in lines if "fakegpu" in line]
    assert len(fallback) == 1, result.stderr  # once per process, though the prover selects backends more than once
    # the first clause of each skipped backend's reason (cuda's too, where CuPy is missing): no install hint
    assert re.fullmatch(r"cuzk: using the \w+ backend \(fakegpu: no CUDA device found(; [^()]+)?\)", fallback[0])
    assert "Warning" not in result.stderr and ".py:" not in result.stderr  # no category, file or source line


def test_naming_a_backend_silences_the_fallback(plugin: Path) -> None:
    # the smallest circuit (4 constraints): the pure-Python reference proves the default MiMC's 331 in ~11 s
    result = cuzk(plugin, "prove", "--circuit", "cubic", "--constraints", "4", "--quiet", CUZK_BACKEND="reference")
    assert result.returncode == 0, result.stderr
    assert "fakegpu" not in result.stderr and "using the" not in result.stderr


def test_info_keeps_the_extras_of_install_hints(plugin: Path) -> None:
    result = cuzk(plugin, "info")
    assert result.returncode == 0, result.stderr
    assert "pip install 'cuzk[fakegpu]'" in result.stdout  # not read as rich markup
    assert "selected by auto" in row_of(result.stdout, registry.auto_choice()[0].name)


def test_info_marks_the_backend_of_cuzk_backend(plugin: Path) -> None:
    result = cuzk(plugin, "info", CUZK_BACKEND=" Reference ")
    assert result.returncode == 0, result.stderr
    assert "selected by CUZK_BACKEND" in row_of(result.stdout, "reference")
    assert "selected by auto" not in result.stdout and result.stdout.count("selected by") == 1


@pytest.mark.parametrize(
    ("env", "error"),
    [
        ({"CUZK_BACKEND": "nonsense"}, "cuzk info: unknown backend 'nonsense' (from the CUZK_BACKEND environment"),
        ({"CUZK_BACKEND": "fakegpu"}, "cuzk info: backend 'fakegpu' is not available: no CUDA device found (fake)"),
    ],
)
def test_info_shows_the_table_then_the_error_of_cuzk_backend(plugin: Path, env: dict[str, str], error: str) -> None:
    result = cuzk(plugin, "info", **env)
    assert result.returncode == 2
    assert "reference" in result.stdout and "selected by" not in result.stdout  # the table, nothing marked
    assert result.stderr.startswith(error) and len(result.stderr.splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr


def test_info_with_a_malformed_cuzk_device_exits_2(plugin: Path) -> None:
    result = cuzk(plugin, "info", CUZK_DEVICE="gpu0")
    assert result.returncode == 2
    assert result.stderr.startswith("cuzk info: CUZK_DEVICE='gpu0' is not a device index")
    assert len(result.stderr.splitlines()) == 1, result.stderr


def test_info_says_a_list_of_devices(plugin: Path) -> None:
    result = cuzk(plugin, "info", CUZK_DEVICE="0,0")
    assert result.returncode == 0, result.stderr
    assert "devices 0, 0 prove together" in result.stdout, result.stdout
    assert "together" not in cuzk(plugin, "info", CUZK_DEVICE="0").stdout


def test_info_fits_80_columns_and_cuts_no_capability(plugin: Path) -> None:
    result = cuzk(plugin, "info", columns=80)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    header = next(line for line in lines if "backend" in line and "priority" in line)
    for column in info_table.COLUMNS:
        assert re.search(rf"\b{column}\b", header), (column, header)  # every column, its header whole
    assert "…" not in result.stdout
    for row in info_table.backend_table():
        for capability in row.capabilities:
            assert re.search(rf"\b{capability}\b", result.stdout), capability
