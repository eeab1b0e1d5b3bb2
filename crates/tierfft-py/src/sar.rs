//! `tierfft.sar` from Python: simulate the seeds' scene and focus echoes with the
//! Range-Doppler algorithm, returning the image and every target's quality against theory.

use num_complex::Complex32;
use numpy::{
    PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tierfft_sar::SarError;
use tierfft_sar::centroid::resolve;
use tierfft_sar::focus::{FocusOptions, Focuser};
use tierfft_sar::measure::{Theories, measure_targets};
use tierfft_sar::params::{Config, DefaultTargets};
use tierfft_sar::range::Window;
use tierfft_sar::replica::Replica;
use tierfft_sar::simulate::simulate as simulate_scene;

use crate::device::PyDevice;
use crate::errors::to_py;

fn sar_err(e: SarError) -> PyErr {
    match e {
        SarError::Fft(e) => to_py(e),
        other => PyValueError::new_err(other.to_string()),
    }
}

/// The config from TOML text (`None`: the seeds' 4096 × 4096 scene), with the default five
/// targets where it lists none when `targets` says to keep them.
fn config(text: Option<&str>, targets: DefaultTargets) -> PyResult<Config> {
    match text {
        Some(text) => Config::parse_toml(text, targets).map_err(sar_err),
        None => Ok(Config::default()),
    }
}

/// The measured pulse `replica` (1-D complex64), when given, into `config`.
fn set_replica(
    config: &mut Config,
    replica: Option<PyReadonlyArray1<'_, Complex32>>,
) -> PyResult<()> {
    if let Some(replica) = replica {
        let samples = replica.as_slice().map_err(|_| {
            PyValueError::new_err("replica must be C-contiguous (numpy.ascontiguousarray)")
        })?;
        config
            .radar
            .set_replica(Replica::new(samples.to_vec()).map_err(sar_err)?);
    }
    Ok(())
}

fn window(name: &str, which: &str) -> PyResult<Window> {
    Window::parse(name).map_err(|e| PyValueError::new_err(format!("{which}: {e}")))
}

/// Simulated raw echoes of the scene `config` describes (TOML text as `tierfft sar --config`
/// reads; `None`: the seeds' scene with five targets), complex64 `[lines, samples]`.
#[pyfunction]
#[pyo3(signature = (config=None, replica=None))]
pub fn simulate<'py>(
    py: Python<'py>,
    config: Option<&str>,
    replica: Option<PyReadonlyArray1<'py, Complex32>>,
) -> PyResult<Bound<'py, PyArray2<Complex32>>> {
    let mut config = self::config(config, DefaultTargets::Keep)?;
    set_replica(&mut config, replica)?;
    config.validate().map_err(sar_err)?;
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    let raw = py.detach(|| simulate_scene(&config));
    PyArray1::from_vec(py, raw).reshape([lines, samples])
}

/// Focuses `raw` (complex64 `[azimuth lines, range samples]`, C-contiguous) on `device`
/// and, when `measure` is set, measures the config's targets (the seeds' five where it
/// lists none, as [`simulate`] places them). Returns the complex image and the metrics as
/// JSON text (device, timings in seconds, theory, and per target its IRW in bins, PSLR and
/// ISLR in dB and SNR in dB, as imaged and alone). The Doppler centroid is the config's
/// `radar.doppler_centroid_hz`, or estimated from `raw` when it gives none (reported under
/// `doppler_centroid`), and the antenna's azimuth pattern `radar.azimuth_pattern` or
/// recognised in `raw` (`azimuth_pattern`); `src` forces secondary range compression on or off (`None`: when
/// the scene needs it). `algorithm` is "rda" (Range-Doppler) or "csa" (chirp scaling);
/// `radiometry` "normalised" (the same gain at every range), "raw" or "spreading" (also
/// undoing the echoes' 1/R² spreading loss). The GIL is released while it runs.
#[pyfunction]
#[pyo3(signature = (raw, device, config=None, range_window="none", azimuth_window="none", rcmc=true, azimuth_equalisation=true, measure=true, src=None, replica=None, algorithm="rda", radiometry="normalised"))]
#[allow(clippy::too_many_arguments)]
pub fn focus<'py>(
    py: Python<'py>,
    raw: PyReadonlyArray2<'py, Complex32>,
    device: &PyDevice,
    config: Option<&str>,
    range_window: &str,
    azimuth_window: &str,
    rcmc: bool,
    azimuth_equalisation: bool,
    measure: bool,
    src: Option<bool>,
    replica: Option<PyReadonlyArray1<'py, Complex32>>,
    algorithm: &str,
    radiometry: &str,
) -> PyResult<(Bound<'py, PyArray2<Complex32>>, String)> {
    let mut config = self::config(config, DefaultTargets::Keep)?;
    set_replica(&mut config, replica)?;
    if !measure {
        config.scene.targets.clear();
    }
    let [lines, samples] = [raw.shape()[0], raw.shape()[1]];
    config.scene.lines = lines;
    config.scene.samples = samples;
    config.validate().map_err(sar_err)?;
    let opts = FocusOptions {
        range_window: window(range_window, "range_window")?,
        azimuth_window: window(azimuth_window, "azimuth_window")?,
        rcmc,
        azimuth_equalisation,
        fused: true,
        margins: true,
        src,
        algorithm: algorithm.parse().map_err(PyValueError::new_err)?,
        radiometry: radiometry.parse().map_err(PyValueError::new_err)?,
    };
    opts.validate().map_err(sar_err)?;
    let raw = raw
        .as_slice()
        .map_err(|_| PyValueError::new_err("raw must be C-contiguous (numpy.ascontiguousarray)"))?;
    let image = PyArray2::<Complex32>::zeros(py, [lines, samples], false);
    let mut view = image
        .try_readwrite()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let data = view.as_slice_mut()?;
    data.copy_from_slice(raw);
    let dev = &device.device;
    let metrics = py
        .detach(|| -> Result<serde_json::Value, SarError> {
            let mut config = config;
            let centroid = resolve(&mut config, data)?;
            let pattern = tierfft_sar::pattern::resolve(&mut config, data);
            let focuser = Focuser::new(dev, &config, opts)?;
            let steps = focuser.focus(data, |_| {})?;
            let theory = Theories::new(&config, opts.azimuth_window, opts.range_window);
            let windows = (opts.azimuth_window, opts.range_window);
            let extent = focuser.extent();
            let noise = extent.noise_region();
            let targets = measure_targets(data, &config, windows, &theory, noise);
            Ok(serde_json::json!({
                "device": dev.name(),
                "lines": lines,
                "samples": samples,
                "processed": {"lines": extent.padded_lines, "samples": extent.padded_samples},
                "fully_focused": {"lines": extent.full_lines, "samples": extent.full_samples},
                "range_window": opts.range_window.to_string(),
                "azimuth_window": opts.azimuth_window.to_string(),
                "timings_s": steps,
                "src": focuser.src(),
                "algorithm": opts.algorithm.to_string(),
                "radiometry": opts.radiometry.to_string(),
                "doppler_centroid": centroid,
                "azimuth_pattern": pattern,
                "theory": theory.json(),
                "targets": targets,
            }))
        })
        .map_err(sar_err)?;
    drop(view);
    Ok((image, metrics.to_string()))
}
