//! N-D and real transforms against cuFFT on the same GPU, the same input and in the same run
//! (cuFFT's `cufftPlanMany` over the trailing axes: C2C, R2C or C2R, or in f64 Z2Z, D2Z or
//! Z2D, batched over the leading ones), plus the device-to-device copy bandwidth that
//! bounds both.

use cudarc::cufft::{CudaFft as CuFftPlan, FftDirection, sys as cufft_sys};
use cudarc::driver::{CudaView, CudaViewMut};
use num_complex::Complex;
use tierfft::backend::median;
use tierfft::nd::Kind;
use tierfft::{Device, DeviceBuffer, Direction, Element, Error, NdFft, RealElement, Result};

use crate::cuda::{cuda_of, gpu, gpu_err, time_events};

/// Times of both libraries and the copy bandwidth, from one run, in precision `T`.
#[derive(Clone, Debug)]
pub struct NdComparison<T = f32> {
    /// tierfft's output (first run; C2R's reals as complex values with zero imaginary
    /// parts) and per-repetition times, seconds.
    pub ours: (Vec<Complex<T>>, Vec<f64>),
    /// cuFFT's output and times on the same input.
    pub cufft: (Vec<Complex<T>>, Vec<f64>),
    /// Device-to-device copy of the complex side's buffer, GB/s counting bytes read plus
    /// written (median of the repetitions).
    pub copy_gbps: f64,
}

/// The input of [`compare_nd`]: reals for R2C, complex values otherwise.
#[non_exhaustive]
pub enum NdData<'a, T = f32> {
    /// R2C input.
    Real(&'a [T]),
    /// C2C and C2R input.
    Complex(&'a [Complex<T>]),
}

/// A precision cuFFT transforms in: its plan types and calls, on buffers of 4-byte words.
pub trait CufftReal: RealElement
where
    Complex<Self>: Element,
{
    /// cuFFT's C2C, R2C and C2R types in this precision (Z2Z, D2Z, Z2D for f64).
    const TYPES: [cufft_sys::cufftType; 3];
    /// Complex to complex, `len` values each side.
    fn c2c(
        plan: &CuFftPlan,
        src: &mut CudaViewMut<'_, f32>,
        dst: &mut CudaViewMut<'_, f32>,
        len: (usize, usize),
        direction: FftDirection,
    ) -> Result<()>;
    /// Reals to complex values.
    fn r2c(
        plan: &CuFftPlan,
        src: &CudaView<'_, f32>,
        dst: &mut CudaViewMut<'_, f32>,
        len: (usize, usize),
    ) -> Result<()>;
    /// Complex values to reals.
    fn c2r(
        plan: &CuFftPlan,
        src: &mut CudaViewMut<'_, f32>,
        dst: &mut CudaViewMut<'_, f32>,
        len: (usize, usize),
    ) -> Result<()>;
}

/// `s` as `len` values of `S` (`None` from cudarc, an error here, when the buffer is
/// shorter).
fn view<'a, S>(s: &'a mut CudaViewMut<'_, f32>, len: usize) -> Result<CudaViewMut<'a, S>> {
    // SAFETY: the buffers hold values of the plan's precision as 4-byte words: f32 pairs
    // are valid `float2`, f32 word pairs valid f64 and quadruples `double2` (cudarc's
    // allocations are at least 256-byte aligned); cudarc checks the length.
    unsafe { s.transmute_mut::<S>(len) }.ok_or_else(|| gpu("buffer view"))
}

fn cufft_err(e: impl std::fmt::Debug) -> Error {
    gpu(format!("cuFFT exec: {e:?}"))
}

impl CufftReal for f32 {
    const TYPES: [cufft_sys::cufftType; 3] = [
        cufft_sys::cufftType::CUFFT_C2C,
        cufft_sys::cufftType::CUFFT_R2C,
        cufft_sys::cufftType::CUFFT_C2R,
    ];
    fn c2c(
        plan: &CuFftPlan,
        src: &mut CudaViewMut<'_, f32>,
        dst: &mut CudaViewMut<'_, f32>,
        (a, b): (usize, usize),
        direction: FftDirection,
    ) -> Result<()> {
        let mut out = view::<cufft_sys::float2>(dst, b)?;
        plan.exec_c2c(&mut view::<cufft_sys::float2>(src, a)?, &mut out, direction)
            .map_err(cufft_err)
    }
    fn r2c(
        plan: &CuFftPlan,
        src: &CudaView<'_, f32>,
        dst: &mut CudaViewMut<'_, f32>,
        (_, b): (usize, usize),
    ) -> Result<()> {
        plan.exec_r2c(src, &mut view::<cufft_sys::float2>(dst, b)?)
            .map_err(cufft_err)
    }
    fn c2r(
        plan: &CuFftPlan,
        src: &mut CudaViewMut<'_, f32>,
        dst: &mut CudaViewMut<'_, f32>,
        (a, _): (usize, usize),
    ) -> Result<()> {
        plan.exec_c2r(&mut view::<cufft_sys::float2>(src, a)?, dst)
            .map_err(cufft_err)
    }
}

impl CufftReal for f64 {
    const TYPES: [cufft_sys::cufftType; 3] = [
        cufft_sys::cufftType::CUFFT_Z2Z,
        cufft_sys::cufftType::CUFFT_D2Z,
        cufft_sys::cufftType::CUFFT_Z2D,
    ];
    fn c2c(
        plan: &CuFftPlan,
        src: &mut CudaViewMut<'_, f32>,
        dst: &mut CudaViewMut<'_, f32>,
        (a, b): (usize, usize),
        direction: FftDirection,
    ) -> Result<()> {
        let mut out = view::<cufft_sys::double2>(dst, b)?;
        plan.exec_z2z(
            &mut view::<cufft_sys::double2>(src, a)?,
            &mut out,
            direction,
        )
        .map_err(cufft_err)
    }
    fn r2c(
        plan: &CuFftPlan,
        src: &CudaView<'_, f32>,
        dst: &mut CudaViewMut<'_, f32>,
        (a, b): (usize, usize),
    ) -> Result<()> {
        // SAFETY: as in `view`: f32 word pairs are valid f64 values.
        let src = unsafe { src.transmute::<f64>(a) }.ok_or_else(|| gpu("buffer view"))?;
        plan.exec_d2z(&src, &mut view::<cufft_sys::double2>(dst, b)?)
            .map_err(cufft_err)
    }
    fn c2r(
        plan: &CuFftPlan,
        src: &mut CudaViewMut<'_, f32>,
        dst: &mut CudaViewMut<'_, f32>,
        (a, b): (usize, usize),
    ) -> Result<()> {
        let mut out = view::<f64>(dst, b)?;
        plan.exec_z2d(&mut view::<cufft_sys::double2>(src, a)?, &mut out)
            .map_err(cufft_err)
    }
}

/// `b`'s memory as a cudarc view, or an error for a buffer of another device.
fn view_of<T: Element>(b: &DeviceBuffer<T>) -> Result<CudaView<'_, f32>> {
    b.cuda_view()
        .ok_or_else(|| Error::InvalidSpec("the comparison runs on CUDA buffers".into()))
}

/// `b`'s memory as a mutable cudarc view, or an error for a buffer of another device.
fn slice<T: Element>(b: &mut DeviceBuffer<T>) -> Result<CudaViewMut<'_, f32>> {
    b.cuda_view_mut()
        .ok_or_else(|| Error::InvalidSpec("the comparison runs on CUDA buffers".into()))
}

/// Runs `fft` and cuFFT on `input` (the first, checked run of each on its own copy of it:
/// both may overwrite their input; the timed repetitions reuse the overwritten copies, whose
/// values do not change the time) `reps` times each, interleaved, timing each call with CUDA
/// events. The spec must transform the trailing axes in order (what one cuFFT plan does),
/// unnormalised; `device` is the CUDA device `fft` was planned on.
pub fn compare_nd<T: CufftReal>(
    device: &Device,
    fft: &NdFft,
    input: NdData<T>,
    reps: usize,
) -> Result<NdComparison<T>>
where
    Complex<T>: Element,
{
    let spec = fft.spec();
    let rank = spec.shape.len();
    let k = spec.axes.len();
    if k > 3 || spec.axes != (rank - k..rank).collect::<Vec<_>>() || spec.normalize {
        return Err(Error::InvalidSpec(
            "the cuFFT comparison takes up to three trailing axes in order, unnormalised".into(),
        ));
    }
    let dev = cuda_of(device, "the cuFFT comparison")?;
    let dev = &*dev;
    let stream = dev.stream();
    let dims: Vec<i32> = spec.shape[rank - k..].iter().map(|&d| d as i32).collect();
    let batch: usize = spec.shape[..rank - k].iter().product();
    let ty = match spec.kind() {
        Kind::ComplexToComplex => T::TYPES[0],
        Kind::RealToComplex => T::TYPES[1],
        Kind::ComplexToReal => T::TYPES[2],
        other => {
            return Err(Error::InvalidSpec(format!(
                "the cuFFT comparison runs C2C, R2C and C2R transforms, not {other:?}"
            )));
        }
    };
    let plan = CuFftPlan::plan_many(
        &dims,
        None,
        1,
        0,
        None,
        1,
        0,
        ty,
        batch as i32,
        stream.clone(),
    )
    .map_err(|e| gpu(format!("cuFFT plan for {:?}: {e:?}", spec.shape)))?;
    let (in_len, out_len) = (spec.input_len(), spec.output_len());
    let given = match input {
        NdData::Real(x) => x.len(),
        NdData::Complex(x) => x.len(),
    };
    if given != in_len {
        return Err(Error::InvalidSpec(format!(
            "the comparison's input holds {given} values, the transform needs {in_len}"
        )));
    }
    let complex_len = in_len.max(out_len);
    let lens = (in_len, out_len);
    let direction = match spec.direction {
        Direction::Forward => FftDirection::Forward,
        Direction::Inverse => FftDirection::Inverse,
        other => {
            return Err(Error::InvalidSpec(format!(
                "the cuFFT comparison runs forward or inverse transforms, not {other:?}"
            )));
        }
    };

    // Pristine input, a working copy for each library, an output for each.
    let (ours_out, cufft_out, ours, theirs) = match (spec.kind(), input) {
        (Kind::RealToComplex, NdData::Real(x)) => {
            let pristine = device.upload(x)?;
            let mut work = device.upload(x)?;
            let mut out = device.zeros_of::<Complex<T>>(out_len)?;
            let mut cu_out = device.zeros_of::<Complex<T>>(out_len)?;
            let ours_run = |work: &mut DeviceBuffer<T>, out: &mut DeviceBuffer<Complex<T>>| {
                fft.process_buffer_real_to_complex(work, out)
            };
            ours_run(&mut work, &mut out)?;
            let src = view_of(&pristine)?;
            let cu_run = |cu_out: &mut DeviceBuffer<Complex<T>>| -> Result<()> {
                T::r2c(&plan, &src, &mut slice(cu_out)?, lens)
            };
            cu_run(&mut cu_out)?;
            let (a, b) = (out.download()?, cu_out.download()?);
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            for _ in 0..reps {
                ours.extend(time_events(dev, 1, || ours_run(&mut work, &mut out))?);
                theirs.extend(time_events(dev, 1, || cu_run(&mut cu_out))?);
            }
            (a, b, ours, theirs)
        }
        (Kind::ComplexToReal, NdData::Complex(x)) => {
            let mut work = device.upload(x)?;
            let mut cu_work = device.upload(x)?;
            let mut out = device.zeros_of::<T>(out_len)?;
            let mut cu_out = device.zeros_of::<T>(out_len)?;
            let ours_run = |work: &mut DeviceBuffer<Complex<T>>, out: &mut DeviceBuffer<T>| {
                fft.process_buffer_complex_to_real(work, out)
            };
            let cu_run = |w: &mut DeviceBuffer<Complex<T>>, o: &mut DeviceBuffer<T>| {
                T::c2r(&plan, &mut slice(w)?, &mut slice(o)?, lens)
            };
            ours_run(&mut work, &mut out)?;
            cu_run(&mut cu_work, &mut cu_out)?;
            let widen = |v: Vec<T>| {
                v.into_iter()
                    .map(|r| Complex::new(r, T::default()))
                    .collect()
            };
            let (a, b) = (widen(out.download()?), widen(cu_out.download()?));
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            for _ in 0..reps {
                ours.extend(time_events(dev, 1, || ours_run(&mut work, &mut out))?);
                theirs.extend(time_events(dev, 1, || cu_run(&mut cu_work, &mut cu_out))?);
            }
            (a, b, ours, theirs)
        }
        (Kind::ComplexToComplex, NdData::Complex(x)) => {
            let mut work = device.upload(x)?;
            let mut src = device.upload(x)?;
            let mut cu_out = device.zeros_of::<Complex<T>>(out_len)?;
            fft.process_buffer(&mut work)?;
            let cu_run = |src: &mut DeviceBuffer<Complex<T>>, o: &mut DeviceBuffer<Complex<T>>| {
                T::c2c(&plan, &mut slice(src)?, &mut slice(o)?, lens, direction)
            };
            cu_run(&mut src, &mut cu_out)?;
            let (a, b) = (work.download()?, cu_out.download()?);
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            for _ in 0..reps {
                ours.extend(time_events(dev, 1, || fft.process_buffer(&mut work))?);
                theirs.extend(time_events(dev, 1, || cu_run(&mut src, &mut cu_out))?);
            }
            (a, b, ours, theirs)
        }
        _ => {
            return Err(Error::InvalidSpec(
                "the comparison's input does not match the transform's kind".into(),
            ));
        }
    };
    let a = device.zeros_of::<Complex<T>>(complex_len)?;
    let mut b = device.zeros_of::<Complex<T>>(complex_len)?;
    let (a, mut b) = (view_of(&a)?, slice(&mut b)?);
    let copies = time_events(dev, reps.max(1), || {
        stream.memcpy_dtod(&a, &mut b).map_err(gpu_err("copying"))
    })?;
    let bytes = std::mem::size_of::<Complex<T>>() * complex_len;
    let copy_gbps = 2.0 * bytes as f64 / median(&copies) / 1e9;
    Ok(NdComparison {
        ours: (ours_out, ours),
        cufft: (cufft_out, theirs),
        copy_gbps,
    })
}
