"""The snarkjs-compatible commands of the ``cuzk`` command line (see docs/interop.md):

    cuzk groth16 prove <circuit.zkey> <witness.wtns> <proof.json> <public.json> [--backend NAME] [--r1cs FILE]
    cuzk groth16 verify <verification_key.json> <public.json> <proof.json>
    cuzk groth16 setup <circuit.r1cs> <circuit.zkey>          one-party setup: development only
    cuzk zkey export verificationkey <circuit.zkey> <verification_key.json>
    cuzk zkey export bellman <circuit.zkey> <vk.bin>          BLS12-381: bellman's VerifyingKey bytes
    cuzk wtns check <circuit.r1cs> <witness.wtns> [--sym FILE]

Files are read and written exactly as snarkjs does. A bad file or argument raises a CuzkError, which the main
command line prints as one line and turns into exit status 2; a proof that does not verify exits with 1.
``python -m cuzk.cli_groth16 …`` runs these commands alone, with the same behaviour.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any


def _cmd_prove(args: argparse.Namespace) -> int:
    from cuzk.formats import bellman, snarkjs_json
    from cuzk.formats.r1cs import read_r1cs, read_sym
    from cuzk.formats.wtns import read_wtns
    from cuzk.formats.zkey import read_zkey
    from cuzk.zkey_prover import prove_zkey

    started = time.perf_counter()
    zkey = read_zkey(args.zkey, check_points=not args.no_check_points)
    witness = read_wtns(args.witness)
    r1cs = read_r1cs(args.r1cs) if args.r1cs else None
    names = read_sym(args.sym) if args.sym else None
    loaded = time.perf_counter()
    result = prove_zkey(zkey, witness, backend=args.backend, r1cs=r1cs, names=names, verify_proof=not args.no_verify)
    proved = time.perf_counter()
    snarkjs_json.write_proof(args.proof, result.proof)
    snarkjs_json.write_public(args.public, result.public_signals)
    if args.bellman_proof:
        bellman.write_proof(args.bellman_proof, result.proof)
    checked = "verified" if not args.no_verify else "not verified (--no-verify)"
    print(
        f"{args.proof}, {args.public}: {zkey.curve.name} proof, {checked}; load {loaded - started:.2f} s, "
        f"prove {proved - loaded:.2f} s"
    )
    if args.verbose:
        for name, seconds in result.seconds.items():
            print(f"  {name:<16} {seconds:8.3f} s")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from cuzk.formats import snarkjs_json
    from cuzk.reference.groth16 import verify

    vk = snarkjs_json.read_verifying_key(args.verification_key)
    proof, _ = snarkjs_json.read_proof(args.proof, vk.curve)
    public = snarkjs_json.read_public(args.public, vk.curve)
    if len(public) != vk.num_public_inputs:
        print(
            f"INVALID: {args.public} has {len(public)} public signals, {args.verification_key} expects "
            f"{vk.num_public_inputs}",
            file=sys.stderr,
        )
        return 1
    if verify(vk, public, proof):
        print("OK")
        return 0
    print(f"INVALID: the proof in {args.proof} does not verify for these public signals and key", file=sys.stderr)
    return 1


def _cmd_setup(args: argparse.Namespace) -> int:
    from cuzk.formats.r1cs import read_r1cs
    from cuzk.formats.zkey_setup import setup_zkey
    from cuzk.formats.zkey_write import write_zkey

    started = time.perf_counter()
    key = setup_zkey(read_r1cs(args.r1cs), path=args.zkey)
    write_zkey(args.zkey, key)
    print(
        f"{args.zkey}: {key.curve.name}, {key.num_constraints} constraints, domain {key.domain_size}, "
        f"{time.perf_counter() - started:.1f} s. A one-party setup: for development and tests only."
    )
    return 0


def _cmd_export_vk(args: argparse.Namespace) -> int:
    from cuzk.formats import snarkjs_json
    from cuzk.formats.zkey import read_zkey

    snarkjs_json.write_verifying_key(args.verification_key, read_zkey(args.zkey, check_points=False).verifying_key())
    return 0


def _cmd_export_bellman(args: argparse.Namespace) -> int:
    from cuzk.formats import bellman
    from cuzk.formats.zkey import read_zkey

    key = read_zkey(args.zkey, "bls12_381", check_points=False)
    bellman.write_verifying_key(args.vk, bellman.BellmanVerifyingKey.from_proving_key(key.proving_key()))
    return 0


def _cmd_wtns_check(args: argparse.Namespace) -> int:
    from cuzk.formats.r1cs import read_r1cs, read_sym
    from cuzk.formats.wtns import read_wtns

    r1cs = read_r1cs(args.r1cs)
    r1cs.check_witness(read_wtns(args.witness), read_sym(args.sym) if args.sym else None)
    print(f"OK: {args.witness} satisfies the {r1cs.num_constraints} constraints of {args.r1cs}")
    return 0


def add_commands(subparsers: Any) -> None:
    """Add ``groth16``, ``zkey`` and ``wtns`` to the ``cuzk`` command line's subparsers."""
    groth16 = subparsers.add_parser("groth16", help="prove, verify and set up with snarkjs's files")
    g16 = groth16.add_subparsers(dest="groth16_command", required=True)

    prove = g16.add_parser("prove", help="prove from a .zkey and a .wtns, as snarkjs groth16 prove")
    prove.add_argument("zkey", help="the proving key (.zkey, Groth16)")
    prove.add_argument("witness", help="the witness (.wtns)")
    prove.add_argument("proof", help="proof.json to write")
    prove.add_argument("public", help="public.json to write")
    prove.add_argument("--backend", default=None, help="backend name; default: $CUZK_BACKEND or auto")
    prove.add_argument("--r1cs", help="the circuit's .r1cs: check the witness first, naming a failing constraint")
    prove.add_argument("--sym", help="the circuit's .sym: signal names in that message")
    prove.add_argument("--no-verify", action="store_true", help="skip verifying the proof made (about 0.5 s)")
    prove.add_argument("--no-check-points", action="store_true", help="trust the key's points (skip curve checks)")
    prove.add_argument("--bellman-proof", help="also write the 192-byte bellman proof (BLS12-381)")
    prove.add_argument("-v", "--verbose", action="store_true", help="print the seconds of each phase")
    prove.set_defaults(run=_cmd_prove)

    verify = g16.add_parser("verify", help="verify proof.json, as snarkjs groth16 verify")
    verify.add_argument("verification_key", help="verification_key.json")
    verify.add_argument("public", help="public.json")
    verify.add_argument("proof", help="proof.json")
    verify.set_defaults(run=_cmd_verify)

    setup = g16.add_parser("setup", help="one-party setup of a .r1cs into a .zkey (development only)")
    setup.add_argument("r1cs", help="the circuit (.r1cs)")
    setup.add_argument("zkey", help="the .zkey to write")
    setup.set_defaults(run=_cmd_setup)

    zkey = subparsers.add_parser("zkey", help="export from a .zkey")
    zk = zkey.add_subparsers(dest="zkey_command", required=True)
    export = zk.add_parser("export", help="export the verifying key").add_subparsers(dest="what", required=True)
    vk = export.add_parser("verificationkey", help="verification_key.json, as snarkjs zkey export verificationkey")
    vk.add_argument("zkey")
    vk.add_argument("verification_key")
    vk.set_defaults(run=_cmd_export_vk)
    bvk = export.add_parser("bellman", help="bellman's VerifyingKey bytes (BLS12-381 keys)")
    bvk.add_argument("zkey")
    bvk.add_argument("vk")
    bvk.set_defaults(run=_cmd_export_bellman)

    wtns = subparsers.add_parser("wtns", help="check a witness")
    wt = wtns.add_subparsers(dest="wtns_command", required=True)
    check = wt.add_parser("check", help="check a .wtns against its .r1cs, as snarkjs wtns check")
    check.add_argument("r1cs")
    check.add_argument("witness")
    check.add_argument("--sym", help="the circuit's .sym: signal names in the message")
    check.set_defaults(run=_cmd_wtns_check)


def main(argv: list[str] | None = None) -> int:
    """These commands alone, handling errors as ``cuzk``'s main does."""
    from cuzk.reference.errors import CuzkError

    parser = argparse.ArgumentParser(prog="cuzk", description="cuzk's snarkjs-compatible commands")
    add_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except CuzkError as error:
        print(f"cuzk {args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["add_commands", "main"]
