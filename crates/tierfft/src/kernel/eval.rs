//! Interpreters of the kernel IR on the CPU, so kernels are tested without a GPU: an f64
//! evaluator of straight-line complex code for codelets ([`eval_complex`]), and whole kernels
//! and plans run as the GPU runs them ([`run_kernel`], [`run_plan`]): a workgroup of threads
//! with workgroup memory and barriers, f32 arithmetic, every index checked against its
//! buffer and every workgroup-memory access against races.

use std::collections::HashMap;

use num_complex::{Complex32, Complex64};

use super::ir::{BinOp, Builtin, Expr, Func, Kernel, Mem, Shared, Stmt, Ty};
use super::pass_kernel;
use crate::plan::Plan;

/// Evaluates `out` after running `stmts`, with `in{i}` bound to `inputs[i]`.
pub fn eval_complex(stmts: &[Stmt], out: &Expr, inputs: &[Complex64]) -> Complex64 {
    let mut env: HashMap<String, Complex64> = inputs
        .iter()
        .enumerate()
        .map(|(i, &z)| (format!("in{i}"), z))
        .collect();
    for s in stmts {
        match s {
            Stmt::Let(name, _, e) | Stmt::Var(name, _, e) | Stmt::Assign(name, e) => {
                let v = eval(&env, e);
                env.insert(name.clone(), v);
            }
            Stmt::Comment(_) => {}
            other => panic!("eval_complex handles straight-line code only, got {other:?}"),
        }
    }
    eval(&env, out)
}

// Reals are complex numbers with a zero imaginary part.
fn eval(env: &HashMap<String, Complex64>, e: &Expr) -> Complex64 {
    let c = |e: &Expr| eval(env, e);
    match e {
        Expr::Var(n) => env[n],
        Expr::F32(x) => Complex64::new(f64::from(*x), 0.0),
        Expr::U32(x) => Complex64::new(f64::from(*x), 0.0),
        Expr::Complex(re, im) => Complex64::new(c(re).re, c(im).re),
        Expr::Re(z) => Complex64::new(c(z).re, 0.0),
        Expr::Im(z) => Complex64::new(c(z).im, 0.0),
        Expr::Neg(a) => -c(a),
        Expr::CMul(a, b) => c(a) * c(b),
        Expr::Bin(BinOp::Add, a, b) => c(a) + c(b),
        Expr::Bin(BinOp::Sub, a, b) => c(a) - c(b),
        Expr::Bin(BinOp::Mul, a, b) => c(a) * c(b),
        other => panic!("eval_complex cannot evaluate {other:?}"),
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
struct SharedMem {
    values: Vec<Value>,
    written: Vec<Option<(usize, usize)>>,
    read: Vec<Option<(usize, usize)>>,
    epoch: usize,
}

/// A reader that is several threads.
const MANY: usize = usize::MAX;

impl SharedMem {
    fn new(shared: Option<Shared>) -> SharedMem {
        let (ty, len) = shared.map_or((Ty::C32, 0), |s| (s.ty, s.len));
        let zero = match ty {
            Ty::F32 => Value::F32(f32::NAN),
            _ => Value::C32(Complex32::new(f32::NAN, f32::NAN)),
        };
        SharedMem {
            values: vec![zero; len],
            written: vec![None; len],
            read: vec![None; len],
            epoch: 0,
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

    fn load(&mut self, i: u32, thread: usize) -> Result<Value, String> {
        let i = self.slot(i)?;
        if let Some((w, e)) = self.written[i]
            && e == self.epoch
            && w != thread
        {
            return Err(format!(
                "race: thread {thread} reads workgroup memory [{i}] that thread {w} wrote \
                 since the last barrier"
            ));
        }
        self.read[i] = match self.read[i] {
            Some((r, e)) if e == self.epoch && r != thread => Some((MANY, e)),
            _ => Some((thread, self.epoch)),
        };
        Ok(self.values[i])
    }

    fn store(&mut self, i: u32, v: Value, thread: usize) -> Result<(), String> {
        let i = self.slot(i)?;
        let other =
            |who: Option<(usize, usize)>| who.filter(|&(t, e)| e == self.epoch && t != thread);
        if let Some((w, _)) = other(self.written[i]) {
            return Err(format!(
                "race: threads {w} and {thread} write workgroup memory [{i}] between barriers"
            ));
        }
        if let Some((r, _)) = other(self.read[i]) {
            let r = if r == MANY {
                "other threads".into()
            } else {
                format!("thread {r}")
            };
            return Err(format!(
                "race: thread {thread} writes workgroup memory [{i}] that {r} read since the \
                 last barrier"
            ));
        }
        self.written[i] = Some((thread, self.epoch));
        self.values[i] = v;
        Ok(())
    }
}

/// The device buffers of one launch: `src` (absent when the kernel runs in place on `dst`),
/// `dst`, the twiddle table and the spec's vectors, each already cut to what the launch binds.
pub struct Buffers<'a> {
    /// The input, for out-of-place kernels.
    pub src: Option<&'a [Complex32]>,
    /// The output (and the input, in place).
    pub dst: &'a mut [Complex32],
    /// The twiddle table.
    pub twiddles: &'a [Complex32],
    /// The spec's device vectors, end to end.
    pub aux: &'a [Complex32],
}

/// One workgroup's run of a kernel.
struct Group<'k, 'b, 'c> {
    kernel: &'k Kernel,
    bufs: &'c mut Buffers<'b>,
    shared: SharedMem,
    envs: Vec<HashMap<String, Value>>,
    /// Threads that have returned.
    done: Vec<bool>,
    lines: u32,
    first_group: u32,
    stride: u32,
}

impl Group<'_, '_, '_> {
    fn eval(&mut self, t: usize, group: u32, e: &Expr) -> Result<Value, String> {
        let v = match e {
            Expr::Var(n) => *self.envs[t]
                .get(n)
                .ok_or_else(|| format!("{n} is used before it is bound"))?,
            Expr::U32(x) => Value::U32(*x),
            Expr::F32(x) => Value::F32(*x),
            Expr::Builtin(b) => Value::U32(match b {
                Builtin::LocalIndex => t as u32,
                Builtin::GroupIndex => group,
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

    fn load(&mut self, mem: Mem, i: u32, t: usize) -> Result<Value, String> {
        let at = |buf: &[Complex32], what: &str| {
            buf.get(i as usize)
                .map(|z| Value::C32(*z))
                .ok_or_else(|| format!("{what}[{i}] read past its {} elements", buf.len()))
        };
        match mem {
            Mem::Shared => self.shared.load(i, t),
            Mem::Src => match self.bufs.src {
                Some(src) => at(src, "src"),
                None => at(self.bufs.dst, "dst"),
            },
            Mem::Dst => at(self.bufs.dst, "dst"),
            Mem::Twiddles => at(self.bufs.twiddles, "twiddles"),
            Mem::Aux => at(self.bufs.aux, "aux"),
        }
    }

    fn store(&mut self, mem: Mem, i: u32, v: Value, t: usize) -> Result<(), String> {
        match mem {
            Mem::Shared => self.shared.store(i, v, t),
            Mem::Dst => {
                let len = self.bufs.dst.len();
                let slot = self
                    .bufs
                    .dst
                    .get_mut(i as usize)
                    .ok_or_else(|| format!("dst[{i}] written past its {len} elements"))?;
                *slot = v.c32()?;
                Ok(())
            }
            other => Err(format!(
                "a kernel stores only to dst and workgroup memory, not {other:?}"
            )),
        }
    }

    /// Runs `body` for every thread in `active`, statement by statement.
    fn block(&mut self, group: u32, body: &[Stmt], active: &[bool]) -> Result<(), String> {
        for st in body {
            let running: Vec<usize> = (0..active.len())
                .filter(|&t| active[t] && !self.done[t])
                .collect();
            match st {
                Stmt::Barrier => {
                    let all = (0..active.len()).filter(|&t| !self.done[t]).count();
                    if running.len() != all {
                        return Err(format!(
                            "barrier reached by {} of {all} threads (divergent control flow)",
                            running.len()
                        ));
                    }
                    self.shared.epoch += 1;
                }
                Stmt::If(c, inner) => {
                    let mut taken = vec![false; active.len()];
                    for &t in &running {
                        taken[t] = self.eval(t, group, c)?.bool()?;
                    }
                    self.block(group, inner, &taken)?;
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

    fn statement(&mut self, t: usize, group: u32, st: &Stmt) -> Result<(), String> {
        match st {
            Stmt::Comment(_) | Stmt::CopyCommit | Stmt::CopyWait => {}
            Stmt::Let(n, _, e) | Stmt::Var(n, _, e) | Stmt::Assign(n, e) => {
                let v = self.eval(t, group, e)?;
                self.envs[t].insert(n.clone(), v);
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
                    self.shared.store(s + k, v, t)?;
                }
            }
            Stmt::Barrier | Stmt::If(..) => unreachable!("handled by block"),
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
        Func::ToU32 => Value::U32(x(0)? as u32),
        Func::ToF32 => Value::F32(args.first().copied().ok_or("missing argument")?.u32()? as f32),
    })
}

/// Runs `kernel` on `bufs` as a dispatch of `grid` workgroups does, `lines` being the
/// dispatch's line count; a persistent kernel's workgroups each loop over the groups
/// `first, first + grid, ...` while its condition holds. Errors name the workgroup and what
/// went wrong: an index out of bounds, a race in workgroup memory, a divergent barrier.
pub fn run_kernel(
    kernel: &Kernel,
    grid: u32,
    lines: u32,
    bufs: &mut Buffers,
) -> Result<(), String> {
    let threads = kernel.threads as usize;
    for wg in 0..grid {
        let mut g = Group {
            kernel,
            bufs,
            shared: SharedMem::new(kernel.shared),
            envs: vec![HashMap::new(); threads],
            done: vec![false; threads],
            lines,
            first_group: wg,
            stride: grid,
        };
        let all = vec![true; threads];
        let run = |g: &mut Group| -> Result<(), String> {
            match &g.kernel.persistent {
                None => g.block(wg, &g.kernel.body, &all),
                Some(p) => {
                    g.block(wg, &p.prologue, &all)?;
                    let mut group = wg;
                    // The condition is uniform: every thread computes the same value.
                    while g.eval(0, group, &p.condition)?.bool()? {
                        g.block(group, &g.kernel.body, &all)?;
                        group += grid;
                    }
                    Ok(())
                }
            }
        };
        run(&mut g).map_err(|e| format!("kernel {}, workgroup {wg}: {e}", kernel.name))?;
    }
    Ok(())
}

/// Runs every kernel of `plan` on `input` (whole transforms) the way the GPU backends launch
/// them (routing between buffer slots, dispatches of at most a binding's transforms, the
/// `Lines` parameter, two-dimensional grids folded into one index, persistent kernels over a
/// wave of workgroups), and returns the result.
pub fn run_plan(plan: &Plan, input: &[Complex32]) -> Result<Vec<Complex32>, String> {
    let n = plan.spec.n;
    let transforms = input.len() / n;
    let routing = plan.routing(false);
    let slots = routing
        .iter()
        .map(|&(a, b)| a.max(b) + 1)
        .max()
        .unwrap_or(1);
    let poison = Complex32::new(f32::NAN, f32::NAN);
    let mut buffers: Vec<Vec<Complex32>> = (0..slots)
        .map(|i| {
            if i == 0 {
                input.to_vec()
            } else {
                vec![poison; input.len()]
            }
        })
        .collect();
    let twiddles = plan.twiddles.build(plan.spec.direction.sign());
    let aux = crate::backend::aux_values(plan);
    for (p, first, count) in plan.dispatches(transforms) {
        let pass = &plan.passes[p];
        let (src, dst) = routing[p];
        let kernel = pass_kernel(plan, p, src == dst);
        let window = first * n..(first + count) * n;
        let groups = plan.groups(pass, count) as u32;
        let grid = if pass.prefetch {
            groups.min(PERSISTENT_WAVE)
        } else {
            // The backends fold grids wider than a dimension allows into rows of workgroups.
            let x = groups.min(plan.limits.max_groups_per_dim);
            x * groups.div_ceil(x)
        };
        let lines = (count * plan.lines_per_transform(pass)) as u32;
        let input = (src != dst).then(|| buffers[src][window.clone()].to_vec());
        let mut bufs = Buffers {
            src: input.as_deref(),
            dst: &mut buffers[dst][window.clone()],
            twiddles: &twiddles,
            aux: &aux,
        };
        run_kernel(&kernel, grid, lines, &mut bufs)?;
    }
    let last = routing.last().map_or(0, |&(_, dst)| dst);
    Ok(buffers.swap_remove(last))
}

/// Workgroups a persistent kernel is launched with here (the wgpu backend's wave).
const PERSISTENT_WAVE: u32 = 256;

#[cfg(test)]
mod tests {
    use num_complex::Complex32;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    use super::run_plan;
    use crate::plan::{DeviceLimits, Plan};
    use crate::reference::{relative_l2_error, spec_f64};
    use crate::{FftSpec, PointOp};

    /// Runs `spec`'s plan for `limits` in the interpreter against the f64 reference, on
    /// seeded random data (the other slots start poisoned with NaN).
    fn check_on(spec: &FftSpec, limits: &DeviceLimits) {
        let plan = Plan::new(spec, limits).expect("plan");
        let mut rng = StdRng::seed_from_u64(spec.n as u64 ^ spec.batch as u64);
        let input = random(&mut rng, spec.len());
        let out =
            run_plan(&plan, &input).unwrap_or_else(|e| panic!("{}:\n{plan}\n{e}", limits.name));
        let err = relative_l2_error(&out, &spec_f64(spec, &input));
        assert!(
            err <= 5e-7,
            "{}, n = {}: relative L2 error {err:e}\n{plan}",
            limits.name,
            spec.n
        );
    }

    fn check(spec: &FftSpec, profile: &str) {
        check_on(spec, &DeviceLimits::profile(profile).expect("profile"));
    }

    fn random(rng: &mut StdRng, len: usize) -> Vec<Complex32> {
        (0..len)
            .map(|_| Complex32::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)))
            .collect()
    }

    /// Every one-pass length on every device profile, forward and inverse: the shapes of
    /// every device (16 and 32 points per thread and radix 16 on CUDA, split exchanges on
    /// small devices, packed small transforms) run on the CPU.
    #[test]
    fn one_pass_plans_of_every_profile() {
        for profile in DeviceLimits::PROFILES {
            for k in 0..=13 {
                let batch = if k < 8 { 5 } else { 1 };
                check(&FftSpec::new(1 << k).batch(batch), profile);
            }
            check(
                &FftSpec::new(1 << 10).batch(2).inverse().normalized(),
                profile,
            );
        }
    }

    /// Multi-pass plans: twiddles between passes, strided lines, staged stores, and on CUDA
    /// the radix-16 stages from 2^18.
    #[test]
    fn multi_pass_plans() {
        for (profile, k) in [
            ("small-16k", 14),
            ("small-16k", 15),
            ("raspberry-pi-5", 15),
            ("lavapipe", 16),
            ("h100-cuda", 15),
            ("h100-cuda", 18),
        ] {
            check(&FftSpec::new(1 << k), profile);
        }
        check(&FftSpec::new(1 << 15).inverse().normalized(), "lavapipe");
    }

    /// Columns, fused loads and stores, and chains (persistent prefetching kernels on CUDA).
    #[test]
    fn columns_fusion_and_chains() {
        let mut rng = StdRng::seed_from_u64(7);
        for profile in ["lavapipe", "h100-cuda"] {
            for k in [1, 4, 8, 10, 12] {
                check(&FftSpec::new(1 << k).batch(8).columns(), profile);
            }
            for k in [4, 8, 10, 12] {
                let n = 1 << k;
                let h: std::sync::Arc<[Complex32]> = random(&mut rng, n).into();
                let w: std::sync::Arc<[Complex32]> = random(&mut rng, n).into();
                let each: std::sync::Arc<[Complex32]> = random(&mut rng, 3 * n).into();
                let spec = FftSpec::new(n)
                    .batch(3)
                    .on_load(PointOp::Multiply(w))
                    .on_load(PointOp::MultiplyEach(each))
                    .then_multiply_and_invert(h)
                    .normalized()
                    .on_store(PointOp::Conjugate);
                check(&spec, profile);
                // Column plans hold a quarter of the rows' one-pass block.
                if n <= 1024 {
                    check(&spec.columns(), profile);
                }
            }
        }
    }

    /// Batches split over several dispatches, and grids folded into two dimensions.
    #[test]
    fn dispatch_splits_and_folded_grids() {
        let lp = DeviceLimits::profile("lavapipe").expect("profile");
        // Bindings of `transforms` transforms of n points, grids of at most `x` × `x` groups.
        let narrow = |n: u64, transforms: u64, x: u32| DeviceLimits {
            max_binding: 8 * n * transforms,
            max_groups_per_dim: x,
            ..lp.clone()
        };
        check_on(&FftSpec::new(1024).batch(20), &narrow(1024, 6, 4));
        check_on(&FftSpec::new(16).batch(500), &narrow(16, 70, 4));
        check_on(&FftSpec::new(1 << 15).batch(3), &narrow(1 << 15, 1, 65535));
    }
}
