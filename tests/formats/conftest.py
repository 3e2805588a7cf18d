"""Small circuits written as circom's files: the reference's cubic circuit as a .r1cs and .wtns, and its .zkey made
by cuzk's setup with fixed secrets, for each curve (cheap: a few constraints, a domain of 16)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from cuzk.engine.setup import setup_zkey
from cuzk.formats.r1cs import read_r1cs, write_constraint_system
from cuzk.formats.wtns import read_wtns, write_wtns
from cuzk.formats.zkey import ZKey, read_zkey
from cuzk.formats.zkey_write import write_zkey
from cuzk.reference.circuits.cubic import synthesize_cubic
from cuzk.reference.curves import Curve
from cuzk.reference.groth16 import ToxicWaste
from cuzk.reference.r1cs import ConstraintSystem

TOXIC = ToxicWaste(tau=123456789, alpha=11, beta=13, gamma=17, delta=19)


@dataclass(frozen=True)
class SmallCircuit:
    curve: Curve
    cs: ConstraintSystem
    r1cs: Path
    wtns: Path
    zkey: Path


def write_circuit_files(cs: ConstraintSystem, r1cs: Path, wtns: Path) -> None:
    """``cs`` as a .r1cs (its public inputs as circom public inputs) and its assignment as a .wtns."""
    write_constraint_system(r1cs, cs)
    write_wtns(wtns, cs.field.MODULUS, [v.value for v in cs.full_assignment()])


def cubic_system(curve: Curve, steps: int = 2) -> ConstraintSystem:
    cs = ConstraintSystem(curve.Fr)
    synthesize_cubic(cs, 3, steps=steps)
    return cs


@pytest.fixture(scope="session")
def small_circuits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, SmallCircuit]:
    from cuzk.reference.curves import BLS12_381, BN254

    out = {}
    for curve in (BN254, BLS12_381):
        folder = tmp_path_factory.mktemp(curve.name)
        cs = cubic_system(curve)
        circuit = SmallCircuit(curve, cs, folder / "cubic.r1cs", folder / "cubic.wtns", folder / "cubic.zkey")
        write_circuit_files(cs, circuit.r1cs, circuit.wtns)
        write_zkey(circuit.zkey, setup_zkey(read_r1cs(circuit.r1cs), TOXIC, backend="reference"))
        out[curve.name] = circuit
    return out


@pytest.fixture
def small(small_circuits: dict[str, SmallCircuit], curve: Curve) -> SmallCircuit:
    """The small circuit of the ``curve`` fixture's curve."""
    return small_circuits[curve.name]


@pytest.fixture
def make_circuit():  # type: ignore[no-untyped-def]
    """make_circuit(curve, steps, r1cs_path, wtns_path): the cubic circuit of ``steps`` steps written as files."""

    def make(curve: Curve, steps: int, r1cs: Path, wtns: Path) -> ConstraintSystem:
        cs = cubic_system(curve, steps)
        write_circuit_files(cs, r1cs, wtns)
        return cs

    return make


@pytest.fixture
def small_zkey(small: SmallCircuit) -> ZKey:
    return read_zkey(small.zkey)


@pytest.fixture
def small_witness(small: SmallCircuit):  # type: ignore[no-untyped-def]
    return read_wtns(small.wtns)


def _rewrite(
    source: Path,
    target: Path,
    sections: dict[int, bytes] | None = None,
    *,
    magic: bytes | None = None,
    version: int | None = None,
) -> Path:
    """A copy of an iden3 file with some sections' contents replaced (or the magic or version changed)."""
    from cuzk.formats.binfile import BinFile, write_binfile

    data = source.read_bytes()
    found = BinFile(source, data[:4], (int.from_bytes(data[4:8], "little"),))
    contents = [
        (s.id, (sections or {}).get(s.id, data[s.offset : s.offset + s.size]))
        for group in found.sections.values()
        for s in group
    ]
    write_binfile(target, magic or data[:4], version if version is not None else found.version, contents)
    return target


@pytest.fixture
def rewrite():  # type: ignore[no-untyped-def]
    """rewrite(source, target, {section id: new content}, magic=…, version=…) → target."""
    return _rewrite


def section_bytes(path: Path, section_id: int) -> bytearray:
    from cuzk.formats.binfile import BinFile

    data = path.read_bytes()
    s = BinFile(path, data[:4], (int.from_bytes(data[4:8], "little"),)).section(section_id)
    return bytearray(data[s.offset : s.offset + s.size])


@pytest.fixture
def section():  # type: ignore[no-untyped-def]
    """section(path, id) → a mutable copy of that section's content."""
    return section_bytes
