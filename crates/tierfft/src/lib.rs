//! # tierfft
//!
//! Fast Fourier transforms planned for the memory tiers of a GPU: the largest transform that
//! fits on chip (registers plus workgroup memory) is done there in Stockham stages of the
//! radices its length factors into (primes up to 13; other lengths through Bluestein's
//! convolution), and longer transforms take as few passes over device memory as that block
//! allows, with the twiddles between passes fused into the loads.
//!
//! Data flows one way: [`FftSpec`] (what you ask for) → [`plan::Plan`] (passes, radices,
//! threads; pure data) → kernel source in the device's language (readable through
//! [`source`]) → [`Device`] (compiles and launches). The modules stand on floors in that
//! order, each importing only from those below (docs/ARCHITECTURE.md).
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
#[cfg(feature = "bench")]
#[doc(hidden)]
pub mod bench;
mod checksum;
pub mod distributed;
mod error;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub(crate) mod kernel;
#[cfg(test)]
mod layers;
pub mod nd;
pub mod plan;
pub mod reference;
pub mod resample;
pub mod source;
mod spec;
mod weights;

pub use backend::fault::Fault;
pub use backend::{
    AsDeviceBuffer, BufferView, Device, DeviceBuffer, DeviceKind, Element, Fft, Measured,
    RealElement, Resampler, Timer,
};
pub use base::precision::Precision;
pub use base::values::Values;
pub use checksum::Checksum;
pub use error::{Error, Result, Source};
pub use half::{bf16, f16};
pub use nd::{Kind, NdFft, NdFft64, NdSpec};
pub use num_complex::{Complex, Complex32, Complex64};
pub use plan::checksum::CheckRegion;
pub use spec::{Direction, FftSpec, Layout, MAX_LOG2_N, PointOp, RealHalf};
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
