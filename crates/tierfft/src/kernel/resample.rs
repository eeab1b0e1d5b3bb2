//! The resampling kernel ([`crate::resample`]): one thread per output sample.
//!
//! Bindings as every pass kernel's: `src` and `dst` the rows, `tw` the weight table (tap
//! pairs as complex values, [`TAPS`]/2 per phase), `aux` two complex values per row holding
//! its fixed-point position as biased integers in f32 (exact below 2^24): the whole offset
//! plus `MAX_WHOLE`, the fraction and the slope (in 2^-[`FRACTION_BITS`] samples) plus
//! `MAX_SLOPE`, and 0. The position arithmetic is wrapping
//! u32 with a 2^31 bias, so floors of negative values come out right without signed types.

use super::ir::*;
use crate::resample::{FRACTION_BITS, MAX_SLOPE, MAX_WHOLE, PHASES, TAPS};

/// Threads per workgroup: consecutive output samples of one row.
pub const RESAMPLE_THREADS: usize = 128;

/// The kernel resampling `n`-sample rows (rows in this dispatch: the `lines` parameter).
pub fn resample_kernel(n: usize) -> Kernel {
    let t = RESAMPLE_THREADS;
    let blocks = n.div_ceil(t);
    let shift = FRACTION_BITS - PHASES.trailing_zeros();
    let pairs = TAPS / 2;
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
        Stmt::Let("pa".into(), Ty::C32, load(Mem::Aux, var("row") * u(2))),
        Stmt::Let(
            "pb".into(),
            Ty::C32,
            load(Mem::Aux, var("row") * u(2) + u(1)),
        ),
        Stmt::Let(
            "fine".into(),
            Ty::U32,
            // 2^31 + frac + (slope + MAX_SLOPE)·k − MAX_SLOPE·k, plus half a phase to round.
            call(Func::ToU32, vec![var("pa").im()])
                + call(Func::ToU32, vec![var("pb").re()]) * var("k")
                - var("k") * u(MAX_SLOPE as usize)
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
                + call(Func::ToU32, vec![var("pa").re()])
                + (var("phase") >> u(PHASES.trailing_zeros() as usize))
                - u(MAX_WHOLE as usize + (1 << (31 - FRACTION_BITS)) + TAPS / 2 - 1),
        ),
        Stmt::Let(
            "table".into(),
            Ty::U32,
            (var("phase") & u(PHASES - 1)) * u(pairs),
        ),
        Stmt::Let("line".into(), Ty::U32, var("row") * u(n)),
        Stmt::Var("acc".into(), Ty::C32, complex(f(0.0), f(0.0))),
        Stmt::Comment(format!(
            "{TAPS} taps; those outside the row (index >= n, negatives wrapped) weigh zero"
        )),
    ];
    for m in 0..pairs {
        let w = format!("w{m}");
        inner.push(Stmt::Let(
            w.clone(),
            Ty::C32,
            load(Mem::Twiddles, var("table") + u(m)),
        ));
        for (j, weight) in [(2 * m, var(&w).re()), (2 * m + 1, var(&w).im())] {
            let i = format!("i{j}");
            inner.push(Stmt::Let(i.clone(), Ty::U32, var("first") + u(j)));
            let z = load(Mem::Src, var("line") + min(var(&i), u(n - 1)));
            inner.push(Stmt::Assign(
                "acc".into(),
                var("acc") + z * select(lt(var(&i), u(n)), weight, f(0.0)),
            ));
        }
    }
    inner.push(Stmt::Store(Mem::Dst, var("line") + var("k"), var("acc")));
    body.push(Stmt::If(
        lt(var("row"), Expr::Builtin(Builtin::Lines)) & lt(var("k"), u(n)),
        inner,
    ));
    Kernel {
        name: format!("resample_{n}"),
        doc: vec![format!(
            "tierfft resampling of {n}-sample rows: {TAPS}-tap Hann-windowed sinc, weights at \
             {PHASES} phases per sample"
        )],
        threads: t as u32,
        groups_per_unit: None,
        shared: None,
        in_place: false,
        persistent: None,
        body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{cuda, wgsl};

    #[test]
    fn prints_in_both_dialects() {
        let k = resample_kernel(4096);
        let c = cuda::print(&k);
        let w = wgsl::print(&k);
        for s in [&c, &w] {
            assert!(s.contains("resample_4096"), "{s}");
            assert!(s.contains("w7"), "{s}");
        }
        assert!(c.contains("__float2uint_rn"));
        assert!(w.contains("u32(pa.x)"));
    }
}
