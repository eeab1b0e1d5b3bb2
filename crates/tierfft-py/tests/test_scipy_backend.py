"""tierfft.scipy_fft as scipy.fft's backend: every transform against SciPy's own, its
workers= and plan= arguments, and the transforms it does not have run as SciPy runs them
(the DCT and DST are tested in test_trig.py)."""

import numpy as np
import pytest

import tierfft
from conftest import relative_error

scipy_fft = pytest.importorskip("scipy.fft")
backend = pytest.importorskip("tierfft.scipy_fft")

ONE_AXIS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
MANY_AXES = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
             "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]
REAL_INPUT = {"rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"}


def data(rng, name, shape, double):
    x = rng.standard_normal(shape)
    if name not in REAL_INPUT:
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(np.float64 if double else np.float32) if name in REAL_INPUT else \
        x.astype(np.complex128 if double else np.complex64)


@pytest.mark.parametrize("name", ONE_AXIS + MANY_AXES)
@pytest.mark.parametrize("double", [False, True])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_every_transform_is_scipys(name, double, norm, rng):
    x = data(rng, name, (6, 10, 9), double)
    args = {"n": 12, "axis": 1} if name in ONE_AXIS else {"s": (5, 7), "axes": (0, 2)}
    want = getattr(scipy_fft, name)(x, norm=norm, **args)
    with scipy_fft.set_backend(backend, only=True):
        got = getattr(scipy_fft, name)(x, norm=norm, workers=2, overwrite_x=True, **args)
    assert got.shape == want.shape and got.dtype == want.dtype, name
    assert relative_error(got, want) < (1e-13 if double else 2e-6), name


def test_workers_are_counted_as_scipy_counts_them(rng):
    x = rng.standard_normal((4, 64))
    with scipy_fft.set_backend(backend, only=True):
        for workers in (1, 3, -1):
            assert relative_error(scipy_fft.rfft(x, workers=workers), np.fft.rfft(x)) < 1e-13
        for bad in (0, -1000):
            with pytest.raises(ValueError, match="workers"):
                scipy_fft.fft(x, workers=bad)


def test_a_plan_is_used_for_its_own_call_only(rng):
    x = rng.standard_normal((3, 16)) + 1j * rng.standard_normal((3, 16))
    plan = tierfft.Plan("fft", x.shape, x.dtype, n=16, axis=-1)
    with scipy_fft.set_backend(backend, only=True):
        assert relative_error(scipy_fft.fft(x, plan=plan), np.fft.fft(x)) < 1e-13
        with pytest.raises(ValueError, match="plan was made for fft"):
            scipy_fft.fft(x, n=8, plan=plan)
        with pytest.raises(ValueError, match="plan was made for fft"):
            scipy_fft.ifft(x, plan=plan)
        with pytest.raises(TypeError, match="tierfft.Plan"):
            scipy_fft.fft(x, plan="fast")


def test_transforms_it_lacks_are_scipys(rng):
    # The fast Hankel transform is SciPy's own, also where this backend is the only one (as
    # set_global_backend leaves it: SciPy's is then no longer tried).
    x = rng.standard_normal(64)
    want = scipy_fft.fht(x, 0.1, 0.5, offset=0.2, bias=0.3)
    for only in (False, True):
        with scipy_fft.set_backend(backend, only=only):
            got = scipy_fft.fht(x, 0.1, 0.5, offset=0.2, bias=0.3)
            assert relative_error(got, want) < 1e-15
            assert relative_error(scipy_fft.ifht(got, 0.1, 0.5, offset=0.2, bias=0.3),
                                  scipy_fft.ifht(want, 0.1, 0.5, offset=0.2, bias=0.3)) < 1e-15
    with scipy_fft.set_backend(backend, only=True):
        # The DCT and DST are tierfft's.
        assert np.allclose(scipy_fft.dct(x), scipy_fft.dct(x.copy()))


def test_bad_workers_are_named_in_scipys_words(rng):
    x = rng.standard_normal(8)
    with scipy_fft.set_backend(backend, only=True):
        with pytest.raises(ValueError, match="workers must not be zero"):
            scipy_fft.fft(x, workers=0)
        with pytest.raises(ValueError, match="workers value out of range.*cores"):
            scipy_fft.ifft(x, workers=-10_000)


def test_scipys_own_rules_where_numpy_differs(rng):
    # The real inverses of float16 return float32 (numpy.fft keeps float16); axes naming
    # one axis twice are an error (numpy.fft transforms it twice); complex input to a real
    # transform is a TypeError before the axes are looked at.
    half = rng.standard_normal((4, 6)).astype(np.float16)
    with scipy_fft.set_backend(backend, only=True):
        for name in ("irfft", "hfft", "irfft2", "hfft2", "irfftn", "hfftn"):
            got = getattr(scipy_fft, name)(half)
            want = getattr(scipy_fft, name)(half.astype(np.float32))
            assert got.dtype == np.float32, name
            assert relative_error(got, want) < 2e-6, name
        for name in ("fftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fft2"):
            with pytest.raises(ValueError, match="all axes must be unique"):
                getattr(scipy_fft, name)(half.astype(np.float64), axes=(1, -1))
        for name in ("rfft", "ihfft", "rfft2", "ihfftn"):
            far = {"axis": 5} if name in ONE_AXIS else {"axes": (4, 5)}
            with pytest.raises(TypeError, match="x must be a real sequence"):
                getattr(scipy_fft, name)(np.ones(3, complex), **far)
