//! The two halves of a trigonometric transform ([`Reshape::TrigLoad`],
//! [`Reshape::TrigStore`]) on the host: the arithmetic of their kernels (`kernel/trig.rs`),
//! element by element, in f32 or f64.
//!
//! With `x` the `n` reals of a line, `m` the FFT's length and `w[t] = exp(−πit/(4n))`:
//!
//! | type | FFT input `v[j]`, `j < m` | output `y[k]` from the FFT `z` |
//! |---|---|---|
//! | DCT-I | `x[j]`, then `x[m−j]` (the even extension) | `Re z[k]` |
//! | DST-I | `0, x[0..n], 0, −x[n−1..=0]` (the odd extension) | `−Im z[k+1]` |
//! | DCT-II | `x[2j]`, then `x[2n−1−2j]` (Makhoul's order) | `2 Re(w[2k] z[k])` |
//! | DST-II | the same of `(−1)^j x[j]` | DCT-II's `y[n−1−k]` |
//! | DCT-III | `w*[2j] (x[j] − i x[n−j])`, `x[n] = 0` | `Re z[k/2]` for even `k`, `Re z[n−1−(k−1)/2]` odd |
//! | DST-III | the same of `x` reversed | DCT-III's times `(−1)^k` |
//! | DCT-IV | `w[2j] x[j]`, then `n` zeros | `2 Re(w[2k+1] z[k])` |
//! | DST-IV | the same | `−2 Im(w[2k+1] z[k])` |
//!
//! Types I to III may put two lines into one FFT ([`super::LinePairs`]): the second line's
//! input as the imaginary part, each line's own FFT taken apart before the output formula
//! (`own_point`).

use num_complex::Complex;
use rayon::prelude::*;

use super::{LinePairs, Reshape};
use crate::base::words::Real;
use crate::trig::Trig;

/// The factor on point `j` of `n` on input (`output` false) or output: √2 or 1/√2 on the
/// ends SciPy's `orthogonalize` scales ([`Trig::orthogonal_ends`]), times `scale`.
fn factor<T: Real>(
    transform: Trig,
    n: usize,
    j: usize,
    output: bool,
    orthogonalize: bool,
    scale: f64,
) -> T {
    let end = orthogonalize && transform.orthogonal_ends(output).contains(j, n);
    let sqrt2 = std::f64::consts::SQRT_2;
    T::round(match (end, output) {
        (false, _) => scale,
        (true, false) => scale * sqrt2,
        (true, true) => scale / sqrt2,
    })
}

/// Elements a rayon task writes at least: enough to outweigh the task's cost.
const MIN_TASK: usize = 1 << 12;

/// `f(line, i, row)` for each row of `rows`, an array of `[lines][len][row_len]`, `line`
/// and `i` being the row's place: on rayon's pool, in tasks of whole rows of at least
/// [`MIN_TASK`] elements, each task's first row placed by one division and the others by
/// counting (a division per element costs more than a short row's work).
fn for_rows<E: Send>(
    rows: &mut [E],
    len: usize,
    row_len: usize,
    f: impl Fn(usize, usize, &mut [E]) + Sync,
) {
    let row_len = row_len.max(1);
    let per_task = (MIN_TASK / row_len).max(1);
    rows.par_chunks_mut(per_task * row_len)
        .enumerate()
        .for_each(|(task, chunk)| {
            let first = task * per_task;
            let (mut line, mut i) = (first / len, first % len);
            for row in chunk.chunks_mut(row_len) {
                f(line, i, row);
                i += 1;
                if i == len {
                    (line, i) = (line + 1, 0);
                }
            }
        });
}

/// Runs a [`Reshape::TrigLoad`] or [`Reshape::TrigStore`] step from `src` into `dst`
/// (reals and complex values as the step reads and writes them), on rayon's pool: tasks of
/// whole output rows, each row's lines side by side, so that reads and writes go along
/// contiguous rows ([`for_rows`]).
/// `w` is the step's [`super::rounded_twiddles`], made once by the caller.
pub(crate) fn trig<T: Real>(step: &Reshape, w: &[Complex<T>], src: &[T], dst: &mut [T]) {
    let transform = match *step {
        Reshape::TrigLoad { transform, .. } | Reshape::TrigStore { transform, .. } => transform,
        _ => unreachable!("trig() runs the trigonometric transforms' halves only"),
    };
    // Each type its own instance of the passes ([`Trig::ALL`]'s index as a constant), so
    // that the per-element matches on the type fold away.
    match Trig::ALL.iter().position(|&t| t == transform) {
        Some(0) => pass::<T, 0>(step, w, src, dst),
        Some(1) => pass::<T, 1>(step, w, src, dst),
        Some(2) => pass::<T, 2>(step, w, src, dst),
        Some(3) => pass::<T, 3>(step, w, src, dst),
        Some(4) => pass::<T, 4>(step, w, src, dst),
        Some(5) => pass::<T, 5>(step, w, src, dst),
        Some(6) => pass::<T, 6>(step, w, src, dst),
        _ => pass::<T, 7>(step, w, src, dst),
    }
}

/// [`trig`] for the type `Trig::ALL[TYPE]`.
fn pass<T: Real, const TYPE: usize>(step: &Reshape, w: &[Complex<T>], src: &[T], dst: &mut [T]) {
    let transform = Trig::ALL[TYPE];
    match *step {
        Reshape::TrigLoad {
            outer,
            n,
            inner,
            orthogonalize,
            pairs,
            ..
        } => {
            let m = transform.fft_len(n);
            let (fft_outer, fft_inner) = pairs.fft_dims(outer, inner);
            let dst: &mut [Complex<T>] = bytemuck::cast_slice_mut(dst);
            let factors: Vec<T> = (0..n)
                .map(|j| factor::<T>(transform, n, j, false, orthogonalize, 1.0))
                .collect();
            let dst = &mut dst[..fft_outer * m * fft_inner];
            if inner == 1 {
                // Lines along the rows (the last axis): a task per run of whole lines, each
                // FFT's input from its one or two lines' contiguous reals.
                let line = |o: usize| &src[o * n..(o + 1) * n];
                dst.par_chunks_mut(m)
                    .with_min_len((MIN_TASK / m).max(1))
                    .enumerate()
                    .for_each(|(q, out)| {
                        let a = line(pairs.line(q, 0, 0).0);
                        let xa = |s: usize| a[s] * factors[s];
                        for (j, v) in out.iter_mut().enumerate() {
                            *v = load(transform, n, j, &xa, w);
                        }
                        if pairs.paired() {
                            let b = line(pairs.line(q, 0, 1).0);
                            let xb = |s: usize| b[s] * factors[s];
                            for (j, v) in out.iter_mut().enumerate() {
                                *v = with_second(*v, load(transform, n, j, &xb, w));
                            }
                        }
                    });
                return;
            }
            // Point j of line (o, c)'s FFT input.
            let point = |o: usize, c: usize, j: usize| {
                let x = |s: usize| src[(o * n + s) * inner + c] * factors[s];
                load(transform, n, j, &x, w)
            };
            for_rows(dst, m, fft_inner, |q, j, out| {
                for (d, v) in out.iter_mut().enumerate() {
                    let (o, c) = pairs.line(q, d, 0);
                    *v = point(o, c, j);
                    if pairs.paired() {
                        let (o, c) = pairs.line(q, d, 1);
                        *v = with_second(*v, point(o, c, j));
                    }
                }
            });
        }
        Reshape::TrigStore {
            outer,
            n,
            inner,
            orthogonalize,
            pairs,
            scale,
            ..
        } => {
            let m = transform.fft_len(n);
            let (_, fft_inner) = pairs.fft_dims(outer, inner);
            let src: &[Complex<T>] = bytemuck::cast_slice(src);
            let factors: Vec<T> = (0..n)
                .map(|k| factor::<T>(transform, n, k, true, orthogonalize, scale))
                .collect();
            let dst = &mut dst[..outer * n * inner];
            if inner == 1 {
                // Lines along the rows: a task per run of whole lines, each read from its
                // FFT's contiguous points.
                dst.par_chunks_mut(n)
                    .with_min_len((MIN_TASK / n).max(1))
                    .enumerate()
                    .for_each(|(o, out)| {
                        let (q, _, half) = pairs.fft_of(o, 0);
                        let fft = &src[q * m..(q + 1) * m];
                        let own = |p: usize| own_point(transform, pairs, m, p, half, &|p| fft[p]);
                        for (k, y) in out.iter_mut().enumerate() {
                            *y = store(transform, n, k, &own, w) * factors[k];
                        }
                    });
                return;
            }
            for_rows(dst, n, inner, |o, k, out| {
                for (c, y) in out.iter_mut().enumerate() {
                    let (q, d, half) = pairs.fft_of(o, c);
                    let z = |p: usize| src[(q * m + p) * fft_inner + d];
                    let own = |p: usize| own_point(transform, pairs, m, p, half, &z);
                    *y = store(transform, n, k, &own, w) * factors[k];
                }
            });
        }
        _ => unreachable!("trig() runs the trigonometric transforms' halves only"),
    }
}

/// `v + i·b`: line `b`'s FFT input as the imaginary part of its pair's.
#[inline(always)]
fn with_second<T: Real>(v: Complex<T>, b: Complex<T>) -> Complex<T> {
    Complex::new(v.re - b.im, v.im + b.re)
}

/// Point `p` of the FFT of the line that is part `half` (0: real, 1: imaginary) of the
/// FFT `z` of `m` points it shares under `pairs` (`z`'s own point where lines are not
/// paired). Type II's lines have Hermitian FFTs, split apart as `(Z[p] + Z*[m−p])/2` and
/// `(Z[p] − Z*[m−p])/(2i)`; DCT-I's and type III's are real (the real and imaginary parts
/// of `Z`); DST-I's are imaginary (`Z = i·S_a − S_b`).
#[inline(always)]
fn own_point<T: Real>(
    transform: Trig,
    pairs: LinePairs,
    m: usize,
    p: usize,
    half: usize,
    z: &impl Fn(usize) -> Complex<T>,
) -> Complex<T> {
    let zero = T::zero();
    let v = z(p);
    if !pairs.paired() {
        return v;
    }
    match transform.kind() {
        2 => {
            let b = z((m - p) % m).conj();
            let h = T::round(0.5);
            if half == 0 {
                (v + b) * h
            } else {
                // (v − b)/(2i) = −i(v − b)/2
                let d = v - b;
                Complex::new(d.im * h, -d.re * h)
            }
        }
        _ if transform == Trig::DstI => match half {
            0 => Complex::new(zero, v.im),
            _ => Complex::new(zero, -v.re),
        },
        _ => match half {
            0 => Complex::new(v.re, zero),
            _ => Complex::new(v.im, zero),
        },
    }
}

/// Point `j` of the FFT's input from the line's reals `x`.
#[inline(always)]
fn load<T: Real>(
    transform: Trig,
    n: usize,
    j: usize,
    x: &impl Fn(usize) -> T,
    w: &[Complex<T>],
) -> Complex<T> {
    let real = |v: T| Complex::new(v, T::zero());
    let m = transform.fft_len(n);
    match transform {
        Trig::DctI => real(x(if j < n { j } else { m - j })),
        Trig::DstI => match j {
            0 => real(T::zero()),
            j if j <= n => real(x(j - 1)),
            j if j == n + 1 => real(T::zero()),
            j => real(-x(m - j - 1)),
        },
        Trig::DctII | Trig::DstII => {
            let s = if 2 * j < n { 2 * j } else { 2 * n - 1 - 2 * j };
            let v = x(s);
            real(if transform.is_sine() && s % 2 == 1 {
                -v
            } else {
                v
            })
        }
        Trig::DctIII | Trig::DstIII => {
            let (a, b) = match (transform, j) {
                (Trig::DctIII, 0) => (x(0), T::zero()),
                (Trig::DctIII, j) => (x(j), x(n - j)),
                (_, 0) => (x(n - 1), T::zero()),
                (_, j) => (x(n - 1 - j), x(j - 1)),
            };
            w[2 * j].conj() * Complex::new(a, -b)
        }
        Trig::DctIV | Trig::DstIV if j < n => w[2 * j] * x(j),
        Trig::DctIV | Trig::DstIV => real(T::zero()),
    }
}

/// Output `k` of the line from its FFT `z`.
#[inline(always)]
fn store<T: Real>(
    transform: Trig,
    n: usize,
    k: usize,
    z: &impl Fn(usize) -> Complex<T>,
    w: &[Complex<T>],
) -> T {
    let two = T::round(2.0);
    match transform {
        Trig::DctI => z(k).re,
        Trig::DstI => -z(k + 1).im,
        Trig::DctII | Trig::DstII => {
            let p = if transform.is_sine() { n - 1 - k } else { k };
            two * (w[2 * p] * z(p)).re
        }
        Trig::DctIII | Trig::DstIII => {
            let p = if k.is_multiple_of(2) {
                k / 2
            } else {
                n - 1 - (k - 1) / 2
            };
            let v = z(p).re;
            if transform.is_sine() && k % 2 == 1 {
                -v
            } else {
                v
            }
        }
        Trig::DctIV => two * (w[2 * k + 1] * z(k)).re,
        Trig::DstIV => -two * (w[2 * k + 1] * z(k)).im,
    }
}
