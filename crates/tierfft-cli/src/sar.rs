//! `tierfft sar`: simulate a scene, focus it with the Range-Doppler algorithm, measure every
//! point target, and write the images, the metrics and the focused complex image.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use tierfft::Complex32;
use tierfft::Device;
use tierfft_sar::focus::{FocusOptions, Focuser, memory_needs};
use tierfft_sar::metrics::{CutOptions, PointMetrics, analyze_point};
use tierfft_sar::neighbours::{AxisResponse, IdealResponse, SceneModel};
use tierfft_sar::params::{Config, DefaultTargets};
use tierfft_sar::range::Window;
use tierfft_sar::simulate::simulate_with_progress;
use tierfft_sar::window::Theory;

use crate::memory::{available, format_bytes};
use crate::npy::{self, Expect};
use crate::outdir::Staged;
use crate::plot::{self, Focused, Geometry};
use crate::{CliResult, parse_count};

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
    /// Folder for the outputs (created if missing; the files below are replaced only when the
    /// whole run succeeds, other files are left alone): overview.png (the image around the
    /// targets with axes in m and bins, dB colour bar), image.png (the whole image, 1 pixel per
    /// sample, grey dB, 50 dB range), raw.png (the echoes' power, at most 1024 pixels a side),
    /// metrics.json, focused.npy (complex64, lines × samples × 8 bytes), and per target N (1,
    /// 2, … in the config's order) target-N-crop.png (the image around it, interpolated, with
    /// axes and a cross where it was placed) and target-N-cuts.png (its range and azimuth cuts
    /// in dB with the measured IRW, PSLR and ISLR).
    #[arg(long, default_value = "sar-out", value_name = "DIR")]
    out: PathBuf,
    /// Azimuth lines, a power of two of at least 16: 4096 or 2^12 (overrides the config).
    #[arg(long, value_parser = parse_scene_size)]
    lines: Option<usize>,
    /// Range samples per line, a power of two of at least 16 (overrides the config).
    #[arg(long, value_parser = parse_scene_size)]
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
    /// (set it). Only the targets the config lists (`[[scene.targets]]`) are measured.
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
    /// Measured in the image as it is (`null` if it could not be).
    metrics: Option<PointMetrics>,
    /// Measured with every other target's modelled response taken out
    /// (`tierfft_sar::neighbours`; `null` if it could not be).
    alone: Option<PointMetrics>,
    /// Fitted complex amplitude of its ideal response, [re, im].
    amplitude: Option<[f64; 2]>,
    /// Why it could not be measured, as imaged or alone (a target lost in noise, too close
    /// to an edge); absent when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// Files `tierfft sar` writes into `--out`: replaced by each run, and removed when a later run
/// does not write them (fewer targets).
fn owned(name: &str) -> bool {
    const FILES: [&str; 6] = [
        "overview.png",
        "image.png",
        "raw.png",
        "raw.npy",
        "metrics.json",
        "focused.npy",
    ];
    let target_figure = name
        .strip_prefix("target-")
        .and_then(|r| r.strip_suffix("-crop.png").or(r.strip_suffix("-cuts.png")))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    FILES.contains(&name) || target_figure
}

/// `--lines` and `--samples`: a count ([`parse_count`]) that is a power of two of at least 16.
fn parse_scene_size(s: &str) -> Result<usize, String> {
    let v = parse_count(s)?;
    if v.is_power_of_two() && v >= 16 {
        Ok(v)
    } else {
        Err(format!(
            "{v} is not a power of two of at least 16 (scenes are power-of-two sized for now)"
        ))
    }
}

/// The configuration with the command line applied, validated, and the user's echoes opened
/// (header checked, data not yet read).
fn prepare(args: &SarArgs) -> CliResult<(Config, Option<npy::Input>)> {
    // The user's echoes: only the targets the file lists are theirs.
    let targets = match args.raw {
        Some(_) => DefaultTargets::Drop,
        None => DefaultTargets::Keep,
    };
    let mut config = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read config '{}': {e}", path.display()))?;
            Config::parse_toml(&text, targets).map_err(|e| format!("'{}': {e}", path.display()))?
        }
        None => Config::default(),
    };
    config.scene.lines = args.lines.unwrap_or(config.scene.lines);
    config.scene.samples = args.samples.unwrap_or(config.scene.samples);
    let raw = match &args.raw {
        Some(path) => {
            if config.radar.near_range_m.is_none() {
                return Err("--raw needs radar.near_range_m in the config (--config FILE): the slant range of the first range sample, m".into());
            }
            let input = npy::open(path, Expect::Scene)?;
            let (lines, samples) = (input.header.batch, input.header.n);
            for (v, what, axis, pad) in [
                (lines, "azimuth lines", 0, "((0, P), (0, 0))"),
                (samples, "range samples", 1, "((0, 0), (0, P))"),
            ] {
                if !v.is_power_of_two() || v < 16 {
                    let to = v.next_power_of_two().max(16);
                    return Err(format!(
                        "'{}' has shape {:?}: its {v} {what} (axis {axis}) must be a power of \
                         two of at least 16 for now; zero-pad them to {to} \
                         (np.pad(x, {}))",
                        path.display(),
                        input.header.shape,
                        pad.replace('P', &(to - v).to_string())
                    )
                    .into());
                }
            }
            config.scene.lines = lines;
            config.scene.samples = samples;
            Some(input)
        }
        None => None,
    };
    config.validate()?;
    Ok((config, raw))
}

/// Refuses a scene whose buffers would not fit in the host's free memory (or the CUDA
/// device's), before anything is allocated.
fn check_memory(config: &Config, device: &Device) -> CliResult<()> {
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    let scene = config.scene_bytes().unwrap_or(u64::MAX);
    let needs = memory_needs(config, device).ok_or("the scene's size overflows")?;
    // On top of the focuser's: the 8-bit picture behind image.png.
    let host = needs.host.saturating_add(scene / 8);
    let what = format!(
        "a {lines} × {samples} scene ({} per complex buffer)",
        format_bytes(scene)
    );
    if let Some(free) = available()
        && host > free.bytes
    {
        return Err(format!(
            "{what} needs about {} of host memory to focus on {}, but {} is available ({}): \
             use fewer lines or samples",
            format_bytes(host),
            device.name(),
            format_bytes(free.bytes),
            free.source
        )
        .into());
    }
    if needs.device > 0
        && let Some(free) = device.free_memory()?
        && needs.device > free
    {
        return Err(format!(
            "{what} needs about {} of memory on {}, but {} is free: use fewer lines or \
             samples",
            format_bytes(needs.device),
            device.name(),
            format_bytes(free)
        )
        .into());
    }
    Ok(())
}

/// `tierfft sar`.
pub fn run(args: &SarArgs) -> CliResult<()> {
    let (config, raw) = prepare(args)?;
    let device = crate::commands::open_device(&args.device)?;
    check_memory(&config, &device)?;
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    eprintln!("tierfft sar: {lines} × {samples} on {}", device.name());
    // Plans every step first: a scene too large for the device fails here, before any work.
    let focus_opts = FocusOptions {
        range_window: args.window,
        azimuth_window: args.azimuth_window,
        rcmc: !args.no_rcmc,
        azimuth_equalisation: !args.no_azimuth_equalisation,
        fused: !args.unfused,
    };
    let focuser = Focuser::new(&device, &config, focus_opts)?;
    let out = Staged::begin(&args.out)?;

    let t = Instant::now();
    let mut data = match raw {
        Some(input) => input.read()?,
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
    let shape = [lines as u64, samples as u64];
    if args.write_raw {
        npy::write_atomic(&out.path("raw.npy"), &shape, &data)?;
    }
    plot::write_power_png(&out.path("raw.png"), &data, lines, samples, plot::RAW_SIDE)?;
    let spinner = ProgressBar::new_spinner();
    spinner.enable_steady_tick(std::time::Duration::from_millis(100));
    let steps = focuser.focus(&mut data, |step| {
        spinner.set_message(format!("focusing: {step}"))
    })?;
    spinner.finish_and_clear();
    plot::write_db_png(&out.path("image.png"), &data, lines, samples)?;
    npy::write_atomic(&out.path("focused.npy"), &shape, &data)?;

    let r = &config.radar;
    let (range_theory, azimuth_theory) = (args.window.theory(), args.azimuth_window.theory());
    let theory = (&azimuth_theory, &range_theory);
    let targets = measure_targets(&data, &config, args, theory);
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
    let theory_bins = (
        azimuth_theory.irw * r.prf_hz / r.doppler_bandwidth_hz(),
        range_theory.irw * r.sample_rate_hz / r.bandwidth_hz,
    );
    let report = serde_json::json!({
        "device": device.name(),
        "lines": lines,
        "samples": samples,
        "window": args.window.to_string(),
        "azimuth_window": args.azimuth_window.to_string(),
        "theory": {
            "range_irw_bins": theory_bins.1,
            "range_pslr_db": range_theory.pslr_db,
            "range_islr_db": range_theory.islr_db,
            "azimuth_irw_bins": theory_bins.0,
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
    std::fs::write(out.path("metrics.json"), json)
        .map_err(|e| format!("cannot write metrics.json: {e}"))?;

    let image = Focused::new(&data, lines, samples)?;
    let geometry = Geometry {
        range_bin_m: r.range_bin_m(),
        azimuth_bin_m: r.azimuth_bin_m(),
        near_range_m: config.near_range_m(),
        centre_line: lines as f64 / 2.0,
    };
    let placed: Vec<(f64, f64)> = targets.iter().map(|t| t.expected).collect();
    plot::write_overview(&out.path("overview.png"), &image, &geometry, &placed)?;
    for (i, t) in targets.iter().enumerate() {
        // The measured peak, to the nearest line and sample, centres the crop and the cuts
        // (sub-bin interpolation may put a peak on the last line half a line outside); the
        // placed position where nothing was measured.
        let peak = match &t.metrics {
            Some(m) => (m.azimuth.peak_position, m.range.peak_position),
            None => t.expected,
        };
        let peak = (
            (peak.0.round().max(0.0) as usize).min(lines - 1),
            (peak.1.round().max(0.0) as usize).min(samples - 1),
        );
        let target = plot::TargetFigure {
            index: i + 1,
            title: format!(
                "target {} (range {:.1} m, azimuth {:.1} m)",
                i + 1,
                t.range_m,
                t.azimuth_m
            ),
            peak,
            expected: t.expected,
            cut_half: t.cut_half,
            labels: cut_labels(
                t,
                theory,
                theory_bins,
                (geometry.azimuth_bin_m, geometry.range_bin_m),
            ),
        };
        plot::write_target_figures(out.path(""), &image, &geometry, &target)?;
    }
    out.commit(owned)?;
    for (i, t) in targets.iter().enumerate() {
        if let Some(e) = &t.error {
            eprintln!("warning: target {} was not measured: {e}", i + 1);
        }
    }
    eprintln!("wrote {}", args.out.display());
    Ok(())
}

/// What a target's cut plot says above each curve, (range, azimuth): the measured IRW, PSLR
/// and ISLR as imaged and alone, and theory's. `theory_bins`: the theoretical IRWs in
/// (lines, samples); `bin_m`: metres per (line, sample).
fn cut_labels(
    t: &TargetReport,
    theory: (&Theory, &Theory),
    theory_bins: (f64, f64),
    bin_m: (f64, f64),
) -> (Vec<String>, Vec<String>) {
    let axis = |range: bool| {
        let (th, irw, unit, m) = if range {
            (theory.1, theory_bins.1, "samples", bin_m.1)
        } else {
            (theory.0, theory_bins.0, "lines", bin_m.0)
        };
        let values = |what: &str, irw: f64, pslr: f64, islr: f64| {
            format!(
                "{what}: IRW {irw:.3} {unit} = {:.3} m, PSLR {pslr:.2} dB, ISLR {islr:.2} dB",
                irw * m
            )
        };
        let measured = |what: &str, p: Option<&PointMetrics>| match p {
            Some(p) => {
                let c = if range { &p.range } else { &p.azimuth };
                values(what, c.irw_bins, c.pslr_db, c.islr_db)
            }
            None => format!("{what}: not measured"),
        };
        vec![
            measured("as imaged", t.metrics.as_ref()),
            measured("alone", t.alone.as_ref()),
            values("theory", irw, th.pslr_db, th.islr_db),
        ]
    };
    (axis(true), axis(false))
}

/// Measures every configured target in the focused `image`, as imaged and alone (the other
/// targets' modelled responses taken out), and prints both tables. `theory`: the azimuth and
/// range windows' [`Window::theory`]. A target that cannot be measured (lost in noise, at an
/// edge) is reported with its error; the others are still measured.
fn measure_targets(
    image: &[Complex32],
    config: &Config,
    args: &SarArgs,
    theory: (&Theory, &Theory),
) -> Vec<TargetReport> {
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    let r = &config.radar;
    if config.scene.targets.is_empty() {
        println!("no targets to measure (list them as [[scene.targets]] in the config)");
        return Vec::new();
    }
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
        .map(|t| config.target_position(t))
        .collect();
    let model = SceneModel::fit(image, lines, samples, &response, &placed);
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
        let metrics = analyze_point(image, lines, samples, guess, &opts, noise.clone())
            .map_err(|e| e.to_string());
        let alone = match &model {
            Ok(m) => m
                .analyze_alone(image, lines, samples, k, guess, &alone_opts, noise.clone())
                .map_err(|e| e.to_string()),
            Err(e) => Err(format!("the scene model could not be fitted: {e}")),
        };
        let error = match (&metrics, &alone) {
            (Err(a), Err(b)) if a == b => Some(a.clone()),
            (Err(a), Err(b)) => Some(format!("as imaged: {a}; alone: {b}")),
            (Err(a), Ok(_)) => Some(format!("as imaged: {a}")),
            (Ok(_), Err(b)) => Some(format!("alone: {b}")),
            (Ok(_), Ok(_)) => None,
        };
        targets.push(TargetReport {
            range_m: t.range_m,
            azimuth_m: t.azimuth_m,
            expected,
            cut_half: (opts.half_azimuth, opts.half),
            metrics: metrics.ok(),
            alone: alone.ok(),
            amplitude: model
                .as_ref()
                .ok()
                .map(|m| m.targets()[k].amplitude)
                .map(|a| [a.re, a.im]),
            error,
        });
    }
    print_table("as imaged", &targets, |t| t.metrics.as_ref());
    print_table(
        "alone: every other target's modelled response taken out (docs/SAR.md)",
        &targets,
        |t| t.alone.as_ref(),
    );
    targets
}

/// One table of target metrics: position errors (measured − placed), widths in bins, dB.
fn print_table(
    title: &str,
    targets: &[TargetReport],
    pick: fn(&TargetReport) -> Option<&PointMetrics>,
) {
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
        let Some(m) = pick(t) else {
            println!(
                "{:>10.1} {:>8.1}  not measured: {}",
                t.range_m,
                t.azimuth_m,
                t.error.as_deref().unwrap_or("-")
            );
            continue;
        };
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
