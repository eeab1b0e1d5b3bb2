//! The planner's estimate of a distributed transform beside the same transform on one of
//! its devices, from the bytes each moves: through device memory (every pass of every
//! transform, every packing copy, read and written) at the memory's bandwidth, and to the
//! peers at the link's; the parts of a slab's change of layout overlapping as planned (the
//! all-to-all of one part beside the transform of the next). It counts bytes, not the
//! strided access of some passes, so it says which side is faster where the two differ by
//! more than that, and is checked against the measured times in `tierfft bench --gpus N`.
//! Arrays that start and end in host memory add their copies, through one GPU's host link
//! or through every GPU's at once ([`HostLink`]).

use super::RankFft;
use super::plan::{Plan, Step};
use super::slab::{Array, Moves, Rows};
use crate::nd::NdFft;

/// Bandwidths an estimate uses, bytes per second.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Bandwidths {
    /// Device memory, read plus written.
    pub memory: f64,
    /// From one device to another, one direction (what one rank sends its peers).
    pub link: f64,
    /// Between host memory and the devices, for arrays that start and end there.
    pub host: Option<HostLink>,
}

/// Copies between host memory and GPUs, bytes per second (each direction counted, as
/// uploaded plus downloaded bytes over the time of both).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct HostLink {
    /// Through one GPU alone.
    pub one: f64,
    /// Through every GPU of the group at once, in total.
    pub all: f64,
}

/// Bytes each GPU uploads and downloads in [`HostLink::measure`].
#[cfg(feature = "cuda")]
const HOST_PROBE_BYTES: usize = 64 << 20;

impl HostLink {
    /// Host bandwidths, bytes per second, through one GPU and through all at once.
    pub fn new(one: f64, all: f64) -> HostLink {
        HostLink { one, all }
    }

    /// Measures the host links of `gpus` the way a whole array's copies go (pageable
    /// memory through the devices' pinned staging): 64 MiB uploaded and downloaded by the
    /// first GPU alone, then by every GPU at once; the median of three of each, after one
    /// untimed round that sets up the staging.
    #[cfg(feature = "cuda")]
    pub fn measure(
        gpus: &[std::sync::Arc<crate::backend::cuda::CudaDevice>],
    ) -> crate::Result<HostLink> {
        use crate::backend::{Device, median};
        if gpus.is_empty() {
            return Err(crate::Error::InvalidSpec(
                "a host link is measured through at least one GPU".into(),
            ));
        }
        let floats = HOST_PROBE_BYTES / 4;
        let source = vec![0f32; floats];
        // One landing array per GPU, touched once so that page faults are not timed.
        let landing: Vec<std::sync::Mutex<Vec<f32>>> = gpus
            .iter()
            .map(|_| std::sync::Mutex::new(vec![1f32; floats]))
            .collect();
        let round_trip = |(i, gpu): (usize, &std::sync::Arc<_>)| -> crate::Result<()> {
            let device = Device::from(std::sync::Arc::clone(gpu));
            let buffer = device.upload(&source)?;
            let mut out = landing[i].lock().unwrap_or_else(|e| e.into_inner());
            buffer.read_into(&mut out)
        };
        super::on_threads(gpus.iter().enumerate(), round_trip)?;
        let timed = |ranks: usize| -> crate::Result<f64> {
            let mut seconds = Vec::with_capacity(3);
            for _ in 0..3 {
                let start = std::time::Instant::now();
                super::on_threads(gpus.iter().take(ranks).enumerate(), round_trip)?;
                seconds.push(start.elapsed().as_secs_f64());
            }
            Ok((2 * HOST_PROBE_BYTES * ranks) as f64 / median(&seconds))
        };
        Ok(HostLink {
            one: timed(1)?,
            all: timed(gpus.len())?,
        })
    }
}

impl Bandwidths {
    /// Memory and link bandwidths, bytes per second (no host link).
    pub fn new(memory: f64, link: f64) -> Bandwidths {
        Bandwidths {
            memory,
            link,
            host: None,
        }
    }

    /// The same bandwidths with a host link, for arrays in host memory.
    pub fn with_host(mut self, host: HostLink) -> Bandwidths {
        self.host = Some(host);
        self
    }

    /// The bandwidths of `gpus` (at least two): the first GPU's peak memory bandwidth and the
    /// measured link from the second to the first ([`super::link_bandwidth`]).
    #[cfg(feature = "cuda")]
    pub fn measure(
        gpus: &[std::sync::Arc<crate::backend::cuda::CudaDevice>],
    ) -> crate::Result<Bandwidths> {
        let [first, second, ..] = gpus else {
            return Err(crate::Error::InvalidSpec(
                "a link is measured between two GPUs".into(),
            ));
        };
        Ok(Bandwidths::new(
            first.memory_bandwidth()?,
            super::link_bandwidth(first, second)?,
        ))
    }
}

/// Estimated seconds of one run of a transform on one device and spread over ranks.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Estimate {
    /// The transform on one device.
    pub one: f64,
    /// Spread over the ranks: the slowest rank.
    pub spread: f64,
    /// Ranks it is spread over.
    pub ranks: usize,
    /// The bandwidths used.
    pub bandwidths: Bandwidths,
    /// The copies of arrays that start and end in host memory, where counted
    /// ([`Estimate::with_host_copies`]).
    pub host: Option<HostCopies>,
}

/// Seconds of a whole array's copies between host memory and the devices.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct HostCopies {
    /// Bytes uploaded plus downloaded.
    pub bytes: f64,
    /// Through one device's host link.
    pub one: f64,
    /// Each rank copying its part at once.
    pub spread: f64,
}

impl Estimate {
    /// The estimate for `ranks` (every rank of one distributed transform) against `one`, the
    /// same transform planned on one device; `None` where a transform has no device plan to
    /// count (the CPU).
    pub fn new(one: &NdFft, ranks: &[RankFft], bandwidths: Bandwidths) -> Option<Estimate> {
        let Bandwidths { memory, link, .. } = bandwidths;
        let mut spread: f64 = 0.0;
        for rank in ranks {
            let t = rank.traffic()?;
            let parts = pipeline(t.parts_memory / memory, t.parts_sent / link, rank.parts());
            spread = spread.max(t.memory / memory + t.sent / link + parts);
        }
        Some(Estimate {
            one: one.bytes_moved()? as f64 / memory,
            spread,
            ranks: ranks.len(),
            bandwidths,
            host: None,
        })
    }

    /// The estimate for arrays that start and end in host memory: `bytes` (uploaded plus
    /// downloaded) copied through one device's host link, or each rank's share through its
    /// own at once. Unchanged where the bandwidths have no host link.
    pub fn with_host_copies(mut self, bytes: f64) -> Estimate {
        if let Some(link) = self.bandwidths.host {
            self.host = Some(HostCopies {
                bytes,
                one: bytes / link.one,
                spread: bytes / link.all,
            });
        }
        self
    }

    /// Seconds on one device, host copies included where counted.
    pub fn one_total(&self) -> f64 {
        self.one + self.host.map_or(0.0, |h| h.one)
    }

    /// Seconds spread over the ranks, host copies included where counted.
    pub fn spread_total(&self) -> f64 {
        self.spread + self.host.map_or(0.0, |h| h.spread)
    }

    /// True when spreading the transform is estimated faster than one device.
    pub fn spread_is_faster(&self) -> bool {
        self.spread_total() < self.one_total()
    }
}

/// Bytes one run of a rank's plan moves, for the planner's estimate: through device memory
/// (transforms and row copies, read and written) and to its peers, in the steps that
/// overlap part by part and in the others.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Traffic {
    /// Device-memory bytes of the steps between a part's send and the last receive.
    pub parts_memory: f64,
    /// Bytes sent in those steps' all-to-alls.
    pub parts_sent: f64,
    /// Device-memory bytes of the other steps.
    pub memory: f64,
    /// Bytes sent in the other all-to-alls.
    pub sent: f64,
}

impl Plan {
    /// What one run moves; `None` where a local transform has no device plan (the CPU).
    pub(crate) fn traffic(&self) -> Option<Traffic> {
        let copies = |c: &[(Array, Array, Rows)]| {
            c.iter().map(|(_, _, r)| 16.0 * r.len() as f64).sum::<f64>()
        };
        let sent = |m: &Moves| 8.0 * m.sent().iter().sum::<usize>() as f64;
        let mut t = Traffic::default();
        for step in &self.steps {
            match step {
                Step::Fft { fft, part, .. } => {
                    let bytes = fft.bytes_moved()? as f64;
                    match part {
                        Some(_) => t.parts_memory += bytes,
                        None => t.memory += bytes,
                    }
                }
                Step::RealIn { fft, part, .. } | Step::RealOut { fft, part, .. } => {
                    let bytes = fft.bytes_moved()? as f64;
                    match part {
                        Some(_) => t.parts_memory += bytes,
                        None => t.memory += bytes,
                    }
                }
                Step::Move { moves, .. } => {
                    t.memory += copies(&moves.before) + copies(&moves.after);
                    t.sent += sent(moves);
                }
                Step::Send { moves, .. } => {
                    t.parts_memory += copies(&moves.before);
                    t.parts_sent += sent(moves);
                }
                Step::Receive { moves, .. } => t.parts_memory += copies(&moves.after),
            }
        }
        Some(t)
    }
}

/// Seconds of `parts` parts in a pipeline, each part's transforms (`compute` seconds in all)
/// then its all-to-all (`sent` in all) beside the next part's transforms: the first part's
/// transforms and the last part's all-to-all alone, the rest at the slower of the two.
fn pipeline(compute: f64, sent: f64, parts: usize) -> f64 {
    let p = parts.max(1) as f64;
    (compute + sent) / p + (p - 1.0) / p * compute.max(sent)
}

/// `estimate: one device 0.540 ms, 2 ranks 0.700 ms (memory 3350 GB/s, link 320 GB/s): one
/// device is faster`, with the host copies before the verdict where counted
/// (`; from and to host memory 1.07 GB, 40.1 ms through one device's link at 26.8 GB/s,
/// 20.3 ms through 2 at once at 52.9 GB/s`).
impl std::fmt::Display for Estimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "estimate: one device {:.3} ms, {} ranks {:.3} ms (memory {:.0} GB/s, link {:.0} \
             GB/s)",
            1e3 * self.one,
            self.ranks,
            1e3 * self.spread,
            self.bandwidths.memory / 1e9,
            self.bandwidths.link / 1e9,
        )?;
        if let Some(h) = self.host {
            write!(
                f,
                "; from and to host memory {:.2} GB, {:.3} ms through one device's link at \
                 {:.1} GB/s, {:.3} ms through {} at once at {:.1} GB/s",
                h.bytes / 1e9,
                1e3 * h.one,
                h.bytes / h.one / 1e9,
                1e3 * h.spread,
                self.ranks,
                h.bytes / h.spread / 1e9,
            )?;
        }
        write!(
            f,
            ": {} is faster",
            match self.spread_is_faster() {
                true => format!("{} ranks", self.ranks),
                false => "one device".into(),
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::pipeline;

    #[test]
    fn parts_overlap_the_shorter_side() {
        assert_eq!(pipeline(2.0, 3.0, 1), 5.0);
        // 4 parts: 0.5 of transform, then 3 × max(0.5, 0.75), then 0.75 of all-to-all.
        assert_eq!(pipeline(2.0, 3.0, 4), 0.5 + 3.0 * 0.75 + 0.75);
        assert_eq!(pipeline(3.0, 0.0, 8), 3.0);
        assert_eq!(pipeline(1.0, 1.0, 0), 2.0);
    }
}
