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
mod pass;
mod passes;
mod real;
mod reshape;
mod reshape_host;
mod roles;
pub mod schedule;
pub(crate) mod shape;
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
pub use pass::{Body, Geometry, Load, LoadOp, Pass, Persistent, Store, StoreOp};
pub use real::RealFusion;
pub use reshape::Reshape;
pub(crate) use reshape_host::reshape as reshape_on_host;

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

/// The planner's tuning knobs. The defaults are the choices docs/BENCHMARKS.md measured; the
/// others exist so that variants can be timed side by side (`tierfft bench --radix 16`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PlanOptions {
    /// Threads per workgroup to aim for when packing several lines into one workgroup;
    /// `None`: the device's ([`DeviceLimits::target_threads`]).
    pub target_threads: Option<usize>,
    /// Largest radix of an on-chip stage: 2, 4, 8 or 16.
    pub max_radix: usize,
    /// Points each thread holds; `None`: the largest radix, more only when the thread limit
    /// requires it.
    pub points_per_thread: Option<usize>,
    /// Multi-pass plans run chunk by chunk, all passes on one chunk before the next, with
    /// chunks of at most this many bytes so the intermediate stays in the L2 cache.
    /// `None`: off. Measured slower on the H100 at 6, 12.5 and 24 MiB (docs/BENCHMARKS.md),
    /// so it is an option, not the default.
    pub resident_bytes: Option<usize>,
    /// Workgroups each compute unit should hold at once. CUDA passes it to the compiler as
    /// `__launch_bounds__`' minimum blocks per SM, which caps the registers per thread
    /// (spilling if need be); other dialects have no such hint. `None`: the compiler's choice.
    pub groups_per_unit: Option<usize>,
    /// Longest chain fused into one kernel, overriding [`DeviceLimits::max_chain_points`].
    pub max_chain_points: Option<usize>,
    /// One-pass row kernels loop over their workgroups' lines, copying the next lines into
    /// workgroup memory while transforming the current ones, with the twiddles and a chain's
    /// filter kept there too ([`Pass::prefetch`]). `None`: for fused chains on devices that
    /// copy asynchronously ([`DeviceLimits::async_copy`]), where the H100 measured 4096-point
    /// chains 2.0× → 2.5× the cuFFT pipeline; plain transforms lost 0–5 % and keep the
    /// one-shot kernels (docs/BENCHMARKS.md). Prefetching needs the complex exchange:
    /// `Some(true)` sets aside the device's [`DeviceLimits::exchange`].
    pub prefetch: Option<bool>,
    /// Length of Bluestein's convolution for lengths with a prime factor above 13 (smooth,
    /// at least `2n − 1`), overriding the planner's choice; ignored for smooth lengths.
    pub bluestein_m: Option<usize>,
    /// Compile every candidate plan and time it on the device, keeping the fastest (FFTW's
    /// `MEASURE`): for lengths with a prime factor above 13 the choice of Bluestein's
    /// convolution length, which bytes moved alone gets within 1.0–1.4× of the best on the
    /// H100 (docs/BENCHMARKS.md); for smooth lengths the shapes of [`tune::variations`] (as
    /// `tierfft tune` does, without keeping the result). Costs a compile and a few runs of
    /// the user's batch per candidate, once per plan.
    pub measure: bool,
    /// Take the shape choices measured on this device, where a wisdom entry speaks for the
    /// transform ([`wisdom`]; `tierfft tune` writes them) and the other options leave the
    /// shape to the planner ([`PlanOptions::leaves_shape_to_planner`]). `false`: the
    /// planner's model alone. Default `true`.
    pub wisdom: bool,
    /// Neighbouring lines a workgroup of a strided pass (columns, the later passes of a long
    /// transform) holds at least, so that each of its loads and stores is a run of that many
    /// points. `None`: for rows' later passes one memory transaction's worth
    /// ([`DeviceLimits::transaction_bytes`] over the bytes of a point: 4 for 32-byte sectors
    /// in f32), for
    /// columns the planner's choice from the column length and the device (4 to 16). Fewer
    /// lines let longer columns fit one pass (measured faster in place, slower out of place).
    pub min_lines: Option<usize>,
    /// Workgroups per cluster of a cluster pass ([`Cluster`]), for power-of-two row
    /// transforms longer than one workgroup holds, on devices with clusters
    /// ([`DeviceLimits::max_cluster_blocks`]). `None`: the fewest that hold the transform;
    /// `Some(1)`: no cluster passes (the multi-pass plan).
    pub cluster_blocks: Option<usize>,
    /// Points per line of the last pass of a power-of-two plan of several passes, the rest
    /// shared evenly by the earlier passes (a power of two; a split whose lines do not fit
    /// is an error). `None`: the planner's split (as even as the powers allow, or a short
    /// last pass where that measured faster).
    pub last_pass_points: Option<usize>,
    /// How passes exchange points through workgroup memory: `Some(Split)` halves the bytes a
    /// workgroup needs (more workgroups resident where workgroup memory limits them) for
    /// twice the barriers; `None`: the device's ([`DeviceLimits::exchange`]), else complex
    /// wherever the line fits and the fewest passes where it does not.
    pub exchange: Option<Exchange>,
    /// `Some(true)`: run a two-pass plan as one launch whose workgroups take tiles of
    /// either pass by ticket, the first pass a few transforms ahead of the second, so that
    /// the intermediate is read back from the L2 cache ([`Merged`]), where the device lets
    /// workgroups wait for one another ([`DeviceLimits::workgroups_wait`]: CUDA). `None`
    /// or `Some(false)`: two launches. Off by default: on the H100 it halves the DRAM reads
    /// but ran at 0.81-1.01 of the two launches' speed (docs/BENCHMARKS.md). Plans the
    /// merged kernel cannot run (fused operations, chains, real halves, checksums, columns)
    /// take two launches whatever this says.
    pub merge: Option<bool>,
    /// Most workgroups a merged launch keeps resident ([`Merged::groups`]); `None`: as many
    /// as the device holds at once. Fewer make it slower; tests run it with one.
    pub persistent_groups: Option<usize>,
    /// Most rounds a one-pass row transform may exchange in ([`Pass::rounds`]: a part of the
    /// line through workgroup memory at a time), so that a power-of-two line that the
    /// threads' registers hold but workgroup memory does not (16384 points through Vulkan's
    /// 48 KiB) stays one pass instead of two: 2, 4 or 8, in the exchange
    /// [`PlanOptions::exchange`] or the device chooses. `None`: the device's rounds of the
    /// complex exchange ([`DeviceLimits::exchange_rounds`]: up to four for f32 lines on
    /// NVIDIA through Vulkan, none elsewhere).
    pub exchange_rounds: Option<usize>,
}

impl PlanOptions {
    /// Radices an on-chip stage can have.
    pub const RADICES: [usize; 4] = [2, 4, 8, 16];

    /// Points per thread a kernel can hold.
    pub const POINTS_PER_THREAD: [usize; 5] = [2, 4, 8, 16, 32];

    /// Whether every option a wisdom entry sets ([`wisdom::Choice`]) is at its default, and
    /// nothing is to be measured: only then do plans take the device's wisdom.
    pub fn leaves_shape_to_planner(&self) -> bool {
        !self.measure && wisdom::Choice::of(self) == wisdom::Choice::default()
    }

    /// Threads per workgroup to pack lines up to on `limits`: the option, else the device's.
    pub(crate) fn threads_on(&self, limits: &DeviceLimits) -> usize {
        self.target_threads.unwrap_or(limits.target_threads)
    }

    /// The exchange passes must use on `limits`, if one is set: the option, else the device's
    /// unless prefetching was asked for (it needs the complex exchange).
    pub(crate) fn exchange_on(&self, limits: &DeviceLimits) -> Option<Exchange> {
        match (self.exchange, self.prefetch) {
            (Some(ex), _) => Some(ex),
            (None, Some(true)) => None,
            (None, _) => limits.exchange,
        }
    }

    /// Checks every option against what the planner and the kernel generator can do, so a
    /// bad value is an error naming the option, not a wrong plan or a panic.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidOptions(m));
        if self.target_threads == Some(0) {
            return bad("target_threads must be at least 1 (got 0)".into());
        }
        if !Self::RADICES.contains(&self.max_radix) {
            return bad(format!(
                "max_radix must be one of {:?} (got {})",
                Self::RADICES,
                self.max_radix
            ));
        }
        if let Some(p) = self.points_per_thread
            && !Self::POINTS_PER_THREAD.contains(&p)
        {
            return bad(format!(
                "points_per_thread must be one of {:?} (got {p})",
                Self::POINTS_PER_THREAD
            ));
        }
        if let Some(g) = self.groups_per_unit
            && !(1..=32).contains(&g)
        {
            return bad(format!("groups_per_unit must be 1 to 32 (got {g})"));
        }
        if let Some(p) = self.last_pass_points
            && !(p.is_power_of_two() && p >= 2)
        {
            return bad(format!(
                "last_pass_points must be a power of two of at least 2 (got {p})"
            ));
        }
        if let Some(c) = self.cluster_blocks
            && !(c.is_power_of_two() && c <= MAX_CLUSTER)
        {
            return bad(format!(
                "cluster_blocks must be a power of two from 1 to {MAX_CLUSTER} (got {c})"
            ));
        }
        if let Some(l) = self.min_lines
            && !(l.is_power_of_two() && l <= 64)
        {
            return bad(format!(
                "min_lines must be a power of two from 1 to 64 (got {l})"
            ));
        }
        if let Some(r) = self.exchange_rounds
            && ![2, 4, 8].contains(&r)
        {
            return bad(format!("exchange_rounds must be 2, 4 or 8 (got {r})"));
        }
        if self.persistent_groups == Some(0) {
            return bad("persistent_groups must be at least 1 (got 0)".into());
        }
        if let Some(m) = self.bluestein_m
            && !is_smooth(m)
        {
            return bad(format!(
                "bluestein_m must have no prime factor above 13 (got {m})"
            ));
        }
        Ok(())
    }
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            target_threads: None,
            max_radix: MAX_RADIX,
            points_per_thread: None,
            resident_bytes: None,
            groups_per_unit: None,
            max_chain_points: None,
            prefetch: None,
            bluestein_m: None,
            measure: false,
            min_lines: None,
            cluster_blocks: None,
            last_pass_points: None,
            exchange: None,
            wisdom: true,
            merge: None,
            persistent_groups: None,
            exchange_rounds: None,
        }
    }
}

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
    /// A length with a prime factor above 13: the passes run Bluestein's convolution, a
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
                "its length has a prime factor above 13",
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
    /// above 13 and no length is pinned; for a smooth length the plan
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
