//! What every comparison shares: errors of the CUDA driver as tierfft's [`Error`], CUDA
//! events around work on a device's stream, and the CUDA device behind a [`Device`].

use std::sync::Arc;

use cudarc::driver::DriverError;
use cudarc::driver::sys::{CUevent_flags, CUresult};
use tierfft::backend::cuda::CudaDevice;
use tierfft::{Device, Error, Result};

/// A GPU failure with only a message (shown as `GPU error: <what>`).
pub(crate) fn gpu(what: impl Into<String>) -> Error {
    Error::Gpu {
        what: what.into(),
        source: None,
    }
}

/// A failure of a library call (NVML, say), its error kept as the source and quoted.
pub(crate) fn gpu_from(
    what: &str,
    source: impl std::error::Error + Send + Sync + 'static,
) -> Error {
    Error::Gpu {
        what: format!("{what}: {source}"),
        source: Some(Box::new(source)),
    }
}

/// A CUDA driver error as an [`Error`] saying what failed: out of memory as
/// [`Error::OutOfMemory`], anything else as [`Error::Gpu`]; the driver's error kept.
pub(crate) fn gpu_err(what: &str) -> impl Fn(DriverError) -> Error + '_ {
    move |e| {
        // The code's name, not DriverError's own text, which asks the driver library for it.
        let what = format!("{what}: {:?}", e.0);
        let source = Some(Box::new(e) as Box<dyn std::error::Error + Send + Sync>);
        match e.0 {
            CUresult::CUDA_ERROR_OUT_OF_MEMORY => Error::OutOfMemory {
                what,
                requested: None,
                free: None,
                source,
            },
            _ => Error::Gpu { what, source },
        }
    }
}

/// The CUDA device behind `device`, or an error saying what `what` needs.
pub(crate) fn cuda_of(device: &Device, what: &str) -> Result<Arc<CudaDevice>> {
    device.cuda_device().ok_or_else(|| {
        Error::InvalidSpec(format!(
            "{what} runs on CUDA devices; '{}' is not one",
            device.name()
        ))
    })
}

/// Times `reps` runs of `work` on `dev`'s stream, seconds each: GPU time between two CUDA
/// events recorded on the stream around the work, which must only queue (nothing waits
/// between the two events).
pub fn time_events(
    dev: &CudaDevice,
    reps: usize,
    mut work: impl FnMut() -> Result<()>,
) -> Result<Vec<f64>> {
    let timing = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let stream = dev.stream();
    let mut seconds = Vec::with_capacity(reps);
    for _ in 0..reps {
        let start = stream
            .record_event(timing)
            .map_err(gpu_err("recording an event"))?;
        work()?;
        let end = stream
            .record_event(timing)
            .map_err(gpu_err("recording an event"))?;
        end.synchronize().map_err(gpu_err("waiting for the GPU"))?;
        seconds.push(
            f64::from(
                start
                    .elapsed_ms(&end)
                    .map_err(gpu_err("reading an event"))?,
            ) * 1e-3,
        );
    }
    Ok(seconds)
}
