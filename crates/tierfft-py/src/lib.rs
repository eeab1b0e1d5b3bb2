//! The native part of the Python package `tierfft` (`tierfft._core`): devices, planned
//! transforms run on NumPy arrays (host memory) or on CUDA arrays handed over through
//! DLPack, transforms spread over several devices, and SAR focusing. The NumPy-style
//! functions (`tierfft.fft`, `tierfft.distributed`, ...) are Python, in `python/tierfft`,
//! on top of these.

mod device;
mod distributed;
mod dlpack;
mod errors;
mod extended;
mod fork;
mod lent;
mod sar;
mod transform;
mod workers;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("DeviceError", m.py().get_type::<errors::DeviceError>())?;
    m.add("ChecksumError", m.py().get_type::<errors::ChecksumError>())?;
    m.add_class::<device::PyDevice>()?;
    m.add_class::<transform::Transform>()?;
    m.add_class::<distributed::DistTransform>()?;
    m.add_class::<extended::ExtendedTransform>()?;
    m.add_function(wrap_pyfunction!(fork::forked, m)?)?;
    m.add_function(wrap_pyfunction!(sar::focus, m)?)?;
    m.add_function(wrap_pyfunction!(sar::simulate, m)?)?;
    m.add_function(wrap_pyfunction!(sar::scene_toml, m)?)?;
    m.add_function(wrap_pyfunction!(sar::read_l0b, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
