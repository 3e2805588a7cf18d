"""``cuzk zkey verify circuit.r1cs pot.ptau circuit.zkey``: the checks of ``snarkjs zkey verify``
(src/zkey_verify_fromr1cs.js, src/zkey_verify_frominit.js), in its order.

1. The chain of contributions (section 10), each against the one before: its transcript is blake2b-512 of the
   chain so far and its [s]₁, [s·x]₁; its proof of knowledge holds, e([s]₁, [s·x]₂) = e([s·x]₁, [s]₂) with
   [s]₂ = hashToG2(transcript); its deltaAfter follows, e([δ_before]₁, [s·x]₂) = e([δ_after]₁, [s]₂); a beacon's
   [s]₁ and [s·x]₁ are the ones its public value gives.
2. The key's initial part is what ``groth16 setup`` makes from the r1cs and the ptau
   (:func:`~cuzk.engine.setup_ptau.setup_from_ptau`): the same curve and sizes, [α]₁, [β]₁, [β]₂, [γ]₂, circuit
   hash, IC, coefficients, A, B1, B2; [δ]₁ is the last deltaAfter and e([1]₁, [δ]₂) = e([δ]₁, [1]₂).
3. L and H are the initial ones times 1/δ: for random ρ_j, R = Σ ρ_j·L_j of the initial key and R' of this one
   satisfy e(R, [δ]₂) = e(R', [1]₂) (one pairing check per section instead of one per point; a wrong point escapes
   with probability 2^−64). snarkjs checks H against the ptau's powers; the initial H made here is the same thing.

A failure raises :class:`ZKeyMismatchError` naming the step; a bad file, the formats' errors.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import Backend
from cuzk.backends.registry import resolve_backend
from cuzk.engine.decoding import montgomery_host
from cuzk.engine.mpc import chain_hasher, contribution_hash, draw_secret, hash_pub_key, transcript_of
from cuzk.engine.mpc_rng import hash_to_g2, rng_from_beacon
from cuzk.engine.setup_ptau import setup_from_ptau
from cuzk.engine.verify import pairing_backend
from cuzk.formats.binfile import BinFile
from cuzk.formats.points import PointTable
from cuzk.formats.ptau import read_ptau
from cuzk.formats.r1cs import read_r1cs
from cuzk.formats.zkey import MAGIC, SECTIONS, ZKey, read_zkey
from cuzk.formats.zkey_mpc import BEACON, CONTRIBUTION, Contribution, MpcParams, read_mpc_params
from cuzk.reference.curves import Curve, Point
from cuzk.reference.errors import CuzkError

PathLike = str | os.PathLike[str]
COMBINATION_BITS = 64


class ZKeyMismatchError(CuzkError, ValueError):
    """A .zkey that ``zkey verify`` rejects: ``step`` names the check that failed (``contribution 2: proof of
    knowledge fails``, ``section L does not match δ``, …)."""

    def __init__(self, path: PathLike, step: str) -> None:
        self.path, self.step = os.fspath(path), step
        super().__init__(f"{self.path}: INVALID: {step}")


@dataclass(frozen=True)
class VerifiedContribution:
    index: int
    name: str | None
    hash: bytes
    record: Contribution


@dataclass(frozen=True)
class ZKeyVerified:
    """A key that passed: its curve, circuit hash, contributions (first first) and the seconds taken."""

    curve: str
    cs_hash: bytes
    contributions: tuple[VerifiedContribution, ...]
    seconds: float


def verify_zkey(
    r1cs_path: PathLike,
    ptau_path: PathLike,
    zkey_path: PathLike,
    *,
    backend: Backend | str | None = None,
    log: Callable[[str], None] | None = None,
) -> ZKeyVerified:
    """Every check of ``snarkjs zkey verify``; ZKeyMismatchError at the first that fails."""
    started = time.perf_counter()
    chosen = resolve_backend(backend)
    key = read_zkey(zkey_path, host=montgomery_host(chosen))
    mpc = read_mpc_params(BinFile(zkey_path, MAGIC, (1, 2), SECTIONS), key.curve)
    pairing = pairing_backend(chosen, key.curve)

    def same_ratio(a1: Point, b1: Point, a2: Point, b2: Point) -> bool:
        """e(a1, b2) = e(b1, a2): b1/a1 and b2/a2 are the same multiple (snarkjs's ``sameRatio``)."""
        if any(p.is_identity() for p in (a1, b1, a2, b2)):
            return False
        g1 = limbs.points_to_limbs(key.curve, "g1", [a1, -b1])
        g2 = limbs.points_to_limbs(key.curve, "g2", [b2, a2])
        return bool(pairing.pairing_check(key.curve, g1, g2))  # type: ignore[attr-defined]

    def fail(step: str) -> ZKeyMismatchError:
        return ZKeyMismatchError(zkey_path, step)

    last_delta = check_chain(key.curve, mpc, same_ratio, fail)
    if log is not None:
        log(f"contributions: {len(mpc.contributions)} checked")
    initial, cs_hash = setup_from_ptau(read_r1cs(r1cs_path), read_ptau(ptau_path), backend=chosen)
    check_initial(key, initial, fail)
    if key.delta_g1 != last_delta:
        raise fail("[δ]₁ is not the last contribution's deltaAfter")
    if not same_ratio(key.curve.g1.generator, key.delta_g1, key.curve.g2.generator, key.delta_g2):
        raise fail("[δ]₂ does not match [δ]₁")
    if mpc.cs_hash != cs_hash:
        raise fail("the circuit hash does not match the circuit and the ptau")
    if log is not None:
        log("initial sections: identical to groth16 setup's")
    for label, before, after in (("L", initial.l_query, key.l_query), ("H", initial.h_query, key.h_query)):
        r_before, r_after = random_combinations(chosen, key.curve, before, after)
        if (r_before.is_identity() and r_after.is_identity()) or same_ratio(
            r_before, r_after, key.delta_g2, initial.delta_g2
        ):
            continue
        raise fail(f"section {label} does not match δ (it is not the initial {label} times 1/δ)")
    verified = tuple(
        VerifiedContribution(i + 1, c.name, contribution_hash(key.curve, c), c) for i, c in enumerate(mpc.contributions)
    )
    return ZKeyVerified(key.curve.name, mpc.cs_hash, verified, time.perf_counter() - started)


def check_chain(
    curve: Curve,
    mpc: MpcParams,
    same_ratio: Callable[[Point, Point, Point, Point], bool],
    fail: Callable[[str], Exception],
) -> Point:
    """Each contribution's transcript, proof of knowledge, deltaAfter and (a beacon) secret; the last [δ]₁."""
    chain = chain_hasher(curve, mpc.cs_hash, ())
    delta = curve.g1.generator
    for i, c in enumerate(mpc.contributions, start=1):
        if c.type not in (CONTRIBUTION, BEACON):
            raise fail(f"contribution {i}: unknown type {c.type}")
        if transcript_of(chain, curve, c.g1_s, c.g1_sx) != c.transcript:
            raise fail(f"contribution {i}: inconsistent transcript")
        g2_sp = hash_to_g2(curve, c.transcript)
        if not same_ratio(c.g1_s, c.g1_sx, g2_sp, c.g2_spx):
            raise fail(f"contribution {i}: proof of knowledge fails ([s]₁, [s·x]₁ and [s·x]₂ disagree)")
        if not same_ratio(delta, c.delta_after, g2_sp, c.g2_spx):
            raise fail(f"contribution {i}: deltaAfter does not follow the proof of knowledge")
        if c.type == BEACON:
            check_beacon_record(curve, c, i, fail)
        hash_pub_key(chain, curve, c)
        delta = c.delta_after
    return delta


def check_beacon_record(curve: Curve, c: Contribution, index: int, fail: Callable[[str], Exception]) -> None:
    """A beacon's [s]₁ and [s·x]₁ are those its public value and iterations give."""
    if c.beacon_hash is None or c.num_iterations_exp is None:
        raise fail(f"contribution {index}: a beacon without its beacon hash or numIterationsExp")
    x, g1_s = draw_secret(curve, rng_from_beacon(c.beacon_hash, c.num_iterations_exp))
    if g1_s != c.g1_s or g1_s * x != c.g1_sx:
        raise fail(f"contribution {index}: the beacon's key does not match its beacon hash")


def check_initial(key: ZKey, initial: ZKey, fail: Callable[[str], Exception]) -> None:
    """The parts a contribution leaves alone equal what the setup makes."""
    if key.curve is not initial.curve:
        raise fail(f"different curves: the key is for {key.curve.name}, the circuit for {initial.curve.name}")
    sizes = ("num_variables", "num_public", "domain_size")
    if any(getattr(key, s) != getattr(initial, s) for s in sizes):
        raise fail("different circuit parameters (nVars, nPublic or domainSize)")
    for name, label in (("alpha_g1", "[α]₁"), ("beta_g1", "[β]₁"), ("beta_g2", "[β]₂"), ("gamma_g2", "[γ]₂")):
        if getattr(key, name) != getattr(initial, name):
            raise fail(f"{label} is not the ptau's")
    if list(key.ic) != list(initial.ic):
        raise fail("section IC is not identical")
    ours, theirs = key.coefficients, initial.coefficients
    fields = ("matrix", "constraint", "signal", "stored")
    if len(ours) != len(theirs) or not all(np.array_equal(getattr(ours, f), getattr(theirs, f)) for f in fields):
        raise fail("section coefficients is not identical")
    for label, name in (("A", "a_query"), ("B1", "b_g1_query"), ("B2", "b_g2_query")):
        if not np.array_equal(getattr(key, name).limbs, getattr(initial, name).limbs):
            raise fail(f"section {label} is not identical")


def random_combinations(backend: Backend, curve: Curve, before: PointTable, after: PointTable) -> tuple[Point, Point]:
    """Σ ρ_j·before_j and Σ ρ_j·after_j for the same random 64-bit ρ_j, as MSMs on the backend."""
    n = len(before)
    if n == 0:
        return curve.g1.identity(), curve.g1.identity()
    rho = limbs.ints_to_limbs([secrets.randbits(COMBINATION_BITS) for _ in range(n)], limbs.FR_LIMBS)
    return tuple(limbs.limbs_to_point(curve, "g1", backend.msm(curve, "g1", t.limbs, rho)) for t in (before, after))  # type: ignore[return-value]


__all__ = ["VerifiedContribution", "ZKeyMismatchError", "ZKeyVerified", "check_chain", "verify_zkey"]
