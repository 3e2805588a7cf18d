"""One size of the large-proof benchmark (issue 27): a circuit of 2^k constraints made as arrays, its key made on
the backend and kept there, then proofs of a PoRep-like and a dense witness, each verified.

    python benchmarks/large/prove.py --curve bls12_381 --log 24 --backend cuda --proofs 3 --json out.json

One size per process, so that the peak host memory (the process's maximum resident set) is this size's. The
device's peak is sampled every 20 ms (CuPy's view of the device's free memory: the process's pools included).
Printed: the seconds of each step of making the inputs, then per witness each proof's wall time, its ``prove``
span, the engine's overhead (wall − the union of kernel spans, cuzk.engine.timing) and the phase table of the last
proof; the last line is a JSON summary (also written to --json).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cuzk.backends.cuda import large_blocks
from cuzk.backends.cuda.uploads import allocation_retries
from cuzk.backends.intervals import union_seconds
from cuzk.backends.registry import get_backend, host_backend
from cuzk.engine.prover import Prover
from cuzk.engine.setup_arrays import setup_arrays
from cuzk.engine.synthetic import NUM_INPUTS, describe, gates
from cuzk.engine.timing import Recorder, chrome_trace, compute_spans, overhead, timings_table
from cuzk.engine.verify import check_made_proof
from cuzk.engine.witness import SparseQap, witness_backend
from cuzk.formats.wtns import read_wtns, write_wtns
from cuzk.reference.curves import curve_by_name
from cuzk.reference.groth16 import random_toxic_waste


class DevicePeak:
    """The largest device memory the process holds (total − free: CuPy's pool, its free blocks included) and the
    largest in live arrays (the pool's used bytes), seen by a sampling thread; 0 without CuPy. ``since`` is the
    live arrays' largest since the last :meth:`restart` (the proofs of one witness, apart from the setup's)."""

    def __init__(self, interval: float = 0.02, *, async_pool: bool = False) -> None:
        """``async_pool``: CuPy allocates through CUDA's stream-ordered pool (cudaMallocAsync, whose driver maps
        physical pages, so free memory need not be one piece) instead of its own pool, whose free blocks split."""
        self.peak, self.live_peak, self.since, self._stop = 0, 0, 0, threading.Event()
        self.held_since = 0  # the largest held since the last restart
        self.held_parts: dict[str, int] = {}  # at that peak: the pool (its free blocks), the large arrays, the rest
        try:
            import cupy

            self._info, self._pool = cupy.cuda.runtime.memGetInfo, cupy.get_default_memory_pool()
        except ImportError:
            return
        if async_pool:
            self._pool = cupy.cuda.MemoryAsyncPool()
            cupy.cuda.set_allocator(self._pool.malloc)
        threading.Thread(target=self._sample, args=(interval,), daemon=True).start()

    def _sample(self, interval: float) -> None:
        while not self._stop.is_set():
            free, total = self._info()
            if total - free > self.held_since:  # what the held peak is made of, read at once (approximately)
                pool, pool_free = self._pool.total_bytes(), self._pool.free_bytes()
                self.held_parts = {"pool": pool, "pool_free": pool_free, "large": large_blocks.live_bytes()}
                self.held_parts["rest"] = total - free - pool - self.held_parts["large"]
            self.peak, self.held_since = max(self.peak, total - free), max(self.held_since, total - free)
            used = self._pool.used_bytes() + large_blocks.live_bytes()  # the largest arrays are outside the pool
            self.live_peak, self.since = max(self.live_peak, used), max(self.since, used)
            time.sleep(interval)

    def restart(self) -> None:
        self.since = self.held_since = 0
        self.held_parts = {}

    def now(self) -> str:
        """The device's memory in use now and the share of it CuPy's pool holds unused (empty without CuPy)."""
        if not hasattr(self, "_info"):
            return ""
        free, total = self._info()
        return (
            f"device now {(total - free) / 1e9:.1f} GB in use, of which the pool's free blocks "
            f"{self._pool.free_bytes() / 1e9:.1f} GB; peak so far {self.peak / 1e9:.1f} GB held, "
            f"{self.live_peak / 1e9:.1f} GB in live arrays"
        )

    def stop(self) -> int:
        self._stop.set()
        return self.peak


@contextmanager
def step(log: dict[str, float], name: str) -> Iterator[None]:
    start = time.perf_counter()
    yield
    log[name] = round(time.perf_counter() - start, 3)
    print(f"  {name:<28} {log[name]:9.2f} s", flush=True)


def trim_pool() -> float:
    """Give CuPy's pool's free blocks back to the device (each block whose every part is free); its seconds."""
    start = time.perf_counter()
    try:
        import cupy
    except ImportError:  # no CuPy: no pool
        return 0.0
    cupy.get_default_memory_pool().free_all_blocks()
    return time.perf_counter() - start


def prove_witness(
    prover: Prover, qap: SparseQap, z: Any, proofs: int, trim: bool = False
) -> tuple[list[float], Any, Recorder]:
    """``proofs`` proofs of z; their wall seconds, the last proof and a recorder of the last one alone. ``trim``:
    the pool's free blocks go back to the device after each proof (outside its wall)."""
    walls, proof = [], None
    for _ in range(proofs):
        mark = prover.recorder.mark()
        start = time.perf_counter()
        w = prover.assign(z, qap)
        proof = prover.prove_assignment(w.z, w.a, w.b, w.c, z_kept=w.z_kept, abc_kept=w.abc_kept)
        walls.append(time.perf_counter() - start)
        if trim:
            del w
            print(f"  the pool trimmed in {trim_pool() * 1e3:.1f} ms", flush=True)
    last = Recorder()
    for span in prover.recorder.since(mark):
        last.add(span.name, span.level, span.start, span.end, **span.args)
    return walls, proof, last


def make_inputs(
    curve: Any, backend: Any, g2_backend: Any, log: int, made: dict[str, float], *, g2_beside: bool | None = None
) -> dict[str, Any]:
    """The porep circuit, its key kept on the device (B₂ on the host when B_G2 runs there), the prover and the QAP's
    A and B on the witness backend. ``g2_beside``: B_G2 on a thread beside the G1 MSMs (True) or after them
    (False); None: the engine's default (:func:`~cuzk.engine.lanes.g2_beside`)."""
    constraints = (1 << log) - NUM_INPUTS
    with step(made, "circuit (porep witness)"):
        circuit = gates(curve, constraints, backend, witness="porep")
    counts, qap_rows = describe(circuit), circuit.qap_rows()
    z, publics, num_variables, n = circuit.z, circuit.public_inputs(), circuit.num_variables, circuit.domain_size
    del circuit  # the host keeps z and the QAP's rows (B's and C's shared with the circuit's), not two copies
    setup_start = time.perf_counter()

    def progress(name: str) -> None:
        print(f"    setup: {name} at {time.perf_counter() - setup_start:.2f} s", flush=True)

    with step(made, "setup (key kept on device)"):
        toxic = random_toxic_waste(curve.Fr, n)
        keep = ("g1", "g2") if g2_backend is backend else ("g1",)
        pk = setup_arrays(curve, qap_rows, NUM_INPUTS, num_variables, toxic, backend, keep=keep, progress=progress)
    with step(made, "prover (key's small terms)"):
        prover = Prover(pk, backend, g2_backend=g2_backend, g2_in_parallel=g2_beside, verify=False)
    with step(made, "A, B on the witness backend"):
        where = witness_backend(backend, from_key=True)
        qap = SparseQap.from_csr(where, curve, qap_rows[:2], constraints, num_variables, n)
    return {"pk": pk, "prover": prover, "qap": qap, "z": z, "publics": publics, "counts": counts}


def measure(
    inputs: dict[str, Any], z: Any, publics: Any, label: str, args: Any, device: DevicePeak, made: dict[str, float]
) -> dict[str, Any]:
    """``args.proofs`` proofs of z, the last verified: their figures (printed, with the last one's phase table)."""
    device.restart()
    retries = allocation_retries()
    log = None
    if args.pool_log:
        from pool_log import PoolGrowthLog  # beside this script (on sys.path when it runs), and needs CuPy

        log = PoolGrowthLog(Path(args.pool_log) / f"{label}.jsonl")
    walls, proof, last = prove_witness(inputs["prover"], inputs["qap"], z, args.proofs, args.trim_pool)
    if log is not None:
        print(f"  pool growth ({label}): {log.close()}", flush=True)
    proofs_live, proofs_held, retries = device.since, device.held_since, allocation_retries() - retries
    with step(made, f"verify ({label})"):
        # on the host, as a long-lived prover checks: the device's pairing would leave CUDA's local memory for its
        # final exponentiation's frame reserved for every resident thread (GBs at 2^27's scale: docs/performance.md)
        ok = check_made_proof(inputs["pk"].vk, publics, proof, host_backend(inputs["prover"].backend))
    spent = overhead(last)
    kernels = union_seconds([(span.start, span.end) for span in compute_spans(last)])
    row = {
        "walls_ms": [round(w * 1000, 1) for w in walls],
        "median_ms": round(statistics.median(walls) * 1000, 1),
        "prove_ms": round(last.seconds("prove") * 1000, 1),
        "overhead_pct": round(100 * spent.fraction, 2) if spent else None,
        "wall_overhead_pct": round(100 * (1 - kernels / walls[-1]), 2),
        "verified": ok,
        "device_live_peak_gb": round(proofs_live / 1e9, 2),
        "device_held_peak_gb": round(proofs_held / 1e9, 2),
        "device_held_parts_gb": {part: round(value / 1e9, 2) for part, value in device.held_parts.items()},
        "allocation_retries": retries,
    }
    print(
        f"  {label}: proofs {row['walls_ms']} ms, prove span {row['prove_ms']} ms, "
        f"overhead {row['overhead_pct']} % of it, {row['wall_overhead_pct']} % of the last wall, verified {ok}, "
        f"live arrays at most {row['device_live_peak_gb']} GB (held {row['device_held_peak_gb']} GB: "
        f"{row['device_held_parts_gb']}), "
        f"{retries} allocations tried again (the pool emptied)",
        flush=True,
    )
    print("\n".join("    " + line for line in timings_table(last)), flush=True)
    if args.trace:
        Path(args.trace).mkdir(parents=True, exist_ok=True)
        print(f"  trace: {chrome_trace(last, Path(args.trace) / f'{label}.trace.json')}", flush=True)
    print(f"  {device.now()}", flush=True)
    return row


def through_wtns(
    inputs: dict[str, Any], z: Any, publics: Any, kind: str, args: Any, device: DevicePeak, made: dict[str, float]
) -> dict[str, Any]:
    """z written as a .wtns in ``args.wtns``, read back into the backend's host_array, and proven from there."""
    path = Path(args.wtns) / f"{kind}.wtns"
    with step(made, f"write {kind}.wtns ({z.nbytes / 1e9:.1f} GB)"):
        write_wtns(path, curve_by_name(args.curve).r, z)
    with step(made, f"read {kind}.wtns into host_array"):
        read = read_wtns(path, empty=inputs["prover"].backend.host_array).values
    inputs["prover"].window = None
    row = measure(inputs, read, publics, f"{kind}_wtns", args, device, made)
    path.unlink()
    return row


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--curve", default="bls12_381")
    parser.add_argument("--log", type=int, required=True, help="the domain is 2^LOG (constraints 2^LOG − 2)")
    parser.add_argument("--backend", default="cuda")
    parser.add_argument("--witness", default="porep,dense")
    parser.add_argument("--proofs", type=int, default=3)
    parser.add_argument("--g2-backend", help="where B_G2 runs (default: the backend; cpu: beside it, the seed's way)")
    lane = parser.add_mutually_exclusive_group()  # neither: the engine's default (g2_beside)
    lane.add_argument("--g2-after", action="store_true", help="B_G2 after the G1 MSMs (their memory apart)")
    lane.add_argument("--g2-beside", action="store_true", help="B_G2 on a thread beside the G1 MSMs")
    parser.add_argument("--json")
    parser.add_argument(
        "--apart-fraction", type=float, help="arrays of this fraction of the device's memory or more outside the pool"
    )
    parser.add_argument("--trace", help="a folder: each witness's last proof as a Chrome trace, WITNESS.trace.json")
    parser.add_argument("--async-pool", action="store_true", help="CuPy allocates through CUDA's stream-ordered pool")
    parser.add_argument(
        "--pool-log", help="a folder: each witness's requests that made CuPy's pool grow, WITNESS.jsonl (pool_log.py)"
    )
    parser.add_argument("--wtns", help="a folder: then each witness written there as a .wtns, read back and proven")
    parser.add_argument(
        "--trim-pool",
        action="store_true",
        help="give CuPy's pool's free blocks back to the device after the setup and after each proof",
    )
    parser.add_argument(
        "--pinned-witness",
        action="store_true",
        help="then as many proofs of each witness with z in the backend's host_array (pinned: a prover that makes "
        "its witnesses where the device reads them)",
    )
    parser.add_argument(
        "--compare-window", type=int, help="then as many proofs with every query MSM in this window (c bits)"
    )
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    if args.apart_fraction is not None:  # before the context opens, which installs the allocator
        large_blocks.LARGE_FRACTION = args.apart_fraction
    device = DevicePeak(async_pool=args.async_pool)  # before any allocation
    curve, backend = curve_by_name(args.curve), get_backend(args.backend)
    made: dict[str, float] = {}
    print(f"{curve.name} 2^{args.log} on {backend.name}", flush=True)
    g2_backend = get_backend(args.g2_backend) if args.g2_backend else backend
    g2_beside = True if args.g2_beside else False if args.g2_after else None
    inputs = make_inputs(curve, backend, g2_backend, args.log, made, g2_beside=g2_beside)
    if args.trim_pool:
        print(f"  the pool trimmed after the setup in {trim_pool() * 1e3:.1f} ms; {device.now()}", flush=True)
    z, publics = inputs["z"], inputs["publics"]
    results: dict[str, Any] = {"curve": curve.name, "log": args.log, "backend": backend.name, "made_s": made}
    results["g2_backend"], results["g2_beside"] = g2_backend.name, inputs["prover"].g2_in_parallel
    results["porep_counts"] = inputs["counts"]
    for kind in args.witness.split(","):
        if kind != "porep":
            with step(made, f"witness ({kind})"):
                other = gates(curve, (1 << args.log) - NUM_INPUTS, backend, witness=kind)  # the same matrices
                z, publics = other.z, other.public_inputs()
                del other
        for window in (None, *([args.compare_window] if args.compare_window else [])):
            label = kind if window is None else f"{kind}_w{window}"
            inputs["prover"].window = window
            results[label] = measure(inputs, z, publics, label, args, device, made)
        if args.wtns:
            results[f"{kind}_wtns"] = through_wtns(inputs, z, publics, kind, args, device, made)
        if args.pinned_witness:
            with step(made, f"z into pinned memory ({kind})"):
                pinned = backend.host_array(z.shape, z.dtype)
                pinned[...] = z
            inputs["prover"].window = None
            results[f"{kind}_pinned"] = measure(inputs, pinned, publics, f"{kind}_pinned", args, device, made)
            del pinned
    results["device_peak_gb"] = round(device.stop() / 1e9, 2)
    results["device_live_peak_gb"] = round(device.live_peak / 1e9, 2)
    results["host_peak_gb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9, 2)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
