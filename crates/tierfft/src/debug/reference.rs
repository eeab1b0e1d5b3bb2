//! The f64 reference every kernel is checked against (double-double for f64 kernels), and
//! the error measure. These are test oracles, written for clarity over speed: each takes
//! input of exactly the length its spec describes and panics (an index out of bounds)
//! otherwise. Check lengths with the spec's own `len()` or `input_len()` before handing
//! them data from elsewhere.

use crate::base::dd;

use num_complex::{Complex32, Complex64};
use rustfft::FftPlanner;

use crate::base::layout::transpose;
use crate::nd::NdSpec;
use crate::nd::plan::around;
use crate::spec::{Direction, FftSpec, PointOp};
use crate::trig::Trig;

/// Batched DFT of `input` (contiguous transforms of `n` points) in f64 with rustfft,
/// unnormalised, in the given direction.
pub fn fft_f64(input: &[Complex32], n: usize, direction: Direction) -> Vec<Complex64> {
    let mut data = widen(input);
    rustfft64()(&mut data, n, direction.sign());
    data
}

/// Everything `spec` computes (in either layout) (load operations, transform, chained multiply and inverse,
/// 1/n, store operations) on `input` (whole transforms), step by step in f64: the unfused
/// reference fused kernels are checked against.
pub fn spec_f64(spec: &FftSpec, input: &[Complex32]) -> Vec<Complex64> {
    spec_with(spec, widen(input), &mut rustfft64())
}

/// `fft(lines, n, sign)`: batched transforms of contiguous lines of `n` points with rustfft
/// in f64 (sign −1 forward), the f64 reference's.
fn rustfft64() -> impl FnMut(&mut [Complex64], usize, f64) {
    let mut planner = FftPlanner::<f64>::new();
    move |lines, n, sign| {
        let fft = match sign < 0.0 {
            true => planner.plan_fft_forward(n),
            false => planner.plan_fft_inverse(n),
        };
        fft.process(lines);
    }
}

/// What [`spec_f64`] computes, on f64 `input`, with every transform in double-double
/// arithmetic (about 32 digits; [`dd`]) and rounded to f64 once: the reference f64 transforms
/// are checked against. Point operations and the chain's multiply are in f64.
pub fn spec_dd(spec: &FftSpec, input: &[Complex64]) -> Vec<Complex64> {
    spec_with(spec, input.to_vec(), &mut |data, n, sign| {
        let out = dd::fft_dd(data, n, sign);
        data.copy_from_slice(&out);
    })
}

/// [`spec_f64`]'s steps on `data`, with `fft(data, n, sign)` the batched transforms.
fn spec_with(
    spec: &FftSpec,
    mut data: Vec<Complex64>,
    fft: &mut dyn FnMut(&mut [Complex64], usize, f64),
) -> Vec<Complex64> {
    if spec.layout.is_columns() {
        let (m, w) = (spec.matrices(), spec.point_stride());
        let rows = spec_with(&spec.as_rows(), transpose(&data, m, spec.n, w), fft);
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
    apply(&spec.load, &mut data);
    let sign = spec.direction.sign();
    fft(&mut data, n, sign);
    if let Some(h) = &spec.chain {
        // One value per point, or per element.
        for (i, z) in data.iter_mut().enumerate() {
            *z *= h.get(i % h.len());
        }
        fft(&mut data, n, -sign);
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
    relative_l2_error64(&widen(got), want)
}

/// [`relative_l2_error`] of f64 values.
pub fn relative_l2_error64(got: &[Complex64], want: &[Complex64]) -> f64 {
    assert_eq!(got.len(), want.len(), "relative_l2_error: lengths differ");
    let mut err = 0.0;
    let mut norm = 0.0;
    for (g, w) in got.iter().zip(want) {
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

/// NumPy's `fftn` (forward) or unnormalised `ifftn` (inverse) over `axes` of `data`, a
/// row-major array of `shape`, in f64, in place.
pub fn fftn_f64(data: &mut [Complex64], shape: &[usize], axes: &[usize], direction: Direction) {
    fftn_with(data, shape, axes, direction.sign(), &mut rustfft64());
}

/// [`fftn_f64`] with `fft(lines, n, sign)` transforming contiguous lines of `n` points.
fn fftn_with(
    data: &mut [Complex64],
    shape: &[usize],
    axes: &[usize],
    sign: f64,
    fft: &mut dyn FnMut(&mut [Complex64], usize, f64),
) {
    for &axis in axes {
        let (outer, n, inner) = around(shape, axis);
        // The axis' lines gathered contiguous, transformed together, put back.
        let at = |line: usize, k: usize| (line / inner * n + k) * inner + line % inner;
        let mut lines: Vec<Complex64> = (0..outer * inner)
            .flat_map(|l| (0..n).map(move |k| (l, k)))
            .map(|(l, k)| data[at(l, k)])
            .collect();
        fft(&mut lines, n, sign);
        for (i, z) in lines.into_iter().enumerate() {
            data[at(i / n, i % n)] = z;
        }
    }
}

/// What `spec` computes on `input` in f64: for C2C and R2C the complex output (`input`'s
/// reals widened for R2C: `rfftn` is `fftn` with the last transformed axis cut to
/// `n/2 + 1`); for C2R the real output as complex values with zero imaginary parts (the
/// Hermitian extension along the real axis, whose imaginary parts of bins 0 and n/2 drop
/// out of the real part, as NumPy's `irfftn` ignores them).
pub fn nd_f64(spec: &NdSpec, input: &NdInput) -> Vec<Complex64> {
    nd_with(spec, input, &mut rustfft64())
}

/// [`nd_f64`] with every transform in double-double arithmetic, rounded to f64 once: the
/// reference f64 N-D and real transforms are checked against.
pub fn nd_dd(spec: &NdSpec, input: &NdInput) -> Vec<Complex64> {
    nd_with(spec, input, &mut |lines, n, sign| {
        let out = dd::fft_dd(lines, n, sign);
        lines.copy_from_slice(&out);
    })
}

/// [`nd_f64`]'s steps with `fft(lines, n, sign)` the batched line transforms.
fn nd_with(
    spec: &NdSpec,
    input: &NdInput,
    fft: &mut dyn FnMut(&mut [Complex64], usize, f64),
) -> Vec<Complex64> {
    let sign = spec.direction.sign();
    let axes = &spec.axes;
    let mut out = match (spec.real_axis(), input.complex()) {
        // A complex transform of real input: the reals with zero imaginary parts.
        (None, data) => {
            let mut data = data.unwrap_or_else(|| input.reals_widened());
            fftn_with(&mut data, &spec.shape, axes, sign, fft);
            data
        }
        (Some(a), None) => {
            let mut data = input.reals_widened();
            fftn_with(&mut data, &spec.shape, axes, sign, fft);
            let (outer, n, inner) = around(&spec.shape, a);
            let h = n / 2 + 1;
            (0..outer)
                .flat_map(|o| data[o * n * inner..][..h * inner].to_vec())
                .collect()
        }
        (Some(a), Some(mut half)) => {
            let (outer, n, inner) = around(&spec.shape, a);
            let h = n / 2 + 1;
            let others: Vec<usize> = axes.iter().copied().filter(|&b| b != a).collect();
            fftn_with(&mut half, &spec.complex_shape(), &others, sign, fft);
            let mut full = Vec::with_capacity(outer * n * inner);
            for o in 0..outer {
                for k in 0..n {
                    for c in 0..inner {
                        let from = |k: usize| half[(o * h + k) * inner + c];
                        full.push(if k < h { from(k) } else { from(n - k).conj() });
                    }
                }
            }
            fftn_with(&mut full, &spec.shape, &[a], sign, fft);
            full.iter().map(|z| Complex64::new(z.re, 0.0)).collect()
        }
    };
    if spec.normalize {
        let scale: f64 = axes.iter().map(|&a| spec.shape[a] as f64).product();
        out.iter_mut().for_each(|z| *z /= scale);
    }
    out
}

/// What a DCT or DST spec ([`NdSpec::trig`]) computes on the reals `input`, in f64, from the
/// definitions (a sum of `n` terms per output: no FFT), each axis in turn.
pub fn trig_f64(spec: &NdSpec, input: &[f64]) -> Vec<f64> {
    use std::f64::consts::{PI, SQRT_2};
    let Some(r2r) = spec.trig else {
        return input.to_vec();
    };
    let t = match spec.direction {
        Direction::Forward => r2r.transform,
        Direction::Inverse => r2r.transform.inverse(),
    };
    let mut data = input.to_vec();
    for (i, &axis) in spec.axes.iter().enumerate() {
        let (outer, n, inner) = around(&spec.shape, axis);
        let mut scale = if spec.normalize {
            1.0 / t.logical_len(n) as f64
        } else {
            1.0
        };
        if i + 1 == spec.axes.len() {
            scale *= r2r.scale;
        }
        let ortho = r2r.orthogonalize;
        for o in 0..outer {
            for c in 0..inner {
                let at = |j: usize| (o * n + j) * inner + c;
                let mut x: Vec<f64> = (0..n).map(|j| data[at(j)]).collect();
                if ortho {
                    match t {
                        Trig::DctI => {
                            x[0] *= SQRT_2;
                            x[n - 1] *= SQRT_2;
                        }
                        Trig::DctIII => x[0] *= SQRT_2,
                        Trig::DstIII => x[n - 1] *= SQRT_2,
                        _ => {}
                    }
                }
                for k in 0..n {
                    // cos and sin of πp/q with p reduced exactly, so that the
                    // reference is accurate to rounding at any length.
                    let angle = |p: usize, q: usize| PI * (p % (2 * q)) as f64 / q as f64;
                    let sign = |v: f64| if k % 2 == 0 { v } else { -v };
                    let term = |j: usize| {
                        let v = x[j];
                        2.0 * v
                            * match t {
                                Trig::DctI if j == 0 => 0.5,
                                Trig::DctI if j == n - 1 => sign(0.5),
                                Trig::DctI => angle(j * k, n - 1).cos(),
                                Trig::DctII => angle(k * (2 * j + 1), 2 * n).cos(),
                                Trig::DctIII if j == 0 => 0.5,
                                Trig::DctIII => angle(j * (2 * k + 1), 2 * n).cos(),
                                Trig::DctIV => angle((2 * j + 1) * (2 * k + 1), 4 * n).cos(),
                                Trig::DstI => angle((j + 1) * (k + 1), n + 1).sin(),
                                Trig::DstII => angle((k + 1) * (2 * j + 1), 2 * n).sin(),
                                Trig::DstIII if j == n - 1 => sign(0.5),
                                Trig::DstIII => angle((j + 1) * (2 * k + 1), 2 * n).sin(),
                                Trig::DstIV => angle((2 * j + 1) * (2 * k + 1), 4 * n).sin(),
                            }
                    };
                    let mut y: f64 = (0..n).map(term).sum();
                    let edge = match t {
                        Trig::DctI => k == 0 || k == n - 1,
                        Trig::DctII => k == 0,
                        Trig::DstII => k == n - 1,
                        _ => false,
                    };
                    if ortho && edge {
                        y /= SQRT_2;
                    }
                    data[at(k)] = y * scale;
                }
            }
        }
    }
    data
}

/// The input of [`nd_f64`] and [`nd_dd`].
#[non_exhaustive]
pub enum NdInput<'a> {
    /// Reals, for R2C.
    Real(&'a [f32]),
    /// Complex values, for C2C and C2R.
    Complex(&'a [Complex32]),
    /// f64 reals, for R2C.
    Real64(&'a [f64]),
    /// f64 complex values, for C2C and C2R.
    Complex64(&'a [Complex64]),
}

impl NdInput<'_> {
    /// The complex values in f64 (`None` for reals).
    fn complex(&self) -> Option<Vec<Complex64>> {
        match self {
            NdInput::Complex(x) => Some(widen(x)),
            NdInput::Complex64(x) => Some(x.to_vec()),
            NdInput::Real(_) | NdInput::Real64(_) => None,
        }
    }

    /// The reals as complex values with zero imaginary parts (none for complex input).
    fn reals_widened(&self) -> Vec<Complex64> {
        match self {
            NdInput::Real(x) => x.iter().map(|&v| Complex64::new(v.into(), 0.0)).collect(),
            NdInput::Real64(x) => x.iter().map(|&v| Complex64::new(v, 0.0)).collect(),
            NdInput::Complex(_) | NdInput::Complex64(_) => Vec::new(),
        }
    }
}

/// Random complex values in [-1, 1) from a fast generator (xorshift) seeded with `seed`:
/// test and benchmark inputs of up to 2^30 elements, where `rand`'s generators take minutes.
pub fn random(len: usize, seed: u64) -> Vec<Complex32> {
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    };
    (0..len).map(|_| Complex32::new(next(), next())).collect()
}
