"""``cuzk groth16 prove|verify|setup``: snarkjs's Groth16 commands on its own files, proving on any backend.

    cuzk groth16 prove <circuit.zkey> <witness.wtns> <proof.json> <public.json> [--backend NAME] [--r1cs FILE]
    cuzk groth16 prove --server URL <key> <witness.wtns> <proof.json> <public.json> [--token T]
    cuzk groth16 verify <verification_key.json> <public.json> <proof.json>
    cuzk groth16 setup <circuit.r1cs> <pot.ptau> <circuit.zkey> [--backend NAME]   snarkjs's key, byte for byte
    cuzk groth16 setup <circuit.r1cs> <circuit.zkey> [--backend NAME]     one-party setup: development only

Files are read and written exactly as snarkjs does (docs/interop.md); a proof that does not verify exits with 1.
Outputs are checked before any work (:func:`cuzk.formats.outputs.check_outputs`: writable, distinct, none an input;
a bellman proof only of a BLS12-381 key) and written atomically, a command's files all-or-nothing. With
``--server``, the proof is made by a ``cuzk serve`` (docs/serve.md): ``<key>`` is a key's name there, or the path
of a .zkey whose stem is one; the outputs, the checks and the exit statuses are the local command's.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING, Any

from cuzk.cli.options import Subparsers, add_backend_option, add_device_option, apply_device_option

if TYPE_CHECKING:  # the engine is imported when a command runs, not when the parser is built
    from cuzk.engine.files_job import FilesProof
    from cuzk.engine.timing import Recorder


def run_prove(args: argparse.Namespace) -> int:
    if args.server is not None:
        return run_remote_prove(args)
    from cuzk.cli.progress import progress_display
    from cuzk.cli.prove import print_timings, process_recorder
    from cuzk.engine.files_job import prove_files
    from cuzk.engine.timing import chrome_trace
    from cuzk.formats.outputs import atomic_outputs

    check_prove_outputs(args)
    apply_device_option(args)
    recorder = process_recorder()  # imports included: the engine's modules are loaded above
    with progress_display(1, quiet=args.quiet) as display:
        job = prove_files(
            args.zkey,
            args.witness,
            backend_name=args.backend,
            r1cs_path=args.r1cs,
            sym_path=args.sym,
            check_points=not args.no_check_points,
            verify_proof=not args.no_verify,
            recorder=recorder,
            progress=display,
        )
    with recorder.span("write"):
        write_prove_outputs(args, job)
    print(_summary(args, job, recorder))
    if args.verbose:
        for name, seconds in job.result.seconds.items():
            print(f"  {name:<16} {seconds:8.3f} s")
    if args.timings:
        print_timings(recorder)
    if args.trace:
        with atomic_outputs([args.trace]) as (trace,):
            chrome_trace(recorder, trace)
        print(f"trace written to {args.trace} (open it in ui.perfetto.dev)")
    return 0


LOCAL_ONLY = ("backend", "r1cs", "sym", "bellman_proof", "trace", "timings", "no_check_points")


def run_remote_prove(args: argparse.Namespace) -> int:
    """``--server URL``: send the witness to a ``cuzk serve``, write the verified proof it returns."""
    import os

    from cuzk.formats.outputs import atomic_outputs, check_outputs
    from cuzk.formats.snarkjs_json import dumps
    from cuzk.reference.errors import ParameterError
    from cuzk.serve.client import Client, check_result

    for name in LOCAL_ONLY:
        if getattr(args, name):
            raise ParameterError(f"--{name.replace('_', '-')} is for a local proof, not with --server")
    check_outputs((args.proof, args.public), (args.witness, args.zkey if os.path.exists(args.zkey) else None))
    key = os.path.splitext(os.path.basename(args.zkey))[0] if args.zkey.endswith(".zkey") else args.zkey
    try:
        with open(args.witness, "rb") as file:
            witness = file.read()
    except OSError as exc:
        raise ParameterError(f"{args.witness}: cannot be read ({exc.strerror})") from None
    started = time.perf_counter()
    result = check_result(Client(args.server, args.token).prove(key, witness))
    with atomic_outputs([args.proof, args.public]) as (proof, public):
        for path, value in ((proof, result["proof"]), (public, result["public"])):
            with open(path, "w", encoding="utf-8") as out:
                out.write(dumps(value))
    seconds = time.perf_counter() - started
    print(f"{args.proof}, {args.public}: proof of key {key} from {args.server}, verified there; {seconds:.2f} s")
    return 0


def check_prove_outputs(args: argparse.Namespace) -> None:
    """Before any work: proof.json, public.json, --bellman-proof and --trace writable, distinct, none an input;
    and a bellman proof only of a BLS12-381 key (the key's header alone is read)."""
    from cuzk.formats.errors import CurveMismatchError
    from cuzk.formats.outputs import check_outputs
    from cuzk.formats.zkey import read_zkey_curve
    from cuzk.reference.curves import BLS12_381

    outputs = (args.proof, args.public, args.bellman_proof, args.trace)
    check_outputs(outputs, (args.zkey, args.witness, args.r1cs, args.sym))
    if args.bellman_proof is not None and (curve := read_zkey_curve(args.zkey)) is not BLS12_381:
        raise CurveMismatchError(
            args.bellman_proof, f"bellman's proof format is for BLS12-381 keys; {args.zkey} is a {curve.name} key"
        )


def write_prove_outputs(args: argparse.Namespace, job: FilesProof) -> None:
    """proof.json, public.json and the bellman proof, all-or-nothing: each written to a temporary beside it, all
    renamed into place only once every one was written."""
    from cuzk.formats import bellman, snarkjs_json
    from cuzk.formats.outputs import atomic_outputs

    paths = [args.proof, args.public, *([args.bellman_proof] if args.bellman_proof is not None else [])]
    with atomic_outputs(paths) as temporaries:
        snarkjs_json.write_proof(temporaries[0], job.result.proof)
        snarkjs_json.write_public(temporaries[1], job.result.public_signals)
        if args.bellman_proof is not None:
            bellman.write_proof(temporaries[2], job.result.proof)


def _summary(args: argparse.Namespace, job: FilesProof, recorder: Recorder) -> str:
    """One line: the files written, the curve, the verdict and where the seconds went."""
    checked = "verified" if not args.no_verify else "not verified (--no-verify)"
    load = sum(recorder.seconds(name) for name in ("read_key", "read_witness", "read_r1cs"))
    compiling = f"compile (first run) {recorder.seconds('compile'):.2f} s, " if job.compiled else ""
    proving = sum(recorder.seconds(name) for name in ("check_r1cs", "prepare", "prove", "verify"))
    return (
        f"{args.proof}, {args.public}: {job.curve.name} proof, {checked}; backend {job.backend}, load {load:.2f} s, "
        f"{compiling}prove {proving:.2f} s"
    )


def run_verify(args: argparse.Namespace) -> int:
    from cuzk.engine.verify import verify  # the reference's checks; the pairings compiled where they are ready
    from cuzk.formats import snarkjs_json
    from cuzk.formats.errors import WitnessMismatchError

    vk = snarkjs_json.read_verifying_key(args.verification_key)
    proof, _ = snarkjs_json.read_proof(args.proof, vk.curve)
    try:  # read with the key's count: its budget, and the count checked before any signal is converted
        public = snarkjs_json.read_public(args.public, vk.curve, vk.num_public_inputs)
    except WitnessMismatchError as exc:
        print(f"INVALID: {exc}", file=sys.stderr)
        return 1
    if verify(vk, public, proof):
        print("OK")
        return 0
    print(f"INVALID: the proof in {args.proof} does not verify for these public signals and key", file=sys.stderr)
    return 1


def run_setup(args: argparse.Namespace) -> int:
    """Two files: a one-party setup (development only); three: the key snarkjs's ``groth16 setup`` writes from a
    prepared ptau, byte for byte."""
    from cuzk.backends.registry import resolve_backend
    from cuzk.engine.decoding import stored_form_host
    from cuzk.formats.outputs import atomic_outputs, check_outputs
    from cuzk.formats.r1cs import read_r1cs
    from cuzk.formats.zkey_write import SNARKJS_SETUP_ORDER, write_zkey

    ptau_path, zkey_path = (args.ptau, args.zkey) if args.zkey is not None else (None, args.ptau)
    check_outputs([zkey_path], [args.r1cs, ptau_path])
    started = time.perf_counter()
    if ptau_path is None:
        from cuzk.engine.setup import setup_zkey

        key = setup_zkey(read_r1cs(args.r1cs), backend=args.backend, path=zkey_path)
        layout: dict[str, Any] = {}
        made = "A one-party setup: for development and tests only."
    else:
        from cuzk.engine.setup_ptau import setup_from_ptau
        from cuzk.formats.ptau import read_ptau

        key, circuit_hash = setup_from_ptau(read_r1cs(args.r1cs), read_ptau(ptau_path), backend=args.backend)
        layout = {"order": SNARKJS_SETUP_ORDER, "circuit_hash": circuit_hash}
        made = f"From {ptau_path}; phase 2 next: snarkjs zkey contribute. Circuit hash {circuit_hash.hex()[:16]}…"
    host = stored_form_host(resolve_backend(args.backend), key.domain_size)  # the points' Montgomery form
    with atomic_outputs([zkey_path]) as (temporary,):  # a failed write leaves an existing .zkey whole
        write_zkey(temporary, key, host=host, **layout)
    print(
        f"{zkey_path}: {key.curve.name}, {key.num_constraints} constraints, domain {key.domain_size}, "
        f"{time.perf_counter() - started:.1f} s. {made}"
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
    add_device_option(prove)
    prove.add_argument("--r1cs", help="the circuit's .r1cs: check the witness first, naming a failing constraint")
    prove.add_argument("--sym", help="the circuit's .sym: signal names in that message")
    prove.add_argument("--no-verify", action="store_true", help="skip verifying the proof made (about 0.5 s)")
    prove.add_argument("--no-check-points", action="store_true", help="trust the key's points (skip curve checks)")
    prove.add_argument("--bellman-proof", help="also write the 192-byte bellman proof (BLS12-381)")
    prove.add_argument("-v", "--verbose", action="store_true", help="print the seconds of each phase")
    prove.add_argument("--timings", action="store_true", help="the phase table, from the process's start")
    prove.add_argument("--trace", metavar="FILE", help="write a Chrome trace of every step and phase (Perfetto)")
    prove.add_argument("--quiet", action="store_true", help="no progress display (it shows only on a terminal)")
    prove.add_argument("--server", metavar="URL", help="prove on a cuzk serve (docs/serve.md); <key> is its name")
    prove.add_argument("--token", help="the server's bearer token (default $CUZK_TOKEN)")
    prove.set_defaults(run=run_prove)

    verify = commands.add_parser("verify", help="verify proof.json, as snarkjs groth16 verify")
    verify.add_argument("verification_key", help="verification_key.json")
    verify.add_argument("public", help="public.json")
    verify.add_argument("proof", help="proof.json")
    verify.set_defaults(run=run_verify)

    setup = commands.add_parser(
        "setup",
        help="a .zkey from a .r1cs and a prepared .ptau, as snarkjs groth16 setup (without the .ptau: a one-party "
        "setup, for development only)",
        usage="cuzk groth16 setup [-h] [--backend BACKEND] circuit.r1cs [pot.ptau] circuit.zkey",
    )
    setup.add_argument("r1cs", help="the circuit (.r1cs)")
    setup.add_argument("ptau", metavar="pot.ptau", help="the ceremony's phase 1, prepared for phase 2 (optional)")
    setup.add_argument("zkey", metavar="circuit.zkey", nargs="?", help="the .zkey to write")
    add_backend_option(setup)
    setup.set_defaults(run=run_setup)
