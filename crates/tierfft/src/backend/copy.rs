//! Copies of rows between two buffers of one device, queued like the transforms: a
//! distributed transform's packing and unpacking of the blocks it exchanges.

use cudarc::driver::sys::{CUDA_MEMCPY2D, CUmemorytype, cuMemcpy2DAsync_v2};
use cudarc::driver::{DevicePtr, DevicePtrMut};

use super::buffer::Held;
use super::cuda::gpu_err;
use crate::dist::Rows;
use crate::error::{Error, Result};

/// Bytes of a complex f32 element.
const COMPLEX: usize = 8;

/// Copies the rows `c` describes (complex elements) from `src` into `dst`, both held by the
/// same device; on a GPU the copy is queued on the device's stream.
pub(crate) fn copy_rows(src: &Held, dst: &mut Held, c: &Rows) -> Result<()> {
    if c.is_empty() {
        return Ok(());
    }
    // One past the last f32 the copy touches, if that does not overflow.
    let end = |start: usize, pitch: usize| {
        (c.rows - 1)
            .checked_mul(pitch)?
            .checked_add(start)?
            .checked_add(c.row_len)?
            .checked_mul(2)
    };
    let fits = |start, pitch, floats| end(start, pitch).is_some_and(|e| e <= floats);
    if c.src_pitch < c.row_len
        || c.dst_pitch < c.row_len
        || !fits(c.src, c.src_pitch, src.floats())
        || !fits(c.dst, c.dst_pitch, dst.floats())
    {
        return Err(Error::InvalidSpec(format!(
            "a copy of {} rows of {} elements (pitches {} and {}) does not fit its buffers \
             ({} and {} elements)",
            c.rows,
            c.row_len,
            c.src_pitch,
            c.dst_pitch,
            src.floats() / 2,
            dst.floats() / 2
        )));
    }
    match (src, dst) {
        (Held::Host(from), Held::Host(into)) => {
            for row in 0..c.rows {
                let (a, b) = (
                    2 * (c.src + row * c.src_pitch),
                    2 * (c.dst + row * c.dst_pitch),
                );
                into[b..b + 2 * c.row_len].copy_from_slice(&from[a..a + 2 * c.row_len]);
            }
            Ok(())
        }
        (
            Held::Cuda { dev, slice: from },
            Held::Cuda {
                dev: to,
                slice: into,
            },
        ) if std::sync::Arc::ptr_eq(dev, to) => {
            let stream = dev.stream();
            dev.context()
                .bind_to_thread()
                .map_err(gpu_err("binding the GPU to this thread"))?;
            let (src_ptr, _read) = from.device_ptr(stream);
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
            // SAFETY: both ranges were checked to lie inside their allocations above, the
            // pointers stay valid while the guards live, and the copy is ordered on the
            // stream every use of these buffers is queued on.
            unsafe { cuMemcpy2DAsync_v2(&copy, stream.cu_stream()) }
                .result()
                .map_err(gpu_err("copying rows between device buffers"))
        }
        (Held::Cuda { .. }, Held::Cuda { .. }) | (Held::Host(_), _) | (_, Held::Host(_)) => {
            Err(Error::InvalidSpec(
                "copying rows between buffers on two devices: both must be on one".into(),
            ))
        }
        _ => Err(Error::Unsupported {
            what: "copying rows between device buffers".into(),
            device: "wgpu".into(),
            detail: "distributed transforms run on CUDA GPUs (over NCCL) or on the CPU".into(),
        }),
    }
}
