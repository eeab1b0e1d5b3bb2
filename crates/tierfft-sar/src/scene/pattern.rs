//! The antenna's azimuth pattern: how strongly the beam lights a target at each angle from
//! its centre, given (`radar.azimuth_pattern`) or recognised in the echoes.
//!
//! The azimuth filter divides by the spectrum of a reference target lit as the pattern
//! lights it ([`crate::filters::azimuth`]), so that the azimuth window alone shapes the response:
//! a tapered beam focused as if uniformly lit gives a wider response with lower sidelobes
//! than the window's theory (a sinc² beam unweighted: IRW 8 % wider, PSLR −18 dB instead of
//! −13.3; `tests/sar/pattern.rs`). Two patterns:
//!
//! - `uniform`: amplitude 1 within the beamwidth 0.886·λ/L that sets the processed Doppler
//!   band (`Radar::beamwidth_rad`), 0 outside (the simulator's default);
//! - `sinc2`: the two-way amplitude sinc²(L·sin(θ − θsq)/λ) of a uniformly excited antenna
//!   of length L, out to its first nulls (λ/L from the centre). 0.886·λ/L is its one-way
//!   3 dB width: the two-way amplitude is 1/2 there, where the processed Doppler band ends,
//!   so the filter lifts the band's edges by up to 6 dB, which costs 0.7 dB of SNR against
//!   the phase-only (matched) filter.
//!
//! Without the key, `tierfft sar` and the Python `focus` recognise the pattern from the
//! echoes ([`resolve`]): the azimuth power spectrum summed over range columns is fitted, as
//! `a·model + noise`, with each pattern's spectrum of a reference target (summed over
//! ranges across the swath, both smoothed over an eighth of the band against the Fresnel
//! ripple and the interference of targets); sinc² is taken where its residual is under a
//! quarter of the uniform one's, and uniform is assumed where the band spans fewer than 64
//! Doppler bins. Measured (`scripts/independent-sar.py`, `tests/sar/pattern.rs`): sinc²
//! scenes 0.00–0.15 of the uniform residual, uniform scenes 40–190 times it, and 0.43 for
//! the default targets in a 22-bin band (assumed uniform there).

use std::f64::consts::PI;

use num_complex::{Complex32, Complex64};
use rustfft::FftPlanner;
use serde::Serialize;

use crate::scene::centroid::azimuth_power;
use crate::scene::params::{Config, Radar};
pub use crate::scene::values::AzimuthPattern;

impl AzimuthPattern {
    /// The two-way amplitude at `off` rad from the beam's centre, within
    /// [`AzimuthPattern::half_extent_rad`] of it (callers limit themselves to what it lights:
    /// [`Config::lit_m`]).
    pub fn gain(self, radar: &Radar, off: f64) -> f64 {
        match self {
            AzimuthPattern::Uniform => 1.0,
            AzimuthPattern::Sinc2 => {
                let u = radar.antenna_m * off.sin() / radar.wavelength_m();
                let sinc = match u == 0.0 {
                    true => 1.0,
                    false => (PI * u).sin() / (PI * u),
                };
                sinc * sinc
            }
        }
    }

    /// The widest angle from the beam's centre it lights, rad: half the 3 dB beam, or the
    /// first null (λ/L, at most 80°).
    pub fn half_extent_rad(self, radar: &Radar) -> f64 {
        match self {
            AzimuthPattern::Uniform => radar.beamwidth_rad() / 2.0,
            AzimuthPattern::Sinc2 => (radar.wavelength_m() / radar.antenna_m)
                .min(1.0)
                .asin()
                .min(80f64.to_radians()),
        }
    }
}

impl Config {
    /// The pattern the beam lights with: `radar.azimuth_pattern`, uniform when absent.
    pub fn azimuth_pattern(&self) -> AzimuthPattern {
        self.radar.azimuth_pattern.unwrap_or_default()
    }

    /// The platform's along-track offsets from a target at closest range `range_m` over
    /// which the beam's pattern lights it at all, `(first, last)` m: the 3 dB aperture
    /// ([`Config::aperture_m`]) for a uniform pattern, wider for a tapered one.
    pub fn lit_m(&self, range_m: f64) -> (f64, f64) {
        let squint = self.squint_rad(range_m);
        let half = self.azimuth_pattern().half_extent_rad(&self.radar);
        let edge = |angle: f64| -range_m * angle.clamp(-1.55, 1.55).tan();
        (edge(squint + half), edge(squint - half))
    }

    /// The pattern's amplitude on a target at closest range `range_m` when the platform is
    /// `dx` m along track from it (negative: before closest approach), within
    /// [`Config::lit_m`].
    pub fn pattern_gain(&self, range_m: f64, dx: f64) -> f64 {
        let angle = (-dx).atan2(range_m);
        self.azimuth_pattern()
            .gain(&self.radar, angle - self.squint_rad(range_m))
    }
}

/// The pattern a focusing run uses, and where it came from, for its report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Used {
    /// The pattern.
    pub pattern: AzimuthPattern,
    /// `"config"`, `"recognised"` (from the echoes), `"assumed"` (uniform: the Doppler
    /// band spans too few bins to tell), or `"simulation"` (`tierfft sar` simulating without
    /// the key: the simulator's uniform beam).
    pub source: &'static str,
    /// When recognised: each pattern's relative residual fitting the echoes' azimuth
    /// spectrum (`[uniform, sinc2]`; sinc² wins under a quarter of the uniform one's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub residuals: Option<[f64; 2]>,
}

/// Puts the pattern to focus `raw` with into `config`: its own, or (absent) the one its
/// azimuth spectrum fits best. Needs the Doppler centroid resolved first
/// ([`crate::scene::centroid::resolve`]).
pub fn resolve(config: &mut Config, raw: &[Complex32]) -> Used {
    if let Some(pattern) = config.radar.azimuth_pattern {
        return Used {
            pattern,
            source: "config",
            residuals: None,
        };
    }
    let band_bins =
        config.radar.doppler_bandwidth_hz() * config.scene.lines as f64 / config.radar.prf_hz;
    let (pattern, source, residuals) = match band_bins < MIN_BAND_BINS {
        true => (AzimuthPattern::Uniform, "assumed", None),
        false => {
            let residuals = fit_residuals(config, raw);
            let pattern = match residuals[1] < SINC2_MARGIN * residuals[0] {
                true => AzimuthPattern::Sinc2,
                false => AzimuthPattern::Uniform,
            };
            (pattern, "recognised", Some(residuals))
        }
    };
    config.radar.azimuth_pattern = Some(pattern);
    Used {
        pattern,
        source,
        residuals,
    }
}

/// The fewest Doppler bins the band must span for the pattern to be recognised: in
/// narrower bands the interference of targets within an aperture of each other shapes the
/// spectrum as much as the beam (the default targets at 1024 lines and an 8 m antenna, 22
/// bins, fit sinc² better although lit uniformly).
const MIN_BAND_BINS: f64 = 64.0;
/// sinc² is taken where its residual is under this share of the uniform one's: mistaking
/// a uniform beam for sinc² costs more (the filter then lifts band edges that were not
/// low) than the reverse.
const SINC2_MARGIN: f64 = 0.25;

/// Ranges across the swath whose reference spectra make a pattern's model spectrum.
const MODEL_RANGES: usize = 8;

/// How well each pattern's model spectrum fits `raw`'s azimuth power spectrum: the relative
/// RMS residual of the least-squares fit `a·model + noise` (`[uniform, sinc2]`).
fn fit_residuals(config: &Config, raw: &[Complex32]) -> [f64; 2] {
    let lines = config.scene.lines;
    let bin_hz = config.radar.prf_hz / lines as f64;
    let smooth = (config.radar.doppler_bandwidth_hz() / bin_hz / 8.0).round() as usize;
    let measured = smoothed(&azimuth_power(config, raw), smooth);
    let fft = FftPlanner::<f64>::new().plan_fft_forward(lines);
    [AzimuthPattern::Uniform, AzimuthPattern::Sinc2].map(|pattern| {
        let mut c = config.clone();
        c.radar.azimuth_pattern = Some(pattern);
        let (near, bin) = (c.near_range_m(), c.radar.range_bin_m());
        let mut model = vec![0.0; lines];
        for i in 0..MODEL_RANGES {
            let r0 = near + (i as f64 + 0.5) / MODEL_RANGES as f64 * c.scene.samples as f64 * bin;
            let spectrum = reference_spectrum(&c, r0, fft.as_ref());
            model
                .iter_mut()
                .zip(&spectrum)
                .for_each(|(m, z)| *m += z.norm_sqr());
        }
        relative_residual(&measured, &smoothed(&model, smooth))
    })
}

/// `values` averaged circularly over `2·half + 1` neighbours.
fn smoothed(values: &[f64], half: usize) -> Vec<f64> {
    let n = values.len();
    let half = half.min(n.saturating_sub(1) / 2);
    (0..n)
        .map(|i| {
            let sum: f64 = (0..=2 * half).map(|k| values[(i + n + k - half) % n]).sum();
            sum / (2 * half + 1) as f64
        })
        .collect()
}

/// The relative RMS residual of the least-squares fit `measured ≈ a·model + b`.
fn relative_residual(measured: &[f64], model: &[f64]) -> f64 {
    let n = measured.len() as f64;
    let (mx, my) = (
        model.iter().sum::<f64>() / n,
        measured.iter().sum::<f64>() / n,
    );
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for (x, y) in model.iter().zip(measured) {
        sxx += (x - mx) * (x - mx);
        sxy += (x - mx) * (y - my);
    }
    let a = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let b = my - a * mx;
    let (mut error, mut total) = (0.0, 0.0);
    for (x, y) in model.iter().zip(measured) {
        error += (y - a * x - b).powi(2);
        total += y * y;
    }
    if total > 0.0 {
        (error / total).sqrt()
    } else {
        0.0
    }
}

/// The azimuth spectrum of a unit point target at range `r0` and azimuth 0 (line 0,
/// wrapping) as the config's pattern lights it, with its carrier phase: the FFT of
/// `gain·exp(−i4π(R(η) − r0)/λ)` over `config.scene.lines` lines.
pub(crate) fn reference_spectrum(
    config: &Config,
    r0: f64,
    fft: &dyn rustfft::Fft<f64>,
) -> Vec<Complex64> {
    let r = &config.radar;
    let lines = config.scene.lines;
    let (first, last) = config.lit_m(r0);
    let step = r.azimuth_bin_m();
    let mut s = vec![Complex64::new(0.0, 0.0); lines];
    for line in (first / step).ceil() as i64..=(last / step).floor() as i64 {
        let x = line as f64 * step;
        let range = (r0 * r0 + x * x).sqrt();
        let gain = config.pattern_gain(r0, x);
        s[line.rem_euclid(lines as i64) as usize] +=
            Complex64::from_polar(gain, -4.0 * PI * (range - r0) / r.wavelength_m());
    }
    fft.process(&mut s);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sinc2_is_half_at_the_3db_beam_edges_and_zero_at_its_nulls() {
        let r = Radar::default();
        let p = AzimuthPattern::Sinc2;
        let edge = r.beamwidth_rad() / 2.0;
        assert!(
            (p.gain(&r, edge) - 0.5).abs() < 0.01,
            "{}",
            p.gain(&r, edge)
        );
        assert_eq!(p.gain(&r, 0.0), 1.0);
        assert!(p.gain(&r, p.half_extent_rad(&r)) < 1e-9);
        assert_eq!(AzimuthPattern::Uniform.gain(&r, edge), 1.0);
        // The uniform pattern lights the 3 dB aperture, sinc² out to its nulls.
        let mut c = Config::default();
        assert_eq!(c.lit_m(20e3), c.aperture_m(20e3));
        c.radar.azimuth_pattern = Some(p);
        let ((a, b), (x, y)) = (c.lit_m(20e3), c.aperture_m(20e3));
        assert!(
            ((b - a) / (y - x) - 2.0 / 0.886).abs() < 0.01,
            "{a} {b} {x} {y}"
        );
    }

    #[test]
    fn a_line_fits_exactly() {
        let model: Vec<f64> = (0..50).map(|i| f64::from(i % 7)).collect();
        let measured: Vec<f64> = model.iter().map(|x| 3.0 * x + 2.0).collect();
        assert!(relative_residual(&measured, &model) < 1e-12);
        assert!(
            relative_residual(
                &measured,
                &measured.iter().rev().copied().collect::<Vec<_>>()
            ) > 0.1
        );
    }
}
