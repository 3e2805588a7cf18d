"""Which pinned host memory a one-shot ``cuzk groth16 prove`` process makes, and what each piece costs (issue 24):
every ``cudaHostAlloc`` of the CUDA context's staging (:class:`~cuzk.backends.cuda.staging.PinnedStaging.pinned`:
the upload ring's buffers, the reads' buffers) and every page registration (``register``), with its size, its
time and the thread that paid it, around one proof from files (the engine's own path, as the CLI runs it).

    python3 benchmarks/gpu/pinned_use.py KEY.zkey WITNESS.wtns
"""

from __future__ import annotations

import argparse
import threading
import time
from collections.abc import Callable
from typing import Any


def logged(name: str, method: Callable[..., Any], log: list[tuple[str, str, int, float]]) -> Callable[..., Any]:
    def call(self: Any, arg: Any, *rest: Any) -> Any:
        started = time.perf_counter()
        result = method(self, arg, *rest)
        size = arg if isinstance(arg, int) else int(getattr(arg, "nbytes", 0))
        log.append((name, threading.current_thread().name, size, time.perf_counter() - started))
        return result

    return call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("zkey")
    parser.add_argument("witness")
    args = parser.parse_args()
    from cuzk.backends.cuda import staging
    from cuzk.engine.files_job import prove_files

    log: list[tuple[str, str, int, float]] = []
    for name in ("pinned", "register"):
        setattr(staging.PinnedStaging, name, logged(name, getattr(staging.PinnedStaging, name), log))
    started = time.perf_counter()
    prove_files(args.zkey, args.witness, backend_name="cuda")
    print(f"proof from files: {1e3 * (time.perf_counter() - started):.0f} ms")
    print(f"{'call':<10} {'thread':<24} {'MiB':>8} {'ms':>8}")
    for name, thread, size, seconds in log:
        print(f"{name:<10} {thread:<24} {size / 2**20:8.1f} {1e3 * seconds:8.2f}")


if __name__ == "__main__":
    main()
