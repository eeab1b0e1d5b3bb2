//! [`Reshape`] kernels on a CUDA device.

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;

use super::exec::unbound;
use super::{CudaDevice, gpu_err, nvrtc};
use crate::backend::buffer::Held;
use crate::backend::reshape::{ReshapeExec, elsewhere};
use crate::error::{Error, Result};
use crate::kernel::ir::{Binding, Mem};
use crate::kernel::{RESHAPE_THREADS, cuda, reshape_grid, reshape_kernel};
use crate::nd::Reshape;

/// A reshape compiled for a CUDA device, with its twiddles uploaded.
pub struct CudaReshape {
    dev: Arc<CudaDevice>,
    func: CudaFunction,
    /// Split and merge twiddles as interleaved f32 pairs.
    twiddles: Option<CudaSlice<f32>>,
    /// The buffers the kernel binds, in parameter order.
    bindings: Vec<Binding>,
    outputs: u32,
    grid: (u32, u32),
}

impl CudaReshape {
    /// Compiles `step`'s kernel and uploads what it reads besides its arrays.
    pub(crate) fn new(dev: Arc<CudaDevice>, step: &Reshape) -> Result<Self> {
        let kernel = reshape_kernel(step);
        let cubin = nvrtc::compile(&cuda::print(&kernel), dev.arch())?;
        let func = dev
            .ctx
            .load_module(Ptx::from_binary(cubin.to_vec()))
            .map_err(gpu_err("loading a module"))?
            .load_function(&kernel.name)
            .map_err(gpu_err("finding a kernel"))?;
        let twiddles = match step.twiddles() {
            Some(t) => Some(
                dev.stream
                    .clone_htod(bytemuck::cast_slice::<_, f32>(&t))
                    .map_err(gpu_err("uploading twiddles"))?,
            ),
            None => None,
        };
        let outputs = u32::try_from(step.outputs()).map_err(|_| Error::TooLarge {
            what: format!("{} outputs", step.outputs()),
            device: dev.name(),
            detail: "kernels index fewer than 2^32 elements".into(),
        })?;
        Ok(CudaReshape {
            func,
            twiddles,
            bindings: kernel.bindings,
            outputs,
            grid: reshape_grid(step.outputs(), dev.limits.max_groups_per_dim),
            dev,
        })
    }
}

impl ReshapeExec for CudaReshape {
    fn run(&self, src: &Held, dst: &mut Held) -> Result<()> {
        let ours = |h: &Held| matches!(h, Held::Cuda { dev, .. } if Arc::ptr_eq(dev, &self.dev));
        if !ours(src) || !ours(dst) {
            return Err(elsewhere(&self.dev.name()));
        }
        let (Held::Cuda { slice: src, .. }, Held::Cuda { slice: dst, .. }) = (src, dst) else {
            return Err(elsewhere(&self.dev.name()));
        };
        let cfg = LaunchConfig {
            grid_dim: (self.grid.0, self.grid.1, 1),
            block_dim: (RESHAPE_THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = self.dev.stream.launch_builder(&self.func);
        let mut dst = Some(dst);
        for binding in &self.bindings {
            match binding.mem {
                Mem::Src => launch.arg(src),
                Mem::Dst => launch.arg(dst.take().ok_or_else(|| unbound(binding))?),
                Mem::Aux => launch.arg(self.twiddles.as_ref().ok_or_else(|| unbound(binding))?),
                Mem::Twiddles | Mem::Shared => return Err(unbound(binding)),
            };
        }
        launch.arg(&self.outputs);
        // SAFETY: the arguments follow the kernel's parameters (its bindings in order, then
        // the output count); the caller (NdFft) passes arrays of the step's input and output
        // sizes, and every thread past the outputs does nothing (tests/nd.rs runs each step
        // with poisoned outputs).
        unsafe { launch.launch(cfg) }.map_err(gpu_err("launching a reshape"))?;
        Ok(())
    }
}
