"""Long double transformed to its own precision: each value split exactly into a high and a
low float64 part, the transform computed on the CPU in double-double arithmetic (about 32
significant digits; ``tierfft._core.ExtendedTransform``), and the parts joined again with
one rounding (the DCT and DST: once per axis). NumPy 2 and SciPy transform long double in
long double; so does this, on the CPU whatever the device (CUDA and Vulkan have no long
double)."""

from __future__ import annotations

import functools
from typing import Optional, Sequence

import numpy as np

from . import _core


def wider_than_double(dtype: np.dtype) -> bool:
    """Whether ``dtype`` is a long double with more precision than float64 (x86's 80-bit
    extended, or quad precision; on platforms where long double is double it is not)."""
    return dtype in (np.longdouble, np.clongdouble) and np.finfo(np.longdouble).nmant > 52


@functools.lru_cache(maxsize=16)
def _line_transform(n: int, inverse: bool) -> "_core.ExtendedTransform":
    """The line transform of ``n`` points, its tables (32 bytes a point; 128 a point of the
    convolution for Bluestein lengths) kept for the last 16 used."""
    return _core.ExtendedTransform(n, inverse)


def _split(a: np.ndarray):
    """``a`` (long double, real or complex) as two complex128 arrays ``hi + lo``, exactly."""
    a = np.asarray(a, np.clongdouble)
    with np.errstate(over="ignore", invalid="ignore"):  # checked below
        hi = a.astype(np.complex128)
        lo = (a - hi).astype(np.complex128)
    finite = np.isfinite(a)
    if not np.array_equal(finite, np.isfinite(hi)):
        worst = np.max(np.abs(a[finite & ~np.isfinite(hi)]))
        raise ValueError(
            f"long double values beyond float64's range (|x| up to {worst}) cannot be "
            f"transformed: tierfft computes long double in double-double arithmetic, whose "
            f"range is float64's (about 1.8e308); scale the data first"
        )
    return hi, lo


def _along(hi: np.ndarray, lo: np.ndarray, axis: int, inverse: bool, scale, workers):
    """The 1-D transforms of ``hi + lo`` along ``axis``: new arrays."""
    n = hi.shape[axis]
    h = np.ascontiguousarray(np.moveaxis(hi, axis, -1))
    l = np.ascontiguousarray(np.moveaxis(lo, axis, -1))
    if h.size:
        _line_transform(n, inverse).execute(h, l, scale[0], scale[1], workers)
    return np.moveaxis(h, -1, axis), np.moveaxis(l, -1, axis)


def norm_factor(norm: Optional[str], inverse: bool, points: int) -> np.longdouble:
    """The factor NumPy's ``norm`` puts on a transform of ``points`` points, in long double."""
    points = np.longdouble(points)
    if norm == "ortho":
        return 1 / np.sqrt(points)
    if (norm == "forward") != inverse:
        return 1 / points
    return np.longdouble(1)


def _scale_parts(scale) -> tuple:
    """A long double factor as (hi, lo) float64 parts."""
    scale = np.longdouble(scale)
    hi = np.float64(scale)
    return float(hi), float(scale - np.longdouble(hi))


def transform(a: np.ndarray, kind: str, inverse: bool, axes: Sequence[int],
              lengths: Sequence[int], scale, workers: Optional[int]) -> np.ndarray:
    """numpy.fft's ``kind`` (``"c2c"``, ``"r2c"``, ``"c2r"``) of ``a`` (cut or padded to
    the transform's sizes already) along ``axes`` with lengths ``lengths``, times ``scale``
    (a long double), in long double: complex long double out, long double for ``"c2r"``."""
    hi, lo = _split(a)
    # The factor goes into the first axis' transform, in double-double; the others take 1.
    factors = iter([_scale_parts(scale)])
    last, n = axes[-1], lengths[-1]
    order = list(axes)
    if kind == "r2c":
        # The last axis first, whole, then its n/2 + 1 bins through the others.
        hi, lo = _along(hi, lo, last, False, next(factors), workers)
        keep = [slice(None)] * hi.ndim
        keep[last] = slice(0, n // 2 + 1)
        hi, lo = hi[tuple(keep)], lo[tuple(keep)]
        order = order[:-1]
    elif kind == "c2r":
        order = order[:-1]
    for ax in order:
        hi, lo = _along(hi, lo, ax, inverse, next(factors, (1.0, 0.0)), workers)
    if kind != "c2r":
        return hi.astype(np.clongdouble, order="C") + lo
    # The Hermitian whole of the last axis from its n/2 + 1 bins: X[n - k] = conj(X[k]).
    bins = hi.shape[last]
    mirror = [slice(None)] * hi.ndim
    mirror[last] = slice(n - bins, 0, -1)
    hi = np.concatenate([hi, np.conj(hi[tuple(mirror)])], axis=last)
    lo = np.concatenate([lo, np.conj(lo[tuple(mirror)])], axis=last)
    hi, lo = _along(hi, lo, last, True, next(factors, (1.0, 0.0)), workers)
    # The imaginary parts of X[0] and X[n/2] land in the imaginary part, dropped here as
    # numpy.fft ignores them.
    return hi.real.astype(np.longdouble, order="C") + lo.real


#: The inverse of each DCT/DST (types II and III swap), as ``Trig::inverse``.
_TRIG_INVERSE = {"dct2": "dct3", "dct3": "dct2", "dst2": "dst3", "dst3": "dst2"}
#: SciPy's ``orthogonalize``: the ends of the input multiplied by √2, and of the output
#: divided by it, as ``Trig::orthogonal_ends`` ((first, last) for input, then output).
_ORTHOGONAL_ENDS = {
    "dct1": ((True, True), (True, True)),
    "dct2": ((False, False), (True, False)),
    "dct3": ((True, False), (False, False)),
    "dst2": ((False, False), (False, True)),
    "dst3": ((False, True), (False, False)),
}


def _trig_line(x: np.ndarray, kind: str, factor, workers) -> np.ndarray:
    """The unnormalised DCT/DST ``kind`` of the long double lines of ``x`` (its last axis,
    ``n`` points), times ``factor``: one DFT of a symmetric extension with the input on odd
    or all points, so that no twiddle is needed outside the DFT (the extension's length
    ``m``: 2(n - 1) and 2(n + 1) for type 1, 4n for types 2 and 3, 8n for type 4)."""
    n = x.shape[-1]
    sine = kind.startswith("dst")
    sign = -1 if sine else 1
    kind_number = int(kind[-1])
    m = {1: 2 * (n + 1) if sine else 2 * (n - 1), 2: 4 * n, 3: 4 * n, 4: 8 * n}[kind_number]
    parts = []
    for part in _split(x):
        part = part.real
        v = np.zeros(x.shape[:-1] + (m,), np.complex128)
        if kind == "dct1":
            v[..., :n] = part
            v[..., n:] = part[..., n - 2:0:-1]
        elif kind == "dst1":
            v[..., 1:n + 1] = part
            v[..., n + 2:] = -part[..., ::-1]
        elif kind_number in (2, 4):
            v[..., 1:2 * n:2] = part
            v[..., m - 2 * n + 1::2] = sign * part[..., ::-1]
        elif kind == "dct3":
            v[..., :n] = part
            v[..., m - n + 1:] = part[..., :0:-1]
        else:  # dst3: the last input point weighs half
            part = part.copy()
            part[..., -1] *= 0.5
            v[..., 1:n + 1] = part
            v[..., m - n:] = -part[..., ::-1]
        parts.append(np.ascontiguousarray(v))
    hi, lo = parts
    if hi.size:
        _line_transform(m, False).execute(hi, lo, factor[0], factor[1], workers)
    # The outputs: bins 0.. (types 1 and 2 cosine), 1.. (types 1 and 2 sine), odd bins
    # (types 3 and 4); sines as -Im.
    if kind_number <= 2:
        pick = slice(1, n + 1) if sine else slice(0, n)
    else:
        pick = slice(1, 2 * n, 2)
    hi, lo = hi[..., pick], lo[..., pick]
    if sine:
        return (-hi.imag).astype(np.longdouble, order="C") - lo.imag
    return hi.real.astype(np.longdouble, order="C") + lo.real


def trig(a: np.ndarray, kind: str, inverse: bool, axes: Sequence[int], scale,
         orthogonalize: bool, workers: Optional[int]) -> np.ndarray:
    """The DCT or DST ``kind`` (``"dct1"`` ... ``"dst4"``; with ``inverse``, its inverse) of
    the real long double array ``a`` along ``axes`` (cut or padded already), times ``scale``
    (a long double), with SciPy's ``orthogonalize``: a long double array."""
    kind = _TRIG_INVERSE.get(kind, kind) if inverse else kind
    ends_in, ends_out = _ORTHOGONAL_ENDS.get(kind, ((False, False), (False, False)))
    root2 = np.sqrt(np.longdouble(2))
    factor = _scale_parts(scale)  # applied by the first axis' DFT, 1 by the others
    x = np.asarray(a, np.longdouble)
    for ax in axes:
        x = np.moveaxis(x, ax, -1).copy()
        if orthogonalize:
            for end, on in zip((0, -1), ends_in):
                if on:
                    x[..., end] *= root2
        x = _trig_line(x, kind, factor, workers)
        factor = (1.0, 0.0)
        if orthogonalize:
            for end, on in zip((0, -1), ends_out):
                if on:
                    x[..., end] /= root2
        x = np.moveaxis(x, -1, ax)
    return np.ascontiguousarray(x)
