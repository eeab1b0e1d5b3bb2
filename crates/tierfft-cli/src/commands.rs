//! `tierfft devices`, `tierfft plan` and `tierfft fft`.

use std::path::Path;
use std::time::Instant;

use tierfft::backend::DEVICE_ENV;
use tierfft::backend::wgpu::list_adapters;
use tierfft::plan::{DeviceLimits, Plan};
use tierfft::{Device, FftSpec, PointOp};

use crate::{CliResult, npy};

/// `--device NAME`: `auto` honours `TIERFFT_DEVICE`; anything else goes to [`Device::by_name`].
pub fn open_device(name: &str) -> tierfft::Result<Device> {
    if name.eq_ignore_ascii_case("auto") {
        Device::auto()
    } else {
        Device::by_name(name)
    }
}

/// `tierfft devices`: one row per wgpu adapter, a row for the CPU, and the `auto` choice.
pub fn devices() -> CliResult<()> {
    let header = [
        "name",
        "backend",
        "kind",
        "driver",
        "wg KiB",
        "threads",
        "subgroup",
        "binding MiB",
        "buffer MiB",
        "timestamps",
    ];
    let mut rows: Vec<Vec<String>> = list_adapters()
        .into_iter()
        .map(|a| {
            let l = &a.limits;
            vec![
                a.name,
                a.backend,
                a.kind,
                a.driver,
                (l.workgroup_memory >> 10).to_string(),
                l.max_threads.to_string(),
                l.subgroup_size.to_string(),
                (l.max_binding >> 20).to_string(),
                (l.max_buffer >> 20).to_string(),
                if a.timestamps { "yes" } else { "no" }.to_string(),
            ]
        })
        .collect();
    let adapters = rows.len();
    let mut cpu = vec!["-".to_string(); header.len()];
    cpu[0] = Device::Cpu.name();
    cpu[2] = "Cpu".into();
    cpu[3] = "rustfft".into();
    cpu[9] = "no".into();
    rows.push(cpu);
    print_table(&header, &rows);
    if adapters == 0 {
        println!("\n(wgpu found no adapters: no Vulkan, Metal or DX12 driver is installed)");
    }
    match open_device("auto") {
        Ok(d) => println!("\nauto picks: {}", d.name()),
        Err(e) => println!("\nauto picks nothing: {e}"),
    }
    if let Ok(v) = std::env::var(DEVICE_ENV) {
        println!("({DEVICE_ENV}={v} is set)");
    }
    Ok(())
}

/// Prints `rows` under `header`, columns padded to their widest cell (numbers right-aligned).
fn print_table(header: &[&str], rows: &[Vec<String>]) {
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([header[c].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (s, &w))| {
                if c < 4 {
                    format!("{s:<w$}")
                } else {
                    format!("{s:>w$}")
                }
            })
            .collect();
        println!("{}", padded.join("  ").trim_end());
    };
    line(header.to_vec());
    for r in rows {
        line(r.iter().map(String::as_str).collect());
    }
}

/// The spec for `n`, `batch`, and the direction flags.
fn spec(n: usize, batch: usize, inverse: bool, normalize: bool) -> FftSpec {
    let mut spec = FftSpec::new(n).batch(batch);
    if inverse {
        spec = spec.inverse();
    }
    if normalize {
        spec = spec.normalized();
    }
    spec
}

/// A kernel-source dialect for `tierfft plan --source`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Dialect {
    /// CUDA C, as NVRTC compiles it.
    Cuda,
    /// WGSL, as wgpu compiles it.
    Wgsl,
}

/// What `tierfft plan` was asked to show.
pub struct PlanJob<'a> {
    /// Points per transform.
    pub n: usize,
    /// Number of transforms.
    pub batch: usize,
    /// A device profile or device name.
    pub device: &'a str,
    /// Inverse transform.
    pub inverse: bool,
    /// Scale by 1/n.
    pub normalize: bool,
    /// Column layout.
    pub columns: bool,
    /// Chain a filter multiply and the inverse transform.
    pub chain: bool,
    /// Print the kernels' source in this dialect.
    pub source: Option<Dialect>,
    /// Planner options.
    pub options: tierfft::plan::PlanOptions,
}

/// `tierfft plan`: prints the plan for a profile or a device's real limits, and optionally
/// the source of its kernels.
pub fn plan(job: &PlanJob) -> CliResult<()> {
    let mut spec = spec(job.n, job.batch, job.inverse, job.normalize);
    if job.columns {
        spec = spec.columns();
    }
    if job.chain {
        let filter = vec![tierfft::Complex32::new(1.0, 0.0); job.n];
        spec = spec.then_multiply_and_invert(filter.into());
    }
    spec.validate()?;
    let limits = match DeviceLimits::profile(job.device) {
        Some(profile) => profile,
        None => {
            let dev = open_device(job.device)?;
            match dev.limits() {
                Some(l) => l.clone(),
                None => {
                    println!(
                        "{} runs rustfft's own plans; showing the plan for the lavapipe profile",
                        dev.name()
                    );
                    DeviceLimits::profile("lavapipe")
                        .ok_or("the lavapipe profile is missing from the library")?
                }
            }
        }
    };
    if job.options.measure {
        return Err(
            "--measure times plans on a device; `tierfft plan` runs nothing (the \
                    candidates it would time are listed in its output; use --bluestein-m M \
                    to show one)"
                .into(),
        );
    }
    let plan = Plan::with_options(&spec, &limits, &job.options)?;
    println!("{plan}");
    if let Some(dialect) = job.source {
        for (pass, in_place) in plan.kernels() {
            let kernel = tierfft::kernel::pass_kernel(&plan, pass, in_place);
            let source = match dialect {
                Dialect::Cuda => tierfft::kernel::cuda::print(&kernel),
                Dialect::Wgsl => tierfft::kernel::wgsl::print(&kernel),
            };
            let place = if in_place { "in place" } else { "out of place" };
            println!("// ---- pass {} ({place}) ----\n{source}", pass + 1);
        }
    }
    Ok(())
}

/// How `tierfft fft` scales its result, with NumPy's names and meaning (`norm=` of
/// `np.fft.fft`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Norm {
    /// Forward unscaled, inverse scaled by 1/n (NumPy's default).
    Backward,
    /// Forward and inverse scaled by 1/√n.
    Ortho,
    /// Forward scaled by 1/n, inverse unscaled.
    Forward,
}

impl Norm {
    /// The spec of an `n`-point transform of `batch` rows in `direction` scaled this way.
    fn spec(self, n: usize, batch: usize, inverse: bool) -> FftSpec {
        match self {
            Norm::Backward => spec(n, batch, inverse, inverse),
            Norm::Forward => spec(n, batch, inverse, !inverse),
            Norm::Ortho => spec(n, batch, inverse, false)
                .on_store(PointOp::Scale((1.0 / (n as f64).sqrt()) as f32)),
        }
    }

    /// What the summary line says about the scaling.
    fn describe(self, inverse: bool) -> &'static str {
        match (self, inverse) {
            (Norm::Backward, false) | (Norm::Forward, true) => "unscaled",
            (Norm::Backward, true) | (Norm::Forward, false) => "scaled by 1/n",
            (Norm::Ortho, _) => "scaled by 1/√n",
        }
    }
}

/// What `tierfft fft` was asked to do.
pub struct FftJob<'a> {
    /// The input `.npy` file.
    pub input: &'a Path,
    /// The output `.npy` file.
    pub output: &'a Path,
    /// Inverse transform.
    pub inverse: bool,
    /// The scaling.
    pub norm: Norm,
    /// Device name for [`open_device`].
    pub device: &'a str,
}

/// `tierfft fft`: reads, checks, transforms every row, and only then writes the output.
pub fn fft(job: &FftJob) -> CliResult<()> {
    let input = npy::open(job.input, npy::Expect::Rows)?;
    npy::check_output(job.output)?;
    let (n, batch) = (input.header.n, input.header.batch);
    let spec = job.norm.spec(n, batch, job.inverse);
    spec.validate()
        .map_err(|e| format!("'{}': {e}", job.input.display()))?;
    let shape = input.header.shape.clone();
    let input_element = input.header.element;
    let mut data = input.read()?;
    let device = open_device(job.device)?;
    let start = Instant::now();
    let fft = device.plan(&spec)?;
    let planned = start.elapsed();
    fft.process(&mut data)?;
    let total = start.elapsed();
    npy::write_atomic(job.output, &shape, &data)?;
    let direction = if job.inverse { "inverse" } else { "forward" };
    let converted = match input_element.is_complex64() {
        true => String::new(),
        false => format!(", {} input read as complex64", input_element.name()),
    };
    eprintln!(
        "tierfft: {direction} FFT ({}{converted}), n = {n}, batch = {batch} on {}: {} ({} planning, {} transform incl. transfers) -> {}",
        job.norm.describe(job.inverse),
        device.name(),
        crate::report::format_seconds(total.as_secs_f64()),
        crate::report::format_seconds(planned.as_secs_f64()),
        crate::report::format_seconds((total - planned).as_secs_f64()),
        job.output.display()
    );
    Ok(())
}
