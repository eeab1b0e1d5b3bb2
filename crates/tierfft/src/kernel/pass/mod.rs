//! One plan pass -> one kernel: load (with fused twiddles), on-chip radix stages exchanging
//! through workgroup memory, store.
//!
//! Thread `tl` of a line holds the points `tl + T·m` (`m < E`, `T` threads per line, `E`
//! points per thread) in registers `v0 .. v{E-1}` after the load and before the store: the
//! *held* layout. A radix-R stage has `size/R` butterflies; thread `tl` runs butterflies
//! `jj = tl + T·b` for `b < rounds = ceil(size/(R·T))`, butterfly `jj` taking line positions
//! `jj + rr·size/R` into register `b + rr·rounds`, and writing output `rr` to line position
//! `(jj / ns)·ns·R + jj mod ns + rr·ns` (Stockham autosort; `ns` is the product of the earlier
//! radices). When the butterflies share out evenly (`R` divides `E`, every power-of-two
//! line), register `b + rr·rounds` *is* held point `tl + T·(b + rr·rounds)`, so the first
//! stage reads the held registers and the last leaves its outputs there: only the stages in
//! between exchange through workgroup memory. A stage that does not share out evenly
//! (mixed radices, e.g. radix 13 on a 5616-point line) reads from workgroup memory and writes
//! back to it; its last round's surplus threads compute a copy of the last butterfly and store
//! nothing.
//!
//! Layers: this file assembles the kernel (interface, the order of load, stages and store)
//! and generates the stages from the codelets (`kernel/codelet`); `access.rs` holds the
//! memory access (device-memory indexing, loads and stores with their fused operations,
//! exchanges through workgroup memory, padding, barriers).

mod access;
mod check;
mod cluster;
mod exchange;
mod merged;
mod real;

use super::codelet::dft;
use super::emit::Emitter;
use super::ir::*;
use crate::base::precision::Precision;
use crate::base::values::Values;
use crate::plan::shape::stage_rounds;
use crate::plan::{Body, Exchange, Geometry, Pass, Plan};
use crate::spec::RealHalf;

/// Builds the kernel of pass `index` of `plan`. `in_place` binds one read-write buffer for
/// source and destination; only passes of whole lines may ask for it ([`Plan::kernels`]).
pub fn pass_kernel(plan: &Plan, index: usize, in_place: bool) -> Kernel {
    let pass = &plan.passes[index];
    assert!(
        !in_place || plan.kernels().contains(&(index, true)),
        "passes of part of a line run out of place"
    );
    if let Some(c) = &pass.cluster {
        return cluster::cluster_kernel(plan, index, c, in_place);
    }
    if let Some(m) = &plan.merged {
        return merged::merged_kernel(plan, m);
    }
    let g = pass_body(plan, index, false);
    let doc = pass_doc(plan, index);
    let shared = pass_shared(pass);
    Kernel {
        name: format!("fft_pass{}", index + 1),
        doc,
        precision: pass.precision,
        threads: pass.threads() as u32,
        groups_per_unit: pass.groups_per_unit.map(|g| g as u32),
        cluster: None,
        shared,
        bindings: streaming(plan, index, {
            let mut b = pass_bindings(in_place, pass.precision);
            if pass.check_record() > 0 {
                b.push(Binding::read_write(Mem::Check, Ty::Complex));
            }
            b
        }),
        persistent: pass.prefetch().then(|| Persistent {
            prologue: {
                let mut p = g.tables_to_shared();
                p.push(Stmt::Comment(
                    "prefetch the first group's lines into workgroup memory".into(),
                ));
                p.extend(g.prefetch(Expr::Builtin(Builtin::FirstGroup)));
                p
            },
            condition: lt(
                Expr::Builtin(Builtin::GroupIndex) * u(pass.lines_per_group),
                Expr::Builtin(Builtin::Lines),
            ),
            tickets: false,
        }),
        body: g.em.stmts,
    }
}

/// The header comment of pass `index`'s kernel: what it computes and its shape.
fn pass_doc(plan: &Plan, index: usize) -> Vec<String> {
    let pass = &plan.passes[index];
    let chain_inverse = pass.inverse();
    let total = plan.passes.len();
    let dir = match (plan.transform().direction.sign() < 0.0, chain_inverse) {
        (true, false) => "forward",
        (false, false) => "inverse",
        (_, true) => "chained back-transform (opposite direction)",
    };
    let mut doc = vec![
        format!(
            "tierfft pass {}/{total} of a {}-point {dir} FFT: {}-point lines, radices {}, stride {}",
            index + 1,
            plan.transform().n,
            pass.size,
            pass.radix_label(),
            pass.stride
        ),
        format!(
            "{} lines per workgroup ({:?}), {} threads per line, {} points per thread, {:?} exchange",
            pass.lines_per_group,
            pass.order,
            pass.threads_per_line,
            pass.points_per_thread,
            pass.exchange
        ),
    ];
    if let Some(real) = &pass.real() {
        doc.push(match real.half {
            RealHalf::Split { .. } => format!(
                "R2C: split into rows of {} bins on store (the reals read as pairs)",
                plan.transform().n + 1
            ),
            RealHalf::Merge { .. } => format!(
                "C2R: rows of {} bins merged on load (the reals written as pairs)",
                plan.transform().n + 1
            ),
            RealHalf::Truncate => format!(
                "R2C: bins 0..={} of each row stored, in rows of {}",
                plan.transform().n / 2,
                pass.dst_len
            ),
            RealHalf::Extend => format!(
                "C2R: rows of {} bins extended on load by Hermitian symmetry",
                pass.src_len
            ),
        });
    }
    if pass.twiddled() {
        doc.push(format!(
            "pass twiddles W_{} fused into the load",
            pass.stride * pass.size
        ));
    }
    doc
}

/// The workgroup memory pass `pass`'s kernel declares, if any.
fn pass_shared(pass: &Pass) -> Option<Shared> {
    (pass.exchanges() > 0 || pass.check_len() > 0).then(|| Shared {
        ty: match pass.exchange {
            Exchange::Complex => Ty::Complex,
            Exchange::Split => Ty::Real,
        },
        len: pass.shared_len(),
    })
}

/// The generator of pass `index` of `plan` with its body built: load, stages, store and
/// checksums (`runs_to_end`: no early return for workgroups past the lines, for a kernel
/// that loops).
fn pass_body(plan: &Plan, index: usize, runs_to_end: bool) -> PassGen<'_> {
    let pass = &plan.passes[index];
    let mut g = PassGen::new(plan, index, pass);
    g.runs_to_end = runs_to_end;
    // A pass of a chain's back-transform runs in the opposite direction.
    let chain_inverse = pass.inverse();
    g.locate_line();
    g.load_line();
    g.point_ops(&pass.load.points(), Mem::Src, PassGen::in_index);
    // The checksum is of the transform: its input after the fused load operations.
    g.sum_input();
    if let Some(filter) = pass.load.filter() {
        g.chain_filter(filter);
    }
    for s in 0..pass.radices.len() {
        g.stage(s, chain_inverse);
    }
    g.gather_held();
    if let Body::Chain { filter } = &pass.body {
        // Chained transform (one-pass plans): after the last stage register m holds output
        // point tl + T·m, which is the layout the next transform loads, so the inverse
        // starts in registers.
        g.chain_filter(filter);
        for s in 0..pass.radices.len() {
            g.stage(s, true);
        }
        g.gather_held();
    }
    g.store_line();
    g.write_checks();
    g
}

/// `bindings` of pass `index` with a resident plan's input (first pass) and output (last
/// pass) marked streaming, so that its intermediate is what stays in L2 between passes.
fn streaming(plan: &Plan, index: usize, mut bindings: Vec<Binding>) -> Vec<Binding> {
    if plan.resident {
        for b in &mut bindings {
            b.streaming = match b.mem {
                Mem::Src => index == 0,
                Mem::Dst => index + 1 == plan.passes.len(),
                _ => false,
            };
        }
    }
    bindings
}

/// The buffers every pass kernel binds: `src` (left out in place, where the kernel reads
/// `dst`), `dst`, the twiddle table and the plan's device vectors, all complex but the data
/// (`src`, `dst`) in the 16-bit storage precisions, which are [`Ty::Packed`]; the tables stay
/// in the arithmetic precision. (Checksummed passes add the records, `Mem::Check`.)
pub fn pass_bindings(in_place: bool, precision: Precision) -> Vec<Binding> {
    let data = match precision.is_half() {
        true => Ty::Packed,
        false => Ty::Complex,
    };
    let mut b = vec![
        Binding::read_write(Mem::Dst, data),
        Binding::read(Mem::Twiddles, Ty::Complex),
        Binding::read(Mem::Aux, Ty::Complex),
    ];
    if !in_place {
        b.insert(0, Binding::read(Mem::Src, data));
    }
    b
}

/// A register's way to workgroup memory: register, index, and the condition under which it
/// is written (`None`: always).
type Write = (usize, Expr, Option<Expr>);

struct PassGen<'a> {
    plan: &'a Plan,
    /// The pass's place in the plan: which vectors its launches bind ([`Plan::aux_range`]).
    index: usize,
    /// The transform the passes compute ([`Plan::geometry`]).
    geometry: Geometry,
    pass: &'a Pass,
    em: Emitter,
    regs: Vec<Expr>,
    /// The last stage's outputs, still in registers, with where each goes in workgroup
    /// memory: written by the next exchange (`None`: the registers hold the held layout).
    pending: Option<Vec<Write>>,
    /// Workgroup memory has been read (or written) since the last barrier.
    shared_read: bool,
    shared_written: bool,
    /// Some lines of a workgroup may lie past the end of the dispatch.
    guarded: bool,
    /// Padded thread-dependent parts of shared indices already bound, by their printed form.
    padded_bases: Vec<(String, Expr)>,
    /// Every workgroup runs to the end (no early return): a step of a cluster pass, or a
    /// pass of a merged kernel's loop.
    runs_to_end: bool,
}

impl<'a> PassGen<'a> {
    /// The generator of `pass`, pass `index` of `plan` (or, in a cluster pass, one of its
    /// steps).
    fn new(plan: &'a Plan, index: usize, pass: &'a Pass) -> Self {
        let geometry = plan.geometry();
        let regs = (0..pass.registers())
            .map(|m| var(format!("v{m}")))
            .collect();
        PassGen {
            plan,
            index,
            geometry,
            pass,
            em: Emitter::default(),
            regs,
            pending: None,
            shared_read: false,
            shared_written: false,
            guarded: plan.partial_groups(pass),
            padded_bases: Vec::new(),
            runs_to_end: false,
        }
    }

    /// Where vector `v` starts in this pass's binding of the vectors buffer.
    fn aux_offset(&self, v: &Values) -> usize {
        self.plan.aux_offset(self.index, v)
    }

    fn t(&self) -> usize {
        self.pass.threads_per_line
    }

    fn e(&self) -> usize {
        self.pass.points_per_thread
    }

    /// One radix stage; `inverse` runs it in the opposite direction (the second transform of
    /// a chain), with conjugated twiddles.
    fn stage(&mut self, s: usize, inverse: bool) {
        let p = self.pass;
        let r = p.radices[s];
        let ns: usize = p.radices[..s].iter().product();
        let t = self.t();
        let (butterflies, rounds) = stage_rounds(p.size, r, t);
        let even = rounds * t == butterflies;
        let sign = self.geometry.direction.sign() * if inverse { -1.0 } else { 1.0 };
        let last = s + 1 == p.radices.len();
        self.em.comment(format!(
            "{}stage {}: radix {r}, {ns}-point sub-transforms done{}",
            if inverse { "inverse " } else { "" },
            s + 1,
            if even {
                String::new()
            } else {
                format!(
                    "; {butterflies} butterflies in {rounds} rounds of {t} threads, the last partly idle"
                )
            }
        ));
        // Register of point `rr` of round `b`: the held register of that point when even.
        let reg = |b: usize, rr: usize| b + rr * rounds;
        // Butterfly of round `b`; surplus threads of an uneven last round redo the last one.
        let butterfly = |g: &mut Self, b: usize| {
            let jj = var("tl") + u(t * b);
            if (b + 1) * t > butterflies {
                let clamped = g.em.bind(Ty::U32, min(jj.clone(), u(butterflies - 1)));
                (clamped, Some(lt(jj, u(butterflies))))
            } else {
                (jj, None)
            }
        };
        let mut jjs = Vec::with_capacity(rounds);
        for b in 0..rounds {
            jjs.push(butterfly(self, b));
        }
        if !even && self.pending.is_none() {
            self.pending = Some(self.held_writes());
        }
        if let Some(writes) = self.pending.take() {
            let mut reads = Vec::new();
            for (b, (jj, _)) in jjs.iter().enumerate() {
                for rr in 0..r {
                    let at = self.shared_index(jj.clone() + u(rr * butterflies));
                    reads.push((reg(b, rr), at));
                }
            }
            reads.sort_by_key(|(m, _)| *m);
            self.exchange(writes, reads);
        }
        let mut writes = Vec::new();
        for (b, (jj, store_if)) in jjs.into_iter().enumerate() {
            let regs: Vec<usize> = (0..r).map(|rr| reg(b, rr)).collect();
            if ns > 1 {
                // Stage twiddles W_{ns·r}^{k·rr}, k = jj mod ns, from this stage's table.
                let k = self.em.bind(Ty::U32, jj.clone() % u(ns));
                let table = self.plan.twiddles.stage(ns, r);
                for (rr, &m) in regs.iter().enumerate().skip(1) {
                    let mut w = if p.tables_in_shared() > 0 {
                        load(
                            Mem::Shared,
                            u(p.tables_offset() + table.index(rr)) + k.clone(),
                        )
                    } else {
                        load(Mem::Twiddles, u(table.index(rr)) + k.clone())
                    };
                    if inverse {
                        let t = self.em.bind(Ty::Complex, w);
                        w = complex(t.re(), -t.im());
                    }
                    self.em
                        .push(Stmt::Assign(format!("v{m}"), self.regs[m].clone().cmul(w)));
                }
            }
            let inputs: Vec<Expr> = regs.iter().map(|&m| self.regs[m].clone()).collect();
            let outputs = dft(&mut self.em, &inputs, sign);
            for (rr, (&m, out)) in regs.iter().zip(outputs).enumerate() {
                self.em.push(Stmt::Assign(format!("v{m}"), out));
                let pos = (jj.clone() / u(ns)) * u(ns * r) + (jj.clone() % u(ns)) + u(rr * ns);
                writes.push((m, self.shared_index(pos), store_if.clone()));
            }
        }
        if !(last && even) {
            self.pending = Some(writes);
        }
    }
}
