//! # tierfft
//!
//! Fast Fourier transforms planned for the memory tiers of a GPU: the largest transform that
//! fits on chip (registers plus workgroup memory) is done there in radix-8 Stockham stages,
//! and longer transforms take as few passes over device memory as that block allows, with
//! the twiddles between passes fused into the loads.
//!
//! Data flows one way: [`FftSpec`] (what you ask for) → [`plan::Plan`] (passes, radices,
//! threads; pure data) → kernel source in the device's language (readable through
//! [`source`]) → [`Device`] (compiles and launches).
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

// No panics on what a user or a device can get wrong: errors instead. The few
// invariants of generated code that no input reaches say so where they stand (`#[expect]`
// with the reason); the fuzz targets in fuzz/ hold the planner to them.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::todo,
        clippy::unimplemented
    )
)]

pub mod backend;
mod checksum;
pub mod dist;
mod error;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub(crate) mod kernel;
pub mod nd;
pub mod plan;
mod precision;
pub mod reference;
pub mod resample;
pub mod source;
mod spec;
pub(crate) mod twiddle;
mod values;
mod weights;

pub use backend::{
    AsDeviceBuffer, BufferView, Device, DeviceBuffer, DeviceKind, Element, Fft, Measured,
    RealElement, Resampler, Timer,
};
pub use checksum::{CheckRegion, Checksum, Fault};
pub use error::{Error, Result, Source};
pub use half::{bf16, f16};
pub use nd::{Kind, NdFft, NdFft64, NdSpec};
pub use num_complex::{Complex, Complex32, Complex64};
pub use precision::Precision;
pub use spec::{Direction, FftSpec, Layout, MAX_LOG2_N, PointOp, RealHalf};
pub use values::Values;
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
