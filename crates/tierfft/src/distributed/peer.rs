//! [`Exchange`] by peer copies between the GPUs of one process: each rank copies what its
//! peers send it straight from their arrays into its own (`cuMemcpyPeerAsync`, over NVLink
//! or PCIe where the GPUs can reach each other's memory, through the host where they
//! cannot), on a stream of its own beside the transforms. Ranks may share a GPU.
//!
//! One all-to-all, on every rank at once: each rank marks the end of the work queued so far
//! on its device (its packing) and posts where its blocks lie; once every rank has posted,
//! each waits (on the GPU) for its peers' marks and copies its blocks in, then marks the end
//! of its copies; once every rank has, each rank's later work waits for its own copies (it
//! reads what arrived) and for its peers' (they read its send array, which it must not
//! overwrite before). The host waits only for the other threads to post, never for a GPU.

use std::ops::Range;
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::{self, CUresult};
use cudarc::driver::{CudaEvent, DevicePtr, DevicePtrMut, result};

use super::exchange::{Exchange, Gate, Pending, check_ranges};
use crate::backend::DeviceBuffer;
use crate::backend::cuda::side::{SideStream, mark};
use crate::backend::cuda::{CudaDevice, CudaMemory, gpu_err};
use crate::error::{Error, Result};

/// What one rank posts for one all-to-all.
struct Post {
    device: Arc<CudaDevice>,
    /// The send array's first byte.
    send: sys::CUdeviceptr,
    sends: Vec<Range<usize>>,
    /// The end of the work queued before the all-to-all on the rank's device.
    ready: Arc<CudaEvent>,
    /// The end of the rank's copies, once queued.
    copied: Option<Arc<CudaEvent>>,
}

// SAFETY: the device pointer is a number the driver gives meaning to in any thread.
unsafe impl Send for Post {}

/// The posts of one group, and the barrier between its steps.
struct Board {
    ranks: usize,
    posts: Mutex<Vec<Option<Post>>>,
    gate: Gate,
}

/// One rank's end of an all-to-all by peer copies between GPUs of one process.
pub struct PeerExchange {
    rank: usize,
    device: Arc<CudaDevice>,
    side: SideStream,
    board: Arc<Board>,
}

fn poisoned() -> Error {
    Error::gpu("a rank panicked during an all-to-all")
}

impl PeerExchange {
    /// One exchange per device, rank `i` on `devices[i]` (a GPU may hold several ranks),
    /// each moved to the thread that runs its rank; every one must take part in every
    /// all-to-all. Where two GPUs can reach each other's memory, that access is turned on.
    pub fn group(devices: &[Arc<CudaDevice>]) -> Result<Vec<PeerExchange>> {
        for a in devices {
            for b in devices {
                enable_peer_access(a, b)?;
            }
        }
        let board = Arc::new(Board {
            ranks: devices.len(),
            posts: Mutex::new((0..devices.len()).map(|_| None).collect()),
            gate: Gate::new(devices.len()),
        });
        devices
            .iter()
            .enumerate()
            .map(|(rank, device)| {
                Ok(PeerExchange {
                    rank,
                    device: device.clone(),
                    side: SideStream::new(device)?,
                    board: board.clone(),
                })
            })
            .collect()
    }

    /// The GPU this rank's arrays are on.
    pub fn device(&self) -> &Arc<CudaDevice> {
        &self.device
    }

    /// Step 1: checks the buffers and posts this rank's blocks.
    fn post(&self, send: &DeviceBuffer, sends: &[Range<usize>]) -> Result<()> {
        let slice = CudaMemory::of(&send.held, &self.device).ok_or_else(|| self.foreign())?;
        let (send_ptr, _) = slice.device_ptr(self.side.stream());
        let ready = Arc::new(mark(self.device.stream())?);
        let mut posts = self.board.posts.lock().map_err(|_| poisoned())?;
        posts[self.rank] = Some(Post {
            device: self.device.clone(),
            send: send_ptr,
            sends: sends.to_vec(),
            ready,
            copied: None,
        });
        Ok(())
    }

    fn foreign(&self) -> Error {
        Error::InvalidSpec(format!(
            "a peer all-to-all on '{}' takes buffers on that GPU",
            self.device.name()
        ))
    }

    /// Step 2: queues the copies of every peer's block for this rank into `recv`, after
    /// the peers' (and this rank's) earlier work; posts their end.
    fn copy_in(&self, recv: &mut DeviceBuffer, recvs: &[Range<usize>]) -> Result<()> {
        let slice =
            CudaMemory::of_mut(&mut recv.held, &self.device).ok_or_else(|| self.foreign())?;
        let (recv_ptr, _) = slice.device_ptr(self.side.stream());
        let mut posts = self.board.posts.lock().map_err(|_| poisoned())?;
        let me = self.rank;
        let stream = self.side.stream();
        for (q, range) in recvs.iter().enumerate() {
            let post = posts[q].as_ref().ok_or_else(|| {
                Error::gpu(format!(
                    "rank {q} failed before an all-to-all with rank {me}"
                ))
            })?;
            stream
                .wait(&post.ready)
                .map_err(gpu_err("ordering peer copies after the peers' work"))?;
            if q == me || range.is_empty() {
                continue;
            }
            let from = post.sends.get(me).cloned().unwrap_or(0..0);
            if from.len() != range.len() {
                return Err(Error::InvalidSpec(format!(
                    "rank {me} expected {} elements from rank {q}, which sends it {}",
                    range.len(),
                    from.len()
                )));
            }
            // SAFETY: both ranges were checked against their arrays (`check_ranges` on each
            // rank), which stay allocated until the copies have run (`Exchange::start`).
            unsafe {
                result::memcpy_peer_async(
                    self.device.context().cu_ctx(),
                    recv_ptr + 8 * range.start as u64,
                    post.device.context().cu_ctx(),
                    post.send + 8 * from.start as u64,
                    8 * range.len(),
                    stream.cu_stream(),
                )
            }
            .map_err(gpu_err("copying a block from a peer GPU"))?;
        }
        let copied = Arc::new(self.side.mark()?);
        if let Some(post) = posts[me].as_mut() {
            post.copied = Some(copied);
        }
        Ok(())
    }

    /// Step 3: the end of this rank's copies and of every peer's (which read its array).
    fn copies(&self) -> Result<Vec<Arc<CudaEvent>>> {
        let posts = self.board.posts.lock().map_err(|_| poisoned())?;
        posts
            .iter()
            .enumerate()
            .map(|(q, post)| {
                post.as_ref().and_then(|p| p.copied.clone()).ok_or_else(|| {
                    Error::gpu(format!(
                        "rank {q} failed during an all-to-all with rank {}",
                        self.rank
                    ))
                })
            })
            .collect()
    }
}

/// Bytes a transfer of [`link_bandwidth`] moves (256 MiB: long enough that its fixed cost
/// is small).
const LINK_PROBE_BYTES: usize = 256 << 20;

/// The bandwidth of the link from `from` to `to`, bytes per second: the median of five
/// peer copies of 256 MiB into `to` (after one untimed), timed by events on `to`, with peer
/// access turned on where the GPUs allow it, as [`PeerExchange`] copies. On one GPU, the
/// bandwidth of a copy within its memory.
pub fn link_bandwidth(to: &Arc<CudaDevice>, from: &Arc<CudaDevice>) -> Result<f64> {
    enable_peer_access(to, from)?;
    let floats = LINK_PROBE_BYTES / 4;
    // SAFETY: the destination is only written, the source only read (values do not matter).
    let (mut dst, src) = unsafe { (to.alloc_f32(floats, false)?, from.alloc_f32(floats, false)?) };
    let stream = to.stream().clone();
    let (dst_ptr, _) = dst.device_ptr_mut(&stream);
    let (src_ptr, _) = src.device_ptr(&stream);
    let copy = || {
        // SAFETY: both arrays hold `LINK_PROBE_BYTES` and live until the copies are waited for.
        unsafe {
            result::memcpy_peer_async(
                to.context().cu_ctx(),
                dst_ptr,
                from.context().cu_ctx(),
                src_ptr,
                LINK_PROBE_BYTES,
                stream.cu_stream(),
            )
        }
        .map_err(gpu_err("copying between GPUs"))
    };
    copy()?;
    let seconds = crate::backend::cuda::time_events(to, 5, copy)?;
    Ok(LINK_PROBE_BYTES as f64 / crate::backend::median(&seconds))
}

/// Turns on `a`'s access to `b`'s memory where the two are distinct GPUs that allow it.
fn enable_peer_access(a: &CudaDevice, b: &CudaDevice) -> Result<()> {
    let (ca, cb) = (a.context(), b.context());
    if ca.cu_device() == cb.cu_device() {
        return Ok(());
    }
    let mut can: std::ffi::c_int = 0;
    // SAFETY: plain out-parameter; both devices exist.
    unsafe { sys::cuDeviceCanAccessPeer(&mut can, ca.cu_device(), cb.cu_device()) }
        .result()
        .map_err(gpu_err("asking whether two GPUs reach each other's memory"))?;
    if can == 0 {
        return Ok(());
    }
    ca.bind_to_thread()
        .map_err(gpu_err("binding the GPU to this thread"))?;
    // SAFETY: `a`'s context is current; `b`'s context lives as long as `b`.
    match unsafe { sys::cuCtxEnablePeerAccess(cb.cu_ctx(), 0) } {
        CUresult::CUDA_SUCCESS | CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => Ok(()),
        e => Err(gpu_err("turning on peer access between two GPUs")(
            cudarc::driver::DriverError(e),
        )),
    }
}

impl Exchange for PeerExchange {
    fn rank(&self) -> usize {
        self.rank
    }

    fn link(&self) -> &'static str {
        "peer copies"
    }

    fn ranks(&self) -> usize {
        self.board.ranks
    }

    fn overlaps(&self) -> bool {
        true
    }

    fn abort(&mut self) {
        self.board.gate.abort();
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
        // Every rank passes each barrier even when its own step failed, so that its error
        // is returned here and the others fail at the same step instead of waiting.
        let posted = check_ranges(self.ranks(), (send.len(), sends), (recv.len(), recvs))
            .and_then(|()| self.post(send, sends));
        self.board.gate.wait()?;
        let copied = posted.and_then(|()| self.copy_in(recv, recvs));
        self.board.gate.wait()?;
        let events = copied.and_then(|()| self.copies());
        // Every rank has read the posts; each clears its own for the next all-to-all.
        self.board.gate.wait()?;
        if let Ok(mut posts) = self.board.posts.lock() {
            posts[self.rank] = None;
        }
        Ok(Pending::after(self.device.stream().clone(), events?))
    }
}
