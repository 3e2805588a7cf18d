"""``cuzk groth16 prove``'s job: a proof from a snarkjs .zkey and a circom .wtns, every step of the process timed.

Each step is an engine-level span of one :class:`~cuzk.engine.timing.Recorder`, so that ``--timings`` lists it
and ``--trace`` shows it beside the proof's phases: ``imports`` (from the process's start, when the caller gives
it), ``backend`` (choosing and starting it), ``read_key``, ``read_witness``, ``read_r1cs``, ``check_r1cs`` (every
check of the inputs), ``compile`` (waiting for a first run's kernels, compiled beside the reading, or a device's
start: :mod:`cuzk.engine.warm`), then :func:`~cuzk.engine.zkey.prove_zkey`'s ``prepare``, the proof's phases and
``verify``; the caller adds ``write``. The key's A and B are laid out for the backend on a thread from the moment
the key is read (``prepare_qap``), and uploaded once the inputs have passed their checks.
"""

from __future__ import annotations

import os
import warnings
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial

from cuzk.backends.protocol import DEVICE, Backend, WorkSizes, has_capability
from cuzk.backends.starting import BackendStart
from cuzk.engine.progress import NullProgress, Progress
from cuzk.engine.timing import Recorder
from cuzk.engine.warm import proof_sizes, warm_up
from cuzk.engine.witness import SparseQap
from cuzk.engine.zkey import ZkeyProof, check_inputs, prove_zkey, read_zkey_for, start_key_qap
from cuzk.formats import zkey as zkey_format
from cuzk.formats.binfile import BinFile
from cuzk.formats.r1cs import R1cs, check_witness_shape, read_r1cs, read_sym
from cuzk.formats.wtns import Witness, check_wtns_layout, read_wtns
from cuzk.formats.zkey import ZKey, read_zkey_header
from cuzk.reference.curves import Curve

Path = str | os.PathLike[str]


@dataclass
class FilesProof:
    """The proof of :func:`prove_files`, with the key's curve, the backend's name and every step's spans."""

    result: ZkeyProof
    curve: Curve
    backend: str
    recorder: Recorder
    compiled: bool  # whether a first run's kernels were compiled (``compile`` is then a span)


def prove_files(
    zkey_path: Path,
    witness_path: Path,
    *,
    backend_name: str | None = None,
    r1cs_path: Path | None = None,
    sym_path: Path | None = None,
    check_points: bool = True,
    verify_proof: bool = True,
    recorder: Recorder | None = None,
    progress: Progress | None = None,
) -> FilesProof:
    """Read the key, the witness (and the .r1cs, .sym when given), prove on the backend, verify (see prove_zkey)."""
    recorder = recorder if recorder is not None else Recorder()
    display = progress if progress is not None else NullProgress()
    display.attach(recorder)
    with recorder.span("read_key"):  # headers and sections' tables: a cut file fails before a backend is chosen
        curve, num_variables = read_zkey_header(zkey_path)
        shape = check_wtns_layout(witness_path)
        check_witness_shape(os.fspath(witness_path), shape, curve.r, num_variables, os.fspath(zkey_path))
    sizes = _proof_sizes(zkey_path, num_variables)
    # a named device's driver starts, and its warm-up (its context, its programs), on a thread while the key is read
    starting = BackendStart(backend_name, then=lambda b: warm_up(b, curve, "prove", sizes, from_key=True))
    inputs = _read_and_check(
        starting, recorder, display, (zkey_path, witness_path, r1cs_path, sym_path), num_variables, check_points
    )
    display.step("prove")
    on_ready = partial(_say, inputs.notices)  # the inputs passed every check: now say which backend proves
    options = {"verify_proof": verify_proof, "recorder": recorder, "inputs_checked": True, "key_qap": inputs.key_qap}
    zkey, backend = inputs.zkey, inputs.backend
    result = prove_zkey(zkey, inputs.witness, backend=backend, r1cs=inputs.r1cs, on_ready=on_ready, **options)
    display.proof_done()
    return FilesProof(result, zkey.curve, backend.name, recorder, inputs.compiled)


@dataclass
class _Inputs:
    """What :func:`_read_and_check` read and checked, and the key's A and B on their way to the backend."""

    zkey: ZKey
    witness: Witness
    r1cs: R1cs | None
    backend: Backend
    key_qap: Future[SparseQap]
    notices: list[warnings.WarningMessage]
    compiled: bool


def _read_and_check(
    starting: BackendStart,
    recorder: Recorder,
    display: Progress,
    paths: tuple[Path, Path, Path | None, Path | None],
    num_variables: int,
    check_points: bool,
) -> _Inputs:
    """The key (read for the backend's liking while it starts, when it is a named device), the witness, the .r1cs
    and .sym, every check of them; the key's A and B laid out on a thread from the moment the key is read, uploaded
    only once the checks have passed (``checked``). A named device's start (its driver, its context, its programs'
    loads) runs on its thread through all of the reading and checking."""
    zkey_path, witness_path, r1cs_path, sym_path = paths
    checked: Future[bool] = Future()

    def read_all(backend: Backend) -> tuple[ZKey, Future[SparseQap], Witness, R1cs | None]:
        display.step("read the key")
        with recorder.span("read_key"):
            zkey = read_zkey_for(zkey_path, backend, num_variables, check_points=check_points)
        key_qap = start_key_qap(zkey, backend, recorder, checked=checked)
        display.step("read the witness")
        with recorder.span("read_witness"):
            witness = read_wtns(witness_path)
        with recorder.span("read_r1cs"):
            r1cs = read_r1cs(r1cs_path) if r1cs_path is not None else None
            names = read_sym(sym_path) if sym_path is not None else None
        with recorder.span("check_r1cs"):
            check_inputs(zkey, witness, r1cs, names)
        checked.set_result(True)
        return zkey, key_qap, witness, r1cs

    read: tuple[ZKey, Future[SparseQap], Witness, R1cs | None] | None = None
    try:
        if starting.known is not None and has_capability(starting.known, DEVICE):  # decodes nothing on the host
            read = read_all(starting.known)
        with recorder.span("backend"), warnings.catch_warnings(record=True) as notices:
            warnings.simplefilter("always")
            backend = starting.wait()  # its notices wait for inputs known to be good
        with starting.prepared as warming:
            zkey, key_qap, witness, r1cs = read if read is not None else read_all(backend)
            if warming.started:
                display.step("compile the kernels (first run)")
                with recorder.span("compile"):
                    warming.wait()
    finally:
        if not checked.done():
            checked.set_result(False)  # a read or a check failed: the key's A and B go nowhere
    return _Inputs(zkey, witness, r1cs, backend, key_qap, notices, warming.started)


def _say(notices: list[warnings.WarningMessage]) -> None:
    """The backend's notices held back while the inputs were checked (auto's fallback: one line)."""
    for notice in notices:
        warnings.warn_explicit(notice.message, notice.category, notice.filename, notice.lineno)


def _proof_sizes(zkey_path: Path, num_variables: int) -> WorkSizes:
    """The sizes of the key's MSMs, from its header (read_zkey_header checked it): the variables, and the domain's
    size (H's points with circom's reduction, a .zkey's)."""
    header = BinFile(zkey_path, zkey_format.MAGIC, (1, 2), zkey_format.SECTIONS).cursor(2)
    for prime in ("q", "r"):
        header.integer(header.u32(f"n8{prime}"), prime)
    header.u32("nVars")
    header.u32("nPublic")
    domain = header.u32("domainSize")
    return proof_sizes(num_variables, domain, domain)


__all__ = ["FilesProof", "prove_files"]
