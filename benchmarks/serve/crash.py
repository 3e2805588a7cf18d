"""The crash test at scale (issue 26): 200 asynchronous jobs, ``kill -9`` of the server at random points (during the
submissions too), a restart after each, until every job is done; then 200 results, each verified, none duplicated.

    python benchmarks/serve/crash.py [--jobs 200] [--kills 4] [--curve bn] [--backend cpu] [--seed 1]

A client submits every job with its own id (Idempotency-Key) and, when the server dies under it, submits the ones
not acknowledged again after the restart: an id is one job, so a job acknowledged before the crash is not doubled.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import signal
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import aiohttp
from common import Server, fixture, machine, make_keys, today, verified  # run as a script: its folder is on sys.path


async def submit(url: str, curve: str, ids: list[str], acknowledged: set[str]) -> None:
    """Submit every id not yet acknowledged, 16 at a time; stops quietly when the server dies."""
    witness = (fixture(curve) / "witness.wtns").read_bytes()
    pending = [i for i in ids if i not in acknowledged]
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=16)) as session:

        async def one(job_id: str) -> None:
            headers = {"Idempotency-Key": job_id}
            async with session.post(f"{url}/jobs?key={curve}", data=witness, headers=headers) as response:
                if response.status in (200, 202):
                    acknowledged.add(job_id)

        await asyncio.gather(*(one(i) for i in pending), return_exceptions=True)  # a dead server: retried later


async def results(url: str, ids: list[str], timeout: float) -> dict[str, dict]:
    """Every job once done (polling), or whatever is done at ``timeout``."""
    done: dict[str, dict] = {}
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as session:
        while len(done) < len(ids) and time.monotonic() < deadline:
            for job_id in [i for i in ids if i not in done]:
                async with session.get(f"{url}/jobs/{job_id}") as response:
                    row = await response.json()
                if row.get("status") in ("done", "failed"):
                    done[job_id] = row
            await asyncio.sleep(0.2)
    return done


def run(args: argparse.Namespace, base: Path) -> tuple[dict[str, dict], list[tuple[str, str, int]], int]:
    rng, keys, state = random.Random(args.seed), make_keys(base / "keys", args.curve), base / "state"
    ids, acknowledged, kills = [f"job-{i:04d}" for i in range(args.jobs)], set(), 0
    while kills < args.kills:
        server = Server(keys, state, args.backend, "--queue", str(args.jobs))
        url = server.start()
        when = rng.uniform(0.05, 2.0)
        print(f"start {kills + 1}: {len(acknowledged)} acknowledged; kill -9 after {when:.2f} s", flush=True)

        async def until_killed(url: str = url, when: float = when, server: Server = server) -> None:
            task = asyncio.create_task(submit(url, args.curve, ids, acknowledged))
            await asyncio.sleep(when)
            server.stop(signal.SIGKILL)
            await task

        asyncio.run(until_killed())
        kills += 1
    server = Server(keys, state, args.backend, "--queue", str(args.jobs))
    url = server.start()
    asyncio.run(submit(url, args.curve, ids, acknowledged))
    done = asyncio.run(results(url, ids, args.timeout))
    server.stop()
    with sqlite3.connect(state / "jobs.sqlite3") as db:
        rows = db.execute("SELECT id, status, attempts FROM jobs").fetchall()
    return done, rows, kills


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--kills", type=int, default=4)
    parser.add_argument("--curve", choices=["bn", "bls"], default="bn")
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        done, rows, kills = run(args, Path(folder))
    good = sum(row.get("status") == "done" and verified(args.curve, row) for row in done.values())
    ids = [row[0] for row in rows]
    attempts = Counter(row[2] for row in rows)
    print(f"\n{today()}, {machine()}; backend {args.backend}")
    print("command: python benchmarks/serve/crash.py " + " ".join(sys.argv[1:]))
    print(
        f"{args.jobs} jobs, {kills} kill -9: {len(done)} results, {good} verified; journal rows {len(ids)}, "
        f"distinct ids {len(set(ids))}; runs per job {dict(sorted(attempts.items()))}; "
        f"{time.perf_counter() - began:.0f} s"
    )
    ok = good == args.jobs and len(ids) == len(set(ids)) == args.jobs
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
