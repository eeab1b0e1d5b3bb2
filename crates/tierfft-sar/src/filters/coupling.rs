//! Secondary range compression (SRC) and the bulk range cell migration, applied in the
//! two-dimensional frequency domain at a reference range, between the azimuth FFT and RCMC.
//!
//! After range compression, a target at closest range R0 has the 2-D spectrum
//! `exp(−i·4πR0/c · sqrt((f0 + fτ)² − c²fη²/4v²))` (range frequency fτ, Doppler fη). Its
//! expansion in fτ holds the azimuth phase (fτ⁰, azimuth compression's), the migration
//! (fτ¹: the delay 2R0/(c·D)) and range–azimuth coupling (fτ² and up: a residual chirp whose
//! rate, the SRC rate 2v²f0³D³/(c·R0·fη²), falls with the carrier and the aperture, so
//! that wide-beam L-band scenes lose about 1 dB of range PSLR without it). The filter here
//! multiplies by `exp(+i·4πRref/c · (sqrt((f0 + fτ)² − c²fη²/4v²) − f0·D − fτ))`: at the
//! reference range it removes the coupling exactly and moves every Doppler row by the
//! reference's migration Rref·(1/D − 1) with an exact sub-sample shift, leaving RCMC only the
//! part that varies with range, (R0 − Rref)·(1/D − 1). That part is small, so the
//! interpolator's error no longer varies across a squinted scene's range walk (which lifted
//! azimuth sidelobes by 0.1–0.4 dB at 150–400 Hz centroids).

use std::f64::consts::PI;
use std::sync::Arc;

use num_complex::Complex32;

use crate::filters::rows::scene_array;
use crate::scene::doppler::migration;
use crate::scene::freq::bin_hz;
use crate::scene::params::{C, Config};

/// The range walk across the Doppler band, at the far range, above which the correction is
/// on by default: half a range bin.
const WALK_BINS: f64 = 0.5;

/// The SRC phase at the band's corners above which the correction is on by default, rad.
const SRC_PHASE_RAD: f64 = PI / 8.0;

/// The coupling phase 4πR/c · (sqrt((f0 + fτ)² − c²fη²/4v²) − f0·D − fτ/D) at range `r_m`,
/// range frequency `ft_hz` and Doppler `fd_hz`: what SRC removes, rad.
fn coupling(config: &Config, r_m: f64, ft_hz: f64, fd_hz: f64) -> f64 {
    let radar = &config.radar;
    let (f0, d) = (radar.carrier_hz, migration(radar, fd_hz));
    let doppler_term = (C * fd_hz / (2.0 * radar.speed_mps)).powi(2);
    let root = ((f0 + ft_hz).powi(2) - doppler_term).max(0.0).sqrt();
    4.0 * PI * r_m / C * (root - f0 * d - ft_hz / d)
}

/// Whether a scene needs the correction: its range walk across the Doppler band exceeds half
/// a bin at the far range (a squinted beam), or its SRC phase exceeds π/8 at a corner of the
/// band (a long aperture at a low carrier).
pub fn needed(config: &Config) -> bool {
    let r = &config.radar;
    let far = config.near_range_m() + config.scene.samples as f64 * r.range_bin_m();
    let (low, high) = config.doppler_band_hz(far);
    let walk = far * (1.0 / migration(r, high) - 1.0 / migration(r, low)).abs();
    let corners = [low, high].into_iter().flat_map(|fd| {
        [-0.5, 0.5].map(|side| coupling(config, far, side * r.bandwidth_hz, fd).abs())
    });
    walk / r.range_bin_m() > WALK_BINS || corners.fold(0.0, f64::max) > SRC_PHASE_RAD
}

/// The filter, laid out like range-Doppler data in the range-frequency domain (`[Doppler
/// bin][range frequency bin]`), at reference range `reference_m`, with the bulk migration
/// (`bulk`) or SRC alone (when RCMC is off, to show what it corrects): each Doppler bin stands
/// for the Doppler frequency RCMC moves it by (`Config::moved_doppler_hz`).
pub fn filter(config: &Config, reference_m: f64, bulk: bool) -> Arc<[Complex32]> {
    let r = &config.radar;
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    let (f0, scale) = (r.carrier_hz, 4.0 * PI * reference_m / C);
    // Per range-frequency bin: fτ and (f0 + fτ)², so that each element costs one square
    // root and one sine and cosine (a 16384² scene holds 2^28 of them).
    let bins: Vec<(f64, f64)> = (0..samples)
        .map(|k| {
            let ft = bin_hz(k, samples, r.sample_rate_hz);
            (ft, (f0 + ft).powi(2))
        })
        .collect();
    scene_array(lines, samples, |b, row| {
        let fd = config.moved_doppler_hz(b, lines);
        let d = migration(r, fd);
        let doppler_term = (C * fd / (2.0 * r.speed_mps)).powi(2);
        // The coupling past f0·D + fτ/D, and the bulk shift by Rref·(1/D − 1): together
        // the whole phase past f0·D + fτ.
        let slope = if bulk { 1.0 } else { 1.0 / d };
        for (z, &(ft, squared)) in row.iter_mut().zip(&bins) {
            let root = (squared - doppler_term).max(0.0).sqrt();
            let (sin, cos) = (scale * (root - f0 * d - ft * slope)).sin_cos();
            *z = Complex32::new(cos as f32, sin as f32);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::Complex64;

    #[test]
    fn zero_doppler_is_left_alone_and_the_default_scene_needs_nothing() {
        let c = Config::default();
        assert_eq!(coupling(&c, 20e3, 40e6, 0.0), 0.0);
        assert!(!needed(&c));
        let mut l_band = c.clone();
        l_band.radar.carrier_hz = 1.27e9;
        l_band.radar.antenna_m = 1.35;
        l_band.radar.prf_hz = 320.0;
        l_band.radar.speed_mps = 200.0;
        assert!(needed(&l_band));
    }

    #[test]
    fn the_filter_is_the_coupling_and_the_bulk_shift() {
        let mut c = Config::default();
        c.radar.carrier_hz = 1.27e9;
        (c.scene.lines, c.scene.samples) = (64, 48);
        let r = &c.radar;
        let reference = 20e3;
        for bulk in [false, true] {
            let h = filter(&c, reference, bulk);
            for (b, k) in [(0, 5), (7, 0), (40, 30), (63, 47)] {
                let fd = c.moved_doppler_hz(b, 64);
                let ft = bin_hz(k, 48, r.sample_rate_hz);
                let d = migration(r, fd);
                let shift = if bulk {
                    4.0 * PI * reference / C * ft * (1.0 / d - 1.0)
                } else {
                    0.0
                };
                let want = Complex64::from_polar(1.0, coupling(&c, reference, ft, fd) + shift);
                let got = h[b * 48 + k];
                let err = (Complex64::new(got.re.into(), got.im.into()) - want).norm();
                assert!(err < 1e-5, "bulk {bulk}, ({b}, {k}): {got} against {want}");
            }
        }
    }
}
