//! A double-double reference for f64 transforms: about 32 significant digits, so that the
//! error measured against it is the transform's own, not the reference's (an f64 FFT is off
//! by about as much as the transforms it would check).
//!
//! Mixed-radix decimation in time on double-double complex values, with the twiddles summed
//! from their Taylor series after an exact reduction to the first octant. Slow (tens of
//! f64 operations per double-double one), and O(n·p) per level for a prime factor `p`, so
//! meant for tests: lengths to a few million, primes to a few thousand.

use num_complex::Complex64;

/// A double-double real: `hi + lo` with `|lo| <= ulp(hi) / 2`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Dd {
    hi: f64,
    lo: f64,
}

impl Dd {
    fn new(x: f64) -> Dd {
        Dd { hi: x, lo: 0.0 }
    }

    /// `a + b` exactly as a double-double, given `|a| >= |b|`.
    fn quick(a: f64, b: f64) -> Dd {
        let s = a + b;
        Dd {
            hi: s,
            lo: b - (s - a),
        }
    }

    fn add(self, o: Dd) -> Dd {
        let s = self.hi + o.hi;
        let v = s - self.hi;
        let e = (self.hi - (s - v)) + (o.hi - v);
        Dd::quick(s, e + self.lo + o.lo)
    }

    fn neg(self) -> Dd {
        Dd {
            hi: -self.hi,
            lo: -self.lo,
        }
    }

    fn sub(self, o: Dd) -> Dd {
        self.add(o.neg())
    }

    fn mul(self, o: Dd) -> Dd {
        let p = self.hi * o.hi;
        let e = self.hi.mul_add(o.hi, -p) + (self.hi * o.lo + self.lo * o.hi);
        Dd::quick(p, e)
    }

    /// `self / d` for an f64 `d`.
    fn div(self, d: f64) -> Dd {
        let q = self.hi / d;
        let p = q * d;
        let pe = q.mul_add(d, -p);
        let r = ((self.hi - p) - pe + self.lo) / d;
        Dd::quick(q, r)
    }
}

/// A double-double complex value.
#[derive(Clone, Copy, Debug, Default)]
struct Cdd {
    re: Dd,
    im: Dd,
}

impl Cdd {
    fn add(self, o: Cdd) -> Cdd {
        Cdd {
            re: self.re.add(o.re),
            im: self.im.add(o.im),
        }
    }

    fn mul(self, o: Cdd) -> Cdd {
        Cdd {
            re: self.re.mul(o.re).sub(self.im.mul(o.im)),
            im: self.re.mul(o.im).add(self.im.mul(o.re)),
        }
    }
}

/// π/4 as a double-double.
const FRAC_PI_4: Dd = Dd {
    hi: std::f64::consts::FRAC_PI_4,
    lo: 3.061_616_997_868_383e-17,
};

/// `(cos a, sin a)` for `0 <= a <= π/4` from their Taylor series.
fn sin_cos(a: Dd) -> (Dd, Dd) {
    // 1/j! for j < 30: terms up to a^29/29! (< 1e-36 at π/4), summed from the smallest.
    let mut inverse_fact = [Dd::new(1.0); 30];
    for j in 1..30 {
        inverse_fact[j] = inverse_fact[j - 1].div(j as f64);
    }
    let a2 = a.mul(a);
    let (mut s, mut c) = (Dd::default(), Dd::default());
    for k in (0..15).rev() {
        let term = |j: usize| match k % 2 {
            0 => inverse_fact[j],
            _ => inverse_fact[j].neg(),
        };
        s = s.mul(a2).add(term(2 * k + 1));
        c = c.mul(a2).add(term(2 * k));
    }
    (c, s.mul(a))
}

/// `exp(sign · 2πi · k / n)` as a double-double: the octant reduced exactly as in
/// [`crate::base::twiddle::twiddle64`].
fn twiddle(k: usize, n: usize, sign: f64) -> Cdd {
    let (n8, eight_k) = (n as u128, 8 * (k % n) as u128);
    let (o, r) = (eight_k / n8, eight_k % n8);
    let rem = if o % 2 == 0 { r } else { n8 - r };
    // rem / n as a double-double (both exact in f64 below 2^53).
    let frac = Dd::new(rem as f64).div(n as f64);
    let (c, s) = sin_cos(FRAC_PI_4.mul(frac));
    let (x, y) = match o {
        0 => (c, s),
        1 => (s, c),
        2 => (s.neg(), c),
        3 => (c.neg(), s),
        4 => (c.neg(), s.neg()),
        5 => (s.neg(), c.neg()),
        6 => (s, c.neg()),
        _ => (c, s.neg()),
    };
    Cdd {
        re: x,
        im: if sign < 0.0 { y.neg() } else { y },
    }
}

/// [`twiddle`] rounded to f64 (its high parts: within half an ulp), a reference for the
/// weights kernels are built with.
#[cfg(test)]
pub(crate) fn twiddle_rounded(k: usize, n: usize, sign: f64) -> Complex64 {
    let w = twiddle(k, n, sign);
    Complex64::new(w.re.hi, w.im.hi)
}

/// The DFT of `x` (length `n`), its twiddles `W_n^e = table[e · stride]` of a table for
/// `n · stride` points.
fn dft(x: &[Cdd], table: &[Cdd], stride: usize) -> Vec<Cdd> {
    let n = x.len();
    if n <= 1 {
        return x.to_vec();
    }
    let p = (2..n).find(|p| n.is_multiple_of(*p)).unwrap_or(n);
    let m = n / p;
    // p interleaved sub-sequences of m points, each transformed.
    let subs: Vec<Vec<Cdd>> = (0..p)
        .map(|r| {
            let sub: Vec<Cdd> = x.iter().skip(r).step_by(p).copied().collect();
            dft(&sub, table, stride * p)
        })
        .collect();
    let mut out = vec![Cdd::default(); n];
    for (k, slot) in out.iter_mut().enumerate() {
        let mut acc = Cdd::default();
        for (r, sub) in subs.iter().enumerate() {
            acc = acc.add(sub[k % m].mul(table[(r * k % n) * stride]));
        }
        *slot = acc;
    }
    out
}

/// Batched DFTs of `input` (contiguous transforms of `n` points) with exponent sign `sign`
/// (−1 forward), in double-double arithmetic, rounded to f64 at the end.
pub(crate) fn fft_dd(input: &[Complex64], n: usize, sign: f64) -> Vec<Complex64> {
    let table: Vec<Cdd> = (0..n).map(|e| twiddle(e, n, sign)).collect();
    input
        .chunks(n)
        .flat_map(|row| {
            let x: Vec<Cdd> = row
                .iter()
                .map(|z| Cdd {
                    re: Dd::new(z.re),
                    im: Dd::new(z.im),
                })
                .collect();
            dft(&x, &table, 1)
        })
        .map(|z| Complex64::new(z.re.hi + z.re.lo, z.im.hi + z.im.lo))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twiddles_are_accurate_far_past_f64() {
        // cos(π/6) = √3/2: its square is 3/4 to double-double accuracy.
        let w = twiddle(1, 12, 1.0);
        let three_quarters = w.re.mul(w.re);
        assert!((three_quarters.hi - 0.75).abs() + three_quarters.lo.abs() < 1e-30);
        assert!(w.im.sub(Dd::new(0.5)).hi.abs() < 1e-31);
        // |w| = 1 for many angles.
        for (k, n) in [(1, 7), (3, 1000), (12345, 65536), (4, 9)] {
            let w = twiddle(k, n, -1.0);
            let norm = w.re.mul(w.re).add(w.im.mul(w.im)).sub(Dd::new(1.0));
            assert!(norm.hi.abs() < 1e-30, "{k}/{n}: {norm:?}");
        }
    }

    #[test]
    fn matches_rustfft_to_its_accuracy() {
        for n in [1, 2, 6, 7, 64, 360, 97 * 4] {
            let x: Vec<Complex64> = (0..n)
                .map(|i| Complex64::new((i as f64 * 0.7).sin(), (i as f64 * 1.3).cos()))
                .collect();
            let mut want = x.clone();
            rustfft::FftPlanner::new()
                .plan_fft_forward(n)
                .process(&mut want);
            let got = fft_dd(&x, n, -1.0);
            let err: f64 = got.iter().zip(&want).map(|(a, b)| (a - b).norm_sqr()).sum();
            let norm: f64 = want.iter().map(|z| z.norm_sqr()).sum();
            assert!((err / norm).sqrt() < 1e-15, "n = {n}");
        }
    }
}
