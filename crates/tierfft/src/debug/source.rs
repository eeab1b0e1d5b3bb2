//! Kernel source as text, for reading and debugging: what the backends compile, printed in
//! either dialect whatever the device (`tierfft plan --source`).

use crate::error::{Error, Result};
use crate::kernel::{self, cuda, ir::Kernel, wgsl};
use crate::plan::Plan;
use crate::plan::Reshape;

/// A language tierfft prints kernels in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Dialect {
    /// CUDA C, as NVRTC compiles it.
    Cuda,
    /// WGSL, as wgpu compiles it.
    Wgsl,
}

impl Dialect {
    fn print(self, kernel: &Kernel) -> String {
        match self {
            Dialect::Cuda => cuda::print(kernel),
            Dialect::Wgsl => wgsl::print(kernel),
        }
    }
}

impl Plan {
    /// The source of pass `pass`'s kernel (0-based), in place (one buffer) or out of place,
    /// in the plan's precision. `Err` for a kernel the plan does not run ([`Plan::kernels`]:
    /// passes of part of a line run out of place only, the back-transform of a chain split
    /// into one-pass halves in place only), or a plan that fails [`Plan::check`].
    pub fn source(&self, pass: usize, in_place: bool, dialect: Dialect) -> Result<String> {
        self.check()?;
        if !self.kernels().contains(&(pass, in_place)) {
            return Err(Error::InvalidSpec(format!(
                "this plan has no {} kernel for pass {pass} (it has {} pass(es) and runs \
                 these kernels, as (pass, in place): {:?})",
                if in_place { "in-place" } else { "out-of-place" },
                self.passes.len(),
                self.kernels()
            )));
        }
        Ok(dialect.print(&kernel::pass_kernel(self, pass, in_place)))
    }
}

impl Reshape {
    /// The source of this step's kernel, its values in `precision`.
    pub fn source(&self, precision: crate::Precision, dialect: Dialect) -> String {
        dialect.print(&kernel::reshape_kernel(self, precision))
    }
}

/// The source of the row resampler's kernel for rows of `n` output samples
/// ([`crate::backend::Resampler`]).
pub fn resample_source(n: usize, dialect: Dialect) -> String {
    dialect.print(&kernel::resample_kernel(n))
}
