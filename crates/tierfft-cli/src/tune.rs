//! `tierfft tune`: the candidate shapes of each length timed on the device at hand, the
//! winners stored as wisdom that later plans on this device read.

use std::path::PathBuf;

use clap::Args;

use tierfft::backend::{Outcome, wisdom};
use tierfft::plan::wisdom::Wisdom;
use tierfft::{FftSpec, Precision};
use tierfft_bench::shared::{format_seconds, open_device, parse_count};
use tierfft_cli::CliResult;

/// Arguments of `tierfft tune`.
#[derive(Debug, Args)]
pub struct TuneArgs {
    /// Device: cuda, cuda:N, gpu, gpu:N, lavapipe, or part of an adapter's name (see
    /// `tierfft devices`). The CPU runs rustfft's own plans and has nothing to tune.
    #[arg(short, long, default_value = "cuda", value_name = "NAME")]
    device: String,
    /// log2 of the smallest length.
    #[arg(long, default_value_t = 1, value_name = "K")]
    min_log2: u32,
    /// log2 of the largest length.
    #[arg(long, default_value_t = 24, value_name = "K")]
    max_log2: u32,
    /// These lengths instead of the powers of two from --min-log2 to --max-log2: a
    /// comma-separated list of counts with no prime factor above 31 (e.g. 1000,2^12,6000).
    #[arg(long, value_delimiter = ',', value_parser = parse_count, value_name = "LIST",
          conflicts_with_all = ["min_log2", "max_log2"])]
    sizes: Option<Vec<usize>>,
    /// Data per timed run, MiB: each length runs a batch that fills it (at least one
    /// transform). Shapes tuned on a batch that fills the device apply to every such batch.
    #[arg(long, default_value_t = 256, value_name = "MIB",
          value_parser = clap::value_parser!(u64).range(1..=1024))]
    mib: u64,
    /// Transforms per run instead of --mib (tunes small batches, which the wisdom keeps apart
    /// from batches that fill the device).
    #[arg(long, value_parser = parse_count, value_name = "B", conflicts_with = "mib")]
    batch: Option<usize>,
    /// Precision: f32, f64, f16 or bf16.
    #[arg(long, default_value = "f32", value_name = "P")]
    precision: Precision,
    /// Tune column transforms (of an [n, batch] matrix) instead of rows.
    #[arg(long)]
    columns: bool,
    /// Timed runs per candidate (the median is kept).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1000))]
    reps: u32,
    /// Wisdom file to add the winners to (default: the one plans read, TIERFFT_WISDOM or
    /// ~/.cache/tierfft/wisdom.json); `-` prints them as a wisdom file on stdout instead
    /// (the table then goes to stderr).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Also print every candidate's time.
    #[arg(short, long)]
    verbose: bool,
}

/// Runs `tierfft tune`.
pub fn run(a: &TuneArgs) -> CliResult<()> {
    let sizes = match &a.sizes {
        Some(s) => s.clone(),
        None => {
            if a.min_log2 > a.max_log2 || a.max_log2 > FftSpec::MAX_LOG2_N {
                return Err(format!(
                    "--min-log2 {} --max-log2 {}: need min <= max <= {}",
                    a.min_log2,
                    a.max_log2,
                    FftSpec::MAX_LOG2_N
                )
                .into());
            }
            (a.min_log2..=a.max_log2).map(|k| 1usize << k).collect()
        }
    };
    // Where the winners go, decided (and checked readable) before any work.
    let out = match a.out.as_deref() {
        Some(p) if p.as_os_str() == "-" => None,
        Some(p) => Some(p.to_path_buf()),
        None => Some(wisdom::path().ok_or(
            "no wisdom file: TIERFFT_WISDOM is off and no --out was given (use --out FILE, \
             or --out - to print)",
        )?),
    };
    if let Some(p) = &out {
        // Read and written back unchanged: a file that cannot be is refused now, not after
        // the first length's measurements.
        wisdom::record(p, [])?;
    }
    let device = open_device(&a.device)?;
    if device.limits().is_none() {
        return Err(format!(
            "{} runs rustfft's own plans: there is nothing to tune (name a GPU: --device cuda, \
             gpu or lavapipe)",
            device.name()
        )
        .into());
    }
    let element = a.precision.complex_bytes() as u64;
    let specs = sizes
        .iter()
        .map(|&n| {
            let batch = a
                .batch
                .unwrap_or(((a.mib << 20) / (element * n as u64)).max(1) as usize);
            let mut spec = FftSpec::new(n).batch(batch).precision(a.precision);
            if a.columns {
                spec = spec.columns();
            }
            spec.validate().map(|_| spec)
        })
        .collect::<tierfft::Result<Vec<_>>>()?;
    // The table on stdout, unless stdout carries the wisdom file itself.
    let table = |line: String| match out {
        Some(_) => println!("{line}"),
        None => eprintln!("{line}"),
    };
    table(format!(
        "tuning on {} ({}), {} runs a candidate",
        device.name(),
        device.driver(),
        a.reps
    ));
    table(format!(
        "{:>10} {:>7} {:>6} {:>11} {:>11} {:>6}  choice",
        "n", "batch", "plans", "planner", "best", "gain"
    ));
    let mut found = Wisdom::new();
    for spec in &specs {
        let tuning = device.tune(spec, a.reps as usize)?;
        let m = &tuning.entry.measured;
        table(format!(
            "{:>10} {:>7} {:>6} {:>11} {:>11} {:>5.2}×  {}",
            spec.n,
            m.batch,
            m.candidates,
            format_seconds(m.default_seconds),
            format_seconds(m.seconds),
            m.default_seconds / m.seconds,
            tuning.entry.choice.flags()
        ));
        for t in &tuning.timed {
            let time = match &t.outcome {
                Outcome::Seconds(s) => format_seconds(*s),
                Outcome::Failed(e) => format!("did not run: {e}"),
                Outcome::Differs(d) => {
                    // A planner or generator bug: always said, verbose or not.
                    eprintln!(
                        "warning: n = {}, {}: its result differs from the planner's own \
                         plan's by {d:.1e} (relative L2); not kept",
                        spec.n,
                        t.choice.flags()
                    );
                    format!("differs by {d:.1e}, not kept")
                }
                other => format!("{other:?}"),
            };
            if a.verbose {
                table(format!(
                    "{:>18} {} pass(es)  {time}",
                    t.choice.flags(),
                    t.passes
                ));
            }
        }
        // Each length's winner is kept as soon as it is known.
        match &out {
            Some(p) => wisdom::record(p, [tuning.entry])?,
            None => found.insert(tuning.entry)?,
        }
    }
    match out {
        Some(p) => println!("wrote {}", p.display()),
        None => print!("{}", found.to_json()?),
    }
    Ok(())
}
