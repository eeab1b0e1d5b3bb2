//! What a device does for the layers above it: the one trait a backend implements.
//!
//! [`Device`](super::Device) holds one backend and forwards to it, so adding a backend is
//! implementing [`Backend`] (and its device memory, [`Held`]), not adding an arm to every
//! method of `Device`.

use std::sync::Arc;

use super::buffer::Held;
use super::resampler::{CpuResampler, ResampleExec};
use super::{Executor, compile, cpu};
use crate::error::{Error, Result};
use crate::plan::{DeviceLimits, Plan, PlanOptions};
use crate::resample::FixedRow;
use crate::spec::FftSpec;

/// One kind of device. Methods that hand out objects holding the device take it as an
/// `Arc`, which those objects keep.
pub(crate) trait Backend: Send + Sync {
    /// The device's name, as `tierfft devices` lists it.
    fn name(&self) -> String;

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
        let (plan, exec) = compile(spec, &limits, opts, |p| self.clone().executor(p))?;
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

    /// A resampler for rows of `n` output samples at the fixed-point positions `rows`.
    fn resampler(self: Arc<Self>, n: usize, rows: Vec<FixedRow>) -> Result<Box<dyn ResampleExec>>;
}

/// The CPU: rustfft's own plans on host memory.
pub(crate) struct Cpu;

impl Backend for Cpu {
    fn name(&self) -> String {
        "cpu (rustfft)".into()
    }

    fn limits(&self) -> Option<&DeviceLimits> {
        None
    }

    fn executor(self: Arc<Self>, plan: &Plan) -> Result<Box<dyn Executor>> {
        Ok(Box::new(cpu::CpuFft::new(&plan.spec)))
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
        Ok((None, Box::new(cpu::CpuFft::new(spec))))
    }

    fn upload(self: Arc<Self>, floats: &[f32]) -> Result<Held> {
        Ok(Held::Host(floats.to_vec()))
    }

    fn zeros(self: Arc<Self>, floats: usize) -> Result<Held> {
        Ok(Held::Host(vec![0.0; floats]))
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn resampler(self: Arc<Self>, n: usize, rows: Vec<FixedRow>) -> Result<Box<dyn ResampleExec>> {
        Ok(Box::new(CpuResampler::new(n, rows)))
    }
}
