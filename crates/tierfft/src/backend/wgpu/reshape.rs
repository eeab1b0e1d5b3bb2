//! [`Reshape`] kernels on a wgpu device.

use std::sync::Arc;

use ::wgpu as w;
use w::util::DeviceExt;

use super::WgpuDevice;
use super::exec::Compiled;
use crate::backend::buffer::Held;
use crate::backend::reshape::{ReshapeExec, elsewhere};
use crate::error::{Error, Result};
use crate::kernel::ir::Mem;
use crate::kernel::{reshape_grid, reshape_kernel};
use crate::nd::Reshape;

/// A reshape compiled for a wgpu device, with its twiddles uploaded.
pub struct WgpuReshape {
    dev: Arc<WgpuDevice>,
    kernel: Compiled,
    twiddles: Option<w::Buffer>,
    /// `lines` = outputs, as the kernel's uniform.
    params: w::Buffer,
    grid: (u32, u32),
}

impl WgpuReshape {
    /// Compiles `step`'s kernel and uploads what it reads besides its arrays.
    pub(crate) fn new(dev: Arc<WgpuDevice>, step: &Reshape) -> Result<Self> {
        let kernel = dev.compile(&reshape_kernel(step))?;
        let outputs = u32::try_from(step.outputs()).map_err(|_| Error::TooLarge {
            what: format!("{} outputs", step.outputs()),
            device: dev.name(),
            detail: "kernels index fewer than 2^32 elements".into(),
        })?;
        let init = |label: &str, contents: &[u8], usage| {
            dev.device
                .create_buffer_init(&w::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage,
                })
        };
        let twiddles = step.twiddles().map(|t| {
            init(
                "tierfft real twiddles",
                bytemuck::cast_slice(&t),
                w::BufferUsages::STORAGE,
            )
        });
        let params = init(
            "tierfft params",
            bytemuck::cast_slice(&[outputs, 0, 0, 0]),
            w::BufferUsages::UNIFORM,
        );
        dev.check()?;
        Ok(WgpuReshape {
            kernel,
            twiddles,
            params,
            grid: reshape_grid(step.outputs(), dev.limits.max_groups_per_dim),
            dev,
        })
    }
}

impl ReshapeExec for WgpuReshape {
    fn run(&self, src: &Held, dst: &mut Held) -> Result<()> {
        let ours = |h: &Held| match h {
            Held::Wgpu { dev, buffer, .. } if Arc::ptr_eq(dev, &self.dev) => Some(buffer.clone()),
            _ => None,
        };
        let (Some(src), Some(dst)) = (ours(src), ours(dst)) else {
            return Err(elsewhere(&self.dev.name()));
        };
        let group = self.dev.bind(&self.kernel, &self.params, |mem| match mem {
            Mem::Src => Some(src.as_entire_binding()),
            Mem::Dst => Some(dst.as_entire_binding()),
            Mem::Aux => self.twiddles.as_ref().map(|t| t.as_entire_binding()),
            Mem::Twiddles | Mem::Shared => None,
        })?;
        let mut enc = self.dev.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&w::ComputePassDescriptor {
                label: Some("tierfft reshape"),
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
