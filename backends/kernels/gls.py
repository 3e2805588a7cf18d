"""The GLS constants of G2 for the point-NTT kernels (point_ntt_gls.c), printed from the cpu backend's pure-Python
:func:`~cuzk.backends.cpu.gls.gls` (the reduced lattice basis, ψ's constants), so that the device splits a twiddle
k into k₀ + k₁λ + k₂μ + k₃λμ (mod r) as that module defines it, up to the rounding of the Babai coefficients (a
different rounding is another valid split: the product [k]P is the same point).

Babai's rounding takes m_i = round(k·c_i), c the first row of the basis's inverse; the device computes it as
±⌊(k·G_i + 2^255) / 2^256⌋ with G_i = round(2^256·|c_i|), an error |m_i − k·c_i| < 3/4 for k < 2^255 (the GLV
split's argument, :mod:`.glv`). Then v = (k, 0, 0, 0) − Σ m_i·b_i, so |v_j| < ¾·Σ_i |b_ij|: :func:`gls_layout`
takes the bit length of the largest such bound, and the kernels' signed windows cover one bit more.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from cuzk.backends.kernels.constants import CurveConstants, pairing_constants
from cuzk.backends.kernels.glv import SCALAR_WORDS, WINDOW_BITS, WORD_BITS, words_initializer
from cuzk.reference.curves import Curve

PARTS = 4  # k₀ on P, k₁ on φ(P), k₂ on ψ(P), k₃ on φψ(P)


@dataclass(frozen=True)
class GlsLayout:
    """What the kernels and the host agree on: the basis (rows b_i), the rounding constants G_i and their signs,
    the bits of a part's magnitude, the words a part is stored in and the number of signed windows."""

    basis: tuple[tuple[int, ...], ...]
    rounding: tuple[int, ...]
    rounding_negative: tuple[bool, ...]
    bits: int
    words: int
    windows: int

    @property
    def record_bytes(self) -> int:
        """Bytes of one split scalar on the device: four magnitudes of ``words`` u32 words and a word of signs."""
        return 4 * (PARTS * self.words + 1)


@cache
def gls_layout(curve: Curve) -> GlsLayout:
    """The layout of ``curve``'s G2 (see the module docstring)."""
    from cuzk.backends.cpu.gls import _coefficients, gls  # pure Python: importing it loads no numba

    split = gls(curve)
    coefficients = [Fraction(n, d) for n, d in _coefficients(split)]
    rounding = tuple(round(abs(c) * (1 << 256)) for c in coefficients)
    bound = max((3 * sum(abs(x) for x in column)) // 4 + 1 for column in zip(*split.basis, strict=True))
    bits = bound.bit_length()
    windows = -(-(bits + 1) // WINDOW_BITS)  # the top window's sign bit stays clear
    words = -(-(WINDOW_BITS * windows + 1) // WORD_BITS)
    return GlsLayout(split.basis, rounding, tuple(c < 0 for c in coefficients), bits, words, windows)


def gls_table(cc: CurveConstants, fq2_initializer: Callable[[tuple[int, int]], str]) -> str:
    """The constants of :func:`gls_layout` as C, and ψ's multipliers γx, γy (``fq2_initializer(value)``: an Fq2
    value, canonical (c0, c1), as the API's Montgomery-form initialiser)."""
    layout = gls_layout(cc.curve)
    gamma_x, gamma_y = pairing_constants(cc.curve).twist_frobenius
    rounding, negative = layout.rounding, layout.rounding_negative
    lines = [
        "/* GLS of g2: ψ(x, y) = (conj(x)·γx, conj(y)·γy) = [μ]P beside φ = [λ]; k ≡ k₀ + k₁λ + k₂μ + k₃λμ",
        " * (kernels.gls, from backends/cpu/gls.py). */",
        f"#define GLS_BITS {layout.bits} /* |k_j| < 2^GLS_BITS */",
        f"#define GLS_WORDS {layout.words}",
        f"#define GLS_WINDOWS {layout.windows}",
        f"CONSTANT u32 GLS_BASIS[{PARTS}][{PARTS}][{SCALAR_WORDS}] = {{",
        *(f"  {{{', '.join(words_initializer(x) for x in row)}}}," for row in layout.basis),
        "};",
        f"CONSTANT u32 GLS_ROUNDING[{PARTS}][{SCALAR_WORDS}] = {{{', '.join(map(words_initializer, rounding))}}};",
        f"CONSTANT u32 GLS_ROUNDING_NEGATIVE[{PARTS}] = {{{', '.join(str(int(s)) for s in negative)}}};",
        f"CONSTANT fq2_t GLS_GAMMA_X = {fq2_initializer(gamma_x)};",
        f"CONSTANT fq2_t GLS_GAMMA_Y = {fq2_initializer(gamma_y)};",
    ]
    return "\n".join(lines) + "\n"


__all__ = ["PARTS", "GlsLayout", "gls_layout", "gls_table"]
