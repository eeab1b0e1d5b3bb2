//! The kernels of a trigonometric transform's two halves ([`Reshape::TrigLoad`],
//! [`Reshape::TrigStore`]): one thread per output element, the arithmetic of
//! `plan/trig_host.rs` (whose table gives every type's formulas). `aux` holds
//! `w[t] = exp(−πit/(4n))`, `t = 0..2n`, for types II to IV.
//!
//! Indices that would fall outside a line on a thread that does not use them are chosen
//! away before the load (`select` evaluates both sides), so every load stays in bounds.

use super::ir::*;
use super::real::conj;
use crate::plan::{LinePairs, Reshape};
use crate::trig::{Ends, Trig};

/// The statements of `step`'s thread for output element `i`, ending in its store, and the
/// kernel's name.
pub(super) fn trig_body(step: &Reshape, i: Expr) -> (String, Vec<Stmt>) {
    let mut body = Vec::new();
    let st = &mut body;
    let (name, value) = match *step {
        Reshape::TrigLoad {
            transform,
            outer,
            n,
            inner,
            orthogonalize,
            pairs,
        } => {
            let m = transform.fft_len(n);
            let (_, fft_inner) = pairs.fft_dims(outer, inner);
            let q = bind(st, "q", Ty::U32, i.clone() / u(m * fft_inner));
            let rest = bind(st, "rest", Ty::U32, i % u(m * fft_inner));
            let j = bind(st, "j", Ty::U32, rest.clone() / u(fft_inner));
            let d = bind(st, "d", Ty::U32, rest % u(fft_inner));
            let line = Line {
                transform,
                n,
                m,
                inner,
                orthogonalize,
            };
            // The start of line (o, c) of part `half` of FFT (q, d).
            let base = |half: usize| {
                let (o, c) = match pairs {
                    LinePairs::Outer => (q.clone() * u(2) + u(half), d.clone()),
                    LinePairs::Inner => (q.clone(), d.clone() * u(2) + u(half)),
                    _ => (q.clone(), d.clone()),
                };
                o * u(n * inner) + c
            };
            let first = bind(st, "base_a", Ty::U32, base(0));
            let a = line.point(st, &j, &first, "a");
            let a = bind(st, "point_a", Ty::Complex, a);
            let value = match pairs.paired() {
                // The second line as the imaginary part: a + i·b.
                true => {
                    let second = bind(st, "base_b", Ty::U32, base(1));
                    let b = line.point(st, &j, &second, "b");
                    let b = bind(st, "point_b", Ty::Complex, b);
                    complex(a.re() - b.im(), a.im() + b.re())
                }
                false => a,
            };
            let name = format!("{}_load_{n}_{inner}{}", short(transform), suffix(pairs));
            (name, value)
        }
        Reshape::TrigStore {
            transform,
            outer,
            n,
            inner,
            orthogonalize,
            pairs,
            scale,
        } => {
            let m = transform.fft_len(n);
            let (_, fft_inner) = pairs.fft_dims(outer, inner);
            let o = bind(st, "o", Ty::U32, i.clone() / u(n * inner));
            let rest = bind(st, "rest", Ty::U32, i % u(n * inner));
            let k = bind(st, "k", Ty::U32, rest.clone() / u(inner));
            let c = bind(st, "c", Ty::U32, rest % u(inner));
            // The FFT (q, d) the line is in, and its part: 0 real, 1 imaginary.
            let (q, d, half) = match pairs {
                LinePairs::Outer => (o.clone() / u(2), c, o % u(2)),
                LinePairs::Inner => (o, c.clone() / u(2), c % u(2)),
                _ => (o, c, u(0)),
            };
            let base = bind(st, "base", Ty::U32, q * u(m * fft_inner) + d);
            let second = bind(st, "second", Ty::Bool, ge(half, u(1)));
            let z = |p: Expr| load(Mem::Src, base.clone() + p * u(fft_inner));
            // Point p of the line's own FFT.
            let z = |st: &mut Vec<Stmt>, p: Expr| -> Expr {
                if !pairs.paired() {
                    return z(p);
                }
                let p = bind(st, "own_at", Ty::U32, p);
                let v = bind(st, "both", Ty::Complex, z(p.clone()));
                match transform {
                    // Hermitian lines: (Z[p] + Z*[m−p])/2 and (Z[p] − Z*[m−p])/(2i).
                    Trig::DctII | Trig::DstII => {
                        let b = bind(st, "mirror", Ty::Complex, conj(z((u(m) - p) % u(m))));
                        let sum = bind(st, "sum", Ty::Complex, (v.clone() + b.clone()) * f(0.5));
                        let dif = bind(st, "dif", Ty::Complex, (v - b) * f(0.5));
                        complex(
                            select(second.clone(), dif.im(), sum.re()),
                            select(second.clone(), -dif.re(), sum.im()),
                        )
                    }
                    // Imaginary lines: Z = i·S_a − S_b.
                    Trig::DstI => complex(f(0.0), select(second.clone(), -v.re(), v.im())),
                    // Real lines: Z = x_a + i·x_b.
                    _ => complex(select(second.clone(), v.im(), v.re()), f(0.0)),
                }
            };
            let y = match transform {
                Trig::DctI => z(st, k.clone()).re(),
                Trig::DstI => -z(st, k.clone() + u(1)).im(),
                Trig::DctII | Trig::DstII => {
                    let p = match transform.is_sine() {
                        true => u(n - 1) - k.clone(),
                        false => k.clone(),
                    };
                    let p = bind(st, "p", Ty::U32, p);
                    let own = z(st, p.clone());
                    let t = load(Mem::Aux, p * u(2)).cmul(own);
                    t.re() * f(2.0)
                }
                Trig::DctIII | Trig::DstIII => {
                    let even = bind(st, "even", Ty::Bool, lt(k.clone() % u(2), u(1)));
                    let p = select(
                        even.clone(),
                        k.clone() / u(2),
                        u(n - 1) - (k.clone() - u(1)) / u(2),
                    );
                    let own = z(st, p);
                    let v = bind(st, "v", Ty::Real, own.re());
                    match transform.is_sine() {
                        true => select(even, v.clone(), -v),
                        false => v,
                    }
                }
                Trig::DctIV | Trig::DstIV => {
                    let own = z(st, k.clone());
                    let t = load(Mem::Aux, k.clone() * u(2) + u(1)).cmul(own);
                    let t = bind(st, "t", Ty::Complex, t);
                    match transform {
                        Trig::DctIV => t.re() * f(2.0),
                        _ => t.im() * f(-2.0),
                    }
                }
            };
            let value = match end(transform.orthogonal_ends(true), &k, n) {
                Some(end) if orthogonalize => {
                    y * select(end, f(scale / std::f64::consts::SQRT_2), f(scale))
                }
                _ => y * f(scale),
            };
            let name = format!("{}_store_{n}_{inner}{}", short(transform), suffix(pairs));
            (name, value)
        }
        _ => unreachable!("trig_body() generates the trigonometric transforms' halves only"),
    };
    body.push(Stmt::Store(Mem::Dst, var("i"), value));
    (name, body)
}

/// What the load kernel needs to know of a line of the transform.
struct Line {
    transform: Trig,
    n: usize,
    m: usize,
    inner: usize,
    orthogonalize: bool,
}

impl Line {
    /// Point `j` of the FFT input of the line starting at `base` (its reals `inner` apart),
    /// its lets named with `tag`.
    fn point(&self, st: &mut Vec<Stmt>, j: &Expr, base: &Expr, tag: &str) -> Expr {
        let Line {
            transform,
            n,
            m,
            inner,
            orthogonalize,
        } = *self;
        let sqrt2 = std::f64::consts::SQRT_2;
        let j = j.clone();
        // x[s], with SciPy's orthogonalize on the ends that take it.
        let x = |st: &mut Vec<Stmt>, name: &str, s: Expr| {
            let s = bind(st, &format!("{name}_at_{tag}"), Ty::U32, s);
            let v = load(Mem::Src, base.clone() + s.clone() * u(inner));
            let v = match end(transform.orthogonal_ends(false), &s, n) {
                Some(end) if orthogonalize => v * select(end, f(sqrt2), f(1.0)),
                _ => v,
            };
            bind(st, &format!("{name}_{tag}"), Ty::Real, v)
        };
        match transform {
            Trig::DctI => {
                let s = select(lt(j.clone(), u(n)), j.clone(), u(m) - j);
                complex(x(st, "x", s), f(0.0))
            }
            Trig::DstI => {
                // 0, x[0..n], 0, −x[n−1..=0]: zero where j is a multiple of n + 1.
                let first = lt(j.clone(), u(n + 1));
                let kept = bind(
                    st,
                    &format!("kept_{tag}"),
                    Ty::Bool,
                    lt(u(0), j.clone() % u(n + 1)),
                );
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
                    true => select(lt(var(format!("x_at_{tag}")) % u(2), u(1)), v.clone(), -v),
                    false => v,
                };
                complex(v, f(0.0))
            }
            Trig::DctIII | Trig::DstIII => {
                let later = bind(st, &format!("later_{tag}"), Ty::Bool, lt(u(0), j.clone()));
                let (a, b) = match transform {
                    Trig::DctIII => (j.clone(), u(n) - j.clone()),
                    _ => (u(n - 1) - j.clone(), j.clone() - u(1)),
                };
                let a = x(st, "a", a);
                let b = x(st, "b", select(later.clone(), b, u(0)));
                let b = bind(
                    st,
                    &format!("b_or_0_{tag}"),
                    Ty::Real,
                    select(later, b, f(0.0)),
                );
                let w = load(Mem::Aux, j * u(2));
                conj(w).cmul(complex(a, -b))
            }
            Trig::DctIV | Trig::DstIV => {
                let kept = bind(st, &format!("kept_{tag}"), Ty::Bool, lt(j.clone(), u(n)));
                let s = bind(
                    st,
                    &format!("s_{tag}"),
                    Ty::U32,
                    select(kept.clone(), j, u(0)),
                );
                let v = x(st, "x", s.clone());
                let t = bind(
                    st,
                    &format!("t_{tag}"),
                    Ty::Complex,
                    load(Mem::Aux, s * u(2)) * v,
                );
                complex(
                    select(kept.clone(), t.re(), f(0.0)),
                    select(kept, t.im(), f(0.0)),
                )
            }
        }
    }
}

/// Whether point `j` of `n` is one of `ends` (`None` where there are none).
fn end(ends: Ends, j: &Expr, n: usize) -> Option<Expr> {
    let j = j.clone();
    match (ends.first, ends.last) {
        // 0 or n − 1: not 1 <= j < n − 1.
        (true, true) => Some(ge(j - u(1), u(n.saturating_sub(2)))),
        (true, false) => Some(lt(j, u(1))),
        (false, true) => Some(ge(j, u(n - 1))),
        (false, false) => None,
    }
}

/// `let name: ty = e;` appended to `body`, and the name to use it by.
fn bind(body: &mut Vec<Stmt>, name: &str, ty: Ty, e: Expr) -> Expr {
    body.push(Stmt::Let(name.into(), ty, e));
    var(name)
}

/// How a kernel's name says its lines are paired.
fn suffix(pairs: LinePairs) -> &'static str {
    match pairs {
        LinePairs::Outer => "_pairs_outer",
        LinePairs::Inner => "_pairs_inner",
        _ => "",
    }
}

/// "dct2", "dst4" and so on, for kernel names.
fn short(transform: Trig) -> String {
    let family = if transform.is_sine() { "dst" } else { "dct" };
    format!("{family}{}", transform.kind())
}
