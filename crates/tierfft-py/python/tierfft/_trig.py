"""The discrete cosine and sine transforms of types 1 to 4 with SciPy's signatures and
definitions (``scipy.fft.dct``, ``idct``, ``dctn``, ``idctn``, ``dst``, ``idst``, ``dstn``,
``idstn``): each transformed axis is one complex FFT between two passes over the array,
on any device.

Element types follow SciPy: float32 data (and float16, promoted) are transformed in f32 and
give float32; float64, integers and the rest in f64 and give float64; complex input has its
real and imaginary parts transformed apart. Long double wider than float64 is transformed
in its own precision on the CPU, whatever the device (``_extended``).
"""

from __future__ import annotations

import math
import operator
import os
import warnings
from typing import Any, Optional

import numpy as np

from . import _core, _extended, _plan
from ._arrays import arrays_of
from ._fft import _array_shape_dtype, _device_for
from ._plan import PrecisionWarning, _check_norm, _is_auto, cpu_workers, open_device
from .config import cached, settle

__all__ = ["dct", "idct", "dctn", "idctn", "dst", "idst", "dstn", "idstn"]


def _logical(kind: str, n: int) -> int:
    """The length of the extension the transform of ``n`` points is a DFT of (SciPy's
    normalisation factor)."""
    if kind == "dct1":
        return 2 * (n - 1)
    if kind == "dst1":
        return 2 * (n + 1)
    return 2 * n


def _scale(norm: Optional[str], inverse: bool, kind: str, lengths) -> float:
    """SciPy's ``norm`` factor: NumPy's rule over the extensions' lengths."""
    return _plan._scale(norm, inverse, math.prod(_logical(kind, n) for n in lengths))


def _axes_and_lengths(shape, s, axes, one_axis: bool):
    """SciPy's rules for ``n``/``axis`` and ``s``/``axes`` of the real-to-real transforms:
    the axes (non-negative, each once) and their lengths."""
    ndim = len(shape)
    if axes is not None:
        axes = [axes] if np.ndim(axes) == 0 else list(axes)
        axes = [operator.index(a) for a in axes]
        for a in axes:
            if not -ndim <= a < ndim:
                raise ValueError(f"axes exceeds dimensionality of input (axis {a}, {ndim} axes)")
        axes = [a % ndim for a in axes]
        if len(set(axes)) != len(axes):
            raise ValueError("all axes must be unique")
    if s is not None:
        s = [s] if np.ndim(s) == 0 else list(s)
        try:
            s = [operator.index(n) for n in s]
        except TypeError:
            raise ValueError(
                f"shape must be a scalar or iterable of integers (s={s})"
            ) from None
        if axes is None:
            if len(s) > ndim:
                raise ValueError("when given, axes and shape arguments have to be of the same length")
            axes = list(range(ndim - len(s), ndim))
        elif len(s) != len(axes):
            raise ValueError("when given, axes and shape arguments have to be of the same length")
        s = [shape[a] if n == -1 else n for n, a in zip(s, axes)]
    elif axes is None:
        axes, s = list(range(ndim)), list(shape)
    else:
        s = [shape[a] for a in axes]
    for n in s:
        if n < 1:
            what = "n" if one_axis else "s"
            raise ValueError(f"invalid number of data points ({n}) specified ({what})")
    return axes, s


def _no_axes(s, axes) -> bool:
    """Whether ``s``/``axes`` name no axis: ``axes=()`` (SciPy then leaves ``s`` unread)
    or ``s=()`` without ``axes``."""
    if axes is not None:
        return np.ndim(axes) != 0 and len(axes) == 0
    return s is not None and np.ndim(s) != 0 and len(s) == 0


def _dtypes(dtype: np.dtype):
    """(real dtype transformed, result's real dtype, double precision)."""
    if dtype.kind not in "biufc":
        raise TypeError(f"the DCT and DST take numeric arrays (got dtype {dtype})")
    single = dtype in (np.float16, np.float32, np.complex64)
    real = np.dtype(np.float32 if single else np.float64)
    result = real
    if dtype in (np.longdouble, np.clongdouble) and np.longdouble != np.float64:
        result = np.dtype(np.longdouble)
    return real, result, not single


def _transform(device: str, shape, axes, kind: str, inverse: bool, scale: float,
               double: bool, orthogonalize: bool) -> _core.Transform:
    """The native transform for these arguments, from the plan cache or made and kept."""
    key = ("r2r", tuple(shape), tuple(axes), kind, inverse, scale, double, orthogonalize,
           device)

    def make():
        return _core.Transform(open_device(device), list(shape), list(axes), kind, inverse,
                               scale, double, orthogonalize)

    return cached(key, make)


def _run(family: str, x: Any, type: int, lengths, axes, norm: Optional[str], inverse: bool,
         workers, orthogonalize, device: Optional[str], one_axis: bool) -> Any:
    _check_norm(norm)
    try:
        type = operator.index(type)
    except TypeError:
        raise TypeError(f"type must be an integer from 1 to 4 (got {type!r})") from None
    if type not in (1, 2, 3, 4):
        raise ValueError(f"invalid type {type}: the {family.upper()} types are 1, 2, 3 and 4")
    kind = f"{family}{type}"
    orthogonalize = norm == "ortho" if orthogonalize is None else bool(orthogonalize)
    a, shape, dtype, library = _array_shape_dtype(x)
    if library is None and a.dtype == object:
        # Python numbers in an object array, as SciPy takes them.
        complex_ = any(isinstance(v, complex) for v in a.flat)
        a = a.astype(np.complex128 if complex_ else np.float64)
        dtype = a.dtype
    if _no_axes(lengths, axes):
        # No axis to transform (axes=() whatever s, or s=()): the input itself, as SciPy.
        return x
    axes, lengths = _axes_and_lengths(tuple(shape), lengths, axes, one_axis)
    real, result, double = _dtypes(np.dtype(dtype))
    if kind == "dct1" and min(lengths) < 2:
        raise ValueError(
            f"invalid number of data points ({min(lengths)}) specified: DCT-I needs at least 2"
        )
    if library is None and _extended.wider_than_double(np.dtype(dtype)):
        return _run_extended(np.asarray(a), kind, lengths, axes, norm, inverse,
                             orthogonalize, cpu_workers(workers))
    device = _device_for(a, library, device)
    if library is not None:
        return _run_cuda(arrays_of(library), a, kind, lengths, axes, norm, inverse,
                         orthogonalize, device, real, double)
    if double and _is_auto(device):
        device = "cpu"
    if device is None:
        device = os.environ.get("TIERFFT_DEVICE") or "auto"
    if double and not open_device(device).has_f64:
        warnings.warn(PrecisionWarning(
            f"{dtype} data are transformed in single precision on '{open_device(device).name}' "
            f"(it has no f64 arithmetic); device='cpu' transforms in f64."), stacklevel=3)
        double, real = False, np.dtype(np.float32)
    threads = cpu_workers(workers)
    a = np.asarray(a)
    a = _plan._resized(a, axes, lengths, lambda shape: np.zeros(shape, a.dtype))
    out_shape = a.shape
    scale = _scale(norm, inverse, kind, lengths)
    if 0 in out_shape:
        return np.zeros(out_shape, np.result_type(result, a.dtype))
    plan = _transform(device, out_shape, axes, kind, inverse, scale, double, orthogonalize)

    def run(part: np.ndarray) -> np.ndarray:
        part = np.ascontiguousarray(part, dtype=real)
        out = np.empty(out_shape, real)
        plan.execute(part, out, threads)
        return out

    if a.dtype.kind == "c":
        complex_t = np.result_type(result, np.complex64)
        out = (run(a.real) + 1j * run(a.imag)).astype(complex_t)
    else:
        out = run(a).astype(result, copy=False)
    settle(plan)
    return out


def _run_extended(a: np.ndarray, kind, lengths, axes, norm, inverse, orthogonalize, threads):
    """Long double wider than float64, transformed to its own precision on the CPU
    (``_extended``); complex input part by part."""
    a = _plan._resized(a, axes, lengths, lambda shape: np.zeros(shape, a.dtype))
    if 0 in a.shape:
        return np.zeros(a.shape, a.dtype)
    factor = _extended.norm_factor(norm, inverse, math.prod(_logical(kind, n) for n in lengths))

    def run(part):
        return _extended.trig(part, kind, inverse, axes, factor, orthogonalize, threads)

    if a.dtype.kind == "c":
        return run(a.real) + 1j * run(a.imag)
    return run(a)


def _run_cuda(xp, a, kind, lengths, axes, norm, inverse, orthogonalize, device, real, double):
    """A CuPy or PyTorch CUDA array transformed on its GPU, in f64 for double-precision data
    (else f32); complex arrays have their real and imaginary parts transformed apart."""
    real, own = real.name, xp.dtype_name(a)
    a = _plan._resized(a, axes, lengths, lambda shape: xp.zeros(shape, own, a))
    shape = tuple(xp.shape(a))
    plan = _transform(device, shape, axes, kind, inverse, _scale(norm, inverse, kind, lengths),
                      double, orthogonalize)
    stream = open_device(device).cuda_stream or 1

    def run(part):
        part = xp.contiguous(xp.astype(part, real))
        out = xp.empty(shape, real, part)
        plan.execute_dlpack(part.__dlpack__(stream=stream), out.__dlpack__(stream=stream),
                            xp.current_stream(part))
        return out

    if xp.dtype_name(a).startswith("complex"):
        out = xp.complex_of(run(a.real), run(a.imag))
    else:
        out = run(a)
    settle(plan)
    return out


def dct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
        orthogonalize=None, *, device=None):
    """The DCT of ``type`` (1-4) along ``axis`` (``scipy.fft.dct``): ``n`` cuts or zero-pads
    the axis, ``norm`` is ``"backward"`` (default; unscaled), ``"ortho"`` or ``"forward"``,
    ``orthogonalize`` SciPy's (default: ``norm == "ortho"``). ``overwrite_x`` is accepted (the
    input is never written); ``workers`` caps the CPU threads; ``device`` as for
    :func:`tierfft.fft`."""
    return _run("dct", x, type, n, axis, norm, False, workers, orthogonalize, device, True)


def idct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None, *, device=None):
    """The inverse DCT (``scipy.fft.idct``): type 2's inverse is a type-3 DCT and the other
    way round; with ``norm="backward"`` divided by ``2n`` (``2(n - 1)`` for type 1)."""
    return _run("dct", x, type, n, axis, norm, True, workers, orthogonalize, device, True)


def dst(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
        orthogonalize=None, *, device=None):
    """The DST of ``type`` (1-4) along ``axis`` (``scipy.fft.dst``); arguments as :func:`dct`."""
    return _run("dst", x, type, n, axis, norm, False, workers, orthogonalize, device, True)


def idst(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None, *, device=None):
    """The inverse DST (``scipy.fft.idst``); ``2(n + 1)`` for type 1's normalisation."""
    return _run("dst", x, type, n, axis, norm, True, workers, orthogonalize, device, True)


def dctn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
         orthogonalize=None, device=None):
    """The DCT along each of ``axes`` (``scipy.fft.dctn``; default every axis, or the last
    ``len(s)``); ``s`` cuts or zero-pads them (-1: the whole axis)."""
    return _run("dct", x, type, s, axes, norm, False, workers, orthogonalize, device, False)


def idctn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
          orthogonalize=None, device=None):
    """The inverse DCT along each of ``axes`` (``scipy.fft.idctn``)."""
    return _run("dct", x, type, s, axes, norm, True, workers, orthogonalize, device, False)


def dstn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
         orthogonalize=None, device=None):
    """The DST along each of ``axes`` (``scipy.fft.dstn``)."""
    return _run("dst", x, type, s, axes, norm, False, workers, orthogonalize, device, False)


def idstn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
          orthogonalize=None, device=None):
    """The inverse DST along each of ``axes`` (``scipy.fft.idstn``)."""
    return _run("dst", x, type, s, axes, norm, True, workers, orthogonalize, device, False)
