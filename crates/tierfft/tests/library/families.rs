//! One small case of every kernel family, each its own test so that compute-sanitizer can run
//! them one at a time (`scripts/device-run.sh sanitizeall`: memcheck, racecheck, synccheck and
//! initcheck on the H100). Each is checked against the f64 reference (or the CPU), outputs
//! poisoned beforehand. On lavapipe in CI; the families CUDA alone has (clusters, persistent
//! prefetching) plan as other shapes there.

use num_complex::Complex32;
use tierfft::debug::reference::{NdInput, nd_f64, relative_l2_error, spec_f64, widen};
use tierfft::plan::PlanOptions;
use tierfft::resample::{ResampleSpec, RowPositions};
use tierfft::{Device, FftSpec, NdSpec, PointOp, Precision};

use crate::common::*;

/// Plans `spec` with `opts` on the test device, runs it out of place and in place on fresh
/// data, and checks both against f64 within `bound`.
fn check(what: &str, spec: &FftSpec, opts: &PlanOptions, bound: f64) {
    let dev = gpu();
    let fft = dev.plan_with_options(spec, opts).expect("plan");
    let mut rng = rng();
    let input = random(&mut rng, spec.len());
    let mut out = poisoned(spec.len());
    fft.process_out_of_place(&input, &mut out).expect("run");
    let want = spec_f64(spec, &input);
    let err = relative_l2_error(&out, &want);
    assert!(err <= bound, "{what}: error {err:e}\n{:?}", fft.plan());
    let mut data = input.clone();
    fft.process(&mut data).expect("run in place");
    let err = relative_l2_error(&data, &want);
    assert!(err <= bound, "{what}, in place: error {err:e}");
}

/// Runs the R2C or C2R `fft` of `spec` on fresh random data (outputs poisoned) and returns
/// its relative L2 error against the f64 reference.
fn real_error(fft: &tierfft::nd::NdFft, spec: &NdSpec, rng: &mut rand::rngs::StdRng) -> f64 {
    let (got, want) = if spec.kind() == tierfft::nd::Kind::RealToComplex {
        let x: Vec<f32> = random(rng, spec.input_len()).iter().map(|z| z.re).collect();
        let mut out = poisoned(spec.output_len());
        fft.process_real_to_complex(&x, &mut out).expect("run");
        (out, nd_f64(spec, &NdInput::Real(&x)))
    } else {
        let x = random(rng, spec.input_len());
        let mut out = vec![f32::NAN; spec.output_len()];
        fft.process_complex_to_real(&x, &mut out).expect("run");
        let got = out.iter().map(|&v| Complex32::new(v, 0.0)).collect();
        (got, nd_f64(spec, &NdInput::Complex(&x)))
    };
    relative_l2_error(&got, &want)
}

fn plain(spec: FftSpec, what: &str) {
    check(what, &spec, &PlanOptions::default(), BOUND);
}

#[test]
fn one_pass_rows() {
    plain(FftSpec::new(1024).batch(5), "1024 × 5");
    plain(
        FftSpec::new(1000).batch(3).inverse().normalized(),
        "1000 × 3",
    );
    plain(FftSpec::new(8).batch(33), "8 × 33 (packed)");
}

#[test]
fn multi_pass_rows() {
    // Clusters off: two and three passes over device memory.
    let opts = PlanOptions::default().with_cluster_blocks(Some(1));
    check("2^18", &FftSpec::new(1 << 18), &opts, BOUND);
    check(
        "2^16 × 3 inverse",
        &FftSpec::new(1 << 16).batch(3).inverse(),
        &opts,
        BOUND,
    );
    let three = opts.with_min_lines(Some(1)).with_last_pass_points(Some(64));
    check(
        "2^20, short last pass",
        &FftSpec::new(1 << 20),
        &three,
        BOUND,
    );
}

/// Two passes merged into one launch (CUDA): tiles by ticket, done-counters per transform,
/// pass 2 in place on the intermediate. With a wave of one workgroup (every ticket in turn),
/// of three (more tiles than resident workgroups), and the device's; past the L2 cache.
/// Through wgpu the same specs run as two launches.
#[test]
fn merged_passes() {
    let merge = |groups: Option<usize>| {
        PlanOptions::default()
            .with_cluster_blocks(Some(1))
            .with_merge(Some(true))
            .with_persistent_groups(groups)
    };
    let cases = [
        ("2^18 × 6", FftSpec::new(1 << 18).batch(6), merge(None)),
        (
            "2^19 × 3 inverse",
            FftSpec::new(1 << 19).batch(3).inverse().normalized(),
            merge(None),
        ),
        (
            "2^18 × 2, one workgroup",
            FftSpec::new(1 << 18).batch(2),
            merge(Some(1)),
        ),
        (
            "2^20 × 3, three workgroups",
            FftSpec::new(1 << 20).batch(3),
            merge(Some(3)),
        ),
        ("2^22 past the L2 cache", FftSpec::new(1 << 22), merge(None)),
    ];
    for (what, spec, opts) in cases {
        let fft = gpu().plan_with_options(&spec, &opts).expect("plan");
        let plan = fft.plan().expect("a GPU plan");
        assert_eq!(
            plan.merged.is_some(),
            plan.limits.workgroups_wait,
            "{what}: merged where the device lets workgroups wait\n{plan}"
        );
        check(what, &spec, &opts, BOUND);
    }
}

/// One-pass lines exchanged through workgroup memory in rounds: 8192 points in the complex
/// exchange take two rounds through lavapipe's 32 KiB; where the memory holds the line (CUDA)
/// the same options plan one round.
#[test]
fn exchange_rounds() {
    let opts = PlanOptions::default()
        .with_exchange_rounds(Some(2))
        .with_exchange(Some(tierfft::plan::Exchange::Complex));
    let spec = FftSpec::new(1 << 13).batch(3);
    let fft = gpu().plan_with_options(&spec, &opts).expect("plan");
    let plan = fft.plan().expect("a GPU plan");
    let fits = plan.limits.workgroup_memory >= (8 << 13);
    assert!(
        plan.passes.len() == 1 && (plan.passes[0].rounds > 1) != fits,
        "one pass, in rounds where the memory does not hold the line\n{plan}"
    );
    check("8192 × 3 in rounds", &spec, &opts, BOUND);
    check(
        "8192 × 2 inverse in rounds",
        &FftSpec::new(1 << 13).batch(2).inverse().normalized(),
        &opts,
        BOUND,
    );
}

#[test]
fn cluster_rows() {
    let opts = PlanOptions::default().with_cluster_blocks(Some(4));
    check(
        "2^15 × 2 in clusters",
        &FftSpec::new(1 << 15).batch(2),
        &opts,
        BOUND,
    );
}

/// R2C and C2R whose half-length transform runs in clusters: the split on the tail's store,
/// the merge on the head's load (one step where the device has clusters; elsewhere the
/// half-length transform and its split or merge as other shapes plan them). Batches of one
/// cluster and of three, 2^16 and 2^17 reals.
#[test]
fn cluster_real_rows() {
    let dev = gpu();
    let mut rng = rng();
    let opts = PlanOptions::default().with_cluster_blocks(Some(4));
    for (rows, reals) in [(1, 1 << 16), (3, 1 << 16), (2, 1 << 17)] {
        for spec in [
            NdSpec::new(&[rows, reals]).axes(&[1]).real(),
            NdSpec::new(&[rows, reals])
                .axes(&[1])
                .real()
                .inverse()
                .normalized(),
        ] {
            let fft = dev
                .plan_nd_with(&spec, tierfft::nd::FuseReal::OnePass, &opts)
                .expect("plan");
            let clusters = dev.limits().is_some_and(|l| l.max_cluster_blocks >= 4);
            assert!(
                !clusters || fft.plan().steps.len() == 1,
                "{spec:?}: the split or merge fused into the cluster pass\n{:?}",
                fft.plan()
            );
            let err = real_error(&fft, &spec, &mut rng);
            assert!(err <= BOUND, "{spec:?}: error {err:e}");
        }
    }
}

#[test]
fn columns() {
    plain(
        FftSpec::new(256).batch(64).columns(),
        "256-point columns × 64",
    );
    plain(
        FftSpec::new(64).batch(48).stacked_columns(3),
        "3 stacked matrices of columns",
    );
}

#[test]
fn fused_chains() {
    let mut rng = rng();
    let h: std::sync::Arc<[Complex32]> = random(&mut rng, 1024).into();
    let one = FftSpec::new(1024)
        .batch(8)
        .then_multiply_and_invert(h)
        .normalized();
    plain(one, "1024-point chain");
    let h: std::sync::Arc<[Complex32]> = random(&mut rng, 1 << 14).into();
    let split = FftSpec::new(1 << 14).batch(2).then_multiply_and_invert(h);
    plain(split, "2^14-point chain (two kernels)");
    let each: std::sync::Arc<[Complex32]> = random(&mut rng, 256 * 4).into();
    plain(
        FftSpec::new(256).batch(4).then_multiply_and_invert(each),
        "a filter per element",
    );
    // A multiply per element on the load and a filter per element, as SAR's chirp scaling
    // chains them: split where the line is long (CUDA above 4096 points, every device at
    // 2^15), each half binding its own vector of the plan's vectors buffer; halves of one
    // pass each (8192 under CUDA) run in place.
    for n in [8192, 1 << 15] {
        let scaling: std::sync::Arc<[Complex32]> = random(&mut rng, n * 2).into();
        let each: std::sync::Arc<[Complex32]> = random(&mut rng, n * 2).into();
        let spec = FftSpec::new(n)
            .batch(2)
            .on_load(PointOp::MultiplyEach(scaling))
            .then_multiply_and_invert(each)
            .normalized();
        plain(
            spec,
            &format!("{n}-point chain with a multiply and a filter per element"),
        );
    }
    // The same split forced at 1024 points (`max_chain_points`): two one-pass halves, both in
    // place, on every device.
    let scaling: std::sync::Arc<[Complex32]> = random(&mut rng, 1024 * 3).into();
    let each: std::sync::Arc<[Complex32]> = random(&mut rng, 1024 * 3).into();
    let spec = FftSpec::new(1024)
        .batch(3)
        .on_load(PointOp::MultiplyEach(scaling))
        .then_multiply_and_invert(each)
        .normalized();
    let split = PlanOptions::default().with_max_chain_points(Some(512));
    check(
        "1024-point chain split into one-pass halves",
        &spec,
        &split,
        BOUND,
    );
}

#[test]
fn persistent_prefetching() {
    let opts = PlanOptions::default().with_prefetch(Some(true));
    check(
        "4096 × 64 prefetched",
        &FftSpec::new(4096).batch(64),
        &opts,
        BOUND,
    );
}

#[test]
fn fused_point_operations() {
    let mut rng = rng();
    let w: std::sync::Arc<[Complex32]> = random(&mut rng, 512).into();
    let spec = FftSpec::new(512)
        .batch(6)
        .on_load(PointOp::Multiply(w))
        .on_load(PointOp::Conjugate)
        .on_store(PointOp::Scale(0.5))
        .on_store(PointOp::Magnitude);
    plain(spec, "multiply, conjugate, scale, magnitude");
}

#[test]
fn bluestein_lengths() {
    // 1009 is prime; 2 × 4099 has a prime factor above 31.
    plain(FftSpec::new(1009).batch(3), "1009");
    check("8198", &FftSpec::new(8198), &PlanOptions::default(), 2e-6);
}

#[test]
fn l2_resident_chunks() {
    let opts = PlanOptions::default()
        .with_resident_bytes(Some((2 * 8) << 16))
        .with_cluster_blocks(Some(1));
    check(
        "2^16 × 5, chunks of 2",
        &FftSpec::new(1 << 16).batch(5),
        &opts,
        BOUND,
    );
}

/// One 16-bit transform: the input rounded to the storage (`to`), the output widened back
/// (`from`), against f64 of the stored input.
fn sixteen_bit<H: Copy>(precision: Precision, to: fn(f32) -> H, from: fn(H) -> f32, bound: f64)
where
    num_complex::Complex<H>: tierfft::Element,
{
    let spec = FftSpec::new(2048).batch(4).precision(precision);
    let fft = gpu().plan(&spec).expect("plan");
    let mut rng = rng();
    let input: Vec<num_complex::Complex<H>> = random(&mut rng, spec.len())
        .into_iter()
        .map(|z| num_complex::Complex::new(to(z.re), to(z.im)))
        .collect();
    let wide = |v: &[num_complex::Complex<H>]| -> Vec<Complex32> {
        v.iter()
            .map(|z| Complex32::new(from(z.re), from(z.im)))
            .collect()
    };
    let mut data = input.clone();
    fft.process(&mut data).expect("run");
    let err = relative_l2_error(&wide(&data), &spec_f64(&spec, &wide(&input)));
    assert!(err <= bound, "{precision}: error {err:e}");
}

#[test]
fn sixteen_bit_storage() {
    use tierfft::{bf16, f16};
    sixteen_bit(Precision::F16, f16::from_f32, f16::to_f32, 1e-3);
    sixteen_bit(Precision::Bf16, bf16::from_f32, bf16::to_f32, 8e-3);
}

#[test]
fn double_precision() {
    let dev = gpu();
    if !dev.limits().is_none_or(|l| l.shader_f64) {
        eprintln!("{} has no f64: skipped", dev.name());
        return;
    }
    for n in [1024, 1 << 16] {
        let spec = FftSpec::new(n).batch(2).precision(Precision::F64);
        let fft = dev.plan(&spec).expect("plan");
        let mut rng = rng();
        let input = widen(&random(&mut rng, spec.len()));
        let mut data = input.clone();
        fft.process(&mut data).expect("run");
        let narrow: Vec<Complex32> = input
            .iter()
            .map(|z| Complex32::new(z.re as f32, z.im as f32))
            .collect();
        let want = spec_f64(&spec, &narrow);
        let err = tierfft::debug::reference::relative_l2_error64(&data, &want);
        assert!(err <= 1e-13, "f64, n = {n}: error {err:e}");
    }
}

#[test]
fn real_and_strided_n_d() {
    let dev = gpu();
    let mut rng = rng();
    // R2C and C2R with the split and merge fused into the half-length transform: packed
    // short lines, a line a workgroup, and the H100's longest one-pass line.
    for spec in [[5, 64], [3, 4096], [2, 16384]]
        .into_iter()
        .flat_map(|shape| {
            [
                NdSpec::new(&shape).real(),
                NdSpec::new(&shape).real().inverse(),
            ]
        })
    {
        let fft = dev.plan_nd(&spec).expect("plan");
        let err = real_error(&fft, &spec, &mut rng);
        assert!(err <= BOUND, "{spec:?}: error {err:e}");
    }
    // A 2-D transform of pitched rows: gathered and scattered by kernels of their own.
    let spec = NdSpec::new(&[32, 64])
        .input_strides(&[80, 1])
        .output_strides(&[80, 1]);
    let fft = dev.plan_nd(&spec).expect("plan");
    let data = random(&mut rng, 32 * 80);
    let mut buf = dev.upload(&data).expect("upload");
    fft.process_buffer(&mut buf).expect("run");
    let got = buf.download().expect("download");
    let dense: Vec<Complex32> = strided_offsets(&[32, 64], &[80, 1])
        .iter()
        .map(|&i| data[i])
        .collect();
    let got: Vec<Complex32> = strided_offsets(&[32, 64], &[80, 1])
        .iter()
        .map(|&i| got[i])
        .collect();
    let err = relative_l2_error(
        &got,
        &nd_f64(&NdSpec::new(&[32, 64]), &NdInput::Complex(&dense)),
    );
    assert!(err <= BOUND, "pitched 2-D: error {err:e}");
}

#[test]
fn resampler() {
    let mut rng = rng();
    let rows: Vec<RowPositions> = (0..9)
        .map(|r| RowPositions {
            offset: r as f64 * 1.37 - 4.0,
            slope: 0.002 * r as f64,
        })
        .collect();
    let spec = ResampleSpec::new(1000, rows);
    let input = random(&mut rng, spec.len());
    let mut cpu = poisoned(spec.len());
    Device::cpu()
        .plan_resample(&spec)
        .expect("plan")
        .process(&input, &mut cpu)
        .expect("run");
    let mut out = poisoned(spec.len());
    gpu()
        .plan_resample(&spec)
        .expect("plan")
        .process(&input, &mut out)
        .expect("run");
    let err = relative_l2_error(&out, &widen(&cpu));
    assert!(err < 1e-6, "resampler: error {err:e} against the CPU");
}
