//! The CUDA device as a [`Backend`].

use std::sync::Arc;

use super::{CudaDevice, CudaFft, CudaResampler, gpu_err};
use crate::backend::api::Backend;
use crate::backend::buffer::Held;
use crate::backend::resampler::ResampleExec;
use crate::backend::{Executor, compile};
use crate::error::Result;
use crate::plan::{DeviceLimits, Plan, PlanOptions};
use crate::resample::FixedRow;
use crate::spec::FftSpec;

impl Backend for CudaDevice {
    fn name(&self) -> String {
        CudaDevice::name(self)
    }

    fn limits(&self) -> Option<&DeviceLimits> {
        Some(CudaDevice::limits(self))
    }

    fn free_memory(&self) -> Result<Option<u64>> {
        CudaDevice::free_memory(self).map(Some)
    }

    fn fft(
        self: Arc<Self>,
        spec: &FftSpec,
        opts: &PlanOptions,
    ) -> Result<(Option<Plan>, Box<dyn Executor>)> {
        let (plan, exec) = compile(spec, &self.limits, opts, |p| {
            Ok(Box::new(CudaFft::new(self.clone(), p)?))
        })?;
        Ok((Some(plan), exec))
    }

    fn upload(self: Arc<Self>, floats: &[f32]) -> Result<Held> {
        let slice = self
            .stream
            .clone_htod(floats)
            .map_err(gpu_err("uploading"))?;
        Ok(Held::Cuda { dev: self, slice })
    }

    fn zeros(self: Arc<Self>, floats: usize) -> Result<Held> {
        let slice = self
            .stream
            .alloc_zeros::<f32>(floats)
            .map_err(gpu_err("allocating device memory"))?;
        Ok(Held::Cuda { dev: self, slice })
    }

    fn synchronize(&self) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(gpu_err("waiting for the GPU"))
    }

    fn resampler(self: Arc<Self>, n: usize, rows: Vec<FixedRow>) -> Result<Box<dyn ResampleExec>> {
        Ok(Box::new(CudaResampler::new(self, n, &rows)?))
    }
}
