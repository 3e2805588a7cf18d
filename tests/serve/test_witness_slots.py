"""The shared witness slots of ``cuzk serve --workers processes``: the head's copies, the slots given out and back,
refusals, and a spawned process reading what the head wrote through the descriptor its spawn carried; and the
size of a .wtns that the slots are made for."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from multiprocessing.connection import Connection

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.serve import witness_slots
from cuzk.serve.witness import encode_wtns, wtns_size
from cuzk.serve.witness_slots import WitnessSlots

pytestmark = pytest.mark.skipif(
    not witness_slots.AVAILABLE, reason="shared witness slots need POSIX descriptors (multiprocessing DupFd)"
)


def test_a_slot_holds_a_copy_until_given_back() -> None:
    slots = WitnessSlots(2, 64)
    first, second = os.urandom(64), os.urandom(10)
    a, b = slots.take(first), slots.take(second)
    assert {a, b} == {0, 1}
    assert bytes(slots.view(a, 64)) == first and bytes(slots.view(b, 10)) == second
    assert slots.take(b"x") is None  # every slot holds a witness
    slots.give_back(a)
    again = slots.take(b"later")
    assert again == a and bytes(slots.view(again, 5)) == b"later"
    assert bytes(slots.view(b, 10)) == second  # the other slot was not touched


def test_refusals() -> None:
    slots = WitnessSlots(1, 16)
    assert slots.take(bytes(17)) is None  # larger than a slot: the pipe's
    with pytest.raises(ValueError, match="slot 0 was not taken"):
        slots.give_back(0)
    with pytest.raises(ValueError, match="slot 3 was not taken"):
        slots.give_back(3)
    with pytest.raises(ValueError, match="no witness of 17 bytes in slot 0"):
        slots.view(0, 17)
    with pytest.raises(ValueError, match="at least 1"):
        WitnessSlots(0, 16)


def digest_of_slot(conn: Connection, slots: WitnessSlots, index: int, length: int) -> None:
    conn.send(hashlib.sha256(slots.view(index, length)).hexdigest())
    conn.close()


def test_a_spawned_child_reads_the_slot_the_head_wrote() -> None:
    slots = WitnessSlots(2, 1 << 20)
    data = os.urandom((1 << 20) - 3)
    index = slots.take(data)
    assert index is not None
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    child = context.Process(target=digest_of_slot, args=(theirs, slots, index, len(data)))
    child.start()
    theirs.close()
    assert ours.poll(60), "the child did not answer"
    assert ours.recv() == hashlib.sha256(data).hexdigest()
    child.join(10)
    assert child.exitcode == 0


@pytest.mark.parametrize(("curve", "count"), [(BN254, 1), (BN254, 52), (BLS12_381, 1000)])
def test_wtns_size_is_the_encoded_length(curve: Curve, count: int) -> None:
    values = np.zeros((count, limbs.limb_count(curve.r)), dtype=np.uint64)
    values[0, 0] = 1
    assert wtns_size(curve.r, count) == len(encode_wtns(curve.r, values))
