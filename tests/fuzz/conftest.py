"""The folder the fuzz cases are written to (one per session: hypothesis runs many cases per test function)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def fuzz_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")
