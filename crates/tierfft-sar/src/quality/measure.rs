//! Measuring a focused image's point targets against theory: each target as imaged and
//! alone (the other targets' modelled responses taken out), as `tierfft sar` and the Python
//! package's `tierfft.sar.focus` report them.

use crate::filters::range::Window;
use crate::filters::window::Theory;
use crate::quality::metrics::{CutOptions, MetricsError, PointMetrics, analyze_point, mean_power};
use crate::quality::neighbours::{AxisResponse, IdealResponse, SceneModel};
use crate::quality::noise::NoiseRegion;
use crate::scene::params::{Config, Target};
use rayon::prelude::*;
use serde::Serialize;
use tierfft::Complex32;

/// The windows' theory: what every measurement is compared with.
pub struct Theories {
    /// Azimuth window's response (widths ×1/bandwidth).
    pub azimuth: Theory,
    /// Range window's response.
    pub range: Theory,
    /// The theoretical IRWs in (lines, samples).
    pub irw_bins: (f64, f64),
}

impl Theories {
    /// The theory of `azimuth` and `range` weighting for `config`'s radar.
    pub fn new(config: &Config, azimuth: Window, range: Window) -> Theories {
        let r = &config.radar;
        let (azimuth, range) = (azimuth.theory(), range.theory());
        let irw_bins = (
            azimuth.irw * r.prf_hz / config.focused_doppler_bandwidth_hz(),
            range.irw * r.sample_rate_hz / r.bandwidth_hz,
        );
        Theories {
            azimuth,
            range,
            irw_bins,
        }
    }

    /// The `theory` object of metrics.json.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "range_irw_bins": self.irw_bins.1,
            "range_pslr_db": self.range.pslr_db,
            "range_islr_db": self.range.islr_db,
            "azimuth_irw_bins": self.irw_bins.0,
            "azimuth_pslr_db": self.azimuth.pslr_db,
            "azimuth_islr_db": self.azimuth.islr_db,
        })
    }
}

/// One target's result.
#[derive(Debug, Serialize)]
pub struct TargetReport {
    /// Closest-approach slant range, m.
    pub range_m: f64,
    /// Along-track position, m.
    pub azimuth_m: f64,
    /// Where the target was placed, (line, sample), fractional.
    pub expected: (f64, f64),
    /// Half-lengths of its cuts, (lines, samples).
    pub cut_half: (usize, usize),
    /// Measured in the image as it is (`null` if it could not be).
    pub metrics: Option<PointMetrics>,
    /// Measured with every other target's modelled response taken out
    /// (`tierfft_sar::quality::neighbours`; `null` if it could not be).
    pub alone: Option<PointMetrics>,
    /// Fitted complex amplitude of its ideal response, [re, im].
    pub amplitude: Option<[f64; 2]>,
    /// Why it could not be measured, as imaged or alone (a target lost in noise, too close
    /// to an edge); absent when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Why each measurement is missing, (as imaged, alone).
    #[serde(skip)]
    pub reasons: (Option<String>, Option<String>),
}

/// Measures every configured target in the focused `image`, as imaged and alone (the other
/// targets' modelled responses taken out). `windows`: the (azimuth,
/// range) weighting the image was focused with; `noise`: the region the SNR's noise is
/// measured over ([`crate::scene::extent::Extent::noise_region`]: clear of the targets' sidelobes
/// where the scene has room), `None` for no SNR. A target that cannot be measured (lost in
/// noise, at an edge) is reported with its error; the others are still measured.
pub fn measure_targets(
    image: &[Complex32],
    config: &Config,
    windows: (Window, Window),
    theory: &Theories,
    noise: Option<&NoiseRegion>,
) -> Vec<TargetReport> {
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    let r = &config.radar;
    if config.scene.targets.is_empty() {
        return Vec::new();
    }
    // The noise's power once for every target (a large scene's region spans millions of
    // samples).
    let noise =
        noise.map(|n| mean_power(image, lines, samples, (n.lines.clone(), n.samples.clone())));
    let with_noise = |m: Result<PointMetrics, MetricsError>| match &noise {
        None => m.map_err(|e| e.to_string()),
        Some(Ok(n)) => m.map(|m| m.with_noise(*n)).map_err(|e| e.to_string()),
        Some(Err(e)) => Err(e.to_string()),
    };
    let response = IdealResponse {
        azimuth: AxisResponse {
            window: windows.0,
            samples_per_unit: r.prf_hz / config.focused_doppler_bandwidth_hz(),
            carrier: config.mid_centroid_hz() / r.prf_hz,
        },
        range: AxisResponse {
            window: windows.1,
            samples_per_unit: r.sample_rate_hz / r.bandwidth_hz,
            carrier: 0.0,
        },
    };
    let irw = theory.irw_bins;
    let placed = config.target_positions();
    let model = SceneModel::fit(image, lines, samples, &response, &placed);
    // Each target on a thread of rayon's pool.
    let measure = |(k, (t, &expected)): (usize, (&Target, &(f64, f64)))| {
        let opts = CutOptions {
            half_azimuth: cut_half(expected, &placed, irw, Axis::Azimuth),
            half: cut_half(expected, &placed, irw, Axis::Range),
            ..CutOptions::default()
        };
        // Alone, no neighbour shortens the cuts.
        let alone_opts = CutOptions {
            half_azimuth: cut_half(expected, &[], irw, Axis::Azimuth),
            half: cut_half(expected, &[], irw, Axis::Range),
            ..CutOptions::default()
        };
        let guess = (expected.0.round() as usize, expected.1.round() as usize);
        let metrics = with_noise(analyze_point(image, lines, samples, guess, &opts, None));
        let alone = match &model {
            Ok(m) => {
                with_noise(m.analyze_alone(image, lines, samples, k, guess, &alone_opts, None))
            }
            Err(e) => Err(format!("the scene model could not be fitted: {e}")),
        };
        let error = match (&metrics, &alone) {
            (Err(a), Err(b)) if a == b => Some(a.clone()),
            (Err(a), Err(b)) => Some(format!("as imaged: {a}; alone: {b}")),
            (Err(a), Ok(_)) => Some(format!("as imaged: {a}")),
            (Ok(_), Err(b)) => Some(format!("alone: {b}")),
            (Ok(_), Ok(_)) => None,
        };
        TargetReport {
            range_m: t.range_m,
            azimuth_m: t.azimuth_m,
            expected,
            cut_half: (opts.half_azimuth, opts.half),
            reasons: (metrics.clone().err(), alone.clone().err()),
            metrics: metrics.ok(),
            alone: alone.ok(),
            amplitude: model
                .as_ref()
                .ok()
                .map(|m| m.targets()[k].amplitude)
                .map(|a| [a.re, a.im]),
            error,
        }
    };
    config
        .scene
        .targets
        .par_iter()
        .zip(&placed)
        .enumerate()
        .map(measure)
        .collect()
}

/// The direction of a cut.
#[derive(Clone, Copy, PartialEq)]
enum Axis {
    Azimuth,
    Range,
}

/// Half-length of the cut along `axis` through a target placed at `at` (line, sample), bins:
/// 20 theoretical IRWs (`irw`, lines and samples), so that ISLR integrates the sidelobes far
/// out, shortened to end 2 IRWs before any other target on the same cut (within 3 IRWs
/// across it: its mainlobe stays out), at least 1.5 IRWs (past the first nulls).
fn cut_half(at: (f64, f64), placed: &[(f64, f64)], irw: (f64, f64), axis: Axis) -> usize {
    // (along the cut, across it)
    let orient = |p: (f64, f64)| match axis {
        Axis::Azimuth => (p.0, p.1),
        Axis::Range => (p.1, p.0),
    };
    let (at, (w, w_across)) = (orient(at), orient(irw));
    let clear = placed
        .iter()
        .map(|&p| orient(p))
        .filter(|p| (p.1 - at.1).abs() < 3.0 * w_across && (p.0 - at.0).abs() > 0.5)
        .map(|p| (p.0 - at.0).abs() - 2.0 * w)
        .fold(20.0 * w, f64::min);
    clear.max(1.5 * w).ceil() as usize
}
