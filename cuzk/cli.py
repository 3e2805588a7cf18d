"""The ``cuzk`` command line.

    cuzk info                                   every registered backend: available or not and why, devices
    cuzk walkthrough [--curve toy|bn254|…]      Groth16 on x³ + x + 5 = 35, every intermediate printed
    cuzk prove [--circuit mimc] [--constraints N] [--curve bn254] [--backend NAME]
                                                setup, prove and verify a circuit defined in the project

Errors that a user can cause (a bad option, an unavailable backend) print one line and exit with status 2;
they never print a traceback.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from cuzk.reference.errors import CuzkError


def _cmd_info(args: argparse.Namespace) -> int:
    from rich.console import Console

    from cuzk.backends.registry import format_backend_table

    Console().print(format_backend_table())
    return 0


def _cmd_walkthrough(args: argparse.Namespace) -> int:
    from cuzk.walkthrough import run_walkthrough

    names = ["toy", "bn254", "bls12_381"] if args.curve == "all" else [args.curve]
    return 0 if all([run_walkthrough(name) for name in names]) else 1


def _cmd_prove(args: argparse.Namespace) -> int:
    from cuzk.circuit_job import prove_circuit

    started = time.perf_counter()
    report = prove_circuit(
        circuit=args.circuit,
        curve_name=args.curve,
        target_constraints=args.constraints,
        backend_name=args.backend,
        reduction=args.reduction,
        seed=args.seed,
    )
    for line in report.lines():
        print(line)
    print(f"total {time.perf_counter() - started:.2f} s")
    return 0 if report.verified else 1


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
    prove.set_defaults(run=_cmd_prove)
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
