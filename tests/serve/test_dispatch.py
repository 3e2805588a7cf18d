"""The rules shared by the prover processes and the Ray actors for jobs whose prover died (cuzk.serve.dispatch):
sent again ahead of the queue, MAX_DISPATCHES times in all, a settled job's count forgotten; the last worker to
stop answers the synchronous jobs still waiting 503."""

from __future__ import annotations

from cuzk.serve.dispatch import MAX_DISPATCHES, Dispatches
from cuzk.serve.jobs import FAILED, Job, Outcome
from cuzk.serve.worker import Hooks


def recorder() -> tuple[Hooks, list[tuple[str, Outcome]]]:
    finished: list[tuple[str, Outcome]] = []
    hooks = Hooks(claim=lambda job: True, finish=lambda job, outcome: finished.append((job.id, outcome)), observe=print)
    return hooks, finished


def test_a_lost_job_is_sent_again_then_fails_naming_the_provers() -> None:
    pool, (hooks, finished) = Dispatches("prover processes"), recorder()
    job = Job("j", "bn", b"", durable=True)
    for _ in range(MAX_DISPATCHES - 1):  # sent MAX_DISPATCHES times in all
        pool.sent(job)
        pool.lost(job, hooks, "killed")
        assert pool.take_retry() is job and finished == []
    pool.sent(job)
    pool.lost(job, hooks, "pid 7 was killed by signal SIGKILL")
    assert pool.take_retry() is None
    [(job_id, outcome)] = finished
    assert job_id == "j" and outcome.status == FAILED and outcome.http == 500
    assert outcome.error == "internal error: the job lost 3 prover processes (last: pid 7 was killed by signal SIGKILL)"


def test_a_settled_job_starts_its_count_again_and_a_put_back_one_comes_first() -> None:
    pool, (hooks, finished) = Dispatches("Ray actors"), recorder()
    first, second = Job("a", "bn", b"", durable=True), Job("b", "bn", b"", durable=True)
    for _ in range(MAX_DISPATCHES):
        pool.sent(first)
    pool.settled(first)  # its outcome was recorded: the count is forgotten
    pool.sent(first)
    pool.lost(first, hooks, "lost")
    pool.put_back(second)  # taken, never sent: first in line, not counted
    assert finished == [] and pool.has_retry()
    assert pool.take_retry() is second and pool.take_retry() is first and not pool.has_retry()


def test_the_last_worker_to_leave_answers_the_waiting_synchronous_jobs() -> None:
    pool, (hooks, _) = Dispatches("prover processes"), recorder()
    answers: list[Outcome] = []
    waiting = Job("s", "bn", b"", durable=False, notify=answers.append)
    journaled = Job("d", "bn", b"", durable=True)
    pool.enter()
    pool.enter()
    for job in (waiting, journaled):
        pool.sent(job)
        pool.lost(job, hooks, "lost")
    pool.leave()
    assert answers == [] and pool.has_retry()  # a worker is left to send them
    pool.leave()
    assert [(a.http, a.error) for a in answers] == [(503, "the server is shutting down")] and not pool.has_retry()
