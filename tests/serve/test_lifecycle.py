"""What an accepted job survives: SIGTERM (a graceful shutdown: the claimed jobs finished, the queued ones kept in
the journal and run by the next start) and ``kill -9`` (every unfinished job runs again after the restart, every
result verified, none duplicated)."""

from __future__ import annotations

import re
import signal
import sqlite3
import time
from pathlib import Path

from cuzk.serve.client import Client

from ._server import Server, expected_public, verified, wtns

JOBS = 16


def submit_all(client: Client, prefix: str) -> dict[str, str]:
    """JOBS asynchronous jobs, alternately on each key: {id: key}."""
    jobs = {f"{prefix}-{i}": ("bn", "bls")[i % 2] for i in range(JOBS)}
    for job_id, key in jobs.items():
        assert client.submit(key, wtns(key), job_id=job_id) == {"id": job_id, "status": "queued"}
    return jobs


def journal_rows(state: Path) -> list[tuple[str, str, int]]:
    with sqlite3.connect(state / "jobs.sqlite3") as db:
        return db.execute("SELECT id, status, attempts FROM jobs ORDER BY seq").fetchall()


def check_all_done(client: Client, jobs: dict[str, str], state: Path) -> list[tuple[str, str, int]]:
    for job_id, key in jobs.items():
        done = client.wait(job_id, timeout=90)
        assert done["status"] == "done", done
        assert done["public"] == expected_public(key) and verified(key, done), job_id
    rows = journal_rows(state)
    assert sorted(row[0] for row in rows) == sorted(jobs)  # every job once: none lost, none duplicated
    return rows


def test_sigterm_finishes_the_running_jobs_and_keeps_the_queued_ones(keys_dir: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    first = Server(keys_dir, state)
    with first:
        jobs = submit_all(Client(first.url), "term")
        assert first.stop(signal.SIGTERM) == 0
        said = first.rest()
    kept = re.search(r"stopped; (\d+) queued job\(s\) kept", said)
    assert kept, said
    rows = journal_rows(state)
    assert {status for _, status, _ in rows} <= {"done", "queued"}  # nothing left running, nothing failed
    assert sum(status == "queued" for _, status, _ in rows) == int(kept.group(1))
    with Server(keys_dir, state) as second:
        rows = check_all_done(Client(second.url), jobs, state)
    assert all(attempts == 1 for _, _, attempts in rows)  # a graceful stop runs no job twice


def test_kill_9_then_restart_runs_every_unfinished_job(keys_dir: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    with Server(keys_dir, state) as first:
        client = Client(first.url)
        jobs = submit_all(client, "crash")
        deadline = time.monotonic() + 60
        while client.job(next(iter(jobs)))["status"] != "done" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert first.stop(signal.SIGKILL) == -signal.SIGKILL
    unfinished = [row for row in journal_rows(state) if row[1] != "done"]
    assert unfinished, "the crash came after every job: nothing to resume"
    with Server(keys_dir, state) as second:
        assert f"{len(unfinished)} journaled job(s) resumed" in second.first_line
        client = Client(second.url)
        rows = check_all_done(client, jobs, state)
        again = client.submit("bn", wtns("bn"), job_id="crash-0")  # an id is one job: not run again
        assert again["status"] == "done" and again["attempts"] == dict((r[0], r[2]) for r in rows)["crash-0"]
    assert len(journal_rows(state)) == JOBS
