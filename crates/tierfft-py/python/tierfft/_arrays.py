"""CUDA arrays of CuPy and PyTorch: recognising them, and the few operations a plan needs
from their own library (new arrays, element type conversion, contiguity). The transform
itself reads and writes their memory through DLPack, without copies."""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

#: DLPack's device type of CUDA memory.
_KDL_CUDA = 2


#: Array types whose objects are always on the host (NumPy's) or always CUDA arrays
#: (CuPy's), learnt as they are seen: the check costs a dictionary lookup after the first.
_KNOWN: dict = {}


def cuda_library(a: Any) -> Optional[str]:
    """``"cupy"`` or ``"torch"`` for a CUDA array of those libraries, ``None`` for anything
    on the host; a clear error for CUDA arrays of other libraries."""
    kind = type(a)
    if kind in _KNOWN:
        return _KNOWN[kind]
    if kind.__module__.startswith("numpy"):
        _KNOWN[kind] = None
        return None
    if kind.__module__.startswith("torch"):
        return "torch" if getattr(a, "is_cuda", False) else None
    dlpack_device = getattr(a, "__dlpack_device__", None)
    if dlpack_device is None:
        return None
    try:
        device_type, _ = dlpack_device()
    except Exception:  # an object that has the method but cannot answer: not an array
        return None
    if int(device_type) != _KDL_CUDA:
        return None
    module = kind.__module__.split(".")[0]
    if module == "cupy":
        _KNOWN[kind] = module
        return module
    raise TypeError(
        f"tierfft takes CUDA arrays from CuPy and PyTorch (got {type(a).__module__}."
        f"{type(a).__name__}); convert it with cupy.from_dlpack(a) or torch.from_dlpack(a)"
    )


def arrays_of(library: str) -> "CudaArrays":
    """The operations of ``library``, made once."""
    if library not in _LIBRARIES:
        _LIBRARIES[library] = CudaArrays(library)
    return _LIBRARIES[library]


class CudaArrays:
    """The operations of one CUDA array library (``"cupy"`` or ``"torch"``)."""

    def __init__(self, library: str) -> None:
        self.library = library
        if library == "cupy":
            import cupy

            self.module = cupy
        else:
            import torch

            self.module = torch

    def _torch_dtype(self, name: str):
        return getattr(self.module, name)

    def ordinal(self, a: Any) -> int:
        return int(a.__dlpack_device__()[1])

    def current_stream(self, a: Any) -> int:
        """The handle of the stream the library queues its work on now, on ``a``'s GPU (0:
        CUDA's legacy default stream)."""
        if self.library == "cupy":
            return int(self.module.cuda.get_current_stream().ptr)
        return int(self.module.cuda.current_stream(a.device).cuda_stream)

    def shape(self, a: Any) -> Tuple[int, ...]:
        return tuple(a.shape)

    def dtype_name(self, a: Any) -> str:
        # NumPy computes `dtype.name` in Python each time (several microseconds): looked up
        # once per element type.
        dtype = a.dtype
        name = _DTYPE_NAMES.get(dtype)
        if name is None:
            name = dtype.name if self.library == "cupy" else str(dtype).replace("torch.", "")
            _DTYPE_NAMES[dtype] = name
        return name

    def astype(self, a: Any, dtype: str) -> Any:
        if self.dtype_name(a) == dtype:
            return a
        if self.library == "cupy":
            return a.astype(dtype)
        return a.to(self._torch_dtype(dtype))

    def contiguous(self, a: Any) -> Any:
        if self.library == "cupy":
            return a if a.flags.c_contiguous else self.module.ascontiguousarray(a)
        return a.contiguous()

    def copy_into(self, dst: Any, src: Any) -> None:
        """``src`` copied into ``dst`` of the same shape, converted to its element type."""
        if self.library == "cupy":
            dst[...] = src
        else:
            dst.copy_(src)

    def to_host(self, a: Any) -> np.ndarray:
        """``a`` copied to a NumPy array (after the work queued on it)."""
        if self.library == "cupy":
            return self.module.asnumpy(a)
        return a.cpu().numpy()

    def from_host(self, h: np.ndarray, like: Any) -> Any:
        """``h`` copied to an array of this library on ``like``'s GPU."""
        if self.library == "cupy":
            with self.module.cuda.Device(self.ordinal(like)):
                return self.module.asarray(h)
        return self.module.from_numpy(np.ascontiguousarray(h)).to(like.device)

    def complex_of(self, re: Any, im: Any) -> Any:
        """The complex array ``re + i·im`` of two real arrays of one shape and type."""
        if self.library == "cupy":
            return re + 1j * im
        return self.module.complex(re, im)

    def zeros(self, shape: Tuple[int, ...], dtype: str, like: Any) -> Any:
        if self.library == "cupy":
            with self.module.cuda.Device(self.ordinal(like)):
                return self.module.zeros(shape, dtype)
        return self.module.zeros(shape, dtype=self._torch_dtype(dtype), device=like.device)

    def empty(self, shape: Tuple[int, ...], dtype: str, like: Any,
              ordinal: Optional[int] = None) -> Any:
        """An uninitialised C-contiguous array on ``like``'s GPU (its ``ordinal``, if
        known)."""
        if self.library == "cupy":
            if ordinal is None:
                ordinal = self.ordinal(like)
            if self.module.cuda.runtime.getDevice() == ordinal:
                return self.module.ndarray(shape, _NUMPY_DTYPES.get(dtype, dtype))
            with self.module.cuda.Device(ordinal):
                return self.module.ndarray(shape, _NUMPY_DTYPES.get(dtype, dtype))
        return self.module.empty(shape, dtype=self._torch_dtype(dtype), device=like.device)


_LIBRARIES: dict = {}
#: NumPy's element types by name, which CuPy takes without parsing a name.
_NUMPY_DTYPES = {
    name: np.dtype(name) for name in ("float16", "float32", "float64", "complex64", "complex128")
}
#: Element types' names, by the libraries' dtype objects.
_DTYPE_NAMES: dict = {}
