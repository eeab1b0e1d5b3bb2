//! tierfft's errors as Python exceptions: what the caller asked wrongly as `ValueError`,
//! out of memory as `MemoryError`, what the device did as `tierfft.DeviceError`, and a
//! checksummed transform that failed its check as `tierfft.ChecksumError`.

use pyo3::PyErr;
use pyo3::create_exception;
use pyo3::exceptions::{PyConnectionError, PyMemoryError, PyRuntimeError, PyValueError};

create_exception!(
    tierfft,
    DeviceError,
    PyRuntimeError,
    "A device could not be opened or failed: no such device, a GPU API error, a lost device \
     or a kernel that did not compile."
);

create_exception!(
    tierfft,
    ChecksumError,
    PyRuntimeError,
    "A checksummed transform's output failed its check (a fault in device memory or in a \
     unit, or a NaN or infinity in the data): `transforms` holds the batch indices hit (over \
     the axes not transformed), `batch` how many there are. The output is not to be trusted."
);

/// The Python exception for `e`, its message tierfft's own.
pub fn to_py(e: tierfft::Error) -> PyErr {
    use tierfft::Error as E;
    let message = e.to_string();
    match e {
        E::Checksum { transforms, batch } => pyo3::Python::attach(|py| {
            use pyo3::types::PyAnyMethods;
            let err = ChecksumError::new_err(message);
            let value = err.value(py);
            // Attributes of the exception object; setting them cannot fail on a new one.
            let _ = value.setattr("transforms", transforms);
            let _ = value.setattr("batch", batch);
            err
        }),
        E::OutOfMemory { .. } => PyMemoryError::new_err(message),
        E::NoDevice(_) | E::Gpu { .. } | E::DeviceLost { .. } | E::Compile { .. } => {
            DeviceError::new_err(message)
        }
        E::Ranks { .. } => PyConnectionError::new_err(message),
        _ => PyValueError::new_err(message),
    }
}

/// `Result<T, tierfft::Error>` into `PyResult<T>`.
pub trait IntoPy<T> {
    /// The result with its error as a Python exception.
    fn py_err(self) -> pyo3::PyResult<T>;
}

impl<T> IntoPy<T> for tierfft::Result<T> {
    fn py_err(self) -> pyo3::PyResult<T> {
        self.map_err(to_py)
    }
}
