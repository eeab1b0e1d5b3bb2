//! Processes forked from one that used tierfft (multiprocessing's default start method on
//! Linux before Python 3.14). A forked child has none of its parent's threads: not the GPU
//! drivers' (a wgpu device waits on them forever) nor the CPU pools'. The package calls
//! [`forked`] in the child (`os.register_at_fork`); the CPU pools are then made again, and
//! a GPU device opened before the fork refuses work with an error that says what to do,
//! instead of hanging. The Python layer opens its devices again in the child.

use std::sync::atomic::{AtomicU64, Ordering};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use tierfft::{Device, DeviceKind};

/// Forks this process has gone through (its ancestors' included).
static FORKS: AtomicU64 = AtomicU64::new(0);

/// Called in the child of a fork: counts it and lets the parent's CPU pools go.
#[pyfunction]
pub(crate) fn forked() {
    FORKS.fetch_add(1, Ordering::SeqCst);
    crate::workers::forget_pools();
}

/// The fork count now, as a device records it when opened.
pub(crate) fn generation() -> u64 {
    FORKS.load(Ordering::SeqCst)
}

/// An error when `device`, opened at fork count `opened`, is a GPU opened before this
/// process was forked (the CPU has no threads of its own to lose).
pub(crate) fn check(device: &Device, opened: u64) -> PyResult<()> {
    if opened == generation() || device.kind() == DeviceKind::Cpu {
        return Ok(());
    }
    Err(PyRuntimeError::new_err(format!(
        "'{}' was opened before this process was forked, and its driver's threads stayed in \
         the parent: open the device (and make the plan) again in this process; tierfft.fft \
         and the other functions do that themselves. CUDA cannot be used at all in a child \
         forked after its parent used it: start workers with multiprocessing's 'spawn' or \
         'forkserver' method",
        device.name()
    )))
}
