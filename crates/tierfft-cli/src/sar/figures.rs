//! The figures of `tierfft sar`: the whole image, the echoes and the multi-looked product
//! with axes, the overview and, per target, the crop and the cut plot (as imaged, alone and
//! ideal) with the measured values written on it.

use std::path::Path;

use num_complex::Complex64;
use rayon::prelude::*;
use tierfft::Complex32;
use tierfft_sar::filters::range::Window;
use tierfft_sar::quality::measure::{TargetReport, Theories};
use tierfft_sar::quality::metrics::PointMetrics;
use tierfft_sar::quality::neighbours::{AxisResponse, IdealResponse};
use tierfft_sar::scene::params::Config;

use crate::CliResult;
use crate::plot::{self, CutCurves, Focused, Geometry, TargetFigure, whole};

/// Where `config`'s lines and samples lie, for the axes in metres.
pub fn geometry(config: &Config) -> Geometry {
    let r = &config.radar;
    Geometry {
        range_bin_m: r.range_bin_m(),
        azimuth_bin_m: r.azimuth_bin_m(),
        near_range_m: config.near_range_m(),
        centre_line: config.scene.lines as f64 / 2.0,
    }
}

/// Writes `image.png`: the focused `image` whole ([`whole::image_figure`]).
pub fn image(path: &Path, image: &Focused, config: &Config) -> CliResult<()> {
    plot::write_image(path, image, &geometry(config), "focused image")
}

/// Writes `range_compressed.png`: the echoes compressed in range, whole.
pub fn range_compressed(path: &Path, image: &Focused, config: &Config) -> CliResult<()> {
    plot::write_image(path, image, &geometry(config), "range-compressed image")
}

/// Writes `raw.png`: the echoes `data` of `config`'s scene ([`whole::raw_figure`]).
pub fn raw(path: &Path, data: &[Complex32], config: &Config) -> CliResult<()> {
    let shape = (config.scene.lines, config.scene.samples);
    plot::write_raw(path, data, shape, &geometry(config))
}

/// Writes `looks.png`: the multi-looked `power` of `(rows, cols)` values, each the mean of
/// `looks` = (azimuth, range) lines × samples ([`whole::looks_figure`]).
pub fn looks(
    path: &Path,
    power: &[f32],
    (rows, cols): (usize, usize),
    looks: (usize, usize),
    config: &Config,
) -> CliResult<()> {
    let looks = whole::Looks {
        power,
        rows,
        cols,
        looks,
    };
    plot::write_looks(path, &looks, &geometry(config))
}

/// Draws `overview.png` and every target's figures of the focused `image` into `dir`;
/// `windows`: the (azimuth, range) weighting it was focused with.
pub fn draw(
    dir: &Path,
    image: &Focused,
    config: &Config,
    windows: (Window, Window),
    targets: &[TargetReport],
    theory: &Theories,
) -> CliResult<()> {
    let (lines, samples) = (image.lines, image.samples);
    let geometry = geometry(config);
    let response = ideal_response(config, windows);
    let placed: Vec<(f64, f64)> = targets.iter().map(|t| t.expected).collect();
    let figures = |i: usize, t: &TargetReport| -> CliResult<()> {
        // The measured peak, to the nearest line and sample, centres the crop and the cuts
        // (sub-bin interpolation may put a peak on the last line half a line outside); the
        // placed position where nothing was measured.
        let peak = match &t.metrics {
            Some(m) => (m.azimuth.peak_position, m.range.peak_position),
            None => t.expected,
        };
        let peak = nearest(peak, (lines, samples));
        let alone = alone_cuts(image, targets, i, &response);
        let (alone_range, alone_azimuth) = match alone {
            Some((r, a)) => (Some(r), Some(a)),
            None => (None, None),
        };
        let [range_text, azimuth_text] = cut_labels(
            t,
            theory,
            windows,
            (geometry.azimuth_bin_m, geometry.range_bin_m),
        );
        let curves = |text: [String; 3], alone, ideal| {
            let [imaged_text, alone_text, ideal_text] = text;
            CutCurves {
                imaged_text,
                alone,
                alone_text,
                ideal,
                ideal_text,
            }
        };
        let target = TargetFigure {
            index: i + 1,
            title: format!(
                "target {} (range {:.1} m, azimuth {:.1} m)",
                i + 1,
                t.range_m,
                t.azimuth_m
            ),
            peak,
            expected: t.expected,
            cut_half: t.cut_half,
            range: curves(range_text, alone_range, response.range),
            azimuth: curves(azimuth_text, alone_azimuth, response.azimuth),
        };
        plot::write_target_figures(dir, image, &geometry, &target)
    };
    // Every figure at once, on rayon's pool (errors as text: they cross threads).
    let (overview, each) = rayon::join(
        || {
            plot::write_overview(&dir.join("overview.png"), image, &geometry, &placed)
                .map_err(|e| e.to_string())
        },
        || {
            targets
                .par_iter()
                .enumerate()
                .try_for_each(|(i, t)| figures(i, t).map_err(|e| e.to_string()))
        },
    );
    overview?;
    each?;
    Ok(())
}

/// The (line, sample) nearest the fractional `at`, inside a `lines × samples` image.
fn nearest(at: (f64, f64), (lines, samples): (usize, usize)) -> (usize, usize) {
    (
        (at.0.round().max(0.0) as usize).min(lines - 1),
        (at.1.round().max(0.0) as usize).min(samples - 1),
    )
}

/// The ideal response every target is modelled with, as
/// [`tierfft_sar::quality::measure::measure_targets`] builds it: the windows over the processed bands,
/// the azimuth response turning at the mid-swath Doppler centroid.
fn ideal_response(config: &Config, (azimuth, range): (Window, Window)) -> IdealResponse {
    let r = &config.radar;
    IdealResponse {
        azimuth: AxisResponse {
            window: azimuth,
            samples_per_unit: r.prf_hz / config.focused_doppler_bandwidth_hz(),
            carrier: config.mid_centroid_hz() / r.prf_hz,
        },
        range: AxisResponse {
            window: range,
            samples_per_unit: r.sample_rate_hz / r.bandwidth_hz,
            carrier: 0.0,
        },
    }
}

/// Target `k`'s (range, azimuth) cuts through its peak alone, `cut_half` each side, with
/// every other target's model (its fitted amplitude times `response`, where it was placed)
/// taken out, as the measurement alone does; `None` where it was not measured alone or a
/// neighbour's amplitude was not fitted.
fn alone_cuts(
    image: &Focused,
    targets: &[TargetReport],
    k: usize,
    response: &IdealResponse,
) -> Option<(Vec<Complex32>, Vec<Complex32>)> {
    let target = targets.get(k)?;
    let alone = target.alone.as_ref()?;
    let others: Vec<((f64, f64), Complex64)> = targets
        .iter()
        .enumerate()
        .filter(|&(j, _)| j != k)
        .map(|(_, t)| {
            t.amplitude
                .map(|[re, im]| (t.expected, Complex64::new(re, im)))
        })
        .collect::<Option<_>>()?;
    let (line, sample) = nearest(
        (alone.azimuth.peak_position, alone.range.peak_position),
        (image.lines, image.samples),
    );
    let less = |a: usize, r: usize| {
        let model: Complex64 = others
            .iter()
            .map(|&(at, c)| c * modelled(response, at, (a, r)))
            .sum();
        image.at(a, r) - Complex32::new(model.re as f32, model.im as f32)
    };
    let (half_lines, half_samples) = target.cut_half;
    let range = plot::window(sample, half_samples, image.samples)
        .map(|r| less(line, r))
        .collect();
    let azimuth = plot::window(line, half_lines, image.lines)
        .map(|a| less(a, sample))
        .collect();
    Some((range, azimuth))
}

/// A unit target placed at `at` (line, sample), fractional: its ideal response at (line
/// `a`, sample `r`).
fn modelled(response: &IdealResponse, at: (f64, f64), (a, r): (usize, usize)) -> Complex64 {
    let (az, rg) = (&response.azimuth, &response.range);
    let (da, dr) = (a as f64 - at.0, r as f64 - at.1);
    let turn = 2.0 * std::f64::consts::PI * (az.carrier * da + rg.carrier * dr);
    let h =
        az.window.response(da / az.samples_per_unit) * rg.window.response(dr / rg.samples_per_unit);
    Complex64::from_polar(h, turn)
}

/// What a target's cut plot says beside each curve, [range, azimuth] × [as imaged, alone,
/// ideal]: the measured IRW, PSLR and ISLR as imaged and alone, and theory's for the
/// (azimuth, range) `windows`. `bin_m`: metres per (line, sample).
fn cut_labels(
    t: &TargetReport,
    theory: &Theories,
    windows: (Window, Window),
    bin_m: (f64, f64),
) -> [[String; 3]; 2] {
    let axis = |range: bool| {
        let (th, irw, unit, m, window) = if range {
            (
                &theory.range,
                theory.irw_bins.1,
                "samples",
                bin_m.1,
                windows.1,
            )
        } else {
            (
                &theory.azimuth,
                theory.irw_bins.0,
                "lines",
                bin_m.0,
                windows.0,
            )
        };
        let values = |what: &str, irw: f64, pslr: f64, islr: f64| {
            format!(
                "{what}: IRW {irw:.3} {unit} = {:.3} m, PSLR {pslr:.2} dB, ISLR {islr:.2} dB",
                irw * m
            )
        };
        let measured = |what: &str, p: Option<&PointMetrics>, why: &Option<String>| match p {
            Some(p) => {
                let c = if range { &p.range } else { &p.azimuth };
                values(what, c.irw_bins, c.pslr_db, c.islr_db)
            }
            None => format!("{what}: not measured ({})", why.as_deref().unwrap_or("-")),
        };
        let ideal = match window {
            Window::None => "ideal, unweighted".to_string(),
            w => format!("ideal, {w}"),
        };
        [
            measured("as imaged", t.metrics.as_ref(), &t.reasons.0),
            measured("alone", t.alone.as_ref(), &t.reasons.1),
            values(&ideal, irw, th.pslr_db, th.islr_db),
        ]
    };
    [axis(true), axis(false)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use tierfft_sar::quality::metrics::CutMetrics;

    /// 11.3 lines and 1.2 samples per 1/B, a squinted azimuth response.
    const RESPONSE: IdealResponse = IdealResponse {
        azimuth: AxisResponse {
            window: Window::None,
            samples_per_unit: 11.3,
            carrier: 0.05,
        },
        range: AxisResponse {
            window: Window::Hamming,
            samples_per_unit: 1.2,
            carrier: 0.0,
        },
    };

    fn report(expected: (f64, f64), amplitude: Option<Complex64>) -> TargetReport {
        let cut = |peak_position| CutMetrics {
            peak_position,
            peak_value: 1.0,
            irw_bins: 1.0,
            pslr_db: -13.0,
            islr_db: -10.0,
        };
        TargetReport {
            range_m: 20e3,
            azimuth_m: 0.0,
            expected,
            cut_half: (40, 24),
            metrics: None,
            alone: Some(PointMetrics {
                azimuth: cut(expected.0),
                range: cut(expected.1),
                peak_snr_db: None,
            }),
            amplitude: amplitude.map(|c| [c.re, c.im]),
            error: None,
            reasons: (None, None),
        }
    }

    /// Two targets 30 lines apart in one range bin: each one's cuts alone are its own
    /// response, the other's taken out; as imaged they are not.
    #[test]
    fn a_target_alone_has_its_neighbour_taken_out() {
        let (lines, samples) = (160, 64);
        let targets = [
            ((60.0, 30.0), Complex64::new(1.0, 0.0)),
            ((90.0, 30.0), Complex64::new(0.0, 0.8)),
        ];
        let mut data = vec![Complex32::new(0.0, 0.0); lines * samples];
        for (a, l) in data.chunks_mut(samples).enumerate() {
            for (r, z) in l.iter_mut().enumerate() {
                let v: Complex64 = targets
                    .iter()
                    .map(|&(at, c)| c * modelled(&RESPONSE, at, (a, r)))
                    .sum();
                *z = Complex32::new(v.re as f32, v.im as f32);
            }
        }
        let image = Focused::new(&data, lines, samples).expect("shape");
        let reports: Vec<TargetReport> =
            targets.iter().map(|&(at, c)| report(at, Some(c))).collect();
        let (range, azimuth) = alone_cuts(&image, &reports, 0, &RESPONSE).expect("modelled");
        assert_eq!((range.len(), azimuth.len()), (49, 81));
        // Target 0 alone, independently: the windows' closed-form responses.
        let own = |a: usize, r: usize| {
            let h = Window::None.response((a as f64 - 60.0) / 11.3)
                * Window::Hamming.response((r as f64 - 30.0) / 1.2);
            Complex64::from_polar(h, 2.0 * std::f64::consts::PI * 0.05 * (a as f64 - 60.0))
        };
        let error = |cut: &[Complex32], at: &dyn Fn(usize) -> Complex64| {
            cut.iter()
                .enumerate()
                .map(|(i, z)| (Complex64::new(z.re.into(), z.im.into()) - at(i)).norm())
                .fold(0.0, f64::max)
        };
        assert!(error(&azimuth, &|i| own(20 + i, 30)) < 1e-5);
        assert!(error(&range, &|i| own(60, 6 + i)) < 1e-5);
        let imaged = image.azimuth_cut(60, 30, 40);
        assert!(
            error(&imaged, &|i| own(20 + i, 30)) > 0.1,
            "the neighbour shows"
        );
        // Not measured alone, or a neighbour not fitted: no cut alone.
        let mut unfitted = reports;
        unfitted[1].amplitude = None;
        assert!(alone_cuts(&image, &unfitted, 0, &RESPONSE).is_none());
        unfitted[0].alone = None;
        assert!(alone_cuts(&image, &unfitted, 0, &RESPONSE).is_none());
    }
}
