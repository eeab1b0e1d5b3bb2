//! The CUDA C dialect, compiled at run time by NVRTC.
//!
//! Parameters: the kernel's buffers in the order of [`Kernel::bindings`], then `lines`
//! (lines in this launch). Workgroup memory is dynamic shared memory (`extern __shared__`), so a kernel can
//! use more than 48 KiB once the backend raises the function's limit. Grids are
//! two-dimensional past 65535 blocks; `grp` folds them back into one index.

use std::fmt::Write;

use super::ir::{Access, Func, Kernel, Mem, Ty};
use super::print::{self, Dialect};

/// CUDA C for NVRTC.
pub struct CudaC;

/// The kernel as CUDA C source.
pub fn print(k: &Kernel) -> String {
    print::print(&CudaC, k)
}

/// Complex arithmetic on `float2`, which CUDA does not define.
const PRELUDE: &str = "\
__device__ __forceinline__ float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float2 operator-(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ float2 operator-(float2 a) { return make_float2(-a.x, -a.y); }
__device__ __forceinline__ float2 operator*(float2 a, float s) { return make_float2(a.x * s, a.y * s); }
__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
";

impl CudaC {
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

/// Distributed shared memory (sm_90): a store into another block's shared memory of this
/// block's cluster (`mapa` maps the local address to the target's window), and the cluster
/// barrier with release/acquire ordering, so remote stores before it are visible after it.
/// Printed only for cluster kernels (older architectures reject the instructions).
const CLUSTER_PRELUDE: &str = "\
__device__ __forceinline__ void st_cluster(const void* local, unsigned rank, float2 v) {
    unsigned addr = (unsigned)__cvta_generic_to_shared(local), remote;
    asm volatile(\"mapa.shared::cluster.u32 %0, %1, %2;\" : \"=r\"(remote) : \"r\"(addr), \"r\"(rank));
    asm volatile(\"st.shared::cluster.v2.f32 [%0], {%1, %2};\" :: \"r\"(remote), \"f\"(v.x), \"f\"(v.y) : \"memory\");
}
__device__ __forceinline__ void cluster_sync() {
    asm volatile(\"barrier.cluster.arrive.release.aligned;\\n\\tbarrier.cluster.wait.acquire.aligned;\" ::: \"memory\");
}
";

impl Dialect for CudaC {
    fn preamble(&self, k: &Kernel) -> String {
        let mut s = String::from(PRELUDE);
        if k.cluster.is_some() {
            s.push_str(CLUSTER_PRELUDE);
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

    fn loop_head(&self, condition: &str) -> String {
        format!("for (unsigned grp = blockIdx.x; {condition}; grp += gridDim.x) {{")
    }

    fn copy_async(&self, shared: &str, src: &str, index: &str) -> String {
        format!(
            "asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\" :: \
             \"r\"((unsigned)__cvta_generic_to_shared(&sh[{shared}])), \"l\"(&{src}[{index}]));"
        )
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

    fn ty(&self, t: Ty) -> &'static str {
        match t {
            Ty::U32 => "unsigned",
            Ty::F32 => "float",
            Ty::C32 => "float2",
            Ty::Bool => "bool",
        }
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
        format!("make_float2({re}, {im})")
    }

    fn select(&self, cond: &str, a: &str, b: &str) -> String {
        format!("({cond} ? {a} : {b})")
    }

    fn call(&self, f: Func, args: &[String]) -> String {
        let name = match f {
            Func::Sqrt => "sqrtf",
            Func::Ln => "logf",
            Func::Max => "fmaxf",
            Func::ToF32 => "__uint2float_rn",
            Func::Divide => "__fdividef",
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

    fn store(&self, name: &str, index: &str, value: &str, streaming: bool) -> String {
        match streaming {
            true => format!("__stcs(&{name}[{index}], {value});"),
            false => format!("{name}[{index}] = {value};"),
        }
    }
}
