//! The CUDA backend: kernels from the same generator as WGSL, printed as CUDA C, compiled by
//! NVRTC for the device's own architecture, launched through cudarc. Libraries are loaded at
//! run time, so the crate builds and runs on machines without CUDA (opening a device is then
//! an error, not a crash).

mod backend;
mod cluster;
pub(crate) mod exec;
// Public as `tierfft::debug::nvrtc`.
#[doc(hidden)]
pub mod nvrtc;
mod occupancy;
pub(crate) mod one;
pub(crate) mod side;
pub(crate) mod transfer;

pub(crate) use backend::CudaMemory;
pub(crate) use exec::CudaFft;
pub(crate) use exec::time_events;

use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::sys::CUdevice_attribute as A;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, CudaView, CudaViewMut, DriverError};

use crate::error::{Error, Result};
use crate::plan::DeviceLimits;

/// An NVIDIA GPU through the CUDA driver.
pub struct CudaDevice {
    pub(crate) ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    limits: DeviceLimits,
    arch: String,
    name: String,
    /// L2 cache, bytes.
    pub l2_bytes: usize,
    /// What one multiprocessor holds (for register trimming).
    sm: occupancy::SmLimits,
    /// Pinned buffers that host copies are staged through, made on first use.
    staging: transfer::StagingSlot,
}

/// A CUDA driver error as an [`Error`], the driver's error kept as its source: out of memory,
/// a fault that leaves the context unusable (device lost), or another failure.
pub(crate) fn gpu_err(what: &str) -> impl Fn(DriverError) -> Error + '_ {
    move |e| driver_error(what, e)
}

fn driver_error(what: &str, e: DriverError) -> Error {
    use cudarc::driver::sys::CUresult as R;
    // The code's name, not DriverError's own text, which asks the driver library for it.
    let what = format!("{what}: {:?}", e.0);
    let source = Some(Box::new(e) as crate::error::Source);
    match e.0 {
        R::CUDA_ERROR_OUT_OF_MEMORY => Error::OutOfMemory {
            what,
            requested: None,
            free: None,
            source,
        },
        // Sticky errors: the context stays broken until the process exits (CUDA's
        // documentation of each), so every later call on it fails too.
        R::CUDA_ERROR_ILLEGAL_ADDRESS
        | R::CUDA_ERROR_MISALIGNED_ADDRESS
        | R::CUDA_ERROR_LAUNCH_FAILED
        | R::CUDA_ERROR_ILLEGAL_INSTRUCTION
        | R::CUDA_ERROR_INVALID_ADDRESS_SPACE
        | R::CUDA_ERROR_INVALID_PC
        | R::CUDA_ERROR_HARDWARE_STACK_ERROR
        | R::CUDA_ERROR_ECC_UNCORRECTABLE
        | R::CUDA_ERROR_DEVICE_UNAVAILABLE => Error::DeviceLost {
            what: format!("{what} (the CUDA context is unusable until this process exits)"),
            source,
        },
        _ => Error::Gpu { what, source },
    }
}

/// `array[range]`: cudarc's `slice` panics on a range outside the array, so every range into
/// a device array goes through here, and one a planner or routing bug puts outside is an
/// error naming `what`, the range and the array's length.
pub(crate) fn view<'a, T>(
    array: &'a CudaSlice<T>,
    range: Range<usize>,
    what: &str,
) -> Result<CudaView<'a, T>> {
    let len = array.len();
    array
        .try_slice(range.clone())
        .ok_or_else(|| outside(what, &range, len))
}

/// [`view`], mutable.
pub(crate) fn view_mut<'a, T>(
    array: &'a mut CudaSlice<T>,
    range: Range<usize>,
    what: &str,
) -> Result<CudaViewMut<'a, T>> {
    let len = array.len();
    array
        .try_slice_mut(range.clone())
        .ok_or_else(|| outside(what, &range, len))
}

fn outside(what: &str, range: &Range<usize>, len: usize) -> Error {
    Error::gpu(format!(
        "{what}: elements {}..{} lie outside the device array of {len} (an internal error: \
         please report it with the spec)",
        range.start, range.end
    ))
}

/// True when the CUDA driver library can be loaded.
pub fn driver_available() -> bool {
    // SAFETY: only tries to dlopen the library under cudarc's candidate names.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// Most blocks of the largest shape (all of a block's threads and opt-in shared memory) one
/// cluster may hold, as the driver reports it (`cuOccupancyMaxPotentialClusterSize`) for a
/// probe kernel of that shape; 0 if the probe cannot be built or asked (the cluster tier is
/// then not planned, and nothing else changes).
fn cluster_limit(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    limits: &DeviceLimits,
    arch: &str,
) -> usize {
    let probe = || -> Result<u32> {
        let source = "extern \"C\" __global__ void tierfft_cluster_probe() {}\n";
        let cubin = nvrtc::compile(source, arch)?;
        let module = ctx
            .load_module(cudarc::nvrtc::Ptx::from_binary(cubin.to_vec()))
            .map_err(gpu_err("loading the cluster probe"))?;
        let func = module
            .load_function("tierfft_cluster_probe")
            .map_err(gpu_err("finding the cluster probe"))?;
        let shared = limits.workgroup_memory as u32;
        // Sizes past the portable 8 too, where the device has them.
        func.set_attribute(
            cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
            1,
        )
        .map_err(gpu_err("allowing non-portable cluster sizes on the probe"))?;
        func.set_attribute(
            cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            shared as i32,
        )
        .map_err(gpu_err("raising the probe's shared-memory limit"))?;
        let cfg = cudarc::driver::LaunchConfig {
            grid_dim: (2 * crate::plan::MAX_CLUSTER as u32, 1, 1),
            block_dim: (limits.max_threads as u32, 1, 1),
            shared_mem_bytes: shared,
        };
        func.occupancy_max_potential_cluster_size(cfg, stream)
            .map_err(gpu_err("asking the cluster size"))
    };
    probe().map_or(0, |c| c as usize)
}

impl CudaDevice {
    /// CUDA GPUs this process sees (after `CUDA_VISIBLE_DEVICES`); 0 without a driver.
    pub fn count() -> Result<usize> {
        if !driver_available() {
            return Ok(0);
        }
        let count = CudaContext::device_count().map_err(gpu_err("counting CUDA devices"))?;
        Ok(count.max(0) as usize)
    }

    /// Opens GPU `ordinal` (0 for the first).
    pub fn open(ordinal: usize) -> Result<CudaDevice> {
        if !driver_available() {
            return Err(Error::NoDevice(
                "no CUDA driver (libcuda) on this machine".into(),
            ));
        }
        let count = CudaContext::device_count().map_err(gpu_err("counting CUDA devices"))?;
        if ordinal >= count.max(0) as usize {
            return Err(Error::NoDevice(format!(
                "CUDA device {ordinal} asked for; this machine has {count} (ordinals from 0)"
            )));
        }
        let ctx = CudaContext::new(ordinal).map_err(gpu_err("opening the CUDA device"))?;
        // SAFETY: this context object is tierfft's own, and its work is ordered on one
        // stream (the side streams of all-to-alls are made without cudarc's multi-stream
        // mode), so the two events cudarc makes for every array are never recorded nor waited
        // on: without them, making or lending an array creates and destroys no events (two
        // of each per array, on every call that lends the caller's arrays).
        unsafe { ctx.disable_event_tracking() };
        CudaDevice::on_stream(ctx.default_stream())
    }

    /// The device of `stream`'s context, with every transform, copy and allocation queued
    /// on `stream`: a caller's own stream, so that tierfft's work orders with theirs without
    /// synchronising.
    pub fn on_stream(stream: Arc<CudaStream>) -> Result<CudaDevice> {
        if !nvrtc::available() {
            return Err(Error::NoDevice(
                "the CUDA driver is present but libnvrtc is not; install the CUDA toolkit's NVRTC"
                    .into(),
            ));
        }
        let ctx = stream.context().clone();
        let attr = |a: A| {
            ctx.attribute(a)
                .map(|v| v.max(0) as usize)
                .map_err(gpu_err("reading a device attribute"))
        };
        let (major, minor) = (
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        let name = ctx.name().map_err(gpu_err("reading the device name"))?;
        let total = ctx
            .total_mem()
            .map_err(gpu_err("reading the device memory"))? as u64;
        // Kernels index with 32-bit integers: keep one launch under 2^30 points (8 GiB).
        let max_binding = total.min(8 << 30);
        let l2_bytes = attr(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?;
        let limits = DeviceLimits {
            name: name.clone(),
            workgroup_memory: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
            max_threads: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            subgroup_size: attr(A::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            max_binding,
            max_buffer: total,
            max_groups_per_dim: attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?.min(u32::MAX as usize)
                as u32,
            binding_alignment: 256,
            transaction_bytes: 32,
            max_points_per_thread: 16,
            registers_per_workgroup: attr(A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)?,
            l2_bytes,
            max_chain_points: crate::plan::CUDA_MAX_CHAIN_POINTS,
            async_copy: major >= 8,
            lane_sums: true,
            workgroups_wait: true,
            max_cluster_blocks: 0,
            compute_units: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            target_threads: crate::plan::TARGET_THREADS,
            exchange: None,
            // Every complex exchange of a line the registers hold fits at once.
            exchange_rounds: 1,
            shader_f64: true,
            // Half-precision arithmetic from sm_53.
            shader_f16: (major, minor) >= (5, 3),
        };
        let limits = DeviceLimits {
            max_cluster_blocks: match attr(A::CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH)? {
                0 => 0,
                _ => cluster_limit(&ctx, &stream, &limits, &format!("sm_{major}{minor}")),
            },
            ..limits
        };
        Ok(CudaDevice {
            sm: occupancy::SmLimits::read(attr)?,
            l2_bytes,
            ctx,
            stream,
            limits,
            arch: format!("sm_{major}{minor}"),
            name,
            staging: transfer::StagingSlot::default(),
        })
    }

    /// Device name and API, e.g. `NVIDIA H100 80GB HBM3 (CUDA sm_90)`.
    pub fn name(&self) -> String {
        format!("{} (CUDA {})", self.name, self.arch)
    }

    /// The CUDA version the driver supports and the NVRTC version that compiles the kernels
    /// (`CUDA 13.0, NVRTC 13.0`), each left out where it cannot be read.
    pub fn driver(&self) -> String {
        let mut v: std::ffi::c_int = 0;
        // SAFETY: a plain out-parameter; the driver library is loaded (the context exists).
        let cuda = match unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut v) }.result() {
            Ok(()) => format!("CUDA {}.{}", v / 1000, (v % 1000) / 10),
            Err(_) => "CUDA".into(),
        };
        match nvrtc::version() {
            Ok((major, minor)) => format!("{cuda}, NVRTC {major}.{minor}"),
            Err(_) => cuda,
        }
    }

    /// The limits the planner uses.
    pub fn limits(&self) -> &DeviceLimits {
        &self.limits
    }

    /// The architecture NVRTC compiles for, e.g. `sm_90`.
    pub fn arch(&self) -> &str {
        &self.arch
    }

    /// Device memory free now, bytes (the driver's count, for this process and others).
    pub fn free_memory(&self) -> Result<u64> {
        let (free, _total) = self
            .ctx
            .mem_get_info()
            .map_err(gpu_err("reading the free device memory"))?;
        Ok(free as u64)
    }

    /// `floats` f32 of device memory on this device's stream, zeroed or not. Out of memory is
    /// [`Error::OutOfMemory`] with the bytes asked and the bytes free (read only then, so
    /// that allocations that succeed cost no extra driver call).
    ///
    /// # Safety
    /// With `zeroed` false the memory holds whatever it held: write it before reading it.
    pub unsafe fn alloc_f32(&self, floats: usize, zeroed: bool) -> Result<CudaSlice<f32>> {
        let made = match zeroed {
            true => self.stream.alloc_zeros::<f32>(floats),
            // SAFETY: the caller writes it before reading (this function's contract).
            false => unsafe { self.stream.alloc::<f32>(floats) },
        };
        made.map_err(|e| match driver_error("allocating device memory", e) {
            Error::OutOfMemory { what, source, .. } => Error::OutOfMemory {
                what: format!("{what} on {}", self.name),
                requested: Some(4 * floats as u64),
                free: self.free_memory().ok(),
                source,
            },
            other => other,
        })
    }

    /// Peak device-memory bandwidth, bytes per second: two transfers a clock of the memory
    /// clock over the bus width, as the driver reports them.
    pub fn memory_bandwidth(&self) -> Result<f64> {
        let attr = |a: A| {
            self.ctx
                .attribute(a)
                .map(|v| v.max(0) as f64)
                .map_err(gpu_err("reading a device attribute"))
        };
        let khz = attr(A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)?;
        let bits = attr(A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)?;
        Ok(2.0 * khz * 1e3 * bits / 8.0)
    }

    /// The CUDA context of this GPU.
    pub(crate) fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream every transform runs on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cudarc::driver::sys::CUresult as R;
    use std::error::Error as _;

    /// Driver errors become the variant a caller can act on, the driver's error kept.
    #[test]
    fn driver_errors_keep_their_kind_and_source() {
        let err = |code| gpu_err("launching")(DriverError(code));
        assert!(matches!(
            err(R::CUDA_ERROR_OUT_OF_MEMORY),
            Error::OutOfMemory { .. }
        ));
        let lost = err(R::CUDA_ERROR_ILLEGAL_ADDRESS);
        assert!(matches!(lost, Error::DeviceLost { .. }));
        assert!(
            lost.to_string().contains("until this process exits"),
            "{lost}"
        );
        let other = err(R::CUDA_ERROR_INVALID_VALUE);
        assert!(matches!(other, Error::Gpu { .. }));
        for e in [lost, other] {
            let source = e.source().expect("the driver's error is kept");
            assert!(source.downcast_ref::<DriverError>().is_some());
        }
    }
}
