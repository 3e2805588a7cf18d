"""Backpressure (a full queue: 429 with Retry-After, and every accepted job still proved), bearer authentication
(401), the refusal to listen beyond loopback without a token, and the base install without the serve extra."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import urllib.request
from pathlib import Path

import aiohttp
import pytest

from cuzk.cli import main
from cuzk.serve.client import Client, ClientError

from ._server import ROOT, Server, clean_environment, verified, wtns

CLIENTS = 40


async def flood(url: str, count: int) -> list[tuple[int, dict, str | None]]:
    """``count`` POST /jobs at once: (status, body, Retry-After) of each."""
    async with aiohttp.ClientSession() as session:

        async def one() -> tuple[int, dict, str | None]:
            async with session.post(f"{url}/jobs?key=bls", data=wtns("bls")) as response:
                return response.status, await response.json(), response.headers.get("Retry-After")

        return await asyncio.gather(*(one() for _ in range(count)))


def test_a_full_queue_answers_429_with_retry_after(keys_dir: Path, tmp_path: Path) -> None:
    with Server(keys_dir, tmp_path / "state", "--queue", "1") as server:
        replies = asyncio.run(flood(server.url, CLIENTS))
        statuses = [status for status, _, _ in replies]
        assert set(statuses) <= {202, 429} and statuses.count(202) >= 1
        full = [(body, retry) for status, body, retry in replies if status == 429]
        assert full, "40 jobs at once never filled a queue of 1"
        for body, retry in full:
            assert body == {"error": "the queue is full (1 jobs): retry later"}
            assert retry is not None and int(retry) >= 1
        client = Client(server.url)
        for _, body, _ in (reply for reply in replies if reply[0] == 202):
            assert verified("bls", client.wait(body["id"], timeout=60))
        text = urllib.request.urlopen(server.url + "/metrics", timeout=30).read().decode()
        assert f'cuzk_requests_rejected_total{{reason="429"}} {float(len(full))}' in text


def test_a_bearer_token_is_required(keys_dir: Path, tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("s3cret-token\n")
    with Server(keys_dir, tmp_path / "state", "--token-file", str(token_file)) as server:
        for token in (None, "wrong"):
            with pytest.raises(ClientError, match="bearer token") as refused:
                Client(server.url, token=token).prove("bn", wtns("bn"))
            assert refused.value.status == 401
        assert Client(server.url).health()["status"] == "ok"  # /health needs no token: a liveness probe
        assert verified("bn", Client(server.url, token="s3cret-token").prove("bn", wtns("bn")))


def run_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cuzk.cli", *argv],
        capture_output=True,
        text=True,
        env=clean_environment(),
        timeout=120,
        cwd=ROOT,
    )


def test_a_wider_address_needs_a_token_or_insecure(keys_dir: Path) -> None:
    done = run_cli("serve", "--keys", str(keys_dir), "--host", "0.0.0.0")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "cuzk serve: --host 0.0.0.0 is not a loopback address: give a token (--token-file, CUZK_TOKEN) or --insecure\n"
    )


def test_without_the_extra_one_line_and_status_2(
    keys_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "aiohttp", None)  # import aiohttp raises ImportError, as without the extra
    assert main(["serve", "--keys", str(keys_dir)]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        "cuzk serve: the server needs aiohttp and prometheus-client (aiohttp is missing): pip install 'cuzk[serve]'\n"
    )


def test_the_base_commands_and_the_client_do_not_import_aiohttp() -> None:
    code = (
        "import sys, cuzk.cli, cuzk.serve.client; sys.exit(bool({'aiohttp', 'prometheus_client'} & set(sys.modules)))"
    )
    assert subprocess.run([sys.executable, "-c", code], env=clean_environment(), timeout=60).returncode == 0
