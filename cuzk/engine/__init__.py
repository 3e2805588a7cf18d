"""The engine: a Groth16 prover over any backend, read top to bottom in :mod:`.prover`.

A proof goes: the witness side (:mod:`.witness`: A·z, B·z, C·z on the domain) → staging on the backend → H
(:meth:`~.prover.Prover.prove_assignment`) → the G1 MSMs, with B_G2 on a thread beside them → the assembly
(:mod:`.assembly`). Every backend call is timed by :mod:`.calls` at the levels of :mod:`.timing`; :mod:`.pipeline`
proves many witnesses with the synthesis of the next beside the current proof; :mod:`.zkey` proves from snarkjs's
files; :mod:`.circuit_job` is ``cuzk prove``'s job (synthesis, setup, proofs, verification).
"""
