//! Copies between the host's ordinary (pageable) memory and the GPU through pinned staging
//! buffers: the GPU's DMA engine reads and writes only page-locked memory, so a copy from
//! pageable memory is staged by the driver, one small buffer at a time, at a few GB/s. Here
//! two 16 MiB pinned buffers take turns: while the DMA engine moves one, several threads copy
//! the next part of the caller's array into (or out of) the other.

use std::sync::{Mutex, MutexGuard};

use cudarc::driver::{CudaEvent, CudaSlice, DevicePtr, DevicePtrMut, PinnedHostSlice, result};

use super::{CudaDevice, gpu_err, view, view_mut};
use crate::error::{Error, Result};

/// f32 values per staging buffer (16 MiB): large enough that a part's fixed costs are small
/// against its copy, small enough that pinning the two buffers on first use is quick.
const STAGE_FLOATS: usize = 4 << 20;
/// Copies below this many f32 values (4 MiB) go directly: the driver's own staging is as
/// fast there (`bench --transfers`).
const DIRECT_FLOATS: usize = 1 << 20;
/// Parts are at least this many f32 values (1 MiB), and a copy of fewer than four whole
/// buffers is cut into four parts, so that copying and DMA overlap.
const MIN_PART_FLOATS: usize = 1 << 18;
/// Each copying task takes at least this many f32 values (256 KiB).
const MIN_FLOATS_PER_TASK: usize = 1 << 16;

/// The two pinned buffers and, per buffer, the event recorded after the last DMA copy that
/// used it.
pub(crate) struct Staging {
    buffers: [PinnedHostSlice<f32>; 2],
    done: [CudaEvent; 2],
}

/// A device's staging buffers, made on first use.
#[derive(Default)]
pub(crate) struct StagingSlot(Mutex<Option<Staging>>);

impl StagingSlot {
    fn get(&self, dev: &CudaDevice) -> Result<MutexGuard<'_, Option<Staging>>> {
        let mut slot = self
            .0
            .lock()
            .map_err(|_| Error::gpu("a copy panicked while holding the staging buffers"))?;
        if slot.is_none() {
            let ctx = dev.context();
            let pinned = || {
                // SAFETY: the buffers are only read after a copy has filled them, and the
                // portable (not write-combined) kind is read back quickly by the CPU.
                unsafe { ctx.alloc_pinned_with_flags::<f32>(STAGE_FLOATS, 0) }
                    .map_err(gpu_err("allocating pinned staging memory"))
            };
            let event = || {
                ctx.new_event(None)
                    .map_err(gpu_err("creating a staging event"))
            };
            *slot = Some(Staging {
                buffers: [pinned()?, pinned()?],
                done: [event()?, event()?],
            });
        }
        Ok(slot)
    }
}

/// Threads that copy between the caller's memory and a staging buffer: rayon's pool, one
/// per CPU this process may use (on the H100 machine 16 threads copy at 41–46 GB/s, 8 at
/// 33–34: scripts/memcpy-scaling.py).
pub(crate) fn copy_threads() -> usize {
    rayon::current_num_threads()
}

/// Copies `src` into `dst` on rayon's pool, a task per thread.
fn parallel_copy(src: &[f32], dst: &mut [f32]) {
    use rayon::prelude::*;
    let per = src.len().div_ceil(copy_threads()).max(MIN_FLOATS_PER_TASK);
    dst.par_chunks_mut(per)
        .zip(src.par_chunks(per))
        .for_each(|(into, from)| into.copy_from_slice(from));
}

/// f32 values per part of a staged copy of `len` values.
fn part_floats(len: usize) -> usize {
    (len / 4).clamp(MIN_PART_FLOATS, STAGE_FLOATS)
}

impl CudaDevice {
    /// Makes the staging buffers now (the first copy makes them otherwise).
    pub(crate) fn prepare_transfers(&self) -> Result<()> {
        self.staging.get(self).map(drop)
    }

    /// Copies host `src` into the start of `dst`, queued on the device's stream: returns
    /// once `src` may be changed (the last part may still be on its way to the GPU; work
    /// queued later on the stream sees it).
    pub(crate) fn write_from_host(&self, src: &[f32], dst: &mut CudaSlice<f32>) -> Result<()> {
        if src.len() > dst.len() {
            return Err(Error::InvalidSpec(format!(
                "copying {} values into a device array of {}",
                src.len(),
                dst.len()
            )));
        }
        if src.len() < DIRECT_FLOATS {
            return self
                .stream
                .memcpy_htod(src, &mut view_mut(dst, 0..src.len(), "the upload")?)
                .map_err(gpu_err("uploading"));
        }
        let mut slot = self.staging.get(self)?;
        let staging = slot
            .as_mut()
            .ok_or_else(|| Error::gpu("the staging buffers were not made"))?;
        self.ctx
            .bind_to_thread()
            .map_err(gpu_err("binding the GPU to this thread"))?;
        let (base, _written) = dst.device_ptr_mut(&self.stream);
        let per = part_floats(src.len());
        for (k, part) in src.chunks(per).enumerate() {
            let i = k % 2;
            // The buffer's previous copy to the GPU has finished with it.
            staging.done[i]
                .synchronize()
                .map_err(gpu_err("waiting for a staging buffer"))?;
            let buffer = &mut staging.buffers[i]
                .as_mut_slice()
                .map_err(gpu_err("staging"))?[..part.len()];
            parallel_copy(part, buffer);
            // SAFETY: `buffer` is pinned and stays untouched until `done[i]` has passed;
            // the destination range lies inside `dst`, which the guard keeps alive.
            unsafe {
                result::memcpy_htod_async(
                    base + (4 * k * per) as u64,
                    buffer,
                    self.stream.cu_stream(),
                )
            }
            .map_err(gpu_err("uploading"))?;
            staging.done[i]
                .record(&self.stream)
                .map_err(gpu_err("recording a staging event"))?;
        }
        Ok(())
    }

    /// Copies the start of `src` into host `dst` after the work queued on the device's stream
    /// so far; returns when `dst` holds it.
    pub(crate) fn read_to_host(&self, src: &CudaSlice<f32>, dst: &mut [f32]) -> Result<()> {
        if dst.len() > src.len() {
            return Err(Error::InvalidSpec(format!(
                "reading {} values from a device array of {}",
                dst.len(),
                src.len()
            )));
        }
        if dst.len() < DIRECT_FLOATS {
            self.stream
                .memcpy_dtoh(&view(src, 0..dst.len(), "the download")?, dst)
                .map_err(gpu_err("downloading"))?;
            return self.stream.synchronize().map_err(gpu_err("downloading"));
        }
        let mut slot = self.staging.get(self)?;
        let staging = slot
            .as_mut()
            .ok_or_else(|| Error::gpu("the staging buffers were not made"))?;
        self.ctx
            .bind_to_thread()
            .map_err(gpu_err("binding the GPU to this thread"))?;
        let (base, _read) = src.device_ptr(&self.stream);
        let total = dst.len();
        let per = part_floats(total);
        let parts = total.div_ceil(per);
        let len = |k: usize| per.min(total - k * per);
        // Part k goes into buffer k % 2: two parts in flight, the CPU copying out one while
        // the DMA engine fills the other.
        let fetch = |staging: &mut Staging, k: usize| -> Result<()> {
            let i = k % 2;
            let buffer = &mut staging.buffers[i]
                .as_mut_slice()
                .map_err(gpu_err("staging"))?[..len(k)];
            // SAFETY: pinned `buffer` is read only after `done[i]` has passed; the source
            // range lies inside `src`, which the guard keeps alive.
            unsafe {
                result::memcpy_dtoh_async(
                    buffer,
                    base + (4 * k * per) as u64,
                    self.stream.cu_stream(),
                )
            }
            .map_err(gpu_err("downloading"))?;
            staging.done[i]
                .record(&self.stream)
                .map_err(gpu_err("recording a staging event"))
        };
        for k in 0..parts.min(2) {
            fetch(staging, k)?;
        }
        for (k, part) in dst.chunks_mut(per).enumerate() {
            let i = k % 2;
            staging.done[i]
                .synchronize()
                .map_err(gpu_err("downloading"))?;
            parallel_copy(
                &staging.buffers[i].as_slice().map_err(gpu_err("staging"))?[..part.len()],
                part,
            );
            if k + 2 < parts {
                fetch(staging, k + 2)?;
            }
        }
        Ok(())
    }
}
