//! Spec + device limits -> [`Plan`]: passes over device memory, radices, threads, on-chip bytes.
//!
//! Pure data: nothing here touches a GPU, so plans can be printed (`tierfft plan`) and tested
//! anywhere.
//!
//! # The decomposition
//!
//! Every pass is one radix-`size` step of a Stockham autosort FFT (Govindaraju et al., SC'08):
//! for each of the `n / size` lines `j`, it reads the `size` points `x[j + r·n/size]`,
//! multiplies point `r` by the twiddle `W_{stride·size}^{(j mod stride)·r}` (fused: there is no
//! twiddle or transpose kernel), transforms them on chip, and writes point `q` to
//! `y[(j / stride)·stride·size + j mod stride + q·stride]`, with `stride` the product of the
//! earlier passes' sizes. The on-chip transform is the same recursion one level down: radix-8
//! stages (radix-4/2 tail) exchanging through workgroup memory. A transform that fits the
//! largest on-chip block `B` takes one pass; above that, `ceil(log2 n / log2(B / lines))`
//! passes, where `lines` consecutive lines share a workgroup so that strided reads and writes
//! come in runs at least one memory transaction long.

mod aux;
mod bluestein;
mod check;
pub(crate) mod checksum;
mod cluster;
mod decompose;
mod display;
pub(crate) mod limits;
mod merged;
mod options;
mod pass;
mod passes;
mod real;
mod reshape;
mod reshape_host;
mod roles;
pub mod schedule;
pub(crate) mod shape;
mod trig_host;
pub mod tune;
pub mod wisdom;
// The GPU backends and the interpreter upload tables; the CPU reads the plan itself.
#[cfg(any(feature = "cuda", feature = "wgpu", feature = "fuzzing", test))]
mod words;

pub use crate::base::factors::is_smooth;
pub use bluestein::Bluestein;
pub use cluster::{Cluster, MAX_CLUSTER, MAX_PORTABLE_CLUSTER};
pub use limits::{DeviceLimits, RegisterBudget};
pub(crate) use limits::{MAX_HELD_POINTS, WIDE_MIN_LINES};
pub use merged::{Merged, Ticket};
pub use options::PlanOptions;
pub use pass::{Body, Geometry, Load, LoadOp, Pass, Persistent, Store, StoreOp};
pub use real::RealFusion;
pub use reshape::{LinePairs, Reshape};
pub(crate) use reshape_host::{reshape as reshape_on_host, rounded_twiddles};
pub(crate) use trig_host::trig as trig_on_host;

use crate::base::precision::Precision;
use crate::base::twiddle::TwiddleLayout;
use crate::error::{Error, Result};
use crate::spec::FftSpec;

/// Default largest radix of an on-chip stage, and so the points each thread holds.
pub const MAX_RADIX: usize = 8;
/// Default threads per workgroup the planner aims for when it packs several lines together.
pub const TARGET_THREADS: usize = 256;
/// The same for NVIDIA GPUs through Vulkan ([`DeviceLimits::target_threads`]). Measured on the
/// H100 through wgpu/Vulkan against cuFFT in one run (docs/BENCHMARKS.md,
/// "2026-11-24, commits cd2cc14 and 64eac99"): one-pass lengths 16..1024 ran at 0.78–0.90 of
/// cuFFT in workgroups of 256 threads, 0.90–0.97 in 128 and 0.96–0.98 in 64, where CUDA runs
/// the same kernels at 0.97–1.01 in 256.
pub const NVIDIA_VULKAN_TARGET_THREADS: usize = 64;
/// How passes exchange points on NVIDIA GPUs through Vulkan ([`DeviceLimits::exchange`]): the
/// split exchange, half the workgroup memory. The driver's own statistics show the same
/// registers for both exchanges (47–52, CUDA's 40–57), yet on the H100 the complex exchange ran
/// 2048 and 4096 points at 0.80 and 0.72 of cuFFT (17 and 34 KiB a workgroup), the split one at
/// 0.97 and 0.98 (9 and 18 KiB), and 16..1024 points alike (0.94–0.97); docs/BENCHMARKS.md,
/// "2026-11-24, commit 08c16cf".
pub const NVIDIA_VULKAN_EXCHANGE: Option<Exchange> = Some(Exchange::Split);
/// Most rounds of the complex exchange the planner takes for one-pass f32 lines on NVIDIA
/// GPUs through Vulkan ([`DeviceLimits::exchange_rounds`]), where the complex exchange does
/// not fit 48 KiB at once. Measured on the H100 (docs/BENCHMARKS.md, "2026-12-06, commits
/// 4ab28fa to 8478e0d and the next"): 8192 points in two rounds 1.16× the split exchange in
/// one (242 against 280 µs a 256 MiB batch), 16384 in four 1.93× two passes (258 against
/// 497 µs); 32768 in eight ran slower than two passes, hence at most four.
pub const NVIDIA_VULKAN_EXCHANGE_ROUNDS: usize = 4;
/// Most points a thread holds on NVIDIA GPUs through Vulkan ([`DeviceLimits::max_points_per_thread`];
/// other wgpu devices 8): 16, which lets the planner take the wide line shapes measured on
/// CUDA. The driver's statistics: 78–90 registers at 16 points, 150–173 at 32.
pub const NVIDIA_VULKAN_POINTS_PER_THREAD: usize = 16;
/// [`DeviceLimits::max_chain_points`] under CUDA. Measured on the H100 against cuFFT's
/// FFT + multiply + IFFT on 2^24-point scenes (docs/BENCHMARKS.md): one kernel 2.0× at 4096
/// points but 1.1× at 8192 and 0.8× at 16384, where the kernel spills; two one-pass kernels
/// move twice the bytes at about the copy bandwidth instead.
pub const CUDA_MAX_CHAIN_POINTS: usize = 4096;

/// How the threads of a workgroup are laid over its lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LineOrder {
    /// Neighbouring threads work on neighbouring lines (strided passes: a line's points are far
    /// apart in memory, neighbouring lines' points are adjacent).
    Interleaved,
    /// Each line's threads are together (single-pass plans: a line is a contiguous transform).
    Contiguous,
}

/// How registers exchange through workgroup memory between stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Exchange {
    /// Whole complex values: 8 bytes a point in f32 (16 in f64), one write and one read per
    /// exchange.
    Complex,
    /// Real parts, then imaginary parts: 4 bytes a point in f32 (8 in f64), twice the
    /// barriers; doubles the largest on-chip block.
    Split,
}

impl Exchange {
    /// Workgroup-memory bytes per point, computing in `precision` (f32: 8 and 4).
    pub fn bytes(self, precision: Precision) -> usize {
        match self {
            Exchange::Complex => 2 * precision.compute_bytes(),
            Exchange::Split => precision.compute_bytes(),
        }
    }

    /// Elements between padding slots in padded workgroup memory. Eight-byte accesses are
    /// served half a warp (16 threads, all 32 banks) at a time, so one slot per 16 elements
    /// spreads radix-16 and radix-8 writes over every bank and keeps contiguous reads whole;
    /// one per 8 (the 4-byte split exchange) does the same for a full warp of radix-8 writes.
    pub fn pad_period(self) -> usize {
        match self {
            Exchange::Complex => 16,
            Exchange::Split => 8,
        }
    }
}

/// A planned transform: the spec, the passes, and how dispatches are cut to the device.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Plan {
    /// What was asked for.
    pub spec: FftSpec,
    /// The device planned for.
    pub limits: DeviceLimits,
    /// Largest transform one workgroup can hold on chip (points), and how it exchanges.
    pub block: (usize, Exchange),
    /// The passes over device memory, in order.
    pub passes: Vec<Pass>,
    /// Transforms bound per dispatch, so no binding exceeds the device's limit (and, when
    /// `resident` is set, so a chunk stays in L2 between passes).
    pub transforms_per_dispatch: usize,
    /// Run all passes on one chunk of `transforms_per_dispatch` transforms before the next
    /// (L2 residency), rather than each pass over the whole batch.
    pub resident: bool,
    /// A chained spec runs as passes of its own: the forward transform's passes, then the
    /// back-transform's, the first multiplying by the filter on load (a chain longer than
    /// one pass, or than [`DeviceLimits::max_chain_points`]). False for Bluestein plans,
    /// whose chains are two convolutions (see [`Bluestein`]).
    pub split_chain: bool,
    /// Layout of the twiddle buffer.
    pub twiddles: TwiddleLayout,
    /// A length with a prime factor above 31: the passes run Bluestein's convolution, a
    /// longer smooth transform (see [`Bluestein`]).
    pub bluestein: Option<Bluestein>,
    /// The two passes run as one launch, taking tiles by ticket ([`Merged`]); `None`: one
    /// launch per pass and dispatch.
    pub merged: Option<Merged>,
}

impl Plan {
    /// Plans `spec` for a device with `limits`, with the default options.
    pub fn new(spec: &FftSpec, limits: &DeviceLimits) -> Result<Plan> {
        Plan::with_options(spec, limits, &PlanOptions::default())
    }

    /// Plans `spec` for a device with `limits` and the given tuning options.
    pub fn with_options(spec: &FftSpec, limits: &DeviceLimits, opts: &PlanOptions) -> Result<Plan> {
        spec.validate()?;
        opts.validate()?;
        limits.validate()?;
        let plan = if is_smooth(spec.n) {
            Plan::smooth(spec, limits, opts)?
        } else if spec.real.is_some() {
            return Err(real::unfusable(
                spec,
                limits,
                "its length has a prime factor above 31",
            ));
        } else {
            bluestein::plan(spec, limits, opts)?
        };
        // Each launch binds its pass's vectors (a split chain's forward multiply and filter
        // one at a time, where together they may exceed the binding: see `decompose`).
        let element = plan.aux_element_bytes() as u64;
        let total = element * plan.aux_len() as u64;
        if total > limits.max_buffer {
            return Err(Error::TooLarge {
                what: format!("{} MiB of fused device vectors", total >> 20),
                device: limits.name.clone(),
                detail: format!(
                    "they share one buffer, and the device's buffers hold at most {} MiB",
                    limits.max_buffer >> 20
                ),
            });
        }
        for pass in 0..plan.passes.len() {
            let bytes = element * plan.aux_range(pass).len() as u64;
            if bytes > limits.max_binding {
                return Err(Error::TooLarge {
                    what: format!("{} MiB of fused device vectors in one pass", bytes >> 20),
                    device: limits.name.clone(),
                    detail: format!(
                        "a pass binds its vectors together, and the device binds at most {} MiB",
                        limits.max_binding >> 20
                    ),
                });
            }
        }
        Ok(plan)
    }

    /// The plans [`PlanOptions::measure`] times for `spec`: one for each of Bluestein's
    /// convolution lengths that fits ([`Bluestein::candidates`]) where `n` has a prime factor
    /// above 31 and no length is pinned; for a smooth length the plan
    /// [`Plan::with_options`] makes, then those of [`tune::variations`] that differ from
    /// it, where the options leave the shape to the planner.
    pub fn candidates(
        spec: &FftSpec,
        limits: &DeviceLimits,
        opts: &PlanOptions,
    ) -> Result<Vec<Plan>> {
        if opts.bluestein_m.is_some() {
            return Ok(vec![Plan::with_options(spec, limits, opts)?]);
        }
        if is_smooth(spec.n) {
            let base = Plan::with_options(spec, limits, opts)?;
            let unmeasured = opts.clone().with_measure(false);
            let others = match unmeasured.leaves_shape_to_planner() {
                true => tune::distinct_plans(
                    spec,
                    limits,
                    &unmeasured,
                    &base,
                    tune::variations(spec, limits),
                ),
                false => Vec::new(),
            };
            return Ok(std::iter::once(base)
                .chain(others.into_iter().map(|(_, p)| p))
                .collect());
        }
        let mut plans = Vec::new();
        let mut last_error = None;
        for m in Bluestein::candidates(spec.n) {
            let pinned = PlanOptions {
                bluestein_m: Some(m),
                ..opts.clone()
            };
            match Plan::with_options(spec, limits, &pinned) {
                Ok(p) => plans.push(p),
                Err(e) => last_error = Some(e),
            }
        }
        match (plans.is_empty(), last_error) {
            (true, Some(e)) => Err(e),
            _ => Ok(plans),
        }
    }

    /// Plans a transform of smooth length (any, up to Bluestein's inner lengths: the spec
    /// is validated by the caller) in three steps: the passes' sizes ([`decompose`]), what
    /// each pass fuses ([`roles::assign`]) and how many transforms a launch covers
    /// ([`schedule::dispatch_size`]).
    fn smooth(spec: &FftSpec, limits: &DeviceLimits, opts: &PlanOptions) -> Result<Plan> {
        let (block, mut passes) = decompose::decompose(spec, limits, opts)?;
        roles::assign(spec, limits, &mut passes)?;
        let (transforms_per_dispatch, resident) =
            schedule::dispatch_size(spec, limits, opts, passes.len())?;
        let merged = merged::choose(spec, limits, opts, &mut passes, resident);
        let n = spec.n;
        let steps = || passes.iter().flat_map(Pass::steps);
        let lo_bits = if steps().any(Pass::twiddled) {
            n.next_power_of_two().ilog2().div_ceil(2)
        } else {
            0
        };
        let twiddles = TwiddleLayout::new(n, steps().map(|p| &p.radices[..]), lo_bits);
        let split_chain = spec.chain.is_some() && !passes_fuse_chain(&passes);
        let plan = Plan {
            spec: spec.clone(),
            limits: limits.clone(),
            block,
            passes,
            transforms_per_dispatch,
            resident,
            split_chain,
            twiddles,
            bluestein: None,
            merged,
        };
        let max_groups = u64::from(limits.max_groups_per_dim).pow(2);
        for pass in &plan.passes {
            let groups = plan.groups(pass, transforms_per_dispatch) as u64;
            if groups > max_groups {
                return Err(Error::TooLarge {
                    what: format!("{groups} workgroups in one dispatch"),
                    device: limits.name.clone(),
                    detail: format!("the device dispatches at most {max_groups}"),
                });
            }
        }
        Ok(plan)
    }

    /// The transform the passes compute: the spec, or Bluestein's longer convolution.
    pub fn transform(&self) -> &FftSpec {
        self.bluestein.as_ref().map_or(&self.spec, |b| &b.transform)
    }

    /// The transform's geometry as the kernels address it ([`Plan::transform`]'s).
    pub fn geometry(&self) -> Geometry {
        let t = self.transform();
        Geometry {
            n: t.n,
            batch: t.batch,
            layout: t.layout,
            direction: t.direction,
        }
    }

    /// The twiddle buffer's contents ([`Plan::twiddles`] in the transform's direction).
    pub fn twiddle_values(&self) -> Vec<num_complex::Complex64> {
        self.twiddles.build(self.transform().direction.sign())
    }

    /// Lines in one transform for `pass`.
    pub fn lines_per_transform(&self, pass: &Pass) -> usize {
        self.transform().n / pass.size
    }

    /// Whether the last workgroup of `pass` holds lines past the end of a dispatch, whose
    /// threads must compute (for the barriers) but store nothing.
    pub fn partial_groups(&self, pass: &Pass) -> bool {
        pass.lines_per_group > 1
            && match pass.order {
                LineOrder::Contiguous => true,
                LineOrder::Interleaved => !(self.transforms_per_dispatch
                    * self.lines_per_transform(pass))
                .is_multiple_of(pass.lines_per_group),
            }
    }

    /// Workgroups a dispatch of `transforms` transforms needs for `pass`.
    pub fn groups(&self, pass: &Pass, transforms: usize) -> usize {
        (transforms * self.lines_per_transform(pass)).div_ceil(pass.lines_per_group)
    }

    /// The slot `routing` ([`Plan::routing`]) leaves the result in: the last pass's output,
    /// or slot 0 where there is no pass.
    pub fn result_slot(routing: &[(usize, usize)]) -> usize {
        routing.last().map_or(0, |&(_, dst)| dst)
    }

    /// Which buffer slot each pass reads and writes. Slot 0 holds the input. With
    /// `keep_input` false, one-pass plans and chains split into one-pass halves run in place
    /// on slot 0 and longer plans ping-pong between slots 0 and 1; with it true, slot 0 is
    /// only read (a split chain's first half writes slot 1 and its second runs in place
    /// there; other plans ping-pong between slots 1 and 2).
    /// A merged plan ([`Plan::merged`]) reads slot 0 and leaves the intermediate and the
    /// result in slot 1, the second pass running in place there.
    pub fn routing(&self, keep_input: bool) -> Vec<(usize, usize)> {
        if self.merged.is_some() {
            return vec![(0, 1), (1, 1)];
        }
        let p = self.passes.len();
        // A real transform's rows differ in length on its two sides: never in place.
        let keep_input = keep_input || self.spec.real.is_some();
        if self.bluestein.is_some() && p > 1 {
            // Slot 0 holds the user's rows, shorter than the transform's: only the first pass
            // reads it and (in place) the last writes it; the passes between ping-pong
            // between slots 1 and 2.
            let mid = |i: usize| 1 + i % 2;
            return (0..p)
                .map(|i| {
                    let src = if i == 0 { 0 } else { mid(i - 1) };
                    let dst = if i + 1 == p && !keep_input { 0 } else { mid(i) };
                    (src, dst)
                })
                .collect();
        }
        if p > 1 && self.whole_line_passes() {
            // Each pass transforms whole lines (a chain split into its forward and back
            // transforms): each in place, after the first has copied out a kept input.
            let first = if keep_input { (0, 1) } else { (0, 0) };
            let rest = if keep_input { (1, 1) } else { (0, 0) };
            return std::iter::once(first).chain(vec![rest; p - 1]).collect();
        }
        match (keep_input, p) {
            (false, 1) => vec![(0, 0)],
            (false, _) => (0..p).map(|i| (i % 2, 1 - i % 2)).collect(),
            (true, _) => (0..p)
                .map(|i| {
                    if i == 0 {
                        (0, 1)
                    } else {
                        (1 + (i + 1) % 2, 1 + i % 2)
                    }
                })
                .collect(),
        }
    }

    /// [`Plan::routing`] keeping the input, for a result written into a caller's array that
    /// holds only the output's rows. Where the routing's result slot also carries longer rows
    /// between passes (Bluestein's convolution rows, about twice the user's), the last pass
    /// writes a slot of its own instead (the next after the routing's), and the earlier
    /// passes keep theirs in scratch.
    pub fn routing_into_caller(&self) -> Vec<(usize, usize)> {
        let mut routing = self.routing(true);
        let lens = self.slot_lens(&routing);
        let result = Plan::result_slot(&routing);
        let out = self.passes.last().map_or(self.spec.n, |p| p.dst_len);
        if lens.get(result).is_some_and(|&len| len > out)
            && let Some(last) = routing.last_mut()
        {
            last.1 = lens.len();
        }
        routing
    }

    /// Elements per transform each slot of `routing` must hold: the longest rows any pass
    /// reads from it or writes to it.
    pub fn slot_lens(&self, routing: &[(usize, usize)]) -> Vec<usize> {
        let slots = routing
            .iter()
            .map(|&(a, b)| a.max(b) + 1)
            .max()
            .unwrap_or(1);
        let mut lens = vec![self.spec.n; slots];
        for (pass, &(src, dst)) in self.passes.iter().zip(routing) {
            lens[src] = lens[src].max(pass.src_len);
            lens[dst] = lens[dst].max(pass.dst_len);
        }
        lens
    }

    /// The kernels a backend compiles: `(pass, in_place)` for every pass and way it runs
    /// in the three routes (in place, keeping the input, into a caller's array), in order.
    /// Workgroup-memory bytes of pass `index`'s kernel: a merged kernel's is the larger of
    /// its two passes'.
    pub fn kernel_workgroup_bytes(&self, index: usize) -> usize {
        match self.merged {
            Some(_) => self
                .passes
                .iter()
                .map(Pass::workgroup_bytes)
                .max()
                .unwrap_or(0),
            None => self.passes[index].workgroup_bytes(),
        }
    }

    /// A merged plan has one kernel, pass 0's, which runs both passes.
    pub fn kernels(&self) -> Vec<(usize, bool)> {
        if self.merged.is_some() {
            return vec![(0, false)];
        }
        let routes = [
            self.routing(false),
            self.routing(true),
            self.routing_into_caller(),
        ];
        let mut k: Vec<(usize, bool)> = routes
            .iter()
            .flat_map(|r| r.iter().enumerate().map(|(pass, &(s, d))| (pass, s == d)))
            .collect();
        k.sort_unstable_by_key(|&(pass, in_place)| (in_place, pass));
        k.dedup();
        k
    }

    /// Whether every pass transforms whole lines of the plan's length (one-pass plans, and
    /// chains split into their forward and back transforms of a pass each), so that each
    /// can run in place. Never Bluestein's convolution (its rows are longer than the user's)
    /// or a real transform's half (its rows differ in length on the two sides).
    fn whole_line_passes(&self) -> bool {
        (self.passes.len() == 1 || self.split_chain)
            && self.bluestein.is_none()
            && self.spec.real.is_none()
            && self.passes.iter().all(|p| p.size == self.spec.n)
    }

    /// The launches for `transforms` transforms, in order: `(pass, first transform, count)`.
    /// Pass-major normally; chunk-major when the plan is [`Plan::resident`]; pass 0's alone
    /// when it is [`Plan::merged`] (its launches run both passes).
    pub fn dispatches(&self, transforms: usize) -> Vec<(usize, usize, usize)> {
        let per = self.transforms_per_dispatch;
        let chunks: Vec<(usize, usize)> = (0..transforms)
            .step_by(per)
            .map(|f| (f, per.min(transforms - f)))
            .collect();
        let passes = match self.merged {
            Some(_) => 0..1,
            None => 0..self.passes.len(),
        };
        if self.resident {
            chunks
                .iter()
                .flat_map(|&(f, c)| passes.clone().map(move |p| (p, f, c)))
                .collect()
        } else {
            passes
                .flat_map(|p| chunks.iter().map(move |&(f, c)| (p, f, c)))
                .collect()
        }
    }

    /// Bytes read plus bytes written in device memory by one execution (all passes).
    pub fn bytes_moved(&self) -> u64 {
        let per_transform: usize = self.passes.iter().map(|p| p.src_len + p.dst_len).sum();
        (self.spec.precision.complex_bytes() * per_transform * self.spec.batch) as u64
    }
}

/// Transforms one dispatch binds: as many as the binding limit allows for rows of the longest
/// of `lens` elements, whole multiples of what keeps each length's chunk offsets aligned.
/// A batch that must be split but cannot be split at aligned offsets is an error.
fn transforms_per_binding(
    limits: &DeviceLimits,
    lens: &[usize],
    element_bytes: usize,
    whole: bool,
    batch: usize,
) -> Result<usize> {
    let bytes = element_bytes as u64;
    let longest = bytes * lens.iter().copied().max().unwrap_or(1) as u64;
    let most = (limits.max_binding / longest) as usize;
    let align = limits.binding_alignment;
    let per_align = lens
        .iter()
        .map(|&l| (align / gcd(bytes * l as u64, align)) as usize)
        .fold(1, |a, b| a * b / gcd(a as u64, b as u64) as usize);
    let aligned = most - most % per_align;
    if whole || batch <= most {
        // One dispatch, at offset 0.
        Ok(most.max(1))
    } else if aligned > 0 {
        Ok(aligned)
    } else {
        Err(Error::TooLarge {
            what: format!("a batch of {batch} transforms of {longest} bytes each"),
            device: limits.name.clone(),
            detail: format!(
                "one binding holds at most {most} of them, and chunks of the batch must start on \
                 {align}-byte boundaries, which takes multiples of {per_align}; use a batch of at \
                 most {most}"
            ),
        })
    }
}

/// Whether the chain runs inside a one-pass kernel.
fn passes_fuse_chain(passes: &[Pass]) -> bool {
    passes.iter().any(|p| p.fused_chain())
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn normalization(spec: &FftSpec) -> Option<f64> {
    spec.normalize.then(|| 1.0 / spec.n as f64)
}

#[cfg(test)]
mod tests;
