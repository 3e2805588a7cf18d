"""The .r1cs constraint file of circom (iden3/r1csfile), and the check that a witness satisfies it.

    magic b"r1cs", version 1
    section 1 (header)       n8 u32, prime (n8 bytes), nWires u32, nPubOut u32, nPubIn u32, nPrvIn u32,
                             nLabels u64, nConstraints u32
    section 2 (constraints)  per constraint, the linear combinations A, B, C; each: nTerms u32, then nTerms ×
                             (wire u32, coefficient n8 bytes, canonical little-endian)
    section 3 (wire map)     nWires × u64: the label (signal) id of each wire
    sections 4, 5            PLONK custom gates (circom --O? with custom templates): not provable with Groth16

Wires are numbered as z: 0 is the constant 1, then the outputs, the public inputs, the private inputs, the rest.
The constraint section is read by :mod:`cuzk.formats.r1cs_terms`.
"""

from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.formats.binfile import BinFile, write_binfile
from cuzk.formats.errors import FormatError, WitnessMismatchError
from cuzk.formats.r1cs_terms import Terms, read_constraints
from cuzk.formats.wtns import Witness, field_name, read_field
from cuzk.reference.errors import UnsatisfiedConstraintError

MAGIC = b"r1cs"
VERSION = 1
SECTIONS = {1: "header", 2: "constraints", 3: "wire-to-label map", 4: "custom gates list", 5: "custom gates uses"}
_WIRE = re.compile(r"-?[0-9]{1,20}")


@dataclass(frozen=True)
class R1cs:
    """A constraint system read from a .r1cs file."""

    path: str
    prime: int
    n8: int
    num_wires: int
    num_outputs: int
    num_public_inputs: int
    num_private_inputs: int
    num_labels: int
    num_constraints: int
    a: Terms
    b: Terms
    c: Terms

    @property
    def num_public(self) -> int:
        """Public signals, not counting the constant: the outputs, then the public inputs (snarkjs's nPublic)."""
        return self.num_outputs + self.num_public_inputs

    def check_witness(self, witness: Witness, names: dict[int, str] | None = None) -> None:
        """The witness must be over this prime, have one value per wire and satisfy every constraint; otherwise a
        WitnessMismatchError, or an UnsatisfiedConstraintError naming the first failing constraint, its values and
        its wires (with their signal names when ``names``, from a .sym file, is given)."""
        check_witness_matches(witness, self.prime, self.num_wires, self.path)
        z = witness.ints()
        a, b, c = (m.row_sums(z, self.num_constraints, self.prime) for m in (self.a, self.b, self.c))
        for i, (va, vb, vc) in enumerate(zip(a, b, c, strict=True)):
            if va * vb % self.prime != vc:
                wires = sorted({int(w) for m in (self.a, self.b, self.c) for w in m.wires[m.rows == i]})
                signals = ", ".join(f"{names[w]} (wire {w})" if names and w in names else f"wire {w}" for w in wires)
                raise UnsatisfiedConstraintError(
                    f"{witness.path}: the witness does not satisfy constraint {i} of {self.path}: ⟨A,z⟩ = {va}, "
                    f"⟨B,z⟩ = {vb}, ⟨C,z⟩ = {vc}, but ⟨A,z⟩·⟨B,z⟩ = {va * vb % self.prime}; its signals: {signals}",
                    i,
                )


def check_witness_shape(path: str, shape: tuple[int, int], prime: int, count: int, what: str) -> None:
    """A witness at ``path`` of ``shape`` (its prime, its number of values) is over the field of ``prime`` with
    ``count`` values, or a WitnessMismatchError naming both files."""
    witness_prime, witness_count = shape
    if witness_prime != prime:
        raise WitnessMismatchError(
            path, f"the witness is over {field_name(witness_prime)}, but {what} is over {field_name(prime)}"
        )
    if witness_count != count:
        raise WitnessMismatchError(path, f"the witness has {witness_count} values, but {what} expects {count}")


def check_witness_matches(witness: Witness, prime: int, count: int, what: str) -> None:
    """Same prime and ``count`` values, or a WitnessMismatchError naming both files."""
    check_witness_shape(witness.path, (witness.prime, len(witness)), prime, count, what)


def read_r1cs(path: str | os.PathLike[str]) -> R1cs:
    """Read and check a .r1cs file."""
    file = BinFile(path, MAGIC, (VERSION,), SECTIONS)
    header = file.cursor(1)
    n8, prime = read_field(file, header)
    counts_at = header.pos
    counts = [header.u32(what) for what in ("nWires", "nPubOut", "nPubIn", "nPrvIn")]
    num_labels = header.u64("nLabels")
    num_constraints = header.u32("nConstraints")
    header.finish()
    num_wires, num_outputs, num_public_inputs, num_private_inputs = counts
    if 1 + num_outputs + num_public_inputs + num_private_inputs > num_wires:
        raise file.error(
            f"{num_outputs} outputs + {num_public_inputs} public + {num_private_inputs} private inputs + the constant "
            f"do not fit in {num_wires} wires",
            header.section,
            counts_at,
        )
    for gates in (4, 5):
        if file.has(gates) and file.section(gates).size > 4:
            section = file.section(gates)
            raise file.error("the circuit uses PLONK custom gates, which Groth16 cannot prove", section, section.offset)
    a, b, c = read_constraints(file, n8, prime, num_constraints, num_wires)
    return R1cs(
        os.fspath(path),
        prime,
        n8,
        num_wires,
        num_outputs,
        num_public_inputs,
        num_private_inputs,
        num_labels,
        num_constraints,
        a,
        b,
        c,
    )


def read_sym(path: str | os.PathLike[str]) -> dict[int, str]:
    """Wire → signal name from circom's .sym file (lines ``label,wire,component,name``; wire −1: optimised away).

    Lines end with "\\n" (or "\\r\\n") and are UTF-8; the wire is a decimal integer (ASCII digits, an optional
    minus sign, at most 20 digits); the first name given to a wire is kept.
    """
    names: dict[int, str] = {}
    try:
        with open(path, "rb") as lines:
            for number, raw in enumerate(lines, 1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise FormatError(
                        path, f"line {number} is not UTF-8 text: {exc.reason} at byte {exc.start}"
                    ) from None
                fields = line.rstrip("\r\n").split(",", 3)
                if len(fields) != 4 or not _WIRE.fullmatch(fields[1]):
                    shown = line[:60] + ("…" if len(line) > 60 else "")
                    raise FormatError(path, f"line {number} is not 'label,wire,component,name': {shown!r}")
                if int(fields[1]) >= 0:
                    names.setdefault(int(fields[1]), fields[3])
    except OSError as exc:
        raise FormatError(path, f"cannot read the symbols file: {exc.strerror}") from None
    return names


def write_r1cs(
    path: str | os.PathLike[str],
    prime: int,
    constraints: list[tuple[dict[int, int], dict[int, int], dict[int, int]]],
    *,
    num_wires: int,
    num_outputs: int,
    num_public_inputs: int,
    num_private_inputs: int,
) -> None:
    """Write a .r1cs file (for tests and tools): each constraint is three {wire: coefficient} maps."""
    n8 = 8 * limbs.limb_count(prime)
    body = bytearray()
    for constraint in constraints:
        for lc in constraint:
            body += struct.pack("<I", len(lc))
            for wire, coeff in sorted(lc.items()):
                body += struct.pack("<I", wire) + (coeff % prime).to_bytes(n8, "little")
    write_r1cs_body(
        path,
        prime,
        bytes(body),
        num_wires=num_wires,
        num_outputs=num_outputs,
        num_public_inputs=num_public_inputs,
        num_private_inputs=num_private_inputs,
        num_constraints=len(constraints),
    )


def write_r1cs_body(
    path: str | os.PathLike[str],
    prime: int,
    body: bytes | np.ndarray,
    *,
    num_wires: int,
    num_outputs: int,
    num_public_inputs: int,
    num_private_inputs: int,
    num_constraints: int,
) -> None:
    """Write a .r1cs file whose constraint section is ``body``, already encoded (bytes, or an array written from its
    own memory: a generator of millions of constraints builds it with numpy, never a Python object per term); the
    header and the identity wire map (wire i is label i) are made here, and the file appears atomically."""
    n8 = 8 * limbs.limb_count(prime)
    header = (
        struct.pack("<I", n8)
        + prime.to_bytes(n8, "little")
        + struct.pack(
            "<IIIIQI", num_wires, num_outputs, num_public_inputs, num_private_inputs, num_wires, num_constraints
        )
    )
    wire_map = np.arange(num_wires, dtype="<u8")
    write_binfile(path, MAGIC, VERSION, [(1, header), (2, body), (3, wire_map)])


def write_constraint_system(path: str | os.PathLike[str], cs: Any, *, num_private_inputs: int = 0) -> None:
    """A reference constraint system as a .r1cs: its public inputs (after the constant) as circom's public inputs,
    then its first ``num_private_inputs`` aux variables as circom's private inputs."""
    a, b, c = cs.matrices()
    constraints = [tuple({col: k.value for col, k in row} for row in rows) for rows in zip(a, b, c, strict=True)]
    write_r1cs(
        path,
        cs.field.MODULUS,
        constraints,  # type: ignore[arg-type]
        num_wires=cs.num_inputs + cs.num_aux,
        num_outputs=0,
        num_public_inputs=cs.num_inputs - 1,
        num_private_inputs=num_private_inputs,
    )


__all__ = [
    "MAGIC",
    "R1cs",
    "Terms",
    "check_witness_matches",
    "check_witness_shape",
    "read_r1cs",
    "read_sym",
    "write_constraint_system",
    "write_r1cs",
    "write_r1cs_body",
]
