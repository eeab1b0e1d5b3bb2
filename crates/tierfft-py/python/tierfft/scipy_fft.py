"""A scipy.fft backend: SciPy's transforms through tierfft.

    import scipy.fft
    import tierfft.scipy_fft

    with scipy.fft.set_backend(tierfft.scipy_fft):
        y = scipy.fft.fft2(x)                    # tierfft, on its default device
    scipy.fft.set_global_backend(tierfft.scipy_fft)   # or for every call

Each function takes SciPy's arguments: ``n``/``axis`` or ``s``/``axes``, ``norm``,
``overwrite_x`` (leave to tierfft whether the input is reused: it is never written),
``workers`` (the most CPU threads a transform on the CPU uses; negative counts back from
the number of cores) and ``plan`` (a :class:`tierfft.Plan` made for the same function,
shape, element type and arguments, used instead of the cache). NumPy arrays are
transformed on the device ``"auto"`` picks (``TIERFFT_DEVICE`` to name one), CuPy and
PyTorch CUDA arrays on their own GPU. The DCT and DST (``dct`` ... ``idstn``, types 1 to 4)
take SciPy's arguments too, ``orthogonalize`` included. What tierfft does not transform
(today the fast Hankel transform, ``fht`` and ``ifht``) runs SciPy's own implementation on
NumPy arrays, so that this backend can stand alone as the global one (``set_global_backend``
puts it in the place of SciPy's, which is then no longer tried), and returns
``NotImplemented`` for CuPy and PyTorch arrays, for the next backend.
"""

from __future__ import annotations

import operator
from typing import Any, Optional

import numpy as np

from . import _fft
from ._arrays import cuda_library
from ._plan import FUNCTIONS, Plan, _cook
from ._trig import dct, dctn, dst, dstn, idct, idctn, idst, idstn

__ua_domain__ = "numpy.scipy.fft"

_SWAP = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def _as_scipy(func: str, x: Any, axes=None) -> Any:
    """``x`` as SciPy takes it for ``func``, with SciPy's checks first, where they differ
    from numpy.fft's: the real inverses compute float16 in float32 and return float32
    (numpy.fft keeps float16); complex input to a real transform is SciPy's
    TypeError before any check of the axes; and ``axes`` naming one axis twice is SciPy's
    ValueError (numpy.fft transforms it twice). CUDA arrays are taken as they are."""
    kind = FUNCTIONS[func][0]
    if cuda_library(x) is None:
        x = np.asarray(x)
        if kind == "c2r" and x.dtype == np.float16:
            x = x.astype(np.float32)
        if kind == "r2c" and x.dtype.kind == "c":
            raise TypeError(
                f"x must be a real sequence: {func} takes real input (got {x.dtype}); use "
                f"fft for complex data"
            )
    if axes is not None:
        ndim = len(x.shape)
        axes = [operator.index(a) for a in axes]
        # Out of range is the transform's own AxisError (a ValueError, as SciPy's).
        if all(-ndim <= a < ndim for a in axes) and len({a % ndim for a in axes}) < len(axes):
            raise ValueError(f"all axes must be unique (got axes={tuple(axes)})")
    return x


def _run(func: str, x: Any, plan: Optional[Plan], workers, **args) -> Any:
    """``func`` of ``x`` with ``args`` (``n``/``axis`` or ``s``/``axes``, ``norm``)."""
    kind, _, form = FUNCTIONS[func]
    if plan is None:
        x = _as_scipy(func, x, args.get("axes"))
    if plan is None and form == "1d":
        return _fft._one_axis(func, x, args["n"], args["axis"], args["norm"], None, None, workers)
    if plan is None:
        return _fft._axes(func, x, args["s"], args["axes"], args["norm"], None, None, workers,
                          numpy=False)
    if not isinstance(plan, Plan):
        raise TypeError(f"plan must be a tierfft.Plan (got {type(plan).__name__})")
    a, shape, dtype, _ = _fft._array_shape_dtype(x)
    if form == "1d":
        wanted = _cook(tuple(shape), args["n"], args["axis"], kind, form)
    else:
        wanted = _cook(tuple(shape), args["s"], args["axes"], kind, form)
    made = (plan.func, plan.shape, plan.dtype, plan.norm, (plan.lengths, plan.axes))
    asked = (func, tuple(shape), np.dtype(dtype), args["norm"], wanted)
    if made != asked:
        raise ValueError(
            f"plan was made for {made[0]} of shape {made[1]} ({made[2]}), norm {made[3]!r}, "
            f"lengths {made[4][0]} along axes {made[4][1]}; this call is {asked[0]} of shape "
            f"{asked[1]} ({asked[2]}), norm {asked[3]!r}, lengths {asked[4][0]} along axes "
            f"{asked[4][1]}"
        )
    return plan(a, workers=workers)


def _conj(a: Any) -> Any:
    # PyTorch conjugates lazily, which DLPack cannot carry: resolve it.
    conj = a.conj()
    return conj.resolve_conj() if hasattr(conj, "resolve_conj") else conj


def _swapped(norm: Optional[str]) -> str:
    if norm not in _SWAP:
        raise ValueError(
            f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".'
        )
    return _SWAP[norm]


def fft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.fft``."""
    return _run("fft", x, plan, workers, n=n, axis=axis, norm=norm)


def ifft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.ifft``."""
    return _run("ifft", x, plan, workers, n=n, axis=axis, norm=norm)


def rfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.rfft``."""
    return _run("rfft", x, plan, workers, n=n, axis=axis, norm=norm)


def irfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.irfft``."""
    return _run("irfft", x, plan, workers, n=n, axis=axis, norm=norm)


def hfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.hfft``: the inverse real transform of the conjugate, norms swapped."""
    norm = _swapped(norm)
    x, _, _, _ = _fft._array_shape_dtype(x)
    return _run("irfft", _conj(x), plan, workers, n=n, axis=axis, norm=norm)


def ihfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.ihfft``: the conjugate of the real transform, norms swapped."""
    return _conj(_run("rfft", x, plan, workers, n=n, axis=axis, norm=_swapped(norm)))


def _many(func: str, x, s, axes, norm, workers, plan):
    return _run(func, x, plan, workers, s=None if s is None else tuple(s),
                axes=None if axes is None else tuple(axes), norm=norm)


def fft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *,
         plan=None):
    """``scipy.fft.fft2``."""
    return _many("fft2", x, s, axes, norm, workers, plan)


def ifft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *,
          plan=None):
    """``scipy.fft.ifft2``."""
    return _many("ifft2", x, s, axes, norm, workers, plan)


def rfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *,
          plan=None):
    """``scipy.fft.rfft2``."""
    return _many("rfft2", x, s, axes, norm, workers, plan)


def irfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *,
           plan=None):
    """``scipy.fft.irfft2``."""
    return _many("irfft2", x, s, axes, norm, workers, plan)


def hfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *,
          plan=None):
    """``scipy.fft.hfft2``."""
    return hfftn(x, s, axes, norm, overwrite_x, workers, plan=plan)


def ihfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *,
           plan=None):
    """``scipy.fft.ihfft2``."""
    return ihfftn(x, s, axes, norm, overwrite_x, workers, plan=plan)


def fftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.fftn``."""
    return _many("fftn", x, s, axes, norm, workers, plan)


def ifftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.ifftn``."""
    return _many("ifftn", x, s, axes, norm, workers, plan)


def rfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.rfftn``."""
    return _many("rfftn", x, s, axes, norm, workers, plan)


def irfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.irfftn``."""
    return _many("irfftn", x, s, axes, norm, workers, plan)


def hfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.hfftn``: the inverse real transform of the conjugate, norms swapped."""
    norm = _swapped(norm)
    x, _, _, _ = _fft._array_shape_dtype(x)
    return _many("irfftn", _conj(x), s, axes, norm, workers, plan)


def ihfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.ihfftn``: the conjugate of the real transform, norms swapped."""
    return _conj(_many("rfftn", x, s, axes, _swapped(norm), workers, plan))


_FUNCTIONS = {
    f.__name__: f
    for f in (fft, ifft, rfft, irfft, hfft, ihfft, fft2, ifft2, rfft2, irfft2, hfft2, ihfft2,
              fftn, ifftn, rfftn, irfftn, hfftn, ihfftn, dct, idct, dst, idst, dctn, idctn,
              dstn, idstn)
}


def __ua_function__(method, args, kwargs):
    """The backend protocol's entry (uarray): SciPy's ``method`` called with ``args`` and
    ``kwargs``; one tierfft does not have runs SciPy's own on NumPy arrays (``NotImplemented``
    for CUDA arrays)."""
    function = _FUNCTIONS.get(method.__name__)
    if function is not None:
        return function(*args, **kwargs)
    if any(cuda_library(a) for a in (*args, *kwargs.values())):
        return NotImplemented
    import scipy.fft

    with scipy.fft.set_backend("scipy", only=True):
        return method(*args, **kwargs)
