"""Transforms spread over several devices: ``fftn``, ``ifftn``, ``rfftn`` and ``irfftn`` of an
array too large for one GPU, or faster on several, each rank (device) holding a box of the
global array.

Every rank in this process, one per GPU (CuPy or PyTorch arrays, one per GPU; or NumPy
arrays, copied to and from each GPU)::

    import numpy as np
    import tierfft.distributed as td

    plan = td.DistPlan((8192, 8192), ["cuda:0", "cuda:1"])
    parts = plan.scatter(x)                   # rank r's rows: x[plan.input_slices(r)]
    spectra = plan(parts)                     # rank r's columns: plan.output_slices(r)
    whole = plan.gather(spectra)              # np.fft.fftn(x), in complex64

Or this process one rank of several that torchrun, mpirun or srun started, one per GPU
(the launcher's RANK/WORLD_SIZE/LOCAL_RANK and MASTER_ADDR/MASTER_PORT, or its own
variables), meeting the others before the plan is made::

    plan = td.DistPlan.from_env((8192, 8192))
    spectrum = plan(x[plan.input_slices(plan.rank)])   # every rank calls it

The array is cut in slabs (rows of axis 0 in, columns of axis 1 out: ``spectrum=
"transposed"``, one all-to-all; ``"natural"`` cuts the spectrum like the input, at a second
all-to-all's cost) or, for 3-D arrays, in pencils over a ``grid=(p0, p1)`` of ranks. A forward
transform and an inverse of the same plan's settings round-trip. Transforms are complex64 /
float32 (others are converted, double precision with a :class:`PrecisionWarning`).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from . import _core
from ._arrays import arrays_of, cuda_library
from ._plan import PrecisionWarning, _check_norm, open_device

__all__ = ["DistPlan"]


class DistPlan:
    """A transform of a global array of ``shape`` (the real array's for ``real=True``)
    spread over ``devices``, one rank each: all ``"cuda:N"`` (a GPU may be named twice with
    ``link="peer"``) or all ``"cpu"``. ``inverse``: the inverse (C2R for ``real``).
    ``norm``: NumPy's (``"ortho"`` scales after the transform, an extra pass). ``parts``: each
    slab's change of layout in that many parts, the all-to-all of one beside the transform of
    the next (default: the planner's choice); ``link``: ``"default"`` (NCCL where it loads),
    ``"nccl"``, ``"peer"`` (copies between the GPUs' memories) or ``"measure"`` (both timed
    on this transform, the faster kept)."""

    def __init__(
        self,
        shape: Sequence[int],
        devices: Sequence[Any],
        *,
        real: bool = False,
        inverse: bool = False,
        norm: Optional[str] = None,
        spectrum: str = "transposed",
        grid: Optional[Tuple[int, int]] = None,
        parts: Optional[int] = None,
        link: str = "default",
    ) -> None:
        opened = [open_device(d) if isinstance(d, str) else d for d in devices]
        normalize, self._scale = _normalization(norm, inverse, shape)
        self._native = _core.DistTransform(
            [int(n) for n in shape],
            opened,
            real=real,
            inverse=inverse,
            normalize=normalize,
            spectrum=spectrum,
            grid=grid,
            parts=parts,
            link=link,
        )

    @classmethod
    def from_env(
        cls,
        shape: Sequence[int],
        *,
        cpu: bool = False,
        real: bool = False,
        inverse: bool = False,
        norm: Optional[str] = None,
        spectrum: str = "transposed",
        grid: Optional[Tuple[int, int]] = None,
        parts: Optional[int] = None,
        timeout: float = 300.0,
    ) -> "DistPlan":
        """This process as one rank of those a launcher started (its environment says which
        and where the ranks meet), on the GPU of its local rank over NCCL, or on the CPU over
        TCP with ``cpu=True``; waits up to ``timeout`` seconds for the others. Every rank
        must make the same plan."""
        plan = cls.__new__(cls)
        normalize, plan._scale = _normalization(norm, inverse, shape)
        plan._native = _core.DistTransform.from_env(
            [int(n) for n in shape],
            real=real,
            inverse=inverse,
            normalize=normalize,
            spectrum=spectrum,
            grid=grid,
            parts=parts,
            cpu=cpu,
            timeout=timeout,
        )
        return plan

    @property
    def ranks(self) -> int:
        """Ranks of the whole transform."""
        return self._native.ranks

    @property
    def local_ranks(self) -> List[int]:
        """The ranks this process runs (all of them, or its own under a launcher)."""
        return self._native.local_ranks

    @property
    def rank(self) -> Optional[int]:
        """This process's rank when it runs one (under a launcher), else ``None``."""
        local = self.local_ranks
        return local[0] if len(local) == 1 and self.ranks > 1 else None

    @property
    def link(self) -> str:
        """What carries the all-to-alls: ``"NCCL"``, ``"peer copies"``, ``"host memory"``
        or ``"sockets"``."""
        return self._native.link

    @property
    def input_shape(self) -> Tuple[int, ...]:
        """The global input array's shape."""
        return tuple(self._native.input_shape)

    @property
    def output_shape(self) -> Tuple[int, ...]:
        """The global output array's shape."""
        return tuple(self._native.output_shape)

    def input_slices(self, rank: int) -> Tuple[slice, ...]:
        """The part of the global input rank ``rank`` holds: ``x[plan.input_slices(r)]``."""
        return tuple(slice(a, b) for a, b in self._native.input_box(rank))

    def output_slices(self, rank: int) -> Tuple[slice, ...]:
        """The part of the global output rank ``rank`` holds."""
        return tuple(slice(a, b) for a, b in self._native.output_box(rank))

    def scatter(self, x: Any) -> List[np.ndarray]:
        """The local ranks' parts of the global host array ``x``, as NumPy arrays."""
        x = np.asarray(x)
        if x.shape != self.input_shape:
            raise ValueError(f"the array has shape {x.shape}; the plan takes {self.input_shape}")
        return [np.ascontiguousarray(x[self.input_slices(r)]) for r in self.local_ranks]

    def gather(self, parts: Sequence[Any]) -> np.ndarray:
        """The global output from every rank's part (all ranks in this process), on the
        host; CUDA arrays are copied there."""
        if len(parts) != self.ranks:
            raise ValueError(f"{self.ranks} ranks' parts to gather, {len(parts)} given")
        whole = None
        for r, part in enumerate(parts):
            library = cuda_library(part)
            if library == "cupy":
                part = part.get()
            elif library == "torch":
                part = part.cpu().numpy()
            part = np.asarray(part)
            if whole is None:
                whole = np.empty(self.output_shape, part.dtype)
            whole[self.output_slices(r)] = part
        return whole

    def __call__(self, parts: Any, *, overwrite_input: bool = False) -> Any:
        """The transform of every local rank's part: a list of arrays, one per local rank
        in order (or one array where this process runs one rank), NumPy arrays or CUDA
        arrays of CuPy or PyTorch on the rank's GPU; returns the output parts alike. CUDA
        inputs are copied first unless ``overwrite_input`` (the transform uses them as
        scratch). Every rank of the group must call it."""
        single = not isinstance(parts, (list, tuple))
        if single:
            parts = [parts]
        local = self.local_ranks
        if len(parts) != len(local):
            raise ValueError(f"this process runs {len(local)} rank(s); {len(parts)} part(s) given")
        n = self._native
        in_dtype = "float32" if n.real_input else "complex64"
        out_dtype = "float32" if n.real_output else "complex64"
        libraries = {cuda_library(p) for p in parts}
        if libraries == {None}:
            ins = [np.ascontiguousarray(_single(np.asarray(p), in_dtype)) for p in parts]
            outs = [np.empty(_shape(self.output_slices(r)), out_dtype) for r in local]
            n.execute(ins, outs)
            if self._scale != 1.0:
                for o in outs:
                    o *= self._scale
        elif len(libraries) == 1:
            xp = arrays_of(libraries.pop())
            ins = []
            for p in parts:
                a = xp.contiguous(xp.astype(_single_cuda(xp, p, in_dtype), in_dtype))
                if a is p and not overwrite_input:
                    a = a.copy() if xp.library == "cupy" else a.clone()
                ins.append(a)
            outs = [
                xp.empty(_shape(self.output_slices(r)), out_dtype, a) for r, a in zip(local, ins)
            ]
            ours = n.cuda_streams
            theirs = [xp.current_stream(a) for a in ins]
            n.execute_dlpack(
                [a.__dlpack__(stream=s) for a, s in zip(ins, ours)],
                [o.__dlpack__(stream=s) for o, s in zip(outs, ours)],
                theirs,
            )
            if self._scale != 1.0:
                for o in outs:
                    o *= self._scale
        else:
            raise TypeError(
                "a plan's parts are all NumPy arrays or all CUDA arrays of one library (got "
                f"{sorted(map(str, libraries))})"
            )
        return outs[0] if single else outs

    def __str__(self) -> str:
        return str(self._native)

    def __repr__(self) -> str:
        return repr(self._native)


def _normalization(norm: Optional[str], inverse: bool, shape: Sequence[int]) -> Tuple[bool, float]:
    """NumPy's ``norm`` as the native 1/N scaling and a factor applied after."""
    _check_norm(norm)
    if norm == "ortho":
        return False, 1.0 / math.sqrt(math.prod(int(n) for n in shape))
    return (norm == "forward") != inverse, 1.0


def _shape(slices: Tuple[slice, ...]) -> Tuple[int, ...]:
    return tuple(s.stop - s.start for s in slices)


def _single(a: np.ndarray, dtype: str) -> np.ndarray:
    """``a`` as ``dtype`` (complex64/float32), warning where precision is lost."""
    if a.dtype == dtype:
        return a
    if a.dtype.kind == "c" and dtype == "float32":
        raise TypeError(f"a real transform takes real parts (got {a.dtype})")
    # Bytes per real number above f32's.
    if a.dtype.kind in "fc" and a.dtype.itemsize // (2 if a.dtype.kind == "c" else 1) > 4:
        warnings.warn(
            PrecisionWarning(
                f"distributed transforms run in single precision: {a.dtype} parts are "
                f"converted to {dtype}"
            ),
            stacklevel=3,
        )
    return a.astype(dtype)


def _single_cuda(xp: Any, a: Any, dtype: str) -> Any:
    name = xp.dtype_name(a)
    if name in ("float64", "complex128"):
        warnings.warn(
            PrecisionWarning(
                f"distributed transforms run in single precision: {name} parts are "
                f"converted to {dtype}"
            ),
            stacklevel=3,
        )
    if name.startswith("complex") and dtype == "float32":
        raise TypeError(f"a real transform takes real parts (got {name})")
    return a
