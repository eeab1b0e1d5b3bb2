//! The planner's estimate of a distributed transform beside the same transform on one of
//! its devices, from the bytes each moves: through device memory (every pass of every
//! transform, every packing copy, read and written) at the memory's bandwidth, and to the
//! peers at the link's; the parts of a slab's change of layout overlapping as planned (the
//! all-to-all of one part beside the transform of the next). It counts bytes, not the
//! strided access of some passes, so it says which side is faster where the two differ by
//! more than that, and is checked against the measured times in `tierfft bench --gpus N`.

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
}

impl Bandwidths {
    /// Memory and link bandwidths, bytes per second.
    pub fn new(memory: f64, link: f64) -> Bandwidths {
        Bandwidths { memory, link }
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
        Ok(Bandwidths {
            memory: first.memory_bandwidth()?,
            link: super::link_bandwidth(first, second)?,
        })
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
}

impl Estimate {
    /// The estimate for `ranks` (every rank of one distributed transform) against `one`, the
    /// same transform planned on one device; `None` where a transform has no device plan to
    /// count (the CPU).
    pub fn new(one: &NdFft, ranks: &[RankFft], bandwidths: Bandwidths) -> Option<Estimate> {
        let Bandwidths { memory, link } = bandwidths;
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
        })
    }

    /// True when spreading the transform is estimated faster than one device.
    pub fn spread_is_faster(&self) -> bool {
        self.spread < self.one
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
/// device is faster`.
impl std::fmt::Display for Estimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "estimate: one device {:.3} ms, {} ranks {:.3} ms (memory {:.0} GB/s, link {:.0} \
             GB/s): {} is faster",
            1e3 * self.one,
            self.ranks,
            1e3 * self.spread,
            self.bandwidths.memory / 1e9,
            self.bandwidths.link / 1e9,
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
