"""Generate the kernel source of one program, for one curve and one API, from the templates beside this file.

The C templates (``field.c``, ``field_f64.c``, ``fq2.c``, ``ec.c``, ``msm_digits.c``, ``msm.c``, ``bits.c``,
``ntt.c``, ``field_ops.c``, ``sparse.c``, ``tower.c``, ``pairing.c``, ``point_ntt.c``) are written once against the
names the API preludes define (``limb_t``, ``KERNEL``, ``GLOBAL``, ``LOCAL``, the carry-chain primitives ``mad_lo_cc``,
``addc``, …; ``prelude_opencl.h`` and ``prelude_cuda.h``), with ``${f}``/``${F}`` standing for a field's prefix (fq,
fr, fq2) and ``${g}``/``${G}`` for a group's (g1, g2). The constants between the prelude and the templates are
printed from :mod:`cuzk.backends.kernels.constants` (and the point NTT's GLV constants from
:mod:`cuzk.backends.kernels.glv`), so nothing numeric is typed by hand.

``field_f64.c`` (the multiplication on the FP64 pipe) is left out of every product build: only the build option
``-DCUZK_FP64_MUL``, which its tests and the benchmarks set, compiles it.

An :class:`Api` is the one description of an API's choices: its name, its limb width (64-bit limbs with 128-bit
integers or ``mul_hi`` on OpenCL, 32-bit limbs with PTX carry chains on CUDA), its prelude and how an unsigned limb
literal is written.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from string import Template

from cuzk.backends.kernels.constants import (
    DIGIT_BITS,
    CurveConstants,
    FieldConstants,
    KernelConstantError,
    curve_constants,
    pairing_constants,
)
from cuzk.backends.kernels.gls import gls_table
from cuzk.backends.kernels.glv import glv_layout, glv_table
from cuzk.reference.curves import Curve


@dataclass(frozen=True)
class Api:
    """How one GPU API gets the shared source: limb width, prelude file, literal suffix of an unsigned limb."""

    name: str
    limb_bits: int
    prelude: str
    literal_suffix: str


OPENCL = Api("opencl", 64, "prelude_opencl.h", "UL")
CUDA = Api("cuda", 32, "prelude_cuda.h", "U")
APIS = {api.name: api for api in (OPENCL, CUDA)}

# The programs and the template instantiations each holds, in order: (template, substitutions).
_G1 = {"g": "g1", "G": "G1", "f": "fq", "F": "FQ"}
_G2 = {"g": "g2", "G": "G2", "f": "fq2", "F": "FQ2"}
_FQ = {"f": "fq", "F": "FQ"}
_FR = {"f": "fr", "F": "FR"}
PROGRAMS: dict[str, tuple[tuple[str, dict[str, str]], ...]] = {
    "field_ops": (
        ("field.c", _FQ),
        ("field.c", _FR),
        ("field_f64.c", _FQ),
        ("field_f64.c", _FR),
        ("field_ops.c", _FQ),
        ("field_ops.c", _FR),
    ),
    "ntt": (("field.c", _FR), ("field_f64.c", _FR), ("fr_tables", {}), ("bits.c", {}), ("ntt.c", {})),
    "msm_g1": (("field.c", _FQ), ("msm_digits.c", {}), ("ec.c", _G1), ("msm.c", _G1)),
    "msm_g2": (("field.c", _FQ), ("fq2.c", {}), ("msm_digits.c", {}), ("ec.c", _G2), ("msm.c", _G2)),
    "sparse": (("field.c", _FR), ("sparse.c", {})),
    "pairing": (("field.c", _FQ), ("fq2.c", {}), ("pairing_tables", {}), ("tower.c", {}), ("pairing.c", {})),
    "point_ntt_g1": (
        ("field.c", _FQ),
        ("field.c", _FR),
        ("ec.c", _G1),
        ("glv_g1", {}),
        ("bits.c", {}),
        ("point_ntt_chain.c", _G1),
        ("point_ntt_glv.c", _G1),
        ("point_ntt.c", _G1),
    ),
    "point_ntt_g2": (
        ("field.c", _FQ),
        ("field.c", _FR),
        ("fq2.c", {}),
        ("ec.c", _G2),
        ("glv_g2", {}),
        ("gls_g2", {}),
        ("bits.c", {}),
        ("point_ntt_chain.c", _G2),
        ("point_ntt_gls.c", _G2),
        ("point_ntt.c", _G2),
    ),
}


@cache
def template_text(name: str) -> str:
    """The text of the template (or prelude) file ``name`` shipped beside this module."""
    return resources.files("cuzk.backends.kernels").joinpath(name).read_text(encoding="utf-8")


def _literal(api: Api, word: int) -> str:
    return f"0x{word:0{api.limb_bits // 4}x}{api.literal_suffix}"


def _initializer(api: Api, field: FieldConstants, value: int) -> str:
    """``{w0, w1, …}``: the limbs of ``value`` as a C initialiser list."""
    return "{" + ", ".join(_literal(api, w) for w in field.words(value)) + "}"


def _field_macros(api: Api, prefix: str, field: FieldConstants) -> list[str]:
    return [
        f"/* {field.name}: p = {field.modulus:#x} */",
        f"#define {prefix}_N {field.limbs}",
        f"#define {prefix}_BITS {field.bits}",
        f"#define {prefix}_P {_initializer(api, field, field.modulus)}",
        f"#define {prefix}_INV {_literal(api, field.inv)} /* −p⁻¹ mod 2^{api.limb_bits} */",
        f"#define {prefix}_ONE {_initializer(api, field, field.r)} /* R mod p */",
        f"#define {prefix}_R2 {_initializer(api, field, field.r2)} /* R² mod p */",
        f"#define {prefix}_P_MINUS_2 {_initializer(api, field, field.modulus - 2)}",
        f"#define {prefix}_DIGITS {field.digits} /* digits of {DIGIT_BITS} bits (field_f64.c) */",
        f"#define {prefix}_DIGIT_SHIFT {field.digit_shift} /* R' = 2^({DIGIT_BITS}·{field.digits}) = R·2^(shift) */",
        f"#define {prefix}_P_DIGITS {{{', '.join(f'(u64)0x{d:x}' for d in field.digit_words(field.modulus))}}}",
        f"#define {prefix}_INV_DIGIT ((u64)0x{field.digit_inv:x}) /* −p⁻¹ mod 2^{DIGIT_BITS} */",
    ]


def constant_macros(api: Api, cc: CurveConstants) -> str:
    """The #defines of both fields and of the curve coefficients (b in Montgomery form, b' as c0, c1)."""
    fq = cc.fq
    b2 = ", ".join("{" + _initializer(api, fq, fq.to_montgomery(c)) + "}" for c in cc.g2_b)
    lines = [
        *_field_macros(api, "FQ", fq),
        *_field_macros(api, "FR", cc.fr),
        f"#define FR_TWO_ADICITY {cc.fr_two_adicity}",
        f"#define G1_B {_initializer(api, fq, fq.to_montgomery(cc.g1_b))} /* b = {cc.g1_b}, Montgomery form */",
        f"#define G2_B {b2} /* b' = {cc.g2_b[0]} + {cc.g2_b[1]}·u, Montgomery form */",
    ]
    return "\n".join(lines) + "\n"


def fr_tables(api: Api, cc: CurveConstants) -> str:
    """Constant tables of Fr in Montgomery form: ω_(2^k), ω_(2^k)⁻¹ and 2^(−k) for k = 0 … S, g and g⁻¹."""
    fr = cc.fr

    def element(value: int) -> str:
        return "{" + _initializer(api, fr, fr.to_montgomery(value)) + "}"

    def table(name: str, values: Sequence[int]) -> str:
        rows = ",\n  ".join(element(v) for v in values)
        return f"CONSTANT fr_t {name}[{len(values)}] = {{\n  {rows}\n}};"

    s, r = cc.fr_two_adicity, fr.modulus
    g = cc.fr_generator
    return (
        "\n".join(
            [
                "/* Fr, Montgomery form, k = 0 … S: ω_(2^k) = ROOT_OF_UNITY^(2^(S−k)), its inverse, 2^(−k). */",
                table("FR_ROOTS", cc.fr_roots),
                table("FR_ROOTS_INV", cc.fr_roots_inv),
                table("FR_INV_2K", [pow(2, -k, r) for k in range(s + 1)]),
                f"CONSTANT fr_t FR_GENERATOR = {element(g)}; /* g = {g} */",
                f"CONSTANT fr_t FR_GENERATOR_INV = {element(pow(g, -1, r))};",
            ]
        )
        + "\n"
    )


def _fq2_initializer(api: Api, fq: FieldConstants) -> Callable[[tuple[int, int]], str]:
    """An Fq2 value (c0, c1), canonical, as the API's initialiser of an ``fq2_t`` in Montgomery form."""

    def fq2(value: tuple[int, int]) -> str:
        return "{" + ", ".join("{" + _initializer(api, fq, fq.to_montgomery(c)) + "}" for c in value) + "}"

    return fq2


def pairing_tables(api: Api, cc: CurveConstants) -> str:
    """The pairing's constants (:func:`~cuzk.backends.kernels.constants.pairing_constants`): Fq2 values in
    Montgomery form, the Miller loop's and the hard part's signed digits, the curve's choices as macros."""
    fq, pc = cc.fq, pairing_constants(cc.curve)
    if not all(0 <= c < 1 << 16 for c in pc.xi):
        raise KernelConstantError(f"{cc.curve.name}: ξ = {pc.xi} has no small non-negative coefficients (fq2_mul_xi)")

    fq2 = _fq2_initializer(api, fq)

    def digits(values: Sequence[int]) -> str:
        return "{" + ", ".join(str(d) for d in values) + "}"

    programs = ",\n  ".join("{" + ", ".join(digits(row) for row in rows) + "}" for rows in pc.hard_part)
    width = len(pc.hard_part[0][0])
    gammas = ",\n  ".join(fq2(g) for g in pc.frobenius)
    return (
        "\n".join(
            [
                "/* The pairing's constants (kernels.constants.pairing_constants), Fq2 in Montgomery form. */",
                f"#define PAIRING_D_TYPE {int(pc.d_type)} /* lines placed for a D-type twist, else M-type */",
                f"#define PAIRING_CONJUGATE {int(pc.conjugate)} /* f ← conj(f) after the loop (BLS12, x < 0) */",
                f"#define PAIRING_BN {int(pc.bn)} /* the two lines through π(Q) and −π²(Q) */",
                f"#define ATE_LOOP_LENGTH {len(pc.loop_digits)}",
                f"#define HARD_PART_PRE {pc.hard_part_pre}",
                f"#define HARD_PART_EXTRA {pc.hard_part_extra}",
                f"#define HARD_PART_WIDTH {width}",
                f"#define PAIRING_XI_C0 {pc.xi[0]}u /* ξ = {pc.xi[0]} + {pc.xi[1]}·u */",
                f"#define PAIRING_XI_C1 {pc.xi[1]}u",
                f"CONSTANT fq2_t FROBENIUS_GAMMA[6] = {{\n  {gammas}\n}}; /* γ_i = ξ^(i(q − 1)/6) */",
                f"CONSTANT fq2_t TWIST_B3 = {fq2(pc.twist_b3)}; /* 3b' */",
                f"CONSTANT fq2_t TWIST_FROBENIUS_X = {fq2(pc.twist_frobenius[0])};",
                f"CONSTANT fq2_t TWIST_FROBENIUS_Y = {fq2(pc.twist_frobenius[1])};",
                "/* the NAF of ate_loop_count, most significant digit first */",
                f"CONSTANT i32 ATE_LOOP_DIGITS[ATE_LOOP_LENGTH] = {digits(pc.loop_digits)};",
                f"CONSTANT i32 HARD_PART_DIGITS[{len(pc.hard_part)}][4][HARD_PART_WIDTH] = {{\n  {programs}\n}};",
            ]
        )
        + "\n"
    )


def glv_tables(group: str) -> Callable[[Api, CurveConstants], str]:
    """The GLV constants of ``group`` (:func:`~cuzk.backends.kernels.glv.glv_table`), β in the API's limbs."""

    def table(api: Api, cc: CurveConstants) -> str:
        beta = cc.fq.to_montgomery(glv_layout(cc.curve, group).beta)
        return glv_table(cc, group, _initializer(api, cc.fq, beta)[1:-1])

    return table


# constant tables a program lists by name
TABLES = {
    "fr_tables": fr_tables,
    "pairing_tables": pairing_tables,
    "glv_g1": glv_tables("g1"),
    "glv_g2": glv_tables("g2"),
    "gls_g2": lambda api, cc: gls_table(cc, _fq2_initializer(api, cc.fq)),
}


def header(api: Api, curve: Curve, program: str) -> str:
    digest = hashlib.sha256("".join(template_text(t) for t in template_files(program, api)).encode()).hexdigest()
    return (
        f"/* Generated by cuzk.backends.kernels.generate: the {program!r} program of {curve.name} for {api.name}\n"
        f" * ({api.limb_bits}-bit limbs), from the curve data of cuzk.reference.curves.{curve.name}\n"
        f" * (q = {curve.q:#x},\n *  r = {curve.r:#x})\n"
        f" * and the templates {', '.join(template_files(program, api))} (sha256 {digest[:16]}).\n"
        " * Do not edit: edit the templates in backends/kernels/ (cuzk.backends.kernels) and generate again. */\n"
    )


def template_files(program: str, api: Api) -> list[str]:
    """The files a program is made of, prelude first."""
    files = [api.prelude]
    for name, _ in PROGRAMS[program]:
        if name.endswith((".c", ".h")) and name not in files:
            files.append(name)
    return files


def paired_mul(api: Api, program: str, cc: CurveConstants) -> bool:
    """Whether the mixed additions of a G1 program multiply in independent pairs (ec.c, CUZK_PAIRED_MUL): twice the
    carry chains in flight pay where a product's chains are long (Fq of 12 limbs, BLS12-381) and cost where they are
    short (8 limbs, BN254). Chosen by measurement on CUDA's G1 programs (docs/performance.md); OpenCL and G2 keep one
    product a call."""
    return api is CUDA and program == "msm_g1" and cc.fq.limbs >= 12


def build_choices(api: Api, program: str, cc: CurveConstants) -> str:
    """The build options chosen per API, program and curve by measurement; each is a default a -D option overrides
    (e.g. ``--nvrtc=-DCUZK_PAIRED_MUL=0``)."""
    return f"#ifndef CUZK_PAIRED_MUL\n#define CUZK_PAIRED_MUL {int(paired_mul(api, program, cc))}\n#endif\n"


@cache
def generate(curve: Curve, api: Api, program: str) -> str:
    """The complete source of ``program`` (a key of :data:`PROGRAMS`) for ``curve`` and ``api``."""
    if program not in PROGRAMS:
        raise KeyError(f"unknown kernel program {program!r}; known: {', '.join(PROGRAMS)}")
    cc = curve_constants(curve, api.limb_bits)
    parts = [header(api, curve, program), template_text(api.prelude), constant_macros(api, cc)]
    parts.append(build_choices(api, program, cc))
    for name, substitutions in PROGRAMS[program]:
        if name in TABLES:
            parts.append(TABLES[name](api, cc))
        else:
            parts.append(Template(template_text(name)).substitute(substitutions))
    return "\n".join(parts)


__all__ = [
    "APIS",
    "CUDA",
    "OPENCL",
    "PROGRAMS",
    "Api",
    "build_choices",
    "constant_macros",
    "fr_tables",
    "generate",
    "paired_mul",
    "pairing_tables",
    "template_files",
    "template_text",
]
