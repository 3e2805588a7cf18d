"""The ``cuzk`` command line.

    cuzk info                                   every registered backend: available or not and why, devices
    cuzk walkthrough [--curve toy|bn254|…]      Groth16 on x³ + x + 5 = 35, every intermediate printed
    cuzk prove [--circuit mimc] [--constraints N] [--curve bn254] [--backend NAME] [--proofs K]
               [--timings] [--trace FILE] [--verify] [--quiet] [--device I] [--threads T] [--window C]
                                                setup, prove and verify a circuit defined in the project
    cuzk bench [--backend NAME] [--msm 10-18] [--msm-g2 10-16] [--ntt 10-20]
                                                MSM/NTT medians of a backend
    cuzk groth16 prove <zkey> <wtns> <proof.json> <public.json>     as snarkjs, on any backend
    cuzk groth16 verify <vk.json> <public.json> <proof.json>         OK / INVALID
    cuzk groth16 setup <circuit.r1cs> <circuit.zkey>                 one-party setup (development only)
    cuzk zkey export verificationkey|bellman …, cuzk wtns check …    see docs/interop.md

Errors that a user can cause (a bad option, an unavailable backend) print one line and exit with status 2;
they never print a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence

from cuzk.reference.errors import CuzkError


def _cmd_info(args: argparse.Namespace) -> int:
    from cuzk.backends.registry import format_backend_table, format_backend_text

    try:
        from rich.console import Console
    except ImportError:  # rich is optional at run time: plain text on machines without it
        print(format_backend_text())
        return 0
    Console().print(format_backend_table())
    return 0


def _cmd_walkthrough(args: argparse.Namespace) -> int:
    from cuzk.walkthrough import run_walkthrough

    names = ["toy", "bn254", "bls12_381"] if args.curve == "all" else [args.curve]
    return 0 if all([run_walkthrough(name) for name in names]) else 1


def _apply_engine_options(args: argparse.Namespace) -> None:
    """The engine's options mirror the environment: --device sets CUZK_DEVICE, --threads CUZK_THREADS."""
    if getattr(args, "device", None) is not None:
        os.environ["CUZK_DEVICE"] = str(args.device)
    if getattr(args, "threads", None) is not None:
        if args.threads < 1:
            raise CuzkError(f"--threads must be at least 1, got {args.threads}")
        os.environ["CUZK_THREADS"] = str(args.threads)


def _cmd_prove(args: argparse.Namespace) -> int:
    from cuzk.circuit_job import prove_circuit
    from cuzk.progress import progress_display
    from cuzk.timing import chrome_trace, timings_table

    _apply_engine_options(args)
    for option, value in (("--constraints", args.constraints), ("--proofs", args.proofs)):
        if value < 1:
            raise CuzkError(f"{option} must be at least 1, got {value}")
    started = time.perf_counter()
    with progress_display(args.proofs, quiet=args.quiet) as display:
        report = prove_circuit(
            circuit=args.circuit,
            curve_name=args.curve,
            target_constraints=args.constraints,
            backend_name=args.backend,
            reduction=args.reduction,
            seed=args.seed,
            proofs=args.proofs,
            synthesis=args.synthesis,
            window=args.window,
            verify_each=True if args.verify else None,  # None: $CUZK_VERIFY decides
            progress=display,
        )
    for line in report.lines():
        print(line)
    if args.timings:
        print("\n".join(timings_table(report.recorder)))
        proofs = [span for span in report.recorder.spans if span.name == "prove" and span.level == "engine"]
        if len(proofs) > 1:  # the first proof pays the warm-up (and may run beside the next one's synthesis)
            print("each proof: " + ", ".join(f"{span.seconds * 1e3:.1f} ms" for span in proofs))
            last = proofs[-1]
            print("the last proof alone:")
            print("\n".join(timings_table(report.recorder.between(last.start, last.end))))
    if args.trace:
        print(f"trace written to {chrome_trace(report.recorder, args.trace)} (open it in ui.perfetto.dev)")
    print(f"total {time.perf_counter() - started:.2f} s")
    return 0 if report.verified else 1


def _sizes(text: str) -> list[int]:
    """ "10-18" → [10, …, 18]; "16" → [16]; "" → []."""
    if not text:
        return []
    low, _, high = text.partition("-")
    try:
        return list(range(int(low), int(high or low) + 1))
    except ValueError:
        raise CuzkError(f"sizes are log2 ranges such as 10-18, not {text!r}") from None


def _cmd_bench(args: argparse.Namespace) -> int:
    from cuzk.backends.registry import get_backend
    from cuzk.bench import bench_msm, bench_ntt, format_rows
    from cuzk.reference.curves import CURVES

    _apply_engine_options(args)
    backend = get_backend(args.backend)
    rows = []
    for name in sorted(CURVES) if args.curve == "all" else [args.curve]:
        curve = CURVES[name]
        rows += bench_msm(backend, curve, "g1", _sizes(args.msm), args.repeat)
        rows += bench_msm(backend, curve, "g2", _sizes(args.msm_g2), args.repeat)
        rows += bench_ntt(backend, curve, _sizes(args.ntt), args.repeat)
    print("\n".join(format_rows(rows, backend.name)))
    return 0


def _engine_options(parser: argparse.ArgumentParser, *, window: bool = True) -> None:
    parser.add_argument("--device", type=int, default=None, help="GPU index (sets CUZK_DEVICE)")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads of the cpu backend (CUZK_THREADS)")
    if window:
        parser.add_argument("--window", type=int, default=None, help="Pippenger window in bits for every MSM")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cuzk", description="A Groth16 proving engine with a readable reference.")
    sub = parser.add_subparsers(dest="command", required=True)

    info = sub.add_parser("info", help="list the backends, their availability and devices")
    info.set_defaults(run=_cmd_info)

    walk = sub.add_parser("walkthrough", help="Groth16 on x³ + x + 5 = 35 with every intermediate value")
    walk.add_argument("--curve", default="all", choices=["toy", "bn254", "bls12_381", "all"])
    walk.set_defaults(run=_cmd_walkthrough)

    prove = sub.add_parser("prove", help="set up, prove and verify a circuit defined in the project")
    prove.add_argument("--circuit", default="mimc", help="cubic, bits, mimc or merkle (default mimc)")
    prove.add_argument("--constraints", type=int, default=512, help="about this many constraints (default 512)")
    prove.add_argument("--curve", default="bn254", choices=["bn254", "bls12_381"])
    prove.add_argument("--backend", default=None, help="backend name; default: $CUZK_BACKEND or auto")
    prove.add_argument("--reduction", default="libsnark", choices=["libsnark", "circom"])
    prove.add_argument("--seed", default="0", help="seed of the circuit's witness (default 0)")
    prove.add_argument("--proofs", type=int, default=1, help="prove this many witnesses, pipelined (default 1)")
    prove.add_argument(
        "--synthesis",
        default="auto",
        choices=["auto", "thread", "process"],
        help="where the pipeline synthesizes the witnesses after the first: a thread beside the prover, or a worker "
        "process that does not hold its GIL (auto: a process for a GPU backend)",
    )
    prove.add_argument("--timings", action="store_true", help="print every phase at the three timing levels")
    prove.add_argument("--trace", metavar="FILE", help="write a Chrome-trace JSON file (open in Perfetto)")
    prove.add_argument(
        "--verify", action="store_true", help="self-check: verify every proof before it is returned (CUZK_VERIFY=1)"
    )
    prove.add_argument("--quiet", action="store_true", help="no progress display (it shows only on a terminal)")
    _engine_options(prove)
    prove.set_defaults(run=_cmd_prove)

    bench = sub.add_parser("bench", help="MSM and NTT timings of a backend (medians; first call apart)")
    bench.add_argument("--backend", default=None, help="backend name; default: $CUZK_BACKEND or auto")
    bench.add_argument("--curve", default="all", choices=["bn254", "bls12_381", "all"])
    bench.add_argument("--msm", default="10-14", help="log2 sizes of the G1 MSMs (default 10-14)")
    bench.add_argument("--msm-g2", default="10-12", help="log2 sizes of the G2 MSMs (default 10-12)")
    bench.add_argument("--ntt", default="10-16", help="log2 sizes of the NTTs (default 10-16)")
    bench.add_argument("--repeat", type=int, default=3, help="timed runs per size after the first (default 3)")
    _engine_options(bench, window=False)
    bench.set_defaults(run=_cmd_bench)

    from cuzk.cli_groth16 import add_commands  # the snarkjs-compatible commands (groth16, zkey, wtns)

    add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except CuzkError as error:
        print(f"cuzk {args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
