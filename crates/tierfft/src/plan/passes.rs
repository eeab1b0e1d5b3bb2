//! The passes of a smooth transform: one pass when a line fits on chip, else several, each
//! shaped from the measured tables below (powers of two on CUDA) or by [`super::shape`].

use super::limits::RegisterBudget;
use super::shape::{self, LineShape, prev_power_of_two};
use super::{
    Body, DeviceLimits, Exchange, LineOrder, Pass, Persistent, PlanOptions, StoreOp, normalization,
};
use crate::base::precision::Precision;
use crate::base::twiddle::TwiddleLayout;
use crate::spec::FftSpec;

/// Pads workgroup memory when the extra eighth still fits the device.
pub(super) fn pad_if_it_fits(mut pass: Pass, limits: &DeviceLimits) -> Pass {
    // Padding relies on power-of-two strides and alignments ([`crate::kernel`]'s `pad`).
    pass.padded = pass.size.is_power_of_two() && pass.threads_per_line.is_power_of_two();
    if pass.workgroup_bytes() > limits.workgroup_memory {
        pass.padded = false;
    }
    pass
}

/// Points per thread and largest radix for one-pass lines where registers are plentiful
/// (devices allowing 16+ points per thread: CUDA), from `n` up. Measured on the H100 against
/// cuFFT in one run (docs/BENCHMARKS.md, "variants"): with 8 points per thread, 1024, 2048,
/// 4096, 8192 and 16384 points reached 0.80, 0.75, 0.65, 0.44, 0.50 of cuFFT; with these
/// shapes 1.00, 1.00, 0.93, 0.65, 0.63, and 1.00, 1.00, 0.96, 0.97, 0.96 once the stage
/// twiddles were coalesced and the padding changed.
const WIDE_LINES: &[(usize, usize, usize)] = &[(1024, 16, 16), (4096, 32, 16), (8192, 32, 8)];

/// [`WIDE_LINES`] for f64, whose values take twice the registers. Measured on the H100 against
/// cuFFT's Z2Z in one run (docs/BENCHMARKS.md, "2026-11-26, commit c45055e"): at 4096 points 8
/// points per thread (64 registers) ran 1.00 of cuFFT against 0.91 with 32 (192 registers) and
/// 0.95 with 16; 1024, 2048, 8192..65536 points were as fast or faster with the f32 shapes.
const WIDE_LINES_F64: &[(usize, usize, usize)] = &[(1024, 16, 16), (4096, 8, 8), (8192, 32, 8)];

/// The same for lines that also chain the inverse transform in one-shot kernels (no
/// prefetch: twice the live registers): at 1024 and 2048 points 8 points per thread ran 2.27×
/// the cuFFT pipeline against 1.91× with 16, and 4096 points kept 32 points per thread (2.0×;
/// 16 points per thread 1.9×). Persistent chains (twiddles in workgroup memory) take
/// [`WIDE_LINES`]: 2.69, 2.68 and 2.53× at 1024, 2048 and 4096 points.
const WIDE_CHAIN_LINES: &[(usize, usize, usize)] = &[(4096, 32, 16)];

/// The same for one-pass column transforms, which hold four lines per workgroup: at 4096
/// points 16 points per thread (1024 threads, 64 registers, 48 B spilled) ran the SAR azimuth
/// FFT at 0.91 of cuFFT and its filtered inverse at 1.25×, against 0.86 and 1.14 with 32
/// points per thread (512 threads, 128 registers, 160 B spilled); H100, docs/BENCHMARKS.md.
const WIDE_COLUMNS: &[(usize, usize, usize)] = &[(1024, 16, 16)];

/// The options for a one-pass line of `n` points (`chained`: with the inverse transform in a
/// one-shot kernel; `columns`: a column transform; `f64`: in double precision): `opts`, or
/// the measured shape from [`WIDE_LINES`], [`WIDE_LINES_F64`], [`WIDE_CHAIN_LINES`] or
/// [`WIDE_COLUMNS`] when the caller asked for the default shape.
fn wide_lines(
    n: usize,
    (chained, columns, f64): (bool, bool, bool),
    limits: &DeviceLimits,
    opts: &PlanOptions,
) -> PlanOptions {
    let mut o = opts.clone();
    let table = match (chained, columns, f64) {
        (true, _, _) => WIDE_CHAIN_LINES,
        (false, true, _) => WIDE_COLUMNS,
        (false, false, false) => WIDE_LINES,
        (false, false, true) => WIDE_LINES_F64,
    };
    if default_shape(opts)
        && n.is_power_of_two()
        && limits.max_points_per_thread >= 16
        && let Some(&(_, points, radix)) = table.iter().rev().find(|&&(from, ..)| n >= from)
    {
        o.points_per_thread = Some(points);
        o.max_radix = radix;
    }
    o
}

/// Whether `opts` leaves the line shape (threads, radix, points per thread) to the planner.
fn default_shape(opts: &PlanOptions) -> bool {
    let defaults = PlanOptions::default();
    opts.target_threads.is_none()
        && opts.max_radix == defaults.max_radix
        && opts.points_per_thread.is_none()
}

/// Row transforms of at least this many points that take several passes use radix-16 stages
/// where registers allow 16 points per thread (CUDA). Measured on the H100 against cuFFT
/// (docs/BENCHMARKS.md, "2026-11-22, commit d3b9f38"): 2^18..2^24 went from 0.89, 0.85, 0.83,
/// 0.77, 0.76, 0.65, 0.58 of cuFFT with radix 8 to 0.99, 0.91, 0.85, 0.85, 0.86, 0.78, 0.78;
/// 2^15..2^17 were slower with radix 16 (0.81, 1.05, 1.01 against 0.76, 0.96, 0.95).
const RADIX_16_PASSES_FROM: usize = 1 << 18;

/// [`RADIX_16_PASSES_FROM`] for f64: with radix-8 stages (8 points per thread), 2^18, 2^19
/// and 2^20 ran 0.95, 0.92 and 0.90 of cuFFT's Z2Z against 0.88, 0.87 and 0.87 with radix
/// 16; 2^21 was level (0.80) and 2^22 slower (0.77 against 0.84). H100, docs/BENCHMARKS.md,
/// "2026-11-26, commit c45055e".
const RADIX_16_PASSES_FROM_F64: usize = 1 << 21;

pub(super) fn single_pass(
    spec: &FftSpec,
    limits: &DeviceLimits,
    opts: &PlanOptions,
    exchange: Exchange,
    min_lines: usize,
    fused_chain: bool,
) -> Option<Pass> {
    let columns = spec.layout.is_columns();
    // Whether this line will be a persistent kernel decides its shape; the final check (the
    // workgroup memory) comes below.
    // (Checksummed kernels reduce their sums through the exchange area after the store, where
    // a persistent kernel's next lines are already landing: not persistent.)
    let persistent = spec.checksum == crate::Checksum::Off
        && opts.prefetch.unwrap_or(fused_chain && limits.async_copy);
    let f64 = spec.precision == Precision::F64;
    let opts = &wide_lines(
        spec.n,
        (fused_chain && !persistent, columns, f64),
        limits,
        opts,
    );
    // Columns: at least `min_lines` neighbouring columns per workgroup, so each load and
    // store of a point is a whole transaction across them.
    let min_lines = if columns {
        min_lines.min(spec.batch.next_power_of_two())
    } else {
        1
    };
    let ((points, radices, threads_per_line), most_lines) =
        line_shape(spec.n, spec.batch, min_lines, limits, opts)?;
    // Pack small transforms so a workgroup has enough threads, within workgroup memory.
    let mut lines = (opts.threads_on(limits).min(limits.max_threads) / threads_per_line)
        .clamp(min_lines, spec.batch.next_power_of_two().max(min_lines))
        .min(most_lines)
        .min(spread_lines(spec.batch, min_lines, limits));
    // Rows of fewer than 4 threads read and write through workgroup memory so that
    // neighbouring threads touch neighbouring addresses (whole 32-byte sectors); columns are
    // read across neighbouring lines anyway.
    let staged = !columns && threads_per_line < 4 && spec.n >= 4 && lines > 1;
    if shape::stage_exchanges(spec.n, &radices, threads_per_line) > 0 || staged {
        let bytes = exchange.bytes(spec.precision);
        lines = lines.min((limits.workgroup_memory / (spec.n * bytes)).max(1));
    }
    let order = if columns {
        LineOrder::Interleaved
    } else {
        LineOrder::Contiguous
    };
    let mut pass = Pass::step(
        spec.n,
        radices,
        1,
        (threads_per_line, points, prev_power_of_two(lines)),
        order,
        exchange,
        spec.precision,
        opts.groups_per_unit,
        spec.n,
    );
    pass.load.staged = staged;
    pass.store.staged = staged;
    pass.store
        .ops
        .extend(normalization(spec).map(StoreOp::Scale));
    if let (true, Some(filter)) = (fused_chain, &spec.chain) {
        pass.body = Body::Chain {
            filter: filter.clone(),
        };
    }
    let mut pass = pad_if_it_fits(pass, limits);
    // Prefetching copies 16-byte pairs, every thread the same number of them, as they are
    // stored (so not 16-bit storage, which is converted on load).
    let pairs = pass.size * pass.lines_per_group / 2;
    let prefetch = persistent
        && !spec.precision.is_half()
        && pass.size.is_power_of_two()
        && !columns
        && !staged
        && pass.exchanges() > 0
        && exchange == Exchange::Complex
        && pairs.is_multiple_of(pass.threads());
    if prefetch {
        pass.persistent = Some(Persistent::new());
        if pass.workgroup_bytes() > limits.workgroup_memory {
            pass.persistent = None;
        }
    }
    if pass.prefetch() {
        let twiddles = TwiddleLayout::new(spec.n, [&pass.radices[..]], 0).lo_offset();
        // A filter per point is kept beside the twiddles; one per element is read as it goes.
        let filter = fused_chain && !spec.chain_per_element();
        let tables = twiddles + if filter { spec.n } else { 0 };
        pass.persistent = Some(Persistent {
            tables_in_shared: tables,
        });
        if pass.workgroup_bytes() > limits.workgroup_memory {
            pass.persistent = Some(Persistent::new());
        }
    }
    Some(pass)
}

pub(super) fn multi_pass(
    spec: &FftSpec,
    limits: &DeviceLimits,
    opts: &PlanOptions,
    exchange: Exchange,
    sizes: &[usize],
    min_lines: usize,
) -> Option<Vec<Pass>> {
    let columns = spec.layout.is_columns();
    let mut wide = opts.clone();
    if default_shape(opts)
        && !columns
        && limits.max_points_per_thread >= 16
        && spec.n
            >= match spec.precision {
                Precision::F64 => RADIX_16_PASSES_FROM_F64,
                _ => RADIX_16_PASSES_FROM,
            }
    {
        wide.max_radix = 16;
    }
    let opts = &wide;
    let mut stride = 1;
    let mut passes = Vec::with_capacity(sizes.len());
    for (i, &size) in sizes.iter().enumerate() {
        let all_lines = if columns { spec.batch } else { 1 } * spec.n / size;
        let ((points, radices, threads_per_line), most_lines) =
            line_shape(size, all_lines, min_lines, limits, opts)?;
        let fits = |lines: usize| {
            lines <= all_lines.min(most_lines)
                && lines * size * exchange.bytes(spec.precision) <= limits.workgroup_memory
                && lines * threads_per_line <= limits.max_threads
        };
        let mut lines = min_lines.min(all_lines.next_power_of_two());
        // The fewest lines must fit too (a last pass forced long by the options may not).
        if lines * size * exchange.bytes(spec.precision) > limits.workgroup_memory {
            return None;
        }
        let total_lines = if columns { 1 } else { spec.batch } * all_lines;
        let spread = spread_lines(total_lines, min_lines, limits);
        while fits(2 * lines)
            && 2 * lines * threads_per_line <= opts.threads_on(limits)
            && 2 * lines <= spread
        {
            lines *= 2;
        }
        let last = i + 1 == sizes.len();
        let mut pass = Pass::step(
            size,
            radices,
            stride,
            (threads_per_line, points, lines),
            LineOrder::Interleaved,
            exchange,
            spec.precision,
            opts.groups_per_unit,
            spec.n,
        );
        // Rows: the first pass writes whole lines, contiguous once staged. Columns: lines
        // are neighbouring columns, already contiguous across the workgroup.
        pass.store.staged = i == 0 && !columns;
        if last {
            pass.store
                .ops
                .extend(normalization(spec).map(StoreOp::Scale));
        }
        passes.push(pad_if_it_fits(pass, limits));
        stride *= size;
    }
    Some(passes)
}

/// Most lines a workgroup of a pass of `lines` lines in all packs so that the pass still
/// has a workgroup for each of the device's compute units (at least `min_lines`, which
/// coalescing needs; unbounded where the device does not say how many units it has).
fn spread_lines(lines: usize, min_lines: usize, limits: &DeviceLimits) -> usize {
    match limits.compute_units {
        0 => usize::MAX,
        units => (lines / units).max(min_lines).max(1),
    }
}

/// The shape of a line of `size` points, in a pass of `all_lines` lines and a workgroup of at
/// least `min_lines` of them, within twice the points per thread the device allows or twice
/// the line's largest prime factor (mixed radices hold a few more between stages), or else the device's register file
/// ([`RegisterBudget`]). Also returns the most lines a workgroup may pack: `min_lines` for a
/// shape only the register file allows.
fn line_shape(
    size: usize,
    all_lines: usize,
    min_lines: usize,
    limits: &DeviceLimits,
    opts: &PlanOptions,
) -> Option<(LineShape, usize)> {
    // A radix-p butterfly holds its p points at once: a line whose largest prime factor is
    // above the device's points per thread (11 and up where it allows 8, 17 and up where it
    // allows 16) may hold twice that prime. On the H100, raising it only for primes above
    // twice the device's points lost up to half the speed (6·31 at 1 GiB: two passes
    // instead of one; docs/BENCHMARKS.md).
    let largest_prime = shape::smooth_factors(size)?.first().copied().unwrap_or(1);
    let per_thread = opts.points_per_thread.unwrap_or(1).max(largest_prime);
    let budget = RegisterBudget::new(limits, per_thread, min_lines, all_lines);
    let shape = shape::line_shape(size, limits.max_threads / min_lines, &budget, opts)?;
    let wide = shape::registers(size, &shape.1, shape.2) > budget.points;
    Some((shape, if wide { min_lines } else { usize::MAX }))
}
