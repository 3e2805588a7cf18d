"""cuzk backends: the protocol every backend implements, the registry that finds them, and the reference backend.

``get_backend()`` returns the backend to use (explicit name > ``CUZK_BACKEND`` > ``auto``); see
:mod:`cuzk.backends.protocol` for the data format and :mod:`cuzk.backends.registry` for discovery and selection.
Importing this package never imports a GPU library.
"""

from cuzk.backends.errors import (
    BackendError,
    BackendFallbackWarning,
    BackendInputError,
    BackendUnavailableError,
    CapabilityMissingError,
    InvalidDeviceError,
    UnknownBackendError,
)
from cuzk.backends.info_table import backend_table, format_backend_table
from cuzk.backends.protocol import Backend, BackendBase, PreparedBases, has_capability
from cuzk.backends.registry import (
    available_backends,
    device_index,
    get_backend,
    refresh,
    registered_backends,
)

__all__ = [
    "Backend",
    "BackendBase",
    "BackendError",
    "BackendFallbackWarning",
    "BackendInputError",
    "BackendUnavailableError",
    "CapabilityMissingError",
    "InvalidDeviceError",
    "PreparedBases",
    "UnknownBackendError",
    "available_backends",
    "backend_table",
    "device_index",
    "format_backend_table",
    "get_backend",
    "has_capability",
    "refresh",
    "registered_backends",
]
