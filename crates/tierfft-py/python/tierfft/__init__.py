"""tierfft: numpy.fft's transforms on GPUs (CUDA, Vulkan, Metal, DX12) and the CPU.

The functions take numpy.fft's arguments and return what it returns::

    import numpy as np
    import tierfft

    x = np.random.default_rng(0).standard_normal((64, 1000)).astype(np.float32)
    spectrum = tierfft.rfft(x)                  # on the best device present
    back = tierfft.irfft(spectrum, n=1000, device="lavapipe")

Precision follows the input as in NumPy 2: complex64 results for float16, float32 and
complex64 input (transformed in f32 on any device), complex128 otherwise (transformed in
f64 on the CPU, which ``auto`` picks for them, and on a GPU named for them that has f64
arithmetic; one without it, Metal, transforms in f32 and warns with
:class:`PrecisionWarning`). CuPy and PyTorch CUDA arrays are transformed where they lie
(double-precision ones in f64).
SciPy's discrete cosine and sine transforms of types 1 to 4 (``dct``, ``idct``, ``dctn``,
``idctn``, ``dst``, ``idst``, ``dstn``, ``idstn``) take SciPy's arguments.
For repeated transforms of one shape, :class:`Plan` plans once (the functions keep the
plans they made, within a budget of plans and device memory per device that
:mod:`tierfft.config` reads and sets). The GIL is released while a transform runs.
The complex transforms take ``checksum="detect"`` (or ``"recompute"``): each transform is
checked against a weighted checksum of its input, and a fault raises
:class:`ChecksumError` instead of returning corrupted data.

:mod:`tierfft.distributed` spreads N-D transforms over several GPUs (CuPy, PyTorch or NumPy
arrays, one process or one per GPU); :mod:`tierfft.sar` focuses synthetic-aperture-radar
echoes; ``python -m tierfft.bench``
times the transforms against NumPy, SciPy, pyFFTW and CuPy where installed.
"""

import os as _os

# Mesa's Vulkan device-selection layer probes for a display while adapters are listed and
# complains without one; tierfft chooses devices itself.
_os.environ.setdefault("NODEVICE_SELECT", "1")

from ._core import ChecksumError, Device, DeviceError, Transform, __version__  # noqa: E402
from ._fft import (  # noqa: E402
    fft,
    fft2,
    fftn,
    hfft,
    ifft,
    ifft2,
    ifftn,
    ihfft,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftn,
)
from ._plan import Plan, PrecisionWarning, open_device  # noqa: E402
from ._trig import dct, dctn, dst, dstn, idct, idctn, idst, idstn  # noqa: E402
from numpy.fft import fftfreq, fftshift, ifftshift, rfftfreq  # noqa: E402

from . import _fork, config, distributed, sar  # noqa: E402, F401

__all__ = [
    "ChecksumError",
    "Device",
    "DeviceError",
    "Plan",
    "PrecisionWarning",
    "Transform",
    "__version__",
    "dct",
    "dctn",
    "dst",
    "dstn",
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifft2",
    "ifftn",
    "idct",
    "idctn",
    "idst",
    "idstn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfft2",
    "irfftn",
    "open_device",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
    "config",
    "distributed",
    "sar",
]
