"""The one place where reference objects become limb arrays and back (the data format of the backend protocol).

A field element of a b-bit modulus travels as L = ⌈b/64⌉ little-endian 64-bit limbs of its *canonical* integer
(0 ≤ v < p; never Montgomery form): limb i holds bits 64·i … 64·i + 63. Fr has 4 limbs on both curves; Fq has 6 on
BLS12-381 and 4 on BN254. Shapes (n rows):

    Fr scalars, NTT values      (n, 4)
    G1 affine points            (n, 2, L)        x, y
    G2 affine points            (n, 2, 2, L)     (x.c0, x.c1), (y.c0, y.c1)

The point at infinity is all zeros: (0, 0) is on neither curve (0 ≠ 0³ + b), so the encoding is unambiguous.
Bulk conversions go through ``int.to_bytes`` / ``int.from_bytes`` and one ``numpy.frombuffer`` (no per-limb loops);
canonicity is checked by comparing limbs from the most significant down, vectorised over rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

import numpy as np

from cuzk.backends.env import host_helpers
from cuzk.backends.errors import InputShapeError, InputTypeError, LimbCountError, NonCanonicalInputError
from cuzk.backends.pieces import over_pieces
from cuzk.reference.curves import Curve, Group, Point
from cuzk.reference.errors import (
    CuzkError,
    FieldMismatchError,
    GroupMismatchError,
    NonCanonicalError,
    PointNotOnCurveError,
)

GroupName = Literal["g1", "g2"]
GROUPS: tuple[GroupName, ...] = ("g1", "g2")
FR_LIMBS = 4


def limb_count(modulus: int) -> int:
    """L = ⌈bits(modulus)/64⌉: the limbs a canonical element of Z/modulus needs."""
    return -(-modulus.bit_length() // 64)


def fq_limbs(curve: Curve) -> int:
    """Limbs of one Fq element: 6 for BLS12-381 (381 bits), 4 for BN254 (254 bits)."""
    return limb_count(curve.q)


def group_of(curve: Curve, group: str) -> Group:
    """The reference :class:`Group` called ``group`` ("g1" or "g2") of ``curve``."""
    if group == "g1":
        return curve.g1
    if group == "g2":
        return curve.g2
    raise CuzkError(f"unknown group {group!r}; expected 'g1' or 'g2'")


def point_shape(curve: Curve, group: str) -> tuple[int, ...]:
    """The shape of one affine point: (2, L) for G1, (2, 2, L) for G2."""
    group_of(curve, group)
    return (2, fq_limbs(curve)) if group == "g1" else (2, 2, fq_limbs(curve))


# --- integers ↔ limbs ---------------------------------------------------------------------------------------------


def ints_to_limbs(values: Iterable[int], limbs: int) -> np.ndarray:
    """A (n, limbs) uint64 array of the integers ``values`` (each 0 ≤ v < 2^(64·limbs))."""
    width = 8 * limbs
    chunks = []
    for v in values:
        try:
            chunks.append(v.to_bytes(width, "little"))
        except OverflowError:
            raise NonCanonicalError(f"{v:#x} does not fit in {limbs} unsigned 64-bit limbs") from None
    data = np.frombuffer(b"".join(chunks), dtype="<u8")
    return data.astype(np.uint64).reshape(len(chunks), limbs)


def limbs_to_ints(array: np.ndarray) -> list[int]:
    """The integers held by the rows of ``array`` (shape (..., L)), leading axes flattened in C order."""
    limbs = array.shape[-1]
    data = np.ascontiguousarray(array, dtype="<u8").tobytes()
    step = 8 * limbs
    return [int.from_bytes(data[i : i + step], "little") for i in range(0, len(data), step)]


def int_to_limbs(value: int, limbs: int) -> np.ndarray:
    """One integer as a (limbs,) uint64 array."""
    return ints_to_limbs([value], limbs)[0]


def limbs_to_int(row: np.ndarray) -> int:
    """The integer held by one (L,) row of limbs."""
    return limbs_to_ints(row.reshape(1, -1))[0]


# --- canonicity ---------------------------------------------------------------------------------------------------


SCAN_ROWS = 1 << 17  # rows per piece of a scan spread over threads (a key's section: hundreds of megabytes)


def take_rows(array: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``array[index]`` along the first axis, by ``np.take``: for rows of several words it copies each row whole,
    where fancy indexing of a 2-D array goes element by element (several times slower for a key's points and
    coefficients: docs/performance.md)."""
    return np.take(array, index, axis=0)


def scatter_rows(array: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """A new array whose row positions[i] is ``array``'s row i (``positions`` a permutation): gathered through the
    inverse permutation by :func:`take_rows`, as fast as a gather and faster than assigning to fancy indices."""
    source = np.empty(len(positions), dtype=np.int64)
    source[positions] = np.arange(len(positions), dtype=np.int64)
    return take_rows(array, source)


def nonzero_rows(words: np.ndarray) -> np.ndarray:
    """Per row of a 2-D array of words, whether any word is not zero: one buffered pass of ``any`` along the rows
    (no boolean array of the whole input, which ``words != 0`` would make, and none of the column-by-column passes
    that read every cache line once per word), in pieces on threads (:func:`over_pieces`)."""
    out = np.empty(len(words), dtype=bool)

    def scan(start: int, stop: int) -> None:
        np.any(words[start:stop], axis=1, out=out[start:stop])

    over_pieces(len(words), SCAN_ROWS, scan)
    return out


def noncanonical_mask(array: np.ndarray, modulus: int) -> np.ndarray:
    """A boolean array of shape ``array.shape[:-1]``: True where the element is ≥ ``modulus``.

    Lexicographic comparison from the most significant limb down: the first limb that differs from the modulus
    decides; a row equal to the modulus in every limb is ≥ it too.
    """
    limbs = array.shape[-1]
    rows = array.reshape(-1, limbs)
    m = int_to_limbs(modulus, limbs) if modulus < 1 << (64 * limbs) else None
    if m is None:
        return np.zeros(array.shape[:-1], dtype=bool)
    greater = np.zeros(rows.shape[0], dtype=bool)
    decided = np.zeros(rows.shape[0], dtype=bool)
    for i in range(limbs - 1, -1, -1):
        gt = (rows[:, i] > m[i]) & ~decided
        lt = (rows[:, i] < m[i]) & ~decided
        greater |= gt
        decided |= gt | lt
    return (greater | ~decided).reshape(array.shape[:-1])


def first_noncanonical(array: np.ndarray, modulus: int) -> tuple[int, ...] | None:
    """The index (over ``array.shape[:-1]``) of the first element ≥ ``modulus``, or None when all are canonical.

    Only the elements whose top limb reaches the modulus's top limb can be ≥ it, so the full comparison runs on
    those alone (one pass over the top limbs instead of one per limb: 2^24 scalars in tens of milliseconds)."""
    limbs = array.shape[-1]
    if limbs == 0 or modulus >= 1 << (64 * limbs):
        return None
    top, ceiling = array[..., -1], np.uint64(modulus >> (64 * (limbs - 1)))
    if top.ndim == 1 and len(top) >= PARALLEL_CHECK_ROWS and not _reaches(top, ceiling):
        return None
    suspects = np.argwhere(top >= ceiling)
    if not len(suspects):
        return None
    bad = noncanonical_mask(array[tuple(suspects.T)], modulus)
    return tuple(int(i) for i in suspects[int(np.argmax(bad))]) if bad.any() else None


PARALLEL_CHECK_ROWS = 1 << 18  # from this many rows, the check's first pass runs on CHECK_THREADS threads
CHECK_THREADS = host_helpers()  # half the host's cores, 2 … 8
_CHECKER: list[ThreadPoolExecutor] = []


def _checker() -> ThreadPoolExecutor:
    if not _CHECKER:
        _CHECKER.append(ThreadPoolExecutor(CHECK_THREADS, thread_name_prefix="cuzk-check"))
    return _CHECKER[0]


def _reaches(top: np.ndarray, ceiling: np.uint64) -> bool:
    """Whether any of the top limbs is ≥ ``ceiling``: a pass over all the rows' memory, in CHECK_THREADS pieces at
    once (numpy lets go of the GIL while it reduces)."""
    step = -(-len(top) // CHECK_THREADS)
    pieces = [top[start : start + step] for start in range(0, len(top), step)]
    return any(_checker().map(lambda piece: bool(piece.max() >= ceiling), pieces))


def is_canonical(array: np.ndarray, modulus: int) -> bool:
    """Whether every element of ``array`` (shape (..., L)) is < ``modulus``."""
    return first_noncanonical(array, modulus) is None


# --- field elements ↔ limbs ---------------------------------------------------------------------------------------


def field_to_limbs(field: Any, values: Sequence[Any]) -> np.ndarray:
    """(n, L) limbs of elements of the prime field ``field`` (Fr or Fq); ints are read modulo p first."""
    p = field.MODULUS
    ints = []
    for v in values:
        if isinstance(v, int):
            ints.append(v % p)
        elif type(v) is field:
            ints.append(v.value)
        else:
            raise FieldMismatchError(f"expected an element of {field.NAME} or an int, got {v!r}")
    return ints_to_limbs(ints, limb_count(p))


def limbs_to_field(field: Any, array: np.ndarray) -> list[Any]:
    """Elements of ``field`` from (n, L) canonical limbs; raises NonCanonicalError on a value ≥ p."""
    bad = first_noncanonical(array, field.MODULUS)
    if bad is not None:
        raise NonCanonicalError(f"row {bad}: value ≥ the modulus of {field.NAME}")
    return [field(v) for v in limbs_to_ints(array)]


def fr_to_limbs(curve: Curve, scalars: Sequence[int | Any]) -> np.ndarray:
    """(n, 4) limbs of scalars of ``curve`` (elements of its Fr, or ints read modulo r)."""
    return field_to_limbs(curve.Fr, scalars)


def limbs_to_fr(curve: Curve, array: np.ndarray) -> list[Any]:
    """Elements of ``curve.Fr`` from (n, 4) canonical limbs."""
    return limbs_to_field(curve.Fr, array)


# --- points ↔ limbs -----------------------------------------------------------------------------------------------


def _coordinates(point: Point, group: str) -> list[int]:
    affine = point.to_affine()
    if affine is None:
        return [0, 0] if group == "g1" else [0, 0, 0, 0]
    x, y = affine
    if group == "g1":
        return [x.value, y.value]
    return [x.c0.value, x.c1.value, y.c0.value, y.c1.value]


def points_to_limbs(curve: Curve, group: str, points: Sequence[Point]) -> np.ndarray:
    """Affine limbs of ``points``: (n, 2, L) for G1, (n, 2, 2, L) for G2; the identity becomes all zeros."""
    grp = group_of(curve, group)
    ints: list[int] = []
    for p in points:
        if p.group is not grp:
            raise GroupMismatchError(f"expected points of {grp.name}, got a point of {p.group.name}")
        ints.extend(_coordinates(p, group))
    return ints_to_limbs(ints, fq_limbs(curve)).reshape(len(points), *point_shape(curve, group))


def point_to_limbs(curve: Curve, group: str, point: Point) -> np.ndarray:
    """One point as (2, L) (G1) or (2, 2, L) (G2) limbs: the form of an MSM result."""
    return points_to_limbs(curve, group, [point])[0]


def limbs_to_points(curve: Curve, group: str, array: np.ndarray, *, check: bool = False) -> list[Point]:
    """Points of ``group`` from affine limbs (all zeros = the identity).

    Coordinates must be canonical (NonCanonicalError otherwise). With ``check``, each point is also checked to lie
    on the curve (PointNotOnCurveError); subgroup membership is never checked here (it costs a scalar multiplication).
    """
    grp = group_of(curve, group)
    shape = point_shape(curve, group)
    rows = array.reshape(-1, *shape)
    bad = first_noncanonical(rows, curve.q)
    if bad is not None:
        raise NonCanonicalError(f"point {bad[0]}: a coordinate is ≥ q of {curve.name}")
    identity = np.all(rows.reshape(len(rows), int(np.prod(shape))) == 0, axis=1)
    ints = limbs_to_ints(rows)
    per_point = 2 if group == "g1" else 4
    points = []
    for i in range(len(rows)):
        if identity[i]:
            points.append(grp.identity())
            continue
        c = ints[i * per_point : (i + 1) * per_point]
        if group == "g1":
            x, y = curve.Fq(c[0]), curve.Fq(c[1])
        else:
            x, y = curve.Fq2(c[0], c[1]), curve.Fq2(c[2], c[3])
        p = grp.point_unchecked(x, y)
        if check and not p.is_on_curve():
            raise PointNotOnCurveError(f"point {i} is not on {grp.name}")
        points.append(p)
    return points


def limbs_to_point(curve: Curve, group: str, array: np.ndarray, *, check: bool = False) -> Point:
    """One point from (2, L) / (2, 2, L) limbs."""
    return limbs_to_points(curve, group, array.reshape(1, *point_shape(curve, group)), check=check)[0]


# --- validation at the backend boundary ---------------------------------------------------------------------------


def _element_label(index: tuple[int, ...], inner: tuple[int, ...]) -> str:
    """'x', 'y.c1', … for the element at ``index`` (without the row) of a point; '' for a scalar."""
    if not inner:
        return ""
    names = ("x", "y")
    if len(inner) == 1:
        return f" ({names[index[0]]})"
    return f" ({names[index[0]]}.c{index[1]})"


def check_limb_array(
    array: object,
    *,
    name: str,
    inner: tuple[int, ...],
    modulus: int,
    what: str,
    modulus_name: str,
    canonical: bool = True,
) -> np.ndarray:
    """Check ``array`` is uint64 of shape (n, *inner, L) with L = limbs of ``modulus`` and (unless ``canonical`` is
    false: the caller's kernels check it) every element < modulus.

    ``what`` says what one element is ("an Fr scalar of bn254"), ``modulus_name`` how to call the modulus ("r").
    """
    L = limb_count(modulus)
    expected = "(n, " + ", ".join(str(d) for d in (*inner, L)) + ")"
    if not isinstance(array, np.ndarray):
        raise InputTypeError(f"expected a numpy.ndarray of uint64 {expected}, got {type(array).__name__}", array=name)
    if array.dtype != np.uint64:
        raise InputTypeError(f"dtype {array.dtype}, expected uint64 (native little-endian 64-bit limbs)", array=name)
    if array.ndim != 2 + len(inner) or array.shape[1:-1] != inner:
        raise InputShapeError(f"shape {array.shape}, expected {expected} for {what}", array=name)
    if array.shape[-1] != L:
        raise LimbCountError(
            f"{array.shape[-1]} limbs per element, expected {L}: {what} is {modulus.bit_length()} bits",
            array=name,
        )
    bad = first_noncanonical(array, modulus) if canonical else None
    if bad is not None:
        value = limbs_to_int(array[bad])
        raise NonCanonicalInputError(
            f"{value:#x}{_element_label(bad[1:], inner)} is not canonical: ≥ {modulus_name} = {modulus:#x}; "
            "pass the canonical integer reduced mod the modulus (not Montgomery form)",
            array=name,
            row=bad[0],
        )
    return array


def check_scalars(curve: Curve, array: object, name: str = "scalars", *, canonical: bool = True) -> np.ndarray:
    what = f"an Fr element of {curve.name}"
    return check_limb_array(
        array, name=name, inner=(), modulus=curve.r, what=what, modulus_name="r", canonical=canonical
    )


def check_points(curve: Curve, group: str, array: object, name: str = "bases") -> np.ndarray:
    inner = point_shape(curve, group)[:-1]
    what = f"affine {group.upper()} points of {curve.name}"
    return check_limb_array(array, name=name, inner=inner, modulus=curve.q, what=what, modulus_name="q")


__all__ = [
    "FR_LIMBS",
    "GROUPS",
    "GroupName",
    "check_limb_array",
    "check_points",
    "check_scalars",
    "field_to_limbs",
    "first_noncanonical",
    "fq_limbs",
    "fr_to_limbs",
    "group_of",
    "int_to_limbs",
    "ints_to_limbs",
    "is_canonical",
    "limb_count",
    "limbs_to_field",
    "limbs_to_fr",
    "limbs_to_int",
    "limbs_to_ints",
    "limbs_to_point",
    "limbs_to_points",
    "noncanonical_mask",
    "nonzero_rows",
    "point_shape",
    "point_to_limbs",
    "points_to_limbs",
    "scatter_rows",
    "take_rows",
]
