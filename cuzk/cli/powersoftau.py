"""``cuzk powersoftau prepare phase2 <in.ptau> <out.ptau> [--backend NAME] [-v]``: the Lagrange sections 12–15 of a
powers-of-tau file, byte for byte what ``snarkjs powersoftau prepare phase2`` writes (docs/interop.md).

The output is checked before any work (writable, not the input: cuzk never overwrites its inputs) and written
atomically; the transforms run on a backend with POINT_NTT (the cpu backend unless --backend names another).
"""

from __future__ import annotations

import argparse
import sys
import time

from cuzk.cli.options import Subparsers, add_backend_option


def run_prepare_phase2(args: argparse.Namespace) -> int:
    from cuzk.engine.prepare_phase2 import prepare_phase2

    started = time.perf_counter()
    log = (lambda line: print(line, file=sys.stderr)) if args.verbose else None
    done = prepare_phase2(args.source, args.target, backend=args.backend, log=log)
    print(
        f"{args.target}: {done.curve}, 2^{done.power}, Lagrange sections 12–15 on the {done.backend} backend, "
        f"{time.perf_counter() - started:.1f} s"
    )
    return 0


def add_parser(subparsers: Subparsers) -> None:
    powersoftau = subparsers.add_parser("powersoftau", help="powers-of-tau files, as snarkjs powersoftau")
    commands = powersoftau.add_subparsers(dest="powersoftau_command", required=True)
    prepare = commands.add_parser("prepare", help="prepare a ptau")
    phases = prepare.add_subparsers(dest="prepare_phase", required=True)
    phase2 = phases.add_parser(
        "phase2", help="add the Lagrange sections 12–15 a Groth16 setup needs, as snarkjs powersoftau prepare phase2"
    )
    phase2.add_argument("source", metavar="in.ptau", help="the ceremony's phase 1 (.ptau)")
    phase2.add_argument("target", metavar="out.ptau", help="the prepared .ptau to write (never the input)")
    add_backend_option(phase2)
    phase2.add_argument("-v", "--verbose", action="store_true", help="print the seconds of each section")
    phase2.set_defaults(run=run_prepare_phase2)
