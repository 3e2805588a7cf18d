"""The GPU backends' bases kept on the device (PREPARED_BASES, STORED_BASES, and FIXED_BASE's points, made where
they stay): a mixin of :class:`~cuzk.backends.gpu.backend.DeviceBackend`.

Every set of resident bases counts in the memory the calls plan around (``_resident``) until it is released, when
its handle is collected.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from cuzk.backends.capabilities import PreparedBases
from cuzk.backends.errors import BackendInputError
from cuzk.backends.gpu import bases as device_bases
from cuzk.backends.gpu import fixed_base
from cuzk.backends.gpu.context import DeviceContext, Finish, ready
from cuzk.backends.gpu.plan import Memory
from cuzk.reference.curves import Curve

T = TypeVar("T")


class BasesWork:
    """The bases' hooks of BackendBase on a device."""

    if TYPE_CHECKING:
        context: DeviceContext
        shifted_bases: bool | None
        max_chunk: int | None
        _fixed_base_tables: dict[tuple[str, str], Any]
        _resident: int

        def _call(self, queue: Callable[[DeviceContext], Finish[T]]) -> T: ...
        def _memory(self) -> Memory: ...

    def _generator_multiples(self, curve: Curve, group: str, scalars: np.ndarray) -> np.ndarray:
        return self._call(
            lambda ctx: ready(
                fixed_base.generator_multiples(ctx, curve, group, scalars, self._memory(), self._fixed_base_tables)
            )
        )

    def _prepare_bases(self, curve: Curve, group: str, bases: np.ndarray) -> device_bases.ResidentBases:
        return self._prepare_bases_for(curve, group, bases, None)

    def _prepare_bases_for(
        self, curve: Curve, group: str, bases: np.ndarray, uses: int | None
    ) -> device_bases.ResidentBases:
        resident, _ = self._upload_bases(curve, group, bases, stored=False, check=False, uses=uses)
        assert resident is not None
        return resident

    def _prepare_stored_bases(
        self, curve: Curve, group: str, stored: np.ndarray, check: bool, uses: int | None
    ) -> tuple[device_bases.ResidentBases | None, int]:
        """A .zkey's words as they are (the device's Montgomery form is snarkjs's), checked on the device: nothing
        decoded on the host."""
        return self._upload_bases(curve, group, stored, stored=True, check=check, uses=uses)

    def _upload_bases(
        self, curve: Curve, group: str, bases: np.ndarray, *, stored: bool, check: bool, uses: int | None
    ) -> tuple[device_bases.ResidentBases | None, int]:
        """The bases resident (:meth:`_kept`), or (None, the first bad point) when ``check`` finds one. Shifted
        copies (``shifted_bases``) only for bases that serve at least SHIFTED_MIN_USES MSMs: for fewer they cost
        more than they save."""

        def make(ctx: DeviceContext, memory: Memory) -> device_bases.ResidentBases:
            shifted = self._shifted(ctx, uses)
            return device_bases.prepare(ctx, curve, group, bases, memory, self.max_chunk, shifted, stored)

        return self._kept(
            make, lambda ctx, resident: device_bases.queue_check(ctx, curve, group, resident) if check else ready(-1)
        )

    def _generator_bases(
        self, curve: Curve, group: str, scalars: np.ndarray, uses: int | None
    ) -> device_bases.ResidentBases:
        def make(ctx: DeviceContext, memory: Memory) -> device_bases.ResidentBases:
            shifted = self._shifted(ctx, uses)
            tables = self._fixed_base_tables
            return fixed_base.generator_bases(ctx, curve, group, scalars, memory, tables, self.max_chunk, shifted)

        resident, _ = self._kept(make, lambda ctx, resident: ready(-1))
        assert resident is not None
        return resident

    def _shifted(self, ctx: DeviceContext, uses: int | None) -> bool:
        """Whether bases serving ``uses`` MSMs (None: many) get shifted copies (``shifted_bases``, by default on a
        GPU): only from SHIFTED_MIN_USES MSMs, for fewer they cost more than they save."""
        shifted = ctx.info.kind == "gpu" if self.shifted_bases is None else self.shifted_bases
        return shifted and (uses is None or uses >= device_bases.SHIFTED_MIN_USES)

    def _kept(
        self,
        make: Callable[[DeviceContext, Memory], device_bases.ResidentBases],
        check: Callable[[DeviceContext, device_bases.ResidentBases], Finish[int]],
    ) -> tuple[device_bases.ResidentBases | None, int]:
        """Bases made on the device by ``make`` and kept there, counted in the memory the calls plan around until
        released; (None, the first bad point) when ``check`` finds one."""

        def queue(ctx: DeviceContext) -> Finish[tuple[device_bases.ResidentBases | None, int]]:
            resident = make(ctx, self._memory())
            found = check(ctx, resident)
            self._resident += resident.nbytes

            def finish() -> tuple[device_bases.ResidentBases | None, int]:
                bad = found()
                if bad >= 0:
                    self._release(resident.nbytes)
                    return None, bad
                return resident, -1

            return finish

        resident, bad = self._call(queue)
        if resident is not None:
            weakref.finalize(resident, self._release, resident.nbytes)
        return resident, bad

    def _release(self, nbytes: int) -> None:
        self._resident -= nbytes

    def _resident_bases(self, handle: PreparedBases, name: str = "handle") -> device_bases.ResidentBases:
        if handle.payload.context is not self.context:
            raise BackendInputError(
                f"prepared by another {type(self).__name__} (its buffers live in another device context); prepare "
                "the bases with the backend that runs the MSM",
                array=name,
            )
        return handle.payload
