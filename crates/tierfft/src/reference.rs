//! The f64 reference every kernel is checked against, and the error measure.

use num_complex::{Complex32, Complex64};
use rustfft::FftPlanner;

use crate::spec::{Direction, FftSpec, PointOp, transpose};

/// Batched DFT of `input` (contiguous transforms of `n` points) in f64 with rustfft,
/// unnormalised, in the given direction.
pub fn fft_f64(input: &[Complex32], n: usize, direction: Direction) -> Vec<Complex64> {
    let mut data = widen(input);
    let mut planner = FftPlanner::<f64>::new();
    let fft = match direction {
        Direction::Forward => planner.plan_fft_forward(n),
        Direction::Inverse => planner.plan_fft_inverse(n),
    };
    fft.process(&mut data);
    data
}

/// Everything `spec` computes (in either layout) (load operations, transform, chained multiply and inverse,
/// 1/n, store operations) on `input` (whole transforms), step by step in f64: the unfused
/// reference fused kernels are checked against.
pub fn spec_f64(spec: &FftSpec, input: &[Complex32]) -> Vec<Complex64> {
    if spec.layout.is_columns() {
        let (m, w) = (spec.matrices(), spec.point_stride());
        let rows = spec_f64(&spec.as_rows(), &transpose(input, m, spec.n, w));
        return transpose(&rows, m, w, spec.n);
    }
    let n = spec.n;
    let apply = |ops: &[PointOp], data: &mut [Complex64]| {
        if !ops.is_empty() {
            for (i, z) in data.iter_mut().enumerate() {
                *z = ops.iter().fold(*z, |v, op| op.apply(i % n, i, v));
            }
        }
    };
    let mut data = widen(input);
    apply(&spec.load, &mut data);
    let mut planner = FftPlanner::<f64>::new();
    let (fwd, back) = match spec.direction {
        Direction::Forward => (planner.plan_fft_forward(n), planner.plan_fft_inverse(n)),
        Direction::Inverse => (planner.plan_fft_inverse(n), planner.plan_fft_forward(n)),
    };
    fwd.process(&mut data);
    if let Some(h) = &spec.chain {
        for (i, z) in data.iter_mut().enumerate() {
            *z *= Complex64::new(h[i % n].re.into(), h[i % n].im.into());
        }
        back.process(&mut data);
    }
    if spec.normalize {
        data.iter_mut().for_each(|z| *z /= n as f64);
    }
    apply(&spec.store, &mut data);
    data
}

/// Relative L2 error `‖got − want‖ / ‖want‖` (NaN or infinite if `got` holds any NaN or
/// infinity, so that unwritten poisoned outputs never pass).
pub fn relative_l2_error(got: &[Complex32], want: &[Complex64]) -> f64 {
    assert_eq!(got.len(), want.len(), "relative_l2_error: lengths differ");
    let mut err = 0.0;
    let mut norm = 0.0;
    for (g, w) in got.iter().zip(want) {
        let g = Complex64::new(g.re.into(), g.im.into());
        err += (g - w).norm_sqr();
        norm += w.norm_sqr();
    }
    if got.iter().any(|z| !z.re.is_finite() || !z.im.is_finite()) {
        return f64::NAN;
    }
    (err / norm).sqrt()
}

/// `x` in f64, for comparing two f32 results with [`relative_l2_error`].
pub fn widen(x: &[Complex32]) -> Vec<Complex64> {
    x.iter()
        .map(|z| Complex64::new(z.re.into(), z.im.into()))
        .collect()
}
