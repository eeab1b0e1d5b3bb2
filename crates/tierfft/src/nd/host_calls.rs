//! [`NdTransform`]: the host-array calls [`NdFft`] and [`NdFft64`] share, so that code
//! choosing between them (the CPU's f64 path, or `NdFft` on a device) runs either.

use num_complex::Complex;

use super::{NdFft, NdFft64};
use crate::backend::{Element, RealElement};
use crate::error::Result;

/// An N-D transform's calls on host arrays of reals `T` and their complex values, as
/// [`NdFft::process`], [`NdFft::process_real_to_complex`],
/// [`NdFft::process_complex_to_real`] and [`NdFft::process_real_to_real`] define them.
pub trait NdTransform<T>: Send + Sync {
    /// The complex transform of `data`, in place.
    fn c2c(&self, data: &mut [Complex<T>]) -> Result<()>;
    /// The real-to-complex transform of `x` into `out`.
    fn r2c(&self, x: &[T], out: &mut [Complex<T>]) -> Result<()>;
    /// The complex-to-real transform of `x` into `out`.
    fn c2r(&self, x: &[Complex<T>], out: &mut [T]) -> Result<()>;
    /// The DCT or DST of `x` into `out`.
    fn r2r(&self, x: &[T], out: &mut [T]) -> Result<()>;
    /// Bytes of device memory it holds ([`NdFft::held_bytes`]; 0 for [`NdFft64`], whose
    /// work is in host memory and freed after each call).
    fn held_bytes(&self) -> u64 {
        0
    }
}

impl<T: RealElement> NdTransform<T> for NdFft
where
    Complex<T>: Element,
{
    fn c2c(&self, data: &mut [Complex<T>]) -> Result<()> {
        self.process(data)
    }
    fn r2c(&self, x: &[T], out: &mut [Complex<T>]) -> Result<()> {
        self.process_real_to_complex(x, out)
    }
    fn c2r(&self, x: &[Complex<T>], out: &mut [T]) -> Result<()> {
        self.process_complex_to_real(x, out)
    }
    fn r2r(&self, x: &[T], out: &mut [T]) -> Result<()> {
        self.process_real_to_real(x, out)
    }
    fn held_bytes(&self) -> u64 {
        NdFft::held_bytes(self)
    }
}

impl NdTransform<f64> for NdFft64 {
    fn c2c(&self, data: &mut [Complex<f64>]) -> Result<()> {
        self.process(data)
    }
    fn r2c(&self, x: &[f64], out: &mut [Complex<f64>]) -> Result<()> {
        self.process_real_to_complex(x, out)
    }
    fn c2r(&self, x: &[Complex<f64>], out: &mut [f64]) -> Result<()> {
        self.process_complex_to_real(x, out)
    }
    fn r2r(&self, x: &[f64], out: &mut [f64]) -> Result<()> {
        self.process_real_to_real(x, out)
    }
}
