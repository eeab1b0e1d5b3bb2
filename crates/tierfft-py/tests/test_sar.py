"""tierfft.sar from Python: a small simulated scene focused on each test device, its
targets measured against theory."""

import os

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
# The same scene with every value the simulation takes written out, its five targets listed:
# the config that focuses its echoes and measures its targets.
SMALL = tierfft.sar.scene_toml(SMALL)


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


def test_chirp_scaling_meets_theory():
    raw = tierfft.sar.simulate(SMALL)
    _, metrics = tierfft.sar.focus(raw, SMALL, device="cpu", algorithm="csa")
    assert metrics["algorithm"] == "csa" and metrics["radiometry"] == "normalised"
    theory = metrics["theory"]
    for target in metrics["targets"]:
        alone = target["alone"]
        assert alone is not None, target.get("error")
        for axis in ("range", "azimuth"):
            assert abs(alone[axis]["irw_bins"] / theory[f"{axis}_irw_bins"] - 1) < 0.05
            assert abs(alone[axis]["pslr_db"] - theory[f"{axis}_pslr_db"]) < 0.5
    with pytest.raises(ValueError, match="rda or csa"):
        tierfft.sar.focus(raw, SMALL, device="cpu", algorithm="omega-k")
    with pytest.raises(ValueError, match="normalised"):
        tierfft.sar.focus(raw, SMALL, device="cpu", radiometry="calibrated")


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
        tierfft.sar.focus(np.zeros((8, 1024), np.complex64), device="cpu")
    with pytest.raises(TypeError, match="config"):
        tierfft.sar.simulate(3)


def test_a_squinted_scene_is_focused_with_its_centroid_estimated():
    # 100 Hz at 200 m/s: the beam looks 150 m (750 lines) ahead of each target.
    radar = {"antenna_m": 4.0, "pulse_s": 2e-6, "speed_mps": 200.0}
    targets = [{"range_m": 20000.0, "azimuth_m": 0.0}, {"range_m": 20100.0, "azimuth_m": 20.0}]
    scene = {"lines": 3072, "samples": 1024, "targets": targets}
    raw = tierfft.sar.simulate({"radar": {**radar, "doppler_centroid_hz": 100.0}, "scene": scene})
    image, metrics = tierfft.sar.focus(raw, {"radar": radar, "scene": scene}, device="cpu")
    centroid = metrics["doppler_centroid"]
    assert centroid["source"] == "estimated" and abs(centroid["mid_swath_hz"] - 100.0) < 2.0
    theory = metrics["theory"]
    assert len(metrics["targets"]) == 2
    for target in metrics["targets"]:
        for axis in ("range", "azimuth"):
            cut = target["metrics"][axis]
            assert abs(cut["irw_bins"] / theory[f"{axis}_irw_bins"] - 1) < 0.03, target
            assert abs(cut["pslr_db"] - theory[f"{axis}_pslr_db"]) < 0.3, target
    # A table given as a list of [range m, Hz] pairs is used as it is.
    table = [[19000.0, 100.0], [21000.0, 100.0]]
    _, metrics = tierfft.sar.focus(
        raw, {"radar": {**radar, "doppler_centroid_hz": table}, "scene": scene}, device="cpu"
    )
    used = metrics["doppler_centroid"]
    assert (used["source"], used["hz"], used["mid_swath_hz"]) == ("config", table, 100.0)


def test_a_tapered_beam_is_recognised_and_equalised():
    # The default radar at a 250 Hz PRF: a 665-line aperture at 20 km, 726 Doppler bins.
    radar = {"pulse_s": 2e-6, "prf_hz": 250.0}
    scene = {"lines": 2048, "samples": 1024, "targets": [{"range_m": 20000.0, "azimuth_m": 1.0}]}
    raw = tierfft.sar.simulate({"radar": {**radar, "azimuth_pattern": "sinc2"}, "scene": scene})
    _, metrics = tierfft.sar.focus(raw, {"radar": radar, "scene": scene}, device="cpu")
    used = metrics["azimuth_pattern"]
    assert (used["pattern"], used["source"]) == ("sinc2", "recognised"), used
    theory = metrics["theory"]
    for axis in ("range", "azimuth"):
        cut = metrics["targets"][0]["metrics"][axis]
        assert abs(cut["irw_bins"] / theory[f"{axis}_irw_bins"] - 1) < 0.03, cut
        assert abs(cut["pslr_db"] - theory[f"{axis}_pslr_db"]) < 0.3, cut
    # Told it is uniform, the taper stays in the response: wider, lower sidelobes.
    _, metrics = tierfft.sar.focus(
        raw, {"radar": {**radar, "azimuth_pattern": "uniform"}, "scene": scene}, device="cpu"
    )
    assert metrics["azimuth_pattern"]["source"] == "config"
    cut = metrics["targets"][0]["metrics"]["azimuth"]
    assert cut["irw_bins"] > 1.05 * theory["azimuth_irw_bins"] and cut["pslr_db"] < -16.0, cut


def _distorted_pulse(samples=240, fs=120e6, bandwidth=100e6, pulse=2e-6):
    t = (np.arange(samples) - (samples - 1) / 2) / fs
    u = t / pulse
    gain = 1 + 0.3 * np.cos(2 * np.pi * 2.5 * u)
    phase = np.pi * bandwidth / pulse * t**2 + 0.8 * np.sin(2 * np.pi * 1.5 * u)
    return (gain * np.exp(1j * phase)).astype(np.complex64)


def test_a_measured_pulse_is_the_matched_filters_replica():
    replica = _distorted_pulse()
    raw = tierfft.sar.simulate(SMALL, replica=replica)
    _, matched = tierfft.sar.focus(raw, SMALL, device="cpu", replica=replica)
    _, ideal = tierfft.sar.focus(raw, SMALL, device="cpu")
    theory = matched["theory"]["range_pslr_db"]
    for with_replica, without in zip(matched["targets"], ideal["targets"]):
        assert abs(with_replica["alone"]["range"]["pslr_db"] - theory) < 0.3, with_replica
        assert without["alone"]["range"]["pslr_db"] > theory + 1.0, without
    with pytest.raises(ValueError, match="1-D"):
        tierfft.sar.focus(raw, SMALL, device="cpu", replica=np.zeros((2, 2), np.complex64))
    with pytest.raises(ValueError, match="every sample is zero"):
        tierfft.sar.focus(raw, SMALL, device="cpu", replica=np.zeros(8, np.complex64))


# The keys of a focusing run's metrics, the same as `tierfft sar`'s metrics.json
# (crates/tierfft-cli/tests/command/echoes.rs checks the command against the same list).
METRIC_KEYS = {
    "device", "ranks", "lines", "samples", "range_window", "azimuth_window", "theory", "fused",
    "processed", "margins", "fallback", "blocks", "fully_focused", "rcmc", "src", "algorithm",
    "radiometry", "doppler_centroid", "azimuth_pattern", "azimuth_equalisation",
    "nonfinite_zeroed", "noise_region", "warnings", "timings_s", "targets", "product",
    "speckle",
}


def test_metrics_have_the_commands_keys():
    raw = tierfft.sar.simulate(SMALL)
    _, metrics = tierfft.sar.focus(raw, SMALL, device="cpu")
    assert set(metrics) == METRIC_KEYS
    assert metrics["nonfinite_zeroed"] is None and metrics["fallback"] is None
    assert set(metrics["timings_s"]) == {
        "plan", "simulate", "centroid", "focus", "steps", "exchange", "read", "measure", "write",
        "total",
    }


def test_echoes_are_checked_before_any_work_as_the_command_checks_them():
    raw = tierfft.sar.simulate(SMALL)
    bad = raw.copy()
    bad[5, 7] = np.nan
    bad[700, 3] = np.inf
    with pytest.raises(ValueError, match=r"2 of the 1048576 .* line 5, sample 7"):
        tierfft.sar.focus(bad, SMALL, device="cpu")
    with pytest.warns(RuntimeWarning, match="set 2 NaN or infinite"):
        image, metrics = tierfft.sar.focus(bad, SMALL, device="cpu", zero_nonfinite=True)
    assert metrics["nonfinite_zeroed"] == {"count": 2, "first": [5, 7]}
    assert np.isfinite(image).all() and metrics["targets"][0]["alone"] is not None
    # Transposed: refused with the advice, unless the layout is said to be intended.
    with pytest.raises(ValueError, match=r"look transposed.*raw\.T\.copy\(\).*trust_layout"):
        tierfft.sar.focus(raw.T.copy(), SMALL, device="cpu")
    tierfft.sar.focus(raw.T.copy(), SMALL, device="cpu", trust_layout=True)
    # Real samples are refused with the reason; complex128 is focused as complex64.
    with pytest.raises(TypeError, match="complex baseband"):
        tierfft.sar.focus(raw.real.copy(), SMALL, device="cpu")
    wide, _ = tierfft.sar.focus(raw.astype(np.complex128), SMALL, device="cpu")
    narrow, _ = tierfft.sar.focus(raw, SMALL, device="cpu")
    assert wide.dtype == np.complex64 and np.array_equal(wide, narrow)
    swapped, _ = tierfft.sar.focus(raw.astype(">c8"), SMALL, device="cpu")
    assert np.array_equal(swapped, narrow)
    # A config stating another size than the echoes' is refused, naming both.
    with pytest.raises(ValueError, match="scene.samples = 1024, but the echoes have 512"):
        tierfft.sar.focus(raw[:, :512].copy(), SMALL, device="cpu")


def test_only_the_targets_a_config_lists_are_measured():
    bare = {"radar": {"antenna_m": 8.0, "pulse_s": 2e-6}, "scene": {"lines": 1024, "samples": 1024}}
    raw = tierfft.sar.simulate(bare)
    # A config that lists none: none (the reference scene's five are not the user's).
    _, metrics = tierfft.sar.focus(raw, bare, device="cpu")
    assert metrics["targets"] == []
    # An explicit empty list in a dict: none, also when simulating.
    empty = {"radar": bare["radar"], "scene": {**bare["scene"], "targets": []}}
    assert "targets = []" in tierfft.sar.scene_toml(empty)
    _, metrics = tierfft.sar.focus(tierfft.sar.simulate(empty), empty, device="cpu")
    assert metrics["targets"] == []
    # scene_toml lists the simulation's targets: all five measured.
    listed = tierfft.sar.scene_toml(bare)
    _, metrics = tierfft.sar.focus(raw, listed, device="cpu")
    assert len(metrics["targets"]) == 5


def _chip():
    """The ALOS-1 PALSAR chip in ../shared/data (TIERFFT_DATA names another folder)."""
    here = os.path.dirname(os.path.abspath(__file__))
    folder = os.environ.get("TIERFFT_DATA", os.path.join(here, "..", "..", "..", "..", "shared", "data"))
    path = os.path.join(folder, "alos1_palsar_l0b_chip.h5")
    if not os.path.exists(path):
        pytest.skip(f"{path} is absent (set TIERFFT_DATA)")
    return path


def test_read_l0b_and_focus_the_chip():
    raw, config, info = tierfft.sar.read_l0b(_chip())
    assert raw.shape == (1000, 2200) and raw.dtype == np.complex64
    assert info["mission"] == "ALOS" and len(info["pulse_times_s"]) == 1000
    assert "partial_aperture = true" in config
    assert 5.5 < info["azimuth_resolution_factor"] < 7.0
    image, metrics = tierfft.sar.focus(raw, config, device="cpu")
    assert image.shape == raw.shape and metrics["targets"] == []
    s = metrics["speckle"]
    assert abs(s["azimuth_width"] / s["azimuth_theory"] - 1) < 0.06, s
    with pytest.raises(ValueError, match="no channel B/VV"):
        tierfft.sar.read_l0b(_chip(), channel="B/VV")
    with pytest.raises(ValueError, match="cannot be read as HDF5"):
        tierfft.sar.read_l0b(__file__)
