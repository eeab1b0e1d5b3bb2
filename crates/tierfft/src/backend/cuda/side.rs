//! A stream beside a device's own, for work that runs while the transforms do (the
//! all-to-alls of distributed transforms), and the events that order the two.

use std::sync::Arc;

use cudarc::driver::sys::{CUevent_flags, CUstream};
use cudarc::driver::{CudaEvent, CudaStream, result};

use super::{CudaDevice, gpu_err};
use crate::error::Result;

/// A non-blocking stream of tierfft's own on one device. It is made through the driver, not
/// through cudarc's `new_stream`: that one puts the context in cudarc's multi-stream mode,
/// where every later use of every array records an event, which tierfft (ordering its work
/// on one stream) never needs.
pub(crate) struct SideStream {
    stream: Arc<CudaStream>,
    raw: CUstream,
}

// SAFETY: a CUDA stream may be used from any thread; `raw` is only destroyed in `drop`.
unsafe impl Send for SideStream {}
unsafe impl Sync for SideStream {}

impl SideStream {
    /// A new stream on `device`.
    pub(crate) fn new(device: &CudaDevice) -> Result<SideStream> {
        let ctx = device.context();
        ctx.bind_to_thread()
            .map_err(gpu_err("binding the GPU to this thread"))?;
        let raw = result::stream::create(result::stream::StreamKind::NonBlocking)
            .map_err(gpu_err("making a stream for all-to-alls"))?;
        // SAFETY: `raw` belongs to this context and lives until `drop`, after every user of
        // the wrapper (the owner drops the wrapper's users first).
        let stream = unsafe { ctx.wrap_borrowed_stream(raw) };
        Ok(SideStream { stream, raw })
    }

    /// The stream, for calls that take cudarc's.
    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Makes this stream's later work wait for the work queued on `other` so far.
    pub(crate) fn after(&self, other: &CudaStream) -> Result<()> {
        self.stream
            .wait(&mark(other)?)
            .map_err(gpu_err("ordering an all-to-all after the transforms"))
    }

    /// An event that marks the work queued on this stream so far.
    pub(crate) fn mark(&self) -> Result<CudaEvent> {
        mark(&self.stream)
    }
}

/// An event (without timing) that marks the work queued on `stream` so far.
pub(crate) fn mark(stream: &CudaStream) -> Result<CudaEvent> {
    stream
        .record_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
        .map_err(gpu_err("recording an event"))
}

impl Drop for SideStream {
    fn drop(&mut self) {
        if self.stream.context().bind_to_thread().is_ok() {
            // SAFETY: made in `new`, destroyed once; work queued on it still finishes.
            let _ = unsafe { result::stream::destroy(self.raw) };
        }
    }
}
