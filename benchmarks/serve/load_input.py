"""Load on ``cuzk serve`` with a key of the end-to-end benchmark (benchmarks/e2e/make_inputs.py: DIR holds
circuit.zkey and witness.wtns), for the issue-26 goals at 2^20 constraints on a GPU: sustained proofs/s and the
latency at low load.

    python benchmarks/serve/load_input.py DIR [--backend cuda] [--clients 1 4 16] [--requests 200]

Every reply's proof is checked after the timed run against the key's verifying key (the pairing equation) and the
witness's public signals.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from pathlib import Path

from common import Server, machine, phase_means, today  # run as a script: its folder is on sys.path
from load import post_all, print_latency_table

from cuzk.backends.registry import get_backend
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", type=Path, help="a folder with circuit.zkey and witness.wtns")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--backend", default="cuda")
    args = parser.parse_args()
    witness = (args.input / "witness.wtns").read_bytes()
    rows, replies = [], []
    with tempfile.TemporaryDirectory() as folder:
        keys = Path(folder) / "keys"
        keys.mkdir()
        shutil.copy(args.input / "circuit.zkey", keys / "input.zkey")
        started = time.perf_counter()
        server = Server(keys, Path(folder) / "state", args.backend, "--queue", "1024")
        url = server.start()
        print(f"server up in {time.perf_counter() - started:.1f} s", flush=True)
        try:
            asyncio.run(post_all(url, "input", witness, 1, 5))
            for clients in args.clients:
                wall, latencies, got = asyncio.run(post_all(url, "input", witness, clients, args.requests))
                rows.append((clients, args.requests / wall, latencies))
                replies += got
                print(f"{clients:3} clients: {args.requests / wall:7.1f} proofs/s", flush=True)
            phases = phase_means(url)
        finally:
            server.stop()
    bad = check(args.input, replies)
    print(f"\n{today()}, {machine()}; backend {args.backend}, {args.input}")
    print("command: python benchmarks/serve/load_input.py " + " ".join(sys.argv[1:]))
    print_latency_table("clients", rows)
    print("\n| phase (engine, all runs) | spans | mean ms |\n|---|---|---|")
    for phase, (count, mean) in sorted(phases.items(), key=lambda item: -item[1][1]):
        print(f"| {phase} | {count} | {1000 * mean:.2f} |")
    print(f"\n{len(replies) - bad} of {len(replies)} proofs verified")


if __name__ == "__main__":
    main()
