"""``cuzk serve --ray ADDRESS`` on a local Ray cluster of two "nodes" (Ray's own test utilities, on this machine):
the real server process, its HTTP API and journal on the head, two cpu-backend actors proving; a proof synchronous
and asynchronous, then an actor killed while jobs run: every job finishes, verified, none run twice.

Ray is the ``ray`` extra (in ``dev``): without it these tests are skipped with the reason, except under CI (``CI``
set), which must run them, where they fail. The checks that the embedded server imports nothing of Ray, and that
``--ray`` without Ray says which extra to install, run everywhere.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from cuzk.serve.client import Client

from ._server import Server, clean_environment, expected_public, verified, witness_strings, wtns

JOBS = 24
KILL_JOBS = 2 * JOBS  # the killed actor still busy (with 24 a fast run had finished them all); the queue holds 64
NAMESPACE = "cuzk"  # cuzk.serve.ray_pool.NAMESPACE (not imported: that module needs Ray)


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def require_ray() -> ModuleType:
    try:
        import ray
    except ImportError:
        reason = "Ray is not installed (pip install -e '.[dev]' or '.[ray]')"
        if in_ci():
            pytest.fail(f"CI must run the Ray tests, but {reason}", pytrace=False)
        pytest.skip(reason)
    return ray


def start_cluster(ray: ModuleType, *, connect: bool = True) -> Any:
    """Two Ray nodes of one CPU each on this machine; with ``connect``, this process connected to them (to kill an
    actor)."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    if connect:
        ray.init(address=cluster.address, logging_level="WARNING", log_to_driver=False)
    return cluster


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[tuple[ModuleType, Any]]:
    ray = require_ray()
    cluster = start_cluster(ray)
    try:
        yield ray, cluster
    finally:
        ray.shutdown()
        cluster.shutdown()


@pytest.fixture(scope="module")
def ray_server(
    ray_cluster: tuple[ModuleType, Any], keys_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    with Server(keys_dir, tmp_path_factory.mktemp("state"), "--ray", ray_cluster[1].address) as running:
        yield running


def test_the_embedded_server_imports_nothing_of_ray() -> None:
    code = "import sys, cuzk.cli.serve, cuzk.serve.app, cuzk.serve.service, cuzk.serve.worker, cuzk.serve.client\n"
    code += "assert not [m for m in sys.modules if m == 'ray' or m.startswith('ray.')], 'ray imported'"
    subprocess.run([sys.executable, "-c", code], check=True, env=clean_environment())


def test_ray_without_ray_names_the_extra(keys_dir: Path, tmp_path: Path) -> None:
    code = "import sys; sys.modules['ray'] = None\nfrom cuzk.cli import main\nsys.exit(main())"
    argv = ["serve", "--keys", str(keys_dir), "--state", str(tmp_path), "--port", "0", "--ray", "auto"]
    run = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, env=clean_environment(), timeout=120
    )
    said = (run.stdout + run.stderr).strip().splitlines()
    assert run.returncode == 2 and len(said) == 1 and "cuzk[ray]" in said[0], said


def test_prove_sync_and_async_on_ray_actors(ray_server: Server) -> None:
    client = Client(ray_server.url)
    health = client.health()
    assert health["workers"] == 2 and health["backend"] == "cpu", health
    result = client.prove("bn", wtns("bn"))
    assert result["public"] == expected_public("bn") and verified("bn", result)
    result = client.prove("bls", witness_strings("bls"))
    assert result["public"] == expected_public("bls") and verified("bls", result)
    job = client.submit("bls", wtns("bls"), job_id="ray-async")
    done = client.wait(job["id"], timeout=60)
    assert done["status"] == "done" and verified("bls", done)
    bad = witness_strings("bn")
    bad[-1] = str(int(bad[-1]) + 1)
    refused = client.submit("bn", bad, job_id="ray-bad")
    failed = client.wait(refused["id"], timeout=60)
    assert failed["status"] == "failed" and "does not satisfy" in failed["error"], failed
    assert verified("bn", client.prove("bn", wtns("bn")))  # the actor went on


def journal_rows(state: Path) -> list[tuple[str, str, int]]:
    with sqlite3.connect(state / "jobs.sqlite3") as db:
        return db.execute("SELECT id, status, attempts FROM jobs WHERE id LIKE 'kill-%' ORDER BY seq").fetchall()


def test_a_killed_actor_loses_no_job(ray_cluster: tuple[ModuleType, Any], ray_server: Server) -> None:
    ray, client = ray_cluster[0], Client(ray_server.url)
    jobs = {f"kill-{i}": ("bn", "bls")[i % 2] for i in range(KILL_JOBS)}
    for job_id, key in jobs.items():
        assert client.submit(key, wtns(key), job_id=job_id)["status"] == "queued"
    deadline = time.monotonic() + 60
    while client.job("kill-0")["status"] != "done" and time.monotonic() < deadline:
        time.sleep(0.01)
    assert process_of(ray_server) is not None
    ray.kill(ray.get_actor(f"prover-{process_of(ray_server)}-0-0", namespace=NAMESPACE))
    left = sum(client.job(job_id)["status"] != "done" for job_id in jobs)
    for job_id, key in jobs.items():
        done = client.wait(job_id, timeout=120)
        assert done["status"] == "done", done
        assert done["public"] == expected_public(key) and verified(key, done), job_id
    rows = journal_rows(Path(ray_server.argv[ray_server.argv.index("--state") + 1]))
    assert sorted(row[0] for row in rows) == sorted(jobs)  # every job once: none lost, none duplicated
    assert all(attempts == 1 for _, _, attempts in rows)  # claimed once: a re-dispatch is not a second run
    said = ray_server.rest(timeout=2)
    assert left > 0 and f"prover-{process_of(ray_server)}-0-0 lost" in said, (left, said)  # it died while busy
    assert ray.get_actor(f"prover-{process_of(ray_server)}-0-1", namespace=NAMESPACE)  # its replacement
    assert client.health()["workers"] == 2


@pytest.mark.slow
def test_a_lost_node_loses_no_job(keys_dir: Path, tmp_path: Path) -> None:
    """A node removed while jobs run: its actor's jobs finish on the other node (where its replacement finds no
    room and waits), and SIGTERM still stops the server at once."""
    cluster = start_cluster(require_ray(), connect=False)
    try:
        with Server(keys_dir, tmp_path / "state", "--ray", cluster.address) as server:
            client = Client(server.url)
            jobs = {f"kill-{i}": ("bn", "bls")[i % 2] for i in range(JOBS)}
            for job_id, key in jobs.items():
                assert client.submit(key, wtns(key), job_id=job_id)["status"] == "queued"
            while client.job("kill-0")["status"] != "done":
                time.sleep(0.01)
            cluster.remove_node(next(iter(cluster.worker_nodes)))
            for job_id, key in jobs.items():
                done = client.wait(job_id, timeout=300)
                assert done["status"] == "done" and verified(key, done), done
            assert all(attempts == 1 for _, _, attempts in journal_rows(tmp_path / "state"))
            began = time.monotonic()
            assert server.stop() == 0 and time.monotonic() - began < 30
            assert "lost" in server.rest()
    finally:
        cluster.shutdown()


def process_of(server: Server) -> int | None:
    return None if server.process is None else server.process.pid
