//! [`Reshape`] steps on the CPU backend: the same arithmetic as the kernels
//! (`kernel/real.rs`), in f32 or f64, on host memory.

use num_complex::Complex;

use super::Reshape;
use crate::base::words::{Real, values, with_values_mut};

/// Runs `step` from `src` into `dst`, both 4-byte words holding values of type `T` (complex
/// data as interleaved pairs); `w` is the step's [`rounded_twiddles`], made once by the
/// caller.
pub(crate) fn reshape<T: Real>(step: &Reshape, w: &[Complex<T>], src: &[f32], dst: &mut [f32]) {
    let src = values::<T>(src);
    with_values_mut::<T>(dst, |dst| reshape_values(step, w, &src, dst));
}

/// [`reshape`] on values of `T`.
fn reshape_values<T: Real>(step: &Reshape, w: &[Complex<T>], src: &[T], dst: &mut [T]) {
    match *step {
        Reshape::Gather {
            ref shape,
            ref strides,
            real,
        }
        | Reshape::Scatter {
            ref shape,
            ref strides,
            real,
        } => {
            let gather = matches!(step, Reshape::Gather { .. });
            let per = if real { 1 } else { 2 };
            for (i, at) in strided_offsets(shape, strides).enumerate() {
                let (from, to) = if gather { (at, i) } else { (i, at) };
                dst[to * per..][..per].copy_from_slice(&src[from * per..][..per]);
            }
        }
        Reshape::Widen { len } => {
            let dst: &mut [Complex<T>] = bytemuck::cast_slice_mut(dst);
            for (d, &s) in dst[..len].iter_mut().zip(src) {
                *d = Complex::new(s, T::zero());
            }
        }
        Reshape::RealPart { len, scale } => {
            let src: &[Complex<T>] = bytemuck::cast_slice(src);
            let scale = T::round(scale);
            for (d, s) in dst[..len].iter_mut().zip(src) {
                *d = s.re * scale;
            }
        }
        Reshape::TrigLoad { .. } | Reshape::TrigStore { .. } => {
            super::trig_host::trig::<T>(step, w, src, dst);
        }
        _ => complex_reshape::<T>(
            step,
            w,
            bytemuck::cast_slice(src),
            bytemuck::cast_slice_mut(dst),
        ),
    }
}

/// The strided offset `Σ i_k · strides[k]` of every element of `shape`, in row-major order.
fn strided_offsets<'a>(
    shape: &'a [usize],
    strides: &'a [usize],
) -> impl Iterator<Item = usize> + 'a {
    let len: usize = shape.iter().product();
    (0..len).map(move |i| {
        let mut rest = i;
        let mut at = 0;
        for (&n, &stride) in shape.iter().zip(strides).rev() {
            at += (rest % n) * stride;
            rest /= n;
        }
        at
    })
}

/// The twiddles `step` reads ([`Reshape::twiddles`]), rounded once to `T`; none for the
/// steps without them. Computed with exactly reduced angles: made once per plan, not per
/// run.
pub(crate) fn rounded_twiddles<T: Real>(step: &Reshape) -> Vec<Complex<T>> {
    let table = step.twiddles().unwrap_or_default();
    table
        .iter()
        .map(|z| Complex::new(T::round(z.re), T::round(z.im)))
        .collect()
}

fn complex_reshape<T: Real>(
    step: &Reshape,
    w: &[Complex<T>],
    src: &[Complex<T>],
    dst: &mut [Complex<T>],
) {
    let i = Complex::new(T::zero(), T::one());
    let half = T::round(0.5);
    match *step {
        Reshape::Split { n, rows, scale } => {
            let (m, h) = (n / 2, n / 2 + 1);
            let half_scale = half * T::round(scale);
            for r in 0..rows {
                for k in 0..h {
                    let a = src[r * m + k % m];
                    let b = src[r * m + (m - k) % m].conj();
                    let (e, o) = ((a + b) * half_scale, (a - b) * half_scale);
                    dst[r * h + k] = e - i * w[k] * o;
                }
            }
        }
        Reshape::Merge { n, rows, scale } => {
            let (m, h) = (n / 2, n / 2 + 1);
            let scale = T::round(scale);
            for r in 0..rows {
                for k in 0..m {
                    let (mut a, mut b) = (src[r * h + k], src[r * h + m - k].conj());
                    if k == 0 {
                        (a.im, b.im) = (T::zero(), T::zero());
                    }
                    dst[r * m + k] = ((a + b) + i * w[k].conj() * (a - b)) * scale;
                }
            }
        }
        Reshape::Truncate { outer, n, inner } => {
            let h = n / 2 + 1;
            for (o, out) in dst.chunks_mut(h * inner).take(outer).enumerate() {
                out.copy_from_slice(&src[o * n * inner..][..h * inner]);
            }
        }
        Reshape::Extend { outer, n, inner } => {
            let h = n / 2 + 1;
            for o in 0..outer {
                for k in 0..n {
                    for c in 0..inner {
                        let from = |k: usize| src[(o * h + k) * inner + c];
                        dst[(o * n + k) * inner + c] =
                            if k < h { from(k) } else { from(n - k).conj() };
                    }
                }
            }
        }
        Reshape::Widen { .. }
        | Reshape::RealPart { .. }
        | Reshape::Gather { .. }
        | Reshape::Scatter { .. }
        | Reshape::TrigLoad { .. }
        | Reshape::TrigStore { .. } => {
            unreachable!("handled by reshape()")
        }
    }
}
