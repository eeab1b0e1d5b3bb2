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

use super::exchange::{Exchange, Gate, Pending, check_blocks, check_ranges};
use crate::backend::DeviceBuffer;
use crate::backend::copy::Rows;
use crate::backend::cuda::side::{SideStream, mark};
use crate::backend::cuda::{CudaDevice, CudaMemory, gpu_err};
use crate::error::{Error, Result};

/// What one rank posts for one all-to-all.
struct Post {
    device: Arc<CudaDevice>,
    /// The send array's first byte.
    send: sys::CUdeviceptr,
    /// What it sends each rank, as blocks of the send array (a contiguous range is one row).
    sends: Vec<Rows>,
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

    /// One all-to-all of `blocks` (what this rank sends, what it receives; or why they were
    /// refused). Every rank passes each barrier even when its own step failed, so that its
    /// error is returned here and the others fail at the same step instead of waiting.
    fn exchange(
        &mut self,
        send: &DeviceBuffer,
        blocks: Result<(Vec<Rows>, Vec<Rows>)>,
        recv: &mut DeviceBuffer,
    ) -> Result<Pending> {
        let (posted, recvs) = match blocks {
            Ok((sends, recvs)) => (self.post(send, &sends), recvs),
            Err(e) => (Err(e), Vec::new()),
        };
        self.board.gate.wait()?;
        let copied = posted.and_then(|()| self.copy_in(recv, &recvs));
        self.board.gate.wait()?;
        let events = copied.and_then(|()| self.copies());
        // Every rank has read the posts; each clears its own for the next all-to-all.
        self.board.gate.wait()?;
        if let Ok(mut posts) = self.board.posts.lock() {
            posts[self.rank] = None;
        }
        Ok(Pending::after(self.device.stream().clone(), events?))
    }

    /// The GPU this rank's arrays are on.
    pub fn device(&self) -> &Arc<CudaDevice> {
        &self.device
    }

    /// Step 1: posts this rank's blocks.
    fn post(&self, send: &DeviceBuffer, sends: &[Rows]) -> Result<()> {
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
    fn copy_in(&self, recv: &mut DeviceBuffer, recvs: &[Rows]) -> Result<()> {
        let slice =
            CudaMemory::of_mut(&mut recv.held, &self.device).ok_or_else(|| self.foreign())?;
        let (recv_ptr, _) = slice.device_ptr(self.side.stream());
        let mut posts = self.board.posts.lock().map_err(|_| poisoned())?;
        let me = self.rank;
        let stream = self.side.stream();
        for (q, into) in recvs.iter().enumerate() {
            let post = posts[q].as_ref().ok_or_else(|| {
                Error::gpu(format!(
                    "rank {q} failed before an all-to-all with rank {me}"
                ))
            })?;
            stream
                .wait(&post.ready)
                .map_err(gpu_err("ordering peer copies after the peers' work"))?;
            if q == me || into.is_empty() {
                continue;
            }
            let from = post.sends.get(me).copied().unwrap_or_default();
            if (from.rows, from.row_len) != (into.rows, into.row_len) {
                return Err(Error::InvalidSpec(format!(
                    "rank {me} expected {} rows of {} elements from rank {q}, which sends it \
                     {} of {}",
                    into.rows, into.row_len, from.rows, from.row_len
                )));
            }
            let (src, dst) = (
                post.send + (COMPLEX * from.src) as u64,
                recv_ptr + (COMPLEX * into.dst) as u64,
            );
            // SAFETY: both blocks were checked against their arrays (`check_blocks` on each
            // rank), which stay allocated until the copies have run (`Exchange::start`).
            unsafe {
                match into.rows {
                    1 => result::memcpy_peer_async(
                        self.device.context().cu_ctx(),
                        dst,
                        post.device.context().cu_ctx(),
                        src,
                        COMPLEX * into.row_len,
                        stream.cu_stream(),
                    ),
                    _ => copy_block(src, from.src_pitch, dst, into, stream.cu_stream()),
                }
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

/// Bytes of a complex f32 element.
const COMPLEX: usize = 8;

/// A contiguous range as a block of one row, read (`src`) and written (`dst`) there.
fn one_row(range: &Range<usize>) -> Rows {
    Rows {
        rows: 1,
        row_len: range.len(),
        src: range.start,
        src_pitch: range.len(),
        dst: range.start,
        dst_pitch: range.len(),
    }
}

/// Queues a 2-D copy of `into.rows` rows of `into.row_len` elements from `src` (rows
/// `src_pitch` elements apart) to `dst` (rows `into.dst_pitch` apart), on any GPU each: the
/// driver finds where each lies in the unified address space.
///
/// # Safety
/// Both blocks lie inside live allocations.
unsafe fn copy_block(
    src: sys::CUdeviceptr,
    src_pitch: usize,
    dst: sys::CUdeviceptr,
    into: &Rows,
    stream: sys::CUstream,
) -> std::result::Result<(), cudarc::driver::DriverError> {
    use sys::CUmemorytype::CU_MEMORYTYPE_UNIFIED;
    let copy = sys::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: CU_MEMORYTYPE_UNIFIED,
        srcHost: std::ptr::null(),
        srcDevice: src,
        srcArray: std::ptr::null_mut(),
        srcPitch: COMPLEX * src_pitch,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: CU_MEMORYTYPE_UNIFIED,
        dstHost: std::ptr::null_mut(),
        dstDevice: dst,
        dstArray: std::ptr::null_mut(),
        dstPitch: COMPLEX * into.dst_pitch,
        WidthInBytes: COMPLEX * into.row_len,
        Height: into.rows,
    };
    // SAFETY: the caller's contract; the descriptor lives through the call.
    unsafe { sys::cuMemcpy2DAsync_v2(&copy, stream) }.result()
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
        let checked = check_ranges(self.ranks(), (send.len(), sends), (recv.len(), recvs));
        let blocks = |ranges: &[Range<usize>]| ranges.iter().map(one_row).collect::<Vec<_>>();
        self.exchange(send, checked.map(|()| (blocks(sends), blocks(recvs))), recv)
    }

    fn moves_blocks(&self) -> bool {
        true
    }

    unsafe fn start_blocks(
        &mut self,
        send: &DeviceBuffer,
        sends: &[Rows],
        recv: &mut DeviceBuffer,
        recvs: &[Rows],
    ) -> Result<Pending> {
        let n = self.ranks();
        let checked = check_blocks(n, send.len(), sends, true)
            .and_then(|()| check_blocks(n, recv.len(), recvs, false));
        self.exchange(
            send,
            checked.map(|()| (sends.to_vec(), recvs.to_vec())),
            recv,
        )
    }
}
