//! The resampling kernel ([`crate::resample`]): one thread per output sample.
//!
//! Bindings: `src` and `dst` the rows, `aux` each row's fixed-point position as
//! [`ROW_WORDS`] u32 words: the whole offset, the fraction and the slope (in
//! 2^-[`FRACTION_BITS`] samples), signed values as their two's-complement bits. The position
//! arithmetic is wrapping u32 with a 2^31 bias, so floors of negative values come out right
//! without signed types.
//!
//! The tap weights are computed from the phase (three short polynomials, then a division
//! and a few multiplies per tap) rather than read from the CPU's table: neighbouring threads sit at phases far apart, so a
//! table read is 64 scattered bytes per sample, which made the kernel a quarter of copy
//! speed. Both use the same phase, so the weights differ only by f32 rounding.

use std::f64::consts::PI;

use super::ir::*;
use crate::base::precision::Precision;
use crate::resample::{FRACTION_BITS, PHASES, ROW_WORDS, TAPS};

/// Threads per workgroup: consecutive output samples of one row.
pub const RESAMPLE_THREADS: usize = 128;

/// The workgroup grid for `rows` rows of `n` samples: one group per [`RESAMPLE_THREADS`]
/// samples of a row, folded into two dimensions past `max_per_dim` (the kernel guards the
/// excess groups).
pub fn resample_grid(n: usize, rows: usize, max_per_dim: u32) -> (u32, u32) {
    let groups = u32::try_from(rows * n.div_ceil(RESAMPLE_THREADS)).unwrap_or(u32::MAX);
    let x = groups.min(max_per_dim).max(1);
    (x, groups.div_ceil(x))
}

/// The kernel resampling `n`-sample rows (rows in this dispatch: the `lines` parameter).
pub fn resample_kernel(n: usize) -> Kernel {
    let t = RESAMPLE_THREADS;
    let blocks = n.div_ceil(t);
    let shift = FRACTION_BITS - PHASES.trailing_zeros();
    let half = (TAPS / 2) as f64;
    let mut body = vec![
        Stmt::Comment("row and output sample of this thread".into()),
        Stmt::Let(
            "row".into(),
            Ty::U32,
            Expr::Builtin(Builtin::GroupIndex) / u(blocks),
        ),
        Stmt::Let(
            "k".into(),
            Ty::U32,
            (Expr::Builtin(Builtin::GroupIndex) % u(blocks)) * u(t)
                + Expr::Builtin(Builtin::LocalIndex),
        ),
    ];
    let mut inner = vec![
        Stmt::Comment(format!(
            "the row's fixed-point position: whole + (frac + slope·k) / 2^{FRACTION_BITS}"
        )),
        Stmt::Let(
            "whole".into(),
            Ty::U32,
            load(Mem::Aux, var("row") * u(ROW_WORDS)),
        ),
        Stmt::Let(
            "fine".into(),
            Ty::U32,
            // 2^31 + frac + slope·k, plus half a phase to round.
            load(Mem::Aux, var("row") * u(ROW_WORDS) + u(1))
                + load(Mem::Aux, var("row") * u(ROW_WORDS) + u(2)) * var("k")
                + u((1usize << 31) + (1 << (shift - 1))),
        ),
        Stmt::Comment(
            "phase: nearest 1/4096 sample, biased by 2^31 in fixed point; its top bits are whole samples".into(),
        ),
        Stmt::Let("phase".into(), Ty::U32, var("fine") >> u(shift as usize)),
        Stmt::Let(
            "first".into(),
            Ty::U32,
            var("k")
                + var("whole")
                + (var("phase") >> u(PHASES.trailing_zeros() as usize))
                - u((1 << (31 - FRACTION_BITS)) + TAPS / 2 - 1),
        ),
        Stmt::Comment(format!(
            "weights at the position's fraction (p / {PHASES} samples): \
             sinc = sin(π(frac − m)) / (π(frac − m)) = ±sin(π·frac)/π / (frac − m), \
             Hann = (1 + cos(π(frac − m)/{half})) / 2 by the angle-difference formula; \
             sines and cosines as Taylor series",
            half = TAPS / 2
        )),
        Stmt::Let(
            "p".into(),
            Ty::U32,
            var("phase") & u(PHASES - 1),
        ),
        Stmt::Let(
            "frac".into(),
            Ty::Real,
            call(Func::ToReal, vec![var("p")]) * f(1.0 / PHASES as f64),
        ),
        // sin(π·frac)/π = x·(sin z / z) with x = min(frac, 1 − frac), z = πx ≤ π/2: the
        // factor x keeps the relative accuracy near whole samples, where the nearest tap's
        // weight s / (frac − m) divides two small numbers.
        Stmt::Let(
            "x".into(),
            Ty::Real,
            min(var("frac"), f(1.0) - var("frac")),
        ),
        Stmt::Let(
            "z2".into(),
            Ty::Real,
            var("x") * var("x") * f(PI * PI),
        ),
        Stmt::Let(
            "s".into(),
            Ty::Real,
            var("x") * taylor(var("z2"), 1, 7, 1.0),
        ),
        Stmt::Let(
            "a".into(),
            Ty::Real,
            var("frac") * f(PI / half),
        ),
        Stmt::Let("a2".into(), Ty::Real, var("a") * var("a")),
        Stmt::Let("hc".into(), Ty::Real, taylor(var("a2"), 0, 6, 1.0)),
        Stmt::Let(
            "hs".into(),
            Ty::Real,
            var("a") * taylor(var("a2"), 1, 5, 1.0),
        ),
        Stmt::Let("line".into(), Ty::U32, var("row") * u(n)),
        Stmt::Var("acc".into(), Ty::Complex, complex(f(0.0), f(0.0))),
        Stmt::Comment(format!(
            "{TAPS} taps m = {}..={}; those outside the row (index >= n, negatives wrapped) weigh zero",
            1 - TAPS as i64 / 2,
            TAPS / 2
        )),
    ];
    for j in 0..TAPS {
        let m = j as i64 + 1 - TAPS as i64 / 2;
        let angle = PI * m as f64 / half;
        let sign = if m % 2 == 0 { 1.0 } else { -1.0 };
        let sinc = if m == 0 {
            // The tap at the position itself: 1 when the position is a whole sample.
            select(
                lt(var("p"), u(1)),
                f(1.0),
                call(Func::Divide, vec![var("s"), var("frac")]),
            )
        } else {
            f(sign) * call(Func::Divide, vec![var("s"), var("frac") + f(-m as f64)])
        };
        let hann = f(0.5) + f(0.5) * (var("hc") * f(angle.cos()) + var("hs") * f(angle.sin()));
        let i = format!("i{j}");
        inner.push(Stmt::Let(i.clone(), Ty::U32, var("first") + u(j)));
        let z = load(Mem::Src, var("line") + min(var(&i), u(n - 1)));
        inner.push(Stmt::Assign(
            "acc".into(),
            var("acc") + z * select(lt(var(&i), u(n)), sinc * hann, f(0.0)),
        ));
    }
    inner.push(Stmt::Store(Mem::Dst, var("line") + var("k"), var("acc")));
    body.push(Stmt::If(
        lt(var("row"), Expr::Builtin(Builtin::Lines)) & lt(var("k"), u(n)),
        inner,
    ));
    Kernel {
        name: format!("resample_{n}"),
        precision: Precision::F32,
        doc: vec![format!(
            "tierfft resampling of {n}-sample rows: {TAPS}-tap Hann-windowed sinc, weights at \
             {PHASES} phases per sample"
        )],
        threads: t as u32,
        groups_per_unit: None,
        cluster: None,
        shared: None,
        bindings: vec![
            Binding::read(Mem::Src, Ty::Complex),
            Binding::read_write(Mem::Dst, Ty::Complex),
            Binding::read(Mem::Aux, Ty::U32),
        ],
        persistent: None,
        body,
    }
}

/// `scale · Σ_{j<terms} (−1)^j x^j / (2j + odd)!` in Horner form: the Taylor series of
/// `scale·cos(√x)` (`odd` = 0) or `scale·sin(√x)/√x` (`odd` = 1). Written out rather than
/// calling the dialect's sin and cos, whose accuracy WGSL leaves to the implementation
/// (2^-11 absolute is allowed): this is good to a few f32 ulps on every device.
fn taylor(x: Expr, odd: u32, terms: u32, scale: f64) -> Expr {
    let coef = |j: u32| {
        let fact: f64 = (1..=2 * j + odd).map(f64::from).product();
        (if j.is_multiple_of(2) { scale } else { -scale }) / fact
    };
    (0..terms - 1)
        .rev()
        .fold(f(coef(terms - 1)), |acc, j| f(coef(j)) + x.clone() * acc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{cuda, wgsl};

    #[test]
    fn taylor_series_match_sine_and_cosine() {
        use crate::kernel::eval::eval_complex;
        for x in [0.0, 0.3, 1.0, std::f64::consts::FRAC_PI_2] {
            let at = |e: &Expr| eval_complex(&[], e, &[]).re;
            let x2 = f(x * x);
            assert!(
                (at(&taylor(x2.clone(), 0, 7, 1.0)) - f64::cos(x)).abs() < 1e-7,
                "x = {x}"
            );
            let sin = x * at(&taylor(x2, 1, 7, 1.0));
            assert!((sin - f64::sin(x)).abs() < 1e-7, "x = {x}");
        }
    }

    #[test]
    fn prints_in_both_dialects() {
        let k = resample_kernel(4096);
        let c = cuda::print(&k);
        let w = wgsl::print(&k);
        for s in [&c, &w] {
            assert!(s.contains("resample_4096"), "{s}");
            assert!(s.contains("i15"), "{s}");
        }
        // The positions are bound as u32 words, read without conversion.
        assert!(c.contains("const unsigned* __restrict__ aux"), "{c}");
        assert!(w.contains("var<storage, read> aux: array<u32>;"), "{w}");
        assert!(
            !c.contains("__float2uint_rn") && !c.contains("float2* __restrict__ tw"),
            "{c}"
        );
    }
}
