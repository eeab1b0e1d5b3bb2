//! tierfft's benchmarks against NVIDIA's libraries, and the `tierfft bench` command.
//!
//! Everything here is written against tierfft's public API, as a user of the library
//! would write it: transforms planned on a [`tierfft::Device`], data in
//! [`tierfft::DeviceBuffer`]s whose CUDA memory cuFFT reads and writes through
//! [`tierfft::DeviceBuffer::cuda_view_mut`], times from CUDA events recorded on the
//! device's stream around work that only queues ([`Fft::process_buffer_into`] and cuFFT's
//! exec calls).
//!
//! - [`compare`]: 1-D transforms, fused chains and load multiplies against cuFFT (C2C, Z2Z)
//!   and cufftXt's f16 / bf16 transforms ([`cufft_xt`]) on the same buffers and stream;
//!   the copy bandwidth that bounds both; the cuFFT callback peer ([`peer`]) and NVML
//!   energy ([`energy`]) beside them.
//! - [`compare_nd`]: N-D and real transforms against `cufftPlanMany`.
//! - [`transfer`]: host-device copy speeds.
//! - [`command`]: `tierfft bench`, its arguments and what it prints; [`shared`]: the
//!   argument parsers, planner flags and device opening it shares with the command's other
//!   subcommands.
//!
//! cuFFT, cufftXt, NVML and the peer are loaded at run time: the crate builds without CUDA,
//! and asking for them where they are missing is an error that says what is missing.
//!
//! [`Fft::process_buffer_into`]: tierfft::Fft::process_buffer_into

pub mod command;
pub mod compare;
pub mod compare_nd;
mod cuda;
pub mod cufft_mgpu;
pub mod cufft_xt;
pub mod energy;
pub mod peer;
pub mod shared;
pub mod transfer;

pub use cuda::time_events;
