"""The DCT and DST of types 1-4 (tierfft.dct ... tierfft.idstn) against SciPy's own on every
test device: element types, norms, orthogonalize, n and s, axes, complex input, the
backend, and the errors. SciPy's own test_real_transforms.py runs in test_suites.py."""

import numpy as np
import pytest

import tierfft
import tierfft.scipy_fft
from conftest import relative_error, tolerance

scipy_fft = pytest.importorskip("scipy.fft")

ONE = ["dct", "idct", "dst", "idst"]
MANY = ["dctn", "idctn", "dstn", "idstn"]


@pytest.mark.parametrize("name", ONE)
@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_one_axis_is_scipys(name, type, dtype, norm, device, rng):
    x = rng.standard_normal((3, 37)).astype(dtype)
    for kw in ({}, {"axis": 0}, {"n": 20}, {"n": 50, "orthogonalize": norm != "ortho"}):
        got = getattr(tierfft, name)(x, type, norm=norm, device=device, **kw)
        want = getattr(scipy_fft, name)(x, type, norm=norm, **kw)
        assert got.dtype == want.dtype and got.shape == want.shape, (kw, got.dtype)
        assert relative_error(got, want) < tolerance(dtype), kw
    assert np.array_equal(x, x.copy())


@pytest.mark.parametrize("name", MANY)
@pytest.mark.parametrize("type", [1, 2, 3, 4])
def test_many_axes_are_scipys(name, type, device, rng):
    x = rng.standard_normal((4, 5, 6))
    for kw in ({}, {"axes": (0, 2)}, {"axes": 1}, {"s": (7, 3)}, {"s": (-1, 8), "axes": (2, 0)}):
        for norm in (None, "ortho"):
            got = getattr(tierfft, name)(x, type, norm=norm, device=device, **kw)
            want = getattr(scipy_fft, name)(x, type, norm=norm, **kw)
            assert got.shape == want.shape and got.dtype == want.dtype, kw
            assert relative_error(got, want) < 1e-13, (kw, norm)


@pytest.mark.parametrize("dtype", [np.float16, np.int32, np.complex64, np.complex128, ">f8"])
def test_element_types_follow_scipy(dtype, device, rng):
    x = (rng.standard_normal(16) * 10).astype(dtype) if np.dtype(dtype).kind != "c" else \
        (rng.standard_normal(16) + 1j * rng.standard_normal(16)).astype(dtype)
    got = tierfft.dst(x, 3, device=device)
    want = scipy_fft.dst(x, 3)
    assert got.dtype == want.dtype
    assert relative_error(got, want) < tolerance(got.dtype)


@pytest.mark.skipif(np.finfo(np.longdouble).nmant <= 52, reason="long double is double here")
@pytest.mark.parametrize("family", ["dct", "dst"])
@pytest.mark.parametrize("type", [1, 2, 3, 4])
def test_long_double_in_its_own_precision_as_scipy(family, type, device, rng):
    """SciPy transforms long double in long double; so does tierfft, on the CPU whatever the
    device: within a few long double ulps of SciPy (f64 would be 2^11 of them off)."""
    eps = np.finfo(np.longdouble).eps
    x = rng.standard_normal((5, 9)).astype(np.longdouble)
    cases = [
        (family, {}),
        ("i" + family, {"norm": "ortho"}),
        (family + "n", {"norm": "forward", "orthogonalize": True}),
        ("i" + family + "n", {"s": (6, 4), "axes": (1, 0)}),
    ]
    for name, kw in cases:
        got = getattr(tierfft, name)(x, type, device=device, **kw)
        want = getattr(scipy_fft, name)(x, type, **kw)
        assert got.dtype == want.dtype == np.longdouble, name
        assert np.max(np.abs(got - want)) < 8 * eps * np.max(np.abs(want)), (name, kw)
    z = (x + 1j * x[::-1]).astype(np.clongdouble)
    got, want = getattr(tierfft, family)(z, type), getattr(scipy_fft, family)(z, type)
    assert got.dtype == want.dtype == np.clongdouble
    assert np.max(np.abs(got - want)) < 8 * eps * np.max(np.abs(want))


def test_no_axes_and_object_arrays_are_scipys():
    # No axis to transform: the input itself, whatever s says, as SciPy.
    for x in (np.arange(12.0, dtype=np.float32).reshape(3, 4), np.arange(6).reshape(2, 3)):
        for kw in ({"axes": ()}, {"s": ()}, {"axes": (), "s": (3, 5)}):
            assert scipy_fft.dctn(x, **kw) is x
            assert tierfft.dctn(x, **kw) is x and tierfft.idstn(x, **kw) is x
    got = tierfft.dst(np.array([1, 2, 5], dtype=object), device="cpu")
    want = scipy_fft.dst(np.array([1, 2, 5], dtype=object))
    assert got.dtype == want.dtype and np.allclose(got, want)


def test_through_the_backend_on_the_default_device(rng):
    x = rng.standard_normal((8, 9))
    with scipy_fft.set_backend(tierfft.scipy_fft, only=True):
        got = scipy_fft.idctn(scipy_fft.dctn(x, 4, norm="ortho"), 4, norm="ortho", workers=2)
    assert relative_error(got, x) < 1e-13


def test_mistakes_are_scipys_errors():
    x = np.ones((4, 4))
    with pytest.raises(ValueError, match="invalid type 5"):
        tierfft.dct(x, 5)
    with pytest.raises(ValueError, match="invalid number of data points"):
        tierfft.dst(x, n=0)
    with pytest.raises(ValueError, match="DCT-I needs at least 2"):
        tierfft.dct(np.ones(1), 1)
    with pytest.raises(ValueError, match="all axes must be unique"):
        tierfft.dctn(x, axes=(1, 1))
    with pytest.raises(ValueError, match="Invalid norm"):
        tierfft.dct(x, norm="both")
    with pytest.raises(TypeError, match="numeric"):
        tierfft.dct(np.array(["a", "b"]))
    with pytest.raises(ValueError, match="exceeds dimensionality"):
        tierfft.dct(x, axis=2)
    with pytest.raises(ValueError, match="shape must be a scalar or iterable of integers"):
        tierfft.dctn(x, s=(None, 4))


@pytest.mark.parametrize("type", [1, 2, 3])
def test_complex_input_is_its_parts_whatever_orthogonalize(type, rng):
    # SciPy 1.17's complex path drops orthogonalize when it differs from the norm's default
    # (its result is then not the transforms of the two parts); ours is.
    x = rng.standard_normal((3, 7)) + 1j * rng.standard_normal((3, 7))
    for norm, orthogonalize in ((None, True), ("ortho", False)):
        kw = {"type": type, "norm": norm, "orthogonalize": orthogonalize}
        want = scipy_fft.dst(x.real, **kw) + 1j * scipy_fft.dst(x.imag, **kw)
        assert relative_error(tierfft.dst(x, device="cpu", **kw), want) < 1e-13
