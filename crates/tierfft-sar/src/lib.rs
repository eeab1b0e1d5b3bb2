//! # tierfft-sar
//!
//! Synthetic-aperture-radar focusing on tierfft: scene and radar parameters ([`params`]),
//! raw-echo simulation ([`simulate`]), scenes of any size processed with margins
//! ([`extent`]), Range-Doppler focusing ([`range`]: fused range
//! compression; [`focus`]: azimuth FFT, 16-tap sinc RCMC, azimuth compression), the chirp
//! scaling algorithm for squinted scenes ([`csa`]) and
//! point-target quality analysis ([`metrics`]; [`neighbours`] for targets in each other's
//! sidelobes).
//!
//! GPU steps: range compression is one fused kernel per line, the azimuth FFTs read columns
//! in place (`FftSpec::columns`), RCMC is tierfft's row resampler, and the azimuth filter is
//! fused into the inverse azimuth FFT's load; the scene stays on the device between steps.
//! docs/SAR.md has the configuration keys, the formulas and the measured quality and timings.

pub mod azimuth;
pub mod centroid;
pub mod coupling;
pub mod csa;
pub mod dist;
pub mod doppler;
pub mod echoes;
pub mod extent;
pub mod fit;
pub mod focus;
pub mod layout;
pub mod looks;
pub mod measure;
pub mod metrics;
pub mod neighbours;
pub mod noise;
pub mod params;
pub mod pattern;
pub mod radiometry;
pub mod range;
pub mod rcmc;
pub mod replica;
pub mod report;
pub mod simulate;
pub mod strip;
pub mod window;

/// Errors of the SAR crate.
#[derive(Debug, thiserror::Error)]
pub enum SarError {
    /// A configuration that cannot work (the message says which value and why).
    #[error("bad SAR configuration: {0}")]
    Config(String),
    /// Echoes that cannot be focused as given (non-finite samples, a transposed or real
    /// array; the message says what and the remedy).
    #[error("{0}")]
    Echoes(String),
    /// The FFT library failed (device, size, memory).
    #[error(transparent)]
    Fft(#[from] tierfft::Error),
    /// A point target could not be analysed.
    #[error("point-target analysis: {0}")]
    Metrics(#[from] metrics::MetricsError),
}
