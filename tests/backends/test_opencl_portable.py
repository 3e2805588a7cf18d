"""The OpenCL prelude's path for devices without 128-bit integers (GPUs: carries from comparisons, products'
high halves from mul_hi), run on PoCL by building the programs with CUZK_NO_INT128: field operations and a G1 MSM
equal the reference's. PoCL itself takes the 128-bit path, which every other OpenCL test covers."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from cuzk.backends import limbs
from cuzk.backends.opencl import OpenCLBackend
from cuzk.backends.opencl import device as opencl_device
from cuzk.backends.reference import ReferenceBackend
from cuzk.reference.curves import Curve


@pytest.fixture(scope="module")
def portable() -> Iterator[OpenCLBackend]:
    generate = opencl_device.generate
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            opencl_device,
            "generate",
            lambda curve, api, program: "#define CUZK_NO_INT128\n" + generate(curve, api, program),
        )
        backend = OpenCLBackend()
        if not backend.is_available():
            pytest.skip(f"the opencl backend cannot run here: {backend.unavailable_reason()}")
        yield backend


@pytest.mark.parametrize("op", ["add", "sub", "mul"])
@pytest.mark.parametrize("field", ["fq", "fr"])
def test_field_operations_without_int128(portable: OpenCLBackend, curve: Curve, field: str, op: str) -> None:
    rng = random.Random(f"{curve.name}{field}{op}")
    p = curve.q if field == "fq" else curve.r
    width = -(-p.bit_length() // 64)
    edge = [0, 1, p - 1, p - 2, (1 << (64 * width - 1)) % p]
    a = edge + [rng.randrange(p) for _ in range(59)]
    b = list(reversed(edge)) + [rng.randrange(p) for _ in range(59)]
    got = portable.field_op(curve, field, op, limbs.ints_to_limbs(a, width), limbs.ints_to_limbs(b, width))
    want = ReferenceBackend().field_op(curve, field, op, limbs.ints_to_limbs(a, width), limbs.ints_to_limbs(b, width))
    assert (got == want).all()


def test_g1_msm_without_int128(portable: OpenCLBackend, curve: Curve) -> None:
    rng = random.Random(curve.name)
    g = limbs.group_of(curve, "g1").generator
    points = [g * rng.randrange(1, curve.r) for _ in range(12)]
    bases = limbs.points_to_limbs(curve, "g1", points)
    scalars = limbs.ints_to_limbs([rng.randrange(curve.r) for _ in range(12)], limbs.FR_LIMBS)
    assert (portable.msm(curve, "g1", bases, scalars) == ReferenceBackend().msm(curve, "g1", bases, scalars)).all()
