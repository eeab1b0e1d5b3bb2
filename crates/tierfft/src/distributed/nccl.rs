//! [`Exchange`] over NCCL: one communicator per GPU, the all-to-all as `ncclSend` and
//! `ncclRecv` to every peer in one group, on a stream of its own beside the one the
//! transforms run on, ordered after them and before the work that needs it by events (no
//! host wait), so that an all-to-all started with [`Exchange::start`] runs while the next
//! part is transformed. libnccl is loaded at run time like the other CUDA libraries: a
//! machine without it gets an error, not a crash.

use std::ops::Range;
use std::sync::Arc;

use cudarc::nccl::{Comm, Id, group_end, group_start};

use super::exchange::{Exchange, Pending, check_ranges};
use crate::backend::DeviceBuffer;
use crate::backend::buffer::Held;
use crate::backend::cuda::side::SideStream;
use crate::backend::cuda::{CudaDevice, CudaMemory};
use crate::error::{Error, Result};

/// True when libnccl can be loaded (cudarc looks for `libnccl.so` and versioned names; the
/// pip wheel `nvidia-nccl-cu13` ships `libnccl.so.2`, which needs a `libnccl.so` link on
/// `LD_LIBRARY_PATH`).
pub fn nccl_available() -> bool {
    // SAFETY: only tries to dlopen the library under cudarc's candidate names.
    unsafe { cudarc::nccl::sys::is_culib_present() }
}

fn nccl_err(what: &str) -> impl Fn(cudarc::nccl::result::NcclError) -> Error + '_ {
    move |e| Error::gpu(format!("NCCL {what}: {e:?}"))
}

fn no_nccl() -> Error {
    Error::NoDevice(
        "libnccl could not be loaded: install NCCL (or the nvidia-nccl-cu13 wheel) and put a \
         directory holding libnccl.so on LD_LIBRARY_PATH"
            .into(),
    )
}

/// A new NCCL unique id for a group of ranks in several processes: made by one of them
/// (rank 0, say), sent to the others by the caller's own means (MPI, a file, a socket), and
/// given by every rank to [`NcclExchange::from_id`].
pub fn nccl_unique_id() -> Result<[u8; 128]> {
    if !nccl_available() {
        return Err(no_nccl());
    }
    let id = Id::new().map_err(nccl_err("making a unique id"))?;
    Ok(id.internal().map(|c| c as u8))
}

/// One GPU's end of an NCCL all-to-all.
pub struct NcclExchange {
    // Dropped before the stream it runs on.
    comm: Comm,
    side: SideStream,
    device: Arc<CudaDevice>,
}

// SAFETY: an NCCL communicator is not tied to the thread that made it; it must not be used
// by two threads at once, which `Exchange::all_to_all` taking `&mut self` rules out.
unsafe impl Send for NcclExchange {}

impl NcclExchange {
    /// One communicator per device (`ncclCommInitAll`), rank `i` on `devices[i]`, each on
    /// a stream of its own beside the one that device's transforms use. The devices must be
    /// distinct GPUs.
    pub fn group(devices: &[Arc<CudaDevice>]) -> Result<Vec<NcclExchange>> {
        if !nccl_available() {
            return Err(no_nccl());
        }
        let sides = devices
            .iter()
            .map(|d| SideStream::new(d))
            .collect::<Result<Vec<_>>>()?;
        let streams = sides.iter().map(|s| s.stream().clone()).collect();
        let comms = Comm::from_devices(streams).map_err(nccl_err("making the communicators"))?;
        Ok(comms
            .into_iter()
            .zip(sides)
            .zip(devices)
            .map(|((comm, side), device)| NcclExchange {
                comm,
                side,
                device: device.clone(),
            })
            .collect())
    }

    /// Rank `rank` of `ranks` (one per process, or per thread) on `device`, joining the
    /// group of `id` ([`nccl_unique_id`]); returns once every rank has joined.
    pub fn from_id(
        device: Arc<CudaDevice>,
        rank: usize,
        ranks: usize,
        id: &[u8; 128],
    ) -> Result<NcclExchange> {
        if !nccl_available() {
            return Err(no_nccl());
        }
        if rank >= ranks || i32::try_from(ranks).is_err() {
            return Err(Error::InvalidSpec(format!(
                "rank {rank} of {ranks}: ranks are 0 .. ranks - 1, at most 2^31 - 1 of them"
            )));
        }
        let side = SideStream::new(&device)?;
        let id = Id::uninit(id.map(|b| b as std::ffi::c_char));
        let comm = Comm::from_rank(side.stream().clone(), rank, ranks, id)
            .map_err(nccl_err("joining the group"))?;
        Ok(NcclExchange { comm, side, device })
    }

    /// The GPU this rank's messages leave from.
    pub fn device(&self) -> &Arc<CudaDevice> {
        &self.device
    }

    /// The message calls of one all-to-all; the caller brackets them in a group.
    fn post(
        &self,
        send: &Held,
        sends: &[Range<usize>],
        recv: &mut Held,
        recvs: &[Range<usize>],
    ) -> Result<()> {
        let (Some(from), Some(into)) = (
            CudaMemory::of(send, &self.device),
            CudaMemory::of_mut(recv, &self.device),
        ) else {
            return Err(Error::InvalidSpec(format!(
                "an NCCL all-to-all on '{}' takes buffers on that GPU",
                self.device.name()
            )));
        };
        let me = self.comm.rank();
        for (p, range) in sends.iter().enumerate() {
            if p != me && !range.is_empty() {
                let view = from.slice(2 * range.start..2 * range.end);
                self.comm
                    .send(&view, p as i32)
                    .map_err(nccl_err("sending"))?;
            }
        }
        for (q, range) in recvs.iter().enumerate() {
            if q != me && !range.is_empty() {
                let mut view = into.slice_mut(2 * range.start..2 * range.end);
                self.comm
                    .recv(&mut view, q as i32)
                    .map_err(nccl_err("receiving"))?;
            }
        }
        Ok(())
    }
}

impl Exchange for NcclExchange {
    fn rank(&self) -> usize {
        self.comm.rank()
    }

    fn link(&self) -> &'static str {
        "NCCL"
    }

    fn ranks(&self) -> usize {
        self.comm.world_size()
    }

    fn overlaps(&self) -> bool {
        true
    }

    fn all_to_all(
        &mut self,
        send: &DeviceBuffer,
        sends: &[Range<usize>],
        recv: &mut DeviceBuffer,
        recvs: &[Range<usize>],
    ) -> Result<()> {
        // SAFETY: joined at once, before the caller can touch either buffer.
        unsafe { self.start(send, sends, recv, recvs) }?.join()
    }

    unsafe fn start(
        &mut self,
        send: &DeviceBuffer,
        sends: &[Range<usize>],
        recv: &mut DeviceBuffer,
        recvs: &[Range<usize>],
    ) -> Result<Pending> {
        check_ranges(self.ranks(), (send.len(), sends), (recv.len(), recvs))?;
        let compute = self.device.stream();
        self.side.after(compute)?;
        group_start().map_err(nccl_err("starting a group"))?;
        // The group is closed even when a call in it failed.
        let posted = self.post(&send.held, sends, &mut recv.held, recvs);
        let ended = group_end().map_err(nccl_err("running the all-to-all"));
        posted.and(ended.map(|_| ()))?;
        Ok(Pending::after(
            compute.clone(),
            vec![Arc::new(self.side.mark()?)],
        ))
    }
}
