//! Transforms in double-double arithmetic (about 32 significant digits): the reference for
//! f64 transforms, so that the error measured against it is the transform's own, not the
//! reference's (an f64 FFT is off by about as much as the transforms it would check), and
//! the arithmetic of [`crate::extended`] for data more precise than f64.
//!
//! Mixed-radix decimation in time on double-double complex values, with the twiddles summed
//! from their Taylor series after an exact reduction to the first octant. Slow (tens of
//! f64 operations per double-double one); O(n·p) per level for a prime factor `p`, so
//! [`LinePlan`] takes lengths with a prime factor above [`DIRECT_PRIME`] through Bluestein's
//! convolution.

use num_complex::Complex64;

/// A double-double real: `hi + lo` with `|lo| <= ulp(hi) / 2`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Dd {
    pub(crate) hi: f64,
    pub(crate) lo: f64,
}

impl Dd {
    fn new(x: f64) -> Dd {
        Dd { hi: x, lo: 0.0 }
    }

    /// `hi + lo` for any two f64 values (normalised: the sum need not be one already).
    pub(crate) fn from_parts(hi: f64, lo: f64) -> Dd {
        Dd::new(hi).add(Dd::new(lo))
    }

    /// `self · s` for a power of two `s`: exact.
    fn scale_exact(self, s: f64) -> Dd {
        Dd {
            hi: self.hi * s,
            lo: self.lo * s,
        }
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
    pub(crate) fn div(self, d: f64) -> Dd {
        let q = self.hi / d;
        let p = q * d;
        let pe = q.mul_add(d, -p);
        let r = ((self.hi - p) - pe + self.lo) / d;
        Dd::quick(q, r)
    }
}

/// A double-double complex value.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Cdd {
    pub(crate) re: Dd,
    pub(crate) im: Dd,
}

impl Cdd {
    /// The value of two f64 complex parts, `hi + lo`.
    pub(crate) fn from_parts(hi: Complex64, lo: Complex64) -> Cdd {
        Cdd {
            re: Dd::from_parts(hi.re, lo.re),
            im: Dd::from_parts(hi.im, lo.im),
        }
    }

    /// The high and low f64 parts: `hi` is the value rounded to f64.
    pub(crate) fn parts(self) -> (Complex64, Complex64) {
        (
            Complex64::new(self.re.hi, self.im.hi),
            Complex64::new(self.re.lo, self.im.lo),
        )
    }

    fn conj(self) -> Cdd {
        Cdd {
            re: self.re,
            im: self.im.neg(),
        }
    }

    /// `self · s` for a real double-double `s`.
    pub(crate) fn scale(self, s: Dd) -> Cdd {
        Cdd {
            re: self.re.mul(s),
            im: self.im.mul(s),
        }
    }

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

/// `z · w`, exactly (no arithmetic) where `w` is ±1 or ±i.
fn rotate(z: Cdd, w: Cdd) -> Cdd {
    if w.re.lo == 0.0 && w.im.lo == 0.0 {
        match (w.re.hi, w.im.hi) {
            (1.0, 0.0) => return z,
            (-1.0, 0.0) => {
                return Cdd {
                    re: z.re.neg(),
                    im: z.im.neg(),
                };
            }
            (0.0, 1.0) => {
                return Cdd {
                    re: z.im.neg(),
                    im: z.re,
                };
            }
            (0.0, -1.0) => {
                return Cdd {
                    re: z.im,
                    im: z.re.neg(),
                };
            }
            _ => {}
        }
    }
    z.mul(w)
}

/// The DFT of `x` (length `n`), its twiddles `W_n^e = table[e · stride]` of a table for
/// `n · stride` points: radix 4 where 4 divides `n`, else its smallest prime factor `p`.
fn dft(x: &[Cdd], table: &[Cdd], stride: usize) -> Vec<Cdd> {
    let n = x.len();
    if n <= 1 {
        return x.to_vec();
    }
    let p = if n.is_multiple_of(4) {
        4
    } else {
        (2..n).find(|p| n.is_multiple_of(*p)).unwrap_or(n)
    };
    let m = n / p;
    // p interleaved sub-sequences of m points, each transformed.
    let subs: Vec<Vec<Cdd>> = (0..p)
        .map(|r| {
            let sub: Vec<Cdd> = x.iter().skip(r).step_by(p).copied().collect();
            dft(&sub, table, stride * p)
        })
        .collect();
    let mut out = vec![Cdd::default(); n];
    let mut turned = vec![Cdd::default(); p];
    for k in 0..m {
        // X[k + jm] = Σ_r (S_r[k] W_n^{rk}) W_p^{rj}, with W_p = W_n^m.
        for (r, t) in turned.iter_mut().enumerate() {
            *t = rotate(subs[r][k], table[(r * k % n) * stride]);
        }
        for j in 0..p {
            out[k + j * m] = turned[1..]
                .iter()
                .enumerate()
                .fold(turned[0], |acc, (r, t)| {
                    acc.add(rotate(*t, table[((r + 1) * j % p) * m * stride]))
                });
        }
    }
    out
}

/// Batched DFTs of `input` (contiguous transforms of `n` points) with exponent sign `sign`
/// (−1 forward), in double-double arithmetic ([`LinePlan`]), rounded to f64 at the end.
pub(crate) fn fft_dd(input: &[Complex64], n: usize, sign: f64) -> Vec<Complex64> {
    let plan = LinePlan::new(n, sign);
    input
        .chunks(n)
        .flat_map(|row| {
            let x: Vec<Cdd> = row
                .iter()
                .map(|z| Cdd::from_parts(*z, Complex64::default()))
                .collect();
            plan.run(&x)
        })
        .map(|z| Complex64::new(z.re.hi + z.re.lo, z.im.hi + z.im.lo))
        .collect()
}

/// The bound on the prime factors [`LinePlan`] transforms directly (O(n·p) per level): up
/// to 61; lengths with a larger one go through Bluestein's convolution.
pub(crate) const DIRECT_PRIME: usize = 64;

/// DFTs of `n` points with exponent sign `sign` (−1 forward) in double-double arithmetic,
/// their twiddles computed once.
pub(crate) struct LinePlan {
    n: usize,
    /// `W_n^e` (mixed radix), or `W_m^e` with `sign` −1 for the convolution's transforms.
    table: Vec<Cdd>,
    bluestein: Option<Chirp>,
}

/// Bluestein's convolution: `X_k = w_k · Σ_j (x_j w_j) · conj(w_{k−j})` with the chirp
/// `w_k = exp(sign · πi k² / n)`, the sum a cyclic convolution of `m >= 2n − 1` points (a
/// power of two) through forward transforms.
struct Chirp {
    m: usize,
    /// `w_k`, k < n.
    w: Vec<Cdd>,
    /// The forward transform of `conj(w)` wrapped around `m` points, divided by `m`.
    filter: Vec<Cdd>,
}

impl LinePlan {
    pub(crate) fn new(n: usize, sign: f64) -> LinePlan {
        let smooth = (2..=DIRECT_PRIME).fold(n, |m, p| {
            let mut m = m;
            while m > 1 && m.is_multiple_of(p) {
                m /= p;
            }
            m
        }) == 1;
        if smooth {
            let table = (0..n).map(|e| twiddle(e, n, sign)).collect();
            return LinePlan {
                n,
                table,
                bluestein: None,
            };
        }
        let m = (2 * n - 1).next_power_of_two();
        let table: Vec<Cdd> = (0..m).map(|e| twiddle(e, m, -1.0)).collect();
        // k² mod 2n keeps the chirp's angle exact: exp(sign · 2πi (k² mod 2n) / 2n).
        let w: Vec<Cdd> = (0..n)
            .map(|k| {
                twiddle(
                    ((k as u128 * k as u128) % (2 * n as u128)) as usize,
                    2 * n,
                    sign,
                )
            })
            .collect();
        let mut b = vec![Cdd::default(); m];
        for (k, wk) in w.iter().enumerate() {
            b[k] = wk.conj();
            if k > 0 {
                b[m - k] = wk.conj();
            }
        }
        let inv_m = 1.0 / m as f64;
        let filter = dft(&b, &table, 1)
            .into_iter()
            .map(|z| Cdd {
                re: z.re.scale_exact(inv_m),
                im: z.im.scale_exact(inv_m),
            })
            .collect();
        LinePlan {
            n,
            table,
            bluestein: Some(Chirp { m, w, filter }),
        }
    }

    /// The transform of `x` (`n` points).
    pub(crate) fn run(&self, x: &[Cdd]) -> Vec<Cdd> {
        debug_assert_eq!(x.len(), self.n);
        let Some(c) = &self.bluestein else {
            return dft(x, &self.table, 1);
        };
        let mut a = vec![Cdd::default(); c.m];
        for ((slot, xj), wj) in a.iter_mut().zip(x).zip(&c.w) {
            *slot = xj.mul(*wj);
        }
        // The inverse transform as conj(forward(conj(·))), the filter's 1/m folded in.
        let spectrum: Vec<Cdd> = dft(&a, &self.table, 1)
            .iter()
            .zip(&c.filter)
            .map(|(p, q)| p.mul(*q).conj())
            .collect();
        dft(&spectrum, &self.table, 1)
            .iter()
            .zip(&c.w)
            .map(|(z, wk)| z.conj().mul(*wk))
            .collect()
    }
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
