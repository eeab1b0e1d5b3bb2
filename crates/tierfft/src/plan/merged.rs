//! Two passes in one launch: the workgroups of one persistent kernel take tiles (a
//! workgroup's worth of lines) of either pass by ticket, the first pass running a few
//! transforms ahead of the second, so that a transform's intermediate is read back from the
//! L2 cache soon after it was written there, with no launch or tail between the passes.
//!
//! Every line of a transform's second pass reads a point of every line of its first, so a
//! second-pass tile waits until its transform's first-pass tiles are done: each transform has
//! a done-counter that its first-pass tiles raise. Tickets are handed out in order and a
//! second-pass tile is always issued after its transform's first-pass tiles, which are held
//! by running workgroups: the wait ends. The intermediate is the result's buffer itself (the
//! second pass reads and writes the same points of each line: it runs in place there).

use super::{Body, DeviceLimits, LineOrder, Pass, PlanOptions, StoreOp};
use crate::spec::{FftSpec, Layout};

/// Two passes run as one launch whose workgroups take tiles by ticket ([`Plan::merged`]).
///
/// Tickets of a launch over `T` transforms run: the first pass of transforms `0..lag`, then,
/// for each transform `k`, the second pass of `k` followed by the first pass of `k + lag`
/// (while there is one), each as its tiles in order ([`Merged::ticket`]).
///
/// [`Plan::merged`]: super::Plan::merged
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Merged {
    /// Tiles per transform of the first and of the second pass: its lines per transform over
    /// its lines per workgroup.
    pub tiles: [usize; 2],
    /// Transforms the first pass runs ahead of the second: enough that a second-pass tile's
    /// transform was started about a wave of workgroups earlier (and has finished), few
    /// enough that the transforms in flight stay in the L2 cache.
    pub lag: usize,
    /// Most workgroups the launch keeps (its wave; [`PlanOptions::persistent_groups`]);
    /// `None`: as many as the device holds at once.
    pub groups: Option<usize>,
}

/// What one ticket of a merged launch does: a tile of pass 0 or 1 of one of its
/// transforms ([`Merged::ticket`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket {
    /// The pass, 0 or 1.
    pub pass: usize,
    /// The transform, within the launch.
    pub transform: usize,
    /// The tile, within the pass's tiles of the transform.
    pub tile: usize,
}

impl Merged {
    /// Tickets in a launch over `transforms` transforms.
    pub fn tickets(&self, transforms: usize) -> usize {
        transforms * (self.tiles[0] + self.tiles[1])
    }

    /// What ticket `t` of a launch over `transforms` transforms does: the order the kernel
    /// decodes (kernel::pass::merged), kept here so that it can be printed and tested.
    pub fn ticket(&self, t: usize, transforms: usize) -> Ticket {
        let [t1, t2] = self.tiles;
        let lead = self.lag.min(transforms);
        let head = lead * t1;
        let steady_end = head + (transforms - lead) * (t1 + t2);
        if t < head {
            return Ticket {
                pass: 0,
                transform: t / t1,
                tile: t % t1,
            };
        }
        if t < steady_end {
            let (k, r) = ((t - head) / (t1 + t2), (t - head) % (t1 + t2));
            return match r < t2 {
                true => Ticket {
                    pass: 1,
                    transform: k,
                    tile: r,
                },
                false => Ticket {
                    pass: 0,
                    transform: k + lead,
                    tile: r - t2,
                },
            };
        }
        let v = t - steady_end;
        Ticket {
            pass: 1,
            transform: transforms - lead + v / t2,
            tile: v % t2,
        }
    }
}

/// Whether `spec`'s two `passes` run merged on `limits`, and how; evens out their threads
/// per workgroup (more lines for the pass with fewer) where that is all that stands in the
/// way. `None`: they run as two launches.
///
/// Merged, where [`PlanOptions::merge`] asks for it, are plain row transforms (no fused
/// operations but a scale, no chain, real half or checksum) of two passes whose lines fill
/// whole workgroups, on devices where workgroups may wait for one another
/// ([`DeviceLimits::workgroups_wait`]).
pub(super) fn choose(
    spec: &FftSpec,
    limits: &DeviceLimits,
    opts: &PlanOptions,
    passes: &mut [Pass],
    resident: bool,
) -> Option<Merged> {
    // Off unless asked for: on the H100 the merged launch measured 0.81-1.01 of the two
    // launches' speed at 2^17..2^21 (docs/BENCHMARKS.md).
    let wanted = opts.merge == Some(true);
    let plain = |p: &Pass| {
        p.load.ops.is_empty()
            && p.store.ops.iter().all(|op| matches!(op, StoreOp::Scale(_)))
            && matches!(p.body, Body::Fft { inverse: false })
            && p.cluster.is_none()
            && p.persistent.is_none()
            && p.src_len == spec.n
            && p.dst_len == spec.n
            && p.order == LineOrder::Interleaved
            && (spec.n / p.size).is_multiple_of(p.lines_per_group)
    };
    if !wanted
        || !limits.workgroups_wait
        || resident
        || passes.len() != 2
        || spec.layout != Layout::Rows
        || spec.chain.is_some()
        || spec.real.is_some()
        || !spec.load.is_empty()
        || !spec.store.is_empty()
        || !passes.iter().all(plain)
        || passes[0].exchange != passes[1].exchange
    {
        return None;
    }
    // Even out the threads: more lines for the pass with fewer, where they still fit.
    let (few, many) = match passes[0].threads() < passes[1].threads() {
        true => (0, 1),
        false => (1, 0),
    };
    let ratio = passes[many].threads() / passes[few].threads();
    if passes[few].threads() * ratio != passes[many].threads() {
        return None;
    }
    if ratio > 1 {
        let mut wider = passes[few].clone();
        wider.lines_per_group *= ratio;
        if wider.workgroup_bytes() > limits.workgroup_memory
            || !(spec.n / wider.size).is_multiple_of(wider.lines_per_group)
        {
            return None;
        }
        passes[few] = wider;
    }
    let tiles = [0, 1].map(|i| spec.n / passes[i].size / passes[i].lines_per_group);
    // About a wave of workgroups between a transform's first tiles and its second pass's:
    // a workgroup of `threads` threads and the larger pass's workgroup memory, as many per
    // compute unit as 2048 threads and the workgroup memory allow.
    let threads = passes[0].threads();
    let shared = passes.iter().map(Pass::workgroup_bytes).max().unwrap_or(0);
    let per_unit = (2048 / threads)
        .min(
            limits
                .workgroup_memory
                .checked_div(shared)
                .unwrap_or(usize::MAX),
        )
        .max(1);
    let wave = per_unit * limits.compute_units.max(1);
    Some(Merged {
        tiles,
        lag: wave.div_ceil(tiles[0] + tiles[1]).max(1),
        groups: opts.persistent_groups,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every ticket is one tile of one pass, each tile is taken once, and a transform's
    /// second-pass tiles come after all of its first-pass tiles.
    #[test]
    fn tickets_cover_every_tile_once_in_order() {
        for (tiles, lag, transforms) in [
            ([4, 4], 1, 5),
            ([3, 5], 2, 7),
            ([8, 2], 6, 3),
            ([1, 1], 1, 1),
        ] {
            let m = Merged {
                tiles,
                lag,
                groups: None,
            };
            let mut seen = vec![[0usize; 2]; transforms];
            for t in 0..m.tickets(transforms) {
                let k = m.ticket(t, transforms);
                assert!(k.tile < tiles[k.pass], "{m:?} ticket {t}: {k:?}");
                if k.pass == 1 {
                    assert_eq!(seen[k.transform][0], tiles[0], "{m:?} ticket {t}: {k:?}");
                }
                assert_eq!(seen[k.transform][k.pass], k.tile, "{m:?} ticket {t}: {k:?}");
                seen[k.transform][k.pass] += 1;
            }
            assert!(seen.iter().all(|s| *s == tiles), "{m:?}: {seen:?}");
        }
    }
}
