//! What `tierfft bench` prints: the table's lines and the `--json` report.

use serde::Serialize;
use tierfft::backend::Timer;

use crate::shared::format_seconds;

/// One size's result: the measurement, or why there is none.
#[derive(Debug, Serialize)]
pub struct Row {
    /// Points per transform.
    pub n: usize,
    /// Transforms per call.
    pub batch: usize,
    /// Median time of one call, seconds.
    pub median_s: Option<f64>,
    /// 5·N·log2 N·batch / time, in 10^9 per second.
    pub gflops: Option<f64>,
    /// 16·N·batch / time (one read and one write of complex f32), GB/s.
    pub gbps: Option<f64>,
    /// Relative L2 error against the f64 reference.
    pub rel_error: Option<f64>,
    /// Why the size failed, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Timed calls the median is taken over.
    pub reps: usize,
    /// How the times were taken.
    #[serde(skip)]
    pub timer: Option<Timer>,
}

/// What `--json` prints.
#[derive(Debug, Serialize)]
pub struct Report<'a> {
    /// The device's name.
    pub device: String,
    /// How the times were taken (of the first size that ran).
    pub timer: &'static str,
    /// One row per size.
    pub rows: &'a [Row],
}

/// How the times were taken, as the table and the JSON say it.
pub fn timer_name(t: Timer) -> &'static str {
    match t {
        Timer::GpuTimestamps => "gpu timestamps",
        Timer::WallClock => "wall clock",
        _ => "other",
    }
}

/// The table's column titles.
pub fn header() -> String {
    format!(
        "{:>8} {:>7}  {:>11}  {:>11}  {:>8}  {:>8}  {:>9}  {:>4}  {}",
        "N", "batch", "time/call", "µs/transf.", "GFLOPS", "GB/s", "rel. L2", "reps", "timer"
    )
}

/// One line of the table.
pub fn format_row(r: &Row) -> String {
    let lead = format!("{:>8} {:>7}", r.n, r.batch);
    let Some(t) = r.median_s else {
        return format!("{lead}  error: {}", r.error.as_deref().unwrap_or("unknown"));
    };
    let num = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.2}"));
    format!(
        "{lead}  {:>11}  {:>11.3}  {:>8}  {:>8}  {:>9.2e}  {:>4}  {}",
        format_seconds(t),
        t * 1e6 / r.batch as f64,
        num(r.gflops),
        num(r.gbps),
        r.rel_error.unwrap_or(f64::NAN),
        r.reps,
        r.timer.map_or("-", timer_name)
    )
}

/// The command line as typed, arguments with spaces or shell characters single-quoted.
pub fn command_line() -> String {
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
