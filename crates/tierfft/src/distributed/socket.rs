//! [`Exchange`] between ranks in separate processes without NCCL: a TCP connection between
//! every pair of ranks, made through a [`Rendezvous`]. For CPU ranks (one process per rank,
//! on one host or several) and for testing the process bootstrap without GPUs; GPU buffers
//! go through host memory, so on GPUs it is no measure of speed.

use std::io::Write;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::ops::Range;
use std::time::{Duration, Instant};

use super::exchange::{Exchange, check_ranges};
use super::rendezvous::{
    Rendezvous, accept_until, connect_until, hello, lost, read_hello, read_message, write_message,
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

impl SocketExchange {
    /// Connects every pair of `rendezvous`'s ranks (each must call it): each rank listens on
    /// a free port of the address its peers reach it at, the addresses are shared through
    /// the rendezvous, and each rank connects to the ranks below it and accepts the ranks
    /// above.
    /// A rank that fails here closes its rendezvous links, so that no rank waits on it.
    pub fn connect(rendezvous: &mut Rendezvous) -> Result<SocketExchange> {
        let connected = SocketExchange::join_mesh(rendezvous);
        if connected.is_err() {
            rendezvous.abort();
        }
        connected
    }

    fn join_mesh(rendezvous: &mut Rendezvous) -> Result<SocketExchange> {
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
            let stream = connect_until(&at, deadline, &format!("rank {p}"))?;
            (&stream).write_all(&hello(rank, ranks)).map_err(lost(p))?;
            peers[p] = Some(stream);
        }
        if let Some(listener) = &listener {
            let all = accept_until(listener, deadline, ranks - 1 - rank, |mut stream| {
                let Ok((from, of)) = read_hello(&mut stream) else {
                    return Ok(false);
                };
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
                Ok(true)
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

    /// Sends `blocks[p]` to each peer `p` and receives from each peer `q` a block of
    /// `expect[q]` f32 values; on any failure every connection is closed, so that no peer
    /// waits on this rank.
    fn swap(&self, blocks: &[Vec<f32>], expect: &[usize]) -> Result<Vec<Vec<f32>>> {
        let swapped = std::thread::scope(|scope| {
            // Writes on threads of their own, so that no two ranks wait on each other's
            // full socket buffers.
            let writers: Vec<_> = (self.peers.iter().enumerate())
                .filter_map(|(p, s)| s.as_ref().map(|s| (p, s)))
                .map(|(p, stream)| {
                    let block = &blocks[p];
                    scope.spawn(move || {
                        write_message(stream, bytemuck::cast_slice(block)).map_err(lost(p))
                    })
                })
                .collect();
            let mut received = vec![Vec::new(); self.ranks];
            let mut failed = None;
            for (q, stream) in self.peers.iter().enumerate() {
                let Some(stream) = stream else { continue };
                match read_message(stream, 4 * expect[q] as u64) {
                    Ok(bytes) if bytes.len() == 4 * expect[q] => {
                        received[q] = (bytes.chunks_exact(4))
                            .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
                            .collect();
                    }
                    Ok(bytes) => {
                        failed = Some(Error::InvalidSpec(format!(
                            "rank {} expected {} elements from rank {q} and got {}",
                            self.rank,
                            expect[q] / 2,
                            bytes.len() / 8
                        )));
                    }
                    Err(e) => failed = Some(lost(q)(e)),
                }
                if failed.is_some() {
                    // Wake this rank's writers and the peers blocked on this rank.
                    self.shutdown();
                    break;
                }
            }
            for writer in writers {
                let written = writer
                    .join()
                    .unwrap_or_else(|_| Err(Error::ranks("a sending thread panicked", None)));
                if let Err(e) = written {
                    failed.get_or_insert(e);
                }
            }
            match failed {
                Some(e) => Err(e),
                None => Ok(received),
            }
        });
        if swapped.is_err() {
            self.shutdown();
        }
        swapped
    }

    fn shutdown(&self) {
        for stream in self.peers.iter().flatten() {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

impl Exchange for SocketExchange {
    fn rank(&self) -> usize {
        self.rank
    }

    fn link(&self) -> &'static str {
        "sockets"
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
        // Ranges that do not fit this rank's buffers are its own mistake, but its peers are
        // waiting for it: closing the connections gives them an error instead.
        if let Err(e) = check_ranges(self.ranks, (send.len(), sends), (recv.len(), recvs)) {
            self.abort();
            return Err(e);
        }
        let me = self.rank;
        let mut blocks = vec![Vec::new(); self.ranks];
        for (p, range) in sends.iter().enumerate().filter(|&(p, _)| p != me) {
            let block = send
                .held
                .memory()
                .read_range(2 * range.start..2 * range.end);
            blocks[p] = block.inspect_err(|_| self.abort())?;
        }
        let expect: Vec<usize> = recvs.iter().map(|r| 2 * r.len()).collect();
        let received = self
            .swap(&blocks, &expect)
            .inspect_err(|_| self.broken = true)?;
        for (q, range) in recvs.iter().enumerate().filter(|&(q, _)| q != me) {
            let written =
                (recv.held.memory_mut()).write_range(2 * range.start..2 * range.end, &received[q]);
            written.inspect_err(|_| self.abort())?;
        }
        Ok(())
    }
}
