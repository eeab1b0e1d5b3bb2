//! Plans of every shape run in the interpreter against the f64 reference.

use num_complex::Complex32;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::run_plan;
use crate::debug::reference::{relative_l2_error, spec_f64};
use crate::plan::{DeviceLimits, Plan, WIDE_MIN_LINES};
use crate::{FftSpec, PointOp};

/// Runs `spec`'s plan for `limits` in the interpreter against the f64 reference, on
/// seeded random data (the other slots start poisoned with NaN).
fn check_on(spec: &FftSpec, limits: &DeviceLimits) {
    check_with(spec, limits, &crate::plan::PlanOptions::default());
}

/// [`check_on`] with planner options.
fn check_with(spec: &FftSpec, limits: &DeviceLimits, opts: &crate::plan::PlanOptions) {
    let plan = Plan::with_options(spec, limits, opts).expect("plan");
    let mut rng = StdRng::seed_from_u64(spec.n as u64 ^ spec.batch as u64);
    let input = random(&mut rng, spec.len());
    let out = run_plan(&plan, &input).unwrap_or_else(|e| panic!("{}:\n{plan}\n{e}", limits.name));
    let err = relative_l2_error(&out, &spec_f64(spec, &input));
    assert!(
        err <= 5e-7,
        "{}, n = {}: relative L2 error {err:e}\n{plan}",
        limits.name,
        spec.n
    );
}

fn check(spec: &FftSpec, profile: &str) {
    check_on(spec, &DeviceLimits::profile(profile).expect("profile"));
}

fn random(rng: &mut StdRng, len: usize) -> Vec<Complex32> {
    (0..len)
        .map(|_| Complex32::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)))
        .collect()
}

/// Every one-pass length on every device profile, forward and inverse: the shapes of
/// every device (16 and 32 points per thread and radix 16 on CUDA, split exchanges on
/// small devices, packed small transforms) run on the CPU.
#[test]
fn one_pass_plans_of_every_profile() {
    for profile in DeviceLimits::PROFILES {
        for k in 0..=13 {
            let batch = if k < 8 { 5 } else { 1 };
            check(&FftSpec::new(1 << k).batch(batch), profile);
        }
        check(
            &FftSpec::new(1 << 10).batch(2).inverse().normalized(),
            profile,
        );
    }
}

/// Multi-pass plans: twiddles between passes, strided lines, staged stores, and on CUDA
/// the radix-16 stages from 2^18.
#[test]
fn multi_pass_plans() {
    for (profile, k) in [
        ("small-16k", 14),
        ("small-16k", 15),
        ("raspberry-pi-5", 15),
        ("lavapipe", 16),
        ("h100-cuda", 15),
        ("h100-cuda", 18),
    ] {
        check(&FftSpec::new(1 << k), profile);
    }
    check(&FftSpec::new(1 << 15).inverse().normalized(), "lavapipe");
}

/// Two passes merged into one launch ([`crate::plan::Merged`]: tickets, done-counters, the
/// second pass in place on the intermediate), on a device small enough that 2^14 and 2^15
/// take two passes: lags of one and of several transforms, threads evened out by more lines,
/// forward and normalised inverse; a hand-broken plan's wait is caught, not hung on.
#[test]
fn merged_plans() {
    let small = DeviceLimits {
        name: "small-merging".into(),
        workgroups_wait: true,
        l2_bytes: 1 << 20,
        compute_units: 2,
        ..DeviceLimits::profile("small-16k").expect("profile")
    };
    let merge = crate::plan::PlanOptions::default().with_merge(Some(true));
    for (k, batch) in [(14, 3), (15, 2), (14, 1)] {
        for spec in [
            FftSpec::new(1 << k).batch(batch),
            FftSpec::new(1 << k).batch(batch).inverse().normalized(),
        ] {
            let plan = Plan::with_options(&spec, &small, &merge).expect("plan");
            assert!(plan.merged.is_some(), "n = 2^{k}: not merged\n{plan}");
            check_with(&spec, &small, &merge);
        }
    }
    let lags: Vec<usize> = [(14, 1), (15, 1), (14, 40)]
        .into_iter()
        .map(|(k, units)| {
            let limits = DeviceLimits {
                compute_units: units,
                ..small.clone()
            };
            let spec = FftSpec::new(1 << k).batch(4);
            check_with(&spec, &limits, &merge);
            let plan = Plan::with_options(&spec, &limits, &merge).expect("plan");
            plan.merged.expect("merged").lag
        })
        .collect();
    assert!(
        lags.contains(&1) && lags.iter().any(|&l| l > 1),
        "lags {lags:?}"
    );
    // The H100's shapes: radix-16 stages, padded exchanges, pass twiddles.
    let h100 = DeviceLimits::profile("h100-cuda").expect("profile");
    check_with(&FftSpec::new(1 << 18).batch(2), &h100, &merge);
    // Not asked to merge: two launches.
    let spec = FftSpec::new(1 << 14).batch(2);
    assert!(Plan::new(&spec, &small).expect("plan").merged.is_none());
    // A second pass issued before its transform's first: the wait would never end.
    let mut plan = Plan::with_options(&spec, &small, &merge).expect("plan");
    if let Some(m) = plan.merged.as_mut() {
        m.lag = 0;
    }
    let input = vec![Complex32::new(1.0, 0.0); spec.len()];
    let e = run_plan(&plan, &input).expect_err("a wait that cannot end");
    assert!(e.contains("would hang"), "{e}");
}

/// One-pass lines exchanged through workgroup memory in rounds ([`crate::plan::Pass::rounds`]):
/// complex and split exchanges, padded and not, 2 to 8 rounds, forward and normalised
/// inverse; the H100's Vulkan shape for 16384 points.
#[test]
fn exchange_rounds() {
    let rounds = |r: usize| crate::plan::PlanOptions::default().with_exchange_rounds(Some(r));
    let lavapipe = DeviceLimits::profile("lavapipe").expect("profile");
    let small = DeviceLimits {
        name: "small-rounds".into(),
        workgroup_memory: 8 << 10,
        ..lavapipe.clone()
    };
    let split = |r: usize| rounds(r).with_exchange(Some(crate::plan::Exchange::Split));
    let complex = |r: usize| rounds(r).with_exchange(Some(crate::plan::Exchange::Complex));
    let cases = [
        (&lavapipe, 1 << 13, complex(2), 2),
        (&small, 1 << 11, complex(8), 2),
        (&small, 1 << 12, complex(8), 4),
        (&small, 1 << 13, complex(8), 8),
        (&small, 1 << 13, split(4), 4),
    ];
    for (limits, n, opts, want) in cases {
        for spec in [
            FftSpec::new(n).batch(3),
            FftSpec::new(n).batch(2).inverse().normalized(),
        ] {
            let plan = Plan::with_options(&spec, limits, &opts).expect("plan");
            assert!(
                plan.passes.len() == 1 && plan.passes[0].rounds == want,
                "{n} on {}: expected one pass in {want} rounds\n{plan}",
                limits.name
            );
            check_with(&spec, limits, &opts);
        }
    }
    let vulkan = DeviceLimits::profile("h100-vulkan").expect("profile");
    check_with(&FftSpec::new(1 << 14), &vulkan, &rounds(2));
    // Too few rounds allowed: two passes, as without the option.
    let plan = Plan::with_options(&FftSpec::new(1 << 13), &small, &complex(2)).expect("plan");
    assert_eq!(plan.passes.len(), 2, "{plan}");
}

/// A device small enough that clusters appear at 512..2048 points: 256-point workgroups
/// (4 KiB, 32 threads), clusters of up to 16.
fn tiny_clusters() -> DeviceLimits {
    DeviceLimits {
        name: "tiny-clusters".into(),
        workgroup_memory: 4 << 10,
        max_threads: 32,
        max_cluster_blocks: 16,
        ..DeviceLimits::profile("lavapipe").expect("profile")
    }
}

/// The cluster tier: clusters of 2, 4, 8 and 16 workgroups (the planner's: 4 and 8 of half
/// a block, 8 of whole blocks), forward and normalised inverse, with fused load
/// and store operations, batches of several clusters; on the H100's limits, 2^15 and 2^16
/// as planned for large batches.
#[test]
fn cluster_plans() {
    let tiny = tiny_clusters();
    let mut rng = StdRng::seed_from_u64(11);
    for (k, blocks) in [
        (9, None),
        (10, None),
        (11, None),
        (9, Some(2)),
        (10, Some(4)),
        (11, Some(16)),
    ] {
        let n = 1 << k;
        let w: std::sync::Arc<[Complex32]> = random(&mut rng, n).into();
        let specs = [
            FftSpec::new(n).batch(3),
            FftSpec::new(n)
                .batch(2)
                .inverse()
                .normalized()
                .on_load(PointOp::Multiply(w))
                .on_store(PointOp::Conjugate),
        ];
        for spec in specs {
            let opts = crate::plan::PlanOptions {
                cluster_blocks: blocks,
                ..Default::default()
            };
            let plan = Plan::with_options(&spec, &tiny, &opts).expect("plan");
            let c = plan.passes[0].cluster.as_ref();
            assert!(
                plan.passes.len() == 1 && c.is_some_and(|c| blocks.is_none_or(|b| b == c.blocks)),
                "n = {n}: expected one cluster pass\n{plan}"
            );
            check_with(&spec, &tiny, &opts);
        }
    }
    // The H100's shapes (the planner's for large batches), on one transform.
    let h100 = DeviceLimits::profile("h100-cuda").expect("profile");
    for (k, blocks) in [(15, 4), (16, 8)] {
        let opts = crate::plan::PlanOptions {
            cluster_blocks: Some(blocks),
            ..Default::default()
        };
        check_with(&FftSpec::new(1 << k), &h100, &opts);
    }
}

/// An even real transform's split on a cluster pass's tail (each workgroup holding tail lines
/// with their mirrors, sent there by the head) and its merge on the head's load: clusters of
/// 2 to 16 on the small device, the H100's shape of the 2^16-real half for large batches,
/// against f64, with a scale.
#[test]
fn cluster_real_halves() {
    use crate::spec::RealHalf;
    let tiny = tiny_clusters();
    let h100 = DeviceLimits::profile("h100-cuda").expect("profile");
    let mut rng = StdRng::seed_from_u64(13);
    for (limits, k, blocks) in [
        (&tiny, 9, None),
        (&tiny, 10, None),
        (&tiny, 11, None),
        (&tiny, 9, Some(2)),
        (&tiny, 11, Some(16)),
        (&h100, 15, Some(4)),
    ] {
        let m = 1usize << k;
        let batch = if k < 12 { 3 } else { 1 };
        let opts = crate::plan::PlanOptions {
            cluster_blocks: blocks,
            ..Default::default()
        };
        let run = |spec: &FftSpec, input: &[Complex32]| {
            let plan = Plan::with_options(spec, limits, &opts).expect("plan");
            assert!(
                plan.passes.len() == 1 && plan.passes[0].cluster.is_some(),
                "m = {m}: expected one cluster pass\n{plan}"
            );
            let out =
                run_plan(&plan, input).unwrap_or_else(|e| panic!("{}:\n{plan}\n{e}", limits.name));
            (plan, out)
        };
        let split = FftSpec::new(m)
            .batch(batch)
            .real_half(RealHalf::Split { scale: 0.5 });
        let input = random(&mut rng, m * batch);
        let (plan, out) = run(&split, &input);
        assert!(
            plan.passes[0]
                .steps()
                .last()
                .is_some_and(|t| t.splits_real())
        );
        let err = relative_l2_error(&out, &rfft_f64(&input, m, 0.5));
        assert!(err <= 1e-6, "split of m = {m}: error {err:e}\n{plan}");

        let scale = 1.0 / (2 * m) as f64;
        let merge = FftSpec::new(m)
            .batch(batch)
            .inverse()
            .real_half(RealHalf::Merge { scale });
        let bins = random(&mut rng, (m + 1) * batch);
        let (plan, out) = run(&merge, &bins);
        let err = relative_l2_error(&out, &irfft_f64(&bins, m, scale));
        assert!(err <= 1e-6, "merge of m = {m}: error {err:e}\n{plan}");
    }
}

/// Columns, fused loads and stores, and chains (persistent prefetching kernels on CUDA).
#[test]
fn columns_fusion_and_chains() {
    let mut rng = StdRng::seed_from_u64(7);
    for profile in ["lavapipe", "h100-cuda"] {
        for k in [1, 4, 8, 10, 12] {
            check(&FftSpec::new(1 << k).batch(8).columns(), profile);
        }
        for k in [4, 8, 10, 12] {
            let n = 1 << k;
            let h: std::sync::Arc<[Complex32]> = random(&mut rng, n).into();
            let w: std::sync::Arc<[Complex32]> = random(&mut rng, n).into();
            let each: std::sync::Arc<[Complex32]> = random(&mut rng, 3 * n).into();
            let spec = FftSpec::new(n)
                .batch(3)
                .on_load(PointOp::Multiply(w))
                .on_load(PointOp::MultiplyEach(each))
                .then_multiply_and_invert(h)
                .normalized()
                .on_store(PointOp::Conjugate);
            check(&spec, profile);
            // Column plans hold a quarter of the rows' one-pass block.
            if n <= 1024 {
                check(&spec.columns(), profile);
            }
            // A filter for each transform, beside the persistent kernels' tables.
            let per_row: std::sync::Arc<[Complex32]> = random(&mut rng, 3 * n).into();
            check(
                &FftSpec::new(n)
                    .batch(3)
                    .then_multiply_and_invert(per_row)
                    .normalized(),
                profile,
            );
        }
    }
}

/// Batches split over several dispatches, and grids folded into two dimensions.
#[test]
fn dispatch_splits_and_folded_grids() {
    let lp = DeviceLimits::profile("lavapipe").expect("profile");
    // Bindings of `transforms` transforms of n points, grids of at most `x` × `x` groups.
    let narrow = |n: u64, transforms: u64, x: u32| DeviceLimits {
        max_binding: 8 * n * transforms,
        max_groups_per_dim: x,
        ..lp.clone()
    };
    check_on(&FftSpec::new(1024).batch(20), &narrow(1024, 6, 4));
    check_on(&FftSpec::new(16).batch(500), &narrow(16, 70, 4));
    check_on(&FftSpec::new(1 << 15).batch(3), &narrow(1 << 15, 1, 65535));
}

/// Every length to 1024 on lavapipe's limits, and the smooth ones and every fifth other on
/// the H100's, forward with batch 3: smooth ones (prime factors up to 31) in one mixed-radix pass,
/// the others by Bluestein's algorithm; and normalised inverses of a spread of them.
#[test]
fn every_length_to_1024() {
    for profile in ["lavapipe", "h100-cuda"] {
        for n in 1..=1024 {
            let spec = FftSpec::new(n).batch(3);
            if crate::plan::is_smooth(n) {
                check(&spec, profile);
            } else if profile == "lavapipe" || n % 5 == 0 {
                check_bluestein(&spec, profile);
            }
        }
    }
    for n in [3, 15, 143, 1000] {
        check(&FftSpec::new(n).inverse().normalized(), "lavapipe");
    }
}

/// Mixed-radix lengths above one pass, and the benchmark's smooth lengths, with columns,
/// fused operations and chains.
#[test]
fn mixed_radix_plans() {
    for (profile, n) in [
        ("lavapipe", 2187),
        ("lavapipe", 3125),
        ("lavapipe", 5616),
        ("lavapipe", 10000),
        ("lavapipe", 46656),
        ("small-16k", 16807),
        ("h100-cuda", 5616),
        ("h100-cuda", 100_000),
    ] {
        check(&FftSpec::new(n), profile);
    }
    // One pass only where the register file is known and there are enough lines: up to 64
    // points per thread.
    for n in [11979, 16807] {
        check(&FftSpec::new(n).batch(WIDE_MIN_LINES), "h100-cuda");
    }
    let mut rng = StdRng::seed_from_u64(11);
    // Chains longer than one pass: the forward passes, then the back-transform's.
    for (profile, n) in [
        ("lavapipe", 1 << 15),
        ("lavapipe", 10000),
        ("h100-cuda", 8192),
    ] {
        let h: std::sync::Arc<[Complex32]> = random(&mut rng, n).into();
        let spec = FftSpec::new(n)
            .batch(2)
            .on_load(PointOp::Conjugate)
            .then_multiply_and_invert(h)
            .normalized();
        check(&spec, profile);
    }
    for n in [12, 360, 1000, 1001] {
        let h: std::sync::Arc<[Complex32]> = random(&mut rng, n).into();
        let spec = FftSpec::new(n)
            .batch(3)
            .then_multiply_and_invert(h)
            .normalized()
            .on_store(PointOp::Conjugate);
        check(&spec, "lavapipe");
        check(&spec, "h100-cuda");
        check(&FftSpec::new(n).batch(5).columns(), "lavapipe");
    }
}

/// Lengths with a prime factor above 31 by Bluestein's algorithm: one fused kernel where
/// the convolution fits one pass, the forward and inverse passes where it does not.
#[test]
fn bluestein_plans() {
    for (profile, n) in [
        ("lavapipe", 37),
        ("lavapipe", 1009),
        ("lavapipe", 4099),
        ("small-16k", 2053),
        ("h100-cuda", 4099),
        ("h100-cuda", 10007),
    ] {
        check_bluestein(&FftSpec::new(n).batch(3), profile);
        check_bluestein(&FftSpec::new(n).inverse().normalized(), profile);
    }
    check_bluestein(&FftSpec::new(257).batch(5).columns(), "lavapipe");
}

/// Chains and per-element multiplies on Bluestein lengths: two convolutions with the user's
/// filter between them (one kernel each, or their passes), fused operations at the user's
/// row indices, rows and columns.
#[test]
fn bluestein_chains_and_fused_operations() {
    let mut rng = StdRng::seed_from_u64(29);
    for (profile, n, batch) in [
        ("lavapipe", 37, 3),
        ("lavapipe", 1009, 2),
        ("small-16k", 2053, 2),
        ("h100-cuda", 4099, 2),
    ] {
        let mut v = |len: usize| -> std::sync::Arc<[Complex32]> { random(&mut rng, len).into() };
        let chained = FftSpec::new(n)
            .batch(batch)
            .on_load(PointOp::Multiply(v(n)))
            .on_load(PointOp::ZeroFrom(n - n / 3))
            .then_multiply_and_invert(v(n))
            .normalized()
            .on_store(PointOp::MultiplyEach(v(n * batch)))
            .on_store(PointOp::Conjugate);
        check_bluestein(&chained, profile);
        check_bluestein(&chained.clone().inverse().columns(), profile);
        let each = FftSpec::new(n)
            .batch(batch)
            .inverse()
            .on_load(PointOp::MultiplyEach(v(n * batch)))
            .on_store(PointOp::Multiply(v(n)));
        check_bluestein(&each, profile);
    }
}

fn check_bluestein(spec: &FftSpec, profile: &str) {
    let limits = DeviceLimits::profile(profile).expect("profile");
    let plan = Plan::new(spec, &limits).expect("plan");
    assert!(plan.bluestein.is_some());
    let mut rng = StdRng::seed_from_u64(spec.n as u64);
    let input = random(&mut rng, spec.len());
    let out = run_plan(&plan, &input).unwrap_or_else(|e| panic!("{profile}:\n{plan}\n{e}"));
    let err = relative_l2_error(&out, &spec_f64(spec, &input));
    assert!(
        err <= 1e-6,
        "{profile}, n = {}: error {err:e}\n{plan}",
        spec.n
    );
}

/// Rows of `2m` reals (`pairs`, read as complex pairs) through the f64 N-D reference's
/// `rfft`: `m + 1` bins per row, times `scale`.
fn rfft_f64(pairs: &[Complex32], m: usize, scale: f64) -> Vec<num_complex::Complex64> {
    use crate::debug::reference::{NdInput, nd_f64};
    let reals: &[f32] = bytemuck::cast_slice(pairs);
    let spec = crate::NdSpec::new(&[pairs.len() / m, 2 * m])
        .axes(&[1])
        .real();
    let bins = nd_f64(&spec, &NdInput::Real(reals));
    bins.into_iter().map(|z| z * scale).collect()
}

/// Rows of `m + 1` bins through the f64 N-D reference's `irfft` of length `2m` (the
/// imaginary parts of bins 0 and m ignored): the `2m` reals of each row as `m` complex
/// pairs, times `scale`.
fn irfft_f64(bins: &[Complex32], m: usize, scale: f64) -> Vec<num_complex::Complex64> {
    use crate::debug::reference::{NdInput, nd_f64};
    let spec = crate::NdSpec::new(&[bins.len() / (m + 1), 2 * m])
        .axes(&[1])
        .real()
        .inverse();
    let reals = nd_f64(&spec, &NdInput::Complex(bins));
    reals
        .chunks(2)
        .map(|p| num_complex::Complex64::new(p[0].re, p[1].re) * scale)
        .collect()
}

/// An even real transform's split fused into a one-pass line's store and its merge into the
/// first pass's load (one pass or several), for every smooth half length to 512 and longer
/// ones, on every profile, against f64 (the bins' inputs random, bins 0 and m with imaginary
/// parts that must be ignored).
#[test]
fn fused_real_splits_and_merges() {
    use crate::spec::RealHalf;
    let run = |spec: &FftSpec, limits: &DeviceLimits, input: &[Complex32]| {
        let plan = Plan::new(spec, limits).unwrap_or_else(|e| panic!("{}: {e}", limits.name));
        let out =
            run_plan(&plan, input).unwrap_or_else(|e| panic!("{}:\n{plan}\n{e}", limits.name));
        (plan, out)
    };
    let mut rng = StdRng::seed_from_u64(11);
    for profile in DeviceLimits::PROFILES {
        let limits = DeviceLimits::profile(profile).expect("profile");
        let halves = (1..=512)
            .filter(|&m| crate::plan::is_smooth(m))
            .chain([1000, 4096]);
        for m in halves {
            let batch = 3;
            let scale = if m % 2 == 0 { 1.0 } else { 0.5 / m as f64 };
            let split = FftSpec::new(m)
                .batch(batch)
                .real_half(RealHalf::Split { scale });
            let one_pass = Plan::new(&FftSpec::new(m).batch(batch), &limits)
                .is_ok_and(|p| p.passes.len() == 1);
            if one_pass {
                let input = random(&mut rng, m * batch);
                let (plan, out) = run(&split, &limits, &input);
                let err = relative_l2_error(&out, &rfft_f64(&input, m, scale));
                assert!(
                    err <= 1e-6,
                    "{profile}, split of m = {m}: error {err:e}\n{plan}"
                );
            }

            let merge = FftSpec::new(m)
                .batch(batch)
                .inverse()
                .real_half(RealHalf::Merge { scale });
            let bins = random(&mut rng, (m + 1) * batch);
            let (plan, out) = run(&merge, &limits, &bins);
            let err = relative_l2_error(&out, &irfft_f64(&bins, m, scale));
            assert!(
                err <= 1e-6,
                "{profile}, merge of m = {m}: error {err:e}\n{plan}"
            );
        }
    }
    // Merges on the first of several passes.
    for (profile, m) in [
        ("small-16k", 1 << 14),
        ("lavapipe", 1 << 14),
        ("h100-cuda", 3 * 15625),
    ] {
        let limits = DeviceLimits::profile(profile).expect("profile");
        let merge = FftSpec::new(m)
            .inverse()
            .real_half(RealHalf::Merge { scale: 1.0 });
        let bins = random(&mut rng, m + 1);
        let (plan, out) = run(&merge, &limits, &bins);
        assert!(plan.passes.len() > 1, "{plan}");
        let err = relative_l2_error(&out, &irfft_f64(&bins, m, 1.0));
        assert!(
            err <= 1e-6,
            "{profile}, merge of m = {m}: error {err:e}\n{plan}"
        );
        // The split on the last pass, each workgroup holding lines and their mirrors; where
        // the workgroups cannot pair them (375 lines of 8 per workgroup), an error.
        let split = FftSpec::new(m)
            .batch(2)
            .real_half(RealHalf::Split { scale: 0.25 });
        if !m.is_power_of_two() {
            let refused = Plan::new(&split, &limits);
            assert!(matches!(refused, Err(crate::Error::Unsupported { .. })));
            continue;
        }
        let input = random(&mut rng, 2 * m);
        let (plan, out) = run(&split, &limits, &input);
        let err = relative_l2_error(&out, &rfft_f64(&input, m, 0.25));
        assert!(
            err <= 1e-6,
            "{profile}, split of m = {m}: error {err:e}\n{plan}"
        );
    }
}

/// Real weights per element on rows and columns (one pass and several), and per part on the
/// loads of fused splits and the stores of fused merges (a windowed R2C, a weighted C2R), on
/// every profile, against f64.
#[test]
fn real_weights_per_element_and_per_part() {
    use crate::RealWeights;
    use crate::spec::RealHalf;
    use num_complex::Complex64;
    let mut rng = StdRng::seed_from_u64(17);
    let reals = |rng: &mut StdRng, len: usize| -> Vec<f32> {
        (0..len).map(|_| rng.random_range(-1.0..1.0)).collect()
    };
    // `values` with each element's parts weighted by `w`'s pair.
    let by_parts = |values: &[Complex32], w: &[f32]| -> Vec<Complex32> {
        values
            .iter()
            .zip(w.chunks(2))
            .map(|(z, p)| Complex32::new(z.re * p[0], z.im * p[1]))
            .collect()
    };
    for profile in DeviceLimits::PROFILES {
        let limits = DeviceLimits::profile(profile).expect("profile");
        for (n, batch) in [(8, 3), (100, 3), (1001, 2), (1 << 13, 2)] {
            let w = |rng: &mut StdRng| PointOp::Weight(RealWeights::new(&reals(rng, n * batch)));
            let spec = FftSpec::new(n)
                .batch(batch)
                .on_load(w(&mut rng))
                .on_store(w(&mut rng));
            check_on(&spec, &limits);
            check_on(&spec.columns(), &limits);
        }
        for m in [4, 60, 512] {
            let batch = 3;
            let one_pass = Plan::new(&FftSpec::new(m).batch(batch), &limits)
                .is_ok_and(|p| p.passes.len() == 1);
            let w = reals(&mut rng, 2 * m * batch);
            let weight = || PointOp::Weight(RealWeights::per_part(&w));
            if one_pass {
                let split = FftSpec::new(m)
                    .batch(batch)
                    .on_load(weight())
                    .real_half(RealHalf::Split { scale: 1.0 });
                let input = random(&mut rng, m * batch);
                let plan = Plan::new(&split, &limits).expect("plan");
                let out = run_plan(&plan, &input).expect("run");
                let want = rfft_f64(&by_parts(&input, &w), m, 1.0);
                let err = relative_l2_error(&out, &want);
                assert!(err <= 1e-6, "{profile}, windowed split of m = {m}: {err:e}");
            }
            let merge = FftSpec::new(m)
                .batch(batch)
                .inverse()
                .on_store(weight())
                .real_half(RealHalf::Merge { scale: 1.0 });
            let bins = random(&mut rng, (m + 1) * batch);
            let plan = Plan::new(&merge, &limits).expect("plan");
            let out = run_plan(&plan, &bins).expect("run");
            let want: Vec<Complex64> = irfft_f64(&bins, m, 1.0)
                .iter()
                .zip(w.chunks(2))
                .map(|(z, p)| Complex64::new(z.re * f64::from(p[0]), z.im * f64::from(p[1])))
                .collect();
            let err = relative_l2_error(&out, &want);
            assert!(err <= 1e-6, "{profile}, weighted merge of m = {m}: {err:e}");
        }
    }
}

/// An odd (or any) real transform's cut to bins `0..=n/2` fused into the full transform's
/// store and its Hermitian extension into the load, on every profile, one pass and several.
#[test]
fn fused_real_cuts_and_extensions() {
    use crate::spec::RealHalf;
    use num_complex::Complex64;
    let mut rng = StdRng::seed_from_u64(13);
    let mut cases: Vec<(&str, usize)> = Vec::new();
    for profile in DeviceLimits::PROFILES {
        for n in [1, 2, 3, 5, 7, 9, 15, 16, 21, 45, 63, 64, 105, 243, 1000] {
            cases.push((profile, n));
        }
    }
    cases.extend([
        ("small-16k", 3 * 3 * 5 * 5 * 7 * 7),
        ("lavapipe", 1 << 15),
        ("h100-cuda", 3 * 15625),
    ]);
    for (profile, n) in cases {
        let limits = DeviceLimits::profile(profile).expect("profile");
        let (h, batch) = (n / 2 + 1, 3);
        let cut = FftSpec::new(n)
            .batch(batch)
            .normalized()
            .real_half(RealHalf::Truncate);
        let plan = Plan::new(&cut, &limits).expect("plan");
        let input = random(&mut rng, n * batch);
        let out = run_plan(&plan, &input).unwrap_or_else(|e| panic!("{profile}:\n{plan}\n{e}"));
        let full = spec_f64(&FftSpec::new(n).batch(batch).normalized(), &input);
        let want: Vec<Complex64> = full.chunks(n).flat_map(|r| r[..h].to_vec()).collect();
        let err = relative_l2_error(&out, &want);
        assert!(
            err <= 1e-6,
            "{profile}, cut of n = {n}: error {err:e}\n{plan}"
        );

        let extend = FftSpec::new(n)
            .batch(batch)
            .inverse()
            .real_half(RealHalf::Extend);
        let plan = Plan::new(&extend, &limits).expect("plan");
        let bins = random(&mut rng, h * batch);
        let out = run_plan(&plan, &bins).unwrap_or_else(|e| panic!("{profile}:\n{plan}\n{e}"));
        let whole: Vec<Complex32> = bins
            .chunks(h)
            .flat_map(|r| (0..n).map(move |k| if k < h { r[k] } else { r[n - k].conj() }))
            .collect();
        let want = spec_f64(&FftSpec::new(n).batch(batch).inverse(), &whole);
        let err = relative_l2_error(&out, &want);
        assert!(
            err <= 1e-6,
            "{profile}, extension of n = {n}: error {err:e}\n{plan}"
        );
    }
}

/// f16 and bf16 storage: one-pass, multi-pass, mixed-radix, column, chained and cluster
/// plans, each rounding its data to 16 bits at every store, against the f64 transform of
/// the rounded input: within one rounding (2^-11, 2^-8 relative) per pass and one more, and
/// above a sixteenth of one (so the stores do round).
#[test]
fn sixteen_bit_storage() {
    use super::round_to_storage;
    use crate::Precision;
    let mut rng = StdRng::seed_from_u64(16);
    let h100 = DeviceLimits::profile("h100-cuda").expect("profile");
    let lavapipe = DeviceLimits::profile("lavapipe").expect("profile");
    let clusters = crate::plan::PlanOptions {
        cluster_blocks: Some(4),
        ..Default::default()
    };
    let plain = crate::plan::PlanOptions::default();
    for precision in [Precision::F16, Precision::Bf16] {
        let h: std::sync::Arc<[Complex32]> = random(&mut rng, 1024).into();
        let cases = [
            (FftSpec::new(8).batch(5), &lavapipe, &plain),
            (FftSpec::new(4096).batch(2), &lavapipe, &plain),
            (FftSpec::new(1 << 16), &lavapipe, &plain),
            (FftSpec::new(5616).inverse().normalized(), &lavapipe, &plain),
            (FftSpec::new(256).batch(8).columns(), &h100, &plain),
            (
                FftSpec::new(1024)
                    .batch(2)
                    .then_multiply_and_invert(h)
                    .normalized(),
                &h100,
                &plain,
            ),
            (FftSpec::new(1 << 18), &h100, &plain),
            (FftSpec::new(1 << 15), &h100, &clusters),
        ];
        for (spec, limits, opts) in cases {
            let spec = spec.precision(precision);
            let plan = Plan::with_options(&spec, limits, opts).expect("plan");
            let input: Vec<Complex32> = random(&mut rng, spec.len())
                .into_iter()
                .map(|z| round_to_storage(z, precision))
                .collect();
            let out =
                run_plan(&plan, &input).unwrap_or_else(|e| panic!("{}:\n{plan}\n{e}", limits.name));
            let ulp = match precision {
                Precision::F16 => 2f64.powi(-11),
                _ => 2f64.powi(-8),
            };
            let err = relative_l2_error(&out, &spec_f64(&spec, &input));
            let bound = ulp * (plan.passes.len() + 1) as f64;
            // Above f32's error too: the stores do round to 16 bits.
            assert!(
                err <= bound && err >= ulp / 16.0,
                "{precision}, {}, n = {}: relative L2 error {err:e} (bound {bound:e})\n{plan}",
                limits.name,
                spec.n
            );
        }
    }
}

/// Checksummed plans on every profile (one pass, several passes, mixed radix, columns,
/// split dispatches, fused operations, f16): the output matches f64 and every transform's
/// records pass their check (`run_plan` verifies them).
#[test]
fn checksummed_plans() {
    use crate::Checksum::Detect;
    for profile in DeviceLimits::PROFILES {
        for k in [0, 1, 3, 6, 10, 12] {
            check(&FftSpec::new(1 << k).batch(3).checksum(Detect), profile);
        }
        check(&FftSpec::new(360).batch(2).checksum(Detect), profile);
        // Fused operations around the checked transform, in one pass and in several.
        for n in [1024, 1 << 16] {
            let spec = FftSpec::new(n)
                .batch(2)
                .on_load(PointOp::Conjugate)
                .on_store(PointOp::Scale(0.5))
                .on_store(PointOp::Magnitude);
            check(&spec.checksum(Detect), profile);
        }
    }
    for (profile, k) in [("small-16k", 15), ("lavapipe", 16), ("h100-cuda", 18)] {
        check(&FftSpec::new(1 << k).checksum(Detect), profile);
    }
    check(
        &FftSpec::new(1 << 15)
            .inverse()
            .normalized()
            .checksum(Detect),
        "lavapipe",
    );
    check(
        &FftSpec::new(64).batch(40).columns().checksum(Detect),
        "lavapipe",
    );
    check(
        &FftSpec::new(1 << 14).batch(3).columns().checksum(Detect),
        "small-16k",
    );
    let lp = DeviceLimits::profile("lavapipe").expect("profile");
    let narrow = DeviceLimits {
        max_binding: 8 * 1024 * 6,
        max_groups_per_dim: 4,
        ..lp
    };
    check_on(&FftSpec::new(1024).batch(20).checksum(Detect), &narrow);
}

/// Checksummed cluster passes (a record per warp: the head's input sums, the tail's output
/// sums): clusters of 4, 8 and 16 on a small device with warp shuffles, the H100's 2^15 in 4
/// and 2^16 in 8, forward and a normalised inverse with fused operations, against f64 with
/// every record checked; a NaN in one transform's input fails that transform alone.
#[test]
fn checksummed_cluster_plans() {
    use crate::Checksum::Detect;
    // Workgroups of whole warps: 512 points a workgroup at 16 a thread.
    let small = DeviceLimits {
        name: "small-clusters".into(),
        lane_sums: true,
        subgroup_size: 32,
        workgroup_memory: 16 << 10,
        max_threads: 64,
        ..tiny_clusters()
    };
    let tiny = &small;
    let h100 = DeviceLimits::profile("h100-cuda").expect("profile");
    for (limits, k, blocks, batch) in [
        (tiny, 11, Some(4), 3),
        (tiny, 12, Some(8), 2),
        (tiny, 13, Some(16), 2),
        (&h100, 15, Some(4), 2),
        (&h100, 16, Some(8), 1),
    ] {
        let opts = crate::plan::PlanOptions {
            cluster_blocks: blocks,
            ..Default::default()
        };
        let specs = [
            FftSpec::new(1 << k).batch(batch),
            FftSpec::new(1 << k)
                .batch(batch)
                .inverse()
                .normalized()
                .on_load(PointOp::Conjugate)
                .on_store(PointOp::Scale(0.5)),
        ];
        for spec in specs {
            let spec = spec.checksum(Detect);
            let plan = Plan::with_options(&spec, limits, &opts).expect("plan");
            assert!(
                plan.passes.len() == 1 && plan.passes[0].cluster.is_some(),
                "2^{k}: expected one cluster pass\n{plan}"
            );
            check_with(&spec, limits, &opts);
        }
        if batch > 1 {
            let spec = FftSpec::new(1 << k).batch(batch).checksum(Detect);
            let plan = Plan::with_options(&spec, limits, &opts).expect("plan");
            let mut input = random(&mut StdRng::seed_from_u64(3), spec.len());
            input[spec.n + 17].re = f32::NAN;
            let got = run_plan(&plan, &input).expect_err("a NaN passed");
            assert!(got.contains("[1]"), "2^{k}: {got}");
        }
    }
}
