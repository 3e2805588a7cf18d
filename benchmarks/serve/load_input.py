"""Load on ``cuzk serve`` with a key of the end-to-end benchmark (benchmarks/e2e/make_inputs.py: DIR holds
circuit.zkey and witness.wtns), for the issue-26 goals at 2^20 constraints on a GPU: sustained proofs/s and the
latency at low load.

    python benchmarks/serve/load_input.py DIR [--backend cuda] [--clients 1 4 16] [--requests 200]
                                              [--workers threads processes]

Each ``--workers`` mode given gets a server of its own, one after the other, on the same key: the provers in the
server's threads or in processes of their own. Every reply's proof is checked after the timed runs against the
key's verifying key (the pairing equation) and the witness's public signals.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from pathlib import Path

from common import Server, machine, phase_means, phase_totals, today  # run as a script: its folder is on sys.path
from load import post_all, print_latency_table

from cuzk.backends.registry import get_backend
from cuzk.cli.serve import WORKER_MODES
from cuzk.engine.verify import check_made_proof
from cuzk.formats import snarkjs_json
from cuzk.formats.wtns import read_wtns
from cuzk.formats.zkey import read_zkey
from cuzk.reference.groth16 import Proof


def check(folder: Path, replies: list[dict]) -> int:
    """How many replies do not verify."""
    zkey = read_zkey(folder / "circuit.zkey", check_points=False)
    vk, cpu = zkey.verifying_key(), get_backend("cpu")
    public = read_wtns(folder / "witness.wtns").ints()[1 : zkey.num_public + 1]
    bad = 0
    for reply in replies:
        p = reply["proof"]
        proof = Proof(
            a=snarkjs_json.point_from_json(vk.curve.g1, p["pi_a"], "pi_a", "reply"),
            b=snarkjs_json.point_from_json(vk.curve.g2, p["pi_b"], "pi_b", "reply"),
            c=snarkjs_json.point_from_json(vk.curve.g1, p["pi_c"], "pi_c", "reply"),
        )
        ok = [int(v) for v in reply["public"]] == public and check_made_proof(vk, public, proof, cpu)
        bad += not ok
    return bad


def serve_rows(args: argparse.Namespace, workers: str, keys: Path, state: Path) -> tuple[list, list, dict]:
    """A server with ``--workers workers`` under each concurrency of ``args.clients``: (a row each, the replies, the
    engine's phases from its metrics, per row)."""
    witness = (args.input / "witness.wtns").read_bytes()
    rows, replies, phases = [], [], {}
    started = time.perf_counter()
    server = Server(keys, state, args.backend, "--queue", "1024", "--workers", workers)
    url = server.start()
    print(f"{workers}: server up in {time.perf_counter() - started:.1f} s", flush=True)
    try:
        asyncio.run(post_all(url, "input", witness, 1, 5))
        for clients in args.clients:
            before = phase_totals(url)
            wall, latencies, got = asyncio.run(post_all(url, "input", witness, clients, args.requests))
            name = f"{workers}, {clients}"
            rows.append((name, args.requests / wall, latencies))
            phases[name] = phase_means(phase_totals(url), before)
            replies += got
            print(f"{workers:9} {clients:3} clients: {args.requests / wall:7.1f} proofs/s", flush=True)
    finally:
        server.stop()
    return rows, replies, phases


def print_phases(phases: dict[str, dict[str, tuple[int, float]]], shown: int = 10) -> None:
    """A row per (workers, clients), a column per engine phase (mean ms), the phases longest overall first."""
    overall: dict[str, float] = {}
    for found in phases.values():
        for phase, (_, mean) in found.items():
            overall[phase] = max(overall.get(phase, 0.0), mean)
    columns = sorted(overall, key=lambda phase: -overall[phase])[:shown]
    print("\n| workers, clients | " + " | ".join(f"{phase} ms" for phase in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for name, found in phases.items():
        cells = [f"{1000 * found[phase][1]:.2f}" if phase in found else "" for phase in columns]
        print(f"| {name} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", type=Path, help="a folder with circuit.zkey and witness.wtns")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--backend", default="cuda")
    parser.add_argument("--workers", choices=WORKER_MODES, nargs="+", default=["threads"], help="the modes compared")
    args = parser.parse_args()
    rows, replies, phases = [], [], {}
    with tempfile.TemporaryDirectory() as folder:
        keys = Path(folder) / "keys"
        keys.mkdir()
        shutil.copy(args.input / "circuit.zkey", keys / "input.zkey")
        for workers in args.workers:
            got_rows, got, found = serve_rows(args, workers, keys, Path(folder) / f"state-{workers}")
            rows, replies, phases = rows + got_rows, replies + got, phases | found
    bad = check(args.input, replies)
    print(f"\n{today()}, {machine()}; backend {args.backend}, {args.input}")
    print("command: python benchmarks/serve/load_input.py " + " ".join(sys.argv[1:]))
    print_latency_table("workers, clients", rows)
    print_phases(phases)
    print(f"\n{len(replies) - bad} of {len(replies)} proofs verified")


if __name__ == "__main__":
    main()
