"""Every function against numpy.fft: random shapes, axes, lengths (odd and prime too),
norms and element types, on each test device. Single-precision data are compared with
NumPy's transform of the same values in double precision."""

import warnings

import numpy as np
import pytest

import tierfft
from conftest import relative_error, tolerance

NORMS = [None, "backward", "ortho", "forward"]
ONE_AXIS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
MANY_AXES = ["fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn"]
REAL_INPUT = {"rfft", "ihfft", "rfft2", "rfftn"}


def data(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-50, 50, shape).astype(dtype)


def reference(name, a, **kwargs):
    """NumPy's result in double precision (and the dtype NumPy gives for ``a``)."""
    wide = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    return getattr(np.fft, name)(wide, **kwargs), getattr(np.fft, name)(a, **kwargs).dtype


def check(name, a, device, **kwargs):
    if a.dtype not in (np.float16, np.float32, np.complex64):
        # Double precision in f64: on the CPU, which "auto" picks for it (a GPU named for it
        # transforms in f32: test_plans.py).
        device = None
    got = getattr(tierfft, name)(a, device=device, **kwargs)
    want, want_dtype = reference(name, a, **kwargs)
    assert got.shape == want.shape, (name, kwargs)
    assert got.dtype == want_dtype, (name, a.dtype, got.dtype, want_dtype)
    err = relative_error(got, want)
    assert err < tolerance(got.dtype), (name, a.shape, a.dtype, kwargs, err)


@pytest.mark.parametrize("name", ONE_AXIS)
@pytest.mark.parametrize("dtype", [np.complex64, np.float32, np.float64, np.complex128])
def test_one_axis_functions(name, dtype, device, rng):
    if name in REAL_INPUT and np.dtype(dtype).kind == "c":
        dtype = np.float32 if dtype == np.complex64 else np.float64
    for _ in range(6):
        ndim = int(rng.integers(1, 4))
        shape = tuple(int(n) for n in rng.integers(1, 24, ndim))
        axis = int(rng.integers(-ndim, ndim))
        shape = list(shape)
        shape[axis] = int(rng.choice([2, 7, 13, 16, 30, 97, 128, 250]))
        a = data(rng, tuple(shape), dtype)
        n = rng.choice([None, None, shape[axis] // 2 + 1, shape[axis] + 5, 64, 101])
        n = None if n is None else int(n)
        if name in ("irfft", "hfft") and n is None and shape[axis] < 2:
            continue
        norm = NORMS[int(rng.integers(0, 4))]
        check(name, a, device, n=n, axis=axis, norm=norm)


@pytest.mark.parametrize("name", MANY_AXES)
@pytest.mark.parametrize("dtype", [np.complex64, np.float64])
def test_many_axes_functions(name, dtype, device, rng):
    for _ in range(5):
        ndim = int(rng.integers(2, 5))
        shape = tuple(int(rng.choice([1, 3, 4, 8, 11, 17, 32, 45])) for _ in range(ndim))
        if name in REAL_INPUT:
            dtype = np.float32 if np.dtype(dtype) == np.complex64 else dtype
        a = data(rng, shape, dtype)
        norm = NORMS[int(rng.integers(0, 4))]
        kwargs = {"norm": norm}
        if name.endswith("n"):
            count = int(rng.integers(1, ndim + 1))
            axes = [int(x) for x in rng.permutation(ndim)[:count]]
            kwargs["axes"] = axes
            if rng.random() < 0.5:
                kwargs["s"] = [int(rng.choice([2, 5, 8, 19])) for _ in axes]
        elif rng.random() < 0.5:
            kwargs["s"] = [int(rng.choice([2, 6, 9, 16])) for _ in range(2)]
        if name.startswith("irfft") and "s" not in kwargs:
            last = kwargs.get("axes", list(range(ndim))[-2:])[-1]
            if shape[last] < 2:
                continue
        check(name, a, device, **kwargs)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 17, 127, 257, 1000, 1009, 4096, 65536])
def test_lengths_including_primes(n, device, rng):
    a = data(rng, (3, n), np.complex64)
    check("fft", a, device)
    check("ifft", a, device, norm="ortho")
    r = data(rng, (2, n), np.float32)
    check("rfft", r, device)
    if n > 1:
        check("irfft", tierfft.rfft(r, device=device), device, n=n)


def test_integer_and_bool_input_is_double(device, rng):
    a = data(rng, (5, 12), np.int32)
    check("fft", a, "cpu")
    check("rfftn", a, "cpu")
    b = rng.random(16) < 0.5
    check("fft", b, "cpu")


def test_lists_and_noncontiguous_views(device, rng):
    a = data(rng, (20, 30), np.complex64)
    check("fft", a[::2, 1::3], device)
    check("fft2", a.T, device)
    check("rfft", a.real[:, ::-1], device)
    got = tierfft.fft([1.0, 2.0, 3.0, 4.0])  # a list of floats: float64, on the CPU
    assert got.dtype == np.complex128
    assert np.allclose(got, np.fft.fft([1.0, 2.0, 3.0, 4.0]), rtol=1e-14, atol=1e-14)


def test_repeated_axes_as_numpy(device, rng):
    a = data(rng, (6, 10), np.complex64)
    check("fftn", a, device, axes=[1, 0, 1])
    check("ifftn", a, device, axes=[0, 0], s=[8, 12])
    r = data(rng, (6, 10), np.float32)
    check("rfftn", r, device, axes=[0, 1, 0])


def test_empty_arrays(device):
    a = np.zeros((0, 8), np.complex64)
    assert tierfft.fft(a, device=device).shape == (0, 8)
    assert tierfft.rfft(np.zeros((3, 0, 8), np.float32), axis=-1, device=device).shape == (3, 0, 5)


def test_out_argument(device, rng):
    a = data(rng, (4, 16), np.complex64)
    out = np.full((4, 16), np.nan + 0j, np.complex64)
    got = tierfft.fft(a, out=out, device=device)
    assert got is out
    assert relative_error(out, np.fft.fft(a.astype(np.complex128))) < 2e-6
    wide = np.full((4, 16), np.nan, np.complex128)  # another dtype: cast into it
    tierfft.fft(a, out=wide, device=device)
    assert relative_error(wide, np.fft.fft(a.astype(np.complex128))) < 2e-6
    with pytest.raises(ValueError, match="shape"):
        tierfft.fft(a, out=np.zeros((4, 8), np.complex64), device=device)


def test_long_double_as_numpy_dtype():
    a = np.arange(8, dtype=np.longdouble)
    got = tierfft.fft(a)
    assert got.dtype == np.fft.fft(a).dtype
    assert relative_error(got, np.fft.fft(a.astype(np.float64))) < 1e-13


LONG_DOUBLE_WIDER = np.finfo(np.longdouble).nmant > 52
needs_wide_long_double = pytest.mark.skipif(
    not LONG_DOUBLE_WIDER, reason="long double is double on this platform"
)


@needs_wide_long_double
@pytest.mark.parametrize("n", [1, 5, 13, 16, 31, 37, 67, 100, 1009])
def test_long_double_round_trips_in_its_own_precision(rng, n):
    """Round trips of long double within a long double ulp or two (f64's transforms are off
    by 2^11 of them): direct radices and Bluestein lengths, complex and real."""
    eps = np.finfo(np.longdouble).eps
    x = (rng.random((3, n)) + 1j * rng.random((3, n))).astype(np.clongdouble)
    x += x * eps / 3  # bits below float64's
    back = tierfft.ifft(tierfft.fft(x))
    assert back.dtype == np.clongdouble
    assert np.max(np.abs(back - x)) < 3 * eps
    xr = x.real.copy()
    back = tierfft.irfft(tierfft.rfft(xr), n=n)
    assert back.dtype == np.longdouble
    assert np.max(np.abs(back - xr)) < 3 * eps


@needs_wide_long_double
def test_long_double_agrees_with_numpy_in_long_double(rng):
    eps = np.finfo(np.longdouble).eps
    a = (rng.random((6, 10, 7)) + 1j * rng.random((6, 10, 7))).astype(np.clongdouble)
    cases = [
        ("fftn", a, {}),
        ("ifft2", a, {"norm": "ortho"}),
        ("rfftn", a.real.copy(), {"axes": (0, 2), "norm": "forward"}),
        ("irfftn", a, {"s": (6, 12), "axes": (0, 1)}),
        ("hfft", a, {"n": 11}),
        ("ihfft", a.real.copy(), {"axis": 1}),
        ("fft", a, {"n": 23, "axis": 0}),
    ]
    for name, x, kwargs in cases:
        got = getattr(tierfft, name)(x, **kwargs)
        want = getattr(np.fft, name)(x, **kwargs)
        assert got.dtype == want.dtype, name
        scale = np.max(np.abs(want))
        # NumPy's own long double transform is within a few of its ulps: so is ours.
        assert np.max(np.abs(got - want)) < 32 * eps * scale, name
    out = np.full((6, 10, 7), np.nan, np.clongdouble)
    assert tierfft.fftn(a, out=out) is out
    assert np.max(np.abs(out - np.fft.fftn(a))) < 32 * eps * np.max(np.abs(out))


@needs_wide_long_double
def test_long_double_beyond_float64s_range_is_an_error():
    x = np.full(8, np.longdouble(1e308) * 1000)
    with pytest.raises(ValueError, match="float64's range"):
        tierfft.fft(x)


def test_axes_are_checked_before_the_element_type_as_numpy_does():
    # rfft2 of a 1-D complex array: its axes (-2, -1) are out of range before its type is
    # wrong.
    with pytest.raises(IndexError):
        tierfft.rfft2(np.ones(7, np.complex64))
    with pytest.raises(IndexError):
        np.fft.rfft2(np.ones(7, np.complex64))


def test_no_axes_is_the_input_as_numpy_has_it():
    x = np.arange(6.0).reshape(2, 3)
    assert np.array_equal(tierfft.fftn(x, axes=()), np.fft.fftn(x, axes=()))
    # The complex transforms hand back the input itself where no axis is named: axes=() (the
    # two-axis ones too), or s=() without axes.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for func, kw in [("fft2", {"axes": ()}), ("ifft2", {"s": (), "axes": ()}),
                         ("fftn", {"s": ()}), ("ifftn", {"s": (), "axes": ()})]:
            assert getattr(np.fft, func)(x, **kw) is x
            assert getattr(tierfft, func)(x, **kw) is x, (func, kw)
    with pytest.raises(ValueError, match="Shape and axes have different lengths"):
        tierfft.fft2(x, s=(2,), axes=())
    with pytest.raises(IndexError):  # NumPy's AxisError is an IndexError too
        tierfft.fft(x, axis=2)


def test_big_endian_input_is_transformed_in_its_own_precision(device, rng):
    x = rng.standard_normal(64).astype(">f4")
    got = tierfft.fft(x, device=device)
    assert got.dtype == np.fft.fft(x).dtype == np.complex64
    assert relative_error(got, np.fft.fft(x.astype(np.float64))) < 2e-6
    wide = rng.standard_normal((3, 8)).astype(">c16")
    assert relative_error(tierfft.fft2(wide), np.fft.fft2(wide.astype(np.complex128))) < 1e-14


@pytest.mark.parametrize("name", ONE_AXIS)
@pytest.mark.parametrize("n", [0, -1, -5])
def test_lengths_below_one_are_refused_as_numpy_refuses_them(name, n):
    x = np.ones(8, np.float64 if name in REAL_INPUT else np.complex128)
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        getattr(np.fft, name)(x, n=n)
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        getattr(tierfft, name)(x, n=n)


@pytest.mark.parametrize("name", MANY_AXES)
def test_minus_one_in_s_is_the_inputs_whole_axis(name, rng):
    a = data(rng, (3, 5), np.float64 if name in REAL_INPUT else np.complex128)
    for s in [(3, -1), (-1, 4), (-1, -1)]:
        want = getattr(np.fft, name)(a, s=s, axes=(0, 1))
        got = getattr(tierfft, name)(a, s=s, axes=(0, 1))
        assert got.shape == want.shape, (name, s)
        assert relative_error(got, want) < 1e-13, (name, s)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2"])
def test_two_axis_functions_given_axes_none_transform_every_axis(name, rng):
    a = data(rng, (2, 3, 4), np.float64 if name in REAL_INPUT else np.complex128)
    want = getattr(np.fft, name)(a, axes=None)
    got = getattr(tierfft, name)(a, axes=None)
    assert got.shape == want.shape
    assert relative_error(got, want) < 1e-13


def test_a_zero_dimensional_array_is_returned_as_numpy_returns_it():
    x = np.array(3.0)
    for name in ["fftn", "ifftn"]:
        got, want = getattr(tierfft, name)(x), getattr(np.fft, name)(x)
        assert got.shape == want.shape == () and got.dtype == want.dtype and got == want
    assert tierfft.fft2(x, axes=None) == np.fft.fft2(x, axes=None)


def test_numpy_2_deprecations_are_warned_on_every_call():
    x = np.ones((4, 4))
    for _ in range(2):  # the plan is cached after the first call: warned again
        with pytest.warns(DeprecationWarning, match="`axes` should not be `None` if `s`"):
            tierfft.fftn(x, s=(4, 4))
        with pytest.warns(DeprecationWarning, match="array containing `None` values to `s`"):
            tierfft.fftn(x, s=(None, 4), axes=(0, 1))


def test_out_mistakes_are_named_in_numpys_words():
    x = np.arange(30.0)
    with pytest.raises(TypeError, match="must be of ArrayType"):
        tierfft.fft(x, out="")
    with pytest.raises(ValueError, match="has wrong shape"):
        tierfft.fft(x, out=np.zeros((5, 6), np.complex128))
    with pytest.raises(TypeError, match="Cannot cast"):
        tierfft.fft(x, out=np.zeros(30))


def test_fftfreq_and_shifts_are_numpys():
    assert tierfft.fftfreq is np.fft.fftfreq
    assert tierfft.fftshift is np.fft.fftshift
