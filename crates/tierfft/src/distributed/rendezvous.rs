//! The ranks of a [`Launch`] meeting over TCP: rank 0 listens at the rendezvous address and
//! every other rank connects to it. Over those links, a barrier and an all-gather of small
//! messages: enough to share an NCCL unique id, or each rank's address for the socket
//! exchange between CPU ranks ([`super::SocketExchange`]).

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use super::launch::{Launch, split_host_port};
use super::{DistTimes, Exchange};
use crate::backend::Device;
use crate::error::{Error, Result};

/// How long [`Rendezvous::join`] waits for every rank to arrive.
pub const JOIN_TIMEOUT: Duration = Duration::from_secs(300);

/// Opens every connection between tierfft's ranks; the version of what follows.
const MAGIC: &[u8; 8] = b"tierfft1";

/// A larger message from a peer is taken for a stray connection, not a rank.
const MAX_MESSAGE: u64 = 1 << 26;

/// How long a connection to a rendezvous may take to say which rank it is.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// This process's links to the other ranks of its launch, made by [`Rendezvous::join`].
pub struct Rendezvous {
    rank: usize,
    ranks: usize,
    /// Rank 0: the link to each other rank (none at 0); any other rank: the link to rank 0.
    links: Vec<Option<TcpStream>>,
}

/// An I/O failure between ranks, saying what was being done.
fn io_error(what: impl std::fmt::Display) -> impl FnOnce(std::io::Error) -> Error {
    move |e| Error::ranks(what.to_string(), Some(e))
}

/// A connection to `rank` that broke: that rank failed or exited.
pub(crate) fn lost(rank: usize) -> impl FnOnce(std::io::Error) -> Error {
    move |e| {
        Error::ranks(
            format!("the connection to rank {rank} broke: that rank failed or exited"),
            Some(e),
        )
    }
}

/// What a rank says first on every connection: who it is, of how many, in its byte order.
pub(crate) fn hello(rank: usize, ranks: usize) -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&0x0102_0304u32.to_ne_bytes());
    bytes.extend_from_slice(&(rank as u64).to_le_bytes());
    bytes.extend_from_slice(&(ranks as u64).to_le_bytes());
    bytes
}

/// Reads a peer's [`hello`]: its rank and number of ranks.
pub(crate) fn read_hello(stream: &mut TcpStream) -> Result<(usize, usize)> {
    let mut bytes = [0u8; 28];
    stream
        .read_exact(&mut bytes)
        .map_err(io_error("reading a rank's greeting"))?;
    if &bytes[..8] != MAGIC {
        return Err(Error::ranks(
            "something other than a tierfft rank of this version connected to the rendezvous \
             port: choose a port no other program uses",
            None,
        ));
    }
    if bytes[8..12] != 0x0102_0304u32.to_ne_bytes() {
        return Err(Error::ranks(
            "a rank on a machine of the other byte order joined: every rank must run on \
             machines of one byte order",
            None,
        ));
    }
    let word = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(w) as usize
    };
    Ok((word(12), word(20)))
}

/// Writes one message: its length, then its bytes.
pub(crate) fn write_message(mut stream: &TcpStream, bytes: &[u8]) -> std::io::Result<()> {
    stream.write_all(&(bytes.len() as u64).to_le_bytes())?;
    stream.write_all(bytes)
}

/// Reads one message of at most `max` bytes written by [`write_message`].
pub(crate) fn read_message(mut stream: &TcpStream, max: u64) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 8];
    stream.read_exact(&mut len)?;
    let len = u64::from_le_bytes(len);
    if len > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a message of {len} bytes where at most {max} were expected"),
        ));
    }
    let mut bytes = vec![0u8; len as usize];
    stream.read_exact(&mut bytes)?;
    Ok(bytes)
}

/// The addresses of `at` (`host:port`).
fn resolve(at: &str) -> Result<Vec<SocketAddr>> {
    let addrs: Vec<SocketAddr> = at
        .to_socket_addrs()
        .map_err(io_error(format!("resolving the rendezvous address {at:?}")))?
        .collect();
    match addrs.is_empty() {
        true => Err(Error::ranks(
            format!("the rendezvous address {at:?} resolves to no address"),
            None,
        )),
        false => Ok(addrs),
    }
}

impl Rendezvous {
    /// Meets the other ranks of `launch` at its rendezvous address, waiting up to
    /// [`JOIN_TIMEOUT`] for all of them; returns once every rank has joined.
    pub fn join(launch: &Launch) -> Result<Rendezvous> {
        Rendezvous::join_within(launch, JOIN_TIMEOUT)
    }

    /// [`Rendezvous::join`], waiting up to `timeout`.
    pub fn join_within(launch: &Launch, timeout: Duration) -> Result<Rendezvous> {
        let (rank, ranks) = (launch.rank, launch.ranks);
        let mut links: Vec<Option<TcpStream>> = (0..ranks).map(|_| None).collect();
        if ranks > 1 {
            match rank {
                0 => Rendezvous::accept_all(launch, timeout, &mut links)?,
                _ => links[0] = Some(Rendezvous::connect_to_root(launch, timeout)?),
            }
        }
        Ok(Rendezvous { rank, ranks, links })
    }

    /// Rank 0: listens at the rendezvous port until every other rank has said hello, then
    /// answers each.
    fn accept_all(
        launch: &Launch,
        timeout: Duration,
        links: &mut [Option<TcpStream>],
    ) -> Result<()> {
        let deadline = Instant::now() + timeout;
        let at = &launch.rendezvous;
        let addrs = resolve(at)?;
        let (host, port) = split_host_port(at).unwrap_or(("", 0));
        // A loopback address given as such (an IP or "localhost") is listened on as given;
        // any other name on every interface, since the name other hosts know this one by
        // need not resolve here to an address they reach (Debian maps a host's own name to
        // 127.0.1.1).
        let loopback = host == "localhost"
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        let listen: SocketAddr = match (loopback, addrs[0].is_ipv6()) {
            (true, _) => addrs[0],
            (false, true) => SocketAddr::new(std::net::Ipv6Addr::UNSPECIFIED.into(), port),
            (false, false) => SocketAddr::new(std::net::Ipv4Addr::UNSPECIFIED.into(), port),
        };
        let listener = TcpListener::bind(listen).map_err(io_error(format!(
            "rank 0 listening at {listen} (the rendezvous address {at}; choose a free port)"
        )))?;
        let all = accept_until(&listener, deadline, links.len() - 1, |mut stream| {
            // A connection that is not a rank (a port scan, a stray client) is dropped.
            let Ok((rank, ranks)) = read_hello(&mut stream) else {
                return Ok(false);
            };
            if ranks != links.len() || rank == 0 || rank >= ranks || links[rank].is_some() {
                return Err(Error::ranks(
                    format!(
                        "a rank joined as rank {rank} of {ranks} where rank 0 expects ranks \
                         1 .. {} once each: start every rank with the same number of ranks",
                        links.len() - 1
                    ),
                    None,
                ));
            }
            links[rank] = Some(stream);
            Ok(true)
        })?;
        if !all {
            let missing: Vec<String> = (1..links.len())
                .filter(|&r| links[r].is_none())
                .map(|r| r.to_string())
                .collect();
            return Err(Error::ranks(
                format!(
                    "rank 0 waited {:.0} s at {at} for ranks {}, which did not arrive: did the \
                     launcher start them, with the same rendezvous address?",
                    timeout.as_secs_f64(),
                    missing.join(", ")
                ),
                None,
            ));
        }
        for link in links.iter().flatten() {
            // Waits from here on last as long as the ranks' work does.
            link.set_read_timeout(None)
                .map_err(io_error("clearing a timeout"))?;
            write_message(link, &[]).map_err(io_error("answering a rank"))?;
        }
        Ok(())
    }

    /// Any rank but 0: connects to rank 0 (retrying until it listens), says hello and waits
    /// for its answer, which comes once every rank has arrived.
    fn connect_to_root(launch: &Launch, timeout: Duration) -> Result<TcpStream> {
        let deadline = Instant::now() + timeout;
        let at = &launch.rendezvous;
        let stream = connect_until(at, deadline, "rank 0 (the rendezvous)")?;
        let wait = deadline.saturating_duration_since(Instant::now());
        stream
            .set_read_timeout(Some(wait.max(Duration::from_millis(1))))
            .map_err(io_error("setting a timeout"))?;
        (&stream)
            .write_all(&hello(launch.rank, launch.ranks))
            .map_err(io_error(format!("greeting rank 0 at {at}")))?;
        read_message(&stream, 0).map_err(|e| {
            Error::ranks(
                format!(
                    "rank {} reached rank 0 at {at}, which did not answer: rank 0 waits for \
                     every rank, so another may not have started, or the ranks disagree on \
                     their number ({})",
                    launch.rank, launch.ranks
                ),
                Some(e),
            )
        })?;
        stream
            .set_read_timeout(None)
            .map_err(io_error("clearing a timeout"))?;
        Ok(stream)
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Ranks in the group.
    pub fn ranks(&self) -> usize {
        self.ranks
    }

    /// The address this rank's peers reach it at: the local end of its link to rank 0 (rank
    /// 0: of its link to rank 1); None for a group of one.
    pub(crate) fn local_ip(&self) -> Option<std::net::IpAddr> {
        let link = self.links.iter().flatten().next()?;
        link.local_addr().ok().map(|a| a.ip())
    }

    /// The link to rank `r` (rank 0 has one to every rank, the others one to rank 0).
    fn link(&self, r: usize) -> Result<&TcpStream> {
        (self.links.get(r).and_then(Option::as_ref)).ok_or_else(|| {
            Error::ranks(format!("rank {} has no link to rank {r}", self.rank), None)
        })
    }

    /// Every rank's `mine` (at most 64 MiB), in rank order, on every rank (each must call
    /// it). On an error this rank's links are closed, so that no rank waits on it.
    pub fn all_gather(&mut self, mine: &[u8]) -> Result<Vec<Vec<u8>>> {
        if mine.len() as u64 > MAX_MESSAGE {
            self.abort();
            return Err(Error::ranks(
                format!(
                    "rank {} gave an all-gather {} bytes; it takes at most {MAX_MESSAGE}",
                    self.rank,
                    mine.len()
                ),
                None,
            ));
        }
        self.gather(mine).inspect_err(|_| self.abort())
    }

    fn gather(&mut self, mine: &[u8]) -> Result<Vec<Vec<u8>>> {
        if self.ranks == 1 {
            return Ok(vec![mine.to_vec()]);
        }
        if self.rank != 0 {
            let root = self.link(0)?;
            write_message(root, mine).map_err(lost(0))?;
            let packed = (MAX_MESSAGE + 8) * self.ranks as u64;
            let all = read_message(root, packed).map_err(lost(0))?;
            return unpack(&all, self.ranks);
        }
        let mut all = vec![mine.to_vec()];
        for r in 1..self.ranks {
            all.push(read_message(self.link(r)?, MAX_MESSAGE).map_err(lost(r))?);
        }
        let packed = pack(&all);
        for r in 1..self.ranks {
            write_message(self.link(r)?, &packed).map_err(lost(r))?;
        }
        Ok(all)
    }

    /// Rank 0's `bytes` on every rank (each must call it; the others' `bytes` are ignored).
    pub fn broadcast(&mut self, bytes: &[u8]) -> Result<Vec<u8>> {
        let mine = if self.rank == 0 { bytes } else { &[] };
        Ok(self.all_gather(mine)?.swap_remove(0))
    }

    /// Returns once every rank has called it.
    pub fn barrier(&mut self) -> Result<()> {
        self.all_gather(&[]).map(|_| ())
    }

    /// Ends a round on every rank, as [`super::Rounds::end`] does between threads: returns
    /// once every rank has called it, and fails on every rank where any passed `ok = false`
    /// (this rank's part of the round failed).
    pub fn end_round(&mut self, ok: bool) -> Result<()> {
        let all = self.all_gather(&[u8::from(ok)])?;
        match all.iter().position(|m| m.first() != Some(&1)) {
            Some(r) => Err(Error::ranks(format!("rank {r} failed"), None)),
            None => Ok(()),
        }
    }

    /// The group's times from each rank's own ([`super::RankFft::time`]): each run's time
    /// on the slowest rank, on every rank (each must call it).
    pub fn slowest(&mut self, mine: &DistTimes) -> Result<DistTimes> {
        let runs = mine.total.len();
        let bytes: Vec<u8> = [&mine.total, &mine.exchange, &mine.transforms]
            .into_iter()
            .flatten()
            .flat_map(|t| t.to_le_bytes())
            .collect();
        let all = self.all_gather(&bytes)?;
        let times = (all.iter().enumerate())
            .map(|(r, bytes)| {
                let seconds: Vec<f64> = bytes
                    .chunks_exact(8)
                    .map(|b| f64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
                    .collect();
                if seconds.len() != 3 * runs {
                    return Err(Error::ranks(
                        format!(
                            "rank {r} timed {} runs where this rank timed {runs}: every rank \
                             times the same number",
                            seconds.len() / 3
                        ),
                        None,
                    ));
                }
                Ok(DistTimes {
                    total: seconds[..runs].to_vec(),
                    exchange: seconds[runs..2 * runs].to_vec(),
                    transforms: seconds[2 * runs..].to_vec(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(DistTimes::slowest(&times))
    }

    /// Closes every link, so that ranks waiting on this one get an error instead of waiting.
    pub fn abort(&mut self) {
        for link in self.links.iter().flatten() {
            let _ = link.shutdown(Shutdown::Both);
        }
    }

    /// This rank's end of an all-to-all between the group's ranks: NCCL where `device` is
    /// a CUDA GPU (the unique id made by rank 0 and shared here), else TCP connections
    /// between every pair of ranks ([`super::SocketExchange`], for CPU ranks).
    pub fn exchange(&mut self, device: &Device) -> Result<Box<dyn Exchange>> {
        #[cfg(feature = "cuda")]
        if let Some(gpu) = device.cuda_device() {
            // Rank 0 sends its id or why it has none, so the others fail with it rather
            // than wait.
            let made = match self.rank {
                0 => super::nccl_unique_id(),
                _ => Ok([0; 128]),
            };
            let mut sent = match &made {
                Ok(id) => [&[1u8][..], id].concat(),
                Err(e) => [&[0u8][..], e.to_string().as_bytes()].concat(),
            };
            sent = self.broadcast(&sent)?;
            if sent.first() != Some(&1) || sent.len() != 129 {
                made?;
                return Err(Error::NoDevice(format!(
                    "rank 0 could not start NCCL: {}",
                    String::from_utf8_lossy(sent.get(1..).unwrap_or(&[]))
                )));
            }
            let mut id = [0u8; 128];
            id.copy_from_slice(&sent[1..]);
            // NCCL's own join waits for every rank: one that cannot load it says so first.
            let available = super::nccl_available();
            self.end_round(available).map_err(|e| match available {
                true => Error::NoDevice(format!("another rank could not load NCCL ({e})")),
                false => e,
            })?;
            let exchange = super::NcclExchange::from_id(gpu, self.rank, self.ranks, &id)?;
            return Ok(Box::new(exchange));
        }
        let _ = device;
        Ok(Box::new(super::SocketExchange::connect(self)?))
    }
}

/// Messages, each after its length.
fn pack(all: &[Vec<u8>]) -> Vec<u8> {
    let mut packed = Vec::new();
    for m in all {
        packed.extend_from_slice(&(m.len() as u64).to_le_bytes());
        packed.extend_from_slice(m);
    }
    packed
}

/// The `ranks` messages of [`pack`].
fn unpack(mut packed: &[u8], ranks: usize) -> Result<Vec<Vec<u8>>> {
    let bad = || Error::ranks("rank 0 sent a malformed all-gather", None);
    let mut all = Vec::with_capacity(ranks);
    for _ in 0..ranks {
        let (len, rest) = packed.split_first_chunk::<8>().ok_or_else(bad)?;
        let len = usize::try_from(u64::from_le_bytes(*len)).map_err(|_| bad())?;
        let (m, rest) = rest.split_at_checked(len).ok_or_else(bad)?;
        all.push(m.to_vec());
        packed = rest;
    }
    Ok(all)
}

/// Accepts connections on `listener` until `take` has kept `count` of them (it returns
/// false for one it drops), true; or false once `deadline` passes.
pub(crate) fn accept_until(
    listener: &TcpListener,
    deadline: Instant,
    count: usize,
    mut take: impl FnMut(TcpStream) -> Result<bool>,
) -> Result<bool> {
    listener
        .set_nonblocking(true)
        .map_err(io_error("polling a listener"))?;
    let mut taken = 0;
    while taken < count {
        match listener.accept() {
            Ok((stream, _)) => {
                stream
                    .set_nonblocking(false)
                    .map_err(io_error("a connection"))?;
                // A rank says hello as soon as it connects.
                let wait = deadline.saturating_duration_since(Instant::now());
                stream
                    .set_read_timeout(Some(wait.clamp(Duration::from_millis(1), HELLO_TIMEOUT)))
                    .map_err(io_error("setting a timeout"))?;
                let _ = stream.set_nodelay(true);
                if take(stream)? {
                    taken += 1;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    return Ok(false);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => return Err(io_error("accepting a rank")(e)),
        }
    }
    Ok(true)
}

/// Connects to `what` at `at` (`host:port`), retrying until `deadline` while nothing
/// listens there (or the name does not resolve yet).
pub(crate) fn connect_until(at: &str, deadline: Instant, what: &str) -> Result<TcpStream> {
    loop {
        let mut last = None;
        match at.to_socket_addrs() {
            Ok(addrs) => {
                for addr in addrs {
                    match TcpStream::connect_timeout(&addr, Duration::from_secs(1)) {
                        Ok(stream) => {
                            let _ = stream.set_nodelay(true);
                            return Ok(stream);
                        }
                        Err(e) => last = Some(e),
                    }
                }
            }
            Err(e) => last = Some(e),
        }
        if Instant::now() >= deadline {
            return Err(Error::ranks(
                format!(
                    "nothing answered at {at} in the time given: is {what} running, and is \
                     that its host's address?"
                ),
                last,
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
