"""Synthetic-aperture-radar focusing from Python: the Range-Doppler processor of
``tierfft sar`` (docs/SAR.md) on NumPy arrays.

::

    import tierfft.sar

    raw = tierfft.sar.simulate()                       # the 4096 x 4096 reference scene
    image, metrics = tierfft.sar.focus(raw, device="cpu")
    for t in metrics["targets"]:
        print(t["range_m"], t["metrics"]["range"]["pslr_db"])
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np

from . import _core
from ._plan import open_device

__all__ = ["simulate", "scene_toml", "focus", "read_l0b"]

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
            # A non-empty list of dicts is an array of tables; an empty list stays a key
            # (``targets = []``: no targets, not the reference scene's five).
            if isinstance(v, (list, tuple)) and v and all(isinstance(x, dict) for x in v):
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
    the 4096 x 4096 reference scene with five point targets at 20 dB SNR), complex64
    ``[azimuth lines, range samples]``. ``replica``: a measured transmit pulse (1-D complex
    samples at the range sampling rate) to transmit instead of the ideal chirp."""
    return _core.simulate(_toml(config), _replica(replica))


def scene_toml(config: Config = None) -> str:
    """The TOML of the scene :func:`simulate` simulates from ``config`` (``None``: the
    reference scene), with the values the simulation takes where the config leaves them open
    written in (``radar.near_range_m``, the Doppler centroid, the azimuth pattern, the
    targets): the config that focuses those echoes with :func:`focus` and measures their
    targets, as ``tierfft sar --write-raw`` writes ``scene.toml``::

        scene = tierfft.sar.scene_toml({"scene": {"lines": 3000, "samples": 2500}})
        image, metrics = tierfft.sar.focus(tierfft.sar.simulate(scene), scene)
    """
    return _core.scene_toml(_toml(config))


def read_l0b(
    path: Union[str, os.PathLike],
    *,
    channel: Optional[str] = None,
    antenna_m: Optional[float] = None,
) -> Tuple[np.ndarray, str, Dict[str, Any]]:
    """Reads a NISAR Level-0B ("RRSD") product: ``(raw, config, info)``, the echoes decoded
    to complex64 ``[pulses, samples]`` (BFPQ codes through their table, samples outside each
    pulse's valid window zero), the scene's configuration as TOML (the radar as recorded,
    the effective velocity from the orbit; what ``tierfft sar --l0b`` focuses with), and
    what the product said (``mission``, ``channel``, ``epoch``, ``first_pulse_s``,
    ``pulse_times_s`` and ``slant_range_m`` (s, m), ``geometry`` with the Doppler centroid
    the orbit and attitude predict, ``azimuth_resolution_factor``). ``channel``: e.g.
    ``"A/HH"``; ``antenna_m``: the antenna's length along track for missions the reader
    does not know (docs/SAR.md, "Raw products")::

        raw, config, info = tierfft.sar.read_l0b("product.h5")
        image, metrics = tierfft.sar.focus(raw, config, device="cpu")
        print(metrics["speckle"])
    """
    raw, config, info = _core.read_l0b(os.fspath(path), channel, antenna_m)
    return raw, config, json.loads(info)


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
    zero_nonfinite: bool = False,
    trust_layout: bool = False,
) -> Tuple[np.ndarray, Dict[str, Any]]:
    """Focuses ``raw`` echoes (complex ``[azimuth lines, range samples]``, any size from 16,
    processed with margins and cropped back) with the Range-Doppler algorithm
    (``algorithm="rda"``) or the chirp scaling algorithm (``"csa"``: migration corrected by
    phase multiplies, no interpolation) on ``device``
    and, unless ``measure`` is false, measures the config's point targets: those it lists
    under ``[[scene.targets]]`` (none where it lists none, as ``tierfft sar --raw``), or,
    without a config, the reference scene's five, as :func:`simulate` places them. The
    echoes' shape is the scene's size (a config stating another ``scene.lines`` or
    ``scene.samples`` is refused). The config's ``radar.near_range_m`` (or its default) is
    the range of the first sample.

    The echoes are checked before any work, as ``tierfft sar --raw`` checks them: complex64
    or complex128 (complex128 is focused in complex64; a real array is refused: SAR echoes
    are complex baseband samples); NaN or infinite samples are refused with their count and
    the first one's place, or set to zero with ``zero_nonfinite=True`` (recorded in
    ``metrics["nonfinite_zeroed"]``); echoes that look transposed (neighbouring range
    samples more alike than neighbouring lines, where the radar predicts the opposite) are
    refused with the ``raw.T.copy()`` advice unless ``trust_layout=True``. A scene larger than
    the device binds with margins is focused in blocks of lines or at the recorded size, as
    the command does (``metrics["fallback"]`` says which and why). The Doppler centroid is the config's
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

    Returns the focused complex64 image and a dict of metrics with the keys of
    ``tierfft sar``'s metrics.json (docs/SAR.md, "Metrics"): ``device``, ``src``,
    ``algorithm``, ``radiometry``, ``doppler_centroid``, ``azimuth_pattern``, ``timings_s``
    (seconds per step), ``theory`` (IRW in bins, PSLR and ISLR in dB) and per target
    ``metrics`` (as imaged) and ``alone`` (the other targets' modelled responses taken out),
    each with ``range`` and ``azimuth`` cuts (``irw_bins``, ``pslr_db``, ``islr_db``,
    ``peak_position``) and ``peak_snr_db``; a target that could not be measured has
    ``error``. ``noise_region`` is where the SNR's noise was measured (lines and samples
    ``[first, end)``, clear of every target's sidelobe rows and columns where ``clean``);
    ``warnings`` lists what the command prints as warnings, each also raised as a
    :class:`RuntimeWarning`, as are ``fallback`` and ``nonfinite_zeroed``. Windows: ``none``, ``hamming``, ``taylor``, ``taylor:NBAR:SLL_DB``,
    ``kaiser`` or ``kaiser:BETA``.
    """
    raw = np.asarray(raw)
    if raw.ndim != 2:
        raise ValueError(
            f"raw must be a 2-D array [azimuth lines, range samples] (got shape {raw.shape})"
        )
    # complex64 or complex128 in either byte order (FITS and network data are big-endian).
    if not (raw.dtype.kind == "c" and raw.dtype.itemsize in (8, 16)):
        why = (
            "a real array is not a SAR echo: focusing needs complex baseband samples (I and Q); "
            "convert real IF samples to complex baseband first (e.g. scipy.signal.hilbert, "
            "then mix down)"
            if raw.dtype.kind in "fiub"
            else "focusing needs complex baseband samples (I and Q)"
        )
        raise TypeError(f"raw must be complex64 or complex128 (got {raw.dtype}): {why}")
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
        zero_nonfinite,
        trust_layout,
    )
    metrics = json.loads(metrics)
    # What the command prints as notes and warnings, said the Python way.
    zeroed = metrics["nonfinite_zeroed"]
    if zeroed:
        warnings.warn(
            f"set {zeroed['count']} NaN or infinite echo samples to zero (zero_nonfinite=True; "
            f"the first at line {zeroed['first'][0]}, sample {zeroed['first'][1]})",
            RuntimeWarning,
            stacklevel=2,
        )
    for why in ([metrics["fallback"]] if metrics["fallback"] else []) + metrics["warnings"]:
        warnings.warn(why, RuntimeWarning, stacklevel=2)
    return image, metrics
