//! Checksummed transforms (`tierfft::Checksum`): fault-free runs pass their checks and stay
//! accurate; a bit flipped in device memory between two passes (`Fft::inject_fault`) is
//! reported with the transform it hit, and recomputed where asked. On the test GPU
//! (lavapipe in CI, the H100 through `TIERFFT_TEST_DEVICE=cuda`) and on the CPU.

use tierfft::debug::Fault;
use tierfft::{Checksum, Device, DeviceKind, Error, FftSpec, PointOp};

use crate::common::*;

/// The specs every device checks: one pass (packed small transforms, mixed-radix lengths,
/// one with the largest prime codelets), several passes, columns, a normalised inverse,
/// fused load and store operations in one pass and in several.
fn specs(mode: Checksum) -> Vec<FftSpec> {
    let window: Vec<_> = (0..1 << 15)
        .map(|k| tierfft::Complex32::new(1.0 + (k % 7) as f32 / 8.0, (k % 3) as f32 / 4.0))
        .collect();
    vec![
        FftSpec::new(1024)
            .batch(3)
            .on_load(PointOp::Conjugate)
            .on_store(PointOp::Scale(0.25))
            .on_store(PointOp::Magnitude),
        FftSpec::new(1 << 15)
            .batch(2)
            .on_load(PointOp::Multiply(window.into()))
            .on_store(PointOp::ZeroFrom(20_000)),
        FftSpec::new(1024).batch(6),
        FftSpec::new(8).batch(70),
        FftSpec::new(360).batch(3),
        FftSpec::new(29 * 31 * 2).batch(3),
        FftSpec::new(1 << 18).batch(2),
        FftSpec::new(1 << 15).batch(3).inverse().normalized(),
        FftSpec::new(256).batch(48).columns(),
    ]
    .into_iter()
    .map(|s| s.checksum(mode))
    .collect()
}

/// Every spec runs accurately, out of place and in place, and passes its checks.
fn fault_free(dev: &Device) {
    let mut rng = rng();
    for spec in specs(Checksum::Detect) {
        let fft = dev.plan(&spec).expect("plan");
        let input = random(&mut rng, spec.len());
        let mut out = poisoned(spec.len());
        fft.process_out_of_place(&input, &mut out)
            .unwrap_or_else(|e| panic!("{} × {}: {e}", spec.n, spec.batch));
        assert_accurate("checksummed", &spec, &input, &out);
        let mut data = input.clone();
        fft.process(&mut data).expect("in place");
        assert_accurate("checksummed, in place", &spec, &input, &data);
    }
}

/// The word of element `element` (imaginary part) of transform `transform` in an
/// `n`-point pass's output.
fn word(n: usize, transform: usize, element: usize) -> usize {
    2 * (transform * n + element) + 1
}

/// A flipped exponent bit in the intermediate between two passes (or, on the CPU, in the
/// input after its checksum) is reported for exactly the transform it hit; a low mantissa
/// bit, below rounding, is not a fault worth the name and may pass; recomputing repairs it.
fn flips_detected(dev: &Device, spec: FftSpec, passes: usize) {
    // Fixed data: how much a flipped exponent bit changes a value depends on the value (bit
    // 27 of a number in [1, 2) divides it by 2^16, of one in [16, 32) multiplies it), and a
    // change of a few percent of the rms at a position the weights reach weakly can pass
    // under the rounding bound. With random data one run in many flipped such a value.
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(19);
    let input = random(&mut rng, spec.len());
    let n = spec.n;
    let fft = dev.plan(&spec).expect("plan");
    if let Some(plan) = fft.plan() {
        assert_eq!(plan.passes.len(), passes, "{plan}");
    }
    for (bit, transform, element) in [(30, 1, 5), (23, 2, n / 2 + 3), (27, 0, n - 1)] {
        fft.inject_fault(Fault::new(0, word(n, transform, element), bit))
            .expect("arm");
        let mut out = poisoned(spec.len());
        match fft.process_out_of_place(&input, &mut out) {
            Err(Error::Checksum { transforms, batch }) => {
                assert_eq!(transforms, vec![transform], "bit {bit}");
                assert_eq!(batch, spec.batch);
            }
            other => panic!(
                "bit {bit} of transform {transform}: {other:?}; its error {}",
                tierfft::debug::reference::relative_l2_error(
                    &out[transform * n..(transform + 1) * n],
                    &expected(&FftSpec::new(n), &input[transform * n..(transform + 1) * n])
                )
            ),
        }
        // The other transforms are intact.
        for t in (0..spec.batch).filter(|&t| t != transform) {
            let one = FftSpec::new(n);
            assert_accurate(
                "a transform the fault missed",
                &one,
                &input[t * n..(t + 1) * n],
                &out[t * n..(t + 1) * n],
            );
        }
    }
    // Recomputed: the fault was transient, the call succeeds and the output is right.
    let again = dev
        .plan(&spec.clone().checksum(Checksum::Recompute))
        .expect("plan");
    again
        .inject_fault(Fault::new(0, word(n, 1, 7), 30))
        .expect("arm");
    let mut data = input.clone();
    again.process(&mut data).expect("recomputed");
    assert_accurate("recomputed", &spec, &input, &data);
    // Device-resident and in place: on a GPU the input is gone, so the fault is reported;
    // the CPU keeps each transform's input while it runs, and recomputes.
    let mut buf = dev.upload(&input).expect("upload");
    again
        .inject_fault(Fault::new(0, word(n, 0, 1), 30))
        .expect("arm");
    match (again.process_buffer(&mut buf), dev.kind()) {
        (Ok(()), DeviceKind::Cpu) => {
            assert_accurate(
                "recomputed on the CPU",
                &spec,
                &input,
                &buf.download().expect("download"),
            );
        }
        (Err(Error::Checksum { transforms, .. }), kind) if kind != DeviceKind::Cpu => {
            assert_eq!(transforms, vec![0]);
        }
        other => panic!("device-resident: {other:?}"),
    }
}

#[test]
fn gpu_fault_free() {
    fault_free(gpu());
}

#[test]
fn cpu_fault_free() {
    fault_free(&Device::cpu());
}

#[test]
fn gpu_flip_between_passes_is_detected() {
    flips_detected(
        gpu(),
        FftSpec::new(1 << 18).batch(3).checksum(Checksum::Detect),
        2,
    );
}

#[test]
fn cpu_flip_is_detected() {
    flips_detected(
        &Device::cpu(),
        FftSpec::new(4096).batch(3).checksum(Checksum::Detect),
        0,
    );
}

/// What the checksummed mode does not cover is refused with a reason.
#[test]
fn refusals() {
    let dev = Device::cpu();
    let refused = |spec: FftSpec| match dev.plan(&spec.checksum(Checksum::Detect)) {
        Err(Error::InvalidSpec(m)) => m,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert!(refused(FftSpec::new(1009)).contains("prime factor"));
    let chain =
        FftSpec::new(64).then_multiply_and_invert(vec![tierfft::Complex32::new(1.0, 0.0); 64]);
    assert!(refused(chain).contains("without a chain"));
    let fft = dev
        .plan(&FftSpec::new(64).checksum(Checksum::Detect))
        .expect("plan");
    let bad = Fault::new(1, 0, 3);
    assert!(matches!(fft.inject_fault(bad), Err(Error::InvalidSpec(_))));
}

/// f64, f16 and bf16 transforms pass their checks on the test GPU and the CPU, at a
/// one-pass length and a length past one pass (the host's sums of 2^16 f64 terms needed
/// compensated addition to stay within the f64 tolerance).
#[test]
fn other_precisions_pass_their_checks() {
    use num_complex::Complex;
    use tierfft::{Complex64, Precision, bf16, f16};
    let mut rng = rng();
    for dev in [gpu().clone(), Device::cpu()] {
        for precision in [Precision::F64, Precision::F16, Precision::Bf16] {
            for n in [1024, 1 << 16] {
                let spec = FftSpec::new(n)
                    .batch(3)
                    .precision(precision)
                    .checksum(Checksum::Detect);
                let fft = dev.plan(&spec).expect("plan");
                let x = random(&mut rng, spec.len());
                let run = match precision {
                    Precision::F64 => {
                        let mut d: Vec<Complex64> = x
                            .iter()
                            .map(|z| Complex64::new(z.re.into(), z.im.into()))
                            .collect();
                        fft.process(&mut d)
                    }
                    Precision::F16 => {
                        let h = |v: f32| f16::from_f32(v);
                        let mut d: Vec<Complex<f16>> =
                            x.iter().map(|z| Complex::new(h(z.re), h(z.im))).collect();
                        fft.process(&mut d)
                    }
                    _ => {
                        let h = |v: f32| bf16::from_f32(v);
                        let mut d: Vec<Complex<bf16>> =
                            x.iter().map(|z| Complex::new(h(z.re), h(z.im))).collect();
                        fft.process(&mut d)
                    }
                };
                run.unwrap_or_else(|e| panic!("{precision:?} {n} on {}: {e}", dev.name()));
            }
        }
    }
}

/// N-D transforms check every axis: fault-free runs pass and stay accurate (two and three
/// axes, a subset of axes, columns only, a normalised inverse with fused operations: a
/// multiply on load and a conjugate on store).
fn nd_fault_free(dev: &Device) {
    use tierfft::NdSpec;
    use tierfft::debug::reference::{NdInput, nd_f64, relative_l2_error};
    let mut rng = rng();
    let each = random(&mut rng, 6 * 96);
    let specs = [
        (NdSpec::new(&[64, 48]), false),
        (NdSpec::new(&[4, 32, 30]).axes(&[1, 2]), false),
        (NdSpec::new(&[96, 6]).axes(&[0]), false),
        (NdSpec::new(&[6, 96]).inverse().normalized(), true),
    ];
    for (plain, fused) in specs {
        let mut spec = plain.clone().checksum(Checksum::Detect);
        if fused {
            spec = spec
                .on_load(PointOp::MultiplyEach(each.clone().into()))
                .on_store(PointOp::Conjugate);
        }
        let what = format!("{:?} over {:?} on {}", spec.shape, spec.axes, dev.name());
        let fft = dev.plan_nd(&spec).unwrap_or_else(|e| panic!("{what}: {e}"));
        let x = random(&mut rng, spec.input_len());
        let mut data = x.clone();
        fft.process(&mut data)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let loaded: Vec<_> = match fused {
            true => x.iter().zip(&each).map(|(a, b)| a * b).collect(),
            false => x,
        };
        let mut want = nd_f64(&plain, &NdInput::Complex(&loaded));
        if fused {
            want.iter_mut().for_each(|z| *z = z.conj());
        }
        let err = relative_l2_error(&data, &want);
        assert!(err <= BOUND, "{what}: error {err:e}");
    }
}

/// A bit flipped in one line of an N-D transform's axis is reported for the batch element
/// that line belongs to: the row-major index over the axes not transformed.
fn nd_flip_names_the_batch_element(dev: &Device) {
    use tierfft::NdSpec;
    let n = 1 << 18;
    // Axes 0 and 2 transformed: the batch is axis 1's three elements, and line l of the
    // last axis' transform (l = 3·i0 + i1) belongs to element i1.
    let spec = NdSpec::new(&[2, 3, n])
        .axes(&[0, 2])
        .checksum(Checksum::Detect);
    assert_eq!(spec.checksum_batch(), 3);
    let fft = dev.plan_nd(&spec).expect("plan");
    let rows = fft
        .ffts()
        .find(|f| f.spec().n == n)
        .expect("the last axis' transform");
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(19);
    let input = random(&mut rng, spec.input_len());
    for (line, element) in [(4, 1), (2, 2), (3, 0)] {
        rows.inject_fault(Fault::new(0, word(n, line, 11), 30))
            .expect("arm");
        let mut data = input.clone();
        match fft.process(&mut data) {
            Err(Error::Checksum { transforms, batch }) => {
                assert_eq!((transforms, batch), (vec![element], 3), "line {line}");
            }
            other => panic!("line {line} on {}: {other:?}", dev.name()),
        }
    }
    // Every axis transformed: one batch element.
    let whole = dev
        .plan_nd(&NdSpec::new(&[2, n]).checksum(Checksum::Detect))
        .expect("plan");
    let rows = whole.ffts().find(|f| f.spec().n == n).expect("rows");
    rows.inject_fault(Fault::new(0, word(n, 1, 3), 30))
        .expect("arm");
    let mut data = input[..2 * n].to_vec();
    assert!(matches!(
        whole.process(&mut data),
        Err(Error::Checksum { transforms, batch: 1 }) if transforms == [0]
    ));
}

#[test]
fn gpu_nd_checked() {
    nd_fault_free(gpu());
    nd_flip_names_the_batch_element(gpu());
}

#[test]
fn cpu_nd_checked() {
    nd_fault_free(&Device::cpu());
    nd_flip_names_the_batch_element(&Device::cpu());
}

/// What the N-D checksums do not cover is refused with a reason, before any work.
#[test]
fn nd_refusals() {
    use tierfft::{NdSpec, Precision, Trig};
    let dev = Device::cpu();
    let refused = |spec: NdSpec| match dev.plan_nd(&spec.checksum(Checksum::Detect)) {
        Err(Error::InvalidSpec(m)) => m,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert!(refused(NdSpec::new(&[8, 64]).real()).contains("R2C"));
    assert!(refused(NdSpec::new(&[8, 64]).trig(Trig::DctII)).contains("R2R"));
    assert!(refused(NdSpec::new(&[1009, 64])).contains("axis 0"));
    let f64_spec = NdSpec::new(&[8, 64])
        .precision(Precision::F64)
        .checksum(Checksum::Detect);
    assert!(matches!(
        dev.plan_nd_f64(&f64_spec),
        Err(Error::InvalidSpec(m)) if m.contains("Device::plan_nd")
    ));
    assert!(dev.plan_nd(&f64_spec).is_ok());
}

/// The cluster tier checksummed (CUDA on sm_90: one pass, a record per warp): 2^15 in
/// clusters of 4 and 2^16 in 8 run accurately and pass their checks, and a NaN in one
/// transform's input fails that transform alone. Devices without clusters plan two passes
/// and run the same checks.
#[test]
fn gpu_cluster_passes_are_checked() {
    use tierfft::plan::PlanOptions;
    let dev = gpu();
    let has_clusters = dev.limits().is_some_and(|l| l.max_cluster_blocks >= 8);
    let mut rng = rng();
    for (k, blocks) in [(15, 4), (16, 8)] {
        let spec = FftSpec::new(1 << k).batch(3).checksum(Checksum::Detect);
        let opts = PlanOptions::default().with_cluster_blocks(Some(blocks));
        let fft = dev.plan_with_options(&spec, &opts).expect("plan");
        if let Some(plan) = fft.plan() {
            let clustered = plan.passes.len() == 1 && plan.passes[0].cluster.is_some();
            assert_eq!(clustered, has_clusters, "{plan}");
        }
        let input = random(&mut rng, spec.len());
        let mut out = poisoned(spec.len());
        fft.process_out_of_place(&input, &mut out)
            .unwrap_or_else(|e| panic!("2^{k} on {}: {e}", dev.name()));
        assert_accurate("checksummed clusters", &spec, &input, &out);
        let mut bad = input.clone();
        bad[2 * spec.n + 5].im = f32::NAN;
        match fft.process_out_of_place(&bad, &mut out) {
            Err(Error::Checksum { transforms, batch }) => {
                assert_eq!((transforms, batch), (vec![2], 3), "2^{k}");
            }
            other => panic!("2^{k} with a NaN on {}: {other:?}", dev.name()),
        }
    }
}
