"""Where a .zkey's A and B go on their way to the device (the prover's ``prepare_qap``), piece by piece, on a warm
context: the terms classified (1, −1, other), each matrix's rows, gathers and table, the device layout, the upload;
then the whole ``qap_of_zkey`` alone and beside the bases' preparation, as the prover runs it (BN254: the identity
row order).

    python3 benchmarks/e2e/qap_parts.py KEY.zkey
"""

from __future__ import annotations

import sys
import threading
import time

import numpy as np

from cuzk.backends.cuda import CudaBackend
from cuzk.backends.gpu import sparse
from cuzk.backends.gpu.context import ready
from cuzk.backends.indexed import classify, palette
from cuzk.engine.zkey import _terms_by_matrix, csr_order, qap_of_zkey, read_zkey_for
from cuzk.formats.zkey import ZKey


def timed(label: str, work):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    out = work()
    print(f"{label:<28} {1e3 * (time.perf_counter() - start):8.1f} ms", flush=True)
    return out


def one_matrix(backend: CudaBackend, zkey: ZKey, codes: np.ndarray, terms: slice | np.ndarray) -> None:
    c = zkey.coefficients
    indptr, _ = timed("csr_order", lambda: csr_order(c.constraint[terms], None, zkey.domain_size))
    columns = timed("gather the signals", lambda: np.take(c.signal, terms))
    values = timed("its table", lambda: palette(zkey.curve, c.stored, 2, terms=terms, codes=codes))
    host = timed("plan", lambda: sparse.plan(zkey.curve, indptr, columns, values, 2))
    timed("upload", lambda: backend._call(lambda ctx: ready(sparse.upload(ctx, zkey.curve, host))))


def main() -> None:
    backend = CudaBackend()
    zkey = read_zkey_for(sys.argv[1], backend, 0)
    ctx = backend.context
    for program in ("sparse", "msm_g1"):
        ctx.prepare_program(zkey.curve, program)
    c = zkey.coefficients
    codes = timed("classify all terms", lambda: classify(zkey.curve, c.stored, 2))
    for terms in timed("terms by matrix", lambda: _terms_by_matrix(c.matrix)):
        one_matrix(backend, zkey, codes, terms)
    for _ in range(2):
        timed("qap_of_zkey alone", lambda: qap_of_zkey(zkey, backend))
    beside = threading.Thread(target=lambda: timed("qap_of_zkey beside bases", lambda: qap_of_zkey(zkey, backend)))
    beside.start()
    timed("bases (A) beside it", lambda: backend.prepare_stored_bases(zkey.curve, "g1", zkey.a_query.stored))
    beside.join()


if __name__ == "__main__":
    main()
