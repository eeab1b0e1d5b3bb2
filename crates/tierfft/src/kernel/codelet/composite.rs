//! Composite lengths that are not powers of two (9, 15, 49, ...): Cooley–Tukey, decimation in
//! time, into `p` DFTs of `q` points, twiddles `W_r^{s·k}`, and `q` DFTs of `p` points.

use super::{dft as codelet, rotate_generic};
use crate::kernel::emit::Emitter;
use crate::kernel::ir::{Expr, Ty};

/// The DFT (sign −1) or inverse DFT (sign +1) of `x`, whose length `r = p·q` has the prime
/// factor `p` and others in [`crate::base::factors::PRIMES`].
pub fn dft(em: &mut Emitter, x: &[Expr], p: usize, sign: f64) -> Vec<Expr> {
    let r = x.len();
    // x[p·m + s] for s < p are p sequences of q points.
    let q = r / p;
    let inner: Vec<Vec<Expr>> = (0..p)
        .map(|s| {
            let seq: Vec<Expr> = (0..q).map(|m| x[p * m + s].clone()).collect();
            codelet(em, &seq, sign)
        })
        .collect();
    let mut out = vec![Expr::U32(0); r];
    for k in 0..q {
        let column: Vec<Expr> = (0..p)
            .map(|s| {
                em.bind(
                    Ty::Complex,
                    rotate_generic(inner[s][k].clone(), s * k, r, sign),
                )
            })
            .collect();
        for (j, y) in codelet(em, &column, sign).into_iter().enumerate() {
            out[k + j * q] = y;
        }
    }
    out
}
