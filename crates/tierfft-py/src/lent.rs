//! Callers' CUDA arrays (read from DLPack capsules) lent to tierfft as device buffers for
//! one call and given back, never freed: one array ([`Lent`]), or the inputs and outputs of
//! the ranks of a distributed transform ([`LentParts`]).

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};
use tierfft::{Device, DeviceBuffer, Element};

use crate::distributed::{Buffers, Kind};

/// A caller's CUDA memory as a cudarc slice that is given back, never freed, when dropped.
pub(crate) struct Lent(Option<CudaSlice<f32>>);

impl Lent {
    /// # Safety
    /// `pointer` must address `floats` f32 values of the stream's context, alive while this
    /// lives.
    pub(crate) unsafe fn new(stream: &Arc<CudaStream>, pointer: u64, floats: usize) -> Lent {
        Lent(Some(unsafe { stream.upgrade_device_ptr(pointer, floats) }))
    }

    pub(crate) fn slice(&self) -> tierfft::Result<&CudaSlice<f32>> {
        self.0.as_ref().ok_or_else(Lent::gone)
    }

    /// The memory, writable.
    pub(crate) fn slice_mut(&mut self) -> tierfft::Result<&mut CudaSlice<f32>> {
        self.0.as_mut().ok_or_else(Lent::gone)
    }

    /// The slice is only taken inside [`Lent::with_buffer`], which puts it back.
    fn gone() -> tierfft::Error {
        tierfft::Error::InvalidSpec("a lent CUDA array was used after it was given back".into())
    }

    /// Runs `f` on the memory as a buffer of `device` (the CUDA device of its stream), then
    /// takes the memory back.
    pub(crate) fn with_buffer<T: Element>(
        mut self,
        device: &Device,
        f: impl FnOnce(&mut DeviceBuffer<T>) -> tierfft::Result<()>,
    ) -> tierfft::Result<()> {
        // Checked before the slice is handed over: a refused slice would be freed.
        DeviceBuffer::<T>::check_cuda_slice(device, self.slice()?)?;
        let slice = self.0.take().ok_or_else(Lent::gone)?;
        let mut buffer = DeviceBuffer::<T>::from_cuda_slice(device, slice)?;
        let result = f(&mut buffer);
        self.0 = Some(buffer.into_cuda_slice()?);
        result
    }
}

impl Drop for Lent {
    fn drop(&mut self) {
        if let Some(slice) = self.0.take() {
            slice.leak();
        }
    }
}

/// A caller's CUDA array: `floats` f32 values at `pointer` on `gpu` (`device`).
pub(crate) struct Array {
    pub gpu: Arc<tierfft::backend::cuda::CudaDevice>,
    pub device: Device,
    pub pointer: u64,
    pub floats: usize,
}

/// Callers' CUDA arrays lent as device buffers of the ranks of a distributed transform for
/// one run, and given back (never freed) when dropped, whatever the run did.
pub(crate) struct LentParts {
    pub ins: Buffers,
    pub outs: Buffers,
}

impl LentParts {
    /// The `(input, output)` arrays of each local rank, as buffers of `kind`'s types.
    ///
    /// # Safety
    /// Each array's memory must be alive while this lives.
    pub(crate) unsafe fn new(arrays: &[(Array, Array)], kind: Kind) -> tierfft::Result<LentParts> {
        let buffers = |real: bool| match real {
            true => Buffers::Real(Vec::new()),
            false => Buffers::Complex(Vec::new()),
        };
        let mut lent = LentParts {
            ins: buffers(kind == Kind::RealIn),
            outs: buffers(kind == Kind::RealOut),
        };
        for (input, output) in arrays {
            // SAFETY: the caller's contract, passed on.
            unsafe {
                lend(&mut lent.ins, input)?;
                lend(&mut lent.outs, output)?;
            }
        }
        Ok(lent)
    }
}

/// Adds `array` to `buffers`, as a buffer of their element type.
///
/// # Safety
/// The array's memory must be alive while the buffer is.
unsafe fn lend(buffers: &mut Buffers, array: &Array) -> tierfft::Result<()> {
    // SAFETY: the caller's contract; the slice is given back, not freed (`Lent`'s drop).
    let slice = unsafe {
        array
            .gpu
            .stream()
            .upgrade_device_ptr::<f32>(array.pointer, array.floats)
    };
    // Checked before the slice is handed over: a refused slice would be freed.
    if let Err(e) = DeviceBuffer::<f32>::check_cuda_slice(&array.device, &slice) {
        slice.leak();
        return Err(e);
    }
    match buffers {
        Buffers::Real(v) => v.push(DeviceBuffer::from_cuda_slice(&array.device, slice)?),
        Buffers::Complex(v) => v.push(DeviceBuffer::from_cuda_slice(&array.device, slice)?),
    }
    Ok(())
}

impl Drop for LentParts {
    fn drop(&mut self) {
        for buffers in [&mut self.ins, &mut self.outs] {
            let slices: Vec<_> = match buffers {
                Buffers::Real(v) => v.drain(..).map(DeviceBuffer::into_cuda_slice).collect(),
                Buffers::Complex(v) => v.drain(..).map(DeviceBuffer::into_cuda_slice).collect(),
            };
            for slice in slices.into_iter().flatten() {
                slice.leak();
            }
        }
    }
}
