//! The wgpu device as a [`Backend`].

use std::sync::Arc;

use super::{WgpuDevice, WgpuFft, WgpuResampler};
use crate::backend::Executor;
use crate::backend::api::Backend;
use crate::backend::buffer::Held;
use crate::backend::resampler::ResampleExec;
use crate::error::Result;
use crate::plan::{DeviceLimits, Plan};
use crate::resample::FixedRow;

impl Backend for WgpuDevice {
    fn name(&self) -> String {
        WgpuDevice::name(self)
    }

    fn limits(&self) -> Option<&DeviceLimits> {
        Some(WgpuDevice::limits(self))
    }

    fn executor(self: Arc<Self>, plan: &Plan) -> Result<Box<dyn Executor>> {
        Ok(Box::new(WgpuFft::new(self, plan)?))
    }

    fn upload(self: Arc<Self>, floats: &[f32]) -> Result<Held> {
        Ok(Held::Wgpu {
            buffer: WgpuDevice::upload(&self, floats)?,
            floats: floats.len(),
            dev: self,
        })
    }

    fn zeros(self: Arc<Self>, floats: usize) -> Result<Held> {
        Ok(Held::Wgpu {
            // wgpu zero-initialises new buffers.
            buffer: self.storage((4 * floats).max(4) as u64, "tierfft data")?,
            floats,
            dev: self,
        })
    }

    fn synchronize(&self) -> Result<()> {
        self.wait()
    }

    fn resampler(self: Arc<Self>, n: usize, rows: Vec<FixedRow>) -> Result<Box<dyn ResampleExec>> {
        Ok(Box::new(WgpuResampler::new(self, n, &rows)?))
    }
}
