//! `tierfft sar`: simulate a scene, focus it with the Range-Doppler algorithm, measure every
//! point target, and write the images, the metrics and the focused complex image.

use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use serde::Serialize;
use tierfft::Complex32;
use tierfft_sar::focus::focus;
use tierfft_sar::metrics::{CutOptions, PointMetrics, analyze_point};
use tierfft_sar::params::Config;
use tierfft_sar::range::Window;
use tierfft_sar::simulate::simulate;

use crate::CliResult;

/// Arguments of `tierfft sar`.
#[derive(Debug, Args)]
pub struct SarArgs {
    /// Radar and scene as TOML (keys in crates/tierfft-sar/src/params.rs); defaults: the seeds'
    /// 4096 × 4096 scene with five targets.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Device: auto, cpu, cuda, gpu, lavapipe, or part of an adapter's name.
    #[arg(short, long, default_value = "auto", value_name = "NAME")]
    device: String,
    /// Folder for image.png, raw.png, metrics.json and focused.npy (created if missing).
    #[arg(long, default_value = "sar-out", value_name = "DIR")]
    out: PathBuf,
    /// Azimuth lines (overrides the config).
    #[arg(long)]
    lines: Option<usize>,
    /// Range samples per line (overrides the config).
    #[arg(long)]
    samples: Option<usize>,
    /// Range weighting: none, hamming, taylor (n̄ 4, -35 dB), taylor:NBAR:SLL_DB (e.g.
    /// taylor:5:-30, sidelobe level in dB below the peak), kaiser (β 2.5) or kaiser:BETA.
    #[arg(long, default_value = "none", value_name = "WINDOW", value_parser = Window::parse)]
    window: Window,
    /// Focus these raw echoes instead of simulating: complex64 `.npy` of shape [azimuth
    /// lines, range samples], range samples starting at the config's `radar.near_range_m`
    /// (set it). The config's targets, if any, are measured.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["lines", "samples"])]
    raw: Option<PathBuf>,
    /// Also write the simulated raw echoes as `raw.npy` (complex64, [lines, samples]), the
    /// input `--raw` takes.
    #[arg(long, conflicts_with = "raw")]
    write_raw: bool,
}

/// One target's result.
#[derive(Serialize)]
struct TargetReport {
    range_m: f64,
    azimuth_m: f64,
    /// Where the target was placed, (line, sample), fractional.
    expected: (f64, f64),
    metrics: PointMetrics,
}

/// `tierfft sar`.
pub fn run(args: &SarArgs) -> CliResult<()> {
    let mut config = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read config '{}': {e}", path.display()))?;
            Config::from_toml(&text)?
        }
        None => Config::default(),
    };
    config.scene.lines = args.lines.unwrap_or(config.scene.lines);
    config.scene.samples = args.samples.unwrap_or(config.scene.samples);
    // Users' echoes: the file's shape is the scene's.
    let raw = match &args.raw {
        Some(path) => {
            if config.radar.near_range_m.is_none() {
                return Err("--raw needs radar.near_range_m in the config: the slant range of the first range sample, m".into());
            }
            let input = crate::npy::open(path)?;
            if input.header.shape.len() != 2 {
                return Err(format!(
                    "'{}' must have shape [azimuth lines, range samples], not {:?}",
                    path.display(),
                    input.header.shape
                )
                .into());
            }
            config.scene.lines = input.header.batch;
            config.scene.samples = input.header.n;
            Some(input.read()?)
        }
        None => None,
    };
    config.validate()?;
    let window = args.window;
    let device = crate::commands::open_device(&args.device)?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create '{}': {e}", args.out.display()))?;
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    eprintln!("tierfft sar: {lines} × {samples} on {}", device.name());

    let t = Instant::now();
    let mut data = match raw {
        Some(data) => data,
        None => simulate(&config),
    };
    let simulate_s = t.elapsed().as_secs_f64();
    if args.write_raw {
        crate::npy::write_atomic(
            &args.out.join("raw.npy"),
            &[lines as u64, samples as u64],
            &data,
        )?;
    }
    write_db_png(&args.out.join("raw.png"), &data, lines, samples)?;
    let t = Instant::now();
    focus(&device, &config, &mut data, window)?;
    let focus_s = t.elapsed().as_secs_f64();
    write_db_png(&args.out.join("image.png"), &data, lines, samples)?;
    crate::npy::write_atomic(
        &args.out.join("focused.npy"),
        &[lines as u64, samples as u64],
        &data,
    )?;

    let r = &config.radar;
    let near = config.near_range_m();
    // Noise for the SNR: the first eighth of lines and samples, away from the scene centre.
    let noise = Some((0..lines / 8, 0..samples / 8));
    // ±24 bins: inside the seeds' target spacing (60 samples, 50 lines), wide enough for the
    // first sidelobes (±1.4 IRW).
    let opts = CutOptions {
        half: 24,
        ..CutOptions::default()
    };
    let mut targets = Vec::new();
    println!(
        "{:>10} {:>8} {:>10} {:>10} {:>8} {:>8} {:>9} {:>9} {:>8} {:>8} {:>7}",
        "range m",
        "az m",
        "line",
        "sample",
        "IRW rg",
        "IRW az",
        "PSLR rg",
        "PSLR az",
        "ISLR rg",
        "ISLR az",
        "SNR dB"
    );
    for t in &config.scene.targets {
        let expected = (
            lines as f64 / 2.0 + t.azimuth_m / r.azimuth_bin_m(),
            (t.range_m - near) / r.range_bin_m(),
        );
        let guess = (expected.0.round() as usize, expected.1.round() as usize);
        let metrics = analyze_point(&data, lines, samples, guess, &opts, noise.clone())?;
        println!(
            "{:>10.1} {:>8.1} {:>10.3} {:>10.3} {:>8.3} {:>8.3} {:>9.2} {:>9.2} {:>8.2} {:>8.2} {:>7.1}",
            t.range_m,
            t.azimuth_m,
            metrics.azimuth.peak_position,
            metrics.range.peak_position,
            metrics.range.irw_bins,
            metrics.azimuth.irw_bins,
            metrics.range.pslr_db,
            metrics.azimuth.pslr_db,
            metrics.range.islr_db,
            metrics.azimuth.islr_db,
            metrics.peak_snr_db.unwrap_or(f64::NAN)
        );
        targets.push(TargetReport {
            range_m: t.range_m,
            azimuth_m: t.azimuth_m,
            expected,
            metrics,
        });
    }
    println!(
        "timings: simulate {simulate_s:.3} s, focus {focus_s:.3} s (range compression, azimuth FFT, RCMC, azimuth compression)"
    );
    let report = serde_json::json!({
        "device": device.name(),
        "lines": lines,
        "samples": samples,
        "window": args.window.to_string(),
        "theory": {
            "range_irw_bins": 0.886 * r.sample_rate_hz / r.bandwidth_hz,
            "azimuth_irw_bins": 0.886 * r.prf_hz / r.doppler_bandwidth_hz(),
        },
        "timings_s": { "simulate": simulate_s, "focus": focus_s },
        "targets": targets,
    });
    let json = serde_json::to_string_pretty(&report)?;
    std::fs::write(args.out.join("metrics.json"), json)
        .map_err(|e| format!("cannot write metrics.json: {e}"))?;
    eprintln!("wrote {}", args.out.display());
    Ok(())
}

/// Magnitude in dB as an 8-bit grey PNG: 0 dB (the maximum) white, −50 dB and below black.
fn write_db_png(path: &Path, data: &[Complex32], rows: usize, cols: usize) -> CliResult<()> {
    let peak = data
        .iter()
        .map(|z| z.norm())
        .fold(0.0f32, f32::max)
        .max(f32::MIN_POSITIVE);
    let pixels: Vec<u8> = data
        .iter()
        .map(|z| {
            let db = 20.0 * (z.norm() / peak).max(1e-10).log10();
            (((db + 50.0) / 50.0).clamp(0.0, 1.0) * 255.0).round() as u8
        })
        .collect();
    let file = std::fs::File::create(path)
        .map_err(|e| format!("cannot write '{}': {e}", path.display()))?;
    let mut encoder = png::Encoder::new(BufWriter::new(file), cols as u32, rows as u32);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&pixels)?;
    Ok(())
}
