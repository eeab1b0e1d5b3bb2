//! [`Reshape`] kernels on a wgpu device.

use std::sync::Arc;

use super::WgpuDevice;
use super::one::OneDispatch;
use crate::backend::buffer::Held;
use crate::backend::reshape::{ReshapeExec, outputs};
use crate::error::Result;
use crate::kernel::{reshape_grid, reshape_kernel};
use crate::nd::Reshape;

/// A reshape compiled for a wgpu device, with its twiddles uploaded.
pub struct WgpuReshape(OneDispatch);

impl WgpuReshape {
    /// Compiles `step`'s kernel and uploads what it reads besides its arrays.
    pub(crate) fn new(dev: Arc<WgpuDevice>, step: &Reshape) -> Result<Self> {
        let twiddles = step.twiddles();
        let grid = reshape_grid(step.outputs(), dev.limits.max_groups_per_dim);
        let lines = outputs(step, &dev.name())?;
        let table = twiddles.as_deref().map(bytemuck::cast_slice);
        Ok(WgpuReshape(OneDispatch::new(
            dev,
            &reshape_kernel(step),
            table,
            lines,
            grid,
        )?))
    }
}

impl ReshapeExec for WgpuReshape {
    fn run(&self, src: &Held, dst: &mut Held) -> Result<()> {
        self.0.run(src, dst)
    }
}
