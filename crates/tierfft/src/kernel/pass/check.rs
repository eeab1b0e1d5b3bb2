//! The checksums of a checksummed plan's kernels ([`crate::Checksum`]): the first pass sums
//! its loaded points times the input weights, the last pass its stored points times the
//! output weights (and their energy); each line's threads then add their partial sums, by
//! warp shuffles where the device has them (a record per warp, or per line where lines are
//! shorter) or through workgroup memory (a record per line), and write them to `chk`; a
//! cluster pass writes a record per warp, its head the input sums, its tail the output sums.

use super::PassGen;
use crate::kernel::ir::*;
use crate::plan::Exchange;

/// Per-thread accumulators: input sum, output sum, output energy.
const IN: &str = "ck_in";
const OUT: &str = "ck_out";
const ENERGY: &str = "ck_energy";

/// Lines' partial sums combine this many to a step (fewer barriers than halving).
const FAN_IN: usize = 8;

impl PassGen<'_> {
    /// `Σ c_j x_j` over the thread's loaded points (the first pass, after the fused load
    /// operations, before any twiddle).
    pub(super) fn sum_input(&mut self) {
        let Some(weights) = &self.pass.check_in() else {
            return;
        };
        let offset = self.aux_offset(weights);
        self.em
            .comment("checksum: the loaded points times the input weights");
        let terms: Vec<Expr> = (0..self.e())
            .map(|m| {
                self.regs[m]
                    .clone()
                    .cmul(load(Mem::Aux, u(offset) + self.in_index(m)))
            })
            .collect();
        self.em.push(Stmt::Var(IN.into(), Ty::Complex, sum(terms)));
    }

    /// `Σ w_k X_k` and `Σ |X_k|²` over the thread's points about to be stored (the last
    /// pass, after any normalisation, before the fused store operations, in the held
    /// layout).
    pub(super) fn sum_output(&mut self) {
        let Some(weights) = &self.pass.check_out() else {
            return;
        };
        let offset = self.aux_offset(weights);
        self.em
            .comment("checksum: the stored points times the output weights, and their energy");
        let (mut terms, mut energy) = (Vec::new(), Vec::new());
        for m in 0..self.e() {
            let v = self.regs[m].clone();
            terms.push(
                v.clone()
                    .cmul(load(Mem::Aux, u(offset) + self.out_index(m))),
            );
            energy.push(v.re() * v.re() + v.im() * v.im());
        }
        self.em.push(Stmt::Var(OUT.into(), Ty::Complex, sum(terms)));
        self.em
            .push(Stmt::Var(ENERGY.into(), Ty::Real, sum(energy)));
    }

    /// Adds the line's threads' sums and writes them, `r` complex values a record: by lane
    /// sums, a record per group of [`Plan::lane_width`] threads (`chk[(line·g + tl / w)·r +
    /// q]`), where the plan has them; else by a tree of [`FAN_IN`]-way steps through
    /// workgroup memory, a record per line (`chk[line·r + q]`).
    ///
    /// [`Plan::lane_width`]: crate::plan::Plan::lane_width
    pub(super) fn write_checks(&mut self) {
        let p = self.pass;
        let rec = p.check_record();
        if rec == 0 {
            return;
        }
        let mut reals = Vec::new();
        if p.check_in().is_some() {
            reals.extend([var(IN).re(), var(IN).im()]);
        }
        if p.check_out().is_some() {
            reals.extend([var(OUT).re(), var(OUT).im(), var(ENERGY)]);
        }
        let t = self.t();
        self.em.comment(format!(
            "checksum: add the line's {t} threads' sums, write its record"
        ));
        let first_thread = lt(var("tl"), u(1));
        let write_if = match self.guarded {
            true => vec![first_thread, var("valid")],
            false => vec![first_thread],
        };
        if t == 1 {
            let writes = record_writes(&reals, rec, var("line"), 0);
            self.em.push(nest(write_if, writes));
            return;
        }
        if let Some(width) = self.plan.lane_width(p) {
            // Each group of `width` threads adds its sums by shuffles and its first thread
            // writes the group's record: segment tl / width of the line.
            let sums = self.lane_sums(reals, width);
            let segments = t / width;
            let record = var("line") * u(segments) + var("tl") / u(width);
            let mut conds = vec![lt(var("tl") % u(width), u(1))];
            conds.extend(write_if.into_iter().skip(1));
            self.em
                .push(nest(conds, record_writes(&sums, rec, record, 0)));
            return;
        }
        // Slot `s` of thread `x` of line `lc`: element (lc·slots + s)·T + x.
        let slots = match p.exchange {
            Exchange::Complex => reals
                .chunks(2)
                .map(|c| complex(c[0].clone(), c.get(1).cloned().unwrap_or(f(0.0))))
                .collect::<Vec<_>>(),
            Exchange::Split => reals.clone(),
        };
        let ns = slots.len();
        let at = move |s: usize, x: Expr| var("lc") * u(ns * t) + u(s * t) + x;
        self.before_write();
        for (s, v) in slots.iter().enumerate() {
            self.em
                .push(Stmt::Store(Mem::Shared, at(s, var("tl")), v.clone()));
        }
        self.before_read();
        let slot_ty = match p.exchange {
            Exchange::Complex => Ty::Complex,
            Exchange::Split => Ty::Real,
        };
        let mut cur = t;
        let mut level = 0;
        while cur > 1 {
            // Threads tl < h add slots tl, tl + h, ..., tl + 7h (those below `cur`); only
            // thread tl writes slot tl, which no other thread reads in this step.
            let h = cur.div_ceil(FAN_IN);
            let mut block = Vec::new();
            let mut sums = Vec::new();
            for s in 0..ns {
                let mut terms = vec![load(Mem::Shared, at(s, var("tl")))];
                for r in 1..FAN_IN {
                    if r * h >= cur {
                        break;
                    }
                    let x = var("tl") + u(r * h);
                    terms.push(if (r + 1) * h > cur {
                        // Only the first cur − r·h threads have a slot this far.
                        let zero = match slot_ty {
                            Ty::Complex => complex(f(0.0), f(0.0)),
                            _ => f(0.0),
                        };
                        select(
                            lt(x.clone(), u(cur)),
                            load(Mem::Shared, at(s, min(x, u(cur - 1)))),
                            zero,
                        )
                    } else {
                        load(Mem::Shared, at(s, x))
                    });
                }
                let name = format!("ck{level}_{s}");
                block.push(Stmt::Let(name.clone(), slot_ty, sum(terms)));
                sums.push(var(name));
            }
            if h == 1 {
                // Thread 0 holds the line's sums: its record.
                let reals: Vec<Expr> = match p.exchange {
                    Exchange::Complex => sums.iter().flat_map(|z| [z.re(), z.im()]).collect(),
                    Exchange::Split => sums,
                };
                block.push(nest(
                    write_if.clone(),
                    record_writes(&reals, rec, var("line"), 0),
                ));
                self.em.push(Stmt::If(lt(var("tl"), u(1)), block));
            } else {
                for (s, v) in sums.into_iter().enumerate() {
                    block.push(Stmt::Store(Mem::Shared, at(s, var("tl")), v));
                }
                self.em.push(Stmt::If(lt(var("tl"), u(h)), block));
                self.em.push(Stmt::Barrier);
            }
            cur = h;
            level += 1;
        }
    }

    /// A cluster pass's records ([`Plan::check_records`]): each warp adds its threads' sums
    /// by shuffles and its first lane writes them into the warp's record,
    /// `chk[(group·W + warp)·r + q]` (`W` warps a workgroup): the head its input sum (`q` =
    /// 0), the tail its output sum and energy (`q` = 1, 2). The workgroups of a cluster hold
    /// one transform, so a warp's lines are all of it.
    ///
    /// [`Plan::check_records`]: crate::plan::Plan::check_records
    pub(super) fn write_cluster_checks(&mut self, rec: usize) {
        let (reals, first) = match (self.pass.check_in(), self.pass.check_out()) {
            (Some(_), _) => (vec![var(IN).re(), var(IN).im()], 0),
            (None, Some(_)) => (vec![var(OUT).re(), var(OUT).im(), var(ENERGY)], 1),
            (None, None) => return,
        };
        let warp = self.plan.limits.subgroup_size;
        let warps = self.pass.threads() / warp;
        self.em.comment(format!(
            "checksum: add each warp's sums, write its record ({warps} a workgroup)"
        ));
        let sums = self.lane_sums(reals, warp);
        let local = Expr::Builtin(Builtin::LocalIndex);
        let record = Expr::Builtin(Builtin::GroupIndex) * u(warps) + local.clone() / u(warp);
        self.em.push(Stmt::If(
            lt(local % u(warp), u(1)),
            record_writes(&sums, rec, record, first),
        ));
    }

    /// Each of `reals` added over groups of `width` neighbouring threads by shuffles
    /// (`ck_lanes{q}`, every thread of a group holding its sum).
    fn lane_sums(&mut self, reals: Vec<Expr>, width: usize) -> Vec<Expr> {
        reals
            .into_iter()
            .enumerate()
            .map(|(q, v)| {
                let name = format!("ck_lanes{q}");
                self.em.push(Stmt::LaneSum {
                    name: name.clone(),
                    ty: Ty::Real,
                    value: v,
                    width: width as u32,
                });
                var(name)
            })
            .collect()
    }
}

/// `terms` added left to right (zero for none). (A balanced tree, tried on the H100, was
/// faster at some lengths and slower at others as the registers fell out:
/// docs/BENCHMARKS.md, "2026-11-27, commits dc5820d and d20c764".)
fn sum(terms: Vec<Expr>) -> Expr {
    terms
        .into_iter()
        .reduce(|a, b| a + b)
        .unwrap_or(complex(f(0.0), f(0.0)))
}

/// Record `record`'s stores: `reals` (input re, im, output re, im, energy; as the pass has
/// them) paired into complex values at `chk[record·rec + q]`, `q` from `first`.
fn record_writes(reals: &[Expr], rec: usize, record: Expr, first: usize) -> Vec<Stmt> {
    reals
        .chunks(2)
        .enumerate()
        .map(|(q, c)| {
            let value = complex(c[0].clone(), c.get(1).cloned().unwrap_or(f(0.0)));
            Stmt::Store(Mem::Check, record.clone() * u(rec) + u(first + q), value)
        })
        .collect()
}

/// `body` under every condition of `conds` (at least one), nested.
fn nest(conds: Vec<Expr>, body: Vec<Stmt>) -> Stmt {
    let mut conds = conds.into_iter().rev();
    let innermost = conds.next().unwrap_or(lt(u(0), u(1)));
    conds.fold(Stmt::If(innermost, body), |inner, c| {
        Stmt::If(c, vec![inner])
    })
}
