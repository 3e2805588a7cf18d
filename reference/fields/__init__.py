"""Finite fields of the reference: prime fields F_p and the pairing tower Fq2 → Fq6 → Fq12."""

from cuzk.reference.fields.prime_field import (
    FftFieldElement,
    PrimeFieldElement,
    fft_field,
    prime_field,
    two_adicity,
)
from cuzk.reference.fields.tower import Fq2Element, Fq6Element, Fq12Element, Tower, tower

__all__ = [
    "FftFieldElement",
    "Fq2Element",
    "Fq6Element",
    "Fq12Element",
    "PrimeFieldElement",
    "Tower",
    "fft_field",
    "prime_field",
    "tower",
    "two_adicity",
]
