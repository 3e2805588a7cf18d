"""The service's rules without HTTP or workers, where a test must hold a job in a state: cancelling a queued job,
refusing to cancel a running one, the job timeout, a full queue, the shutdown, the journal's recovery."""

from __future__ import annotations

from pathlib import Path

import pytest

from cuzk.serve.errors import ConflictError, JobNotFoundError, QueueFullError, UnavailableError
from cuzk.serve.jobs import DONE, Job, Outcome
from cuzk.serve.journal import Journal
from cuzk.serve.keys import KeyRegistry
from cuzk.serve.service import Service

from ._server import wtns


def service(keys_dir: Path, state: Path, **options: object) -> Service:
    options.setdefault("capacity", 4)
    return Service(KeyRegistry(str(keys_dir)), Journal(str(state)), [], **options)  # type: ignore[arg-type]


def job(job_id: str, *, durable: bool = True) -> Job:
    return Job(job_id, "bn", wtns("bn"), durable)


def test_a_queued_job_is_cancelled_and_never_claimed(keys_dir: Path, tmp_path: Path) -> None:
    jobs = service(keys_dir, tmp_path)
    queued = job("c1")
    assert jobs.accept(queued) is None and len(jobs.queue) == 1
    assert jobs.cancel("c1") == "cancelled"
    assert len(jobs.queue) == 0 and jobs.status("c1")["status"] == "cancelled"
    assert not jobs.claim(queued)
    assert jobs.cancel("c1") == "deleted"


def test_a_running_job_cannot_be_cancelled(keys_dir: Path, tmp_path: Path) -> None:
    jobs = service(keys_dir, tmp_path)
    jobs.accept(job("r1"))
    running = jobs.queue.get(0)
    assert running is not None and jobs.claim(running)
    with pytest.raises(ConflictError, match="running") as refused:
        jobs.cancel("r1")
    assert refused.value.status == 409


def test_a_job_past_its_timeout_fails_and_its_late_result_is_dropped(keys_dir: Path, tmp_path: Path) -> None:
    jobs = service(keys_dir, tmp_path, job_timeout=2.0)
    answers: list[Outcome] = []
    synchronous = job("s1", durable=False)
    synchronous.notify = answers.append
    for each in (job("t1"), synchronous):
        jobs.accept(each)
        claimed = jobs.queue.get(0)
        assert claimed is not None and jobs.claim(claimed)
    assert jobs.expire_overdue(now=synchronous.started + 1.0) == 0  # type: ignore[operator]
    assert jobs.expire_overdue(now=synchronous.started + 3.0) == 2  # type: ignore[operator]
    row = jobs.status("t1")
    assert row["status"] == "failed" and row["error"] == "the job ran past the timeout of 2 s"
    assert [(a.status, a.http) for a in answers] == [("failed", 504)]
    jobs.finish(synchronous, Outcome(DONE, result={"proof": {}, "public": []}))  # the worker's late result
    assert len(answers) == 1 and jobs.status("t1")["status"] == "failed"


def test_a_full_queue_and_a_stopped_service_refuse(keys_dir: Path, tmp_path: Path) -> None:
    jobs = service(keys_dir, tmp_path, capacity=1)
    answers: list[Outcome] = []
    waiting = job("w1", durable=False)
    waiting.notify = answers.append
    jobs.accept(waiting)
    with pytest.raises(QueueFullError) as full:
        jobs.accept(job("f1"))
    assert full.value.status == 429 and jobs.retry_after() >= 1
    with pytest.raises(JobNotFoundError, match="no job 'f1'"):
        jobs.status("f1")  # a refused job is not journaled
    jobs.stop()
    assert [(a.status, a.http) for a in answers] == [("failed", 503)]
    with pytest.raises(UnavailableError):
        jobs.accept(job("f2"))


def test_the_journal_requeues_what_a_crash_left_running(tmp_path: Path) -> None:
    journal = Journal(str(tmp_path))
    for name in ("a", "b", "c"):
        assert journal.add(job(name), "digest") is None
    assert journal.claim("a", 1.0) == 1 and journal.claim("a", 2.0) is None
    assert journal.finish("a", Outcome(DONE, result={"proof": {"x": 1}, "public": ["1"]}))
    assert journal.claim("b", 3.0) == 1
    journal.close()
    reopened = Journal(str(tmp_path))  # as after kill -9: b was running, c queued
    assert [(j.id, j.attempts, j.wtns == wtns("bn")) for j in reopened.pending()] == [("b", 1, True), ("c", 0, True)]
    assert reopened.get("a")["proof"] == {"x": 1} and reopened.get("b")["status"] == "queued"
    assert reopened.purge(now=1e18) == 1 and reopened.get("a") is None
