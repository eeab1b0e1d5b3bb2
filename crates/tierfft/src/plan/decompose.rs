//! Decomposition: the passes over device memory a smooth length takes, of which sizes, and
//! the on-chip block and exchange they assume. What each pass fuses comes after
//! ([`super::roles`]), and how many transforms each launch covers after that.

use super::passes::{multi_pass, pad_if_it_fits, single_pass};
use super::shape::{self, prev_power_of_two, split_evenly};
use super::{DeviceLimits, Exchange, MAX_HELD_POINTS, Pass, PlanOptions, WIDE_MIN_LINES, cluster};
use crate::base::precision::Precision;
use crate::error::{Error, Result};
use crate::spec::{FftSpec, Layout, PointOp, RealHalf};

/// Points per line of the last of two passes where the first pass's workgroups stay within
/// half a block ([`decompose`]).
const SHORT_LAST_PASS: usize = 512;

/// Lines a workgroup of the passes of an f32 R2C whose split rides on the last of several.
const SPLIT_MIN_LINES: usize = 16;

/// Neighbouring columns a workgroup of an `n`-point column transform holds at least, for a
/// device whose on-chip block is `complex_block` points. Measured on the H100
/// (docs/BENCHMARKS.md, "2026-11-24, commits 50cb77a and 584b866"): more columns read longer
/// runs (16 × 512-point columns beat 4 by 15 % on 512³), as long as the transform stays one
/// pass and two workgroups' exchanges share a compute unit (16 × 1024 lost to 8); else one
/// memory transaction's worth (4 × 8 bytes in f32). Fewer than that (2 × 8192 points in one
/// pass) won in place but lost 2× out of place (the SAR azimuth FFT), so the planner does not
/// go below a transaction.
fn column_lines(
    n: usize,
    complex_block: usize,
    limits: &DeviceLimits,
    precision: Precision,
) -> usize {
    let bytes = precision.complex_bytes();
    let transaction = (limits.transaction_bytes / bytes).max(1);
    let shares_a_unit = |l: usize| {
        n * l <= complex_block
            && 2 * Exchange::Complex.bytes(precision) * n * l <= limits.workgroup_memory
    };
    [16, 8, 4]
        .into_iter()
        .filter(|&l| l >= transaction)
        .find(|&l| shares_a_unit(l))
        .unwrap_or(transaction)
}

/// The passes of `spec`'s transform (a smooth length) and the block `(points, exchange)`
/// they were sized for: one pass where a line fits on chip (or in a cluster's), else the
/// fewest passes whose lines fit. Errors where one transform, or a whole batch that must be
/// bound at once, exceeds a binding, or where no split fits.
pub(super) fn decompose(
    spec: &FftSpec,
    limits: &DeviceLimits,
    opts: &PlanOptions,
) -> Result<((usize, Exchange), Vec<Pass>)> {
    let n = spec.n;
    let too_large = |what: String, detail: String| Error::TooLarge {
        what,
        device: limits.name.clone(),
        detail,
    };
    let element_bytes = spec.precision.complex_bytes();
    let transform_bytes = (element_bytes * n) as u64;
    if transform_bytes > limits.max_binding {
        return Err(too_large(
            format!(
                "one transform of {n} points ({} MiB)",
                transform_bytes >> 20
            ),
            format!(
                "the device binds at most {} MiB per buffer; use a smaller n",
                limits.max_binding >> 20
            ),
        ));
    }
    let pow2 = n.is_power_of_two();
    // Powers of two: the largest power-of-two block that fits (so passes split log2 n
    // evenly); other lengths: whatever fits.
    let block_for = |ex: Exchange| {
        let by_memory = limits.workgroup_memory / ex.bytes(spec.precision);
        let by_memory = if pow2 {
            prev_power_of_two(by_memory)
        } else {
            by_memory
        };
        let mut points = limits
            .max_points_per_thread
            .max(opts.max_radix)
            .max(opts.points_per_thread.unwrap_or(1));
        if !pow2 && limits.registers_per_workgroup > 0 && spec.batch >= WIDE_MIN_LINES {
            // Where the register file is known, lines may hold more (RegisterBudget).
            points = points.max(MAX_HELD_POINTS);
        }
        by_memory.min(limits.max_threads * points).max(1)
    };
    let (complex_block, split_block) = (block_for(Exchange::Complex), block_for(Exchange::Split));
    let transaction = (limits.transaction_bytes / element_bytes).max(1);
    let min_lines = opts.min_lines.unwrap_or(match spec.layout {
        // An f32 R2C's split on the last of several passes stores lines and their mirror
        // lines: 128-byte runs of both (16 lines) took 2^22..2^24 reals from 0.71-0.76 of
        // cuFFT with the split a step of its own to 0.91-0.92 on the H100, through three
        // passes instead of two (docs/BENCHMARKS.md, "2026-12-06, commits 61c9446 to 86360fa").
        Layout::Rows
            if spec.precision == Precision::F32
                && matches!(spec.real, Some(RealHalf::Split { .. })) =>
        {
            SPLIT_MIN_LINES
        }
        Layout::Rows => transaction,
        Layout::Columns { .. } => column_lines(n, complex_block, limits, spec.precision),
    });
    // Columns: a workgroup holds `min_lines` neighbouring columns.
    let one_pass_lines = match spec.layout {
        Layout::Rows => 1,
        Layout::Columns { .. } => min_lines,
    };
    let whole = spec.whole_batch();
    let matrix_bytes = (element_bytes * spec.len()) as u64;
    if whole && matrix_bytes > limits.max_binding {
        return Err(too_large(
            format!(
                "{} × {} elements ({} MiB) bound at once",
                spec.batch,
                n,
                matrix_bytes >> 20
            ),
            format!(
                "column transforms and per-element multiplies bind the whole batch, and the \
                     device binds at most {} MiB per buffer",
                limits.max_binding >> 20
            ),
        ));
    }

    // A chain runs as passes of its own (the forward transform's, then the back-transform's,
    // each binding its own vectors) where it is longer than one kernel holds well, or where
    // its vectors (the load's multiplies, the filter, the store's) do not fit one binding.
    // (Bytes as the vectors buffer lays them out: each from the binding alignment.)
    let element = 2 * spec.precision.compute_bytes() as u64;
    let vectors = spec
        .load
        .iter()
        .chain(&spec.store)
        .filter_map(PointOp::vector);
    let vector_bytes: u64 = vectors
        .chain(spec.chain.clone())
        .map(|v| (element * v.len() as u64).next_multiple_of(limits.binding_alignment))
        .sum();
    let long_chain = spec.chain.is_some()
        && (n > opts.max_chain_points.unwrap_or(limits.max_chain_points)
            || vector_bytes > limits.max_binding);
    let fused_chain = spec.chain.is_some() && !long_chain;
    let single = |ex: Exchange| single_pass(spec, limits, opts, ex, min_lines, fused_chain);
    let exchange = opts.exchange_on(limits);
    let allowed = |ex: Exchange| exchange.is_none_or(|want| want == ex);
    let complex = allowed(Exchange::Complex);
    // The device's rounds of the complex exchange, where the options choose neither
    // ([`DeviceLimits::exchange_rounds`]; 1: none).
    let device_rounds = match opts.exchange.is_none()
        && opts.exchange_rounds.is_none()
        && opts.prefetch != Some(true)
        && spec.precision == Precision::F32
    {
        true => limits.exchange_rounds,
        false => 1,
    };
    let passes = if pow2 {
        if complex && n * one_pass_lines <= complex_block {
            single(Exchange::Complex).map(|p| ((complex_block, Exchange::Complex), vec![p]))
        } else if let Some(p) = complex
            .then(|| cluster::cluster_pass(spec, limits, opts, complex_block))
            .flatten()
        {
            // Longer than one workgroup holds, within a cluster's: one pass.
            Some(((complex_block, Exchange::Complex), vec![p]))
        } else if let Some(p) = in_rounds(spec, limits, device_rounds, Exchange::Complex, &single) {
            // The device's own rounds of the complex exchange.
            Some(((complex_block, Exchange::Complex), vec![p]))
        } else if allowed(Exchange::Split) && n * one_pass_lines <= split_block {
            single(Exchange::Split).map(|p| ((split_block, Exchange::Split), vec![p]))
        } else if let Some(p) = in_rounds(
            spec,
            limits,
            opts.exchange_rounds.unwrap_or(1),
            exchange.unwrap_or(Exchange::Complex),
            &single,
        ) {
            // The registers hold the line, workgroup memory a part of it at a time.
            let ex = p.exchange;
            Some(((block_for(ex), ex), vec![p]))
        } else {
            // Fewest passes; on a tie the cheaper complex exchange.
            let k = n.trailing_zeros();
            let count = |b: usize| k.div_ceil((b / min_lines).max(2).ilog2());
            let ex = match exchange {
                Some(ex) => ex,
                None if count(split_block) < count(complex_block) => Exchange::Split,
                None => Exchange::Complex,
            };
            let block = block_for(ex);
            let passes = count(block);
            // Two passes of rows: a last pass of 512-point lines (8 to a workgroup, so the
            // strided reads come in 64-byte runs) where the first pass's workgroups then hold
            // at most half a block (two to a compute unit). On the H100, 2^20 as 2048 × 512 ran
            // at 0.96 of cuFFT against 0.85 as 1024 × 1024; 2^21 as 4096 × 512 (one workgroup
            // to an SM) lost (docs/BENCHMARKS.md, "2026-11-24, commits fcf65e0 to 08615e9").
            let short_last = (passes == 2
                && spec.layout == Layout::Rows
                && n > SHORT_LAST_PASS * SHORT_LAST_PASS
                && n / SHORT_LAST_PASS * min_lines <= block / 2)
                .then_some(SHORT_LAST_PASS);
            let (bits, last) = match opts.last_pass_points.or(short_last) {
                // The passes before the last: as few as hold the rest of the points (a
                // short last pass can leave more than `passes - 1` blocks' worth).
                Some(last) if last < n => {
                    let rest = k - last.ilog2();
                    let per = (block / min_lines).max(2).ilog2();
                    (split_evenly(rest, rest.div_ceil(per).max(1)), Some(last))
                }
                _ => (split_evenly(k, passes), None),
            };
            let sizes: Vec<usize> = bits.into_iter().map(|b| 1 << b).chain(last).collect();
            multi_pass(spec, limits, opts, ex, &sizes, min_lines).map(|p| ((block, ex), p))
        }
    } else {
        // Other smooth lengths: one pass where a line fits on chip, else the fewest passes
        // whose sizes (the prime factors shared out evenly) each fit.
        let blocks = [
            (complex_block, Exchange::Complex),
            (split_block, Exchange::Split),
        ];
        let blocks: Vec<_> = blocks.into_iter().filter(|&(_, ex)| allowed(ex)).collect();
        let one = blocks
            .iter()
            .filter(|(b, _)| n * one_pass_lines <= *b)
            .find_map(|&(b, ex)| single(ex).map(|p| ((b, ex), vec![p])));
        one.or_else(|| {
            (2..=shape::MAX_PASSES).find_map(|parts| {
                blocks.iter().find_map(|&(b, ex)| {
                    let sizes = shape::split_factors(n, parts, b / min_lines)?;
                    multi_pass(spec, limits, opts, ex, &sizes, min_lines).map(|p| ((b, ex), p))
                })
            })
        })
    };
    let Some((block, passes)) = passes else {
        return Err(too_large(
            format!("an FFT of {n} points"),
            "no split into passes fits the device's workgroup memory and threads".into(),
        ));
    };

    Ok((block, passes))
}

/// A one-pass row transform whose exchanges go through workgroup memory in rounds
/// ([`Pass::rounds`]), at most `most` ([`PlanOptions::exchange_rounds`], else
/// [`DeviceLimits::exchange_rounds`]): the fewest rounds (a power of two) in which `single`'s
/// line fits the memory in exchange `ex`. `None` where fewer than two are allowed, the spec
/// fuses anything past a scale (a chain, a real half, checksums: they use workgroup memory
/// of their own), or no number of rounds allowed fits.
fn in_rounds(
    spec: &FftSpec,
    limits: &DeviceLimits,
    most: usize,
    ex: Exchange,
    single: &dyn Fn(Exchange) -> Option<Pass>,
) -> Option<Pass> {
    if most < 2
        || spec.layout != Layout::Rows
        || spec.chain.is_some()
        || spec.real.is_some()
        || spec.checksum != crate::Checksum::Off
    {
        return None;
    }
    let mut pass = single(ex)?;
    if pass.prefetch() || pass.load.staged || pass.store.staged || pass.exchanges() == 0 {
        return None;
    }
    let points = pass.size * pass.lines_per_group;
    let bytes = points * ex.bytes(spec.precision);
    let rounds = bytes.div_ceil(limits.workgroup_memory).next_power_of_two();
    // (A line whose exchange fits at once is no business of this.)
    if rounds < 2 || rounds > most || !points.is_multiple_of(rounds * ex.pad_period()) {
        return None;
    }
    pass.rounds = rounds;
    let pass = pad_if_it_fits(pass, limits);
    (pass.workgroup_bytes() <= limits.workgroup_memory).then_some(pass)
}
