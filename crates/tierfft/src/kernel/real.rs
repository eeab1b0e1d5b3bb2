//! The kernels of [`Reshape`] steps: one thread per output element, moving between real and
//! complex data around the transforms of an N-D or real plan.
//!
//! Bindings: `src` and `dst` (f32 or complex as the step reads and writes), and for the
//! split and merge of even-length real rows `aux`, the twiddles `W_n^k`, `k = 0..=n/2`
//! (for the DCT/DST halves, `kernel/trig.rs`, the table of [`crate::Trig::twiddles`]).
//! The `lines` parameter is the number of outputs.

use super::ir::*;
use crate::base::precision::Precision;
use crate::plan::Reshape;

/// Threads per workgroup.
pub const RESHAPE_THREADS: usize = 256;

/// The workgroup grid for `outputs` elements, folded into two dimensions past `max_per_dim`
/// (the kernel guards the excess threads).
pub fn reshape_grid(outputs: usize, max_per_dim: u32) -> (u32, u32) {
    let groups = u32::try_from(outputs.div_ceil(RESHAPE_THREADS)).unwrap_or(u32::MAX);
    let x = groups.min(max_per_dim).max(1);
    (x, groups.div_ceil(x).max(1))
}

/// `(re, im)` → `(−im, re)`: multiplication by i.
pub(super) fn times_i(z: Expr) -> Expr {
    complex(-z.im(), z.re())
}

/// `(re, im)` → `(im, −re)`: multiplication by −i.
pub(super) fn times_minus_i(z: Expr) -> Expr {
    complex(z.im(), -z.re())
}

/// `z` conjugated.
pub(super) fn conj(z: Expr) -> Expr {
    complex(z.re(), -z.im())
}

/// The kernel for `step`, its values in `precision`.
pub fn reshape_kernel(step: &Reshape, precision: Precision) -> Kernel {
    let i = || var("i");
    let mut body = vec![Stmt::Comment("one output element per thread".into())];
    let index = Expr::Builtin(Builtin::GroupIndex) * u(RESHAPE_THREADS)
        + Expr::Builtin(Builtin::LocalIndex);
    body.push(Stmt::Let("i".into(), Ty::U32, index));
    let mut inner = Vec::new();
    let mut let_ = |name: &str, ty: Ty, e: Expr| {
        inner.push(Stmt::Let(name.into(), ty, e));
        var(name)
    };
    // Strided copies: the element `i` of the row-major array is at `at` in the strided one.
    let strided = |inner: &mut Vec<Stmt>, shape: &[usize], strides: &[usize]| -> Expr {
        let mut at = u(0);
        let mut outer: usize = shape.iter().product();
        for (a, (&n, &stride)) in shape.iter().zip(strides).enumerate() {
            outer /= n;
            if n == 1 {
                continue;
            }
            // Index along axis a: (i / elements of the axes after it) mod n.
            let index = format!("i{a}");
            inner.push(Stmt::Let(index.clone(), Ty::U32, (i() / u(outer)) % u(n)));
            at = at + var(index) * u(stride);
        }
        inner.push(Stmt::Let("at".into(), Ty::U32, at));
        var("at")
    };
    if let Reshape::Gather {
        ref shape,
        ref strides,
        ..
    }
    | Reshape::Scatter {
        ref shape,
        ref strides,
        ..
    } = *step
    {
        let gather = matches!(step, Reshape::Gather { .. });
        let mut inner = Vec::new();
        let at = strided(&mut inner, shape, strides);
        let (name, store) = if gather {
            ("gather", Stmt::Store(Mem::Dst, i(), load(Mem::Src, at)))
        } else {
            ("scatter", Stmt::Store(Mem::Dst, at, load(Mem::Src, i())))
        };
        inner.push(store);
        body.push(Stmt::If(lt(i(), Expr::Builtin(Builtin::Lines)), inner));
        return reshape_kernel_of(step, precision, name.into(), body);
    }
    if let Reshape::TrigLoad { .. } | Reshape::TrigStore { .. } = step {
        let (name, inner) = super::trig::trig_body(step, i());
        body.push(Stmt::If(lt(i(), Expr::Builtin(Builtin::Lines)), inner));
        return reshape_kernel_of(step, precision, name, body);
    }
    let (name, value) = match *step {
        Reshape::Split { n, scale, .. } => {
            let (m, h) = (n / 2, n / 2 + 1);
            let row = let_("row", Ty::U32, i() / u(h));
            let k = let_("k", Ty::U32, i() % u(h));
            let a = let_(
                "a",
                Ty::Complex,
                load(Mem::Src, row.clone() * u(m) + k.clone() % u(m)),
            );
            let b = let_(
                "b",
                Ty::Complex,
                conj(load(Mem::Src, row * u(m) + (u(m) - k.clone()) % u(m))),
            );
            let e = let_("e", Ty::Complex, (a.clone() + b.clone()) * f(0.5 * scale));
            let o = let_("o", Ty::Complex, (a - b) * f(0.5 * scale));
            let t = let_("t", Ty::Complex, load(Mem::Aux, k).cmul(o));
            // X = e − i·W^k·o
            (format!("split_{n}"), e + times_minus_i(t))
        }
        Reshape::Merge { n, scale, .. } => {
            let (m, h) = (n / 2, n / 2 + 1);
            let row = let_("row", Ty::U32, i() / u(m));
            let k = let_("k", Ty::U32, i() % u(m));
            let first = let_("first", Ty::Bool, lt(k.clone(), u(1)));
            let x = let_(
                "x",
                Ty::Complex,
                load(Mem::Src, row.clone() * u(h) + k.clone()),
            );
            let y = let_(
                "y",
                Ty::Complex,
                load(Mem::Src, row * u(h) + u(m) - k.clone()),
            );
            // Bins 0 and n/2 are real in a real signal's spectrum: their imaginary parts
            // are ignored (they are the pair k = 0).
            let a = let_(
                "a",
                Ty::Complex,
                complex(x.re(), select(first.clone(), f(0.0), x.im())),
            );
            let b = let_(
                "b",
                Ty::Complex,
                complex(y.re(), select(first, f(0.0), -y.im())),
            );
            let t = let_(
                "t",
                Ty::Complex,
                conj(load(Mem::Aux, k)).cmul(a.clone() - b.clone()),
            );
            // Z = (a + b) + i·W^−k·(a − b)
            (format!("merge_{n}"), (a + b + times_i(t)) * f(scale))
        }
        Reshape::Widen { .. } => ("widen".into(), complex(load(Mem::Src, i()), f(0.0))),
        Reshape::Truncate { n, inner, .. } => {
            let h = n / 2 + 1;
            let outer = let_("outer", Ty::U32, i() / u(h * inner));
            (
                format!("truncate_{n}_{inner}"),
                load(Mem::Src, i() + outer * u((n - h) * inner)),
            )
        }
        Reshape::Extend { n, inner, .. } => {
            let h = n / 2 + 1;
            let outer = let_("outer", Ty::U32, i() / u(n * inner));
            let rest = let_("rest", Ty::U32, i() % u(n * inner));
            let k = let_("k", Ty::U32, rest.clone() / u(inner));
            let col = let_("col", Ty::U32, rest % u(inner));
            let kept = let_("kept", Ty::Bool, lt(k.clone(), u(h)));
            let from = let_("src_k", Ty::U32, select(kept.clone(), k.clone(), u(n) - k));
            let z = let_(
                "z",
                Ty::Complex,
                load(Mem::Src, outer * u(h * inner) + from * u(inner) + col),
            );
            (
                format!("extend_{n}_{inner}"),
                complex(z.re(), select(kept, z.im(), -z.im())),
            )
        }
        Reshape::RealPart { scale, .. } => {
            ("real_part".into(), load(Mem::Src, i()).re() * f(scale))
        }
        Reshape::Gather { .. }
        | Reshape::Scatter { .. }
        | Reshape::TrigLoad { .. }
        | Reshape::TrigStore { .. } => unreachable!("generated above"),
    };
    inner.push(Stmt::Store(Mem::Dst, i(), value));
    body.push(Stmt::If(lt(i(), Expr::Builtin(Builtin::Lines)), inner));
    reshape_kernel_of(step, precision, name, body)
}

/// The kernel of `step` around `body`: its bindings and launch shape.
fn reshape_kernel_of(
    step: &Reshape,
    precision: Precision,
    name: String,
    body: Vec<Stmt>,
) -> Kernel {
    let (real_src, real_dst) = step.real_ends();
    let ty = |real: bool| if real { Ty::Real } else { Ty::Complex };
    let mut bindings = vec![
        Binding::read(Mem::Src, ty(real_src)),
        Binding::read_write(Mem::Dst, ty(real_dst)),
    ];
    if step.twiddle_count().is_some() {
        bindings.push(Binding::read(Mem::Aux, Ty::Complex));
    }
    Kernel {
        name,
        doc: vec![format!("tierfft: {}", step.name())],
        precision,
        threads: RESHAPE_THREADS as u32,
        groups_per_unit: None,
        cluster: None,
        shared: None,
        bindings,
        persistent: None,
        body,
    }
}

#[cfg(test)]
mod tests {
    use num_complex::Complex32;

    use super::*;
    use crate::kernel::eval::{Buffers, run_kernel};
    use crate::kernel::{cuda, wgsl};

    /// Runs `step`'s kernel in the interpreter on `src` (f32 values) into a poisoned
    /// destination, and the host version, and returns the largest difference.
    fn kernel_against_host(step: &Reshape, src: &[f32]) -> f32 {
        let (_, floats) = step.words(Precision::F32);
        let pairs = |v: &[f32]| -> Vec<Complex32> {
            v.chunks(2)
                .map(|c| Complex32::new(c[0], c.get(1).copied().unwrap_or(0.0)))
                .collect()
        };
        let src_c = pairs(src);
        let mut dst = vec![Complex32::new(f32::NAN, f32::NAN); floats.div_ceil(2)];
        let twiddles: Vec<Complex32> = step
            .twiddles()
            .unwrap_or_default()
            .iter()
            .map(|z| Complex32::new(z.re as f32, z.im as f32))
            .collect();
        let kernel = reshape_kernel(step, Precision::F32);
        let (x, y) = reshape_grid(step.outputs(), 1 << 16);
        run_kernel(
            &kernel,
            x * y,
            step.outputs() as u32,
            &mut Buffers {
                src: Some(&src_c),
                dst: &mut dst,
                twiddles: &[],
                aux: &twiddles,
                check: &mut [],
                counters: &mut [],
            },
        )
        .unwrap_or_else(|e| panic!("{}: {e}", step.name()));
        let mut want = vec![f32::NAN; floats];
        let w = crate::plan::rounded_twiddles::<f32>(step);
        crate::plan::reshape_on_host::<f32>(step, &w, src, &mut want);
        let got: &[f32] = bytemuck::cast_slice(&dst);
        got[..floats]
            .iter()
            .zip(&want)
            .map(|(g, w)| match (g.is_nan(), w.is_nan()) {
                // Left unwritten by both.
                (true, true) => 0.0,
                (false, false) => (g - w).abs(),
                _ => f32::INFINITY,
            })
            .fold(0.0, f32::max)
    }

    fn values(len: usize) -> Vec<f32> {
        (0..len)
            .map(|i| ((i * 7919) % 1000) as f32 / 500.0 - 1.0)
            .collect()
    }

    #[test]
    fn split_and_merge_of_every_even_length_to_1024_match_the_host() {
        for n in (2..=1024).step_by(2) {
            let rows = 2;
            let split = Reshape::Split {
                n,
                rows,
                scale: 1.0,
            };
            assert!(
                kernel_against_host(&split, &values(rows * n)) < 1e-5,
                "split {n}"
            );
            let merge = Reshape::Merge {
                n,
                rows,
                scale: 0.5,
            };
            let bins = values(2 * rows * (n / 2 + 1));
            assert!(kernel_against_host(&merge, &bins) < 1e-5, "merge {n}");
        }
    }

    #[test]
    fn widen_cut_extend_and_real_parts_match_the_host() {
        for (outer, n, inner) in [(1, 1, 1), (3, 5, 4), (2, 8, 3), (1, 17, 1), (4, 2, 9)] {
            let len = outer * n * inner;
            let h = n / 2 + 1;
            for (step, src) in [
                (Reshape::Widen { len }, values(len)),
                (Reshape::Truncate { outer, n, inner }, values(2 * len)),
                (
                    Reshape::Extend { outer, n, inner },
                    values(2 * outer * h * inner),
                ),
                (Reshape::RealPart { len, scale: 0.25 }, values(2 * len)),
            ] {
                assert_eq!(kernel_against_host(&step, &src), 0.0, "{}", step.name());
            }
        }
    }

    #[test]
    fn dct_and_dst_halves_match_the_host() {
        for transform in crate::trig::Trig::ALL {
            for n in (transform.min_len()..=12).chain([17, 32]) {
                for (outer, inner) in [(1, 1), (2, 3), (3, 1), (3, 4)] {
                    for orthogonalize in [false, true] {
                        let m = transform.fft_len(n);
                        let pairs = crate::plan::LinePairs::choose(transform, outer, inner);
                        let lines = pairs.fft_lines(outer, inner);
                        let load = Reshape::TrigLoad {
                            transform,
                            outer,
                            n,
                            inner,
                            orthogonalize,
                            pairs,
                        };
                        let e = kernel_against_host(&load, &values(outer * n * inner));
                        assert!(e < 1e-6, "{}: {e}", load.name());
                        let store = Reshape::TrigStore {
                            transform,
                            outer,
                            n,
                            inner,
                            orthogonalize,
                            pairs,
                            scale: 0.75,
                        };
                        let e = kernel_against_host(&store, &values(2 * lines * m));
                        assert!(e < 1e-5, "{}: {e}", store.name());
                    }
                }
            }
        }
    }

    #[test]
    fn gathers_and_scatters_match_the_host() {
        for (shape, strides) in [
            (vec![3, 4], vec![5, 1]),
            (vec![3, 4], vec![1, 3]),
            (vec![2, 1, 5], vec![0, 7, 2]),
            (vec![7], vec![3]),
        ] {
            for real in [false, true] {
                let span = crate::base::layout::span(&shape, &strides).expect("small");
                let per = if real { 1 } else { 2 };
                let gather = Reshape::Gather {
                    shape: shape.clone(),
                    strides: strides.clone(),
                    real,
                };
                assert_eq!(kernel_against_host(&gather, &values(span * per)), 0.0);
                if strides.contains(&0) {
                    continue;
                }
                let len: usize = shape.iter().product();
                let scatter = Reshape::Scatter {
                    shape: shape.clone(),
                    strides: strides.clone(),
                    real,
                };
                assert_eq!(kernel_against_host(&scatter, &values(len * per)), 0.0);
            }
        }
    }

    #[test]
    fn prints_in_both_dialects_with_real_bindings() {
        let k = reshape_kernel(&Reshape::Widen { len: 10 }, Precision::F32);
        assert!(wgsl::print(&k).contains("var<storage, read> src: array<f32>;"));
        assert!(cuda::print(&k).contains("const float* __restrict__ src"));
        let part = Reshape::RealPart {
            len: 10,
            scale: 1.0,
        };
        let k = reshape_kernel(&part, Precision::F32);
        assert!(wgsl::print(&k).contains("var<storage, read_write> dst: array<f32>;"));
        let k = reshape_kernel(&part, Precision::F64);
        assert!(wgsl::print(&k).contains("var<storage, read_write> dst: array<f64>;"));
        assert!(cuda::print(&k).contains("double* __restrict__ dst"));
    }
}
