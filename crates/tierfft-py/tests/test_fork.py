"""Forked children (multiprocessing's default start method on Linux before Python 3.14):
the functions work in a child of a process that used the same device (they once waited
forever there, on the GPU driver's or the CPU pool's threads left in the parent), a plan
the parent made refuses work in the child where its device is a GPU, and a child of a
process that used CUDA transforms ``auto`` on the CPU and refuses ``cuda`` by name."""

import multiprocessing
import os

import numpy as np
import pytest

import tierfft
from tierfft import _plan

pytestmark = pytest.mark.skipif(not hasattr(os, "register_at_fork"), reason="no fork here")

# Large enough that the CPU's transform runs on its thread pool.
SHAPE = (64, 4096)


def _transform(args):
    x, device = args
    try:
        return tierfft.fft(x, device=device)
    except RuntimeError as e:
        return str(e)


def _call_plan(x):
    try:
        return _held_plan(x)
    except RuntimeError as e:
        return str(e)


_held_plan = None


def test_the_functions_work_in_forked_children(device, rng):
    x = (rng.standard_normal(SHAPE) + 1j * rng.standard_normal(SHAPE)).astype(np.complex64)
    want = tierfft.fft(x, device=device)  # the parent opens the device and its threads
    cuda = tierfft.open_device(device).backend == "cuda"
    with multiprocessing.get_context("fork").Pool(2) as pool:
        got = pool.map_async(_transform, [(x, device)] * 2 + [(x, "auto")] * 2).get(timeout=120)
    for g in got[:2]:
        if cuda:
            assert isinstance(g, str) and "spawn" in g, g  # CUDA's rule, said
        else:
            np.testing.assert_array_equal(g, want)
    for g in got[2:]:  # auto: the CPU after CUDA, else the parent's choice afresh
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_a_plan_from_the_parent_is_refused_on_a_gpu(device, rng):
    global _held_plan
    x = rng.standard_normal(SHAPE).astype(np.complex64)
    _held_plan = tierfft.Plan("fft", x.shape, x.dtype, device=device)
    want = _held_plan(x)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        got = pool.map_async(_call_plan, [x]).get(timeout=120)[0]
    if _held_plan.device.backend == "cpu":
        np.testing.assert_array_equal(got, want)  # the CPU's pools are made again
    else:
        assert isinstance(got, str) and "forked" in got and "again" in got, got


def test_after_cuda_in_the_parent_auto_is_the_cpu(monkeypatch):
    # What a child of a process that opened a CUDA device sees (set here without CUDA).
    monkeypatch.setattr(_plan, "_cuda_in_parent", True)
    assert tierfft.open_device("auto").backend == "cpu"
    with pytest.raises(RuntimeError, match="spawn"):
        tierfft.open_device("cuda:0")
