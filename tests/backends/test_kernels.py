"""The generated kernel source: its constants read back from the text and checked against the reference's curve
data, its header, and the promise that the templates are shared by both APIs (no device needed)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cuzk.backends.kernels import APIS, CUDA, OPENCL, PROGRAMS, Api, KernelConstantError, field_constants, generate
from cuzk.backends.kernels.constants import DIGIT_BITS, limb_words, words_value
from cuzk.backends.kernels.generate import template_text
from cuzk.reference.curves import Curve
from cuzk.reference.ntt import domain_root

API_LIST = list(APIS.values())
PRELUDE_NAMES = [
    "limb_t",
    "LIMB_BITS",
    "KERNEL",
    "DEVICE",
    "DEVICE_NOINLINE",
    "GLOBAL",
    "CONSTANT",
    "GLOBAL_ID",
    "ATOMIC_INC",
    "UNROLL",
    "LOCAL",
    "BARRIER",
    "LOCAL_ID",
    "GROUP_ID",
    "LOCAL_SIZE",
]
PRELUDE_FUNCTIONS = [
    "mad_lo_cc",
    "madc_lo_cc",
    "mad_hi_cc",
    "madc_hi_cc",
    "madc_hi",
    "add_cc",
    "addc_cc",
    "addc",
    "sub_cc",
    "subc_cc",
    "subc",
    "mul_hi_limb",
]


def words(text: str) -> list[int]:
    """The integers of a C initialiser such as ``{0x1UL, 0x2UL}`` (any nesting)."""
    return [int(w, 16) for w in re.findall(r"0x([0-9a-f]+)U", text)]


def macros(source: str) -> dict[str, str]:
    return {m[1]: m[2] for m in re.finditer(r"^#define (\w+) (.*?)(?: /\*.*\*/)?$", source, re.MULTILINE)}


def table(source: str, name: str, limb_bits: int) -> list[int]:
    body = re.search(rf"CONSTANT fr_t {name}\[\d+\] = \{{(.*?)\n\}};", source, re.DOTALL)
    assert body is not None, name
    return [words_value(words(row), limb_bits) for row in body[1].split("\n") if "0x" in row]


@pytest.mark.parametrize("api", API_LIST, ids=lambda a: a.name)
def test_field_macros_are_the_montgomery_constants(curve: Curve, api: Api) -> None:
    defined = macros(generate(curve, api, "field_ops"))
    w = api.limb_bits
    for prefix, p in (("FQ", curve.q), ("FR", curve.r)):
        n = int(defined[f"{prefix}_N"])
        assert n * w == 64 * -(-p.bit_length() // 64)
        assert int(defined[f"{prefix}_BITS"]) == p.bit_length()
        R = 1 << (n * w)
        assert words_value(words(defined[f"{prefix}_P"]), w) == p
        one = words_value(words(defined[f"{prefix}_ONE"]), w)
        r2 = words_value(words(defined[f"{prefix}_R2"]), w)
        assert one == R % p and r2 == R * R % p
        assert one * pow(R, -1, p) % p == 1  # R·R⁻¹ = 1: ONE is the Montgomery form of 1
        assert r2 * pow(R, -1, p) % p == one  # to_mont(x) = x·R²·R⁻¹ = x·R
        inv = words(defined[f"{prefix}_INV"])[0]
        assert inv * p % (1 << w) == (1 << w) - 1  # −p⁻¹ mod 2^w
        assert words_value(words(defined[f"{prefix}_P_MINUS_2"]), w) == p - 2
        assert len(words(defined[f"{prefix}_P"])) == n
        # the FP64 multiplication's digits (field_f64.c): R' = 2^(51·D) = R·2^s, p and 2^s·p below R'
        d, shift = int(defined[f"{prefix}_DIGITS"]), int(defined[f"{prefix}_DIGIT_SHIFT"])
        assert d * DIGIT_BITS == n * w + shift and -1 <= shift < DIGIT_BITS
        assert p << max(shift, 0) < 1 << (DIGIT_BITS * d)
        p_digits = [int(x, 16) for x in re.findall(r"0x([0-9a-f]+)", defined[f"{prefix}_P_DIGITS"])]
        assert len(p_digits) == d and max(p_digits) < 1 << DIGIT_BITS and words_value(p_digits, DIGIT_BITS) == p
        inv_digit = int(re.findall(r"0x([0-9a-f]+)", defined[f"{prefix}_INV_DIGIT"])[0], 16)
        assert inv_digit * p % (1 << DIGIT_BITS) == (1 << DIGIT_BITS) - 1  # −p⁻¹ mod 2^51


@pytest.mark.parametrize("api", API_LIST, ids=lambda a: a.name)
def test_curve_coefficients_in_montgomery_form(curve: Curve, api: Api) -> None:
    fq = field_constants("fq", curve.q, api.limb_bits)
    source = generate(curve, api, "msm_g2")
    defined = macros(source)
    assert fq.from_montgomery(words_value(words(defined["G1_B"]), api.limb_bits)) == curve.g1.b.value
    b2 = words(defined["G2_B"])
    c0, c1 = words_value(b2[: fq.limbs], api.limb_bits), words_value(b2[fq.limbs :], api.limb_bits)
    assert (fq.from_montgomery(c0), fq.from_montgomery(c1)) == (curve.g2.b.c0.value, curve.g2.b.c1.value)


@pytest.mark.parametrize("api", API_LIST, ids=lambda a: a.name)
def test_fr_tables_are_the_reference_roots(curve: Curve, api: Api) -> None:
    Fr, r = curve.Fr, curve.r
    fr = field_constants("fr", r, api.limb_bits)
    source = generate(curve, api, "ntt")
    roots = [fr.from_montgomery(v) for v in table(source, "FR_ROOTS", api.limb_bits)]
    roots_inv = [fr.from_montgomery(v) for v in table(source, "FR_ROOTS_INV", api.limb_bits)]
    inv_2k = [fr.from_montgomery(v) for v in table(source, "FR_INV_2K", api.limb_bits)]
    assert len(roots) == Fr.TWO_ADICITY + 1 == int(macros(source)["FR_TWO_ADICITY"]) + 1
    for k, (w, w_inv, i2) in enumerate(zip(roots, roots_inv, inv_2k, strict=True)):
        assert w == domain_root(Fr, 1 << k).value
        assert pow(w, 1 << k, r) == 1 and (k == 0 or pow(w, 1 << (k - 1), r) != 1)  # order exactly 2^k
        assert w * w_inv % r == 1 and i2 * (1 << k) % r == 1
    g = re.search(r"CONSTANT fr_t FR_GENERATOR = (\{.*?\});", source)
    g_inv = re.search(r"CONSTANT fr_t FR_GENERATOR_INV = (\{.*?\});", source)
    assert g is not None and g_inv is not None
    assert fr.from_montgomery(words_value(words(g[1]), api.limb_bits)) == Fr.GENERATOR.value
    assert fr.from_montgomery(words_value(words(g_inv[1]), api.limb_bits)) * Fr.GENERATOR.value % r == 1


@pytest.mark.parametrize("api", API_LIST, ids=lambda a: a.name)
def test_paired_mul_is_chosen_per_program_and_curve(curve: Curve, api: Api) -> None:
    """CUZK_PAIRED_MUL defaults to 1 only in CUDA's G1 program of BLS12-381 (measured faster there, slower on
    BN254), and a -D option overrides it (the default sits under #ifndef)."""
    for program in PROGRAMS:
        source = generate(curve, api, program)
        expected = int(api is CUDA and program == "msm_g1" and curve.name == "bls12_381")
        assert f"#ifndef CUZK_PAIRED_MUL\n#define CUZK_PAIRED_MUL {expected}\n#endif" in source


@pytest.mark.parametrize("api", API_LIST, ids=lambda a: a.name)
@pytest.mark.parametrize("program", list(PROGRAMS))
def test_generated_text(curve: Curve, api: Api, program: str) -> None:
    source = generate(curve, api, program)
    assert source.startswith("/* Generated by cuzk.backends.kernels.generate")
    assert f"cuzk.reference.curves.{curve.name}" in source.split("*/")[0]
    assert "${" not in source
    prelude = template_text(api.prelude)
    shared = source.split(prelude, 1)[1]
    foreign = ["__kernel", "__global", "__constant ", "mul_hi", "get_global_id", "ulong"]
    if api is OPENCL:
        foreign = [
            "__global__",
            "__device__",
            "__constant__",
            "blockIdx",
            "atomicAdd",
            "atomicMin",
            "unsigned long long",
        ]
    for token in foreign:  # as a whole word: the prelude's mul_hi_limb is not OpenCL's mul_hi
        found = re.search(rf"(?<!\w){re.escape(token)}(?!\w)", shared)
        assert found is None, f"{token!r} in the shared part of the {api.name} source: use the prelude's names"


def test_preludes_define_the_same_names() -> None:
    for api in API_LIST:
        text = template_text(api.prelude)
        for name in PRELUDE_NAMES:
            assert re.search(rf"(#define {name}\b|\b{name};)", text), f"{api.prelude} lacks {name}"
        for name in PRELUDE_FUNCTIONS:
            # a definition "limb_t name(" or a defining macro's use "MACRO(name, …)"
            assert re.search(rf"( {name}\(|\({name},)", text), f"{api.prelude} lacks {name}"


def test_limb_words_round_trip() -> None:
    x = 0x1234_5678_9ABC_DEF0_0FED_CBA9_8765_4321
    assert words_value(limb_words(x, 32, 4), 32) == x
    assert limb_words(x, 64, 2) == [0x0FED_CBA9_8765_4321, 0x1234_5678_9ABC_DEF0]
    with pytest.raises(KernelConstantError):
        limb_words(1 << 64, 64, 1)


def test_no_carry_bound_is_checked() -> None:
    with pytest.raises(KernelConstantError, match="no-carry"):
        field_constants("big", (1 << 255) + 95, 64)  # top limb ≥ 2^63 − 1


CUDA_SHIM = """
#include <cmath>
#include <cstddef>
#include <cstring>
using std::fma;
#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __constant__
#define __shared__ static
#define __launch_bounds__(...)
struct uint4 { unsigned x, y, z, w; };
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
static inline void __syncthreads() {}
struct cuzk_dim3 { unsigned x, y, z; };
static cuzk_dim3 blockIdx, blockDim, threadIdx;
static inline unsigned atomicAdd(unsigned *p, unsigned v) { unsigned old = *p; *p += v; return old; }
static inline unsigned atomicMin(unsigned *p, unsigned v) { unsigned old = *p; if (v < old) *p = v; return old; }
static inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static inline long long __double_as_longlong(double x) { long long b; std::memcpy(&b, &x, 8); return b; }
static inline double __longlong_as_double(long long b) { double x; std::memcpy(&x, &b, 8); return x; }
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed: the CUDA source is not syntax-checked")
@pytest.mark.parametrize("define", ["", "CUZK_PAIRED_MUL 1", "CUZK_PAIRED_MUL 0", "CUZK_FP64_MUL 1"])
@pytest.mark.parametrize("program", list(PROGRAMS))
def test_cuda_source_is_valid_cplusplus(curve: Curve, program: str, define: str, tmp_path: Path) -> None:
    """No nvcc in CI: g++ checks the CUDA variant's syntax and types, with CUDA's names stubbed by a shim (also
    both builds of the mixed addition, CUZK_PAIRED_MUL 1 and 0, whatever the curve's default, and the build with
    the FP64 multiplication, CUZK_FP64_MUL, which no product program sets)."""
    (tmp_path / "shim.h").write_text(CUDA_SHIM)
    src = tmp_path / f"{program}.cu"
    src.write_text((f"#define {define}\n" if define else "") + generate(curve, CUDA, program))
    cmd = ["g++", "-fsyntax-only", "-Wall", "-Wno-unknown-pragmas", "-x", "c++", "-include", "shim.h", src.name]
    done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[:4000]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed: the CUDA source is not compiled")
@pytest.mark.parametrize("program", list(PROGRAMS))
def test_cuda_source_compiles_for_hopper(curve: Curve, program: str, tmp_path: Path) -> None:
    """Where nvcc is installed: the CUDA variant compiles to sm_90 machine code (ptxas checks the inline PTX of
    the carry chains), and G1's bucket kernel keeps its points in registers: at most a 16-byte stack frame (nvcc
    13: BLS12-381's, one spilled register pair of the multiplication; an inlined multiplication once took 1760
    bytes). G2's points, twice the size, spill in part: several hundred bytes of stack."""
    src = tmp_path / f"{program}.cu"
    src.write_text(generate(curve, CUDA, program))
    cmd = ["nvcc", "-arch=sm_90", "-c", "-Xptxas", "-v", src.name, "-o", f"{program}.o"]
    done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[:4000]
    report = re.search(r"for \w+_msm_bucket_sums\n\s*(\d+) bytes stack frame", done.stderr)
    if program == "msm_g1":
        assert report is not None, done.stderr[:4000]
        assert int(report[1]) <= 16, f"the bucket kernel has a {report[1]}-byte stack frame"
