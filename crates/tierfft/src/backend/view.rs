//! Views: part of a [`DeviceBuffer`] as a buffer of its own, without a copy, for as long as
//! the buffer is borrowed; and [`AsDeviceBuffer`], what the calls that run on device memory
//! take (a buffer or a view).

use std::marker::PhantomData;
use std::ops::{Deref, Range};

use num_complex::Complex32;

use super::buffer::{DeviceBuffer, Element};
use crate::error::{Error, Result};

/// Elements of a [`DeviceBuffer`] taken as a buffer of their own
/// ([`DeviceBuffer::view_mut`]): transforms, resamplers, reads and writes run on that part
/// of the memory alone, in place, while the parent buffer stays borrowed. It reads as a
/// `DeviceBuffer` ([`Deref`]) for its length and contents.
pub struct BufferView<'a, T: Element = Complex32> {
    /// The part, as a buffer whose memory is borrowed from the parent's (its backend's
    /// view memory, which frees nothing when dropped).
    buffer: DeviceBuffer<T>,
    parent: PhantomData<&'a mut DeviceBuffer<T>>,
}

impl<T: Element> DeviceBuffer<T> {
    /// Elements `range` of this buffer as a [`BufferView`], the same memory without a copy
    /// (e.g. some of the rows of a batch). On a GPU the view must start at a multiple of the
    /// device's binding alignment, 256 bytes on CUDA and most wgpu devices (32 complex
    /// values); the CPU takes any start.
    pub fn view_mut(&mut self, range: Range<usize>) -> Result<BufferView<'_, T>> {
        if range.start > range.end || range.end > self.len() {
            return Err(Error::InvalidSpec(format!(
                "a view of elements {range:?} of a buffer of {}",
                self.len()
            )));
        }
        let floats = T::FLOATS * range.start..T::FLOATS * range.end;
        let held = self.held.memory_mut().view(floats)?;
        Ok(BufferView {
            buffer: DeviceBuffer::new(held),
            parent: PhantomData,
        })
    }
}

impl<T: Element> BufferView<'_, T> {
    /// Copies `data` (as many elements as the view holds) into the view's part of the
    /// buffer, ordered after the work queued on it so far (see [`DeviceBuffer::write`]).
    pub fn write(&mut self, data: &[T]) -> Result<()> {
        self.buffer.write(data)
    }
}

impl<T: Element> Deref for BufferView<'_, T> {
    type Target = DeviceBuffer<T>;

    fn deref(&self) -> &DeviceBuffer<T> {
        &self.buffer
    }
}

impl<T: Element> std::fmt::Debug for BufferView<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("BufferView").field(&self.buffer).finish()
    }
}

/// Device memory a call runs on: a [`DeviceBuffer`] or a [`BufferView`] of one. Sealed:
/// tierfft implements it for those two.
pub trait AsDeviceBuffer<T: Element = Complex32>: sealed::Sealed<T> {}

impl<T: Element> AsDeviceBuffer<T> for DeviceBuffer<T> {}
impl<T: Element> AsDeviceBuffer<T> for BufferView<'_, T> {}

pub(crate) mod sealed {
    use super::{BufferView, DeviceBuffer, Element};

    /// What only tierfft can pass: the methods below are callable through any
    /// `AsDeviceBuffer` bound, so they take this to stay tierfft's own.
    pub struct Token(());

    pub(crate) const TOKEN: Token = Token(());

    /// The buffer behind an [`AsDeviceBuffer`](super::AsDeviceBuffer). A view's buffer is
    /// never handed out mutably outside tierfft, so it cannot be moved out of its borrow.
    pub trait Sealed<T: Element> {
        fn buffer(&self, _: Token) -> &DeviceBuffer<T>;
        fn buffer_mut(&mut self, _: Token) -> &mut DeviceBuffer<T>;
    }

    impl<T: Element> Sealed<T> for DeviceBuffer<T> {
        fn buffer(&self, _: Token) -> &DeviceBuffer<T> {
            self
        }
        fn buffer_mut(&mut self, _: Token) -> &mut DeviceBuffer<T> {
            self
        }
    }

    impl<T: Element> Sealed<T> for BufferView<'_, T> {
        fn buffer(&self, _: Token) -> &DeviceBuffer<T> {
            &self.buffer
        }
        fn buffer_mut(&mut self, _: Token) -> &mut DeviceBuffer<T> {
            &mut self.buffer
        }
    }
}

/// The error for a view that starts off the device's binding alignment.
#[cfg(any(feature = "cuda", feature = "wgpu"))]
pub(crate) fn check_view_start(start_bytes: u64, alignment: u64, device: &str) -> Result<()> {
    if start_bytes.is_multiple_of(alignment.max(1)) {
        return Ok(());
    }
    Err(Error::InvalidSpec(format!(
        "a view starting {start_bytes} bytes into a buffer on '{device}': views there start \
         at multiples of {alignment} bytes"
    )))
}
