"""The GPU backends' memory planner (pure Python, no device): windows, bucket segments, chunks, and the
errors when nothing fits."""

from __future__ import annotations

import dataclasses
from math import isqrt

import pytest

from cuzk.backends.cuda import device as cuda_device
from cuzk.backends.gpu import msm_job
from cuzk.backends.gpu.context import DeviceInfo
from cuzk.backends.gpu.errors import DeviceMemoryError
from cuzk.backends.gpu.plan import (
    MIN_SCAN_BLOCK,
    Memory,
    fewest_additions_window,
    piece_sizes,
    plan_msm,
    scan_block,
    shifted_window,
    window_cost,
)
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.msm import window_count

INFO = DeviceInfo("test", "test", "gpu", 1, 1 << 30, 1 << 30, {})

# --- the planner --------------------------------------------------------------------------------------------------

BIG = Memory(budget=1 << 34, max_alloc=1 << 32)


def test_fewest_additions_window_grows_with_n() -> None:
    windows = [fewest_additions_window(1 << k, 255) for k in range(0, 25, 2)]
    assert windows == sorted(windows)
    assert 12 <= fewest_additions_window(1 << 16, 255) <= 14
    for n in (1, 100, 1 << 16):
        c = fewest_additions_window(n, 255)
        assert all(window_cost(n, c, 255) <= window_cost(n, d, 255) for d in range(1, 21))


def test_plan_fits_the_memory() -> None:
    plan = plan_msm(1 << 20, 16, scalar_bits=255, base_bytes=96, xyzz_bytes=192, prepared=False, memory=BIG,
                    parallel_items=32)  # fmt: skip
    assert (plan.windows, plan.buckets, plan.chunk) == (16, 1 << 15, 1 << 20)
    assert plan.segments == 2  # parallel_items spread over the 16 windows
    small = Memory(budget=plan.fixed_bytes + 1000 * plan.point_bytes, max_alloc=1 << 32)
    chunked = plan_msm(1 << 20, 16, scalar_bits=255, base_bytes=96, xyzz_bytes=192, prepared=False, memory=small,
                       parallel_items=32)  # fmt: skip
    assert chunked.chunk == 1000


def test_plan_errors_and_fallback() -> None:
    tiny = Memory(budget=50_000, max_alloc=1 << 20)
    with pytest.raises(DeviceMemoryError, match="12-bit windows"):
        plan_msm(1000, 12, scalar_bits=255, base_bytes=96, xyzz_bytes=192, prepared=False, memory=tiny,
                 parallel_items=4)  # fmt: skip
    plan = plan_msm(1 << 20, None, scalar_bits=255, base_bytes=96, xyzz_bytes=192, prepared=True, memory=tiny,
                    parallel_items=4)  # fmt: skip
    assert plan.window < fewest_additions_window(1 << 20, 255)  # the default window shrinks to fit
    with pytest.raises(DeviceMemoryError, match="prepared bases"):
        piece_sizes(1000, 96, tiny)
    assert piece_sizes(10, 96, BIG, max_chunk=4) == [4, 4, 2]


def test_plan_holds_as_many_rows_of_bucket_sums_as_one_buffer_takes() -> None:
    """The bucket sums of all W windows when they fit one allocation, else of as many windows as fit (the bucket
    kernels then run over them in turn), counted in the fixed bytes; not even one row: an error naming the size."""
    c, xyzz = 12, 192
    row = (1 << (c - 1)) * xyzz
    whole = plan_msm(1 << 16, c, scalar_bits=255, base_bytes=96, xyzz_bytes=xyzz, prepared=True, memory=BIG,
                     parallel_items=64)  # fmt: skip
    assert whole.sum_rows == whole.windows == window_count(255, c)
    three = Memory(budget=1 << 34, max_alloc=3 * row + 5)
    held = plan_msm(1 << 16, c, scalar_bits=255, base_bytes=96, xyzz_bytes=xyzz, prepared=True, memory=three,
                    parallel_items=64)  # fmt: skip
    assert held.sum_rows == 3
    assert whole.fixed_bytes - held.fixed_bytes == (whole.sum_rows - 3) * (row + 2 * held.segments * xyzz)
    with pytest.raises(DeviceMemoryError, match=f"an MSM with {c}-bit windows"):
        plan_msm(1 << 16, c, scalar_bits=255, base_bytes=96, xyzz_bytes=xyzz, prepared=True,
                 memory=Memory(budget=1 << 34, max_alloc=row - 1), parallel_items=64)  # fmt: skip


def test_plan_trades_segments_for_memory() -> None:
    """A GPU-sized parallelism on a small memory: fewer bucket segments rather than an error."""
    wide = plan_msm(300, 4, scalar_bits=254, base_bytes=64, xyzz_bytes=128, prepared=False, memory=BIG,
                    parallel_items=33792)  # fmt: skip
    small = Memory(budget=60_000, max_alloc=60_000)
    narrow = plan_msm(300, 4, scalar_bits=254, base_bytes=64, xyzz_bytes=128, prepared=False, memory=small,
                      parallel_items=33792)  # fmt: skip
    assert wide.segments == 300 + 8  # one work-item per unit (entry or bucket) at most
    assert narrow.segments < wide.segments and narrow.fixed_bytes < 60_000


def test_shifted_window_is_wider_and_cheapest() -> None:
    """Over shifted bases the running sums are paid once, not per window: the best c is at least as wide."""
    for n in (100, 1 << 16, 1 << 20, 1 << 24):
        c = shifted_window(n, 255)
        assert c >= fewest_additions_window(n, 255)
        cost = [window_count(255, d) * n + 2 * (1 << (d - 1)) for d in range(1, 25)]
        assert cost[c - 1] == min(cost)


class _Context:
    """What default_parallel_items reads of a context: its kind, units and the bucket-sum kernel's residency."""

    def __init__(self, kind: str, resident: int | None) -> None:
        self.info = dataclasses.replace(INFO, kind=kind, compute_units=132)
        self.resident = resident
        self.asked: list[tuple[str, str, str]] = []

    def resident_threads(self, curve: Curve, program: str, name: str) -> int | None:
        self.asked.append((curve.name, program, name))
        return self.resident


@pytest.mark.parametrize(("resident", "per_unit"), [(384, 256), (512, 512), (256, 256), (160, 128)])
def test_default_parallel_items_follow_the_bucket_kernels_residency(resident: int, per_unit: int) -> None:
    """Per compute unit, the bucket-sum kernel's resident threads rounded down to a power of two (H200: 384 for
    BLS12-381 G1 ran slower than 256)."""
    ctx = _Context("gpu", resident)
    assert msm_job.default_parallel_items(ctx, BLS12_381, "g2") == per_unit * 132  # type: ignore[arg-type]
    assert ctx.asked == [("bls12_381", "msm_g2", "g2_msm_bucket_sums")]


@pytest.mark.parametrize("kind", ["gpu", "cpu"])
def test_default_parallel_items_without_residency(kind: str) -> None:
    ctx = _Context(kind, None)
    expected = msm_job.PARALLEL_ITEMS_PER_UNIT[kind] * 132
    assert msm_job.default_parallel_items(ctx, BN254, "g1") == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("registers", "block", "threads"),
    [(254, 128, 256), (164, 128, 384), (122, 128, 512), (187, 128, 256), (32, 128, 2048), (255, 32, 256)],
)
def test_resident_threads_of_a_kernel(registers: int, block: int, threads: int) -> None:
    """Hopper's multiprocessor (65,536 registers, 2,048 threads): whole blocks, warps' registers in units of 256."""
    assert cuda_device.resident_threads(registers, block, 65536, 2048) == threads


def test_scan_blocks_are_about_the_square_root_of_the_row() -> None:
    """The scan's serial middle step walks a row's blocks, and each block's work-item walks its buckets: both stay
    within twice √nb (the middle step over a 2^21-bucket row in blocks of 64 was 2.95 ms on the H200)."""
    for c in range(1, 25):
        nb = 1 << (c - 1)
        block = scan_block(nb)
        assert block >= MIN_SCAN_BLOCK
        assert -(-nb // block) <= max(1, 2 * isqrt(nb))
        assert block <= max(MIN_SCAN_BLOCK, 2 * isqrt(nb))
