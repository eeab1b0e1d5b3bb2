//! Data kept on a device between steps: upload once, run transforms and resamplers on it,
//! download once.

use std::any::Any;
use std::borrow::Cow;
use std::marker::PhantomData;
use std::ops::Range;
#[cfg(feature = "cuda")]
use std::sync::Arc;

#[cfg(feature = "cuda")]
use cudarc::driver::{CudaSlice, CudaView, CudaViewMut};
use num_complex::{Complex32, Complex64};

use super::Device;
#[cfg(feature = "cuda")]
use super::cuda::CudaMemory;
#[cfg(feature = "wgpu")]
use super::wgpu::WgpuMemory;
use crate::backend::copy::Rows;
use crate::base::precision::Precision;
use crate::error::{Error, Result};

/// An element type device buffers hold: real or complex (interleaved pairs), f32 or f64;
/// complex pairs of [`half::f16`] or [`half::bf16`] for the 16-bit storage precisions.
pub trait Element: bytemuck::Pod + Default + Send + Sync + sealed::Sealed {
    /// 4-byte words per element (device memory is counted in them).
    const FLOATS: usize;
    /// The precision of its values.
    const PRECISION: Precision;
    /// Whether it is complex.
    const COMPLEX: bool;
    /// Its Rust name, for errors.
    const NAME: &'static str;
}

impl Element for f32 {
    const FLOATS: usize = 1;
    const PRECISION: Precision = Precision::F32;
    const COMPLEX: bool = false;
    const NAME: &'static str = "f32";
}

impl Element for Complex32 {
    const FLOATS: usize = 2;
    const PRECISION: Precision = Precision::F32;
    const COMPLEX: bool = true;
    const NAME: &'static str = "Complex32";
}

impl Element for f64 {
    const FLOATS: usize = 2;
    const PRECISION: Precision = Precision::F64;
    const COMPLEX: bool = false;
    const NAME: &'static str = "f64";
}

impl Element for Complex64 {
    const FLOATS: usize = 4;
    const PRECISION: Precision = Precision::F64;
    const COMPLEX: bool = true;
    const NAME: &'static str = "Complex64";
}

impl Element for num_complex::Complex<half::f16> {
    const FLOATS: usize = 1;
    const PRECISION: Precision = Precision::F16;
    const COMPLEX: bool = true;
    const NAME: &'static str = "Complex<f16>";
}

impl Element for num_complex::Complex<half::bf16> {
    const FLOATS: usize = 1;
    const PRECISION: Precision = Precision::Bf16;
    const COMPLEX: bool = true;
    const NAME: &'static str = "Complex<bf16>";
}

/// `values` as the 4-byte words device memory holds: borrowed where they are aligned for
/// f32 (16-bit pairs need not be), else copied.
pub(crate) fn words_of<T: Element>(values: &[T]) -> Cow<'_, [f32]> {
    match bytemuck::try_cast_slice(values) {
        Ok(words) => Cow::Borrowed(words),
        Err(_) => {
            let mut words = vec![0f32; values.len() * T::FLOATS];
            bytemuck::cast_slice_mut::<f32, u8>(&mut words)
                .copy_from_slice(bytemuck::cast_slice(values));
            Cow::Owned(words)
        }
    }
}

/// Runs `f` on `values` as 4-byte words, through an aligned copy where they are not aligned
/// for f32.
pub(crate) fn with_words_mut<T: Element, R>(
    values: &mut [T],
    f: impl FnOnce(&mut [f32]) -> R,
) -> R {
    if let Ok(words) = bytemuck::try_cast_slice_mut(values) {
        return f(words);
    }
    let mut words = words_of(values).into_owned();
    let r = f(&mut words);
    bytemuck::cast_slice_mut::<T, u8>(values).copy_from_slice(bytemuck::cast_slice(&words));
    r
}

/// A real element type, f32 or f64, whose complex type is also an [`Element`]: the reals of
/// real-data transforms ([`crate::NdFft::process_real_to_complex`]).
pub trait RealElement: Element {}

impl RealElement for f32 {}
impl RealElement for f64 {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for num_complex::Complex32 {}
    impl Sealed for f64 {}
    impl Sealed for num_complex::Complex64 {}
    impl Sealed for num_complex::Complex<half::f16> {}
    impl Sealed for num_complex::Complex<half::bf16> {}
}

/// Data held by one [`Device`] (host memory for [`Device::cpu`]), typed by element: complex
/// f32 (the default) or real f32. Made by [`Device::upload`]; transformed in place by
/// [`crate::Fft::process_buffer`], or from one buffer into another by [`crate::NdFft`].
pub struct DeviceBuffer<T: Element = Complex32> {
    pub(crate) held: Held,
    element: PhantomData<T>,
}

/// One backend's memory: f32 values in order (complex values as interleaved pairs), so
/// that one memory can be seen as real or complex elements. Each backend has its own type,
/// which its kernels find again by downcasting ([`Held::get`]).
pub(crate) trait Memory: Any + Send + Sync {
    /// f32 values held.
    fn floats(&self) -> usize;

    /// The name of the device holding the data.
    fn device_name(&self) -> String;

    /// Copies all the values to `out` (as long as the memory), waiting for the work on them.
    fn read(&self, out: &mut [f32]) -> Result<()>;

    /// Copies `data` (as long as the memory) in, ordered after the work queued so far.
    fn write(&mut self, data: &[f32]) -> Result<()>;

    /// Sets every value to zero, ordered after the work queued so far.
    fn fill_zeros(&mut self) -> Result<()>;

    /// The values `floats` (inside the memory) as memory of their own, borrowed: it frees
    /// nothing, and the caller ([`DeviceBuffer::view_mut`]) keeps this memory borrowed
    /// while it lives.
    fn view(&mut self, floats: Range<usize>) -> Result<Held>;

    /// The values `floats`, on the host (waiting for the device): a distributed transform's
    /// blocks.
    fn read_range(&self, _floats: Range<usize>) -> Result<Vec<f32>> {
        Err(not_distributed(&self.device_name()))
    }

    /// Writes `values` over the values `floats`.
    fn write_range(&mut self, _floats: Range<usize>, _values: &[f32]) -> Result<()> {
        Err(not_distributed(&self.device_name()))
    }

    /// Copies the rows `c` describes (complex elements, checked to lie inside both) into
    /// `dst`, which must be memory of the same device; queued where the device queues.
    fn copy_rows(&self, dst: &mut Held, c: &Rows) -> Result<()>;
}

/// The error for distributed-transform work on a backend that does not do it.
fn not_distributed(device: &str) -> Error {
    Error::Unsupported {
        what: "a distributed transform".into(),
        device: device.into(),
        detail: "distributed transforms run on CUDA GPUs (over NCCL) or on the CPU".into(),
    }
}

/// Where a buffer's data are: one backend's [`Memory`].
pub(crate) struct Held(Box<dyn Memory>);

impl Held {
    pub(crate) fn new(memory: impl Memory) -> Held {
        Held(Box::new(memory))
    }

    /// The memory as backend type `M`, if it is one.
    pub(crate) fn get<M: Memory>(&self) -> Option<&M> {
        (&*self.0 as &dyn Any).downcast_ref()
    }

    /// The memory as backend type `M`, mutable, if it is one.
    pub(crate) fn get_mut<M: Memory>(&mut self) -> Option<&mut M> {
        (&mut *self.0 as &mut dyn Any).downcast_mut()
    }

    /// The memory as backend type `M`, if it is one (else it is dropped).
    #[cfg(feature = "cuda")]
    pub(crate) fn into_inner<M: Memory>(self) -> Option<M> {
        let any: Box<dyn Any> = self.0;
        any.downcast().ok().map(|m| *m)
    }

    /// f32 values held.
    pub(crate) fn floats(&self) -> usize {
        self.0.floats()
    }

    pub(crate) fn memory(&self) -> &dyn Memory {
        &*self.0
    }

    pub(crate) fn memory_mut(&mut self) -> &mut dyn Memory {
        &mut *self.0
    }
}

impl Device {
    /// Copies `data` (complex or real f32) to the device.
    pub fn upload<T: Element>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        let held = self.backend().upload(&words_of(data))?;
        Ok(DeviceBuffer::new(held))
    }

    /// A buffer of `len` complex zeros on the device.
    pub fn zeros(&self, len: usize) -> Result<DeviceBuffer> {
        self.zeros_of(len)
    }

    /// A buffer of `len` zeros of any element type on the device.
    pub fn zeros_of<T: Element>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let floats = T::FLOATS
            .checked_mul(len)
            .filter(|f| f.checked_mul(4).is_some())
            .ok_or_else(|| Error::TooLarge {
                what: format!("a buffer of {len} elements"),
                device: self.name(),
                detail: "its size in bytes overflows".into(),
            })?;
        let held = self.backend().zeros(floats)?;
        Ok(DeviceBuffer::new(held))
    }

    /// Makes ahead of time what host copies use (on CUDA the pinned staging buffers, made on
    /// the first copy otherwise), so that the first copy is as fast as the next.
    pub fn prepare_transfers(&self) -> Result<()> {
        self.backend_ref().prepare_transfers()
    }

    /// Waits until the device has finished all work submitted so far (for wall-clock timing
    /// of steps on device-resident data).
    pub fn synchronize(&self) -> Result<()> {
        self.backend_ref().synchronize()
    }
}

impl<T: Element> DeviceBuffer<T> {
    /// A caller's cudarc array as a buffer of `device`, without a copy: `T`'s values as
    /// interleaved f32 (complex values as pairs). The array must belong to `device`'s CUDA
    /// context; [`DeviceBuffer::into_cuda_slice`] gives it back. On `Err` the slice has been
    /// dropped (and its memory freed): check it first with
    /// [`DeviceBuffer::check_cuda_slice`] where the memory is only lent.
    #[cfg(feature = "cuda")]
    pub fn from_cuda_slice(device: &Device, slice: CudaSlice<f32>) -> Result<Self> {
        let dev = Self::check_cuda_slice(device, &slice)?;
        Ok(DeviceBuffer::new(Held::new(CudaMemory { dev, slice })))
    }

    /// What [`DeviceBuffer::from_cuda_slice`] checks, without taking the slice: `device` is
    /// a CUDA device of the slice's context, and the slice holds whole `T`s.
    #[cfg(feature = "cuda")]
    pub fn check_cuda_slice(
        device: &Device,
        slice: &CudaSlice<f32>,
    ) -> Result<Arc<crate::backend::cuda::CudaDevice>> {
        let Some(dev) = device.cuda_device() else {
            return Err(Error::InvalidSpec(format!(
                "a CUDA array was given for '{}', which is not a CUDA device",
                device.name()
            )));
        };
        if !Arc::ptr_eq(slice.context(), dev.context()) {
            return Err(Error::InvalidSpec(
                "the CUDA array belongs to another context than the device's (open the \
                 device with Device::cuda_on_stream on a stream of the array's context)"
                    .into(),
            ));
        }
        whole_elements::<T>(4 * slice.len() as u64, "CUDA array")?;
        Ok(dev)
    }

    /// A caller's wgpu buffer as a buffer of `device` (made by [`Device::from_wgpu`] from
    /// the device that made the buffer), without a copy: `T`'s values as f32 (complex values
    /// as pairs). Transforms need `STORAGE`, `COPY_SRC` and `COPY_DST` usage.
    /// [`DeviceBuffer::wgpu_buffer`] gives it back.
    #[cfg(feature = "wgpu")]
    pub fn from_wgpu_buffer(device: &Device, buffer: ::wgpu::Buffer) -> Result<Self> {
        use ::wgpu::BufferUsages as U;
        let Some(dev) = device.wgpu_device() else {
            return Err(Error::InvalidSpec(format!(
                "a wgpu buffer was given for '{}', which is not a wgpu device",
                device.name()
            )));
        };
        let need = U::STORAGE | U::COPY_SRC | U::COPY_DST;
        if !buffer.usage().contains(need) {
            return Err(Error::InvalidSpec(format!(
                "the wgpu buffer's usage {:?} lacks {:?}, which transforms need",
                buffer.usage(),
                need - buffer.usage()
            )));
        }
        whole_elements::<T>(buffer.size(), "wgpu buffer")?;
        Ok(DeviceBuffer::new(Held::new(WgpuMemory {
            dev: dev.clone(),
            offset: 0,
            floats: (buffer.size() / 4) as usize,
            buffer,
        })))
    }

    /// The wgpu buffer behind a wgpu device's buffer (a handle to the same memory).
    #[cfg(feature = "wgpu")]
    pub fn wgpu_buffer(&self) -> Option<&::wgpu::Buffer> {
        self.held.get::<WgpuMemory>().map(|m| &m.buffer)
    }

    /// The memory of a CUDA buffer borrowed as a cudarc view (`T`'s values as interleaved
    /// f32, [`DeviceBuffer::len`] × `T::FLOATS` of them), for a caller's own kernels or
    /// libraries (cuFFT, say) on the device's stream, without a copy or a wait: the view
    /// orders with tierfft's work as any cudarc array does. `None` for buffers of other
    /// devices.
    #[cfg(feature = "cuda")]
    pub fn cuda_view(&self) -> Option<CudaView<'_, f32>> {
        CudaMemory::slice_in(&self.held).map(CudaSlice::as_view)
    }

    /// [`DeviceBuffer::cuda_view`], mutable: for a caller's work that writes the buffer (or
    /// may, as cuFFT may overwrite the input of an out-of-place transform).
    #[cfg(feature = "cuda")]
    pub fn cuda_view_mut(&mut self) -> Option<CudaViewMut<'_, f32>> {
        CudaMemory::slice_in_mut(&mut self.held).map(CudaSlice::as_view_mut)
    }

    /// The cudarc array behind a CUDA buffer, without a copy (work queued on it stays
    /// ordered on the device's stream); an error for buffers of other devices.
    #[cfg(feature = "cuda")]
    pub fn into_cuda_slice(self) -> Result<CudaSlice<f32>> {
        self.held
            .into_inner::<CudaMemory>()
            .map(|m| m.slice)
            .ok_or_else(|| Error::InvalidSpec("this buffer is not on a CUDA device".into()))
    }
}

impl<T: Element> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("len", &self.len())
            .field("device", &self.device_name())
            .finish()
    }
}

impl<T: Element> DeviceBuffer<T> {
    pub(crate) fn new(held: Held) -> Self {
        DeviceBuffer {
            held,
            element: PhantomData,
        }
    }

    /// Elements held.
    pub fn len(&self) -> usize {
        self.held.floats() / T::FLOATS
    }

    /// True when the buffer holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The name of the device holding the data.
    pub fn device_name(&self) -> String {
        self.held.memory().device_name()
    }

    /// Copies the data to `out` (waiting for the work on them), which must hold
    /// [`DeviceBuffer::len`] elements.
    pub fn read_into(&self, out: &mut [T]) -> Result<()> {
        if out.len() != self.len() {
            return Err(Error::InvalidSpec(format!(
                "reading a buffer of {} elements into {}",
                self.len(),
                out.len()
            )));
        }
        with_words_mut(out, |words| self.held.memory().read(words))
    }

    /// Copies `data` (as many elements as the buffer holds) into the buffer, ordered after
    /// the work queued on it so far: a device buffer reused for new data instead of a new
    /// upload. On CUDA through pinned staging buffers, as uploads.
    pub fn write(&mut self, data: &[T]) -> Result<()> {
        if data.len() != self.len() {
            return Err(Error::InvalidSpec(format!(
                "writing {} elements into a buffer of {}",
                data.len(),
                self.len()
            )));
        }
        self.held.memory_mut().write(&words_of(data))
    }

    /// Sets every element to zero, ordered after the work queued on the buffer so far (on a
    /// GPU without a copy from the host): a buffer reused for new data.
    pub fn fill_zeros(&mut self) -> Result<()> {
        self.held.memory_mut().fill_zeros()
    }

    /// The data, copied to the host.
    pub fn download(&self) -> Result<Vec<T>> {
        let mut out = vec![T::default(); self.len()];
        self.read_into(&mut out)?;
        Ok(out)
    }
}

/// `Ok` when `ours` accepts every buffer's storage, else the [`foreign`] error for the first
/// it rejects.
pub(crate) fn check_ours<T: Element>(
    buffers: &[&DeviceBuffer<T>],
    ours: impl Fn(&Held) -> bool,
    device: &str,
) -> Result<()> {
    match buffers.iter().find(|b| !ours(&b.held)) {
        Some(b) => Err(foreign(&b.held, device)),
        None => Ok(()),
    }
}

/// The error for a buffer handed to work planned on another device.
/// A caller's memory of `bytes` (`what`: its kind) holds whole elements of `T`.
#[cfg(any(feature = "cuda", feature = "wgpu"))]
fn whole_elements<T: Element>(bytes: u64, what: &str) -> Result<()> {
    let element = 4 * T::FLOATS as u64;
    if bytes.is_multiple_of(element) {
        return Ok(());
    }
    Err(Error::InvalidSpec(format!(
        "a {what} of {bytes} bytes does not hold whole elements of {element} bytes"
    )))
}

pub(crate) fn foreign(held: &Held, device: &str) -> Error {
    Error::InvalidSpec(format!(
        "the buffer lives on '{}' but the work was planned for '{device}': upload it with the \
         same Device",
        held.memory().device_name()
    ))
}
