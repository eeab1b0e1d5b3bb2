//! The wgpu device as a [`Backend`].

use std::ops::Range;
use std::sync::Arc;

use super::one::OneDispatch;
use super::{WgpuDevice, WgpuFft};
use crate::backend::api::Backend;
use crate::backend::buffer::{Held, Memory};
use crate::backend::copy::Rows;
use crate::backend::reshape::ReshapeExec;
use crate::backend::view::check_view_start;
use crate::backend::{Device, DeviceKind, Executor};
use crate::error::{Error, Result};
use crate::kernel::ir::Kernel;
use crate::plan::{DeviceLimits, Plan};

/// Memory of a wgpu device: `floats` f32 values from byte `offset` of a storage buffer (the
/// whole buffer but for a view's memory; the buffer is at least 4 bytes long: wgpu binds no
/// empty buffer). wgpu buffers are shared handles, so a view's memory is a handle too.
pub(crate) struct WgpuMemory {
    pub(crate) dev: Arc<WgpuDevice>,
    pub(crate) buffer: ::wgpu::Buffer,
    pub(crate) offset: u64,
    pub(crate) floats: usize,
}

impl WgpuMemory {
    /// `held`'s memory, when it is memory of `dev`.
    pub(crate) fn of<'a>(held: &'a Held, dev: &Arc<WgpuDevice>) -> Option<&'a WgpuMemory> {
        held.get::<WgpuMemory>()
            .filter(|m| Arc::ptr_eq(&m.dev, dev))
    }

    /// The memory as one binding.
    pub(crate) fn binding(&self) -> ::wgpu::BindingResource<'_> {
        ::wgpu::BindingResource::Buffer(::wgpu::BufferBinding {
            buffer: &self.buffer,
            offset: self.offset,
            size: ::wgpu::BufferSize::new(4 * self.floats as u64),
        })
    }
}

impl Memory for WgpuMemory {
    fn floats(&self) -> usize {
        self.floats
    }

    fn device_name(&self) -> String {
        self.dev.name()
    }

    fn read(&self, out: &mut [f32]) -> Result<()> {
        self.dev.read(&self.buffer, self.offset, out)
    }

    fn write(&mut self, data: &[f32]) -> Result<()> {
        self.dev.write(&self.buffer, self.offset, data)
    }

    fn fill_zeros(&mut self) -> Result<()> {
        let mut enc = self.dev.device.create_command_encoder(&Default::default());
        enc.clear_buffer(&self.buffer, self.offset, Some(4 * self.floats as u64));
        self.dev.queue.submit([enc.finish()]);
        self.dev.check()
    }

    /// One buffer copy per row, in one submission.
    fn copy_rows(&self, dst: &mut Held, c: &Rows) -> Result<()> {
        let Some(into) = WgpuMemory::of(dst, &self.dev) else {
            return Err(Error::InvalidSpec(
                "copying rows between buffers on two devices: both must be on one".into(),
            ));
        };
        let at = |first: usize, pitch: usize, row: usize| 8 * (first + row * pitch) as u64;
        let mut enc = self.dev.device.create_command_encoder(&Default::default());
        for row in 0..c.rows {
            enc.copy_buffer_to_buffer(
                &self.buffer,
                self.offset + at(c.src, c.src_pitch, row),
                &into.buffer,
                into.offset + at(c.dst, c.dst_pitch, row),
                8 * c.row_len as u64,
            );
        }
        self.dev.queue.submit([enc.finish()]);
        self.dev.check()
    }

    fn view(&mut self, floats: Range<usize>) -> Result<Held> {
        let offset = self.offset + 4 * floats.start as u64;
        check_view_start(
            offset,
            self.dev.limits().binding_alignment,
            &self.dev.name(),
        )?;
        Ok(Held::new(WgpuMemory {
            dev: self.dev.clone(),
            buffer: self.buffer.clone(),
            offset,
            floats: floats.len(),
        }))
    }
}

impl Backend for WgpuDevice {
    fn name(&self) -> String {
        WgpuDevice::name(self)
    }

    fn kind(&self) -> DeviceKind {
        DeviceKind::Wgpu
    }

    fn driver(&self) -> String {
        WgpuDevice::driver(self)
    }

    fn limits(&self) -> Option<&DeviceLimits> {
        Some(WgpuDevice::limits(self))
    }

    fn executor(self: Arc<Self>, plan: &Plan) -> Result<Box<dyn Executor>> {
        Ok(Box::new(WgpuFft::new(self, plan)?))
    }

    fn upload(self: Arc<Self>, floats: &[f32]) -> Result<Held> {
        Ok(Held::new(WgpuMemory {
            buffer: WgpuDevice::upload(&self, floats)?,
            offset: 0,
            floats: floats.len(),
            dev: self,
        }))
    }

    fn zeros(self: Arc<Self>, floats: usize) -> Result<Held> {
        Ok(Held::new(WgpuMemory {
            // wgpu zero-initialises new buffers.
            buffer: self.storage((4 * floats).max(4) as u64, "tierfft data")?,
            offset: 0,
            floats,
            dev: self,
        }))
    }

    fn synchronize(&self) -> Result<()> {
        self.wait()
    }

    fn one_kernel(
        self: Arc<Self>,
        kernel: &Kernel,
        table: Option<&[u8]>,
        lines: u32,
        grid: (u32, u32),
        floats: (usize, usize),
    ) -> Result<Box<dyn ReshapeExec>> {
        Ok(Box::new(OneDispatch::new(
            self, kernel, table, lines, grid, floats,
        )?))
    }
}

impl From<Arc<WgpuDevice>> for Device {
    fn from(device: Arc<WgpuDevice>) -> Device {
        Device::with_backend(device)
    }
}
