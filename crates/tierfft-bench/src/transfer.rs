//! Host-device copy speeds on a CUDA device (`tierfft bench --transfers`): tierfft's own
//! copies between ordinary host memory and device buffers ([`tierfft::DeviceBuffer::write`]
//! and [`tierfft::DeviceBuffer::read_into`], staged through pinned buffers) against the
//! driver's copies from the same pageable memory and DMA alone from pinned memory.

use cudarc::driver::{CudaSlice, HostSlice};
use tierfft::backend::median;
use tierfft::{Device, Result};

use crate::cuda::{cuda_of, gpu_err};

/// Host-device copy speeds measured on one device, GB/s (bytes moved over the median wall
/// clock of the repetitions, each waited for).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct TransferSpeeds {
    /// Bytes per copy.
    pub bytes: usize,
    /// Threads copying between the caller's memory and the staging buffers (rayon's
    /// global pool, which tierfft's copies run on).
    pub copy_threads: usize,
    /// tierfft's staged copies from ordinary (pageable) host memory, GB/s.
    pub staged_up_gbps: f64,
    /// tierfft's staged copies into ordinary (pageable) host memory, GB/s.
    pub staged_down_gbps: f64,
    /// The driver's own copies from the same pageable memory (what tierfft's copies were
    /// before staging), GB/s.
    pub pageable_up_gbps: f64,
    /// The driver's own copies into the same pageable memory, GB/s.
    pub pageable_down_gbps: f64,
    /// DMA alone, from pinned memory: the link's ceiling, GB/s.
    pub pinned_up_gbps: f64,
    /// DMA alone, into pinned memory, GB/s.
    pub pinned_down_gbps: f64,
}

/// Measures [`TransferSpeeds`] on `device` (a CUDA device) for copies of `floats` f32
/// values, `reps` times each.
pub fn transfer_speeds(device: &Device, floats: usize, reps: usize) -> Result<TransferSpeeds> {
    let dev = cuda_of(device, "measuring host-device copies")?;
    let stream = dev.stream();
    let gbps = |copy: &mut dyn FnMut() -> Result<()>| timed_gbps(floats, reps, copy);
    let mut host: Vec<f32> = (0..floats).map(|i| i as f32).collect();
    let mut buffer = device.zeros_of::<f32>(floats)?;
    let staged_up_gbps = gbps(&mut || {
        buffer.write(&host)?;
        device.synchronize()
    })?;
    let staged_down_gbps = gbps(&mut || buffer.read_into(&mut host))?;
    let mut raw = stream
        .alloc_zeros::<f32>(floats)
        .map_err(gpu_err("allocating device memory"))?;
    let (pageable_up_gbps, pageable_down_gbps) = driver_speeds(device, &mut host, &mut raw, reps)?;
    // SAFETY: written by the first download before it is read.
    let mut pinned = unsafe { stream.context().alloc_pinned_with_flags::<f32>(floats, 0) }
        .map_err(gpu_err("allocating pinned memory"))?;
    let (pinned_up_gbps, pinned_down_gbps) = driver_speeds(device, &mut pinned, &mut raw, reps)?;
    Ok(TransferSpeeds {
        bytes: 4 * floats,
        copy_threads: rayon::current_num_threads(),
        staged_up_gbps,
        staged_down_gbps,
        pageable_up_gbps,
        pageable_down_gbps,
        pinned_up_gbps,
        pinned_down_gbps,
    })
}

/// GB/s of `floats` f32 values moved by `copy` (each waited for): the median of `reps` runs
/// after one untimed.
fn timed_gbps(floats: usize, reps: usize, copy: &mut dyn FnMut() -> Result<()>) -> Result<f64> {
    copy()?;
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        let t = std::time::Instant::now();
        copy()?;
        times.push(t.elapsed().as_secs_f64());
    }
    Ok(4.0 * floats as f64 / median(&times) / 1e9)
}

/// The driver's own copies up and down between `host` (pageable or pinned) and `raw`,
/// GB/s each, `reps` timed runs each.
fn driver_speeds<H: HostSlice<f32> + ?Sized>(
    device: &Device,
    host: &mut H,
    raw: &mut CudaSlice<f32>,
    reps: usize,
) -> Result<(f64, f64)> {
    let dev = cuda_of(device, "measuring host-device copies")?;
    let stream = dev.stream();
    let floats = raw.len();
    let gbps = |copy: &mut dyn FnMut() -> Result<()>| timed_gbps(floats, reps, copy);
    let sync = || stream.synchronize().map_err(gpu_err("waiting for a copy"));
    let up = gbps(&mut || {
        stream
            .memcpy_htod(&*host, raw)
            .map_err(gpu_err("uploading"))?;
        sync()
    })?;
    let down = gbps(&mut || {
        stream
            .memcpy_dtoh(&*raw, host)
            .map_err(gpu_err("downloading"))?;
        sync()
    })?;
    Ok((up, down))
}
