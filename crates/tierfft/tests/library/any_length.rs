//! Lengths that are not powers of two, on the CPU backend (rustfft's any-length planner) and
//! on the GPU (mixed-radix kernels; lavapipe in CI): smooth, mixed and prime lengths, both
//! directions, in place and out of place, rows and columns, fused operations and chains,
//! against the f64 reference on fresh random data with the output poisoned beforehand.

use std::sync::Arc;

use num_complex::{Complex32, Complex64};
use tierfft::debug::reference::{relative_l2_error, spec_f64};
use tierfft::plan::is_smooth;
use tierfft::{Device, FftSpec, PointOp};

use crate::common::*;

/// Relative L2 error bound: [`BOUND`] for smooth lengths, 1e-6 for the rest (Bluestein's
/// longer inner transform).
fn bound(n: usize) -> f64 {
    if is_smooth(n) { BOUND } else { 1e-6 }
}

/// Runs `spec` on `device` out of place into a poisoned buffer, and (every other call) in
/// place, and checks both against the f64 reference.
fn check_on(device: &Device, spec: &FftSpec, rng: &mut rand::rngs::StdRng) {
    let input = random(rng, spec.len());
    let fft = device
        .plan(spec)
        .unwrap_or_else(|e| panic!("{}: n = {}: {e}", device.name(), spec.n));
    let mut out = poisoned(spec.len());
    fft.process_out_of_place(&input, &mut out).expect("run");
    let want = spec_f64(spec, &input);
    let err = error(spec, &out, &want);
    let what = format!("{}, n = {}, {spec:?}", device.name(), spec.n);
    assert!(err <= bound(spec.n), "{what}: relative L2 error {err:e}");
    let mut data = input.clone();
    fft.process(&mut data).expect("run in place");
    let err = error(spec, &data, &want);
    assert!(
        err <= bound(spec.n),
        "{what} in place: relative L2 error {err:e}"
    );
}

/// The relative L2 error of `got`, in magnitudes when `spec` stores decibels: the transform's
/// error bound holds for magnitudes, while a bin near zero magnifies it in decibels (a bin at
/// 1e-3 of the mean turns a 5e-7 error into a thousand times that in its decibels).
fn error(spec: &FftSpec, got: &[Complex32], want: &[Complex64]) -> f64 {
    if !matches!(spec.store.last(), Some(PointOp::MagnitudeDb)) {
        return relative_l2_error(got, want);
    }
    let magnitude = |db: f64| 10f64.powf(db / 20.0);
    let got: Vec<Complex32> = got
        .iter()
        .map(|z| Complex32::new(magnitude(z.re.into()) as f32, z.im))
        .collect();
    let want: Vec<Complex64> = want
        .iter()
        .map(|z| Complex64::new(magnitude(z.re), z.im))
        .collect();
    relative_l2_error(&got, &want)
}

/// On both backends (the GPU runs lengths with a prime factor above 31 by Bluestein's
/// algorithm, chains as two convolutions).
fn check(spec: &FftSpec, rng: &mut rand::rngs::StdRng) {
    check_on(&Device::cpu(), spec, rng);
    check_on(gpu(), spec, rng);
}

#[test]
fn every_length_to_300_on_the_cpu() {
    let mut rng = rng();
    for n in 1..=300 {
        check_on(&Device::cpu(), &FftSpec::new(n).batch(3), &mut rng);
        let inverse = FftSpec::new(n).batch(2).inverse().normalized();
        check_on(&Device::cpu(), &inverse, &mut rng);
    }
}

/// Every length to 100 and a spread to 1024 on the GPU (smooth ones by mixed radices, the
/// others by Bluestein's algorithm), odd batches.
#[test]
fn short_lengths_on_the_gpu() {
    let mut rng = rng();
    let lengths = (1..=100).chain([
        121, 125, 127, 143, 169, 243, 251, 256, 257, 343, 360, 509, 625, 720, 729, 1000, 1001,
        1021, 1023, 1024,
    ]);
    for n in lengths {
        check_on(gpu(), &FftSpec::new(n).batch(3), &mut rng);
        check_on(gpu(), &FftSpec::new(n).inverse().normalized(), &mut rng);
    }
}

/// Powers of 3, 5, 6, 7, 11, 13, 17 and 31, products of the primes 17..31 with others, and
/// the benchmark's lengths, on both backends.
#[test]
fn smooth_mixed_and_prime_lengths() {
    let mut rng = rng();
    for n in [
        729,
        1000,
        1920,
        2187,
        3125,
        4000,
        4099,
        5616,
        10000,
        10007,
        16807,
        14641,
        28561,
        46656,
        4913,
        29791,
        12673,
        17 * 1024,
        23 * 29 * 64,
        19 * 3 * 5 * 7 * 11,
        31 * 31 * 4096,
        65521,
        100_000,
        1_000_000,
        1_000_003,
    ] {
        check(&FftSpec::new(n), &mut rng);
        check(&FftSpec::new(n).batch(3).inverse(), &mut rng);
    }
}

#[test]
fn columns_fused_operations_and_chains() {
    let mut rng = rng();
    for (n, batch) in [(6, 5), (100, 7), (243, 3), (1000, 2), (1009, 2), (4099, 2)] {
        let v = |rng: &mut rand::rngs::StdRng, len: usize| -> Arc<[Complex32]> {
            random(rng, len).into()
        };
        check(&FftSpec::new(n).batch(batch).columns(), &mut rng);
        let spec = FftSpec::new(n)
            .batch(batch)
            .on_load(PointOp::Multiply(v(&mut rng, n)))
            .on_load(PointOp::ZeroFrom(n / 2))
            .then_multiply_and_invert(v(&mut rng, n))
            .normalized()
            .on_store(PointOp::Conjugate);
        check(&spec, &mut rng);
        check(&spec.clone().columns(), &mut rng);
        check(
            &FftSpec::new(n)
                .batch(batch)
                .on_load(PointOp::MultiplyEach(v(&mut rng, n * batch)))
                .on_store(PointOp::MagnitudeDb),
            &mut rng,
        );
    }
}

/// `PlanOptions::measure` times every Bluestein convolution length on the device and keeps
/// one of them; the transform it keeps is checked like any other.
#[test]
fn measured_bluestein_plans() {
    let mut rng = rng();
    let measure = tierfft::plan::PlanOptions::default().with_measure(true);
    for (n, batch) in [(37, 3), (1009, 2)] {
        let spec = FftSpec::new(n).batch(batch);
        let fft = gpu().plan_with_options(&spec, &measure).expect("plan");
        let m = fft.plan().and_then(|p| p.bluestein.as_ref()).map(|b| b.m);
        let candidates = tierfft::plan::Bluestein::candidates(n);
        assert!(m.is_some_and(|m| candidates.contains(&m)), "n = {n}: {m:?}");
        let input = random(&mut rng, spec.len());
        let mut out = poisoned(spec.len());
        fft.process_out_of_place(&input, &mut out).expect("run");
        let err = relative_l2_error(&out, &spec_f64(&spec, &input));
        assert!(
            err <= bound(n),
            "n = {n}, m = {m:?}: relative L2 error {err:e}"
        );
    }
    // Smooth lengths: the shapes `tierfft tune` times, one of them kept.
    let spec = FftSpec::new(2048).batch(8);
    let fft = gpu().plan_with_options(&spec, &measure).expect("plan");
    let input = random(&mut rng, spec.len());
    let mut out = poisoned(spec.len());
    fft.process_out_of_place(&input, &mut out).expect("run");
    let err = relative_l2_error(&out, &spec_f64(&spec, &input));
    assert!(
        err <= bound(2048),
        "measured 2048: relative L2 error {err:e}"
    );
}
