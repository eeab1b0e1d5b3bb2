"""Devices the tests run on: TIERFFT_PY_DEVICES (comma-separated), by default the CPU and
Mesa's lavapipe, which scripts/test installs. A device that cannot be opened fails the tests
that use it rather than skipping them."""

import os

import numpy as np
import pytest

DEVICES = [d for d in os.environ.get("TIERFFT_PY_DEVICES", "cpu,lavapipe").split(",") if d]


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


@pytest.fixture
def rng(request):
    # Fresh data for each test, reproducible from its name.
    return np.random.default_rng(abs(hash(request.node.nodeid)) % 2**32)


def relative_error(got, want):
    """Relative L2 error of ``got`` against ``want``."""
    got = np.asarray(got, dtype=np.complex128)
    want = np.asarray(want, dtype=np.complex128)
    scale = np.linalg.norm(want.ravel())
    return np.linalg.norm((got - want).ravel()) / (scale if scale > 0 else 1.0)


def tolerance(dtype):
    """Relative L2 error allowed for results of ``dtype``'s precision."""
    return 1e-13 if np.dtype(dtype) in (np.complex128, np.float64) else 2e-6
