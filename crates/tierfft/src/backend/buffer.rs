//! Data kept on a device between steps: upload once, run transforms and resamplers on it,
//! download once.

use std::sync::Arc;

use cudarc::driver::CudaSlice;
use num_complex::Complex32;

use super::cuda::gpu_err;
use super::{Device, cuda, wgpu};
use crate::error::{Error, Result};

/// Complex f32 data held by one [`Device`] (host memory for [`Device::Cpu`]). Made by
/// [`Device::upload`]; transformed in place by [`crate::Fft::process_buffer`].
pub struct DeviceBuffer {
    pub(crate) held: Held,
}

/// Where the data are.
pub(crate) enum Held {
    Host(Vec<Complex32>),
    Wgpu {
        dev: Arc<wgpu::WgpuDevice>,
        buffer: ::wgpu::Buffer,
        len: usize,
    },
    /// Interleaved f32 pairs.
    Cuda {
        dev: Arc<cuda::CudaDevice>,
        slice: CudaSlice<f32>,
    },
}

impl Device {
    /// Copies `data` to the device.
    pub fn upload(&self, data: &[Complex32]) -> Result<DeviceBuffer> {
        let held = match self {
            Device::Cpu => Held::Host(data.to_vec()),
            Device::Wgpu(d) => Held::Wgpu {
                dev: d.clone(),
                buffer: d.upload(data)?,
                len: data.len(),
            },
            Device::Cuda(d) => Held::Cuda {
                dev: d.clone(),
                slice: d
                    .stream()
                    .clone_htod(bytemuck::cast_slice::<Complex32, f32>(data))
                    .map_err(gpu_err("uploading"))?,
            },
        };
        Ok(DeviceBuffer { held })
    }

    /// A buffer of `len` zeros on the device.
    pub fn zeros(&self, len: usize) -> Result<DeviceBuffer> {
        let held = match self {
            Device::Cpu => Held::Host(vec![Complex32::new(0.0, 0.0); len]),
            Device::Wgpu(d) => Held::Wgpu {
                dev: d.clone(),
                // wgpu zero-initialises new buffers.
                buffer: d.storage(8 * len as u64, "tierfft data")?,
                len,
            },
            Device::Cuda(d) => Held::Cuda {
                dev: d.clone(),
                slice: d
                    .stream()
                    .alloc_zeros::<f32>(2 * len)
                    .map_err(gpu_err("allocating device memory"))?,
            },
        };
        Ok(DeviceBuffer { held })
    }

    /// Waits until the device has finished all work submitted so far (for wall-clock timing
    /// of steps on device-resident data).
    pub fn synchronize(&self) -> Result<()> {
        match self {
            Device::Cpu => Ok(()),
            Device::Wgpu(d) => d.wait(),
            Device::Cuda(d) => d
                .stream()
                .synchronize()
                .map_err(gpu_err("waiting for the GPU")),
        }
    }
}

impl DeviceBuffer {
    /// Complex elements held.
    pub fn len(&self) -> usize {
        match &self.held {
            Held::Host(v) => v.len(),
            Held::Wgpu { len, .. } => *len,
            Held::Cuda { slice, .. } => slice.len() / 2,
        }
    }

    /// True when the buffer holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The name of the device holding the data.
    pub fn device_name(&self) -> String {
        match &self.held {
            Held::Host(_) => Device::Cpu.name(),
            Held::Wgpu { dev, .. } => dev.name(),
            Held::Cuda { dev, .. } => dev.name(),
        }
    }

    /// Copies the data to `out` (waiting for the work on them), which must hold
    /// [`DeviceBuffer::len`] elements.
    pub fn read_into(&self, out: &mut [Complex32]) -> Result<()> {
        if out.len() != self.len() {
            return Err(Error::InvalidSpec(format!(
                "reading a buffer of {} elements into {}",
                self.len(),
                out.len()
            )));
        }
        match &self.held {
            Held::Host(v) => out.copy_from_slice(v),
            Held::Wgpu { dev, buffer, .. } => dev.read(buffer, out)?,
            Held::Cuda { dev, slice } => {
                dev.stream()
                    .memcpy_dtoh(slice, bytemuck::cast_slice_mut::<Complex32, f32>(out))
                    .map_err(gpu_err("downloading"))?;
                dev.stream().synchronize().map_err(gpu_err("downloading"))?;
            }
        }
        Ok(())
    }

    /// The data, copied to the host.
    pub fn download(&self) -> Result<Vec<Complex32>> {
        let mut out = vec![Complex32::new(0.0, 0.0); self.len()];
        self.read_into(&mut out)?;
        Ok(out)
    }
}

/// `Ok` when `ours` accepts every buffer's storage, else the [`foreign`] error for the first
/// it rejects.
pub(crate) fn check_ours(
    buffers: &[&DeviceBuffer],
    ours: impl Fn(&Held) -> bool,
    device: &str,
) -> Result<()> {
    match buffers.iter().find(|b| !ours(&b.held)) {
        Some(b) => Err(foreign(b, device)),
        None => Ok(()),
    }
}

/// The error for a buffer handed to work planned on another device.
pub(crate) fn foreign(buffer: &DeviceBuffer, device: &str) -> Error {
    Error::InvalidSpec(format!(
        "the buffer lives on '{}' but the work was planned for '{device}': upload it with the \
         same Device",
        buffer.device_name()
    ))
}
