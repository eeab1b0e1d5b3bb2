//! An even real transform's split or merge fused into the passes of its half-length complex
//! transform ([`RealHalf`]), so that R2C and C2R move the bytes of one complex transform of
//! half the length instead of that plus a pass of their own.
//!
//! The merge (C2R) needs bins `k` and `n − k` of each point's row: the first pass loads both
//! from device memory, whatever the number of passes. The split (R2C) needs the transform's
//! outputs `k` and `n − k` together, which only a one-pass line holds (through workgroup
//! memory after the last stage); a longer transform keeps the split as a step of its own.

use std::sync::Arc;

use num_complex::Complex32;

use super::{DeviceLimits, LineOrder, Pass};
use crate::error::{Error, Result};
use crate::spec::{FftSpec, RealHalf};

/// The split or merge a pass fuses, with the twiddles it reads from `aux`.
#[derive(Clone, Debug, PartialEq)]
pub struct RealFusion {
    /// Split or merge, with its scale.
    pub half: RealHalf,
    /// `W^k = exp(−πik/n)`, `k = 0..=n` (`n` the half-length transform's points; the real
    /// row's `2n`-point twiddles).
    pub twiddles: Arc<[Complex32]>,
}

/// The error for a real transform whose split or merge cannot be fused, saying why.
pub(super) fn unfusable(spec: &FftSpec, limits: &DeviceLimits, why: &str) -> Error {
    Error::Unsupported {
        what: format!(
            "a {}-point real transform's {:?} fused into its {}-point complex transform",
            2 * spec.n,
            spec.real,
            spec.n
        ),
        device: limits.name.clone(),
        detail: format!("{why}; run it as a transform and a step of its own (NdPlan does)"),
    }
}

/// Puts the split on the last pass (one-pass plans of rows only) or the merge on the first.
/// `n` is the half-length transform's points.
pub(super) fn fuse(
    passes: &mut [Pass],
    n: usize,
    half: RealHalf,
    limits: &DeviceLimits,
) -> Result<()> {
    let fusion = RealFusion {
        half,
        twiddles: crate::twiddle::table(n + 1, 1, 2 * n, -1.0).into(),
    };
    let count = passes.len();
    let too_long = || Error::Unsupported {
        what: format!("a {}-point R2C's split fused into its last pass", 2 * n),
        device: limits.name.clone(),
        detail: format!(
            "the {n}-point half-length transform takes {} passes, and only a one-pass line \
             holds the points k and n − k the split pairs",
            count
        ),
    };
    match half {
        RealHalf::Split { .. } => {
            let [pass] = passes else {
                return Err(too_long());
            };
            if pass.order != LineOrder::Contiguous || pass.prefetch {
                return Err(too_long());
            }
            pass.real = Some(fusion);
            pass.dst_len = n + 1;
            // The split's own exchange stores each line's bins, contiguous across its threads.
            pass.staged_store = false;
            fit_workgroup(pass, limits);
        }
        RealHalf::Merge { .. } => {
            let pass = &mut passes[0];
            pass.real = Some(fusion);
            pass.src_len = n + 1;
            // Each point reads its own two bins: no tile through workgroup memory.
            pass.staged_load = false;
            pass.prefetch = false;
            pass.tables_in_shared = 0;
            fit_workgroup(pass, limits);
        }
    }
    Ok(())
}

/// Halves the lines a workgroup packs until its workgroup memory fits the device (the split's
/// exchange may be the pass's first).
fn fit_workgroup(pass: &mut Pass, limits: &DeviceLimits) {
    while pass.workgroup_bytes() > limits.workgroup_memory && pass.lines_per_group > 1 {
        pass.lines_per_group /= 2;
    }
    if pass.workgroup_bytes() > limits.workgroup_memory {
        pass.padded = false;
    }
}
