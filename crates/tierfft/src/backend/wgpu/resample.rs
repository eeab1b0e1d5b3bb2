//! The resampling kernel on a wgpu device.

use std::sync::Arc;

use super::one::OneDispatch;
use super::{WgpuDevice, WgpuMemory};
use crate::backend::buffer::{DeviceBuffer, check_ours};
use crate::backend::resampler::ResampleExec;
use crate::error::Result;
use crate::kernel::{resample_grid, resample_kernel};
use crate::resample::{FixedRow, row_values};

/// A resampler compiled for a wgpu device, with its row positions uploaded
/// (three u32 words a row).
pub struct WgpuResampler {
    dev: Arc<WgpuDevice>,
    kernel: OneDispatch,
}

impl WgpuResampler {
    /// Compiles the kernel for `n`-sample rows and uploads the positions of `rows`.
    pub(crate) fn new(dev: Arc<WgpuDevice>, n: usize, rows: &[FixedRow]) -> Result<Self> {
        let kernel = OneDispatch::new(
            dev.clone(),
            &resample_kernel(n),
            Some(bytemuck::cast_slice(&row_values(rows))),
            u32::try_from(rows.len()).unwrap_or(u32::MAX),
            resample_grid(n, rows.len(), dev.limits.max_groups_per_dim),
            (2 * n * rows.len(), 2 * n * rows.len()),
        )?;
        Ok(WgpuResampler { dev, kernel })
    }
}

impl ResampleExec for WgpuResampler {
    fn run(&self, input: &DeviceBuffer, output: &mut DeviceBuffer) -> Result<()> {
        check_ours(
            &[input, output],
            |h| WgpuMemory::of(h, &self.dev).is_some(),
            &self.dev.name(),
        )?;
        self.kernel.run(&input.held, &output.held)
    }
}
