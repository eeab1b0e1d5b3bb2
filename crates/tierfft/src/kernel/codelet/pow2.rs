//! The radix-2/4/8/16 family: the radix-2 decimation-in-time recursion written once. A DFT
//! of R points is two DFTs of R/2 points (even and odd inputs) combined with the twiddles
//! `W_R^k`. Twiddles that are eighth turns become additions and swaps, so radix-4 costs no
//! multiplications and radix-8 four.

use super::rotate_generic;
use crate::kernel::emit::Emitter;
use crate::kernel::ir::{Expr, Ty, complex, f};

/// The DFT (sign -1) or inverse DFT (sign +1) of `x`, whose length is a power of two.
pub fn dft(em: &mut Emitter, x: &[Expr], sign: f64) -> Vec<Expr> {
    let r = x.len();
    match r {
        1 => x.to_vec(),
        2 => vec![
            em.bind(Ty::Complex, x[0].clone() + x[1].clone()),
            em.bind(Ty::Complex, x[0].clone() - x[1].clone()),
        ],
        _ => {
            let even: Vec<Expr> = x.iter().step_by(2).cloned().collect();
            let odd: Vec<Expr> = x.iter().skip(1).step_by(2).cloned().collect();
            let even = dft(em, &even, sign);
            let odd = dft(em, &odd, sign);
            let mut lo = Vec::with_capacity(r / 2);
            let mut hi = Vec::with_capacity(r / 2);
            for (k, (e, o)) in even.into_iter().zip(odd).enumerate() {
                let o = em.bind(Ty::Complex, rotate(o, k, r, sign));
                lo.push(em.bind(Ty::Complex, e.clone() + o.clone()));
                hi.push(em.bind(Ty::Complex, e - o));
            }
            lo.extend(hi);
            lo
        }
    }
}

/// `x · W_r^k` with `W_r = exp(sign·2πi/r)`, using the cheapest form for eighth turns.
fn rotate(x: Expr, k: usize, r: usize, sign: f64) -> Expr {
    let h = f(std::f64::consts::FRAC_1_SQRT_2);
    let (re, im) = (x.re(), x.im());
    let fwd = sign < 0.0;
    // a + sign·b and a - sign·b without multiplying by ±1.
    let add_s = |a: Expr, b: Expr| if fwd { a - b } else { a + b };
    let sub_s = |a: Expr, b: Expr| if fwd { a + b } else { a - b };
    match (8 * k) % (8 * r) {
        0 => x,
        // Quarter turn: multiply by sign·i.
        e if e == 2 * r => {
            if fwd {
                complex(im, -re)
            } else {
                complex(-im, re)
            }
        }
        // Eighth turn: (1 + sign·i)/√2.
        e if e == r => complex(sub_s(re.clone(), im.clone()) * h.clone(), add_s(im, re) * h),
        // Three eighths: (-1 + sign·i)/√2.
        e if e == 3 * r => complex(
            -add_s(re.clone(), im.clone()) * h.clone(),
            -sub_s(im, re) * h,
        ),
        _ => rotate_generic(x, k, r, sign),
    }
}
