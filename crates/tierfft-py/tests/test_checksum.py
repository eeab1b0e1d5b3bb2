"""Checksummed transforms from Python (``checksum=``): the checked result is the transform's,
a transform whose data hold a NaN fails its check and raises ``tierfft.ChecksumError``
naming the batch elements hit, and what the checksums do not cover is refused."""

import numpy as np
import pytest

import tierfft
from conftest import relative_error, tolerance


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("mode", ["detect", "recompute"])
def test_checked_transforms_match_numpy(device, rng, dtype, mode):
    x = (rng.standard_normal((3, 40, 64)) + 1j * rng.standard_normal((3, 40, 64))).astype(dtype)
    cases = [
        (tierfft.fft(x, device=device, checksum=mode), np.fft.fft(x)),
        (tierfft.ifft(x, n=48, axis=1, device=device, checksum=mode), np.fft.ifft(x, n=48, axis=1)),
        (tierfft.fft2(x, device=device, checksum=mode), np.fft.fft2(x)),
        (tierfft.ifftn(x, axes=(0, 2), norm="ortho", device=device, checksum=mode),
         np.fft.ifftn(x, axes=(0, 2), norm="ortho")),
        (tierfft.fftn(x, axes=(2, 2), device=device, checksum=mode), np.fft.fftn(x, axes=(2, 2))),
    ]
    for got, want in cases:
        assert got.dtype == want.astype(dtype).dtype
        assert relative_error(got, want) <= tolerance(dtype)
    plan = tierfft.Plan("fftn", x.shape, dtype, axes=(1, 2), device=device, checksum=mode)
    assert relative_error(plan(x), np.fft.fftn(x, axes=(1, 2))) <= tolerance(dtype)
    assert f"checksum={mode!r}" in repr(plan)


def test_a_nan_fails_the_check_of_its_batch_element(device):
    x = np.ones((4, 6, 64), np.complex64)
    x[2, 5, 7] = np.nan
    # Axes 1 and 2 transformed: the batch is axis 0, and element 2 holds the NaN.
    with pytest.raises(tierfft.ChecksumError) as caught:
        tierfft.fftn(x, axes=(1, 2), device=device, checksum="detect")
    assert caught.value.transforms == [2]
    assert caught.value.batch == 4
    assert "checksum mismatch" in str(caught.value)
    assert isinstance(caught.value, RuntimeError)
    # Rows of the last axis: element (2, 5) of the 4 × 6 batch.
    with pytest.raises(tierfft.ChecksumError) as caught:
        tierfft.fft(x, device=device, checksum="detect")
    assert (caught.value.transforms, caught.value.batch) == ([2 * 6 + 5], 24)
    # Unchecked, the NaN is data like any other.
    assert np.isnan(tierfft.fft(x, device=device)).any()


def test_what_is_not_checked_is_refused():
    x = np.ones((4, 1009), np.complex64)
    with pytest.raises(ValueError, match="prime factor above 31"):
        tierfft.fft(x, device="cpu", checksum="detect")
    with pytest.raises(ValueError, match="checksum must be None, 'detect' or 'recompute'"):
        tierfft.fft(x, device="cpu", checksum="on")
    with pytest.raises(ValueError, match="C2C"):
        tierfft.Plan("rfft", (4, 64), np.float32, device="cpu", checksum="detect")
    with pytest.raises(TypeError):
        tierfft.rfft(np.ones(64, np.float32), checksum="detect")
    if tierfft._extended.wider_than_double(np.dtype(np.clongdouble)):
        with pytest.raises(ValueError, match="unchecked"):
            tierfft.fft(np.ones(8, np.clongdouble), checksum="detect")
