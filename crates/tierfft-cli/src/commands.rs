//! `tierfft devices` and `tierfft plan`; opening devices by name is shared with `tierfft
//! bench` ([`tierfft_bench::shared`]).

use tierfft::backend::DEVICE_ENV;
use tierfft::backend::wgpu::list_adapters;
use tierfft::nd::{NdPlan, StepOp};
use tierfft::plan::schedule::Route;
use tierfft::plan::{DeviceLimits, Plan};
use tierfft::{Device, FftSpec, NdSpec};

use crate::CliResult;
use crate::fft::resolve_axes;

pub use tierfft_bench::shared::{open_device, open_gpus};

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
    cpu[0] = Device::cpu().name();
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

impl From<Dialect> for tierfft::debug::source::Dialect {
    fn from(d: Dialect) -> Self {
        match d {
            Dialect::Cuda => tierfft::debug::source::Dialect::Cuda,
            Dialect::Wgsl => tierfft::debug::source::Dialect::Wgsl,
        }
    }
}

/// An N-D or real transform for `tierfft plan --shape`.
pub struct NdJob<'a> {
    /// The array's shape.
    pub shape: &'a [usize],
    /// The axes (NumPy style); `None`: all.
    pub axes: Option<&'a [i64]>,
    /// R2C (C2R when inverse).
    pub real: bool,
    /// Spread over ranks instead of planned on one device.
    pub spread: Option<Spread>,
}

/// A transform spread over ranks, for `tierfft plan --shape .. --gpus N`.
pub struct Spread {
    /// Ranks.
    pub ranks: usize,
    /// Pencils over this grid (3-D shapes).
    pub grid: Option<[usize; 2]>,
    /// The spectrum cut like the input (a second all-to-all).
    pub natural: bool,
    /// Parts each slab's change of layout is cut into (`None`: the planner's choice).
    pub parts: Option<usize>,
}

/// What `tierfft plan` was asked to show.
pub struct PlanJob<'a> {
    /// Points per transform.
    pub n: usize,
    /// An N-D or real transform instead of `n` and the batch.
    pub nd: Option<NdJob<'a>>,
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
    /// Checksummed transform.
    pub checksum: bool,
    /// Print the kernels' source in this dialect.
    pub source: Option<Dialect>,
    /// Print the launch schedule.
    pub launches: bool,
    /// The precision to plan for.
    pub precision: tierfft::Precision,
    /// Planner options.
    pub options: tierfft::plan::PlanOptions,
}

/// `tierfft plan`: prints the plan for a profile or a device's real limits, and optionally
/// the source of its kernels.
pub fn plan(job: &PlanJob) -> CliResult<()> {
    if let Some((nd, spread)) = job
        .nd
        .as_ref()
        .and_then(|nd| Some((nd, nd.spread.as_ref()?)))
    {
        return plan_spread(job, nd, spread);
    }
    let (limits, device) = plan_limits(job.device)?;
    if job.options.measure {
        return Err(
            "--measure times plans on a device; `tierfft plan` runs nothing (the \
                    candidates it would time are listed in its output; use --bluestein-m M \
                    to show one)"
                .into(),
        );
    }
    if let Some(nd) = &job.nd {
        return plan_nd(job, nd, &limits);
    }
    let mut spec = spec(job.n, job.batch, job.inverse, job.normalize).precision(job.precision);
    if job.columns {
        spec = spec.columns();
    }
    if job.chain {
        let filter = vec![tierfft::Complex32::new(1.0, 0.0); job.n];
        spec = spec.then_multiply_and_invert(filter);
    }
    if job.checksum {
        spec = spec.checksum(tierfft::Checksum::Detect);
    }
    spec.validate()?;
    // On an attached device, the shapes measured there (as `Device::plan` takes them).
    let mut options = job.options.clone();
    if let Some(dev) = &device
        && let Some(e) =
            tierfft::backend::wisdom::lookup(&dev.name(), &dev.driver(), &spec, &limits, &options)?
    {
        let m = &e.measured;
        println!(
            "wisdom for {} ({}): {} ({} against the planner's {}, batch {})\n",
            e.device,
            e.driver,
            e.choice.flags(),
            tierfft_bench::shared::format_seconds(m.seconds),
            tierfft_bench::shared::format_seconds(m.default_seconds),
            m.batch
        );
        let advised = e.choice.apply(&options);
        match Plan::with_options(&spec, &limits, &advised) {
            Ok(_) => options = advised,
            // As `Device::plan` does: an entry that does not plan gives way to the model.
            Err(err) => println!("(it does not plan this spec: {err}; the planner's model)\n"),
        }
    }
    let plan = Plan::with_options(&spec, &limits, &options)?;
    println!("{plan}");
    if job.launches {
        println!("\n{}", plan.schedule(job.batch, Route::InPlace));
    }
    print_sources(&plan, job.source)?;
    Ok(())
}

/// One rank's end of an exchange that is planned and printed, never run: on GPUs it plans
/// as NCCL and peer copies do (all-to-alls beside the transforms), on the CPU as host memory.
struct Printed {
    rank: usize,
    ranks: usize,
    gpu: bool,
}

impl tierfft::distributed::Exchange for Printed {
    fn rank(&self) -> usize {
        self.rank
    }

    fn ranks(&self) -> usize {
        self.ranks
    }

    fn link(&self) -> &'static str {
        match self.gpu {
            true => "NCCL or peer copies",
            false => "host memory",
        }
    }

    fn overlaps(&self) -> bool {
        self.gpu
    }

    fn all_to_all(
        &mut self,
        _: &tierfft::DeviceBuffer,
        _: &[std::ops::Range<usize>],
        _: &mut tierfft::DeviceBuffer,
        _: &[std::ops::Range<usize>],
    ) -> tierfft::Result<()> {
        Err(tierfft::Error::InvalidSpec(
            "a distributed plan made for printing does not run".into(),
        ))
    }
}

/// `tierfft plan --shape .. --gpus N`: each rank's part of the global arrays and its steps,
/// the local transforms planned on the named device, the steps as that device's exchange
/// plans them.
fn plan_spread(job: &PlanJob, nd: &NdJob, spread: &Spread) -> CliResult<()> {
    use tierfft::distributed::{Exchange, RankFft};
    if DeviceLimits::profile(job.device).is_some() {
        return Err(format!(
            "--gpus plans each rank's transforms on a device, not the profile '{}': give \
             --device cuda, gpu or cpu",
            job.device
        )
        .into());
    }
    let device = open_device(job.device)?;
    let mut spec = tierfft_bench::command::dist::dist_spec(
        nd.shape,
        spread.natural,
        spread.grid,
        spread.parts,
    );
    if nd.real {
        spec = spec.real();
    }
    if job.inverse {
        spec = spec.inverse();
    }
    if job.normalize {
        spec = spec.normalized();
    }
    println!(
        "{:?} over {} ranks, each rank's local transforms planned on {}:",
        nd.shape,
        spread.ranks,
        device.name()
    );
    let gpu = device.kind() == tierfft::DeviceKind::Cuda;
    for rank in 0..spread.ranks {
        let exchange = Printed {
            rank,
            ranks: spread.ranks,
            gpu,
        };
        let rank = RankFft::new(
            &spec,
            device.clone(),
            Box::new(exchange) as Box<dyn Exchange>,
        )?;
        print!("{rank}");
    }
    if gpu {
        print_choice(&spec, spread.ranks)?;
    }
    Ok(())
}

/// What the planner runs `spec` on, from its estimate over the first `ranks` CUDA GPUs
/// (their links measured) against the first alone: for whole arrays in host memory
/// ([`tierfft::distributed::WholeFft`]) and for arrays already spread over the GPUs.
fn print_choice(spec: &tierfft::distributed::DistSpec, ranks: usize) -> CliResult<()> {
    use tierfft::backend::cuda::CudaDevice;
    use tierfft::distributed::{Link, WholeFft};
    let count = CudaDevice::count()?;
    if ranks < 2 || count < ranks {
        println!(
            "no estimate against one GPU: it measures the links between {ranks} GPUs and \
             this machine has {count}"
        );
        return Ok(());
    }
    let (_, gpus) = open_gpus(ranks)?;
    let whole = WholeFft::on_cuda(spec, &gpus, Link::Default)?;
    println!("whole arrays in host memory: {whole}");
    if let Some(e) = whole.estimate() {
        let (faster, one, spread) = (e.spread < e.one, 1e3 * e.one, 1e3 * e.spread);
        println!(
            "arrays already on the GPUs: {} is faster (one GPU {one:.3} ms, {ranks} GPUs \
             {spread:.3} ms, without host copies)",
            if faster { "spreading" } else { "one GPU" }
        );
    }
    Ok(())
}

/// The limits `tierfft plan` plans for: a profile, or the named device's own (with the
/// device, whose wisdom plans take).
fn plan_limits(device: &str) -> CliResult<(DeviceLimits, Option<Device>)> {
    if let Some(profile) = DeviceLimits::profile(device) {
        return Ok((profile, None));
    }
    let dev = open_device(device)?;
    Ok(match dev.limits() {
        Some(l) => (l.clone(), Some(dev)),
        None => {
            println!(
                "{} runs rustfft's own plans; showing the plan for the lavapipe profile",
                dev.name()
            );
            let profile = DeviceLimits::profile("lavapipe")
                .ok_or("the lavapipe profile is missing from the library")?;
            (profile, None)
        }
    })
}

/// Prints every kernel of `plan` in `dialect`, if asked.
fn print_sources(plan: &Plan, dialect: Option<Dialect>) -> CliResult<()> {
    let Some(dialect) = dialect else {
        return Ok(());
    };
    for (pass, in_place) in plan.kernels() {
        let place = if in_place { "in place" } else { "out of place" };
        println!(
            "// ---- pass {} ({place}) ----\n{}",
            pass + 1,
            plan.source(pass, in_place, dialect.into())?
        );
    }
    Ok(())
}

/// `tierfft plan --shape`: the N-D plan's steps, then each axis transform's plan (and the
/// kernels' source when asked).
fn plan_nd(job: &PlanJob, nd: &NdJob, limits: &DeviceLimits) -> CliResult<()> {
    let axes = match nd.axes {
        Some(a) => resolve_axes(Some(a), nd.shape.len())?,
        None => (0..nd.shape.len()).collect(),
    };
    let mut spec = NdSpec::new(nd.shape).axes(&axes);
    if nd.real {
        spec = spec.real();
    }
    if job.inverse {
        spec = spec.inverse();
    }
    if job.normalize {
        spec = spec.normalized();
    }
    spec = spec.precision(job.precision);
    // The device's fusions are chosen for the default shapes; other options print the
    // device-free steps, each planned with them.
    let plan = if job.options == tierfft::plan::PlanOptions::default() {
        NdPlan::for_device(&spec, Some(limits))?
    } else {
        NdPlan::new(&spec)?
    };
    println!("{plan}");
    for (i, step) in plan.steps.iter().enumerate() {
        match &step.op {
            StepOp::Fft { spec, .. } => {
                let fft = Plan::with_options(spec, limits, &job.options)?;
                println!("step {}: {fft}", i + 1);
                print_sources(&fft, job.source)?;
            }
            StepOp::Reshape(r) => {
                if let Some(dialect) = job.source {
                    println!(
                        "// ---- step {} ----\n{}",
                        i + 1,
                        r.source(spec.precision, dialect.into())
                    );
                }
            }
            other => println!("step {}: {other:?}", i + 1),
        }
    }
    Ok(())
}
