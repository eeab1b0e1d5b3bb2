//! Codelets: small DFTs on registers, built as IR. One description covers every radix whose
//! factors are primes up to 31, one file per algorithm: powers of two (2, 4, 8, 16) take the
//! radix-2 recursion with free eighth turns ([`pow2`]), odd primes (3 .. 31) the symmetric
//! form with the prime as a parameter ([`prime`]), and any other length
//! (9, 15, 49, ...) splits by Cooley–Tukey into smaller codelets ([`composite`]).

mod composite;
mod pow2;
mod prime;

use super::emit::Emitter;
use super::ir::{Expr, complex, f};
use crate::base::factors::PRIMES;
use crate::base::twiddle::twiddle64;

/// The DFT (sign −1) or inverse DFT (sign +1) of `x`, whose length has no prime factor
/// beyond [`PRIMES`].
#[expect(
    clippy::panic,
    reason = "Plan::check refuses plans with radices that have other factors"
)]
pub fn dft(em: &mut Emitter, x: &[Expr], sign: f64) -> Vec<Expr> {
    let r = x.len();
    if r <= 1 || r.is_power_of_two() {
        return pow2::dft(em, x, sign);
    }
    // The smallest prime factor p: p = r means r is prime.
    let p = PRIMES
        .iter()
        .copied()
        .find(|p| r.is_multiple_of(*p))
        .unwrap_or_else(|| panic!("a codelet of {r} points: its factors must be in {PRIMES:?}"));
    if p == r {
        prime::dft(em, x, sign)
    } else {
        composite::dft(em, x, p, sign)
    }
}

/// `x · W_r^k`, `W_r = exp(sign·2πi/r)`, as a complex multiply (none when `k` is 0).
fn rotate_generic(x: Expr, k: usize, r: usize, sign: f64) -> Expr {
    if k.is_multiple_of(r) {
        return x;
    }
    let w = twiddle64(k, r, sign);
    x.cmul(complex(f(w.re), f(w.im)))
}

#[cfg(test)]
mod tests {
    use num_complex::Complex64;

    use super::*;
    use crate::kernel::eval::eval_complex;
    use crate::kernel::ir::var;

    /// Every length up to 64 whose factors are in [`PRIMES`], and the primes themselves,
    /// against the DFT's definition in f64.
    #[test]
    fn codelets_match_a_direct_dft() {
        let smooth = |mut r: usize| {
            for p in PRIMES {
                while r.is_multiple_of(p) {
                    r /= p;
                }
            }
            r == 1
        };
        for r in (1..=64).filter(|&r| smooth(r)).chain([121, 169]) {
            for sign in [-1.0, 1.0] {
                let input: Vec<Complex64> = (0..r)
                    .map(|i| {
                        Complex64::new(i as f64 * 0.37 - 1.0, 0.5 - (i * i % 17) as f64 * 0.11)
                    })
                    .collect();
                let mut em = Emitter::default();
                let vars: Vec<Expr> = (0..r).map(|i| var(format!("in{i}"))).collect();
                let out = dft(&mut em, &vars, sign);
                assert_eq!(out.len(), r);
                let scale: f64 = input.iter().map(|z| z.norm()).sum();
                for (k, o) in out.iter().enumerate() {
                    let got = eval_complex(&em.stmts, o, &input);
                    let want: Complex64 = (0..r)
                        .map(|n| {
                            input[n]
                                * Complex64::from_polar(
                                    1.0,
                                    sign * 2.0 * std::f64::consts::PI * ((n * k) % r) as f64
                                        / r as f64,
                                )
                        })
                        .sum();
                    assert!(
                        (got - want).norm() < 1e-6 * scale,
                        "r = {r}, sign {sign}, k = {k}: {got} vs {want}"
                    );
                }
            }
        }
    }

    /// A prime codelet's answer to a unit impulse at `j` is its weights `W_r^{jk}`, each
    /// within 1.5 ulp of the value rounded from a double-double. (Taken as `cos(2πjk/r)`
    /// directly they were up to 121 ulp off near zero, and f64 round trips showed it.)
    #[test]
    fn prime_codelets_weights_are_accurate() {
        for r in PRIMES.into_iter().filter(|&r| r > 2) {
            let mut em = Emitter::default();
            let vars: Vec<Expr> = (0..r).map(|i| var(format!("in{i}"))).collect();
            let out = dft(&mut em, &vars, -1.0);
            for j in 1..r {
                let mut impulse = vec![Complex64::new(0.0, 0.0); r];
                impulse[j] = Complex64::new(1.0, 0.0);
                for (k, o) in out.iter().enumerate() {
                    let got = eval_complex(&em.stmts, o, &impulse);
                    let want = crate::base::dd::twiddle_rounded(j * k, r, -1.0);
                    for (g, w) in [(got.re, want.re), (got.im, want.im)] {
                        let ulps = (g - w).abs() / w.abs().max(f64::MIN_POSITIVE) * 2f64.powi(52);
                        assert!(ulps <= 1.5, "r = {r}, j = {j}, k = {k}: {g} vs {w}");
                    }
                }
            }
        }
    }

    /// The symmetric form costs (R−1)²/2 real multiplications per component, not R².
    #[test]
    fn primes_use_the_symmetric_form() {
        for r in PRIMES.into_iter().filter(|&r| r > 2) {
            let mut em = Emitter::default();
            let vars: Vec<Expr> = (0..r).map(|i| var(format!("in{i}"))).collect();
            dft(&mut em, &vars, -1.0);
            let text = format!("{:?}", em.stmts);
            let products = text.matches("Mul").count();
            assert_eq!(products, (r - 1) * (r - 1) / 2, "r = {r}");
        }
    }
}
