//! Interpreters of the kernel IR on the CPU, so kernels are tested without a GPU: an f64
//! evaluator of straight-line complex code for codelets ([`eval_complex`]), and whole kernels
//! and plans run as the GPU runs them ([`kernel`]: a workgroup of threads with workgroup
//! memory and barriers, f32 arithmetic, every index checked against its buffer and every
//! workgroup-memory access against races).

mod kernel;
#[cfg(test)]
mod tests;

#[cfg(test)]
use std::collections::HashMap;

#[cfg(test)]
use num_complex::Complex64;

#[cfg(test)]
use super::ir::{BinOp, Expr, Stmt};
#[cfg(test)]
pub use kernel::{Buffers, run_kernel};
pub use kernel::{round_to_storage, run_plan};

#[cfg(test)]
/// Evaluates `out` after running `stmts`, with `in{i}` bound to `inputs[i]`.
pub fn eval_complex(stmts: &[Stmt], out: &Expr, inputs: &[Complex64]) -> Complex64 {
    let mut env: HashMap<String, Complex64> = inputs
        .iter()
        .enumerate()
        .map(|(i, &z)| (format!("in{i}"), z))
        .collect();
    for s in stmts {
        match s {
            Stmt::Let(name, _, e) | Stmt::Var(name, _, e) | Stmt::Assign(name, e) => {
                let v = eval(&env, e);
                env.insert(name.clone(), v);
            }
            Stmt::Comment(_) => {}
            other => panic!("eval_complex handles straight-line code only, got {other:?}"),
        }
    }
    eval(&env, out)
}

// Reals are complex numbers with a zero imaginary part.
#[cfg(test)]
fn eval(env: &HashMap<String, Complex64>, e: &Expr) -> Complex64 {
    let c = |e: &Expr| eval(env, e);
    match e {
        Expr::Var(n) => env[n],
        Expr::Float(x) => Complex64::new(*x, 0.0),
        Expr::U32(x) => Complex64::new(f64::from(*x), 0.0),
        Expr::Complex(re, im) => Complex64::new(c(re).re, c(im).re),
        Expr::Re(z) => Complex64::new(c(z).re, 0.0),
        Expr::Im(z) => Complex64::new(c(z).im, 0.0),
        Expr::Neg(a) => -c(a),
        Expr::CMul(a, b) => c(a) * c(b),
        Expr::Bin(BinOp::Add, a, b) => c(a) + c(b),
        Expr::Bin(BinOp::Sub, a, b) => c(a) - c(b),
        Expr::Bin(BinOp::Mul, a, b) => c(a) * c(b),
        other => panic!("eval_complex cannot evaluate {other:?}"),
    }
}
