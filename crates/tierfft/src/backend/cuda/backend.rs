//! The CUDA device as a [`Backend`].

use std::sync::Arc;

use super::{CudaDevice, CudaFft, CudaResampler, gpu_err};
use crate::backend::Executor;
use crate::backend::api::Backend;
use crate::backend::buffer::Held;
use crate::backend::resampler::ResampleExec;
use crate::error::Result;
use crate::plan::{DeviceLimits, Plan};
use crate::resample::FixedRow;

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

    fn executor(self: Arc<Self>, plan: &Plan) -> Result<Box<dyn Executor>> {
        Ok(Box::new(CudaFft::new(self, plan)?))
    }

    fn upload(self: Arc<Self>, floats: &[f32]) -> Result<Held> {
        // SAFETY: every value is written by the copy before anything reads it.
        let mut slice = unsafe { self.stream.alloc::<f32>(floats.len()) }
            .map_err(gpu_err("allocating device memory"))?;
        self.write_from_host(floats, &mut slice)?;
        Ok(Held::Cuda { dev: self, slice })
    }

    fn zeros(self: Arc<Self>, floats: usize) -> Result<Held> {
        let slice = self
            .stream
            .alloc_zeros::<f32>(floats)
            .map_err(gpu_err("allocating device memory"))?;
        Ok(Held::Cuda { dev: self, slice })
    }

    fn prepare_transfers(&self) -> Result<()> {
        CudaDevice::prepare_transfers(self)
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
