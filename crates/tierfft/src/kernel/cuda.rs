//! The CUDA C dialect, compiled at run time by NVRTC.
//!
//! Parameters: the kernel's buffers in the order of [`Kernel::bindings`], then `lines`
//! (lines in this launch). Workgroup memory is dynamic shared memory (`extern __shared__`), so a kernel can
//! use more than 48 KiB once the backend raises the function's limit. Grids are
//! two-dimensional past 65535 blocks; `grp` folds them back into one index.

use std::fmt::Write;

use super::ir::{Access, Func, Kernel, Mem, Ty};
use super::print::{self, Dialect};
use crate::base::precision::Precision;

/// CUDA C for NVRTC, with reals in `precision` (`float` or `double`).
pub struct CudaC {
    precision: Precision,
}

/// The kernel as CUDA C source.
pub fn print(k: &Kernel) -> String {
    print::print(
        &CudaC {
            precision: k.precision,
        },
        k,
    )
}

/// Complex arithmetic on `c` (`float2` or `double2`, with reals `r` made by `make`), which
/// CUDA does not define.
fn prelude(c: &str, r: &str, make: &str) -> String {
    format!(
        "\
__device__ __forceinline__ {c} operator+({c} a, {c} b) {{ return {make}(a.x + b.x, a.y + b.y); }}
__device__ __forceinline__ {c} operator-({c} a, {c} b) {{ return {make}(a.x - b.x, a.y - b.y); }}
__device__ __forceinline__ {c} operator-({c} a) {{ return {make}(-a.x, -a.y); }}
__device__ __forceinline__ {c} operator*({c} a, {r} s) {{ return {make}(a.x * s, a.y * s); }}
__device__ __forceinline__ {c} cmul({c} a, {c} b) {{
    return {make}(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}}
"
    )
}

/// Conversions between float2 and a [`Ty::Packed`] word of two f16 or two bf16 values
/// (rounding to nearest even; no header needed). From sm_80 a store packs both parts in one
/// `cvt.rn.{f16,bf16}x2.f32` (its first source goes to the upper half); before, f16 parts
/// are converted one at a time and bf16 ones rounded in integer arithmetic (NaN kept NaN).
fn packing(precision: Precision) -> &'static str {
    match precision {
        Precision::F16 => {
            r#"// Storage: f16 pairs (real part in the low half), converted to f32 on load and back on store.
__device__ __forceinline__ float2 unpack(unsigned w) {
    float2 v;
    asm("{\n\t.reg .b16 lo, hi;\n\tmov.b32 {lo, hi}, %2;\n\tcvt.f32.f16 %0, lo;\n\tcvt.f32.f16 %1, hi;\n\t}" : "=f"(v.x), "=f"(v.y) : "r"(w));
    return v;
}
__device__ __forceinline__ unsigned pack(float2 v) {
    unsigned w;
#if __CUDA_ARCH__ >= 800
    asm("cvt.rn.f16x2.f32 %0, %2, %1;" : "=r"(w) : "f"(v.x), "f"(v.y));
#else
    asm("{\n\t.reg .b16 lo, hi;\n\tcvt.rn.f16.f32 lo, %1;\n\tcvt.rn.f16.f32 hi, %2;\n\tmov.b32 %0, {lo, hi};\n\t}" : "=r"(w) : "f"(v.x), "f"(v.y));
#endif
    return w;
}
"#
        }
        Precision::Bf16 => {
            r#"// Storage: bf16 pairs (real part in the low half), converted to f32 on load and back on store.
__device__ __forceinline__ float2 unpack(unsigned w) {
    return make_float2(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u));
}
#if __CUDA_ARCH__ >= 800
__device__ __forceinline__ unsigned pack(float2 v) {
    unsigned w;
    asm("cvt.rn.bf16x2.f32 %0, %2, %1;" : "=r"(w) : "f"(v.x), "f"(v.y));
    return w;
}
#else
__device__ __forceinline__ unsigned bf16_bits(float x) {
    const unsigned b = __float_as_uint(x);
    return (b & 0x7fffffffu) > 0x7f800000u ? ((b >> 16) | 0x40u) : ((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}
__device__ __forceinline__ unsigned pack(float2 v) {
    return bf16_bits(v.x) | (bf16_bits(v.y) << 16);
}
#endif
"#
        }
        _ => "",
    }
}

impl CudaC {
    fn f64(&self) -> bool {
        self.precision == Precision::F64
    }

    /// `make_float2` or `make_double2`.
    fn make(&self) -> &'static str {
        if self.f64() {
            "make_double2"
        } else {
            "make_float2"
        }
    }

    /// The kernel's parameters: its buffers in binding order, then `lines`.
    fn params(&self, k: &Kernel) -> Vec<String> {
        // In place, `src` reads go to `dst`: no `__restrict__` promise on it then.
        let restrict = if k.in_place() { "" } else { " __restrict__" };
        let mut params: Vec<String> = k
            .bindings
            .iter()
            .map(|b| {
                let (konst, restrict) = match b.access {
                    Access::Read => ("const ", " __restrict__"),
                    Access::ReadWrite => ("", restrict),
                };
                format!("{konst}{}*{restrict} {}", self.ty(b.elem), b.mem.name())
            })
            .collect();
        params.push("unsigned lines".into());
        params
    }

    /// The declaration of the kernel's workgroup memory, if it has any.
    fn shared_decl(&self, k: &Kernel) -> String {
        k.shared.map_or(String::new(), |sh| {
            format!(
                "    extern __shared__ {} sh[]; // {} elements\n",
                self.ty(sh.ty),
                sh.len
            )
        })
    }
}

/// Distributed shared memory (sm_90): a store of a complex `c` into another block's shared
/// memory of this block's cluster (`mapa` maps the local address to the target's window),
/// and the cluster barrier with release/acquire ordering, so remote stores before it are
/// visible after it. `ptx` is the PTX type of its parts (`f32`, `f64`), `reg` their register
/// constraint (`f`, `d`). Printed only for cluster kernels (older architectures reject the
/// instructions).
fn cluster_prelude(c: &str, ptx: &str, reg: &str) -> String {
    format!(
        "\
__device__ __forceinline__ void st_cluster(const void* local, unsigned rank, {c} v) {{
    unsigned addr = (unsigned)__cvta_generic_to_shared(local), remote;
    asm volatile(\"mapa.shared::cluster.u32 %0, %1, %2;\" : \"=r\"(remote) : \"r\"(addr), \"r\"(rank));
    asm volatile(\"st.shared::cluster.v2.{ptx} [%0], {{%1, %2}};\" :: \"r\"(remote), \"{reg}\"(v.x), \"{reg}\"(v.y) : \"memory\");
}}
__device__ __forceinline__ void cluster_sync() {{
    asm volatile(\"barrier.cluster.arrive.release.aligned;\\n\\tbarrier.cluster.wait.acquire.aligned;\" ::: \"memory\");
}}
"
    )
}

/// Tickets and counters between the blocks of one launch ([`Mem::Counters`]): one thread
/// takes tickets, one ahead, and the block shares them (a block holding a next ticket is
/// running, and works through the one before it first: waits still end); a block signals
/// its finished writes with a release add after a barrier, and waits for a count with
/// acquire loads before one. `ld.acquire` and `__nanosleep` need sm_70 (CUDA 13 starts at
/// sm_75).
const TICKETS: &str = r#"// Thread 0 holds the block's next ticket in `pending`, taken while the current one runs, so
// that the atomic's round trip is hidden; the block shares the one it takes now through two
// slots in turn: the one written now was last read a whole iteration ago, before the barrier
// every iteration passes (its signal or its wait).
__device__ __forceinline__ unsigned take_ticket(unsigned* cnt, unsigned& pending, unsigned& turn) {
    __shared__ unsigned ticket[2];
    turn ^= 1u;
    if (threadIdx.x == 0) {
        ticket[turn] = pending;
        pending = atomicAdd(cnt, 1u);
    }
    __syncthreads();
    return ticket[turn];
}
__device__ __forceinline__ void signal_done(unsigned* counter) {
    __syncthreads(); // the block's writes are issued
    if (threadIdx.x == 0) {
        asm volatile("red.release.gpu.global.add.u32 [%0], 1;" :: "l"(counter) : "memory");
    }
}
__device__ __forceinline__ void wait_for(const unsigned* counter, unsigned target) {
    if (threadIdx.x == 0) {
        unsigned seen;
        for (;;) {
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(counter) : "memory");
            if (seen >= target) break;
            __nanosleep(64);
        }
    }
    __syncthreads();
}
"#;

impl Dialect for CudaC {
    fn preamble(&self, k: &Kernel) -> String {
        let c = self.ty(Ty::Complex);
        let mut s = prelude(c, self.ty(Ty::Real), self.make());
        s.push_str(packing(self.precision));
        if k.bindings.iter().any(|b| b.mem == Mem::Counters) {
            s.push_str(TICKETS);
        }
        if k.cluster.is_some() {
            let (ptx, reg) = if self.f64() {
                ("f64", "d")
            } else {
                ("f32", "f")
            };
            s.push_str(&cluster_prelude(c, ptx, reg));
        }
        s.push('\n');
        s
    }

    fn part(&self, k: &Kernel, name: &str) -> Option<(String, String)> {
        let mut params = self.params(k);
        params.push("const unsigned lid".into());
        params.push("const unsigned grp".into());
        let mut head = format!(
            "// Compiled apart: its registers are allocated on their own.\n\
             __device__ __noinline__ void {name}({}) {{\n",
            params.join(", ")
        );
        head.push_str(&self.shared_decl(k));
        let mut args: Vec<&str> = k.bindings.iter().map(|b| b.mem.name()).collect();
        args.extend(["lines", "lid", "grp"]);
        Some((head, format!("{name}({});", args.join(", "))))
    }

    fn header(&self, k: &Kernel) -> String {
        let mut s = String::new();
        let bounds = match k.groups_per_unit {
            Some(g) => format!("{}, {g}", k.threads),
            None => k.threads.to_string(),
        };
        if let Some(c) = k.cluster {
            // A launch attribute, not `__cluster_dims__`, so that sizes past 8 can run.
            let _ = writeln!(s, "// launched in clusters of {c} blocks");
        }
        let _ = writeln!(
            s,
            "extern \"C\" __global__ void __launch_bounds__({bounds}) {}({}) {{",
            k.name,
            self.params(k).join(", ")
        );
        s.push_str(&self.shared_decl(k));
        s.push_str("    const unsigned lid = threadIdx.x;\n");
        if k.persistent.is_none() {
            s.push_str("    const unsigned grp = blockIdx.x + blockIdx.y * gridDim.x;\n");
        }
        s
    }

    fn grid(&self) -> (&'static str, &'static str) {
        ("blockIdx.x", "gridDim.x")
    }

    fn loop_head(&self, condition: &str, tickets: bool) -> String {
        match tickets {
            true => format!(
                "unsigned pending = threadIdx.x == 0 ? atomicAdd(cnt, 1u) : 0u, turn = 0u;\n    \
                 for (unsigned grp = take_ticket(cnt, pending, turn); {condition}; \
                 grp = take_ticket(cnt, pending, turn)) {{"
            ),
            false => format!("for (unsigned grp = blockIdx.x; {condition}; grp += gridDim.x) {{"),
        }
    }

    fn signal(&self, counter: &str) -> String {
        format!("signal_done(&cnt[{counter}]);")
    }

    fn wait_for(&self, counter: &str, target: &str) -> String {
        format!("wait_for(&cnt[{counter}], {target});")
    }

    fn copy_async(&self, shared: &str, src: &str, index: &str) -> String {
        let copy = |offset: &str| {
            format!(
                "asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\" :: \
                 \"r\"((unsigned)__cvta_generic_to_shared(&sh[{shared}{offset}])), \
                 \"l\"(&{src}[{index}{offset}]));"
            )
        };
        // 16 bytes a copy: both complex values in f32, one in f64.
        match self.f64() {
            true => format!("{} {}", copy(""), copy(" + 1u")),
            false => copy(""),
        }
    }

    fn copy_fence(&self, wait: bool) -> String {
        if wait {
            "asm volatile(\"cp.async.wait_group 0;\" ::: \"memory\");".into()
        } else {
            "asm volatile(\"cp.async.commit_group;\" ::: \"memory\");".into()
        }
    }

    fn store_remote(&self, rank: &str, index: &str, value: &str) -> String {
        format!("st_cluster(&sh[{index}], {rank}, {value});")
    }

    fn cluster_barrier(&self) -> &'static str {
        "cluster_sync();"
    }

    fn lane_sum(&self, name: &str, ty: &str, value: &str, width: u32) -> String {
        format!(
            "{ty} {name} = {value}; for (int o = {}; o > 0; o >>= 1) {name} += __shfl_xor_sync(0xffffffffu, {name}, o);",
            width / 2
        )
    }

    fn ty(&self, t: Ty) -> &'static str {
        match t {
            Ty::U32 => "unsigned",
            Ty::Real if self.f64() => "double",
            Ty::Complex if self.f64() => "double2",
            Ty::Real => "float",
            Ty::Complex => "float2",
            Ty::Bool => "bool",
            Ty::Packed => "unsigned",
        }
    }

    fn unpack(&self, word: &str) -> String {
        format!("unpack({word})")
    }

    fn pack(&self, value: &str) -> String {
        format!("pack({value})")
    }

    fn float(&self, x: f64) -> String {
        print::float(x, self.precision, if self.f64() { "" } else { "f" })
    }

    fn let_(&self, name: &str, ty: &str, value: &str) -> String {
        format!("const {ty} {name} = {value};")
    }

    fn var(&self, name: &str, ty: &str, value: &str) -> String {
        format!("{ty} {name} = {value};")
    }

    fn barrier(&self) -> &'static str {
        "__syncthreads();"
    }

    fn lines(&self) -> &'static str {
        "lines"
    }

    fn complex(&self, re: &str, im: &str) -> String {
        format!("{}({re}, {im})", self.make())
    }

    fn select(&self, cond: &str, a: &str, b: &str) -> String {
        format!("({cond} ? {a} : {b})")
    }

    fn call(&self, f: Func, args: &[String]) -> String {
        let name = match (f, self.f64()) {
            (Func::Sqrt, false) => "sqrtf",
            (Func::Ln, false) => "logf",
            (Func::Max, false) => "fmaxf",
            (Func::ToReal, false) => "__uint2float_rn",
            (Func::Divide, false) => "__fdividef",
            (Func::Sqrt, true) => "sqrt",
            (Func::Ln, true) => "log",
            (Func::Max, true) => "fmax",
            (Func::ToReal, true) => "__uint2double_rn",
            (Func::Divide, true) => return format!("({} / {})", args[0], args[1]),
        };
        format!("{name}({})", args.join(", "))
    }

    fn load(&self, mem: Mem, name: &str, index: &str, streaming: bool) -> String {
        match (mem, streaming) {
            // Twiddles and vectors are read-only and shared by all blocks: the read-only cache.
            (Mem::Twiddles | Mem::Aux, _) => format!("__ldg(&{name}[{index}])"),
            (_, true) => format!("__ldcs(&{name}[{index}])"),
            (_, false) => format!("{name}[{index}]"),
        }
    }

    fn offset_from(&self, name: &str, base: &str) -> Option<String> {
        Some(format!("({name} + ({base}))"))
    }

    fn store(&self, name: &str, index: &str, value: &str, streaming: bool) -> String {
        match streaming {
            true => format!("__stcs(&{name}[{index}], {value});"),
            false => format!("{name}[{index}] = {value};"),
        }
    }
}
