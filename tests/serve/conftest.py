"""Fixtures of the serve tests: the --keys folder with the two snarkjs fixture keys, and one server shared by the
API tests of a module (each other test starts the server it needs)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("aiohttp", reason="the serve tests need the serve extra: pip install -e '.[dev]'")
pytest.importorskip("prometheus_client", reason="the serve tests need the serve extra: pip install -e '.[dev]'")

from cuzk.serve.client import Client

from ._server import Server, make_keys


@pytest.fixture(scope="session")
def keys_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_keys(tmp_path_factory.mktemp("keys"))


@pytest.fixture(scope="module")
def server(keys_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with a small body limit (16 KiB), for the API tests."""
    with Server(keys_dir, tmp_path_factory.mktemp("state"), "--max-body", "16384") as running:
        yield running


@pytest.fixture(scope="module")
def client(server: Server) -> Client:
    return Client(server.url)
