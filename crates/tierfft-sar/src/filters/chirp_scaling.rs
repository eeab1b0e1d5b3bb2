//! The chirp scaling algorithm (CSA, `--algorithm csa`): range cell migration corrected by
//! phase multiplies alone, no interpolation.
//!
//! In the range-Doppler domain (azimuth FFT of the raw echoes), a target at closest range R0
//! is a chirp of rate Km centred on the delay 2R0/(c·D) (plus the pulse's centre, for a
//! start-referenced pulse), D = D(fη) the migration factor and
//! Km = K / (1 − K·c·R0·fη² / (2v²f0³D³)) the chirp rate bent by range–azimuth coupling.
//! Steps, each a multiply riding on a transform's load or store:
//!
//! 1. **Chirp scaling** (on the range FFT's load, after the azimuth FFT): × exp(iπ·Km·a·(τ − τref)²), with
//!    a = 1/D − 1, τref the reference range's delay 2Rref/(c·D) and Km at Rref. Every
//!    target's chirp then sits at 2R0/c + a·2Rref/c, i.e. migrates like the reference does,
//!    with rate Km/D.
//! 2. **Range compression, SRC and bulk RCMC** (on the inverse range FFT's load): the
//!    range matched filter (equalised and windowed as in [`crate::filters::range`]), the exact
//!    coupling at Rref with the reference's migration ([`crate::filters::coupling`]), and
//!    exp(−iπfτ²(1 − D)/Km) for the rate the scaling added.
//! 3. **Azimuth compression** (on the inverse azimuth FFT's load): the Range-Doppler
//!    filter ([`crate::filters::azimuth`]) with the phase the scaling left,
//!    −4π·Km·a·(R0 − Rref)² / (c²·D), taken out.
//!
//! The scaling is to zero Doppler (D(0) = 1), so images sit at R0 and zero Doppler like the
//! Range-Doppler algorithm's. Km is taken at Rref for the whole swath, the algorithm's usual
//! approximation: the rate mismatch at R0 ≠ Rref grows with the swath and the coupling.

use std::f64::consts::PI;
use std::sync::Arc;

use num_complex::Complex32;

use crate::filters::coupling;
use crate::filters::range::{Window, range_filter};
use crate::filters::rows::{par_rows, scene_array, unique};
use crate::scene::doppler::migration;
use crate::scene::freq::bin_hz;
use crate::scene::params::{C, Config};

/// The effective range chirp rate Km at range `r_m` and Doppler `fd_hz` (migration factor
/// `d`), Hz/s: the transmitted rate bent by range–azimuth coupling.
fn bent_rate(config: &Config, r_m: f64, fd_hz: f64, d: f64) -> f64 {
    let r = &config.radar;
    let k = r.signed_chirp_rate();
    let coupling = C * r_m * fd_hz * fd_hz / (2.0 * r.speed_mps.powi(2) * r.carrier_hz.powi(3));
    k / (1.0 - k * coupling / d.powi(3))
}

/// Step 1's multiply, laid out like the range-Doppler data (`[Doppler bin][range sample]`):
/// exp(iπ·Km·a·(τ − τref)²) at the reference range `reference_m`.
pub fn scaling(config: &Config, reference_m: f64) -> Arc<[Complex32]> {
    let r = &config.radar;
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    let near_s = 2.0 * config.near_range_m() / C;
    scene_array(lines, samples, |b, row| {
        let fd = config.moved_doppler_hz(b, lines);
        let d = migration(r, fd);
        let rate = bent_rate(config, reference_m, fd, d) * (1.0 / d - 1.0);
        let centre = 2.0 * reference_m / (C * d) + r.pulse_centre_s();
        for (k, z) in row.iter_mut().enumerate() {
            let t = near_s + k as f64 / r.sample_rate_hz - centre;
            let (sin, cos) = (PI * rate * t * t).sin_cos();
            *z = Complex32::new(cos as f32, sin as f32);
        }
    })
}

/// Step 2's multiply, laid out like the data in range frequency (`[Doppler bin][range
/// frequency bin]`): the range matched filter weighted by `window`, SRC and the bulk
/// migration at `reference_m`, and the scaled rate's quadratic phase.
pub fn range_filter_2d(config: &Config, reference_m: f64, window: Window) -> Arc<[Complex32]> {
    let r = &config.radar;
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    let matched = range_filter(r, samples, window);
    let mut h = coupling::filter(config, reference_m, true);
    par_rows(unique(&mut h), samples, |b, row| {
        let fd = config.moved_doppler_hz(b, lines);
        let d = migration(r, fd);
        let curvature = -PI * (1.0 - d) / bent_rate(config, reference_m, fd, d);
        for (k, (z, m)) in row.iter_mut().zip(&matched).enumerate() {
            let ft = bin_hz(k, samples, r.sample_rate_hz);
            let (sin, cos) = (curvature * ft * ft).sin_cos();
            *z *= m * Complex32::new(cos as f32, sin as f32);
        }
    });
    h
}

/// Step 3's phase at range `r0_m` and Doppler `fd_hz`, rad: the negative of what the
/// scaling left, 4π·Km·a·(R0 − Rref)² / (c²·D), for the azimuth filter to add.
pub fn residual_phase(config: &Config, reference_m: f64, r0_m: f64, fd_hz: f64) -> f64 {
    let d = migration(&config.radar, fd_hz);
    let rate = bent_rate(config, reference_m, fd_hz, d);
    -4.0 * PI * rate * (1.0 / d - 1.0) * (r0_m - reference_m).powi(2) / (C * C * d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scaling a target's range-Doppler chirp moves its centre to 2R0/c + a·2Rref/c (the
    /// derivation in the module docs), checked by completing the square numerically.
    #[test]
    fn scaling_gives_every_target_the_reference_migration() {
        let mut c = Config::default();
        c.radar.carrier_hz = 1.27e9;
        (c.scene.lines, c.scene.samples) = (16, 64);
        let (reference, r0, fd) = (20e3, 20.3e3, 60.0);
        let d = migration(&c.radar, fd);
        let km = bent_rate(&c, reference, fd, d);
        let a = 1.0 / d - 1.0;
        let (t0, tr) = (2.0 * r0 / C, 2.0 * reference / C);
        // The combined quadratic km(τ − t0/d)² + km·a(τ − tr/d)²: its minimum.
        let slope = |t: f64| 2.0 * km * (t - t0 / d) + 2.0 * km * a * (t - tr / d);
        let centre = t0 / d - slope(t0 / d) / (2.0 * km * (1.0 + a));
        assert!(
            (centre - (t0 + a * tr)).abs() < 1e-15,
            "{centre} {}",
            t0 + a * tr
        );
        assert!(residual_phase(&c, reference, reference, fd).abs() < 1e-12);
        assert!(residual_phase(&c, reference, r0, 0.0).abs() < 1e-12);
    }
}
