"""Load on ``cuzk serve --ray`` beside the embedded server, in the same run: N concurrent clients proving with one
key over HTTP, against the server with its local worker, then against the same server proving on Ray actors.

    python benchmarks/serve/ray_load.py [--curve bn|bls] [--clients 1 4 16] [--requests 200] [--ray-workers 2]
                                        [--ray auto|ADDRESS] [--backend cpu]

``--ray auto`` (the default) starts a local Ray instance for the server (or joins the one running on this machine).
Prints the seconds each server took to start, the proofs/s and the latency percentiles (request to reply) at each
concurrency, and a Markdown table. Every reply's proof is checked after the timed run (load.py's ``load``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from common import machine, today  # run as a script: its folder is on sys.path
from load import measure, print_latency_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--curve", choices=["bn", "bls"], default="bn")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--ray-workers", type=int, default=2)
    parser.add_argument("--ray", default="auto", metavar="auto|ADDRESS")
    parser.add_argument("--backend", default="cpu")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        rows = measure(args, base, "embedded, 1 worker", [])
        ray = ["--ray", args.ray, "--ray-workers", str(args.ray_workers)]
        rows += measure(args, base, f"--ray, {args.ray_workers} {args.backend} actors", ray)
    print(f"\n{today()}, {machine()}; backend {args.backend}, the {args.curve} fixture (50 constraints)")
    print("command: python benchmarks/serve/ray_load.py " + " ".join(sys.argv[1:]))
    print_latency_table("how", rows)


if __name__ == "__main__":
    main()
