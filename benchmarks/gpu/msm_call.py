"""Where the wall time of one MSM call goes, beside its device time: G1 MSMs with the bases resident and the scalars
from host memory (as a user calls ``msm_prepared``), on the cuda backend.

For each size, medians of ``--repeat``:

- ``check``: the canonical check of the scalars on the host (every call makes it);
- ``stage``: the host's copy of the scalars into pinned memory alone (what the upload does before the transfer);
- ``upload``: the scalars' copy to the device alone (host staging and the transfer, waited for);
- ``kept``: the call with the scalars already on the device (``keep_scalars``): wall and device time;
- ``host``: the call with the scalars from host memory: wall and device time, and wall ÷ device;
- ``+check``: the same call's wall with the host's canonical pass made before it (as the protocol did until the
  histogram kernel checked the scalars, ``MSM_CHECKS_SCALARS``);
- ``1 chunk``: the same call's wall with the scalars uploaded in one piece before any kernel (``pipeline_from``
  above the size: as before the upload was split in two chunks, the second beside the first's kernels);
- ``sppark``: sppark's wall time of the same call on the same GPU model where docs/performance.md records one
  (BLS12-381 only), and our host wall ÷ it.

With ``--kernels`` the device time of each kernel of the largest host call is printed too.

    python benchmarks/gpu/msm_call.py [--curves bls12_381,bn254] [--sizes 16-24] [--repeat 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from cuzk.backends.cuda import CudaBackend
from cuzk.backends.gpu.context import ready
from cuzk.backends.limbs import check_scalars
from cuzk.cli.bench import consecutive_bases
from cuzk.reference.curves import curve_by_name

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from cuda_bench import DISTINCT, SPPARK_WALL_MS, fold, log_range, random_scalars


def size_list(text: str) -> list[int]:
    """log2 sizes from '16-24' or '16,20,24' (ranges allowed between the commas)."""
    return sorted({k for part in text.split(",") if part for k in log_range(part)})


def median_ms(call: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    call()  # the first call builds or loads the kernels
    seconds, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = call()
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds) * 1e3, result


def timed_call(backend: CudaBackend, call: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """(median wall ms, median device ms, last result) of a backend call."""
    call()
    walls, device, result = [], [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = call()
        walls.append(time.perf_counter() - started)
        device.append(backend.last_internal_seconds() or 0.0)
    return statistics.median(walls) * 1e3, statistics.median(device) * 1e3, result


def upload_ms(backend: CudaBackend, scalars: np.ndarray, repeat: int) -> float:
    def upload() -> None:
        def queue(ctx: Any) -> Any:
            buf = ctx.upload(scalars)
            ctx.leases.await_copies((buf,))  # the main stream waits for the copy stream's copy …
            return ready(buf)

        backend._call(queue)
        backend.context.stream.synchronize()  # … and the host for the main stream

    return median_ms(upload, repeat)[0]


def stage_ms(backend: CudaBackend, scalars: np.ndarray, repeat: int) -> float:
    ctx = backend.context
    raw = scalars.view(np.uint8).reshape(-1)
    pinned = ctx._pinned(raw.size)
    if pinned is None:
        return float("nan")
    return median_ms(lambda: ctx._copy(pinned, raw), repeat)[0]


def measure(backend: CudaBackend, curve: Any, handle: Any, s: np.ndarray, repeat: int) -> dict[str, Any]:
    """One size's row (printed); ``result`` the host call's MSM and ``checked`` whether the kept call agrees."""
    k = len(s).bit_length() - 1
    check, _ = median_ms(lambda: check_scalars(curve, s), repeat)
    stage = stage_ms(backend, s, repeat)
    upload = upload_ms(backend, s, repeat)
    kept = backend.keep_scalars(curve, s)
    kept_wall, kept_device, kept_result = timed_call(backend, lambda: backend.msm_prepared(handle, kept), repeat)
    host_wall, host_device, result = timed_call(backend, lambda: backend.msm_prepared(handle, s), repeat)
    kernels = {name: seconds * 1e3 for name, seconds in backend.last_kernel_seconds.items()}
    same = bool(np.array_equal(result, kept_result))
    backend.MSM_CHECKS_SCALARS = False  # this instance only: the protocol's host pass, then the same kernels
    checked_wall, _, _ = timed_call(backend, lambda: backend.msm_prepared(handle, s), repeat)
    del backend.MSM_CHECKS_SCALARS
    pipeline_from, backend.pipeline_from = backend.pipeline_from, 1 << 40
    whole_wall, whole_device, whole_result = timed_call(backend, lambda: backend.msm_prepared(handle, s), repeat)
    backend.pipeline_from = pipeline_from
    same = same and bool(np.array_equal(result, whole_result))
    sppark = SPPARK_WALL_MS.get(k) if curve.name == "bls12_381" else None
    print(
        f"{curve.name:<10}2^{k:<3}{check:8.2f}{stage:8.2f}{upload:9.2f}{kept_wall:9.2f}{kept_device:9.2f}"
        f"{host_wall:9.2f}{host_device:9.2f}{host_wall / host_device:7.2f}{checked_wall:9.2f}"
        f"{whole_wall:9.2f}{whole_device:9.2f}"
        + (f"{sppark:9.1f}{host_wall / sppark:7.2f}" if sppark else f"{'-':>9}{'-':>7}")
        + ("" if same else "  MISMATCH"),
        flush=True,
    )
    return {
        "curve": curve.name, "log_n": k, "check_ms": check, "stage_ms": stage, "upload_ms": upload,
        "kept_wall_ms": kept_wall, "kept_device_ms": kept_device, "host_wall_ms": host_wall,
        "host_device_ms": host_device, "host_check_wall_ms": checked_wall, "one_chunk_wall_ms": whole_wall,
        "one_chunk_device_ms": whole_device, "sppark_wall_ms": sppark,
        "checked": same, "kernels_ms": kernels, "result": result,
    }  # fmt: skip


def rows_for(backend: CudaBackend, curve_name: str, sizes: list[int], repeat: int) -> list[dict[str, Any]]:
    curve = curve_by_name(curve_name)
    distinct = consecutive_bases(curve, "g1", DISTINCT["g1"])
    biggest = 1 << max(sizes)
    bases = np.tile(distinct, (-(-biggest // len(distinct)), 1, 1))[:biggest]
    scalars = random_scalars(curve.r, biggest, seed=7)
    rows = []
    for k in sizes:
        handle = backend.prepare_bases(curve, "g1", bases[: 1 << k])
        row = measure(backend, curve, handle, scalars[: 1 << k], repeat)
        if k == max(sizes) and (1 << k) >= len(distinct):
            folded = backend.msm(curve, "g1", distinct, fold(scalars[: 1 << k], len(distinct), curve.r))
            row["checked"] = row["checked"] and np.array_equal(row["result"], folded)
        del row["result"]
        rows.append(row)
        del handle  # its device memory goes back before the next size's bases
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--curves", default="bls12_381,bn254")
    parser.add_argument("--sizes", default="16-24")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--kernels", action="store_true", help="device ms per kernel of the largest host call")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    backend = CudaBackend()
    if not backend.is_available():
        print(f"cuda backend unavailable: {backend.unavailable_reason()}", file=sys.stderr)
        return 2
    print(f"# {backend.describe()['device']}; ms, medians of {args.repeat}; wall ÷ device and ÷ sppark's wall")
    print(
        f"{'curve':<10}{'size':<5}{'check':>8}{'stage':>8}{'upload':>9}{'kept':>9}{'(dev)':>9}{'host':>9}{'(dev)':>9}"
        f"{'w÷d':>7}{'+check':>9}{'1 chunk':>9}{'(dev)':>9}{'sppark':>9}{'÷':>7}"
    )
    rows: list[dict[str, Any]] = []
    for name in args.curves.split(","):
        rows += rows_for(backend, name, size_list(args.sizes), args.repeat)
        if args.kernels and rows:
            split = sorted(rows[-1]["kernels_ms"].items(), key=lambda kv: -kv[1])
            print("  kernels: " + ", ".join(f"{n} {ms:.2f}" for n, ms in split), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": backend.describe(), "rows": rows}, f, indent=1, default=str)
    return 0 if all(row["checked"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
