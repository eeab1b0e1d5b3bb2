//! Lengths that are not powers of two on the CPU backend (rustfft's any-length planner):
//! every length from 1 to 300 and a spread of smooth, mixed and prime lengths, both
//! directions, rows and columns, fused operations and chains, against the f64 reference on
//! fresh random data with the output poisoned beforehand.

mod common;

use std::sync::Arc;

use common::*;
use num_complex::Complex32;
use tierfft::reference::{relative_l2_error, spec_f64};
use tierfft::{Device, FftSpec, PointOp};

/// Runs `spec` on the CPU out of place into a poisoned buffer and checks it against the f64
/// reference.
fn check(spec: &FftSpec, rng: &mut rand::rngs::StdRng) {
    let input = random(rng, spec.len());
    let mut out = poisoned(spec.len());
    let fft = Device::Cpu.plan(spec).expect("plan");
    fft.process_out_of_place(&input, &mut out).expect("run");
    let err = relative_l2_error(&out, &spec_f64(spec, &input));
    assert!(
        err <= 1e-6,
        "n = {}: relative L2 error {err:e} ({spec:?})",
        spec.n
    );
}

#[test]
fn every_length_to_300_both_directions() {
    let mut rng = rng();
    for n in 1..=300 {
        check(&FftSpec::new(n).batch(3), &mut rng);
        check(&FftSpec::new(n).batch(2).inverse().normalized(), &mut rng);
    }
}

#[test]
fn smooth_mixed_and_prime_lengths() {
    let mut rng = rng();
    for n in [
        729, 1000, 1920, 3125, 4099, 5616, 10007, 16807, 46656, 65521, 100_000,
    ] {
        check(&FftSpec::new(n), &mut rng);
        check(&FftSpec::new(n).inverse(), &mut rng);
    }
}

#[test]
fn columns_fused_operations_and_chains() {
    let mut rng = rng();
    for (n, batch) in [(6, 5), (100, 7), (243, 3), (1009, 2)] {
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
