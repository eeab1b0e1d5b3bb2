//! The quality of an image of a distributed scene, where there are no point targets to
//! measure: how far its speckle is correlated along each axis against the theory of the
//! processed band ([`crate::filters::window::Window::speckle_width`]), and the contrast of
//! its multi-looked power.
//!
//! Correlation width: the half-power width of the normalised autocovariance of the power
//! `|z|²` along an axis. For fully developed speckle that is `|ρ(τ)|²`, the squared
//! magnitude of the complex autocorrelation, whose transform is the processed band's power
//! spectrum; it ignores the autocorrelation's phase, so it holds where the band's place
//! moves along the image (each line of a partial aperture sees its own stretch of the
//! Doppler band). Each run of samples along the axis is interpolated ×8 by zero-padding its
//! spectrum, its mean removed, the covariance summed over every run and lag, and the
//! half-power lag interpolated linearly; an eighth of each run at either end (the
//! interpolation's periodic wrap) is left out of the sums.

use num_complex::{Complex32, Complex64};
use rayon::prelude::*;
use rustfft::FftPlanner;
use serde::Serialize;
use std::ops::Range;

use crate::error::SarError;
use crate::filters::window::Window;
use crate::quality::looks::multilook;
use crate::scene::extent::Extent;
use crate::scene::params::Config;

/// Interpolation factor along the axis measured.
const UP: usize = 8;

/// Which axis of an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// Along a line: range samples.
    Range,
    /// Across lines: azimuth.
    Azimuth,
}

/// The speckle of a region of an image against theory, and its contrast.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Speckle {
    /// Lines measured, `[first, end)`.
    pub lines: Range<usize>,
    /// Samples measured, `[first, end)`.
    pub samples: Range<usize>,
    /// Correlation width along range, samples.
    pub range_width: f64,
    /// Its theory: the range window's speckle width × fs/B.
    pub range_theory: f64,
    /// Correlation width along azimuth, lines.
    pub azimuth_width: f64,
    /// Its theory: the azimuth window's speckle width × PRF / the focused Doppler band.
    pub azimuth_theory: f64,
    /// The looks (lines, samples) the contrast is measured over: a theoretical correlation
    /// width each, rounded up.
    pub looks: (usize, usize),
    /// The coefficient of variation of the multi-looked power over the region ([`contrast`]).
    pub contrast: f64,
    /// The same of the image compressed in range alone, where there is one.
    pub range_compressed_contrast: Option<f64>,
}

/// The speckle of `image`, focused from `config`'s scene with `windows` (azimuth, range),
/// over the lines whose aperture was recorded (every line of a partial aperture) and the
/// samples whose pulse was, against theory; with `compressed`, the scene compressed in range
/// alone, its contrast beside.
pub fn measure(
    image: &[Complex32],
    compressed: Option<&[Complex32]>,
    config: &Config,
    windows: (Window, Window),
) -> Result<Speckle, SarError> {
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    let extent = Extent::of(config, true);
    let line_range = match config.scene.partial_aperture {
        true => 0..lines,
        false => extent.full_lines.0..extent.full_lines.1,
    };
    let region = (line_range, extent.full_samples.0..extent.full_samples.1);
    let r = &config.radar;
    let azimuth_theory =
        windows.0.speckle_width() * r.prf_hz / config.focused_doppler_bandwidth_hz();
    let range_theory = windows.1.speckle_width() * r.sample_rate_hz / r.bandwidth_hz;
    let shape = (lines, samples);
    let looks = (
        (azimuth_theory.ceil() as usize).max(1),
        (range_theory.ceil() as usize).max(1),
    );
    let region_contrast = |z: &[Complex32]| -> Result<f64, SarError> {
        let width = region.1.len();
        let cut: Vec<Complex32> = z
            .chunks(samples)
            .skip(region.0.start)
            .take(region.0.len())
            .flat_map(|l| l[region.1.clone()].iter().copied())
            .collect();
        Ok(contrast(&multilook(&cut, region.0.len(), width, looks)?))
    };
    Ok(Speckle {
        lines: region.0.clone(),
        samples: region.1.clone(),
        range_width: correlation_width(image, shape, region.clone(), Axis::Range)?,
        range_theory,
        azimuth_width: correlation_width(image, shape, region.clone(), Axis::Azimuth)?,
        azimuth_theory,
        looks,
        contrast: region_contrast(image)?,
        range_compressed_contrast: compressed.map(region_contrast).transpose()?,
    })
}

/// `speckle correlation width: range 1.061 samples (theory 1.012), azimuth 8.686 lines
/// (theory 8.458); contrast over 9 × 2 looks 0.663 (compressed in range alone: 0.311)`.
impl std::fmt::Display for Speckle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "speckle correlation width: range {:.3} samples (theory {:.3}), azimuth {:.3} lines \
             (theory {:.3}); contrast over {} × {} looks {:.3}",
            self.range_width,
            self.range_theory,
            self.azimuth_width,
            self.azimuth_theory,
            self.looks.0,
            self.looks.1,
            self.contrast
        )?;
        if let Some(c) = self.range_compressed_contrast {
            write!(f, " (compressed in range alone: {c:.3})")?;
        }
        Ok(())
    }
}

/// The half-power correlation width of `image`'s power (`lines × samples`, row-major) along
/// `axis`, in lines or samples, over `region` (`lines`, `samples`); an error where the region
/// is too short along the axis (fewer than 64) or holds no power.
pub fn correlation_width(
    image: &[Complex32],
    (lines, samples): (usize, usize),
    region: (Range<usize>, Range<usize>),
    axis: Axis,
) -> Result<f64, SarError> {
    let (rl, rs) = region;
    if image.len() != lines * samples || rl.end > lines || rs.end > samples {
        return Err(SarError::Config(format!(
            "a region {rl:?} × {rs:?} of a {lines} × {samples} image of {} samples",
            image.len()
        )));
    }
    let (along, across) = match axis {
        Axis::Range => (rs.clone(), rl.clone()),
        Axis::Azimuth => (rl.clone(), rs.clone()),
    };
    let n = along.len();
    if n < 64 || across.is_empty() {
        return Err(SarError::Config(format!(
            "a speckle correlation needs runs of at least 64 along the axis and one across \
             (got {n} × {})",
            across.len()
        )));
    }
    let m = n * UP;
    let mut planner = FftPlanner::<f32>::new();
    let (fwd, inv) = (planner.plan_fft_forward(n), planner.plan_fft_inverse(m));
    // The power's autocovariance through its spectrum, zero-padded to 2m (no wrap).
    let mut planner64 = FftPlanner::<f64>::new();
    let (pf, pi) = (
        planner64.plan_fft_forward(2 * m),
        planner64.plan_fft_inverse(2 * m),
    );
    let max_lag = m / 8;
    let keep = m / 8..m - m / 8;
    // Each run's autocovariance, summed over the runs on every thread.
    let run_cov = |j: usize| -> Vec<f64> {
        let mut run = vec![Complex32::default(); n];
        for (i, z) in run.iter_mut().enumerate() {
            let (l, s) = match axis {
                Axis::Range => (j, along.start + i),
                Axis::Azimuth => (along.start + i, j),
            };
            *z = image[l * samples + s];
        }
        fwd.process(&mut run);
        // The spectrum's halves at either end of the longer one: band-limited interpolation.
        let mut up = vec![Complex32::default(); m];
        let half = n / 2;
        up[..half].copy_from_slice(&run[..half]);
        up[m - (n - half)..].copy_from_slice(&run[half..]);
        inv.process(&mut up);
        let power = |a: usize| f64::from(up[a].norm_sqr());
        let mean = keep.clone().map(power).sum::<f64>() / keep.len() as f64;
        let mut centred = vec![Complex64::default(); 2 * m];
        for a in keep.clone() {
            centred[a].re = power(a) - mean;
        }
        pf.process(&mut centred);
        for z in centred.iter_mut() {
            *z = Complex64::new(z.norm_sqr(), 0.0);
        }
        pi.process(&mut centred);
        centred[..=max_lag].iter().map(|z| z.re).collect()
    };
    let cov = across.into_par_iter().map(run_cov).reduce(
        || vec![0.0; max_lag + 1],
        |mut a, b| {
            a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
            a
        },
    );
    if cov[0].is_nan() || cov[0] <= 0.0 {
        return Err(SarError::Config("the region holds no varying power".into()));
    }
    let half = cov
        .iter()
        .position(|&c| c < 0.5 * cov[0])
        .ok_or_else(|| SarError::Config("the power stays correlated past the widest lag".into()))?;
    // Linear between the last lag above half and the first below.
    let (a, b) = (cov[half - 1] / cov[0], cov[half] / cov[0]);
    let lag = (half - 1) as f64 + (a - 0.5) / (a - b);
    Ok(2.0 * lag / UP as f64)
}

/// The coefficient of variation (standard deviation over mean) of `power`, a multi-looked
/// image's values: 1 for single-look speckle, 1/√N for N independent looks, higher where
/// the scene's own structure shows.
pub fn contrast(power: &[f32]) -> f64 {
    let n = power.len().max(1) as f64;
    let mean = power.iter().map(|&p| f64::from(p)).sum::<f64>() / n;
    let var = power
        .iter()
        .map(|&p| (f64::from(p) - mean).powi(2))
        .sum::<f64>()
        / n;
    var.sqrt() / mean
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    /// White complex noise filtered to a band of `fraction` of the sampling rate along
    /// both axes: speckle of known correlation (0.886 / fraction bins, unweighted).
    fn speckle(lines: usize, samples: usize, fraction: (f64, f64)) -> Vec<Complex32> {
        let mut rng = StdRng::seed_from_u64(3);
        let mut z: Vec<Complex32> = (0..lines * samples)
            .map(|_| Complex32::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)))
            .collect();
        let mut planner = FftPlanner::<f32>::new();
        let band = |k: usize, n: usize, f: f64| {
            let k = if k > n / 2 { n - k } else { k };
            (k as f64) < f * n as f64 / 2.0
        };
        let (fr, ir) = (
            planner.plan_fft_forward(samples),
            planner.plan_fft_inverse(samples),
        );
        for row in z.chunks_mut(samples) {
            fr.process(row);
            for (k, v) in row.iter_mut().enumerate() {
                if !band(k, samples, fraction.1) {
                    *v = Complex32::default();
                }
            }
            ir.process(row);
        }
        let (fa, ia) = (
            planner.plan_fft_forward(lines),
            planner.plan_fft_inverse(lines),
        );
        let mut col = vec![Complex32::default(); lines];
        for s in 0..samples {
            for l in 0..lines {
                col[l] = z[l * samples + s];
            }
            fa.process(&mut col);
            for (k, v) in col.iter_mut().enumerate() {
                if !band(k, lines, fraction.0) {
                    *v = Complex32::default();
                }
            }
            ia.process(&mut col);
            for l in 0..lines {
                z[l * samples + s] = col[l];
            }
        }
        z
    }

    #[test]
    fn band_limited_speckle_has_its_theoretical_width() {
        let (lines, samples) = (512, 1024);
        let z = speckle(lines, samples, (0.125, 0.5));
        let region = (0..lines, 0..samples);
        let range = correlation_width(&z, (lines, samples), region.clone(), Axis::Range).unwrap();
        let azimuth = correlation_width(&z, (lines, samples), region, Axis::Azimuth).unwrap();
        // 0.886 / 0.5 = 1.77 samples; 0.886 / 0.125 = 7.09 lines.
        assert!((range / 1.772 - 1.0).abs() < 0.03, "{range}");
        assert!((azimuth / 7.088 - 1.0).abs() < 0.03, "{azimuth}");
        let flat = vec![Complex32::new(1.0, 0.0); lines * samples];
        assert!(
            correlation_width(&flat, (lines, samples), (0..lines, 0..samples), Axis::Range)
                .is_err()
        );
        assert!(correlation_width(&z, (lines, samples), (0..lines, 0..32), Axis::Range).is_err());
    }

    #[test]
    fn single_look_speckle_has_unit_contrast() {
        // Band-limited (so Gaussian by the central limit theorem; the raw uniform noise is not).
        let z = speckle(256, 256, (0.5, 0.5));
        let power: Vec<f32> = z.iter().map(|v| v.norm_sqr()).collect();
        assert!(
            (contrast(&power) - 1.0).abs() < 0.05,
            "{}",
            contrast(&power)
        );
    }
}
