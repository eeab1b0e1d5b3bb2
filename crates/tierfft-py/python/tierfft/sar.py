"""Synthetic-aperture-radar focusing from Python: the Range-Doppler processor of
``tierfft sar`` (docs/SAR.md) on NumPy arrays.

::

    import tierfft.sar

    raw = tierfft.sar.simulate()                       # the seeds' 4096 x 4096 scene
    image, metrics = tierfft.sar.focus(raw, device="cpu")
    for t in metrics["targets"]:
        print(t["range_m"], t["metrics"]["range"]["pslr_db"])
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np

from . import _core
from ._plan import open_device

__all__ = ["simulate", "focus"]

Config = Union[str, Dict[str, Any], None]


def _toml(config: Config) -> Optional[str]:
    """The config as TOML text: given as text, a path to a ``.toml`` file, or a dict of
    tables (``{"radar": {...}, "scene": {...}}``, keys as in ``tierfft sar --config``)."""
    if config is None:
        return None
    if isinstance(config, dict):
        return _dict_to_toml(config)
    if isinstance(config, str) and ("\n" in config or "=" in config):
        return config
    if isinstance(config, (str, os.PathLike)):
        with open(config, encoding="utf-8") as f:
            return f.read()
    raise TypeError(
        f"config must be TOML text, a path to a TOML file or a dict (got {type(config).__name__})"
    )


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(float(v)) if isinstance(v, float) else str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        # Arrays, such as radar.doppler_centroid_hz = [[range_m, hz], ...].
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(
        f"config values must be numbers, booleans, strings or lists of them (got {v!r})"
    )


def _dict_to_toml(config: Dict[str, Any]) -> str:
    lines = []
    for table, values in config.items():
        if not isinstance(values, dict):
            raise TypeError(f"config[{table!r}] must be a dict of keys (got {values!r})")
        lines.append(f"[{table}]")
        arrays = {}
        for key, v in values.items():
            if isinstance(v, (list, tuple)) and all(isinstance(x, dict) for x in v):
                arrays[key] = v
            else:
                lines.append(f"{key} = {_value(v)}")
        for key, items in arrays.items():
            for item in items:
                lines.append(f"[[{table}.{key}]]")
                lines.extend(f"{k} = {_value(x)}" for k, x in item.items())
    return "\n".join(lines) + "\n"


def _replica(replica: Any) -> Optional[np.ndarray]:
    if replica is None:
        return None
    replica = np.asarray(replica)
    if replica.ndim != 1:
        raise ValueError(f"replica must be a 1-D array of pulse samples (got shape {replica.shape})")
    return np.ascontiguousarray(replica, dtype=np.complex64)


def simulate(config: Config = None, *, replica: Any = None) -> np.ndarray:
    """Raw echoes of the scene ``config`` describes (TOML text, a path, or a dict; ``None``:
    the seeds' 4096 x 4096 scene with five point targets at 20 dB SNR), complex64
    ``[azimuth lines, range samples]``. ``replica``: a measured transmit pulse (1-D complex
    samples at the range sampling rate) to transmit instead of the ideal chirp."""
    return _core.simulate(_toml(config), _replica(replica))


def focus(
    raw: Any,
    config: Config = None,
    *,
    device: Optional[str] = None,
    range_window: str = "none",
    azimuth_window: str = "none",
    rcmc: bool = True,
    azimuth_equalisation: bool = True,
    measure: bool = True,
    src: Optional[bool] = None,
    replica: Any = None,
    algorithm: str = "rda",
    radiometry: str = "normalised",
) -> Tuple[np.ndarray, Dict[str, Any]]:
    """Focuses ``raw`` echoes (complex ``[azimuth lines, range samples]``, any size from 16,
    processed with margins and cropped back) with the Range-Doppler algorithm
    (``algorithm="rda"``) or the chirp scaling algorithm (``"csa"``: migration corrected by
    phase multiplies, no interpolation) on ``device``
    and, unless ``measure`` is false, measures the config's point targets (where it lists
    none, the seeds' five, as :func:`simulate` places them; ``targets = []`` under
    ``[scene]`` lists none). The config's ``radar.near_range_m`` (or its default) is the
    range of the first sample. The Doppler centroid is the config's
    ``radar.doppler_centroid_hz`` (Hz, or ``[[range_m, hz], ...]``), or estimated from the
    echoes when it gives none (``metrics["doppler_centroid"]`` says which); the antenna's
    azimuth pattern likewise is ``radar.azimuth_pattern`` (``"uniform"`` or ``"sinc2"``) or
    recognised in the echoes (``metrics["azimuth_pattern"]``). ``src`` forces
    secondary range compression on or off (``None``: when the scene needs it). ``replica``:
    the transmitted pulse as measured (1-D complex samples at the range sampling rate, its
    delay reference at sample 0 with ``pulse_reference = "start"``, in its middle with
    ``"centre"``), the matched filter's replica instead of the ideal chirp. ``radiometry``:
    ``"normalised"`` (equal targets image with equal peaks at every range), ``"raw"`` (the
    azimuth processing gain as it comes, growing with range) or ``"spreading"`` (normalised,
    and the echoes' 1/R² spreading loss undone).

    Returns the focused complex64 image and a dict of metrics: ``device``, ``src``,
    ``algorithm``, ``radiometry``, ``doppler_centroid``, ``azimuth_pattern``, ``timings_s``
    (seconds per step), ``theory`` (IRW in bins, PSLR and ISLR in dB) and per target
    ``metrics`` (as imaged) and ``alone`` (the other targets' modelled responses taken out),
    each with ``range`` and ``azimuth`` cuts (``irw_bins``, ``pslr_db``, ``islr_db``,
    ``peak_position``) and ``peak_snr_db``; a target that could not be measured has
    ``error``. Windows: ``none``, ``hamming``, ``taylor``, ``taylor:NBAR:SLL_DB``,
    ``kaiser`` or ``kaiser:BETA``.
    """
    raw = np.asarray(raw)
    if raw.ndim != 2:
        raise ValueError(
            f"raw must be a 2-D array [azimuth lines, range samples] (got shape {raw.shape})"
        )
    if raw.dtype.kind not in "fc":
        raise TypeError(f"raw must hold complex (or real) samples (got dtype {raw.dtype})")
    raw = np.ascontiguousarray(raw, dtype=np.complex64)
    image, metrics = _core.focus(
        raw,
        open_device(device),
        _toml(config),
        range_window,
        azimuth_window,
        rcmc,
        azimuth_equalisation,
        measure,
        src,
        _replica(replica),
        algorithm,
        radiometry,
    )
    return image, json.loads(metrics)
