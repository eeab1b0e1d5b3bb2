//! Operations fused into N-D transforms (`NdSpec::on_load`, `on_store`): a 2-D fast
//! convolution as R2C → multiply → C2R, element-wise multiplies, conjugates, scales and
//! detection around complex transforms, windowed R2C and weighted C2R (real weights on the
//! real side), strided layouts with them; on the CPU and the GPU
//! (lavapipe unless TIERFFT_TEST_DEVICE says otherwise) against f64, the operations applied
//! to the reference in f64. And the specs that cannot take them, each an error saying why.

use std::sync::Arc;

use num_complex::{Complex32, Complex64};
use rand::RngExt;
use rand::rngs::StdRng;
use tierfft::debug::reference::{NdInput, nd_f64, relative_l2_error};
use tierfft::nd::Kind;
use tierfft::{Device, Error, NdSpec, PointOp, RealWeights};

use crate::common::*;

/// `ops` applied in f64 to every element of `data`, at its place.
fn apply(ops: &[PointOp], data: &mut [Complex64]) {
    for op in ops {
        for (i, z) in data.iter_mut().enumerate() {
            *z = op.apply(i, i, *z);
        }
    }
}

fn narrow(x: &[Complex64]) -> Vec<Complex32> {
    x.iter()
        .map(|z| Complex32::new(z.re as f32, z.im as f32))
        .collect()
}

/// `spec` on `dev` against f64 with its operations applied on the host.
fn check(dev: &Device, spec: &NdSpec, rng: &mut StdRng) {
    let what = format!("{}: {:?} {:?}", dev.name(), spec.shape, spec.kind());
    let fft = dev.plan_nd(spec).unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut plain = spec.clone();
    plain.load = Vec::new();
    plain.store = Vec::new();
    plain.input_strides = None;
    plain.output_strides = None;
    let (got, mut want) = match spec.kind() {
        Kind::ComplexToComplex | Kind::ComplexToReal => {
            let x = random(rng, spec.input_len());
            // The array the input's strides lay out (only C2C cases use strides here).
            let dense: Vec<Complex32> = match &spec.input_strides {
                Some(st) => strided_offsets(&spec.input_shape(), st)
                    .into_iter()
                    .map(|at| x[at])
                    .collect(),
                None => x.clone(),
            };
            let mut loaded: Vec<Complex64> = dense
                .iter()
                .map(|z| Complex64::new(z.re.into(), z.im.into()))
                .collect();
            apply(&spec.load, &mut loaded);
            let want = nd_f64(&plain, &NdInput::Complex(&narrow(&loaded)));
            let got = if spec.kind() == Kind::ComplexToComplex {
                let mut data = x.clone();
                fft.process(&mut data)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                data
            } else {
                let mut out = vec![f32::NAN; spec.output_len()];
                fft.process_complex_to_real(&x, &mut out)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                out.iter().map(|&v| Complex32::new(v, 0.0)).collect()
            };
            (got, want)
        }
        Kind::RealToComplex => {
            let x: Vec<f32> = (0..spec.input_len())
                .map(|_| rng.random_range(-1.0..1.0))
                .collect();
            let mut out = poisoned(spec.output_len());
            fft.process_real_to_complex(&x, &mut out)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            // The reals weighted (windowed) in f64.
            let mut loaded: Vec<Complex64> =
                x.iter().map(|&v| Complex64::new(v.into(), 0.0)).collect();
            apply(&spec.load, &mut loaded);
            let loaded: Vec<f32> = loaded.iter().map(|z| z.re as f32).collect();
            (out, nd_f64(&plain, &NdInput::Real(&loaded)))
        }
        other => panic!("no check written for {other:?}"),
    };
    apply(&spec.store, &mut want);
    let err = relative_l2_error(&got, &want);
    assert!(err <= 1e-6, "{what}: error {err:e}");
}

fn filter(rng: &mut StdRng, len: usize) -> Arc<[Complex32]> {
    random(rng, len).into()
}

/// Real weights in [0, 1), one per element.
fn weights(rng: &mut StdRng, len: usize) -> PointOp {
    let w: Vec<f32> = (0..len).map(|_| rng.random_range(0.0..1.0)).collect();
    PointOp::Weight(RealWeights::new(&w))
}

fn specs(rng: &mut StdRng) -> Vec<NdSpec> {
    vec![
        // rfft2 times a filter (even and odd last axes), the first half of a fast convolution.
        NdSpec::new(&[24, 30])
            .real()
            .on_store(PointOp::MultiplyEach(filter(rng, 24 * 16))),
        NdSpec::new(&[12, 31])
            .real()
            .normalized()
            .on_store(PointOp::MultiplyEach(filter(rng, 12 * 16)))
            .on_store(PointOp::Conjugate),
        // irfft2 with the filter on its load instead.
        NdSpec::new(&[10, 16])
            .real()
            .inverse()
            .normalized()
            .on_load(PointOp::MultiplyEach(filter(rng, 10 * 9))),
        // A 3-D complex transform over two axes, operations at both ends, detection last.
        NdSpec::new(&[6, 5, 8])
            .axes(&[0, 2])
            .on_load(PointOp::MultiplyEach(filter(rng, 6 * 5 * 8)))
            .on_load(PointOp::Conjugate)
            .on_store(PointOp::Scale(0.5))
            .on_store(PointOp::Magnitude),
        // Strided and with operations (they index the row-major array).
        NdSpec::new(&[7, 12])
            .input_strides(&[1, 7])
            .on_store(PointOp::MultiplyEach(filter(rng, 7 * 12))),
        // One row: the C2R would start with its merge, so the extent-1 axis' identity
        // transform carries the filter.
        NdSpec::new(&[1, 16])
            .real()
            .inverse()
            .on_load(PointOp::MultiplyEach(filter(rng, 9))),
        // Windowed R2C: the reals read in pairs (weights per part, the split fused on the
        // GPU), a 2-D one, an odd real axis (widened), a real axis that is not the last
        // (columns of the widened array); and C2R weighting its reals, both ways.
        NdSpec::new(&[3, 64])
            .real()
            .on_load(weights(rng, 3 * 64))
            .on_load(PointOp::Scale(0.5)),
        NdSpec::new(&[6, 20])
            .axes(&[0, 1])
            .real()
            .on_load(weights(rng, 6 * 20))
            .on_store(PointOp::MultiplyEach(filter(rng, 6 * 11))),
        NdSpec::new(&[4, 9]).real().on_load(weights(rng, 4 * 9)),
        // Real axes of 1 and 2 points: their (identity) transforms kept to carry the weights.
        NdSpec::new(&[4, 1])
            .axes(&[0, 1])
            .real()
            .on_load(weights(rng, 4)),
        NdSpec::new(&[5, 2])
            .axes(&[0, 1])
            .real()
            .inverse()
            .on_store(weights(rng, 10)),
        NdSpec::new(&[10, 3])
            .axes(&[1, 0])
            .real()
            .normalized()
            .on_load(weights(rng, 10 * 3)),
        NdSpec::new(&[5, 32])
            .real()
            .inverse()
            .on_store(weights(rng, 5 * 32)),
        NdSpec::new(&[7, 6])
            .axes(&[1, 0])
            .real()
            .inverse()
            .normalized()
            .on_load(PointOp::MultiplyEach(filter(rng, 4 * 6)))
            .on_store(weights(rng, 7 * 6))
            .on_store(PointOp::Scale(2.0)),
        // Nothing to transform (extent 1): the operations still run.
        NdSpec::new(&[1, 3])
            .axes(&[0])
            .on_store(PointOp::Scale(3.0)),
    ]
}

#[test]
fn fused_operations_on_the_cpu() {
    let mut rng = rng();
    for spec in specs(&mut rng) {
        check(&Device::cpu(), &spec, &mut rng);
    }
}

#[test]
fn fused_operations_on_the_gpu() {
    let mut rng = rng();
    for spec in specs(&mut rng) {
        check(gpu(), &spec, &mut rng);
    }
}

/// A 2-D convolution as R2C (filter on store) then C2R: the circular convolution of an image
/// with a kernel, against a direct sum in f64.
#[test]
fn two_d_convolution_as_r2c_multiply_c2r() {
    let (rows, cols) = (16, 20);
    let mut rng = rng();
    let image: Vec<f32> = (0..rows * cols)
        .map(|_| rng.random_range(-1.0..1.0))
        .collect();
    // A 3 × 3 kernel at the origin (wrapped), its spectrum the filter.
    let mut kernel = vec![0.0f32; rows * cols];
    for (dr, dc, w) in [
        (0, 0, 0.5),
        (1, 0, 0.25),
        (0, 1, -0.25),
        (rows - 1, cols - 1, 0.125),
    ] {
        kernel[dr * cols + dc] = w;
    }
    for dev in [&Device::cpu(), gpu()] {
        let r2c = dev
            .plan_nd(&NdSpec::new(&[rows, cols]).real())
            .expect("plan");
        let mut h = vec![Complex32::new(0.0, 0.0); rows * (cols / 2 + 1)];
        r2c.process_real_to_complex(&kernel, &mut h)
            .expect("kernel spectrum");
        let filtered = NdSpec::new(&[rows, cols])
            .real()
            .on_store(PointOp::MultiplyEach(h.into()));
        let fwd = dev.plan_nd(&filtered).expect("plan");
        let back = dev
            .plan_nd(&NdSpec::new(&[rows, cols]).real().inverse().normalized())
            .expect("plan");
        let mut spectrum = vec![Complex32::new(0.0, 0.0); filtered.output_len()];
        fwd.process_real_to_complex(&image, &mut spectrum)
            .expect("r2c");
        let mut out = vec![f32::NAN; rows * cols];
        back.process_complex_to_real(&spectrum, &mut out)
            .expect("c2r");
        let mut worst = 0.0f64;
        for r in 0..rows {
            for c in 0..cols {
                let mut sum = 0.0f64;
                for kr in 0..rows {
                    for kc in 0..cols {
                        let k = kernel[kr * cols + kc] as f64;
                        if k != 0.0 {
                            let (ir, ic) = ((r + rows - kr) % rows, (c + cols - kc) % cols);
                            sum += k * image[ir * cols + ic] as f64;
                        }
                    }
                }
                worst = worst.max((out[r * cols + c] as f64 - sum).abs());
            }
        }
        assert!(worst < 1e-5, "{}: largest error {worst:e}", dev.name());
    }
}

#[test]
fn specs_that_cannot_take_operations_say_why() {
    let v = |n: usize| -> Arc<[Complex32]> { vec![Complex32::new(1.0, 0.0); n].into() };
    let msg = |s: NdSpec| match Device::cpu().plan_nd(&s) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("{s:?} planned"),
    };
    assert!(msg(NdSpec::new(&[4, 6]).real().on_load(PointOp::Conjugate)).contains("real side"));
    let per_part = PointOp::Weight(RealWeights::per_part(&[1.0; 48]));
    assert!(msg(NdSpec::new(&[4, 6]).on_load(per_part)).contains("not per part"));
    assert!(
        msg(NdSpec::new(&[4, 6])
            .real()
            .inverse()
            .on_store(PointOp::Conjugate))
        .contains("real side")
    );
    let one_d = msg(NdSpec::new(&[8]).real().on_store(PointOp::Conjugate));
    assert!(one_d.contains("step between real and complex"), "{one_d}");
    let per_point = msg(NdSpec::new(&[4, 4]).on_load(PointOp::Multiply(v(4))));
    assert!(per_point.contains("MultiplyEach"), "{per_point}");
    assert!(matches!(
        Device::cpu().plan_nd(
            &NdSpec::new(&[4, 6])
                .real()
                .on_store(PointOp::MultiplyEach(v(24)))
        ),
        Err(Error::OperandLength { expected: 16, .. })
    ));
}
