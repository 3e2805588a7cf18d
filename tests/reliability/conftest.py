"""The ``setting`` fixture: one Groth16 setting per curve (see _setting.py), made once per session."""

from __future__ import annotations

import pytest

from cuzk.reference.curves import BLS12_381, BN254

from ._setting import Setting, make_setting


@pytest.fixture(scope="session", params=[BN254, BLS12_381], ids=lambda c: c.name)
def setting(request: pytest.FixtureRequest) -> Setting:
    return make_setting(request.param)
