"""Plans: one of numpy.fft's transforms with its arguments fixed, for arrays of one shape
and element type, planned and compiled once. The functions in ``tierfft`` (``fft``,
``rfftn``, ...) are plans made on demand and kept in a cache."""

from __future__ import annotations

import concurrent.futures
import functools
import math
import operator
import os
import threading
import warnings
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from . import _background, _core, _extended, config
from ._arrays import CudaArrays, arrays_of, cuda_library
from .config import cached, kept

try:  # NumPy 2
    from numpy.lib.array_utils import normalize_axis_index
except ImportError:  # NumPy 1
    from numpy.core.multiarray import normalize_axis_index  # type: ignore

__all__ = ["Plan", "PrecisionWarning", "open_device"]


class PrecisionWarning(UserWarning):
    """Double-precision data transformed in single precision, on a GPU without f64
    arithmetic (``Device.has_f64``; Metal). The result has NumPy's element type (complex128
    or float64) and f32's accuracy (relative error about 1e-7); ``device="cpu"`` (or
    ``"auto"``) transforms in f64."""

#: What each function computes: (kind, inverse, arguments: "1d" takes n/axis, "2d" and "nd"
#: take s/axes, "2d" defaulting to the last two axes).
FUNCTIONS = {
    "fft": ("c2c", False, "1d"),
    "ifft": ("c2c", True, "1d"),
    "rfft": ("r2c", False, "1d"),
    "irfft": ("c2r", True, "1d"),
    "fft2": ("c2c", False, "2d"),
    "ifft2": ("c2c", True, "2d"),
    "rfft2": ("r2c", False, "2d"),
    "irfft2": ("c2r", True, "2d"),
    "fftn": ("c2c", False, "nd"),
    "ifftn": ("c2c", True, "nd"),
    "rfftn": ("r2c", False, "nd"),
    "irfftn": ("c2r", True, "nd"),
}

_NORMS = (None, "backward", "ortho", "forward")

_devices: dict = {}
_devices_lock = threading.Lock()
# Whether a process this one was forked from had opened a CUDA device: CUDA cannot be used
# in such a child.
_cuda_in_parent = False


def open_device(name: Optional[str] = None) -> _core.Device:
    """The device called ``name`` (``None``: the ``TIERFFT_DEVICE`` environment variable,
    else ``"auto"``), opened once and kept: ``auto`` (CUDA, else a hardware GPU, else the
    CPU), ``cpu``, ``cuda``, ``cuda:N``, ``gpu``, ``gpu:N``, ``lavapipe``, or part of an
    adapter's name as ``tierfft devices`` lists it."""
    if name is None:
        name = os.environ.get("TIERFFT_DEVICE") or "auto"
    if not isinstance(name, str):
        raise TypeError(f"device must be a name such as 'cpu' or 'cuda' (got {name!r})")
    key = name.strip().lower()
    if _cuda_in_parent:
        # CUDA's rule for a child forked after its parent used it; "auto" takes the CPU.
        if key == "auto":
            key = "cpu"
        elif key.startswith("cuda"):
            raise RuntimeError(
                f"device {name!r}: this process was forked from one that had used CUDA, and "
                f"CUDA cannot be used in such a child; start workers with multiprocessing's "
                f"'spawn' or 'forkserver' method (multiprocessing.get_context('spawn')), or "
                f"transform on device='cpu' here"
            )
    with _devices_lock:
        if key not in _devices:
            _devices[key] = _core.Device(key)
        return _devices[key]


def _forget_devices() -> list:
    """In a forked child: the devices the parent opened, forgotten (the caller keeps them
    from being dropped, which would wait on driver threads the child does not have); the
    next call opens its device again."""
    global _devices, _devices_lock, _cuda_in_parent
    left = list(_devices.values())
    _cuda_in_parent = _cuda_in_parent or any(d.backend == "cuda" for d in left)
    _devices, _devices_lock = {}, threading.Lock()
    return left


def _is_auto(name: Optional[str]) -> bool:
    if name is None:
        name = os.environ.get("TIERFFT_DEVICE") or "auto"
    return isinstance(name, str) and name.strip().lower() == "auto"


def _check_norm(norm: Optional[str]) -> None:
    if norm not in _NORMS:
        raise ValueError(
            f'Invalid norm value {norm}; should be "backward","ortho" or "forward".'
        )


def _scale(norm: Optional[str], inverse: bool, points: int) -> float:
    """The factor NumPy's ``norm`` puts on a transform of ``points`` points in all."""
    if norm == "ortho":
        return 1.0 / math.sqrt(points)
    if (norm == "forward") != inverse:
        return 1.0 / points
    return 1.0


def _cook(shape: Tuple[int, ...], s, axes, kind: str, args: str):
    """NumPy's rules for ``n``/``s`` and ``axis``/``axes``: the transformed lengths and the
    axes (non-negative), checked as NumPy checks them."""
    ndim = len(shape)
    if args == "1d":
        n, axis = s, axes
        axes = [normalize_axis_index(operator.index(axis), ndim)]
        s = None if n is None else [n]
    else:
        if axes is None and args == "2d":
            axes = (-2, -1)
        if s is not None:
            s = list(s) if np.iterable(s) else [s]
            if axes is None:
                axes = range(-len(s), 0)
        elif axes is None:
            axes = range(ndim)
        axes = [normalize_axis_index(operator.index(a), ndim) for a in axes]
        if s is not None and len(s) != len(axes):
            raise ValueError("Shape and axes have different lengths.")
    if not axes:
        raise ValueError("no axes to transform")
    if s is None:
        s = [shape[a] for a in axes]
        if kind == "c2r":
            s[-1] = 2 * (shape[axes[-1]] - 1)
    else:
        s = list(s)
        for i, (n, a) in enumerate(zip(s, axes)):
            if n is None:
                # The one-axis transform's default length.
                s[i] = shape[a] if (kind != "c2r" or i < len(s) - 1) else 2 * (shape[a] - 1)
            elif n == -1 and args != "1d":
                # NumPy 2: the input's whole length along that axis.
                s[i] = shape[a]
            else:
                s[i] = operator.index(n)
    for n in s:
        if n < 1:
            raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return s, axes


def _dtypes(dtype: np.dtype, kind: str, func: str):
    """(complex dtype, real dtype, dtype of the result, double precision) for input of
    ``dtype``, as NumPy 2 chooses them: single precision for float16/float32/complex64,
    double for the rest (long double wider than double is transformed in its own
    precision: ``tierfft._extended``)."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "biufc":
        raise TypeError(f"{func} takes numeric arrays (got dtype {dtype})")
    if kind == "r2c" and dtype.kind == "c":
        raise TypeError(
            f"{func} takes real input (got {dtype}); use fft for complex data"
        )
    single = dtype in (np.float16, np.float32, np.complex64)
    complex_t, real_t = (np.complex64, np.float32) if single else (np.complex128, np.float64)
    if kind == "c2r":
        result = real_t
        if dtype == np.float16:
            result = np.float16
        elif dtype in (np.longdouble, np.clongdouble) and np.longdouble != np.float64:
            result = np.longdouble
    else:
        result = complex_t
        if dtype in (np.longdouble, np.clongdouble) and np.longdouble != np.float64:
            result = np.clongdouble
    return np.dtype(complex_t), np.dtype(real_t), np.dtype(result), not single


def _resized(a, axes: Sequence[int], lengths: Sequence[int], zeros):
    """``a`` cut or zero-padded along each of ``axes`` to ``lengths`` (NumPy's n/s)."""
    shape = list(a.shape)
    if all(shape[ax] == n for ax, n in zip(axes, lengths)):
        return a
    for ax, n in zip(axes, lengths):
        shape[ax] = n
    out = zeros(tuple(shape))
    common = tuple(slice(0, min(m, n)) for m, n in zip(a.shape, shape))
    out[common] = a[common]
    return out


class Plan:
    """One of numpy.fft's transforms (``func``: ``"fft"``, ``"rfftn"``, ...) with its
    arguments fixed, for arrays of ``shape`` and ``dtype``, planned and compiled once on
    ``device`` (a name, as for the functions). Calling it transforms an array as
    ``numpy.fft.<func>(a, ...)`` would::

        plan = tierfft.Plan("rfft2", (1024, 1024), np.float32, device="lavapipe")
        spectrum = plan(image)          # NumPy in, NumPy out
        plan(image, out=spectrum)       # into an array of the result's shape and type

    ``n``/``axis`` (one-axis functions) or ``s``/``axes`` (the others) and ``norm`` are
    numpy.fft's. A plan on a CUDA device also takes CuPy and PyTorch CUDA arrays, transformed
    where they lie (DLPack, no copies to the host) and returned in the same library.
    ``checksum`` (``"detect"`` or ``"recompute"``; complex transforms of lengths with no prime
    factor above 31) checks every transform against a checksum of its input: a failure raises
    :class:`tierfft.ChecksumError`.
    Plans may be called from several threads at once; the GIL is released while the
    device works.
    """

    def __init__(
        self,
        func: str,
        shape: Sequence[int],
        dtype: Any = np.complex64,
        *,
        n: Optional[int] = None,
        axis: int = -1,
        s: Optional[Sequence[int]] = None,
        axes: Optional[Sequence[int]] = None,
        norm: Optional[str] = None,
        device: Optional[str] = None,
        checksum: Optional[str] = None,
        _in_background: bool = False,
    ) -> None:
        if func not in FUNCTIONS:
            raise ValueError(
                f"func must be one of {', '.join(FUNCTIONS)} (got {func!r})"
            )
        kind, inverse, args = FUNCTIONS[func]
        # The arguments as given, for the CPU plan that runs while kernels compile.
        self._given = {"n": n, "axis": axis} if args == "1d" else {"s": s, "axes": axes}
        if args == "1d":
            if s is not None or axes is not None:
                raise TypeError(f"{func} takes n and axis, not s and axes")
            s, axes = n, axis
        elif n is not None:
            raise TypeError(f"{func} takes s and axes, not n")
        _check_norm(norm)
        if checksum not in (None, "detect", "recompute"):
            raise ValueError(
                f"checksum must be None, 'detect' or 'recompute' (got {checksum!r})"
            )
        self.checksum = checksum
        self.func = func
        self.shape = tuple(operator.index(m) for m in shape)
        self.dtype = np.dtype(dtype)
        self.norm = norm
        self.kind = kind
        self.inverse = inverse
        # The axes first, as NumPy checks them before the element type.
        self.lengths, self.axes = _cook(self.shape, s, axes, kind, args)
        complex_t, real_t, self.result_dtype, double = _dtypes(self.dtype, kind, func)
        # The precision of the data the plan takes (that of its arithmetic may be lower).
        self._double = double
        # Long double wider than f64 is transformed to its own precision, on the CPU.
        self._extended = _extended.wider_than_double(self.dtype)
        if self._extended and checksum is not None:
            raise ValueError(
                f"checksum={checksum!r}: {self.dtype} (wider than double) is transformed "
                "unchecked; convert it to complex128 for a checked transform"
            )
        if self._extended:
            device = "cpu"
        # "auto" takes the CPU for double-precision data (NumPy arrays on the host, where
        # the CPU's f64 transforms spare the copies); a GPU named for them transforms in f64
        # where it has f64 arithmetic, else in f32, and says so.
        if double and _is_auto(device):
            device = "cpu"
        self.device = open_device(device)
        # The name the device was asked for, which plans this plan makes open it by.
        self._device_arg = device
        if double and not self.device.has_f64:
            warnings.warn(
                PrecisionWarning(
                    f"{self.dtype} data are transformed in single precision on "
                    f"'{self.device.name}' (it has no f64 arithmetic); the result is "
                    f"{self.result_dtype} with f32's accuracy. device='cpu' transforms in f64."
                ),
                stacklevel=2,
            )
            double = False
            complex_t, real_t = np.dtype(np.complex64), np.dtype(np.float32)
        # The input as the transform takes it: its element type, and its extents along the
        # axes cut or padded to the lengths (a real inverse's last axis to n/2 + 1 bins).
        self.input_dtype = real_t if kind == "r2c" else complex_t
        self.output_dtype = real_t if kind == "c2r" else complex_t
        # The names CUDA array libraries take: the plan's type, the transform's input and
        # output, the result.
        self._names = tuple(
            np.dtype(t).name for t in (self.dtype, self.input_dtype, self.output_dtype, self.result_dtype)
        )
        sizes = list(self.lengths)
        if kind == "c2r":
            sizes[-1] = sizes[-1] // 2 + 1
        self._sizes = sizes
        resized = list(self.shape)
        for ax, m in zip(self.axes, sizes):
            resized[ax] = m
        self._resized_shape = tuple(resized)
        # Inputs of the plan's shape need no cutting or padding.
        self._same_size = self._resized_shape == self.shape
        out_shape = list(self.shape)
        for ax, m in zip(self.axes, self.lengths):
            out_shape[ax] = m
        if kind == "r2c":
            out_shape[self.axes[-1]] = self.lengths[-1] // 2 + 1
        self.output_shape = tuple(out_shape)
        # DLPack reserves stream 0; CUDA's legacy default stream, which tierfft's work is on
        # unless it was given a stream, is 1 there.
        self._cuda = (self.device.cuda_ordinal, self.device.cuda_stream or 1)
        self._empty = 0 in self._resized_shape
        # A repeated axis is transformed again, as NumPy does: one axis at a time then.
        self._steps: list = []
        self._transform = None
        # The native transform compiling in the background (`_in_background`), and the CPU
        # plan that runs meanwhile.
        self._pending: Optional[concurrent.futures.Future] = None
        self._first_call = True
        self._cpu: Optional[Plan] = None
        if self._empty:
            pass
        elif len(set(self.axes)) < len(self.axes):
            self._steps = self._one_axis_steps()
        elif self._extended:
            self._factor = _extended.norm_factor(norm, inverse, math.prod(self.lengths))
        elif _in_background and self._compiles_meanwhile():
            # The worker holds no reference to the plan: one dropped first is not compiled.
            self._pending = _background.submit(self, self._native(double))
        else:
            self._transform = self._native(double)()

    def _native(self, double: bool) -> Any:
        """What makes the native transform, in double or single precision (planned on the
        real array's shape for a real inverse)."""
        real_shape = self.output_shape if self.kind == "c2r" else self._resized_shape
        return functools.partial(
            _core.Transform,
            self.device,
            list(real_shape),
            self.axes,
            self.kind,
            self.inverse,
            _scale(self.norm, self.inverse, math.prod(self.lengths)),
            double,
            checksum=self.checksum,
        )

    def _compiles_meanwhile(self) -> bool:
        """Whether the native transform compiles in the background while the CPU runs: for
        small arrays on a GPU, with ``tierfft.config.compile_in_background`` on."""
        points = max(math.prod(self._resized_shape), math.prod(self.output_shape))
        return (
            config.compile_in_background
            and self.device.backend != "cpu"
            and points <= _background.MAX_POINTS
        )

    @property
    def compiling(self) -> bool:
        """Whether its kernels are still compiling in the background (plans the functions
        make for small arrays on a GPU with ``tierfft.config.compile_in_background`` on):
        calls run on the CPU meanwhile."""
        pending = self._pending
        return pending is not None and not pending.done()

    def _ready(self) -> bool:
        """Whether the native transform runs this call: made, or its background compile
        done (its first call waits for it a little; a compile's error is raised here)."""
        pending = self._pending
        if pending is None:
            return True
        wait = _background.FIRST_CALL_WAIT if self._first_call else 0
        self._first_call = False
        try:
            self._transform = pending.result(timeout=wait)
        except concurrent.futures.TimeoutError:
            return False
        self._pending = None
        return True

    def _on_cpu(self) -> "Plan":
        """The same transform on the CPU, for the calls made while kernels compile."""
        if self._cpu is None:
            self._cpu = Plan(self.func, self.shape, self.dtype, norm=self.norm, device="cpu",
                             checksum=self.checksum, **self._given)
        return self._cpu

    def _one_axis_steps(self) -> list:
        """NumPy's order for repeated axes: a real forward transform's halved axis first,
        then the others from the last; a real inverse's other axes first, halved last."""
        one = {"c2c": "ifft" if self.inverse else "fft", "r2c": "fft", "c2r": "ifft"}[self.kind]
        order = list(range(len(self.axes)))
        steps = []
        shape, dtype = self.shape, self.dtype
        if self.kind == "r2c":
            first = len(order) - 1
            order = [first] + order[-2::-1]
        elif self.kind == "c2r":
            order = order[:-1][::-1] + [len(order) - 1]
        else:
            order = order[::-1]
        for i in order:
            f = one
            if self.kind == "r2c" and i == len(self.axes) - 1:
                f = "rfft"
            if self.kind == "c2r" and i == len(self.axes) - 1:
                f = "irfft"
            plan = Plan(
                f,
                shape,
                dtype,
                n=self.lengths[i],
                axis=self.axes[i],
                norm=self.norm,
                device=self._device_arg,
                checksum=self.checksum,
            )
            steps.append(plan)
            shape, dtype = plan.output_shape, plan.result_dtype
        return steps

    @property
    def held_bytes(self) -> int:
        """Bytes of the device's memory its transforms hold now (``Transform.held_bytes``):
        the one it runs, or its steps'."""
        if not self._steps:  # after every call of the functions: the short way
            return 0 if self._transform is None else self._transform.held_bytes
        return sum(p.held_bytes for p in self._steps)

    def __repr__(self) -> str:
        return (
            f"tierfft.Plan({self.func!r}, {self.shape}, {self.dtype}, lengths={self.lengths}, "
            f"axes={self.axes}, norm={self.norm!r}, device={self.device.name!r}"
            + (f", checksum={self.checksum!r})" if self.checksum else ")")
        )

    def __call__(self, a: Any, out: Any = None, *, workers: Optional[int] = None) -> Any:
        """``a`` transformed: a NumPy array (or anything ``numpy.asarray`` takes) of the
        plan's shape, or on a CUDA device a CuPy or PyTorch CUDA array. ``out``, if given,
        receives the result and is returned (of the result's shape; for CUDA arrays also of
        its element type and C-contiguous). ``workers``: the most CPU threads a transform on
        the CPU uses, as SciPy's (negative counts back from the number of cores: -1 is every
        core; default every core)."""
        library = cuda_library(a)
        if library is not None:
            return self._call_cuda(arrays_of(library), a, out)
        threads = cpu_workers(workers)
        a = np.asarray(a)
        self._check_input(a.shape, a.dtype)
        if self._steps:
            for step in self._steps[:-1]:
                a = step(a, workers=workers)
            return self._steps[-1](a, out=out, workers=workers)
        if self._empty:
            return self._deliver(np.zeros(self.output_shape, self.result_dtype), out)
        if self._pending is not None and not self._ready():
            return self._on_cpu()(a, out, workers=workers)
        if self._extended:
            a = _resized(a, self.axes, self._sizes, lambda shape: np.zeros(shape, a.dtype))
            result = _extended.transform(a, self.kind, self.inverse, self.axes, self.lengths,
                                         self._factor, threads)
            return self._deliver(result, out)
        original = a
        a = a.astype(self.input_dtype, copy=False)
        a = _resized(a, self.axes, self._sizes, lambda shape: np.zeros(shape, self.input_dtype))
        a = np.ascontiguousarray(a)
        ours = a is not original and not np.may_share_memory(a, original)
        if self.kind == "c2c" and ours:
            result = a  # a copy of the caller's data already: transform it in place
        elif (
            out is not None
            and isinstance(out, np.ndarray)
            and out.dtype == self.output_dtype
            and out.shape == self.output_shape
            and out.flags.c_contiguous
            and out.flags.writeable
            and not np.may_share_memory(out, a)
        ):
            self._transform.execute(a, out, threads)
            return out
        else:
            result = np.empty(self.output_shape, self.output_dtype)
        self._transform.execute(a, result, threads)
        return self._deliver(result, out)

    def _check_input(self, shape, dtype) -> None:
        if dtype == self.dtype and tuple(shape) == self.shape:
            return
        if tuple(shape) != self.shape:
            raise ValueError(
                f"this plan takes arrays of shape {self.shape} (got {tuple(shape)})"
            )
        dtype = np.dtype(dtype)
        if dtype.kind == "c" and self.kind == "r2c":
            raise TypeError(f"{self.func} takes real input (got {dtype}); use fft for complex data")
        if dtype.kind not in "biufc":
            raise TypeError(f"{self.func} takes numeric arrays (got dtype {dtype})")
        if _dtypes(dtype, self.kind, self.func)[3] != self._double:
            raise TypeError(
                f"this plan was made for {self.dtype} data and transforms in "
                f"{'double' if self._double else 'single'} precision (got {dtype}); make a "
                f"plan for {dtype}"
            )

    def _deliver(self, result: np.ndarray, out: Any) -> Any:
        if result.dtype != self.result_dtype:
            result = result.astype(self.result_dtype)
        if out is None:
            return result
        if not isinstance(out, np.ndarray):
            # NumPy's words ("must be of ArrayType", "has wrong shape"), which callers match.
            raise TypeError(
                f"out must be of ArrayType: a NumPy array here (got {type(out).__name__})"
            )
        if out.shape != self.output_shape:
            raise ValueError(
                f"out has wrong shape {out.shape}: the result has shape {self.output_shape}"
            )
        np.copyto(out, result, casting="same_kind")
        return out

    def _call_cuda(self, xp: CudaArrays, a: Any, out: Any, on_own_gpu: bool = False) -> Any:
        """``a`` transformed; ``on_own_gpu``: the plan was made for ``a``'s own GPU (the
        functions' plans, when no device was named), which need not be checked again."""
        dev = self.device
        ordinal, stream = self._cuda
        if ordinal is None:
            raise ValueError(
                f"a CUDA array was given to a plan on '{dev.name}'; use device='cuda' (or "
                f"copy the array to the host, e.g. cupy.asnumpy(a) or a.cpu().numpy())"
            )
        if not on_own_gpu and xp.ordinal(a) != ordinal:
            raise ValueError(
                f"the array is on CUDA device {xp.ordinal(a)}, but the plan is on CUDA "
                f"device {ordinal} ('{dev.name}')"
            )
        name, shape = xp.dtype_name(a), xp.shape(a)
        if name != self._names[0] or shape != self.shape:
            self._check_input(shape, np.dtype(name))
        if self._steps:
            for step in self._steps[:-1]:
                a = step(a)
            return self._steps[-1](a, out=out)
        if self._empty:
            return xp.zeros(self.output_shape, self._names[3], a)
        if self._pending is not None and not self._ready():
            # Through the host while the kernels compile: small arrays, a few copies.
            result = xp.from_host(self._on_cpu()(xp.to_host(a)), a)
            if out is None:
                return result
            xp.copy_into(out, result)
            return out
        transform, names = self._transform, self._names
        if name != names[1]:
            a = xp.astype(a, names[1])
        if not self._same_size:
            a = _resized(a, self.axes, self._sizes, lambda shape: xp.zeros(shape, names[1], a))
        a = xp.contiguous(a)
        result = out
        if out is None or xp.dtype_name(out) != names[2]:
            result = xp.empty(self.output_shape, names[2], a, ordinal)
        # Asynchronous, as the library's own calls: its current stream is ordered after the
        # transform, nothing waits on the host.
        transform.execute_dlpack(
            a.__dlpack__(stream=stream), result.__dlpack__(stream=stream), xp.current_stream(a)
        )
        if out is None:
            return result if names[2] == names[3] else xp.astype(result, names[3])
        if result is not out:
            xp.copy_into(out, result)
        return out


def cpu_workers(workers: Optional[int]) -> Optional[int]:
    """SciPy's ``workers``: a count of CPU threads, negative ones counted back from the
    number of cores (-1: every core); ``None`` for rayon's pool of every core."""
    if workers is None:
        return None
    workers = operator.index(workers)
    cores = os.cpu_count() or 1
    threads = workers if workers > 0 else cores + 1 + workers
    if workers == 0 or threads < 1:
        # SciPy's own words first, for code that matches them.
        what = "workers must not be zero" if workers == 0 else "workers value out of range"
        raise ValueError(
            f"{what}: workers={workers}; give a number of threads from 1, or a negative "
            f"count back from this machine's {cores} cores (-1 for every core)"
        )
    return threads


def cached_plan(func: str, shape, dtype, device: Optional[str], **kwargs) -> Plan:
    """The plan for these arguments, from its device's cache or made and kept there
    (:mod:`tierfft.config`; the keyword arguments hashable: tuples, not lists)."""
    if device is None:
        device = os.environ.get("TIERFFT_DEVICE") or "auto"
    key = (func, shape, dtype, device, *kwargs.values())
    plan = kept(key)
    if plan is None:
        plan = cached(key, lambda: Plan(func, shape, dtype, device=device, _in_background=True, **kwargs))
    return plan
