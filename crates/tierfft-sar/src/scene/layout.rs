//! A sanity check of the echoes' layout: `[azimuth lines][range samples]`, not transposed.
//!
//! Neighbouring pulses of a scene are nearly alike (the Doppler band fills a small part of the
//! PRF), neighbouring range samples of a chirp much less so (its band fills most of the
//! sampling rate): the lag-1 coherence `|Σ s[n+1]·conj(s[n])|` / Σ|s|² along each axis of a
//! spectrum that fills a fraction w of its sampling rate is about |sinc(w)|, scaled alike on
//! both axes by noise. Data whose range axis is the more coherent one, where the radar predicts
//! clearly the opposite, are most likely transposed.

use num_complex::Complex32;

use crate::scene::params::Config;

/// Echo samples the check reads at most (evenly spread pairs of lines).
const CHECKED_SAMPLES: usize = 1 << 22;

/// By how much the coherences must be expected and found apart for the check to speak.
const CLEAR: f64 = 0.25;

/// A warning when `raw` (as `config`'s scene describes it) looks transposed, `None` when it
/// looks right or the check cannot tell.
pub fn transposed(config: &Config, raw: &[Complex32]) -> Option<String> {
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    if raw.len() != lines * samples || lines < 2 || samples < 2 {
        return None;
    }
    let r = &config.radar;
    let sinc = |w: f64| ((std::f64::consts::PI * w).sin() / (std::f64::consts::PI * w)).abs();
    let (expect_az, expect_rg) = (
        sinc(r.doppler_bandwidth_hz() / r.prf_hz),
        sinc(r.bandwidth_hz / r.sample_rate_hz),
    );
    if expect_az - expect_rg < CLEAR {
        return None;
    }
    let step = (lines * samples / CHECKED_SAMPLES).max(1);
    let (mut az, mut rg, mut power) = (Complex32::new(0.0, 0.0), Complex32::new(0.0, 0.0), 0.0);
    for j in (0..lines - 1).step_by(step) {
        let (a, b) = (
            &raw[j * samples..(j + 1) * samples],
            &raw[(j + 1) * samples..],
        );
        az += a
            .iter()
            .zip(b)
            .map(|(x, y)| y * x.conj())
            .sum::<Complex32>();
        rg += a.windows(2).map(|w| w[1] * w[0].conj()).sum::<Complex32>();
        power += a.iter().map(|z| f64::from(z.norm_sqr())).sum::<f64>();
    }
    if power == 0.0 {
        return None;
    }
    let (found_az, found_rg) = (f64::from(az.norm()) / power, f64::from(rg.norm()) / power);
    (found_rg - found_az > CLEAR).then(|| {
        format!(
            "the echoes look transposed: neighbouring range samples are more alike (lag-1 \
             coherence {found_rg:.2}) than neighbouring lines ({found_az:.2}), where this \
             radar predicts the opposite ({expect_rg:.2} and {expect_az:.2}: {:.0} Hz of \
             Doppler in a {} Hz PRF, a {} MHz chirp sampled at {} MHz); the echoes must be \
             [azimuth lines, range samples] (numpy: raw.T.copy())",
            r.doppler_bandwidth_hz(),
            r.prf_hz,
            r.bandwidth_hz / 1e6,
            r.sample_rate_hz / 1e6
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::params::Scene;
    use crate::scene::simulate::simulate;

    #[test]
    fn transposed_echoes_are_noticed() {
        let mut c = Config {
            scene: Scene {
                lines: 1024,
                samples: 1024,
                ..Scene::default()
            },
            ..Config::default()
        };
        c.radar.antenna_m = 8.0;
        for t in &mut c.scene.targets {
            t.azimuth_m /= 4.0;
        }
        let raw = simulate(&c);
        assert_eq!(transposed(&c, &raw), None);
        let mut flipped = vec![Complex32::new(0.0, 0.0); raw.len()];
        for j in 0..1024 {
            for k in 0..1024 {
                flipped[k * 1024 + j] = raw[j * 1024 + k];
            }
        }
        let warning = transposed(&c, &flipped).expect("a warning");
        assert!(warning.contains("look transposed"), "{warning}");
        // Noise alone says nothing.
        c.scene.targets.clear();
        assert_eq!(transposed(&c, &simulate(&c)), None);
    }
}
