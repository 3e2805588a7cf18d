"""``cuzk groth16 prove|verify|setup``: snarkjs's Groth16 commands on its own files, proving on any backend.

    cuzk groth16 prove <circuit.zkey> <witness.wtns> <proof.json> <public.json> [--backend NAME] [--r1cs FILE]
    cuzk groth16 verify <verification_key.json> <public.json> <proof.json>
    cuzk groth16 setup <circuit.r1cs> <circuit.zkey> [--backend NAME]     one-party setup: development only

Files are read and written exactly as snarkjs does (docs/interop.md); a proof that does not verify exits with 1.
"""

from __future__ import annotations

import argparse
import sys
import time

from cuzk.cli.options import Subparsers, add_backend_option


def run_prove(args: argparse.Namespace) -> int:
    from cuzk.backends.registry import get_backend
    from cuzk.engine.warm import warm_up
    from cuzk.engine.zkey import prove_zkey
    from cuzk.formats import bellman, snarkjs_json
    from cuzk.formats.r1cs import read_r1cs, read_sym
    from cuzk.formats.wtns import read_wtns
    from cuzk.formats.zkey import read_zkey, read_zkey_curve

    started = time.perf_counter()
    backend = get_backend(args.backend)
    with warm_up(backend, read_zkey_curve(args.zkey), "prove") as warming:  # compiling beside the reading
        zkey = read_zkey(args.zkey, check_points=not args.no_check_points)
        witness = read_wtns(args.witness)
        r1cs = read_r1cs(args.r1cs) if args.r1cs else None
        names = read_sym(args.sym) if args.sym else None
        loaded = time.perf_counter()
        compiling = f"compile (first run) {warming.wait():.2f} s, " if warming.started else ""
    waited = time.perf_counter()
    result = prove_zkey(zkey, witness, backend=backend, r1cs=r1cs, names=names, verify_proof=not args.no_verify)
    proved = time.perf_counter()
    snarkjs_json.write_proof(args.proof, result.proof)
    snarkjs_json.write_public(args.public, result.public_signals)
    if args.bellman_proof:
        bellman.write_proof(args.bellman_proof, result.proof)
    checked = "verified" if not args.no_verify else "not verified (--no-verify)"
    print(
        f"{args.proof}, {args.public}: {zkey.curve.name} proof, {checked}; load {loaded - started:.2f} s, "
        f"{compiling}prove {proved - waited:.2f} s"
    )
    if args.verbose:
        for name, seconds in result.seconds.items():
            print(f"  {name:<16} {seconds:8.3f} s")
    return 0


def run_verify(args: argparse.Namespace) -> int:
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


def run_setup(args: argparse.Namespace) -> int:
    from cuzk.engine.setup import setup_zkey
    from cuzk.formats.r1cs import read_r1cs
    from cuzk.formats.zkey_write import write_zkey

    started = time.perf_counter()
    key = setup_zkey(read_r1cs(args.r1cs), backend=args.backend, path=args.zkey)
    write_zkey(args.zkey, key)
    print(
        f"{args.zkey}: {key.curve.name}, {key.num_constraints} constraints, domain {key.domain_size}, "
        f"{time.perf_counter() - started:.1f} s. A one-party setup: for development and tests only."
    )
    return 0


def add_parser(subparsers: Subparsers) -> None:
    groth16 = subparsers.add_parser("groth16", help="prove, verify and set up with snarkjs's files")
    commands = groth16.add_subparsers(dest="groth16_command", required=True)

    prove = commands.add_parser("prove", help="prove from a .zkey and a .wtns, as snarkjs groth16 prove")
    prove.add_argument("zkey", help="the proving key (.zkey, Groth16)")
    prove.add_argument("witness", help="the witness (.wtns)")
    prove.add_argument("proof", help="proof.json to write")
    prove.add_argument("public", help="public.json to write")
    add_backend_option(prove)
    prove.add_argument("--r1cs", help="the circuit's .r1cs: check the witness first, naming a failing constraint")
    prove.add_argument("--sym", help="the circuit's .sym: signal names in that message")
    prove.add_argument("--no-verify", action="store_true", help="skip verifying the proof made (about 0.5 s)")
    prove.add_argument("--no-check-points", action="store_true", help="trust the key's points (skip curve checks)")
    prove.add_argument("--bellman-proof", help="also write the 192-byte bellman proof (BLS12-381)")
    prove.add_argument("-v", "--verbose", action="store_true", help="print the seconds of each phase")
    prove.set_defaults(run=run_prove)

    verify = commands.add_parser("verify", help="verify proof.json, as snarkjs groth16 verify")
    verify.add_argument("verification_key", help="verification_key.json")
    verify.add_argument("public", help="public.json")
    verify.add_argument("proof", help="proof.json")
    verify.set_defaults(run=run_verify)

    setup = commands.add_parser("setup", help="one-party setup of a .r1cs into a .zkey (development only)")
    setup.add_argument("r1cs", help="the circuit (.r1cs)")
    setup.add_argument("zkey", help="the .zkey to write")
    add_backend_option(setup)
    setup.set_defaults(run=run_setup)
