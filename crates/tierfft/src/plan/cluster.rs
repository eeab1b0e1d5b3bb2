//! The cluster tier: a transform too long for one workgroup's memory, in one pass over device
//! memory by a cluster of workgroups that exchange through each other's workgroup memory
//! (CUDA thread-block clusters and distributed shared memory, sm_90 and up).
//!
//! The transform of `n = P1·P2` points is the two passes a multi-pass plan would make (lines
//! of `P1` points at stride 1, then lines of `P2` at stride `P1` with the pass twiddles), but
//! the intermediate never reaches device memory: a cluster of `C` workgroups holds one
//! transform, `n / C` points each. Workgroup `b` runs head lines `j ∈ [b·P2/C, (b+1)·P2/C)`
//! (reading the input once), and sends head output `q` of line `j` to the workgroup that runs
//! tail line `q` (`q / (P1/C)`), where it lands in column `j` of row `q mod (P1/C)` of a table
//! of rows of `P2 + 1` points: neighbouring threads hold neighbouring lines, so a warp's
//! remote stores are one contiguous run, and the extra point keeps the tail's reads of
//! neighbouring rows off a single bank. After a cluster barrier each workgroup runs its
//! `P1/C` tail lines, one per row of its table, and stores the result once.

use super::shape::{self, split_evenly};
use super::{DeviceLimits, Exchange, LineOrder, Pass, PlanOptions, StoreOp, normalization};
use crate::spec::{FftSpec, Layout, RealHalf};

/// The second half of a cluster pass ([`Pass::cluster`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Cluster {
    /// Workgroups in one cluster; each holds `n / blocks` points of one transform.
    pub blocks: usize,
    /// The tail: lines of `n / P1` points at stride `P1` (the head's size), read from the
    /// cluster's workgroup memory, written to device memory with the spec's store operations
    /// and scale.
    pub tail: Pass,
}

impl Cluster {
    /// Workgroup-memory elements of the table the head's outputs are sent to: one row per
    /// tail line of the workgroup, of the tail's `size` points plus one.
    pub fn table_len(&self) -> usize {
        self.tail.lines_per_group * self.row()
    }

    /// Elements from one row of the table to the next.
    pub fn row(&self) -> usize {
        self.tail.size + 1
    }
}

/// Workgroups per cluster every device with clusters runs (CUDA's portable size); larger
/// clusters need the kernel's opt-in, which the CUDA backend gives.
pub const MAX_PORTABLE_CLUSTER: usize = 8;

/// Most workgroups per cluster the planner takes (the H100's non-portable limit), within
/// what the device reports ([`DeviceLimits::max_cluster_blocks`]).
pub const MAX_CLUSTER: usize = 16;

/// The one cluster pass for `spec` on `limits`, where the device has clusters, the transform
/// is a power-of-two row transform without a chain (which keeps its passes; an even real
/// transform's split or merge fuses into the tail or the head, [`super::real::fuse`]),
/// larger than `block` (one workgroup's on-chip points) and at most `block` times the cluster
/// size: [`PlanOptions::cluster_blocks`] workgroups, or by default as many of half a block
/// as the cluster size allows (two to a compute unit), else of a whole block, for a batch
/// of at least a block's worth of points per compute unit. `None` otherwise, or where the
/// option is 1.
pub(super) fn cluster_pass(
    spec: &FftSpec,
    limits: &DeviceLimits,
    opts: &PlanOptions,
    block: usize,
) -> Option<Pass> {
    let n = spec.n;
    let most = limits.max_cluster_blocks.min(MAX_CLUSTER);
    if !n.is_power_of_two()
        || n <= block
        || most < 2
        || spec.layout != Layout::Rows
        || spec.chain.is_some()
        || matches!(spec.real, Some(RealHalf::Truncate | RealHalf::Extend))
        // Checksummed cluster passes add their sums by warp shuffles, a record per warp.
        || (spec.checksum != crate::Checksum::Off && !(limits.lane_sums && limits.subgroup_size == 32))
    {
        return None;
    }
    // By default the most workgroups of half a block each, two to a compute unit so that one's
    // loads and stores overlap the other's exchanges, within the portable cluster size; else
    // whole blocks; and only where the batch gives every compute unit at least a block's worth
    // of points. On the H100 against cuFFT (docs/BENCHMARKS.md, "2026-11-24, commit b0d73a8"
    // and "2026-11-24, commits fcf65e0 to 08615e9"): 2^15 in 4 × 8192 points 1.18 at 1 GiB (two
    // passes 0.81), 2^16 in 8 × 8192 1.38 (1.05); below about 2^21 points in all, two passes
    // win (2^16 × 32: 35.7 µs against 37.0; × 64: 66.4 against 56.5; 2^17 × 1: 13.7 against
    // 25.1). 2^17 in 8 whole blocks loses to two passes by 2–28 % as a C2C transform at every
    // batch, but as the half of a 2^18-real R2C or C2R (256 rows) it ran at 0.93–0.95 of cuFFT
    // against 0.61–0.76 with two passes, and with the split or merge fused into it at 1.14–1.24
    // ("2026-12-06, commits 8b8c90e and the next"), so it stays. Clusters of 16 lost at every
    // length.
    let portable = most.min(MAX_PORTABLE_CLUSTER);
    let half_blocks = n / (block / 2).max(1);
    let fills_units = limits.filled_by(spec.batch.saturating_mul(n), block);
    let (blocks, most) = match opts.cluster_blocks {
        Some(1) => return None,
        Some(c) => (c, most),
        None if !fills_units => return None,
        None if half_blocks <= portable => (half_blocks, portable),
        None => (n / block, portable),
    };
    let per_block = n / blocks;
    let groups_per_unit = opts
        .groups_per_unit
        .or((2 * per_block <= block).then_some(2));
    if blocks > most || per_block > block || per_block < 2 {
        return None;
    }
    // Points per thread: the most threads a workgroup may have, at least 16 (registers are
    // plentiful where clusters exist), or the option.
    let points = opts
        .points_per_thread
        .unwrap_or((per_block / limits.max_threads).max(16))
        .min(per_block);
    let threads = per_block / points;
    // Unless asked otherwise, radix 16 for 16 points a thread (on the H100 at 2^15, 1024
    // threads, 1.33 ms against radix 8's 1.79 ms, which spilled under the 64-register cap) and
    // radix 8 for more (radix 16 in two rounds holds 32 points and 30 twiddles at once and
    // spills under 128), as the one-pass shapes do (docs/BENCHMARKS.md,
    // "2026-11-24, commit b0d73a8").
    let radix = match opts.max_radix {
        super::MAX_RADIX if points <= 16 => 16,
        r => r,
    }
    .min(points);
    let k = n.trailing_zeros();
    let halves = split_evenly(k, 2);
    let (head, tail) = (1usize << halves[0], 1usize << halves[1]);
    // Every line needs a whole number of threads and each workgroup whole lines.
    if threads > limits.max_threads || head < points.max(blocks) || tail < points.max(blocks) {
        return None;
    }
    let step = |size: usize, stride: usize| {
        let mut pass = Pass::step(
            size,
            shape::radices(size, radix),
            stride,
            (size / points, points, per_block / size),
            LineOrder::Interleaved,
            Exchange::Complex,
            spec.precision,
            groups_per_unit,
            n,
        );
        pass.padded = true;
        pass
    };
    let mut last = step(tail, head);
    last.store
        .ops
        .extend(normalization(spec).map(StoreOp::Scale));
    let mut pass = step(head, 1);
    pass.cluster = Some(Box::new(Cluster { blocks, tail: last }));
    if pass.workgroup_bytes() > limits.workgroup_memory {
        pass.padded = false;
        if let Some(c) = pass.cluster.as_mut() {
            c.tail.padded = false;
        }
    }
    // A checksummed pass writes a record per warp: its workgroups are whole warps.
    let whole_warps = spec.checksum == crate::Checksum::Off
        || pass.threads().is_multiple_of(limits.subgroup_size);
    (whole_warps && pass.workgroup_bytes() <= limits.workgroup_memory).then_some(pass)
}
