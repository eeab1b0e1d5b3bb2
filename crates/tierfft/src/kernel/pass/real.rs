//! An even real transform's merge (C2R, on the first pass's load) and split (R2C, after the
//! last pass's last stage), fused into its half-length complex transform
//! ([`crate::RealHalf`]). `n` below is the half-length transform's points; rows of bins hold
//! `n + 1`.

use super::PassGen;
use crate::base::values::Values;
use crate::kernel::ir::*;
use crate::kernel::real::{conj, times_i, times_minus_i};
use crate::plan::{Exchange, RealFusion};
use crate::spec::RealHalf;

impl PassGen<'_> {
    /// Loads the line's points from device memory: merged or extended from bins where the
    /// pass fuses a C2R's merge or extension, else as they are.
    pub(super) fn load_line(&mut self) {
        match self.pass.load.real() {
            Some(RealFusion {
                half: RealHalf::Merge { scale },
                twiddles,
            }) => self.load_merged(*scale, twiddles.as_ref()),
            Some(RealFusion {
                half: RealHalf::Extend,
                ..
            }) => self.load_extended(),
            _ => self.load(),
        }
    }

    /// Stores the line's points to device memory: split into bins where the pass fuses an
    /// R2C's split, else as they are (a cut rides on the plain store).
    pub(super) fn store_line(&mut self) {
        match self.pass.store.real() {
            Some(RealFusion {
                half: RealHalf::Split { scale },
                twiddles,
            }) => self.store_split(*scale, twiddles.as_ref()),
            _ => self.store(),
        }
    }

    /// Loads each held point `k` merged from bins `k` and `n − k` of its row:
    /// `Z[k] = ((a + b) + i·W^−k·(a − b))·scale` with `a = X[k]`, `b = X*[n−k]`, the
    /// imaginary parts of bins 0 and `n` ignored (a real signal's spectrum has none).
    #[expect(
        clippy::expect_used,
        reason = "the planner gives every merge its twiddles"
    )]
    pub(super) fn load_merged(&mut self, scale: f64, twiddles: Option<&Values>) {
        let n = self.geometry.n;
        let twiddles = twiddles.expect("the planner gives a merge its twiddles");
        let w = self.aux_offset(twiddles);
        let p = self.pass;
        if p.size == n && p.rounds <= 1 && p.exchanges() > 0 {
            return self.load_merged_line(scale, w);
        }
        self.em.comment(format!(
            "C2R: load bins k and {n} − k of each point's row of {} and merge them",
            n + 1
        ));
        for m in 0..self.e() {
            let k = self.em.bind(Ty::U32, self.in_index(m));
            let at = self.element(Mem::Src, k.clone());
            let x = self.em.bind(Ty::Complex, load(Mem::Src, at));
            let at = self.element(Mem::Src, u(n) - k.clone());
            let y = self.em.bind(Ty::Complex, load(Mem::Src, at));
            self.merge_point(m, k, x, y, scale, w);
        }
        self.declare_spare_registers();
    }

    /// [`PassGen::load_merged`] for a one-pass line whose exchanges hold it whole: each bin
    /// is loaded once and the thread holding `k` reads bin `n − k` from workgroup memory
    /// (bin `n`, the mirror of 0, from device memory), rather than every bin twice from
    /// device memory.
    fn load_merged_line(&mut self, scale: f64, w: usize) {
        let n = self.geometry.n;
        self.em.comment(format!(
            "C2R: load bin k of each point's row of {}, bin {n} − k through workgroup memory, \
             and merge them",
            n + 1
        ));
        let (t, e) = (self.t(), self.e());
        let ks: Vec<Expr> = (0..e).map(|m| var("tl") + u(t * m)).collect();
        let xs: Vec<Expr> = ks
            .iter()
            .map(|k| {
                let at = self.element(Mem::Src, k.clone());
                self.em.bind(Ty::Complex, load(Mem::Src, at))
            })
            .collect();
        // Bin n, the mirror of k = 0.
        let at = self.element(Mem::Src, u(n));
        let last = self.em.bind(Ty::Complex, load(Mem::Src, at));
        let mirrors: Vec<Expr> = (ks.iter().enumerate())
            .map(|(m, k)| self.merge_mirror(m, k))
            .collect();
        // (X[k], X[n − k]) for each of the thread's k, each read where it is used.
        let pairs = self.pair_with_mirrors(&xs, &mirrors, false);
        for (m, (k, (x, y))) in ks.into_iter().zip(pairs).enumerate() {
            let k = self.em.bind(Ty::U32, k);
            let x = self.em.bind(Ty::Complex, x);
            let y = match m {
                0 => select(lt(k.clone(), u(1)), last.clone(), y),
                _ => y,
            };
            let y = self.em.bind(Ty::Complex, y);
            self.merge_point(m, k, x, y, scale, w);
        }
        self.declare_spare_registers();
    }

    /// Each of `values` (the thread's held points, in register order) paired with the value
    /// at its mirror's workgroup-memory index (`mirrors`, padded) through workgroup memory:
    /// `(value, mirror)` as loads from there, bound at once where `read_first` (the split
    /// exchange, which sends real and imaginary parts in turn, always binds).
    fn pair_with_mirrors(
        &mut self,
        values: &[Expr],
        mirrors: &[Expr],
        read_first: bool,
    ) -> Vec<(Expr, Expr)> {
        let own: Vec<Expr> = self
            .held_slots()
            .into_iter()
            .map(|(_, at)| self.pad(at))
            .collect();
        match self.pass.exchange {
            Exchange::Complex => {
                self.before_write();
                for (z, at) in values.iter().zip(&own) {
                    self.em
                        .push(Stmt::Store(Mem::Shared, at.clone(), z.clone()));
                }
                self.before_read();
                own.iter()
                    .zip(mirrors)
                    .map(|(a, b)| {
                        let (a, b) = (load(Mem::Shared, a.clone()), load(Mem::Shared, b.clone()));
                        match read_first {
                            true => (self.em.bind(Ty::Complex, a), self.em.bind(Ty::Complex, b)),
                            false => (a, b),
                        }
                    })
                    .collect()
            }
            Exchange::Split => {
                let mut parts = Vec::new();
                for part in [Expr::re as fn(&Expr) -> Expr, Expr::im] {
                    self.before_write();
                    for (z, at) in values.iter().zip(&own) {
                        self.em.push(Stmt::Store(Mem::Shared, at.clone(), part(z)));
                    }
                    self.before_read();
                    let read: Vec<(Expr, Expr)> = own
                        .iter()
                        .zip(mirrors)
                        .map(|(a, b)| {
                            (
                                self.em.bind(Ty::Real, load(Mem::Shared, a.clone())),
                                self.em.bind(Ty::Real, load(Mem::Shared, b.clone())),
                            )
                        })
                        .collect();
                    parts.push(read);
                }
                parts[0]
                    .iter()
                    .zip(&parts[1])
                    .map(|((ar, br), (ai, bi))| {
                        (
                            complex(ar.clone(), ai.clone()),
                            complex(br.clone(), bi.clone()),
                        )
                    })
                    .collect()
            }
        }
    }

    /// Workgroup-memory index (padded) of bin `n − k` of register `m`'s line, bin 0's for
    /// `k = 0` (whose mirror, bin `n`, is not in the line).
    fn merge_mirror(&mut self, m: usize, k: &Expr) -> Expr {
        let n = self.geometry.n;
        let mk = match m {
            // (Only register 0 of thread 0 holds k = 0.)
            0 => select(lt(k.clone(), u(1)), u(0), u(n) - k.clone()),
            _ => u(n) - k.clone(),
        };
        let mk = self.em.bind(Ty::U32, mk);
        let at = self.shared_index(mk);
        self.pad_whole(at)
    }

    /// Register `m` merged from `x = X[k]` and `y = X[n − k]`:
    /// `Z[k] = ((a + b) + i·W^−k·(a − b))·scale` with `a = x`, `b = y*`, the imaginary parts
    /// of bins 0 and `n` ignored; `W` read from `aux` at `w`.
    fn merge_point(&mut self, m: usize, k: Expr, x: Expr, y: Expr, scale: f64, w: usize) {
        let first = self.em.bind(Ty::Bool, lt(k.clone(), u(1)));
        let a = complex(x.re(), select(first.clone(), f(0.0), x.im()));
        let a = self.em.bind(Ty::Complex, a);
        let b = complex(y.re(), select(first, f(0.0), -y.im()));
        let b = self.em.bind(Ty::Complex, b);
        let t = conj(load(Mem::Aux, u(w) + k)).cmul(a.clone() - b.clone());
        let t = self.em.bind(Ty::Complex, t);
        self.em.push(Stmt::Var(
            format!("v{m}"),
            Ty::Complex,
            (a + b + times_i(t)) * f(scale),
        ));
    }

    /// Loads each held point `k` from its row of `n/2 + 1` bins: bin `k` up to `n/2`, above
    /// it the conjugate of bin `n − k` (a real signal's spectrum is Hermitian).
    pub(super) fn load_extended(&mut self) {
        let n = self.geometry.n;
        self.em.comment(format!(
            "C2R: bins 0..={} of each row, the rest by Hermitian symmetry",
            n / 2
        ));
        for m in 0..self.e() {
            let k = self.em.bind(Ty::U32, self.in_index(m));
            let kept = self.em.bind(Ty::Bool, lt(k.clone(), u(n / 2 + 1)));
            let from = select(kept.clone(), k.clone(), u(n) - k);
            let at = self.element(Mem::Src, from);
            let z = self.em.bind(Ty::Complex, load(Mem::Src, at));
            self.em.push(Stmt::Var(
                format!("v{m}"),
                Ty::Complex,
                complex(z.re(), select(kept, z.im(), -z.im())),
            ));
        }
        self.declare_spare_registers();
    }

    /// Stores the line's bins: the held points `Z` go to workgroup memory, each thread reads
    /// `a = Z[k]` and `b = Z*[n−k]` for each output `k` it holds and stores
    /// `X[k] = ((a + b) − i·W^k·(a − b))·scale/2`, and the thread holding `k = 0` also
    /// `X[n] = (Re Z[0] − Im Z[0])·scale`. In a one-pass line `n − k` is in the same line; in
    /// the last of several passes it is in the mirror line the workgroup also holds.
    pub(super) fn store_split(&mut self, scale: f64, twiddles: Option<&Values>) {
        let n = self.geometry.n;
        let p = self.pass;
        let w = twiddles.map(|t| self.aux_offset(t));
        let (t, e) = (self.t(), self.e());
        self.em.comment(format!(
            "R2C: pair points k and {n} − k through workgroup memory, split into {} bins",
            n + 1
        ));
        let positions: Vec<Expr> = (0..e).map(|q| var("tl") + u(t * q)).collect();
        let mut ks = Vec::with_capacity(e);
        let mut mirrors = Vec::with_capacity(e);
        if p.size == n {
            for pos in &positions {
                ks.push(pos.clone());
                let mk = select(lt(pos.clone(), u(1)), u(0), u(n) - pos.clone());
                let mk = self.em.bind(Ty::U32, mk);
                let at = self.shared_index(mk);
                mirrors.push(self.pad_whole(at));
            }
        } else {
            // Line j's point q is output k = j + q·S; its mirror is point size − 1 − q of the
            // mirror line (lc ± L/2), or, for the lines that are their own mirrors (0 and
            // S/2, where pair_base is 0), point (size − q) mod size of line 0 and
            // size − 1 − q of line S/2.
            let (lines, size) = (p.lines_per_group, p.size);
            let stride = n / size;
            let first_half = self.em.bind(Ty::Bool, lt(var("lc"), u(lines / 2)));
            let own = self.em.bind(Ty::Bool, lt(var("pair_base"), u(1)));
            let other = select(
                first_half.clone(),
                var("lc") + u(lines / 2),
                var("lc") - u(lines / 2),
            );
            let partner = self.em.bind(Ty::U32, select(own.clone(), var("lc"), other));
            for pos in &positions {
                ks.push(var("j") + pos.clone() * u(stride));
                let wrap = select(lt(pos.clone(), u(1)), u(0), u(size) - pos.clone());
                let back = u(size - 1) - pos.clone();
                let zero = select(first_half.clone(), wrap, back.clone());
                let mpos = select(own.clone(), zero, back);
                let mpos = self.em.bind(Ty::U32, mpos);
                let at = self.shared_index_at(partner.clone(), mpos);
                mirrors.push(self.pad_whole(at));
            }
        }
        // (Z[k], Z[n − k]) for each of the thread's k. Unguarded lines read each pair where
        // it is used, so that a thread holds one at a time; guarded ones (small packed lines)
        // all first.
        let held: Vec<Expr> = self.regs[..e].to_vec();
        let pairs = self.pair_with_mirrors(&held, &mirrors, self.guarded);
        let half = f(0.5 * scale);
        self.em.comment("split and store the bins");
        // Unguarded, each bin is stored once computed (nothing held across the loop: at 2^17
        // reals in clusters, 88 bytes of spills fewer; 16384 reals 0.85 → 0.92 of cuFFT on the
        // H100); guarded, under one condition after all (64 reals: 0.86 against 0.72).
        let mut guarded = Vec::new();
        for (q, (k, (a, b))) in ks.into_iter().zip(pairs).enumerate() {
            let k = self.em.bind(Ty::U32, k);
            let a = self.em.bind(Ty::Complex, a);
            let b = self.em.bind(Ty::Complex, conj(b));
            let even = self
                .em
                .bind(Ty::Complex, (a.clone() + b.clone()) * half.clone());
            let odd = self.em.bind(Ty::Complex, (a.clone() - b) * half.clone());
            let tw = self.split_twiddle(w, k.clone()).cmul(odd);
            let tw = self.em.bind(Ty::Complex, tw);
            let x = self.em.bind(Ty::Complex, even + times_minus_i(tw));
            let mut stores = vec![Stmt::Store(Mem::Dst, self.element(Mem::Dst, k.clone()), x)];
            if q == 0 {
                // Bin n (W^n = −1): (Re Z[0] − Im Z[0])·scale, by the thread holding k = 0.
                let last = complex((a.re() - a.im()) * f(scale), f(0.0));
                stores.push(Stmt::If(
                    lt(k.clone(), u(1)),
                    vec![Stmt::Store(Mem::Dst, self.element(Mem::Dst, u(n)), last)],
                ));
            }
            match self.guarded {
                true => guarded.extend(stores),
                false => self.em.stmts.extend(stores),
            }
        }
        if self.guarded {
            self.em.push(Stmt::If(var("valid"), guarded));
        }
    }

    /// `W^k = exp(−πik/n)` for the split: from the `aux` table (at `offset`) in a one-pass
    /// line, whose threads read neighbouring entries; in the last of several passes (no
    /// table), whose `k` are strided, from the pass twiddles' two small tables (`W^k = W_n^(k/2)`, times
    /// `W^1` for odd `k`), which stay cached where the `n + 1`-entry table would not.
    fn split_twiddle(&mut self, offset: Option<usize>, k: Expr) -> Expr {
        let n = self.geometry.n;
        if let Some(offset) = offset {
            return load(Mem::Aux, u(offset) + k);
        }
        let tw = &self.plan.twiddles;
        let e = self.em.bind(Ty::U32, k.clone() >> u(1));
        let lo = load(
            Mem::Twiddles,
            u(tw.lo_offset()) + (e.clone() & u((1 << tw.lo_bits) - 1)),
        );
        let hi = load(
            Mem::Twiddles,
            u(tw.hi_offset()) + (e >> u(tw.lo_bits as usize)),
        );
        let even = self.em.bind(Ty::Complex, lo.cmul(hi));
        let step = crate::base::twiddle::twiddle64(1, 2 * n, -1.0);
        let odd = even.clone().cmul(complex(f(step.re), f(step.im)));
        let is_even = lt(k & u(1), u(1));
        self.em.bind(Ty::Complex, select(is_even, even, odd))
    }

    /// Workgroup-memory index `i` padded as [`PassGen::pad`] pads (one slot after every
    /// period), for indices with no known constant part: computed whole.
    fn pad_whole(&mut self, i: Expr) -> Expr {
        if !self.pass.padded {
            return i;
        }
        let shift = self.pass.exchange.pad_period().trailing_zeros() as usize;
        let i = self.em.bind(Ty::U32, i);
        self.em.bind(Ty::U32, i.clone() + (i >> u(shift)))
    }
}
