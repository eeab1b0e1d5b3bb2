//! Launching cluster kernels ([`crate::kernel::ir::Kernel::cluster`]). The cluster size is a
//! launch attribute (`cuLaunchKernelEx`), not compiled in, so that sizes past the portable 8
//! run where the device allows them (the function opts in to them).

use std::ffi::c_void;

use cudarc::driver::sys;
use cudarc::driver::{CudaFunction, CudaStream};

use super::gpu_err;
use crate::error::Result;

/// A launch of `grid` workgroups of `threads` threads and `shared` bytes in clusters of
/// `cluster`.
pub(super) struct ClusterLaunch {
    pub grid: u32,
    pub threads: u32,
    pub shared: u32,
    pub cluster: u32,
}

impl ClusterLaunch {
    /// The cluster size as a launch attribute.
    fn attribute(&self) -> sys::CUlaunchAttribute {
        sys::CUlaunchAttribute {
            id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
            pad: [0; 4],
            value: sys::CUlaunchAttributeValue {
                clusterDim: sys::CUlaunchAttributeValue_union__bindgen_ty_1 {
                    x: self.cluster,
                    y: 1,
                    z: 1,
                },
            },
        }
    }

    /// The driver's launch configuration, pointing at `attr` (which must outlive it).
    fn config(
        &self,
        stream: &CudaStream,
        attr: &mut sys::CUlaunchAttribute,
    ) -> sys::CUlaunchConfig {
        sys::CUlaunchConfig {
            gridDimX: self.grid,
            gridDimY: 1,
            gridDimZ: 1,
            blockDimX: self.threads,
            blockDimY: 1,
            blockDimZ: 1,
            sharedMemBytes: self.shared,
            hStream: stream.cu_stream(),
            attrs: attr,
            numAttrs: 1,
        }
    }

    /// Clusters of this shape the device holds at once (`cuOccupancyMaxActiveClusters`).
    pub fn active_clusters(&self, func: &CudaFunction, stream: &CudaStream) -> Result<u32> {
        bind(stream)?;
        let mut attr = self.attribute();
        let config = self.config(stream, &mut attr);
        let mut clusters: std::ffi::c_int = 0;
        // SAFETY: `config` and `attr` are live for the call; `func` is a loaded function.
        unsafe { sys::cuOccupancyMaxActiveClusters(&mut clusters, func.cu_function(), &config) }
            .result()
            .map_err(gpu_err("asking how many clusters fit"))?;
        Ok(clusters.max(0) as u32)
    }

    /// Launches `func` on `stream` with `args`, pointers to each parameter's value in order.
    ///
    /// # Safety
    /// `args` must match the kernel's parameters, and the buffers they point to must stay
    /// valid until the kernel has run.
    pub unsafe fn launch(
        &self,
        func: &CudaFunction,
        stream: &CudaStream,
        args: &mut [*mut c_void],
    ) -> Result<()> {
        bind(stream)?;
        let mut attr = self.attribute();
        let config = self.config(stream, &mut attr);
        // SAFETY: the caller vouches for `args`; `config` and `attr` are live for the call.
        unsafe {
            sys::cuLaunchKernelEx(
                &config,
                func.cu_function(),
                args.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        }
        .result()
        .map_err(gpu_err("launching a cluster pass"))
    }
}

/// Makes `stream`'s context current on this thread: the driver calls above take it from
/// the thread, not the stream, and a thread driving a second GPU may hold the first's
/// (CUDA_ERROR_INVALID_CONTEXT on the second GPU of `tierfft bench --gpus 2`).
fn bind(stream: &CudaStream) -> Result<()> {
    stream
        .context()
        .bind_to_thread()
        .map_err(gpu_err("making the GPU's context current"))
}
