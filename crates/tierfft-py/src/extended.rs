//! Transforms in double-double arithmetic on the CPU (`tierfft::extended`), for long double
//! arrays: the Python layer splits each value into a high and a low f64 part, and joins them
//! again after.

use num_complex::Complex64;
use numpy::PyReadwriteArrayDyn;
use pyo3::prelude::*;
use tierfft::Direction;
use tierfft::extended::ExtendedFft;

use crate::errors::IntoPy;
use crate::workers::on_workers;

/// One-dimensional transforms of `n` points in double-double arithmetic on the CPU (about
/// 32 significant digits), forward or (`inverse`) unnormalised inverse.
#[pyclass(module = "tierfft._core", frozen)]
pub struct ExtendedTransform {
    fft: ExtendedFft,
}

#[pymethods]
impl ExtendedTransform {
    #[new]
    fn new(n: usize, inverse: bool) -> PyResult<Self> {
        let direction = if inverse {
            Direction::Inverse
        } else {
            Direction::Forward
        };
        Ok(ExtendedTransform {
            fft: ExtendedFft::new(n, direction).py_err()?,
        })
    }

    /// Points per transform.
    #[getter]
    fn n(&self) -> usize {
        self.fft.len()
    }

    /// Transforms in place every line of `n` values `hi + lo` (two C-contiguous complex128
    /// arrays of one size, a multiple of `n`, lines along the last axis), each result
    /// multiplied by `scale_hi + scale_lo`, on `workers` threads (None: rayon's pool).
    #[pyo3(signature = (hi, lo, scale_hi, scale_lo, workers=None))]
    fn execute(
        &self,
        py: Python<'_>,
        mut hi: PyReadwriteArrayDyn<'_, Complex64>,
        mut lo: PyReadwriteArrayDyn<'_, Complex64>,
        scale_hi: f64,
        scale_lo: f64,
        workers: Option<usize>,
    ) -> PyResult<()> {
        let (hi, lo) = (hi.as_slice_mut()?, lo.as_slice_mut()?);
        on_workers(py, workers, || {
            self.fft.process(hi, lo, (scale_hi, scale_lo))
        })?
        .py_err()
    }
}
