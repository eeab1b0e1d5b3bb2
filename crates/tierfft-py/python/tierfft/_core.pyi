"""Type stubs of the native module ``tierfft._core`` (Rust, PyO3)."""

from typing import Any, List, Optional, Tuple

import numpy as np

__version__: str

class DeviceError(RuntimeError):
    """A device could not be opened or failed: no such device, a GPU API error, a lost
    device or a kernel that did not compile."""

class ChecksumError(RuntimeError):
    """A checksummed transform's output failed its check (a fault in device memory or in a
    unit, or a NaN or infinity in the data). The output is not to be trusted."""

    transforms: List[int]
    """The batch indices hit: row-major over the axes not transformed."""
    batch: int
    """How many batch elements the call had (the product of the axes not transformed)."""

class Device:
    """A device transforms run on, opened by name: ``auto``, ``cpu``, ``cuda``, ``cuda:N``,
    ``gpu``, ``gpu:N``, ``lavapipe``, or part of an adapter's name."""

    def __init__(self, name: str) -> None: ...
    @property
    def name(self) -> str:
        """The device's name."""
    @property
    def backend(self) -> str:
        """``"cpu"``, ``"wgpu"`` or ``"cuda"``."""
    @property
    def has_f64(self) -> bool:
        """Whether it transforms complex128/float64 data in f64 (the CPU, CUDA, wgpu devices
        with f64 arithmetic)."""
    @property
    def cuda_ordinal(self) -> Optional[int]:
        """The CUDA device ordinal (``None`` off CUDA)."""
    @property
    def cuda_stream(self) -> Optional[int]:
        """The handle of the CUDA stream tierfft queues its work on (``None`` off CUDA)."""
    @property
    def workspace_bytes(self) -> int:
        """Bytes of device memory held by the work arrays the device's transforms share
        (sized for the largest call so far; not in any plan's ``held_bytes``)."""
    def free_workspace(self) -> None:
        """Frees the shared work arrays; the next call that needs them makes them again."""

class Transform:
    """An N-D or real transform over ``axes`` of C-contiguous arrays of ``shape``, planned
    and compiled once on ``device``. ``kind``: ``"c2c"``, ``"r2c"`` or ``"c2r"`` (``shape``
    is the real array's), or a DCT or DST ``"dct1"`` ... ``"dst4"`` (real in and out;
    ``orthogonalize`` is SciPy's); the result is multiplied by ``scale``; ``double`` takes
    complex128/float64 data (devices with ``has_f64``; host arrays only); ``checksum``
    (``"detect"`` or ``"recompute"``, ``"c2c"`` only) checks every axis' transform, a failure
    raising :class:`ChecksumError`."""

    def __init__(
        self,
        device: Device,
        shape: List[int],
        axes: List[int],
        kind: str,
        inverse: bool = False,
        scale: float = 1.0,
        double: bool = False,
        orthogonalize: bool = False,
        checksum: Optional[str] = None,
    ) -> None: ...
    @property
    def input_shape(self) -> List[int]: ...
    @property
    def output_shape(self) -> List[int]: ...
    @property
    def double(self) -> bool: ...
    @property
    def held_bytes(self) -> int: ...
    @property
    def device(self) -> str: ...
    def execute(
        self, input: np.ndarray, output: np.ndarray, workers: Optional[int] = None
    ) -> None:
        """Runs on NumPy arrays, ``input`` into ``output`` (C2C: ``output`` may be
        ``input``, in place). The GIL is released while it runs. ``workers``: the CPU
        threads it may use (default every core)."""
    def execute_dlpack(self, input: Any, output: Any, stream: Optional[int] = None) -> None:
        """Runs on CUDA arrays given as DLPack capsules, without copies to the host. With
        ``stream`` (a ``CUstream`` handle of the arrays' context, 0 for the legacy default
        stream) that stream is ordered after the transform and the call returns at once;
        without, it returns when the device has finished."""

class ExtendedTransform:
    """One-dimensional transforms of ``n`` points in double-double arithmetic on the CPU
    (about 32 significant digits), for long double data split into two float64 parts."""

    def __init__(self, n: int, inverse: bool) -> None: ...
    @property
    def n(self) -> int: ...
    def execute(self, hi: Any, lo: Any, scale_hi: float, scale_lo: float,
                workers: Optional[int] = None) -> None:
        """Transforms in place every line of ``n`` values ``hi + lo`` (two C-contiguous
        complex128 arrays of one size, lines along the last axis), each result multiplied by
        ``scale_hi + scale_lo``."""

class DistTransform:
    """A transform spread over ranks (``tierfft.distributed.DistPlan`` wraps it)."""

    def __init__(
        self,
        shape: List[int],
        devices: List[Device],
        *,
        real: bool = False,
        inverse: bool = False,
        normalize: bool = False,
        spectrum: str = "transposed",
        grid: Optional[Tuple[int, int]] = None,
        parts: Optional[int] = None,
        link: str = "default",
    ) -> None: ...
    @staticmethod
    def from_env(
        shape: List[int],
        *,
        real: bool = False,
        inverse: bool = False,
        normalize: bool = False,
        spectrum: str = "transposed",
        grid: Optional[Tuple[int, int]] = None,
        parts: Optional[int] = None,
        cpu: bool = False,
        timeout: float = 300.0,
    ) -> "DistTransform": ...
    ranks: int
    local_ranks: List[int]
    link: str
    parts: int
    input_shape: List[int]
    output_shape: List[int]
    real_input: bool
    real_output: bool
    cuda_ordinals: List[Optional[int]]
    cuda_streams: List[Optional[int]]
    def input_box(self, rank: int) -> List[Tuple[int, int]]: ...
    def output_box(self, rank: int) -> List[Tuple[int, int]]: ...
    def execute(self, inputs: List[np.ndarray], outputs: List[np.ndarray]) -> None: ...
    def execute_dlpack(
        self, inputs: List[Any], outputs: List[Any], streams: List[Optional[int]]
    ) -> None: ...

def forked() -> None:
    """Called in a forked child (``tierfft._fork``): the CPU pools made again, GPU devices
    opened before the fork refusing work."""

def simulate(config: Optional[str] = None, replica: Optional[np.ndarray] = None) -> np.ndarray:
    """Simulated raw echoes (complex64 ``[lines, samples]``) of the TOML ``config``."""

def scene_toml(config: Optional[str] = None) -> str:
    """The TOML of the scene ``simulate(config)`` simulates, every value written out."""

def read_l0b(
    path: str, channel: Optional[str] = None, antenna_m: Optional[float] = None
) -> Tuple[np.ndarray, str, str]:
    """A NISAR L0B product: its echoes (complex64), its configuration (TOML), what it said
    (JSON)."""

def focus(
    raw: np.ndarray,
    device: Device,
    config: Optional[str] = None,
    range_window: str = "none",
    azimuth_window: str = "none",
    rcmc: bool = True,
    azimuth_equalisation: bool = True,
    measure: bool = True,
    src: Optional[bool] = None,
    replica: Optional[np.ndarray] = None,
    algorithm: str = "rda",
    radiometry: str = "normalised",
    zero_nonfinite: bool = False,
    trust_layout: bool = False,
) -> Tuple[np.ndarray, str]:
    """Focuses ``raw`` and returns the image and the metrics as JSON text."""
