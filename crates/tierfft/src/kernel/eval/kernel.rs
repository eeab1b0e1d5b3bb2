//! Whole kernels and plans run on the CPU as the GPU backends launch them. Threads of a
//! workgroup run in lockstep (each statement for every thread before the next), which is the
//! GPU's result whenever the kernel has no race in workgroup memory; races are detected
//! rather than hidden ([`SharedMem`]).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use num_complex::Complex32;

use crate::kernel::ir::{Access, BinOp, Builtin, Expr, Func, Kernel, Mem, Shared, Stmt, Ty};
use crate::kernel::pass_kernel;
use crate::plan::Plan;
use crate::plan::schedule::{PERSISTENT_WAVE, Route};

/// One thread's variables by name (names borrowed from the kernel: no allocation per binding).
type Env<'k> = HashMap<&'k str, Value, BuildHasherDefault<NameHasher>>;

/// The hash of variable names: a multiply-rotate hash (FxHash's). Names are the kernel's
/// own, so SipHash's resistance to chosen keys buys nothing, and it took a third of the
/// interpreter's time.
#[derive(Default)]
struct NameHasher(u64);

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word))
                .wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A value of the kernel IR, evaluated as the GPU would: u32 arithmetic wraps, floats are f32.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    U32(u32),
    F32(f32),
    C32(Complex32),
    Bool(bool),
}

impl Value {
    fn u32(self) -> Result<u32, String> {
        match self {
            Value::U32(x) => Ok(x),
            other => Err(format!("expected u32, got {other:?}")),
        }
    }
    fn f32(self) -> Result<f32, String> {
        match self {
            Value::F32(x) => Ok(x),
            other => Err(format!("expected f32, got {other:?}")),
        }
    }
    fn c32(self) -> Result<Complex32, String> {
        match self {
            Value::C32(z) => Ok(z),
            other => Err(format!("expected a complex value, got {other:?}")),
        }
    }
    fn bool(self) -> Result<bool, String> {
        match self {
            Value::Bool(b) => Ok(b),
            other => Err(format!("expected bool, got {other:?}")),
        }
    }
}

/// Workgroup memory of one workgroup, with what is needed to find races: for every element,
/// the last thread that wrote it and the last that read it, and the barrier interval
/// ("epoch") they did it in. Two threads touching one element in the same interval, one of
/// them writing, is a race the GPU would not order; the interpreter runs threads in lockstep
/// (each statement for every thread before the next) and would otherwise hide it.
///
/// In a cluster, other workgroups' threads store here too ([`Stmt::StoreRemote`]), ordered
/// only by cluster barriers: a remote store races with any access in the same cluster
/// interval, whatever local barriers lie between them.
struct SharedMem {
    values: Vec<Value>,
    written: Vec<Option<Touch>>,
    read: Vec<Option<Touch>>,
    /// Local barriers (and cluster barriers) passed.
    epoch: usize,
    /// Cluster barriers passed.
    cluster_epoch: usize,
}

/// One access: its thread (numbered across the cluster), its intervals, and whether it came
/// from another workgroup.
#[derive(Clone, Copy)]
struct Touch {
    thread: usize,
    epoch: usize,
    cluster_epoch: usize,
    remote: bool,
}

/// A reader that is several threads.
const MANY: usize = usize::MAX;

impl SharedMem {
    fn new(shared: Option<Shared>) -> SharedMem {
        let (ty, len) = shared.map_or((Ty::Complex, 0), |s| (s.ty, s.len));
        let zero = match ty {
            Ty::Real => Value::F32(f32::NAN),
            _ => Value::C32(Complex32::new(f32::NAN, f32::NAN)),
        };
        SharedMem {
            values: vec![zero; len],
            written: vec![None; len],
            read: vec![None; len],
            epoch: 0,
            cluster_epoch: 0,
        }
    }

    fn slot(&self, i: u32) -> Result<usize, String> {
        let i = i as usize;
        if i < self.values.len() {
            Ok(i)
        } else {
            Err(format!(
                "workgroup memory index {i} past its {} elements",
                self.values.len()
            ))
        }
    }

    fn access(&self, thread: usize, remote: bool) -> Touch {
        Touch {
            thread,
            epoch: self.epoch,
            cluster_epoch: self.cluster_epoch,
            remote,
        }
    }

    /// Whether `earlier` (by another thread) is unordered with an access `remote` or not,
    /// now: in the same barrier interval, or, where either is remote, the same cluster one.
    fn unordered(&self, earlier: Option<Touch>, thread: usize, remote: bool) -> Option<Touch> {
        earlier.filter(|a| {
            a.thread != thread
                && if a.remote || remote {
                    a.cluster_epoch == self.cluster_epoch
                } else {
                    a.epoch == self.epoch
                }
        })
    }

    fn load(&mut self, i: u32, thread: usize) -> Result<Value, String> {
        let i = self.slot(i)?;
        if let Some(w) = self.unordered(self.written[i], thread, false) {
            return Err(format!(
                "race: thread {thread} reads workgroup memory [{i}] that thread {} wrote \
                 since the last {}barrier",
                w.thread,
                if w.remote { "cluster " } else { "" }
            ));
        }
        let now = self.access(thread, false);
        self.read[i] = match self.read[i] {
            Some(r) if r.epoch == self.epoch && r.thread != thread => Some(Touch {
                thread: MANY,
                ..now
            }),
            _ => Some(now),
        };
        Ok(self.values[i])
    }

    fn store(&mut self, i: u32, v: Value, thread: usize, remote: bool) -> Result<(), String> {
        let i = self.slot(i)?;
        if let Some(w) = self.unordered(self.written[i], thread, remote) {
            return Err(format!(
                "race: threads {} and {thread} write workgroup memory [{i}] between barriers",
                w.thread
            ));
        }
        if let Some(r) = self.unordered(self.read[i], thread, remote) {
            let r = if r.thread == MANY {
                "other threads".into()
            } else {
                format!("thread {}", r.thread)
            };
            return Err(format!(
                "race: thread {thread} writes workgroup memory [{i}] that {r} read since the \
                 last barrier"
            ));
        }
        self.written[i] = Some(self.access(thread, remote));
        self.values[i] = v;
        Ok(())
    }
}

/// The device buffers of one launch: `src` (absent when the kernel runs in place on `dst`),
/// `dst`, the twiddle table and the plan's vectors, each already cut to what the launch binds.
pub struct Buffers<'a> {
    /// The input, for out-of-place kernels.
    pub src: Option<&'a [Complex32]>,
    /// The output (and the input, in place).
    pub dst: &'a mut [Complex32],
    /// The twiddle table.
    pub twiddles: &'a [Complex32],
    /// The plan's device vectors ([`Plan::vectors`]), end to end.
    pub aux: &'a [Complex32],
    /// A checksummed pass's records (this dispatch's region), else empty.
    pub check: &'a mut [Complex32],
    /// A ticketed kernel's counters ([`Mem::Counters`]), zero at the launch; else empty.
    pub counters: &'a mut [u32],
}

/// One workgroup's run of a kernel, or one cluster's: its workgroups' threads numbered one
/// after the other (`t / threads` is the rank, `t % threads` the local index), all run in
/// lockstep.
struct Group<'k, 'b, 'c> {
    kernel: &'k Kernel,
    bufs: &'c mut Buffers<'b>,
    /// Workgroup memory of each workgroup of the cluster (one without clusters).
    shared: Vec<SharedMem>,
    /// Threads per workgroup.
    threads: usize,
    envs: Vec<Env<'k>>,
    /// Threads that have returned.
    done: Vec<bool>,
    lines: u32,
    first_group: u32,
    stride: u32,
}

impl<'k> Group<'k, '_, '_> {
    fn eval(&mut self, t: usize, group: u32, e: &'k Expr) -> Result<Value, String> {
        let v = match e {
            Expr::Var(n) => *self.envs[t]
                .get(n.as_str())
                .ok_or_else(|| format!("{n} is used before it is bound"))?,
            Expr::U32(x) => Value::U32(*x),
            Expr::Float(x) => Value::F32(*x as f32),
            Expr::Builtin(b) => Value::U32(match b {
                Builtin::LocalIndex => (t % self.threads) as u32,
                Builtin::GroupIndex => group + (t / self.threads) as u32,
                Builtin::Lines => self.lines,
                Builtin::FirstGroup => self.first_group,
                Builtin::GroupStride => self.stride,
            }),
            Expr::Load(mem, i) => {
                let i = self.eval(t, group, i)?.u32()?;
                self.load(*mem, i, t)?
            }
            Expr::Bin(op, a, b) => {
                let (a, b) = (self.eval(t, group, a)?, self.eval(t, group, b)?);
                binary(*op, a, b)?
            }
            Expr::Neg(a) => match self.eval(t, group, a)? {
                Value::F32(x) => Value::F32(-x),
                Value::C32(z) => Value::C32(-z),
                other => return Err(format!("cannot negate {other:?}")),
            },
            Expr::Complex(re, im) => Value::C32(Complex32::new(
                self.eval(t, group, re)?.f32()?,
                self.eval(t, group, im)?.f32()?,
            )),
            Expr::Re(z) => Value::F32(self.eval(t, group, z)?.c32()?.re),
            Expr::Im(z) => Value::F32(self.eval(t, group, z)?.c32()?.im),
            Expr::CMul(a, b) => {
                Value::C32(self.eval(t, group, a)?.c32()? * self.eval(t, group, b)?.c32()?)
            }
            Expr::Select(c, a, b) => {
                if self.eval(t, group, c)?.bool()? {
                    self.eval(t, group, a)?
                } else {
                    self.eval(t, group, b)?
                }
            }
            Expr::Call(f, args) => {
                let args = args
                    .iter()
                    .map(|a| self.eval(t, group, a))
                    .collect::<Result<Vec<_>, _>>()?;
                call(*f, &args)?
            }
        };
        Ok(v)
    }

    /// Checks that the kernel binds `mem` (in place, `Src` is `Dst`), writable where it is
    /// written: the interface the printers declare and the backends bind. Returns the
    /// element type (f32 buffers are the complex buffers' memory read as f32 values, as the
    /// GPU sees it; packed buffers hold complex values rounded to the kernel's 16 bits).
    fn check_bound(&self, mem: Mem, write: bool) -> Result<Ty, String> {
        if mem == Mem::Shared {
            return Ok(Ty::Complex);
        }
        let mem = if mem == Mem::Src && self.kernel.in_place() {
            Mem::Dst
        } else {
            mem
        };
        match self.kernel.bindings.iter().find(|b| b.mem == mem) {
            None => Err(format!(
                "the kernel accesses {mem:?}, which it does not bind"
            )),
            Some(b) if !matches!(b.elem, Ty::Complex | Ty::Real | Ty::Packed) => Err(format!(
                "the interpreter runs complex and f32 buffers; {mem:?} holds {:?}",
                b.elem
            )),
            Some(b) if write && b.access == Access::Read => Err(format!(
                "the kernel writes {mem:?}, which it binds read-only"
            )),
            Some(b) => Ok(b.elem),
        }
    }

    fn load(&mut self, mem: Mem, i: u32, t: usize) -> Result<Value, String> {
        let ty = self.check_bound(mem, false)?;
        let at = |buf: &[Complex32], what: &str| {
            let missing = || format!("{what}[{i}] read past its {} elements", buf.len());
            if ty == Ty::Real {
                let floats: &[f32] = bytemuck::cast_slice(buf);
                return floats
                    .get(i as usize)
                    .map(|x| Value::F32(*x))
                    .ok_or_else(missing);
            }
            buf.get(i as usize)
                .map(|z| Value::C32(*z))
                .ok_or_else(missing)
        };
        match mem {
            Mem::Shared => self.shared[t / self.threads].load(i, t),
            Mem::Src => match self.bufs.src {
                Some(src) => at(src, "src"),
                None => at(self.bufs.dst, "dst"),
            },
            Mem::Dst => at(self.bufs.dst, "dst"),
            Mem::Twiddles => at(self.bufs.twiddles, "twiddles"),
            Mem::Aux => at(self.bufs.aux, "aux"),
            Mem::Check => at(self.bufs.check, "chk"),
            Mem::Counters => Err("counters are read only by tickets and waits".into()),
        }
    }

    fn store(&mut self, mem: Mem, i: u32, v: Value, t: usize) -> Result<(), String> {
        let ty = self.check_bound(mem, true)?;
        match mem {
            Mem::Shared => self.shared[t / self.threads].store(i, v, t, false),
            Mem::Dst if ty == Ty::Real => {
                let floats: &mut [f32] = bytemuck::cast_slice_mut(self.bufs.dst);
                let len = floats.len();
                let slot = floats
                    .get_mut(i as usize)
                    .ok_or_else(|| format!("dst[{i}] written past its {len} f32 values"))?;
                *slot = v.f32()?;
                Ok(())
            }
            Mem::Check => {
                let len = self.bufs.check.len();
                let slot = self
                    .bufs
                    .check
                    .get_mut(i as usize)
                    .ok_or_else(|| format!("chk[{i}] written past its {len} elements"))?;
                *slot = v.c32()?;
                Ok(())
            }
            Mem::Dst => {
                let len = self.bufs.dst.len();
                let slot = self
                    .bufs
                    .dst
                    .get_mut(i as usize)
                    .ok_or_else(|| format!("dst[{i}] written past its {len} elements"))?;
                *slot = v.c32()?;
                if ty == Ty::Packed {
                    *slot = round_to_storage(*slot, self.kernel.precision);
                }
                Ok(())
            }
            other => Err(format!(
                "a kernel stores only to dst and workgroup memory, not {other:?}"
            )),
        }
    }

    /// Runs `body` for every thread in `active`, statement by statement.
    fn block(&mut self, group: u32, body: &'k [Stmt], active: &[bool]) -> Result<(), String> {
        for st in body {
            let running: Vec<usize> = (0..active.len())
                .filter(|&t| active[t] && !self.done[t])
                .collect();
            match st {
                Stmt::Barrier => {
                    self.uniform(&running, active.len(), "barrier")?;
                    self.barrier();
                }
                Stmt::ClusterBarrier => {
                    if running.len() != self.envs.len() {
                        return Err(format!(
                            "cluster barrier reached by {} of {} threads (divergent control \
                             flow or a thread that returned)",
                            running.len(),
                            self.envs.len()
                        ));
                    }
                    for sh in &mut self.shared {
                        sh.epoch += 1;
                        sh.cluster_epoch += 1;
                    }
                }
                Stmt::LaneSum {
                    name, value, width, ..
                } => {
                    // Every thread of each group adds the group's values; all must be here.
                    let width = *width as usize;
                    let mut values = vec![None; active.len()];
                    for &t in &running {
                        values[t] = Some(self.eval(t, group, value)?.f32()?);
                    }
                    for &t in &running {
                        let first = t - (t % self.threads) % width;
                        let mut sum = 0f32;
                        for lane in first..first + width {
                            sum += values.get(lane).copied().flatten().ok_or_else(|| {
                                format!("a lane sum over {width} threads missed thread {lane}")
                            })?;
                        }
                        self.envs[t].insert(name, Value::F32(sum));
                    }
                }
                Stmt::Signal { counter } => {
                    let Some(t) = self.uniform(&running, active.len(), "a signal")? else {
                        continue;
                    };
                    let c = self.eval(t, group, counter)?.u32()?;
                    *self.counter(c)? += 1;
                    // (It begins with a barrier.)
                    self.barrier();
                }
                Stmt::WaitFor { counter, target } => {
                    // Workgroups run one after the other here, and take tickets in order: a
                    // wait that is not already met would never be.
                    let Some(t) = self.uniform(&running, active.len(), "a wait")? else {
                        continue;
                    };
                    let c = self.eval(t, group, counter)?.u32()?;
                    let target = self.eval(t, group, target)?.u32()?;
                    let seen = *self.counter(c)?;
                    if seen < target {
                        return Err(format!(
                            "waits for counter {c} to reach {target}, but it is {seen} and no \
                             earlier ticket will raise it: the kernel would hang"
                        ));
                    }
                    self.barrier();
                }
                Stmt::Part(inner) => self.block(group, inner, active)?,
                Stmt::If(c, inner) => {
                    let mut taken = vec![false; active.len()];
                    for &t in &running {
                        taken[t] = self.eval(t, group, c)?.bool()?;
                    }
                    // (A branch no thread takes is skipped whole, barriers and all.)
                    if taken.contains(&true) {
                        self.block(group, inner, &taken)?;
                    }
                }
                _ => {
                    for &t in &running {
                        self.statement(t, group, st)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Workgroup memory's accesses after this point are ordered after those before it: a
    /// barrier (or a statement that passes one) for every workgroup of the group.
    fn barrier(&mut self) {
        for sh in &mut self.shared {
            sh.epoch += 1;
        }
    }

    /// The first of `running` (`None` where every thread has returned), which must be every
    /// thread that has not returned (`what` is a statement the whole workgroup reaches
    /// together, like a barrier).
    fn uniform(
        &self,
        running: &[usize],
        threads: usize,
        what: &str,
    ) -> Result<Option<usize>, String> {
        let all = (0..threads).filter(|&t| !self.done[t]).count();
        match running.len() == all {
            true => Ok(running.first().copied()),
            false => Err(format!(
                "{what} reached by {} of {all} threads (divergent control flow)",
                running.len()
            )),
        }
    }

    /// Counter `c` of the launch's counters.
    fn counter(&mut self, c: u32) -> Result<&mut u32, String> {
        let len = self.bufs.counters.len();
        self.bufs
            .counters
            .get_mut(c as usize)
            .ok_or_else(|| format!("counter {c} past the launch's {len}"))
    }

    fn statement(&mut self, t: usize, group: u32, st: &'k Stmt) -> Result<(), String> {
        match st {
            Stmt::Comment(_) | Stmt::CopyCommit | Stmt::CopyWait => {}
            Stmt::Let(n, _, e) | Stmt::Var(n, _, e) | Stmt::Assign(n, e) => {
                let v = self.eval(t, group, e)?;
                self.envs[t].insert(n, v);
            }
            Stmt::Store(mem, i, v) => {
                let i = self.eval(t, group, i)?.u32()?;
                let v = self.eval(t, group, v)?;
                self.store(*mem, i, v, t)?;
            }
            Stmt::Return => self.done[t] = true,
            Stmt::CopyAsync { shared, index } => {
                let (s, i) = (
                    self.eval(t, group, shared)?.u32()?,
                    self.eval(t, group, index)?.u32()?,
                );
                for k in 0..2 {
                    let v = self.load(Mem::Src, i + k, t)?;
                    self.shared[t / self.threads].store(s + k, v, t, false)?;
                }
            }
            Stmt::StoreRemote { rank, index, value } => {
                let rank = self.eval(t, group, rank)?.u32()? as usize;
                let i = self.eval(t, group, index)?.u32()?;
                let v = self.eval(t, group, value)?;
                let clusters = self.shared.len();
                let target = self.shared.get_mut(rank).ok_or_else(|| {
                    format!("a remote store to rank {rank} of a cluster of {clusters}")
                })?;
                target.store(i, v, t, true)?;
            }
            Stmt::Barrier
            | Stmt::ClusterBarrier
            | Stmt::If(..)
            | Stmt::Part(_)
            | Stmt::LaneSum { .. }
            | Stmt::Signal { .. }
            | Stmt::WaitFor { .. } => {
                unreachable!("handled by block")
            }
        }
        Ok(())
    }
}

fn binary(op: BinOp, a: Value, b: Value) -> Result<Value, String> {
    use Value::*;
    Ok(match (op, a, b) {
        (BinOp::Add, U32(x), U32(y)) => U32(x.wrapping_add(y)),
        (BinOp::Sub, U32(x), U32(y)) => U32(x.wrapping_sub(y)),
        (BinOp::Mul, U32(x), U32(y)) => U32(x.wrapping_mul(y)),
        (BinOp::Div, U32(x), U32(y)) => U32(x.checked_div(y).ok_or("u32 division by zero")?),
        (BinOp::Rem, U32(x), U32(y)) => U32(x.checked_rem(y).ok_or("u32 remainder by zero")?),
        (BinOp::Shl, U32(x), U32(y)) => U32(x.wrapping_shl(y)),
        (BinOp::Shr, U32(x), U32(y)) => U32(x.wrapping_shr(y)),
        (BinOp::And, U32(x), U32(y)) => U32(x & y),
        (BinOp::Min, U32(x), U32(y)) => U32(x.min(y)),
        (BinOp::Lt, U32(x), U32(y)) => Bool(x < y),
        (BinOp::Ge, U32(x), U32(y)) => Bool(x >= y),
        (BinOp::Add, F32(x), F32(y)) => F32(x + y),
        (BinOp::Sub, F32(x), F32(y)) => F32(x - y),
        (BinOp::Mul, F32(x), F32(y)) => F32(x * y),
        (BinOp::Div, F32(x), F32(y)) => F32(x / y),
        (BinOp::Min, F32(x), F32(y)) => F32(x.min(y)),
        (BinOp::Lt, F32(x), F32(y)) => Bool(x < y),
        (BinOp::Ge, F32(x), F32(y)) => Bool(x >= y),
        (BinOp::Add, C32(x), C32(y)) => C32(x + y),
        (BinOp::Sub, C32(x), C32(y)) => C32(x - y),
        (BinOp::Mul, C32(x), F32(y)) | (BinOp::Mul, F32(y), C32(x)) => C32(x * y),
        (op, a, b) => return Err(format!("cannot evaluate {a:?} {op:?} {b:?}")),
    })
}

fn call(f: Func, args: &[Value]) -> Result<Value, String> {
    let x = |i: usize| args.get(i).copied().ok_or("missing argument")?.f32();
    Ok(match f {
        Func::Sqrt => Value::F32(x(0)?.sqrt()),
        Func::Ln => Value::F32(x(0)?.ln()),
        Func::Max => Value::F32(x(0)?.max(x(1)?)),
        Func::Divide => Value::F32(x(0)? / x(1)?),
        Func::ToReal => Value::F32(args.first().copied().ok_or("missing argument")?.u32()? as f32),
    })
}

/// Runs `kernel` on `bufs` as a dispatch of `grid` workgroups does, `lines` being the
/// dispatch's line count; a persistent kernel's workgroups each loop over the groups
/// `first, first + grid, ...` (or, ticketed, over the tickets they take) while its condition
/// holds; a cluster kernel's workgroups run a
/// cluster at a time, in lockstep. Errors name the workgroup and what went wrong: an index
/// out of bounds, a race in workgroup memory, a divergent barrier.
pub fn run_kernel(
    kernel: &Kernel,
    grid: u32,
    lines: u32,
    bufs: &mut Buffers,
) -> Result<(), String> {
    let threads = kernel.threads as usize;
    let cluster = kernel.cluster.unwrap_or(1).max(1);
    if !grid.is_multiple_of(cluster) || (cluster > 1 && kernel.persistent.is_some()) {
        return Err(format!(
            "kernel {}: a grid of {grid} workgroups in clusters of {cluster}{}",
            kernel.name,
            if kernel.persistent.is_some() {
                " (persistent)"
            } else {
                ""
            }
        ));
    }
    let all_threads = threads * cluster as usize;
    // One group reused for every workgroup (or cluster): the variables' tables keep their
    // capacity, which halved the interpreter's time.
    let mut g = Group {
        kernel,
        bufs,
        shared: Vec::new(),
        threads,
        envs: vec![Env::default(); all_threads],
        done: vec![false; all_threads],
        lines,
        first_group: 0,
        stride: grid,
    };
    let all = vec![true; all_threads];
    for wg in (0..grid).step_by(cluster as usize) {
        g.shared = (0..cluster)
            .map(|_| SharedMem::new(kernel.shared))
            .collect();
        g.envs.iter_mut().for_each(Env::clear);
        g.done.fill(false);
        g.first_group = wg;
        let run = match &kernel.persistent {
            None => g.block(wg, &kernel.body, &all),
            Some(p) if p.tickets => (|| {
                g.block(wg, &p.prologue, &all)?;
                // One workgroup at a time: the first takes every ticket, in order, and the
                // rest find none left (the GPU's interleavings are the sanitizer's to check).
                loop {
                    let group = *g.counter(0)?;
                    *g.counter(0)? += 1;
                    // (Taking a ticket passes barriers.)
                    g.barrier();
                    if !g.eval(0, group, &p.condition)?.bool()? {
                        return Ok(());
                    }
                    g.block(group, &kernel.body, &all)?;
                }
            })(),
            Some(p) => (|| {
                g.block(wg, &p.prologue, &all)?;
                let mut group = wg;
                // The condition is uniform: every thread computes the same value.
                while g.eval(0, group, &p.condition)?.bool()? {
                    g.block(group, &kernel.body, &all)?;
                    group += grid;
                }
                Ok(())
            })(),
        };
        run.map_err(|e| match cluster {
            1 => format!("kernel {}, workgroup {wg}: {e}", kernel.name),
            c => format!(
                "kernel {}, cluster of workgroups {wg}..{}: {e}",
                kernel.name,
                wg + c
            ),
        })?;
    }
    Ok(())
}

/// Runs every kernel of `plan` on `input` (whole transforms) by the launch schedule the GPU
/// backends follow ([`Plan::schedule`], in place as [`crate::Fft::process`] runs it: the
/// slots, each launch's rows and check records, the `lines` parameter, two-dimensional grids
/// folded into one index, persistent kernels over a wave of [`PERSISTENT_WAVE`] workgroups),
/// and returns the result (rows of the last pass's length: `n + 1` bins for a real
/// transform's split). A 16-bit plan's `input` is what its buffer holds: each part already
/// rounded to the precision.
pub fn run_plan(plan: &Plan, input: &[Complex32]) -> Result<Vec<Complex32>, String> {
    if plan.spec.precision == crate::Precision::F64 {
        return Err("the interpreter runs f32, f16 and bf16 plans (this one is f64)".into());
    }
    let (src_len, dst_len) = plan.spec.row_lens();
    let transforms = input.len() / src_len;
    let schedule = plan.schedule(transforms, Route::InPlace);
    let poison = Complex32::new(f32::NAN, f32::NAN);
    let mut buffers: Vec<Vec<Complex32>> = schedule
        .slots
        .iter()
        .enumerate()
        .map(|(i, slot)| match i {
            0 => input.to_vec(),
            _ => vec![poison; slot.len()],
        })
        .collect();
    let twiddles: Vec<Complex32> = bytemuck::cast_slice(&plan.twiddle_words()).to_vec();
    let aux: Vec<Complex32> = bytemuck::cast_slice(&plan.aux_words()).to_vec();
    let mut check = vec![poison; schedule.check_len.max(1)];
    for launch in &schedule.launches {
        let kernel = pass_kernel(plan, launch.pass, launch.in_place);
        let (x, y) = launch.grid.dims(PERSISTENT_WAVE);
        let input = launch.src.map(|s| buffers[s.slot][s.scaled(1)].to_vec());
        let dst = launch.dst;
        let mut counters = vec![0; launch.grid.counters(launch.count)];
        let mut bufs = Buffers {
            src: input.as_deref(),
            dst: &mut buffers[dst.slot][dst.scaled(1)],
            twiddles: &twiddles,
            aux: &aux[launch.vectors.clone()],
            check: match &launch.check {
                Some(r) => &mut check[r.clone()],
                None => &mut [],
            },
            counters: &mut counters,
        };
        run_kernel(&kernel, x * y, launch.lines, &mut bufs)?;
    }
    if plan.checksummed() {
        let failed =
            crate::plan::checksum::failures(plan, bytemuck::cast_slice(&check), transforms, 0);
        if !failed.is_empty() {
            return Err(format!("checksum mismatch in transforms {failed:?}"));
        }
    }
    let mut out = buffers.swap_remove(schedule.result);
    out.truncate(transforms * dst_len);
    Ok(out)
}

/// `z` as a [`Ty::Packed`] store in `precision` leaves it: each part rounded to nearest even
/// in f16 or bf16.
pub fn round_to_storage(z: Complex32, precision: crate::Precision) -> Complex32 {
    use crate::base::precision::round_half;
    Complex32::new(round_half(z.re, precision), round_half(z.im, precision))
}
