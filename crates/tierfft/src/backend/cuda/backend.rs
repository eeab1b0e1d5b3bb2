//! The CUDA device as a [`Backend`].

use std::sync::Arc;

use std::mem::ManuallyDrop;
use std::ops::Range;

use cudarc::driver::sys::{CUDA_MEMCPY2D, CUmemorytype, cuMemcpy2DAsync_v2};
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};

use super::one::OneLaunch;
use super::{CudaDevice, CudaFft, gpu_err, time_events, view, view_mut};
use crate::backend::api::Backend;
use crate::backend::buffer::{Held, Memory};
use crate::backend::copy::Rows;
use crate::backend::reshape::ReshapeExec;
use crate::backend::view::check_view_start;
use crate::backend::{Device, DeviceKind, Executor, Timer};
use crate::error::{Error, Result};
use crate::kernel::ir::Kernel;
use crate::plan::{DeviceLimits, Plan};

/// Bytes of a complex f32 element.
const COMPLEX: usize = 8;

/// Memory of a CUDA device: f32 values.
pub(crate) struct CudaMemory {
    pub(crate) dev: Arc<CudaDevice>,
    pub(crate) slice: CudaSlice<f32>,
}

/// Part of another CUDA memory, for a [`crate::BufferView`]: its array is a cudarc handle
/// to memory it does not own, given up (not freed) when this is dropped.
pub(crate) struct CudaBorrowed(ManuallyDrop<CudaMemory>);

impl Drop for CudaBorrowed {
    fn drop(&mut self) {
        // SAFETY: the memory is taken once, here, and never used again.
        let memory = unsafe { ManuallyDrop::take(&mut self.0) };
        memory.slice.leak();
    }
}

impl CudaMemory {
    /// `held`'s CUDA memory, owned or a view's.
    fn any_of(held: &Held) -> Option<&CudaMemory> {
        held.get::<CudaMemory>()
            .or_else(|| held.get::<CudaBorrowed>().map(|b| &*b.0))
    }

    /// `held`'s array, owned or a view's, on whichever device.
    pub(crate) fn slice_in(held: &Held) -> Option<&CudaSlice<f32>> {
        CudaMemory::any_of(held).map(|m| &m.slice)
    }

    /// `held`'s array, mutable, owned or a view's, on whichever device (only ever handed
    /// out as a [`cudarc::driver::CudaViewMut`], so that it cannot be swapped out).
    pub(crate) fn slice_in_mut(held: &mut Held) -> Option<&mut CudaSlice<f32>> {
        if held.get::<CudaMemory>().is_some() {
            held.get_mut::<CudaMemory>().map(|m| &mut m.slice)
        } else {
            held.get_mut::<CudaBorrowed>().map(|b| &mut b.0.slice)
        }
    }

    /// `held`'s array, when it is memory of `dev`.
    pub(crate) fn of<'a>(held: &'a Held, dev: &Arc<CudaDevice>) -> Option<&'a CudaSlice<f32>> {
        CudaMemory::any_of(held)
            .filter(|m| Arc::ptr_eq(&m.dev, dev))
            .map(|m| &m.slice)
    }

    /// `held`'s array, mutable, when it is memory of `dev`.
    pub(crate) fn of_mut<'a>(
        held: &'a mut Held,
        dev: &Arc<CudaDevice>,
    ) -> Option<&'a mut CudaSlice<f32>> {
        let memory = if held.get::<CudaMemory>().is_some() {
            held.get_mut::<CudaMemory>()
        } else {
            held.get_mut::<CudaBorrowed>().map(|b| &mut *b.0)
        };
        memory
            .filter(|m| Arc::ptr_eq(&m.dev, dev))
            .map(|m| &mut m.slice)
    }
}

impl Memory for CudaMemory {
    fn floats(&self) -> usize {
        self.slice.len()
    }

    fn device_name(&self) -> String {
        self.dev.name()
    }

    fn read(&self, out: &mut [f32]) -> Result<()> {
        self.dev.read_to_host(&self.slice, out)
    }

    fn write(&mut self, data: &[f32]) -> Result<()> {
        self.dev.write_from_host(data, &mut self.slice)
    }

    fn fill_zeros(&mut self) -> Result<()> {
        self.dev
            .stream()
            .memset_zeros(&mut self.slice)
            .map_err(gpu_err("zeroing device memory"))
    }

    fn view(&mut self, floats: Range<usize>) -> Result<Held> {
        let start = 4 * floats.start as u64;
        check_view_start(start, self.dev.limits().binding_alignment, &self.dev.name())?;
        let stream = self.dev.stream();
        let (base, _written) = self.slice.device_ptr_mut(stream);
        // SAFETY: the range lies inside this allocation (checked by the caller), which the
        // view's borrow keeps alive; the handle frees nothing (`CudaBorrowed` gives it up).
        let slice = unsafe { stream.upgrade_device_ptr::<f32>(base + start, floats.len()) };
        Ok(Held::new(CudaBorrowed(ManuallyDrop::new(CudaMemory {
            dev: self.dev.clone(),
            slice,
        }))))
    }

    fn read_range(&self, floats: Range<usize>) -> Result<Vec<f32>> {
        let stream = self.dev.stream();
        let values = stream
            .clone_dtoh(&view(&self.slice, floats, "a block to exchange")?)
            .map_err(gpu_err("reading a block to exchange"))?;
        stream
            .synchronize()
            .map_err(gpu_err("reading a block to exchange"))?;
        Ok(values)
    }

    fn write_range(&mut self, floats: Range<usize>, values: &[f32]) -> Result<()> {
        if values.len() != floats.len() {
            return Err(Error::gpu(format!(
                "writing {} values into elements {}..{} of a device array",
                values.len(),
                floats.start,
                floats.end
            )));
        }
        let stream = self.dev.stream();
        stream
            .memcpy_htod(
                values,
                &mut view_mut(&mut self.slice, floats, "an exchanged block")?,
            )
            .map_err(gpu_err("writing an exchanged block"))?;
        // The host values are dropped on return.
        stream
            .synchronize()
            .map_err(gpu_err("writing an exchanged block"))
    }

    fn copy_rows(&self, dst: &mut Held, c: &Rows) -> Result<()> {
        let Some(into) = CudaMemory::of_mut(dst, &self.dev) else {
            return Err(Error::InvalidSpec(
                "copying rows between buffers on two devices: both must be on one".into(),
            ));
        };
        let stream = self.dev.stream();
        self.dev
            .context()
            .bind_to_thread()
            .map_err(gpu_err("binding the GPU to this thread"))?;
        let (src_ptr, _read) = self.slice.device_ptr(stream);
        let (dst_ptr, _written) = into.device_ptr_mut(stream);
        let copy = CUDA_MEMCPY2D {
            srcXInBytes: 0,
            srcY: 0,
            srcMemoryType: CUmemorytype::CU_MEMORYTYPE_DEVICE,
            srcHost: std::ptr::null(),
            srcDevice: src_ptr + (COMPLEX * c.src) as u64,
            srcArray: std::ptr::null_mut(),
            srcPitch: COMPLEX * c.src_pitch,
            dstXInBytes: 0,
            dstY: 0,
            dstMemoryType: CUmemorytype::CU_MEMORYTYPE_DEVICE,
            dstHost: std::ptr::null_mut(),
            dstDevice: dst_ptr + (COMPLEX * c.dst) as u64,
            dstArray: std::ptr::null_mut(),
            dstPitch: COMPLEX * c.dst_pitch,
            WidthInBytes: COMPLEX * c.row_len,
            Height: c.rows,
        };
        // SAFETY: the caller (`copy::copy_rows`) checked that both ranges lie inside their
        // allocations, the pointers stay valid while the guards live, and the copy is
        // ordered on the stream every use of these buffers is queued on.
        unsafe { cuMemcpy2DAsync_v2(&copy, stream.cu_stream()) }
            .result()
            .map_err(gpu_err("copying rows between device buffers"))
    }
}

/// A view is its part of the memory, as the memory it is part of.
impl Memory for CudaBorrowed {
    fn floats(&self) -> usize {
        self.0.floats()
    }

    fn device_name(&self) -> String {
        self.0.device_name()
    }

    fn read(&self, out: &mut [f32]) -> Result<()> {
        self.0.read(out)
    }

    fn write(&mut self, data: &[f32]) -> Result<()> {
        self.0.write(data)
    }

    fn fill_zeros(&mut self) -> Result<()> {
        self.0.fill_zeros()
    }

    fn view(&mut self, floats: Range<usize>) -> Result<Held> {
        self.0.view(floats)
    }

    fn read_range(&self, floats: Range<usize>) -> Result<Vec<f32>> {
        self.0.read_range(floats)
    }

    fn write_range(&mut self, floats: Range<usize>, values: &[f32]) -> Result<()> {
        self.0.write_range(floats, values)
    }

    fn copy_rows(&self, dst: &mut Held, c: &Rows) -> Result<()> {
        self.0.copy_rows(dst, c)
    }
}

impl Backend for CudaDevice {
    fn name(&self) -> String {
        CudaDevice::name(self)
    }

    fn kind(&self) -> DeviceKind {
        DeviceKind::Cuda
    }

    fn driver(&self) -> String {
        CudaDevice::driver(self)
    }

    fn limits(&self) -> Option<&DeviceLimits> {
        Some(CudaDevice::limits(self))
    }

    fn distributes(&self) -> bool {
        true
    }

    fn free_memory(&self) -> Result<Option<u64>> {
        CudaDevice::free_memory(self).map(Some)
    }

    fn executor(self: Arc<Self>, plan: &Plan) -> Result<Box<dyn Executor>> {
        Ok(Box::new(CudaFft::new(self, plan)?))
    }

    fn upload(self: Arc<Self>, floats: &[f32]) -> Result<Held> {
        // SAFETY: every value is written by the copy before anything reads it.
        let mut slice = unsafe { self.alloc_f32(floats.len(), false) }?;
        self.write_from_host(floats, &mut slice)?;
        Ok(Held::new(CudaMemory { dev: self, slice }))
    }

    fn zeros(self: Arc<Self>, floats: usize) -> Result<Held> {
        // SAFETY: zeroed.
        let slice = unsafe { self.alloc_f32(floats, true) }?;
        Ok(Held::new(CudaMemory { dev: self, slice }))
    }

    fn prepare_transfers(&self) -> Result<()> {
        CudaDevice::prepare_transfers(self)
    }

    fn synchronize(&self) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(gpu_err("waiting for the GPU"))
    }

    fn one_kernel(
        self: Arc<Self>,
        kernel: &Kernel,
        table: Option<&[u8]>,
        lines: u32,
        grid: (u32, u32),
        floats: (usize, usize),
    ) -> Result<Box<dyn ReshapeExec>> {
        Ok(Box::new(OneLaunch::new(
            self, kernel, table, lines, grid, floats,
        )?))
    }

    fn time_runs(
        &self,
        reps: usize,
        work: &mut dyn FnMut() -> Result<()>,
    ) -> Result<(Vec<f64>, Timer)> {
        Ok((time_events(self, reps, work)?, Timer::GpuTimestamps))
    }
}

impl From<Arc<CudaDevice>> for Device {
    fn from(device: Arc<CudaDevice>) -> Device {
        Device::with_backend(device)
    }
}
