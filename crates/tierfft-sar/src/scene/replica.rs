//! A measured transmit pulse (`radar.replica`, `tierfft sar --replica FILE`): complex samples
//! at the range sampling rate, used instead of the ideal chirp by range compression's
//! matched filter and by the simulator.
//!
//! Its time reference follows `radar.pulse_reference`: with `"start"` sample 0 is where an
//! echo's delay points, with `"centre"` sample (len − 1)/2 is (between two samples for an even
//! length; placed exactly, by a phase ramp over the spectrum).

use std::f64::consts::PI;
use std::sync::Arc;

use num_complex::{Complex32, Complex64};
use rustfft::FftPlanner;

use crate::scene::freq::bin_hz;
use crate::scene::params::{PulseReference, Radar};
pub use crate::scene::values::Replica;

impl Replica {
    /// Which sample an echo's delay points at (fractional for a centred, even-length pulse).
    fn reference_sample(&self, reference: PulseReference) -> f64 {
        match reference {
            PulseReference::Start => 0.0,
            PulseReference::Centre => (self.samples().len() - 1) as f64 / 2.0,
        }
    }

    /// Spectrum (f64) over `n` bins of the pulse placed as the echo of a zero delay: its
    /// reference sample at sample 0 (the samples before it wrapping to the end).
    pub(crate) fn spectrum(&self, radar: &Radar, n: usize) -> Vec<Complex64> {
        let mut s = vec![Complex64::new(0.0, 0.0); n];
        for (k, z) in self.samples().iter().enumerate() {
            s[k % n] += Complex64::new(z.re.into(), z.im.into());
        }
        FftPlanner::<f64>::new().plan_fft_forward(n).process(&mut s);
        // Advance by the reference sample: exact between samples for a band-limited pulse.
        let m0 = self.reference_sample(radar.pulse_reference);
        for (b, z) in s.iter_mut().enumerate() {
            let f = bin_hz(b, n, 1.0);
            *z *= Complex64::from_polar(1.0, 2.0 * PI * f * m0);
        }
        s
    }
}

/// One line of echoes of a replica: `echoes` of (delay from the first sample in samples,
/// complex amplitude) summed in the frequency domain over `n` ≥ line + pulse bins (no wrap),
/// the first `line.len()` kept.
pub(crate) struct LineSynth {
    spectrum: Vec<Complex64>,
    inverse: Arc<dyn rustfft::Fft<f64>>,
}

impl LineSynth {
    pub(crate) fn new(radar: &Radar, replica: &Replica, samples: usize) -> LineSynth {
        let n = samples + 2 * replica.samples().len();
        LineSynth {
            spectrum: replica.spectrum(radar, n),
            inverse: FftPlanner::<f64>::new().plan_fft_inverse(n),
        }
    }

    /// Adds to `line` the pulse delayed by each echo's delay (samples) and scaled by its
    /// amplitude.
    pub(crate) fn add(&self, line: &mut [Complex32], echoes: &[(f64, Complex64)]) {
        if echoes.is_empty() {
            return;
        }
        let n = self.spectrum.len();
        let mut s: Vec<Complex64> = (0..n)
            .map(|b| {
                let f = bin_hz(b, n, 1.0);
                let delays: Complex64 = echoes
                    .iter()
                    .map(|(delay, a)| a * Complex64::from_polar(1.0, -2.0 * PI * f * delay))
                    .sum();
                self.spectrum[b] * delays
            })
            .collect();
        self.inverse.process(&mut s);
        for (z, e) in line.iter_mut().zip(&s) {
            *z += Complex32::new((e.re / n as f64) as f32, (e.im / n as f64) as f32);
        }
    }
}
