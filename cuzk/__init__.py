"""cuzk: a Groth16 proving engine whose pure-Python reference is the specification.

- :mod:`cuzk.reference` — the spec: fields, curves, encodings, pairing, NTT, MSM, R1CS, QAP, Groth16.
- :mod:`cuzk.backends` — one MSM/NTT protocol, implemented by the reference and the fast backends.
- :mod:`cuzk.conformance` — vectors from the reference and a runner that checks any backend bit for bit.
- :mod:`cuzk` — the engine: the prover pipeline over a backend, timings, file formats, the CLI.
"""

__version__ = "0.1.0"
