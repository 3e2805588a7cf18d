"""The GLV constants of one group for the point-NTT kernels (point_ntt.c), printed from the cpu backend's pure-Python
:func:`~cuzk.backends.cpu.glv.glv` (β, λ and the short lattice basis), so that the device splits a twiddle k into
k₁ + k₂·λ exactly as that module defines it, up to the rounding of c₁, c₂ (a different rounding is another valid
split: both satisfy k ≡ k₁ + k₂·λ, and the product [k]P is the same point).

The device rounds c₁ = round(b₂·k/r) as ⌊(k·G₁ + 2^255) / 2^256⌋ with G₁ = round(2^256·|b₂|/r) (and c₂ with
G₂ = round(2^256·|b₁|/r)), an error |c − b·k/r| < 3/4 for k < 2^255. Hence |k₁| < ¾(|a₁| + |a₂|) and
|k₂| < ¾(|b₁| + |b₂|): :func:`glv_layout` takes the bit length of those bounds, and the kernels' signed windows
(Booth recoding, width :data:`WINDOW_BITS`) cover one bit more.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from cuzk.backends.kernels.constants import CurveConstants
from cuzk.reference.curves import Curve

WINDOW_BITS = 5  # signed digits in [−16, 16]: a table of [1 … 16]P per point
WORD_BITS = 32  # the kernels' integer arithmetic on scalars runs on u32 words (both APIs)
SCALAR_WORDS = 8  # 256-bit two's complement: k, the basis, the products


@dataclass(frozen=True)
class GlvLayout:
    """What the kernels and the host agree on: β, the basis (a₁, b₁, a₂, b₂), the rounding constants and signs,
    the bits of a half's magnitude, the words a half is stored in and the number of signed windows."""

    beta: int
    basis: tuple[int, int, int, int]
    rounding: tuple[int, int]  # G₁, G₂ (magnitudes)
    rounding_negative: tuple[bool, bool]  # c₁ = sign(b₂)·…, c₂ = sign(−b₁)·…
    bits: int
    words: int
    windows: int

    @property
    def record_bytes(self) -> int:
        """Bytes of one split scalar on the device: two magnitudes of ``words`` u32 words and a word of signs."""
        return 4 * (2 * self.words + 1)


@cache
def glv_layout(curve: Curve, group: str) -> GlvLayout:
    """The layout of ``group`` of ``curve`` (see the module docstring)."""
    from cuzk.backends.cpu.glv import glv  # pure Python: importing it loads no numba

    split = glv(curve, group)
    a1, b1, a2, b2 = split.basis
    r = curve.r
    bits = max((3 * (abs(a1) + abs(a2))) // 4 + 1, (3 * (abs(b1) + abs(b2))) // 4 + 1).bit_length()
    rounding = (((abs(b2) << 257) + r) // (2 * r), ((abs(b1) << 257) + r) // (2 * r))
    windows = -(-(bits + 1) // WINDOW_BITS)  # the top window's sign bit stays clear
    words = -(-(WINDOW_BITS * windows + 1) // WORD_BITS)
    return GlvLayout(split.beta, split.basis, rounding, (b2 < 0, b1 > 0), bits, words, windows)


def words_initializer(value: int) -> str:
    """``{w0, w1, …}``: ``value`` as SCALAR_WORDS u32 words of 256-bit two's complement."""
    v = value % (1 << (WORD_BITS * SCALAR_WORDS))
    return "{" + ", ".join(f"0x{(v >> (WORD_BITS * i)) & 0xFFFFFFFF:08x}u" for i in range(SCALAR_WORDS)) + "}"


def glv_table(cc: CurveConstants, group: str, initializer: str) -> str:
    """The constants of :func:`glv_layout` as C (``initializer``: β·R in the API's limbs), and φ's multiplier."""
    layout = glv_layout(cc.curve, group)
    a1, b1, a2, b2 = layout.basis
    field = "fq" if group == "g1" else "fq2"
    times_beta = (
        "  return fq_mul(x, beta);"
        if group == "g1"
        else "  fq2_t r;\n  r.c0 = fq_mul(x.c0, beta);\n  r.c1 = fq_mul(x.c1, beta);\n  return r;"
    )
    lines = [
        f"/* GLV of {group}: φ(x, y) = (β·x, y) = [λ]P; k ≡ k₁ + k₂·λ (kernels.glv, from backends/cpu/glv.py). */",
        f"#define GLV_BITS {layout.bits} /* |k₁|, |k₂| < 2^GLV_BITS */",
        f"#define GLV_WORDS {layout.words}",
        f"#define GLV_WINDOWS {layout.windows}",
        f"#define GLV_WINDOW_BITS {WINDOW_BITS}",
        f"#define GLV_C1_NEGATIVE {int(layout.rounding_negative[0])}",
        f"#define GLV_C2_NEGATIVE {int(layout.rounding_negative[1])}",
        f"CONSTANT u32 GLV_A1[{SCALAR_WORDS}] = {words_initializer(a1)};",
        f"CONSTANT u32 GLV_B1[{SCALAR_WORDS}] = {words_initializer(b1)};",
        f"CONSTANT u32 GLV_A2[{SCALAR_WORDS}] = {words_initializer(a2)};",
        f"CONSTANT u32 GLV_B2[{SCALAR_WORDS}] = {words_initializer(b2)};",
        f"CONSTANT u32 GLV_G1[{SCALAR_WORDS}] = {words_initializer(layout.rounding[0])};",
        f"CONSTANT u32 GLV_G2[{SCALAR_WORDS}] = {words_initializer(layout.rounding[1])};",
        f"DEVICE {field}_t glv_times_beta({field}_t x) {{",
        f"  fq_t beta = {{{initializer}}}; /* β = {layout.beta:#x}, Montgomery form */",
        times_beta,
        "}",
    ]
    return "\n".join(lines) + "\n"


__all__ = ["SCALAR_WORDS", "WINDOW_BITS", "WORD_BITS", "GlvLayout", "glv_layout", "glv_table", "words_initializer"]
