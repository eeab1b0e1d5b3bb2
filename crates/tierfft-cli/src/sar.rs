//! `tierfft sar`: simulate a scene, focus it with the Range-Doppler algorithm, measure every
//! point target, and write the images, the metrics and the focused complex image.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use tierfft::Complex32;
use tierfft_sar::focus::{FocusOptions, Focuser};
use tierfft_sar::metrics::{CutOptions, PointMetrics, analyze_point};
use tierfft_sar::neighbours::{AxisResponse, IdealResponse, SceneModel};
use tierfft_sar::params::Config;
use tierfft_sar::range::Window;
use tierfft_sar::simulate::simulate_with_progress;
use tierfft_sar::window::Theory;

use crate::CliResult;
use crate::plot::{Focused, write_db_png, write_target_figures};

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
    /// Folder for the outputs (created if missing): image.png and raw.png (dB, 50 dB range),
    /// metrics.json, focused.npy, and per target N (1, 2, … in the config's order)
    /// target-N-crop.png (the image around it, zoomed, dB of the whole image's peak, a red
    /// cross where it was placed) and target-N-cuts.png (its range and azimuth cuts in dB).
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
    /// Azimuth weighting over the Doppler bandwidth, same syntax as --window.
    #[arg(long, default_value = "none", value_name = "WINDOW", value_parser = Window::parse)]
    azimuth_window: Window,
    /// Focus these raw echoes instead of simulating: complex64 `.npy` of shape [azimuth
    /// lines, range samples], range samples starting at the config's `radar.near_range_m`
    /// (set it). The config's targets, if any, are measured.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["lines", "samples"])]
    raw: Option<PathBuf>,
    /// Also write the simulated raw echoes as `raw.npy` (complex64, [lines, samples]), the
    /// input `--raw` takes.
    #[arg(long, conflicts_with = "raw")]
    write_raw: bool,
    /// Skip range cell migration correction (to see what it corrects).
    #[arg(long)]
    no_rcmc: bool,
    /// Azimuth filter phase-only: no division by the numerically computed reference target's
    /// spectrum (which assumes the simulator's uniformly lit beam; use this for echoes whose
    /// antenna pattern is tapered).
    #[arg(long)]
    no_azimuth_equalisation: bool,
    /// Run every step separately (FFT, filter multiply on the CPU, inverse FFT; azimuth FFTs
    /// over rows between transposes) instead of the fused kernels.
    #[arg(long)]
    unfused: bool,
}

/// One target's result.
#[derive(Serialize)]
struct TargetReport {
    range_m: f64,
    azimuth_m: f64,
    /// Where the target was placed, (line, sample), fractional.
    expected: (f64, f64),
    /// Half-lengths of its cuts, (lines, samples).
    cut_half: (usize, usize),
    /// Measured in the image as it is.
    metrics: PointMetrics,
    /// Measured with every other target's modelled response taken out
    /// (`tierfft_sar::neighbours`).
    alone: PointMetrics,
    /// Fitted complex amplitude of its ideal response, [re, im].
    amplitude: [f64; 2],
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
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    eprintln!("tierfft sar: {lines} × {samples} on {}", device.name());
    // Plans every step first: a scene too large for the device fails here, before any work.
    let focus_opts = FocusOptions {
        range_window: window,
        azimuth_window: args.azimuth_window,
        rcmc: !args.no_rcmc,
        azimuth_equalisation: !args.no_azimuth_equalisation,
        fused: !args.unfused,
    };
    let focuser = Focuser::new(&device, &config, focus_opts)?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create '{}': {e}", args.out.display()))?;

    let t = Instant::now();
    let mut data = match raw {
        Some(data) => data,
        None => {
            let bar = ProgressBar::new(lines as u64).with_style(
                ProgressStyle::with_template("simulating echoes {bar:40} {pos}/{len} lines")
                    .map_err(|e| e.to_string())?,
            );
            let data = simulate_with_progress(&config, &|done| bar.inc(done as u64));
            bar.finish_and_clear();
            data
        }
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
    let spinner = ProgressBar::new_spinner();
    spinner.enable_steady_tick(std::time::Duration::from_millis(100));
    let steps = focuser.focus(&mut data, |step| {
        spinner.set_message(format!("focusing: {step}"))
    })?;
    spinner.finish_and_clear();
    write_db_png(&args.out.join("image.png"), &data, lines, samples)?;
    crate::npy::write_atomic(
        &args.out.join("focused.npy"),
        &[lines as u64, samples as u64],
        &data,
    )?;

    let r = &config.radar;
    let (range_theory, azimuth_theory) = (args.window.theory(), args.azimuth_window.theory());
    let targets = measure_targets(&data, &config, args, (&azimuth_theory, &range_theory))?;
    println!(
        "timings (wall clock): simulate {simulate_s:.3} s; focus {:.1} ms = host-device copies {:.1} + range compression {:.1} + azimuth FFT {:.1} + RCMC {:.1} + azimuth compression {:.1} ({})",
        steps.total_s() * 1e3,
        steps.transfer_s * 1e3,
        steps.range_compression_s * 1e3,
        steps.azimuth_fft_s * 1e3,
        steps.rcmc_s * 1e3,
        steps.azimuth_compression_s * 1e3,
        if args.unfused { "unfused" } else { "fused" }
    );
    let report = serde_json::json!({
        "device": device.name(),
        "lines": lines,
        "samples": samples,
        "window": args.window.to_string(),
        "azimuth_window": args.azimuth_window.to_string(),
        "theory": {
            "range_irw_bins": range_theory.irw * r.sample_rate_hz / r.bandwidth_hz,
            "range_pslr_db": range_theory.pslr_db,
            "range_islr_db": range_theory.islr_db,
            "azimuth_irw_bins": azimuth_theory.irw * r.prf_hz / r.doppler_bandwidth_hz(),
            "azimuth_pslr_db": azimuth_theory.pslr_db,
            "azimuth_islr_db": azimuth_theory.islr_db,
        },
        "fused": !args.unfused,
        "rcmc": !args.no_rcmc,
        "azimuth_equalisation": !args.no_azimuth_equalisation,
        "timings_s": { "simulate": simulate_s, "focus": steps.total_s(), "steps": steps },
        "targets": targets,
    });
    let json = serde_json::to_string_pretty(&report)?;
    std::fs::write(args.out.join("metrics.json"), json)
        .map_err(|e| format!("cannot write metrics.json: {e}"))?;
    // Figures last: should drawing fail, the metrics are already saved.
    let image = Focused::new(&data, lines, samples)?;
    for (i, t) in targets.iter().enumerate() {
        let m = &t.metrics;
        // The measured peak, to the nearest line and sample, centres the crop and the cuts
        // (sub-bin interpolation may put a peak on the last line half a line outside).
        let peak = (
            (m.azimuth.peak_position.round() as usize).min(lines - 1),
            (m.range.peak_position.round() as usize).min(samples - 1),
        );
        write_target_figures(&args.out, i + 1, &image, peak, t.expected, t.cut_half)?;
    }
    eprintln!("wrote {}", args.out.display());
    Ok(())
}

/// Measures every configured target in the focused `image`, as imaged and alone (the other
/// targets' modelled responses taken out), and prints both tables. `theory`: the azimuth and
/// range windows' [`Window::theory`].
fn measure_targets(
    image: &[Complex32],
    config: &Config,
    args: &SarArgs,
    theory: (&Theory, &Theory),
) -> CliResult<Vec<TargetReport>> {
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    let r = &config.radar;
    let near = config.near_range_m();
    // Noise for the SNR: the first eighth of lines and samples, away from the scene centre.
    let noise = Some((0..lines / 8, 0..samples / 8));
    let response = IdealResponse {
        azimuth: AxisResponse {
            window: args.azimuth_window,
            samples_per_unit: r.prf_hz / r.doppler_bandwidth_hz(),
        },
        range: AxisResponse {
            window: args.window,
            samples_per_unit: r.sample_rate_hz / r.bandwidth_hz,
        },
    };
    let irw = (
        theory.0.irw * response.azimuth.samples_per_unit,
        theory.1.irw * response.range.samples_per_unit,
    );
    let placed: Vec<(f64, f64)> = config
        .scene
        .targets
        .iter()
        .map(|t| {
            (
                lines as f64 / 2.0 + t.azimuth_m / r.azimuth_bin_m(),
                (t.range_m - near) / r.range_bin_m(),
            )
        })
        .collect();
    let model = SceneModel::fit(image, lines, samples, &response, &placed)?;
    let mut targets = Vec::new();
    for (k, (t, &expected)) in config.scene.targets.iter().zip(&placed).enumerate() {
        let opts = CutOptions {
            half_azimuth: cut_half(expected, &placed, irw, Axis::Azimuth),
            half: cut_half(expected, &placed, irw, Axis::Range),
            ..CutOptions::default()
        };
        // Alone, no neighbour shortens the cuts.
        let alone_opts = CutOptions {
            half_azimuth: cut_half(expected, &[], irw, Axis::Azimuth),
            half: cut_half(expected, &[], irw, Axis::Range),
            ..CutOptions::default()
        };
        let guess = (expected.0.round() as usize, expected.1.round() as usize);
        let amplitude = model.targets()[k].amplitude;
        targets.push(TargetReport {
            range_m: t.range_m,
            azimuth_m: t.azimuth_m,
            expected,
            cut_half: (opts.half_azimuth, opts.half),
            metrics: analyze_point(image, lines, samples, guess, &opts, noise.clone())?,
            alone: model.analyze_alone(
                image,
                lines,
                samples,
                k,
                guess,
                &alone_opts,
                noise.clone(),
            )?,
            amplitude: [amplitude.re, amplitude.im],
        });
    }
    print_table("as imaged", &targets, |t| &t.metrics);
    print_table(
        "alone: every other target's modelled response taken out (docs/SAR.md)",
        &targets,
        |t| &t.alone,
    );
    Ok(targets)
}

/// One table of target metrics: position errors (measured − placed), widths in bins, dB.
fn print_table(title: &str, targets: &[TargetReport], pick: fn(&TargetReport) -> &PointMetrics) {
    println!("{title}");
    println!(
        "{:>10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9} {:>8} {:>8} {:>7}",
        "range m",
        "az m",
        "Δline",
        "Δsample",
        "IRW rg",
        "IRW az",
        "PSLR rg",
        "PSLR az",
        "ISLR rg",
        "ISLR az",
        "SNR dB"
    );
    for t in targets {
        let m = pick(t);
        println!(
            "{:>10.1} {:>8.1} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>9.2} {:>9.2} {:>8.2} {:>8.2} {:>7.1}",
            t.range_m,
            t.azimuth_m,
            m.azimuth.peak_position - t.expected.0,
            m.range.peak_position - t.expected.1,
            m.range.irw_bins,
            m.azimuth.irw_bins,
            m.range.pslr_db,
            m.azimuth.pslr_db,
            m.range.islr_db,
            m.azimuth.islr_db,
            m.peak_snr_db.unwrap_or(f64::NAN)
        );
    }
}

/// The direction of a cut.
#[derive(Clone, Copy, PartialEq)]
enum Axis {
    Azimuth,
    Range,
}

/// Half-length of the cut along `axis` through a target placed at `at` (line, sample), bins:
/// 20 theoretical IRWs (`irw`, lines and samples), so that ISLR integrates the sidelobes far
/// out, shortened to end 2 IRWs before any other target on the same cut (within 3 IRWs
/// across it: its mainlobe stays out), at least 1.5 IRWs (past the first nulls).
fn cut_half(at: (f64, f64), placed: &[(f64, f64)], irw: (f64, f64), axis: Axis) -> usize {
    // (along the cut, across it)
    let orient = |p: (f64, f64)| match axis {
        Axis::Azimuth => (p.0, p.1),
        Axis::Range => (p.1, p.0),
    };
    let (at, (w, w_across)) = (orient(at), orient(irw));
    let clear = placed
        .iter()
        .map(|&p| orient(p))
        .filter(|p| (p.1 - at.1).abs() < 3.0 * w_across && (p.0 - at.0).abs() > 0.5)
        .map(|p| (p.0 - at.0).abs() - 2.0 * w)
        .fold(20.0 * w, f64::min);
    clear.max(1.5 * w).ceil() as usize
}
