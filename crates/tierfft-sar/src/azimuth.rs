//! Azimuth compression's filter in the range-Doppler domain.
//!
//! For a target at closest range R0 the azimuth spectrum is, by stationary phase,
//! `exp(−i4πR0·(D(f) − 1)/λ)` times the carrier phase, with D the `migration` factor. A
//! phase-only filter undoing that leaves the spectrum's amplitude, which for a target seen
//! through a uniformly lit beam carries Fresnel ripple (the azimuth chirp is cut off hard at
//! the beam edges: time-bandwidth product 236 at the seeds' 20 km). The ripple modulates the
//! window and lifts weighted sidelobes (Taylor −33.3 dB instead of −35.2). So, as range.rs does
//! for the chirp, the filter also divides by a numerically computed reference: the spectrum of
//! a point target as the simulator illuminates it, with the analytic phase taken out.

use std::f64::consts::PI;

use num_complex::{Complex32, Complex64};
use rustfft::FftPlanner;

use crate::doppler::{doppler_hz, migration};
use crate::focus::{par_rows, to32};
use crate::params::{Config, Radar};
use crate::range::{Window, equaliser};

/// Range bins that share one numerical reference. The residual's ripple follows the
/// time-bandwidth product, which grows in proportion to range: across 32 bins of the default
/// scene (40 m at 20 km) it changes by 0.2 %.
const REFERENCE_BLOCK: usize = 32;

/// The analytic azimuth phase 4πR0·(D(f) − 1)/λ at Doppler `f_hz` and range `r0` (m), which
/// the filter applies (the spectrum carries its negative).
fn phase(radar: &Radar, f_hz: f64, r0: f64) -> f64 {
    4.0 * PI * r0 * (migration(radar, f_hz) - 1.0) / radar.wavelength_m()
}

/// Where a range's Doppler band lies: its centroid (which alias of a bin the beam saw), the
/// band's middle and its width, Hz.
#[derive(Clone, Copy)]
struct Band {
    centroid: f64,
    middle: f64,
    width: f64,
}

impl Band {
    fn at(config: &Config, r0: f64) -> Band {
        let (low, high) = config.doppler_band_hz(r0);
        Band {
            centroid: config.centroid_hz(r0),
            middle: (low + high) / 2.0,
            width: high - low,
        }
    }

    /// Doppler bin `b` of `lines` as the frequency the beam saw, Hz.
    fn doppler(&self, b: usize, lines: usize, prf_hz: f64) -> f64 {
        doppler_hz(b, lines, prf_hz, self.centroid)
    }

    fn contains(&self, f: f64) -> bool {
        (f - self.middle).abs() <= self.width / 2.0
    }
}

/// The ripple the analytic phase leaves, per Doppler bin: the spectrum of a unit point target
/// at range `r0` and azimuth 0 (line 0, wrapping), lit uniformly within the two-way 3 dB beam
/// as `simulate` lights it (squinted), with the carrier and the analytic phase taken out.
fn residual(config: &Config, r0: f64, fft: &dyn rustfft::Fft<f64>) -> Vec<Complex64> {
    let r = &config.radar;
    let lines = config.scene.lines;
    let (first, last) = config.aperture_m(r0);
    let step = r.azimuth_bin_m();
    let mut s = vec![Complex64::new(0.0, 0.0); lines];
    for line in (first / step).ceil() as i64..=(last / step).floor() as i64 {
        let x = line as f64 * step;
        let range = (r0 * r0 + x * x).sqrt();
        s[line.rem_euclid(lines as i64) as usize] +=
            Complex64::from_polar(1.0, -4.0 * PI * (range - r0) / r.wavelength_m());
    }
    fft.process(&mut s);
    let band = Band::at(config, r0);
    for (b, z) in s.iter_mut().enumerate() {
        *z *= Complex64::from_polar(1.0, phase(r, band.doppler(b, lines, r.prf_hz), r0));
    }
    s
}

/// The share of a Doppler bin `f` Hz wide `bin` Hz that lies inside the band `|f| ≤ band/2`,
/// for the bins inside it: 1, but for the outermost, which reach past the edge by up to
/// half a bin. Weighted by it, the filter is never wider than `band` whatever the FFT
/// length, and narrower by less than a bin (with whole bins it was up to a bin off either
/// way: 5600 lines, the default scene with margins, gave a 0.1 % wider band and narrower
/// response, which put the seeds' pair 0.025 lines off when measured alone).
fn edge_share(f: f64, band: f64, bin: f64) -> f64 {
    ((band / 2.0 - f.abs()) / bin + 0.5).clamp(0.0, 1.0)
}

/// The azimuth filter, laid out like the range-Doppler data (`[Doppler bin][range bin]`):
/// `w(f) · exp(iφ(f, R0)) · conj(ρ(f)) / |ρ(f)|² · g` over each range's Doppler band (around
/// its centroid: [`crate::doppler`]), 0 outside, with `φ` the analytic phase
/// 4πR0·(D(f) − 1)/λ of each range bin at the Doppler f the beam saw, `ρ` the `residual` of
/// the range block's centre and `g` its mean in-band power (so the peak stays that of the
/// phase-only filter). With `equalise` false, `ρ = 1`: the phase-only filter, for data whose
/// beam is not the simulator's uniformly lit one. The carrier phase −4πR0/λ stays in the
/// image, constant over each target's response.
pub fn azimuth_filter(config: &Config, window: Window, equalise: bool) -> Vec<Complex32> {
    let r = &config.radar;
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    let (near, bin) = (config.near_range_m(), r.range_bin_m());
    let bands: Vec<Band> = (0..samples)
        .map(|k| Band::at(config, near + k as f64 * bin))
        .collect();
    // One equaliser per range block: conj(ρ)/|ρ|²·g, per Doppler bin.
    let blocks = samples.div_ceil(REFERENCE_BLOCK);
    let fft = FftPlanner::<f64>::new().plan_fft_forward(lines);
    let mut equalisers = vec![Complex32::new(1.0, 0.0); blocks * lines];
    if equalise {
        par_rows(&mut equalisers, lines, |block, eq| {
            let centre = (block * REFERENCE_BLOCK) as f64 + REFERENCE_BLOCK as f64 / 2.0 - 0.5;
            let r0 = near + centre * bin;
            let band = Band::at(config, r0);
            let in_band: Vec<bool> = (0..lines)
                .map(|b| band.contains(band.doppler(b, lines, r.prf_hz)))
                .collect();
            let rho = residual(config, r0, fft.as_ref());
            for (e, z) in eq.iter_mut().zip(equaliser(&rho, &in_band)) {
                *e = to32(z);
            }
        });
    }
    let doppler_bin = r.prf_hz / lines as f64;
    let mut h = vec![Complex32::new(0.0, 0.0); lines * samples];
    par_rows(&mut h, samples, |b, row| {
        for (k, z) in row.iter_mut().enumerate() {
            let band = &bands[k];
            let f = band.doppler(b, lines, r.prf_hz);
            let offset = f - band.middle;
            let w = window.weight(offset, band.width) * edge_share(offset, band.width, doppler_bin);
            if w == 0.0 {
                continue;
            }
            let e = equalisers[(k / REFERENCE_BLOCK) * lines + b];
            let analytic = Complex64::from_polar(w, phase(r, f, near + k as f64 * bin));
            *z = to32(analytic) * e;
        }
    });
    h
}
