//! Frequencies of FFT bins, for range frequency and Doppler alike.

/// Bin `b` of a `samples`-point FFT sampled at `fs` Hz as a frequency in Hz (negative from
/// `samples/2` on, as NumPy's `fftfreq`: for odd lengths the middle bin is positive): range
/// frequencies, and Doppler with `fs` the PRF.
pub(crate) fn bin_hz(b: usize, samples: usize, fs: f64) -> f64 {
    let bin = if 2 * b < samples {
        b as f64
    } else {
        b as f64 - samples as f64
    };
    bin * fs / samples as f64
}
