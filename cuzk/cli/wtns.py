"""``cuzk wtns check <circuit.r1cs> <witness.wtns> [--sym FILE]``: whether a witness satisfies its circuit."""

from __future__ import annotations

import argparse

from cuzk.cli.options import Subparsers


def run_check(args: argparse.Namespace) -> int:
    """OK, or a CuzkError naming the first failing constraint (by its signals' names with --sym)."""
    from cuzk.formats.r1cs import read_r1cs, read_sym
    from cuzk.formats.wtns import read_wtns

    r1cs = read_r1cs(args.r1cs)
    r1cs.check_witness(read_wtns(args.witness), read_sym(args.sym) if args.sym else None)
    print(f"OK: {args.witness} satisfies the {r1cs.num_constraints} constraints of {args.r1cs}")
    return 0


def add_parser(subparsers: Subparsers) -> None:
    wtns = subparsers.add_parser("wtns", help="check a witness")
    commands = wtns.add_subparsers(dest="wtns_command", required=True)
    check = commands.add_parser("check", help="check a .wtns against its .r1cs, as snarkjs wtns check")
    check.add_argument("r1cs")
    check.add_argument("witness")
    check.add_argument("--sym", help="the circuit's .sym: signal names in the message")
    check.set_defaults(run=run_check)
