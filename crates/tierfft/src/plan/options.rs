//! The planner's tuning knobs ([`PlanOptions`]): every choice the planner's model makes, open
//! to be set by hand, timed side by side or taken from wisdom.

#[cfg(doc)]
use super::{Cluster, Merged, Pass, tune};
use super::{DeviceLimits, Exchange, MAX_CLUSTER, MAX_RADIX, is_smooth, wisdom};
use crate::error::{Error, Result};

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
    /// Length of Bluestein's convolution for lengths with a prime factor above 31 (smooth,
    /// at least `2n − 1`), overriding the planner's choice; ignored for smooth lengths.
    pub bluestein_m: Option<usize>,
    /// Compile every candidate plan and time it on the device, keeping the fastest (FFTW's
    /// `MEASURE`): for lengths with a prime factor above 31 the choice of Bluestein's
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
                "bluestein_m must have no prime factor above 31 (got {m})"
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

/// Setters for the planner's options. [`PlanOptions`] is `#[non_exhaustive]`, so that options
/// can be added: outside the crate it is built from [`PlanOptions::default`] and these, e.g.
/// `PlanOptions::default().with_max_radix(16).with_measure(true)`. Each sets one field as
/// is; [`PlanOptions::validate`] (which planning calls) checks the values.
impl PlanOptions {
    /// Sets [`PlanOptions::target_threads`].
    pub fn with_target_threads(mut self, target_threads: Option<usize>) -> Self {
        self.target_threads = target_threads;
        self
    }

    /// Sets [`PlanOptions::max_radix`].
    pub fn with_max_radix(mut self, max_radix: usize) -> Self {
        self.max_radix = max_radix;
        self
    }

    /// Sets [`PlanOptions::points_per_thread`].
    pub fn with_points_per_thread(mut self, points_per_thread: Option<usize>) -> Self {
        self.points_per_thread = points_per_thread;
        self
    }

    /// Sets [`PlanOptions::merge`].
    pub fn with_merge(mut self, merge: Option<bool>) -> Self {
        self.merge = merge;
        self
    }

    /// Sets [`PlanOptions::exchange_rounds`].
    pub fn with_exchange_rounds(mut self, rounds: Option<usize>) -> Self {
        self.exchange_rounds = rounds;
        self
    }

    /// Sets [`PlanOptions::persistent_groups`].
    pub fn with_persistent_groups(mut self, groups: Option<usize>) -> Self {
        self.persistent_groups = groups;
        self
    }

    /// Sets [`PlanOptions::resident_bytes`].
    pub fn with_resident_bytes(mut self, resident_bytes: Option<usize>) -> Self {
        self.resident_bytes = resident_bytes;
        self
    }

    /// Sets [`PlanOptions::groups_per_unit`].
    pub fn with_groups_per_unit(mut self, groups_per_unit: Option<usize>) -> Self {
        self.groups_per_unit = groups_per_unit;
        self
    }

    /// Sets [`PlanOptions::max_chain_points`].
    pub fn with_max_chain_points(mut self, max_chain_points: Option<usize>) -> Self {
        self.max_chain_points = max_chain_points;
        self
    }

    /// Sets [`PlanOptions::prefetch`].
    pub fn with_prefetch(mut self, prefetch: Option<bool>) -> Self {
        self.prefetch = prefetch;
        self
    }

    /// Sets [`PlanOptions::bluestein_m`].
    pub fn with_bluestein_m(mut self, bluestein_m: Option<usize>) -> Self {
        self.bluestein_m = bluestein_m;
        self
    }

    /// Sets [`PlanOptions::measure`].
    pub fn with_measure(mut self, measure: bool) -> Self {
        self.measure = measure;
        self
    }

    /// Sets [`PlanOptions::min_lines`].
    pub fn with_min_lines(mut self, min_lines: Option<usize>) -> Self {
        self.min_lines = min_lines;
        self
    }

    /// Sets [`PlanOptions::cluster_blocks`].
    pub fn with_cluster_blocks(mut self, cluster_blocks: Option<usize>) -> Self {
        self.cluster_blocks = cluster_blocks;
        self
    }

    /// Sets [`PlanOptions::last_pass_points`].
    pub fn with_last_pass_points(mut self, last_pass_points: Option<usize>) -> Self {
        self.last_pass_points = last_pass_points;
        self
    }

    /// Sets [`PlanOptions::wisdom`].
    pub fn with_wisdom(mut self, wisdom: bool) -> Self {
        self.wisdom = wisdom;
        self
    }

    /// Sets [`PlanOptions::exchange`].
    pub fn with_exchange(mut self, exchange: Option<Exchange>) -> Self {
        self.exchange = exchange;
        self
    }
}
