use super::*;
use crate::base::factors::PRIMES;
use crate::plan::schedule::Route;
use crate::spec::{MAX_LOG2_N, PointOp};

fn all_profiles() -> Vec<DeviceLimits> {
    DeviceLimits::PROFILES
        .iter()
        .map(|p| DeviceLimits::profile(p).unwrap())
        .collect()
}

#[test]
fn plans_fit_device_limits_for_every_length() {
    for limits in all_profiles() {
        for k in 0..=MAX_LOG2_N {
            for batch in [1, 3, 1000] {
                let spec = FftSpec::new(1 << k).batch(batch);
                let plan = match Plan::new(&spec, &limits) {
                    Ok(p) => p,
                    Err(Error::TooLarge { .. }) if 8u64 << k > limits.max_binding => continue,
                    Err(e) => panic!("{}: 2^{k}: {e}", limits.name),
                };
                // A cluster pass's tail finishes its head's lines in workgroup memory.
                let sizes: usize = plan
                    .passes
                    .iter()
                    .map(|p| p.size * p.cluster.as_ref().map_or(1, |c| c.tail.size))
                    .product();
                assert_eq!(sizes, spec.n, "{}: 2^{k}", limits.name);
                let mut stride = 1;
                for p in &plan.passes {
                    assert_eq!(p.radices.iter().product::<usize>(), p.size);
                    assert!(p.radices.iter().all(|r| [2, 4, 8, 16].contains(r)));
                    assert!(p.radices.iter().all(|r| p.points_per_thread % r == 0));
                    assert_eq!(p.threads_per_line * p.points_per_thread, p.size);
                    assert!(
                        p.radices.iter().all(|&r| r <= limits.max_points_per_thread),
                        "{}: 2^{k} {p:?}",
                        limits.name
                    );
                    assert!(
                        p.threads() <= limits.max_threads,
                        "{}: 2^{k} {p:?}",
                        limits.name
                    );
                    assert!(
                        p.workgroup_bytes() <= limits.workgroup_memory,
                        "{}: 2^{k}",
                        limits.name
                    );
                    assert!(p.lines_per_group.is_power_of_two());
                    assert_eq!(p.stride, stride);
                    stride *= p.size;
                    if p.order == LineOrder::Interleaved {
                        assert_eq!(plan.lines_per_transform(p) % p.lines_per_group, 0);
                    }
                }
                let chunk = plan.transforms_per_dispatch as u64 * 8 * spec.n as u64;
                assert!(chunk <= limits.max_binding && plan.transforms_per_dispatch >= 1);
                assert!(
                    plan.transforms_per_dispatch == batch
                        || chunk.is_multiple_of(limits.binding_alignment)
                );
            }
        }
    }
}

/// Smooth lengths that are not powers of two: every one to 2^14, and a spread to 2^24
/// (powers of 3, 5, 7, 6, 10 and the products of two of them), on every profile: passes
/// multiply to n, radices to the pass, and every pass fits the device.
#[test]
fn plans_fit_device_limits_for_smooth_lengths() {
    let mut lengths: Vec<usize> = (1..=1 << 14).filter(|&n| shape::is_smooth(n)).collect();
    for base in [3usize, 5, 6, 7, 10, 11, 13] {
        let mut n = base;
        while n <= 1 << 24 {
            lengths.extend([n, n * 2, n * 1000].iter().filter(|&&m| m <= 1 << 24));
            n *= base;
        }
    }
    for limits in all_profiles() {
        for &n in &lengths {
            // (A batch of lengths over a binding cannot be split at aligned offsets.)
            let batch = if n > 1 << 20 { 1 } else { 3 };
            let plan = Plan::new(&FftSpec::new(n).batch(batch), &limits)
                .unwrap_or_else(|e| panic!("{}: {n}: {e}", limits.name));
            assert_eq!(plan.passes.iter().map(|p| p.size).product::<usize>(), n);
            for p in &plan.passes {
                assert_eq!(p.radices.iter().product::<usize>(), p.size, "{n}");
                // Radices up to 16, or a prime codelet (17..31) alone.
                assert!(
                    p.radices.iter().all(|&r| r <= 16 || PRIMES.contains(&r)),
                    "{n}: {p:?}"
                );
                assert_eq!(p.threads_per_line * p.points_per_thread, p.size);
                let largest = shape::smooth_factors(p.size)
                    .unwrap()
                    .first()
                    .copied()
                    .unwrap_or(1);
                let budget = RegisterBudget::new(&limits, largest, p.lines_per_group, usize::MAX);
                assert!(
                    budget.fits(p.registers(), p.threads_per_line, false)
                        || budget.fits(p.registers(), p.threads_per_line, true),
                    "{n}: {p:?}"
                );
                assert!(p.threads() <= limits.max_threads, "{n}: {p:?}");
                assert!(p.workgroup_bytes() <= limits.workgroup_memory, "{n}: {p:?}");
            }
        }
    }
}

#[test]
fn one_pass_up_to_the_on_chip_block() {
    let m1 = DeviceLimits::profile("apple-m1").unwrap();
    for k in 0..=13 {
        let plan = Plan::new(&FftSpec::new(1 << k), &m1).unwrap();
        assert_eq!(plan.passes.len(), 1, "2^{k}");
    }
    // 4096 points fit as complex values in 32 KiB; 8192 need the split exchange.
    let p12 = Plan::new(&FftSpec::new(4096), &m1).unwrap();
    assert_eq!(p12.passes[0].exchange, Exchange::Complex);
    assert_eq!(p12.passes[0].radices, vec![8, 8, 8, 8]);
    let p13 = Plan::new(&FftSpec::new(8192), &m1).unwrap();
    assert_eq!(p13.passes[0].exchange, Exchange::Split);
}

#[test]
fn four_million_points_on_32k_take_two_fused_passes() {
    let m1 = DeviceLimits::profile("apple-m1").unwrap();
    let plan = Plan::new(&FftSpec::new(1 << 22), &m1).unwrap();
    assert_eq!(plan.passes.len(), 2);
    assert!(!plan.passes[0].twiddled() && plan.passes[1].twiddled());
    assert!(plan.passes[0].store.staged && !plan.passes[1].store.staged);
    assert!(
        plan.passes
            .iter()
            .all(|p| p.lines_per_group * 8 >= m1.transaction_bytes)
    );
    // 2^24 takes three: 2048-point passes with 4-line runs cover 2^22.
    assert_eq!(
        Plan::new(&FftSpec::new(1 << 24), &m1).unwrap().passes.len(),
        3
    );
}

/// NVIDIA through Vulkan packs lines into workgroups of 64 threads (measured faster there);
/// an explicit `target_threads` still wins, and CUDA keeps 256.
#[test]
fn nvidia_vulkan_packs_small_workgroups() {
    let vk = DeviceLimits::profile("h100-vulkan").unwrap();
    let spec = FftSpec::new(256).batch(1 << 16);
    assert_eq!(Plan::new(&spec, &vk).unwrap().passes[0].threads(), 64);
    let opts = PlanOptions {
        target_threads: Some(256),
        ..PlanOptions::default()
    };
    let plan = Plan::with_options(&spec, &vk, &opts).unwrap();
    assert_eq!(plan.passes[0].threads(), 256);
    let cuda = DeviceLimits::profile("h100-cuda").unwrap();
    assert_eq!(
        Plan::new(&spec, &cuda).unwrap().passes[0].threads(),
        TARGET_THREADS
    );
}

/// `PlanOptions::exchange` forces the exchange: split where complex would fit (half the
/// workgroup memory), complex where only split would fit one pass (two passes then). NVIDIA
/// through Vulkan takes the split exchange unless told otherwise, or the complex one in
/// rounds where it does not fit at once; other devices complex.
#[test]
fn exchange_can_be_forced() {
    let vk = DeviceLimits::profile("h100-vulkan").unwrap();
    let with = |n: usize, ex: Option<Exchange>| {
        let opts = PlanOptions {
            exchange: ex,
            ..PlanOptions::default()
        };
        Plan::with_options(&FftSpec::new(n).batch(64), &vk, &opts).unwrap()
    };
    let complex = with(4096, Some(Exchange::Complex));
    assert_eq!(complex.passes[0].exchange, Exchange::Complex);
    let split = with(4096, None);
    assert_eq!(split.passes.len(), 1);
    assert_eq!(split.passes[0].exchange, Exchange::Split);
    assert!(2 * split.passes[0].workgroup_bytes() <= complex.passes[0].workgroup_bytes() + 2048);
    let complex = with(8192, Some(Exchange::Complex));
    assert_eq!(complex.passes.len(), 2);
    assert!(
        complex
            .passes
            .iter()
            .all(|p| p.exchange == Exchange::Complex)
    );
    // Where the complex exchange does not fit at once, NVIDIA through Vulkan takes it in
    // rounds (f32 one-pass lines, at most four rounds): 8192 in two, 16384 in four; 2^15
    // and f64 as before; forcing the split exchange undoes it.
    for (n, rounds) in [(8192, 2), (16384, 4)] {
        let plan = with(n, None);
        let p = &plan.passes[0];
        assert!(
            plan.passes.len() == 1 && p.exchange == Exchange::Complex && p.rounds == rounds,
            "{plan}"
        );
    }
    let split = with(8192, Some(Exchange::Split));
    assert!(
        split.passes.len() == 1 && split.passes[0].rounds == 1,
        "{split}"
    );
    assert_eq!(with(1 << 15, None).passes.len(), 2);
    let f64 = Plan::new(&FftSpec::new(8192).batch(64).precision(Precision::F64), &vk).unwrap();
    assert!(f64.passes.iter().all(|p| p.rounds == 1), "{f64}");
    assert!(
        Plan::new(
            &FftSpec::new(8192).batch(64),
            &DeviceLimits::profile("lavapipe").unwrap()
        )
        .unwrap()
        .passes
        .iter()
        .all(|p| p.rounds == 1)
    );
    // Asking for prefetching (which needs the complex exchange) sets the device's aside.
    let opts = PlanOptions {
        prefetch: Some(true),
        target_threads: Some(64),
        ..PlanOptions::default()
    };
    let prefetch = Plan::with_options(&FftSpec::new(64).batch(1000), &vk, &opts).unwrap();
    assert!(prefetch.passes[0].prefetch());
    let m1 = DeviceLimits::profile("apple-m1").unwrap();
    let plan = Plan::new(&FftSpec::new(1024).batch(64), &m1).unwrap();
    assert_eq!(plan.passes[0].exchange, Exchange::Complex);
}

#[test]
fn small_transforms_are_packed() {
    let lp = DeviceLimits::profile("lavapipe").unwrap();
    let plan = Plan::new(&FftSpec::new(64).batch(10_000), &lp).unwrap();
    assert_eq!(plan.passes[0].threads(), TARGET_THREADS);
    assert_eq!(plan.passes[0].lines_per_group, 32);
    // Batch 1 does not launch idle lines.
    let plan = Plan::new(&FftSpec::new(64), &lp).unwrap();
    assert_eq!(plan.passes[0].lines_per_group, 1);
}

#[test]
fn bad_specs_are_errors() {
    let lp = DeviceLimits::profile("lavapipe").unwrap();
    for n in [0, 1 << (MAX_LOG2_N + 1)] {
        assert!(matches!(
            Plan::new(&FftSpec::new(n), &lp),
            Err(Error::UnsupportedLength { .. })
        ));
    }
    // A prime whose convolution would pass 2^27: refused at once, saying why.
    let h100 = DeviceLimits::profile("h100-cuda").unwrap();
    let e = Plan::new(&FftSpec::new(134_217_689), &h100).expect_err("past 2^27");
    assert!(
        matches!(e, Error::TooLarge { .. }) && e.to_string().contains("longest transform"),
        "{e}"
    );
    // Within tierfft's lengths but past lavapipe's 128 MiB binding: the device's own limit.
    assert!(matches!(
        Plan::new(&FftSpec::new(1 << 25), &lp),
        Err(Error::TooLarge { .. })
    ));
    assert!(matches!(
        Plan::new(&FftSpec::new(8).batch(0), &lp),
        Err(Error::ZeroBatch)
    ));
    // Bluestein's length, pinned: smooth, 2n − 1 to 4(2n − 1), or a clear error.
    for m in [8197, 8000, 40_000] {
        let opts = PlanOptions {
            bluestein_m: Some(m),
            ..PlanOptions::default()
        };
        let e = Plan::with_options(&FftSpec::new(4099), &lp, &opts).expect_err("bad m");
        assert!(matches!(e, Error::InvalidOptions(_)), "{e}");
    }
    let pinned = PlanOptions {
        bluestein_m: Some(9000),
        ..PlanOptions::default()
    };
    let plan = Plan::with_options(&FftSpec::new(4099), &lp, &pinned).expect("m = 9000");
    assert_eq!(plan.bluestein.map(|b| b.m), Some(9000));
    assert_eq!(
        Plan::candidates(&FftSpec::new(4099), &lp, &PlanOptions::default())
            .expect("candidates")
            .len(),
        9
    );
    let tiny = DeviceLimits {
        max_binding: 1 << 20,
        ..lp
    };
    assert!(matches!(
        Plan::new(&FftSpec::new(1 << 20), &tiny),
        Err(Error::TooLarge { .. })
    ));
}

#[test]
fn bad_options_are_errors_naming_the_option() {
    let lp = DeviceLimits::profile("lavapipe").unwrap();
    let spec = FftSpec::new(1 << 12);
    let with = |change: fn(&mut PlanOptions)| {
        let mut o = PlanOptions::default();
        change(&mut o);
        Plan::with_options(&spec, &lp, &o)
            .err()
            .map(|e| e.to_string())
    };
    for (change, says) in [
        (
            (|o: &mut PlanOptions| o.max_radix = 3) as fn(&mut PlanOptions),
            "max_radix must be one of [2, 4, 8, 16] (got 3)",
        ),
        (
            |o| o.max_radix = 0,
            "max_radix must be one of [2, 4, 8, 16] (got 0)",
        ),
        (|o| o.max_radix = 32, "(got 32)"),
        (
            |o| o.target_threads = Some(0),
            "target_threads must be at least 1",
        ),
        (
            |o| o.points_per_thread = Some(3),
            "points_per_thread must be one of [2, 4, 8, 16, 32] (got 3)",
        ),
        (|o| o.points_per_thread = Some(0), "(got 0)"),
        (
            |o| o.groups_per_unit = Some(0),
            "groups_per_unit must be 1 to 32 (got 0)",
        ),
    ] {
        let e = with(change).expect(says);
        assert!(
            e.starts_with("invalid planner option: ") && e.contains(says),
            "{e}"
        );
    }
    // Every allowed value plans every length.
    for radix in PlanOptions::RADICES {
        for points in PlanOptions::POINTS_PER_THREAD {
            let o = PlanOptions {
                max_radix: radix,
                points_per_thread: Some(points),
                ..PlanOptions::default()
            };
            for k in 0..=20 {
                let plan = Plan::with_options(&FftSpec::new(1 << k), &lp, &o);
                assert!(
                    plan.is_ok(),
                    "radix {radix}, {points} points, 2^{k}: {plan:?}"
                );
            }
        }
    }
}

#[test]
fn batches_split_across_bindings() {
    let lp = DeviceLimits::profile("lavapipe").unwrap();
    let plan = Plan::new(&FftSpec::new(1024).batch(40_000), &lp).unwrap();
    assert_eq!(plan.transforms_per_dispatch, (128 << 20) / (8 * 1024));
}

#[test]
fn options_give_radix_16_and_more_points_per_thread() {
    let h100 = DeviceLimits::profile("h100-cuda").unwrap();
    let opts = PlanOptions {
        max_radix: 16,
        points_per_thread: Some(16),
        ..PlanOptions::default()
    };
    let plan = Plan::with_options(&FftSpec::new(8192), &h100, &opts).unwrap();
    assert_eq!(plan.passes[0].radices, vec![2, 16, 16, 16]);
    assert_eq!(plan.passes[0].threads_per_line, 512);
    for k in 0..=crate::spec::MAX_LOG2_N {
        let plan = Plan::with_options(&FftSpec::new(1 << k).batch(7), &h100, &opts).unwrap();
        for p in &plan.passes {
            assert!(
                p.threads() <= h100.max_threads && p.workgroup_bytes() <= h100.workgroup_memory
            );
            assert!(
                p.radices.iter().all(|r| p.points_per_thread % r == 0),
                "2^{k}: {p:?}"
            );
        }
    }
}

#[test]
fn tiny_lines_stage_their_loads_and_stores() {
    let lp = DeviceLimits::profile("lavapipe").unwrap();
    let plan = Plan::new(&FftSpec::new(8).batch(1000), &lp).unwrap();
    assert!(plan.passes[0].load.staged && plan.passes[0].store.staged);
    assert!(
        !Plan::new(&FftSpec::new(64).batch(1000), &lp)
            .unwrap()
            .passes[0]
            .load
            .staged
    );
}

#[test]
fn cuda_one_pass_lines_use_the_measured_shapes() {
    let h100 = DeviceLimits::profile("h100-cuda").unwrap();
    let p = |n: usize| Plan::new(&FftSpec::new(n).batch(64), &h100).unwrap().passes[0].clone();
    assert_eq!(
        (p(512).points_per_thread, p(512).radices.clone()),
        (8, vec![8, 8, 8])
    );
    assert_eq!(
        (p(2048).points_per_thread, p(2048).radices.clone()),
        (16, vec![8, 16, 16])
    );
    assert_eq!(
        (p(4096).points_per_thread, p(4096).radices.clone()),
        (32, vec![16, 16, 16])
    );
    assert_eq!((p(16384).points_per_thread, p(16384).threads()), (32, 512));
    // Not on wgpu devices. Multi-pass lines: radix 8 below 2^18 points, radix 16 from there.
    let lp = DeviceLimits::profile("lavapipe").unwrap();
    assert_eq!(
        Plan::new(&FftSpec::new(2048), &lp).unwrap().passes[0].points_per_thread,
        8
    );
    // (Two passes, not the cluster tier.)
    let two = PlanOptions {
        cluster_blocks: Some(1),
        ..PlanOptions::default()
    };
    let largest_radix = |n: usize, limits: &DeviceLimits| {
        let plan = Plan::with_options(&FftSpec::new(n), limits, &two).unwrap();
        assert!(plan.passes.len() > 1);
        plan.passes
            .iter()
            .flat_map(|p| p.radices.clone())
            .max()
            .unwrap()
    };
    assert_eq!(largest_radix(1 << 17, &h100), 8);
    assert_eq!(largest_radix(1 << 20, &h100), 16);
    assert_eq!(largest_radix(1 << 20, &lp), 8);
    let columns = Plan::new(&FftSpec::new(1 << 20).batch(4).columns(), &h100).unwrap();
    assert!(columns.passes.iter().all(|p| p.points_per_thread == 8));
}

#[test]
fn columns_read_whole_transactions_across_neighbouring_columns() {
    let lp = DeviceLimits::profile("lavapipe").unwrap();
    // 1024 points × 4 columns × 8 bytes = 32 KiB: one pass (2048 with the split exchange);
    // 4096 needs two.
    let one = Plan::new(&FftSpec::new(1024).batch(4096).columns(), &lp).unwrap();
    assert_eq!(one.passes.len(), 1);
    let p = &one.passes[0];
    assert_eq!(p.order, LineOrder::Interleaved);
    assert!(p.lines_per_group >= 4 && !p.load.staged && !p.store.staged);
    assert_eq!(one.transforms_per_dispatch, 4096);
    let passes = |n: usize| {
        let plan = Plan::new(&FftSpec::new(n).batch(64).columns(), &lp).unwrap();
        plan.passes.len()
    };
    assert_eq!(passes(4096), 2);
    // The H100 holds a 4096-point column block in one pass: the 4096² azimuth FFT.
    let h100 = DeviceLimits::profile("h100-cuda").unwrap();
    let az = Plan::new(&FftSpec::new(4096).batch(4096).columns(), &h100).unwrap();
    assert_eq!(az.passes.len(), 1);
    // A column transform binds the whole matrix: 4096 × 8192 × 8 bytes is over lavapipe's
    // 128 MiB binding.
    match Plan::new(&FftSpec::new(4096).batch(8192).columns(), &lp) {
        Err(crate::Error::TooLarge { detail, .. }) => assert!(detail.contains("whole batch")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn long_chains_split_into_two_kernels_where_measured_faster() {
    let cuda = DeviceLimits::profile("h100-cuda").expect("profile");
    let h = |n: usize| -> std::sync::Arc<[num_complex::Complex32]> {
        vec![num_complex::Complex32::new(1.0, 0.0); n].into()
    };
    for (n, split) in [(4096, false), (8192, true), (16384, true)] {
        let spec = FftSpec::new(n)
            .batch(8)
            .then_multiply_and_invert(h(n))
            .normalized();
        let plan = Plan::new(&spec, &cuda).expect("plan");
        assert_eq!(plan.split_chain, split, "n = {n}");
        assert_eq!(plan.passes.len(), if split { 2 } else { 1 });
        // Only the back-transform normalises; neither pass needs boundary twiddles.
        assert_eq!(
            plan.passes.last().expect("pass").scale(),
            Some(1.0 / n as f64)
        );
        assert!(plan.passes.iter().all(|p| !p.twiddled()) && plan.twiddles.lo_bits == 0);
        if split {
            assert_eq!(plan.passes[0].scale(), None);
        }
    }
    // Fused chains run as persistent prefetching kernels with their tables in workgroup
    // memory where copies are asynchronous (CUDA); plain transforms do not.
    let chain = Plan::new(&FftSpec::new(4096).then_multiply_and_invert(h(4096)), &cuda).unwrap();
    let p = &chain.passes[0];
    assert!(p.prefetch() && p.tables_in_shared() > 4096 && p.points_per_thread == 32);
    assert!(p.workgroup_bytes() <= cuda.workgroup_memory);
    assert!(!Plan::new(&FftSpec::new(4096), &cuda).unwrap().passes[0].prefetch());
    // The prefetch area takes 16-byte copies: it starts 16-byte aligned after any exchange
    // (a padded 16-point exchange is 17 elements; CUDA faulted on the misaligned copies).
    for k in 1..=12 {
        let chain = FftSpec::new(1 << k)
            .batch(2)
            .then_multiply_and_invert(h(1 << k));
        let p = &Plan::new(&chain, &cuda).unwrap().passes[0];
        if p.prefetch() {
            assert_eq!(p.prefetch_offset() * p.exchange_bytes() % 16, 0, "2^{k}");
            assert!(p.prefetch_offset() >= p.exchange_len());
        }
    }
    // Devices without a measured limit fuse every one-pass chain, without prefetching.
    let lavapipe = DeviceLimits::profile("lavapipe").expect("profile");
    let spec = FftSpec::new(8192).then_multiply_and_invert(h(8192));
    let plan = Plan::new(&spec, &lavapipe).expect("plan");
    assert!(!plan.split_chain && !plan.passes[0].prefetch());
}

/// The planner owns every chain split: a chain whose vectors exceed one binding together
/// splits into its forward and back transforms, each binding only its own pass's vectors;
/// halves of one pass each run in place, as two plans of their own would.
#[test]
fn chains_split_where_their_vectors_do_not_fit_one_binding() {
    let lavapipe = DeviceLimits::profile("lavapipe").expect("profile");
    let cuda = DeviceLimits::profile("h100-cuda").expect("profile");
    let each = |len: usize| -> std::sync::Arc<[num_complex::Complex32]> {
        vec![num_complex::Complex32::new(1.0, 0.0); len].into()
    };
    // A scaling and a filter of 72 MiB each: together over lavapipe's 128 MiB binding.
    let (n, batch) = (2048, 4608);
    let spec = FftSpec::new(n)
        .batch(batch)
        .on_load(PointOp::MultiplyEach(each(n * batch)))
        .then_multiply_and_invert(each(n * batch))
        .normalized();
    let plan = Plan::new(&spec, &lavapipe).expect("plan");
    assert!(plan.split_chain && plan.passes.len() == 2);
    let element = plan.aux_element_bytes();
    for pass in 0..2 {
        let range = plan.aux_range(pass);
        assert_eq!(range.len(), n * batch, "pass {pass}");
        assert_eq!(
            (range.start * element) as u64 % lavapipe.binding_alignment,
            0
        );
    }
    assert!(plan.aux_range(0).end <= plan.aux_range(1).start);
    // Both halves in place; keeping the input, the first copies it out.
    assert_eq!(plan.routing(false), vec![(0, 0), (0, 0)]);
    assert_eq!(plan.routing(true), vec![(0, 1), (1, 1)]);
    assert_eq!(plan.kernels(), vec![(0, false), (0, true), (1, true)]);
    let s = plan.schedule(batch, Route::InPlace);
    assert_eq!(s.slots.len(), 1);
    assert!(
        s.launches
            .iter()
            .all(|l| l.in_place && l.vectors == plan.aux_range(l.pass))
    );
    // A split forced by `max_chain_points` runs the same way (the kernel family test's case).
    let forced = PlanOptions::default().with_max_chain_points(Some(512));
    let small = FftSpec::new(1024)
        .batch(3)
        .on_load(PointOp::MultiplyEach(each(3 * 1024)))
        .then_multiply_and_invert(each(3 * 1024));
    let plan = Plan::with_options(&small, &lavapipe, &forced).expect("plan");
    assert!(plan.split_chain && plan.routing(false) == vec![(0, 0), (0, 0)]);
    // The same chain where the device binds it whole: one kernel.
    let plan = Plan::new(&spec, &cuda).expect("plan");
    assert!(!plan.split_chain && plan.passes.len() == 1);
    // A pass whose own vectors exceed the binding (the filter and a multiply on the back
    // transform's store): an error that says so.
    let too_big = spec
        .clone()
        .on_store(PointOp::MultiplyEach(each(n * batch)));
    match Plan::new(&too_big, &lavapipe) {
        Err(crate::Error::TooLarge { what, .. }) => assert!(what.contains("vectors"), "{what}"),
        other => panic!("{other:?}"),
    }
}

/// Where the register file is known (CUDA), a smooth line with no one-pass shape within the
/// usual points per thread takes one pass of up to 64 points per thread; elsewhere two.
#[test]
fn wide_lines_only_where_registers_are_known() {
    let passes = |n: usize, batch: usize, profile: &str| {
        let limits = DeviceLimits::profile(profile).unwrap();
        Plan::new(&FftSpec::new(n).batch(batch), &limits)
            .unwrap()
            .passes
    };
    let one = passes(16807, 64, "h100-cuda");
    assert_eq!(one.len(), 1);
    assert_eq!(
        (one[0].threads_per_line, one[0].points_per_thread),
        (343, 49)
    );
    assert_eq!(passes(16807, 64, "h100-vulkan").len(), 2);
    // Too few lines to fill the GPU with such workgroups: two passes.
    assert_eq!(passes(16807, 63, "h100-cuda").len(), 2);
    // Past the register file even where it is known: two passes.
    assert_eq!(passes(28561, 64, "h100-cuda").len(), 2);
    // Powers of two keep their measured shapes: 2^15 one cluster pass (4 workgroups, two to
    // an SM), 2^16 clusters of 8 half blocks, 2^17 of 8 whole ones, 2^18 two passes.
    for (k, blocks, groups) in [(15, 4, Some(2)), (16, 8, Some(2)), (17, 8, None)] {
        let cluster = passes(1 << k, 128, "h100-cuda");
        assert_eq!(cluster.len(), 1);
        assert_eq!(cluster[0].cluster.as_ref().map(|c| c.blocks), Some(blocks));
        assert_eq!(cluster[0].groups_per_unit, groups);
    }
    assert_eq!(passes(1 << 18, 64, "h100-cuda").len(), 2);
}

/// The cluster tier only where the device has clusters and the transform suits it (a
/// power-of-two row transform past one workgroup, no chain or real half), with the shapes
/// the kernel needs: whole lines per workgroup, threads shared by both halves, the table and
/// the exchanges within workgroup memory; the option forces larger clusters or none.
#[test]
fn cluster_passes_where_the_device_has_clusters() {
    let h100 = DeviceLimits::profile("h100-cuda").unwrap();
    let with = |n: usize, c: Option<usize>| {
        let opts = PlanOptions {
            cluster_blocks: c,
            ..PlanOptions::default()
        };
        Plan::with_options(&FftSpec::new(n).batch(4), &h100, &opts).unwrap()
    };
    for (k, c) in [
        (15, Some(4)),
        (15, Some(8)),
        (16, Some(4)),
        (16, Some(8)),
        (17, Some(8)),
    ] {
        let plan = with(1 << k, c);
        assert_eq!(plan.passes.len(), 1, "2^{k}\n{plan}");
        let head = &plan.passes[0];
        let cl = head.cluster.as_ref().expect("a cluster pass");
        let tail = &cl.tail;
        assert_eq!(head.size * tail.size, 1 << k);
        assert_eq!(head.threads(), tail.threads());
        assert_eq!(head.lines_per_group * head.size * cl.blocks, 1 << k);
        assert_eq!(tail.lines_per_group * tail.size * cl.blocks, 1 << k);
        assert!(head.workgroup_bytes() <= h100.workgroup_memory);
        assert!(head.workgroup_bytes() >= 8 * cl.table_len());
        assert_eq!(plan.groups(head, 4), 4 * cl.blocks);
        assert!(tail.twiddled() && tail.scale().is_none() && !head.twiddled());
    }
    // Not taken: off, too long for a cluster of 8, other devices, real halves and chains;
    // by default, batches of fewer points than a workgroup block per compute unit (two
    // passes use all of them).
    assert_eq!(with(1 << 15, Some(1)).passes.len(), 2);
    assert_eq!(with(1 << 15, None).passes.len(), 2);
    let h100_plan =
        |n: usize, batch: usize| Plan::new(&FftSpec::new(n).batch(batch), &h100).unwrap();
    assert!(h100_plan(1 << 15, 65).passes[0].cluster.is_none());
    assert!(h100_plan(1 << 15, 66).passes[0].cluster.is_some());
    assert!(h100_plan(1 << 16, 33).passes[0].cluster.is_some());
    assert!(h100_plan(1 << 17, 16).passes[0].cluster.is_none());
    assert!(
        h100_plan(1 << 16, 1)
            .to_string()
            .contains("cluster tier: not taken")
    );
    assert!(!h100_plan(1 << 18, 1).to_string().contains("cluster tier"));
    assert!(h100_plan(1 << 17, 17).passes[0].cluster.is_some());
    assert!(with(1 << 18, Some(8)).passes[0].cluster.is_none());
    // Past the portable 8 only when asked.
    assert_eq!(
        with(1 << 18, Some(16)).passes[0]
            .cluster
            .as_ref()
            .map(|c| c.blocks),
        Some(16)
    );
    assert!(with(1 << 18, None).passes[0].cluster.is_none());
    let vulkan = DeviceLimits::profile("h100-vulkan").unwrap();
    assert!(
        Plan::new(&FftSpec::new(1 << 15), &vulkan).unwrap().passes[0]
            .cluster
            .is_none()
    );
    let v: std::sync::Arc<[num_complex::Complex32]> =
        vec![num_complex::Complex32::new(1.0, 0.0); 1 << 15].into();
    let chain = FftSpec::new(1 << 15).then_multiply_and_invert(v);
    assert!(
        Plan::new(&chain, &h100)
            .unwrap()
            .passes
            .iter()
            .all(|p| p.cluster.is_none())
    );
    // A normalised inverse scales in the tail.
    let inv = Plan::new(
        &FftSpec::new(1 << 15).batch(66).inverse().normalized(),
        &h100,
    )
    .unwrap();
    let tail = &inv.passes[0].cluster.as_ref().unwrap().tail;
    assert_eq!(tail.scale(), Some(1.0 / 32768.0));
    assert_eq!(inv.passes[0].scale(), None);
}

/// Column workgroups hold as many neighbouring columns as keep the transform one pass with
/// two workgroups' exchanges to a compute unit (up to 16), else one transaction's worth
/// (`column_lines`, measured on the H100).
#[test]
fn column_workgroups_hold_as_many_columns_as_one_pass_allows() {
    let lines = |profile: &str, n: usize| -> Vec<usize> {
        let limits = DeviceLimits::profile(profile).expect("profile");
        let spec = FftSpec::new(n).batch(4096).columns();
        let plan = Plan::new(&spec, &limits).expect("plan");
        plan.passes.iter().map(|p| p.lines_per_group).collect()
    };
    assert_eq!(lines("h100-cuda", 512), [16]);
    assert_eq!(lines("h100-cuda", 1024), [8]);
    assert_eq!(lines("h100-cuda", 1080), [8]);
    assert_eq!(lines("h100-cuda", 4096), [4]);
    // Never below a transaction's worth: 8192-point columns take two passes.
    assert_eq!(lines("h100-cuda", 8192).len(), 2);
    assert_eq!(lines("lavapipe", 1024), [4]);
    assert_eq!(lines("lavapipe", 2048), [4]);
    assert_eq!(lines("lavapipe", 4096).len(), 2);
    // The planner option overrides it: 2 columns hold 8192 points in one pass.
    let limits = DeviceLimits::profile("h100-cuda").expect("profile");
    let opts = PlanOptions {
        min_lines: Some(2),
        ..Default::default()
    };
    let spec = FftSpec::new(8192).batch(4096).columns();
    let plan = Plan::with_options(&spec, &limits, &opts).expect("plan");
    assert_eq!(plan.passes.len(), 1);
    assert!(
        PlanOptions {
            min_lines: Some(3),
            ..Default::default()
        }
        .validate()
        .is_err()
    );
}

/// Two passes of rows take a 512-point last pass where the first pass then stays within half
/// a block (on the H100 2^19 and 2^20), else split evenly; the option sets any last length.
#[test]
fn short_last_pass_where_the_first_stays_small() {
    let h100 = DeviceLimits::profile("h100-cuda").unwrap();
    let sizes = |n: usize, last: Option<usize>| {
        let opts = PlanOptions {
            last_pass_points: last,
            ..PlanOptions::default()
        };
        Plan::with_options(&FftSpec::new(n).batch(64), &h100, &opts)
            .unwrap()
            .passes
            .iter()
            .map(|p| p.size)
            .collect::<Vec<_>>()
    };
    assert_eq!(sizes(1 << 18, None), [512, 512]);
    assert_eq!(sizes(1 << 20, None), [2048, 512]);
    assert_eq!(sizes(1 << 21, None), [2048, 1024]);
    assert_eq!(sizes(1 << 21, Some(512)), [4096, 512]);
    assert_eq!(sizes(1 << 22, Some(1024)), [4096, 1024]);
    let last = &Plan::new(&FftSpec::new(1 << 20).batch(64), &h100)
        .unwrap()
        .passes[1];
    assert_eq!((last.lines_per_group, last.threads()), (8, 256));
    // Elsewhere the even split: lavapipe's blocks are too small for the rule.
    let lp = DeviceLimits::profile("lavapipe").unwrap();
    let even = Plan::new(&FftSpec::new(1 << 20), &lp).unwrap();
    assert!(even.passes.iter().all(|p| p.size == 1024));
    let bad = PlanOptions {
        last_pass_points: Some(3),
        ..PlanOptions::default()
    };
    assert!(matches!(bad.validate(), Err(Error::InvalidOptions(_))));
}

/// The precision sets the bytes per point on chip and in device memory: f64 holds half the
/// points of f32 in workgroup memory (lavapipe's 32 KiB: 4096 points exchange whole
/// complex values in f32 but real and imaginary parts apart in f64, and 8192, one pass in
/// f32, takes two in f64) and moves twice the bytes; f16 stores half the bytes and computes
/// in f32 (the same passes as f32).
#[test]
fn precision_sets_bytes_on_chip_and_in_memory() {
    use crate::Precision;
    let lavapipe = DeviceLimits::profile("lavapipe").expect("profile");
    let plan = |n: usize, p: Precision| {
        Plan::new(&FftSpec::new(n).batch(64).precision(p), &lavapipe).expect("plan")
    };
    for (n, f32_passes, f64_passes) in [(1 << 12, 1, 1), (1 << 13, 1, 2), (1 << 20, 2, 2)] {
        let (single, double, half) = (
            plan(n, Precision::F32),
            plan(n, Precision::F64),
            plan(n, Precision::F16),
        );
        assert_eq!(single.passes.len(), f32_passes, "f32, n = {n}");
        assert_eq!(double.passes.len(), f64_passes, "f64, n = {n}");
        // f16: the same line sizes; strided passes read whole 32-byte transactions, which
        // hold 8 half-precision points (lavapipe: 8 lines of 1024 for 2^20, 4 in f32).
        let sizes = |p: &Plan| p.passes.iter().map(|q| q.size).collect::<Vec<_>>();
        assert_eq!(sizes(&half), sizes(&single), "f16, n = {n}");
        for p in half
            .passes
            .iter()
            .filter(|p| p.order == LineOrder::Interleaved)
        {
            assert!(p.lines_per_group * 4 >= lavapipe.transaction_bytes, "{p:?}");
        }
        let moved = |p: &Plan| p.bytes_moved() as f64 / p.passes.len() as f64;
        assert_eq!(moved(&double), 2.0 * moved(&single), "n = {n}");
        assert_eq!(moved(&half), 0.5 * moved(&single), "n = {n}");
        for p in &double.passes {
            assert!(p.workgroup_bytes() <= lavapipe.workgroup_memory, "{p:?}");
            assert_eq!(p.exchange_bytes(), 2 * p.exchange.bytes(Precision::F32));
        }
    }
    let exchanges = |p: Precision| plan(1 << 12, p).passes[0].exchange;
    assert_eq!(
        (exchanges(Precision::F32), exchanges(Precision::F64)),
        (Exchange::Complex, Exchange::Split)
    );
}

/// A last pass forced long by the options, whose fewest lines overflow workgroup memory
/// (8 lines of 512 points in 32 KiB on a 16 KiB device), is refused or planned otherwise,
/// never planned past the device (the wisdom fuzz target found it).
#[test]
fn a_forced_last_pass_that_overflows_workgroup_memory_is_not_planned() {
    let limits = DeviceLimits::profile("raspberry-pi-5").unwrap();
    let opts = PlanOptions::default()
        .with_last_pass_points(Some(512))
        .with_min_lines(Some(8));
    match Plan::with_options(&FftSpec::new(1 << 20), &limits, &opts) {
        Ok(plan) => plan.check().unwrap(),
        Err(e) => assert!(matches!(e, Error::TooLarge { .. }), "{e}"),
    }
}

#[test]
fn reshape_twiddle_counts_match_their_tables() {
    let mut steps = vec![
        Reshape::Split {
            n: 12,
            rows: 2,
            scale: 1.0,
        },
        Reshape::Merge {
            n: 40,
            rows: 1,
            scale: 0.5,
        },
        Reshape::Widen { len: 8 },
    ];
    for transform in crate::trig::Trig::ALL {
        steps.push(Reshape::TrigLoad {
            transform,
            outer: 2,
            n: 9,
            inner: 3,
            orthogonalize: false,
            pairs: LinePairs::choose(transform, 2, 3),
        });
    }
    for step in steps {
        assert_eq!(
            step.twiddle_count(),
            step.twiddles().map(|w| w.len()),
            "{}",
            step.name()
        );
    }
}
