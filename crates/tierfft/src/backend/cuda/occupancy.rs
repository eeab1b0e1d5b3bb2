//! Register trimming: a kernel whose registers are a few past what one more resident block
//! per multiprocessor needs is compiled again with `__launch_bounds__(threads, blocks)`.
//!
//! ptxas picks registers without knowing the occupancy they cost. On the H100, the 3125-point
//! pass (625 threads) took 34 registers, so only two blocks fit a multiprocessor (40 warps);
//! capped at 32 it holds three (60 warps), spills nothing, and ran 6 % faster, at cuFFT's
//! speed (docs/BENCHMARKS.md, "2026-11-23, commit ba49a12"). Kernels that would spill when
//! trimmed keep their first compilation.

use cudarc::driver::CudaFunction;
use cudarc::driver::sys::CUdevice_attribute as A;

use super::{CudaDevice, gpu_err};
use crate::error::Result;

/// Most registers a trim may take away from a thread.
const MOST_TRIMMED: usize = 4;

/// Registers are allocated to a thread in multiples of this (per warp: 256).
const REGISTER_GRANULE: usize = 8;

/// Shared memory the driver reserves per resident block, bytes (sm_80 and up).
const RESERVED_SHARED_PER_BLOCK: usize = 1024;

/// What one multiprocessor holds.
#[derive(Clone, Copy, Debug)]
pub struct SmLimits {
    /// Resident threads.
    pub threads: usize,
    /// Resident blocks.
    pub blocks: usize,
    /// 32-bit registers.
    pub registers: usize,
    /// Shared memory, bytes.
    pub shared_bytes: usize,
    /// Threads of a warp.
    pub warp: usize,
}

impl SmLimits {
    /// Reads the limits of the device behind `attr`.
    pub fn read(attr: impl Fn(A) -> Result<usize>) -> Result<SmLimits> {
        Ok(SmLimits {
            threads: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?,
            blocks: attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)?,
            registers: attr(A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)?,
            shared_bytes: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?,
            warp: attr(A::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?.max(1),
        })
    }

    /// Blocks of `threads` threads and `shared` bytes that fit a multiprocessor when each
    /// thread holds `registers` registers (`None`: not counting registers).
    pub fn blocks(&self, threads: usize, shared: usize, registers: Option<usize>) -> usize {
        let warp_threads = threads.next_multiple_of(self.warp).max(1);
        let by_shared = match shared {
            0 => usize::MAX,
            s => self.shared_bytes / (s + RESERVED_SHARED_PER_BLOCK),
        };
        let by_registers = match registers {
            Some(r) => {
                let r = r.next_multiple_of(REGISTER_GRANULE).max(1);
                self.registers / (r * warp_threads)
            }
            None => usize::MAX,
        };
        (self.threads / warp_threads)
            .min(self.blocks)
            .min(by_shared)
            .min(by_registers)
    }

    /// Registers a thread may hold for `blocks` blocks of `threads` threads to fit.
    fn registers_for(&self, blocks: usize, threads: usize) -> usize {
        let warp_threads = threads.next_multiple_of(self.warp).max(1);
        let per_thread = self.registers / (blocks * warp_threads);
        (per_thread / REGISTER_GRANULE * REGISTER_GRANULE).min(255)
    }
}

/// The blocks per multiprocessor to compile `func` (of `threads` threads and `shared` bytes
/// of shared memory) for again, if trimming it by at most [`MOST_TRIMMED`] registers lets more
/// of them fit; `None` to keep it as it is.
pub fn trim(
    dev: &CudaDevice,
    func: &CudaFunction,
    threads: usize,
    shared: usize,
) -> Result<Option<u32>> {
    let registers = func.num_regs().map_err(gpu_err("reading registers"))?;
    Ok(trimmed_blocks(
        &dev.sm,
        registers.max(0) as usize,
        threads,
        shared,
    ))
}

/// [`trim`]'s choice for a kernel of `registers` registers per thread: the most blocks per
/// multiprocessor that a cap within [`MOST_TRIMMED`] registers of it allows, if more than fit
/// now.
pub fn trimmed_blocks(
    sm: &SmLimits,
    registers: usize,
    threads: usize,
    shared: usize,
) -> Option<u32> {
    let now = sm.blocks(threads, shared, Some(registers));
    let most = sm.blocks(threads, shared, None);
    ((now + 1)..=most)
        .rev()
        .find(|&b| registers <= sm.registers_for(b, threads) + MOST_TRIMMED)
        .map(|b| b as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    const H100: SmLimits = SmLimits {
        threads: 2048,
        blocks: 32,
        registers: 65536,
        shared_bytes: 228 << 10,
        warp: 32,
    };

    #[test]
    fn blocks_per_multiprocessor_on_the_h100() {
        // The 3125-point pass: 625 threads, 25 000 bytes, 34 registers (two blocks), capped
        // at 32 (three).
        assert_eq!(H100.blocks(625, 25_000, Some(34)), 2);
        assert_eq!(H100.blocks(625, 25_000, None), 3);
        assert_eq!(H100.registers_for(3, 625), 32);
        assert_eq!(H100.blocks(625, 25_000, Some(32)), 3);
        // Threads, shared memory and the block limit each bound it.
        assert_eq!(H100.blocks(1000, 80_000, None), 2);
        assert_eq!(H100.blocks(64, 100_000, None), 2);
        assert_eq!(H100.blocks(32, 0, Some(16)), 32);
    }

    #[test]
    fn trims_only_a_few_registers() {
        // Passes measured on the H100 (registers ptxas chose, threads, shared bytes).
        assert_eq!(trimmed_blocks(&H100, 34, 625, 25_000), Some(3)); // 3125
        assert_eq!(trimmed_blocks(&H100, 40, 243, 17_496), None); // 2187: 8 too many
        assert_eq!(trimmed_blocks(&H100, 57, 1000, 80_000), None); // 10000
        assert_eq!(trimmed_blocks(&H100, 64, 468, 44_928), None); // 5616
        assert_eq!(trimmed_blocks(&H100, 32, 625, 25_000), None); // already there
        // 68 registers at 256 threads: three blocks; 64 gives four.
        assert_eq!(trimmed_blocks(&H100, 68, 256, 8192), Some(4));
    }
}
