"""BN254 (also alt_bn128, bn128): the Barreto–Naehrig curve of Ethereum's precompiles (EIP-196/197) and circom.

Everything follows from the parameter u = 4965661367192848881:

    q  = 36u⁴ + 36u³ + 24u² + 6u + 1               (254 bits, the base field)
    r  = 36u⁴ + 36u³ + 18u² + 6u + 1               (254 bits, the scalar field; 2-adicity 28)
    h1 = 1                                         (E(Fq) has prime order r)
    h2 = 2q − r                                    (#E'(Fq2) = h2 · r)

E: y² = x³ + 3 over Fq; G2 lives on the D-type twist E': y² = x³ + 3/(u + 9) over Fq2 = Fq[u]/(u² + 1).
The generators are those of EIP-196/197; 5 generates Fr^* (the coset generator of arkworks and snarkjs).
"""

from __future__ import annotations

from cuzk.reference.curves.curve import Curve, sextic_twist_b
from cuzk.reference.curves.group import Group
from cuzk.reference.fields import fft_field, prime_field, tower

U = 4965661367192848881

Q = 36 * U**4 + 36 * U**3 + 24 * U**2 + 6 * U + 1
R = 36 * U**4 + 36 * U**3 + 18 * U**2 + 6 * U + 1
H1 = 1
H2 = 2 * Q - R

Fq = prime_field("bn254.Fq", Q)
Fr = fft_field("bn254.Fr", R, generator=5)
_tower = tower(Fq, xi=(9, 1), prefix="bn254")
Fq2, Fq6, Fq12 = _tower.Fq2, _tower.Fq6, _tower.Fq12

B = Fq(3)
B2 = sextic_twist_b(B, Fq2(9, 1), "D")

G1 = Group("bn254.G1", Fq, B, R, H1, Fr)
G1.set_generator(Fq(1), Fq(2))
G2 = Group("bn254.G2", Fq2, B2, R, H2, Fr)
G2.set_generator(
    Fq2(
        0x1800DEEF121F1E76426A00665E5C4479674322D4F75EDADD46DEBD5CD992F6ED,
        0x198E9393920D483A7260BFB731FB5D25F1AA493335A9E71297E485B7AEF312C2,
    ),
    Fq2(
        0x12C85EA5DB8C6DEB4AAB71808DCB408FE3D1E7690C43D37B4CE6CC0166FA7DAA,
        0x090689D0585FF075EC9E99AD690C3395BC4B313370B38EF355ACDADCD122975B,
    ),
)

BN254 = Curve("bn254", "bn", U, Fq, Fr, Fq2, Fq6, Fq12, G1, G2, twist="D")
