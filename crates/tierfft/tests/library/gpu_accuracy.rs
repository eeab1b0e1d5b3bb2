//! Every kernel family against the f64 reference on lavapipe: each n = 2^0 .. 2^22, batches
//! 1 and 3, both directions, in place and out of place, fresh random inputs, poisoned outputs.

use tierfft::FftSpec;

use crate::common::*;

fn check(k: u32, batches: &[usize]) {
    let dev = gpu();
    let mut rng = rng();
    for &batch in batches {
        for (dir, norm) in directions() {
            let mut spec = FftSpec::new(1 << k).batch(batch).direction(dir);
            spec.normalize = norm;
            let fft = dev
                .plan(&spec)
                .unwrap_or_else(|e| panic!("plan 2^{k}: {e}"));
            let input = random(&mut rng, spec.len());
            let mut out = poisoned(spec.len());
            fft.process_out_of_place(&input, &mut out)
                .expect("out of place");
            assert_accurate("out of place", &spec, &input, &out);

            let fresh = random(&mut rng, spec.len());
            let mut data = fresh.clone();
            fft.process(&mut data).expect("in place");
            assert_accurate("in place", &spec, &fresh, &data);
        }
    }
}

#[test]
fn lengths_up_to_2_pow_8() {
    for k in 0..=8 {
        check(k, &[1, 3]);
    }
}

#[test]
fn lengths_2_pow_9_to_12() {
    for k in 9..=12 {
        check(k, &[1, 3]);
    }
}

#[test]
fn lengths_2_pow_13_to_16() {
    // 2^13 is the largest one-pass length on lavapipe (split exchange); 2^14 on need two passes.
    for k in 13..=16 {
        check(k, &[1, 3]);
    }
}

#[test]
fn lengths_2_pow_17_to_20() {
    for k in 17..=20 {
        check(k, &[1, 3]);
    }
}

#[test]
fn lengths_2_pow_21_and_22() {
    check(21, &[1, 3]);
    check(22, &[1]);
}

#[test]
fn largest_lengths_are_correct() {
    // 2^23..2^27 and smooth lengths past 2^24 (10^8 = 2^8·5^8, 3·2^25), forward, wherever the
    // device binds one transform: lavapipe stops at 2^24 (its 128 MiB binding), which must be
    // the device's clear error; the CUDA backend binds them all.
    let dev = gpu();
    let mut rng = rng();
    let mut ran = 0;
    for n in [
        1 << 23,
        1 << 24,
        1 << 25,
        100_000_000,
        3 << 25,
        1 << 26,
        1 << 27,
    ] {
        let spec = FftSpec::new(n);
        let fft = match dev.plan(&spec) {
            Ok(fft) => fft,
            Err(tierfft::Error::TooLarge { .. }) if n > 1 << 24 => {
                eprintln!(
                    "{}: {n} points: past the device's binding limit",
                    dev.name()
                );
                continue;
            }
            Err(e) => panic!("plan {n}: {e}"),
        };
        let input = random(&mut rng, spec.len());
        let mut out = poisoned(spec.len());
        fft.process_out_of_place(&input, &mut out).expect("run");
        let err = tierfft::debug::reference::relative_l2_error(&out, &expected(&spec, &input));
        // Past the 2^22 range the bound grows with log2 n: 1.2 × BOUND at 2^24.
        let bound = BOUND * 1.2 * (n as f64).log2() / 24.0;
        assert!(err <= bound, "{n}: {err:e} > {bound:e}");
        eprintln!("{}: {n} points: relative L2 error {err:.3e}", dev.name());
        ran += 1;
    }
    assert!(ran >= 2, "2^23 and 2^24 fit every device the tests run on");
}

#[test]
fn batch_split_across_bindings() {
    // A batch of 1.25 bindings plus one transform: two dispatches per pass, the second partial.
    // On lavapipe (128 MiB bindings) that is 164 MB for 1024 points, 168 MB for the two-pass
    // 2^15. Devices whose bindings exceed the 1 GiB host chunk never split a binding.
    let dev = gpu();
    let mut rng = rng();
    for n in [1024, 1 << 15] {
        let per = dev
            .plan(&FftSpec::new(n))
            .expect("plan")
            .plan()
            .expect("GPU plan")
            .limits
            .max_binding as usize
            / (8 * n);
        if 8 * n * per >= 1 << 30 {
            eprintln!(
                "skipped: {} binds {} MiB, more than one host chunk",
                dev.name(),
                (8 * n * per) >> 20
            );
            return;
        }
        let spec = FftSpec::new(n).batch(per + per / 4 + 1);
        let fft = dev.plan(&spec).expect("plan");
        assert!(fft.plan().expect("GPU plan").transforms_per_dispatch < spec.batch);
        let input = random(&mut rng, spec.len());
        let mut out = poisoned(spec.len());
        fft.process_out_of_place(&input, &mut out).expect("run");
        assert_accurate("split batch", &spec, &input, &out);
    }
}

#[test]
fn round_trip_returns_the_input() {
    let dev = gpu();
    let mut rng = rng();
    for k in [1, 5, 10, 13, 14, 18, 20] {
        let fwd = dev.plan(&FftSpec::new(1 << k).batch(3)).expect("forward");
        let inv = dev
            .plan(&FftSpec::new(1 << k).batch(3).inverse().normalized())
            .expect("inverse");
        let input = random(&mut rng, fwd.spec().len());
        let mut data = input.clone();
        fwd.process(&mut data).expect("forward");
        inv.process(&mut data).expect("inverse");
        let want: Vec<_> = input
            .iter()
            .map(|z| num_complex::Complex64::new(z.re.into(), z.im.into()))
            .collect();
        let err = tierfft::debug::reference::relative_l2_error(&data, &want);
        assert!(err <= 2.0 * BOUND, "2^{k}: round trip error {err:e}");
    }
}

#[test]
fn cpu_backend_matches_the_reference() {
    let mut rng = rng();
    for k in [0, 1, 7, 12, 16] {
        for (dir, norm) in directions() {
            let mut spec = FftSpec::new(1 << k).batch(5).direction(dir);
            spec.normalize = norm;
            let fft = tierfft::Device::cpu().plan(&spec).expect("plan");
            let input = random(&mut rng, spec.len());
            let mut out = poisoned(spec.len());
            fft.process_out_of_place(&input, &mut out).expect("run");
            assert_accurate("cpu", &spec, &input, &out);
        }
    }
}

#[test]
fn planner_variants_are_correct() {
    // Every variant `tierfft bench` can time: radix 16, 16 points per thread, radix 4,
    // small and large workgroups, the cluster tier off and in larger clusters; one-pass,
    // cluster and multi-pass lengths.
    use tierfft::plan::PlanOptions;
    let dev = gpu();
    let mut rng = rng();
    let variants = [
        PlanOptions::default()
            .with_max_radix(16)
            .with_points_per_thread(Some(16)),
        PlanOptions::default().with_points_per_thread(Some(16)),
        PlanOptions::default().with_max_radix(4),
        PlanOptions::default().with_target_threads(Some(64)),
        PlanOptions::default().with_target_threads(Some(1024)),
        // Every pass exchanging real and imaginary parts apart, and never.
        PlanOptions::default().with_exchange(Some(tierfft::plan::Exchange::Split)),
        PlanOptions::default().with_exchange(Some(tierfft::plan::Exchange::Complex)),
        // The cluster tier (where the device has clusters) off, and in clusters of 8 with
        // 32 points per thread.
        PlanOptions::default().with_cluster_blocks(Some(1)),
        PlanOptions::default()
            .with_cluster_blocks(Some(8))
            .with_points_per_thread(Some(32)),
    ];
    for opts in &variants {
        for k in [2, 3, 5, 8, 11, 12, 13, 14, 15, 16, 17] {
            for (dir, norm) in directions() {
                let mut spec = FftSpec::new(1 << k).batch(3).direction(dir);
                spec.normalize = norm;
                let fft = dev
                    .plan_with_options(&spec, opts)
                    .unwrap_or_else(|e| panic!("{opts:?} 2^{k}: {e}"));
                let input = random(&mut rng, spec.len());
                let mut out = poisoned(spec.len());
                fft.process_out_of_place(&input, &mut out).expect("run");
                assert_accurate(&format!("{opts:?}"), &spec, &input, &out);
            }
        }
    }
}

/// The cluster tier alone, small batches, for the sanitizers (`scripts/device-run.sh
/// clustersan`): 2^15..2^17 in the planner's shapes for large batches (clusters of 4 and 8
/// of half a workgroup block, 8 of whole ones), 2^15 in clusters of 2, 2^17 and
/// 2^18 in clusters of 16 where the device allows them; elsewhere, their usual plans.
#[test]
fn cluster_tier_for_sanitizers() {
    let dev = gpu();
    let mut rng = rng();
    for (k, blocks) in [
        (15, Some(4)),
        (16, Some(8)),
        (17, Some(8)),
        (15, Some(2)),
        (17, Some(16)),
        (18, Some(16)),
    ] {
        let opts = tierfft::plan::PlanOptions::default().with_cluster_blocks(blocks);
        for batch in [1, 3] {
            for (dir, norm) in directions() {
                let mut spec = FftSpec::new(1 << k).batch(batch).direction(dir);
                spec.normalize = norm;
                let fft = dev.plan_with_options(&spec, &opts).expect("plan");
                let input = random(&mut rng, spec.len());
                let mut out = poisoned(spec.len());
                fft.process_out_of_place(&input, &mut out).expect("run");
                assert_accurate("cluster tier", &spec, &input, &out);
            }
        }
    }
}

/// Resident plans (every pass of a chunk of transforms before the next chunk; on CUDA the
/// intermediate holds one chunk, reused so that it stays in L2): chunks of 2 transforms
/// over a batch of 5 (a short last chunk), out of place, in place and device-resident.
#[test]
fn resident_chunks_are_correct() {
    let dev = gpu();
    let mut rng = rng();
    for k in [15, 18, 20] {
        let n = 1usize << k;
        let opts = tierfft::plan::PlanOptions::default()
            .with_resident_bytes(Some(2 * 8 * n))
            .with_cluster_blocks(Some(1));
        let spec = FftSpec::new(n).batch(5);
        let fft = dev.plan_with_options(&spec, &opts).expect("plan");
        let plan = fft.plan().expect("a GPU plan");
        assert!(plan.resident && plan.passes.len() > 1, "2^{k}: {plan}");
        let input = random(&mut rng, spec.len());
        let mut out = poisoned(spec.len());
        fft.process_out_of_place(&input, &mut out).expect("run");
        assert_accurate("resident, out of place", &spec, &input, &out);
        let mut data = input.clone();
        fft.process(&mut data).expect("run");
        assert_accurate("resident, in place", &spec, &input, &data);
        let mut buffer = dev.upload(&input).expect("upload");
        fft.process_buffer(&mut buffer).expect("run");
        let got = buffer.download().expect("download");
        assert_accurate("resident, device-resident", &spec, &input, &got);
    }
}
