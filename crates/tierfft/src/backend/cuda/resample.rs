//! The resampling kernel on a CUDA device.

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;

use super::exec::unbound;
use super::{CudaDevice, gpu_err, nvrtc};
use crate::backend::buffer::{DeviceBuffer, Held, check_ours, foreign};
use crate::backend::resampler::ResampleExec;
use crate::error::Result;
use crate::kernel::ir::{Binding, Mem};
use crate::kernel::{RESAMPLE_THREADS, cuda, resample_grid, resample_kernel};
use crate::resample::{FixedRow, row_values};

/// A resampler compiled for a CUDA device, with its row positions uploaded.
pub struct CudaResampler {
    dev: Arc<CudaDevice>,
    func: CudaFunction,
    /// Row positions ([`crate::resample::ROW_WORDS`] u32 words a row).
    positions: CudaSlice<u32>,
    /// The buffers the kernel binds, in parameter order.
    bindings: Vec<Binding>,
    /// Rows, the kernel's `lines` parameter.
    rows: u32,
    grid: (u32, u32),
}

impl CudaResampler {
    /// Compiles the kernel for `n`-sample rows and uploads the positions of `rows`.
    pub(crate) fn new(dev: Arc<CudaDevice>, n: usize, rows: &[FixedRow]) -> Result<Self> {
        let kernel = resample_kernel(n);
        let cubin = nvrtc::compile(&cuda::print(&kernel), dev.arch())?;
        let func = dev
            .ctx
            .load_module(Ptx::from_binary(cubin.to_vec()))
            .map_err(gpu_err("loading a module"))?
            .load_function(&kernel.name)
            .map_err(gpu_err("finding a kernel"))?;
        let positions = dev
            .stream
            .clone_htod(&row_values(rows))
            .map_err(gpu_err("uploading row positions"))?;
        Ok(CudaResampler {
            func,
            positions,
            bindings: kernel.bindings,
            rows: rows.len() as u32,
            grid: resample_grid(n, rows.len(), dev.limits.max_groups_per_dim),
            dev,
        })
    }
}

impl ResampleExec for CudaResampler {
    fn run(&self, input: &DeviceBuffer, output: &mut DeviceBuffer) -> Result<()> {
        let name = self.dev.name();
        check_ours(
            &[input, output],
            |h| matches!(h, Held::Cuda { dev, .. } if Arc::ptr_eq(dev, &self.dev)),
            &name,
        )?;
        let (Held::Cuda { slice: src, .. }, Held::Cuda { slice: dst, .. }) =
            (&input.held, &mut output.held)
        else {
            return Err(foreign(input, &name));
        };
        let cfg = LaunchConfig {
            grid_dim: (self.grid.0, self.grid.1, 1),
            block_dim: (RESAMPLE_THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = self.dev.stream.launch_builder(&self.func);
        let mut dst = Some(dst);
        for binding in &self.bindings {
            match binding.mem {
                Mem::Src => launch.arg(src),
                Mem::Dst => launch.arg(dst.take().ok_or_else(|| unbound(binding))?),
                Mem::Aux => launch.arg(&self.positions),
                Mem::Twiddles | Mem::Shared => return Err(unbound(binding)),
            };
        }
        launch.arg(&self.rows);
        // SAFETY: the arguments follow the kernel's parameters (`src`, `dst` as `float2`
        // arrays, the positions as `unsigned`, then the row count); both buffers hold
        // rows × n values (checked by the caller) and the positions ROW_WORDS × rows;
        // indices are clamped to the row (tests/device_resident.rs runs it with poisoned
        // outputs).
        unsafe { launch.launch(cfg) }.map_err(gpu_err("launching the resampler"))?;
        Ok(())
    }
}
