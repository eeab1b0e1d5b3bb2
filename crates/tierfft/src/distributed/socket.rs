//! [`Exchange`] between ranks in separate processes without NCCL: a TCP connection between
//! every pair of ranks, made through a [`Rendezvous`]. For CPU ranks (one process per rank,
//! on one host or several) and for testing the process bootstrap without GPUs; GPU buffers
//! go through host memory, so on GPUs it is no measure of speed.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::ops::Range;
use std::time::{Duration, Instant};

use super::exchange::{Exchange, check_ranges};
use super::rendezvous::{
    Rendezvous, accept_until, connect_until, hello, read_hello, write_message,
};
use crate::backend::DeviceBuffer;
use crate::error::{Error, Result};

/// How long the ranks wait for each other's connections once every rank has its address.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(60);

/// One rank's end of an all-to-all over TCP connections to every other rank.
pub struct SocketExchange {
    rank: usize,
    ranks: usize,
    /// The connection to each other rank (none at this rank's own index).
    peers: Vec<Option<TcpStream>>,
    /// Set when an all-to-all failed part-way: later ones fail at once.
    broken: bool,
}

fn lost(rank: usize) -> impl FnOnce(std::io::Error) -> Error {
    move |e| {
        Error::ranks(
            format!(
                "the connection to rank {rank} broke during an all-to-all: that rank failed or exited"
            ),
            Some(e),
        )
    }
}

impl SocketExchange {
    /// Connects every pair of `rendezvous`'s ranks (each must call it): each rank listens on
    /// a free port of the address its peers reach it at, the addresses are shared through
    /// the rendezvous, and each rank connects to the ranks below it and accepts the ranks
    /// above.
    pub fn connect(rendezvous: &mut Rendezvous) -> Result<SocketExchange> {
        let (rank, ranks) = (rendezvous.rank(), rendezvous.ranks());
        let mut peers: Vec<Option<TcpStream>> = (0..ranks).map(|_| None).collect();
        let listener = match rendezvous.local_ip() {
            Some(ip) => Some(TcpListener::bind(SocketAddr::new(ip, 0)).map_err(|e| {
                Error::ranks(
                    format!("rank {rank} listening for its peers at {ip}"),
                    Some(e),
                )
            })?),
            None => None,
        };
        let mine = match &listener {
            Some(l) => l
                .local_addr()
                .map_err(|e| Error::ranks("the listener's address", Some(e)))?
                .to_string(),
            None => String::new(),
        };
        let addresses = rendezvous.all_gather(mine.as_bytes())?;
        let deadline = Instant::now() + CONNECT_TIMEOUT;
        for (p, address) in addresses.iter().enumerate().take(rank) {
            let at = String::from_utf8_lossy(address);
            let stream = connect_until(&at, deadline)?;
            (&stream).write_all(&hello(rank, ranks)).map_err(lost(p))?;
            peers[p] = Some(stream);
        }
        if let Some(listener) = &listener {
            let all = accept_until(listener, deadline, ranks - 1 - rank, |mut stream| {
                let (from, of) = read_hello(&mut stream)?;
                if of != ranks || from <= rank || from >= ranks || peers[from].is_some() {
                    return Err(Error::ranks(
                        format!(
                            "rank {rank} was reached by a rank calling itself {from} of {of}, \
                             where it expects ranks {} .. {} once each",
                            rank + 1,
                            ranks - 1
                        ),
                        None,
                    ));
                }
                peers[from] = Some(stream);
                Ok(())
            })?;
            if !all {
                return Err(Error::ranks(
                    format!(
                        "rank {rank} waited {} s for the ranks above it to connect: a firewall \
                         between the hosts, or a rank that failed",
                        CONNECT_TIMEOUT.as_secs()
                    ),
                    None,
                ));
            }
        }
        for stream in peers.iter().flatten() {
            stream
                .set_read_timeout(None)
                .map_err(|e| Error::ranks("clearing a timeout", Some(e)))?;
        }
        Ok(SocketExchange {
            rank,
            ranks,
            peers,
            broken: false,
        })
    }

    /// Sends `blocks[p]` to each peer `p` and receives one block from each, as f32 values.
    fn swap(&self, blocks: &[Option<Vec<f32>>]) -> Result<Vec<Option<Vec<f32>>>> {
        std::thread::scope(|scope| {
            // Writes on threads of their own, so that no two ranks wait on each other's
            // full socket buffers.
            let writers: Vec<_> = (self.peers.iter().enumerate())
                .filter_map(|(p, s)| s.as_ref().map(|s| (p, s)))
                .map(|(p, stream)| {
                    let block = blocks[p].as_deref().unwrap_or(&[]);
                    scope.spawn(move || {
                        write_message(stream, bytemuck::cast_slice(block)).map_err(lost(p))
                    })
                })
                .collect();
            let mut received: Vec<Option<Vec<f32>>> = vec![None; self.ranks];
            let mut failed = None;
            for (q, stream) in self.peers.iter().enumerate() {
                let Some(stream) = stream else { continue };
                match read_block(stream) {
                    Ok(values) => received[q] = Some(values),
                    Err(e) => {
                        failed = Some(lost(q)(e));
                        // Wake this rank's writers and the peers blocked on this rank.
                        self.shutdown();
                        break;
                    }
                }
            }
            for writer in writers {
                let written = writer
                    .join()
                    .unwrap_or_else(|_| Err(Error::ranks("a sending thread panicked", None)));
                if failed.is_none() {
                    written?;
                }
            }
            match failed {
                Some(e) => Err(e),
                None => Ok(received),
            }
        })
    }

    fn shutdown(&self) {
        for stream in self.peers.iter().flatten() {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

/// One block of f32 values written by [`write_message`].
fn read_block(stream: &TcpStream) -> std::io::Result<Vec<f32>> {
    let mut len = [0u8; 8];
    (&*stream).read_exact(&mut len)?;
    let len = u64::from_le_bytes(len);
    if len % 4 != 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a block of {len} bytes, not a whole number of f32 values"),
        ));
    }
    let values = usize::try_from(len / 4)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "a block too large"))?;
    let mut block = vec![0f32; values];
    (&*stream).read_exact(bytemuck::cast_slice_mut(&mut block))?;
    Ok(block)
}

impl Exchange for SocketExchange {
    fn rank(&self) -> usize {
        self.rank
    }

    fn ranks(&self) -> usize {
        self.ranks
    }

    fn abort(&mut self) {
        self.broken = true;
        self.shutdown();
    }

    fn all_to_all(
        &mut self,
        send: &DeviceBuffer,
        sends: &[Range<usize>],
        recv: &mut DeviceBuffer,
        recvs: &[Range<usize>],
    ) -> Result<()> {
        if self.broken {
            return Err(Error::ranks(
                "an earlier all-to-all of this group failed; plan the transform again",
                None,
            ));
        }
        // A rank whose own ranges are wrong still takes part (sending nothing), so that its
        // peers get an error from the sizes instead of waiting; then it reports its own.
        let checked = check_ranges(self.ranks, (send.len(), sends), (recv.len(), recvs));
        let mut blocks: Vec<Option<Vec<f32>>> = vec![None; self.ranks];
        if checked.is_ok() {
            let me = self.rank;
            for (p, range) in sends.iter().enumerate().filter(|&(p, _)| p != me) {
                let block = send
                    .held
                    .memory()
                    .read_range(2 * range.start..2 * range.end);
                // The peers are waiting for this rank's blocks: closing the connections
                // gives them an error instead.
                blocks[p] = Some(block.inspect_err(|_| self.abort())?);
            }
        }
        let received = self.swap(&blocks).inspect_err(|_| self.broken = true)?;
        checked?;
        for (q, range) in recvs.iter().enumerate().filter(|&(q, _)| q != self.rank) {
            let block = received[q].as_deref().unwrap_or(&[]);
            if block.len() != 2 * range.len() {
                return Err(Error::InvalidSpec(format!(
                    "rank {} expected {} elements from rank {q} and got {}",
                    self.rank,
                    range.len(),
                    block.len() / 2
                )));
            }
            recv.held
                .memory_mut()
                .write_range(2 * range.start..2 * range.end, block)?;
        }
        Ok(())
    }
}
