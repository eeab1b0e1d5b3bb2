//! The shape of one line: how a pass's `size` points split into on-chip radix stages, and how
//! many threads share them. Powers of two keep the measured radix-8/16 shapes; other smooth
//! sizes (prime factors up to 31) are chosen by a small search over threads and radix lists.

pub(crate) use crate::base::factors::{is_smooth, smooth_factors};

use super::PlanOptions;
use super::limits::RegisterBudget;

/// Most passes over device memory the planner considers.
pub const MAX_PASSES: usize = 8;

/// Largest radix of an on-chip stage for lengths that are not powers of two.
const MAX_MIXED_RADIX: usize = 16;

/// The radices of an on-chip transform of `size` points (a power of two): stages of
/// `max_radix` after one smaller stage for the remainder (radix-8 after a radix-4 or radix-2
/// by default).
pub(crate) fn radices(size: usize, max_radix: usize) -> Vec<usize> {
    let bits = size.trailing_zeros();
    let step = max_radix.max(2).trailing_zeros();
    let mut r = match bits % step {
        0 => vec![],
        rest => vec![1 << rest],
    };
    r.extend(std::iter::repeat_n(1 << step, (bits / step) as usize));
    r
}

pub(super) fn prev_power_of_two(x: usize) -> usize {
    if x == 0 { 0 } else { 1 << x.ilog2() }
}

/// `k` bits in `parts` parts as even as possible, larger parts first.
pub(super) fn split_evenly(k: u32, parts: u32) -> Vec<u32> {
    (0..parts)
        .map(|i| k / parts + u32::from(i < k % parts))
        .collect()
}

/// A line's shape: points each thread holds between stages (`size / threads`), the radices
/// in order, and threads per line.
pub type LineShape = (usize, Vec<usize>, usize);

/// The shape of a line of `size` points with at most `max_threads` threads.
///
/// Powers of two: 8 points per thread (one radix-8 butterfly), more only when the thread
/// budget or `opts` asks. Other smooth sizes: the mixed-radix shape within `budget.points` points
/// per thread, else within the budget's wider limit ([`RegisterBudget::fits`]). `None` when
/// `size` is not smooth or no shape fits.
pub fn line_shape(
    size: usize,
    max_threads: usize,
    budget: &RegisterBudget,
    opts: &PlanOptions,
) -> Option<LineShape> {
    if !size.is_power_of_two() {
        let within = |wide: bool| {
            let fits = move |regs, threads| budget.fits(regs, threads, wide);
            mixed_shape(size, max_threads, &fits, opts)
        };
        return within(false).or_else(|| within(true));
    }
    let radices = radices(size, opts.max_radix);
    let largest = radices.iter().copied().max().unwrap_or(1);
    let wanted = opts
        .points_per_thread
        .unwrap_or(1)
        .min(size)
        .next_power_of_two();
    let points = largest.max(wanted).max(size / max_threads.min(size).max(1));
    Some((points, radices, size / points))
}

/// How a stage of radix `radix` on a `size`-point line runs on `threads` threads: its
/// butterflies (`size / radix`) and how many rounds of them each thread runs (the last round
/// partly idle when they do not divide evenly).
pub fn stage_rounds(size: usize, radix: usize, threads: usize) -> (usize, usize) {
    let butterflies = size / radix;
    let rounds = butterflies.div_ceil(threads);
    (butterflies, rounds)
}

/// Registers a thread needs for a line of `size` points in stages `radices` on `threads`
/// threads: the points it holds between stages, or a stage's rounds of butterflies.
pub fn registers(size: usize, radices: &[usize], threads: usize) -> usize {
    radices
        .iter()
        .map(|&r| stage_rounds(size, r, threads).1 * r)
        .fold(size / threads, usize::max)
}

/// Whether every thread runs the same number of whole butterflies in a stage of `radix`, so
/// that it reads and writes the points it holds between stages without an exchange.
pub fn uniform(size: usize, radix: usize, threads: usize) -> bool {
    (size / radix).is_multiple_of(threads)
}

/// Exchanges through workgroup memory a line of these stages needs: one between stages, and
/// one more before the first and after the last when they are not [`uniform`].
pub fn stage_exchanges(size: usize, radices: &[usize], threads: usize) -> usize {
    let (Some(&first), Some(&last)) = (radices.first(), radices.last()) else {
        return 0;
    };
    radices.len() - 1
        + usize::from(!uniform(size, first, threads))
        + usize::from(!uniform(size, last, threads))
}

/// The shape of a line of a smooth `size` that is not a power of two: the cheapest of a few
/// radix lists (one radix per prime family; the factors packed into radices up to 16 or up to
/// 8) on every thread count that divides `size`, by the exchanges it needs, the butterfly
/// slots idle threads waste, and the registers past `opts.points_per_thread` (default 8).
/// `fits(points, threads)` says whether `threads` threads may each hold `points` points.
fn mixed_shape(
    size: usize,
    max_threads: usize,
    fits: &dyn Fn(usize, usize) -> bool,
    opts: &PlanOptions,
) -> Option<LineShape> {
    let factors = smooth_factors(size)?;
    let target = opts.points_per_thread.unwrap_or(8);
    let mut best: Option<(f64, LineShape)> = None;
    for list in radix_lists(&factors) {
        for threads in (1..=max_threads.min(size)).filter(|t| size.is_multiple_of(*t)) {
            let radices = order_radices(size, list.clone(), threads);
            let regs = registers(size, &radices, threads);
            if !fits(regs, threads) {
                continue;
            }
            let slots: usize = radices
                .iter()
                .map(|&r| stage_rounds(size, r, threads).1 * r * threads)
                .sum();
            let idle = slots as f64 / size as f64 - radices.len() as f64;
            let cost = stage_exchanges(size, &radices, threads) as f64
                + idle
                + regs.saturating_sub(target) as f64 / 8.0
                // Among equals, more threads (fewer live registers each).
                + 1e-3 * regs as f64;
            if best.as_ref().is_none_or(|(c, _)| cost < *c) {
                best = Some((cost, (size / threads, radices, threads)));
            }
        }
    }
    best.map(|(_, shape)| shape)
}

/// Candidate radix lists for a line with these prime factors (largest first).
fn radix_lists(factors: &[usize]) -> Vec<Vec<usize>> {
    let mut lists = vec![
        pack(factors, MAX_MIXED_RADIX),
        pack(factors, 8),
        by_family(factors),
    ];
    lists.sort();
    lists.dedup();
    lists
}

/// First-fit decreasing: each factor joins the first radix it keeps within `cap` (a prime
/// above `cap` is a radix of its own).
fn pack(factors: &[usize], cap: usize) -> Vec<usize> {
    let mut radices: Vec<usize> = Vec::new();
    for &p in factors {
        match radices.iter_mut().find(|r| **r * p <= cap) {
            Some(r) => *r *= p,
            None => radices.push(p),
        }
    }
    radices
}

/// One family per radix: the power of two in radix-8 stages, threes as radix 9, the other
/// primes alone.
fn by_family(factors: &[usize]) -> Vec<usize> {
    let twos = factors.iter().filter(|&&p| p == 2).count();
    let threes = factors.iter().filter(|&&p| p == 3).count();
    let mut r = if twos > 0 {
        radices(1 << twos, 8)
    } else {
        Vec::new()
    };
    r.extend(std::iter::repeat_n(9, threes / 2));
    if threes % 2 == 1 {
        r.push(3);
    }
    r.extend(factors.iter().copied().filter(|&p| p > 3));
    r
}

/// The radices reordered so that a [`uniform`] stage comes first and another last where
/// there are such stages: those need no exchange with the points held between stages.
fn order_radices(size: usize, mut radices: Vec<usize>, threads: usize) -> Vec<usize> {
    radices.sort_by_key(|&r| std::cmp::Reverse(uniform(size, r, threads)));
    let uniform_count = radices
        .iter()
        .filter(|&&r| uniform(size, r, threads))
        .count();
    if uniform_count >= 2 {
        let second = radices.remove(1);
        radices.push(second);
    }
    radices
}

/// The sizes of `parts` passes whose product is `n` (smooth), as even as possible (largest
/// prime factors placed first, each on the pass with the smallest product so far), each at
/// most `max_size`; `None` when they do not fit.
pub fn split_factors(n: usize, parts: usize, max_size: usize) -> Option<Vec<usize>> {
    let mut sizes = vec![1usize; parts];
    for p in smooth_factors(n)? {
        let smallest = sizes.iter_mut().min()?;
        *smallest *= p;
    }
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    sizes.iter().all(|&s| s <= max_size).then_some(sizes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_and_smoothness() {
        assert_eq!(smooth_factors(5616), Some(vec![13, 3, 3, 3, 2, 2, 2, 2]));
        assert_eq!(smooth_factors(1), Some(vec![]));
        assert!(is_smooth(1000) && is_smooth(6 * 6 * 6 * 6 * 6 * 6));
        assert!(
            is_smooth(17 * 31 * 8)
                && !is_smooth(37)
                && !is_smooth(4099)
                && !is_smooth(2 * 1_000_003)
        );
    }

    /// 32 points per thread; `registers` 32-bit registers per workgroup (0: unknown).
    fn budget(registers: usize) -> RegisterBudget {
        RegisterBudget {
            points: 32,
            registers_per_workgroup: registers,
            subgroup_size: 32,
            lines: 1,
            wide: registers > 0,
        }
    }

    #[test]
    fn mixed_shapes_cover_the_line() {
        let opts = PlanOptions::default();
        let b = budget(0);
        for size in (2..=4096).filter(|s| is_smooth(*s) && !s.is_power_of_two()) {
            let (points, radices, threads) =
                line_shape(size, 1024, &b, &opts).unwrap_or_else(|| panic!("no shape for {size}"));
            assert_eq!(radices.iter().product::<usize>(), size, "{size}");
            assert_eq!(points * threads, size, "{size}");
            assert!(
                radices
                    .iter()
                    .all(|&r| r <= 16 || crate::base::factors::PRIMES.contains(&r)),
                "{size}: {radices:?}"
            );
            assert!(registers(size, &radices, threads) <= 32, "{size}");
        }
        // Lengths whose factors share a radix evenly need no extra exchange.
        assert_eq!(
            line_shape(1000, 1024, &b, &opts),
            Some((10, vec![10; 3], 100))
        );
    }

    #[test]
    fn a_known_register_file_allows_wider_lines() {
        let opts = PlanOptions::default();
        // 7^5 has no shape of at most 32 points on at most 1024 threads ...
        assert_eq!(line_shape(16807, 1024, &budget(0), &opts), None);
        // ... but 343 threads of 49 points fit 64 K registers (352 × (2·49 + 16) = 40 128).
        assert_eq!(
            line_shape(16807, 1024, &budget(65536), &opts),
            Some((49, vec![7; 5], 343))
        );
        // 25000 on 1000 threads of 25 points would not (1024 × 66 > 65 536): 625 of 40 do.
        let (points, _, threads) = line_shape(25000, 1024, &budget(65536), &opts).unwrap();
        assert_eq!((points, threads), (40, 625));
        // Never past 64 points, whatever the register file.
        assert_eq!(
            line_shape(11 * 11 * 11 * 13, 1024, &budget(1 << 20), &opts),
            None
        );
    }

    #[test]
    fn passes_split_evenly() {
        assert_eq!(split_factors(1_000_000, 2, 4096), Some(vec![1000, 1000]));
        assert_eq!(split_factors(46656, 2, 4096), Some(vec![216, 216]));
        assert_eq!(split_factors(100_000, 1, 4096), None);
        assert_eq!(split_evenly(10, 3), vec![4, 3, 3]);
    }
}
