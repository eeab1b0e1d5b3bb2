//! Devices and planned transforms: the [`Device`] a user picks, and the [`Fft`] it plans.
//!
//! Backends: `cpu` (rustfft, always built), [`wgpu`] (Vulkan, Metal, DX12) and [`cuda`] (NVRTC +
//! cudarc). Backends compile and launch what the planner and generator decided; they never
//! choose radices.

mod api;
pub(crate) mod buffer;
pub(crate) mod copy;
pub(crate) mod cpu;
#[cfg(feature = "cuda")]
pub mod cuda;
pub(crate) mod fault;
mod resampler;
pub(crate) mod reshape;
mod tune;
pub(crate) mod view;
#[cfg(feature = "wgpu")]
pub mod wgpu;
pub mod wisdom;
pub(crate) mod workspace;

use std::sync::{Arc, Mutex, MutexGuard};

use num_complex::Complex32;

use crate::base::precision::{Precision, random_words};
use crate::error::{Error, Result};
use crate::plan::{DeviceLimits, Plan, PlanOptions};
use crate::spec::FftSpec;
use buffer::{Held, with_words_mut, words_of};
use fault::Fault;
use view::sealed::TOKEN;

pub use buffer::{DeviceBuffer, Element, RealElement};
pub use resampler::Resampler;
pub use tune::{Outcome, Timed, Tuning};
pub use view::{AsDeviceBuffer, BufferView};

/// Environment variable naming the device [`Device::auto`] should use (same names as
/// [`Device::by_name`]), e.g. `TIERFFT_DEVICE=lavapipe`.
pub const DEVICE_ENV: &str = "TIERFFT_DEVICE";

/// Largest device buffer one host chunk uses, bytes: `process` on larger batches uploads,
/// transforms and downloads chunk by chunk.
const HOST_CHUNK_BYTES: u64 = 1 << 30;

/// Back-to-back untimed work before timed runs on a GPU, so that its clocks have left their
/// idle state (an idle H100 runs its SMs at 345 MHz). Not enough for `tierfft bench --device
/// gpu` alone on the H100 through Vulkan, whose times still scattered 1–3× run to run
/// (docs/BENCHMARKS.md, "2026-11-24, commits cd2cc14 and 64eac99"); `--compare cufft
/// --with-wgpu`, which times right after CUDA work, is steady.
#[cfg(any(feature = "cuda", feature = "wgpu"))]
pub(crate) const WARM_UP: std::time::Duration = std::time::Duration::from_millis(200);

/// tierfft's folder in the user's cache (`$XDG_CACHE_HOME/tierfft`, else
/// `~/.cache/tierfft`), where compiled kernels and wisdom are kept; `None` without a home.
pub(crate) fn user_cache() -> Option<std::path::PathBuf> {
    std::env::var_os("XDG_CACHE_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cache")))
        .map(|d| d.join("tierfft"))
}

/// Transforms per host chunk for `plan` on a device whose buffers hold at most `max_buffer`
/// bytes (at least one transform, at most the batch; the whole batch when the plan binds it
/// at once, which the planner checked fits).
fn host_chunk(plan: &Plan, max_buffer: u64) -> usize {
    if plan.spec.whole_batch() {
        return plan.spec.batch;
    }
    // Bluestein's intermediate rows are the longer ones.
    let transform =
        (plan.spec.precision.complex_bytes() * plan.spec.n.max(plan.transform().n)) as u64;
    let budget = HOST_CHUNK_BYTES.min(max_buffer).max(transform);
    ((budget / transform) as usize).min(plan.spec.batch)
}

/// A plan's compiled kernels: one for every `(pass, in_place)` of [`Plan::kernels`].
#[cfg(any(feature = "cuda", feature = "wgpu"))]
struct Kernels<K> {
    built: Vec<((usize, bool), K)>,
}

#[cfg(any(feature = "cuda", feature = "wgpu"))]
impl<K> Kernels<K> {
    /// Builds every kernel of `plan` with `build(pass, in_place)`.
    fn build(plan: &Plan, mut build: impl FnMut(usize, bool) -> Result<K>) -> Result<Self> {
        let built = plan
            .kernels()
            .into_iter()
            .map(|key| Ok((key, build(key.0, key.1)?)))
            .collect::<Result<_>>()?;
        Ok(Kernels { built })
    }

    /// The kernel a launch of `pass` runs: its in-place one where the launch reads and
    /// writes one slot.
    fn get(&self, pass: usize, in_place: bool) -> Result<&K> {
        self.built
            .iter()
            .find(|(key, _)| *key == (pass, in_place))
            .map(|(_, k)| k)
            .ok_or_else(|| {
                Error::gpu(format!(
                    "no {} kernel for pass {pass} (an internal error: please report it with \
                     the spec)",
                    if in_place { "in-place" } else { "out-of-place" }
                ))
            })
    }

    /// One kernel per pass, in pass order: its out-of-place one where it has both.
    #[cfg(feature = "cuda")]
    fn per_pass(&self) -> impl Iterator<Item = &K> {
        let passes = self
            .built
            .iter()
            .map(|((pass, _), _)| *pass)
            .max()
            .map_or(0, |p| p + 1);
        (0..passes).filter_map(|pass| {
            self.built
                .iter()
                .find(|((p, _), _)| *p == pass)
                .map(|(_, k)| k)
        })
    }
}

/// The error for a device of a backend this build of tierfft left out.
#[cfg(not(all(feature = "cuda", feature = "wgpu")))]
fn not_built(name: &str, feature: &str) -> Error {
    Error::NoDevice(format!(
        "'{name}' needs tierfft's `{feature}` backend, which this build leaves out (cargo \
         feature `{feature}`)"
    ))
}

/// How the times in a [`Measured`] were taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Timer {
    /// GPU timestamps around the transform's dispatches.
    GpuTimestamps,
    /// Host clock around submission and completion.
    WallClock,
}

/// Result of [`Fft::measure`]: the output of one run and the time of each repetition.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Measured<T = Complex32> {
    /// Output of the first run.
    pub output: Vec<T>,
    /// Time of each repetition, seconds.
    pub seconds: Vec<f64>,
    /// How the times were taken.
    pub timer: Timer,
}

impl<T> Measured<T> {
    /// The median of [`Measured::seconds`], seconds.
    pub fn median_seconds(&self) -> f64 {
        median(&self.seconds)
    }
}

/// The median of `xs` (NaN when empty).
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Registers and memory of one compiled kernel, as the driver reports them (shown as
/// `tierfft::debug::KernelReport`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct KernelResources {
    /// Registers per thread.
    pub(crate) registers: i32,
    /// Local memory (spills) per thread, bytes.
    pub(crate) local_bytes: i32,
    /// Dynamic shared memory per block, bytes.
    pub(crate) shared_bytes: u32,
    /// Threads per block.
    pub(crate) threads: u32,
}

/// What every backend's planned transform does. Host data are the plan's complex values
/// (`n × batch`, checked by [`Fft`]) as the 4-byte words of its precision, which is how
/// device memory holds them.
pub(crate) trait Executor: Send + Sync {
    fn process(&self, data: &mut [f32]) -> Result<()>;
    fn process_out_of_place(&self, input: &[f32], output: &mut [f32]) -> Result<()>;
    fn process_buffer(&self, data: &mut Held) -> Result<()>;
    /// Records the transform of `data` into a caller's wgpu encoder (wgpu backends only).
    #[cfg(feature = "wgpu")]
    fn record(&self, _encoder: &mut ::wgpu::CommandEncoder, data: &mut Held) -> Result<()> {
        Err(Error::InvalidSpec(format!(
            "recording into a wgpu command encoder needs a plan made on a wgpu device; this \
             buffer lives on '{}'",
            data.memory().device_name()
        )))
    }
    /// Transforms device-resident `src` (the rows the first pass reads) into `dst` (the rows
    /// the last pass writes; the lengths differ for a real transform's half), `src` intact.
    fn process_between(&self, src: &mut Held, dst: &mut Held) -> Result<()>;
    /// [`Executor::process_between`] without reading a checksummed plan's records, so that
    /// nothing waits for the device (CUDA); the other backends check as `process_between`.
    fn process_between_unverified(&self, src: &mut Held, dst: &mut Held) -> Result<()> {
        self.process_between(src, dst)
    }
    /// Bytes of device memory it holds now: its tables and the work arrays kept between
    /// calls (0 where they live in host memory, on the CPU).
    fn held_bytes(&self) -> u64 {
        0
    }
    /// Registers, spills and shared memory of each pass's compiled kernel (CUDA only).
    fn kernel_resources(&self) -> Result<Vec<KernelResources>> {
        Err(Error::InvalidSpec(
            "kernel registers and spills are reported for plans on CUDA devices only".into(),
        ))
    }
    /// Transforms `input` into `output` once, then times `reps` more runs on
    /// device-resident data (seconds each).
    fn measure(&self, input: &[f32], output: &mut [f32], reps: usize) -> Result<(Vec<f64>, Timer)>;
    /// Arms `fault` for the next run (see [`Fault`]).
    fn inject_fault(&self, fault: Fault) -> Result<()>;
}

/// Which backend a [`Device`] runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeviceKind {
    /// The CPU, through rustfft.
    Cpu,
    /// A GPU (or lavapipe) through wgpu: Vulkan, Metal or DX12.
    Wgpu,
    /// An NVIDIA GPU through CUDA.
    Cuda,
}

/// A device to run transforms on: the CPU, a GPU through wgpu, or an NVIDIA GPU through
/// CUDA. Cheap to clone (clones share the device, and the work arrays its N-D transforms
/// share: [`Device::workspace_bytes`]).
#[derive(Clone)]
pub struct Device {
    backend: Arc<dyn api::Backend>,
    workspace: Arc<Mutex<workspace::Workspace>>,
}

impl Device {
    /// The device of `backend`, with work arrays of its own.
    pub(crate) fn with_backend(backend: Arc<dyn api::Backend>) -> Device {
        Device {
            backend,
            workspace: Arc::default(),
        }
    }
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Device").field(&self.name()).finish()
    }
}

impl Device {
    /// The CPU, through rustfft (always available).
    pub fn cpu() -> Device {
        Device::with_backend(Arc::new(api::Cpu))
    }

    /// The device named by `TIERFFT_DEVICE` if set; otherwise CUDA if there is an NVIDIA GPU
    /// with its driver and NVRTC, then a hardware GPU through wgpu, else the CPU. A software adapter (lavapipe) is used only when asked for by name.
    pub fn auto() -> Result<Device> {
        match std::env::var(DEVICE_ENV) {
            Ok(name) if !name.is_empty() && !name.eq_ignore_ascii_case("auto") => {
                Device::by_name(&name)
            }
            _ => Ok(Device::best()),
        }
    }

    /// CUDA, else a hardware GPU through wgpu, else the CPU (of the backends built).
    fn best() -> Device {
        #[cfg(feature = "cuda")]
        if let Ok(d) = cuda::CudaDevice::open(0) {
            return Device::from(Arc::new(d));
        }
        #[cfg(feature = "wgpu")]
        if let Some(d) = wgpu::WgpuDevice::hardware() {
            return Device::from(Arc::new(d));
        }
        Device::cpu()
    }

    /// `auto` (CUDA, a hardware GPU, else the CPU; this ignores `TIERFFT_DEVICE`), `cpu`,
    /// `cuda` (the first NVIDIA GPU through CUDA), `cuda:N` (CUDA device N), `gpu` (any
    /// hardware wgpu adapter), `gpu:N` (hardware adapter N, discrete GPUs first),
    /// `lavapipe`, or part of a wgpu adapter's name as `tierfft devices` lists it or
    /// [`Device::name`] prints it (case-insensitive).
    pub fn by_name(name: &str) -> Result<Device> {
        let lower = name.to_ascii_lowercase();
        if let Some((kind, n)) = lower.split_once(':')
            && matches!(kind, "cuda" | "gpu")
        {
            let ordinal = n.trim().parse::<usize>().map_err(|_| {
                Error::NoDevice(format!(
                    "'{name}': the device ordinal after '{kind}:' must be a number from 0"
                ))
            })?;
            return match kind {
                "cuda" => Device::cuda(ordinal),
                _ => Device::wgpu_nth(Some(ordinal)),
            };
        }
        match lower.as_str() {
            "auto" => Ok(Device::best()),
            "cpu" => Ok(Device::cpu()),
            "cuda" => Device::cuda(0),
            "gpu" => Device::wgpu_nth(None),
            other => Device::wgpu_named(other),
        }
    }

    /// Hardware wgpu adapter `ordinal` (discrete GPUs first), or any for `None`.
    #[cfg(feature = "wgpu")]
    fn wgpu_nth(ordinal: Option<usize>) -> Result<Device> {
        let device = match ordinal {
            Some(n) => wgpu::WgpuDevice::hardware_nth(n)?,
            None => wgpu::WgpuDevice::hardware().ok_or_else(|| {
                Error::NoDevice("no hardware GPU adapter (Vulkan, Metal or DX12) was found".into())
            })?,
        };
        Ok(Device::from(Arc::new(device)))
    }

    /// The wgpu adapter whose name contains `name` (or `lavapipe`).
    #[cfg(feature = "wgpu")]
    fn wgpu_named(name: &str) -> Result<Device> {
        Ok(Device::from(Arc::new(wgpu::WgpuDevice::named(name)?)))
    }

    #[cfg(not(feature = "wgpu"))]
    fn wgpu_nth(_ordinal: Option<usize>) -> Result<Device> {
        Err(not_built("gpu", "wgpu"))
    }

    #[cfg(not(feature = "wgpu"))]
    fn wgpu_named(name: &str) -> Result<Device> {
        Err(not_built(name, "wgpu"))
    }

    /// A caller's wgpu device and queue (opened from `adapter`): plans made on it run on
    /// the caller's buffers ([`DeviceBuffer::from_wgpu_buffer`]) and record into the
    /// caller's command encoders ([`Fft::record`]). See [`wgpu::WgpuDevice::from_parts`].
    #[cfg(feature = "wgpu")]
    pub fn from_wgpu(
        adapter: &::wgpu::Adapter,
        device: ::wgpu::Device,
        queue: ::wgpu::Queue,
    ) -> Device {
        Device::from(Arc::new(wgpu::WgpuDevice::from_parts(
            adapter, device, queue,
        )))
    }

    /// CUDA device `ordinal` (0 is the first NVIDIA GPU); an error when there is none, or
    /// when tierfft was built without its `cuda` feature.
    pub fn cuda(ordinal: usize) -> Result<Device> {
        #[cfg(feature = "cuda")]
        return Ok(Device::from(Arc::new(cuda::CudaDevice::open(ordinal)?)));
        #[cfg(not(feature = "cuda"))]
        Err(not_built(&format!("cuda:{ordinal}"), "cuda"))
    }

    /// The CUDA device of a caller's `stream` (from cudarc), with all of tierfft's work on
    /// it queued on that stream, so it orders with the caller's own work and nothing waits
    /// unless asked ([`Device::synchronize`]). With [`DeviceBuffer::from_cuda_slice`],
    /// plans run on the caller's arrays without copies.
    #[cfg(feature = "cuda")]
    pub fn cuda_on_stream(stream: Arc<cudarc::driver::CudaStream>) -> Result<Device> {
        Ok(Device::from(Arc::new(cuda::CudaDevice::on_stream(stream)?)))
    }

    /// Which backend this device runs on.
    pub fn kind(&self) -> DeviceKind {
        self.backend.kind()
    }

    /// The CUDA device behind this one, if it is one (for its stream and limits).
    #[cfg(feature = "cuda")]
    pub fn cuda_device(&self) -> Option<Arc<cuda::CudaDevice>> {
        self.downcast()
    }

    /// The wgpu device behind this one, if it is one (for its queue and limits).
    #[cfg(feature = "wgpu")]
    pub fn wgpu_device(&self) -> Option<Arc<wgpu::WgpuDevice>> {
        self.downcast()
    }

    /// The backend behind this device as its own type `B`, if it is one.
    #[cfg(any(feature = "cuda", feature = "wgpu"))]
    fn downcast<B: api::Backend>(&self) -> Option<Arc<B>> {
        let any: Arc<dyn std::any::Any + Send + Sync> = self.backend.clone();
        any.downcast().ok()
    }

    /// Times `reps` runs of `work` on device-resident data (device timestamps where the
    /// backend has them, else the host clock around each run and a wait).
    pub(crate) fn time_runs(
        &self,
        reps: usize,
        work: &mut dyn FnMut() -> Result<()>,
    ) -> Result<(Vec<f64>, Timer)> {
        self.backend.time_runs(reps, work)
    }

    /// `kernel` compiled to run once over a source and a destination (see
    /// [`api::Backend::one_kernel`]).
    pub(crate) fn one_kernel(
        &self,
        kernel: &crate::kernel::ir::Kernel,
        table: Option<&[u8]>,
        lines: u32,
        grid: (u32, u32),
        floats: (usize, usize),
    ) -> Result<Box<dyn reshape::ReshapeExec>> {
        self.backend()
            .one_kernel(kernel, table, lines, grid, floats)
    }

    /// Whether distributed transforms may put ranks on this device.
    pub(crate) fn distributes(&self) -> bool {
        self.backend.distributes()
    }

    /// The backend behind this device, shared (for objects that keep it).
    fn backend(&self) -> Arc<dyn api::Backend> {
        self.backend.clone()
    }

    /// The backend behind this device, borrowed.
    fn backend_ref(&self) -> &dyn api::Backend {
        &*self.backend
    }

    /// The work arrays this device's N-D transforms share (on the CPU each transform keeps
    /// its own, so that transforms on several threads run at once), for one run at a time.
    pub(crate) fn workspace(&self) -> Result<MutexGuard<'_, workspace::Workspace>> {
        self.workspace
            .lock()
            .map_err(|_| Error::gpu("a run panicked while holding the device's work arrays"))
    }

    /// Bytes of device memory held by the work arrays that this device's N-D and real
    /// transforms share between runs (each sized for the largest run so far; see
    /// [`crate::NdFft`]). Not counted in any transform's [`crate::NdFft::held_bytes`]; 0 on the
    /// CPU, whose transforms keep their own.
    pub fn workspace_bytes(&self) -> u64 {
        self.workspace.lock().map_or(0, |w| w.bytes())
    }

    /// Frees the shared work arrays ([`Device::workspace_bytes`]), after the work queued so
    /// far; the next run that needs them makes them again.
    pub fn free_workspace(&self) {
        if let Ok(mut w) = self.workspace.lock() {
            *w = workspace::Workspace::default();
        }
    }

    /// The device's name.
    pub fn name(&self) -> String {
        self.backend_ref().name()
    }

    /// The driver, as wisdom entries record it (`CUDA 13.0, NVRTC 13.0`; a Vulkan driver's
    /// name and version; `rustfft` on the CPU).
    pub fn driver(&self) -> String {
        self.backend_ref().driver()
    }

    /// The limits the planner uses; `None` on the CPU, which runs rustfft's own plans.
    pub fn limits(&self) -> Option<&DeviceLimits> {
        self.backend_ref().limits()
    }

    /// Device memory free now, bytes, where the device can say: CUDA does; wgpu has no such
    /// query (`None`), and the CPU's memory is the host's (`None`).
    pub fn free_memory(&self) -> Result<Option<u64>> {
        self.backend_ref().free_memory()
    }

    /// Plans `spec` on this device and compiles its kernels.
    pub fn plan(&self, spec: &FftSpec) -> Result<Fft> {
        self.plan_with_options(spec, &PlanOptions::default())
    }

    /// Plans `spec` with non-default planner options (for timing variants).
    pub fn plan_with_options(&self, spec: &FftSpec, opts: &PlanOptions) -> Result<Fft> {
        spec.validate()?;
        opts.validate()?;
        if let Some(e) =
            crate::plan::limits::precision_refusal(spec.precision, self.name(), self.limits())
        {
            return Err(e);
        }
        let (plan, exec) = self.backend().fft(spec, opts)?;
        Ok(Fft {
            spec: spec.clone(),
            plan,
            exec,
        })
    }
}

/// Plans `spec` for `limits` and compiles the plan with `build`; with
/// [`PlanOptions::measure`], compiles every candidate plan, times each on the spec's batch
/// (as much of it as one device buffer holds) and keeps the fastest.
pub(crate) fn compile(
    spec: &FftSpec,
    limits: &DeviceLimits,
    opts: &PlanOptions,
    build: impl Fn(&Plan) -> Result<Box<dyn Executor>>,
) -> Result<(Plan, Box<dyn Executor>)> {
    if !opts.measure {
        let plan = Plan::with_options(spec, limits, opts)?;
        let exec = build(&plan)?;
        return Ok((plan, exec));
    }
    let mut plans = Plan::candidates(spec, limits, opts)?;
    if plans.len() == 1 {
        let plan = plans.remove(0);
        let exec = build(&plan)?;
        return Ok((plan, exec));
    }
    // The batch as one device buffer holds it (the whole batch where kernels index it all).
    let transforms = plans
        .iter()
        .map(|p| host_chunk(p, limits.max_buffer))
        .min()
        .unwrap_or(1);
    let input = random_words(transforms * spec.n, spec.precision);
    let mut output = vec![0.0; input.len()];
    let mut best: Option<(f64, Plan, Box<dyn Executor>)> = None;
    // The first candidate's result, which every other candidate's must match.
    let mut expected: Option<Vec<f32>> = None;
    for plan in plans {
        let timed = build(&plan).and_then(|exec| {
            let (seconds, _) = exec.measure(&input, &mut output, MEASURE_REPS)?;
            Ok((median(&seconds), exec))
        });
        // A candidate that does not compile or run here, or computes something else (a
        // planner bug `tierfft tune` reports), is passed over.
        let Ok((t, exec)) = timed else { continue };
        match &expected {
            None => expected = Some(output.clone()),
            Some(e) if !tune::agrees(&output, e, spec.precision) => continue,
            Some(_) => {}
        }
        if best.as_ref().is_none_or(|(b, _, _)| t < *b) {
            best = Some((t, plan, exec));
        }
    }
    match best {
        Some((_, plan, exec)) => Ok((plan, exec)),
        // Nothing could be timed: the plan the planner picks unmeasured.
        None => {
            let plan = Plan::with_options(spec, limits, opts)?;
            let exec = build(&plan)?;
            Ok((plan, exec))
        }
    }
}

/// Timed runs per candidate plan under [`PlanOptions::measure`].
const MEASURE_REPS: usize = 5;

/// A transform planned and compiled for one device. Reusable; `Send + Sync`.
///
/// On a GPU the plan keeps the device buffers its calls need (the data being transformed,
/// at most one host chunk of 1 GiB per buffer, and a multi-pass plan's intermediates) from
/// the first call until it is dropped, so repeated calls allocate nothing; drop plans you
/// no longer use to give that memory back.
pub struct Fft {
    spec: FftSpec,
    plan: Option<Plan>,
    exec: Box<dyn Executor>,
}

impl std::fmt::Debug for Fft {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fft")
            .field("spec", &self.spec)
            .field("plan", &self.plan)
            .finish_non_exhaustive()
    }
}

impl Fft {
    /// What this transform computes.
    pub fn spec(&self) -> &FftSpec {
        &self.spec
    }

    /// The GPU plan (`None` on the CPU backend).
    pub fn plan(&self) -> Option<&Plan> {
        self.plan.as_ref()
    }

    /// Bytes of device memory the transform holds now: its twiddle and vector tables and the
    /// work arrays it keeps between calls from the first call that needs them (0 on the
    /// CPU backend). Dropping the transform frees them.
    pub fn held_bytes(&self) -> u64 {
        self.exec.held_bytes()
    }

    /// Transforms `data` (`n × batch` elements) in place. The elements are the spec's
    /// precision's complex type: [`Complex32`] for f32, [`Complex64`] for f64,
    /// `Complex<half::f16>` and `Complex<half::bf16>` for f16 and bf16.
    pub fn process<T: Element>(&self, data: &mut [T]) -> Result<()> {
        self.same_rows()?;
        self.check_values::<T>(data.len())?;
        with_words_mut(data, |words| self.exec.process(words))
    }

    /// Transforms `input` into `output`; `input` is left unchanged.
    pub fn process_out_of_place<T: Element>(&self, input: &[T], output: &mut [T]) -> Result<()> {
        self.same_rows()?;
        self.check_values::<T>(input.len())?;
        self.spec.check_len(output.len())?;
        with_words_mut(output, |words| {
            self.exec.process_out_of_place(&words_of(input), words)
        })
    }

    /// `Ok` when `len` values of type `T` are what this transform reads: the complex type of
    /// its precision, `n × batch` of them.
    fn check_values<T: Element>(&self, len: usize) -> Result<()> {
        let precision = self.spec.precision;
        if !T::COMPLEX || T::PRECISION != precision {
            let want = match precision {
                Precision::F64 => "Complex64",
                Precision::F16 => "Complex<f16>",
                Precision::Bf16 => "Complex<bf16>",
                _ => "Complex32",
            };
            return Err(Error::InvalidSpec(format!(
                "this transform is planned in {precision}: its values are {want}, not {}",
                T::NAME
            )));
        }
        self.spec.check_len(len)
    }

    /// Transforms the device-resident `data` (`n × batch` elements, uploaded with
    /// [`Device::upload`] to the device this transform was planned on) in place. The work is
    /// queued, not waited for: download the buffer, or [`Device::synchronize`], to wait. (A
    /// checksummed plan waits for its records, to return their verdict.)
    pub fn process_buffer<T: Element>(&self, data: &mut impl AsDeviceBuffer<T>) -> Result<()> {
        let data = data.buffer_mut(TOKEN);
        self.same_rows()?;
        self.check_values::<T>(data.len())?;
        self.exec.process_buffer(&mut data.held)
    }

    /// Transforms the device-resident `input` (`n × batch` elements) into `output` (as
    /// many, on the same device, a buffer apart from `input`), leaving `input` as it was: an
    /// out-of-place run on device memory, as cuFFT's out-of-place plans run. The work is
    /// queued on the device's stream (CUDA) or queue, not waited for, except that a
    /// checksummed plan ([`crate::Checksum`]) waits for its records to report failures, as
    /// [`Fft::process_buffer`] does.
    pub fn process_buffer_into<T: Element>(
        &self,
        input: &mut impl AsDeviceBuffer<T>,
        output: &mut impl AsDeviceBuffer<T>,
    ) -> Result<()> {
        let (input, output) = (input.buffer_mut(TOKEN), output.buffer_mut(TOKEN));
        self.same_rows()?;
        self.check_values::<T>(input.len())?;
        self.check_values::<T>(output.len())?;
        self.exec.process_between(&mut input.held, &mut output.held)
    }

    /// [`Fft::process_buffer_into`] leaving a checksummed plan's records unread, so that
    /// nothing waits (on CUDA; other backends check as `process_buffer_into`). For
    /// [`crate::debug::process_buffer_into_unverified`].
    pub(crate) fn process_buffer_into_unverified<T: Element>(
        &self,
        input: &mut impl AsDeviceBuffer<T>,
        output: &mut impl AsDeviceBuffer<T>,
    ) -> Result<()> {
        let (input, output) = (input.buffer_mut(TOKEN), output.buffer_mut(TOKEN));
        self.same_rows()?;
        self.check_values::<T>(input.len())?;
        self.check_values::<T>(output.len())?;
        self.exec
            .process_between_unverified(&mut input.held, &mut output.held)
    }

    /// Registers and memory of each pass's compiled kernel (CUDA plans only). For
    /// [`crate::debug::kernel_reports`].
    pub(crate) fn kernel_resources(&self) -> Result<Vec<KernelResources>> {
        self.exec.kernel_resources()
    }

    /// Records the in-place transform of `data` (a buffer of this plan's wgpu device, e.g.
    /// a caller's own through [`DeviceBuffer::from_wgpu_buffer`]) into the caller's
    /// `encoder`, among the caller's own commands; it runs when the caller submits. An error
    /// on other devices.
    #[cfg(feature = "wgpu")]
    pub fn record<T: Element>(
        &self,
        encoder: &mut ::wgpu::CommandEncoder,
        data: &mut impl AsDeviceBuffer<T>,
    ) -> Result<()> {
        let data = data.buffer_mut(TOKEN);
        self.same_rows()?;
        self.check_values::<T>(data.len())?;
        self.exec.record(encoder, &mut data.held)
    }

    /// Arms a fault for the next call on this transform: a bit of device memory flipped
    /// between two passes ([`Fault`]), to test that a checksummed transform
    /// ([`crate::Checksum`]) reports it. A fault after the last pass corrupts the stored
    /// output, which no checksum computed in the kernels sees.
    pub fn inject_fault(&self, fault: Fault) -> Result<()> {
        self.exec.inject_fault(fault)
    }

    /// Runs the transform on `input` once for its output, then `reps` more times for timing
    /// (device-resident data; GPU timestamps where the backend has them).
    pub fn measure<T: Element>(&self, input: &[T], reps: usize) -> Result<Measured<T>> {
        self.same_rows()?;
        self.check_values::<T>(input.len())?;
        let mut output = vec![T::default(); input.len()];
        let (seconds, timer) = with_words_mut(&mut output, |words| {
            self.exec.measure(&words_of(input), words, reps.max(1))
        })?;
        Ok(Measured {
            output,
            seconds,
            timer,
        })
    }

    /// Transforms device-resident `src` into `dst` (4-byte words of the plan's precision),
    /// whose rows differ in length for a real transform's half ([`FftSpec::row_lens`]);
    /// `src` is left intact.
    pub(crate) fn process_between(&self, src: &mut Held, dst: &mut Held) -> Result<()> {
        let (src_len, dst_len) = self.spec.row_lens();
        let words = self.spec.precision.complex_bytes() / 4 * self.spec.batch;
        let floats = (words * src_len, words * dst_len);
        if (src.floats(), dst.floats()) != floats {
            return Err(Error::InvalidSpec(format!(
                "the transform reads {} and writes {} 4-byte words; the buffers hold {} and {}",
                floats.0,
                floats.1,
                src.floats(),
                dst.floats()
            )));
        }
        self.exec.process_between(src, dst)
    }

    /// Transforms device-resident `data` (4-byte words of the plan's precision) in place.
    pub(crate) fn process_held(&self, data: &mut Held) -> Result<()> {
        self.same_rows()?;
        let words = self.spec.precision.complex_bytes() / 4 * self.spec.len();
        if data.floats() != words {
            return Err(Error::InvalidSpec(format!(
                "the transform reads {words} 4-byte words; the buffer holds {}",
                data.floats()
            )));
        }
        self.exec.process_buffer(data)
    }

    /// `Ok` unless the transform reads and writes rows of different lengths (a real
    /// transform's half), which only [`Fft::process_between`] runs.
    fn same_rows(&self) -> Result<()> {
        if self.spec.real.is_none() {
            return Ok(());
        }
        Err(Error::InvalidSpec(format!(
            "this {}-point transform is the half of a real one ({:?}), and runs between two \
             device buffers through NdFft",
            self.spec.n, self.spec.real
        )))
    }
}
