//! # tierfft-sar
//!
//! Synthetic-aperture-radar focusing on tierfft: scene and radar parameters ([`params`]),
//! raw-echo simulation ([`simulate`]), Range-Doppler focusing ([`range`]: fused range
//! compression; [`focus`]: azimuth FFT, 16-tap sinc RCMC, azimuth compression) and
//! point-target quality analysis ([`metrics`]).
//!
//! Work in progress (issue 4): images, JSON, the `tierfft sar` command, users' own `.npy`
//! echoes, GPU RCMC and azimuth filtering, column-reading azimuth FFTs
//! without transposes, and the H100 step timings come next.

pub mod focus;
pub mod metrics;
pub mod params;
pub mod range;
pub mod simulate;
pub mod window;

/// Errors of the SAR crate.
#[derive(Debug, thiserror::Error)]
pub enum SarError {
    /// A configuration that cannot work (the message says which value and why).
    #[error("bad SAR configuration: {0}")]
    Config(String),
    /// The FFT library failed (device, size, memory).
    #[error(transparent)]
    Fft(#[from] tierfft::Error),
    /// A point target could not be analysed.
    #[error("point-target analysis: {0}")]
    Metrics(#[from] metrics::MetricsError),
}
