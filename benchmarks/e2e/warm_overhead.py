"""A warm proof's engine overhead (issue 24: ≤ 5 % at 2^20): proofs from a .zkey and a .wtns made again and again in
one process, the key resident, as a long-lived prover makes them; for each, the ``prove`` span's wall, the union of
its kernel spans and the rest (the engine's overhead), and the largest gaps of the last one.

    python benchmarks/e2e/warm_overhead.py KEY.zkey WITNESS.wtns --backend cuda --proofs 10

The first proofs (warm-up, by default 2) are left out of the medians. The host's kernels that a long-lived prover
uses beside a device (its small MSMs, the check's pairing) are made ready first, as `cuzk serve` does before it
listens (``--cold-host``: not, as on a fresh machine whose prover then runs them on the device).
"""

from __future__ import annotations

import argparse
import statistics
import time

from cuzk.backends.protocol import KEPT_SCALARS, has_capability
from cuzk.backends.registry import get_backend
from cuzk.engine.timing import Recorder, chrome_trace, overhead, overhead_gaps
from cuzk.engine.warm import warm_up
from cuzk.engine.zkey import ZkeyProver
from cuzk.formats.wtns import read_wtns
from cuzk.formats.zkey import read_zkey


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("zkey")
    parser.add_argument("witness")
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--proofs", type=int, default=10)
    parser.add_argument("--warm-up", type=int, default=2)
    parser.add_argument(
        "--g2", choices=("beside", "after"), help="B_G2 beside the G1 MSMs or after them (default: the engine's)"
    )
    parser.add_argument("--trace", help="the last proof as a Chrome trace, written to this file")
    parser.add_argument(
        "--cold-host", action="store_true", help="do not first make the host's kernels ready (a server does)"
    )
    args = parser.parse_args()
    lane = {"beside": True, "after": False, None: None}[args.g2]
    zkey, backend = read_zkey(args.zkey), get_backend(args.backend)
    if not args.cold_host:  # as `cuzk serve` does before it listens: the small MSMs and the check on the host
        with warm_up(backend, zkey.curve, "prove", from_key=True, long_lived=True) as warming:
            warming.wait()
    prover = ZkeyProver(zkey, backend, verify=False, g2_in_parallel=lane)
    print(f"B_G2 {'beside' if prover.g2_in_parallel else 'after'} the G1 MSMs", flush=True)
    empty = prover.backend.host_array if has_capability(prover.backend, KEPT_SCALARS) else None
    values = read_wtns(args.witness, **({"empty": empty} if empty else {})).values
    rows = []
    print(f"{'proof':>5} {'wall ms':>8} {'prove ms':>9} {'kernels ms':>11} {'overhead ms':>12} {'%':>6}")
    for number in range(args.warm_up + args.proofs):
        mark = prover.recorder.mark()
        started = time.perf_counter()
        w = prover.stage(prover.assign(values, prover.key_qap))
        prover.prove_assignment(w.z, w.a, w.b, w.c, z_kept=w.z_kept, abc_kept=w.abc_kept)
        wall = time.perf_counter() - started
        last = Recorder()
        for span in prover.recorder.since(mark):
            last.add(span.name, span.level, span.start, span.end, **span.args)
        split = overhead(last)
        assert split is not None, "no prove span was recorded"
        print(
            f"{number:>5} {wall * 1e3:>8.2f} {split.total * 1e3:>9.2f} {split.compute * 1e3:>11.2f} "
            f"{split.overhead * 1e3:>12.2f} {split.fraction * 100:>6.2f}",
            flush=True,
        )
        if number >= args.warm_up:
            rows.append((wall, split.total, split.overhead, split.fraction))
    wall, total, spent, fraction = (statistics.median(column) for column in zip(*rows, strict=True))
    print(
        f"medians of {len(rows)}: wall {wall * 1e3:.2f} ms, prove {total * 1e3:.2f} ms, "
        f"overhead {spent * 1e3:.2f} ms ({fraction * 100:.2f} %)"
    )
    gaps = sorted(overhead_gaps(last), key=lambda gap: gap.start - gap.end)[:5]
    print(
        "largest gaps of the last: "
        + "; ".join(f"{(g.end - g.start) * 1e3:.2f} ms {g.before} → {g.after}" for g in gaps)
    )
    if args.trace:
        print(f"trace: {chrome_trace(last, args.trace)}")


if __name__ == "__main__":
    main()
