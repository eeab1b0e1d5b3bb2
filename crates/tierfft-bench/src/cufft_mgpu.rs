//! cuFFT's own transforms over several GPUs of one process (`cufftXtSetGPUs`,
//! `cufftMakePlan2d`/`3d`, `cufftXtMalloc`, `cufftXtExecDescriptorC2C`), which cudarc does
//! not wrap: loaded from libcufft at run time, the peer of `tierfft bench --gpus N`. Its
//! forward transform leaves the spectrum cut across the GPUs in cuFFT's shuffled layout,
//! as tierfft's transposed slabs do.

use std::ffi::{c_int, c_void};
use std::time::Instant;

use libloading::Library;
use num_complex::Complex32;

use tierfft::{Error, Result};

use crate::cufft_xt::{check, load_cufft, symbol};

type Create = unsafe extern "C" fn(*mut c_int) -> c_int;
type SetGpus = unsafe extern "C" fn(c_int, c_int, *mut c_int) -> c_int;
type Make2d = unsafe extern "C" fn(c_int, c_int, c_int, c_int, *mut usize) -> c_int;
type Make3d = unsafe extern "C" fn(c_int, c_int, c_int, c_int, c_int, *mut usize) -> c_int;
type Malloc = unsafe extern "C" fn(c_int, *mut *mut LibXtDesc, c_int) -> c_int;
type Memcpy = unsafe extern "C" fn(c_int, *mut c_void, *mut c_void, c_int) -> c_int;
type ExecC2C = unsafe extern "C" fn(c_int, *mut LibXtDesc, *mut LibXtDesc, c_int) -> c_int;
type Free = unsafe extern "C" fn(*mut LibXtDesc) -> c_int;
type Destroy = unsafe extern "C" fn(c_int) -> c_int;

/// `CUFFT_C2C`.
const C2C: c_int = 0x29;
/// `CUFFT_FORWARD`.
const FORWARD: c_int = -1;
/// `cufftXtSubFormat`: data in natural order, cut along axis 0 across the GPUs.
const FORMAT_INPLACE: c_int = 2;
/// `cufftXtCopyType`.
const HOST_TO_DEVICE: c_int = 0;
const DEVICE_TO_HOST: c_int = 1;

/// `cudaLibXtDesc` (cudalibxt.h): the descriptor of data cuFFT spreads over its GPUs. Only
/// `sub_format` is written here: set back to the natural input layout before each timed
/// forward transform (each leaves it shuffled), as cuFFT's multi-GPU samples do.
#[repr(C)]
struct LibXtDesc {
    version: c_int,
    descriptor: *mut c_void,
    library: c_int,
    sub_format: c_int,
    lib_descriptor: *mut c_void,
}

/// A cuFFT plan of one complex transform of a 2-D or 3-D shape over GPUs `0..n`, with its
/// data (made by cuFFT on those GPUs).
pub struct MultiGpuPlan {
    handle: c_int,
    data: *mut LibXtDesc,
    elements: usize,
    memcpy: Memcpy,
    exec: ExecC2C,
    free: Free,
    destroy: Destroy,
    _lib: Library,
}

impl MultiGpuPlan {
    /// Plans the forward transform of `shape` (two or three axes) over GPUs `0..gpus` and
    /// makes its data there (the multi-GPU plans of cuFFT take 2 to 16 GPUs).
    pub fn new(shape: &[usize], gpus: usize) -> Result<Self> {
        let lib = load_cufft()?;
        let create: Create = symbol(&lib, b"cufftCreate\0")?;
        let set_gpus: SetGpus = symbol(&lib, b"cufftXtSetGPUs\0")?;
        let malloc: Malloc = symbol(&lib, b"cufftXtMalloc\0")?;
        let mut handle = 0;
        // SAFETY: writes the new handle.
        check(unsafe { create(&mut handle) }, "create")?;
        // Owned from here: freed and destroyed on any error below.
        let mut plan = MultiGpuPlan {
            handle,
            data: std::ptr::null_mut(),
            elements: shape.iter().product(),
            memcpy: symbol(&lib, b"cufftXtMemcpy\0")?,
            exec: symbol(&lib, b"cufftXtExecDescriptorC2C\0")?,
            free: symbol(&lib, b"cufftXtFree\0")?,
            destroy: symbol(&lib, b"cufftDestroy\0")?,
            _lib: lib,
        };
        let int = |n: usize| {
            c_int::try_from(n).map_err(|_| Error::InvalidSpec(format!("cuFFT extent {n}")))
        };
        let mut which: Vec<c_int> = (0..int(gpus)?).collect();
        // SAFETY: a new handle; `which` outlives the call.
        check(
            unsafe { set_gpus(handle, which.len() as c_int, which.as_mut_ptr()) },
            &format!("set {gpus} GPUs"),
        )?;
        let mut work = vec![0usize; gpus];
        // SAFETY: `work` holds a size per GPU.
        let made = match *shape {
            [a, b] => {
                let make: Make2d = symbol(&plan._lib, b"cufftMakePlan2d\0")?;
                unsafe { make(handle, int(a)?, int(b)?, C2C, work.as_mut_ptr()) }
            }
            [a, b, c] => {
                let make: Make3d = symbol(&plan._lib, b"cufftMakePlan3d\0")?;
                unsafe { make(handle, int(a)?, int(b)?, int(c)?, C2C, work.as_mut_ptr()) }
            }
            _ => {
                return Err(Error::InvalidSpec(format!(
                    "cuFFT's multi-GPU plans are 2-D or 3-D (got {shape:?})"
                )));
            }
        };
        check(made, &format!("plan of {shape:?} over {gpus} GPUs"))?;
        // SAFETY: writes the descriptor of data cuFFT makes on the plan's GPUs.
        check(
            unsafe { malloc(handle, &mut plan.data, FORMAT_INPLACE) },
            "allocating the data",
        )?;
        Ok(plan)
    }

    /// Copies `values` (the global array, row-major) onto the GPUs.
    pub fn upload(&mut self, values: &[Complex32]) -> Result<()> {
        self.sized(values.len())?;
        // SAFETY: the descriptor is the plan's; cuFFT reads `elements` values from `values`.
        let code = unsafe {
            (self.memcpy)(
                self.handle,
                self.data.cast(),
                values.as_ptr() as *mut c_void,
                HOST_TO_DEVICE,
            )
        };
        check(code, "copying to the GPUs")
    }

    /// The data, copied back to the host in natural order.
    pub fn download(&self) -> Result<Vec<Complex32>> {
        let mut values = vec![Complex32::new(0.0, 0.0); self.elements];
        // SAFETY: cuFFT writes `elements` values; the descriptor is the plan's.
        let code = unsafe {
            (self.memcpy)(
                self.handle,
                values.as_mut_ptr().cast(),
                self.data.cast(),
                DEVICE_TO_HOST,
            )
        };
        check(code, "copying from the GPUs")?;
        Ok(values)
    }

    fn sized(&self, len: usize) -> Result<()> {
        match len == self.elements {
            true => Ok(()),
            false => Err(Error::InvalidSpec(format!(
                "{len} values for a plan of {} elements",
                self.elements
            ))),
        }
    }

    /// One forward transform in place, from the natural layout, waited for on every GPU
    /// (`sync`).
    pub fn forward(&mut self, sync: &dyn Fn() -> Result<()>) -> Result<()> {
        // SAFETY: the descriptor is the plan's, alive until `Drop`.
        unsafe { (*self.data).sub_format = FORMAT_INPLACE };
        // SAFETY: in place on the plan's own data.
        check(
            unsafe { (self.exec)(self.handle, self.data, self.data, FORWARD) },
            "exec",
        )?;
        sync()
    }

    /// Seconds of `reps` forward transforms (host clock from the call until every GPU has
    /// finished, `sync`), after one untimed.
    pub fn time(&mut self, reps: usize, sync: &dyn Fn() -> Result<()>) -> Result<Vec<f64>> {
        self.forward(sync)?;
        (0..reps.max(1))
            .map(|_| {
                let t = Instant::now();
                self.forward(sync)?;
                Ok(t.elapsed().as_secs_f64())
            })
            .collect()
    }
}

impl Drop for MultiGpuPlan {
    fn drop(&mut self) {
        // SAFETY: made by this plan, freed and destroyed once.
        unsafe {
            if !self.data.is_null() {
                (self.free)(self.data);
            }
            (self.destroy)(self.handle);
        }
    }
}
