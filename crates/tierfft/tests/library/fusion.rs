//! Fused pointwise operations and chained transforms against unfused f64 execution on random
//! data, on the GPU (lavapipe unless TIERFFT_TEST_DEVICE says otherwise) and the CPU.

use std::sync::Arc;

use num_complex::{Complex32, Complex64};
use tierfft::plan::PlanOptions;
use tierfft::{Device, Direction, Error, FftSpec, PointOp};

use crate::common::*;

fn unfused(spec: &FftSpec, input: &[Complex32]) -> Vec<Complex64> {
    tierfft::debug::reference::spec_f64(spec, input)
}

fn vector(rng: &mut rand::rngs::StdRng, n: usize) -> Arc<[Complex32]> {
    random(rng, n).into()
}

fn check(dev: &Device, spec: &FftSpec, input: &[Complex32], bound: f64) {
    let fft = dev
        .plan(spec)
        .unwrap_or_else(|e| panic!("{}: n = {}: {e}", dev.name(), spec.n));
    let mut out = poisoned(input.len());
    fft.process_out_of_place(input, &mut out).expect("run");
    let err = tierfft::debug::reference::relative_l2_error(&out, &unfused(spec, input));
    assert!(
        err <= bound,
        "{}: n = {} {:?} chain {}: error {err:e} > {bound:e}",
        dev.name(),
        spec.n,
        spec.direction,
        spec.chain.is_some()
    );
    // In place gives the same.
    let mut data = input.to_vec();
    fft.process(&mut data).expect("in place");
    assert!(tierfft::debug::reference::relative_l2_error(&data, &unfused(spec, input)) <= bound);
}

#[test]
fn load_and_store_operations() {
    let mut rng = rng();
    for dev in [gpu().clone(), Device::cpu()] {
        for k in [3, 6, 10, 12, 14, 17] {
            let n = 1usize << k;
            for dir in [Direction::Forward, Direction::Inverse] {
                let spec = FftSpec::new(n)
                    .batch(3)
                    .direction(dir)
                    .on_load(PointOp::Multiply(vector(&mut rng, n)))
                    .on_load(PointOp::Conjugate)
                    .on_load(PointOp::ZeroFrom(n * 3 / 4))
                    .on_store(PointOp::Scale(0.5))
                    .on_store(PointOp::Multiply(vector(&mut rng, n)))
                    .on_store(PointOp::Conjugate);
                let input = random(&mut rng, spec.len());
                check(&dev, &spec, &input, BOUND);
            }
        }
    }
}

#[test]
fn chained_fft_multiply_inverse() {
    let mut rng = rng();
    for dev in [gpu().clone(), Device::cpu()] {
        // One-pass lengths on lavapipe, up to its split-exchange block (8192).
        for k in [1, 3, 5, 8, 11, 12, 13] {
            let n = 1usize << k;
            for dir in [Direction::Forward, Direction::Inverse] {
                let spec = FftSpec::new(n)
                    .batch(3)
                    .direction(dir)
                    .on_load(PointOp::Multiply(vector(&mut rng, n)))
                    .then_multiply_and_invert(vector(&mut rng, n))
                    .normalized();
                let input = random(&mut rng, spec.len());
                // Two transforms: twice the single-transform bound.
                check(&dev, &spec, &input, 2.0 * BOUND);
            }
        }
    }
}

#[test]
fn chains_with_a_filter_for_each_transform() {
    // One filter value per element (a different filter for every transform, as SAR's
    // range-Doppler filters are), with a per-element multiply on load as well: in one kernel,
    // split into two, on power-of-two and 7-smooth lengths.
    let mut rng = rng();
    let split = PlanOptions::default().with_max_chain_points(Some(1));
    for dev in [gpu().clone(), Device::cpu()] {
        for n in [8, 1000, 1024, 4096, 4800, 8192] {
            for opts in [PlanOptions::default(), split.clone()] {
                let batch = 5;
                let spec = FftSpec::new(n)
                    .batch(batch)
                    .on_load(PointOp::MultiplyEach(vector(&mut rng, n * batch)))
                    .then_multiply_and_invert(vector(&mut rng, n * batch))
                    .normalized();
                assert!(spec.chain_per_element() && spec.whole_batch());
                let fft = dev
                    .plan_with_options(&spec, &opts)
                    .unwrap_or_else(|e| panic!("{}: n = {n}: {e}", dev.name()));
                let input = random(&mut rng, spec.len());
                let mut out = poisoned(input.len());
                fft.process_out_of_place(&input, &mut out).expect("run");
                let err =
                    tierfft::debug::reference::relative_l2_error(&out, &unfused(&spec, &input));
                assert!(err <= 2.0 * BOUND, "{}: n = {n}: error {err:e}", dev.name());
            }
        }
    }
    // A filter of neither length, and one per transform on a length Bluestein takes, are
    // refused with what to do.
    let bad = FftSpec::new(64)
        .batch(3)
        .then_multiply_and_invert(vector(&mut rng, 100));
    assert!(matches!(bad.validate(), Err(Error::OperandLength { .. })));
    let prime = FftSpec::new(1009)
        .batch(2)
        .then_multiply_and_invert(vector(&mut rng, 2018));
    match gpu().plan(&prime) {
        Err(Error::InvalidSpec(m)) => assert!(m.contains("7-smooth"), "{m}"),
        other => panic!("a per-transform chain at 1009: {:?}", other.map(|_| ())),
    }
}

#[test]
fn chain_split_into_two_kernels() {
    // Chains longer than `max_chain_points` run as a forward kernel and a filter-then-inverse
    // kernel; force that at every length, with operations on load and store around it.
    let mut rng = rng();
    let dev = gpu();
    let opts = PlanOptions::default().with_max_chain_points(Some(1));
    for k in [1, 4, 9, 12, 13] {
        let n = 1usize << k;
        for (dir, normalize) in [(Direction::Forward, true), (Direction::Inverse, false)] {
            let mut spec = FftSpec::new(n)
                .batch(5)
                .direction(dir)
                .on_load(PointOp::Multiply(vector(&mut rng, n)))
                .then_multiply_and_invert(vector(&mut rng, n))
                .on_store(PointOp::Conjugate);
            if normalize {
                spec = spec.normalized();
            }
            let fft = dev.plan_with_options(&spec, &opts).expect("plan");
            let plan = fft.plan().expect("a GPU plan");
            assert!(plan.split_chain && plan.passes.len() == 2, "n = {n}");
            let input = random(&mut rng, spec.len());
            let mut out = poisoned(input.len());
            fft.process_out_of_place(&input, &mut out).expect("run");
            let err = tierfft::debug::reference::relative_l2_error(&out, &unfused(&spec, &input));
            assert!(err <= 2.0 * BOUND, "n = {n} {dir:?}: error {err:e}");
        }
    }
}

#[test]
fn magnitude_and_decibels_on_store() {
    let mut rng = rng();
    for dev in [gpu().clone(), Device::cpu()] {
        for k in [4, 12] {
            let n = 1usize << k;
            let input = random(&mut rng, 2 * n);
            let mag = FftSpec::new(n).batch(2).on_store(PointOp::Magnitude);
            check(&dev, &mag, &input, BOUND);
            let db = FftSpec::new(n)
                .batch(2)
                .then_multiply_and_invert(vector(&mut rng, n))
                .on_store(PointOp::MagnitudeDb);
            let fft = dev.plan(&db).expect("plan");
            let mut out = poisoned(input.len());
            fft.process_out_of_place(&input, &mut out).expect("run");
            let want = unfused(&db, &input);
            let worst = out
                .iter()
                .zip(&want)
                .map(|(g, w)| (f64::from(g.re) - w.re).abs() + f64::from(g.im).abs())
                .fold(0.0, f64::max);
            assert!(
                worst < 2e-3,
                "{}: n = {n}: dB differ by {worst}",
                dev.name()
            );
        }
    }
}

#[test]
fn fusion_errors() {
    let mut rng = rng();
    let dev = gpu();
    // A chain longer than one pass is an ordinary plan: 2^15 takes two passes each way on
    // lavapipe (32 KiB).
    let n = 1 << 15;
    let spec = FftSpec::new(n)
        .batch(2)
        .then_multiply_and_invert(vector(&mut rng, n))
        .normalized();
    let fft = dev.plan(&spec).expect("plan");
    assert_eq!(fft.plan().map(|p| p.passes.len()), Some(4));
    let input = random(&mut rng, spec.len());
    let mut out = poisoned(spec.len());
    fft.process_out_of_place(&input, &mut out).expect("run");
    assert_accurate("4-pass chain", &spec, &input, &out);
    // Vectors must hold n values.
    for d in [dev.clone(), Device::cpu()] {
        let e = d
            .plan(&FftSpec::new(64).on_load(PointOp::Multiply(vector(&mut rng, 63))))
            .expect_err("must fail");
        assert!(
            matches!(
                e,
                Error::OperandLength {
                    got: 63,
                    expected: 64,
                    ..
                }
            ),
            "{e}"
        );
        assert!(
            e.to_string()
                .contains("on_load PointOp::Multiply holds 63 complex values")
                && e.to_string().contains("one per point: n = 64"),
            "{e}"
        );
    }
}

#[test]
fn persistent_prefetching_kernels() {
    // One-pass row kernels that loop over line groups and copy the next group into workgroup
    // memory while transforming the current one (asynchronously on CUDA; in WGSL the same
    // schedule with plain copies). Batches that leave a partial last group, more groups than
    // the wave of workgroups, plain and chained transforms, in and out of place.
    let mut rng = rng();
    let dev = gpu();
    // Small workgroups, so that the prefetch area fits lavapipe's 32 KiB beside the exchange.
    let opts = PlanOptions::default()
        .with_prefetch(Some(true))
        .with_target_threads(Some(64));
    for (k, batch) in [(6, 1000), (9, 777), (10, 5), (10, 600)] {
        let n = 1usize << k;
        let plain = FftSpec::new(n).batch(batch);
        let chain = plain
            .clone()
            .then_multiply_and_invert(vector(&mut rng, n))
            .normalized();
        for spec in [plain, chain] {
            let fft = dev.plan_with_options(&spec, &opts).expect("plan");
            assert!(
                fft.plan().expect("a GPU plan").passes[0].prefetch(),
                "n = {n}"
            );
            let input = random(&mut rng, spec.len());
            let want = unfused(&spec, &input);
            let mut out = poisoned(input.len());
            fft.process_out_of_place(&input, &mut out).expect("run");
            let err = tierfft::debug::reference::relative_l2_error(&out, &want);
            assert!(err <= 2.0 * BOUND, "n = {n} batch {batch}: error {err:e}");
            let mut data = input.clone();
            fft.process(&mut data).expect("in place");
            let err = tierfft::debug::reference::relative_l2_error(&data, &want);
            assert!(
                err <= 2.0 * BOUND,
                "n = {n} batch {batch} in place: error {err:e}"
            );
        }
    }
}
