"""A proof from files made several times in one process (issue 24): what a process's first proof pays beyond a
warm one (numba's start and kernel loads on the cpu backend, a device's start on a GPU), phase by phase.

    python benchmarks/e2e/in_process.py KEY.zkey WITNESS.wtns --backend cpu --runs 3
"""

from __future__ import annotations

import argparse
import time

from cuzk.engine.files_job import prove_files

PHASES = ("read_key", "backend", "prepare", "compute_h", "msm_b_g2", "msm_a_g1", "prove")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("zkey")
    parser.add_argument("witness")
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{'run':>3} {'whole ms':>9} " + " ".join(f"{name:>9}" for name in PHASES))
    for run in range(args.runs):
        started = time.perf_counter()
        done = prove_files(args.zkey, args.witness, backend_name=args.backend, verify_proof=False)
        whole = time.perf_counter() - started
        spans = {s.name: s.end - s.start for s in done.recorder.spans if s.level == "engine"}
        row = " ".join(f"{1e3 * spans[name]:>9.0f}" if name in spans else f"{'-':>9}" for name in PHASES)
        print(f"{run:>3} {1e3 * whole:>9.0f} {row}", flush=True)


if __name__ == "__main__":
    main()
