"""Fixtures for the backend tests: a clean environment, the CUDA copy stream for small uploads, and real entry-point
plug-ins written into tmp_path."""

from __future__ import annotations

import itertools
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

_counter = itertools.count()


@pytest.fixture(autouse=True)
def _clean_registry(clean_registry: None) -> None:
    """Every test here starts from a clean registry (the fixture lives in tests/conftest.py)."""


@pytest.fixture(autouse=True)
def _small_leases(monkeypatch: pytest.MonkeyPatch) -> None:
    """Uploads of 4 KiB and more take the CUDA context's copy stream here (1 MiB and more by default), so that the
    tests' small arrays run that path on a GPU too."""
    from cuzk.backends.cuda import device

    monkeypatch.setattr(device, "LEASE_MIN_BYTES", 4096)


@pytest.fixture
def install_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., str]]:
    """Install a backend plug-in for real, without pip: a module and a ``<dist>-0.1.dist-info`` folder holding
    METADATA and an ``entry_points.txt`` that declares ``[cuzk.backends]``, on a directory put first on sys.path.

    ``install_plugin(source, {"name": "Factory", …})`` returns the module's (unique) name; importlib.metadata
    finds the distribution through sys.path like any installed one.
    """

    installed: list[str] = []

    def install(source: str, entry_points: dict[str, str]) -> str:
        index = next(_counter)
        module = f"cuzk_test_plugin_{index}"
        installed.append(module)
        root = tmp_path / f"site{index}"
        root.mkdir()
        (root / f"{module}.py").write_text(textwrap.dedent(source))
        dist_info = root / f"{module}-0.1.dist-info"
        dist_info.mkdir()
        (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
        lines = "\n".join(f"{name} = {module}:{attr}" for name, attr in entry_points.items())
        (dist_info / "entry_points.txt").write_text(f"[cuzk.backends]\n{lines}\n")
        monkeypatch.syspath_prepend(str(root))
        return module

    yield install
    for module in installed:
        sys.modules.pop(module, None)
