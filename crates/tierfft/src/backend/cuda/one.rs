//! Kernels launched once over a source, a destination and an optional table: the resampler
//! and the reshape steps of N-D plans.

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;

use super::exec::unbound;
use super::{CudaDevice, CudaMemory, gpu_err, nvrtc};
use crate::backend::buffer::{Held, foreign};
use crate::backend::reshape::{ReshapeExec, check_floats};
use crate::error::Result;
use crate::kernel::cuda;
use crate::kernel::ir::{Binding, Kernel, Mem};

/// A kernel compiled for a CUDA device with what it reads besides its arrays uploaded.
pub(crate) struct OneLaunch {
    dev: Arc<CudaDevice>,
    func: CudaFunction,
    /// The `aux` argument's bytes, if the kernel binds one.
    table: Option<CudaSlice<u8>>,
    /// The buffers the kernel binds, in parameter order.
    bindings: Vec<Binding>,
    /// The kernel's `lines` parameter.
    lines: u32,
    threads: u32,
    grid: (u32, u32),
    /// f32 values the kernel reads from `src` and writes to `dst` at most.
    floats: (usize, usize),
}

impl OneLaunch {
    /// Compiles `kernel` and uploads `table` (its `aux` argument).
    pub(crate) fn new(
        dev: Arc<CudaDevice>,
        kernel: &Kernel,
        table: Option<&[u8]>,
        lines: u32,
        grid: (u32, u32),
        floats: (usize, usize),
    ) -> Result<Self> {
        let cubin = nvrtc::compile(&cuda::print(kernel), dev.arch())?;
        let func = dev
            .ctx
            .load_module(Ptx::from_binary(cubin.to_vec()))
            .map_err(gpu_err("loading a module"))?
            .load_function(&kernel.name)
            .map_err(gpu_err("finding a kernel"))?;
        let table = match table {
            Some(t) => Some(
                dev.stream
                    .clone_htod(t)
                    .map_err(gpu_err("uploading a table"))?,
            ),
            None => None,
        };
        Ok(OneLaunch {
            func,
            table,
            bindings: kernel.bindings.clone(),
            lines,
            threads: kernel.threads,
            grid,
            floats,
            dev,
        })
    }

    /// Launches the kernel from `src` into `dst` (queued, not waited for); both must be
    /// buffers of this device, of the sizes the kernel was built for.
    pub(crate) fn run(&self, src: &Held, dst: &mut Held) -> Result<()> {
        check_floats(src, dst, self.floats)?;
        let Some(src) = CudaMemory::of(src, &self.dev) else {
            return Err(foreign(src, &self.dev.name()));
        };
        let Some(dst) = CudaMemory::of_mut(dst, &self.dev) else {
            return Err(foreign(dst, &self.dev.name()));
        };
        let cfg = LaunchConfig {
            grid_dim: (self.grid.0, self.grid.1, 1),
            block_dim: (self.threads, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = self.dev.stream.launch_builder(&self.func);
        let mut dst = Some(dst);
        for binding in &self.bindings {
            match binding.mem {
                Mem::Src => launch.arg(src),
                Mem::Dst => launch.arg(dst.take().ok_or_else(|| unbound(binding))?),
                Mem::Aux => launch.arg(self.table.as_ref().ok_or_else(|| unbound(binding))?),
                Mem::Twiddles | Mem::Shared | Mem::Check | Mem::Counters => {
                    return Err(unbound(binding));
                }
            };
        }
        launch.arg(&self.lines);
        // SAFETY: the arguments follow the kernel's parameters (its bindings in order, then
        // `lines`); both arrays hold at least the values the kernel reads and writes
        // (checked above against what it was built for), and every thread past `lines`
        // outputs does nothing (tests/library/device_resident.rs and tests/library/nd.rs run both kernels
        // with poisoned outputs).
        unsafe { launch.launch(cfg) }.map_err(gpu_err("launching a kernel"))?;
        Ok(())
    }
}

impl ReshapeExec for OneLaunch {
    fn run(&self, src: &Held, dst: &mut Held) -> Result<()> {
        OneLaunch::run(self, src, dst)
    }
}
