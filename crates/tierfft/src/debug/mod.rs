//! Views for checking and inspecting tierfft, not for production use: they print, compare
//! and break things on purpose, and their shapes change with the internals they show.
//!
//! - [`source`]: a plan's kernels as text, in either dialect whatever the device
//!   (`tierfft plan --source`).
//! - [`reference`]: the f64 (and double-double) reference transforms every kernel is
//!   checked against, and the relative-L2 error norms the tests use.
//! - [`nvrtc`] (cargo feature `cuda`): NVRTC, the compiler the CUDA backend runs on the
//!   kernels' CUDA C, for compiling printed source by hand.
//! - [`kernels`]: registers and spills of a CUDA plan's kernels ([`KernelReport`]), and
//!   out-of-place runs that leave a checksummed plan's records unread, for timing.
//! - [`Fault`]: a bit flipped in device memory between two passes
//!   ([`Fft::inject_fault`](crate::Fft::inject_fault)), to see what a checksummed transform
//!   catches.

pub mod kernels;
pub mod reference;
pub mod source;

#[cfg(feature = "cuda")]
pub use crate::backend::cuda::nvrtc;
pub use crate::backend::fault::Fault;
pub use kernels::{KernelReport, kernel_reports, process_buffer_into_unverified};
