//! Range compression: the matched filter of the transmitted chirp, equalised in amplitude
//! over the band and weighted by a [`Window`] ([`range_filter`] says why), applied as one
//! fused FFT → multiply → inverse FFT per line on tierfft (one pass over device memory on a
//! GPU).

use std::f64::consts::PI;
use std::sync::Arc;

use num_complex::{Complex32, Complex64};
use rustfft::FftPlanner;
use tierfft::{Device, FftSpec};

use crate::error::SarError;
use crate::scene::freq::bin_hz;
use crate::scene::params::{Config, Radar};

pub use crate::filters::window::Window;

/// Floor of the amplitude equalisation, as a fraction of the mean in-band power of the
/// replica's spectrum: the filter never divides by less than 1 % of it (|H| at 10 % of its RMS,
/// a 20 dB boost), so a chirp with deep spectral notches (tiny time-bandwidth product, or
/// sampling at exactly the bandwidth) cannot blow up noise there. The reference scene's chirp
/// (time-bandwidth 1000, fs/B 1.2) stays above 27 % of the mean power over the band and is
/// equalised exactly.
const EQUALISATION_FLOOR: f64 = 1e-2;

/// Spectrum (f64) of the transmitted chirp's replica (the ideal chirp, or the measured pulse
/// of [`Radar::replica`]) over `samples` bins, placed as an echo of delay 0 (centred on sample 0, or starting there: [`Radar::pulse_reference`]), so that a
/// target's compressed peak lands on its delay's sample.
fn replica_spectrum(radar: &Radar, samples: usize) -> Vec<Complex64> {
    if let Some(replica) = &radar.replica {
        return replica.spectrum(radar, samples);
    }
    let fs = radar.sample_rate_hz;
    let (centre, half) = (radar.pulse_centre_s(), radar.pulse_s / 2.0);
    let first = ((centre - half) * fs).ceil() as i64;
    let last = ((centre + half) * fs).floor() as i64;
    let mut replica = vec![Complex64::new(0.0, 0.0); samples];
    for k in first..=last {
        let t = k as f64 / fs - centre;
        replica[k.rem_euclid(samples as i64) as usize] =
            Complex64::from_polar(1.0, PI * radar.signed_chirp_rate() * t * t);
    }
    FftPlanner::<f64>::new()
        .plan_fft_forward(samples)
        .process(&mut replica);
    replica
}

/// The range compression filter's spectrum for lines of `samples` samples, for a chirp
/// replica centred on sample 0 (so that a target's compressed peak lands on its delay
/// sample): `w(f) · conj(H(f)) / |H(f)|² · g` over the band `|f| ≤ B/2`, 0 outside, with `H`
/// the replica's spectrum, `w` the window and `g` the mean of `|H|²` over the band.
///
/// Why not the plain matched filter `conj(H) · w`: the compressed spectrum would then be
/// `|H|² · w`, and a finite chirp's `|H|` carries Fresnel ripple (for the reference scene's chirp,
/// time-bandwidth 1000: ±5–7 % in amplitude across the band, +19 % near its edges, then a
/// 5.6 dB fall at the edges), which modulates the window and lifts the sidelobes (Hamming:
/// −42.1 dB instead of −42.7; Taylor −34.2 instead of −35.2). A phase-only filter
/// `conj(H)/|H| · w` halves the effect but still leaves `|H| · w` (Taylor −34.4 dB). Dividing
/// by `|H|²` (an inverse filter within the band) leaves exactly `w · g` as the compressed
/// spectrum, so the response is the window's own ([`Window::theory`]). `g` keeps the peak of
/// a compressed target within 1 % of the matched filter's; the cost in noise is about 0.1 dB
/// of SNR unweighted and under 0.01 dB with Hamming, Taylor or Kaiser weighting (which
/// already attenuate the band edges where `|H|` drops). The division is floored at 1 % of
/// `g` (a 20 dB boost at most) for chirps whose spectrum has deep notches.
pub fn range_filter(radar: &Radar, samples: usize, window: Window) -> Vec<Complex32> {
    let fs = radar.sample_rate_hz;
    let replica = replica_spectrum(radar, samples);
    let shape = window.shape();
    // (in band, weight) per bin; membership is tested on the frequency, not on the weight,
    // since a Taylor window with a sidelobe level above −13 dB may dip to 0 or below inside
    // (taylor:10:-3 does).
    let weights: Vec<(bool, f64)> = (0..samples)
        .map(|b| {
            let f = bin_hz(b, samples, fs);
            let band = f.abs() <= radar.bandwidth_hz / 2.0;
            (band, shape.at_hz(f, radar.bandwidth_hz))
        })
        .collect();
    let in_band: Vec<bool> = weights.iter().map(|&(band, _)| band).collect();
    equaliser(&replica, &in_band)
        .iter()
        .zip(&weights)
        .map(|(e, &(band, w))| {
            let z = if band {
                e * w
            } else {
                Complex64::new(0.0, 0.0)
            };
            Complex32::new(z.re as f32, z.im as f32)
        })
        .collect()
}

/// `conj(H)/|H|² · g` for every bin of `spectrum` `H`, with `g` the mean of `|H|²` over the
/// bins `in_band` marks, and `|H|²` floored at [`EQUALISATION_FLOOR`] · `g`: the in-band
/// inverse of `H`, scaled so that a response keeps about the matched filter's peak. All 0
/// when the band holds no power.
pub(crate) fn equaliser(spectrum: &[Complex64], in_band: &[bool]) -> Vec<Complex64> {
    let (sum, count) = spectrum
        .iter()
        .zip(in_band)
        .filter(|(_, band)| **band)
        .fold((0.0, 0usize), |(s, n), (h, _)| (s + h.norm_sqr(), n + 1));
    let gain = if count > 0 { sum / count as f64 } else { 0.0 };
    spectrum
        .iter()
        .map(|h| {
            let power = h.norm_sqr().max(gain * EQUALISATION_FLOOR);
            if power > 0.0 {
                h.conj() * (gain / power)
            } else {
                Complex64::new(0.0, 0.0)
            }
        })
        .collect()
}

/// Compresses `raw` (`[lines][samples]`) in range, in place, on `device`, with
/// [`range_filter`] weighted by `window`.
pub fn compress_range(
    device: &Device,
    config: &Config,
    raw: &mut [Complex32],
    window: Window,
) -> Result<(), SarError> {
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    let filter: Arc<[Complex32]> = range_filter(&config.radar, samples, window).into();
    let spec = FftSpec::new(samples)
        .batch(lines)
        .then_multiply_and_invert(filter)
        .normalized();
    device.plan(&spec)?.process(raw)?;
    Ok(())
}

/// `raw` (`[lines][samples]`) compressed in range on `device` without wrapping round: each
/// line padded with zeros to `samples` + the pulse's length, compressed with
/// [`range_filter`] over that length, and cut back to `samples` (a target's compressed peak on
/// its delay's sample, as in focusing with margins).
pub fn compress_range_linear(
    device: &Device,
    config: &Config,
    raw: &[Complex32],
    window: Window,
) -> Result<Vec<Complex32>, SarError> {
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    if raw.len() != lines * samples {
        return Err(SarError::Echoes(format!(
            "{} echo samples for a {lines} × {samples} scene",
            raw.len()
        )));
    }
    let pulse = (config.radar.pulse_s * config.radar.sample_rate_hz).ceil() as usize;
    let padded = samples + pulse;
    let mut data = vec![Complex32::default(); lines * padded];
    for (to, from) in data.chunks_exact_mut(padded).zip(raw.chunks_exact(samples)) {
        to[..samples].copy_from_slice(from);
    }
    let filter: Arc<[Complex32]> = range_filter(&config.radar, padded, window).into();
    let spec = FftSpec::new(padded)
        .batch(lines)
        .then_multiply_and_invert(filter)
        .normalized();
    device.plan(&spec)?.process(&mut data)?;
    Ok(data
        .chunks_exact(padded)
        .flat_map(|line| line[..samples].iter().copied())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compressed spectrum of a target at sample 0 (the filter times the replica's own
    /// spectrum) is exactly the window times the gain over the band, and 0 outside it.
    #[test]
    fn the_filter_leaves_only_the_window_in_the_band() {
        let radar = Radar::default();
        let samples = 2048;
        let fs = radar.sample_rate_hz;
        let spectrum = replica_spectrum(&radar, samples);
        for window in [
            Window::None,
            Window::Hamming,
            Window::Taylor {
                nbar: 4,
                sll_db: -35.0,
            },
            Window::Kaiser { beta: 2.5 },
        ] {
            let filter = range_filter(&radar, samples, window);
            let out: Vec<Complex64> = filter
                .iter()
                .zip(&spectrum)
                .map(|(g, h)| Complex64::new(g.re.into(), g.im.into()) * h)
                .collect();
            // The gain is the in-band mean of |H|² (TBP 1000: about fs·T·fs/B = 1440).
            let gain = out[0].re;
            assert!((gain / 1440.0 - 1.0).abs() < 0.05, "{window}: gain {gain}");
            for (b, z) in out.iter().enumerate() {
                let want = window.weight(bin_hz(b, samples, fs), radar.bandwidth_hz) * gain;
                assert!(
                    (z - want).norm() <= 1e-6 * gain,
                    "{window}: bin {b}: {z} instead of {want}"
                );
            }
        }
    }
}
