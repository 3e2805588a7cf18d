"""Load on ``cuzk serve``: N concurrent clients proving with one key over HTTP, against one ``cuzk groth16 prove``
process per proof (the issue-26 goal: ≥ 10× its throughput for a small circom circuit on the cpu backend).

    python benchmarks/serve/load.py [--curve bn|bls] [--clients 8] [--requests 200] [--baseline 5] [--backend cpu]
                                    [--workers threads processes]

Prints the proofs/s and the latency percentiles (request to reply, as a client sees it) at each concurrency, for
each ``--workers`` mode given (a server each, one after the other: the provers in the server's threads or in
processes of their own), the one-process-per-proof figures, and a Markdown table. Every reply's proof is checked
(its points on the curve and in the subgroup, the pairing equation) after the timed run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
from common import Server, fixture, machine, make_keys, today, verified  # run as a script: its folder is on sys.path

from cuzk.cli.serve import WORKER_MODES


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def print_latency_table(first: str, rows: list[tuple[object, float, list[float]]]) -> None:
    """The markdown table of rows (label, proofs/s, latencies in seconds): rate and p50, p90, p99 in ms."""
    print(f"\n| {first} | proofs/s | p50 ms | p90 ms | p99 ms |\n|---|---|---|---|---|")
    for label, rate, latencies in rows:
        cells = " | ".join(f"{1000 * percentile(latencies, q):.0f}" for q in (0.5, 0.9, 0.99))
        print(f"| {label} | {rate:.1f} | {cells} |")


async def post_all(
    url: str, key: str, witness: bytes, clients: int, requests: int
) -> tuple[float, list[float], list[dict]]:
    """``requests`` POST /prove of ``witness`` for ``key`` from ``clients`` concurrent clients: (wall seconds, each
    latency, each reply)."""
    latencies: list[float] = []
    replies: list[dict] = []
    left = list(range(requests))
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=clients)) as session:

        async def client() -> None:
            while left:
                left.pop()
                began = time.perf_counter()
                async with session.post(f"{url}/prove?key={key}", data=witness) as response:
                    result = await response.json()
                latencies.append(time.perf_counter() - began)
                if response.status != 200:
                    raise RuntimeError(f"a bad reply: {response.status} {result}")
                replies.append(result)

        began = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(clients)))
        return time.perf_counter() - began, latencies, replies


async def load(url: str, curve: str, clients: int, requests: int) -> tuple[float, list[float]]:
    """``requests`` proofs of the fixture's witness: (wall seconds, each latency); every reply verified."""
    witness = (fixture(curve) / "witness.wtns").read_bytes()
    wall, latencies, replies = await post_all(url, curve, witness, clients, requests)
    bad = sum(not verified(curve, result) for result in replies)  # checked after the clock: not in the client loop
    if bad:
        raise RuntimeError(f"{bad} of {len(replies)} proofs do not verify")
    return wall, latencies


def one_process_per_proof(curve: str, backend: str, count: int, folder: Path) -> list[float]:
    """Seconds of each ``cuzk groth16 prove`` run as its own process (what a snarkjs-style script does)."""
    times = []
    for i in range(count):
        argv = [sys.executable, "-m", "cuzk.cli", "groth16", "prove", str(fixture(curve) / "circuit_final.zkey")]
        argv += [str(fixture(curve) / "witness.wtns"), str(folder / f"p{i}.json"), str(folder / f"pub{i}.json")]
        began = time.perf_counter()
        subprocess.run([*argv, "--backend", backend, "--quiet"], check=True, capture_output=True)
        times.append(time.perf_counter() - began)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--curve", choices=["bn", "bls"], default="bn")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--baseline", type=int, default=5, help="one-process-per-proof runs (0: none)")
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--workers", choices=WORKER_MODES, nargs="+", default=["threads"], help="the modes compared")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        for workers in args.workers:
            rows += measure(args, base, f"serve ({workers})", ["--workers", workers])
        times = one_process_per_proof(args.curve, args.backend, args.baseline, base)
    if times:  # --baseline 0: no row of one process per proof
        rows.append(("one `cuzk groth16 prove` process per proof", 1 / statistics.mean(times), times))
    report(args, rows)


def measure(args: argparse.Namespace, base: Path, how: str, extra: list[str]) -> list[tuple[str, float, list[float]]]:
    """Start a server with ``extra`` options (its keys and state in a new folder of ``base``), warm it, then the
    load at each concurrency of ``args.clients``: (row name, proofs/s, latencies) per concurrency."""
    run = Path(tempfile.mkdtemp(dir=base))
    server = Server(make_keys(run / "keys", args.curve), run / "state", args.backend, "--queue", "1024", *extra)
    began = time.perf_counter()
    url = server.start()
    print(f"{how}: started in {time.perf_counter() - began:.1f} s", flush=True)
    rows = []
    try:
        asyncio.run(load(url, args.curve, 2, 10))  # every worker's first proofs pay numba's dispatch
        for clients in args.clients:
            wall, latencies = asyncio.run(load(url, args.curve, clients, args.requests))
            rows.append((f"{how}, {clients} client(s)", args.requests / wall, latencies))
            print(f"{how}, {clients:3} clients: {args.requests / wall:7.1f} proofs/s", flush=True)
    finally:
        server.stop()
    return rows


def report(args: argparse.Namespace, rows: list[tuple[str, float, list[float]]]) -> None:
    print(f"\n{today()}, {machine()}; backend {args.backend}, the {args.curve} fixture (50 constraints)")
    print("command: python benchmarks/serve/load.py " + " ".join(sys.argv[1:]))
    print_latency_table("how", rows)
    if args.baseline:  # the last row is one process per proof
        best = max(rate for how, rate, _ in rows[:-1])
        print(f"\nthe server's best throughput is {best / rows[-1][1]:.0f}× one process per proof")


if __name__ == "__main__":
    main()
