//! The resampling kernel on a wgpu device.

use std::sync::Arc;

use ::wgpu as w;
use w::util::DeviceExt;

use super::WgpuDevice;
use super::exec::Compiled;
use crate::backend::buffer::{DeviceBuffer, Held, check_ours, foreign};
use crate::backend::resampler::ResampleExec;
use crate::error::Result;
use crate::kernel::ir::Mem;
use crate::kernel::{resample_grid, resample_kernel};
use crate::resample::{FixedRow, row_values};

/// A resampler compiled for a wgpu device, with its row positions uploaded.
pub struct WgpuResampler {
    dev: Arc<WgpuDevice>,
    kernel: Compiled,
    /// Row positions ([`crate::resample::ROW_WORDS`] u32 words a row).
    positions: w::Buffer,
    /// `lines` = rows, as the kernel's uniform.
    params: w::Buffer,
    grid: (u32, u32),
}

impl WgpuResampler {
    /// Compiles the kernel for `n`-sample rows and uploads the positions of `rows`.
    pub(crate) fn new(dev: Arc<WgpuDevice>, n: usize, rows: &[FixedRow]) -> Result<Self> {
        let kernel = dev.compile(&resample_kernel(n))?;
        let init = |label: &str, contents: &[u8], usage| {
            dev.device
                .create_buffer_init(&w::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage,
                })
        };
        let positions = init(
            "tierfft row positions",
            bytemuck::cast_slice(&row_values(rows)),
            w::BufferUsages::STORAGE,
        );
        let lines = u32::try_from(rows.len()).unwrap_or(u32::MAX);
        let params = init(
            "tierfft params",
            bytemuck::cast_slice(&[lines, 0, 0, 0]),
            w::BufferUsages::UNIFORM,
        );
        dev.check()?;
        Ok(WgpuResampler {
            kernel,
            positions,
            params,
            grid: resample_grid(n, rows.len(), dev.limits.max_groups_per_dim),
            dev,
        })
    }
}

impl ResampleExec for WgpuResampler {
    fn run(&self, input: &DeviceBuffer, output: &mut DeviceBuffer) -> Result<()> {
        let name = self.dev.name();
        check_ours(
            &[input, output],
            |h| matches!(h, Held::Wgpu { dev, .. } if Arc::ptr_eq(dev, &self.dev)),
            &name,
        )?;
        let (Held::Wgpu { buffer: src, .. }, Held::Wgpu { buffer: dst, .. }) =
            (&input.held, &output.held)
        else {
            return Err(foreign(input, &name));
        };
        let group = self.dev.bind(&self.kernel, &self.params, |mem| match mem {
            Mem::Src => Some(src.as_entire_binding()),
            Mem::Dst => Some(dst.as_entire_binding()),
            Mem::Aux => Some(self.positions.as_entire_binding()),
            Mem::Twiddles | Mem::Shared => None,
        })?;
        let mut enc = self.dev.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&w::ComputePassDescriptor {
                label: Some("tierfft resampling"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.kernel.pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(self.grid.0, self.grid.1, 1);
        }
        self.dev.queue.submit([enc.finish()]);
        self.dev.check()
    }
}
