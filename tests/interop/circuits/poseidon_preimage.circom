pragma circom 2.0.0;

include "circomlib/circuits/poseidon.circom";

// Knowledge of a Poseidon preimage: the public output hash = Poseidon(preimage, salt), salt a public input.
// 240 constraints with --O2 (a domain of 256 rows with the 3 public rows), on bn128 and bls12381 alike
// (circomlib's constants are BN254's; on BLS12-381 the circuit is the same arithmetic, not a vetted hash).
template PoseidonPreimage() {
    signal input preimage;
    signal input salt;
    signal output hash;

    component hasher = Poseidon(2);
    hasher.inputs[0] <== preimage;
    hasher.inputs[1] <== salt;
    hash <== hasher.out;
}

component main {public [salt]} = PoseidonPreimage();
