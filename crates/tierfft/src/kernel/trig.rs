//! The kernels of a trigonometric transform's two halves ([`Reshape::TrigLoad`],
//! [`Reshape::TrigStore`]): one thread per output element, the arithmetic of
//! `plan/trig_host.rs` (whose table gives every type's formulas). `aux` holds
//! `w[t] = exp(−πit/(4n))`, `t = 0..2n`, for types II to IV.
//!
//! Indices that would fall outside a line on a thread that does not use them are chosen
//! away before the load (`select` evaluates both sides), so every load stays in bounds.

use super::ir::*;
use super::real::conj;
use crate::plan::Reshape;
use crate::trig::Trig;

/// The statements of `step`'s thread for output element `i`, ending in its store, and the
/// kernel's name.
pub(super) fn trig_body(step: &Reshape, i: Expr) -> (String, Vec<Stmt>) {
    let mut body = Vec::new();
    let st = &mut body;
    let sqrt2 = std::f64::consts::SQRT_2;
    let (name, value) = match *step {
        Reshape::TrigLoad {
            transform,
            n,
            inner,
            orthogonalize,
            ..
        } => {
            let m = transform.fft_len(n);
            let line = bind(st, "line", Ty::U32, i.clone() / u(m * inner));
            let rest = bind(st, "rest", Ty::U32, i % u(m * inner));
            let j = bind(st, "j", Ty::U32, rest.clone() / u(inner));
            let col = bind(st, "col", Ty::U32, rest % u(inner));
            let base = bind(st, "base", Ty::U32, line * u(n * inner) + col);
            // x[s], with SciPy's orthogonalize on the ends that take it.
            let x = |st: &mut Vec<Stmt>, name: &str, s: Expr| {
                let s = bind(st, &format!("{name}_at"), Ty::U32, s);
                let v = load(Mem::Src, base.clone() + s.clone() * u(inner));
                let edge = match transform {
                    // s is 0 or n − 1: not 1 <= s < n − 1.
                    Trig::DctI => Some(ge(s - u(1), u(n - 2))),
                    Trig::DctIII => Some(lt(s, u(1))),
                    Trig::DstIII => Some(ge(s, u(n - 1))),
                    _ => None,
                };
                let v = match edge {
                    Some(edge) if orthogonalize => v * select(edge, f(sqrt2), f(1.0)),
                    _ => v,
                };
                bind(st, name, Ty::Real, v)
            };
            let value = match transform {
                Trig::DctI => {
                    let s = select(lt(j.clone(), u(n)), j.clone(), u(m) - j);
                    complex(x(st, "x", s), f(0.0))
                }
                Trig::DstI => {
                    // 0, x[0..n], 0, −x[n−1..=0]: zero where j is a multiple of n + 1.
                    let first = lt(j.clone(), u(n + 1));
                    let kept = bind(st, "kept", Ty::Bool, lt(u(0), j.clone() % u(n + 1)));
                    let s = select(
                        kept.clone(),
                        select(first.clone(), j.clone() - u(1), u(m - 1) - j),
                        u(0),
                    );
                    let v = x(st, "x", s);
                    let v = select(kept, select(first, v.clone(), -v), f(0.0));
                    complex(v, f(0.0))
                }
                Trig::DctII | Trig::DstII => {
                    let twice = j * u(2);
                    let s = select(lt(twice.clone(), u(n)), twice.clone(), u(2 * n - 1) - twice);
                    let v = x(st, "x", s);
                    let v = match transform.is_sine() {
                        true => select(lt(var("x_at") % u(2), u(1)), v.clone(), -v),
                        false => v,
                    };
                    complex(v, f(0.0))
                }
                Trig::DctIII | Trig::DstIII => {
                    let later = bind(st, "later", Ty::Bool, lt(u(0), j.clone()));
                    let (a, b) = match transform {
                        Trig::DctIII => (j.clone(), u(n) - j.clone()),
                        _ => (u(n - 1) - j.clone(), j.clone() - u(1)),
                    };
                    let a = x(st, "a", a);
                    let b = x(st, "b", select(later.clone(), b, u(0)));
                    let b = bind(st, "b_or_0", Ty::Real, select(later, b, f(0.0)));
                    let w = load(Mem::Aux, j * u(2));
                    conj(w).cmul(complex(a, -b))
                }
                Trig::DctIV | Trig::DstIV => {
                    let kept = bind(st, "kept", Ty::Bool, lt(j.clone(), u(n)));
                    let s = bind(st, "s", Ty::U32, select(kept.clone(), j, u(0)));
                    let v = x(st, "x", s.clone());
                    let t = bind(st, "t", Ty::Complex, load(Mem::Aux, s * u(2)) * v);
                    complex(
                        select(kept.clone(), t.re(), f(0.0)),
                        select(kept, t.im(), f(0.0)),
                    )
                }
            };
            (format!("{}_load_{n}_{inner}", short(transform)), value)
        }
        Reshape::TrigStore {
            transform,
            n,
            inner,
            orthogonalize,
            scale,
            ..
        } => {
            let m = transform.fft_len(n);
            let line = bind(st, "line", Ty::U32, i.clone() / u(n * inner));
            let rest = bind(st, "rest", Ty::U32, i % u(n * inner));
            let k = bind(st, "k", Ty::U32, rest.clone() / u(inner));
            let col = bind(st, "col", Ty::U32, rest % u(inner));
            let base = bind(st, "base", Ty::U32, line * u(m * inner) + col);
            let z = |p: Expr| load(Mem::Src, base.clone() + p * u(inner));
            let y = match transform {
                Trig::DctI => z(k.clone()).re(),
                Trig::DstI => -z(k.clone() + u(1)).im(),
                Trig::DctII | Trig::DstII => {
                    let p = match transform.is_sine() {
                        true => u(n - 1) - k.clone(),
                        false => k.clone(),
                    };
                    let p = bind(st, "p", Ty::U32, p);
                    let t = load(Mem::Aux, p.clone() * u(2)).cmul(z(p));
                    t.re() * f(2.0)
                }
                Trig::DctIII | Trig::DstIII => {
                    let even = bind(st, "even", Ty::Bool, lt(k.clone() % u(2), u(1)));
                    let p = select(
                        even.clone(),
                        k.clone() / u(2),
                        u(n - 1) - (k.clone() - u(1)) / u(2),
                    );
                    let v = bind(st, "v", Ty::Real, z(p).re());
                    match transform.is_sine() {
                        true => select(even, v.clone(), -v),
                        false => v,
                    }
                }
                Trig::DctIV | Trig::DstIV => {
                    let t = bind(
                        st,
                        "t",
                        Ty::Complex,
                        load(Mem::Aux, k.clone() * u(2) + u(1)).cmul(z(k.clone())),
                    );
                    match transform {
                        Trig::DctIV => t.re() * f(2.0),
                        _ => t.im() * f(-2.0),
                    }
                }
            };
            let edge = match transform {
                Trig::DctI => Some(ge(k.clone() - u(1), u(n - 2))),
                Trig::DctII => Some(lt(k.clone(), u(1))),
                Trig::DstII => Some(ge(k, u(n - 1))),
                _ => None,
            };
            let value = match edge {
                Some(edge) if orthogonalize => {
                    y * select(edge, f(scale / std::f64::consts::SQRT_2), f(scale))
                }
                _ => y * f(scale),
            };
            (format!("{}_store_{n}_{inner}", short(transform)), value)
        }
        _ => unreachable!("trig_body() generates the trigonometric transforms' halves only"),
    };
    body.push(Stmt::Store(Mem::Dst, var("i"), value));
    (name, body)
}

/// `let name: ty = e;` appended to `body`, and the name to use it by.
fn bind(body: &mut Vec<Stmt>, name: &str, ty: Ty, e: Expr) -> Expr {
    body.push(Stmt::Let(name.into(), ty, e));
    var(name)
}

/// "dct2", "dst4" and so on, for kernel names.
fn short(transform: Trig) -> String {
    let family = if transform.is_sine() { "dst" } else { "dct" };
    format!("{family}{}", transform.kind())
}
