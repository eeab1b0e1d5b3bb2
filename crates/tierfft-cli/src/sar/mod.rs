//! `tierfft sar`: simulate a scene, focus it with the Range-Doppler algorithm, measure every
//! point target, and write the images, the metrics and the focused complex image. This file
//! checks everything first and runs the steps; [`measure`] measures, [`figures`] draws.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use tierfft::Complex32;
use tierfft_sar::filters::radiometry::Radiometry;
use tierfft_sar::filters::range::{Window, compress_range_linear};
use tierfft_sar::focus::Algorithm;
use tierfft_sar::focus::FocusOptions;
use tierfft_sar::product::RawProduct;
use tierfft_sar::product::nisar::{Channel, L0b};
use tierfft_sar::quality::looks::multilook;
use tierfft_sar::quality::report::{Blocks, ProductReport, Report, Timings};
use tierfft_sar::scene::centroid::Used;
use tierfft_sar::scene::echoes::{NonFinite, check_finite, check_layout};
use tierfft_sar::scene::extent::Extent;
use tierfft_sar::scene::params::{AzimuthPattern, Config, DefaultTargets};
use tierfft_sar::scene::replica::Replica;
use tierfft_sar::scene::simulate::simulate_with_progress;

use crate::npy::{self, Expect};
use crate::outdir::Staged;
use crate::plot;
use crate::{CliResult, parse_count};
use tierfft_sar::quality::measure::{Theories, measure_targets};

mod figures;
mod measure;
mod outputs;
mod planning;

use planning::{Focusing, check_scene, open_devices, plan, plan_ahead};

/// Arguments of `tierfft sar`.
#[derive(Debug, Args)]
pub struct SarArgs {
    /// Radar and scene as TOML: every key, with its unit and default, is in docs/SAR.md's
    /// table ("Configuration"); examples are in docs/examples/. Default: the reference scene
    /// (4096 × 4096, five point targets, 20 dB SNR).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Device: auto, cpu, cuda, cuda:N, gpu, gpu:N, lavapipe, or part of an adapter's name.
    #[arg(short, long, default_value = "auto", value_name = "NAME")]
    device: String,
    /// Folder for the outputs (created if missing; the files below are replaced only when the
    /// whole run succeeds, other files are left alone): overview.png (the image around the
    /// targets with axes in m and bins, dB colour bar), image.png (the whole image, a pixel per
    /// sample or the strongest of each block to at most 2048 pixels a side) and raw.png (the
    /// echoes' mean power, at most 1024 pixels a side), both with the same axes and a dB
    /// colour bar from the peak down to the picture's 5th percentile (20 to 100 dB),
    /// metrics.json, focused.npy (complex64, lines × samples × 8 bytes), and per target N (1,
    /// 2, … in the config's order) target-N-crop.png (the image around it, interpolated, with
    /// axes and a cross where it was placed) and target-N-cuts.png (its range and azimuth cuts
    /// in dB as imaged, alone and ideal, with the measured IRW, PSLR and ISLR and theory's);
    /// with --looks also looks.npy and looks.png; with --l0b also range_compressed.npy and
    /// range_compressed.png (the echoes compressed in range alone).
    #[arg(long, default_value = "sar-out", value_name = "DIR")]
    out: PathBuf,
    /// Azimuth lines (overrides the config): any number from 16 that holds a target's
    /// synthetic aperture, e.g. 4096, 3000 or 2^12 (the minimum for the default radar is
    /// given by `tierfft sar --help`).
    #[arg(long, value_parser = parse_scene_size)]
    lines: Option<usize>,
    /// Range samples per line, any number from 16 (overrides the config).
    #[arg(long, value_parser = parse_scene_size)]
    samples: Option<usize>,
    /// Range weighting: none, hamming, taylor (n̄ 4, -35 dB), taylor:NBAR:SLL_DB (e.g.
    /// taylor:5:-30, sidelobe level in dB below the peak), kaiser (β 2.5) or kaiser:BETA.
    #[arg(long, default_value = "none", value_name = "WINDOW", value_parser = Window::parse)]
    window: Window,
    /// Azimuth weighting over the Doppler bandwidth, same syntax as --window.
    #[arg(long, default_value = "none", value_name = "WINDOW", value_parser = Window::parse)]
    azimuth_window: Window,
    /// Focus these raw echoes instead of simulating: complex64 or complex128 `.npy` of shape
    /// [azimuth lines, range samples], range samples starting at the config's
    /// `radar.near_range_m` (set it; `--write-raw` writes a matching scene.toml). The file's
    /// shape is the scene's size. Only the targets the config lists (`[[scene.targets]]`)
    /// are measured. The echoes are checked first: NaN or infinite samples and a layout that
    /// looks transposed are refused.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["lines", "samples"])]
    raw: Option<PathBuf>,
    /// Focus a raw product instead of simulating: a NISAR Level-0B "RRSD" HDF5 file (what
    /// NISAR distributes, and ISCE3 repackages older L-band missions into). The radar, the
    /// scene's size, the slant-range axis and the pulses' times come from the file, the
    /// effective velocity from its orbit; the Doppler centroid is estimated from the echoes
    /// and printed beside the one the orbit and attitude predict. A product of fewer pulses
    /// than a synthetic aperture is focused over the pulses it has (metrics.json says how
    /// much coarser its azimuth resolution is).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["raw", "config", "lines", "samples", "write_raw", "replica"])]
    l0b: Option<PathBuf>,
    /// With --l0b: the channel to read, FREQUENCY/POLARISATION (e.g. A/HH, B/HV); default
    /// the first frequency's first co-polarised channel.
    #[arg(long, value_name = "F/PP", requires = "l0b")]
    channel: Option<String>,
    /// With --l0b: the antenna's length along track, m, for missions the reader does not
    /// know (known: ALOS 8.9 m, NISAR 12 m).
    #[arg(long, value_name = "M", requires = "l0b")]
    antenna_m: Option<f64>,
    /// With --raw: set NaN or infinite echo samples to zero (recorded in metrics.json as
    /// `nonfinite_zeroed`) instead of refusing the echoes.
    #[arg(long, requires = "raw")]
    zero_nonfinite: bool,
    /// With --raw: focus echoes whose neighbouring range samples are more alike than
    /// neighbouring lines, which usually means a transposed array, as they are.
    #[arg(long, requires = "raw")]
    trust_layout: bool,
    /// The transmitted pulse as measured: a 1-D complex `.npy` at the range sampling rate,
    /// its delay reference at sample 0 (radar.pulse_reference = "start") or in its middle
    /// ("centre"); used by the matched filter and, when simulating, as the echoes' pulse.
    /// Overrides the config's `radar.replica`.
    #[arg(long, value_name = "FILE")]
    replica: Option<PathBuf>,
    /// Also write the simulated raw echoes as `raw.npy` (complex64, [lines, samples]) and the
    /// scene.toml that focuses them again: `tierfft sar --raw DIR/raw.npy --config
    /// DIR/scene.toml`.
    #[arg(long, conflicts_with = "raw")]
    write_raw: bool,
    /// Skip range cell migration correction (to see what it corrects).
    #[arg(long)]
    no_rcmc: bool,
    /// Azimuth filter phase-only: no division by the numerically computed reference target's
    /// spectrum (lit by the antenna's pattern, radar.azimuth_pattern or recognised in the
    /// echoes): the pattern's taper and the Fresnel ripple then stay in the response.
    #[arg(long)]
    no_azimuth_equalisation: bool,
    /// Run every step separately (FFT, filter multiply on the CPU, inverse FFT; azimuth FFTs
    /// over rows between transposes) instead of the fused kernels.
    #[arg(long)]
    unfused: bool,
    /// Process at the recorded size, without margins of zeros: the convolutions then wrap
    /// around the scene's edges (targets near an edge defocus and leak into the other), but
    /// the transforms are shorter. By default the scene is processed with margins at
    /// efficient FFT lengths and the image cropped to the recorded scene.
    #[arg(long)]
    circular: bool,
    /// Secondary range compression, with the bulk range migration at mid-swath, in the 2-D
    /// frequency domain: auto (when the scene's range walk or range–azimuth coupling needs
    /// it: squinted beams, long apertures at low carriers), on or off.
    #[arg(long, value_enum, default_value_t = When::Auto)]
    src: When,
    /// The focusing algorithm: rda (Range-Doppler: range compression, azimuth FFT, SRC when
    /// needed, RCMC by 16-tap interpolation, azimuth compression) or csa (chirp scaling:
    /// migration, range compression and SRC by phase multiplies on the transforms' loads and
    /// stores, no interpolation).
    #[arg(long, default_value = "rda", value_name = "ALGORITHM")]
    algorithm: Algorithm,
    /// How the image's gain varies with range: normalised (a target's peak is the same at
    /// every range: the azimuth processing gain, which grows with the aperture, divided out),
    /// raw (as processed: in proportion to range) or spreading (normalised, and the echoes'
    /// two-way spreading loss undone, × (R / mid-swath range)²: for field data).
    #[arg(long, default_value = "normalised", value_name = "MODE")]
    radiometry: Radiometry,
    /// Also write the multi-looked detected product: the power |z|² averaged over blocks of
    /// A lines × R samples, as looks.npy (float32, [lines / A, samples / R] rounded up) and
    /// looks.png (dB, axes and colour bar as image.png's). "4,1" for four azimuth looks.
    #[arg(long, value_name = "A,R", value_parser = parse_looks)]
    looks: Option<(usize, usize)>,
    /// Print the SAR plan for the scene and options (each step with its sizes, what it
    /// needs whole, its filter's length) and exit without focusing or writing anything.
    #[arg(long)]
    plan: bool,
    /// Focus the scene in blocks of at least N image lines (widened to an efficient FFT
    /// length), each from its own lines of echoes and the aperture's around them, and write
    /// one image: for recordings longer than the device holds. Chosen by itself when a CUDA
    /// device lacks the memory for the whole scene, or a device cannot bind it with margins.
    #[arg(long, value_name = "N", value_parser = parse_count, conflicts_with = "gpus")]
    block_lines: Option<usize>,
    /// Spread the scene over this many GPUs (CUDA GPUs 0..N, exchanging through NCCL; with
    /// --device cpu, N CPU ranks): lines for the range steps, range bins for the azimuth
    /// steps and RCMC, an all-to-all wherever the next step needs the other.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..),
          conflicts_with = "unfused")]
    gpus: Option<u32>,
}

/// Files `tierfft sar` writes into `--out` that a later run removes when it does not write
/// them (fewer targets). Not `raw.npy`: a later run leaves it alone, since it may be the very
/// file that run focuses with `--raw`.
fn owned(name: &str) -> bool {
    const FILES: [&str; 9] = [
        "overview.png",
        "image.png",
        "raw.png",
        "metrics.json",
        "focused.npy",
        "looks.npy",
        "looks.png",
        "range_compressed.npy",
        "range_compressed.png",
    ];
    let target_figure = name
        .strip_prefix("target-")
        .and_then(|r| r.strip_suffix("-crop.png").or(r.strip_suffix("-cuts.png")))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    FILES.contains(&name) || target_figure
}

/// `tierfft sar`'s help with what depends on the radar computed, not written down: the
/// fewest lines the default radar's synthetic aperture allows.
pub fn computed_help(command: clap::Command) -> clap::Command {
    let config = Config::default();
    let fewest = config.aperture_lines().ceil();
    let help = format!(
        "Azimuth lines (overrides the config): any number from 16 that holds a target's \
         synthetic aperture at mid-swath (2·R·tan(θ/2) / (v/PRF)): at least {fewest} lines for \
         the default radar at {:.0} m; a config's radar names its own minimum when refused. \
         E.g. 4096, 3000 or 2^12",
        config.mid_swath_m()
    );
    command.mut_subcommand("sar", |sar| sar.mut_arg("lines", |arg| arg.help(help)))
}

/// `--looks A,R`: two counts of at least 1.
fn parse_looks(s: &str) -> Result<(usize, usize), String> {
    let (a, r) = s
        .split_once(',')
        .ok_or_else(|| format!("'{s}' is not A,R (azimuth looks, range looks), e.g. 4,1"))?;
    let (a, r) = (parse_count(a)?, parse_count(r)?);
    match a >= 1 && r >= 1 {
        true => Ok((a, r)),
        false => Err(format!("'{s}': looks are at least 1 in each direction")),
    }
}

/// A step that runs when the scene needs it, always or never.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum When {
    Auto,
    On,
    Off,
}

impl When {
    /// `None` for auto.
    fn forced(self) -> Option<bool> {
        match self {
            When::Auto => None,
            When::On => Some(true),
            When::Off => Some(false),
        }
    }
}

/// `--lines` and `--samples`: a count ([`parse_count`]) of at least 16.
fn parse_scene_size(s: &str) -> Result<usize, String> {
    let v = parse_count(s)?;
    if v >= 16 {
        Ok(v)
    } else {
        Err(format!("{v} is fewer than 16"))
    }
}

/// Where the echoes come from.
enum Source {
    /// Simulated from the configuration.
    Simulated,
    /// A `.npy` file (`--raw`), its header checked.
    Npy(npy::Input),
    /// A raw product (`--l0b`) and what it said.
    Product(Box<L0b>, ProductReport),
}

/// The configuration with the command line applied, validated, and the user's echoes opened
/// (header checked, data not yet read).
fn prepare(args: &SarArgs) -> CliResult<(Config, Source)> {
    if let Some(path) = &args.l0b {
        return open_product(path, args);
    }
    // The user's echoes: only the targets the file lists are theirs.
    let targets = match args.raw {
        Some(_) => DefaultTargets::Drop,
        None => DefaultTargets::Keep,
    };
    let text = match &args.config {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .map_err(|e| format!("--config: cannot read '{}': {e}", path.display()))?,
        ),
        None => None,
    };
    let from_config = |e: tierfft_sar::SarError| match &args.config {
        Some(path) => format!("'{}': {e}", path.display()),
        None => e.to_string(),
    };
    let mut config = match &text {
        Some(text) => Config::parse_toml(text, targets).map_err(from_config)?,
        None => Config::default(),
    };
    config.scene.lines = args.lines.unwrap_or(config.scene.lines);
    config.scene.samples = args.samples.unwrap_or(config.scene.samples);
    // The config's replica is relative to the config file.
    let replica = match (&args.replica, &config.radar.replica_file, &args.config) {
        (Some(path), ..) => Some(("--replica", path.clone())),
        (None, Some(file), Some(config)) => Some((
            "radar.replica",
            config.parent().unwrap_or(Path::new("")).join(file),
        )),
        _ => None,
    };
    if let Some((option, path)) = replica {
        let replica = read_replica(&path).map_err(|e| format!("{option}: {e}"))?;
        config.radar.set_replica(replica);
    }
    let Some(path) = &args.raw else {
        config.validate().map_err(from_config)?;
        return Ok((config, Source::Simulated));
    };
    if config.radar.near_range_m.is_none() {
        return Err(
            "--raw needs radar.near_range_m in the config (--config FILE): the slant \
                    range of the first range sample, m (--write-raw writes a scene.toml with it)"
                .into(),
        );
    }
    let input = npy::open(path, Expect::Scene).map_err(|e| format!("--raw: {e}"))?;
    let (lines, samples) = (input.header.batch, input.header.n);
    config
        .size_from_echoes(text.as_deref(), lines, samples)
        .map_err(from_config)?;
    let Err(invalid) = config.validate() else {
        return Ok((config, Source::Npy(input)));
    };
    // A scene that would be valid the other way round: say so when the echoes look
    // transposed, the likelier cause than the radar.
    let mut swapped = config.clone();
    (swapped.scene.lines, swapped.scene.samples) = (samples, lines);
    if swapped.validate().is_ok() {
        let data = input.read()?;
        tierfft_sar::scene::echoes::check_layout(&config, &data, args.trust_layout)?;
    }
    Err(format!(
        "{} (values from {}the echoes '{}' of shape [{lines}, {samples}])",
        invalid,
        args.config
            .as_ref()
            .map_or(String::new(), |p| format!("'{}' and ", p.display())),
        path.display()
    )
    .into())
}

/// `--l0b`: the product opened, its description turned into the configuration (said on the
/// terminal with the geometry it came from).
fn open_product(path: &Path, args: &SarArgs) -> CliResult<(Config, Source)> {
    let channel = match &args.channel {
        Some(c) => Some(Channel::parse(c).map_err(|e| format!("--channel: {e}"))?),
        None => None,
    };
    let product = L0b::open(path, channel.as_ref())?;
    let d = product.description();
    let (config, geometry) = tierfft_sar::scene::product::config(d, args.antenna_m)
        .map_err(|e| format!("'{}': {e}", path.display()))?;
    eprintln!(
        "{}: {} {}, {} pulses × {} samples from {:.0} m, PRF {:.3} Hz; {geometry}",
        path.display(),
        d.mission,
        d.channel,
        d.pulses(),
        d.samples(),
        d.near_range_m(),
        d.prf_hz
    );
    let report = ProductReport::new(path.display().to_string(), d, geometry);
    Ok((config, Source::Product(Box::new(product), report)))
}

/// A measured pulse from a 1-D `.npy` of complex (or real) samples.
fn read_replica(path: &Path) -> CliResult<Replica> {
    let input = npy::open(path, Expect::Rows)?;
    let shape = input.header.shape.clone();
    if shape.len() != 1 {
        return Err(format!(
            "'{}' has shape {shape:?}: a pulse is a 1-D array of samples",
            path.display()
        )
        .into());
    }
    Replica::new(input.read()?).map_err(|e| format!("'{}': {e}", path.display()).into())
}

/// The Doppler centroid to focus with ([`tierfft_sar::scene::centroid::resolve`]), said on the
/// terminal when it was not given.
fn resolve_centroid(config: &mut Config, data: &[Complex32]) -> CliResult<Used> {
    let used = tierfft_sar::scene::centroid::resolve(config, data)?;
    match (&used.estimate, &used.warning) {
        (Some(e), _) => eprintln!(
            "Doppler centroid: {:.2} Hz at mid-swath, estimated ({:.2} Hz within the PRF, \
             multi-look {:.0} Hz: ambiguity {}); radar.doppler_centroid_hz sets a known value instead",
            used.mid_swath_hz, e.fractional_hz, e.multilook_hz, e.ambiguity
        ),
        (None, Some(why)) => eprintln!("warning: Doppler centroid: {why}"),
        (None, None) => {}
    }
    Ok(used)
}

/// The azimuth pattern to focus with ([`tierfft_sar::scene::pattern::resolve`]), said on the
/// terminal when recognised in the echoes.
fn resolve_pattern(config: &mut Config, data: &[Complex32]) -> tierfft_sar::scene::pattern::Used {
    let used = tierfft_sar::scene::pattern::resolve(config, data);
    match used.residuals {
        Some([uniform, sinc2]) => eprintln!(
            "azimuth pattern: {}, recognised in the echoes (residuals: uniform {uniform:.3}, \
             sinc2 {sinc2:.3}); radar.azimuth_pattern sets a known one instead",
            used.pattern.name()
        ),
        None if used.source == "assumed" => eprintln!(
            "azimuth pattern: uniform, assumed (the Doppler band spans too few azimuth bins \
             to recognise it); give radar.azimuth_pattern if the beam is tapered"
        ),
        None => {}
    }
    used
}

/// scene.toml (and replica.npy when a measured pulse was transmitted): the config that focuses
/// the simulated raw.npy again with `--raw`, every value the simulation used written out.
/// `tierfft sar --plan`: the plan of `config`'s scene with `opts`, printed. The Doppler
/// centroid and the azimuth pattern are what focusing would take without the echoes: the
/// simulation's, or (`--raw`) the config's, else broadside and uniform (focusing estimates
/// them from the echoes; the steps and their sizes are the same).
fn print_plan(mut config: Config, simulated: bool, opts: &FocusOptions) -> CliResult<()> {
    let estimated = !simulated
        && (config.radar.doppler_centroid_hz.is_none() || config.radar.azimuth_pattern.is_none());
    if simulated {
        tierfft_sar::scene::centroid::simulated(&mut config);
    }
    config
        .radar
        .azimuth_pattern
        .get_or_insert(AzimuthPattern::Uniform);
    let extent = Extent::of(&config, opts.margins);
    let plan = tierfft_sar::focus::builders::plan(&config, opts, extent)?;
    print!("{plan}");
    if estimated {
        println!(
            "(focusing estimates the Doppler centroid and recognises the azimuth pattern from \
             the echoes where the config leaves them out; the steps are these)"
        );
    }
    Ok(())
}

fn write_scene(out: &Staged, config: &Config) -> CliResult<()> {
    let mut scene = config.as_simulated();
    let radar = &mut scene.radar;
    if let Some(replica) = &radar.replica {
        let samples = replica.samples();
        npy::write_atomic(&out.path("replica.npy"), &[samples.len() as u64], samples)?;
        radar.replica_file = Some("replica.npy".into());
    }
    let text = format!(
        "# The scene raw.npy was simulated from. Focus it again, from this folder, with\n\
         #   tierfft sar --raw raw.npy --config scene.toml\n\
         # Keys: docs/SAR.md, \"Configuration\".\n\n{}",
        scene.to_toml()?
    );
    std::fs::write(out.path("scene.toml"), text)
        .map_err(|e| format!("cannot write scene.toml: {e}").into())
}

/// The multi-looked detected product of the focused `data` as looks.npy and looks.png.
fn write_looks(
    out: &Staged,
    data: &[Complex32],
    (lines, samples): (usize, usize),
    looks: (usize, usize),
    config: &Config,
) -> CliResult<()> {
    let power = multilook(data, lines, samples, looks)?;
    let (height, width) = (lines.div_ceil(looks.0), samples.div_ceil(looks.1));
    let shape = [height as u64, width as u64];
    npy::write_values(&out.path("looks.npy"), &shape, npy::Values::Real(&power))?;
    figures::looks(
        &out.path("looks.png"),
        &power,
        (height, width),
        looks,
        config,
    )
}

/// `tierfft sar`.
pub fn run(args: &SarArgs) -> CliResult<()> {
    let started = Instant::now();
    let (mut config, raw) = prepare(args)?;
    let mut focus_opts = FocusOptions {
        range_window: args.window,
        azimuth_window: args.azimuth_window,
        rcmc: !args.no_rcmc,
        azimuth_equalisation: !args.no_azimuth_equalisation,
        fused: !args.unfused,
        margins: !args.circular,
        src: args.src.forced(),
        algorithm: args.algorithm,
        radiometry: args.radiometry,
    };
    focus_opts.validate()?;
    let simulated = matches!(raw, Source::Simulated);
    if args.plan {
        return print_plan(config, simulated, &focus_opts);
    }
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    let ahead = plan_ahead(&config, simulated, args, focus_opts);
    let on = open_devices(args)?;
    // Sizes before any work (an estimated centroid may widen a squinted scene's margins:
    // checked again once it is known).
    check_scene(&config, &on, focus_opts, args.block_lines)?;
    let out = Staged::begin(&args.out)?;
    // The command line read, the device opened, the scene's memory checked.
    let setup_s = started.elapsed().as_secs_f64();

    let t = Instant::now();
    let mut product = None;
    let mut data = match raw {
        Source::Npy(input) => input.read()?,
        Source::Product(p, report) => {
            product = Some(report);
            p.read_all()?
        }
        Source::Simulated => {
            let bar = ProgressBar::new(lines as u64).with_style(
                ProgressStyle::with_template("simulating echoes {bar:40} {pos}/{len} lines")
                    .map_err(|e| e.to_string())?,
            );
            let data = simulate_with_progress(&config, &|done| bar.inc(done as u64));
            bar.finish_and_clear();
            data
        }
    };
    // The user's echoes are checked before any work on them (timed with the reading).
    let zeroed = match simulated {
        true => None,
        false => {
            let policy = match args.zero_nonfinite {
                true => NonFinite::Zero,
                false => NonFinite::Refuse,
            };
            let zeroed = check_finite(&mut data, samples, policy)?;
            if let Some(z) = zeroed {
                eprintln!(
                    "warning: set {} NaN or infinite echo samples to zero (--zero-nonfinite; \
                     the first at line {}, sample {})",
                    z.count, z.first[0], z.first[1]
                );
            }
            check_layout(&config, &data, args.trust_layout)?;
            zeroed
        }
    };
    let simulate_s = t.elapsed().as_secs_f64();
    // A product's echoes, compressed in range alone: what a focused image is compared with,
    // and what an independent matched filter can check.
    let compressed = match product {
        Some(_) => Some(compress_range_linear(
            &on.devices[0],
            &config,
            &data,
            args.window,
        )?),
        None => None,
    };
    // The echoes' files are written beside the centroid's estimate and the planning, which
    // only read the echoes; their axes take the config as it stands now.
    let shown = config.clone();
    let echo_files = outputs::EchoFiles {
        data: &data,
        write_raw: args.write_raw,
        compressed: compressed.as_deref(),
    };
    let (centroid, pattern, centroid_s, plan_s, focuser, fallback, mut write_s) =
        std::thread::scope(|s| -> CliResult<_> {
            let writer = s.spawn(|| outputs::write_echoes(&out, &shown, &echo_files));
            let t = Instant::now();
            let centroid = match simulated {
                // Simulated echoes: the centroid they were simulated with.
                true => tierfft_sar::scene::centroid::simulated(&mut config),
                false => resolve_centroid(&mut config, &data)?,
            };
            let pattern = match (simulated, config.radar.azimuth_pattern) {
                // Simulated echoes without the key: lit uniformly, as the simulator does.
                (true, None) => {
                    config.radar.azimuth_pattern = Some(AzimuthPattern::Uniform);
                    tierfft_sar::scene::pattern::Used {
                        pattern: AzimuthPattern::Uniform,
                        source: "simulation",
                        residuals: None,
                    }
                }
                _ => resolve_pattern(&mut config, &data),
            };
            let centroid_s = t.elapsed().as_secs_f64();
            let blocks = check_scene(&config, &on, focus_opts, args.block_lines)?;
            let planning = Instant::now();
            let planned = match ahead.map(|thread| thread.join()) {
                None => None,
                Some(Ok(planned)) => Some(planned?),
                Some(Err(_)) => return Err("planning the filters panicked".into()),
            };
            let (focuser, fallback) = plan(&config, &on, &mut focus_opts, blocks, planned)?;
            let plan_s = planning.elapsed().as_secs_f64();
            let waiting = Instant::now();
            writer
                .join()
                .map_err(|_| "writing the echoes' files panicked")??;
            let write_s = waiting.elapsed().as_secs_f64();
            Ok((
                centroid, pattern, centroid_s, plan_s, focuser, fallback, write_s,
            ))
        })?;
    let extent = Extent::of(&config, focus_opts.margins);
    let src = match &focuser {
        Focusing::One(f) => f.src(),
        Focusing::Strip(f) => f.src(),
        Focusing::Spread(f) => f.plan().src(),
    };
    let processed = match (&focuser, extent.is_recorded_size()) {
        (Focusing::Strip(f), _) => format!(
            " (in {} blocks of {} lines, each focused from {} lines of echoes)",
            f.blocks(),
            f.block_lines(),
            f.chunk_lines()
        ),
        (_, true) => String::new(),
        (_, false) => format!(
            " (processed at {} × {} with margins)",
            extent.padded_lines, extent.padded_samples
        ),
    };
    let device_name = &on.name;
    eprintln!(
        "tierfft sar: {lines} × {samples}{processed} on {device_name}{}",
        match (args.algorithm, src) {
            (Algorithm::Csa, _) => ", chirp scaling",
            (Algorithm::Rda, true) => ", Range-Doppler with SRC",
            (Algorithm::Rda, false) => ", Range-Doppler",
        }
    );
    let spinner = ProgressBar::new_spinner();
    spinner.enable_steady_tick(std::time::Duration::from_millis(100));
    let (steps, exchange_s) = match &focuser {
        Focusing::One(f) => {
            let steps = f.focus(&mut data, |step| {
                spinner.set_message(format!("focusing: {step}"))
            })?;
            (steps, None)
        }
        Focusing::Strip(f) => {
            spinner.finish_and_clear();
            let bar = ProgressBar::new(f.blocks() as u64).with_style(
                ProgressStyle::with_template("focusing {bar:40} {pos}/{len} blocks")
                    .map_err(|e| e.to_string())?,
            );
            let steps = f.focus(&mut data, |done, _| bar.set_position(done as u64))?;
            bar.finish_and_clear();
            (steps, None)
        }
        Focusing::Spread(f) => {
            spinner.set_message("focusing");
            let t = f.focus(&mut data)?;
            (t.steps, Some(t.exchange_s))
        }
    };
    spinner.finish_and_clear();
    // Its peak is every figure's 0 dB. The image's files are written beside measuring it
    // and drawing the targets' figures.
    let image = plot::Focused::new(&data, lines, samples)?;
    let windows = (args.azimuth_window, args.window);
    let theory = Theories::new(&config, args.azimuth_window, args.window);
    let noise = extent.noise_region(&config, theory.irw_bins);
    let (targets, speckle, measure_s) = std::thread::scope(|s| -> CliResult<_> {
        let writer = s.spawn(|| outputs::write_image(&out, &config, &image, args.looks));
        let measuring = Instant::now();
        let targets = measure_targets(&data, &config, windows, &theory, noise.region.as_ref());
        // Without targets, the speckle says how well the scene focused.
        let speckle = match config.scene.targets.is_empty() {
            true => match tierfft_sar::quality::speckle::measure(
                &data,
                compressed.as_deref(),
                &config,
                windows,
            ) {
                Ok(s) => Some(s),
                Err(e) => {
                    eprintln!("note: the speckle was not measured: {e}");
                    None
                }
            },
            false => None,
        };
        let measure_s = measuring.elapsed().as_secs_f64();
        let drawing = Instant::now();
        figures::draw(out.dir(), &image, &config, windows, &targets, &theory)?;
        writer
            .join()
            .map_err(|_| "writing the image's files panicked")??;
        write_s += drawing.elapsed().as_secs_f64();
        Ok((targets, speckle, measure_s))
    })?;
    measure::print_tables(&targets, &theory);
    if let Some(s) = &speckle {
        println!("{s}");
    }
    let focus_s = steps.total_s() + exchange_s.unwrap_or(0.0);
    println!(
        "timings (wall clock): plan {plan_s:.3} s ({}); {} {simulate_s:.3} s; Doppler centroid and azimuth pattern {centroid_s:.3} s; focus {:.1} ms = host-device copies {:.1} + range compression {:.1}{} + azimuth FFT {:.1}{} + RCMC {:.1} + azimuth compression {:.1} ({})",
        match &focuser {
            Focusing::One(f) => format!(
                "filters {:.3} s{}, device arrays and kernels {:.3} s",
                f.planning().filters,
                match f.planning().ahead {
                    true => " beside the set-up and reading",
                    false => "",
                },
                f.planning().device
            ),
            _ => "device arrays included".to_string(),
        },
        if simulated { "simulate" } else { "read echoes" },
        focus_s * 1e3,
        steps.transfer_s * 1e3,
        steps.range_compression_s * 1e3,
        exchange_s.map_or(String::new(), |s| format!(" + all-to-all {:.1}", s * 1e3)),
        steps.azimuth_fft_s * 1e3,
        match (args.algorithm, src) {
            (Algorithm::Csa, _) => format!(" + 2-D range compression {:.1}", steps.src_s * 1e3),
            (Algorithm::Rda, true) => format!(" + SRC {:.1}", steps.src_s * 1e3),
            (Algorithm::Rda, false) => String::new(),
        },
        steps.rcmc_s * 1e3,
        steps.azimuth_compression_s * 1e3,
        if args.unfused { "unfused" } else { "fused" }
    );
    let mut report = Report::new(
        device_name.clone(),
        (lines, samples),
        &focus_opts,
        &extent,
        &theory,
        centroid,
        pattern,
        &targets,
    );
    report.ranks = on.devices.len();
    report.src = src;
    report.fallback = fallback;
    report.blocks = match &focuser {
        Focusing::Strip(f) => Some(Blocks::from(f)),
        _ => None,
    };
    report.nonfinite_zeroed = zeroed;
    report.product = product;
    report.speckle = speckle;
    report.noise_region = noise.region.clone();
    report.warnings.extend(noise.warning.clone());
    let total_s = started.elapsed().as_secs_f64();
    report.timings_s = Timings {
        plan: plan_s,
        simulate: simulated.then_some(simulate_s),
        centroid: centroid_s,
        focus: focus_s,
        steps,
        exchange: exchange_s,
        read: (!simulated).then_some(simulate_s),
        measure: measure_s,
        write: Some(write_s),
        total: total_s,
    };
    println!(
        "phases (wall clock): set-up {setup_s:.3} s, {} {simulate_s:.3} s, Doppler centroid and azimuth pattern \
         {centroid_s:.3} s, plan {plan_s:.3} s, focus {focus_s:.3} s, measure {measure_s:.3} \
         s, write {write_s:.3} s (beyond what ran beside other work); total {total_s:.3} s",
        if simulated { "simulate" } else { "read echoes" },
    );
    let json = serde_json::to_string_pretty(&report)?;
    std::fs::write(out.path("metrics.json"), json)
        .map_err(|e| format!("cannot write metrics.json: {e}"))?;
    out.commit(owned)?;
    if let Some(warning) = &noise.warning {
        eprintln!("warning: {warning}");
    }
    for (i, t) in targets.iter().enumerate() {
        if let Some(e) = &t.error {
            eprintln!("warning: target {} was not measured: {e}", i + 1);
        }
    }
    eprintln!("wrote {}", args.out.display());
    Ok(())
}
