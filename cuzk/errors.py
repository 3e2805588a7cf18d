"""The error types cuzk raises on purpose: everything is a :class:`CuzkError` (defined in the reference, which
imports nothing from the rest of cuzk, and re-exported here for users of the engine), plus the engine's own."""

from cuzk.reference.errors import *  # noqa: F403
from cuzk.reference.errors import CuzkError


class ProofSelfCheckError(CuzkError):
    """The engine's self-check (``Prover(verify=True)``, ``CUZK_VERIFY=1``, ``cuzk prove --verify``) found that a
    proof it computed does not verify: a backend returned a wrong MSM or NTT, or the witness does not satisfy the
    circuit. ``index`` is the proof's number (the job's index in ``prove_many``)."""

    def __init__(self, index: int, detail: str = "") -> None:
        self.index = index
        message = f"proof {index} failed the self-check: it does not verify with the proving key's verifying key"
        super().__init__(message + (f" ({detail})" if detail else ""))


__all__ = ["CuzkError", "ProofSelfCheckError"]
