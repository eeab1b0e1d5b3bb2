//! Plan pass -> kernel source. One generator builds each pass as IR ([`ir`]); one printer
//! ([`mod@print`]) writes it in each dialect ([`wgsl`], [`cuda`]). Nothing here knows how to
//! launch a kernel.

mod codelet;
pub mod cuda;
mod emit;
#[cfg(any(test, feature = "fuzzing"))]
pub mod eval;
pub mod ir;
mod pass;
pub mod print;
mod real;
mod resample;
mod trig;
pub mod wgsl;

pub use pass::pass_kernel;
pub use real::{reshape_grid, reshape_kernel};
// The GPU backends launch resampling kernels over this grid.
pub use resample::resample_grid;
pub use resample::resample_kernel;
