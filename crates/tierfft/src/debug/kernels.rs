//! What a CUDA plan's compiled kernels hold, and out-of-place runs whose checksums are left
//! unread: views for timing kernels against other libraries (`tierfft bench --compare
//! cufft`), not for production use.

use crate::backend::{AsDeviceBuffer, Element, Fft};
use crate::error::Result;

/// Registers and memory of one compiled kernel, as the CUDA driver reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct KernelReport {
    /// Registers per thread.
    pub registers: i32,
    /// Local memory (register spills) per thread, bytes.
    pub local_bytes: i32,
    /// Dynamic shared memory per block, bytes.
    pub shared_bytes: u32,
    /// Threads per block.
    pub threads: u32,
}

/// Registers, spills and shared memory of each pass's out-of-place kernel of `fft`, in pass
/// order. An error for plans on devices other than CUDA.
pub fn kernel_reports(fft: &Fft) -> Result<Vec<KernelReport>> {
    Ok(fft
        .kernel_resources()?
        .into_iter()
        .map(|k| KernelReport {
            registers: k.registers,
            local_bytes: k.local_bytes,
            shared_bytes: k.shared_bytes,
            threads: k.threads,
        })
        .collect())
}

/// [`Fft::process_buffer_into`], except that on CUDA a checksummed plan's records are
/// written and never read: nothing waits for the device and no failure is reported. The
/// checksums' cost in the kernels alone, for timing them between two events on the stream
/// (`tierfft bench --checksum --compare cufft`); a plan without checksums runs exactly as
/// with `process_buffer_into`. Other backends check as `process_buffer_into` does.
pub fn process_buffer_into_unverified<T: Element>(
    fft: &Fft,
    input: &mut impl AsDeviceBuffer<T>,
    output: &mut impl AsDeviceBuffer<T>,
) -> Result<()> {
    fft.process_buffer_into_unverified(input, output)
}
