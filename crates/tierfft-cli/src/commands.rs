//! `tierfft devices`, `tierfft plan` and `tierfft fft`.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use tierfft::backend::DEVICE_ENV;
use tierfft::backend::cuda::CudaDevice;
use tierfft::backend::wgpu::list_adapters;
use tierfft::nd::{NdPlan, StepOp};
use tierfft::plan::{DeviceLimits, Plan};
use tierfft::{Complex32, Device, FftSpec, Kind, NdSpec};

use crate::{CliResult, npy};

/// `--device NAME`: `auto` honours `TIERFFT_DEVICE`; anything else goes to [`Device::by_name`].
pub fn open_device(name: &str) -> tierfft::Result<Device> {
    if name.eq_ignore_ascii_case("auto") {
        Device::auto()
    } else {
        Device::by_name(name)
    }
}

/// CUDA GPUs 0..n, for `--gpus n`: the GPUs themselves (for NCCL) and as devices.
pub fn open_gpus(n: usize) -> CliResult<(Vec<Device>, Vec<Arc<CudaDevice>>)> {
    let gpus = (0..n)
        .map(|i| {
            CudaDevice::open(i)
                .map(Arc::new)
                .map_err(|e| format!("--gpus {n}: GPU {i}: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((gpus.iter().map(|g| Device::from(g.clone())).collect(), gpus))
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

impl From<Dialect> for tierfft::source::Dialect {
    fn from(d: Dialect) -> Self {
        match d {
            Dialect::Cuda => tierfft::source::Dialect::Cuda,
            Dialect::Wgsl => tierfft::source::Dialect::Wgsl,
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
    /// Print the kernels' source in this dialect.
    pub source: Option<Dialect>,
    /// Planner options.
    pub options: tierfft::plan::PlanOptions,
}

/// `tierfft plan`: prints the plan for a profile or a device's real limits, and optionally
/// the source of its kernels.
pub fn plan(job: &PlanJob) -> CliResult<()> {
    let limits = plan_limits(job.device)?;
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
    let mut spec = spec(job.n, job.batch, job.inverse, job.normalize);
    if job.columns {
        spec = spec.columns();
    }
    if job.chain {
        let filter = vec![tierfft::Complex32::new(1.0, 0.0); job.n];
        spec = spec.then_multiply_and_invert(filter.into());
    }
    spec.validate()?;
    let plan = Plan::with_options(&spec, &limits, &job.options)?;
    println!("{plan}");
    print_sources(&plan, job.source);
    Ok(())
}

/// The limits `tierfft plan` plans for: a profile, or the named device's own.
fn plan_limits(device: &str) -> CliResult<DeviceLimits> {
    if let Some(profile) = DeviceLimits::profile(device) {
        return Ok(profile);
    }
    let dev = open_device(device)?;
    Ok(match dev.limits() {
        Some(l) => l.clone(),
        None => {
            println!(
                "{} runs rustfft's own plans; showing the plan for the lavapipe profile",
                dev.name()
            );
            DeviceLimits::profile("lavapipe")
                .ok_or("the lavapipe profile is missing from the library")?
        }
    })
}

/// Prints every kernel of `plan` in `dialect`, if asked.
fn print_sources(plan: &Plan, dialect: Option<Dialect>) {
    let Some(dialect) = dialect else { return };
    for (pass, in_place) in plan.kernels() {
        let place = if in_place { "in place" } else { "out of place" };
        println!(
            "// ---- pass {} ({place}) ----\n{}",
            pass + 1,
            plan.source(pass, in_place, dialect.into())
        );
    }
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
                print_sources(&fft, job.source);
            }
            StepOp::Reshape(r) => {
                if let Some(dialect) = job.source {
                    println!("// ---- step {} ----\n{}", i + 1, r.source(dialect.into()));
                }
            }
            other => println!("step {}: {other:?}", i + 1),
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
    /// Whether the transform is scaled by 1/N (N: the product of the transformed extents).
    fn divides(self, inverse: bool) -> bool {
        matches!(
            (self, inverse),
            (Norm::Backward, true) | (Norm::Forward, false)
        )
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
    /// Real data on one side: R2C forward, C2R inverse.
    pub real: bool,
    /// The axes to transform, NumPy style (negative counts from the end); `None`: the last.
    pub axes: Option<&'a [i64]>,
    /// NumPy's `n`: the length of the last transformed axis (C2R: the real length); the input
    /// is cropped or zero-padded there. `None`: the input's extent (C2R: 2(m - 1)).
    pub n: Option<usize>,
    /// NumPy's `s`: a length for each transformed axis, as `n` is for the last.
    pub s: Option<&'a [usize]>,
    /// The scaling.
    pub norm: Norm,
    /// Device name for [`open_device`].
    pub device: &'a str,
}

/// `axes` (negative from the end) as indices into `rank` axes; the last axis when `None`.
fn resolve_axes(axes: Option<&[i64]>, rank: usize) -> CliResult<Vec<usize>> {
    let Some(axes) = axes else {
        return Ok(vec![rank - 1]);
    };
    axes.iter()
        .map(|&a| {
            let i = if a < 0 { a + rank as i64 } else { a };
            usize::try_from(i)
                .ok()
                .filter(|&i| i < rank)
                .ok_or_else(|| format!("axis {a} is out of range for a {rank}-d array").into())
        })
        .collect()
}

/// `values` (row-major, `shape`) cut or zero-padded at the end of each axis to `target`'s
/// extents, as NumPy's `s` and `n` do.
fn fit<T: Copy + Default>(mut values: Vec<T>, shape: &[usize], target: &[usize]) -> Vec<T> {
    let mut now = shape.to_vec();
    for (axis, &len) in target.iter().enumerate() {
        values = resize_axis(values, &now, axis, len);
        now[axis] = len;
    }
    values
}

/// `values` (row-major, `shape`) with axis `axis` cut or zero-padded at its end to `len`; the
/// values themselves when the axis is already `len` long.
fn resize_axis<T: Copy + Default>(
    values: Vec<T>,
    shape: &[usize],
    axis: usize,
    len: usize,
) -> Vec<T> {
    let have = shape[axis];
    if have == len || values.is_empty() {
        return values;
    }
    let inner: usize = shape[axis + 1..].iter().product();
    let keep = have.min(len) * inner;
    let mut out = Vec::with_capacity(values.len() / have.max(1) * len);
    for block in values.chunks(have * inner) {
        out.extend_from_slice(&block[..keep]);
        out.resize(out.len() + (len * inner - keep), T::default());
    }
    out
}

/// NumPy's `s` (a length per listed axis) or `n` (the last listed axis'): the real side's
/// shape of the transform of an input of `shape` over `axes`, and the shape it reads (the
/// input cropped or zero-padded to it; a C2R's bins along its last axis). A C2R's last
/// length is the real one, by default 2(m - 1) for m bins.
fn numpy_lengths(
    job: &FftJob,
    shape: &[usize],
    axes: &[usize],
) -> Result<(Vec<usize>, Vec<usize>), String> {
    let last = axes[axes.len() - 1];
    let c2r = job.real && job.inverse;
    let lengths: Vec<Option<usize>> = match (job.s, job.n) {
        (Some(_), Some(_)) => return Err("--s and --n both give lengths: give one".into()),
        (Some(s), None) if s.len() != axes.len() => {
            return Err(format!(
                "--s gives {} lengths for the {} axes transformed ({axes:?})",
                s.len(),
                axes.len()
            ));
        }
        (Some(s), None) => s.iter().copied().map(Some).collect(),
        (None, n) => (0..axes.len())
            .map(|i| n.filter(|_| i + 1 == axes.len()))
            .collect(),
    };
    if lengths.contains(&Some(0)) {
        return Err("transform lengths (--n, --s) must be at least 1".into());
    }
    let mut real_shape = shape.to_vec();
    for (i, (&a, &len)) in axes.iter().zip(&lengths).enumerate() {
        // A repeated axis keeps one length (NumPy would resize it between its transforms).
        let len = len.unwrap_or(shape[a]);
        let other = |(&b, &l): (&usize, &Option<usize>)| b == a && l.unwrap_or(shape[a]) != len;
        if axes[..i].iter().zip(&lengths).any(other) {
            return Err(format!(
                "axis {a} is listed twice with different lengths (--n, --s); NumPy would \
                 crop or pad it between its transforms, which tierfft does not"
            ));
        }
        real_shape[a] = len;
    }
    if c2r && lengths.last() == Some(&None) {
        if shape[last] < 2 {
            return Err(format!(
                "C2R of {} bin along axis {last} has no default length \
                 (NumPy's 2(m - 1) = 0): give --n",
                shape[last]
            ));
        }
        real_shape[last] = 2 * (shape[last] - 1);
    }
    // What the transform reads: the real side's shape, a C2R's bins along its last axis.
    let mut taken = real_shape.clone();
    if c2r {
        taken[last] = real_shape[last] / 2 + 1;
    }
    Ok((real_shape, taken))
}

/// `tierfft fft`: reads, checks, transforms, and only then writes the output.
pub fn fft(job: &FftJob) -> CliResult<()> {
    let input = npy::open(job.input, npy::Expect::Rows)?;
    npy::check_output(job.output)?;
    let shown = job.input.display();
    let shape: Vec<usize> = input.header.shape.iter().map(|&d| d as usize).collect();
    // As NumPy's fftn: with `s` and no axes, the last len(s) axes.
    let axes = match (job.axes, job.s) {
        (None, Some(s)) if s.len() > shape.len() => {
            return Err(format!(
                "--s gives {} lengths for a {}-d array",
                s.len(),
                shape.len()
            )
            .into());
        }
        (None, Some(s)) => (shape.len() - s.len()..shape.len()).collect(),
        (axes, _) => resolve_axes(axes, shape.len())?,
    };
    if axes.is_empty() {
        return Err("--axes lists no axis".into());
    }
    let (real_shape, taken) =
        numpy_lengths(job, &shape, &axes).map_err(|e| format!("'{shown}': {e}"))?;
    let mut spec = NdSpec::new(&real_shape).axes(&axes);
    if job.real {
        spec = spec.real();
    }
    if job.inverse {
        spec = spec.inverse();
    }
    if job.norm.divides(job.inverse) {
        spec = spec.normalized();
    }
    spec.validate().map_err(|e| format!("'{shown}': {e}"))?;
    let ortho = (job.norm == Norm::Ortho).then(|| {
        let n: f64 = axes.iter().map(|&a| real_shape[a] as f64).product();
        n.sqrt().recip() as f32
    });
    let input_element = input.header.element;
    let device = open_device(job.device)?;
    let start = Instant::now();
    let fft = device.plan_nd(&spec)?;
    let planned = start.elapsed();
    let scale = |v: f32| ortho.map_or(v, |s| v * s);
    let out_shape: Vec<u64> = match spec.kind() {
        Kind::RealToComplex => spec.complex_shape(),
        _ => real_shape.clone(),
    }
    .iter()
    .map(|&d| d as u64)
    .collect();
    let total = match spec.kind() {
        Kind::RealToComplex => {
            let x = fit(input.read_real()?, &shape, &taken);
            let mut out = vec![Complex32::new(0.0, 0.0); spec.output_len()];
            fft.process_real_to_complex(&x, &mut out)?;
            let total = start.elapsed();
            out.iter_mut()
                .for_each(|z| *z = Complex32::new(scale(z.re), scale(z.im)));
            npy::write_values(job.output, &out_shape, npy::Values::Complex(&out))?;
            total
        }
        Kind::ComplexToReal => {
            let x = fit(input.read()?, &shape, &taken);
            let mut out = vec![0.0; spec.output_len()];
            fft.process_complex_to_real(&x, &mut out)?;
            let total = start.elapsed();
            out.iter_mut().for_each(|v| *v = scale(*v));
            npy::write_values(job.output, &out_shape, npy::Values::Real(&out))?;
            total
        }
        Kind::ComplexToComplex => {
            let mut data = fit(input.read()?, &shape, &taken);
            fft.process(&mut data)?;
            let total = start.elapsed();
            data.iter_mut()
                .for_each(|z| *z = Complex32::new(scale(z.re), scale(z.im)));
            npy::write_atomic(job.output, &out_shape, &data)?;
            total
        }
        other => {
            return Err(format!("{other:?} transforms are not offered by `tierfft fft`").into());
        }
    };
    let direction = if job.inverse { "inverse" } else { "forward" };
    let kind = spec.kind().abbreviation();
    let converted = match (input_element.is_complex64(), spec.kind()) {
        (false, Kind::ComplexToComplex | Kind::ComplexToReal) => {
            format!(", {} input read as complex64", input_element.name())
        }
        _ => String::new(),
    };
    eprintln!(
        "tierfft: {direction} {kind} FFT ({}{converted}) over axes {axes:?} of {real_shape:?} on {}: {} ({} planning, {} transform incl. transfers) -> {} {out_shape:?}",
        job.norm.describe(job.inverse),
        device.name(),
        crate::report::format_seconds(total.as_secs_f64()),
        crate::report::format_seconds(planned.as_secs_f64()),
        crate::report::format_seconds((total - planned).as_secs_f64()),
        job.output.display()
    );
    Ok(())
}
