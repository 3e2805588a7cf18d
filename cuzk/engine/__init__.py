"""The engine: a Groth16 prover over any backend, read top to bottom in :mod:`.prover`.

A proof goes: the witness side (:mod:`.witness`: A·z, B·z, C·z as the host backend's sparse products) → staging on
the backend → B_G2 on a thread beside H and the G1 MSMs → the assembly (:mod:`.assembly`). Every backend call is
timed by :mod:`.calls` at the levels of :mod:`.timing`; :mod:`.pipeline` proves many witnesses with the synthesis of
the next beside the current proof (:mod:`.witness_process` in a worker process); :mod:`.zkey` proves from snarkjs's
files; :mod:`.setup` makes keys with the reference's setup core and a backend's fixed-base multiples;
:mod:`.circuit_job` is ``cuzk prove``'s job. docs/architecture.md follows one proof through them.
"""
