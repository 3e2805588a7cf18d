pragma circom 2.0.0;

include "circomlib/circuits/poseidon.circom";

// A chain of Poseidon hashes, out = H(…H(H(seed, salt), salt)…, salt) with `rounds` hashes of about 240
// constraints each: 255 rounds give 61,200 constraints, a domain of 2^16 (the benchmark's size). The main
// component is written by the test, which chooses the rounds.
template PoseidonChain(rounds) {
    signal input seed;
    signal input salt;
    signal output out;

    component hashers[rounds];
    signal links[rounds + 1];
    links[0] <== seed;
    for (var i = 0; i < rounds; i++) {
        hashers[i] = Poseidon(2);
        hashers[i].inputs[0] <== links[i];
        hashers[i].inputs[1] <== salt;
        links[i + 1] <== hashers[i].out;
    }
    out <== links[rounds];
}
