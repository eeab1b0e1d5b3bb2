//! The work arrays that the N-D transforms of one device share ([`Device::workspace_bytes`]):
//! a device runs its transforms in the order they are queued (one CUDA stream, one wgpu
//! queue), so the arrays one run worked in are free for the next as soon as it is queued,
//! whichever plan it belongs to. Each array grows to the largest a run has asked for and is
//! lent as a view of its start; a GPU device then holds one set for all its plans instead of
//! one per plan.

use super::buffer::Held;
use super::{Device, DeviceBuffer};
use crate::error::{Error, Result};

/// The arrays of one set, in 4-byte words (see `nd::Buf`): the full-length complex array of a
/// widened real axis (or a complex transform's second array), and the contiguous real and
/// complex arrays that strided buffers are gathered into and scattered from (a DCT's complex
/// work array among them). Made on first use.
#[derive(Default)]
pub(crate) struct Workspace {
    pub full: Slot,
    pub real: Slot,
    pub spectrum: Slot,
}

impl Workspace {
    /// Bytes of device memory the arrays hold.
    pub(crate) fn bytes(&self) -> u64 {
        [&self.full, &self.real, &self.spectrum]
            .into_iter()
            .filter_map(|s| s.0.as_ref())
            .map(|b| 4 * b.len() as u64)
            .sum()
    }
}

/// One array of a [`Workspace`].
#[derive(Default)]
pub(crate) struct Slot(Option<DeviceBuffer<f32>>);

impl Slot {
    /// The first `words` of the array, made on `device` (or remade larger, the smaller one
    /// freed first) where it holds fewer; `view` keeps the view where the array is longer.
    /// New arrays are zeroed; reused ones hold what the last run left.
    pub(crate) fn lend<'a>(
        &'a mut self,
        device: &Device,
        words: usize,
        view: &'a mut Option<Held>,
    ) -> Result<&'a mut Held> {
        if self.0.as_ref().is_none_or(|b| b.len() < words) {
            self.0 = None;
            self.0 = Some(device.zeros_of::<f32>(words)?);
        }
        let exact = self.0.as_ref().is_some_and(|b| b.len() == words);
        let buffer = self
            .0
            .as_mut()
            .ok_or_else(|| Error::gpu("a work array was not made"))?;
        if exact {
            return Ok(&mut buffer.held);
        }
        Ok(view.insert(buffer.held.memory_mut().view(0..words)?))
    }
}
