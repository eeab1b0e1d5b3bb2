//! [`Reshape`] kernels on a CUDA device.

use std::sync::Arc;

use super::CudaDevice;
use super::one::OneLaunch;
use crate::backend::buffer::Held;
use crate::backend::reshape::{ReshapeExec, outputs};
use crate::error::Result;
use crate::kernel::{reshape_grid, reshape_kernel};
use crate::nd::Reshape;

/// A reshape compiled for a CUDA device, with its twiddles uploaded.
pub struct CudaReshape(OneLaunch);

impl CudaReshape {
    /// Compiles `step`'s kernel and uploads what it reads besides its arrays.
    pub(crate) fn new(dev: Arc<CudaDevice>, step: &Reshape) -> Result<Self> {
        let twiddles = step.twiddles();
        let grid = reshape_grid(step.outputs(), dev.limits.max_groups_per_dim);
        let lines = outputs(step, &dev.name())?;
        let table = twiddles.as_deref().map(bytemuck::cast_slice);
        Ok(CudaReshape(OneLaunch::new(
            dev,
            &reshape_kernel(step),
            table,
            lines,
            grid,
        )?))
    }
}

impl ReshapeExec for CudaReshape {
    fn run(&self, src: &Held, dst: &mut Held) -> Result<()> {
        self.0.run(src, dst)
    }
}
