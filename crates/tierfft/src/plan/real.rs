//! An even real transform's split or merge fused into the passes of its half-length complex
//! transform ([`RealHalf`]), so that R2C and C2R move the bytes of one complex transform of
//! half the length instead of that plus a pass of their own.
//!
//! The merge (C2R) needs bins `k` and `n − k` of each point's row: the first pass loads bin
//! `k` and, in a one-pass line of at most 16 points a thread, reads bin `n − k` from the
//! thread that loaded it through workgroup memory, else from device memory too. The split (R2C) needs the transform's
//! outputs `k` and `n − k` together: a one-pass line holds both, and in the last of several
//! passes a workgroup can hold a line and its mirror line (`split_line`). Which of these
//! the N-D planner uses is its own choice, measured (`NdPlan::for_device`).

use super::{DeviceLimits, LineOrder, LoadOp, Pass, StoreOp};
use crate::base::precision::Precision;
use crate::base::values::Values;
use crate::error::{Error, Result};
use crate::spec::{FftSpec, RealHalf};

/// The split or merge a pass fuses, with the twiddles it reads from `aux`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct RealFusion {
    /// Split or merge, with its scale.
    pub half: RealHalf,
    /// `W^k = exp(−πik/n)`, `k = 0..=n` (`n` the half-length transform's points; the real
    /// row's `2n`-point twiddles) in the plan's precision, read from `aux`; `None` for a
    /// split on the last of several passes, which takes them from the pass twiddles' small
    /// tables.
    pub twiddles: Option<Values>,
}

/// The error for a real transform whose split or merge cannot be fused, saying why.
pub(super) fn unfusable(spec: &FftSpec, limits: &DeviceLimits, why: &str) -> Error {
    let (step, reals) = match spec.real {
        Some(RealHalf::Merge { .. }) => ("merge", 2 * spec.n),
        Some(RealHalf::Truncate) => ("cut to n/2 + 1 bins", spec.n),
        Some(RealHalf::Extend) => ("Hermitian extension", spec.n),
        _ => ("split", 2 * spec.n),
    };
    Error::Unsupported {
        what: format!(
            "a {reals}-point real transform's {step} fused into its {}-point complex transform",
            spec.n
        ),
        device: limits.name.clone(),
        detail: format!("{why}; run it as a transform and a step of its own (NdPlan does)"),
    }
}

/// Puts `spec`'s split or cut on the last pass, its merge or extension on the first.
///
/// A one-pass line holds all its points. In a longer plan the last pass's line `j` (of
/// `S = n / size`) holds outputs `j + q·S`, whose mirrors `n − j − q·S` lie in line `S − j`
/// (lines 0 and `S/2` are their own mirrors), so each workgroup of `L` lines takes `L/2`
/// lines and their mirrors (`split_line`): that needs an even `L` dividing `S`.
pub(super) fn fuse(passes: &mut [Pass], spec: &FftSpec, limits: &DeviceLimits) -> Result<()> {
    let Some(half) = spec.real else {
        return Ok(());
    };
    let n = spec.n;
    let table = || {
        Some(match spec.precision {
            Precision::F64 => Values::from(crate::base::twiddle::table(n + 1, 1, 2 * n, -1.0)),
            _ => Values::from(crate::base::twiddle::table32(n + 1, 1, 2 * n, -1.0)),
        })
    };
    let unpaired = |why: String| unfusable(spec, limits, &why);
    match half {
        RealHalf::Split { .. } => {
            let count = passes.len();
            let Some(last) = passes.last_mut() else {
                return Err(unpaired("the plan has no pass".into()));
            };
            // A cluster pass stores from its tail, the last of its two steps: paired as the
            // last of several passes.
            let several = count > 1 || last.cluster.is_some();
            let pass = match last.cluster.as_mut() {
                Some(c) => &mut c.tail,
                None => &mut *last,
            };
            let lines = n / pass.size;
            let pairs = match pass.order {
                // (Persistent kernels prefetch whole lines; not paired with a split yet.)
                LineOrder::Contiguous => !several && !pass.prefetch(),
                LineOrder::Interleaved => {
                    several
                        && pass.lines_per_group >= 2
                        && pass.lines_per_group.is_multiple_of(2)
                        && lines.is_multiple_of(pass.lines_per_group)
                }
            };
            if !pairs {
                return Err(unpaired(format!(
                    "its last pass's workgroups ({} lines of {} per transform, {:?}) cannot \
                     hold each line with its mirror",
                    pass.lines_per_group, lines, pass.order
                )));
            }
            pass.store.ops.push(StoreOp::Real(RealFusion {
                half,
                twiddles: if several { None } else { table() },
            }));
            pass.dst_len = n + 1;
            // The split's own exchange stores each line's bins, contiguous across its threads.
            pass.store.staged = false;
            if !several {
                fit_workgroup(pass, limits);
            }
            // (A cluster pass's lengths are its whole kernel's: the head's too.)
            last.dst_len = n + 1;
            if last.workgroup_bytes() > limits.workgroup_memory {
                return Err(unpaired(
                    "its exchange does not fit workgroup memory".into(),
                ));
            }
        }
        RealHalf::Truncate => {
            let Some(pass) = passes.last_mut() else {
                return Err(unpaired("the plan has no pass".into()));
            };
            // The store keeps the first n/2 + 1 points of each row (as Bluestein's last
            // pass keeps n of m), written by their own threads.
            pass.store.ops.push(StoreOp::Real(RealFusion {
                half,
                twiddles: None,
            }));
            pass.dst_len = n / 2 + 1;
            pass.store.staged = false;
        }
        RealHalf::Extend => {
            let pass = &mut passes[0];
            pass.load.ops.push(LoadOp::Real(RealFusion {
                half,
                twiddles: None,
            }));
            pass.src_len = n / 2 + 1;
            // Each point reads its own bin: no tile, no prefetched lines.
            pass.load.staged = false;
            pass.persistent = None;
        }
        RealHalf::Merge { .. } => {
            let pass = &mut passes[0];
            pass.load.ops.push(LoadOp::Real(RealFusion {
                half,
                twiddles: table(),
            }));
            pass.src_len = n + 1;
            // Each point reads its own two bins: no tile through workgroup memory, no
            // prefetched lines.
            pass.load.staged = false;
            pass.persistent = None;
        }
    }
    Ok(())
}

/// Line `j` (of `lines` per transform) that the `t`-th line of workgroup `g` takes in a
/// split's last pass of `group` lines: the first half of a workgroup takes
/// `j = g·group/2 + t`, the second half their mirrors `lines − j`, with the mirror of 0 (its
/// own) replaced by the other line that is its own mirror, `lines/2`. Each line once.
/// (The host model of the mapping `kernel::pass`'s `locate_line` generates, for its test.)
#[cfg(test)]
pub(crate) fn split_line(g: usize, t: usize, group: usize, lines: usize) -> usize {
    let half = group / 2;
    let base = g * half + t % half;
    match (t < half, base) {
        (true, _) => base,
        (false, 0) => lines / 2,
        (false, _) => lines - base,
    }
}

/// The workgroup and place `(g, t)` of line `j` in a split's last pass of `group` lines a
/// workgroup: the inverse of [`split_line`] (where a cluster pass's head sends the outputs of
/// its tail line `j`; the model of `kernel::pass`'s cluster kernel, for its test).
#[cfg(test)]
pub(crate) fn split_slot(j: usize, group: usize, lines: usize) -> (usize, usize) {
    let half = group / 2;
    let mirrored = 2 * j >= lines;
    let base = if mirrored {
        (lines - j) % (lines / 2)
    } else {
        j
    };
    (base / half, base % half + if mirrored { half } else { 0 })
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

#[cfg(test)]
mod tests {
    use super::{split_line, split_slot};

    #[test]
    fn split_lines_take_every_line_once_with_its_mirror() {
        for (group, lines) in [(2, 2), (2, 8), (4, 16), (16, 256), (8, 8)] {
            let mut seen = vec![false; lines];
            for g in 0..lines / group {
                for t in 0..group {
                    let j = split_line(g, t, group, lines);
                    assert!(!seen[j], "line {j} twice ({group}, {lines})");
                    seen[j] = true;
                    // Its mirror is in the same workgroup.
                    let mirror = (lines - j) % lines;
                    let partner = if j == 0 || 2 * j == lines {
                        t
                    } else {
                        t ^ (group / 2)
                    };
                    assert_eq!(split_line(g, partner, group, lines), mirror);
                    assert_eq!(split_slot(j, group, lines), (g, t));
                }
            }
            assert!(seen.iter().all(|&s| s));
        }
    }
}
