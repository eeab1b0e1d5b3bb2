//! What `tierfft bench` shares with the other subcommands of the `tierfft` command (which
//! uses these from here): counts and shapes as arguments, the planner's tuning knobs as
//! flags, opening devices by name, and durations as text.

use std::sync::Arc;

use clap::Args;
use tierfft::Device;
use tierfft::backend::cuda::CudaDevice;
use tierfft::plan::{Exchange, PlanOptions};

/// The planner's tuning knobs as command-line flags, shared by `tierfft plan` and `tierfft
/// bench`: planner variants timed side by side with `tierfft bench`, inspected with
/// `tierfft plan`.
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
    #[arg(long, value_name = "N", value_parser = parse_count)]
    max_chain_points: Option<usize>,
    /// Planner variant: persistent one-pass kernels that prefetch the next lines into
    /// workgroup memory while transforming the current ones (CUDA: cp.async, sm_80 and up);
    /// default: on for fused chains where the device copies asynchronously.
    #[arg(long, value_name = "on|off", value_parser = parse_switch)]
    prefetch: Option<bool>,
    /// Planner variant: length of Bluestein's convolution for lengths with a prime factor
    /// above 31 (no prime factor above 31 itself, at least 2n − 1; default: the planner's
    /// cheapest).
    #[arg(long, value_name = "M", value_parser = parse_count)]
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
    /// Planner variant: run a two-pass transform as one launch whose workgroups take tiles
    /// of either pass by ticket, so that the second pass reads the intermediate from L2
    /// (CUDA; default: off, two launches).
    #[arg(long, value_name = "on|off", value_parser = parse_switch)]
    merge: Option<bool>,
    /// Planner variant: most workgroups a merged launch keeps resident (default: as many as
    /// the device holds at once).
    #[arg(long, value_name = "G", value_parser = parse_count)]
    persistent_groups: Option<usize>,
    /// Planner variant: most rounds a one-pass line may exchange in through workgroup
    /// memory, a part at a time (2, 4 or 8), so that a line the registers hold but workgroup
    /// memory does not stays one pass (default: the device's: up to four rounds of the
    /// complex exchange for f32 lines on NVIDIA through Vulkan, one elsewhere).
    #[arg(long, value_name = "R")]
    exchange_rounds: Option<usize>,
    /// Plan from the planner's model alone, not the shapes `tierfft tune` measured on this
    /// device (its wisdom file, or the defaults shipped for the device).
    #[arg(long)]
    no_wisdom: bool,
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
            .with_merge(self.merge)
            .with_persistent_groups(self.persistent_groups)
            .with_exchange_rounds(self.exchange_rounds)
            .with_wisdom(!self.no_wisdom)
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

/// Parses a count written as a plain integer (`4096`) or a power of two (`2^22`).
pub fn parse_count(s: &str) -> Result<usize, String> {
    let s = s.trim();
    let bad =
        || format!("'{s}' is not a count: write an integer such as 4096, or 2^k such as 2^22");
    match s.split_once('^') {
        Some((base, exp)) => {
            let base: usize = base.trim().parse().map_err(|_| bad())?;
            let exp: u32 = exp.trim().parse().map_err(|_| bad())?;
            base.checked_pow(exp)
                .ok_or_else(|| format!("'{s}' is too large (more than {})", usize::MAX))
        }
        None => s.parse().map_err(|_| bad()),
    }
}

/// Parses `1024x1024` (or `128x128x128`, `2^20`) into a shape.
pub fn parse_shape(s: &str) -> Result<Vec<usize>, String> {
    s.split(['x', 'X', '×'])
        .map(parse_count)
        .collect::<Result<Vec<_>, _>>()
        .and_then(|v| {
            if v.contains(&0) {
                Err(format!("'{s}' has an extent of 0"))
            } else {
                Ok(v)
            }
        })
}

/// `--device NAME`: `auto` honours `TIERFFT_DEVICE`; anything else goes to [`Device::by_name`].
pub fn open_device(name: &str) -> tierfft::Result<Device> {
    if name.eq_ignore_ascii_case("auto") {
        Device::auto()
    } else {
        Device::by_name(name)
    }
}

/// CUDA GPUs 0..n, for `--gpus n`: the GPUs themselves (for NCCL) and as devices.
pub fn open_gpus(n: usize) -> Result<(Vec<Device>, Vec<Arc<CudaDevice>>), String> {
    let gpus = (0..n)
        .map(|i| {
            CudaDevice::open(i)
                .map(Arc::new)
                .map_err(|e| format!("--gpus {n}: GPU {i}: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((gpus.iter().map(|g| Device::from(g.clone())).collect(), gpus))
}

/// A duration given in seconds, with a unit that suits it: µs, ms or s.
pub fn format_seconds(t: f64) -> String {
    if t < 1e-3 {
        format!("{:.2} µs", t * 1e6)
    } else if t < 1.0 {
        format!("{:.3} ms", t * 1e3)
    } else {
        format!("{t:.3} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        assert_eq!(parse_count("4096"), Ok(4096));
        assert_eq!(parse_count("2^22"), Ok(1 << 22));
        assert_eq!(parse_count(" 2 ^ 0 "), Ok(1));
        assert_eq!(parse_count("10^3"), Ok(1000));
        assert!(parse_count("2^64").is_err());
        assert!(parse_count("four").is_err());
        assert!(parse_count("-1").is_err());
        assert!(parse_count("2^").is_err());
        assert!(parse_count("").is_err());
    }

    #[test]
    fn shapes() {
        assert_eq!(parse_shape("1024x1024"), Ok(vec![1024, 1024]));
        assert_eq!(parse_shape("2^7×2^7X2"), Ok(vec![128, 128, 2]));
        assert!(parse_shape("4x0").is_err());
    }

    #[test]
    fn units() {
        assert_eq!(format_seconds(12.5e-6), "12.50 µs");
        assert_eq!(format_seconds(0.0125), "12.500 ms");
        assert_eq!(format_seconds(2.0), "2.000 s");
    }
}
