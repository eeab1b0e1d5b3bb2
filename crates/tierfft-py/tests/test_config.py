"""tierfft.config: the functions' plan cache per device, bounded by plans and by bytes of
device memory, read and set like CuPy's PlanCache."""

import numpy as np
import pytest

import tierfft


@pytest.fixture
def cache(device):
    cache = tierfft.config.get_plan_cache(device)
    size, memsize = cache.size, cache.memsize
    cache.clear()
    yield cache
    cache.clear()
    cache.set_size(size)
    cache.set_memsize(memsize)


def test_memory_stays_within_the_budget_over_many_lengths(cache, device):
    cache.set_memsize(1 << 20)
    # Every length a plan of its own; lavapipe compiles each, so fewer there.
    lengths = range(1, 1001) if device == "cpu" else range(200, 240)
    for n in lengths:
        x = np.ones((4, n), np.complex64)
        assert abs(tierfft.fft(x, device=device)[0, 0] - n) < 1e-4 * n
        assert cache.get_curr_memsize() <= cache.memsize, n
        assert cache.get_curr_size() <= cache.size
    assert cache.get_curr_size() >= 1
    # The DCT and DST are kept in the same cache.
    tierfft.dct(np.ones((16, 300), np.float32), device=device)
    assert cache.get_curr_memsize() <= cache.memsize


def test_size_and_a_plan_larger_than_the_budget(cache, device):
    for n in (8, 9, 10):
        tierfft.fft(np.ones(n, np.complex64), device=device)
    assert cache.get_curr_size() == 3 and cache.get_curr_memsize() > 0
    cache.set_size(1)
    assert cache.get_curr_size() == 1
    cache.set_size(4)
    # A plan holding more than memsize is dropped after its call; its result stands.
    cache.set_memsize(1000)
    y = tierfft.fft(np.ones((64, 1024), np.complex64), device=device)
    assert abs(y[0, 0] - 1024) < 1e-3 and cache.get_curr_memsize() <= 1000
    cache.set_memsize(-1)
    tierfft.fft(np.ones((64, 1024), np.complex64), device=device)
    assert cache.get_curr_memsize() >= 64 * 1024 * 8
    assert "plans: 1 of at most 4" in _shown(cache)


def test_the_least_recently_used_plans_go_first(cache, device):
    arrays = {n: np.ones(n, np.complex64) for n in (8, 9, 10)}
    plans = {n: tierfft._plan.cached_plan("fft", (n,), np.dtype(np.complex64), device,
                                         n=None, axis=-1, norm=None) for n in arrays}
    for n in (8, 9, 10, 8):  # 9 is now the least recently used, then 10
        tierfft.fft(arrays[n], device=device)
    cache.set_size(2)
    kept = lambda n: tierfft.config.kept(("fft", (n,), np.dtype(np.complex64), device, None, -1, None))
    assert kept(9) is None and kept(10) is plans[10] and kept(8) is plans[8]
    tierfft.fft(arrays[10], device=device)
    cache.set_size(1)  # 8 was looked up last above, 10 called after it
    assert kept(8) is None and kept(10) is plans[10]


def test_a_native_transform_counts_what_it_holds(device):
    t = tierfft.Transform(tierfft.open_device(device), [8, 4096], [1], "c2c")
    before = t.held_bytes
    x = np.ones((8, 4096), np.complex64)
    t.execute(x, np.empty_like(x))
    # The device copies of the host arrays, at least.
    assert t.held_bytes >= before + x.nbytes


def test_work_arrays_are_the_devices_and_clear_frees_them(cache, device):
    dev = tierfft.open_device(device)
    x = np.ones((32, 48), np.complex64)
    tierfft.fft2(x, device=device)
    tierfft.dctn(np.ones((20, 24), np.float32), device=device)
    shared = dev.workspace_bytes
    if device == "cpu":
        assert shared == 0  # each CPU transform keeps its own
    else:
        # One set for both plans: the 2-D transform's second array is the largest.
        assert x.nbytes <= shared < 2 * x.nbytes
    assert f"shared by the device's plans: {shared} bytes" in _shown(cache)
    cache.clear()
    assert dev.workspace_bytes == 0
    np.testing.assert_allclose(tierfft.fft2(x, device=device)[0, 0], 32 * 48)


def test_bad_limits_are_refused():
    cache = tierfft.config.get_plan_cache("cpu")
    with pytest.raises(ValueError, match="size must be 0 or more"):
        cache.set_size(-1)
    with pytest.raises(ValueError, match="-1 for no limit"):
        cache.set_memsize(-2)
    with pytest.raises(TypeError):
        cache.set_size(1.5)


def _shown(cache) -> str:
    import contextlib
    import io

    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        cache.show_info()
    return text.getvalue()
