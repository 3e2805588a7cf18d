"""The one kernel source shared by the CUDA and OpenCL backends, generated per curve and per API.

Field arithmetic (Montgomery form, CIOS multiplication), Fq2, G1/G2 point arithmetic in XYZZ coordinates, the MSM
(signed digits, a counting sort of the points by bucket, running-sum bucket reduction, window combination), the
NTT (bit reversal, radix-2^r Cooley–Tukey passes, coset scaling, 1/n), a .zkey's sparse products (``sparse.c``) and
the pairing check (``tower.c``: Fq6, Fq12; ``pairing.c``: Miller loops and the final exponentiation) are written once
in C templates beside this module; :func:`generate` fills them in for a curve and an :class:`Api` (OpenCL: 64-bit
limbs; CUDA: 32-bit limbs).
Nothing here imports pyopencl or cupy.
"""

from cuzk.backends.kernels.constants import (
    CurveConstants,
    FieldConstants,
    KernelConstantError,
    curve_constants,
    field_constants,
)
from cuzk.backends.kernels.generate import APIS, CUDA, OPENCL, PROGRAMS, Api, generate

__all__ = [
    "APIS",
    "CUDA",
    "OPENCL",
    "PROGRAMS",
    "Api",
    "CurveConstants",
    "FieldConstants",
    "KernelConstantError",
    "curve_constants",
    "field_constants",
    "generate",
]
