//! The kernel IR: typed statements and expressions that every dialect prints.
//!
//! Kernels are built fully unrolled (registers are named scalars `v0`, `v1`, ..., never
//! arrays indexed at run time), so the IR needs no loops. Arithmetic on [`Expr`] folds
//! constants as it is built, which keeps the printed source short and readable.

use crate::base::precision::Precision;
use std::ops::{Add, BitAnd, Div, Mul, Neg, Rem, Shl, Shr, Sub};

/// Value types. Reals and complex values are in the kernel's arithmetic precision
/// ([`Kernel::precision`]): f32 or f64 (f32 for the 16-bit storage precisions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// 32-bit unsigned integer (indices).
    U32,
    /// A real (`f32`/`float`, or `f64`/`double`).
    Real,
    /// A complex value (`vec2<f32>` in WGSL, `float2` in CUDA C; `vec2<f64>`, `double2`).
    Complex,
    /// Boolean.
    Bool,
    /// A complex value stored as two 16-bit floats in one 32-bit word (real part in the low
    /// half), f16 or bf16 as [`Kernel::precision`] says: only the element type of a buffer
    /// binding. Loads from it give a [`Ty::Complex`] and stores to it take one; the printers
    /// convert (rounding to nearest even) on the way.
    Packed,
}

/// Buffers and arrays a kernel reads or writes; the element types of buffers are in the
/// kernel's [`Binding`]s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mem {
    /// The kernel's input.
    Src,
    /// The kernel's output.
    Dst,
    /// Workgroup memory, complex or f32 depending on the kernel's [`Shared`] declaration.
    Shared,
    /// The plan's twiddle table.
    Twiddles,
    /// Auxiliary data: a pass's device vectors (multiplies, the chain's filter), a
    /// resampler's row positions.
    Aux,
    /// A checksummed plan's records: one per line of the dispatch ([`crate::Checksum`]).
    Check,
    /// A ticketed kernel's counters ([`Persistent::tickets`]): u32s, zero at the launch.
    /// Counter 0 hands out the tickets; the others count finished work
    /// ([`Stmt::Signal`], [`Stmt::WaitFor`]).
    Counters,
}

/// Built-in functions on reals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// Square root.
    Sqrt,
    /// Natural logarithm.
    Ln,
    /// Larger of two values.
    Max,
    /// A u32 as a real (exact below 2^24 in f32).
    ToReal,
    /// `a / b` to within 2.5 ulp for 2^-126 ≤ |b| ≤ 2^126: CUDA's fast division (one
    /// reciprocal and a multiply, against a correctly rounded division's dozen instructions
    /// and slow path), WGSL's `/`, which promises the same.
    Divide,
}

/// Values every thread can read without computing them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// Thread index within the workgroup.
    LocalIndex,
    /// Linear workgroup index (the dialect folds multi-dimensional grids into it).
    GroupIndex,
    /// Lines in this dispatch, a kernel parameter.
    Lines,
    /// In a [`Kernel::persistent`] kernel's prologue: the first workgroup index this
    /// workgroup takes.
    FirstGroup,
    /// In a persistent kernel: workgroups in the grid, the step from one group to the next.
    GroupStride,
}

/// Binary operators; on complex values `+`, `-` and `*` by a real act componentwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Lt,
    Ge,
    Min,
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A named value.
    Var(String),
    /// An unsigned literal.
    U32(u32),
    /// A real literal, printed rounded to the kernel's precision.
    Float(f64),
    /// A builtin value.
    Builtin(Builtin),
    /// `mem[index]`.
    Load(Mem, Box<Expr>),
    /// `a op b`.
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `-a`.
    Neg(Box<Expr>),
    /// A complex value from its real and imaginary parts.
    Complex(Box<Expr>, Box<Expr>),
    /// Real part of a complex value.
    Re(Box<Expr>),
    /// Imaginary part of a complex value.
    Im(Box<Expr>),
    /// Complex product.
    CMul(Box<Expr>, Box<Expr>),
    /// `if cond { a } else { b }` as a value.
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A built-in function of reals.
    Call(Func, Vec<Expr>),
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// A comment naming the step that follows.
    Comment(String),
    /// An immutable binding.
    Let(String, Ty, Expr),
    /// A mutable binding.
    Var(String, Ty, Expr),
    /// Assignment to a mutable binding.
    Assign(String, Expr),
    /// `mem[index] = value`.
    Store(Mem, Expr, Expr),
    /// Conditional block.
    If(Expr, Vec<Stmt>),
    /// Leave the kernel; only under a condition uniform across the workgroup.
    Return,
    /// Workgroup barrier: all threads arrive and workgroup memory is visible.
    Barrier,
    /// Copy two complex values (16 bytes) `src[index..index + 2]` to workgroup memory
    /// `sh[shared..shared + 2]` without waiting: CUDA's `cp.async` (the registers stay free
    /// while the copy is in flight); a plain copy where the dialect has no such thing.
    CopyAsync {
        /// Workgroup-memory index (complex elements, even).
        shared: Expr,
        /// Source index (complex elements, even).
        index: Expr,
    },
    /// Close the group of copies issued since the last commit.
    CopyCommit,
    /// Wait until every committed copy of this thread has landed (a barrier must follow
    /// before other threads read them).
    CopyWait,
    /// A part of the kernel compiled on its own where the dialect can (CUDA: a `__noinline__`
    /// function at the top level of the body, a persistent kernel's loop body included;
    /// elsewhere, and nested, a scope), so that its registers are allocated apart from the
    /// rest's, a loop around it cannot hoist its table loads into registers held across
    /// iterations, and its bindings end with it. It reads only builtins, bindings, workgroup
    /// memory and its own bindings.
    Part(Vec<Stmt>),
    /// `sh[index] = value` in the workgroup memory of workgroup `rank` of this thread's
    /// cluster ([`Kernel::cluster`]; CUDA's distributed shared memory). Visible to that
    /// workgroup after the next [`Stmt::ClusterBarrier`].
    StoreRemote {
        /// Rank of the target workgroup within the cluster, `0..cluster`.
        rank: Expr,
        /// Workgroup-memory index in the target.
        index: Expr,
        /// The value (the type of the workgroup memory's elements).
        value: Expr,
    },
    /// `let name = Σ value` over the aligned group of `width` threads (consecutive local
    /// indices, `width` a power of two up to the warp's 32) this thread belongs to: CUDA's
    /// `__shfl_xor_sync`, no workgroup memory or barrier. Every thread of the warp must reach
    /// it (top level of the body). Only where [`crate::plan::DeviceLimits::lane_sums`] says.
    LaneSum {
        /// The binding.
        name: String,
        /// Its type: a real.
        ty: Ty,
        /// This thread's addend.
        value: Expr,
        /// Threads per group.
        width: u32,
    },
    /// Every thread of every workgroup of the cluster arrives, and the workgroup-memory
    /// writes made before it (remote ones included) are visible after it. Only at the top
    /// level of the body or of a top-level [`Stmt::Part`].
    ClusterBarrier,
    /// The workgroup's device-memory writes so far are done: after a barrier, one thread
    /// adds 1 to `counters[counter]` with release ordering, so that a workgroup that sees
    /// the count ([`Stmt::WaitFor`]) sees the writes. Under a condition uniform across the
    /// workgroup only.
    Signal {
        /// The counter ([`Mem::Counters`]).
        counter: Expr,
    },
    /// Waits until `counters[counter] >= target` (one thread polls with acquire ordering,
    /// then a barrier), after which the writes of the workgroups that signalled it are
    /// visible. Only in a ticketed kernel ([`Persistent::tickets`]), on work that earlier
    /// tickets complete: every earlier ticket is held by a running workgroup, so the wait
    /// ends. Under a condition uniform across the workgroup only.
    WaitFor {
        /// The counter ([`Mem::Counters`]).
        counter: Expr,
        /// The count to wait for.
        target: Expr,
    },
}

/// Workgroup memory a kernel declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shared {
    /// Element type: complex or f32.
    pub ty: Ty,
    /// Elements.
    pub len: usize,
}

/// A whole kernel: its interface and its body.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// Entry-point name.
    pub name: String,
    /// Header comment lines (what the kernel does).
    pub doc: Vec<String>,
    /// The precision of its [`Ty::Real`] and [`Ty::Complex`] values, literals, workgroup
    /// memory and buffers: f32 or f64; f16 and bf16 compute in f32 and store the data
    /// buffers' values as [`Ty::Packed`].
    pub precision: Precision,
    /// Threads per workgroup (one-dimensional).
    pub threads: u32,
    /// Workgroups per compute unit to compile for (a register cap where the dialect has one).
    pub groups_per_unit: Option<u32>,
    /// Workgroups per cluster (CUDA thread-block clusters, sm_90 and up): consecutive group
    /// indices `k·c .. k·c + c` run at once and reach each other's workgroup memory; rank
    /// within the cluster is the group index mod `c`. `None`: no clusters.
    pub cluster: Option<u32>,
    /// Workgroup memory, if any.
    pub shared: Option<Shared>,
    /// The buffers the kernel binds, in binding (parameter) order. The printers declare them
    /// and the backends bind them from this list. A kernel with no `Src` binding runs in
    /// place: its `Src` reads go to `Dst`.
    pub bindings: Vec<Binding>,
    /// A grid-stride kernel: `prologue` runs once, then `body` runs for workgroup indices
    /// `FirstGroup, FirstGroup + GroupStride, ...` while `condition` (in terms of the group
    /// index) holds. `None`: `body` runs once for the workgroup's own index.
    pub persistent: Option<Persistent>,
    /// The body.
    pub body: Vec<Stmt>,
}

impl Kernel {
    /// Whether `Src` and `Dst` are one buffer (no `Src` binding).
    pub fn in_place(&self) -> bool {
        !self.bindings.iter().any(|b| b.mem == Mem::Src)
    }
}

/// How a kernel uses a buffer it binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Only read.
    Read,
    /// Read and written.
    ReadWrite,
}

/// One buffer a kernel binds: which one (the backends bind it by this), the type of its
/// elements and how the kernel uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Binding {
    /// The buffer.
    pub mem: Mem,
    /// Element type.
    pub elem: Ty,
    /// Read-only or read-write.
    pub access: Access,
    /// Each element is read or written once by the whole transform (its input, its output)
    /// while another buffer is reused: dialects that can mark these accesses evict-first in
    /// the cache (CUDA `__ldcs`/`__stcs`), so that they do not push the reused data out.
    pub streaming: bool,
}

impl Binding {
    /// A read-only binding of `mem` with elements of type `elem`.
    pub fn read(mem: Mem, elem: Ty) -> Binding {
        Binding {
            mem,
            elem,
            access: Access::Read,
            streaming: false,
        }
    }

    /// A read-write binding of `mem` with elements of type `elem`.
    pub fn read_write(mem: Mem, elem: Ty) -> Binding {
        Binding {
            mem,
            elem,
            access: Access::ReadWrite,
            streaming: false,
        }
    }
}

impl Mem {
    /// The name the printed source gives the buffer.
    pub fn name(self) -> &'static str {
        match self {
            Mem::Src => "src",
            Mem::Dst => "dst",
            Mem::Shared => "sh",
            Mem::Twiddles => "tw",
            Mem::Aux => "aux",
            Mem::Check => "chk",
            Mem::Counters => "cnt",
        }
    }
}

/// The loop of a persistent kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Persistent {
    /// Runs once before the loop.
    pub prologue: Vec<Stmt>,
    /// The loop runs while this holds for the group index.
    pub condition: Expr,
    /// Each iteration's group index is a ticket: one thread takes the next value of
    /// `counters[0]` ([`Mem::Counters`]) and the workgroup shares it, so groups are handed
    /// out in order to whichever workgroup is free, and a group may wait for earlier ones
    /// ([`Stmt::WaitFor`]). The body must pass a barrier every iteration (CUDA shares the
    /// tickets through two workgroup-memory slots in turn). `false`: grid-stride,
    /// `FirstGroup + k·GroupStride`.
    pub tickets: bool,
}

/// Calls `f` on every expression of `body`, outermost first, nested blocks included (for
/// rewriting a body built for one kernel into another's, e.g. its builtins).
pub fn map_exprs(body: &mut [Stmt], f: &mut impl FnMut(&mut Expr)) {
    fn expr(e: &mut Expr, f: &mut impl FnMut(&mut Expr)) {
        f(e);
        match e {
            Expr::Var(_) | Expr::U32(_) | Expr::Float(_) | Expr::Builtin(_) => {}
            Expr::Load(_, a) | Expr::Neg(a) | Expr::Re(a) | Expr::Im(a) => expr(a, f),
            Expr::Bin(_, a, b) | Expr::Complex(a, b) | Expr::CMul(a, b) => {
                expr(a, f);
                expr(b, f);
            }
            Expr::Select(c, a, b) => {
                expr(c, f);
                expr(a, f);
                expr(b, f);
            }
            Expr::Call(_, args) => args.iter_mut().for_each(|a| expr(a, f)),
        }
    }
    for st in body {
        match st {
            Stmt::Comment(_)
            | Stmt::Return
            | Stmt::Barrier
            | Stmt::CopyCommit
            | Stmt::CopyWait
            | Stmt::ClusterBarrier => {}
            Stmt::Let(_, _, e) | Stmt::Var(_, _, e) | Stmt::Assign(_, e) => expr(e, f),
            Stmt::Store(_, i, v) => {
                expr(i, f);
                expr(v, f);
            }
            Stmt::If(c, inner) => {
                expr(c, f);
                map_exprs(inner, f);
            }
            Stmt::Part(inner) => map_exprs(inner, f),
            Stmt::CopyAsync { shared, index } => {
                expr(shared, f);
                expr(index, f);
            }
            Stmt::StoreRemote { rank, index, value } => {
                expr(rank, f);
                expr(index, f);
                expr(value, f);
            }
            Stmt::LaneSum { value, .. } => expr(value, f),
            Stmt::Signal { counter } => expr(counter, f),
            Stmt::WaitFor { counter, target } => {
                expr(counter, f);
                expr(target, f);
            }
        }
    }
}

/// `name`.
pub fn var(name: impl Into<String>) -> Expr {
    Expr::Var(name.into())
}

/// An unsigned literal.
#[expect(
    clippy::expect_used,
    reason = "Plan::check keeps every length, count and index of a dispatch within 32 bits"
)]
pub fn u(x: usize) -> Expr {
    Expr::U32(u32::try_from(x).expect("kernel constants fit in u32 (n <= 2^27)"))
}

/// A real literal (rounded to the kernel's precision when printed).
pub fn f(x: f64) -> Expr {
    Expr::Float(x)
}

/// `mem[index]`.
pub fn load(mem: Mem, index: Expr) -> Expr {
    Expr::Load(mem, Box::new(index))
}

/// A complex value.
pub fn complex(re: Expr, im: Expr) -> Expr {
    Expr::Complex(Box::new(re), Box::new(im))
}

/// `if cond { a } else { b }`.
pub fn select(cond: Expr, a: Expr, b: Expr) -> Expr {
    Expr::Select(Box::new(cond), Box::new(a), Box::new(b))
}

/// `f(args)`.
pub fn call(f: Func, args: Vec<Expr>) -> Expr {
    Expr::Call(f, args)
}

/// `a >= b`.
pub fn ge(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Ge, a, b)
}

/// `min(a, b)`.
pub fn min(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Min, a, b)
}

/// `a < b`.
pub fn lt(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Lt, a, b)
}

impl Expr {
    /// Real part.
    pub fn re(&self) -> Expr {
        Expr::Re(Box::new(self.clone()))
    }
    /// Imaginary part.
    pub fn im(&self) -> Expr {
        Expr::Im(Box::new(self.clone()))
    }
    /// Complex product.
    pub fn cmul(self, b: Expr) -> Expr {
        Expr::CMul(Box::new(self), Box::new(b))
    }
    fn lit(&self) -> Option<u32> {
        match self {
            Expr::U32(x) => Some(*x),
            _ => None,
        }
    }

    /// `(x, c)` with `self = x + c` and `c` the constant term sums are built with (sums keep
    /// their constants outermost, see `bin`); `c` is 0 when there is none.
    pub fn split_constant(&self) -> (Expr, u32) {
        match self {
            Expr::U32(c) => (Expr::U32(0), *c),
            Expr::Bin(BinOp::Add, a, b) => match b.lit() {
                Some(c) => ((**a).clone(), c),
                None => (self.clone(), 0),
            },
            _ => (self.clone(), 0),
        }
    }

    /// Whether the expression subtracts anywhere: an unsigned value built without differences
    /// never wraps below zero, so with a constant added it is the same number in 32 bits and
    /// in 64 (indices stay below 2^32: `Plan::check`).
    pub fn subtracts(&self) -> bool {
        match self {
            Expr::Bin(BinOp::Sub, ..) | Expr::Neg(_) => true,
            Expr::Var(_) | Expr::U32(_) | Expr::Float(_) | Expr::Builtin(_) => false,
            Expr::Load(_, a) | Expr::Re(a) | Expr::Im(a) => a.subtracts(),
            Expr::Bin(_, a, b) | Expr::Complex(a, b) | Expr::CMul(a, b) => {
                a.subtracts() || b.subtracts()
            }
            Expr::Select(c, a, b) => c.subtracts() || a.subtracts() || b.subtracts(),
            Expr::Call(_, args) => args.iter().any(Expr::subtracts),
        }
    }
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    use BinOp::*;
    if let (Some(x), Some(y)) = (a.lit(), b.lit()) {
        let folded = match op {
            Add => x.checked_add(y),
            Sub => x.checked_sub(y),
            Mul => x.checked_mul(y),
            Div => x.checked_div(y),
            Rem => x.checked_rem(y),
            Shl => x.checked_shl(y),
            Shr => x.checked_shr(y),
            And => Some(x & y),
            Min => Some(x.min(y)),
            Lt | Ge => None,
        };
        if let Some(v) = folded {
            return Expr::U32(v);
        }
    }
    if let (Mul | Shl, Some(k)) = (op, b.lit()) {
        // (x + c)·k = x·k + c·k (and the same for shifts) where c·k fits: the constant stays
        // outermost through the scaling of a line's position into its index.
        let (x, c) = a.split_constant();
        let scaled = match op {
            Mul => c.checked_mul(k),
            _ => (k < 32 && u64::from(c) << k <= u64::from(u32::MAX)).then(|| c << k),
        };
        if let (true, None, Some(ck)) = (c > 0, x.lit(), scaled) {
            return bin(Add, bin(op, x, Expr::U32(k)), Expr::U32(ck));
        }
    }
    if op == Add {
        // Constants outermost: (x + c1) + (y + c2) = (x + y) + (c1 + c2), so that an index
        // is visibly a thread-dependent part plus an immediate offset.
        let (x, c1) = a.split_constant();
        let (y, c2) = b.split_constant();
        if (c1 > 0 || c2 > 0)
            && let Some(c) = c1.checked_add(c2)
        {
            let sum = match (x.lit(), y.lit()) {
                (None, None) => Some(bin(Add, x, y)),
                (None, Some(_)) => Some(x),
                (Some(_), None) => Some(y),
                (Some(_), Some(_)) => None,
            };
            if let Some(sum) = sum {
                return Expr::Bin(Add, Box::new(sum), Box::new(Expr::U32(c)));
            }
        }
    }
    match (op, a.lit(), b.lit()) {
        (Add | Sub | Shl | Shr, _, Some(0)) | (Mul | Div, _, Some(1)) => a,
        (Add, Some(0), _) | (Mul, Some(1), _) => b,
        (Mul | And, Some(0), _) | (Mul | And, _, Some(0)) | (Rem, _, Some(1)) => Expr::U32(0),
        // Powers of two: shifts and masks read better and cost less.
        (Mul, _, Some(y)) if y.is_power_of_two() => bin(Shl, a, Expr::U32(y.trailing_zeros())),
        (Div, _, Some(y)) if y.is_power_of_two() => bin(Shr, a, Expr::U32(y.trailing_zeros())),
        (Rem, _, Some(y)) if y.is_power_of_two() => bin(And, a, Expr::U32(y - 1)),
        _ => Expr::Bin(op, Box::new(a), Box::new(b)),
    }
}

macro_rules! ops {
    ($($tr:ident $m:ident $op:ident),*) => {$(
        impl $tr for Expr {
            type Output = Expr;
            fn $m(self, b: Expr) -> Expr { bin(BinOp::$op, self, b) }
        }
    )*};
}
ops!(Add add Add, Sub sub Sub, Mul mul Mul, Div div Div, Rem rem Rem, Shl shl Shl, Shr shr Shr, BitAnd bitand And);

impl Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        match self {
            Expr::Neg(a) => *a,
            a => Expr::Neg(Box::new(a)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_constants_and_powers_of_two() {
        assert_eq!(u(3) * u(4) + u(1), u(13));
        assert_eq!(var("j") * u(1) + u(0), var("j"));
        assert_eq!(
            var("j") * u(8),
            Expr::Bin(BinOp::Shl, Box::new(var("j")), Box::new(u(3)))
        );
        assert_eq!(
            var("j") % u(8),
            Expr::Bin(BinOp::And, Box::new(var("j")), Box::new(u(7)))
        );
        assert_eq!(var("j") % u(1), u(0));
        // Constants end up outermost, summed.
        let (x, c) = ((var("a") + u(3)) + (var("b") + u(5))).split_constant();
        assert_eq!((x, c), (var("a") + var("b"), 8));
        assert_eq!((u(2) + (var("a") + u(3))).split_constant(), (var("a"), 5));
        assert_eq!(-(-var("x")), var("x"));
        // Through scalings too: a point's index is its line's part plus an offset.
        assert_eq!(
            ((var("t") + u(256)) * u(4096)).split_constant(),
            (var("t") << u(12), 1 << 20)
        );
        assert_eq!(
            ((var("t") + u(3)) * u(5)).split_constant(),
            (var("t") * u(5), 15)
        );
        // Not where the offset would overflow.
        assert_eq!(
            ((var("t") + u(1 << 31)) << u(1)).split_constant(),
            (((var("t") + u(1 << 31)) << u(1)), 0)
        );
    }
}
