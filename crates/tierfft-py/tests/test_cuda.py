"""CuPy and PyTorch CUDA arrays on the CUDA backend: transformed where they lie (the
result is the very memory handed in as ``out``: same device pointer), agreeing with
cupy.fft and torch.fft. Skipped where there is no CUDA GPU or neither library."""

import warnings

import numpy as np
import pytest

import tierfft
from conftest import relative_error


def _cuda_device():
    try:
        return tierfft.open_device("cuda")
    except tierfft.DeviceError:
        return None


pytestmark = pytest.mark.skipif(_cuda_device() is None, reason="no CUDA GPU")


@pytest.fixture
def cupy():
    return pytest.importorskip("cupy")


@pytest.fixture
def torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    return torch


def test_cupy_in_and_out_without_copies(cupy, rng):
    x = cupy.asarray((rng.standard_normal((64, 1000)) + 1j * rng.standard_normal((64, 1000))).astype(np.complex64))
    want = cupy.fft.fft(x)
    y = tierfft.fft(x)
    assert isinstance(y, cupy.ndarray) and y.dtype == cupy.complex64
    assert relative_error(cupy.asnumpy(y), cupy.asnumpy(want)) < 2e-6
    out = cupy.full_like(x, cupy.nan)
    got = tierfft.fft(x, out=out)
    assert got.data.ptr == out.data.ptr  # written where it lies
    assert relative_error(cupy.asnumpy(out), cupy.asnumpy(want)) < 2e-6
    # In place through a plan: the input's own memory holds the result.
    plan = tierfft.Plan("fft", x.shape, np.complex64, device="cuda")
    before = x.data.ptr
    assert plan(x, out=x).data.ptr == before
    assert relative_error(cupy.asnumpy(x), cupy.asnumpy(want)) < 2e-6


def test_cupy_real_and_2d(cupy, rng):
    r = cupy.asarray(rng.standard_normal((256, 512)).astype(np.float32))
    keep = r.copy()
    spectrum = tierfft.rfft2(r)
    assert relative_error(cupy.asnumpy(spectrum), cupy.asnumpy(cupy.fft.rfft2(r))) < 2e-6
    assert bool((r == keep).all())  # the input is left as it was
    back = tierfft.irfft2(spectrum, s=r.shape)
    assert relative_error(cupy.asnumpy(back), cupy.asnumpy(r)) < 2e-6
    odd = cupy.asarray(rng.standard_normal((8, 1009)).astype(np.complex64))
    assert relative_error(cupy.asnumpy(tierfft.ifft(odd, norm="ortho")), cupy.asnumpy(cupy.fft.ifft(odd, norm="ortho"))) < 2e-6


def test_torch_in_and_out_without_copies(torch, rng):
    x = torch.randn(32, 4096, dtype=torch.complex64, device="cuda")
    want = torch.fft.fft(x)
    out = torch.empty_like(x)
    got = tierfft.fft(x, out=out)
    assert isinstance(got, torch.Tensor) and got.data_ptr() == out.data_ptr()
    assert relative_error(out.cpu().numpy(), want.cpu().numpy()) < 2e-6
    r = torch.randn(16, 1000, device="cuda")
    assert relative_error(tierfft.rfft(r).cpu().numpy(), torch.fft.rfft(r).cpu().numpy()) < 2e-6


@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_double_precision_cupy_arrays_in_f64(cupy, rng, norm):
    x = rng.standard_normal((8, 300)) + 1j * rng.standard_normal((8, 300))
    xg = cupy.asarray(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tierfft.PrecisionWarning)
        got = tierfft.fft(xg, norm=norm)
        assert isinstance(got, cupy.ndarray) and got.dtype == cupy.complex128
        assert relative_error(cupy.asnumpy(got), np.fft.fft(x, norm=norm)) < 1e-14
        out = cupy.empty_like(xg)
        assert tierfft.ifft(xg, out=out, norm=norm) is out
        assert relative_error(cupy.asnumpy(out), np.fft.ifft(x, norm=norm)) < 1e-14
        r = x.real.reshape(4, 20, 30)
        got = tierfft.rfftn(cupy.asarray(r), norm=norm)
        assert got.dtype == cupy.complex128
        assert relative_error(cupy.asnumpy(got), np.fft.rfftn(r, norm=norm)) < 1e-14
        back = tierfft.irfftn(got, s=r.shape, axes=(0, 1, 2), norm=norm)
        assert back.dtype == cupy.float64
        assert relative_error(cupy.asnumpy(back), r) < 1e-14
    assert np.array_equal(cupy.asnumpy(xg), x)


def test_double_precision_torch_arrays_in_f64(torch, rng):
    x = rng.standard_normal((16, 250))
    got = tierfft.rfft(torch.from_numpy(x).cuda(), norm="ortho")
    assert got.dtype == torch.complex128 and got.is_cuda
    assert relative_error(got.cpu().numpy(), np.fft.rfft(x, norm="ortho")) < 1e-14


def test_wrong_device_is_an_error(cupy):
    x = cupy.zeros(16, cupy.complex64)
    with pytest.raises(ValueError, match="CUDA array was given to a plan on"):
        tierfft.fft(x, device="cpu")
    with pytest.raises(ValueError, match="C-contiguous|shape"):
        plan = tierfft.Plan("fft", (16,), np.complex64, device="cuda")
        plan(x, out=cupy.zeros(32, cupy.complex64)[::2])


def test_calls_order_the_callers_stream(cupy, torch, rng):
    """The call returns without waiting: the caller's current stream (here non-blocking ones
    of CuPy and PyTorch, which the default stream does not order) is made to wait for the
    transform, so work queued on it next sees the result."""
    n = 1 << 20
    host = (rng.standard_normal((16, n)) + 1j * rng.standard_normal((16, n))).astype(np.complex64)
    want = np.fft.fft(host)
    for _ in range(3):
        with cupy.cuda.Stream(non_blocking=True) as s:
            x = cupy.asarray(host)
            y = tierfft.fft(x)
            got = cupy.asnumpy(y * 1)  # queued on the stream right after the call
            s.synchronize()
        assert relative_error(got, want) < 2e-6
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            t = torch.from_numpy(host).cuda()
            u = tierfft.fft(t) * 1
            got = u.cpu().numpy()
        assert relative_error(got, want) < 2e-6


@pytest.mark.parametrize("type", [1, 2, 3, 4])
def test_dct_and_dst_of_cupy_arrays_are_scipys(cupy, rng, type):
    scipy_fft = pytest.importorskip("scipy.fft")
    x = rng.standard_normal((6, 40, 33)).astype(np.float32)
    xg = cupy.asarray(x)
    for name in ("dctn", "idctn", "dstn", "idstn"):
        for norm in (None, "ortho"):
            got = getattr(tierfft, name)(xg, type=type, axes=(0, 2), norm=norm)
            assert isinstance(got, cupy.ndarray) and got.dtype == cupy.float32
            want = getattr(scipy_fft, name)(x.astype(np.float64), type=type, axes=(0, 2), norm=norm)
            assert relative_error(cupy.asnumpy(got), want) < 1e-6, (name, norm)
    assert np.array_equal(cupy.asnumpy(xg), x)


def test_dct_and_dst_of_double_complex_and_resized_cupy_arrays(cupy, rng):
    scipy_fft = pytest.importorskip("scipy.fft")
    x = rng.standard_normal((12, 50)) + 1j * rng.standard_normal((12, 50))
    xg = cupy.asarray(x)
    for type in (1, 2, 3, 4):
        got = tierfft.dctn(xg, type=type, s=(10, 64), norm="ortho")
        assert got.dtype == cupy.complex128
        want = scipy_fft.dctn(x, type=type, s=(10, 64), norm="ortho")
        assert relative_error(cupy.asnumpy(got), want) < 1e-13
        got = tierfft.idst(xg.real, type=type, n=40)
        assert got.dtype == cupy.float64
        assert relative_error(cupy.asnumpy(got), scipy_fft.idst(x.real, type=type, n=40)) < 1e-13
    half = tierfft.dct(cupy.asarray(x.real.astype(np.float16)))
    assert half.dtype == cupy.float32


def test_cupy_arrays_while_their_kernels_compile(cupy, rng, monkeypatch):
    import threading

    monkeypatch.setattr(tierfft.config, "compile_in_background", True)
    busy = threading.Event()
    tierfft._background.submit(busy, lambda: busy.wait(30))
    monkeypatch.setattr(tierfft._background, "FIRST_CALL_WAIT", 0.0)
    try:
        x = rng.standard_normal((5, 463)) + 1j * rng.standard_normal((5, 463))
        xg = cupy.asarray(x)
        got = tierfft.fft(xg)
        assert isinstance(got, cupy.ndarray) and got.dtype == cupy.complex128
        assert relative_error(cupy.asnumpy(got), np.fft.fft(x)) < 1e-14
        out = cupy.empty_like(xg)
        assert tierfft.ifft(xg, out=out) is out
        assert relative_error(cupy.asnumpy(out), np.fft.ifft(x)) < 1e-14
        r = tierfft.rfft(cupy.asarray(x.real.astype(np.float32)))
        assert r.dtype == cupy.complex64
        assert relative_error(cupy.asnumpy(r), np.fft.rfft(x.real)) < 2e-6
    finally:
        busy.set()
