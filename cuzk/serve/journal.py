"""The journal of asynchronous jobs: one SQLite database in the state directory (``jobs.sqlite3``, WAL mode, every
write committed with ``synchronous=FULL`` before the call returns).

A job's row, with its witness, is committed before the client gets its 202, so an accepted job survives a crash
of the process or of the machine. Its states: ``queued`` → ``running`` (claimed by a worker; ``attempts`` counts
the claims) → ``done`` (the result kept, the witness dropped) or ``failed`` (the reason kept); or ``queued`` →
``cancelled``. Every change is conditional on the state it leaves, so a job is claimed once, and a result that
comes after a timeout or a cancellation is not written. At start, :meth:`Journal.pending` puts the jobs a crash
left ``running`` back to ``queued``: every unfinished job runs again. A finished job stays until ``ttl`` seconds
after it finished (then :meth:`Journal.purge` removes it), or until the client deletes it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from typing import Any

from cuzk.serve.jobs import CANCELLED, DONE, QUEUED, RUNNING, Job, Outcome

SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    key TEXT NOT NULL,
    digest TEXT NOT NULL,
    status TEXT NOT NULL,
    witness BLOB,
    accepted REAL NOT NULL,
    started REAL,
    finished REAL,
    expires REAL,
    attempts INTEGER NOT NULL DEFAULT 0,
    result TEXT,
    error TEXT
)
"""
COLUMNS = "id, key, digest, status, accepted, started, finished, attempts, result, error"
FILE = "jobs.sqlite3"


class Journal:
    """The jobs table of ``folder``/jobs.sqlite3: one connection shared by the handlers and the workers, one
    statement at a time (a lock), each its own committed transaction."""

    def __init__(self, folder: str, *, ttl: float = 86400.0) -> None:
        os.makedirs(folder, exist_ok=True)
        self.path, self.ttl = os.path.join(folder, FILE), ttl
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _run(self, sql: str, *args: Any) -> sqlite3.Cursor:
        with self._lock:
            return self._db.execute(sql, args)

    def add(self, job: Job, digest: str) -> dict[str, Any] | None:
        """Journal ``job`` as queued, committed when this returns; or, when its id is already journaled, that
        job's row (nothing written: an id names one job)."""
        with self._lock:
            row = self._db.execute(f"SELECT {COLUMNS} FROM jobs WHERE id = ?", (job.id,)).fetchone()
            if row is not None:
                return _row(row)
            self._db.execute(
                "INSERT INTO jobs (id, key, digest, status, witness, accepted) VALUES (?, ?, ?, ?, ?, ?)",
                (job.id, job.key, digest, QUEUED, job.wtns, job.accepted),
            )
            return None

    def get(self, job_id: str) -> dict[str, Any] | None:
        """The job's row (without its witness) as a dict, the result decoded; None when there is none."""
        row = self._run(f"SELECT {COLUMNS} FROM jobs WHERE id = ?", job_id).fetchone()
        return None if row is None else _row(row)

    def claim(self, job_id: str, started: float) -> int | None:
        """Mark the queued job running; its attempt number, or None when it is not queued (cancelled meanwhile)."""
        cursor = self._run(
            "UPDATE jobs SET status = ?, started = ?, attempts = attempts + 1 WHERE id = ? AND status = ?",
            RUNNING,
            started,
            job_id,
            QUEUED,
        )
        if cursor.rowcount != 1:
            return None
        return int(self._run("SELECT attempts FROM jobs WHERE id = ?", job_id).fetchone()[0])

    def finish(self, job_id: str, outcome: Outcome) -> bool:
        """Write how the running job ended (the witness dropped); False when it was not running any more."""
        now = time.time()
        result = json.dumps(outcome.result) if outcome.result is not None else None
        cursor = self._run(
            "UPDATE jobs SET status = ?, result = ?, error = ?, finished = ?, expires = ?, witness = NULL "
            "WHERE id = ? AND status = ?",
            outcome.status,
            result,
            outcome.error,
            now,
            now + self.ttl,
            job_id,
            RUNNING,
        )
        return cursor.rowcount == 1

    def cancel(self, job_id: str) -> bool:
        """Cancel the job if it is still queued."""
        now = time.time()
        cursor = self._run(
            "UPDATE jobs SET status = ?, finished = ?, expires = ?, witness = NULL WHERE id = ? AND status = ?",
            CANCELLED,
            now,
            now + self.ttl,
            job_id,
            QUEUED,
        )
        return cursor.rowcount == 1

    def delete(self, job_id: str) -> bool:
        """Forget a finished job (its result fetched)."""
        cursor = self._run("DELETE FROM jobs WHERE id = ? AND status NOT IN (?, ?)", job_id, QUEUED, RUNNING)
        return cursor.rowcount == 1

    def pending(self) -> list[Job]:
        """Every unfinished job, oldest first, as queued jobs: those a crash left running are queued again."""
        self._run("UPDATE jobs SET status = ? WHERE status = ?", QUEUED, RUNNING)
        rows = self._run(
            "SELECT id, key, witness, accepted, attempts FROM jobs WHERE status = ? ORDER BY seq", QUEUED
        ).fetchall()
        return [Job(i, k, bytes(w), True, accepted=a, attempts=n) for i, k, w, a, n in rows]

    def purge(self, now: float | None = None) -> int:
        """Remove the finished jobs whose results expired; how many."""
        now = time.time() if now is None else now
        cursor = self._run("DELETE FROM jobs WHERE expires IS NOT NULL AND expires < ?", now)
        return cursor.rowcount

    def counts(self) -> dict[str, int]:
        """The number of jobs in each state."""
        return dict(self._run("SELECT status, COUNT(*) FROM jobs GROUP BY status").fetchall())


def _row(row: tuple[Any, ...]) -> dict[str, Any]:
    record = dict(zip(COLUMNS.split(", "), row, strict=True))
    result = record.pop("result")
    if record["status"] == DONE and result is not None:
        record.update(json.loads(result))
    if record["error"] is None:
        del record["error"]
    return record


__all__ = ["FILE", "Journal"]
