"""What an accepted job survives: SIGTERM (a graceful shutdown: the claimed jobs finished, the queued ones kept in
the journal and run by the next start) and ``kill -9`` (every unfinished job runs again after the restart, every
result verified, none duplicated); with the provers in the server's threads and in processes of their own, which
end with the server, by a SIGTERM or by the end of their pipe."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest

from cuzk.serve.client import Client

from ._server import JOBS, Server, check_all_done, ended, journal_rows, submit_all, wtns

WORKERS = ["threads", "processes"]


@pytest.mark.parametrize("workers", WORKERS)
def test_sigterm_finishes_the_running_jobs_and_keeps_the_queued_ones(
    keys_dir: Path, tmp_path: Path, workers: str
) -> None:
    state = tmp_path / "state"
    first = Server(keys_dir, state, "--workers", workers)
    with first:
        provers = first.prover_pids()
        jobs = submit_all(Client(first.url), "term")
        assert first.stop(signal.SIGTERM) == 0
        said = first.rest()
    assert all(ended(pid, 0) for pid in provers)  # a prover process was stopped and waited for
    kept = re.search(r"stopped; (\d+) queued job\(s\) kept", said)
    assert kept, said
    rows = journal_rows(state)
    assert {status for _, status, _ in rows} <= {"done", "queued"}  # nothing left running, nothing failed
    assert sum(status == "queued" for _, status, _ in rows) == int(kept.group(1))
    with Server(keys_dir, state, "--workers", workers) as second:
        rows = check_all_done(Client(second.url), jobs, state)
    assert all(attempts == 1 for _, _, attempts in rows)  # a graceful stop runs no job twice


@pytest.mark.parametrize("workers", WORKERS)
def test_kill_9_then_restart_runs_every_unfinished_job(keys_dir: Path, tmp_path: Path, workers: str) -> None:
    state = tmp_path / "state"
    with Server(keys_dir, state, "--workers", workers) as first:
        client = Client(first.url)
        provers = first.prover_pids()
        jobs = submit_all(client, "crash")
        client.wait(next(iter(jobs)), poll=0.01, timeout=60)
        assert first.stop(signal.SIGKILL) == -signal.SIGKILL
    assert all(ended(pid, 30) for pid in provers)  # a prover process ends with the end of its pipe: no orphan
    unfinished = [row for row in journal_rows(state) if row[1] != "done"]
    assert unfinished, "the crash came after every job: nothing to resume"
    with Server(keys_dir, state, "--workers", workers) as second:
        assert f"{len(unfinished)} journaled job(s) resumed" in second.first_line
        client = Client(second.url)
        rows = check_all_done(client, jobs, state)
        again = client.submit("bn", wtns("bn"), job_id="crash-0")  # an id is one job: not run again
        assert again["status"] == "done" and again["attempts"] == dict((r[0], r[2]) for r in rows)["crash-0"]
    assert len(journal_rows(state)) == JOBS
