//! The library's integration tests, in one binary: one link instead of one per file, and one
//! pool of test threads for all of them. Each module is one subject; `resources.rs` measures the
//! whole process's memory and `cuda_compile.rs` plans with tables of gigabytes (see there), so
//! each stays a binary of its own.

mod common;

mod any_length;
mod checksum;
mod columns;
mod device_resident;
mod distributed;
mod double;
mod errors;
mod families;
mod fusion;
mod gpu_accuracy;
mod half;
mod kernels_validate;
mod nd;
mod nd_fused;
mod ndarray_interop;
mod properties;
mod self_reference;
mod strided;
mod trig;
mod tune;
mod views;
