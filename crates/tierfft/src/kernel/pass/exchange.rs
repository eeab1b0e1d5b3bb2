//! The exchanges of a pass's kernel through workgroup memory: where each held register goes
//! between stages, in one round or several, padding against bank conflicts, and the
//! barriers they need.

use super::{PassGen, Write};
use crate::kernel::ir::*;
use crate::plan::Exchange;

/// What of a value an exchange sends: the value, or its real or imaginary part.
type Component = fn(&Expr) -> Expr;

impl PassGen<'_> {
    /// Where each held register goes in workgroup memory: register `m` to line position
    /// `tl + T·m`.
    pub(super) fn held_writes(&self) -> Vec<Write> {
        self.held_slots()
            .into_iter()
            .map(|(m, at)| (m, at, None))
            .collect()
    }

    /// Each held register with its workgroup-memory index: register `m`, line position
    /// `tl + T·m`.
    pub(super) fn held_slots(&self) -> Vec<(usize, Expr)> {
        (0..self.e())
            .map(|m| (m, self.shared_index(var("tl") + u(self.t() * m))))
            .collect()
    }

    /// Brings a stage's pending outputs back to the held layout through workgroup memory.
    pub(super) fn gather_held(&mut self) {
        if let Some(writes) = self.pending.take() {
            let reads = self.held_slots();
            self.exchange(writes, reads);
        }
    }

    /// Register `m` goes to workgroup memory at `writes`' index (only where its condition
    /// holds); then register `m` is reloaded from `reads`' index.
    pub(super) fn exchange(&mut self, writes: Vec<Write>, reads: Vec<(usize, Expr)>) {
        if self.pass.rounds > 1 {
            self.exchange_in_rounds(writes, reads);
            return;
        }
        let writes: Vec<Write> = writes
            .into_iter()
            .map(|(m, i, when)| (m, self.pad(i), when))
            .collect();
        let reads: Vec<(usize, Expr)> = reads.into_iter().map(|(m, i)| (m, self.pad(i))).collect();
        match self.pass.exchange {
            Exchange::Complex => {
                self.before_write();
                for (m, idx, when) in &writes {
                    let store = Stmt::Store(Mem::Shared, idx.clone(), self.regs[*m].clone());
                    self.push_if(when, store);
                }
                self.before_read();
                for (m, idx) in &reads {
                    self.em.push(Stmt::Assign(
                        format!("v{m}"),
                        load(Mem::Shared, idx.clone()),
                    ));
                }
            }
            Exchange::Split => {
                let mut re = Vec::new();
                for part in [Expr::re as fn(&Expr) -> Expr, Expr::im] {
                    self.before_write();
                    for (m, idx, when) in &writes {
                        let store = Stmt::Store(Mem::Shared, idx.clone(), part(&self.regs[*m]));
                        self.push_if(when, store);
                    }
                    self.before_read();
                    if re.is_empty() {
                        for (_, idx) in &reads {
                            re.push(self.em.bind(Ty::Real, load(Mem::Shared, idx.clone())));
                        }
                    } else {
                        for ((m, idx), re) in reads.iter().zip(&re) {
                            self.em.push(Stmt::Assign(
                                format!("v{m}"),
                                complex(re.clone(), load(Mem::Shared, idx.clone())),
                            ));
                        }
                    }
                }
            }
        }
    }

    /// [`PassGen::exchange`] through workgroup memory a part at a time ([`Pass::rounds`]):
    /// round `r` holds elements `[r·c, (r + 1)·c)` of the exchange (`c` its size over the
    /// rounds, a multiple of the padding period, so that the padded index less the round's
    /// padded start is the part's own). Each thread writes the registers bound there, then
    /// reads the values it needs from there into temporaries; the registers take the
    /// temporaries after the last round, so that no value is overwritten before it is sent.
    /// The split exchange sends the real parts, then the imaginary parts, each in rounds.
    ///
    /// [`Pass::rounds`]: crate::plan::Pass::rounds
    fn exchange_in_rounds(&mut self, writes: Vec<Write>, reads: Vec<(usize, Expr)>) {
        let p = self.pass;
        let part = p.size * p.lines_per_group / p.rounds;
        let period = p.exchange.pad_period();
        let parts: Vec<(Ty, Component)> = match p.exchange {
            Exchange::Complex => vec![(Ty::Complex, Expr::clone)],
            Exchange::Split => vec![(Ty::Real, Expr::re), (Ty::Real, Expr::im)],
        };
        self.em.comment(format!(
            "exchange in {} rounds of {part} elements through workgroup memory",
            p.rounds
        ));
        let zero = |ty: Ty| match ty {
            Ty::Complex => complex(f(0.0), f(0.0)),
            _ => f(0.0),
        };
        let temps: Vec<Vec<String>> = reads
            .iter()
            .map(|_| {
                parts
                    .iter()
                    .map(|&(ty, _)| self.em.var(ty, zero(ty)))
                    .collect()
            })
            .collect();
        let writes: Vec<(usize, Expr, Expr, Option<Expr>)> = writes
            .into_iter()
            .map(|(m, i, when)| (m, i.clone(), self.pad(i), when))
            .collect();
        let reads: Vec<(usize, Expr, Expr)> = reads
            .into_iter()
            .map(|(m, i)| (m, i.clone(), self.pad(i)))
            .collect();
        for (k, &(_, part_of)) in parts.iter().enumerate() {
            for r in 0..p.rounds {
                let lo = r * part;
                let start = match p.padded {
                    true => lo + lo / period,
                    false => lo,
                };
                let inside = |i: &Expr| lt(i.clone() - u(lo), u(part));
                self.before_write();
                for (m, i, at, when) in &writes {
                    let value = part_of(&self.regs[*m]);
                    let store = Stmt::Store(Mem::Shared, at.clone() - u(start), value);
                    let store = Stmt::If(inside(i), vec![store]);
                    self.push_if(when, store);
                }
                self.before_read();
                for ((_, i, at), temp) in reads.iter().zip(&temps) {
                    self.em.push(Stmt::If(
                        inside(i),
                        vec![Stmt::Assign(
                            temp[k].clone(),
                            load(Mem::Shared, at.clone() - u(start)),
                        )],
                    ));
                }
            }
        }
        for ((m, ..), temp) in reads.iter().zip(temps) {
            let value = match temp.as_slice() {
                [z] => var(z),
                [re, im] => complex(var(re), var(im)),
                _ => unreachable!("one or two parts"),
            };
            self.em.push(Stmt::Assign(format!("v{m}"), value));
        }
    }

    /// Index `i` with one unused slot after every [`Exchange::pad_period`] elements (see
    /// [`Pass::padded`]).
    ///
    /// Every shared index is `x + c`, a thread-dependent part and a constant, where
    /// `x mod P + c mod P < P` for the period `P` (all sizes, radices, strides and line counts
    /// are powers of two, and `c` only moves within the block `x`'s alignment leaves free). So
    /// `pad(x + c) = pad(x) + c + c / P`: the few distinct `pad(x)` are computed once and every
    /// access is one of them plus an immediate offset. Padding each full index instead costs
    /// a live register per access, which the chained kernels cannot afford.
    pub(super) fn pad(&mut self, i: Expr) -> Expr {
        if !self.pass.padded {
            return i;
        }
        let period = self.pass.exchange.pad_period() as u32;
        let (x, c) = i.split_constant();
        let key = format!("{x:?}");
        let base = match self.padded_bases.iter().find(|(k, _)| *k == key) {
            Some((_, b)) => b.clone(),
            None => {
                let b = self.em.bind(
                    Ty::U32,
                    x.clone() + (x >> u(period.trailing_zeros() as usize)),
                );
                self.padded_bases.push((key, b.clone()));
                b
            }
        };
        base + Expr::U32(c + c / period)
    }

    /// `stmt`, only where `when` holds (always when `None`).
    pub(super) fn push_if(&mut self, when: &Option<Expr>, stmt: Stmt) {
        match when {
            Some(c) => self.em.push(Stmt::If(c.clone(), vec![stmt])),
            None => self.em.push(stmt),
        }
    }

    /// A barrier before writing workgroup memory, where it was read or written since the last.
    pub(super) fn before_write(&mut self) {
        if self.shared_read || self.shared_written {
            self.em.push(Stmt::Barrier);
        }
        self.shared_read = false;
        self.shared_written = true;
    }

    /// A barrier before reading workgroup memory that was written.
    pub(super) fn before_read(&mut self) {
        self.em.push(Stmt::Barrier);
        self.shared_written = false;
        self.shared_read = true;
    }
}
