//! CUDA arrays lent to a [`Transform`] for one call ([`Transform::execute_dlpack`]): the
//! transform run on them in f32 or f64, and the caller's stream ordered after it.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};
use tierfft::backend::cuda::CudaDevice;
use tierfft::nd::Kind;
use tierfft::{Complex, DeviceBuffer, Element, NdFft, RealElement};

use super::Transform;
use crate::lent::Lent;

impl Transform {
    /// Runs `fft` in `R`'s precision on lent CUDA memory, `input` into `output` (each its
    /// device address and length in 4-byte words; the same memory for a transform in place).
    /// The input is left unchanged otherwise: a DCT or DST copies it into the output first,
    /// real transforms run as [`Transform::run_real`] does.
    pub(super) fn run_lent<R: RealElement>(
        &self,
        fft: &NdFft,
        cuda: &CudaDevice,
        input: (u64, usize),
        output: (u64, usize),
    ) -> tierfft::Result<()>
    where
        Complex<R>: Element,
    {
        let (stream, device, in_place) = (cuda.stream(), &self.device, input.0 == output.0);
        // SAFETY: the pointers and lengths come from DLPack tensors the caller keeps
        // alive for this call; `Lent` never frees them.
        let mut output = unsafe { Lent::new(stream, output.0, output.1) };
        match self.kind {
            Kind::RealToReal => {
                // In place in the output, the input copied there first.
                if !in_place {
                    let input = unsafe { Lent::new(stream, input.0, input.1) };
                    copy_input(stream, input.slice()?, output.slice_mut()?)?;
                }
                output.with_buffer(device, |o: &mut DeviceBuffer<R>| {
                    fft.process_buffer_real_to_real(o)
                })
            }
            Kind::ComplexToComplex if in_place => output
                .with_buffer(device, |o: &mut DeviceBuffer<Complex<R>>| {
                    fft.process_buffer(o)
                }),
            Kind::ComplexToComplex => {
                let input = unsafe { Lent::new(stream, input.0, input.1) };
                input.with_buffer(device, |i| {
                    output.with_buffer(device, |o: &mut DeviceBuffer<Complex<R>>| {
                        fft.process_buffer_out_of_place(i, o)
                    })
                })
            }
            Kind::RealToComplex => self.run_real(
                fft,
                cuda,
                unsafe { Lent::new(stream, input.0, input.1) },
                output,
                |i: &mut DeviceBuffer<R>, o: &mut DeviceBuffer<Complex<R>>| {
                    fft.process_buffer_real_to_complex(i, o)
                },
            ),
            _ => self.run_real(
                fft,
                cuda,
                unsafe { Lent::new(stream, input.0, input.1) },
                output,
                |i: &mut DeviceBuffer<Complex<R>>, o: &mut DeviceBuffer<R>| {
                    fft.process_buffer_complex_to_real(i, o)
                },
            ),
        }
    }

    /// `run` (a real transform) from `input` into `output`: on `input` itself where the plan
    /// leaves it as it was ([`NdFft::preserves_input`]), else on a copy of it in an array
    /// the transform keeps between calls (real transforms may use their input as scratch).
    fn run_real<I: Element, O: Element>(
        &self,
        fft: &NdFft,
        cuda: &CudaDevice,
        input: Lent,
        output: Lent,
        run: impl FnOnce(&mut DeviceBuffer<I>, &mut DeviceBuffer<O>) -> tierfft::Result<()>,
    ) -> tierfft::Result<()> {
        let device = &self.device;
        if fft.preserves_input() {
            return input.with_buffer(device, |i| output.with_buffer(device, |o| run(i, o)));
        }
        let mut kept = self.scratch.lock().map_err(|_| tierfft::Error::Gpu {
            what: "a run panicked while holding the scratch array".into(),
            source: None,
        })?;
        let words = input.slice()?.len();
        let mut copy = match kept.take() {
            Some(s) if s.len() == words => s,
            // SAFETY: zeroed.
            _ => unsafe { cuda.alloc_f32(words, true) }?,
        };
        copy_input(cuda.stream(), input.slice()?, &mut copy)?;
        let mut copy = DeviceBuffer::<I>::from_cuda_slice(device, copy)?;
        let result = output.with_buffer(device, |o| run(&mut copy, o));
        *kept = Some(copy.into_cuda_slice()?);
        result
    }
}

/// Copies the caller's input into `dst`, queued on `stream`.
fn copy_input(
    stream: &Arc<CudaStream>,
    src: &CudaSlice<f32>,
    dst: &mut CudaSlice<f32>,
) -> tierfft::Result<()> {
    stream
        .memcpy_dtod(src, dst)
        .map_err(|e| tierfft::Error::Gpu {
            what: format!("copying the input: {e}"),
            source: Some(Box::new(e)),
        })
}

/// Orders the caller's CUDA stream `theirs` (a raw `CUstream`; 0 is the legacy default
/// stream) after the work queued on `ours` so far, without waiting on the host.
pub(crate) fn hand_over(ours: &Arc<CudaStream>, theirs: usize) -> tierfft::Result<()> {
    use cudarc::driver::sys::{CUevent_flags, cuStreamWaitEvent};
    if ours.cu_stream() as usize == theirs {
        return Ok(());
    }
    let gpu = |what: &str, e: cudarc::driver::DriverError| tierfft::Error::Gpu {
        what: format!("{what}: {e}"),
        source: Some(Box::new(e)),
    };
    let done = ours
        .record_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
        .map_err(|e| gpu("recording the end of a transform", e))?;
    // SAFETY: `theirs` is a stream of this context that the caller's library gave as its
    // current one; the event is valid until dropped, and CUDA keeps what a wait needs.
    unsafe { cuStreamWaitEvent(theirs as _, done.cu_event(), 0) }
        .result()
        .map_err(|e| gpu("ordering the caller's stream after the transform", e))
}
