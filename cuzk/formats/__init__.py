"""File formats: snarkjs/iden3's .r1cs, .wtns and .zkey, snarkjs's JSON files, and bellman's bytes.

    binfile        the iden3 binary container (magic, version, sections), memory-mapped
    montgomery     numpy-vectorised Montgomery arithmetic: how .zkey stores field elements
    points         point sections → the backends' limb arrays, every point checked on its curve
    domain         snarkjs's evaluation-domain order against the reference's
    r1cs, wtns     circom's constraint and witness files
    zkey           snarkjs's Groth16 proving key; zkey_write writes one (cuzk.engine.setup makes it from a .r1cs)
    snarkjs_json   proof.json, public.json, verification_key.json
    bellman        the 192-byte BLS12-381 proof and VerifyingKey::write
    errors         FormatError and its subclasses: each names the file and where in it

Proving from these files is :mod:`cuzk.engine.zkey`; the command line is :mod:`cuzk.cli.groth16`.
"""
