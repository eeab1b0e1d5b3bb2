//! Range-Doppler focusing: range compression (fused, [`crate::range`]), azimuth FFT, range
//! cell migration correction in the range-Doppler domain, azimuth compression.
//!
//! For a target at closest range R0, after the azimuth FFT its energy at Doppler f sits at
//! range R0/D(f) with D(f) = sqrt(1 − (λf / 2v)²) (zero squint), with phase −4πR0·D(f)/λ.
//! RCMC moves it back to R0 with an 8-tap windowed-sinc interpolator along range; azimuth
//! compression multiplies by exp(+i4πR0·(D(f) − 1)/λ) and transforms back (the carrier phase
//! −4πR0/λ stays in the image). FFTs run on tierfft;
//! the transposes, RCMC and the range-dependent azimuth filter run on the CPU for now.

use std::f64::consts::PI;

use num_complex::{Complex32, Complex64};
use tierfft::{Device, FftSpec};

use crate::SarError;
use crate::params::Config;
use crate::range::{Window, compress_range};

/// Taps of the RCMC interpolator (windowed sinc).
pub const RCMC_TAPS: usize = 8;

/// Focuses raw echoes `[lines][samples]` into a complex image of the same shape, in place.
pub fn focus(
    device: &Device,
    config: &Config,
    data: &mut Vec<Complex32>,
    window: Window,
) -> Result<(), SarError> {
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    compress_range(device, config, data, window)?;
    // Azimuth FFT along each range bin: [samples][lines].
    let mut by_range = transpose(data, lines, samples);
    device
        .plan(&FftSpec::new(lines).batch(samples))?
        .process(&mut by_range)?;
    // RCMC and azimuth filter along range for each Doppler bin: [lines][samples].
    let mut doppler = transpose(&by_range, samples, lines);
    rcmc_and_azimuth_filter(config, &mut doppler);
    let mut by_range = transpose(&doppler, lines, samples);
    device
        .plan(&FftSpec::new(lines).batch(samples).inverse().normalized())?
        .process(&mut by_range)?;
    *data = transpose(&by_range, samples, lines);
    Ok(())
}

/// Doppler frequency of azimuth FFT bin `b` of `lines`, Hz (in [−PRF/2, PRF/2)).
fn doppler_hz(b: usize, lines: usize, prf: f64) -> f64 {
    let b = if b < lines / 2 {
        b as f64
    } else {
        b as f64 - lines as f64
    };
    b * prf / lines as f64
}

/// RCMC (8-tap windowed sinc along range) and the azimuth matched filter, on data laid out
/// `[lines][samples]` with lines indexing Doppler bins. Rows in parallel.
fn rcmc_and_azimuth_filter(config: &Config, data: &mut [Complex32]) {
    let r = &config.radar;
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    let (near, bin, lambda) = (config.near_range_m(), r.range_bin_m(), r.wavelength_m());
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let per = lines.div_ceil(threads);
    std::thread::scope(|s| {
        for (chunk_index, chunk) in data.chunks_mut(per * samples).enumerate() {
            s.spawn(move || {
                let mut row_in = vec![Complex32::new(0.0, 0.0); samples];
                for (i, row) in chunk.chunks_mut(samples).enumerate() {
                    let f = doppler_hz(chunk_index * per + i, lines, r.prf_hz);
                    let d = (1.0 - (lambda * f / (2.0 * r.speed_mps)).powi(2))
                        .max(1e-6)
                        .sqrt();
                    row_in.copy_from_slice(row);
                    for (k, out) in row.iter_mut().enumerate() {
                        let r0 = near + k as f64 * bin;
                        // Energy of a target at r0 sits at r0 / d here.
                        let z = interpolate(&row_in, k as f64 + r0 * (1.0 / d - 1.0) / bin);
                        // Only the Doppler-dependent part of the phase: the carrier phase
                        // −4π·R0/λ stays, constant over each target's response.
                        let phase = 4.0 * PI * r0 * (d - 1.0) / lambda;
                        *out = to32(z * Complex64::from_polar(1.0, phase));
                    }
                }
            });
        }
    });
}

/// `row` at fractional position `x` with an 8-tap sinc, Hann-windowed; zero outside the row.
fn interpolate(row: &[Complex32], x: f64) -> Complex64 {
    let base = x.floor() as i64;
    let frac = x - base as f64;
    let half = (RCMC_TAPS / 2) as i64;
    let mut acc = Complex64::new(0.0, 0.0);
    for i in (1 - half)..=half {
        let k = base + i;
        if k < 0 || k >= row.len() as i64 {
            continue;
        }
        let t = frac - i as f64;
        let w = 0.5 * (1.0 + (PI * t / half as f64).cos());
        let z = row[k as usize];
        acc += Complex64::new(z.re.into(), z.im.into()) * (sinc(t) * w);
    }
    acc
}

fn sinc(t: f64) -> f64 {
    if t.abs() < 1e-12 {
        1.0
    } else {
        (PI * t).sin() / (PI * t)
    }
}

fn to32(z: Complex64) -> Complex32 {
    Complex32::new(z.re as f32, z.im as f32)
}

/// `src` (`rows` × `cols`, row-major) transposed, in cache-sized tiles.
pub fn transpose(src: &[Complex32], rows: usize, cols: usize) -> Vec<Complex32> {
    const TILE: usize = 32;
    let mut dst = vec![Complex32::new(0.0, 0.0); src.len()];
    for r0 in (0..rows).step_by(TILE) {
        for c0 in (0..cols).step_by(TILE) {
            for r in r0..(r0 + TILE).min(rows) {
                for c in c0..(c0 + TILE).min(cols) {
                    dst[c * rows + r] = src[r * cols + c];
                }
            }
        }
    }
    dst
}
