"""``cuzk serve --workers processes``: the real server, its prover in a child process (spawned, its own keys and
kernels), the HTTP API and the journal in the server's process. Proofs of both keys verified, a refused witness
that leaves the prover going, a prover process killed while jobs run (a new one takes them, none lost or run
twice), and a prover that cannot start (the server does not listen, one line, status 2). SIGTERM and a crash of
the server itself are in test_lifecycle.py, for both modes."""

from __future__ import annotations

import os
import signal
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cuzk.serve.client import Client, ClientError

from ._server import (
    Server,
    check_all_done,
    clean_environment,
    ended,
    expected_public,
    parent_of,
    submit_all,
    verified,
    witness_strings,
    wtns,
)


@pytest.fixture(scope="module")
def server(keys_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(keys_dir, tmp_path_factory.mktemp("state"), "--workers", "processes") as running:
        yield running


def test_the_prover_is_a_child_process_listed_by_health(server: Server) -> None:
    assert "1 worker(s) (processes)" in server.first_line
    health = Client(server.url).health()
    assert health["status"] == "ok" and health["backend"] == "cpu" and health["workers"] == 1
    [prover] = health["provers"]
    assert prover["name"] == "worker0" and prover["backend"] == "cpu"
    assert server.process is not None and prover["pid"] != server.process.pid
    assert parent_of(prover["pid"]) == server.process.pid


@pytest.mark.parametrize("key", ["bn", "bls"])
def test_proofs_of_both_keys_verify(server: Server, key: str) -> None:
    client = Client(server.url)
    result = client.prove(key, wtns(key))
    assert result["public"] == expected_public(key) and verified(key, result)
    result = client.prove(key, witness_strings(key))
    assert result["public"] == expected_public(key) and verified(key, result)
    done = client.wait(client.submit(key, wtns(key))["id"], timeout=60)
    assert done["status"] == "done" and verified(key, done)


def test_a_witness_larger_than_its_slot_goes_down_the_pipe(server: Server) -> None:
    """The shared witness slots are sized for each key's witness as cuzk encodes it; a .wtns with a section of its
    own (read as snarkjs reads it: unknown sections are skipped) is larger, so it is sent down the pipe instead,
    and the slots serve the next one again."""
    client = Client(server.url)
    longer = bytearray(wtns("bn"))
    struct.pack_into("<I", longer, 8, struct.unpack_from("<I", longer, 8)[0] + 1)  # one more section
    longer += struct.pack("<IQ", 3, 4096) + bytes(4096)
    result = client.prove("bn", bytes(longer))
    assert result["public"] == expected_public("bn") and verified("bn", result)
    assert verified("bn", client.prove("bn", wtns("bn")))


def test_a_bad_witness_is_422_and_the_next_proof_succeeds(server: Server) -> None:
    client = Client(server.url)
    bad = witness_strings("bn")
    bad[-1] = str(int(bad[-1]) + 1)  # in the field, of the right length: refused by the prover process's check
    with pytest.raises(ClientError, match="does not satisfy the circuit of key 'bn'") as refused:
        client.prove("bn", bad)
    assert refused.value.status == 422
    assert verified("bn", client.prove("bn", wtns("bn")))


def test_a_killed_prover_process_loses_no_job(server: Server) -> None:
    client = Client(server.url)
    [first] = server.prover_pids()
    jobs = submit_all(client, "killed")
    client.wait(next(iter(jobs)), poll=0.01, timeout=60)
    os.kill(first, signal.SIGKILL)
    left = sum(client.job(job_id)["status"] != "done" for job_id in jobs)
    rows = check_all_done(client, jobs, server.state)
    assert all(attempts == 1 for _, _, attempts in rows)  # claimed once: a job sent again is not a second run
    [prover] = client.health()["provers"]
    assert prover["restarts"] == 1 and prover["pid"] != first and ended(first, 0)
    said = server.rest(timeout=2)
    assert left > 0 and f"(pid {first}) was killed by signal SIGKILL" in said, (left, said)
    assert verified("bls", client.prove("bls", wtns("bls")))


def test_a_prover_that_cannot_start_stops_the_server(keys_dir: Path, tmp_path: Path) -> None:
    argv = ["serve", "--keys", str(keys_dir), "--state", str(tmp_path), "--port", "0", "--workers", "processes"]
    run = subprocess.run(
        [sys.executable, "-m", "cuzk.cli", *argv, "--backend", "nope"],
        capture_output=True,
        text=True,
        env=clean_environment(),
        timeout=300,
    )
    assert run.returncode == 2 and run.stdout == "", run
    said = run.stderr.splitlines()
    assert len(said) == 1 and said[0].startswith("cuzk serve: prover process 0.0 could not start: UnknownBackendError")


def test_workers_is_for_the_local_provers(keys_dir: Path, tmp_path: Path) -> None:
    argv = ["serve", "--keys", str(keys_dir), "--state", str(tmp_path), "--workers", "threads", "--ray", "auto"]
    run = subprocess.run(
        [sys.executable, "-m", "cuzk.cli", *argv], capture_output=True, text=True, env=clean_environment(), timeout=60
    )
    assert run.returncode == 2 and "--workers is for the local workers" in run.stderr, run


def test_a_hung_prover_process_is_replaced(keys_dir: Path, tmp_path: Path) -> None:
    """A prover process that holds a job and says nothing for --hung-after seconds (here stopped by SIGSTOP) is
    killed and replaced; the job is sent to the new one and done."""
    with Server(keys_dir, tmp_path, "--workers", "processes", "--hung-after", "2") as running:
        client = Client(running.url)
        [first] = running.prover_pids()
        os.kill(first, signal.SIGSTOP)
        done = client.wait(client.submit("bn", wtns("bn"))["id"], timeout=300)
        assert done["status"] == "done" and verified("bn", done)
        [prover] = client.health()["provers"]
        assert prover["restarts"] == 1 and prover["pid"] != first and ended(first, 0)
        said = running.rest(timeout=2)
        assert f"(pid {first}) said nothing for" in said and "killed as hung" in said, said


def test_hung_after_is_for_the_prover_processes(keys_dir: Path, tmp_path: Path) -> None:
    argv = ["serve", "--keys", str(keys_dir), "--state", str(tmp_path), "--hung-after", "5"]
    run = subprocess.run(
        [sys.executable, "-m", "cuzk.cli", *argv], capture_output=True, text=True, env=clean_environment(), timeout=60
    )
    assert run.returncode == 2 and "--hung-after is for the prover processes" in run.stderr, run
