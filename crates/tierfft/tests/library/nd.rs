//! N-D and real transforms (NumPy's `fftn`, `rfftn`, `irfftn`, `rfft`, `irfft`) against
//! the f64 reference on fresh random data, outputs poisoned on the device beforehand: every
//! length 1..=1024 of R2C and C2R on the CPU backend, a spread on the GPU (lavapipe unless
//! TIERFFT_TEST_DEVICE says otherwise), shapes of rank 1 to 4 with odd and prime extents
//! and subsets of axes, round trips, Hermitian symmetry and Parseval.

use num_complex::{Complex32, Complex64};
use rand::RngExt;
use rand::rngs::StdRng;
use tierfft::debug::reference::{NdInput, nd_f64, relative_l2_error, trig_f64};
use tierfft::nd::Kind;
use tierfft::{Device, Error, NdFft, NdSpec, RealToReal, Trig};

use crate::common::*;

fn reals(rng: &mut StdRng, len: usize) -> Vec<f32> {
    (0..len).map(|_| rng.random_range(-1.0..1.0)).collect()
}

/// Runs `spec` on `dev` through device-resident arrays whose output was poisoned with NaNs,
/// and returns the output as complex values (reals with zero imaginary parts for C2R) with
/// its relative error against f64.
fn run(dev: &Device, spec: &NdSpec, rng: &mut StdRng) -> (Vec<Complex32>, f64) {
    let what = format!("{}: {spec:?}", dev.name());
    let fft = dev.plan_nd(spec).unwrap_or_else(|e| panic!("{what}: {e}"));
    // Twice on fresh data: the second run reuses the scratch arrays the first made.
    run_on(&fft, dev, spec, rng);
    run_on(&fft, dev, spec, rng)
}

/// One run of `fft` (planned for `spec` on `dev`) against f64.
fn run_on(fft: &NdFft, dev: &Device, spec: &NdSpec, rng: &mut StdRng) -> (Vec<Complex32>, f64) {
    let what = format!("{}: {spec:?}", dev.name());
    let (got, want) = match spec.kind() {
        Kind::ComplexToComplex => {
            let x = random(rng, spec.input_len());
            let mut buf = dev.upload(&x).expect("upload");
            fft.process_buffer(&mut buf)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            (
                buf.download().expect("download"),
                nd_f64(spec, &NdInput::Complex(&x)),
            )
        }
        Kind::RealToComplex => {
            let x = reals(rng, spec.input_len());
            let mut input = dev.upload(&x).expect("upload");
            let mut out = dev.upload(&poisoned(spec.output_len())).expect("upload");
            fft.process_buffer_real_to_complex(&mut input, &mut out)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            if fft.preserves_input() {
                assert_eq!(
                    input.download().expect("download"),
                    x,
                    "{what}: input changed"
                );
            }
            (
                out.download().expect("download"),
                nd_f64(spec, &NdInput::Real(&x)),
            )
        }
        Kind::ComplexToReal => {
            let x = random(rng, spec.input_len());
            let mut input = dev.upload(&x).expect("upload");
            let mut out = dev
                .upload(&vec![f32::NAN; spec.output_len()])
                .expect("upload");
            fft.process_buffer_complex_to_real(&mut input, &mut out)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            if fft.preserves_input() {
                assert_eq!(
                    input.download().expect("download"),
                    x,
                    "{what}: input changed"
                );
            }
            let got = out.download().expect("download");
            let got = got.iter().map(|&v| Complex32::new(v, 0.0)).collect();
            (got, nd_f64(spec, &NdInput::Complex(&x)))
        }
        other => panic!("no check written for {other:?}"),
    };
    let err = relative_l2_error(&got, &want);
    assert!(err <= BOUND, "{what}: error {err:e}");
    (got, err)
}

/// R2C and C2R (normalised, as NumPy's `irfft`) of two rows of every length 1..=1024.
#[test]
fn rfft_and_irfft_of_every_length_to_1024_on_the_cpu() {
    let mut rng = rng();
    for n in 1..=1024 {
        let spec = NdSpec::new(&[2, n]).axes(&[1]).real();
        run(&Device::cpu(), &spec, &mut rng);
        run(&Device::cpu(), &spec.inverse().normalized(), &mut rng);
    }
}

#[test]
fn rfft_and_irfft_on_the_gpu() {
    let mut rng = rng();
    for n in [
        1,
        2,
        3,
        4,
        7,
        8,
        17,
        30,
        64,
        97,
        100,
        256,
        1000,
        1024,
        2050,
        4096,
        5616,
        1 << 14,
        // Two passes on lavapipe: split and merge as steps of their own.
        1 << 17,
    ] {
        let spec = NdSpec::new(&[3, n]).axes(&[1]).real();
        run(gpu(), &spec, &mut rng);
        run(gpu(), &spec.clone().normalized(), &mut rng);
        run(gpu(), &spec.clone().inverse().normalized(), &mut rng);
        run(gpu(), &spec.inverse(), &mut rng);
    }
}

/// Shapes of rank 1 to 4, odd and prime extents, every kind, axes in and out of order.
#[test]
fn n_dimensional_transforms_match_f64() {
    let mut rng = rng();
    let cases: &[(&[usize], &[usize])] = &[
        (&[12], &[0]),
        (&[5, 7], &[0, 1]),
        (&[16, 12], &[0, 1]),
        (&[16, 12], &[1, 0]),
        (&[13, 17], &[0]),
        (&[6, 9, 10], &[0, 1, 2]),
        (&[6, 9, 10], &[2, 0]),
        (&[6, 9, 10], &[1]),
        (&[6, 8, 10], &[0, 1]),
        (&[3, 4, 5, 6], &[1, 3]),
        (&[2, 3, 4, 5], &[0, 1, 2, 3]),
        (&[4, 1, 6], &[1, 2]),
        (&[64, 64], &[0, 1]),
        (&[20, 30, 40], &[0, 1, 2]),
        // Several passes along the rows (run out of place between the arrays on the GPU).
        (&[3, 1 << 15], &[0, 1]),
        // A repeated axis is transformed twice, as NumPy does (not the halved one).
        (&[6, 9, 10], &[0, 2, 0, 1]),
        (&[5, 8], &[0, 0, 1]),
    ];
    for dev in [gpu().clone(), Device::cpu()] {
        for (shape, axes) in cases {
            let spec = NdSpec::new(shape).axes(axes);
            for spec in [
                spec.clone(),
                spec.clone().inverse().normalized(),
                spec.clone().real(),
                spec.clone().real().normalized(),
                spec.clone().real().inverse().normalized(),
            ] {
                run(&dev, &spec, &mut rng);
            }
        }
    }
}

/// Complex transforms from one device buffer into another: the output poisoned, the input
/// left as it was, the result as accurate as in place (several passes, several axes).
#[test]
fn out_of_place_device_transforms_keep_the_input() {
    let mut rng = rng();
    let cases: &[(&[usize], &[usize])] = &[
        (&[12], &[0]),
        (&[16, 12], &[1, 0]),
        (&[6, 9, 10], &[2, 0]),
        (&[3, 1 << 15], &[0, 1]),
        (&[5, 8], &[0, 0, 1]),
    ];
    for dev in [gpu().clone(), Device::cpu()] {
        for (shape, axes) in cases {
            for spec in [
                NdSpec::new(shape).axes(axes),
                NdSpec::new(shape).axes(axes).inverse().normalized(),
            ] {
                let what = format!("{}: {spec:?}", dev.name());
                let fft = dev.plan_nd(&spec).expect("plans");
                let x = random(&mut rng, spec.input_len());
                let mut input = dev.upload(&x).expect("upload");
                let mut output = dev.upload(&poisoned(x.len())).expect("upload");
                fft.process_buffer_out_of_place(&mut input, &mut output)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(
                    input.download().expect("download"),
                    x,
                    "{what}: input changed"
                );
                let got = output.download().expect("download");
                let err = relative_l2_error(&got, &nd_f64(&spec, &NdInput::Complex(&x)));
                assert!(err <= BOUND, "{what}: error {err:e}");
            }
        }
    }
}

/// Which real transforms leave their input as it was: on a GPU, 1-D ones whose split or
/// merge is fused into the half-length transform (so callers that keep their input copy
/// nothing); not a C2R of several axes, whose other axes run on the bins, nor the CPU's
/// R2C, whose half-length transform runs in place on the reals. The runs themselves are checked
/// by `run_on` (the input compared after every run that claims to keep it).
#[test]
fn real_transforms_say_whether_they_keep_their_input() {
    let mut rng = rng();
    let plan = |dev: &Device, spec: &NdSpec| dev.plan_nd(spec).expect("plans");
    let gpu = gpu();
    for n in [64, 4096, 1 << 16] {
        let r2c = NdSpec::new(&[3, n]).axes(&[1]).real();
        let c2r = r2c.clone().inverse().normalized();
        assert!(
            !plan(&Device::cpu(), &r2c).preserves_input(),
            "cpu: {r2c:?}"
        );
        for spec in [r2c, c2r] {
            let fft = plan(gpu, &spec);
            assert!(fft.preserves_input(), "{}: {spec:?}", gpu.name());
            run_on(&fft, gpu, &spec, &mut rng);
        }
    }
    let c2r = NdSpec::new(&[8, 64]).real().inverse();
    let fft = plan(gpu, &c2r);
    assert!(!fft.preserves_input(), "{}: {c2r:?}", gpu.name());
    run_on(&fft, gpu, &c2r, &mut rng);
}

/// On a GPU the N-D work arrays are the device's, shared by its transforms
/// ([`Device::workspace_bytes`]): a run finds in them what another plan's run left and must
/// be as accurate as on fresh arrays. Plans of several kinds and sizes (two complex axes, a
/// widened odd real axis, a C2R over two axes, a real axis before others, a DCT-IV) run
/// interleaved, each after another's; the device then holds one set of arrays, counted apart
/// from the plans, freed on request and made again by the next run.
#[test]
fn transforms_share_the_devices_work_arrays() {
    let dev = gpu_again();
    let mut rng = rng();
    let specs = [
        NdSpec::new(&[64, 48]),
        NdSpec::new(&[6, 9, 11]).axes(&[2, 0]).real(),
        NdSpec::new(&[10, 12]).real().inverse().normalized(),
        NdSpec::new(&[5, 33, 7]).axes(&[1]).real(),
    ];
    let plans: Vec<NdFft> = (specs.iter())
        .map(|s| dev.plan_nd(s).expect("plans"))
        .collect();
    let dct = NdSpec::new(&[24, 40]).trig(RealToReal::new(Trig::dct(4).expect("a type")));
    let dct_plan = dev.plan_nd(&dct).expect("plans");
    let held: Vec<u64> = plans.iter().map(NdFft::held_bytes).collect();
    for _ in 0..2 {
        for (fft, spec) in plans.iter().zip(&specs).rev() {
            run_on(fft, &dev, spec, &mut rng);
            let x: Vec<f32> = reals(&mut rng, dct.input_len());
            let mut buf = dev.upload(&x).expect("upload");
            dct_plan
                .process_buffer_real_to_real(&mut buf)
                .expect("a DCT-IV");
            let got: Vec<f64> = (buf.download().expect("download").iter())
                .map(|&v: &f32| f64::from(v))
                .collect();
            let want = trig_f64(&dct, &x.iter().map(|&v| f64::from(v)).collect::<Vec<_>>());
            let (num, den) = got.iter().zip(&want).fold((0.0, 0.0), |(n, d), (g, w)| {
                (n + (g - w) * (g - w), d + w * w)
            });
            let err = (num / den).sqrt();
            assert!(err <= BOUND, "the DCT-IV after {spec:?}: error {err:e}");
        }
    }
    // Counted by the device, not by the plans; one set, not one per plan: the C2C plan's
    // work array (64 × 48 complex) is the largest, and no array is kept twice.
    let largest = 64 * 48 * 8;
    let grown = plans[0].held_bytes() - held[0];
    assert!(
        grown < largest as u64,
        "the C2C plan holds {grown} more bytes"
    );
    let shared = dev.workspace_bytes();
    assert!(
        shared >= largest as u64 && shared <= 3 * largest as u64,
        "{shared} bytes"
    );
    dev.free_workspace();
    assert_eq!(dev.workspace_bytes(), 0);
    run_on(&plans[0], &dev, &specs[0], &mut rng);
    assert_eq!(dev.workspace_bytes(), largest as u64);
}

#[test]
fn round_trips_return_the_input() {
    let mut rng = rng();
    for (shape, axes) in [(vec![30, 50], vec![0, 1]), (vec![7, 4, 9], vec![2, 0])] {
        let forward = gpu()
            .plan_nd(&NdSpec::new(&shape).axes(&axes).real())
            .expect("plan");
        let back = gpu()
            .plan_nd(
                &NdSpec::new(&shape)
                    .axes(&axes)
                    .real()
                    .inverse()
                    .normalized(),
            )
            .expect("plan");
        let x = reals(&mut rng, forward.spec().input_len());
        let mut spectrum = vec![Complex32::new(0.0, 0.0); forward.spec().output_len()];
        forward
            .process_real_to_complex(&x, &mut spectrum)
            .expect("r2c");
        let mut y = vec![f32::NAN; x.len()];
        back.process_complex_to_real(&spectrum, &mut y)
            .expect("c2r");
        let worst = x
            .iter()
            .zip(&y)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert!(worst < 1e-5, "{shape:?} {axes:?}: worst {worst:e}");
    }
}

/// A real input's full spectrum is Hermitian (X[k] = X*[n−k]): the bins R2C keeps agree with
/// the conjugates of the ones a complex transform also computes; and Parseval holds.
#[test]
fn real_spectra_are_hermitian_and_keep_energy() {
    let mut rng = rng();
    let n = 96;
    let x = reals(&mut rng, n);
    let complex: Vec<Complex32> = x.iter().map(|&v| Complex32::new(v, 0.0)).collect();
    let mut full = complex.clone();
    gpu()
        .plan_nd(&NdSpec::new(&[n]))
        .expect("plan")
        .process(&mut full)
        .expect("c2c");
    let mut half = vec![Complex32::new(0.0, 0.0); n / 2 + 1];
    gpu()
        .plan_nd(&NdSpec::new(&[n]).real())
        .expect("plan")
        .process_real_to_complex(&x, &mut half)
        .expect("r2c");
    for k in 1..n / 2 {
        assert!((half[k] - full[n - k].conj()).norm() < 1e-4, "bin {k}");
        assert!((half[k] - full[k]).norm() < 1e-4, "bin {k}");
    }
    // Σ|x|² = (1/n) Σ|X|² over the full spectrum, counting the kept bins twice except 0, n/2.
    let energy: f64 = x.iter().map(|&v| f64::from(v * v)).sum();
    let spectral: f64 = half
        .iter()
        .enumerate()
        .map(|(k, z)| {
            let w = if k == 0 || k == n / 2 { 1.0 } else { 2.0 };
            w * Complex64::new(z.re.into(), z.im.into()).norm_sqr()
        })
        .sum::<f64>()
        / n as f64;
    assert!(
        (energy - spectral).abs() < 1e-4 * energy,
        "{energy} vs {spectral}"
    );
}

#[test]
fn wrong_calls_are_errors() {
    let r2c = Device::cpu()
        .plan_nd(&NdSpec::new(&[4, 6]).real())
        .expect("plan");
    let mut c = vec![Complex32::new(0.0, 0.0); 24];
    assert!(
        matches!(r2c.process(&mut c), Err(Error::InvalidSpec(m)) if m.contains("RealToComplex"))
    );
    let mut out = vec![Complex32::new(0.0, 0.0); 15];
    let err = r2c
        .process_real_to_complex(&[0.0; 24], &mut out)
        .expect_err("short output");
    assert!(err.to_string().contains("holds 15 complex values"), "{err}");
    assert!(
        Device::cpu()
            .plan_nd(&NdSpec::new(&[4, 6]).axes(&[3]))
            .is_err()
    );
}
