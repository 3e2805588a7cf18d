"""``cuzk zkey export|contribute|beacon|verify``: a .zkey's verifying key, and phase 2 of a ceremony as snarkjs runs it.

    cuzk zkey export verificationkey <circuit.zkey> <verification_key.json>
    cuzk zkey export bellman <circuit.zkey> <vk.bin>          BLS12-381: bellman's VerifyingKey bytes
    cuzk zkey contribute <in.zkey> <out.zkey> [-e ENTROPY] [-n NAME]         a phase-2 contribution (random δ)
    cuzk zkey beacon <in.zkey> <out.zkey> <beaconHash hex> <numIterationsExp> [-n NAME]   the final, public one
    cuzk zkey verify <circuit.r1cs> <pot.ptau> <circuit.zkey>                 snarkjs zkey verify's checks

export checks only the header's and IC's points: the bulk sections are left to ``cuzk groth16 prove``. contribute and
beacon write what ``snarkjs zkey contribute`` / ``zkey beacon`` write (a beacon byte for byte); verify exits 0 with
``ZKey Ok!``, or 1 with the step that failed. Outputs are checked before the key is read (writable, not an input) and
written atomically. snarkjs's ``-e=TEXT`` and ``-n=NAME`` spellings are taken as they are.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from cuzk.cli.options import Subparsers, add_backend_option

if TYPE_CHECKING:
    from cuzk.engine.contribute import Contributed


def run_export_verificationkey(args: argparse.Namespace) -> int:
    from cuzk.formats import snarkjs_json
    from cuzk.formats.outputs import check_outputs
    from cuzk.formats.zkey import read_zkey

    check_outputs([args.verification_key], [args.zkey])
    snarkjs_json.write_verifying_key(args.verification_key, read_zkey(args.zkey, check_points=False).verifying_key())
    return 0


def run_export_bellman(args: argparse.Namespace) -> int:
    from cuzk.formats import bellman
    from cuzk.formats.outputs import check_outputs
    from cuzk.formats.zkey import read_zkey

    check_outputs([args.vk], [args.zkey])
    key = read_zkey(args.zkey, "bls12_381", check_points=False)
    bellman.write_verifying_key(args.vk, bellman.BellmanVerifyingKey.from_proving_key(key.proving_key()))
    return 0


def _snarkjs_value(value: str | None) -> str | None:
    """snarkjs's parser reads ``-e=TEXT`` as TEXT; argparse would keep the "="."""
    return value[1:] if value is not None and value.startswith("=") else value


def _report(done: Contributed, target: str) -> None:
    from cuzk.engine.mpc import format_hash

    print(format_hash(done.cs_hash, "Circuit Hash: "))
    print(format_hash(done.contribution_hash, "Contribution Hash: "))
    print(f"{target}: contribution {done.index}, {done.curve}, on the {done.backend} backend, {done.seconds:.1f} s")


def run_contribute(args: argparse.Namespace) -> int:
    from cuzk.engine.contribute import contribute

    entropy = _snarkjs_value(args.entropy) or ""
    done = contribute(args.source, args.target, entropy=entropy, name=_snarkjs_value(args.name), backend=args.backend)
    _report(done, args.target)
    return 0


def run_beacon(args: argparse.Namespace) -> int:
    from cuzk.engine.contribute import BeaconError, beacon

    text = args.beacon_hash[2:] if args.beacon_hash.startswith("0x") else args.beacon_hash
    try:
        value = bytes.fromhex(text)
    except ValueError:
        raise BeaconError(f"the beacon hash {args.beacon_hash!r} is not a hexadecimal byte string") from None
    done = beacon(
        args.source, args.target, value, args.num_iterations_exp, name=_snarkjs_value(args.name), backend=args.backend
    )
    _report(done, args.target)
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from cuzk.engine.mpc import format_hash
    from cuzk.engine.zkey_verify import ZKeyMismatchError, verify_zkey

    try:
        done = verify_zkey(args.r1cs, args.ptau, args.zkey, backend=args.backend)
    except ZKeyMismatchError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(format_hash(done.cs_hash, "Circuit Hash: "))
    for c in reversed(done.contributions):
        print("-------------------------")
        print(format_hash(c.hash, f"contribution #{c.index} {c.name or ''}:"))
        if c.record.beacon_hash is not None:
            print(f"Beacon generator: {c.record.beacon_hash.hex()}")
            print(f"Beacon iterations Exp: {c.record.num_iterations_exp}")
    print("-------------------------")
    print(f"ZKey Ok! ({done.curve}, {len(done.contributions)} contributions, {done.seconds:.1f} s)")
    return 0


def add_parser(subparsers: Subparsers) -> None:
    zkey = subparsers.add_parser(
        "zkey", help="export from a .zkey; phase-2 contribute, beacon and verify, as snarkjs zkey"
    )
    commands = zkey.add_subparsers(dest="zkey_command", required=True)
    export = commands.add_parser("export", help="export the verifying key").add_subparsers(dest="what", required=True)
    vk = export.add_parser("verificationkey", help="verification_key.json, as snarkjs zkey export verificationkey")
    vk.add_argument("zkey")
    vk.add_argument("verification_key")
    vk.set_defaults(run=run_export_verificationkey)
    bvk = export.add_parser("bellman", help="bellman's VerifyingKey bytes (BLS12-381 keys)")
    bvk.add_argument("zkey")
    bvk.add_argument("vk")
    bvk.set_defaults(run=run_export_bellman)

    contribute = _contribution_parser(
        commands, "contribute", "a phase-2 contribution (a random δ), as snarkjs zkey contribute"
    )
    contribute.add_argument("-e", "--entropy", help="text mixed with 64 bytes from the OS (default: those alone)")
    contribute.set_defaults(run=run_contribute)

    beacon = _contribution_parser(
        commands, "beacon", "the public final contribution, as snarkjs zkey beacon (same inputs: same bytes)"
    )
    beacon.add_argument("beacon_hash", metavar="beaconHash", help="the beacon's public value, hexadecimal")
    beacon.add_argument(
        "num_iterations_exp", metavar="numIterationsExp", type=int, help="SHA-256 2^this times (10 … 63)"
    )
    beacon.set_defaults(run=run_beacon)

    verify = commands.add_parser(
        "verify", help="check a .zkey against its circuit and ptau and every contribution, as snarkjs zkey verify"
    )
    verify.add_argument("r1cs", metavar="circuit.r1cs", help="the circuit")
    verify.add_argument("ptau", metavar="pot.ptau", help="the ceremony's phase 1, prepared for phase 2")
    verify.add_argument("zkey", metavar="circuit.zkey", help="the key to check")
    add_backend_option(verify)
    verify.set_defaults(run=run_verify)


def _contribution_parser(commands: Any, name: str, help_text: str) -> argparse.ArgumentParser:
    """The options of a command that writes the next key of the chain: in.zkey, out.zkey, --name, --backend."""
    parser: argparse.ArgumentParser = commands.add_parser(name, help=help_text)
    parser.add_argument("source", metavar="in.zkey", help="the key so far")
    parser.add_argument("target", metavar="out.zkey", help="the key to write (never the input)")
    parser.add_argument("-n", "--name", help="the contribution's name (at most 64 characters are kept)")
    add_backend_option(parser)
    return parser
