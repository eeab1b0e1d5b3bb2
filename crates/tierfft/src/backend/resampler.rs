//! Planned resampling ([`crate::resample`]) on a device: [`Device::plan_resample`].

use num_complex::Complex32;
use rayon::prelude::*;

use super::api::CPU_NAME;
use super::buffer::{DeviceBuffer, check_ours, foreign};
use super::cpu::HostMemory;
use super::reshape::ReshapeExec;
use super::view::sealed::TOKEN;
use super::{AsDeviceBuffer, Device, Measured};
use crate::error::{Error, Result};
use crate::resample::{FixedRow, ResampleSpec, TAPS, resample_row, weight_table};

/// What each backend's planned resampler does: `input` → `output`, both on its device
/// (queued, not waited for).
pub(crate) trait ResampleExec: Send + Sync {
    fn run(&self, input: &DeviceBuffer, output: &mut DeviceBuffer) -> Result<()>;
}

/// A GPU backend's resampler: the resampling kernel compiled by its one-kernel launcher
/// ([`super::api::Backend::one_kernel`]), with the row positions as its table.
pub(crate) struct KernelResampler(pub(crate) Box<dyn ReshapeExec>);

impl ResampleExec for KernelResampler {
    fn run(&self, input: &DeviceBuffer, output: &mut DeviceBuffer) -> Result<()> {
        self.0.run(&input.held, &mut output.held)
    }
}

/// Resampling planned (and its kernel compiled) for one device. Reusable; `Send + Sync`.
pub struct Resampler {
    spec: ResampleSpec,
    device: Device,
    exec: Box<dyn ResampleExec>,
}

impl std::fmt::Debug for Resampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resampler")
            .field("spec", &self.spec)
            .field("device", &self.device)
            .finish_non_exhaustive()
    }
}

impl Device {
    /// Plans `spec` on this device: checks the positions fit the kernels' fixed point,
    /// compiles the kernel and uploads the weight table and row positions.
    pub fn plan_resample(&self, spec: &ResampleSpec) -> Result<Resampler> {
        let exec = self.backend().resampler(spec.n, spec.fixed_rows()?)?;
        Ok(Resampler {
            spec: spec.clone(),
            device: self.clone(),
            exec,
        })
    }
}

impl Resampler {
    /// What this resampler computes.
    pub fn spec(&self) -> &ResampleSpec {
        &self.spec
    }

    fn check(&self, len: usize) -> Result<()> {
        if len == self.spec.len() {
            return Ok(());
        }
        Err(Error::InvalidSpec(format!(
            "resampling {} rows of {} samples needs {} elements, the buffer holds {len}",
            self.spec.rows.len(),
            self.spec.n,
            self.spec.len()
        )))
    }

    /// Resamples device-resident `input` into `output` (both uploaded to the device this
    /// was planned on; `n × rows` elements each). Queued, not waited for.
    pub fn process_buffer(
        &self,
        input: &impl AsDeviceBuffer,
        output: &mut impl AsDeviceBuffer,
    ) -> Result<()> {
        let (input, output) = (input.buffer(TOKEN), output.buffer_mut(TOKEN));
        self.check(input.len())?;
        self.check(output.len())?;
        self.exec.run(input, output)
    }

    /// Resamples `input` into `output` through the device (upload, run, download).
    pub fn process(&self, input: &[Complex32], output: &mut [Complex32]) -> Result<()> {
        self.check(input.len())?;
        self.check(output.len())?;
        let src = self.device.upload(input)?;
        let mut dst = self.device.zeros(output.len())?;
        self.exec.run(&src, &mut dst)?;
        dst.read_into(output)
    }

    /// Runs once on `input` for the output, then `reps` more times for timing (device-resident
    /// data; CUDA events on CUDA, the host clock around each run elsewhere).
    pub fn measure(&self, input: &[Complex32], reps: usize) -> Result<Measured> {
        self.check(input.len())?;
        let src = self.device.upload(input)?;
        let poison = vec![Complex32::new(f32::NAN, f32::NAN); input.len()];
        let mut dst = self.device.upload(&poison)?;
        self.exec.run(&src, &mut dst)?;
        let output = dst.download()?;
        let reps = reps.max(1);
        let (seconds, timer) = self
            .device
            .time_runs(reps, &mut || self.exec.run(&src, &mut dst))?;
        Ok(Measured {
            output,
            seconds,
            timer,
        })
    }
}

/// The CPU reference, rows spread over the machine's cores (rayon's pool).
pub(crate) struct CpuResampler {
    n: usize,
    rows: Vec<FixedRow>,
    table: Vec<[f32; TAPS]>,
}

impl CpuResampler {
    pub(crate) fn new(n: usize, rows: Vec<FixedRow>) -> CpuResampler {
        CpuResampler {
            n,
            rows,
            table: weight_table(),
        }
    }
}

impl ResampleExec for CpuResampler {
    fn run(&self, input: &DeviceBuffer, output: &mut DeviceBuffer) -> Result<()> {
        check_ours(&[input, output], |h| HostMemory::of(h).is_some(), CPU_NAME)?;
        let (Some(src), Some(dst)) = (
            HostMemory::of(&input.held),
            HostMemory::of_mut(&mut output.held),
        ) else {
            return Err(foreign(&input.held, CPU_NAME));
        };
        let (src, dst): (&[Complex32], &mut [Complex32]) =
            (bytemuck::cast_slice(src), bytemuck::cast_slice_mut(dst));
        let n = self.n;
        dst.par_chunks_mut(n)
            .zip(src.par_chunks(n))
            .zip(self.rows.par_iter())
            .for_each(|((out, input), row)| resample_row(&self.table, row, input, out));
        Ok(())
    }
}
