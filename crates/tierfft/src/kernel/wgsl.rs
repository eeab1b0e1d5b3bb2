//! The WGSL dialect.
//!
//! Bindings: the kernel's buffers in the order of [`Kernel::bindings`] (binding 0, 1, ...),
//! then `params` (uniform; `.x` = lines in this dispatch). Dispatches are two-dimensional
//! when the workgroup count exceeds one dimension's limit; `grp` folds them back into one
//! index.

use std::fmt::Write;

use super::ir::{Access, Binding, Func, Kernel, Ty};
use super::print::{self, Dialect};
use crate::base::precision::Precision;

/// The binding of the dispatch parameters (`params`, a uniform `vec4<u32>` whose `.x` is the
/// lines in this dispatch): after the kernel's buffers.
pub fn params_binding(bindings: &[Binding]) -> u32 {
    bindings.len() as u32
}

/// WGSL, as naga and the WebGPU implementations read it, with reals in `precision` (f64 is
/// naga's extension: `f64` values and `lf` literals, on devices with `SHADER_F64`).
pub struct Wgsl {
    precision: Precision,
}

/// The kernel as WGSL source.
pub fn print(k: &Kernel) -> String {
    print::print(
        &Wgsl {
            precision: k.precision,
        },
        k,
    )
}

/// Conversions between `vec2<f32>` and a word of two bf16 values (real part in the low half):
/// the upper halves of the parts' f32 bits, rounded to nearest even, NaN kept NaN.
const BF16: &str = "
// Storage: bf16 pairs, converted to f32 on load and back on store.
fn unpack_bf16(w: u32) -> vec2<f32> {
    return vec2<f32>(bitcast<f32>(w << 16u), bitcast<f32>(w & 0xffff0000u));
}
fn bf16_bits(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    return select((b + 0x7fffu + ((b >> 16u) & 1u)) >> 16u, (b >> 16u) | 0x40u, (b & 0x7fffffffu) > 0x7f800000u);
}
fn pack_bf16(v: vec2<f32>) -> u32 {
    return bf16_bits(v.x) | (bf16_bits(v.y) << 16u);
}
";

impl Wgsl {
    /// The scalar type of reals: `f32` or `f64`.
    fn real(&self) -> &'static str {
        match self.precision {
            Precision::F64 => "f64",
            _ => "f32",
        }
    }
}

impl Dialect for Wgsl {
    fn header(&self, k: &Kernel) -> String {
        let mut s = String::new();
        for (slot, b) in k.bindings.iter().enumerate() {
            let access = match b.access {
                Access::Read => "read",
                Access::ReadWrite => "read_write",
            };
            let _ = writeln!(
                s,
                "@group(0) @binding({slot}) var<storage, {access}> {}: array<{}>;",
                b.mem.name(),
                self.ty(b.elem)
            );
        }
        let _ = writeln!(
            s,
            "@group(0) @binding({}) var<uniform> params: vec4<u32>;",
            params_binding(&k.bindings)
        );
        if let Some(sh) = k.shared {
            let _ = writeln!(
                s,
                "var<workgroup> sh: array<{}, {}>;",
                self.ty(sh.ty),
                sh.len
            );
        }
        if self.precision == Precision::Bf16 {
            s.push_str(BF16);
        }
        let c = self.ty(Ty::Complex);
        let _ = write!(
            s,
            "\nfn cmul(a: {c}, b: {c}) -> {c} {{\n    \
             return {c}(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);\n}}\n\n"
        );
        let _ = writeln!(s, "@compute @workgroup_size({})", k.threads);
        let _ = writeln!(
            s,
            "fn {}(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wg: vec3<u32>, \
             @builtin(num_workgroups) nwg: vec3<u32>) {{",
            k.name
        );
        if k.persistent.is_none() {
            s.push_str("    let grp = wg.x + wg.y * nwg.x;\n");
        }
        s
    }

    fn grid(&self) -> (&'static str, &'static str) {
        ("wg.x", "nwg.x")
    }

    // Ticketed kernels wait on other workgroups, and WGSL promises no forward progress
    // between workgroups: the planner makes them only for devices that do
    // ([`crate::plan::DeviceLimits::workgroups_wait`]), never through wgpu.
    fn loop_head(&self, condition: &str, tickets: bool) -> String {
        match tickets {
            true => {
                format!("// unsupported in WGSL: a loop over tickets while {condition}\n    {{")
            }
            false => format!("for (var grp: u32 = wg.x; {condition}; grp = grp + nwg.x) {{"),
        }
    }

    fn signal(&self, counter: &str) -> String {
        format!("// unsupported in WGSL: signal counter {counter}")
    }

    fn wait_for(&self, counter: &str, target: &str) -> String {
        format!("// unsupported in WGSL: wait for counter {counter} to reach {target}")
    }

    // WGSL has no asynchronous copy: copy now (the loop still overlaps nothing, but runs the
    // same schedule, so lavapipe tests the persistent kernels' indexing).
    fn copy_async(&self, shared: &str, src: &str, index: &str) -> String {
        format!("sh[{shared}] = {src}[{index}]; sh[{shared} + 1u] = {src}[{index} + 1u];")
    }

    fn copy_fence(&self, _wait: bool) -> String {
        "// (copies are synchronous in WGSL)".into()
    }

    // WGSL has no clusters; the wgpu backend refuses kernels that use them
    // ([`Kernel::cluster`]), so these lines are never run.
    fn store_remote(&self, rank: &str, index: &str, value: &str) -> String {
        format!("// unsupported in WGSL: cluster workgroup {rank}'s sh[{index}] = {value};")
    }

    fn cluster_barrier(&self) -> &'static str {
        "// unsupported in WGSL: cluster barrier"
    }

    fn lane_sum(&self, name: &str, _ty: &str, value: &str, width: u32) -> String {
        format!("// unsupported in WGSL: {name} = sum of {value} over {width} lanes")
    }

    fn ty(&self, t: Ty) -> &'static str {
        match t {
            Ty::U32 => "u32",
            Ty::Real => self.real(),
            Ty::Complex => match self.precision {
                Precision::F64 => "vec2<f64>",
                _ => "vec2<f32>",
            },
            Ty::Bool => "bool",
            Ty::Packed => "u32",
        }
    }

    // f16 pairs through WGSL's core pack/unpack built-ins: no f16 arithmetic (SHADER_F16)
    // needed.
    fn unpack(&self, word: &str) -> String {
        match self.precision {
            Precision::Bf16 => format!("unpack_bf16({word})"),
            _ => format!("unpack2x16float({word})"),
        }
    }

    fn pack(&self, value: &str) -> String {
        match self.precision {
            Precision::Bf16 => format!("pack_bf16({value})"),
            _ => format!("pack2x16float({value})"),
        }
    }

    fn float(&self, x: f64) -> String {
        let suffix = match self.precision {
            Precision::F64 => "lf",
            _ => "f",
        };
        print::float(x, self.precision, suffix)
    }

    fn let_(&self, name: &str, ty: &str, value: &str) -> String {
        format!("let {name}: {ty} = {value};")
    }

    fn var(&self, name: &str, ty: &str, value: &str) -> String {
        format!("var {name}: {ty} = {value};")
    }

    fn barrier(&self) -> &'static str {
        "workgroupBarrier();"
    }

    fn lines(&self) -> &'static str {
        "params.x"
    }

    fn complex(&self, re: &str, im: &str) -> String {
        format!("{}({re}, {im})", self.ty(Ty::Complex))
    }

    fn select(&self, cond: &str, a: &str, b: &str) -> String {
        format!("select({b}, {a}, {cond})")
    }

    fn call(&self, f: Func, args: &[String]) -> String {
        let name = match f {
            Func::Sqrt => "sqrt",
            // SPIR-V's Log is 32-bit at most: an f64 logarithm through f32 (decibels only).
            Func::Ln if self.precision == Precision::F64 => {
                return format!("f64(log(f32({})))", args.join(", "));
            }
            Func::Ln => "log",
            Func::Max => "max",
            Func::ToReal => self.real(),
            Func::Divide => {
                let parts: Vec<String> = args.iter().map(|a| format!("({a})")).collect();
                return format!("({})", parts.join(" / "));
            }
        };
        format!("{name}({})", args.join(", "))
    }
}
