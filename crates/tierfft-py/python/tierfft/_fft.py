"""numpy.fft's transforms with its signatures, and a ``device=`` keyword on each.

Every function takes what its numpy.fft namesake takes (``n``/``axis`` or ``s``/``axes``,
``norm``, ``out``) and returns what it returns, in the same element type: complex64 for
float16, float32 and complex64 input, complex128 otherwise (float32/float64 for the real
inverses). Double-precision data are transformed in f64: on the CPU (``auto``), or on a
GPU named for them that has f64 arithmetic (CUDA, lavapipe, Vulkan with shaderFloat64); a
GPU without it (Metal) transforms them in f32 with a ``PrecisionWarning``. CuPy and
PyTorch CUDA arrays are transformed on their GPU and returned in their own library
(double-precision ones in f64).

The complex transforms (``fft``, ``ifft``, ``fft2``, ``ifft2``, ``fftn``, ``ifftn``) also
take ``checksum="detect"`` or ``"recompute"``: every transform is checked against a
weighted checksum of its input, and a failure raises :class:`tierfft.ChecksumError` naming
the batch elements hit (its ``transforms``: row-major indices over the axes not
transformed) instead of returning data. ``"recompute"`` first runs failed transforms again
where the input is still at hand (always on the CPU). Lengths with a prime factor above 31
are refused.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional, Sequence

import numpy as np

from ._arrays import arrays_of, cuda_library
from ._plan import Plan, cached_plan
from .config import settle

__all__ = [
    "fft",
    "ifft",
    "rfft",
    "irfft",
    "hfft",
    "ihfft",
    "fft2",
    "ifft2",
    "rfft2",
    "irfft2",
    "fftn",
    "ifftn",
    "rfftn",
    "irfftn",
]

_DEVICE_DOC = """
    device : str, optional
        Where to transform: ``"auto"`` (the default, or the ``TIERFFT_DEVICE`` environment
        variable: CUDA, else a hardware GPU, else the CPU; double-precision data on the
        CPU, in f64), ``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"gpu"``, ``"gpu:N"``, ``"lavapipe"``,
        or part of an adapter's name. A CuPy or PyTorch CUDA array is transformed on its own
        GPU.
"""


def _array_shape_dtype(a: Any):
    """``a`` as the functions take it (a CUDA array as it is, anything else as a NumPy
    array), with its shape, element type and library (``None`` for NumPy)."""
    library = cuda_library(a)
    if library is None:
        a = np.asarray(a)
        if not a.dtype.isnative:
            # Big-endian data (FITS, network order) as the machine's own: the same values,
            # and the precision their type names.
            a = a.astype(a.dtype.newbyteorder("="))
        return a, a.shape, a.dtype, None
    dtype = a.dtype
    if library != "cupy":
        # PyTorch's element type as NumPy's, looked up once per type.
        dtype = _TORCH_DTYPES.get(dtype) or _TORCH_DTYPES.setdefault(
            dtype, np.dtype(str(dtype).replace("torch.", ""))
        )
    return a, tuple(a.shape), dtype, library


_TORCH_DTYPES: dict = {}


def _device_for(a: Any, library: Optional[str], device: Optional[str]) -> Optional[str]:
    """A CUDA array's own GPU unless a device was named."""
    if device is None and library is not None:
        return f"cuda:{int(a.__dlpack_device__()[1])}"
    return device


def _one_axis(func: str, a: Any, n, axis, norm, out, device, workers=None, checksum=None) -> Any:
    a, shape, dtype, library = _array_shape_dtype(a)
    extra = {} if checksum is None else {"checksum": checksum}
    plan = cached_plan(func, shape, dtype, _device_for(a, library, device), n=n, axis=axis,
                       norm=norm, **extra)
    result = _call(plan, a, library, out, workers, device)
    settle(plan)
    return result


def _call(plan: Plan, a: Any, library: Optional[str], out: Any, workers, device) -> Any:
    """``plan`` run on ``a``, whose library the caller has found already; ``device``: the
    device the caller named (``None``: a CUDA array's own GPU)."""
    if library is None:
        return plan(a, out, workers=workers)
    return plan._call_cuda(arrays_of(library), a, out, on_own_gpu=device is None)


# The two-axis functions given ``axes=None`` explicitly: NumPy then transforms every axis,
# as the n-dimensional ones do.
_EVERY_AXIS = {"fft2": "fftn", "ifft2": "ifftn", "rfft2": "rfftn", "irfft2": "irfftn"}


#: The complex N-D transforms, which NumPy lets name no axis (the input comes back as it is).
_COMPLEX_ND = ("fftn", "ifftn", "fft2", "ifft2")


def _axes(func: str, a: Any, s, axes, norm, out, device, workers=None, numpy=True,
          checksum=None) -> Any:
    """The transforms of several axes; ``numpy``: with NumPy 2's deprecation warnings (SciPy
    has none)."""
    a, shape, dtype, library = _array_shape_dtype(a)
    if axes is None:
        func = _EVERY_AXIS.get(func, func)
    if s is not None and numpy:
        # NumPy 2's deprecations, warned on every call as NumPy does (the plan is cached).
        if axes is None:
            warnings.warn(
                "`axes` should not be `None` if `s` is given: NumPy 2 deprecates it (s then "
                "applies to the last len(s) axes); pass the axes s gives lengths for",
                DeprecationWarning,
                stacklevel=3,
            )
        if np.iterable(s) and any(n is None for n in s):
            warnings.warn(
                "passing an array containing `None` values to `s` is deprecated in NumPy 2: "
                "give the length (-1 for the input's whole axis), or leave s out",
                DeprecationWarning,
                stacklevel=3,
            )
    no_lengths = s is None or (np.iterable(s) and len(s) == 0)
    if axes is not None:
        no_axes = len(axes) == 0
    else:
        no_axes = no_lengths and (s is not None or len(shape) == 0)
    if no_axes and no_lengths and func in _COMPLEX_ND:
        return a  # NumPy transforms no axis and returns its input as it is
    plan = cached_plan(
        func,
        shape,
        dtype,
        _device_for(a, library, device),
        s=None if s is None else tuple(s),
        axes=None if axes is None else tuple(axes),
        norm=norm,
        **({} if checksum is None else {"checksum": checksum}),
    )
    result = _call(plan, a, library, out, workers, device)
    settle(plan)
    return result


def fft(a: Any, n: Optional[int] = None, axis: int = -1, norm: Optional[str] = None,
        out: Any = None, *, device: Optional[str] = None,
        checksum: Optional[str] = None) -> Any:
    """The one-dimensional discrete Fourier transform, as ``numpy.fft.fft``."""
    return _one_axis("fft", a, n, axis, norm, out, device,
                     checksum=checksum)


def ifft(a: Any, n: Optional[int] = None, axis: int = -1, norm: Optional[str] = None,
         out: Any = None, *, device: Optional[str] = None,
         checksum: Optional[str] = None) -> Any:
    """The one-dimensional inverse discrete Fourier transform, as ``numpy.fft.ifft``."""
    return _one_axis("ifft", a, n, axis, norm, out, device,
                     checksum=checksum)


def rfft(a: Any, n: Optional[int] = None, axis: int = -1, norm: Optional[str] = None,
         out: Any = None, *, device: Optional[str] = None) -> Any:
    """The one-dimensional transform of real input (``n//2 + 1`` bins), as
    ``numpy.fft.rfft``."""
    return _one_axis("rfft", a, n, axis, norm, out, device)


def irfft(a: Any, n: Optional[int] = None, axis: int = -1, norm: Optional[str] = None,
          out: Any = None, *, device: Optional[str] = None) -> Any:
    """The inverse of ``rfft`` (``n`` real points; default ``2 * (m - 1)``), as
    ``numpy.fft.irfft``."""
    return _one_axis("irfft", a, n, axis, norm, out, device)


_SWAP = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def hfft(a: Any, n: Optional[int] = None, axis: int = -1, norm: Optional[str] = None,
         out: Any = None, *, device: Optional[str] = None) -> Any:
    """The transform of a Hermitian-symmetric signal given by its first half (real
    output), as ``numpy.fft.hfft``."""
    _check_swappable(norm)
    a, _, _, _ = _array_shape_dtype(a)
    # PyTorch conjugates lazily, which DLPack cannot carry: resolve it.
    a = a.conj().resolve_conj() if hasattr(a, "resolve_conj") else a.conj()
    return irfft(a, n, axis, _SWAP[norm], out, device=device)


def ihfft(a: Any, n: Optional[int] = None, axis: int = -1, norm: Optional[str] = None,
          out: Any = None, *, device: Optional[str] = None) -> Any:
    """The inverse of ``hfft`` (real input, ``n//2 + 1`` bins), as ``numpy.fft.ihfft``."""
    _check_swappable(norm)
    result = rfft(a, n, axis, _SWAP[norm], out, device=device)
    if out is None:
        conj = result.conj()
        return conj.resolve_conj() if hasattr(conj, "resolve_conj") else conj
    return _conj_into(result)


def _check_swappable(norm: Optional[str]) -> None:
    if norm not in _SWAP:
        raise ValueError(
            f'Invalid norm value {norm}; should be "backward","ortho" or "forward".'
        )


def _conj_into(result: Any) -> Any:
    if isinstance(result, np.ndarray):
        return np.conjugate(result, out=result)
    return result.conj_() if hasattr(result, "conj_") else result.conj(out=result)


def fft2(a: Any, s: Optional[Sequence[int]] = None, axes: Sequence[int] = (-2, -1),
         norm: Optional[str] = None, out: Any = None, *, device: Optional[str] = None,
         checksum: Optional[str] = None) -> Any:
    """The two-dimensional transform, as ``numpy.fft.fft2``."""
    return _axes("fft2", a, s, axes, norm, out, device,
                 checksum=checksum)


def ifft2(a: Any, s: Optional[Sequence[int]] = None, axes: Sequence[int] = (-2, -1),
          norm: Optional[str] = None, out: Any = None, *, device: Optional[str] = None,
          checksum: Optional[str] = None) -> Any:
    """The two-dimensional inverse transform, as ``numpy.fft.ifft2``."""
    return _axes("ifft2", a, s, axes, norm, out, device,
                 checksum=checksum)


def rfft2(a: Any, s: Optional[Sequence[int]] = None, axes: Sequence[int] = (-2, -1),
          norm: Optional[str] = None, out: Any = None, *, device: Optional[str] = None) -> Any:
    """The two-dimensional transform of real input, as ``numpy.fft.rfft2``."""
    return _axes("rfft2", a, s, axes, norm, out, device)


def irfft2(a: Any, s: Optional[Sequence[int]] = None, axes: Sequence[int] = (-2, -1),
           norm: Optional[str] = None, out: Any = None, *, device: Optional[str] = None) -> Any:
    """The inverse of ``rfft2``, as ``numpy.fft.irfft2``."""
    return _axes("irfft2", a, s, axes, norm, out, device)


def fftn(a: Any, s: Optional[Sequence[int]] = None, axes: Optional[Sequence[int]] = None,
         norm: Optional[str] = None, out: Any = None, *, device: Optional[str] = None,
         checksum: Optional[str] = None) -> Any:
    """The N-dimensional transform, as ``numpy.fft.fftn``."""
    return _axes("fftn", a, s, axes, norm, out, device,
                 checksum=checksum)


def ifftn(a: Any, s: Optional[Sequence[int]] = None, axes: Optional[Sequence[int]] = None,
          norm: Optional[str] = None, out: Any = None, *, device: Optional[str] = None,
          checksum: Optional[str] = None) -> Any:
    """The N-dimensional inverse transform, as ``numpy.fft.ifftn``."""
    return _axes("ifftn", a, s, axes, norm, out, device,
                 checksum=checksum)


def rfftn(a: Any, s: Optional[Sequence[int]] = None, axes: Optional[Sequence[int]] = None,
          norm: Optional[str] = None, out: Any = None, *, device: Optional[str] = None) -> Any:
    """The N-dimensional transform of real input, as ``numpy.fft.rfftn``."""
    return _axes("rfftn", a, s, axes, norm, out, device)


def irfftn(a: Any, s: Optional[Sequence[int]] = None, axes: Optional[Sequence[int]] = None,
           norm: Optional[str] = None, out: Any = None, *, device: Optional[str] = None) -> Any:
    """The inverse of ``rfftn``, as ``numpy.fft.irfftn``."""
    return _axes("irfftn", a, s, axes, norm, out, device)


for _f in (fft, ifft, rfft, irfft, hfft, ihfft, fft2, ifft2, rfft2, irfft2, fftn, ifftn,
           rfftn, irfftn):
    _f.__doc__ = (_f.__doc__ or "") + "\n\n    Parameters as numpy.fft's, and\n" + _DEVICE_DOC
del _f
