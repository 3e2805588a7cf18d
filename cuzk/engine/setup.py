"""Groth16 setups on a backend: ``cuzk prove``'s one-party setup and ``cuzk groth16 setup``'s .zkey.

Both are the reference's setup, :func:`~cuzk.reference.groth16.generator.generate_parameters_from_matrices`: its
scalars (u_j(τ), v_j(τ), the IC, L and H scalars) on integers mod r, its points asked of a
backend's fixed-base kernel through the protocol (capability FIXED_BASE, ``generator_multiples``). A backend
without FIXED_BASE leaves the points to the reference backend, whose FIXED_BASE is the reference's pure-Python
tables. The big queries stay the limb arrays the backend returned (:class:`~cuzk.formats.points.PointTable`): no
reference point objects are made for the ~5 points per variable. The key is the reference's, point for point
(tests/engine/test_setup.py).

A .zkey is the same key over snarkjs's numbering of the domain (ffjavascript's root of unity,
:mod:`cuzk.formats.domain`) with the circom reduction, one row per public signal and the constant, and the
coefficients ·R² of :func:`~cuzk.formats.zkey_write.coefficients_of`: the key ``snarkjs groth16 setup`` makes,
except that one party draws all the secrets and forgets them — for development and tests, never for production.
"""

from __future__ import annotations

from typing import Any, cast

from cuzk.backends import limbs
from cuzk.backends.protocol import FIXED_BASE, Backend, SupportsFixedBase, has_capability
from cuzk.backends.registry import get_backend, resolve_backend
from cuzk.engine.decoding import stored_form_host
from cuzk.formats.domain import snarkjs_root_exponent
from cuzk.formats.points import PointTable
from cuzk.formats.r1cs import R1cs
from cuzk.formats.zkey import ZKey, curve_of_scalar_prime
from cuzk.formats.zkey_write import coefficients_of
from cuzk.reference.curves import Curve
from cuzk.reference.groth16 import ProvingKey, ToxicWaste, random_toxic_waste
from cuzk.reference.groth16.generator import Multiples, generate_parameters_from_matrices
from cuzk.reference.qap import Reduction, check_domain, domain_size


def fixed_base_backend(backend: Backend) -> Backend:
    """``backend`` when it declares FIXED_BASE, else the reference backend (which always does)."""
    return backend if has_capability(backend, FIXED_BASE) else get_backend("reference")


def backend_multiples(curve: Curve, backend: Backend) -> Multiples:
    """The setup's ``multiples(group, scalars)`` by ``backend.generator_multiples`` (which must declare FIXED_BASE):
    the scalars go as canonical limbs, the points come back as a :class:`PointTable` of the returned limbs."""
    fixed_base = cast(SupportsFixedBase, backend)

    def multiples(group: str, scalars: list[Any]) -> PointTable:
        return PointTable(
            curve, group, fixed_base.generator_multiples(curve, group, limbs.ints_to_limbs(scalars, limbs.FR_LIMBS))
        )

    return multiples  # type: ignore[return-value]  # a PointTable reads as the list of its points


def setup_with_toxic_waste(
    cs: Any, curve: Curve, toxic: ToxicWaste, backend: Backend, *, reduction: Reduction = Reduction.LIBSNARK
) -> ProvingKey:
    """:func:`~cuzk.reference.groth16.generate_parameters_with_toxic_waste` with the points by ``backend`` (or the
    reference backend, when it lacks FIXED_BASE). INSECURE outside tests and benchmarks: the secrets are given."""
    return generate_parameters_from_matrices(
        curve,
        cs.matrices(),
        cs.num_inputs,
        cs.num_inputs + cs.num_aux,
        toxic,
        multiples=backend_multiples(curve, fixed_base_backend(backend)),
        reduction=reduction,
    )


def one_party_setup(cs: Any, curve: Curve, backend: Backend, *, reduction: Reduction) -> tuple[ProvingKey, str]:
    """A setup with fresh secrets, forgotten on return, with the points by ``backend``'s fixed-base kernel (or the
    reference backend's). Returns the key and how it was made ("cpu fixed-base")."""
    fixed = fixed_base_backend(backend)
    toxic = random_toxic_waste(curve.Fr, domain_size(len(cs.constraints), cs.num_inputs))
    return setup_with_toxic_waste(cs, curve, toxic, fixed, reduction=reduction), f"{fixed.name} fixed-base"


def snarkjs_root_of_unity(field: Any) -> Any:
    """ffjavascript's primitive 2^S-th root of unity, which numbers a .zkey's domain: the field's to the power k of
    :func:`~cuzk.formats.domain.snarkjs_root_exponent` (k = 1 on BN254)."""
    return field.ROOT_OF_UNITY ** snarkjs_root_exponent(field)


def setup_zkey(
    r1cs: R1cs, toxic: ToxicWaste | None = None, *, backend: Backend | str | None = None, path: str = ""
) -> ZKey:
    """The proving key of ``r1cs`` as ``snarkjs groth16 setup`` lays it out, secrets from ``toxic`` (or drawn and
    forgotten), points by ``backend`` (an object, a name, or None for $CUZK_BACKEND/auto), ready for
    :func:`~cuzk.formats.zkey_write.write_zkey`.

    As snarkjs's zkey_new.js: row k < m is constraint k, row m + s is public signal s (s = 0 the constant) with
    A = 1; u_j(τ) = Σ_k A_kj·L_k(τ) over snarkjs's domain order, likewise v_j, w_j; H at the odd 2n-th roots
    (the circom reduction), in snarkjs's order too.
    """
    curve = curve_of_scalar_prime(r1cs.prime, r1cs.path)
    fr, m, num_inputs = curve.Fr, r1cs.num_constraints, r1cs.num_public + 1
    n = domain_size(m, num_inputs)
    check_domain(fr, n, Reduction.CIRCOM)
    chosen = resolve_backend(backend)
    host = stored_form_host(chosen, n)  # the coefficients' stored form
    matrices = (r1cs.a.matrix(int, m), r1cs.b.matrix(int, m), r1cs.c.matrix(int, m))  # coefficients as ints
    pk = generate_parameters_from_matrices(
        curve,
        matrices,
        num_inputs,
        r1cs.num_wires,
        toxic if toxic is not None else random_toxic_waste(fr, n),
        multiples=backend_multiples(curve, fixed_base_backend(chosen)),
        reduction=Reduction.CIRCOM,
        root_of_unity=snarkjs_root_of_unity(fr),
    )
    vk = pk.vk
    return ZKey(
        path=path,
        curve=curve,
        num_variables=r1cs.num_wires,
        num_public=r1cs.num_public,
        domain_size=n,
        alpha_g1=vk.alpha_g1,
        beta_g1=pk.beta_g1,
        beta_g2=vk.beta_g2,
        gamma_g2=vk.gamma_g2,
        delta_g1=pk.delta_g1,
        delta_g2=vk.delta_g2,
        ic=list(vk.gamma_abc_g1),
        coefficients=coefficients_of(r1cs, host),
        a_query=pk.a_query,  # type: ignore[arg-type]
        b_g1_query=pk.b_g1_query,  # type: ignore[arg-type]
        b_g2_query=pk.b_g2_query,  # type: ignore[arg-type]
        l_query=pk.l_query,  # type: ignore[arg-type]
        h_query=pk.h_query,  # type: ignore[arg-type]
    )


__all__ = [
    "backend_multiples",
    "fixed_base_backend",
    "one_party_setup",
    "setup_with_toxic_waste",
    "setup_zkey",
    "snarkjs_root_of_unity",
]
