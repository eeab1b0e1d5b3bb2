"""tierfft.sar from Python: a small simulated scene focused on each test device, its
targets measured against theory."""

import numpy as np
import pytest

import tierfft

SMALL = """
[radar]
antenna_m = 8.0
pulse_s = 2e-6
[scene]
lines = 1024
samples = 1024
snr_db = 20.0
"""


def test_focus_meets_theory(device):
    raw = tierfft.sar.simulate(SMALL)
    assert raw.shape == (1024, 1024) and raw.dtype == np.complex64
    image, metrics = tierfft.sar.focus(raw, SMALL, device=device)
    assert image.shape == raw.shape and np.isfinite(image).all()
    assert metrics["device"] == tierfft.open_device(device).name
    theory = metrics["theory"]
    assert len(metrics["targets"]) == 5
    for target in metrics["targets"]:
        alone = target["alone"]
        assert alone is not None, target.get("error")
        for axis in ("range", "azimuth"):
            cut = alone[axis]
            assert abs(cut["irw_bins"] / theory[f"{axis}_irw_bins"] - 1) < 0.05
            assert abs(cut["pslr_db"] - theory[f"{axis}_pslr_db"]) < 0.5


def test_focus_without_measuring_and_config_as_dict():
    config = {"radar": {"antenna_m": 8.0, "pulse_s": 2e-6}, "scene": {"lines": 1024, "samples": 512}}
    raw = tierfft.sar.simulate(config)
    image, metrics = tierfft.sar.focus(raw, config, device="cpu", measure=False)
    assert metrics["targets"] == [] and image.shape == (1024, 512)


def test_focus_errors():
    with pytest.raises(ValueError, match="2-D"):
        tierfft.sar.focus(np.zeros(16, np.complex64))
    with pytest.raises(ValueError, match="window"):
        tierfft.sar.focus(np.zeros((1024, 1024), np.complex64), SMALL, range_window="triangle")
    with pytest.raises(ValueError, match="at least 16"):
        tierfft.sar.focus(np.zeros((8, 1024), np.complex64), SMALL, device="cpu")
    with pytest.raises(TypeError, match="config"):
        tierfft.sar.simulate(3)
