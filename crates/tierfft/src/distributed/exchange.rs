//! The all-to-all a distributed transform needs, behind one interface: [`Exchange`], with
//! NCCL's grouped sends and receives on GPUs ([`super::NcclExchange`]) and an in-process
//! exchange between ranks on the CPU ([`LocalExchange`]) that tests the same plans without
//! a GPU.

use std::ops::Range;
use std::sync::{Arc, Condvar, Mutex};

use crate::backend::DeviceBuffer;
use crate::backend::buffer::Held;
use crate::backend::copy::Rows;
use crate::error::{Error, Result};

/// One rank's end of an all-to-all between the ranks of a distributed transform: what
/// `ncclSend`/`ncclRecv` in one group do (every rank calls it at once).
pub trait Exchange: Send {
    /// This rank's index.
    fn rank(&self) -> usize;

    /// Ranks taking part.
    fn ranks(&self) -> usize;

    /// Sends `send[sends[p]]` to every rank `p` and receives `recv[recvs[q]]` from every rank
    /// `q` (ranges of complex elements; empty ones, and the rank's own, are skipped). On a
    /// GPU the messages are queued on the buffers' stream, after the work queued before.
    fn all_to_all(
        &mut self,
        send: &DeviceBuffer,
        sends: &[Range<usize>],
        recv: &mut DeviceBuffer,
        recvs: &[Range<usize>],
    ) -> Result<()>;

    /// What carries the messages, for printing plans ("NCCL", "peer copies", ...).
    fn link(&self) -> &'static str {
        "a caller's exchange"
    }

    /// True when [`Exchange::start`] lets the all-to-all run beside later work (the planner
    /// then cuts a slab's exchange into parts).
    fn overlaps(&self) -> bool {
        false
    }

    /// Queues the all-to-all of [`Exchange::all_to_all`] so that it may run beside the
    /// work queued after it on the buffers' stream (on a stream of its own, after the work
    /// queued before), until [`Exchange::join`] orders later work after it. An exchange
    /// that cannot overlap runs it here and returns a finished [`Pending`].
    ///
    /// # Safety
    /// Until the returned [`Pending`] is joined or dropped, the device may still read
    /// `send[sends[..]]` and write `recv[recvs[..]]`: work queued meanwhile must not write
    /// the one nor touch the other, and neither buffer may be freed (a [`Pending`] that is
    /// dropped joins itself; one that is leaked, with [`std::mem::forget`], never does).
    unsafe fn start(
        &mut self,
        send: &DeviceBuffer,
        sends: &[Range<usize>],
        recv: &mut DeviceBuffer,
        recvs: &[Range<usize>],
    ) -> Result<Pending> {
        self.all_to_all(send, sends, recv, recvs)
            .map(|()| Pending::done())
    }

    /// True when [`Exchange::start_blocks`] moves messages as 2-D blocks read and written in
    /// place (the planner then leaves out the packing copies: [`super::Slabs::part_in_place`]).
    fn moves_blocks(&self) -> bool {
        false
    }

    /// [`Exchange::start`] with each message a 2-D block on both ends: `sends[p]` read from
    /// `send` (its `rows`, `row_len`, `src`, `src_pitch`) for rank `p`, `recvs[q]` written
    /// into `recv` (at its `dst`, `dst_pitch`) from rank `q`, in complex elements
    /// ([`super::Blocks`]). An exchange that cannot ([`Exchange::moves_blocks`] false)
    /// returns an error.
    ///
    /// # Safety
    /// As [`Exchange::start`], for the blocks' elements.
    unsafe fn start_blocks(
        &mut self,
        send: &DeviceBuffer,
        sends: &[Rows],
        recv: &mut DeviceBuffer,
        recvs: &[Rows],
    ) -> Result<Pending> {
        let _ = (send, sends, recv, recvs);
        Err(Error::InvalidSpec(format!(
            "the exchange through {} moves contiguous messages, not blocks in place",
            self.link()
        )))
    }

    /// Orders the work queued from now on after the all-to-all `pending` started.
    fn join(&mut self, pending: Pending) -> Result<()> {
        pending.join()
    }

    /// Called when this rank fails and will not take part in the all-to-alls the others
    /// expect: an exchange that can (in-process ones) makes their waits return an error
    /// instead of blocking, and every later all-to-all of the group fails. NCCL cannot be
    /// woken this way: as in any NCCL program, peers of a rank that failed between two
    /// collectives wait for it.
    fn abort(&mut self) {}
}

/// An all-to-all [`Exchange::start`] queued and no one has joined yet: the event that marks
/// its end, and the stream that must wait for it. Dropped, it joins itself.
#[must_use = "a pending all-to-all must be joined before its buffers are used"]
pub struct Pending {
    #[cfg(feature = "cuda")]
    wait: Option<CudaWait>,
}

/// Work that a CUDA stream must wait for.
#[cfg(feature = "cuda")]
struct CudaWait {
    stream: std::sync::Arc<cudarc::driver::CudaStream>,
    events: Vec<std::sync::Arc<cudarc::driver::CudaEvent>>,
}

impl Pending {
    /// An all-to-all that has already been queued in order (nothing to wait for).
    pub fn done() -> Pending {
        Pending {
            #[cfg(feature = "cuda")]
            wait: None,
        }
    }

    /// An all-to-all whose end `events` mark; `stream`'s later work waits for them.
    #[cfg(feature = "cuda")]
    pub(crate) fn after(
        stream: std::sync::Arc<cudarc::driver::CudaStream>,
        events: Vec<std::sync::Arc<cudarc::driver::CudaEvent>>,
    ) -> Pending {
        Pending {
            wait: Some(CudaWait { stream, events }),
        }
    }

    /// Makes the waiting stream's later work wait for the all-to-all.
    pub fn join(mut self) -> Result<()> {
        self.wait_now()
    }

    fn wait_now(&mut self) -> Result<()> {
        #[cfg(feature = "cuda")]
        if let Some(w) = self.wait.take() {
            for event in &w.events {
                w.stream
                    .wait(event)
                    .map_err(crate::backend::cuda::gpu_err("waiting for an all-to-all"))?;
            }
        }
        Ok(())
    }
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        #[cfg(feature = "cuda")]
        let events = self.wait.as_ref().map_or(0, |w| w.events.len());
        #[cfg(not(feature = "cuda"))]
        let events = 0;
        f.debug_struct("Pending").field("events", &events).finish()
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        // Best effort: a stream that cannot be told to wait is broken already, and the
        // error shows on its next call.
        let _ = self.wait_now();
    }
}

/// The ranges of one all-to-all must name every rank and lie inside their buffers.
pub(crate) fn check_ranges(
    ranks: usize,
    (send_len, sends): (usize, &[Range<usize>]),
    (recv_len, recvs): (usize, &[Range<usize>]),
) -> Result<()> {
    if sends.len() != ranks || recvs.len() != ranks {
        return Err(Error::InvalidSpec(format!(
            "an all-to-all between {ranks} ranks takes one send and one receive range per rank \
             (got {} and {})",
            sends.len(),
            recvs.len()
        )));
    }
    let outside =
        |ranges: &[Range<usize>], len: usize| ranges.iter().any(|r| r.end > len || r.start > r.end);
    if outside(sends, send_len) || outside(recvs, recv_len) {
        return Err(Error::InvalidSpec(format!(
            "an all-to-all range lies outside its buffer ({send_len} elements to send from, \
             {recv_len} to receive into)"
        )));
    }
    Ok(())
}

/// The blocks of one all-to-all must name every rank, lie inside their buffers, and have
/// rows no longer than their pitch; `src` checks the read side, else the written side.
pub(crate) fn check_blocks(ranks: usize, len: usize, blocks: &[Rows], src: bool) -> Result<()> {
    if blocks.len() != ranks {
        return Err(Error::InvalidSpec(format!(
            "an all-to-all between {ranks} ranks takes one block per rank (got {})",
            blocks.len()
        )));
    }
    let fits = |b: &Rows| {
        let (start, pitch) = if src {
            (b.src, b.src_pitch)
        } else {
            (b.dst, b.dst_pitch)
        };
        b.rows == 0
            || b.row_len == 0
            || ((b.rows == 1 || b.row_len <= pitch)
                && start + (b.rows - 1) * pitch + b.row_len <= len)
    };
    match blocks.iter().find(|b| !fits(b)) {
        None => Ok(()),
        Some(b) => Err(Error::InvalidSpec(format!(
            "an all-to-all block {b:?} lies outside its buffer of {len} elements"
        ))),
    }
}

/// The element ranges of each row of a block: its read side (`src`) or written side.
pub(crate) fn block_rows(b: &Rows, src: bool) -> impl Iterator<Item = Range<usize>> + '_ {
    let (start, pitch) = if src {
        (b.src, b.src_pitch)
    } else {
        (b.dst, b.dst_pitch)
    };
    (0..b.rows).map(move |row| start + row * pitch..start + row * pitch + b.row_len)
}

/// Mailboxes shared by the ranks of one [`LocalExchange`] group: `slots[from · ranks + to]`.
struct Mailboxes {
    ranks: usize,
    slots: Mutex<Vec<Option<Vec<f32>>>>,
    gate: Gate,
}

/// A barrier a failing rank can break ([`Exchange::abort`]), so that the others get an error
/// instead of waiting for it forever.
pub(crate) struct Gate {
    ranks: usize,
    state: Mutex<GateState>,
    turn: Condvar,
}

struct GateState {
    waiting: usize,
    generation: u64,
    broken: bool,
}

fn broken() -> Error {
    Error::gpu("another rank of the exchange failed; plan the transform again")
}

impl Gate {
    pub(crate) fn new(ranks: usize) -> Gate {
        Gate {
            ranks,
            state: Mutex::new(GateState {
                waiting: 0,
                generation: 0,
                broken: false,
            }),
            turn: Condvar::new(),
        }
    }

    /// Waits until every rank has arrived, or the gate is broken.
    pub(crate) fn wait(&self) -> Result<()> {
        let mut s = self.state.lock().map_err(|_| broken())?;
        if s.broken {
            return Err(broken());
        }
        let generation = s.generation;
        s.waiting += 1;
        if s.waiting == self.ranks {
            s.waiting = 0;
            s.generation += 1;
            self.turn.notify_all();
            return Ok(());
        }
        while s.generation == generation && !s.broken {
            s = self.turn.wait(s).map_err(|_| broken())?;
        }
        match s.generation == generation {
            true => Err(broken()),
            false => Ok(()),
        }
    }

    pub(crate) fn abort(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.broken = true;
        }
        self.turn.notify_all();
    }
}

/// An all-to-all between ranks that are threads of one process, through host memory: each
/// rank posts its blocks, waits for every rank, then takes its own. For CPU ranks, and for
/// testing a plan's GPU steps with several ranks on one GPU (CUDA buffers are copied to the
/// host and back, so it is no measure of speed).
pub struct LocalExchange {
    rank: usize,
    shared: Arc<Mailboxes>,
}

impl LocalExchange {
    /// One exchange per rank of a group of `ranks`; each is moved to the thread that runs
    /// its rank, and all must take part in every all-to-all.
    pub fn group(ranks: usize) -> Vec<LocalExchange> {
        let shared = Arc::new(Mailboxes {
            ranks,
            slots: Mutex::new(vec![None; ranks * ranks]),
            gate: Gate::new(ranks),
        });
        (0..ranks)
            .map(|rank| LocalExchange {
                rank,
                shared: shared.clone(),
            })
            .collect()
    }

    fn slots(&self) -> Result<std::sync::MutexGuard<'_, Vec<Option<Vec<f32>>>>> {
        self.shared
            .slots
            .lock()
            .map_err(|_| Error::gpu("a rank panicked during an all-to-all"))
    }
}

/// Complex elements `range` of `held`, as f32 pairs on the host (waiting for the device).
fn read_range(held: &Held, range: &Range<usize>) -> Result<Vec<f32>> {
    held.memory().read_range(2 * range.start..2 * range.end)
}

/// Writes f32 pairs `values` into complex elements `range` of `held`.
fn write_range(held: &mut Held, range: &Range<usize>, values: &[f32]) -> Result<()> {
    held.memory_mut()
        .write_range(2 * range.start..2 * range.end, values)
}

impl Exchange for LocalExchange {
    fn rank(&self) -> usize {
        self.rank
    }

    fn link(&self) -> &'static str {
        "host memory"
    }

    fn ranks(&self) -> usize {
        self.shared.ranks
    }

    fn abort(&mut self) {
        self.shared.gate.abort();
    }

    fn moves_blocks(&self) -> bool {
        true
    }

    fn all_to_all(
        &mut self,
        send: &DeviceBuffer,
        sends: &[Range<usize>],
        recv: &mut DeviceBuffer,
        recvs: &[Range<usize>],
    ) -> Result<()> {
        let n = self.shared.ranks;
        let posted = check_ranges(n, (send.len(), sends), (recv.len(), recvs)).and_then(|()| {
            (sends.iter().enumerate())
                .map(|(p, range)| match p == self.rank {
                    true => Ok(None),
                    false => read_range(&send.held, range).map(Some),
                })
                .collect()
        });
        let taken = self.swap(posted)?;
        for (q, range) in recvs.iter().enumerate().filter(|&(q, _)| q != self.rank) {
            let block = self.expect(&taken, q, range.len())?;
            write_range(&mut recv.held, range, block)?;
        }
        Ok(())
    }

    unsafe fn start_blocks(
        &mut self,
        send: &DeviceBuffer,
        sends: &[Rows],
        recv: &mut DeviceBuffer,
        recvs: &[Rows],
    ) -> Result<Pending> {
        let n = self.shared.ranks;
        let posted = check_blocks(n, send.len(), sends, true)
            .and_then(|()| check_blocks(n, recv.len(), recvs, false))
            .and_then(|()| {
                (sends.iter().enumerate())
                    .map(|(p, block)| match p == self.rank {
                        true => Ok(None),
                        false => {
                            let mut values = Vec::with_capacity(2 * block.len());
                            for row in block_rows(block, true) {
                                values.extend(read_range(&send.held, &row)?);
                            }
                            Ok(Some(values))
                        }
                    })
                    .collect()
            });
        let taken = self.swap(posted)?;
        for (q, block) in recvs.iter().enumerate().filter(|&(q, _)| q != self.rank) {
            let values = self.expect(&taken, q, block.len())?;
            for (row, chunk) in
                block_rows(block, false).zip(values.chunks(2 * block.row_len.max(1)))
            {
                write_range(&mut recv.held, &row, chunk)?;
            }
        }
        Ok(Pending::done())
    }
}

impl LocalExchange {
    /// Posts this rank's blocks (`posted[p]` for rank `p`, or its error), waits for every
    /// rank, and takes what each posted for this one. Every rank reaches both barriers even
    /// when its own part failed, so that an error on one rank is returned there instead of
    /// leaving the others waiting (a rank that fails before it gets here breaks the barriers
    /// through `abort`).
    fn swap(&self, posted: Result<Vec<Option<Vec<f32>>>>) -> Result<Vec<Option<Vec<f32>>>> {
        let n = self.shared.ranks;
        let posted = posted.and_then(|blocks| {
            let mut slots = self.slots()?;
            for (p, block) in blocks.into_iter().enumerate() {
                slots[self.rank * n + p] = block;
            }
            Ok(())
        });
        self.shared.gate.wait()?;
        let taken = self.slots().map(|mut slots| {
            (0..n)
                .map(|q| slots[q * n + self.rank].take())
                .collect::<Vec<_>>()
        });
        // Every rank has taken its blocks before any posts the next round's.
        self.shared.gate.wait()?;
        posted?;
        taken
    }

    /// What rank `q` posted for this one, which must be `len` complex elements.
    fn expect<'a>(&self, taken: &'a [Option<Vec<f32>>], q: usize, len: usize) -> Result<&'a [f32]> {
        let block = taken[q].as_deref().unwrap_or(&[]);
        if block.len() != 2 * len {
            return Err(Error::InvalidSpec(format!(
                "rank {} expected {len} elements from rank {q} and got {}",
                self.rank,
                block.len() / 2
            )));
        }
        Ok(block)
    }
}
