//! Kernels launched as one dispatch over a source, a destination and an optional table: the
//! resampler and the reshape steps of N-D plans.

use std::sync::Arc;

use ::wgpu as w;
use w::util::DeviceExt;

use super::exec::Compiled;
use super::{WgpuDevice, WgpuMemory};
use crate::backend::buffer::{Held, foreign};
use crate::backend::reshape::{ReshapeExec, check_floats};
use crate::error::Result;
use crate::kernel::ir::{Kernel, Mem};

/// A kernel compiled for a wgpu device with what it reads besides its arrays uploaded.
pub(crate) struct OneDispatch {
    dev: Arc<WgpuDevice>,
    kernel: Compiled,
    /// The `aux` binding, if the kernel has one.
    table: Option<w::Buffer>,
    /// `lines`, as the kernel's uniform.
    params: w::Buffer,
    grid: (u32, u32),
    /// f32 values the kernel reads from `src` and writes to `dst` at most.
    floats: (usize, usize),
}

impl OneDispatch {
    /// Compiles `kernel` and uploads `table` (its `aux` binding) and `lines`.
    pub(crate) fn new(
        dev: Arc<WgpuDevice>,
        kernel: &Kernel,
        table: Option<&[u8]>,
        lines: u32,
        grid: (u32, u32),
        floats: (usize, usize),
    ) -> Result<Self> {
        let compiled = dev.compile(kernel)?;
        let init = |label: &str, contents: &[u8], usage| {
            dev.device
                .create_buffer_init(&w::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage,
                })
        };
        let table = table.map(|t| init("tierfft table", t, w::BufferUsages::STORAGE));
        let params = init(
            "tierfft params",
            bytemuck::cast_slice(&[lines, 0, 0, 0]),
            w::BufferUsages::UNIFORM,
        );
        dev.check()?;
        Ok(OneDispatch {
            kernel: compiled,
            table,
            params,
            grid,
            floats,
            dev,
        })
    }

    /// Runs the kernel from `src` into `dst` (queued, not waited for); both must be buffers
    /// of this device, at least as long as the kernel reads and writes.
    pub(crate) fn run(&self, src: &Held, dst: &Held) -> Result<()> {
        check_floats(src, dst, self.floats)?;
        let src = WgpuMemory::of(src, &self.dev).ok_or_else(|| foreign(src, &self.dev.name()))?;
        let dst = WgpuMemory::of(dst, &self.dev).ok_or_else(|| foreign(dst, &self.dev.name()))?;
        let group = self.dev.bind(
            &self.kernel,
            self.params.as_entire_binding(),
            |mem| match mem {
                Mem::Src => Some(src.binding()),
                Mem::Dst => Some(dst.binding()),
                Mem::Aux => self.table.as_ref().map(|t| t.as_entire_binding()),
                Mem::Twiddles | Mem::Shared | Mem::Check | Mem::Counters => None,
            },
        )?;
        let mut enc = self.dev.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&w::ComputePassDescriptor {
                label: Some(&self.kernel.name),
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

impl ReshapeExec for OneDispatch {
    fn run(&self, src: &Held, dst: &mut Held) -> Result<()> {
        OneDispatch::run(self, src, dst)
    }
}
