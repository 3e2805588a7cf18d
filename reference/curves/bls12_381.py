"""BLS12-381 (Bowe, "BLS12-381: New zk-SNARK Elliptic Curve Construction", 2017), the curve of Zcash and Filecoin.

Everything follows from the parameter x = −0xd201000000010000 (low Hamming weight, so the Miller loop is short):

    r  = x⁴ − x² + 1                               (255 bits, the scalar field; 2-adicity 32)
    q  = (x − 1)² · r / 3 + x                      (381 bits, the base field)
    h1 = (x − 1)² / 3                              (#E(Fq) = h1 · r)
    h2 = (x⁸ − 4x⁷ + 5x⁶ − 4x⁴ + 6x³ − 4x² − 4x + 13) / 9    (#E'(Fq2) = h2 · r)

E: y² = x³ + 4 over Fq; G2 lives on the M-type twist E': y² = x³ + 4(u + 1) over Fq2 = Fq[u]/(u² + 1).
The generators are those of the specification (chosen by hashing, see the ZCash protocol, §5.4.9.2).
The multiplicative generator 7 of Fr is the one arkworks and blst use for cosets.
"""

from __future__ import annotations

from cuzk.reference.curves.curve import Curve, sextic_twist_b
from cuzk.reference.curves.group import Group
from cuzk.reference.fields import fft_field, prime_field, tower

X = -0xD201000000010000

R = X**4 - X**2 + 1
Q = (X - 1) ** 2 * R // 3 + X
H1 = (X - 1) ** 2 // 3
H2 = (X**8 - 4 * X**7 + 5 * X**6 - 4 * X**4 + 6 * X**3 - 4 * X**2 - 4 * X + 13) // 9

Fq = prime_field("bls12_381.Fq", Q)
Fr = fft_field("bls12_381.Fr", R, generator=7)
_tower = tower(Fq, xi=(1, 1), prefix="bls12_381")
Fq2, Fq6, Fq12 = _tower.Fq2, _tower.Fq6, _tower.Fq12

B = Fq(4)
B2 = sextic_twist_b(B, Fq2(1, 1), "M")

G1 = Group("bls12_381.G1", Fq, B, R, H1, Fr)
G1.set_generator(
    Fq(0x17F1D3A73197D7942695638C4FA9AC0FC3688C4F9774B905A14E3A3F171BAC586C55E83FF97A1AEFFB3AF00ADB22C6BB),
    Fq(0x08B3F481E3AAA0F1A09E30ED741D8AE4FCF5E095D5D00AF600DB18CB2C04B3EDD03CC744A2888AE40CAA232946C5E7E1),
)
G2 = Group("bls12_381.G2", Fq2, B2, R, H2, Fr)
G2.set_generator(
    Fq2(
        0x024AA2B2F08F0A91260805272DC51051C6E47AD4FA403B02B4510B647AE3D1770BAC0326A805BBEFD48056C8C121BDB8,
        0x13E02B6052719F607DACD3A088274F65596BD0D09920B61AB5DA61BBDC7F5049334CF11213945D57E5AC7D055D042B7E,
    ),
    Fq2(
        0x0CE5D527727D6E118CC9CDC6DA2E351AADFD9BAA8CBDD3A76D429A695160D12C923AC9CC3BACA289E193548608B82801,
        0x0606C4A02EA734CC32ACD2B02BC28B99CB3E287E85A763AF267492AB572E99AB3F370D275CEC1DA1AAA9075FF05F79BE,
    ),
)

BLS12_381 = Curve("bls12_381", "bls12", X, Fq, Fr, Fq2, Fq6, Fq12, G1, G2, twist="M")
