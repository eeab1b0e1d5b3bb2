//! Reading a DLPack capsule (`x.__dlpack__()` of a CuPy or PyTorch CUDA array): where the
//! array lies, its shape and element type, checked to be a contiguous CUDA array that a
//! transform can use in place of its own buffer. The capsule is read, not consumed: the
//! array's owner keeps it, and the caller keeps the array alive while the transform runs.

use std::ffi::{CStr, c_void};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods};

/// DLPack's `kDLCUDA` device type.
const CUDA: i32 = 2;
/// DLPack's type codes for floats and complex numbers.
const FLOAT: u8 = 2;
const COMPLEX: u8 = 5;

#[repr(C)]
struct DlDevice {
    device_type: i32,
    device_id: i32,
}

#[repr(C)]
struct DlDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

#[repr(C)]
struct DlTensor {
    data: *mut c_void,
    device: DlDevice,
    ndim: i32,
    dtype: DlDataType,
    shape: *const i64,
    strides: *const i64,
    byte_offset: u64,
}

/// The head of DLPack's `DLManagedTensor`: the tensor comes first.
#[repr(C)]
struct DlManagedTensor {
    dl_tensor: DlTensor,
}

/// Element types a transform takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element {
    /// float32, or float64 in double precision.
    Real,
    /// complex64, or complex128 in double precision.
    Complex,
}

impl Element {
    /// DLPack's type code and bits of the element in single or `double` precision.
    fn dl_type(self, double: bool) -> (u8, u8) {
        let bits = if double { 64 } else { 32 };
        match self {
            Element::Real => (FLOAT, bits),
            Element::Complex => (COMPLEX, 2 * bits),
        }
    }

    /// NumPy's name of the element in single or `double` precision.
    fn name(self, double: bool) -> &'static str {
        match (self, double) {
            (Element::Real, false) => "float32",
            (Element::Complex, false) => "complex64",
            (Element::Real, true) => "float64",
            (Element::Complex, true) => "complex128",
        }
    }

    /// 4-byte words in one element in single or `double` precision.
    pub fn words(self, double: bool) -> usize {
        let words = if double { 2 } else { 1 };
        match self {
            Element::Real => words,
            Element::Complex => 2 * words,
        }
    }
}

/// A contiguous CUDA array read from a DLPack capsule.
pub struct CudaArray {
    /// Device address of its first element.
    pub pointer: u64,
    /// Its elements.
    pub len: usize,
    /// The CUDA device it is on.
    pub ordinal: usize,
}

/// The CUDA array behind `capsule` (a legacy `dltensor` capsule), checked to hold `element`s
/// (in `double` precision or single) in `shape`, C-contiguous. `what` names it in errors
/// ("input", "output").
pub fn cuda_array(
    capsule: &Bound<'_, PyAny>,
    what: &str,
    (element, double): (Element, bool),
    shape: &[usize],
) -> PyResult<CudaArray> {
    const NAME: &CStr = c"dltensor";
    let capsule = capsule
        .cast::<PyCapsule>()
        .map_err(|_| PyTypeError::new_err(format!("the {what} is not a DLPack capsule")))?;
    let pointer = capsule.pointer_checked(Some(NAME)).map_err(|_| {
        PyValueError::new_err(format!(
            "the {what}'s DLPack capsule was already used, or is not a 'dltensor' capsule"
        ))
    })?;
    // SAFETY: a live capsule named "dltensor" holds a DLManagedTensor (the DLPack
    // protocol), which stays valid while the capsule is alive (it is borrowed here).
    let tensor = unsafe { &(*pointer.cast::<DlManagedTensor>().as_ptr()).dl_tensor };
    if tensor.device.device_type != CUDA {
        return Err(PyValueError::new_err(format!(
            "the {what} is not in CUDA device memory (DLPack device type {}); tierfft takes \
             NumPy arrays for host memory",
            tensor.device.device_type
        )));
    }
    let want = element.dl_type(double);
    let dtype = &tensor.dtype;
    if (dtype.code, dtype.bits) != want || dtype.lanes != 1 {
        return Err(PyTypeError::new_err(format!(
            "the {what} must hold {} (DLPack type code {}, {} bits, {} lanes)",
            element.name(double),
            dtype.code,
            dtype.bits,
            dtype.lanes
        )));
    }
    let ndim = usize::try_from(tensor.ndim).unwrap_or(0);
    // SAFETY: DLPack gives `ndim` extents, and `ndim` strides unless strides is null.
    let extents: &[i64] = match ndim {
        0 => &[],
        _ => unsafe { std::slice::from_raw_parts(tensor.shape, ndim) },
    };
    let extents: Vec<usize> = extents.iter().map(|&n| n as usize).collect();
    if extents != shape {
        return Err(PyValueError::new_err(format!(
            "the {what} has shape {extents:?}, but the transform needs {shape:?}"
        )));
    }
    if !tensor.strides.is_null() && ndim > 0 {
        let strides = unsafe { std::slice::from_raw_parts(tensor.strides, ndim) };
        let mut expected = 1i64;
        for (&n, &stride) in extents.iter().zip(strides).rev() {
            if n > 1 && stride != expected {
                return Err(PyValueError::new_err(format!(
                    "the {what} is not C-contiguous (strides {strides:?} elements for shape \
                     {extents:?}); make it contiguous first (cupy.ascontiguousarray, \
                     tensor.contiguous())"
                )));
            }
            expected *= n as i64;
        }
    }
    Ok(CudaArray {
        pointer: tensor.data as u64 + tensor.byte_offset,
        len: extents.iter().product(),
        ordinal: tensor.device.device_id as usize,
    })
}
