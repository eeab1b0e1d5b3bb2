//! `tierfft`: list devices, show plans, transform `.npy` files, and benchmark.
//!
//! This file holds the argument definitions and the dispatch; the work is in [`commands`]
//! (`devices`, `plan`, `fft`), [`npy`], and for `tierfft bench` in the tierfft-bench crate
//! ([`tierfft_bench::command`]), which also holds the argument parsers, planner flags and
//! device opening the other commands share with it ([`tierfft_bench::shared`]).

mod commands;
mod fft;
mod fft2d;
mod outdir;
mod plot;
mod sar;
mod tune;

use std::process::ExitCode;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use tierfft_bench::shared::{PlannerArgs, parse_count, parse_shape};
use tierfft_cli::{CliResult, memory, npy};

/// Planned FFTs of any length on GPUs (CUDA; wgpu: Vulkan, Metal, DX12) and the CPU, and SAR
/// focusing on them.
#[derive(Debug, Parser)]
#[command(name = "tierfft", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// List the GPU adapters wgpu finds (and the CPU), with the limits the planner uses.
    ///
    /// Also says which device `--device auto` picks: the device named by TIERFFT_DEVICE if
    /// set, otherwise the best hardware GPU, otherwise the CPU (software adapters such as
    /// lavapipe are used only when asked for by name).
    Devices,
    /// Show the plan for a transform: passes over device memory, radices, threads.
    ///
    /// Nothing is compiled or run. `--device` takes a profile (planning for a device that is
    /// not attached) or a device name (planning for its real limits).
    Plan(PlanArgs),
    /// Transform a `.npy` array as NumPy does: `np.fft.fftn(x, axes=...)` (default: the last
    /// axis, as `np.fft.fft`), `rfftn` with `--real`, `irfftn` with `--real --inverse [--n N]`.
    ///
    /// The input may be float16, float32, float64, complex64, complex128, an integer type or
    /// bool, C or Fortran order, any number of axes, each transformed extent from 1 to 2^27
    /// where the device binds it (2^24 on most wgpu adapters). It is computed in its own
    /// precision (--precision to choose): float64 and complex128 in f64, on the CPU and on
    /// GPUs with f64 arithmetic (CUDA, Vulkan with shaderFloat64, lavapipe; a device without
    /// says so and computes in f32), the rest in f32 (integers beyond 2^24 rounded). An axis
    /// listed twice is transformed twice, as NumPy does, but for the one a real transform
    /// halves. The output is complex64, or complex128 in f64 (float32 or float64 after C2R),
    /// in C order: the input's shape, with the last transformed axis holding N
    /// (`--n`, or the input's extent) points, N/2 + 1 bins after R2C and N reals after C2R,
    /// scaled as NumPy's `norm` (over the product of the transformed extents). Nothing is
    /// written if anything fails.
    Fft(FftArgs),
    /// Time transforms of every power-of-two size in a range and check them against an f64
    /// reference.
    ///
    /// Each size N runs a batch of max(1, points / N) transforms on fresh random input, timed
    /// up to `--reps` times (within `--max-time` per size) with the data resident on the
    /// device: GPU timestamps where the device has them, the wall clock otherwise. The table
    /// shows the median call, per-transform time, GFLOPS (5·N·log2 N·batch / t), effective
    /// bandwidth (16·N·batch bytes / t: one read and one write) and the relative L2 error
    /// against rustfft in f64.
    Bench(tierfft_bench::command::BenchArgs),
    /// Simulate a SAR scene (or read your echoes), focus it (Range-Doppler), measure every
    /// point target (IRW, PSLR, ISLR, SNR, position from cuts upsampled ×16) and write the
    /// figures (overview, per-target crops and cuts, image.png, raw.png), metrics.json and
    /// focused.npy. Everything is checked before any work.
    Sar(sar::SarArgs),
    /// An image's 2-D spectrum: a PNG read as luminance, transformed with a 2-D R2C FFT on
    /// the device, written as spectrum.png (log-magnitude, zero frequency centred, colour
    /// bar); with --lowpass R or --highpass R, the image filtered in the frequency domain and
    /// transformed back (C2R) as lowpass.png or highpass.png.
    Fft2d(fft2d::Fft2dArgs),
    /// Time the candidate shapes of each length on a device and keep the fastest as wisdom
    /// (FFTW's word), which later plans of those lengths on that device, driver and library
    /// version take instead of the planner's model.
    ///
    /// Each length runs a batch filling --mib (or --batch transforms); its candidates are the
    /// planner's own plan and each planner option varied alone (points per thread, radix,
    /// threads, workgroups per SM, lines, last pass, cluster size, exchange, exchange rounds,
    /// L2 chunks, merged launch), then the winning values together. Every candidate's result is checked against the
    /// planner's own plan's; the fastest wins only where it beats the planner's own plan by
    /// 2 % when both are timed again. Prints each length's times and choice; the file keeps
    /// each length's entry as soon as it is measured.
    Tune(tune::TuneArgs),
}

/// Arguments of `tierfft plan`.
#[derive(Debug, Args)]
struct PlanArgs {
    /// Points per transform: an integer or 2^k (e.g. 4096 or 2^22).
    #[arg(value_parser = parse_count, required_unless_present = "shape")]
    n: Option<usize>,
    /// An N-D or real transform instead: the array's shape, axes joined by x (e.g. 1080x1920
    /// or 256x256x256); prints its steps and each axis' plan.
    #[arg(long, value_name = "SHAPE", conflicts_with_all = ["n", "batch", "columns", "chain"])]
    shape: Option<String>,
    /// With --shape: the axes to transform (default: all), negative from the end.
    #[arg(
        long,
        requires = "shape",
        value_delimiter = ',',
        allow_hyphen_values = true,
        value_name = "A,B,.."
    )]
    axes: Option<Vec<i64>>,
    /// With --shape: a real transform (R2C; C2R with --inverse).
    #[arg(long, requires = "shape")]
    real: bool,
    /// With --shape: the transform spread over N ranks (GPUs), each rank's part of the
    /// global arrays and its steps: local transforms (planned on --device, a device of
    /// the ranks' kind) and all-to-alls.
    #[arg(long, requires = "shape", value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..), conflicts_with_all = ["axes", "source"])]
    gpus: Option<u32>,
    /// With --gpus: 3-D shapes as pencils over a P0xP1 grid of the ranks.
    #[arg(long, requires = "gpus", value_name = "P0xP1",
          value_parser = tierfft_bench::command::parse_grid)]
    grid: Option<[usize; 2]>,
    /// With --gpus: the spectrum cut along axis 0 like the input (a second all-to-all).
    #[arg(long, requires = "gpus", conflicts_with = "grid")]
    natural_spectrum: bool,
    /// With --gpus: cut each slab's change of layout into K parts (default: the planner's
    /// choice for the device's exchange).
    #[arg(long, requires = "gpus", value_name = "K", conflicts_with = "grid",
          value_parser = clap::value_parser!(u32).range(1..64))]
    parts: Option<u32>,
    /// Number of transforms (integer or 2^k).
    #[arg(short, long, default_value = "1", value_parser = parse_count)]
    batch: usize,
    /// A device profile (lavapipe, apple-m1, h100-vulkan, h100-cuda, raspberry-pi-5,
    /// small-16k) or a device name as for `tierfft devices` (auto, cpu, gpu, or part of an
    /// adapter's name).
    /// Profiles win: `lavapipe` is the profile; `llvmpipe` plans for the attached lavapipe.
    /// On the CPU, which runs rustfft's own plans, the lavapipe profile is shown.
    #[arg(short, long, default_value = "auto", value_name = "NAME")]
    device: String,
    /// Plan the inverse transform (exp(+2πi nk/N)).
    #[arg(long)]
    inverse: bool,
    /// Scale the result by 1/n.
    #[arg(long)]
    normalize: bool,
    /// Transform the columns of an [n, batch] matrix (point k of transform b at k·batch + b).
    #[arg(long)]
    columns: bool,
    /// Chain a multiply by a filter and the inverse transform onto the forward one (fast
    /// convolution, SAR range compression), as `tierfft bench --chain` times it.
    #[arg(long)]
    chain: bool,
    /// Plan a checksummed transform (tierfft::Checksum: the kernels also sum input and
    /// output against weights, and write a record per line or warp).
    #[arg(long, conflicts_with = "chain")]
    checksum: bool,
    /// Also print every kernel's generated source in this dialect.
    #[arg(long, value_name = "DIALECT")]
    source: Option<commands::Dialect>,
    /// Also print the launch schedule of the whole batch run in place (what the GPU backends
    /// launch): buffer slots, launches, grids, the rows each binds, checksum records.
    #[arg(long, conflicts_with = "shape")]
    launches: bool,
    /// Plan for values stored and computed in f32 (default) or f64, or stored in f16 or bf16
    /// and computed in f32: the on-chip capacity and bytes moved follow.
    #[arg(long, value_name = "P", default_value = "f32")]
    precision: tierfft::Precision,
    /// Planner variants.
    #[command(flatten)]
    planner: PlannerArgs,
}

/// Arguments of `tierfft fft`.
#[derive(Debug, Args)]
struct FftArgs {
    /// Input `.npy` file: float16, float32, float64, complex64, complex128, an integer type or
    /// bool, C or Fortran order, any shape.
    #[arg(short, long, value_name = "FILE", required_unless_present = "jobs")]
    input: Option<std::path::PathBuf>,
    /// Output `.npy` file, its name ending in .npy (complex64, or complex128 in f64; float32 or
    /// float64 after C2R); replaced only when the transform succeeds.
    #[arg(short, long, value_name = "FILE", required_unless_present = "jobs")]
    output: Option<std::path::PathBuf>,
    /// Run many transforms in one process: each line of FILE holds the options of one
    /// `tierfft fft` call (`-i x.npy -o y.npy --real ...`, split at whitespace; blank lines
    /// and lines starting with # are skipped). Each device is opened once. Prints
    /// `job K: ok` or `job K: error: ...` for each line (K from 1), and fails when any job
    /// failed.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["input", "output"])]
    jobs: Option<std::path::PathBuf>,
    /// Inverse transform (exp(+2πi nk/N)).
    #[arg(long)]
    inverse: bool,
    /// Real data on one side: float32/float64 input -> R2C (NumPy's rfftn); with --inverse,
    /// complex input -> C2R (irfftn) of length --n (NumPy's default: 2(m - 1) for m bins).
    #[arg(long)]
    real: bool,
    /// A discrete cosine transform of type T (1-4) along every transformed axis instead of an
    /// FFT, as SciPy's dctn (float32/float64 in and out; with --inverse, idctn; --norm as
    /// SciPy's, ortho orthogonalised).
    #[arg(long, value_name = "T", conflicts_with_all = ["real", "pairs", "dst"])]
    dct: Option<u32>,
    /// A discrete sine transform of type T (1-4), as SciPy's dstn (see --dct).
    #[arg(long, value_name = "T", conflicts_with_all = ["real", "pairs"])]
    dst: Option<u32>,
    /// The length of the last transformed axis, as NumPy's `n`: the input is cropped or
    /// zero-padded there to N points (to N/2 + 1 bins for --real --inverse, where N is the
    /// real output length and defaults to 2(m - 1) for m bins).
    #[arg(long, value_name = "N")]
    n: Option<usize>,
    /// NumPy's `s`: a length for each transformed axis (in --axes' order; without --axes, the
    /// last len(s) axes), as --n is for the last; the input cropped or zero-padded along each.
    #[arg(long, value_delimiter = ',', value_name = "N,M,..")]
    s: Option<Vec<usize>>,
    /// Axes to transform, comma-separated, negative counting from the end as in NumPy (e.g.
    /// `0,1` or `-2,-1`); the last listed is the one a real transform halves. Default: the
    /// last axis.
    #[arg(
        long,
        value_delimiter = ',',
        allow_hyphen_values = true,
        value_name = "A,B,.."
    )]
    axes: Option<Vec<i64>>,
    /// Scaling, as NumPy's `norm`: backward (forward unscaled, inverse ×1/n; what np.fft.fft
    /// and np.fft.ifft do by default), ortho (both ×1/√n), forward (forward ×1/n, inverse
    /// unscaled).
    #[arg(long, value_enum, default_value_t = fft::Norm::Backward)]
    norm: fft::Norm,
    /// Precision to transform in: f32, f64 (complex128 / float64 out; on the CPU and GPUs
    /// with f64 arithmetic) or, with --pairs, f16 (stored in 16 bits, computed in f32;
    /// float16 pairs out). Default: the input's: f64 for float64 and complex128 files (a
    /// device without f64 says so and transforms them in f32), f16 for float16 pairs where
    /// f16 storage covers the transform (1-D over the last axis, no prime factor above 31;
    /// f32 otherwise, with a note), f32 for the rest.
    #[arg(long, value_name = "P")]
    precision: Option<tierfft::Precision>,
    /// The input's last axis (of length 2) holds each value's real and imaginary parts, as
    /// NumPy holds complex half data (`np.stack([z.real, z.imag], -1).astype(np.float16)`);
    /// the output is written the same way, in the precision transformed in. --axes, --n
    /// and --s refer to the complex array (the pair axis left out).
    #[arg(long)]
    pairs: bool,
    /// Check every transform against a weighted checksum of its input (algorithm-based
    /// fault tolerance): detect (the default when no mode is given) fails with the batch
    /// elements hit (indices over the axes not transformed) and writes no output; recompute
    /// first runs an axis' failed transforms again where it still has their input. Complex
    /// transforms whose axes have no prime factor above 31.
    #[arg(long, value_enum, value_name = "MODE", num_args = 0..=1,
          default_missing_value = "detect")]
    checksum: Option<fft::ChecksumMode>,
    /// Device: auto, cpu, cuda, cuda:N, gpu, gpu:N, lavapipe, or part of an adapter's name (see `tierfft
    /// devices`).
    #[arg(short, long, default_value = "auto", value_name = "NAME")]
    device: String,
}

/// The transform `a` asks for (not a batch of `--jobs`).
fn fft_job(a: &FftArgs) -> CliResult<fft::FftJob<'_>> {
    let (Some(input), Some(output)) = (&a.input, &a.output) else {
        return Err("tierfft fft needs --input and --output (or --jobs FILE)".into());
    };
    let trig = match (a.dct, a.dst) {
        (Some(t), _) => Some(tierfft::Trig::dct(t)?),
        (_, Some(t)) => Some(tierfft::Trig::dst(t)?),
        _ => None,
    };
    Ok(fft::FftJob {
        input,
        output,
        inverse: a.inverse,
        real: a.real,
        trig,
        axes: a.axes.as_deref(),
        n: a.n,
        s: a.s.as_deref(),
        norm: a.norm,
        precision: a.precision,
        pairs: a.pairs,
        checksum: a.checksum.map_or(tierfft::Checksum::Off, Into::into),
    })
}

/// `tierfft fft --jobs FILE`: each line's transform, on devices opened once each.
fn run_fft_jobs(path: &std::path::Path) -> CliResult<()> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("--jobs '{}': {e}", path.display()))?;
    let mut devices: std::collections::HashMap<String, tierfft::Device> = Default::default();
    let mut failed = 0;
    let mut jobs = 0;
    for (k, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        jobs += 1;
        let result = (|| -> CliResult<()> {
            let parse_error = |e: clap::Error| e.to_string().trim_end().to_string();
            let matches = FftArgs::augment_args(clap::Command::new("tierfft fft"))
                .no_binary_name(true)
                .try_get_matches_from(line.split_whitespace())
                .map_err(parse_error)?;
            let args = FftArgs::from_arg_matches(&matches).map_err(parse_error)?;
            if args.jobs.is_some() {
                return Err("a job cannot name --jobs".into());
            }
            let job = fft_job(&args)?;
            let device = match devices.entry(args.device.clone()) {
                std::collections::hash_map::Entry::Occupied(d) => d.into_mut(),
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(commands::open_device(&args.device)?)
                }
            };
            fft::fft(&job, device)
        })();
        match result {
            Ok(()) => println!("job {k}: ok"),
            Err(e) => {
                failed += 1;
                println!("job {k}: error: {}", e.to_string().replace('\n', " "));
            }
        }
    }
    match failed {
        0 => Ok(()),
        _ => Err(format!("{failed} of {jobs} jobs in '{}' failed", path.display()).into()),
    }
}

/// Mesa's Vulkan device-selection layer (an implicit layer, on by default) probes for a
/// Wayland display while devices are listed, and on a machine without one prints
/// "error: XDG_RUNTIME_DIR is invalid or not set" for every probe, though nothing failed.
/// tierfft picks its devices itself, so the layer has nothing to do for it: switch it off
/// through its documented switch unless the user set it, or picks a device through it.
fn quiet_vulkan_device_select() {
    if std::env::var_os("NODEVICE_SELECT").is_none()
        && std::env::var_os("MESA_VK_DEVICE_SELECT").is_none()
    {
        // SAFETY: the first thing `main` does, before any other thread exists.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
}

fn main() -> ExitCode {
    quiet_vulkan_device_select();
    let command = sar::computed_help(Cli::command());
    let cli = match command
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with status 0; usage errors exit with clap's 2.
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    let result = match cli.command {
        Command::Devices => commands::devices(),
        Command::Plan(a) => match a.shape.as_deref().map(parse_shape).transpose() {
            Err(e) => Err(e.into()),
            Ok(shape) => commands::plan(&commands::PlanJob {
                n: a.n.unwrap_or(1),
                nd: shape.as_deref().map(|shape| commands::NdJob {
                    shape,
                    axes: a.axes.as_deref(),
                    real: a.real,
                    spread: a.gpus.map(|ranks| commands::Spread {
                        ranks: ranks as usize,
                        grid: a.grid,
                        natural: a.natural_spectrum,
                        parts: a.parts.map(|p| p as usize),
                    }),
                }),
                batch: a.batch,
                device: &a.device,
                inverse: a.inverse,
                normalize: a.normalize,
                columns: a.columns,
                chain: a.chain,
                checksum: a.checksum,
                source: a.source,
                launches: a.launches,
                precision: a.precision,
                options: a.planner.options(),
            }),
        },
        Command::Fft(a) => match &a.jobs {
            Some(jobs) => run_fft_jobs(jobs),
            None => fft_job(&a).and_then(|job| fft::fft(&job, &commands::open_device(&a.device)?)),
        },
        Command::Bench(a) => tierfft_bench::command::run(&a),
        Command::Sar(a) => sar::run(&a),
        Command::Fft2d(a) => fft2d::run(&a),
        Command::Tune(a) => tune::run(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn cli_is_well_formed() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
