//! Doppler centroid estimation from raw echoes, for recordings that do not say where the beam
//! looked.
//!
//! - **Within the PRF, against range: the average cross-correlation coefficient (ACCC).**
//!   The product of each echo sample with the conjugate of the one a pulse earlier, summed,
//!   has the phase 2π·fdc/PRF (the power-weighted mean Doppler, modulo the PRF): white noise
//!   adds no bias. Blocks across the swath give the centroid against range, fitted with a line
//!   weighted by each block's correlation (blocks of noise barely count); the line is flat
//!   unless the signal spreads over more than a pulse and a sixteenth of the swath (within
//!   one echo the chirp sweeps, and the Doppler with it, fdc·(f0 + fτ)/f0).
//! - **Its level: the band in the azimuth power spectrum.** A weighted mean is pulled by
//!   interference (two point targets 25 lines apart at one range modulate the spectrum: 2 Hz
//!   on the test scene), the band's edges are not: the line is moved to where a window as wide
//!   as the beam's Doppler bandwidth holds the most power.
//! - **Ambiguity (how many PRFs): multi-look cross-correlation (MLCC).** The Doppler of a
//!   target scales with the transmitted frequency, fdc·(f0 + fτ)/f0, so the ACCC phases of the
//!   upper and lower halves of the range band differ by 2π·fdc·(B/2)/(f0·PRF): an unambiguous
//!   but coarse estimate of the absolute centroid, which picks the multiple of the PRF to add.
//!   It needs the range spectrum of each line: at most [`MLCC_SAMPLES`] echo samples are
//!   transformed (runs of consecutive lines spread over the scene).

use std::f64::consts::PI;

use num_complex::{Complex32, Complex64};
use rayon::prelude::*;
use rustfft::FftPlanner;
use serde::Serialize;

use crate::error::SarError;
use crate::scene::freq::bin_hz;
use crate::scene::params::{C, Config};
use crate::scene::values::Centroid;

/// Range blocks of at least this many samples carry one ACCC each (at most [`MAX_BLOCKS`]).
const BLOCK_SAMPLES: usize = 128;
/// The most range blocks the centroid is estimated in.
const MAX_BLOCKS: usize = 64;
/// The most echo samples the multi-look estimate transforms (16 Mi: the whole default scene;
/// about 0.1 s on 2 cores).
pub const MLCC_SAMPLES: usize = 1 << 24;
/// Consecutive lines in each run of the multi-look estimate when it samples the scene.
const RUN_LINES: usize = 16;
/// Range columns whose azimuth power spectra locate the Doppler band (evenly spread).
const SPECTRUM_COLUMNS: usize = 256;
/// The band's middle is searched in steps of this many Doppler bins.
const SPECTRUM_STEP: f64 = 0.02;
/// The least lag-1 coherence along azimuth (|Σ s[j+1]·conj(s[j])| / Σ|s|²) an estimate is
/// made from: white noise has about 1/sqrt(samples), a scene 0.3 or more (its Doppler band
/// fills little of the PRF), lowered by its noise.
const MIN_COHERENCE: f64 = 0.05;

/// A Doppler centroid estimated from echoes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// The centroid to focus with: one value, or a line over the swath (as a two-row table
    /// at its near and far range).
    pub centroid: Centroid,
    /// The centroid at mid-swath within the PRF (before the ambiguity), Hz.
    pub fractional_hz: f64,
    /// The multi-look estimate of the absolute centroid, Hz: coarse (its error is a sizeable
    /// fraction of the PRF at X band), used only to pick the ambiguity.
    pub multilook_hz: f64,
    /// The PRFs added to the fractional centroid.
    pub ambiguity: i64,
}

/// The centroid a focusing run uses, and where it came from, for its report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Used {
    /// `"config"`, `"estimated"`, `"simulation"` (echoes simulated from the config: the
    /// centroid they were simulated with), or `"broadside"` when it could not be estimated.
    pub source: &'static str,
    /// The centroid, Hz (a number or `[range m, Hz]` pairs).
    pub hz: Centroid,
    /// The centroid at mid-swath, Hz.
    pub mid_swath_hz: f64,
    /// The estimate's details, when estimated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate: Option<Estimate>,
    /// Why it could not be estimated, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// The centroid of echoes simulated from `config` ([`crate::scene::simulate`]: its own, or 0 Hz,
/// broadside, where it gives none), put into `config` to focus them with.
pub fn simulated(config: &mut Config) -> Used {
    let hz = config
        .radar
        .doppler_centroid_hz
        .get_or_insert(Centroid::Constant(0.0))
        .clone();
    Used {
        source: "simulation",
        hz,
        mid_swath_hz: config.mid_centroid_hz(),
        estimate: None,
        warning: None,
    }
}

/// Puts the centroid to focus `raw` with into `config`: its own, or (absent) estimated from
/// the echoes, or 0 Hz (broadside) with a warning when the echoes hold nothing to estimate it
/// from. Fails when an estimate does not fit the radar (a squint past 89°: most likely
/// echoes laid out wrong).
pub fn resolve(config: &mut Config, raw: &[Complex32]) -> Result<Used, SarError> {
    let (source, estimate, warning) = match &config.radar.doppler_centroid_hz {
        Some(_) => ("config", None, None),
        None => match estimate(config, raw) {
            Ok(e) => {
                config.radar.doppler_centroid_hz = Some(e.centroid.clone());
                ("estimated", Some(e), None)
            }
            Err(e) => {
                config.radar.doppler_centroid_hz = Some(Centroid::Constant(0.0));
                let why = format!("{e}; focusing broadside (0 Hz)");
                ("broadside", None, Some(why))
            }
        },
    };
    let used = Used {
        source,
        hz: config
            .radar
            .doppler_centroid_hz
            .clone()
            .unwrap_or(Centroid::Constant(0.0)),
        mid_swath_hz: config.mid_centroid_hz(),
        estimate,
        warning,
    };
    if used.estimate.is_some()
        && let Err(e) = config.validate()
    {
        return Err(SarError::Config(format!(
            "the Doppler centroid estimated from the echoes, {:.0} Hz at mid-swath, does not \
             fit this radar ({e}); check the echoes' layout and the radar, or give \
             radar.doppler_centroid_hz",
            used.mid_swath_hz
        )));
    }
    Ok(used)
}

/// Estimates the Doppler centroid of `raw` echoes (`[lines][samples]`, as `config`'s scene
/// describes them; its `doppler_centroid_hz` is ignored).
pub fn estimate(config: &Config, raw: &[Complex32]) -> Result<Estimate, SarError> {
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    if raw.len() != lines * samples || lines < 2 {
        return Err(SarError::Config(format!(
            "the echoes hold {} samples, the scene {lines} × {samples}",
            raw.len()
        )));
    }
    let r = &config.radar;
    let blocks = (samples / BLOCK_SAMPLES).clamp(1, MAX_BLOCKS);
    let (sums, power) = block_correlations(raw, lines, samples, blocks);
    let total: Complex64 = sums.iter().sum();
    let coherence = total.norm() / power;
    // NaN when the echoes are all zero (or hold non-finite values).
    if coherence.is_nan() || coherence < MIN_COHERENCE {
        return Err(SarError::Config(format!(
            "the echoes are not coherent from pulse to pulse (lag-1 coherence {coherence:.3}, \
             below {MIN_COHERENCE}): no Doppler centroid can be estimated from them"
        )));
    }
    // Each block's phase unwrapped around the whole scene's, as Hz.
    let (near, bin) = (config.near_range_m(), r.range_bin_m());
    let points: Vec<(f64, f64, f64)> = sums
        .iter()
        .enumerate()
        .map(|(b, c)| {
            let middle = (b as f64 + 0.5) * samples as f64 / blocks as f64;
            let phase = total.arg() + (c * total.conj()).arg();
            (near + middle * bin, r.prf_hz * phase / (2.0 * PI), c.norm())
        })
        .collect();
    let far = near + samples as f64 * bin;
    // A slope only from signal spread wider than a pulse: within one target's echo the
    // chirp's frequency, and with it the Doppler (fdc·(f0 + fτ)/f0), sweeps with range.
    let pulse_m = r.pulse_s * C / 2.0;
    let mut line = fit_line(&points, ((far - near) / 16.0).max(pulse_m));
    // The level from the power spectrum's band, which interference between targets does not
    // pull (ACCC is the power-weighted mean Doppler: two targets 25 lines apart at one range
    // modulate the spectrum and moved it 2 Hz).
    line.hz = band_centre(config, raw, line.hz);
    let mid = (near + far) / 2.0;
    let fractional_hz = line.at(mid);
    let multilook_hz = multilook(config, raw)?;
    let ambiguity = ((multilook_hz - fractional_hz) / r.prf_hz).round() as i64;
    let shift = ambiguity as f64 * r.prf_hz;
    let (at_near, at_far) = (line.at(near) + shift, line.at(far) + shift);
    let centroid = match at_near == at_far {
        true => Centroid::Constant(at_near),
        false => Centroid::Table(vec![[near, at_near], [far, at_far]]),
    };
    Ok(Estimate {
        centroid,
        fractional_hz,
        multilook_hz,
        ambiguity,
    })
}

/// Σ s[j+1][k]·conj(s[j][k]) over all lines, per range block (`blocks` equal parts of the
/// samples), and the power Σ|s[j][k]|² of the lines it reads.
fn block_correlations(
    raw: &[Complex32],
    lines: usize,
    samples: usize,
    blocks: usize,
) -> (Vec<Complex64>, f64) {
    let bounds: Vec<usize> = (0..=blocks).map(|b| b * samples / blocks).collect();
    let pairs: Vec<usize> = (0..lines - 1).collect();
    let parts = per_chunk(&pairs, |chunk| {
        let mut sums = vec![Complex64::new(0.0, 0.0); blocks];
        let mut power = 0.0;
        for &j in chunk {
            let (a, b) = (&raw[j * samples..], &raw[(j + 1) * samples..]);
            for (sum, w) in sums.iter_mut().zip(bounds.windows(2)) {
                let c: Complex32 = (w[0]..w[1]).map(|k| b[k] * a[k].conj()).sum();
                *sum += Complex64::new(c.re.into(), c.im.into());
            }
            power += a[..samples]
                .iter()
                .map(|z| f64::from(z.norm_sqr()))
                .sum::<f64>();
        }
        (sums, power)
    });
    let mut sums = vec![Complex64::new(0.0, 0.0); blocks];
    let mut power = 0.0;
    for (part, p) in parts {
        sums.iter_mut().zip(part).for_each(|(s, p)| *s += p);
        power += p;
    }
    (sums, power)
}

/// A centroid that varies linearly with range.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Line {
    /// The range it is anchored at, m.
    range: f64,
    /// The centroid there, Hz.
    hz: f64,
    /// Hz per m.
    slope: f64,
}

impl Line {
    fn at(&self, range: f64) -> f64 {
        self.hz + self.slope * (range - self.range)
    }
}

/// The weighted least-squares line through `(range m, Hz, weight)` points, anchored at their
/// weighted mean range; flat (the weighted mean) when the weight's spread (its standard
/// deviation in range) is under `min_spread` m, where a slope would be mostly noise.
fn fit_line(points: &[(f64, f64, f64)], min_spread: f64) -> Line {
    let weight: f64 = points.iter().map(|p| p.2).sum();
    let mean = |f: &dyn Fn(&(f64, f64, f64)) -> f64| {
        points.iter().map(|p| p.2 * f(p)).sum::<f64>() / weight
    };
    let (range, hz) = (mean(&|p| p.0), mean(&|p| p.1));
    let spread = mean(&|p| (p.0 - range).powi(2));
    let slope = match spread.sqrt() > min_spread {
        true => mean(&|p| (p.0 - range) * (p.1 - hz)) / spread,
        false => 0.0,
    };
    Line { range, hz, slope }
}

/// The middle of the Doppler band within half a band of `guess` Hz: where a window as wide as
/// the band (the beam's Doppler bandwidth) holds the most of the azimuth power spectrum,
/// summed over up to [`SPECTRUM_COLUMNS`] range columns. Sharp band edges (a uniformly lit
/// beam) pin it to a fraction of a bin; a tapered pattern is found at its middle.
fn band_centre(config: &Config, raw: &[Complex32], guess: f64) -> f64 {
    let r = &config.radar;
    let lines = config.scene.lines;
    let power = azimuth_power(config, raw);
    // Power below bin position x (bins 0, 1, ... cover [b − ½, b + ½)), over two turns of the
    // PRF so that a window may wrap.
    let mut cumulative = vec![0.0; 2 * lines + 1];
    for i in 0..2 * lines {
        cumulative[i + 1] = cumulative[i] + power[i % lines];
    }
    let below = |x: f64| {
        let x = (x + 0.5).clamp(0.0, (2 * lines) as f64);
        let i = (x.floor() as usize).min(2 * lines - 1);
        cumulative[i] + (x - i as f64) * power[i % lines]
    };
    let bin_hz = r.prf_hz / lines as f64;
    let width = r.doppler_bandwidth_hz() / bin_hz;
    // The guess as a bin position between half a turn and a turn and a half, so that the
    // window stays inside the two.
    let turn = lines as f64;
    let centre = match (guess / bin_hz).rem_euclid(turn) {
        c if c < turn / 2.0 => c + turn,
        c => c,
    };
    let held = |c: f64| below(c + width / 2.0) - below(c - width / 2.0);
    let steps = (width / 2.0 / SPECTRUM_STEP).ceil() as i64;
    let best = (-steps..=steps)
        .map(|i| centre + i as f64 * SPECTRUM_STEP)
        .max_by(|a, b| held(*a).total_cmp(&held(*b)))
        .unwrap_or(centre);
    guess + (best - centre) * bin_hz
}

/// The azimuth power spectrum of `raw` (`[lines][samples]`), summed over up to
/// [`SPECTRUM_COLUMNS`] range columns spread evenly over the swath, per Doppler bin.
pub(crate) fn azimuth_power(config: &Config, raw: &[Complex32]) -> Vec<f64> {
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    let stride = samples.div_ceil(SPECTRUM_COLUMNS).max(1);
    let columns: Vec<usize> = (0..samples).step_by(stride).collect();
    let fft = FftPlanner::<f32>::new().plan_fft_forward(lines);
    let parts = per_chunk(&columns, |chunk| {
        let mut power = vec![0.0; lines];
        let mut column = vec![Complex32::new(0.0, 0.0); lines];
        for &k in chunk {
            for (j, z) in column.iter_mut().enumerate() {
                *z = raw[j * samples + k];
            }
            fft.process(&mut column);
            for (p, z) in power.iter_mut().zip(&column) {
                *p += f64::from(z.norm_sqr());
            }
        }
        power
    });
    let mut power = vec![0.0; lines];
    for part in parts {
        power.iter_mut().zip(part).for_each(|(p, q)| *p += q);
    }
    power
}

/// The multi-look (MLCC) estimate of the absolute centroid, Hz: the ACCC phases of the
/// range band's upper and lower halves, from the range spectra of runs of lines.
fn multilook(config: &Config, raw: &[Complex32]) -> Result<f64, SarError> {
    let r = &config.radar;
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    // Runs of consecutive lines: all of them, or RUN_LINES-line runs spread evenly.
    let runs: Vec<(usize, usize)> = match lines * samples <= MLCC_SAMPLES {
        true => (0..lines)
            .step_by(64)
            .map(|j| (j, 64.min(lines - j)))
            .collect(),
        false => {
            let count = (MLCC_SAMPLES / (RUN_LINES * samples)).max(1);
            let len = RUN_LINES.min(lines);
            let start = |i: usize| match count {
                1 => 0,
                _ => i * (lines - len) / (count - 1),
            };
            (0..count).map(|i| (start(i), len)).collect()
        }
    };
    let fft = FftPlanner::<f32>::new().plan_fft_forward(samples);
    // +1 for the upper half of the band, -1 for the lower, 0 outside.
    let looks: Vec<i8> = (0..samples)
        .map(|k| {
            let f = bin_hz(k, samples, r.sample_rate_hz);
            match f.abs() <= r.bandwidth_hz / 2.0 && f != 0.0 {
                true => f.signum() as i8,
                false => 0,
            }
        })
        .collect();
    let parts = per_chunk(&runs, |chunk| {
        let mut sums = [Complex64::new(0.0, 0.0); 2];
        let mut scratch = vec![Complex32::new(0.0, 0.0); fft.get_inplace_scratch_len()];
        for &(first, len) in chunk {
            let mut previous: Option<Vec<Complex32>> = None;
            for j in first..first + len {
                let mut line = raw[j * samples..(j + 1) * samples].to_vec();
                fft.process_with_scratch(&mut line, &mut scratch);
                if let Some(prev) = &previous {
                    for ((x, p), look) in line.iter().zip(prev).zip(looks.iter()) {
                        if *look != 0 {
                            let c = x * p.conj();
                            sums[usize::from(*look > 0)] +=
                                Complex64::new(c.re.into(), c.im.into());
                        }
                    }
                }
                previous = Some(line);
            }
        }
        sums
    });
    let (mut lower, mut upper) = (Complex64::new(0.0, 0.0), Complex64::new(0.0, 0.0));
    for [l, u] in parts {
        lower += l;
        upper += u;
    }
    if lower.norm() == 0.0 || upper.norm() == 0.0 {
        return Err(SarError::Config(
            "the echoes hold no power in the range band: no Doppler centroid can be estimated"
                .into(),
        ));
    }
    // The looks' centres are B/2 apart.
    let difference = (upper * lower.conj()).arg();
    Ok(difference / (2.0 * PI) * r.prf_hz * r.carrier_hz / (r.bandwidth_hz / 2.0))
}

/// `work` on `items` cut into one chunk per thread of rayon's pool, the chunks in parallel:
/// each chunk's result, in the chunks' order. (Whole chunks, not single items: each sets up
/// its scratch once, and the callers' sums keep their grouping.)
fn per_chunk<T: Sync, R: Send>(items: &[T], work: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    let per = items.len().div_ceil(rayon::current_num_threads()).max(1);
    items.par_chunks(per).map(&work).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flat_fit_where_the_signal_is_narrow() {
        let narrow = fit_line(&[(500.0, 10.0, 1.0), (510.0, 20.0, 1.0)], 100.0);
        assert_eq!(narrow.at(0.0), 15.0);
        let wide = fit_line(&[(0.0, 10.0, 1.0), (1000.0, 20.0, 1.0)], 100.0);
        assert!((wide.at(500.0) - 15.0).abs() < 1e-12 && (wide.at(1000.0) - 20.0).abs() < 1e-12);
    }
}
