//! # tierfft-sar
//!
//! Synthetic-aperture-radar focusing on tierfft, in five floors, each importing only its own
//! and the ones below (a unit test, `layers.rs`, keeps that and the absence of import
//! circles between files):
//!
//! - [`product`]: raw products of SAR missions read ([`product::RawProduct`]: NISAR
//!   Level-0B in [`product::nisar`]), echoes decoded by block of pulses with the radar's
//!   description, orbit and attitude;
//! - [`scene`]: scene and radar parameters ([`scene::params`]), raw-echo simulation
//!   ([`scene::simulate`]), the Doppler centroid and antenna pattern, given or estimated,
//!   echoes checked before any work, and the margins a scene of any size is processed with
//!   ([`scene::extent`]);
//! - [`filters`]: the range matched filter, the azimuth filter, SRC, RCMC's positions and
//!   chirp scaling's multiplies;
//! - [`focus`]: a SAR plan as data ([`focus::SarPlan`]: ordered [`focus::Step`]s with their
//!   filters), one builder per algorithm (Range-Doppler [`focus::rda`], chirp scaling
//!   [`focus::csa`]), and the executors that walk the steps: fused on one device
//!   ([`focus::Focuser`]), through the host, over several devices
//!   ([`focus::distributed::DistFocuser`]), in blocks of lines ([`focus::strip`]);
//! - [`quality`]: point-target quality analysis ([`quality::metrics`];
//!   [`quality::neighbours`] for targets in each other's sidelobes), the noise region, the
//!   report.
//!
//! GPU steps: range compression is one fused kernel per line, the azimuth FFTs read columns
//! in place (`FftSpec::columns`), RCMC is tierfft's row resampler, and the azimuth filter is
//! fused into the inverse azimuth FFT's load; the scene stays on the device between steps.
//! docs/SAR.md has the configuration keys, the formulas and the measured quality and timings.

pub mod error;
pub mod filters;
pub mod focus;
pub mod product;
pub mod quality;
pub mod scene;

#[cfg(test)]
mod layers;

pub use error::SarError;
pub use focus::{Algorithm, FocusOptions, Focuser, SarPlan, Step};
pub use scene::params::Config;
