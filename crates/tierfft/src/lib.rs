//! # tierfft
//!
//! Fast Fourier transforms planned for the memory tiers of a GPU: the largest transform that
//! fits on chip (registers plus workgroup memory) is done there in Stockham stages of the
//! radices its length factors into (primes up to 31; other lengths through Bluestein's
//! convolution), and longer transforms take as few passes over device memory as that block
//! allows, with the twiddles between passes fused into the loads.
//!
//! Data flows one way: [`FftSpec`] (what you ask for) → [`plan::Plan`] (passes, radices,
//! threads; pure data) → kernel source in the device's language (readable through
//! [`debug::source`]) → [`Device`] (compiles and launches). The modules stand on floors in
//! that order, each importing only from those below (docs/ARCHITECTURE.md).
//!
//! # What is where
//!
//! The root holds what a program needs to plan and run transforms:
//!
//! - devices and transforms: [`Device`], [`DeviceKind`], [`Fft`] (1-D, planned from an
//!   [`FftSpec`]), [`NdFft`] and [`NdFft64`] (N-D and real, planned from an [`NdSpec`]);
//! - what a spec is made of: [`Direction`], [`Layout`], [`PointOp`] with its operands
//!   [`Values`] and [`RealWeights`], [`Precision`], [`Checksum`], [`RealHalf`], and the
//!   DCT/DST of an [`NdSpec`] ([`Trig`], [`RealToReal`], [`Ends`]);
//! - data: [`Complex`], [`Complex32`], [`Complex64`], [`f16`], [`bf16`]; device memory
//!   [`DeviceBuffer`] and its [`BufferView`]s, taken by every call as [`AsDeviceBuffer`],
//!   typed by [`Element`] (complex) and [`RealElement`] (real);
//! - [`Error`] and [`Result`].
//!
//! The rest lives in modules:
//!
//! - [`backend`]: the backends' own devices and interop ([`backend::cuda`],
//!   [`backend::wgpu`], cargo features), timing ([`backend::Measured`],
//!   [`backend::Timer`]) and the row resampler ([`backend::Resampler`]).
//! - [`nd`]: the N-D plan's steps and kinds ([`nd::Kind`], [`nd::NdPlan`], [`nd::FuseReal`],
//!   [`nd::NdTransform`]).
//! - [`plan`]: the planner as pure data ([`plan::Plan`], [`plan::PlanOptions`],
//!   [`plan::DeviceLimits`] and its named profiles).
//! - [`resample`]: the row resampler's spec ([`resample::ResampleSpec`]).
//! - [`distributed`]: transforms spread over several devices.
//! - [`debug`]: views for checking and inspecting, not for production use: kernel source
//!   ([`debug::source`]), the reference transforms and error norms ([`debug::reference`]),
//!   NVRTC, a CUDA plan's kernel registers ([`debug::kernel_reports`]), and the faults a
//!   checksummed transform is tested with ([`debug::Fault`]).
//!
//! Public structs and enums that may grow are `#[non_exhaustive]`: build specs and options
//! with their constructors and setters (`FftSpec::new(n).batch(b)`,
//! `PlanOptions::default().with_max_radix(16)`), and give `match`es on their enums a `_` arm.
//!
//! ```
//! use num_complex::Complex32;
//! use tierfft::{Device, FftSpec};
//!
//! # fn main() -> tierfft::Result<()> {
//! let device = Device::cpu(); // or Device::auto()? for a GPU when there is one
//! let fft = device.plan(&FftSpec::new(1024).batch(4))?;
//! let mut data = vec![Complex32::new(1.0, 0.0); 1024 * 4];
//! fft.process(&mut data)?;
//! assert_eq!(data[0], Complex32::new(1024.0, 0.0)); // DC bin of a constant
//! # Ok(())
//! # }
//! ```

pub mod backend;
mod base;
mod checksum;
pub mod debug;
pub mod distributed;
mod error;
pub mod extended;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub(crate) mod kernel;
#[cfg(test)]
mod layers;
pub mod nd;
pub mod plan;
pub mod resample;
mod spec;
mod trig;
mod weights;

pub use backend::{
    AsDeviceBuffer, BufferView, Device, DeviceBuffer, DeviceKind, Element, Fft, RealElement,
};
pub use base::precision::Precision;
pub use base::values::Values;
pub use checksum::Checksum;
pub use error::{Error, Result};
pub use half::{bf16, f16};
pub use nd::{NdFft, NdFft64, NdSpec};
pub use num_complex::{Complex, Complex32, Complex64};
pub use spec::{Direction, FftSpec, Layout, PointOp, RealHalf};
pub use trig::{Ends, RealToReal, Trig};
pub use weights::RealWeights;

/// The README's Rust examples, compiled and run as doc-tests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeExamples;

/// The library guide's Rust examples (docs/LIBRARY.md), compiled and run as doc-tests so that
/// they stay true too.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/LIBRARY.md")]
pub struct LibraryGuideExamples;

/// The process-per-rank guide's Rust example (docs/PROCESSES.md), compiled as a doc-test.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/PROCESSES.md")]
pub struct ProcessesGuideExamples;
