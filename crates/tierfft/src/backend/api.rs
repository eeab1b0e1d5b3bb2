//! What a device does for the layers above it: the one trait a backend implements.
//!
//! [`Device`](super::Device) holds one backend and forwards to it, so adding a backend is
//! implementing [`Backend`] (and its device memory, [`Held`]), not adding an arm to every
//! method of `Device`.

use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

use super::buffer::Held;
use super::cpu::HostMemory;
use super::resampler::{CpuResampler, KernelResampler, ResampleExec};
use super::reshape::ReshapeExec;
use super::{DeviceKind, Executor, Timer, compile, cpu};
use crate::error::{Error, Result};
use crate::kernel::ir::Kernel;
use crate::kernel::{resample_grid, resample_kernel};
use crate::plan::{DeviceLimits, Plan, PlanOptions};
use crate::resample::{FixedRow, row_values};
use crate::spec::FftSpec;

/// One kind of device. Methods that hand out objects holding the device take it as an
/// `Arc`, which those objects keep.
pub(crate) trait Backend: Any + Send + Sync {
    /// The device's name, as `tierfft devices` lists it.
    fn name(&self) -> String;

    /// Which backend this is.
    fn kind(&self) -> DeviceKind;

    /// The driver, as wisdom entries record it (`CUDA 13.0, NVRTC 13.0`; the Vulkan
    /// driver's name and version): shapes measured under one driver are not trusted under
    /// another.
    fn driver(&self) -> String;

    /// The limits the planner uses; `None` for a backend that runs its own plans (the CPU).
    fn limits(&self) -> Option<&DeviceLimits>;

    /// Device memory free now, bytes, where the API says (`None` where it does not).
    fn free_memory(&self) -> Result<Option<u64>> {
        Ok(None)
    }

    /// `plan` compiled for this device.
    fn executor(self: Arc<Self>, plan: &Plan) -> Result<Box<dyn Executor>>;

    /// `spec` planned with `opts` and compiled: the plan (`None` where the backend runs
    /// its own) and what runs it. Backends with limits plan for them (and with
    /// [`PlanOptions::measure`], time the candidates).
    fn fft(
        self: Arc<Self>,
        spec: &FftSpec,
        opts: &PlanOptions,
    ) -> Result<(Option<Plan>, Box<dyn Executor>)> {
        let limits = self
            .limits()
            .cloned()
            .ok_or_else(|| Error::gpu(format!("{} plans nothing itself", self.name())))?;
        let advised = super::wisdom::advise(&self.name(), &self.driver(), spec, &limits, opts)?;
        let build = |p: &Plan| self.clone().executor(p);
        let (plan, exec) = match compile(spec, &limits, &advised, build) {
            // An entry whose shape does not plan or compile for this spec (made for another
            // batch or operations, or by another planner) gives way to the model.
            Err(_) if advised != *opts => compile(spec, &limits, opts, build)?,
            result => result?,
        };
        Ok((Some(plan), exec))
    }

    /// `floats` copied into new device memory.
    fn upload(self: Arc<Self>, floats: &[f32]) -> Result<Held>;

    /// `floats` zeros in new device memory.
    fn zeros(self: Arc<Self>, floats: usize) -> Result<Held>;

    /// Waits until the work submitted so far has finished.
    fn synchronize(&self) -> Result<()>;

    /// Makes ahead of time what host copies use (nothing, unless the backend stages them).
    fn prepare_transfers(&self) -> Result<()> {
        Ok(())
    }

    /// A resampler for rows of `n` output samples at the fixed-point positions `rows`: on a
    /// GPU, the resampling kernel through [`Backend::one_kernel`] with the positions as its
    /// table (three u32 words a row).
    fn resampler(self: Arc<Self>, n: usize, rows: Vec<FixedRow>) -> Result<Box<dyn ResampleExec>> {
        let Some(max_groups) = self.limits().map(|l| l.max_groups_per_dim) else {
            return Err(Error::gpu(format!(
                "{} has no resampling kernel",
                self.name()
            )));
        };
        let floats = 2 * n * rows.len();
        let kernel = self.one_kernel(
            &resample_kernel(n),
            Some(bytemuck::cast_slice(&row_values(&rows))),
            u32::try_from(rows.len()).unwrap_or(u32::MAX),
            resample_grid(n, rows.len(), max_groups),
            (floats, floats),
        )?;
        Ok(Box::new(KernelResampler(kernel)))
    }

    /// `kernel` compiled to run once over a source and a destination of `floats` (read,
    /// written) f32 values, with `table` (its `aux` binding) uploaded, `lines` outputs and
    /// `grid` workgroups: an N-D plan's reshape steps.
    fn one_kernel(
        self: Arc<Self>,
        _kernel: &Kernel,
        _table: Option<&[u8]>,
        _lines: u32,
        _grid: (u32, u32),
        _floats: (usize, usize),
    ) -> Result<Box<dyn ReshapeExec>> {
        Err(Error::gpu(format!("{} compiles no kernels", self.name())))
    }

    /// Times `reps` runs of `work` on data already on the device: device timestamps where
    /// the backend has them, else the host clock around each run and a wait for it.
    fn time_runs(
        &self,
        reps: usize,
        work: &mut dyn FnMut() -> Result<()>,
    ) -> Result<(Vec<f64>, Timer)> {
        let mut seconds = Vec::with_capacity(reps);
        for _ in 0..reps {
            let t = Instant::now();
            work()?;
            self.synchronize()?;
            seconds.push(t.elapsed().as_secs_f64());
        }
        Ok((seconds, Timer::WallClock))
    }

    /// Whether distributed transforms may put ranks on this device (their exchanges read
    /// and write its memory in ranges: [`super::buffer::Memory::read_range`]).
    fn distributes(&self) -> bool {
        false
    }
}

/// The CPU: rustfft's own plans on host memory.
pub(crate) struct Cpu;

/// The CPU's name, as [`Device::name`](super::Device::name) gives it.
pub(crate) const CPU_NAME: &str = "cpu (rustfft)";

impl Backend for Cpu {
    fn name(&self) -> String {
        CPU_NAME.into()
    }

    fn kind(&self) -> DeviceKind {
        DeviceKind::Cpu
    }

    fn driver(&self) -> String {
        "rustfft".into()
    }

    fn distributes(&self) -> bool {
        true
    }

    fn limits(&self) -> Option<&DeviceLimits> {
        None
    }

    fn executor(self: Arc<Self>, plan: &Plan) -> Result<Box<dyn Executor>> {
        Ok(cpu::cpu_fft(&plan.spec))
    }

    fn fft(
        self: Arc<Self>,
        spec: &FftSpec,
        _opts: &PlanOptions,
    ) -> Result<(Option<Plan>, Box<dyn Executor>)> {
        if spec.real.is_some() {
            return Err(Error::Unsupported {
                what: "a real transform's split or merge fused into its FFT".into(),
                device: self.name(),
                detail: "the CPU runs them as steps of their own (NdPlan::new)".into(),
            });
        }
        Ok((None, cpu::cpu_fft(spec)))
    }

    fn upload(self: Arc<Self>, floats: &[f32]) -> Result<Held> {
        let mut v = host_floats(floats.len())?;
        v.extend_from_slice(floats);
        Ok(Held::new(HostMemory::Owned(v)))
    }

    fn zeros(self: Arc<Self>, floats: usize) -> Result<Held> {
        let mut v = host_floats(floats)?;
        v.resize(floats, 0.0);
        Ok(Held::new(HostMemory::Owned(v)))
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn resampler(self: Arc<Self>, n: usize, rows: Vec<FixedRow>) -> Result<Box<dyn ResampleExec>> {
        Ok(Box::new(CpuResampler::new(n, rows)))
    }
}

/// An empty vector with room for `floats` f32: the CPU device's memory is the host's, and
/// asking for more than it can give is [`Error::OutOfMemory`], not an abort.
fn host_floats(floats: usize) -> Result<Vec<f32>> {
    let mut v = Vec::new();
    v.try_reserve_exact(floats)
        .map_err(|e| Error::OutOfMemory {
            what: "host memory for a CPU device buffer".into(),
            requested: Some((floats as u64).saturating_mul(4)),
            free: None,
            source: Some(Box::new(e)),
        })?;
    Ok(v)
}
