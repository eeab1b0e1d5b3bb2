//! `tierfft bench`: time every power-of-two size in a range and check it against the f64
//! reference.

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::RngExt;
use serde::Serialize;
use tierfft::reference::{fft_f64, relative_l2_error};
use tierfft::{Complex32, Device, Direction, FftSpec, MAX_LOG2_N, Timer};

use crate::{CliResult, parse_count};

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
    /// Points per timed call: each size N runs a batch of max(1, points / N) transforms
    /// (integer or 2^k).
    #[arg(long, default_value = "2^22", value_parser = parse_count, value_name = "P")]
    points: usize,
    /// Timed repetitions per size (after one untimed run whose output is checked).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    reps: u32,
    /// Time the inverse transform instead of the forward one.
    #[arg(long)]
    inverse: bool,
    /// Print one JSON object on stdout instead of the table: {device, timer, rows: [{n, batch,
    /// median_s, gflops, gbps, rel_error}]} (a failed size has an "error" and nulls).
    #[arg(long)]
    json: bool,
}

/// One size's result: the measurement, or why there is none.
#[derive(Debug, Serialize)]
struct Row {
    n: usize,
    batch: usize,
    median_s: Option<f64>,
    gflops: Option<f64>,
    gbps: Option<f64>,
    rel_error: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip)]
    timer: Option<Timer>,
}

/// What `--json` prints.
#[derive(Debug, Serialize)]
struct Report<'a> {
    device: String,
    timer: &'static str,
    rows: &'a [Row],
}

/// `tierfft bench`.
pub fn run(args: &BenchArgs) -> CliResult<()> {
    if args.max_log2 > MAX_LOG2_N {
        return Err(format!("--max-log2 {} is above the largest size, 2^{MAX_LOG2_N}", args.max_log2).into());
    }
    if args.min_log2 > args.max_log2 {
        return Err(format!(
            "--min-log2 {} is above --max-log2 {}: no sizes to run",
            args.min_log2, args.max_log2
        )
        .into());
    }
    if args.points == 0 {
        return Err("--points must be at least 1".into());
    }
    let device = Device::by_name(&args.device)?;
    let direction = if args.inverse {
        Direction::Inverse
    } else {
        Direction::Forward
    };
    let sizes = args.min_log2..=args.max_log2;
    let bar = progress_bar(sizes.clone().count() as u64, args.json);
    if !args.json {
        println!("device:  {}", device.name());
        println!("command: {}", command_line());
        println!(
            "{} transforms, batch = max(1, {} / N), median of {} timed calls",
            if args.inverse { "inverse" } else { "forward" },
            args.points,
            args.reps
        );
        println!();
        println!("{}", header());
    }
    let mut rows = Vec::new();
    for k in sizes {
        let n = 1usize << k;
        bar.set_message(format!("N = 2^{k}"));
        let row = measure(&device, n, args.points, args.reps as usize, direction);
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

/// A bar on stderr, hidden for `--json` (indicatif also hides it when stderr is not a terminal).
fn progress_bar(len: u64, hidden: bool) -> ProgressBar {
    if hidden {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} sizes, {msg} [{elapsed}]") {
        bar.set_style(style);
    }
    bar
}

/// Plans, measures and checks one size; a failure becomes a row with the error.
fn measure(device: &Device, n: usize, points: usize, reps: usize, direction: Direction) -> Row {
    let batch = (points / n).max(1);
    let mut row = Row {
        n,
        batch,
        median_s: None,
        gflops: None,
        gbps: None,
        rel_error: None,
        error: None,
        timer: None,
    };
    let spec = FftSpec::new(n).batch(batch).direction(direction);
    let result = device.plan(&spec).and_then(|fft| {
        let input = random_input(n * batch);
        let m = fft.measure(&input, reps)?;
        Ok((input, m))
    });
    match result {
        Ok((input, m)) => {
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
fn random_input(len: usize) -> Vec<Complex32> {
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

/// How the times were taken, as the table and the JSON say it.
fn timer_name(t: Timer) -> &'static str {
    match t {
        Timer::GpuTimestamps => "gpu timestamps",
        Timer::WallClock => "wall clock",
    }
}

/// A duration with a unit that suits it: µs, ms or s.
pub fn format_seconds(t: f64) -> String {
    if t < 1e-3 {
        format!("{:.2} µs", t * 1e6)
    } else if t < 1.0 {
        format!("{:.3} ms", t * 1e3)
    } else {
        format!("{t:.3} s")
    }
}

/// The table's column titles.
fn header() -> String {
    format!(
        "{:>8} {:>7}  {:>11}  {:>11}  {:>8}  {:>8}  {:>9}  {}",
        "N", "batch", "time/call", "µs/transf.", "GFLOPS", "GB/s", "rel. L2", "timer"
    )
}

/// One line of the table.
fn format_row(r: &Row) -> String {
    let lead = format!("{:>8} {:>7}", r.n, r.batch);
    let Some(t) = r.median_s else {
        return format!("{lead}  error: {}", r.error.as_deref().unwrap_or("unknown"));
    };
    let num = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.2}"));
    format!(
        "{lead}  {:>11}  {:>11.3}  {:>8}  {:>8}  {:>9.2e}  {}",
        format_seconds(t),
        t * 1e6 / r.batch as f64,
        num(r.gflops),
        num(r.gbps),
        r.rel_error.unwrap_or(f64::NAN),
        r.timer.map_or("-", timer_name)
    )
}

/// The command line as typed, arguments with spaces or shell characters single-quoted.
fn command_line() -> String {
    std::env::args()
        .map(|a| {
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=^:,+@%".contains(c));
            if plain {
                a
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
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
    fn units() {
        assert_eq!(format_seconds(12.5e-6), "12.50 µs");
        assert_eq!(format_seconds(0.0125), "12.500 ms");
        assert_eq!(format_seconds(2.0), "2.000 s");
    }
}
