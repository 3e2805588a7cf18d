"""Whether a .zkey's sections fit together as a Groth16 key: the cheap checks, made before every proof with a key.

The reader (:mod:`cuzk.formats.zkey`) checks each section on its own: its size against the header, its points on
the curve, its coefficients below r. A key can pass all that and still be no Groth16 key — an edited byte, a
section from another key — and then the proof made with it does not verify, which without these checks looks like
a witness that does not satisfy the circuit. :func:`check_zkey_structure` names the section and the check instead
(:class:`~cuzk.formats.errors.BadKeyError`, ``bad key: section N (name): …``). Each check is one pass of numpy over
a section, no pairing, no scalar multiplication: a few milliseconds for a key of 2^16 constraints.

What a key made by snarkjs's ``zkey new`` (src/zkey_new.js) or cuzk's setup always satisfies, τ, α, β, γ, δ being
random (each "never" below fails with probability about n/r, where n is the domain size):

- the header's [α]₁, [β]₁, [β]₂, [γ]₂, [δ]₁, [δ]₂ are never the point at infinity, nor the IC points (IC_i holds
  β·L_(nC+i)(τ)/γ from the public-input rows below), nor the H points ([L_(2i+1)(τ)/δ]₁, the circom reduction);
- the coefficients end with the public-input rows: for s = 0 … nPublic, row nC + s holds the one term A = 1·z_s
  (nC: the circuit's constraints), and nothing else is in those rows;
- A_j = [Σ_c A_cj·L_c(τ)]₁ is the point at infinity exactly when signal j has no non-zero A coefficient, B1_j and
  B2_j exactly when it has no non-zero B coefficient (snarkjs writes the zero point for an unused signal);
- a private signal with an A or B term has its C (l_query) point finite.

The checks that need pairings or scalar multiplications (β and δ of G1 against G2, B1 against B2) run only when a
proof fails to verify (:mod:`cuzk.engine.key_check`), and so does :func:`zero_coefficient`: zero terms are not
refused up front, since a circuit of another tool may have them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cuzk.backends import limbs
from cuzk.formats.errors import BadKeyError
from cuzk.formats.points import PointTable
from cuzk.formats.zkey import FR_BYTES, SECTIONS, ZKey
from cuzk.reference.curves import Point

MATRICES = ("A", "B")


def section_label(section_id: int) -> str:
    """``section 4 (coefficients)``, as the reader's messages name sections."""
    return f"section {section_id} ({SECTIONS[section_id]})"


def bad_key(zkey: ZKey, section_id: int, problem: str) -> BadKeyError:
    return BadKeyError(zkey.path, problem, section=section_label(section_id))


def check_zkey_structure(zkey: ZKey) -> None:
    """BadKeyError naming the section and the check when ``zkey``'s sections do not fit together (see the module's
    docstring for what is checked)."""
    _check_sizes(zkey)
    _check_header_points(zkey)
    _check_finite(zkey, 3, zkey.ic, "IC point")
    _check_finite(zkey, 9, zkey.h_query, "H point")
    _check_input_rows(zkey)
    _check_points_against_coefficients(zkey)


def infinity_mask(table: PointTable | Sequence[Point]) -> np.ndarray:
    """Per point, whether it is the point at infinity (all-zero limbs in a table, all-zero words as stored)."""
    if isinstance(table, PointTable):
        return table.infinity_mask()
    return np.array([p.is_identity() for p in table], dtype=bool)


def term_label(zkey: ZKey, i: int) -> str:
    """``coefficient 17 (A, row 3, signal 5)``."""
    c = zkey.coefficients
    matrix = MATRICES[int(c.matrix[i])] if int(c.matrix[i]) < len(MATRICES) else f"matrix {int(c.matrix[i])}"
    return f"coefficient {i} ({matrix}, row {int(c.constraint[i])}, signal {int(c.signal[i])})"


def zero_coefficient(zkey: ZKey) -> BadKeyError | None:
    """The error for the first coefficient that is zero (circom and snarkjs write no zero terms; a zeroed
    coefficient leaves the A and B points, made with its value, contradicting it), or None."""
    zero = ~zkey.coefficients.nonzero
    if not zero.any():
        return None
    i = int(np.argmax(zero))
    problem = f"{term_label(zkey, i)} is zero: circom and snarkjs write no zero terms, and the key's points were not "
    problem += "made with a zero there"
    return bad_key(zkey, 4, problem)


def _check_sizes(zkey: ZKey) -> None:
    """The tables' lengths against the header (the reader checks them in a file; a key made otherwise may not be)."""
    private = zkey.num_variables - zkey.num_public - 1
    for section_id, table, expected, what in (
        (3, zkey.ic, zkey.num_public + 1, "nPublic + 1"),
        (5, zkey.a_query, zkey.num_variables, "nVars"),
        (6, zkey.b_g1_query, zkey.num_variables, "nVars"),
        (7, zkey.b_g2_query, zkey.num_variables, "nVars"),
        (8, zkey.l_query, private, "nVars − nPublic − 1"),
        (9, zkey.h_query, zkey.domain_size, "domainSize"),
    ):
        if len(table) != expected:
            raise bad_key(zkey, section_id, f"{len(table)} points, but the header's {what} is {expected}")


def _check_header_points(zkey: ZKey) -> None:
    for name, point in (
        ("[α]₁", zkey.alpha_g1),
        ("[β]₁", zkey.beta_g1),
        ("[β]₂", zkey.beta_g2),
        ("[γ]₂", zkey.gamma_g2),
        ("[δ]₁", zkey.delta_g1),
        ("[δ]₂", zkey.delta_g2),
    ):
        if point.is_identity():
            raise bad_key(zkey, 2, f"{name} is the point at infinity, which a Groth16 key never has")


def _check_finite(zkey: ZKey, section_id: int, table: PointTable | Sequence[Point], what: str) -> None:
    at_infinity = infinity_mask(table)
    if at_infinity.any():
        i = int(np.argmax(at_infinity))
        raise bad_key(zkey, section_id, f"{what} {i} is the point at infinity, which a Groth16 key never has")


def _one_stored(modulus: int) -> np.ndarray:
    """1 as the coefficients are stored (1·R² mod r, R = 2^256), as limbs."""
    return limbs.int_to_limbs(pow(2, 2 * 8 * FR_BYTES, modulus), FR_BYTES // 8)


def _check_input_rows(zkey: ZKey) -> None:
    """The coefficients end with the public-input rows: row nC + s holds exactly A = 1·z_s, s = 0 … nPublic."""
    c, k = zkey.coefficients, zkey.num_public + 1
    rows_label = f"the public-input rows (the last nPublic + 1 = {k} rows, one term A = 1·z_s each)"
    if len(c) == 0:
        raise bad_key(zkey, 4, f"there are no coefficients, so {rows_label} are missing")
    first = zkey.num_constraints  # the highest row is nC + nPublic
    tail = np.flatnonzero(c.constraint >= first)
    counts = np.bincount(c.constraint[tail] - first, minlength=k)
    if (counts != 1).any():
        s = int(np.argmax(counts != 1))
        raise bad_key(zkey, 4, f"{rows_label}: row {first + s} holds {int(counts[s])} terms, not 1")
    tail = tail[np.argsort(c.constraint[tail], kind="stable")]
    one = _one_stored(c.modulus)
    wrong = (c.matrix[tail] != 0) | (c.signal[tail] != np.arange(k)) | np.any(c.stored[tail] != one, axis=1)
    if wrong.any():
        s = int(np.argmax(wrong))
        raise bad_key(zkey, 4, f"{rows_label}: {term_label(zkey, int(tail[s]))} is not A = 1·z_{s}")


def _signals_with_terms(zkey: ZKey) -> tuple[np.ndarray, np.ndarray]:
    """Per signal, whether it has a non-zero coefficient in A, and in B: one mark per term at (matrix, signal), a
    scatter of booleans (half the time of counting them; the reader checked that every matrix is 0 or 1 and every
    signal below nVars)."""
    c, count = zkey.coefficients, zkey.num_variables
    nonzero = c.nonzero
    keys = c.matrix * count + c.signal
    used = np.zeros(2 * count, dtype=bool)
    used[keys if nonzero.all() else keys[nonzero]] = True
    return used[:count], used[count : 2 * count]


def _check_points_against_coefficients(zkey: ZKey) -> None:
    """A_j, B1_j, B2_j finite exactly where signal j has A (B) terms; C points finite where a private signal has
    A or B terms."""
    in_a, in_b = _signals_with_terms(zkey)
    for section_id, table, used, name in (
        (5, zkey.a_query, in_a, "A"),
        (6, zkey.b_g1_query, in_b, "B"),
        (7, zkey.b_g2_query, in_b, "B"),
    ):
        finite = ~infinity_mask(table)
        if (finite != used).any():
            j = int(np.argmax(finite != used))
            problem = (
                f"point {j} is the point at infinity, but signal {j} has {name} terms in {section_label(4)}"
                if used[j]
                else f"point {j} is not the point at infinity, but signal {j} has no non-zero {name} term in "
                f"{section_label(4)}"
            )
            raise bad_key(zkey, section_id, problem)
    private_used = (in_a | in_b)[zkey.num_public + 1 :]
    missing = private_used & infinity_mask(zkey.l_query)
    if missing.any():
        i = int(np.argmax(missing))
        raise bad_key(
            zkey,
            8,
            f"point {i} (signal {zkey.num_public + 1 + i}) is the point at infinity, but the signal has A or B terms "
            f"in {section_label(4)}",
        )


__all__ = ["check_zkey_structure", "infinity_mask", "section_label", "term_label", "zero_coefficient"]
