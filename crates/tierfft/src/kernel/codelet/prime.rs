//! DFTs of an odd prime number of points (3 to 31), in the symmetric form: inputs `j` and
//! `R − j` are added and subtracted once, and each output pair `k`, `R − k` shares one
//! real-weighted sum of the additions and one of the differences,
//!
//! `X[k], X[R−k] = x[0] + Σ_j cos(2πjk/R)·(x[j] + x[R−j]) ± sign·i·Σ_j sin(2πjk/R)·(x[j] − x[R−j])`
//!
//! for `j, k = 1 .. (R−1)/2`: (R−1)²/2 real multiplications per complex component, against
//! (R−1)² complex ones for the direct sum.

use crate::base::twiddle::twiddle64;
use crate::kernel::emit::Emitter;
use crate::kernel::ir::{Expr, Ty, complex, f};

/// The DFT (sign −1) or inverse DFT (sign +1) of `x`, whose length is an odd prime.
pub fn dft(em: &mut Emitter, x: &[Expr], sign: f64) -> Vec<Expr> {
    let r = x.len();
    let m = (r - 1) / 2;
    let sums: Vec<Expr> = (1..=m)
        .map(|j| em.bind(Ty::Complex, x[j].clone() + x[r - j].clone()))
        .collect();
    let diffs: Vec<Expr> = (1..=m)
        .map(|j| em.bind(Ty::Complex, x[j].clone() - x[r - j].clone()))
        .collect();
    let mut out = vec![Expr::U32(0); r];
    out[0] = em.bind(
        Ty::Complex,
        sums.iter().cloned().fold(x[0].clone(), |acc, s| acc + s),
    );
    for k in 1..=m {
        // cos and sin of 2π·jk/r from the octant-reduced source: `(2π·jk/r).cos()` is off by
        // an ulp or more at the larger angles, which showed in f64 round trips.
        let w = |j: usize| twiddle64(j * k, r, 1.0);
        // Σ cos·sums and Σ sin·diffs, each a complex value scaled componentwise by reals.
        // (r >= 3, so m >= 1: each sum starts from its first term.)
        let even = (2..=m).fold(sums[0].clone() * f(w(1).re), |a, j| {
            a + sums[j - 1].clone() * f(w(j).re)
        });
        let odd = (2..=m).fold(diffs[0].clone() * f(w(1).im), |a, j| {
            a + diffs[j - 1].clone() * f(w(j).im)
        });
        let even = em.bind(Ty::Complex, x[0].clone() + even);
        let odd = em.bind(Ty::Complex, odd);
        // sign·i·odd
        let turned = if sign < 0.0 {
            complex(odd.im(), -odd.re())
        } else {
            complex(-odd.im(), odd.re())
        };
        let turned = em.bind(Ty::Complex, turned);
        out[k] = em.bind(Ty::Complex, even.clone() + turned.clone());
        out[r - k] = em.bind(Ty::Complex, even - turned);
    }
    out
}
