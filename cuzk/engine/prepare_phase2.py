"""``cuzk powersoftau prepare phase2 in.ptau out.ptau``: the file ``snarkjs powersoftau prepare phase2``
(src/powersoftau_preparephase2.js) writes, byte for byte.

Phase 1 publishes powers: [τ^j]₁ (section 2), [τ^j]₂ (3), [α·τ^j]₁ (4), [β·τ^j]₁ (5). A Groth16 setup needs them
in the Lagrange basis of its domain: section 12 + k holds, for every domain of 2^p points (p = 0 … power, and
power + 1 for section 12), the inverse NTT over points of the first 2^p powers,

    [L_i(τ)] = [n⁻¹] Σ_j [ω^(−ij)] [τ^j],   n = 2^p, ω = ffjavascript's primitive n-th root of unity,

block after block (:func:`cuzk.reference.point_ntt.lagrange_block` is the spec, including the inputs snarkjs
reads for section 12's extra block). The transforms run on a backend with POINT_NTT: the one the caller names
(``backend=``, the CLI's ``--backend``), a GPU's included, when it offers it; else the host's
(:func:`~cuzk.backends.registry.host_backend`: the cpu backend by default), so that naming no backend never moves
the work onto a device that auto-selection happened to find. A GPU backend (STORED_POINT_NTT) takes the file's
words as they are: its Montgomery form is the file's, so the host converts nothing. The output is written through
a temporary renamed when whole, one block at a time: memory holds a section's largest block, not the file.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any, BinaryIO, cast

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import (
    POINT_NTT,
    STORED_POINT_NTT,
    Backend,
    SupportsPointNtt,
    SupportsStoredPointNtt,
    has_capability,
)
from cuzk.backends.registry import host_backend, resolve_backend
from cuzk.engine.decoding import montgomery_host
from cuzk.formats.outputs import atomic_outputs, check_outputs
from cuzk.formats.points import point_bytes
from cuzk.formats.ptau import GROUPS, LAGRANGE, Ptau, read_ptau, section_points
from cuzk.formats.ptau_write import (
    copy_sections,
    header_content,
    write_file_header,
    write_points,
    write_section,
    write_section_header,
)
from cuzk.reference.point_ntt import ffjavascript_root

SOURCE = {12: 2, 13: 3, 14: 4, 15: 5}  # each Lagrange section and the section of powers it comes from


@dataclass(frozen=True)
class Prepared:
    """What :func:`prepare_phase2` did: the curve, the power, the backend, and the seconds of each section."""

    curve: str
    power: int
    backend: str
    seconds: dict[int, float]


def prepare_phase2(
    source: str | os.PathLike[str],
    target: str | os.PathLike[str],
    *,
    backend: Backend | str | None = None,
    log: Callable[[str], None] | None = None,
) -> Prepared:
    """Read ``source`` (a ptau, prepared or not), write ``target`` with sections 1–7 and 12–15 as snarkjs does.
    The target is checked first (writable, not the source: OutputPathError), the source fully (FormatError)."""
    check_outputs([target], [source])
    ptau = read_ptau(source)
    if ptau.power + 1 > ptau.curve.Fr.TWO_ADICITY:
        problem = f"power {ptau.power}: section 12 needs a domain of 2^{ptau.power + 1}, beyond {ptau.curve.name}'s Fr"
        raise ptau.file.error(problem)
    chosen = resolve_backend(backend)
    named = backend is not None and has_capability(chosen, POINT_NTT)
    ntt = chosen if named else host_backend(chosen, POINT_NTT)
    # the host decodes only for a backend that cannot take the file's words (loading its kernels costs time)
    decoder = None if has_capability(ntt, STORED_POINT_NTT) else montgomery_host(chosen)
    seconds: dict[int, float] = {}
    with atomic_outputs([target]) as (temporary,), open(temporary, "wb") as out:
        write_file_header(out)
        write_section(out, 1, header_content(ptau.curve, ptau.power))
        copy_sections(out, ptau)
        for section_id in LAGRANGE:
            started = time.perf_counter()
            write_lagrange_section(out, ptau, section_id, ntt, decoder)
            seconds[section_id] = time.perf_counter() - started
            if log is not None:
                log(f"section {section_id} ({ptau.file.section_names[section_id]}): {seconds[section_id]:.2f} s")
    return Prepared(ptau.curve.name, ptau.power, ntt.name, seconds)


def write_lagrange_section(out: BinaryIO, ptau: Ptau, section_id: int, ntt: Backend, decoder: Backend | None) -> None:
    """Section 12–15: its blocks of 2^p, p = 0 … top, each the inverse NTT of the inputs snarkjs reads. On a backend
    with STORED_POINT_NTT the file's words go in and come out as they are (checked there); else they are decoded
    on the host (by ``decoder``'s kernels, or numpy) and the results encoded again. A block is written on a thread
    while the next one is transformed (one in flight: memory holds two blocks)."""
    curve, power, group = ptau.curve, ptau.power, GROUPS[section_id]
    source_id, top = SOURCE[section_id], ptau.power + (1 if section_id == 12 else 0)
    size = section_points(section_id, power) * point_bytes(curve, group)
    write_section_header(out, section_id, size)
    count = min(section_points(source_id, power), 1 << top)
    stored = has_capability(ntt, STORED_POINT_NTT)
    powers = ptau.raw(source_id, 0, count) if stored else ptau.points(source_id, 0, count, host=decoder).limbs
    with ThreadPoolExecutor(1, thread_name_prefix="cuzk-ptau-writer") as writer:
        written: Future[Any] | None = None
        for log_n in range(top + 1):
            sources = source_rows(log_n, power, source_id == 2)
            block, omega = gather(powers, sources), ffjavascript_root(curve.Fr, 1 << log_n).value
            if stored:
                result, bad = cast(SupportsStoredPointNtt, ntt).point_ntt_stored(
                    curve, group, block, omega, inverse=True
                )
                if result is None:
                    raise ptau.point_error(source_id, int(sources[bad]))
                write: Callable[[], Any] = partial(out.write, memoryview(np.ascontiguousarray(result)))
            else:
                points = cast(SupportsPointNtt, ntt).point_ntt(curve, group, block, omega, inverse=True)
                write = partial(write_points, out, curve, group, points)
            if written is not None:
                written.result()  # the previous block is out (and its error raised) before the next is queued
            written = writer.submit(write)
        if written is not None:
            written.result()


def source_rows(log_n: int, power: int, tau_g1: bool) -> np.ndarray:
    """:func:`~cuzk.reference.point_ntt.lagrange_sources` as an int64 array, −1 for the point at infinity, made by
    numpy (the reference's list takes seconds at 2^22)."""
    rows = np.arange(1 << log_n, dtype=np.int64)
    if tau_g1 and log_n == power + 1:
        rows[-1] = -1
    return rows


def gather(powers: np.ndarray, sources: np.ndarray) -> np.ndarray:
    """The rows ``sources`` of ``powers``, −1 a row of zeros (the point at infinity, as stored and as limbs): the
    first rows themselves (a view) when they are 0 … n − 1."""
    n = len(sources)
    if n <= len(powers) and np.array_equal(sources, np.arange(n)):
        return powers[:n]
    block = limbs.take_rows(powers, np.maximum(sources, 0))
    block[sources < 0] = 0
    return block


__all__ = ["SOURCE", "Prepared", "gather", "prepare_phase2", "source_rows", "write_lagrange_section"]
