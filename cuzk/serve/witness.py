"""A request's witness, checked against its key, kept as .wtns bytes.

A client sends either the .wtns file circom's witness calculator writes (``application/octet-stream``) or the
witness as JSON decimal strings (``{"key": …, "witness": ["1", "33", …]}``, what ``snarkjs wtns export json``
writes). Both are checked as ``cuzk groth16 prove`` checks a .wtns file — the field is the key's, the count is
the key's number of signals, every value below r, the first value 1 — and both are kept (in the queue, in the
journal) as .wtns bytes, which is what a worker reads again after a restart. A JSON witness and an asynchronous
job's .wtns are checked in full before the job is accepted; a synchronous request's .wtns as far as its header
goes (:func:`check_wtns_bytes`), its values where its prover reads them (:func:`read_wtns_bytes`), with the same
refusals.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.formats.r1cs import check_witness_matches, check_witness_shape
from cuzk.formats.wtns import MAGIC, VERSION, Witness, check_wtns_layout, read_wtns
from cuzk.reference.errors import CuzkError
from cuzk.serve.errors import UnprocessableError
from cuzk.serve.jobs import WtnsBytes

REQUEST = "the witness"  # how messages name the witness of a request (it has no file name)
LABEL = "<request>"  # the reader's name for the body, replaced by REQUEST in what a client reads


def encode_wtns(prime: int, values: np.ndarray) -> bytes:
    """The .wtns file (version 2) of ``values``, (count, limbs) uint64 canonical limbs over ``prime``."""
    n8 = 8 * limbs.limb_count(prime)
    header = struct.pack("<I", n8) + prime.to_bytes(n8, "little") + struct.pack("<I", len(values))
    body = np.ascontiguousarray(values, dtype="<u8").tobytes()
    parts = [MAGIC, struct.pack("<II", VERSION, 2)]
    for section, content in ((1, header), (2, body)):
        parts += [struct.pack("<IQ", section, len(content)), content]
    return b"".join(parts)


def wtns_size(prime: int, count: int) -> int:
    """The length of what :func:`encode_wtns` writes for ``count`` values over ``prime``: the magic, the version
    and section count, then each section's id and size before its content."""
    n8 = 8 * limbs.limb_count(prime)
    return len(MAGIC) + 8 + (12 + 4 + n8 + 4) + (12 + count * n8)


def read_wtns_bytes(
    data: WtnsBytes,
    prime: int,
    count: int,
    key: str,
    *,
    empty: Callable[..., np.ndarray] = np.empty,
    in_place: bool = False,
) -> Witness:
    """The witness of the .wtns bytes ``data``, checked (as a .wtns file is) to be over ``prime`` with ``count``
    values (the key ``key``'s); UnprocessableError naming the problem otherwise. Read in place: no copy of the
    body goes through a file; the values are copied once, into ``empty(shape, dtype)`` (a prover's: its
    backend's host_array, pinned memory that the upload of z reads at the bus's speed), or with ``in_place``
    (``data`` read into such memory: :func:`upload_body`) not at all."""
    with refused():
        witness = read_wtns(LABEL, content=data, empty=empty, in_place=in_place)
        check_witness_matches(witness, prime, count, f"key {key!r}")
    return Witness(REQUEST, witness.prime, witness.values)


def upload_body(empty: Callable[..., np.ndarray], size: int, prime: int) -> memoryview:
    """A buffer of ``size`` bytes for a .wtns body in ``empty``'s memory (a prover's upload memory), placed so that
    the values of a .wtns laid out as circom and :func:`encode_wtns` write it (header section first) start on an
    8-byte boundary: read there, they are the prover's z as they lie (:func:`read_wtns_bytes` ``in_place``)."""
    lead = -wtns_size(prime, 0) % 8  # the values' offset in such a file
    return memoryview(empty((size + lead,), np.uint8))[lead:]


def check_wtns_bytes(data: WtnsBytes, prime: int, count: int, key: str) -> None:
    """The checks of :func:`read_wtns_bytes` that read no value (the header, the sections, the field and the
    number of values: microseconds), with its errors: what a server checks before it queues a synchronous job,
    whose values its prover then reads once, where its upload reads them (:meth:`DeviceProver.prepare`)."""
    with refused():
        shape = check_wtns_layout(LABEL, content=data)
        check_witness_shape(LABEL, shape, prime, count, f"key {key!r}")


@contextmanager
def refused() -> Iterator[None]:
    """The format's errors about a request's .wtns as UnprocessableError (422), naming it as a client reads it."""
    try:
        yield
    except CuzkError as exc:
        raise UnprocessableError(str(exc).replace(f"{LABEL}: ", "").replace(LABEL, REQUEST)) from None


def witness_of_json(values: Any, prime: int, count: int, key: str) -> Witness:
    """The witness of a JSON list of decimal strings, checked as :func:`read_wtns_bytes` checks a file: the count
    first (no value is converted before), then each value's form, its size (< prime) and z_0 = 1."""
    if not isinstance(values, list):
        raise UnprocessableError('"witness" must be a list of decimal strings (snarkjs wtns export json)')
    if len(values) != count:
        raise UnprocessableError(f"{REQUEST} has {len(values)} values, but key {key!r} expects {count}")
    digits = len(str(prime))
    numbers = []
    for i, value in enumerate(values):
        if not isinstance(value, str) or not value.isascii() or not value.isdigit() or len(value) > digits:
            shown = repr(value)[:40]
            raise UnprocessableError(
                f"{REQUEST}: value {i} is {shown}, not a decimal string of at most {digits} digits"
            )
        number = int(value)
        if number >= prime:
            raise UnprocessableError(f"{REQUEST}: value {i} is not in the field of key {key!r}: it is ≥ r = {prime}")
        numbers.append(number)
    if count and numbers[0] != 1:
        raise UnprocessableError(f"{REQUEST}: value 0 must be the constant 1")
    return Witness(REQUEST, prime, limbs.ints_to_limbs(numbers, limbs.limb_count(prime)))


__all__ = [
    "REQUEST",
    "check_wtns_bytes",
    "encode_wtns",
    "read_wtns_bytes",
    "upload_body",
    "witness_of_json",
    "wtns_size",
]
