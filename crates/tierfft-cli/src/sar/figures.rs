//! The figures of `tierfft sar`: the overview and, per target, the crop and the cut plot
//! with the measured values written on it.

use std::path::Path;

use tierfft_sar::metrics::PointMetrics;
use tierfft_sar::params::Config;

use crate::CliResult;
use crate::plot::{self, Focused, Geometry, TargetFigure};
use tierfft_sar::measure::{TargetReport, Theories};

/// Draws `overview.png` and every target's figures of the focused `image` into `dir`.
pub fn draw(
    dir: &Path,
    image: &Focused,
    config: &Config,
    targets: &[TargetReport],
    theory: &Theories,
) -> CliResult<()> {
    let (lines, samples) = (image.lines, image.samples);
    let r = &config.radar;
    let geometry = Geometry {
        range_bin_m: r.range_bin_m(),
        azimuth_bin_m: r.azimuth_bin_m(),
        near_range_m: config.near_range_m(),
        centre_line: lines as f64 / 2.0,
    };
    let placed: Vec<(f64, f64)> = targets.iter().map(|t| t.expected).collect();
    plot::write_overview(&dir.join("overview.png"), image, &geometry, &placed)?;
    for (i, t) in targets.iter().enumerate() {
        // The measured peak, to the nearest line and sample, centres the crop and the cuts
        // (sub-bin interpolation may put a peak on the last line half a line outside); the
        // placed position where nothing was measured.
        let peak = match &t.metrics {
            Some(m) => (m.azimuth.peak_position, m.range.peak_position),
            None => t.expected,
        };
        let peak = (
            (peak.0.round().max(0.0) as usize).min(lines - 1),
            (peak.1.round().max(0.0) as usize).min(samples - 1),
        );
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
            labels: cut_labels(t, theory, (geometry.azimuth_bin_m, geometry.range_bin_m)),
        };
        plot::write_target_figures(dir, image, &geometry, &target)?;
    }
    Ok(())
}

/// What a target's cut plot says above each curve, (range, azimuth): the measured IRW, PSLR
/// and ISLR as imaged and alone, and theory's. `bin_m`: metres per (line, sample).
fn cut_labels(
    t: &TargetReport,
    theory: &Theories,
    bin_m: (f64, f64),
) -> (Vec<String>, Vec<String>) {
    let axis = |range: bool| {
        let (th, irw, unit, m) = if range {
            (&theory.range, theory.irw_bins.1, "samples", bin_m.1)
        } else {
            (&theory.azimuth, theory.irw_bins.0, "lines", bin_m.0)
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
        vec![
            measured("as imaged", t.metrics.as_ref(), &t.reasons.0),
            measured("alone", t.alone.as_ref(), &t.reasons.1),
            values("theory", irw, th.pslr_db, th.islr_db),
        ]
    };
    (axis(true), axis(false))
}
