"""A synchronous request's .wtns read into its prover's upload memory (``Service.upload_memory``): the values are
then the prover's z where they lie, with every refusal of a .wtns read as before; a body laid out otherwise is
copied, as any body is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cuzk.formats.wtns import read_wtns
from cuzk.serve.errors import UnprocessableError
from cuzk.serve.jobs import Job
from cuzk.serve.journal import Journal
from cuzk.serve.keys import KeyRegistry
from cuzk.serve.service import UPLOAD_MEMORY_QUEUE, Service
from cuzk.serve.witness import read_wtns_bytes, upload_body, wtns_size
from cuzk.serve.worker import DeviceProver

from ._server import expected_public, wtns


def shape(body: bytes) -> tuple[int, int]:
    """(the field's prime, the number of values) of a .wtns."""
    witness = read_wtns("fixture.wtns", content=body)
    return witness.prime, len(witness.values)


def into(body: bytes, prime: int) -> memoryview:
    """``body`` read as the server reads it into upload memory (numpy's here, as the cpu backend's host_array)."""
    buffer = upload_body(np.empty, len(body), prime)
    buffer[:] = body
    return buffer


@pytest.mark.parametrize("key", ["bn", "bls"])
def test_the_values_are_read_where_they_lie(key: str) -> None:
    body = wtns(key)
    prime, count = shape(body)
    assert len(body) == wtns_size(prime, count), "the fixture is laid out as circom writes a .wtns"
    buffer = into(body, prime)
    backing = np.frombuffer(buffer, dtype=np.uint8)
    placed = read_wtns_bytes(buffer, prime, count, key, in_place=True)
    copied = read_wtns_bytes(body, prime, count, key)
    assert np.array_equal(placed.values, copied.values)
    assert np.shares_memory(placed.values, backing) and not np.shares_memory(copied.values, backing)
    assert placed.values.ctypes.data % 8 == 0


def test_a_body_whose_values_are_not_aligned_is_copied() -> None:
    body = wtns("bn")
    prime, count = shape(body)
    shifted = memoryview(np.empty(len(body) + 9, np.uint8))[9:]  # one byte off the layout upload_body makes
    shifted[:] = body
    witness = read_wtns_bytes(shifted, prime, count, "bn", in_place=True)
    assert not np.shares_memory(witness.values, np.frombuffer(shifted, dtype=np.uint8))
    assert np.array_equal(witness.values, read_wtns_bytes(body, prime, count, "bn").values)


def test_a_bad_value_in_upload_memory_is_refused_as_ever() -> None:
    body = bytearray(wtns("bn"))
    prime, count = shape(body)
    body[-32:] = prime.to_bytes(32, "little")  # the last value = r: not reduced
    with pytest.raises(UnprocessableError, match="not reduced"):
        read_wtns_bytes(into(bytes(body), prime), prime, count, "bn", in_place=True)


def test_one_prover_in_process_offers_its_upload_memory(keys_dir: Path, tmp_path: Path) -> None:
    registry = KeyRegistry(str(keys_dir))
    device = DeviceProver(registry, "cpu")
    service = Service(registry, Journal(str(tmp_path)), [device], capacity=2)
    offered = service.upload_memory("bn")
    assert offered is not None and offered == device.provers["bn"].backend.host_array
    body = wtns("bn")
    buffer = upload_body(offered, len(body), registry.get("bn").prime)
    buffer[:] = body
    prepared = device.prepare("bn", buffer, in_place=True)
    entry = registry.get("bn")
    assert np.array_equal(prepared.assignment.z, read_wtns_bytes(body, entry.prime, entry.count, "bn").values)
    assert device.check(prepared, device.prove(prepared))["public"] == expected_public("bn")
    assert Service(registry, Journal(str(tmp_path / "two")), [device, device], capacity=2).upload_memory("bn") is None
    for k in range(UPLOAD_MEMORY_QUEUE):  # jobs waiting: later bodies go to plain memory
        service.queue.put(Job(f"waiting{k}", "bn", body, durable=False), force=True)
    assert service.upload_memory("bn") is None
