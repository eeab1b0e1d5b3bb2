//! The candidate plans of a smooth length: what `tierfft tune` and [`PlanOptions::measure`]
//! time on a device, so that shapes are measured on the card at hand rather than carried
//! over from the one the planner's tables were measured on.
//!
//! The search is by coordinates: the planner's own plan, then each choice of
//! [`Choice`] varied alone over the values that can change the plan of this length on this
//! device ([`variations`]); the tuner then tries the winning values together
//! ([`combinations`]). Choices that plan to the same passes are timed once.

use super::wisdom::Choice;
use super::{DeviceLimits, Exchange, Plan, PlanOptions};
use crate::spec::FftSpec;

/// Each knob of [`Choice`] set alone to each value worth timing for `spec` on `limits`
/// (values the device cannot take are left out; what the planner then refuses or plans as
/// the default is dropped by [`distinct_plans`]).
pub fn variations(spec: &FftSpec, limits: &DeviceLimits) -> Vec<Choice> {
    let wide = limits.max_points_per_thread >= 16;
    let mut out = Vec::new();
    let mut each = |values: &[usize], set: fn(&mut Choice, usize)| {
        for &v in values {
            let mut c = Choice::default();
            set(&mut c, v);
            out.push(c);
        }
    };
    // Fewer points a thread than the default radix's 8 only where registers are scarce.
    let points: &[usize] = if wide { &[8, 16, 32] } else { &[4] };
    each(points, |c, v| c.points_per_thread = Some(v));
    let radices: &[usize] = if wide { &[16] } else { &[4] };
    each(radices, |c, v| c.max_radix = Some(v));
    let threads: Vec<usize> = [64, 128, 512, 1024]
        .into_iter()
        .filter(|&t| t <= limits.max_threads)
        .collect();
    each(&threads, |c, v| c.target_threads = Some(v));
    // `__launch_bounds__` exists where the register file is known (CUDA).
    if limits.registers_per_workgroup > 0 {
        each(&[1, 2, 3, 4], |c, v| c.groups_per_unit = Some(v));
    }
    each(&[2, 8, 16], |c, v| c.min_lines = Some(v));
    let last: Vec<usize> = (7..=13)
        .map(|k| 1usize << k)
        .filter(|&p| p < spec.n)
        .collect();
    if spec.n.is_power_of_two() {
        each(&last, |c, v| c.last_pass_points = Some(v));
    }
    let clusters: Vec<usize> = [1, 2, 4, 8, 16]
        .into_iter()
        .filter(|&c| c <= limits.max_cluster_blocks)
        .collect();
    if clusters.len() > 1 {
        each(&clusters, |c, v| c.cluster_blocks = Some(v));
    }
    // One pass exchanging in rounds where a line fits the registers but not workgroup
    // memory (elsewhere this plans as the default and is dropped); also in the complex
    // exchange where the device's is split (NVIDIA through Vulkan: 8192 and 16384 points
    // ran faster so), which neither choice alone plans.
    each(&[2, 4], |c, v| c.exchange_rounds = Some(v));
    each(&[2, 4, 8], |c, v| {
        c.exchange = Some(Exchange::Complex);
        c.exchange_rounds = Some(v);
    });
    // L2-resident chunks, where the device says how large its L2 is.
    if limits.l2_bytes >= 4 << 20 {
        let quarter = (limits.l2_bytes / 4) >> 20 << 20;
        each(&[quarter, 2 * quarter], |c, v| c.resident_bytes = Some(v));
    }
    for ex in [Exchange::Complex, Exchange::Split] {
        out.push(Choice {
            exchange: Some(ex),
            ..Choice::default()
        });
    }
    // Two passes in one launch, where workgroups may wait for one another (the planner
    // merges only two-pass plans: for others this plans as the default and is dropped).
    if limits.workgroups_wait {
        out.push(Choice {
            merge: Some(true),
            ..Choice::default()
        });
    }
    out
}

/// The winning values of several knobs tried together: `better` (each a [`variations`]
/// choice that beat the planner's own, fastest first) merged one more at a time, so the
/// tuner can keep the longest prefix that still gains.
pub fn combinations(better: &[Choice]) -> Vec<Choice> {
    let mut out = Vec::new();
    let mut acc = better.first().cloned().unwrap_or_default();
    for c in better.iter().skip(1) {
        acc = merge(&acc, c);
        out.push(acc.clone());
    }
    out
}

/// `a` with the options it leaves unset taken from `b`.
fn merge(a: &Choice, b: &Choice) -> Choice {
    Choice::of(&a.apply(&b.apply(&PlanOptions::default())))
}

/// The plans of `choices` on top of `opts` (wisdom off), each differing from the others and
/// from `base` (the plan already timed: the planner's own); choices the planner refuses for
/// this spec are dropped.
pub fn distinct_plans(
    spec: &FftSpec,
    limits: &DeviceLimits,
    opts: &PlanOptions,
    base: &Plan,
    choices: impl IntoIterator<Item = Choice>,
) -> Vec<(Choice, Plan)> {
    let mut out: Vec<(Choice, Plan)> = Vec::new();
    for c in choices {
        let o = c.apply(opts).with_wisdom(false);
        if let Ok(p) = Plan::with_options(spec, limits, &o)
            && p != *base
            && out.iter().all(|(_, q)| *q != p)
        {
            out.push((c, p));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h100() -> DeviceLimits {
        DeviceLimits::profile("h100-cuda").unwrap()
    }

    #[test]
    fn every_tier_has_candidates_and_none_repeats_the_default() {
        let limits = h100();
        for log2 in [
            1, 3, 6, 10, 12, 13, 14, 15, 16, 17, 18, 20, 22, 24, 25, 26, 27,
        ] {
            let spec = FftSpec::new(1 << log2).batch((1 << 27) >> log2);
            let opts = PlanOptions::default().with_wisdom(false);
            let base = Plan::with_options(&spec, &limits, &opts).unwrap();
            let plans = distinct_plans(&spec, &limits, &opts, &base, variations(&spec, &limits));
            assert!(plans.len() >= 3, "2^{log2}: {} candidates", plans.len());
            assert!(plans.len() <= 40, "2^{log2}: {} candidates", plans.len());
            assert!(plans.iter().all(|(_, p)| *p != base));
        }
    }

    /// Two-pass lengths on a device whose workgroups may wait have the merged launch
    /// among their candidates; one-pass lengths and wgpu devices do not.
    #[test]
    fn merged_launch_is_a_candidate_of_two_pass_lengths() {
        let merged = |limits: &DeviceLimits, log2: u32| {
            let spec = FftSpec::new(1 << log2).batch((1 << 27) >> log2);
            let opts = PlanOptions::default().with_wisdom(false);
            let base = Plan::with_options(&spec, limits, &opts).unwrap();
            distinct_plans(&spec, limits, &opts, &base, variations(&spec, limits))
                .iter()
                .any(|(c, p)| c.merge == Some(true) && p.merged.is_some())
        };
        assert!(merged(&h100(), 18) && merged(&h100(), 20));
        assert!(!merged(&h100(), 12));
        assert!(!merged(&DeviceLimits::profile("h100-vulkan").unwrap(), 18));
    }

    /// Through Vulkan's 48 KiB the planner exchanges 16384 points in four rounds of the
    /// complex exchange, 8192 in two; the split exchange (in rounds or two passes, and in one
    /// round at 8192) is among the candidates, and the options undo the device's rounds.
    #[test]
    fn rounds_and_the_split_exchange_are_candidates_where_the_line_outgrows_workgroup_memory() {
        let limits = DeviceLimits::profile("h100-vulkan").unwrap();
        let opts = PlanOptions::default().with_wisdom(false);
        for (log2, rounds) in [(14, 4), (13, 2)] {
            let spec = FftSpec::new(1 << log2).batch(1 << (27 - log2));
            let base = Plan::with_options(&spec, &limits, &opts).unwrap();
            let p = &base.passes[0];
            assert!(
                base.passes.len() == 1 && p.exchange == Exchange::Complex && p.rounds == rounds,
                "{base}"
            );
            let plans = distinct_plans(&spec, &limits, &opts, &base, variations(&spec, &limits));
            assert!(
                plans
                    .iter()
                    .any(|(_, p)| p.passes.iter().all(|p| p.exchange == Exchange::Split)),
                "2^{log2}"
            );
        }
        let spec = FftSpec::new(1 << 14).batch(1 << 13);
        let split = Plan::with_options(
            &spec,
            &limits,
            &opts.clone().with_exchange(Some(Exchange::Split)),
        )
        .unwrap();
        assert_eq!(split.passes.len(), 2, "{split}");
    }

    #[test]
    fn combinations_merge_the_winners_in_order() {
        let a = Choice {
            points_per_thread: Some(16),
            ..Choice::default()
        };
        let b = Choice {
            max_radix: Some(16),
            ..Choice::default()
        };
        let c = Choice {
            points_per_thread: Some(32),
            min_lines: Some(8),
            ..Choice::default()
        };
        let combos = combinations(&[a, b, c]);
        assert_eq!(combos.len(), 2);
        assert_eq!(combos[0].points_per_thread, Some(16));
        assert_eq!(combos[0].max_radix, Some(16));
        assert_eq!(combos[1].points_per_thread, Some(16));
        assert_eq!(combos[1].min_lines, Some(8));
        assert!(combinations(&[]).is_empty());
    }
}
