//! cuFFT's half-precision transforms (`cufftXtMakePlanMany` / `cufftXtExec` with
//! `CUDA_C_16F` or `CUDA_C_16BF` data), which cudarc does not wrap: loaded from libcufft at
//! run time, for the benchmark against tierfft's 16-bit storage.

use std::ffi::{c_int, c_longlong, c_void};

use cudarc::driver::CudaStream;
use libloading::Library;

use tierfft::{Error, Precision, Result};

use crate::cuda::gpu;

type Create = unsafe extern "C" fn(*mut c_int) -> c_int;
type SetStream = unsafe extern "C" fn(c_int, *mut c_void) -> c_int;
#[allow(clippy::type_complexity)]
type MakePlanMany = unsafe extern "C" fn(
    c_int,           // plan
    c_int,           // rank
    *mut c_longlong, // n
    *mut c_longlong, // inembed
    c_longlong,      // istride
    c_longlong,      // idist
    c_int,           // input type
    *mut c_longlong, // onembed
    c_longlong,      // ostride
    c_longlong,      // odist
    c_int,           // output type
    c_longlong,      // batch
    *mut usize,      // work size
    c_int,           // execution type
) -> c_int;
type Exec = unsafe extern "C" fn(c_int, *mut c_void, *mut c_void, c_int) -> c_int;
type Destroy = unsafe extern "C" fn(c_int) -> c_int;

/// `cudaDataType` values (library_types.h).
const CUDA_C_16F: c_int = 6;
const CUDA_C_16BF: c_int = 15;

/// A cuFFT plan of `batch` contiguous complex transforms of `n` points in f16 or bf16.
pub struct XtPlan {
    handle: c_int,
    exec: Exec,
    destroy: Destroy,
    _lib: Library,
}

/// libcufft, under the names its releases give it.
pub(crate) fn load_cufft() -> Result<Library> {
    [
        "libcufft.so",
        "libcufft.so.12",
        "libcufft.so.13",
        "libcufft.so.11",
    ]
    .into_iter()
    // SAFETY: loading libcufft runs its initialisers only.
    .find_map(|name| unsafe { Library::new(name) }.ok())
    .ok_or_else(|| Error::NoDevice("libcufft was not found".into()))
}

/// The entry point `name` (NUL-terminated) of libcufft.
pub(crate) fn symbol<T: Copy>(lib: &Library, name: &[u8]) -> Result<T> {
    // SAFETY: the types above are cufftXt.h's signatures; the plan keeps `lib` loaded while
    // it calls what is copied out.
    unsafe { lib.get::<T>(name) }.map(|s| *s).map_err(|e| {
        Error::NoDevice(format!(
            "libcufft has no {}: {e}",
            String::from_utf8_lossy(&name[..name.len() - 1])
        ))
    })
}

/// A `cufftResult` as a result.
pub(crate) fn check(code: c_int, what: &str) -> Result<()> {
    match code {
        0 => Ok(()),
        code => Err(gpu(format!("cuFFT {what}: cufftResult {code}"))),
    }
}

impl XtPlan {
    /// Plans `batch` transforms of `n` points stored in `precision` (f16 or bf16) on `stream`.
    pub fn new(n: usize, batch: usize, precision: Precision, stream: &CudaStream) -> Result<Self> {
        let ty = match precision {
            Precision::F16 => CUDA_C_16F,
            Precision::Bf16 => CUDA_C_16BF,
            other => {
                return Err(Error::InvalidSpec(format!(
                    "cuFFT's Xt half-precision plans store f16 or bf16, not {other}"
                )));
            }
        };
        let lib = load_cufft()?;
        let create: Create = symbol(&lib, b"cufftCreate\0")?;
        let set_stream: SetStream = symbol(&lib, b"cufftSetStream\0")?;
        let make: MakePlanMany = symbol(&lib, b"cufftXtMakePlanMany\0")?;
        let (exec, destroy) = (
            symbol(&lib, b"cufftXtExec\0")?,
            symbol(&lib, b"cufftDestroy\0")?,
        );
        let mut handle = 0;
        // SAFETY: writes the new handle.
        check(unsafe { create(&mut handle) }, "create")?;
        // Owned from here: dropped (destroyed) on any error below.
        let plan = XtPlan {
            handle,
            exec,
            destroy,
            _lib: lib,
        };
        let too_large = |_| Error::InvalidSpec("cuFFT plans take 64-bit sizes".into());
        let mut dims = [c_longlong::try_from(n).map_err(too_large)?];
        let batch = c_longlong::try_from(batch).map_err(too_large)?;
        let mut work = 0usize;
        // SAFETY: a handle just created; `dims` outlives the call; null embeds mean
        // contiguous transforms (strides and distances then ignored).
        check(
            unsafe {
                make(
                    handle,
                    1,
                    dims.as_mut_ptr(),
                    std::ptr::null_mut(),
                    1,
                    dims[0],
                    ty,
                    std::ptr::null_mut(),
                    1,
                    dims[0],
                    ty,
                    batch,
                    &mut work,
                    ty,
                )
            },
            &format!("{precision} plan for n = {n}, batch {batch}"),
        )?;
        // SAFETY: the stream is the device's and outlives the plan's use.
        check(
            unsafe { set_stream(handle, stream.cu_stream() as *mut c_void) },
            "set stream",
        )?;
        Ok(plan)
    }

    /// Enqueues the transform from `src` into `dst` (device addresses of `n · batch` packed
    /// complex values each); `inverse` picks the direction.
    ///
    /// # Safety
    /// Both addresses hold the plan's `n · batch` values on the plan's device and stay
    /// allocated until the stream has run the transform.
    pub unsafe fn exec(&self, src: u64, dst: u64, inverse: bool) -> Result<()> {
        let direction = if inverse { 1 } else { -1 };
        // SAFETY: per this function's contract.
        let code = unsafe {
            (self.exec)(
                self.handle,
                src as *mut c_void,
                dst as *mut c_void,
                direction,
            )
        };
        check(code, "exec")
    }
}

impl Drop for XtPlan {
    fn drop(&mut self) {
        // SAFETY: the handle was created by this plan and is destroyed once.
        unsafe { (self.destroy)(self.handle) };
    }
}
