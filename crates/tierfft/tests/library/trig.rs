//! DCT and DST of types I to IV ([`NdSpec::trig`]) against their definitions summed in f64,
//! on fresh random data: every type at every length 1..=48 and a spread beyond on the CPU
//! backend (f32 through `NdFft`, f64 through `NdFft64` and `NdFft`), a spread on the GPU
//! (lavapipe unless TIERFFT_TEST_DEVICE says otherwise) in f32 and, where the device has
//! it, f64; N-D shapes with subsets and repeats of axes; SciPy's orthogonalize, the
//! normalisation, scales and round trips; and the refusals.

use rand::RngExt;
use rand::rngs::StdRng;
use tierfft::debug::reference::trig_f64;
use tierfft::{Device, Error, NdSpec, Precision, RealToReal, Trig};

use crate::common::*;

const TYPES: [Trig; 8] = Trig::ALL;

fn reals(rng: &mut StdRng, len: usize) -> Vec<f64> {
    (0..len).map(|_| rng.random_range(-1.0..1.0)).collect()
}

/// The relative L2 error of `got` against `want`.
fn error(got: &[f64], want: &[f64]) -> f64 {
    let num: f64 = got.iter().zip(want).map(|(g, w)| (g - w).powi(2)).sum();
    let den: f64 = want.iter().map(|w| w * w).sum();
    if den == 0.0 {
        return num.sqrt();
    }
    (num / den).sqrt()
}

/// The variant of `t` numbered `i`: forward or inverse, normalised or not, orthogonalised or
/// not, with or without a scale, so that every length meets several.
fn variant(shape: &[usize], t: Trig, i: usize) -> NdSpec {
    let mut r2r = RealToReal::new(t);
    if i.is_multiple_of(2) {
        r2r = r2r.orthogonalized();
    }
    if i % 5 == 1 {
        r2r = r2r.scaled(0.375);
    }
    let spec = NdSpec::new(shape).trig(r2r);
    let spec = if i % 3 == 1 { spec.inverse() } else { spec };
    if i % 4 >= 2 { spec.normalized() } else { spec }
}

/// Runs `spec` on `dev` in f32 from fresh reals into a poisoned output, through host
/// memory and through a device buffer in place, and returns the larger error.
fn run32(dev: &Device, spec: &NdSpec, rng: &mut StdRng) -> f64 {
    let what = format!("{}: {spec:?}", dev.name());
    let fft = dev.plan_nd(spec).unwrap_or_else(|e| panic!("{what}: {e}"));
    let x = reals(rng, spec.input_len());
    let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let want = trig_f64(spec, &x32.iter().map(|&v| f64::from(v)).collect::<Vec<_>>());
    let mut out = vec![f32::NAN; spec.output_len()];
    fft.process_real_to_real(&x32, &mut out)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let host = error(
        &out.iter().map(|&v| f64::from(v)).collect::<Vec<_>>(),
        &want,
    );
    // Again in place on the device: the scratch array made by the first run is reused.
    let mut buf = dev.upload(&x32).expect("upload");
    fft.process_buffer_real_to_real(&mut buf)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let got: Vec<f32> = buf.download().expect("download");
    let device = error(
        &got.iter().map(|&v| f64::from(v)).collect::<Vec<_>>(),
        &want,
    );
    host.max(device)
}

/// Runs `spec` in f64 on the CPU through `NdFft64` (and through `dev`'s `NdFft` where it
/// has f64), returning the larger error.
fn run64(dev: Option<&Device>, spec: &NdSpec, rng: &mut StdRng) -> f64 {
    let x = reals(rng, spec.input_len());
    let want = trig_f64(spec, &x);
    let fft = Device::cpu()
        .plan_nd_f64(spec)
        .unwrap_or_else(|e| panic!("{spec:?}: {e}"));
    let mut out = vec![f64::NAN; spec.output_len()];
    fft.process_real_to_real(&x, &mut out)
        .unwrap_or_else(|e| panic!("{spec:?}: {e}"));
    let mut worst = error(&out, &want);
    if let Some(dev) = dev {
        let spec = spec.clone().precision(Precision::F64);
        let fft = dev
            .plan_nd(&spec)
            .unwrap_or_else(|e| panic!("{}: {spec:?}: {e}", dev.name()));
        let mut out = vec![f64::NAN; spec.output_len()];
        fft.process_real_to_real(&x, &mut out)
            .unwrap_or_else(|e| panic!("{}: {spec:?}: {e}", dev.name()));
        worst = worst.max(error(&out, &want));
    }
    worst
}

#[test]
fn every_type_at_every_length_to_48_and_beyond_on_the_cpu() {
    let mut rng = rng();
    let cpu = Device::cpu();
    let lens: Vec<usize> = (1..=48)
        .chain([64, 97, 100, 127, 128, 210, 256, 509, 1000, 1024])
        .collect();
    let (mut worst32, mut worst64) = (0.0f64, 0.0f64);
    for t in TYPES {
        for (i, &n) in lens.iter().enumerate().filter(|&(_, &n)| n >= t.min_len()) {
            let spec = variant(&[3, n], t, i).axes(&[1]);
            let e32 = run32(&cpu, &spec, &mut rng);
            assert!(e32 < 2e-6, "{t} n = {n} f32: {e32:e} ({spec:?})");
            let e64 = run64(Some(&cpu), &spec, &mut rng);
            assert!(e64 < 1e-14, "{t} n = {n} f64: {e64:e} ({spec:?})");
            (worst32, worst64) = (worst32.max(e32), worst64.max(e64));
        }
    }
    eprintln!("worst relative L2 error, DCT/DST on the CPU: f32 {worst32:e}, f64 {worst64:e}");
}

#[test]
fn every_type_on_the_gpu() {
    let mut rng = rng();
    let dev = gpu();
    let f64_too = dev.limits().is_none_or(|l| l.shader_f64);
    let mut worst: f64 = 0.0;
    for t in TYPES {
        for (i, n) in [2usize, 3, 8, 17, 64, 100, 1024].into_iter().enumerate() {
            let spec = variant(&[2, n], t, i).axes(&[1]);
            let e = run32(dev, &spec, &mut rng);
            assert!(e < 2e-6, "{}: {t} n = {n}: {e:e} ({spec:?})", dev.name());
            worst = worst.max(e);
            if f64_too && n <= 64 {
                let e = run64(Some(dev), &spec, &mut rng);
                assert!(e < 1e-14, "{}: {t} n = {n} f64: {e:e}", dev.name());
            }
        }
    }
    eprintln!(
        "worst relative L2 error, DCT/DST on {}: {worst:e}",
        dev.name()
    );
}

#[test]
fn n_dimensional_shapes_with_subsets_and_repeats_of_axes() {
    let mut rng = rng();
    let cases: [(&[usize], &[usize]); 5] = [
        (&[5, 6, 7], &[0, 1, 2]),
        (&[5, 6, 7], &[2, 0]),
        (&[4, 1, 9], &[1, 0]),
        (&[6, 10], &[1, 1]),
        (&[3, 4, 5, 2], &[3, 1]),
    ];
    for dev in [&Device::cpu(), gpu()] {
        for (i, t) in TYPES.into_iter().enumerate() {
            for (shape, axes) in cases {
                if axes.iter().any(|&a| shape[a] < t.min_len()) {
                    continue;
                }
                let spec = variant(shape, t, i).axes(axes);
                let e = run32(dev, &spec, &mut rng);
                assert!(e < 2e-6, "{}: {spec:?}: {e:e}", dev.name());
                let e = run64(None, &spec, &mut rng);
                assert!(e < 1e-14, "f64 {spec:?}: {e:e}");
            }
        }
    }
}

#[test]
fn round_trips_give_the_input_back() {
    let mut rng = rng();
    let cpu = Device::cpu();
    for t in TYPES {
        for shape in [vec![7, 12], vec![2, 3, 16]] {
            let forward = NdSpec::new(&shape).trig(RealToReal::new(t).orthogonalized());
            let back = NdSpec::new(&shape).trig(t).inverse().normalized();
            let x = reals(&mut rng, forward.input_len());
            let (mut y, mut z) = (vec![0.0; x.len()], vec![f64::NAN; x.len()]);
            // Orthogonalised forward, plain inverse: undo the orthogonalisation by hand
            // through the reference, then check the plain pair.
            let plain = NdSpec::new(&shape).trig(t);
            let f = cpu.plan_nd_f64(&plain).expect("plan");
            let b = cpu.plan_nd_f64(&back).expect("plan");
            f.process_real_to_real(&x, &mut y).expect("forward");
            b.process_real_to_real(&y, &mut z).expect("inverse");
            assert!(error(&z, &x) < 1e-14, "{t} {shape:?}: {:e}", error(&z, &x));
            // The orthogonal version is its own kind of round trip: its inverse is the
            // orthogonal inverse type with the same scale.
            let points: f64 = shape.iter().map(|&n| t.logical_len(n) as f64).product();
            let s = 1.0 / points.sqrt();
            let forward = NdSpec::new(&shape).trig(RealToReal::new(t).orthogonalized().scaled(s));
            let back = NdSpec::new(&shape)
                .trig(RealToReal::new(t).orthogonalized().scaled(s))
                .inverse();
            cpu.plan_nd_f64(&forward)
                .expect("plan")
                .process_real_to_real(&x, &mut y)
                .expect("forward");
            cpu.plan_nd_f64(&back)
                .expect("plan")
                .process_real_to_real(&y, &mut z)
                .expect("inverse");
            let e = error(&z, &x);
            assert!(e < 1e-14, "orthogonal {t} {shape:?}: {e:e}");
        }
    }
}

#[test]
fn plans_print_their_passes() {
    let spec = NdSpec::new(&[4, 6]).trig(Trig::DctII);
    let plan = tierfft::nd::NdPlan::new(&spec).expect("plan");
    let text = plan.to_string();
    assert!(text.contains("DCT-II of 6 reals"), "{text}");
    assert_eq!(plan.steps.len(), 6, "{text}");
}

#[test]
fn bad_specs_are_refused_before_any_work() {
    let refused = |spec: NdSpec, words: &[&str]| {
        let e = Device::cpu().plan_nd(&spec).expect_err("refused");
        assert!(matches!(e, Error::InvalidSpec(_)), "{e}");
        let text = e.to_string();
        for w in words {
            assert!(text.contains(w), "{text:?} lacks {w:?}");
        }
    };
    refused(
        NdSpec::new(&[1, 8]).trig(Trig::DctI),
        &["DCT-I", "at least 2", "axis 0"],
    );
    refused(
        NdSpec::new(&[8]).trig(Trig::DstII).real(),
        &["drop .real()"],
    );
    refused(
        NdSpec::new(&[2, 8])
            .trig(Trig::DctIV)
            .input_strides(&[16, 1]),
        &["contiguous"],
    );
    refused(
        NdSpec::new(&[8])
            .trig(Trig::DctII)
            .on_store(tierfft::PointOp::Scale(2.0)),
        &["RealToReal::scaled"],
    );
    refused(
        NdSpec::new(&[8]).trig(RealToReal::new(Trig::DctII).scaled(f64::NAN)),
        &["finite"],
    );
    assert!(Trig::dct(0).is_err() && Trig::dst(5).is_err());
    // Data of the wrong kind or length: an error naming it, not a panic.
    let fft = Device::cpu()
        .plan_nd(&NdSpec::new(&[8]).trig(Trig::DctII))
        .expect("plan");
    let mut out = vec![0.0f32; 7];
    let e = fft
        .process_real_to_real(&[0.0f32; 8], &mut out)
        .expect_err("7 outputs");
    assert!(e.to_string().contains("holds 7 reals"), "{e}");
    let fft = Device::cpu()
        .plan_nd(&NdSpec::new(&[8]).real())
        .expect("plan");
    let e = fft
        .process_real_to_real(&[0.0f32; 8], &mut [0.0f32; 8])
        .expect_err("R2C");
    assert!(e.to_string().contains("RealToReal"), "{e}");
}
