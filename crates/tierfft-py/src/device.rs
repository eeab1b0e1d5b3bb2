//! `tierfft._core.Device`: a device opened by the names the command line takes.

use pyo3::prelude::*;
use tierfft::{Device, DeviceKind};

use crate::errors::IntoPy;

/// A device transforms run on, opened by name: `auto` (CUDA, else a hardware GPU, else the
/// CPU), `cpu`, `cuda`, `cuda:N`, `gpu`, `gpu:N`, `lavapipe`, or part of an adapter's name.
#[pyclass(frozen, name = "Device", module = "tierfft._core")]
pub struct PyDevice {
    pub(crate) device: Device,
    /// The process's fork count when it was opened ([`crate::fork`]).
    pub(crate) opened: u64,
}

#[pymethods]
impl PyDevice {
    /// Opens the device `name` (the GIL is released while a GPU is opened).
    #[new]
    fn new(py: Python<'_>, name: &str) -> PyResult<Self> {
        let name = name.to_owned();
        let device = py.detach(move || Device::by_name(&name)).py_err()?;
        Ok(PyDevice {
            device,
            opened: crate::fork::generation(),
        })
    }

    /// The device's name, as `tierfft devices` prints it.
    #[getter]
    fn name(&self) -> String {
        self.device.name()
    }

    /// The backend: `"cpu"`, `"wgpu"` or `"cuda"`.
    #[getter]
    fn backend(&self) -> &'static str {
        match self.device.kind() {
            DeviceKind::Cpu => "cpu",
            DeviceKind::Wgpu => "wgpu",
            DeviceKind::Cuda => "cuda",
            _ => "other",
        }
    }

    /// Whether it transforms complex128/float64 data in f64: the CPU, CUDA GPUs, and wgpu
    /// devices with f64 arithmetic (`SHADER_F64`: Vulkan on most desktop GPUs, lavapipe;
    /// not Metal).
    #[getter]
    fn has_f64(&self) -> bool {
        self.device.limits().is_none_or(|l| l.shader_f64)
    }

    /// The CUDA device ordinal (`None` off CUDA).
    #[getter]
    fn cuda_ordinal(&self) -> Option<usize> {
        self.device
            .cuda_device()
            .map(|d| d.stream().context().ordinal())
    }

    /// The handle of the CUDA stream tierfft queues its work on (`None` off CUDA): arrays
    /// handed over through DLPack are made ready on it.
    #[getter]
    fn cuda_stream(&self) -> Option<usize> {
        self.device
            .cuda_device()
            .map(|d| d.stream().cu_stream() as usize)
    }

    /// Bytes of device memory held by the work arrays the device's N-D, real and DCT
    /// transforms share between calls (sized for the largest call so far; counted apart from
    /// every plan's `held_bytes`). 0 on the CPU, whose transforms keep their own.
    #[getter]
    fn workspace_bytes(&self) -> u64 {
        self.device.workspace_bytes()
    }

    /// Frees the shared work arrays (`workspace_bytes`); the next call that needs them makes
    /// them again.
    fn free_workspace(&self) -> PyResult<()> {
        crate::fork::check(&self.device, self.opened)?;
        self.device.free_workspace();
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!("tierfft.Device({:?})", self.device.name())
    }
}
