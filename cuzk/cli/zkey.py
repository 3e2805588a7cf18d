"""``cuzk zkey export verificationkey|bellman``: the verifying key of a .zkey, as snarkjs's JSON or bellman's bytes.

    cuzk zkey export verificationkey <circuit.zkey> <verification_key.json>
    cuzk zkey export bellman <circuit.zkey> <vk.bin>          BLS12-381: bellman's VerifyingKey bytes

Only the header's and IC's points are checked on the way: the bulk sections are left to ``cuzk groth16 prove``.
The output is checked before the key is read (writable, not the .zkey itself) and written atomically.
"""

from __future__ import annotations

import argparse

from cuzk.cli.options import Subparsers


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


def add_parser(subparsers: Subparsers) -> None:
    zkey = subparsers.add_parser("zkey", help="export from a .zkey")
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
