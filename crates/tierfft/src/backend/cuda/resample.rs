//! The resampling kernel on a CUDA device.

use std::sync::Arc;

use super::one::OneLaunch;
use super::{CudaDevice, CudaMemory};
use crate::backend::buffer::{DeviceBuffer, check_ours};
use crate::backend::resampler::ResampleExec;
use crate::error::Result;
use crate::kernel::{resample_grid, resample_kernel};
use crate::resample::{FixedRow, row_values};

/// A resampler compiled for a CUDA device, with its row positions uploaded
/// (three u32 words a row).
pub struct CudaResampler {
    dev: Arc<CudaDevice>,
    kernel: OneLaunch,
}

impl CudaResampler {
    /// Compiles the kernel for `n`-sample rows and uploads the positions of `rows`.
    pub(crate) fn new(dev: Arc<CudaDevice>, n: usize, rows: &[FixedRow]) -> Result<Self> {
        let kernel = OneLaunch::new(
            dev.clone(),
            &resample_kernel(n),
            Some(bytemuck::cast_slice(&row_values(rows))),
            u32::try_from(rows.len()).unwrap_or(u32::MAX),
            resample_grid(n, rows.len(), dev.limits.max_groups_per_dim),
            (2 * n * rows.len(), 2 * n * rows.len()),
        )?;
        Ok(CudaResampler { dev, kernel })
    }
}

impl ResampleExec for CudaResampler {
    fn run(&self, input: &DeviceBuffer, output: &mut DeviceBuffer) -> Result<()> {
        check_ours(
            &[input, output],
            |h| CudaMemory::of(h, &self.dev).is_some(),
            &self.dev.name(),
        )?;
        self.kernel.run(&input.held, &mut output.held)
    }
}
