"""Staging a witness on the prover's backend: z, and a, b, c for compute_h, kept there (checked and uploaded once)
before its proof (a mixin of :class:`cuzk.prover.Prover`, which provides the attributes declared here). A pipeline
stages witness k + 1 while proof k runs, so that on a GPU the uploads overlap that proof's kernels."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from cuzk.backends.protocol import COMPUTE_H, Backend, KeptScalars, has_capability
from cuzk.reference.curves import Curve
from cuzk.timing import Recorder


@dataclass(frozen=True)
class Assignment:
    """A witness ready for the prover: z = (1, inputs…, aux…) and A·z, B·z, C·z on the domain, as (n, 4) uint64
    canonical limbs (the arrays the backend takes); ``z_kept`` and ``abc_kept``, once :meth:`Prover.stage` has run,
    z and (a, b, c) kept on the prover's backend."""

    z: np.ndarray
    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    z_kept: KeptScalars | None = None
    abc_kept: tuple[KeptScalars, KeptScalars, KeptScalars] | None = None


class Staging:
    """The keeps of z and of a, b, c, and :meth:`stage`."""

    backend: Backend
    curve: Curve
    recorder: Recorder
    _keeps: bool  # the backend keeps scalars for its MSMs

    def _timed_call(self, backend: Backend, name: str, call: Callable[[], Any], parts: list[str] | None = None) -> Any:
        raise NotImplementedError

    def _kept(self, phase: str, arrays: tuple[np.ndarray, ...]) -> tuple[KeptScalars, ...]:
        """``arrays`` kept on the main backend (each checked and uploaded once), in one timed call of ``phase``."""
        backend = self.backend
        with self.recorder.span(phase, n=len(arrays[0])):
            return self._timed_call(
                backend,
                phase,
                lambda: tuple(backend.keep_scalars(self.curve, v) for v in arrays),  # type: ignore[attr-defined]
            )

    def _keep_abc(self, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[KeptScalars, ...] | None:
        """a, b, c kept on the main backend for its compute_h (phase ``keep_abc``), where it computes H and keeps
        scalars; else None (compute_h takes the arrays)."""
        if not (self._keeps and has_capability(self.backend, COMPUTE_H)):
            return None
        return self._kept("keep_abc", (a, b, c))

    def _keep_z(self, z: np.ndarray) -> np.ndarray | KeptScalars:
        """z as the main backend's MSMs take it: kept there (one check, one upload for A, B_G1, L and, on the same
        backend, B_G2) when it keeps scalars, else the array."""
        return self._kept("keep_z", (z,))[0] if self._keeps else z

    def stage(self, witness: Assignment) -> Assignment:
        """The witness with z, and a, b, c for compute_h, kept on the backend (each checked and uploaded once;
        phases ``keep_z`` and ``keep_abc``), when the backend keeps scalars: a pipeline stages witness k + 1 while
        proof k runs (:func:`cuzk.pipeline.prove_many`), so that on a GPU the uploads overlap that proof's kernels
        instead of opening the next proof (and of holding up its H). Thread-safe."""
        if witness.z_kept is None:
            kept = self._keep_z(witness.z)  # z itself where the backend does not keep scalars
            if isinstance(kept, KeptScalars):
                witness = replace(witness, z_kept=kept)
        if witness.abc_kept is None and witness.z_kept is not None:
            abc = self._keep_abc(witness.a, witness.b, witness.c)
            if abc is not None:
                witness = replace(witness, abc_kept=abc)
        return witness


__all__ = ["Assignment", "Staging"]
