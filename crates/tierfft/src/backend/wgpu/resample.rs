//! The resampling kernel on a wgpu device.

use std::sync::Arc;

use ::wgpu as w;
use w::util::DeviceExt;

use super::WgpuDevice;
use crate::backend::buffer::{DeviceBuffer, Held, check_ours, foreign};
use crate::backend::resampler::ResampleExec;
use crate::error::Result;
use crate::kernel::{resample_grid, resample_kernel, wgsl};
use crate::resample::{FixedRow, row_values};

/// A resampler compiled for a wgpu device, with its row positions uploaded.
pub struct WgpuResampler {
    dev: Arc<WgpuDevice>,
    pipeline: w::ComputePipeline,
    positions: w::Buffer,
    /// `lines` = rows, as the kernel's uniform.
    params: w::Buffer,
    grid: (u32, u32),
}

impl WgpuResampler {
    /// Compiles the kernel for `n`-sample rows and uploads the positions of `rows`.
    pub(crate) fn new(dev: Arc<WgpuDevice>, n: usize, rows: &[FixedRow]) -> Result<Self> {
        let pipeline = dev.compile(
            &wgsl::print(&resample_kernel(n)),
            &dev.layouts.out_of_place.1,
        )?;
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
            pipeline,
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
        let entries = [
            (0, src),
            (1, dst),
            // The table slot is unused.
            (2, &self.positions),
            (3, &self.params),
            (4, &self.positions),
        ]
        .map(|(binding, buffer)| w::BindGroupEntry {
            binding,
            resource: buffer.as_entire_binding(),
        });
        let group = self.dev.device.create_bind_group(&w::BindGroupDescriptor {
            label: Some("tierfft resampling"),
            layout: &self.dev.layouts.out_of_place.0,
            entries: &entries,
        });
        let mut enc = self.dev.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&w::ComputePassDescriptor {
                label: Some("tierfft resampling"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(self.grid.0, self.grid.1, 1);
        }
        self.dev.queue.submit([enc.finish()]);
        self.dev.check()
    }
}
