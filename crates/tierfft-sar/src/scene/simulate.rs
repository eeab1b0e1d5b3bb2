//! Raw echoes of point targets: a linear chirp delayed by the two-way range, with the
//! carrier phase of that range, seen only while the target is inside the antenna beam
//! (squinted to the Doppler centroid: [`crate::scene::doppler`]) and weighted by its pattern
//! ([`crate::scene::pattern`]), plus
//! seeded complex Gaussian noise. Lines are simulated in parallel on the CPU; each line's noise
//! comes from its own seeded generator, so the result does not depend on the thread count.

use std::f64::consts::PI;

use num_complex::{Complex32, Complex64};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;

use crate::scene::params::{C, Config};
use crate::scene::replica::LineSynth;

/// Raw echoes, row-major `[lines][samples]` (azimuth × range), complex f32.
pub fn simulate(config: &Config) -> Vec<Complex32> {
    simulate_with_progress(config, &|_| {})
}

/// Lines simulated per task, between two calls of the progress callback.
const BATCH: usize = 64;

/// [`simulate`], calling `progress(lines)` as each batch of (up to 64) lines is done (for a
/// progress bar; called from rayon's worker threads).
pub fn simulate_with_progress(
    config: &Config,
    progress: &(dyn Fn(usize) + Sync),
) -> Vec<Complex32> {
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    let mut raw = vec![Complex32::new(0.0, 0.0); lines * samples];
    let synth = config
        .radar
        .replica
        .as_ref()
        .map(|replica| LineSynth::new(&config.radar, replica, samples));
    let synth = synth.as_ref();
    // Batches of lines on rayon's pool, each reporting its progress once. (`max(1)`: with no
    // samples there are no lines to fill.)
    raw.par_chunks_mut((BATCH * samples).max(1))
        .enumerate()
        .for_each(|(batch, chunk)| {
            for (i, line) in chunk.chunks_mut(samples).enumerate() {
                echo_line(config, batch * BATCH + i, line, synth);
            }
            progress(chunk.len() / samples);
        });
    raw
}

/// Fills one azimuth line (pulse `j`): the ideal chirp sample by sample, or a measured pulse
/// (`synth`) delayed in the frequency domain.
fn echo_line(config: &Config, j: usize, line: &mut [Complex32], synth: Option<&LineSynth>) {
    let r = &config.radar;
    let s = &config.scene;
    let eta = (j as f64 - s.lines as f64 / 2.0) / r.prf_hz;

    let tau0 = 2.0 * config.near_range_m() / C;
    let (fs, k_rate, half_pulse) = (r.sample_rate_hz, r.signed_chirp_rate(), r.pulse_s / 2.0);
    let mut echoes = Vec::new();
    for t in &s.targets {
        // The platform's along-track offset at the target's range's effective velocity.
        let dx = r.speed_at(t.range_m) * eta - t.azimuth_m;
        // Where the (squinted) beam's pattern lights it only: each target lives in its
        // synthetic aperture.
        let (first, last) = config.lit_m(t.range_m);
        if !(first..=last).contains(&dx) {
            continue;
        }
        let amplitude = t.amplitude * config.pattern_gain(t.range_m, dx);
        let range = (t.range_m * t.range_m + dx * dx).sqrt();
        if synth.is_some() {
            let carrier = Complex64::from_polar(amplitude, -4.0 * PI * range / r.wavelength_m());
            echoes.push(((2.0 * range / C - tau0) * fs, carrier));
            continue;
        }
        // The pulse's centre.
        let delay = 2.0 * range / C + r.pulse_centre_s();
        let carrier = -4.0 * PI * range / r.wavelength_m();
        // Samples within the pulse, clipped to the line.
        let first = ((delay - half_pulse - tau0) * fs).ceil().max(0.0) as usize;
        let end = (((delay + half_pulse - tau0) * fs).floor() + 1.0).clamp(0.0, line.len() as f64)
            as usize;
        for (k, z) in line.iter_mut().enumerate().take(end).skip(first) {
            let tau = tau0 + k as f64 / fs - delay;
            let phase = carrier + PI * k_rate * tau * tau;
            *z += Complex32::new(
                (amplitude * phase.cos()) as f32,
                (amplitude * phase.sin()) as f32,
            );
        }
    }
    if let Some(synth) = synth {
        synth.add(line, &echoes);
    }
    if let Some(snr_db) = s.snr_db {
        let sigma = (0.5 * 10f64.powf(-snr_db / 10.0)).sqrt();
        let mut rng = StdRng::seed_from_u64(s.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ j as u64);
        for z in line.iter_mut() {
            let (a, b) = gaussian_pair(&mut rng);
            *z += Complex32::new((sigma * a) as f32, (sigma * b) as f32);
        }
    }
}

/// Two independent standard normal values (Box–Muller).
fn gaussian_pair(rng: &mut StdRng) -> (f64, f64) {
    let u: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
    let v: f64 = rng.random_range(0.0..1.0);
    let r = (-2.0 * u.ln()).sqrt();
    (r * (2.0 * PI * v).cos(), r * (2.0 * PI * v).sin())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::params::{Scene, Target};

    fn small(snr_db: Option<f64>) -> Config {
        let targets = vec![Target {
            range_m: 20e3,
            azimuth_m: 0.0,
            amplitude: 1.0,
        }];
        Config {
            scene: Scene {
                lines: 64,
                samples: 2048,
                snr_db,
                seed: 7,
                targets,
                partial_aperture: false,
            },
            ..Config::default()
        }
    }

    #[test]
    fn a_target_echoes_one_pulse_length_at_its_delay() {
        let c = small(None);
        let raw = simulate(&c);
        let centre = &raw[32 * 2048..33 * 2048];
        let lit: Vec<usize> = (0..2048).filter(|&k| centre[k].norm() > 0.5).collect();
        // 10 µs at 120 MHz = 1200 samples around the delay of 20 km.
        assert!((lit.len() as i64 - 1200).abs() <= 1, "{}", lit.len());
        let delay_sample = (20e3 - c.near_range_m()) / c.radar.range_bin_m();
        let mid = (lit[0] + lit[lit.len() - 1]) as f64 / 2.0;
        assert!((mid - delay_sample).abs() < 1.0, "{mid} vs {delay_sample}");
    }

    #[test]
    fn noise_is_seeded_and_has_the_asked_power() {
        let (a, b) = (simulate(&small(Some(10.0))), simulate(&small(Some(10.0))));
        assert_eq!(a, b);
        let mut c = small(Some(10.0));
        c.scene.targets.clear();
        let noise = simulate(&c);
        let power = noise.iter().map(|z| f64::from(z.norm_sqr())).sum::<f64>() / noise.len() as f64;
        assert!((power - 0.1).abs() < 0.005, "{power}");
    }

    #[test]
    fn the_beam_limits_the_aperture() {
        // At 20 km the beam covers 20 km × 0.0133 rad = 266 m along track; 64 pulses span
        // 6.4 m around 0, so a target 500 m away is never lit.
        let mut c = small(None);
        c.scene.targets[0].azimuth_m = 500.0;
        assert!(simulate(&c).iter().all(|z| z.norm() == 0.0));
    }
}
