//! `tierfft.sar` from Python: simulate the reference scene and focus echoes with the
//! Range-Doppler algorithm, returning the image and every target's quality against theory.

use std::time::Instant;

use num_complex::Complex32;
use numpy::{
    PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tierfft_sar::SarError;
use tierfft_sar::filters::range::Window;
use tierfft_sar::focus::FocusOptions;
use tierfft_sar::focus::fit::{Fitted, fit};
use tierfft_sar::quality::measure::{Theories, measure_targets};
use tierfft_sar::quality::report::{Blocks, ProductReport, Report, Timings};
use tierfft_sar::scene::centroid::resolve;
use tierfft_sar::scene::echoes::{NonFinite, check_finite, check_layout};
use tierfft_sar::scene::extent::Extent;
use tierfft_sar::scene::params::{Config, DefaultTargets};
use tierfft_sar::scene::replica::Replica;
use tierfft_sar::scene::simulate::simulate as simulate_scene;

use crate::device::PyDevice;
use crate::errors::to_py;
use crate::workers::on_workers;

fn sar_err(e: SarError) -> PyErr {
    match e {
        SarError::Fft(e) => to_py(e),
        other => PyValueError::new_err(other.to_string()),
    }
}

/// The config from TOML text (`None`: the 4096 × 4096 reference scene), with the default five
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
/// reads; `None`: the reference scene with five targets), complex64 `[lines, samples]`.
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
    // (On the package's CPU pool in a forked child, as every transform: crate::workers.)
    let raw = on_workers(py, None, || simulate_scene(&config))?;
    PyArray1::from_vec(py, raw).reshape([lines, samples])
}

/// The TOML of the scene [`simulate`] simulates from `config` (`None`: the reference scene),
/// with the values the simulation takes where the config leaves them open written in (near
/// range, Doppler centroid, azimuth pattern, targets): the config that focuses those echoes
/// and measures their targets, as `tierfft sar --write-raw` writes scene.toml.
/// A NISAR Level-0B product read: its echoes decoded (complex64 `[pulses, samples]`), the
/// scene's configuration as TOML (what `tierfft sar --l0b` focuses with) and what the product
/// said as JSON (mission, channel, epoch, first pulse's time, geometry).
#[pyfunction]
#[pyo3(signature = (path, channel=None, antenna_m=None))]
pub fn read_l0b<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    channel: Option<&str>,
    antenna_m: Option<f64>,
) -> PyResult<(Bound<'py, PyArray2<Complex32>>, String, String)> {
    use tierfft_sar::product::RawProduct;
    use tierfft_sar::product::nisar::{Channel, L0b};
    let channel = channel.map(Channel::parse).transpose().map_err(sar_err)?;
    let (raw, samples, toml, info) = on_workers(py, None, || -> Result<_, SarError> {
        let product = L0b::open(&path, channel.as_ref())?;
        let d = product.description();
        let (config, geometry) = tierfft_sar::scene::product::config(d, antenna_m)?;
        let report = ProductReport::new(path.display().to_string(), d, geometry);
        let mut info =
            serde_json::to_value(&report).map_err(|e| SarError::Product(e.to_string()))?;
        info["pulse_times_s"] = serde_json::json!(d.pulse_times_s);
        info["slant_range_m"] = serde_json::json!(d.slant_range_m);
        let samples = d.samples();
        Ok((
            product.read_all()?,
            samples,
            config.to_toml()?,
            info.to_string(),
        ))
    })?
    .map_err(sar_err)?;
    let lines = raw.len() / samples;
    let array = PyArray1::from_vec(py, raw).reshape([lines, samples])?;
    Ok((array, toml, info))
}

#[pyfunction]
#[pyo3(signature = (config=None))]
pub fn scene_toml(config: Option<&str>) -> PyResult<String> {
    let config = self::config(config, DefaultTargets::Keep)?;
    config.validate().map_err(sar_err)?;
    config.as_simulated().to_toml().map_err(sar_err)
}

/// Focuses `raw` (complex64 `[azimuth lines, range samples]`, C-contiguous) on `device`
/// and, when `measure` is set, measures the config's targets: those it lists (none where it
/// lists none, as `tierfft sar --raw`), or without a config the reference scene's five, as
/// [`simulate`] places them. The echoes are checked first, as the command checks them: their
/// shape is the scene's size (a config stating another is refused), NaN or infinite samples
/// are refused or, with `zero_nonfinite`, set to zero, and echoes that look transposed are
/// refused unless `trust_layout`. Planned as the command plans ([`tierfft_sar::focus::fit::fit`]:
/// in blocks or at the recorded size where the device cannot bind the margins). Returns the
/// complex image and the metrics as JSON text, with the keys of the command's metrics.json
/// ([`tierfft_sar::quality::report::Report`]). The Doppler centroid is the config's
/// `radar.doppler_centroid_hz`, or estimated from `raw` when it gives none, and the antenna's
/// azimuth pattern `radar.azimuth_pattern` or recognised in `raw`; `src` forces secondary
/// range compression on or off (`None`: when the scene needs it). `algorithm` is "rda"
/// (Range-Doppler) or "csa" (chirp scaling); `radiometry` "normalised" (the same gain at
/// every range), "raw" or "spreading" (also undoing the echoes' 1/R² spreading loss). The GIL
/// is released while it runs.
#[pyfunction]
#[pyo3(signature = (raw, device, config=None, range_window="none", azimuth_window="none", rcmc=true, azimuth_equalisation=true, measure=true, src=None, replica=None, algorithm="rda", radiometry="normalised", zero_nonfinite=false, trust_layout=false))]
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
    zero_nonfinite: bool,
    trust_layout: bool,
) -> PyResult<(Bound<'py, PyArray2<Complex32>>, String)> {
    // The user's echoes: only the targets a config lists are theirs.
    let text = config;
    let mut config = self::config(text, DefaultTargets::Drop)?;
    set_replica(&mut config, replica)?;
    if !measure {
        config.scene.targets.clear();
    }
    let [lines, samples] = [raw.shape()[0], raw.shape()[1]];
    config
        .size_from_echoes(text, lines, samples)
        .map_err(sar_err)?;
    let mut opts = FocusOptions {
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
    crate::fork::check(&device.device, device.opened)?;
    let dev = &device.device;
    let policy = match zero_nonfinite {
        true => NonFinite::Zero,
        false => NonFinite::Refuse,
    };
    let metrics = on_workers(py, None, || -> Result<String, SarError> {
        // The echoes before the config: a transposed array is named as such, not as a
        // scene shorter than its aperture.
        let started = Instant::now();
        let zeroed = check_finite(data, samples, policy)?;
        check_layout(&config, data, trust_layout)?;
        config.validate()?;
        let mut config = config;
        let clock = Instant::now();
        let centroid = resolve(&mut config, data)?;
        let pattern = tierfft_sar::scene::pattern::resolve(&mut config, data);
        let centroid_s = clock.elapsed().as_secs_f64();
        let clock = Instant::now();
        let fit = fit(dev, &config, &mut opts, None, None)?;
        let plan_s = clock.elapsed().as_secs_f64();
        let steps = fit.focusing.focus(data, |_| {})?;
        let measuring = Instant::now();
        let theory = Theories::new(&config, opts.azimuth_window, opts.range_window);
        let windows = (opts.azimuth_window, opts.range_window);
        let extent = Extent::of(&config, opts.margins);
        let noise = extent.noise_region(&config, theory.irw_bins);
        let targets = measure_targets(data, &config, windows, &theory, noise.region.as_ref());
        let mut report = Report::new(
            dev.name(),
            (lines, samples),
            &opts,
            &extent,
            &theory,
            centroid,
            pattern,
            &targets,
        );
        report.src = fit.focusing.src();
        report.blocks = match &fit.focusing {
            Fitted::Strip(f) => Some(Blocks::from(f)),
            Fitted::Whole(_) => None,
        };
        report.fallback = fit.fallback;
        report.nonfinite_zeroed = zeroed;
        report.noise_region = noise.region;
        // Without targets, the speckle says how the scene focused (as the command does).
        if config.scene.targets.is_empty() {
            report.speckle =
                tierfft_sar::quality::speckle::measure(data, None, &config, windows).ok();
        }
        report.warnings.extend(noise.warning);
        report.timings_s = Timings {
            plan: plan_s,
            simulate: None,
            centroid: centroid_s,
            focus: steps.total_s(),
            steps,
            exchange: None,
            read: None,
            measure: measuring.elapsed().as_secs_f64(),
            write: None,
            total: started.elapsed().as_secs_f64(),
        };
        serde_json::to_string(&report).map_err(|e| SarError::Config(e.to_string()))
    })?
    .map_err(sar_err)?;
    drop(view);
    Ok((image, metrics))
}
