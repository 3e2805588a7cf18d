"""Build variants of the OpenCL programs, run on PoCL: field operations and MSMs equal the reference's.

- CUZK_NO_INT128: the prelude's path for devices without 128-bit integers (GPUs: carries from comparisons, products'
  high halves from mul_hi). PoCL itself takes the 128-bit path, which every other OpenCL test covers.
- CUZK_PAIRED_MUL: the bucket kernel's experiment for CUDA (a mixed addition's products in independent pairs, the
  running total in the work-item's output slot), the same source on every API.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from cuzk.backends import limbs
from cuzk.backends.opencl import OpenCLBackend
from cuzk.backends.opencl import device as opencl_device
from cuzk.backends.reference import ReferenceBackend
from cuzk.reference.curves import Curve

VARIANTS = ["CUZK_NO_INT128", "CUZK_PAIRED_MUL 1"]


@pytest.fixture(scope="module", params=VARIANTS)
def portable(request: pytest.FixtureRequest) -> Iterator[OpenCLBackend]:
    generate, define = opencl_device.generate, request.param
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            opencl_device,
            "generate",
            lambda curve, api, program: f"#define {define}\n" + generate(curve, api, program),
        )
        backend = OpenCLBackend()
        if not backend.is_available():
            pytest.skip(f"the opencl backend cannot run here: {backend.unavailable_reason()}")
        yield backend


@pytest.mark.parametrize("op", ["add", "sub", "mul"])
@pytest.mark.parametrize("field", ["fq", "fr"])
def test_field_operations_of_the_variant(portable: OpenCLBackend, curve: Curve, field: str, op: str) -> None:
    rng = random.Random(f"{curve.name}{field}{op}")
    p = curve.q if field == "fq" else curve.r
    width = -(-p.bit_length() // 64)
    edge = [0, 1, p - 1, p - 2, (1 << (64 * width - 1)) % p]
    a = edge + [rng.randrange(p) for _ in range(59)]
    b = list(reversed(edge)) + [rng.randrange(p) for _ in range(59)]
    got = portable.field_op(curve, field, op, limbs.ints_to_limbs(a, width), limbs.ints_to_limbs(b, width))
    want = ReferenceBackend().field_op(curve, field, op, limbs.ints_to_limbs(a, width), limbs.ints_to_limbs(b, width))
    assert (got == want).all()


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_msm_of_the_variant(portable: OpenCLBackend, curve: Curve, group: str) -> None:
    """Random points, and pairs that meet in one bucket as P + P (a doubling) and P + (−P) (the identity)."""
    rng = random.Random(f"{curve.name}{group}")
    g = limbs.group_of(curve, group).generator
    points = [g * rng.randrange(1, curve.r) for _ in range(10)]
    points += [points[0], -points[1]]
    bases = limbs.points_to_limbs(curve, group, points)
    values = [rng.randrange(curve.r) for _ in range(10)]
    values += [values[0], values[1]]
    scalars = limbs.ints_to_limbs(values, limbs.FR_LIMBS)
    want = ReferenceBackend().msm(curve, group, bases, scalars)
    assert (portable.msm(curve, group, bases, scalars) == want).all()
