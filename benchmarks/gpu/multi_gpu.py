"""Several GPUs of one host against one (issue 29): one MSM split across them, and a batch of proofs spread over them.

    python3 benchmarks/gpu/multi_gpu.py msm --devices 0,1 --logs 20,22,24 [--curve bls12_381] [--split points]
    python3 benchmarks/gpu/multi_gpu.py batch --devices 0,1 --log 20 --proofs 16 [--curve bn254]

``msm``: BLS12-381 G1 bases made on each device where they stay (``generator_bases``), scalars from the host; the
wall time of ``msm_prepared`` on the first device alone, then across all of ``--devices`` (:mod:`cuzk.backends.split`),
median of ``--repeat``, with the ratio, and each result checked against the one device's. ``batch``: the
synthetic circuit of the large benchmark (benchmarks/large: ``gates``, a dense witness) at 2^LOG, its key made on
each device, ``--proofs`` proofs on one device (one after another, as ``prove_many`` runs them) against the same
proofs dealt to every device (a prover per device, each job to the first free: what ``prove_spread`` does), proofs
per second of each, every proof verified. ``--devices 0,0`` (two contexts on one GPU) runs every path on a machine
of one GPU (the ratios then say what the split costs, not what it gains). One proof split across the devices is
``CUZK_DEVICE=0,1 python3 benchmarks/large/prove.py --log 20`` against ``CUZK_DEVICE=0``.
"""

from __future__ import annotations

import argparse
import threading
import time
from typing import Any

import numpy as np
from msm_call import median_ms  # run as a script: its folder is on sys.path

from cuzk.backends.registry import get_backend
from cuzk.backends.split import SPLITS, SplitBackend
from cuzk.engine.synthetic import random_elements
from cuzk.reference.curves import curve_by_name


def devices_of(args: argparse.Namespace) -> list[Any]:
    """One backend (``--backend``, cuda by default) per index of ``--devices`` (an index twice: two contexts)."""
    kind = type(get_backend(args.backend))
    return [kind(device=int(index)) for index in args.devices.split(",")]


def msm(args: argparse.Namespace) -> None:
    curve, children = curve_by_name(args.curve), devices_of(args)
    print(f"{'log':>4} {'one GPU ms':>11} {f'{len(children)} GPUs ms':>11} {'ratio':>7}")
    for log in map(int, args.logs.split(",")):
        ms_one, ms_split = msm_walls(curve, children, log, args)
        print(f"{log:>4} {ms_one:>11.2f} {ms_split:>11.2f} {ms_split / ms_one:>7.3f}", flush=True)


def msm_walls(curve: Any, children: list[Any], log: int, args: argparse.Namespace) -> tuple[float, float]:
    """The median wall (ms) of a 2^log G1 MSM on the first device alone and across all of them (results compared)."""
    n = 1 << log
    bases_k, scalars = (random_elements(curve, n, np.random.default_rng(seed)) for seed in (log, log + 100))
    one, split = children[0], SplitBackend(children, split=args.split)
    alone = one.generator_bases(curve, "g1", bases_k)
    spread = split.generator_bases(curve, "g1", bases_k)
    ms_one, want = median_ms(lambda: one.msm_prepared(alone, scalars), args.repeat)
    ms_split, got = median_ms(lambda: split.msm_prepared(spread, scalars), args.repeat)
    assert np.array_equal(want, got), f"2^{log}: the split MSM differs from one device's"
    return ms_one, ms_split


def batch(args: argparse.Namespace) -> None:
    from cuzk.engine.prover import Prover
    from cuzk.engine.setup_arrays import setup_arrays
    from cuzk.engine.synthetic import NUM_INPUTS, gates
    from cuzk.engine.verify import check_made_proof
    from cuzk.engine.witness import SparseQap
    from cuzk.reference.groth16 import random_toxic_waste

    curve, children = curve_by_name(args.curve), devices_of(args)
    constraints = (1 << args.log) - NUM_INPUTS
    circuit = gates(curve, constraints, children[0], witness="dense")
    rows, n = circuit.qap_rows(), circuit.domain_size
    toxic = random_toxic_waste(curve.Fr, n)
    pk = setup_arrays(curve, rows, NUM_INPUTS, circuit.num_variables, toxic, children[0])  # bases on the host
    provers = [Prover(pk, child, verify=False) for child in children]  # each device keeps its own copy
    qaps = [
        SparseQap.from_csr(p.backend, curve, list(rows[:2]), constraints, circuit.num_variables, n) for p in provers
    ]
    z, publics = circuit.z, circuit.public_inputs()

    def run(lanes: list[int]) -> tuple[float, list[Any]]:
        proofs: list[Any] = [None] * args.proofs
        next_job, lock, errors = iter(range(args.proofs)), threading.Lock(), []

        def lane(d: int) -> None:
            try:
                while True:
                    with lock:
                        k = next(next_job, None)
                    if k is None:
                        return
                    w = provers[d].assign(z, qaps[d])  # z uploaded, A·z and B·z on the device: a proof's own work
                    proofs[k] = provers[d].prove_assignment(w.z, w.a, w.b, w.c, z_kept=w.z_kept, abc_kept=w.abc_kept)
            except BaseException as error:
                errors.append(error)

        started = time.perf_counter()
        threads = [threading.Thread(target=lane, args=(d,)) for d in lanes]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        return time.perf_counter() - started, proofs

    run([0])  # programs loaded, plans made
    t_one, one_proofs = run([0])
    t_all, all_proofs = run(list(range(len(children))))
    assert all(check_made_proof(pk.vk, publics, p, children[0]) for p in one_proofs + all_proofs)
    rate_one, rate_all = args.proofs / t_one, args.proofs / t_all
    print(f"{curve.name} 2^{args.log}, {args.proofs} proofs, every one verified")
    print(
        f"one GPU: {rate_one:.2f} proofs/s; {len(children)} GPUs: {rate_all:.2f} proofs/s; {rate_all / rate_one:.2f}×"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    m = sub.add_parser("msm")
    m.add_argument("--devices", default="0,1")
    m.add_argument("--backend", default="cuda")
    m.add_argument("--logs", default="20,22,24")
    m.add_argument("--curve", default="bls12_381")
    m.add_argument("--split", default="points", choices=SPLITS)
    m.add_argument("--repeat", type=int, default=5)
    b = sub.add_parser("batch")
    b.add_argument("--devices", default="0,1")
    b.add_argument("--backend", default="cuda")
    b.add_argument("--log", type=int, default=20)
    b.add_argument("--proofs", type=int, default=16)
    b.add_argument("--curve", default="bn254")
    args = parser.parse_args()
    msm(args) if args.what == "msm" else batch(args)


if __name__ == "__main__":
    main()
