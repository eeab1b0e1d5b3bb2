//! `tierfft bench`: its arguments ([`BenchArgs`]) and [`run`], which times every
//! power-of-two size in a range (or the sizes asked for) and checks each against the f64
//! reference, or hands over to the comparisons with cuFFT ([`compare`], [`nd`]), the
//! distributed transforms ([`dist`]) or the host-copy speeds.

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::RngExt;
use tierfft::debug::reference::{fft_f64, relative_l2_error};
use tierfft::nd::FuseReal;
use tierfft::{Checksum, Complex32, Device, Direction, FftSpec};

use crate::shared::{PlannerArgs, parse_count};
use report::{Report, Row, command_line, format_row, header, timer_name};

pub mod compare;
pub mod dist;
pub mod nd;
pub mod report;
pub mod split;

/// The error of a benchmark command: anything printable (the command shows it as
/// `error: <message>`).
pub type CommandError = Box<dyn std::error::Error>;

/// Shorthand for a benchmark command's result.
pub type CommandResult<T> = Result<T, CommandError>;

/// Arguments of `tierfft bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Device: auto, cpu, gpu, lavapipe, or part of an adapter's name (see `tierfft devices`).
    #[arg(short, long, default_value = "auto", value_name = "NAME")]
    device: String,
    /// log2 of the smallest size.
    #[arg(long, default_value_t = 1, value_name = "K")]
    min_log2: u32,
    /// log2 of the largest size.
    #[arg(long, default_value_t = 20, value_name = "K")]
    max_log2: u32,
    /// These sizes instead of the powers of two from --min-log2 to --max-log2: a
    /// comma-separated list of counts, any length from 1 to 2^27 (e.g. 1000,1920,2^12,4099);
    /// also with --compare.
    #[arg(long, value_delimiter = ',', value_parser = parse_count, value_name = "LIST",
          conflicts_with_all = ["min_log2", "max_log2"])]
    sizes: Option<Vec<usize>>,
    /// Points per timed call: each size N runs a batch of max(1, points / N) transforms
    /// (integer or 2^k).
    #[arg(long, default_value = "2^22", value_parser = parse_count, value_name = "P")]
    points: usize,
    /// Most timed calls per size (after one untimed call whose output is checked); see
    /// --max-time.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    reps: u32,
    /// Time budget per size, seconds: after the first timed call, a size gets only as many
    /// calls as fit in this budget (at least one, at most --reps), so that slow devices such
    /// as lavapipe finish. 0 always runs --reps calls.
    #[arg(long, default_value_t = 0.5, value_name = "SECONDS")]
    max_time: f64,
    /// Time the inverse transform instead of the forward one.
    #[arg(long)]
    inverse: bool,
    /// Time checksummed transforms (tierfft::Checksum::Detect: each transform's output is
    /// checked against a weighted sum of its input). Beside cuFFT, the ratio's change from
    /// a run without it is the checksums' cost.
    #[arg(long, conflicts_with_all = ["chain", "sar", "shapes"])]
    checksum: bool,
    /// Backend, instead of --device: cpu, wgpu (the best hardware adapter) or cuda.
    #[arg(long, value_name = "NAME", value_parser = ["cpu", "wgpu", "cuda"])]
    backend: Option<String>,
    /// Compare side by side with a vendor library on the same GPU and buffers: `cufft`
    /// (needs --backend cuda). Batches fill 1 GiB buffers unless --small.
    #[arg(long, value_name = "LIBRARY", value_parser = ["cufft"])]
    compare: Option<String>,
    /// With --compare: batches 1 and 16, time per call, instead of 1 GiB buffers.
    #[arg(long, requires = "compare")]
    small: bool,
    /// With --compare: these batches (a comma-separated list of counts) instead of 1 GiB
    /// buffers, e.g. 1,16,128,1024.
    #[arg(long, value_delimiter = ',', value_parser = parse_count, value_name = "LIST",
          requires = "compare", conflicts_with_all = ["small", "chain", "sar"])]
    batches: Option<Vec<usize>>,
    /// With --compare: also time the wgpu path (Vulkan) on the same GPU.
    #[arg(long, requires = "compare")]
    with_wgpu: bool,
    /// With --compare: the fused FFT → multiply → inverse FFT (fast convolution, SAR range
    /// compression) against cuFFT + multiply kernel + cuFFT, on scenes of 2^24 points.
    #[arg(long, requires = "compare")]
    chain: bool,
    /// With --compare: energy per transform of each library from NVML's energy counter
    /// (joules per transform, transforms per joule), each over a loop of at least
    /// --energy-seconds; idle power and clocks are printed first.
    #[arg(long, requires = "compare", conflicts_with = "shapes")]
    energy: bool,
    /// With --energy: seconds each library's loop runs at least (the counter moves every
    /// 20–100 ms).
    #[arg(long, requires = "energy", default_value_t = 1.0, value_name = "SECONDS",
          value_parser = parse_energy_seconds)]
    energy_seconds: f64,
    /// With --chain: also time cuFFT with the multiply in an LTO store callback, from the
    /// peer library built from scripts/peers/cufft_callback.cu (nvcc on the GPU machine).
    #[arg(long, requires = "chain", value_name = "LIB")]
    callback_peer: Option<std::path::PathBuf>,
    /// With --compare: the FFT steps of SAR focusing on 2^k × 2^k scenes (fused range
    /// compression, column azimuth FFT, azimuth filter fused into the column inverse FFT,
    /// SRC's and chirp scaling's range steps), each against the same step on cuFFT, and the
    /// Range-Doppler (with and without SRC) and chirp scaling totals.
    #[arg(long, requires = "compare", conflicts_with = "chain")]
    sar: bool,
    /// N-D and real transforms instead of 1-D sizes: these shapes (comma-separated, axes
    /// joined by x, outermost first, e.g. 1024x1024,256x256x256), transformed over the
    /// trailing --dims axes; with --compare cufft, side by side with cufftPlanMany.
    #[arg(long, value_delimiter = ',', value_parser = crate::shared::parse_shape,
          value_name = "LIST", conflicts_with_all = ["sizes", "chain", "sar", "batches", "small"])]
    shapes: Option<Vec<Vec<usize>>>,
    /// With --shapes: how many trailing axes to transform (default: all of them).
    #[arg(long, requires = "shapes", value_name = "K")]
    dims: Option<usize>,
    /// Several GPUs (CUDA GPUs 0..N; N CPU ranks or devices with --backend cpu). With
    /// --shapes: each complex transform spread over them (exchanging through NCCL), timed
    /// whole, as its all-to-all alone and as its local transforms alone, beside one device.
    /// With --sizes or --min-log2/--max-log2: each size's batch split across them (a share
    /// of max(1, --points / N) transforms each, no exchange), beside one device.
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..), conflicts_with_all = ["real", "compare", "dims", "inverse"])]
    gpus: Option<u32>,
    /// With --gpus: how the ranks are started. Without it, this process runs all N (GPUs
    /// 0..N); `env`: this process is one rank of N that a launcher started (torchrun,
    /// mpirun, srun; one process per GPU, the GPU its local rank), the ranks meeting at
    /// MASTER_ADDR:MASTER_PORT (or TIERFFT_RENDEZVOUS=host:port); rank 0 prints the table.
    #[arg(long, requires = "gpus", value_enum, value_name = "HOW")]
    launcher: Option<LauncherArg>,
    /// With --gpus: how the GPUs exchange: default (NCCL where it loads), nccl, peer
    /// (copies between the GPUs' memories), or measure (both timed, the faster kept).
    #[arg(long, requires = "gpus", value_enum, default_value = "default")]
    link: LinkArg,
    /// With --gpus: cut each slab's change of layout into K parts, the all-to-all of one
    /// beside the transform of the next (default: the planner's choice).
    #[arg(long, requires = "gpus", value_name = "K",
          value_parser = clap::value_parser!(u32).range(1..64))]
    parts: Option<u32>,
    /// With --gpus: leave the spectrum cut along axis 0 like the input (a second
    /// all-to-all) instead of along axis 1.
    #[arg(long, requires = "gpus")]
    natural_spectrum: bool,
    /// With --gpus: 3-D shapes as pencils over a P0xP1 grid of the GPUs (e.g. 2x2) instead
    /// of slabs.
    #[arg(long, requires = "gpus", value_name = "P0xP1", value_parser = parse_grid,
          conflicts_with = "natural_spectrum")]
    grid: Option<[usize; 2]>,
    /// With --shapes: real transforms, R2C (C2R with --inverse).
    #[arg(long, requires = "shapes")]
    real: bool,
    /// With --real: where the split (R2C) and merge (C2R) are fused into the half-length
    /// transform: auto (the default: where measured faster), one-pass, any-passes, or never.
    #[arg(long, requires = "real", value_enum, default_value = "auto")]
    fuse_real: FuseRealArg,
    /// With --compare cufft: the precision, f32 (C2C), f64 (Z2Z against cuFFT's Z2Z;
    /// plain transforms only; with --shapes also D2Z and Z2D, checked against a
    /// double-double reference), or f16 / bf16 (C2C stored in 16 bits against cuFFT's
    /// cufftXtExec of the same storage; plain transforms of powers of two).
    #[arg(long, requires = "compare", default_value = "f32", value_name = "P",
          conflicts_with_all = ["chain", "sar", "energy", "callback_peer"])]
    precision: tierfft::Precision,
    /// Host-device copies instead of transforms (CUDA): tierfft's staged copies from and
    /// into ordinary host memory against the driver's own pageable copies and pinned DMA
    /// alone, 1 MiB to 1 GiB, GB/s.
    #[arg(long, conflicts_with_all = ["compare", "shapes", "chain", "sar", "energy"])]
    transfers: bool,
    /// Planner variants.
    #[command(flatten)]
    pub planner: PlannerArgs,
    /// Print one JSON object on stdout instead of the table: {device, timer, rows: [{n, batch,
    /// median_s, gflops, gbps, rel_error, reps}]} (a failed size has an "error" and nulls).
    #[arg(long)]
    json: bool,
}

/// `--energy-seconds`: at least one second, so that the counter's steps stay small.
fn parse_energy_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if (1.0..=600.0).contains(&t) => Ok(t),
        _ => Err(format!(
            "'{s}' is not a time from 1 to 600 seconds (NVML's counter moves every 20–100 ms)"
        )),
    }
}

/// `--grid`: two counts joined by x, e.g. 2x2.
pub fn parse_grid(s: &str) -> Result<[usize; 2], String> {
    match crate::shared::parse_shape(s)?.as_slice() {
        &[p0, p1] => Ok([p0, p1]),
        _ => Err(format!("'{s}' is not a grid of two counts such as 2x2")),
    }
}

/// `--fuse-real` (see [`FuseReal`]).
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum FuseRealArg {
    /// Where it measured faster (f32: any passes; f64: see `FuseReal::Auto`).
    Auto,
    /// Where the half-length transform is one pass.
    OnePass,
    /// Wherever the device's plan can.
    AnyPasses,
    /// Never.
    Never,
}

/// `--link`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum LinkArg {
    /// NCCL where libnccl loads, else peer copies.
    Default,
    /// NCCL's grouped sends and receives.
    Nccl,
    /// Copies between the GPUs' memories.
    Peer,
    /// Both, timed on each transform; the faster kept.
    Measure,
}

impl From<LinkArg> for tierfft::distributed::Link {
    fn from(a: LinkArg) -> Self {
        use tierfft::distributed::Link;
        match a {
            LinkArg::Default => Link::Default,
            LinkArg::Nccl => Link::Nccl,
            LinkArg::Peer => Link::Peer,
            LinkArg::Measure => Link::Measure,
        }
    }
}

/// `--launcher`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum LauncherArg {
    /// One process per rank, placed by the launcher's environment variables.
    Env,
}

/// `tierfft bench`.
pub fn run(args: &BenchArgs) -> CommandResult<()> {
    if args.max_log2 > FftSpec::MAX_LOG2_N {
        return Err(format!(
            "--max-log2 {} is above the largest size, 2^{}",
            args.max_log2,
            FftSpec::MAX_LOG2_N
        )
        .into());
    }
    if args.min_log2 > args.max_log2 {
        return Err(format!(
            "--min-log2 {} is above --max-log2 {}: no sizes to run",
            args.min_log2, args.max_log2
        )
        .into());
    }
    if args.max_time.is_nan() || args.max_time < 0.0 {
        return Err(format!(
            "--max-time must be a number of seconds >= 0 (got {})",
            args.max_time
        )
        .into());
    }
    if args.points == 0 {
        return Err("--points must be at least 1".into());
    }
    let name = match args.backend.as_deref() {
        Some("wgpu") => "gpu",
        Some(b) => b,
        None => &args.device,
    };
    if let (Some(shapes), Some(ranks)) = (&args.shapes, args.gpus) {
        return dist::run(&dist::DistOptions {
            shapes,
            ranks: ranks as usize,
            cpu: name == "cpu",
            natural: args.natural_spectrum,
            grid: args.grid,
            parts: args.parts.map(|p| p as usize),
            link: args.link.into(),
            reps: args.reps as usize,
            launched: args.launcher.is_some(),
        });
    }
    if let Some(devices) = args.gpus.filter(|_| args.shapes.is_none()) {
        if args.launcher.is_some()
            || args.natural_spectrum
            || args.grid.is_some()
            || args.parts.is_some()
            || !matches!(args.link, LinkArg::Default)
        {
            return Err(
                "--launcher, --natural-spectrum, --grid, --parts and --link spread N-D \
                        transforms: give them --shapes"
                    .into(),
            );
        }
        let sizes: Vec<usize> = match &args.sizes {
            Some(list) => list.clone(),
            None => (args.min_log2..=args.max_log2).map(|k| 1 << k).collect(),
        };
        return split::run(&split::SplitOptions {
            sizes: &sizes,
            devices: devices as usize,
            cpu: name == "cpu",
            points: args.points,
            reps: args.reps as usize,
        });
    }
    if args.energy {
        // Before the device, so that a machine without the NVIDIA driver hears why.
        crate::energy::probe()?;
    }
    let device = crate::shared::open_device(name)?;
    if args.transfers {
        return transfers(&device, args.reps as usize);
    }
    let direction = if args.inverse {
        Direction::Inverse
    } else {
        Direction::Forward
    };
    if let Some(shapes) = &args.shapes {
        return nd::run(
            &device,
            &nd::NdOptions {
                shapes,
                dims: args.dims,
                real: args.real,
                direction,
                reps: args.reps as usize,
                cufft: args.compare.is_some(),
                fuse: match args.fuse_real {
                    FuseRealArg::Auto => FuseReal::Auto,
                    FuseRealArg::OnePass => FuseReal::OnePass,
                    FuseRealArg::AnyPasses => FuseReal::AnyPasses,
                    FuseRealArg::Never => FuseReal::Never,
                },
                plan: args.planner.options(),
                precision: args.precision,
            },
        );
    }
    let sizes: Vec<usize> = match &args.sizes {
        Some(list) => list.clone(),
        None => (args.min_log2..=args.max_log2).map(|k| 1 << k).collect(),
    };
    if let Some(&bad) = sizes
        .iter()
        .find(|&&n| n == 0 || n > 1 << FftSpec::MAX_LOG2_N)
    {
        return Err(format!("--sizes: {bad} is outside 1 .. 2^{}", FftSpec::MAX_LOG2_N).into());
    }
    if args.batches.as_ref().is_some_and(|b| b.contains(&0)) {
        return Err("--batches: a batch of 0 transforms".into());
    }
    if args.compare.is_some() {
        let opts = compare::Options {
            sizes,
            batches: match (&args.batches, args.small) {
                (Some(list), _) => Some(list.clone()),
                (None, true) => Some(vec![1, 16]),
                (None, false) => None,
            },
            reps: args.reps as usize,
            with_wgpu: args.with_wgpu,
            direction,
            json: args.json,
            plan: args.planner.options(),
            chain: args.chain,
            sar: args.sar,
            energy_seconds: args.energy.then_some(args.energy_seconds),
            callback_peer: args.callback_peer.clone(),
            precision: args.precision,
            checksum: checksum(args),
        };
        return compare::run(&device, &opts);
    }
    let bar = progress_bar(sizes.len() as u64, args.json);
    if !args.json {
        println!("device:  {}", device.name());
        println!("command: {}", command_line());
        println!(
            "{} transforms, batch = max(1, {} / N), median of up to {} timed calls \
             (at most ~{} s per size)",
            if args.inverse { "inverse" } else { "forward" },
            args.points,
            args.reps,
            args.max_time
        );
        println!();
        println!("{}", header());
    }
    let mut rows = Vec::new();
    for n in sizes {
        bar.set_message(format!("N = {n}"));
        let reps = Reps {
            most: args.reps as usize,
            budget: args.max_time,
        };
        let row = measure(
            &device,
            n,
            args.points,
            reps,
            direction,
            checksum(args),
            &args.planner.options(),
        );
        if !args.json {
            bar.suspend(|| println!("{}", format_row(&row)));
        }
        rows.push(row);
        bar.inc(1);
    }
    bar.finish_and_clear();
    if args.json {
        let timer = rows.iter().find_map(|r| r.timer).map_or("none", timer_name);
        let report = Report {
            device: device.name(),
            timer,
            rows: &rows,
        };
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    Ok(())
}

/// The checksum mode `--checksum` asks for.
fn checksum(args: &BenchArgs) -> Checksum {
    match args.checksum {
        true => Checksum::Detect,
        false => Checksum::Off,
    }
}

/// A bar on stderr, hidden for `--json` (indicatif also hides it when stderr is not a terminal).
fn progress_bar(len: u64, hidden: bool) -> ProgressBar {
    if hidden {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} sizes, {msg} [{elapsed}]")
    {
        bar.set_style(style);
    }
    bar
}

/// How many timed calls a size gets.
#[derive(Clone, Copy, Debug)]
struct Reps {
    /// At most this many.
    most: usize,
    /// Only as many as fit in this many seconds (0: no budget), but at least one.
    budget: f64,
}

impl Reps {
    /// Calls to make in all when one takes `t` seconds.
    fn count(self, t: f64) -> usize {
        if self.budget <= 0.0 || t <= 0.0 {
            return self.most;
        }
        // Saturating float-to-int cast: a tiny `t` gives usize::MAX, capped by `most`.
        ((self.budget / t) as usize).clamp(1, self.most)
    }
}

/// Plans, measures and checks one size; a failure becomes a row with the error.
///
/// One call is timed first (its untimed warm-up run gives the output that is checked); if the
/// budget allows more, they are timed in a second `measure` and all samples pooled.
fn measure(
    device: &Device,
    n: usize,
    points: usize,
    reps: Reps,
    direction: Direction,
    checksum: Checksum,
    opts: &tierfft::plan::PlanOptions,
) -> Row {
    let batch = (points / n).max(1);
    let mut row = Row {
        n,
        batch,
        median_s: None,
        gflops: None,
        gbps: None,
        rel_error: None,
        error: None,
        reps: 0,
        timer: None,
    };
    let spec = FftSpec::new(n)
        .batch(batch)
        .direction(direction)
        .checksum(checksum);
    let result = device.plan_with_options(&spec, opts).and_then(|fft| {
        let input = random_input(n * batch);
        let mut m = fft.measure(&input, 1)?;
        let first = m.seconds.first().copied().unwrap_or(0.0);
        let more = reps.count(first).saturating_sub(m.seconds.len());
        if more > 0 {
            m.seconds.extend(fft.measure(&input, more)?.seconds);
        }
        Ok((input, m))
    });
    match result {
        Ok((input, m)) => {
            row.reps = m.seconds.len();
            let t = median(m.seconds);
            let work = (n * batch) as f64;
            row.median_s = Some(t);
            if t > 0.0 {
                row.gflops = Some(5.0 * work * (n as f64).log2() / t / 1e9);
                row.gbps = Some(16.0 * work / t / 1e9);
            }
            row.rel_error = Some(relative_l2_error(&m.output, &fft_f64(&input, n, direction)));
            row.timer = Some(m.timer);
        }
        Err(e) => row.error = Some(e.to_string()),
    }
    row
}

/// `len` complex values with real and imaginary parts uniform in [-1, 1).
pub fn random_input(len: usize) -> Vec<Complex32> {
    let mut rng = rand::rng();
    (0..len)
        .map(|_| Complex32::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)))
        .collect()
}

/// Median of the samples (mean of the middle two for an even count; NaN when empty).
fn median(mut s: Vec<f64>) -> f64 {
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        len if len % 2 == 1 => s[len / 2],
        len => 0.5 * (s[len / 2 - 1] + s[len / 2]),
    }
}

/// `--transfers`: host-device copy speeds on a CUDA device, one row per size.
fn transfers(device: &tierfft::Device, reps: usize) -> CommandResult<()> {
    if device.cuda_device().is_none() {
        return Err(format!(
            "--transfers measures CUDA copies; '{}' is not a CUDA device (--device cuda)",
            device.name()
        )
        .into());
    }
    println!("device: {}", device.name());
    println!(
        "host-device copies, GB/s (median of {reps}; up = host to device, down = device to host)"
    );
    println!(
        "{:>10} {:>10} {:>10} {:>12} {:>12} {:>10} {:>10}",
        "bytes", "staged up", "staged dn", "pageable up", "pageable dn", "pinned up", "pinned dn"
    );
    for (i, log2) in [20, 24, 26, 28, 30].into_iter().enumerate() {
        let s = crate::transfer::transfer_speeds(device, (1 << log2) / 4, reps)?;
        if i == 0 {
            println!("(staged copies use {} host threads)", s.copy_threads);
        }
        println!(
            "{:>10} {:>10.1} {:>10.1} {:>12.1} {:>12.1} {:>10.1} {:>10.1}",
            format!("2^{log2}"),
            s.staged_up_gbps,
            s.staged_down_gbps,
            s.pageable_up_gbps,
            s.pageable_down_gbps,
            s.pinned_up_gbps,
            s.pinned_down_gbps
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(vec![]).is_nan());
    }

    #[test]
    fn rep_budget() {
        let reps = Reps {
            most: 20,
            budget: 0.5,
        };
        assert_eq!(reps.count(0.001), 20);
        assert_eq!(reps.count(0.1), 5);
        assert_eq!(reps.count(2.0), 1);
        assert_eq!(
            Reps {
                most: 20,
                budget: 0.0
            }
            .count(2.0),
            20
        );
    }
}
