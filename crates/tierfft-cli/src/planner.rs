//! The planner's tuning knobs as command-line flags, shared by `tierfft plan` and `tierfft bench`.

use clap::Args;
use tierfft::plan::{Exchange, PlanOptions};

/// Planner variants: timed side by side with `tierfft bench`, inspected with `tierfft plan`.
#[derive(Debug, Args)]
pub struct PlannerArgs {
    /// Planner variant: largest radix of an on-chip stage (2, 4, 8 or 16).
    #[arg(long, default_value_t = tierfft::plan::MAX_RADIX, value_parser = parse_radix)]
    radix: usize,
    /// Planner variant: points each thread holds (default: the radix).
    #[arg(long, value_parser = parse_points, value_name = "P")]
    points_per_thread: Option<usize>,
    /// Planner variant: threads per workgroup to aim for when packing lines (default: the
    /// device's, 256; 64 for NVIDIA GPUs through Vulkan).
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u32).range(1..))]
    threads: Option<u32>,
    /// Planner variant: L2-resident chunk size for multi-pass plans, MiB (0: off).
    #[arg(long, value_name = "MIB")]
    resident_mib: Option<usize>,
    /// Planner variant: workgroups per SM to compile for (CUDA `__launch_bounds__` minimum
    /// blocks, which caps registers per thread).
    #[arg(long, value_name = "G", value_parser = clap::value_parser!(u16).range(1..=32))]
    groups_per_unit: Option<u16>,
    /// Planner variant: longest chained FFT → multiply → IFFT fused into one kernel (longer
    /// ones run as two kernels; default: the device's measured limit).
    #[arg(long, value_name = "N", value_parser = crate::parse_count)]
    max_chain_points: Option<usize>,
    /// Planner variant: persistent one-pass kernels that prefetch the next lines into
    /// workgroup memory while transforming the current ones (CUDA: cp.async, sm_80 and up);
    /// default: on for fused chains where the device copies asynchronously.
    #[arg(long, value_name = "on|off", value_parser = parse_switch)]
    prefetch: Option<bool>,
    /// Planner variant: length of Bluestein's convolution for lengths with a prime factor
    /// above 13 (no prime factor above 13 itself, at least 2n − 1; default: the planner's
    /// cheapest).
    #[arg(long, value_name = "M", value_parser = crate::parse_count)]
    bluestein_m: Option<usize>,
    /// Time every candidate plan on the device and keep the fastest (today: Bluestein's
    /// convolution length); costs a compile and a few runs per candidate.
    #[arg(long)]
    measure: bool,
    /// Planner variant: neighbouring lines (columns) a strided pass's workgroup holds at
    /// least, a power of two (default: one 32-byte memory transaction, 4 complex points);
    /// fewer let longer columns fit one pass.
    #[arg(long, value_name = "L")]
    min_lines: Option<usize>,
    /// Planner variant: workgroups per cluster of the cluster tier (CUDA sm_90: power-of-two
    /// transforms longer than one workgroup holds in one pass, through the cluster's shared
    /// memory), a power of two up to 8; 1: no cluster tier (default: the fewest that hold
    /// the transform).
    #[arg(long, value_name = "C")]
    cluster_blocks: Option<usize>,
    /// Planner variant: points per line of the last pass of a power-of-two transform of
    /// several passes, a power of two (the earlier passes share the rest evenly).
    #[arg(long, value_name = "P")]
    last_pass: Option<usize>,
    /// Planner variant: how passes exchange points through workgroup memory: complex (8 bytes
    /// a point) or split (real and imaginary parts apart, 4 bytes a point, twice the
    /// barriers); default: complex where a line fits, else the fewest passes.
    #[arg(long, value_name = "KIND", value_parser = ["complex", "split"])]
    exchange: Option<String>,
}

impl PlannerArgs {
    /// The planner options these arguments ask for.
    pub fn options(&self) -> PlanOptions {
        PlanOptions::default()
            .with_target_threads(self.threads.map(|t| t as usize))
            .with_max_radix(self.radix)
            .with_points_per_thread(self.points_per_thread)
            .with_resident_bytes(self.resident_mib.map(|m| m << 20))
            .with_groups_per_unit(self.groups_per_unit.map(usize::from))
            .with_max_chain_points(self.max_chain_points)
            .with_prefetch(self.prefetch)
            .with_bluestein_m(self.bluestein_m)
            .with_measure(self.measure)
            .with_min_lines(self.min_lines)
            .with_cluster_blocks(self.cluster_blocks)
            .with_last_pass_points(self.last_pass)
            .with_exchange(self.exchange.as_deref().map(|e| match e {
                "split" => Exchange::Split,
                _ => Exchange::Complex,
            }))
    }
}

/// `on` or `off`.
fn parse_switch(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("'{s}': expected on or off")),
    }
}

/// One of `allowed`.
fn one_of(s: &str, allowed: &[usize]) -> Result<usize, String> {
    match s.parse() {
        Ok(v) if allowed.contains(&v) => Ok(v),
        _ => Err(format!("'{s}': expected one of {allowed:?}")),
    }
}

/// A radix ([`PlanOptions::RADICES`]).
fn parse_radix(s: &str) -> Result<usize, String> {
    one_of(s, &PlanOptions::RADICES)
}

/// Points per thread ([`PlanOptions::POINTS_PER_THREAD`]).
fn parse_points(s: &str) -> Result<usize, String> {
    one_of(s, &PlanOptions::POINTS_PER_THREAD)
}
