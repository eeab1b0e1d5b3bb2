//! Benchmark support for the `tierfft` command, not part of the library's API (cargo feature
//! `bench`): cuFFT and cufftXt side by side with tierfft's own executors on the same buffers
//! and stream, NVML energy readings, the cuFFT callback peer, and host-copy speeds. It sits
//! above every floor of the library and reaches into the CUDA backend's insides.

pub mod compare;
pub mod compare_nd;
pub mod cufft_xt;
pub mod energy;
pub mod peer;

pub use crate::backend::cuda::CudaFft;
pub use crate::backend::cuda::transfer::{TransferSpeeds, transfer_speeds};
